// The exported set of libgpushim.so is the routine table under every name scheme, and the
// FFTW functions that create or consume plans or read out or forget wisdom; and it needs no
// library but the C and C++ runtimes, so that a process it is preloaded into loads nothing
// else until a call is worth a device.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shim/blas3_routines.h"
#include "shim/export.h"
#include "shim/fftw_functions.h"
#include "shim/fftw_legacy_functions.h"
#include "shim/lapack_routines.h"
#include "shim/name_schemes.h"

namespace {

#define GPUSHIM_NAMES_OF_ROUTINE(name, KIND, family, T, A, B, fp, fs, cp, cs, Int) \
    GPUSHIM_STRING(fp##name##fs), GPUSHIM_STRING(cp##name##cs),
#define GPUSHIM_NAMES_OF_LAPACK_ROUTINE(name, KIND, family, T, fp, fs, cp, cs, Int) \
    GPUSHIM_STRING(fp##name##fs),
#define GPUSHIM_NAMES_OF_SCHEME(fp, fs, cp, cs, Int)                              \
    GPUSHIM_FOR_EACH_BLAS3_ROUTINE(GPUSHIM_NAMES_OF_ROUTINE, fp, fs, cp, cs, Int) \
    GPUSHIM_FOR_EACH_LAPACK_ROUTINE(GPUSHIM_NAMES_OF_LAPACK_ROUTINE, fp, fs, cp, cs, Int)

#define GPUSHIM_NAME_OF_FFTW_FUNCTION(P, name, ...) GPUSHIM_STRING(P##name),
#define GPUSHIM_NAMES_OF_FFTW_PRECISION(P, Real)                         \
    GPUSHIM_FOR_EACH_FFTW_PLANNER(GPUSHIM_NAME_OF_FFTW_FUNCTION, P, , )  \
    GPUSHIM_FOR_EACH_FFTW_CONSUMER(GPUSHIM_NAME_OF_FFTW_FUNCTION, P, , ) \
    GPUSHIM_FOR_EACH_FFTW_WISDOM_FUNCTION(GPUSHIM_NAME_OF_FFTW_FUNCTION, P)

#define GPUSHIM_NAME_OF_FFTW_LEGACY(symbol) GPUSHIM_STRING(symbol),

const std::set<std::string> kExpectedNames{
    GPUSHIM_FOR_EACH_NAME_SCHEME(GPUSHIM_NAMES_OF_SCHEME)
        GPUSHIM_FOR_EACH_FFTW_PRECISION(GPUSHIM_NAMES_OF_FFTW_PRECISION)
            GPUSHIM_FOR_EACH_FFTW_LEGACY_NAME(GPUSHIM_NAME_OF_FFTW_LEGACY)};

// 30 Level-3 routines with 8 names each; 23 LAPACK routines in 4 precisions with 4 names
// each (Fortran only); 34 FFTW planners, 15 plan consumers and 6 wisdom functions in 2
// precisions; 40 legacy Fortran FFTW functions in 2 precisions, each with the suffixes _
// and __.
TEST(Exports, TablesGiveEveryNameOfEveryScheme) {
    EXPECT_EQ(kExpectedNames.size(), 30u * 8 + 27u * 4 * 4 + (34u + 15u + 6u) * 2 + 40u * 2 * 2);
    for (const char* name : {"dgemm_",
                             "cblas_dgemm",
                             "dgemm_64_",
                             "cblas_dgemm64_",
                             "scipy_dgemm_64_",
                             "scipy_cblas_dgemm64_",
                             "scipy_dgemm_",
                             "scipy_cblas_dgemm",
                             "zher2k_",
                             "scipy_cblas_ctrsm64_",
                             "dgesv_",
                             "zheevd_64_",
                             "scipy_cungqr_",
                             "scipy_sgesdd_64_",
                             "dormqr_",
                             "dsyevr_",
                             "zheevr_64_",
                             "chegvd_",
                             "scipy_zhegv_",
                             "sgeev_",
                             "scipy_zgels_",
                             "dgelsd_64_",
                             "fftw_plan_dft_1d",
                             "fftwf_plan_guru64_split_dft_c2r",
                             "fftw_execute_dft_r2c",
                             "fftwf_sprint_plan",
                             "fftw_estimate_cost",
                             "fftw_export_wisdom_to_filename",
                             "fftwf_cleanup",
                             "dfftw_plan_dft_1d_",
                             "sfftw_execute_dft__",
                             "dfftw_cost_"}) {
        EXPECT_TRUE(kExpectedNames.count(name)) << name;
    }
    // LAPACK's real and complex names differ where it says so.
    for (const char* name : {"sungqr_", "zorgqr_", "dheevd_", "csyev_", "cblas_dgesv", "dheevr_",
                             "csygvd_", "dhegv_"}) {
        EXPECT_FALSE(kExpectedNames.count(name)) << name;
    }
}

TEST(Exports, EveryNameIsDefinedByTheShim) {
    void* shim = dlopen(GPUSHIM_SHIM_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(shim, nullptr) << dlerror();
    for (const std::string& name : kExpectedNames) {
        void* symbol = dlsym(shim, name.c_str());
        ASSERT_NE(symbol, nullptr) << name;
        Dl_info info{};
        ASSERT_NE(dladdr(symbol, &info), 0);
        EXPECT_NE(std::string(info.dli_fname).find("libgpushim.so"), std::string::npos) << name;
    }
    EXPECT_NE(dlsym(shim, "gpushim_version"), nullptr);
    // FFTW's other functions, and its long-double and quad precisions, are FFTW's alone.
    for (const char* hidden :
         {"dgemv_", "cblas_ddot", "_ZN7gpushim6configEv", "zhetrf_", "cblas_dpotrf", "fftw_malloc",
          "fftw_plan_with_nthreads", "fftw_import_wisdom_from_filename", "fftwf_cleanup_threads",
          "fftwl_plan_dft_1d", "fftwq_execute", "dfftw_cleanup_", "sfftw_import_wisdom_"}) {
        EXPECT_EQ(dlsym(shim, hidden), nullptr) << hidden;
    }
}

TEST(Exports, VersionScriptListsExactlyTheTableAndTheCApi) {
    std::ifstream file(GPUSHIM_EXPORTS_MAP_PATH);
    ASSERT_TRUE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    std::set<std::string> listed;
    std::string token;
    for (std::istringstream words(text.str()); words >> token;) {
        if (token.back() != ';' || token == "*;" || token.find('}') != std::string::npos) continue;
        token.pop_back();
        if (token == "gpushim_*") continue;
        listed.insert(token);
    }
    EXPECT_EQ(listed, kExpectedNames);
}

// A 64-bit ELF shared object as read from its file, or why it is not one.
struct ElfObject {
    std::string image;
    Elf64_Ehdr header{};
    std::string problem;

    Elf64_Shdr section(std::size_t index) const {
        Elf64_Shdr section_header{};
        std::memcpy(&section_header, image.data() + header.e_shoff + index * header.e_shentsize,
                    sizeof section_header);
        return section_header;
    }

    // Each entry of every section of `type`, with the string table the section links to.
    template <typename Entry, typename Visit>
    void for_each_entry(Elf64_Word type, Visit visit) const {
        for (std::size_t i = 0; i < header.e_shnum; ++i) {
            const Elf64_Shdr table = section(i);
            if (table.sh_type != type) continue;
            const char* strings = image.data() + section(table.sh_link).sh_offset;
            for (std::size_t at = table.sh_offset;
                 at + sizeof(Entry) <= table.sh_offset + table.sh_size; at += sizeof(Entry)) {
                Entry entry{};
                std::memcpy(&entry, image.data() + at, sizeof entry);
                visit(entry, strings);
            }
        }
    }
};

ElfObject read_elf(const char* path) {
    std::ifstream file(path, std::ios::binary);
    ElfObject object;
    object.image.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (object.image.size() < sizeof object.header) {
        object.problem = "(not an ELF file)";
        return object;
    }
    std::memcpy(&object.header, object.image.data(), sizeof object.header);
    if (std::memcmp(object.header.e_ident, ELFMAG, SELFMAG) != 0 ||
        object.header.e_ident[EI_CLASS] != ELFCLASS64)
        object.problem = "(not a 64-bit ELF file)";
    return object;
}

// The DT_NEEDED entries of a shared object, from its dynamic section.
std::set<std::string> needed_libraries(const char* path) {
    const ElfObject object = read_elf(path);
    if (!object.problem.empty()) return {object.problem};
    std::set<std::string> needed;
    object.for_each_entry<Elf64_Dyn>(SHT_DYNAMIC, [&](const Elf64_Dyn& entry, const char* strings) {
        if (entry.d_tag == DT_NEEDED) needed.insert(strings + entry.d_un.d_val);
    });
    return needed;
}

// The symbols a shared object takes from others, from its dynamic symbol table, without
// their versions.
std::set<std::string> imported_symbols(const char* path) {
    const ElfObject object = read_elf(path);
    if (!object.problem.empty()) return {object.problem};
    std::set<std::string> imported;
    object.for_each_entry<Elf64_Sym>(SHT_DYNSYM, [&](const Elf64_Sym& symbol, const char* strings) {
        if (symbol.st_shndx == SHN_UNDEF && symbol.st_name != 0)
            imported.insert(strings + symbol.st_name);
    });
    return imported;
}

// Thread-local storage of the general-dynamic model would add the dynamic loader
// (__tls_get_addr); cuBLAS and the CUDA runtime are the device plugin's, loaded only when a
// call is worth a device.
TEST(Exports, TheShimNeedsOnlyTheCAndCxxRuntimes) {
    const std::set<std::string> allowed{"libc.so.6", "libm.so.6", "libstdc++.so.6",
                                        "libgcc_s.so.1"};
    // A sanitizer build (GPUSHIM_SANITIZER) links the sanitizers' runtimes too (libtsan.so.2;
    // libasan.so.8 and libubsan.so.1), named here as "libasan,libubsan".
    std::vector<std::string> sanitizer_runtimes;
    std::istringstream runtime_names(GPUSHIM_SANITIZER_RUNTIMES);
    for (std::string name; std::getline(runtime_names, name, ',');)
        if (!name.empty()) sanitizer_runtimes.push_back(name);
    const auto is_runtime = [](const std::string& library, const std::string& runtime) {
        return library.starts_with(runtime + ".so.");
    };
    const std::set<std::string> needed = needed_libraries(GPUSHIM_SHIM_PATH);
    EXPECT_TRUE(needed.contains("libc.so.6")) << "the dynamic section was not read";
    for (const std::string& runtime : sanitizer_runtimes) {
        EXPECT_TRUE(std::ranges::any_of(
            needed, [&](const std::string& library) { return is_runtime(library, runtime); }))
            << "a build with GPUSHIM_SANITIZER, but the shim does not need " << runtime;
    }
    for (const std::string& library : needed)
        EXPECT_TRUE(allowed.contains(library) ||
                    std::ranges::any_of(
                        sanitizer_runtimes,
                        [&](const std::string& runtime) { return is_runtime(library, runtime); }))
            << library;
}

// A device plugin is loaded with dlopen, so its thread_local variables live in dynamic TLS. A
// destructor of one (registered through __cxa_thread_atexit) runs as its thread exits, and
// glibc frees that TLS later on another thread, with no ordering ThreadSanitizer can see: CI's
// TSan run reported it as a race when NumPy's worker threads had read the CUDA plugin's error
// text. Neither plugin needs such a variable.
TEST(Exports, DevicePluginsRegisterNoThreadLocalDestructors) {
    std::vector<std::string> plugins{GPUSHIM_HOSTSIM_PATH};
    if (!std::string(GPUSHIM_CUDA_PLUGIN_PATH).empty())
        plugins.emplace_back(GPUSHIM_CUDA_PLUGIN_PATH);
    for (const std::string& plugin : plugins) {
        const std::set<std::string> imported = imported_symbols(plugin.c_str());
        EXPECT_TRUE(imported.contains("memcpy")) << plugin << ": the symbol table was not read";
        for (const char* registration : {"__cxa_thread_atexit", "__cxa_thread_atexit_impl"})
            EXPECT_FALSE(imported.contains(registration)) << plugin << " imports " << registration;
    }
}

}  // namespace
