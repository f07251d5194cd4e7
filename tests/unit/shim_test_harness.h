// What the *_vs_cpu tests (shim_vs_cpu_test.cpp; the LAPACK tests, lapack_*vs_cpu_test.cpp,
// through lapack_test_harness.h) share: each dlopen()s libgpushim.so
// and OpenBLAS, calls both through their exported names on identical operands, and runs once
// per CTest variant (tests/unit/variant_tests.cmake). Here: value helpers, the name schemes,
// the loaded libraries, the environment, a probe run in a forked child, and the start of
// main() (settings for the shim, report deletion, library loading). Header-only; each test
// program includes it once.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "fallback/fortran_blas3.h"  // RealOf, scalar_as: type conversions only
#include "tests/unit/clear_gpushim_environment.h"

#ifndef GPUSHIM_SHIM_PATH
#error "GPUSHIM_SHIM_PATH (the path of libgpushim.so) must be defined"
#endif

namespace gpushim::test_harness {

// --- Types and values ---------------------------------------------------------------------
using c32 = std::complex<float>;
using c64 = std::complex<double>;

template <class T>
using Real = typename gpushim::fallback::RealOf<T>::type;
template <class T>
constexpr bool kIsComplex = !std::is_floating_point_v<T>;

// re (+ i im), as a T: a real T drops im.
template <class T>
T make_value(double re, double im) {
    const double value[2] = {re, im};
    return gpushim::fallback::scalar_as<T>(value);
}
template <class T>
T nan_value() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return make_value<T>(nan, nan);
}
template <class T>
T sentinel_value() {
    return make_value<T>(-1234.5, 6789.25);
}
template <class T>
bool same_bits(const T& x, const T& y) {
    return std::memcmp(&x, &y, sizeof(T)) == 0;
}
template <class T>
std::string show(const T& x) {
    std::ostringstream s;
    s.precision(std::numeric_limits<Real<T>>::max_digits10);
    s << x;
    return s.str();
}

using Rng = std::mt19937_64;

template <class T>
T random_value(Rng& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double re = u(rng);
    return make_value<T>(re, u(rng));
}

// --- Name schemes -------------------------------------------------------------------------
enum class Scheme { standard, suffix64, scipy64, scipy32 };

inline bool is_64(Scheme scheme) {
    return scheme == Scheme::suffix64 || scheme == Scheme::scipy64;
}
inline const char* scheme_name(Scheme scheme) {
    switch (scheme) {
        case Scheme::standard:
            return "standard";
        case Scheme::suffix64:
            return "suffix64";
        case Scheme::scipy64:
            return "scipy64";
        case Scheme::scipy32:
            return "scipy32";
    }
    return "?";
}
// Test parameters print by name (found by argument-dependent lookup: keep it beside Scheme).
inline void PrintTo(Scheme scheme, std::ostream* os) {
    *os << scheme_name(scheme);
}

// The exported name of `routine` (dgemm, dpotrf) under a scheme: Fortran, or with `cblas`
// the CBLAS one.
inline std::string symbol_name(const std::string& routine, Scheme scheme, bool cblas = false) {
    switch (scheme) {
        case Scheme::standard:
            return cblas ? "cblas_" + routine : routine + "_";
        case Scheme::suffix64:
            return cblas ? "cblas_" + routine + "64_" : routine + "_64_";
        case Scheme::scipy64:
            return cblas ? "scipy_cblas_" + routine + "64_" : "scipy_" + routine + "_64_";
        case Scheme::scipy32:
            return cblas ? "scipy_cblas_" + routine : "scipy_" + routine + "_";
    }
    return routine;
}

// --- Libraries and environment ------------------------------------------------------------
struct Libraries {
    void* shim = nullptr;
    void* openblas = nullptr;    // 32-bit integers
    void* openblas64 = nullptr;  // 64-bit integers under the plain names; may be missing
};
inline Libraries& libraries() {
    static Libraries instance;
    return instance;
}

inline std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}
inline bool environment_switch(const char* name) {
    std::string value = environment(name);
    for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return !(value.empty() || value == "0" || value == "false" || value == "no" || value == "off");
}

// True when every valid, non-degenerate call certainly completes on the (simulated) device
// (and a factorization's succeeds): the only setting in which names whose CPU symbol does not
// exist may be called.
inline bool device_completes_every_call() {
    return environment("GPUSHIM_BACKEND") == "hostsim" && environment("GPUSHIM_THRESHOLD") == "0" &&
           !environment_switch("GPUSHIM_DISABLE") &&
           !environment_switch("GPUSHIM_HOSTSIM_FAIL_EVERY") &&
           environment("GPUSHIM_HOSTSIM_MEMORY").empty();
}

// Whether `call` returns true in a forked child whose stderr is discarded: how a test asks
// the shim something that, answered no, stops the process with a message (a CPU-bound call
// through names for which the shim finds no CPU symbol).
inline bool succeeds_in_child(bool (*call)()) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, STDERR_FILENO);
        _exit(call() ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// --- main() -------------------------------------------------------------------------------
// The start of a test program's main(): the shim reads its configuration once, at its first
// call, so it is set here before any test runs; then GoogleTest starts and the libraries are
// loaded into libraries(). `openblas64_built_in` (nullptr: not loaded) names the ILP64
// OpenBLAS, overridden by $GPUSHIM_TEST_OPENBLAS64 and loaded first. Returns 0 to go on and
// run the tests, else main()'s exit status: 77 (CTest's SKIP_RETURN_CODE,
// tests/unit/variant_tests.cmake) or 1 (a library does not load).
inline int start_harness(int& argc, char** argv, const char* program, const char* openblas_built_in,
                         const char* openblas64_built_in) {
    // Run by CTest, the program has the gpushim settings its variant names in
    // $TEST_GPUSHIM_SETTINGS and no others (its own GPUSHIM_TEST_* and GPUSHIM_LOG aside): one
    // of the caller's shell (GPUSHIM_DISABLE=1, a threshold) or of a settings file would change
    // what the variant tests. Run by hand, it keeps the caller's.
    if (const char* named = std::getenv("TEST_GPUSHIM_SETTINGS")) {
        const std::string settings = std::string(",") + named + ",";
        testing_support::clear_gpushim_environment([&](std::string_view name) {
            return name.starts_with("GPUSHIM_TEST_") || name == "GPUSHIM_LOG" ||
                   settings.find("," + std::string(name) + ",") != std::string::npos;
        });
    }
    bool death_test_child = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strstr(argv[i], "internal_run_death_test") != nullptr) death_test_child = true;
    }
    const auto path_of = [](const char* variable, const char* built_in) {
        const std::string value = environment(variable);
        return value.empty() ? std::string(built_in) : value;
    };
    const std::string openblas = path_of("GPUSHIM_TEST_OPENBLAS", openblas_built_in);
    // The backend under test: $TEST_GPUSHIM_BACKEND (a harness variable, not a setting of
    // the shim), default hostsim. The faults and small_device variants set GPUSHIM_HOSTSIM_*,
    // which only the host-simulated device understands: with another backend they skip.
    const std::string test_backend = environment("TEST_GPUSHIM_BACKEND");
    setenv("GPUSHIM_BACKEND", test_backend.empty() ? "hostsim" : test_backend.c_str(), 0);
    if (environment("GPUSHIM_BACKEND") != "hostsim") {
        for (const char* name : {"GPUSHIM_HOSTSIM_FAIL_EVERY", "GPUSHIM_HOSTSIM_MEMORY"}) {
            if (!environment(name).empty()) {
                std::printf("SKIP: %s needs GPUSHIM_BACKEND=hostsim, not %s\n", name,
                            environment("GPUSHIM_BACKEND").c_str());
                return 77;
            }
        }
    }
    setenv("GPUSHIM_THRESHOLD", "0", 0);
    // The standard names' CPU library; the 64_ names are not in it: with GPUSHIM_CPU_BLAS
    // empty, the shim must find Debian's ILP64 OpenBLAS for them by itself.
    setenv("GPUSHIM_CPU_BLAS", openblas.c_str(), 0);
    setenv("OPENBLAS_NUM_THREADS", "1", 0);  // small calls; deterministic and quick
    // A report left by an earlier run must not pass for this run's (it is written at exit).
    const std::string report = environment("GPUSHIM_REPORT");
    if (!death_test_child && report.size() > 5 && report.find('%') == std::string::npos &&
        report.compare(report.size() - 5, 5, ".json") == 0) {
        std::remove(report.c_str());
    }

    testing::InitGoogleTest(&argc, argv);

    Libraries& libs = libraries();
    if (openblas64_built_in != nullptr) {
        // The ILP64 library first: a shim that searched the loaded libraries for dpotrf_
        // without checking the integer width would take its dpotrf_ (64-bit integers) for a
        // 32-bit call.
        const std::string openblas64 = path_of("GPUSHIM_TEST_OPENBLAS64", openblas64_built_in);
        libs.openblas64 =
            openblas64.empty() ? nullptr : dlopen(openblas64.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (libs.openblas64 == nullptr) {
            std::printf(
                "%s: no ILP64 OpenBLAS (%s): the 64_ names are compared with the 32-bit "
                "OpenBLAS\n",
                program, openblas64.c_str());
        }
    }
    libs.openblas = dlopen(openblas.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (libs.openblas == nullptr) {
        std::fprintf(stderr, "%s: cannot load the reference OpenBLAS: %s\n", program, dlerror());
        return 1;
    }
    // $GPUSHIM_TEST_SHIM tests another build of the shim (its plugins must lie beside it).
    const std::string shim = path_of("GPUSHIM_TEST_SHIM", GPUSHIM_SHIM_PATH);
    libs.shim = dlopen(shim.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (libs.shim == nullptr) {
        std::fprintf(stderr, "%s: cannot load %s: %s\n", program, shim.c_str(), dlerror());
        return 1;
    }
    return 0;
}

}  // namespace gpushim::test_harness
