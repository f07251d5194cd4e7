#include "fallback/symbol_resolver.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "dispatch/routines.h"

namespace gpushim::fallback {
namespace {

const void* shim_base() {
    static const void* base = [] {
        Dl_info info{};
        dladdr(reinterpret_cast<const void*>(&shim_base), &info);
        return info.dli_fbase;
    }();
    return base;
}

// Whether the library defining `function` takes 64-bit integers, when it says. Debian's
// ILP64 OpenBLAS uses the plain names (dgemm_, cblas_dgemm), so a name does not tell; an
// OpenBLAS's configuration string does.
std::optional<bool> defined_with_64bit_integers(void* function) {
    Dl_info info{};
    if (dladdr(function, &info) == 0 || info.dli_fname == nullptr) return std::nullopt;
    void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return std::nullopt;
    using ConfigFunction = const char* (*)();
    auto config_of = reinterpret_cast<ConfigFunction>(dlsym(handle, "openblas_get_config"));
    const char* configuration = config_of != nullptr ? config_of() : nullptr;
    dlclose(handle);
    if (configuration == nullptr) return std::nullopt;
    return std::strstr(configuration, "USE64BITINT") != nullptr;
}

// A candidate is usable when it is not the shim's own definition and, as far as its
// library tells, takes the integers the caller passes.
void* usable(void* candidate, bool wants_64bit_integers) {
    if (candidate == nullptr || is_inside_shim(candidate)) return nullptr;
    const std::optional<bool> wide = defined_with_64bit_integers(candidate);
    return (!wide.has_value() || *wide == wants_64bit_integers) ? candidate : nullptr;
}

// Looks the symbol up in one loaded object. dlsym on a handle searches that object and its
// dependencies, which may include the shim: usable() filters it out.
void* lookup_in_loaded_object(const char* path, const char* symbol, bool wants_64bit_integers) {
    void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return nullptr;
    void* found = usable(dlsym(handle, symbol), wants_64bit_integers);
    dlclose(handle);
    return found;
}

// The paths of the loaded objects, in load order, but the shim, the main program and the
// vDSO. Only collected inside dl_iterate_phdr: glibc holds its loader lock there, and a
// dlopen or dlsym from the callback would deadlock against a thread loading a library.
// The shim's base address is found before (dladdr takes the loader's other lock, which a
// loading thread holds while it waits for this one).
struct LoadedObjects {
    const void* shim_base;
    std::vector<std::string> paths;
};

int collect_loaded_object(dl_phdr_info* info, size_t, void* data) {
    auto* loaded = static_cast<LoadedObjects*>(data);
    const char* path = info->dlpi_name;
    if (path == nullptr || *path == '\0') return 0;
    if (reinterpret_cast<const void*>(info->dlpi_addr) == loaded->shim_base) return 0;
    loaded->paths.emplace_back(path);
    return 0;
}

void* lookup_in_library(const std::string& path, const char* symbol, bool wants_64bit_integers) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return nullptr;
    // Kept open: the resolved function lives in it for the rest of the process.
    return usable(dlsym(handle, symbol), wants_64bit_integers);
}

// The next definition after the shim in the global scope, else the first in a loaded
// object.
void* find_in_loaded_objects(const char* symbol, bool wants_64bit_integers) {
    if (void* next = usable(dlsym(RTLD_NEXT, symbol), wants_64bit_integers)) return next;
    LoadedObjects loaded{shim_base(), {}};
    dl_iterate_phdr(collect_loaded_object, &loaded);
    for (const std::string& path : loaded.paths) {
        if (void* found = lookup_in_loaded_object(path.c_str(), symbol, wants_64bit_integers))
            return found;
    }
    return nullptr;
}

// A Fortran name without its scheme's decorations: scipy_dgesv_64_, dgesv_64_ and dgesv_
// are dgesv.
std::string_view fortran_routine(std::string_view symbol) {
    if (symbol.starts_with("scipy_")) symbol.remove_prefix(6);
    if (symbol.ends_with("_64_")) {
        symbol.remove_suffix(4);
    } else if (symbol.ends_with('_')) {
        symbol.remove_suffix(1);
    }
    return symbol;
}

bool is_lapack_routine(std::string_view symbol) {
    const std::string_view routine = fortran_routine(symbol);
    return std::ranges::any_of(kLapackRoutineNames,
                               [routine](std::string_view name) { return name == routine; });
}

}  // namespace

void* find_loaded_symbol(const char* symbol) {
    return find_in_loaded_objects(symbol, false);
}

bool is_inside_shim(const void* address) {
    Dl_info info{};
    return dladdr(address, &info) != 0 && info.dli_fbase == shim_base();
}

std::string library_of(const void* address) {
    Dl_info info{};
    if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "(unknown library)";
    return info.dli_fname;
}

std::vector<DefaultLocation> default_locations(const std::string& symbol) {
    if (symbol.starts_with("scipy_")) return {};  // only ever found inside a loaded wheel
    if (symbol.starts_with("fftwf_")) return {{"libfftw3f.so.3", symbol}};
    if (symbol.starts_with("fftw_")) return {{"libfftw3.so.3", symbol}};
    // dgemm_64_ is dgemm_ of an ILP64 library, cblas_dgemm64_ its cblas_dgemm.
    if (symbol.ends_with("64_")) {
        return {{"libopenblas64_.so.0", symbol},
                {"libopenblas64.so.0", symbol.substr(0, symbol.size() - 3)}};
    }
    return {{"libopenblas.so.0", symbol}, {"libblas.so.3", symbol}, {"liblapack.so.3", symbol}};
}

void* find_cpu_symbol(const char* symbol, const std::string& override_path) {
    const bool wide = std::string_view(symbol).ends_with("64_");
    if (!override_path.empty()) {
        if (void* chosen = lookup_in_library(override_path, symbol, wide)) return chosen;
        log::write(log::Level::debug, "%s is not in the override %s; searching the process", symbol,
                   override_path.c_str());
    }
    if (void* loaded = find_in_loaded_objects(symbol, wide)) return loaded;
    if (void* in_main_program = usable(dlsym(RTLD_DEFAULT, symbol), wide)) return in_main_program;
    for (const DefaultLocation& location : default_locations(symbol)) {
        if (void* found = lookup_in_library(location.library, location.symbol.c_str(), wide))
            return found;
    }
    return nullptr;
}

CpuLibrarySetting cpu_library_setting(std::string_view symbol, const Config& settings) {
    if (symbol.starts_with("fftw"))
        return {"GPUSHIM_CPU_FFTW", "FFTW", settings.cpu_fftw, "GPUSHIM_CPU_FFTW"};
    if (is_lapack_routine(symbol)) {
        if (!settings.cpu_lapack.empty())
            return {"GPUSHIM_CPU_LAPACK", "LAPACK", settings.cpu_lapack, "GPUSHIM_CPU_LAPACK"};
        return {"GPUSHIM_CPU_LAPACK", "LAPACK", settings.cpu_blas, "GPUSHIM_CPU_BLAS"};
    }
    return {"GPUSHIM_CPU_BLAS", "BLAS", settings.cpu_blas, "GPUSHIM_CPU_BLAS"};
}

void* resolve_cpu_symbol(const char* symbol) {
    const CpuLibrarySetting setting = cpu_library_setting(symbol, config());
    void* found = find_cpu_symbol(symbol, setting.path);
    if (found == nullptr) {
        if (setting.path.empty()) {
            std::fprintf(stderr,
                         "gpushim: error: no CPU library in this process defines %s; set %s to "
                         "the path of a %s library that does\n",
                         symbol, setting.variable, setting.kind);
        } else {
            std::fprintf(stderr,
                         "gpushim: error: %s=%s cannot be loaded or does not define %s, nor does "
                         "any other CPU library in this process; set %s to the path of a %s "
                         "library that does\n",
                         setting.path_variable, setting.path.c_str(), symbol, setting.variable,
                         setting.kind);
        }
        std::abort();
    }
    Dl_info info{};
    if (log::enabled(log::Level::debug) && dladdr(found, &info) != 0) {
        log::write(log::Level::debug, "%s on the CPU comes from %s", symbol, info.dli_fname);
    }
    return found;
}

}  // namespace gpushim::fallback
