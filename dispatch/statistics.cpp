#include "dispatch/statistics.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"

namespace gpushim {
namespace {

std::string expand_pid(const std::string& pattern) {
    std::string path;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
            path += std::to_string(getpid());
            ++i;
        } else {
            path += pattern[i];
        }
    }
    return path;
}

// A forked child starts its own report: it inherits the parent's handler and counters.
std::atomic<bool> recorded_in_this_process{false};

void write_report_at_exit() {
    const std::string& setting = config().report;
    if (!recorded_in_this_process.load() || setting.empty()) return;
    const bool to_stderr = parse_switch(setting) == std::optional<bool>(true);
    const std::string path = to_stderr ? std::string() : expand_pid(setting);
    const std::string text =
        (!to_stderr && path.ends_with(".json")) ? report_json() : report_table();
    if (to_stderr) {
        std::fputs(text.c_str(), stderr);
        return;
    }
    FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
        log::write(log::Level::error, "GPUSHIM_REPORT: cannot write %s", path.c_str());
        return;
    }
    std::fputs(text.c_str(), file);
    std::fclose(file);
}

// Atomic counters: many threads record at once, the report reads them once at exit.
struct Counters {
    std::atomic<uint64_t> gpu_calls{0}, cpu_calls{0}, fallbacks{0}, bytes_h2d{0}, bytes_d2h{0},
        bytes_reused{0}, verified{0}, differed{0};
    std::atomic<double> gpu_seconds{0}, cpu_seconds{0}, flops{0};
};

// Never destroyed: the report is written by an atexit handler.
std::array<Counters, kRoutineCount>& counters() {
    static auto* instance = new std::array<Counters, kRoutineCount>;
    return *instance;
}

void add(std::atomic<double>& total, double value) {
    double current = total.load(std::memory_order_relaxed);
    while (!total.compare_exchange_weak(current, current + value, std::memory_order_relaxed)) {
    }
}

void reset_counters_in_child() {
    recorded_in_this_process.store(false);
    for (Counters& c : counters()) {
        c.gpu_calls = 0;
        c.cpu_calls = 0;
        c.fallbacks = 0;
        c.bytes_h2d = 0;
        c.bytes_d2h = 0;
        c.bytes_reused = 0;
        c.verified = 0;
        c.differed = 0;
        c.gpu_seconds = 0;
        c.cpu_seconds = 0;
        c.flops = 0;
    }
}

std::string format(const char* pattern, auto... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
}

thread_local int nesting_depth = 0;

std::string byte_count(uint64_t bytes) {
    if (bytes < 1000) return format("%u B", static_cast<unsigned>(bytes));
    if (bytes < 1000'000) return format("%.1f kB", static_cast<double>(bytes) * 1e-3);
    if (bytes < 1000'000'000) return format("%.1f MB", static_cast<double>(bytes) * 1e-6);
    return format("%.2f GB", static_cast<double>(bytes) * 1e-9);
}

// "dgemm m=8 n=8 k=8: CPU, 0.012 ms (below its threshold)"; a device call (and one the CPU
// computed after the device's attempt) adds the bytes that crossed PCIe each way, and those
// found on the device already.
std::string trace_line(const CallRecord& record) {
    std::string line = std::string(routine_name(record.routine)) + " " + record.shape + ": ";
    // The call's time, and its rate where it computed anything.
    const auto took = [&](const char* what) {
        std::string time = format("%s %.3f ms", what, record.seconds * 1e3);
        if (record.flops > 0 && record.seconds > 0)
            time += format(" (%.1f GFLOP/s)", record.flops / record.seconds * 1e-9);
        return time;
    };
    const auto moved = [&] {
        std::string bytes = ", " + byte_count(record.bytes_to_device) + " to the device, " +
                            byte_count(record.bytes_to_host) + " back";
        if (record.bytes_reused != 0)
            bytes += ", " + byte_count(record.bytes_reused) + " found there";
        return bytes;
    };
    const auto checked = [&]() -> std::string {
        switch (record.verdict) {
            case Verdict::agreed:
                return ", checked: agrees with the CPU";
            case Verdict::differed:
                return ", checked: DIFFERS from the CPU, whose result is used";
            case Verdict::unchecked:
                break;
        }
        return "";
    };
    switch (record.reason) {
        case CpuReason::none:
            return line + took("GPU,") + moved() + checked();
        case CpuReason::device_failed_part_way:
            return line + format("GPU and CPU (%s), ", describe(record.reason)) + took("in all") +
                   moved() + checked();
        case CpuReason::device_failed:  // with what the failed attempt moved
            return line + "the device failed; the CPU computed it, " + took("in all") + moved();
        case CpuReason::device_differed:
            return line + "the device's result failed its check; the CPU computed it, " +
                   took("in all") + moved();
        default:  // the bytes of a device attempt that ended unavailable, where it moved any
            return line + took("CPU,") + format(", %s", describe(record.reason)) +
                   (record.bytes_to_device + record.bytes_to_host != 0 ? moved() : "");
    }
}

}  // namespace

NestedCallScope::NestedCallScope() {
    ++nesting_depth;
}
NestedCallScope::~NestedCallScope() {
    --nesting_depth;
}

bool statistics_enabled() {
    return config().collect_statistics;
}

bool tracing_calls() {
    return config().trace_calls;
}

void record_call(const CallRecord& record) {
    Counters& c = counters()[static_cast<std::size_t>(record.routine)];
    // A check counts even inside another call (a BLAS call a CPU LAPACK routine made through
    // the shim and the device computed): its warning was given.
    if (record.verdict != Verdict::unchecked) c.verified.fetch_add(1, std::memory_order_relaxed);
    if (record.verdict == Verdict::differed) c.differed.fetch_add(1, std::memory_order_relaxed);
    if (nesting_depth > 0) return;
    [[maybe_unused]] static const bool report_registered = [] {
        std::atexit(write_report_at_exit);
        pthread_atfork(nullptr, nullptr, reset_counters_in_child);
        return true;
    }();
    recorded_in_this_process.store(true, std::memory_order_relaxed);
    if (record.placement == Placement::gpu) {
        c.gpu_calls.fetch_add(1, std::memory_order_relaxed);
        add(c.gpu_seconds, record.seconds);
    } else {
        c.cpu_calls.fetch_add(1, std::memory_order_relaxed);
        add(c.cpu_seconds, record.seconds);
        if (record.placement == Placement::fallback)
            c.fallbacks.fetch_add(1, std::memory_order_relaxed);
    }
    add(c.flops, record.flops);
    c.bytes_h2d.fetch_add(record.bytes_to_device, std::memory_order_relaxed);
    c.bytes_d2h.fetch_add(record.bytes_to_host, std::memory_order_relaxed);
    c.bytes_reused.fetch_add(record.bytes_reused, std::memory_order_relaxed);
    if (tracing_calls()) log::write(log::Level::trace, "%s", trace_line(record).c_str());
}

RoutineTotals routine_totals(Routine routine) {
    const Counters& c = counters()[static_cast<std::size_t>(routine)];
    RoutineTotals t;
    t.gpu_calls = c.gpu_calls.load();
    t.cpu_calls = c.cpu_calls.load();
    t.calls = t.gpu_calls + t.cpu_calls;
    t.fallbacks = c.fallbacks.load();
    t.gpu_seconds = c.gpu_seconds.load();
    t.cpu_seconds = c.cpu_seconds.load();
    t.seconds = t.gpu_seconds + t.cpu_seconds;
    t.flops = c.flops.load();
    t.bytes_h2d = c.bytes_h2d.load();
    t.bytes_d2h = c.bytes_d2h.load();
    t.bytes_reused = c.bytes_reused.load();
    t.verified = c.verified.load();
    t.differed = c.differed.load();
    return t;
}

std::string report_table() {
    std::string text = "gpushim report (backend: " + gpu::backend_summary() + ")\n";
    // As wide as the longest name of a routine that was called (fftwf_split_dft_r2c).
    int width = 8;
    for (std::size_t i = 0; i < kRoutineCount; ++i) {
        const auto routine = static_cast<Routine>(i);
        if (routine_totals(routine).calls > 0)
            width = std::max(width, static_cast<int>(routine_name(routine).size()));
    }
    // The checks' columns only where GPUSHIM_VERIFY is on.
    const bool verifying = config().verify;
    text += format("%-*s %9s %9s %9s %11s %10s %12s %12s %12s", width, "routine", "gpu", "cpu",
                   "fallback", "seconds", "GFLOP/s", "MB to gpu", "MB from gpu", "MB reused");
    text += verifying ? format(" %9s %9s\n", "verified", "differed") : "\n";
    for (std::size_t i = 0; i < kRoutineCount; ++i) {
        const auto routine = static_cast<Routine>(i);
        const RoutineTotals t = routine_totals(routine);
        if (t.calls == 0) continue;
        const double gflops = t.seconds > 0 ? t.flops / t.seconds * 1e-9 : 0.0;
        text += format("%-*s %9llu %9llu %9llu %11.4f %10.2f %12.1f %12.1f %12.1f\n", width,
                       std::string(routine_name(routine)).c_str(),
                       static_cast<unsigned long long>(t.gpu_calls),
                       static_cast<unsigned long long>(t.cpu_calls),
                       static_cast<unsigned long long>(t.fallbacks), t.seconds, gflops,
                       t.bytes_h2d * 1e-6, t.bytes_d2h * 1e-6, t.bytes_reused * 1e-6);
        text.pop_back();
        text += verifying ? format(" %9llu %9llu\n", static_cast<unsigned long long>(t.verified),
                                   static_cast<unsigned long long>(t.differed))
                          : "\n";
    }
    return text;
}

std::string report_json() {
    std::string json = "{\"pid\": " + std::to_string(getpid()) + ", \"backend\": \"";
    for (char c : gpu::backend_summary()) {
        if (c == '"' || c == '\\') json += '\\';
        json += c;
    }
    json += "\", \"routines\": {";
    bool first = true;
    for (std::size_t i = 0; i < kRoutineCount; ++i) {
        const auto routine = static_cast<Routine>(i);
        const RoutineTotals t = routine_totals(routine);
        if (t.calls == 0) continue;
        json += first ? "\n  " : ",\n  ";
        first = false;
        json += format(
            "\"%s\": {\"calls\": %llu, \"gpu_calls\": %llu, \"cpu_calls\": %llu, \"fallbacks\": "
            "%llu, \"seconds\": %.9g, \"gpu_seconds\": %.9g, \"cpu_seconds\": %.9g, \"flops\": "
            "%.17g, \"bytes_h2d\": %llu, \"bytes_d2h\": %llu, \"bytes_reused\": %llu, "
            "\"verified\": %llu, \"differed\": %llu}",
            std::string(routine_name(routine)).c_str(), static_cast<unsigned long long>(t.calls),
            static_cast<unsigned long long>(t.gpu_calls),
            static_cast<unsigned long long>(t.cpu_calls),
            static_cast<unsigned long long>(t.fallbacks), t.seconds, t.gpu_seconds, t.cpu_seconds,
            t.flops, static_cast<unsigned long long>(t.bytes_h2d),
            static_cast<unsigned long long>(t.bytes_d2h),
            static_cast<unsigned long long>(t.bytes_reused),
            static_cast<unsigned long long>(t.verified),
            static_cast<unsigned long long>(t.differed));
    }
    json += "\n}}\n";
    return json;
}

}  // namespace gpushim
