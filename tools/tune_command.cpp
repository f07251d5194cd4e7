#include "tools/tune_command.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "dispatch/blas3_call.h"
#include "dispatch/config.h"
#include "fallback/fortran_blas3.h"
#include "fallback/symbol_resolver.h"
#include "gpu/backend.h"
#include "gpu/blas3_executor.h"

namespace gpushim::tools {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The best of a few runs of `run` (after one unmeasured run), within about `budget`
// seconds; a negative time when `run` fails.
double best_time(const std::function<bool()>& run, double budget) {
    if (!run()) return -1;
    double best = 1e300;
    const auto start = Clock::now();
    for (int i = 0; i < 3 && (i == 0 || seconds_since(start) < budget); ++i) {
        const auto t0 = Clock::now();
        if (!run()) return -1;
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

gpushim_precision precision_of(char letter) {
    switch (letter) {
        case 's':
            return GPUSHIM_PREC_S;
        case 'd':
            return GPUSHIM_PREC_D;
        case 'c':
            return GPUSHIM_PREC_C;
        default:
            return GPUSHIM_PREC_Z;
    }
}

bool call_cpu(void* function, const Blas3Op& op) {
    switch (op.precision) {
        case GPUSHIM_PREC_S:
            return fallback::call_fortran_blas3<float, int>(function, op);
        case GPUSHIM_PREC_D:
            return fallback::call_fortran_blas3<double, int>(function, op);
        case GPUSHIM_PREC_C:
            return fallback::call_fortran_blas3<std::complex<float>, int>(function, op);
        case GPUSHIM_PREC_Z:
            return fallback::call_fortran_blas3<std::complex<double>, int>(function, op);
    }
    return false;
}

// The CPU function the executor's partial recovery would use; tuning stops at a failure.
void* tuned_cpu_function = nullptr;
bool cpu_part(const Blas3Op& op) {
    return call_cpu(tuned_cpu_function, op);
}

// The sizes measured: from 64 up by about 1.5 (multiples of 32), and max_n itself last.
int64_t next_size(int64_t n, int64_t max_n) {
    const int64_t next = (n * 3 / 2 + 31) / 32 * 32;
    return n < max_n && next > max_n ? max_n : next;
}

// C = A B for n x n operands, on the CPU library's `cpu_function` and on the device (from
// host memory, as a program's call gets there), at growing sizes up to max_n, while the
// next size is predicted to fit in the budget.
std::vector<TuneMeasurement> measure(const std::string& routine, void* cpu_function, int64_t max_n,
                                     double budget, std::string& problem) {
    const gpushim_precision precision = precision_of(routine.front());
    tuned_cpu_function = cpu_function;
    const std::size_t element = element_size(precision);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);

    std::vector<TuneMeasurement> measurements;
    const auto start = Clock::now();
    double last_size_seconds = 0;
    for (int64_t n = 64; n <= max_n; n = next_size(n, max_n)) {
        // A size costs about (3/2)^3 times the one before, in each of 2 x 4 runs.
        const double left = budget - seconds_since(start);
        if (left <= 0 || last_size_seconds * 3.4 > left) {
            if (left <= 0 || !measurements.empty()) problem = "the time budget (--seconds) ran out";
            break;
        }
        const auto size_start = Clock::now();
        const std::size_t bytes = static_cast<std::size_t>(n * n) * element;
        std::vector<unsigned char> a(bytes), b(bytes), c(bytes);
        // Random reals in every component (random bytes would make NaNs and infinities).
        const bool single = precision == GPUSHIM_PREC_S || precision == GPUSHIM_PREC_C;
        for (auto* m : {&a, &b}) {
            if (single) {
                auto* components = reinterpret_cast<float*>(m->data());
                for (std::size_t i = 0; i < bytes / sizeof(float); ++i) components[i] = value(rng);
            } else {
                auto* components = reinterpret_cast<double*>(m->data());
                for (std::size_t i = 0; i < bytes / sizeof(double); ++i) components[i] = value(rng);
            }
        }
        Blas3Op op{};
        op.kind = GPUSHIM_GEMM;
        op.precision = precision;
        op.transa = op.transb = 'N';
        op.m = op.n = op.k = n;
        op.alpha[0] = 1.0;
        op.a = a.data();
        op.b = b.data();
        op.c = c.data();
        op.lda = op.ldb = op.ldc = n;

        const double share = left / 4;  // each path's share of what is left, roughly
        const double cpu = best_time([&] { return call_cpu(cpu_function, op); }, share);
        const double device = best_time(
            [&] {
                gpu::Transfers transfers;
                return gpu::execute_blas3(op, cpu_part, transfers) == gpu::Outcome::completed;
            },
            share);
        if (cpu < 0 || device < 0) {
            problem = device < 0 ? "the device did not complete a call" : "the CPU call failed";
            break;
        }
        measurements.push_back({n, cpu, device});
        last_size_seconds = seconds_since(size_start);
        if (device * 2 < cpu && measurements.size() >= 3 &&
            std::all_of(measurements.end() - 3, measurements.end(),
                        [](const TuneMeasurement& m) { return m.device_seconds < m.cpu_seconds; }))
            break;  // well past the crossover: larger sizes only widen the gap
    }
    return measurements;
}

std::string library_of(const void* function) {
    Dl_info info{};
    if (dladdr(function, &info) == 0 || info.dli_fname == nullptr) return "(unknown library)";
    return info.dli_fname;
}

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

int64_t crossover(const std::vector<TuneMeasurement>& measurements) {
    int64_t from = 0;
    for (const TuneMeasurement& m : measurements) {
        if (m.device_seconds < m.cpu_seconds) {
            if (from == 0) from = m.n;
        } else {
            from = 0;
        }
    }
    return from;
}

int run_tune(const TuneOptions& options) {
    // Thresholds are for calls whose operands are new to the device: operands kept from
    // earlier calls (the residency cache) would make the device look faster than it is.
    setenv("GPUSHIM_CACHE_BYTES", "0", 1);
    if (gpu::backend() == nullptr) {
        std::fprintf(stderr, "gpushim tune: no usable device: %s\n",
                     gpu::backend_summary().c_str());
        return 1;
    }
    std::string written = "# gpushim tune: GEMM from host memory against the CPU library, on " +
                          gpu::backend_summary() + "\n";
    std::fputs(written.c_str(), stdout);
    const double budget = options.seconds / static_cast<double>(options.routines.size());
    bool complete = true;
    char line[256];
    for (const std::string& routine : options.routines) {
        const std::string symbol = routine + "_";
        void* cpu_function = fallback::find_cpu_symbol(symbol.c_str(), config().cpu_blas);
        std::string text = "#\n# " + routine + ": the CPU's " +
                           (cpu_function != nullptr ? library_of(cpu_function) : "(none)") +
                           " against the device; n, CPU ms, device ms\n";
        std::string problem;
        std::vector<TuneMeasurement> measurements;
        if (cpu_function == nullptr) {
            problem = "no CPU library defines " + symbol + " (set GPUSHIM_CPU_BLAS)";
        } else {
            measurements = measure(routine, cpu_function, options.max_n, budget, problem);
        }
        for (const TuneMeasurement& m : measurements) {
            std::snprintf(line, sizeof line, "#   %6lld %12.3f %12.3f\n",
                          static_cast<long long>(m.n), m.cpu_seconds * 1e3, m.device_seconds * 1e3);
            text += line;
        }
        if (!problem.empty()) text += "#   stopped: " + problem + "\n";
        const int64_t from = crossover(measurements);
        const std::string variable = "GPUSHIM_THRESHOLD_" + upper(routine);
        if (from > 0) {
            text += variable + "=" + std::to_string(from) + "\n";
        } else if (measurements.empty()) {
            text += "# " + variable + ": not measured; the default stays\n";
            complete = false;
        } else {
            text += "# " + variable + ": the device was not faster at the largest size measured (" +
                    std::to_string(measurements.back().n) + "); the default stays\n";
        }
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
        written += text;
    }
    if (!options.write_path.empty()) {
        std::ofstream out(options.write_path, std::ios::trunc);
        out << written;
        out.close();
        if (!out) {
            std::fprintf(stderr, "gpushim tune: cannot write %s\n", options.write_path.c_str());
            return 1;
        }
        std::printf("# written to %s (use it with GPUSHIM_CONFIG=%s)\n", options.write_path.c_str(),
                    options.write_path.c_str());
    }
    return complete ? 0 : 1;
}

}  // namespace gpushim::tools
