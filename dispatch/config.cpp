#include "dispatch/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <thread>

#include "dispatch/log.h"
#include "dispatch/settings_file.h"

namespace gpushim {
namespace {

// Default thresholds, as the effective dimension cbrt(multiply-adds). ESTIMATES, not yet
// measured on a GPU (bench/gpu_check.sh will measure them):
// offload pays once the CPU time of the call exceeds the PCIe time of its operands plus a
// fixed ~50 us of launch and synchronisation. For a square double GEMM of order n on a
// many-core host (~1.5 TFLOP/s OpenBLAS) against ~25 GB/s effective host<->device copies
// through staging, 2n^3/1.5e12 > 24n^2/25e9 + 5e-5 gives n > ~750; float halves both the
// bytes and the CPU time per element pair, a similar break-even. A complex multiply-add is
// four real ones on twice the bytes, so the break-even halves (n > ~370). Rounded up, so
// that an estimate error keeps calls on the CPU rather than slowing them down.
constexpr double kRealThreshold = 1000.0;
constexpr double kComplexThreshold = 500.0;

// LAPACK factorizations, in matrix order: a factorization of order n does ~n^3/3 (POTRF,
// SYTRF) or ~2n^3/3 (GETRF) real operations on 8n^2 bytes that cross PCIe twice, and cuSOLVER's
// factorizations are latency-bound below a few thousand (a panel factorization per block
// column). Intel MKL's automatic offload, on a Xeon Phi, used GETRF n > 8192 and POTRF
// n >= 6144; an H200 computes far faster and PCIe Gen5 moves about 4x the bytes, so the
// estimate is lower. ESTIMATES, to be measured by bench/gpu_check.sh.
// The same thresholds apply to the solves with given factors (in cbrt(n^2 nrhs), so that a
// few right-hand sides, O(n^2) work on O(n^2) bytes, stay on the CPU) and to the inverses.
constexpr double kRealFactorizationThreshold = 4096.0;
constexpr double kComplexFactorizationThreshold = 2048.0;

// Eigen- and singular value decompositions do 10-20x the operations of an LU of the same
// order on the same bytes, and half of the CPU's share is a memory-bound reduction to
// tridiagonal or bidiagonal form that scales poorly over cores; offload pays from a much
// smaller order. ESTIMATES, to be measured by bench/gpu_check.sh.
constexpr double kRealDecompositionThreshold = 1024.0;
constexpr double kComplexDecompositionThreshold = 512.0;

// FFTs, in points per transform times howmany. A complex double transform of N points
// costs FFTW about 5 N log2 N flops at a memory-bound 5-10 GFLOP/s on one core (the
// default: a plan uses threads only when asked), ~10-20 ns a point at N ~ 2^20; offloaded,
// each point crosses PCIe both ways (32 bytes, ~1.3 ns at 25 GB/s) and is packed and
// unpacked through pinned staging (~3 ns), after ~50 us of fixed launch and
// synchronisation cost: break-even near N ~ 5,000 points. Rounded up to 2^18 so that an
// estimate error keeps transforms on the CPU rather than slowing them down, and because
// threaded FFTW plans are several times faster than one core. ESTIMATE, to be measured
// by bench/gpu_check.sh.
constexpr double kFftThresholdPoints = 262144.0;

// Far beyond any machine's device count; bounds the number so that it fits an int.
constexpr uint64_t kMaxDeviceNumber = 4095;

std::string upper(std::string_view text) {
    std::string result(text);
    for (char& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return result;
}

void warn_invalid(const char* variable, const char* value, const char* accepted) {
    log::write(log::Level::warn, "%s=%s is not valid (accepted: %s); using the default", variable,
               value, accepted);
}

// A count of bytes in [min, max] (`range` says which in words): the variable's value, or
// nothing where it is unset or invalid (warned).
std::optional<std::size_t> bytes_setting(const EnvironmentLookup& lookup, const char* variable,
                                         uint64_t min, uint64_t max, const char* range) {
    const char* value = lookup(variable);
    if (value == nullptr) return std::nullopt;
    if (auto parsed = parse_bytes(value, min, max)) return static_cast<std::size_t>(*parsed);
    const std::string accepted =
        std::string("a number of bytes from ") + range + ", or with K, M, G, T";
    warn_invalid(variable, value, accepted.c_str());
    return std::nullopt;
}

// A plugin's own setting, which the plugin reads from the environment.
bool is_plugin_variable(std::string_view name) {
    return name.starts_with("GPUSHIM_HOSTSIM_") || name.starts_with("GPUSHIM_CUDA_");
}

bool is_known_variable(std::string_view name) {
    for (std::string_view known :
         {"GPUSHIM_CONFIG", "GPUSHIM_DISABLE", "GPUSHIM_THRESHOLD", "GPUSHIM_BACKEND",
          "GPUSHIM_REPORT", "GPUSHIM_LOG", "GPUSHIM_LOG_FILE", "GPUSHIM_CPU_BLAS",
          "GPUSHIM_CPU_LAPACK", "GPUSHIM_CPU_FFTW", "GPUSHIM_COPY_THREADS", "GPUSHIM_PANEL_BYTES",
          "GPUSHIM_CACHE_BYTES", "GPUSHIM_GPU_MEMORY", "GPUSHIM_DEVICE", "GPUSHIM_THRESHOLD_FFT",
          "GPUSHIM_VERIFY"}) {
        if (name == known) return true;
    }
    if (is_plugin_variable(name)) return true;
    for (std::string_view routine : kRoutineNames) {
        if (name == threshold_variable(routine)) return true;
    }
    return false;
}

}  // namespace

std::vector<std::string> unknown_variables(char* const* variables) {
    std::vector<std::string> unknown;
    for (; variables != nullptr && *variables != nullptr; ++variables) {
        const std::string_view entry(*variables);
        const std::string_view name = entry.substr(0, entry.find('='));
        if (name.starts_with("GPUSHIM_") && !is_known_variable(name)) unknown.emplace_back(name);
    }
    return unknown;
}

std::optional<bool> parse_switch(std::string_view text) {
    const std::string value = upper(text);
    if (value == "1" || value == "TRUE" || value == "YES" || value == "ON") return true;
    if (value == "0" || value == "FALSE" || value == "NO" || value == "OFF" || value.empty()) {
        return false;
    }
    return std::nullopt;
}

std::optional<double> parse_threshold(std::string_view text) {
    double value = 0.0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || !std::isfinite(value) || value < 0.0) {
        return std::nullopt;
    }
    return value;
}

std::optional<uint64_t> parse_count(std::string_view text, uint64_t min, uint64_t max) {
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || value < min || value > max) return std::nullopt;
    return value;
}

std::optional<uint64_t> parse_bytes(std::string_view text, uint64_t min, uint64_t max) {
    std::string_view digits = text;
    unsigned shift = 0;
    if (digits.ends_with("iB")) digits.remove_suffix(2);
    if (!digits.empty()) {
        constexpr std::string_view kUnits = "KMGT";
        const auto unit =
            kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back()))));
        if (unit != std::string_view::npos) {
            shift = 10 * static_cast<unsigned>(unit + 1);
            digits.remove_suffix(1);
        } else if (digits.size() != text.size()) {
            return std::nullopt;  // "iB" without a unit
        }
    }
    const auto count = parse_count(digits, 0, std::numeric_limits<uint64_t>::max() >> shift);
    if (!count) return std::nullopt;
    const uint64_t bytes = *count << shift;
    if (bytes < min || bytes > max) return std::nullopt;
    return bytes;
}

std::string threshold_variable(std::string_view routine) {
    return "GPUSHIM_THRESHOLD_" + upper(routine);
}

double default_threshold(Routine routine) {
    if (is_fft(routine)) return kFftThresholdPoints;
    const char precision = routine_name(routine).front();
    const bool complex = precision == 'c' || precision == 'z';
    if (is_lapack(routine)) {
        const gpushim_lapack_kind kind = lapack_kind(routine);
        if (kind == GPUSHIM_SYEVD || kind == GPUSHIM_GESVD || kind == GPUSHIM_SYEVR ||
            kind == GPUSHIM_SYGVD || kind == GPUSHIM_GEEV || kind == GPUSHIM_GELSD)
            return complex ? kComplexDecompositionThreshold : kRealDecompositionThreshold;
        return complex ? kComplexFactorizationThreshold : kRealFactorizationThreshold;
    }
    return complex ? kComplexThreshold : kRealThreshold;
}

Config load_config(const EnvironmentLookup& lookup) {
    Config config;
    if (const char* value = lookup("GPUSHIM_DISABLE")) {
        if (auto parsed = parse_switch(value)) {
            config.disabled = *parsed;
        } else {
            warn_invalid("GPUSHIM_DISABLE", value, "0, 1, true, false, yes, no, on, off");
        }
    }

    if (const char* value = lookup("GPUSHIM_VERIFY")) {
        if (auto parsed = parse_switch(value)) {
            config.verify = *parsed;
        } else {
            warn_invalid("GPUSHIM_VERIFY", value, "0, 1, true, false, yes, no, on, off");
        }
    }

    std::optional<double> global_threshold;
    if (const char* value = lookup("GPUSHIM_THRESHOLD")) {
        global_threshold = parse_threshold(value);
        if (!global_threshold) warn_invalid("GPUSHIM_THRESHOLD", value, "a number >= 0");
    }
    std::optional<double> fft_threshold;
    if (const char* value = lookup("GPUSHIM_THRESHOLD_FFT")) {
        fft_threshold = parse_threshold(value);
        if (!fft_threshold) warn_invalid("GPUSHIM_THRESHOLD_FFT", value, "a number of points >= 0");
    }
    for (std::size_t i = 0; i < kRoutineCount; ++i) {
        const auto routine = static_cast<Routine>(i);
        // GPUSHIM_THRESHOLD sets every threshold in its own unit, which is what its usual
        // values mean for all of them: 0 offloads everything, a huge value nothing.
        double threshold = global_threshold.value_or(default_threshold(routine));
        if (is_fft(routine) && fft_threshold) threshold = *fft_threshold;
        const std::string variable = threshold_variable(routine_name(routine));
        if (const char* value = lookup(variable.c_str())) {
            if (auto parsed = parse_threshold(value)) {
                threshold = *parsed;
            } else {
                warn_invalid(variable.c_str(), value, "a number >= 0");
            }
        }
        config.offload_size[i] = is_fft(routine) ? threshold : threshold * threshold * threshold;
    }

    if (const char* value = lookup("GPUSHIM_BACKEND")) {
        if (*value != '\0') config.backend = value;
    }
    if (const char* value = lookup("GPUSHIM_REPORT")) {
        if (parse_switch(value) != std::optional<bool>(false)) config.report = value;
    }
    if (const char* value = lookup("GPUSHIM_LOG")) {
        config.trace_calls = log::parse_level(value) == std::optional(log::Level::trace);
    }
    config.collect_statistics = !config.report.empty() || config.trace_calls;
    if (const char* value = lookup("GPUSHIM_CPU_BLAS")) config.cpu_blas = value;
    if (const char* value = lookup("GPUSHIM_CPU_LAPACK")) config.cpu_lapack = value;
    if (const char* value = lookup("GPUSHIM_CPU_FFTW")) config.cpu_fftw = value;

    // Half the hardware threads, at most 8: enough to outrun PCIe, leaving the rest alone.
    config.copy_threads = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
    if (const char* value = lookup("GPUSHIM_COPY_THREADS")) {
        if (auto parsed = parse_count(value, 1, 64)) {
            config.copy_threads = static_cast<unsigned>(*parsed);
        } else {
            warn_invalid("GPUSHIM_COPY_THREADS", value, "an integer from 1 to 64");
        }
    }
    if (auto bytes =
            bytes_setting(lookup, "GPUSHIM_PANEL_BYTES", 1, uint64_t{1} << 40, "1 to 2^40 (1T)")) {
        config.panel_bytes = *bytes;
    }
    config.cache_bytes =
        bytes_setting(lookup, "GPUSHIM_CACHE_BYTES", 0, uint64_t{1} << 50, "0 to 2^50 (1024T)");
    config.gpu_memory =
        bytes_setting(lookup, "GPUSHIM_GPU_MEMORY", 1, uint64_t{1} << 50, "1 to 2^50 (1024T)");
    if (const char* value = lookup("GPUSHIM_DEVICE"); value != nullptr && *value != '\0') {
        if (upper(value) == "LOCAL-RANK") {
            config.device.kind = DeviceChoice::Kind::local_rank;
        } else if (auto number = parse_count(value, 0, kMaxDeviceNumber)) {
            config.device = {DeviceChoice::Kind::number, static_cast<unsigned>(*number)};
        } else {
            warn_invalid("GPUSHIM_DEVICE", value, "a device number from 0 to 4095, or local-rank");
        }
    }
    return config;
}

std::atomic<const Config*> process_config{nullptr};

const Config& load_process_config() {
    // Never destroyed: calls may come from atexit handlers, static destructors and late
    // threads, after static objects are gone.
    static const Config* const instance = [] {
        for (const std::string& name : unknown_variables(environ)) {
            log::write(log::Level::warn,
                       "%s is not a gpushim setting (see the table in README.md); ignored",
                       name.c_str());
        }
        const SettingsFile& file = process_settings_file();
        for (const std::string& problem : file.problems) {
            log::write(log::Level::warn, "%s", problem.c_str());
        }
        for (const auto& [name, value] : file.values) {
            if (name == "GPUSHIM_CONFIG" || is_plugin_variable(name)) {
                log::write(log::Level::warn,
                           "%s in %s has no effect there (only the environment sets it); "
                           "ignored",
                           name.c_str(), file.path.c_str());
            } else if (!is_known_variable(name)) {
                log::write(log::Level::warn,
                           "%s in %s is not a gpushim setting (see the table in README.md); "
                           "ignored",
                           name.c_str(), file.path.c_str());
            }
        }
        return new Config(load_config(setting));
    }();
    process_config.store(instance, std::memory_order_release);
    return *instance;
}

}  // namespace gpushim
