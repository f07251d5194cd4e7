#include "fallback/symbol_resolver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "tests/unit/under_emulator.h"

namespace gpushim::fallback {
namespace {

constexpr const char* kOpenBlas = "libopenblas.so.0";
constexpr const char* kReferenceBlas = GPUSHIM_TEST_REFERENCE_BLAS_PATH;
using testing_support::kNotRunAgain;
using testing_support::kUnderEmulator;

std::string library_of(void* symbol) {
    Dl_info info{};
    if (symbol == nullptr || dladdr(symbol, &info) == 0) return "";
    return info.dli_fname;
}

TEST(SymbolResolver, OverrideComesFirst) {
    void* found = find_cpu_symbol("dgemm_", kReferenceBlas);
    ASSERT_NE(found, nullptr);
    EXPECT_NE(library_of(found).find("blas/libblas.so"), std::string::npos) << library_of(found);
    EXPECT_EQ(find_cpu_symbol("no_such_symbol_", kReferenceBlas), nullptr);
}

TEST(SymbolResolver, NamesTheOverrideLacksAreSearchedFor) {
    void* openblas = dlopen(kOpenBlas, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(openblas, nullptr);
    EXPECT_EQ(find_cpu_symbol("openblas_get_num_threads", kReferenceBlas),
              dlsym(openblas, "openblas_get_num_threads"));
    EXPECT_NE(find_cpu_symbol("dgemm_", "/nonexistent/libblas.so"), nullptr);
}

// In a process of its own ("threadsafe" runs the test program again for it): BLAS libraries
// that other tests of this program load (the reference BLAS, libgpushim.so) would come first
// in load order, and the search would rightly find their cblas_dgemm.
TEST(SymbolResolverDeathTest, FindsALoadedLibraryOpenedLocally) {
    if (kUnderEmulator) GTEST_SKIP() << kNotRunAgain;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            // As NumPy's extension modules do: the library is loaded, but not in the global
            // scope.
            void* handle = dlopen(kOpenBlas, RTLD_NOW | RTLD_LOCAL);
            const bool found = handle != nullptr &&
                               find_cpu_symbol("cblas_dgemm", "") == dlsym(handle, "cblas_dgemm");
            std::exit(found ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

// In this test program the resolver is linked into the executable, which plays the shim.
TEST(SymbolResolver, KnowsWhatIsInsideTheShim) {
    EXPECT_TRUE(is_inside_shim(reinterpret_cast<const void*>(&library_of)));
    void* handle = dlopen(kOpenBlas, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr);
    EXPECT_FALSE(is_inside_shim(dlsym(handle, "dgemm_")));
}

TEST(SymbolResolver, UnknownSymbolIsNotFound) {
    EXPECT_EQ(find_cpu_symbol("gpushim_no_such_routine_", ""), nullptr);
}

TEST(SymbolResolver, DefaultLocationsFollowTheNameScheme) {
    EXPECT_EQ(default_locations("dgemm_").front().library, "libopenblas.so.0");
    EXPECT_EQ(default_locations("dgemm_").front().symbol, "dgemm_");
    const auto fortran64 = default_locations("dgemm_64_");
    ASSERT_EQ(fortran64.size(), 2u);
    EXPECT_EQ(fortran64[0].symbol, "dgemm_64_");
    EXPECT_EQ(fortran64[1].library, "libopenblas64.so.0");
    EXPECT_EQ(fortran64[1].symbol, "dgemm_");
    EXPECT_EQ(default_locations("cblas_zherk64_")[1].symbol, "cblas_zherk");
    EXPECT_TRUE(default_locations("scipy_dgemm_64_").empty());
}

TEST(SymbolResolver, SuffixedNamesFindDebiansIlp64OpenBlas) {
    if (dlopen("libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL) == nullptr) {
        GTEST_SKIP() << "libopenblas64-0 is not installed";
    }
    EXPECT_NE(find_cpu_symbol("dgemm_64_", ""), nullptr);
    EXPECT_NE(find_cpu_symbol("cblas_dgemm64_", ""), nullptr);
}

// In a process of its own, where the ILP64 library is the first BLAS loaded.
TEST(SymbolResolverDeathTest, PlainNamesSkipAnIlp64OpenBlasLoadedFirst) {
    if (dlopen("libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL) == nullptr) {
        GTEST_SKIP() << "libopenblas64-0 is not installed";
    }
    if (kUnderEmulator) GTEST_SKIP() << kNotRunAgain;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            void* ilp64 = dlopen("libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL);
            void* plain = find_cpu_symbol("cblas_dgemm", "");
            if (ilp64 == nullptr || plain == nullptr || plain == dlsym(ilp64, "cblas_dgemm")) {
                std::exit(1);
            }
            const std::string wrong_width_override =
                library_of(find_cpu_symbol("dgemm_", "libopenblas64.so.0"));
            if (wrong_width_override.find("libopenblas64") != std::string::npos) std::exit(2);
            std::exit(find_cpu_symbol("dgemm_64_", "") == dlsym(ilp64, "dgemm_") ? 0 : 3);
        },
        testing::ExitedWithCode(0), "");
}

// The search of loaded objects must not hold the loader's lock while it looks into them:
// another thread loading a library at the same time would deadlock with it.
TEST(SymbolResolverDeathTest, SearchingWhileAnotherThreadLoadsLibrariesDoesNotHang) {
    EXPECT_EXIT(
        {
            alarm(60);
            ASSERT_NE(dlopen(kOpenBlas, RTLD_NOW | RTLD_LOCAL), nullptr);
            std::atomic<bool> stop{false};
            std::thread loader([&] {
                // A short pause between loads: without it the loader thread could take the
                // loader's lock back at once, every time, and starve the search on a busy
                // machine (slow, not deadlocked).
                while (!stop.load()) {
                    if (void* handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL)) dlclose(handle);
                    std::this_thread::sleep_for(std::chrono::microseconds(20));
                }
            });
            bool all_found = true;
            for (int i = 0; i < 2000; ++i) {
                // The alarm stands for a search that stops, not for a slow machine (about 10 s
                // in all under ThreadSanitizer, beside other tests): re-armed as searches end.
                if (i % 100 == 0) alarm(60);
                all_found = all_found && find_cpu_symbol("cblas_dgemm", "") != nullptr;
            }
            stop.store(true);
            loader.join();
            std::exit(all_found ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

TEST(SymbolResolver, EachKindOfRoutineHasItsOwnSetting) {
    Config settings;
    settings.cpu_blas = "blas.so";
    settings.cpu_fftw = "fftw.so";
    for (const char* blas : {"dgemm_", "dgemm_64_", "cblas_zherk", "scipy_cblas_dgemm64_",
                             "scipy_strsm_", "openblas_get_config"}) {
        const CpuLibrarySetting setting = cpu_library_setting(blas, settings);
        EXPECT_STREQ(setting.variable, "GPUSHIM_CPU_BLAS") << blas;
        EXPECT_EQ(setting.path, "blas.so") << blas;
    }
    EXPECT_STREQ(cpu_library_setting("fftwf_execute", settings).variable, "GPUSHIM_CPU_FFTW");
    EXPECT_EQ(cpu_library_setting("fftw_plan_dft_1d", settings).path, "fftw.so");

    // The LAPACK routines take GPUSHIM_CPU_BLAS's library while GPUSHIM_CPU_LAPACK is unset.
    const char* lapack[] = {"dgesv_", "zheevd_64_", "scipy_sgesdd_", "scipy_cungqr_64_"};
    for (const char* routine : lapack) {
        const CpuLibrarySetting setting = cpu_library_setting(routine, settings);
        EXPECT_STREQ(setting.variable, "GPUSHIM_CPU_LAPACK") << routine;
        EXPECT_STREQ(setting.path_variable, "GPUSHIM_CPU_BLAS") << routine;
        EXPECT_EQ(setting.path, "blas.so") << routine;
    }
    settings.cpu_lapack = "lapack.so";
    for (const char* routine : lapack) {
        const CpuLibrarySetting setting = cpu_library_setting(routine, settings);
        EXPECT_STREQ(setting.path_variable, "GPUSHIM_CPU_LAPACK") << routine;
        EXPECT_EQ(setting.path, "lapack.so") << routine;
    }
    EXPECT_EQ(cpu_library_setting("dgemm_", settings).path, "blas.so");
}

TEST(SymbolResolverDeathTest, NothingFoundStopsWithAMessage) {
    EXPECT_DEATH(
        resolve_cpu_symbol("gpushim_no_such_routine_"),
        "no CPU library in this process defines gpushim_no_such_routine_; set GPUSHIM_CPU_BLAS");
}

}  // namespace
}  // namespace gpushim::fallback
