// Settings from GPUSHIM_* environment variables, read once at the first intercepted call.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/routines.h"

namespace gpushim {

// Which of the devices the plugin finds it runs on (GPUSHIM_DEVICE).
struct DeviceChoice {
    enum class Kind {
        current,     // the one current on the thread of the first offloaded call
        number,      // `number`, as CUDA numbers the devices the process sees
        local_rank,  // the process's rank among its node's, from its launcher, modulo the count
    };
    Kind kind = Kind::current;
    unsigned number = 0;
    bool operator==(const DeviceChoice&) const = default;
};

struct Config {
    bool disabled = false;
    // GPUSHIM_VERIFY: each Level-3 BLAS call the device computed is checked on the CPU
    // (dispatch/blas3_check.h).
    bool verify = false;
    // The size from which a routine's calls are offloaded: threshold^3 multiply-adds
    // (BLAS: cbrt(multiply-adds) >= threshold), order^3 >= threshold^3 (LAPACK), and for
    // the FFTs the threshold itself, in points per transform times howmany.
    std::array<double, kRoutineCount> offload_size{};
    std::string backend = "cuda";
    std::string report;               // empty: no report; "1": table on stderr; else a file path
    // Every call timed and recorded: a report was asked for, or the call trace.
    bool collect_statistics = false;
    bool trace_calls = false;  // GPUSHIM_LOG=trace: a line for each call
    std::string cpu_blas;
    std::string cpu_lapack;  // empty: the LAPACK routines come from where cpu_blas says
    std::string cpu_fftw;
    // Host threads that pack operands into pinned staging and unpack results.
    unsigned copy_threads = 1;
    // Output bytes per panel: large calls are split into panels whose transfers overlap
    // the computation of their neighbours.
    std::size_t panel_bytes = std::size_t{64} << 20;
    // Device memory that keeps copies of operands for later calls (0: none); unset, a
    // quarter of the device's memory.
    std::optional<std::size_t> cache_bytes;
    // The most device memory the library holds (GPUSHIM_GPU_MEMORY); unset, no limit but
    // the device's.
    std::optional<std::size_t> gpu_memory;
    DeviceChoice device;
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// Parses the environment, warning once per invalid variable and keeping its default.
Config load_config(const EnvironmentLookup& lookup);

// The process's settings, parsed from the real environment on first use. Inline and
// lock-free after that: every intercepted call reads them.
const Config& load_process_config();
extern std::atomic<const Config*> process_config;
[[gnu::always_inline]] inline const Config& config() {
    const Config* loaded = process_config.load(std::memory_order_acquire);
    return loaded != nullptr ? *loaded : load_process_config();
}

// Names among `variables` ("NAME=value") that start with GPUSHIM_ but are no setting of
// the library or of a plugin (GPUSHIM_<PLUGIN>_*): most likely typing mistakes.
std::vector<std::string> unknown_variables(char* const* variables);

std::optional<bool> parse_switch(std::string_view text);
std::optional<uint64_t> parse_count(std::string_view text, uint64_t min, uint64_t max);
// A count of bytes: digits, optionally followed by K, M, G or T (KiB, MiB, GiB, TiB: powers
// of 1024), within [min, max].
std::optional<uint64_t> parse_bytes(std::string_view text, uint64_t min, uint64_t max);
std::optional<double> parse_threshold(std::string_view text);

// The default threshold of a routine: an effective dimension (BLAS, LAPACK) or points (FFT).
double default_threshold(Routine routine);

// The setting of a routine's threshold: GPUSHIM_THRESHOLD_ and the name in capitals
// ("dgemm": GPUSHIM_THRESHOLD_DGEMM; "fft": GPUSHIM_THRESHOLD_FFT, every FFT's).
std::string threshold_variable(std::string_view routine);

}  // namespace gpushim
