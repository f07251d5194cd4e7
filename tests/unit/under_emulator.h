// Whether the test program runs under an emulator: a cross build's tests run under qemu-user
// (.ci/cross-aarch64), and the build tells them so (TEST_GPUSHIM_EMULATOR). The emulator cannot
// run the test program again (gtest's "threadsafe" death tests), and computes ten to forty
// times slower.
#pragma once

#include <cstdlib>

namespace gpushim::testing_support {

inline bool under_emulator() {
    return std::getenv("TEST_GPUSHIM_EMULATOR") != nullptr;
}

}  // namespace gpushim::testing_support
