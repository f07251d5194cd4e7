#include "tools/info_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dispatch/config.h"
#include "dispatch/routines.h"
#include "dispatch/settings_file.h"
#include "fallback/symbol_resolver.h"
#include "gpu/backend.h"
#include "gpu/device_choice.h"
#include "gpu/residency_cache.h"

namespace gpushim::tools {
namespace {

// Where a call of `symbol` would go on the CPU.
std::string cpu_library(const char* symbol, const Config& settings) {
    void* address =
        fallback::find_cpu_symbol(symbol, fallback::cpu_library_setting(symbol, settings).path);
    return address != nullptr ? fallback::library_of(address) : "not found";
}
std::string or_default(const std::string& value, const char* fallback) {
    return value.empty() ? fallback : value;
}

std::string device_setting(const DeviceChoice& device) {
    switch (device.kind) {
        case DeviceChoice::Kind::number:
            return std::to_string(device.number);
        case DeviceChoice::Kind::local_rank:
            if (const auto local = gpu::launcher_local_rank(
                    [](const char* name) -> const char* { return std::getenv(name); })) {
                return "local-rank (" + std::to_string(local->rank) + ", from " + local->variable +
                       ")";
            }
            return "local-rank (no launcher's local rank in the environment)";
        case DeviceChoice::Kind::current:
            break;
    }
    return "unset (the device current on the thread of the first offloaded call)";
}

}  // namespace

int run_info() {
    std::printf("gpushim %s\n", GPUSHIM_VERSION);

    const SettingsFile& file = process_settings_file();
    std::printf("settings file: %s\n", or_default(file.path, "none").c_str());
    const Config& settings = config();  // warns here about bad values, as the library would
    std::printf("GPUSHIM_DISABLE: %s\n", settings.disabled ? "1 (everything on the CPU)" : "0");
    std::printf(
        "GPUSHIM_VERIFY: %s\n",
        settings.verify
            ? "1 (each BLAS call, FFT and main LAPACK call the GPU computed, checked on the CPU)"
            : "0");
    std::printf("GPUSHIM_BACKEND: %s\n", settings.backend.c_str());
    std::printf("GPUSHIM_DEVICE: %s\n", device_setting(settings.device).c_str());
    std::printf("GPUSHIM_COPY_THREADS: %u\n", settings.copy_threads);
    std::printf("GPUSHIM_PANEL_BYTES: %zu\n", settings.panel_bytes);
    if (settings.cache_bytes) {
        std::printf("GPUSHIM_CACHE_BYTES: %zu\n", *settings.cache_bytes);
    } else {
        std::printf("GPUSHIM_CACHE_BYTES: a quarter of the device's memory\n");
    }
    std::printf("GPUSHIM_REPORT: %s\n", or_default(settings.report, "off").c_str());

    for (const char* name : {"GPUSHIM_THRESHOLD", "GPUSHIM_THRESHOLD_FFT"}) {
        const char* value = setting(name);
        std::printf("%s: %s\n", name, value != nullptr ? value : "unset");
    }
    std::printf(
        "thresholds set per routine (cbrt(multiply-adds) for BLAS, the order for "
        "LAPACK, points for FFTs):");
    bool any = false;
    for (std::size_t i = 0; i < kRoutineCount; ++i) {
        const auto routine = static_cast<Routine>(i);
        if (setting(threshold_variable(routine_name(routine)).c_str()) == nullptr) continue;
        const double size = settings.offload_size[i];
        std::printf("%s %s %.6g", any ? "," : "", std::string(routine_name(routine)).c_str(),
                    is_fft(routine) ? size : std::cbrt(size));
        any = true;
    }
    std::printf("%s\n", any ? "" : " none");
    std::printf("default thresholds:");
    for (const char* name :
         {"sgemm", "zgemm", "dgetrf", "zgetrf", "dsyevd", "zheevd", "fftw_dft"}) {
        for (std::size_t i = 0; i < kRoutineCount; ++i) {
            const auto routine = static_cast<Routine>(i);
            if (routine_name(routine) == name)
                std::printf(" %s %.6g", name, default_threshold(routine));
        }
    }
    std::printf("\n");

    const gpushim_device_plugin* plugin = gpu::backend();
    std::printf("device: %s\n", gpu::backend_summary().c_str());
    if (std::size_t free_bytes = 0, total_bytes = 0;
        plugin != nullptr && plugin->memory_info(&free_bytes, &total_bytes) == 0) {
        std::printf("device memory: %.2f GB free of %.2f GB\n", free_bytes * 1e-9,
                    total_bytes * 1e-9);
    }
    if (settings.gpu_memory.has_value()) {
        std::printf("device memory gpushim may hold: %.2f GB (GPUSHIM_GPU_MEMORY)\n",
                    static_cast<double>(*settings.gpu_memory) * 1e-9);
    } else {
        std::printf("device memory gpushim may hold: no limit but the device's\n");
    }
    if (plugin != nullptr) {
        const gpu::ResidencyCache* cache = gpu::residency_cache(*plugin);
        if (cache != nullptr) {
            std::printf("residency cache: up to %.2f GB of device memory\n",
                        static_cast<double>(cache->capacity()) * 1e-9);
        } else {
            std::printf("residency cache: off\n");
        }
    }

    std::printf("CPU BLAS (dgemm_): %s\n", cpu_library("dgemm_", settings).c_str());
    std::printf("CPU LAPACK (dgesv_): %s\n", cpu_library("dgesv_", settings).c_str());
    std::printf("FFTW (fftw_execute): %s\n", cpu_library("fftw_execute", settings).c_str());
    return 0;
}

}  // namespace gpushim::tools
