// Whether the test program is built to run under an emulator: a cross build's tests run under
// qemu-user (.ci/cross-aarch64), which cannot run the test program again (gtest's
// "threadsafe" death tests) and computes ten to forty times slower. Set at build time
// (tests/unit/CMakeLists.txt), so that no setting of a native run can skip a test.
#pragma once

namespace gpushim::testing_support {

#ifdef GPUSHIM_TEST_UNDER_EMULATOR
inline constexpr bool kUnderEmulator = true;
#else
inline constexpr bool kUnderEmulator = false;
#endif

inline constexpr const char* kNotRunAgain = "the emulator cannot run the test program again";

}  // namespace gpushim::testing_support
