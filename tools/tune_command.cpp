#include "tools/tune_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "dispatch/blas3_call.h"
#include "dispatch/config.h"
#include "dispatch/fft_call.h"
#include "dispatch/lapack_call.h"
#include "fallback/fortran_blas3.h"
#include "fallback/symbol_resolver.h"
#include "gpu/backend.h"
#include "gpu/blas3_executor.h"
#include "gpu/fft_executor.h"
#include "gpu/lapack_executor.h"

namespace gpushim::tools {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// One size of one routine: fresh inputs (made outside the timing), then the call on the
// CPU library or on the device; false when the call fails.
struct SizeRun {
    std::function<void()> prepare;
    std::function<bool()> on_cpu;
    std::function<bool()> on_device;
};

// The best of a few runs of `run` (each after `prepare`, and after one unmeasured run),
// within about `budget` seconds; a negative time when `run` fails.
double best_time(const std::function<void()>& prepare, const std::function<bool()>& run,
                 double budget) {
    prepare();
    if (!run()) return -1;
    double best = 1e300;
    const auto start = Clock::now();
    for (int i = 0; i < 3 && (i == 0 || seconds_since(start) < budget); ++i) {
        prepare();
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

// An n x n matrix of random reals in [-1, 1] in every component (random bytes would make
// NaNs and infinities) but for its diagonal, set to `diagonal`: n + 1 makes it diagonally
// dominant, so well conditioned and, with only its lower triangle read, Hermitian positive
// definite.
template <class T>
std::shared_ptr<std::vector<T>> random_matrix(int64_t n, double diagonal, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    auto m = std::make_shared<std::vector<T>>(static_cast<std::size_t>(n * n));
    for (T& x : *m) {
        if constexpr (std::is_floating_point_v<T>) {
            x = static_cast<T>(value(rng));
        } else {
            x = T(static_cast<typename T::value_type>(value(rng)),
                  static_cast<typename T::value_type>(value(rng)));
        }
    }
    for (int64_t i = 0; i < n; ++i) (*m)[static_cast<std::size_t>(i * n + i)] = T(diagonal);
    return m;
}

template <class T>
bool call_cpu_gemm(void* function, const Blas3Op& op) {
    return fallback::call_fortran_blas3<T, int>(function, op);
}

// The CPU function the executor's partial recovery would use; tuning stops at a failure.
void* tuned_cpu_function = nullptr;
bool (*tuned_cpu_call)(void*, const Blas3Op&) = nullptr;
bool cpu_part(const Blas3Op& op) {
    return tuned_cpu_call(tuned_cpu_function, op);
}

// C = A B, with C not read (beta = 0).
template <class T>
SizeRun gemm_run(gpushim_precision precision, void* cpu_function, int64_t n, std::mt19937_64& rng) {
    const auto a = random_matrix<T>(n, 0.0, rng);
    const auto b = random_matrix<T>(n, 0.0, rng);
    const auto c = std::make_shared<std::vector<T>>(a->size());
    Blas3Op op{};
    op.kind = GPUSHIM_GEMM;
    op.precision = precision;
    op.transa = op.transb = 'N';
    op.m = op.n = op.k = n;
    op.alpha[0] = 1.0;
    op.a = a->data();
    op.b = b->data();
    op.c = c->data();
    op.lda = op.ldb = op.ldc = n;
    tuned_cpu_function = cpu_function;
    tuned_cpu_call = call_cpu_gemm<T>;
    // The lambdas hold the operands: op points into them.
    return {[] {}, [a, b, c, op, cpu_function] { return call_cpu_gemm<T>(cpu_function, op); },
            [a, b, c, op] {
                gpu::Transfers transfers;
                return gpu::execute_blas3(op, cpu_part, transfers) == gpu::Outcome::completed;
            }};
}

// GETRF or POTRF (lower) of a well-conditioned matrix, refilled before every run.
template <class T>
SizeRun factor_run(gpushim_lapack_kind kind, gpushim_precision precision, void* cpu_function,
                   int64_t n, std::mt19937_64& rng) {
    const auto original = random_matrix<T>(n, static_cast<double>(n) + 1.0, rng);
    const auto work = std::make_shared<std::vector<T>>(original->size());
    const auto pivots = std::make_shared<std::vector<int>>(static_cast<std::size_t>(n));
    const auto n32 = static_cast<int>(n);
    LapackOp op{};
    op.kind = kind;
    op.precision = precision;
    op.uplo = 'L';
    op.m = op.n = n;
    op.a = work->data();
    op.lda = n;
    op.host_pivots = pivots->data();
    op.pivot_bytes = sizeof(int);
    const auto on_cpu = [work, pivots, kind, cpu_function, n32] {
        int info = 0;
        if (kind == GPUSHIM_GETRF) {
            reinterpret_cast<void (*)(const int*, const int*, T*, const int*, int*, int*)>(
                cpu_function)(&n32, &n32, work->data(), &n32, pivots->data(), &info);
        } else {
            const char uplo = 'L';
            reinterpret_cast<void (*)(const char*, const int*, T*, const int*, int*, std::size_t)>(
                cpu_function)(&uplo, &n32, work->data(), &n32, &info, 1);
        }
        return info == 0;
    };
    // The lambdas hold the arrays: op points into them.
    return {[original, work] { std::copy(original->begin(), original->end(), work->begin()); },
            on_cpu,
            [work, pivots, op] {
                gpu::Transfers transfers;
                return gpu::execute_lapack(op, transfers) == gpu::Outcome::completed;
            }};
}

// A workspace size LAPACK answered in a query (WORK(1) and the like).
template <class T>
int queried(const T& answer) {
    return std::max(1, static_cast<int>(std::real(answer)));
}

// SYEVD (HEEVD for complex) with eigenvectors of the lower triangle, or GESDD with JOBZ 'S',
// of a random n x n matrix refilled before every run, as NumPy's eigh and svd call them; the
// CPU's workspaces are asked for, and allocated, outside the timing.
template <class T>
SizeRun decomposition_run(gpushim_lapack_kind kind, gpushim_precision precision, void* cpu_function,
                          int64_t n, std::mt19937_64& rng) {
    using Real = typename fallback::RealOf<T>::type;
    constexpr bool kComplex = !std::is_floating_point_v<T>;
    const bool svd = kind == GPUSHIM_GESVD;
    const auto original = random_matrix<T>(n, 0.0, rng);
    const auto a = std::make_shared<std::vector<T>>(original->size());
    const auto values = std::make_shared<std::vector<Real>>(static_cast<std::size_t>(n));
    const auto u = std::make_shared<std::vector<T>>(svd ? original->size() : 0);
    const auto vt = std::make_shared<std::vector<T>>(svd ? original->size() : 0);
    struct Workspaces {
        std::vector<T> work;
        std::vector<Real> rwork;
        std::vector<int> iwork;
    };
    const auto ws = std::make_shared<Workspaces>();
    const auto n32 = static_cast<int>(n);
    // The CPU routine with the workspaces in ws (a query where their sizes are -1).
    const auto call = [=](int lwork, int lrwork, int liwork) {
        const char jobz = svd ? 'S' : 'V', uplo = 'L';
        T* const work = ws->work.data();
        Real* const rwork = ws->rwork.data();
        int* const iwork = ws->iwork.data();
        int info = 0;
        if (svd && kComplex) {
            reinterpret_cast<void (*)(const char*, const int*, const int*, T*, const int*, Real*,
                                      T*, const int*, T*, const int*, T*, const int*, Real*, int*,
                                      int*, std::size_t)>(cpu_function)(
                &jobz, &n32, &n32, a->data(), &n32, values->data(), u->data(), &n32, vt->data(),
                &n32, work, &lwork, rwork, iwork, &info, 1);
        } else if (svd) {
            reinterpret_cast<void (*)(const char*, const int*, const int*, T*, const int*, Real*,
                                      T*, const int*, T*, const int*, T*, const int*, int*, int*,
                                      std::size_t)>(cpu_function)(
                &jobz, &n32, &n32, a->data(), &n32, values->data(), u->data(), &n32, vt->data(),
                &n32, work, &lwork, iwork, &info, 1);
        } else if (kComplex) {
            reinterpret_cast<void (*)(const char*, const char*, const int*, T*, const int*, Real*,
                                      T*, const int*, Real*, const int*, int*, const int*, int*,
                                      std::size_t, std::size_t)>(cpu_function)(
                &jobz, &uplo, &n32, a->data(), &n32, values->data(), work, &lwork, rwork, &lrwork,
                iwork, &liwork, &info, 1, 1);
        } else {
            reinterpret_cast<void (*)(const char*, const char*, const int*, T*, const int*, Real*,
                                      T*, const int*, int*, const int*, int*, std::size_t,
                                      std::size_t)>(cpu_function)(
                &jobz, &uplo, &n32, a->data(), &n32, values->data(), work, &lwork, iwork, &liwork,
                &info, 1, 1);
        }
        return info;
    };
    ws->work.resize(1);
    ws->rwork.resize(1);
    ws->iwork.resize(1);
    call(-1, -1, -1);
    const int lwork = queried(ws->work[0]);
    // GESDD asks for no RWORK nor IWORK: LAPACK's documented sizes for JOBZ 'S', m = n.
    const int lrwork = svd ? 5 * n32 * n32 + 5 * n32 : queried(ws->rwork[0]);
    const int liwork = svd ? 8 * n32 : std::max(1, ws->iwork[0]);
    ws->work.resize(static_cast<std::size_t>(lwork));
    ws->rwork.resize(static_cast<std::size_t>(lrwork));
    ws->iwork.resize(static_cast<std::size_t>(liwork));

    LapackOp op{};
    op.kind = kind;
    op.precision = precision;
    op.m = op.n = n;
    op.a = a->data();
    op.lda = n;
    op.w = values->data();
    if (svd) {
        op.jobu = op.jobvt = 'S';
        op.u = u->data();
        op.vt = vt->data();
        op.ldu = op.ldvt = n;
    } else {
        op.jobz = 'V';
        op.uplo = 'L';
    }
    // The lambdas hold the arrays: op points into them.
    return {[original, a] { std::copy(original->begin(), original->end(), a->begin()); },
            [call, lwork, lrwork, liwork] { return call(lwork, lrwork, liwork) == 0; },
            [a, values, u, vt, op] {
                gpu::Transfers transfers;
                return gpu::execute_lapack(op, transfers) == gpu::Outcome::completed;
            }};
}

// A forward 1-D complex transform of n points (double), out of place: FFTW's plan (made
// with FFTW_ESTIMATE, outside the timing) against the device's.
SizeRun fft_run(int64_t n, std::mt19937_64& rng) {
    using Plan = void*;
    const auto find = [](const char* name) {
        return fallback::find_cpu_symbol(name, config().cpu_fftw);
    };
    auto* const plan_dft_1d =
        reinterpret_cast<Plan (*)(int, void*, void*, int, unsigned)>(find("fftw_plan_dft_1d"));
    auto* const execute = reinterpret_cast<void (*)(Plan)>(find("fftw_execute"));
    auto* const destroy = reinterpret_cast<void (*)(Plan)>(find("fftw_destroy_plan"));
    const auto in =
        std::make_shared<std::vector<std::complex<double>>>(static_cast<std::size_t>(n));
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (auto& x : *in) x = {value(rng), value(rng)};
    const auto out = std::make_shared<std::vector<std::complex<double>>>(in->size());
    constexpr unsigned kEstimate = 1U << 6;  // FFTW_ESTIMATE: planning reads no array
    std::shared_ptr<void> plan;
    if (plan_dft_1d != nullptr && execute != nullptr && destroy != nullptr) {
        plan.reset(plan_dft_1d(static_cast<int>(n), in->data(), out->data(), -1, kEstimate),
                   [destroy](Plan p) {
                       if (p != nullptr) destroy(p);
                   });
    }
    auto problem = std::make_shared<FftProblem>();
    problem->described = true;
    problem->dims = {{n, 1, 1}};
    std::shared_ptr<gpu::FftDeviceState> device_plan = gpu::plan_fft_on_device(*problem);
    return {[] {},
            [in, out, plan, execute] {
                if (plan == nullptr) return false;
                execute(plan.get());
                return true;
            },
            [in, out, problem, device_plan] {
                if (device_plan == nullptr) return false;
                gpu::Transfers transfers;
                const FftOp op{problem.get(), in->data(), out->data()};
                return gpu::execute_fft(op, *device_plan, transfers) == gpu::Outcome::completed;
            }};
}

// make(T{}) for the element type T of `precision`.
template <class Make>
SizeRun for_element_of(gpushim_precision precision, Make&& make) {
    switch (precision) {
        case GPUSHIM_PREC_S:
            return make(float{});
        case GPUSHIM_PREC_D:
            return make(double{});
        case GPUSHIM_PREC_C:
            return make(std::complex<float>{});
        case GPUSHIM_PREC_Z:
            break;
    }
    return make(std::complex<double>{});
}

SizeRun make_run(const std::string& routine, void* cpu_function, int64_t n, std::mt19937_64& rng) {
    if (routine == "fft") return fft_run(n, rng);
    const gpushim_precision precision = precision_of(routine.front());
    const std::string_view kind = std::string_view(routine).substr(1);
    return for_element_of(precision, [&](auto element) {
        using T = decltype(element);
        if (kind == "gemm") return gemm_run<T>(precision, cpu_function, n, rng);
        if (kind == "getrf" || kind == "potrf") {
            return factor_run<T>(kind == "getrf" ? GPUSHIM_GETRF : GPUSHIM_POTRF, precision,
                                 cpu_function, n, rng);
        }
        return decomposition_run<T>(kind == "gesdd" ? GPUSHIM_GESVD : GPUSHIM_SYEVD, precision,
                                    cpu_function, n, rng);
    });
}

// The sizes measured: matrices from 64 up by about 1.5 (multiples of 32), and max_n
// itself last; FFTs from 2^10 points up by 2 to 2^26.
constexpr int64_t kFirstFftPoints = int64_t{1} << 10;
constexpr int64_t kLastFftPoints = int64_t{1} << 26;
int64_t first_size(const std::string& routine) {
    return routine == "fft" ? kFirstFftPoints : 64;
}
int64_t last_size(const std::string& routine, int64_t max_n) {
    return routine == "fft" ? kLastFftPoints : max_n;
}
int64_t next_size(const std::string& routine, int64_t n, int64_t max_n) {
    if (routine == "fft") return 2 * n;
    const int64_t next = (n * 3 / 2 + 31) / 32 * 32;
    return n < max_n && next > max_n ? max_n : next;
}

// The routine on n x n operands, on the CPU library's `cpu_function` and on the device
// (from host memory, as a program's call gets there), at growing sizes up to max_n, while
// the next size is predicted to fit in the budget.
std::vector<TuneMeasurement> measure(const std::string& routine, void* cpu_function, int64_t max_n,
                                     double budget, std::string& problem) {
    std::mt19937_64 rng(1);
    std::vector<TuneMeasurement> measurements;
    const auto start = Clock::now();
    double last_size_seconds = 0;
    const double growth = routine == "fft" ? 2.2 : 3.4;  // the next size's cost, relative
    for (int64_t n = first_size(routine); n <= last_size(routine, max_n);
         n = next_size(routine, n, max_n)) {
        const double left = budget - seconds_since(start);
        if (left <= 0 || last_size_seconds * growth > left) {
            if (left <= 0 || !measurements.empty()) problem = "the time budget (--seconds) ran out";
            break;
        }
        const auto size_start = Clock::now();
        const SizeRun run = make_run(routine, cpu_function, n, rng);
        const double share = left / 4;  // each path's share of what is left, roughly
        const double cpu = best_time(run.prepare, run.on_cpu, share);
        const double device = best_time(run.prepare, run.on_device, share);
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
    std::string written = "# gpushim tune: calls from host memory against the CPU library, on " +
                          gpu::backend_summary() + "\n";
    std::fputs(written.c_str(), stdout);
    const double budget = options.seconds / static_cast<double>(options.routines.size());
    bool complete = true;
    char line[256];
    for (const std::string& routine : options.routines) {
        const bool fft = routine == "fft";
        const std::string symbol = fft ? "fftw_execute" : routine + "_";
        const fallback::CpuLibrarySetting setting = fallback::cpu_library_setting(symbol, config());
        void* cpu_function = fallback::find_cpu_symbol(symbol.c_str(), setting.path);
        std::string text =
            "#\n# " + routine + ": the CPU's " +
            (cpu_function != nullptr ? fallback::library_of(cpu_function) : "(none)") +
            " against the device; n, CPU ms, device ms\n";
        std::string problem;
        std::vector<TuneMeasurement> measurements;
        if (cpu_function == nullptr) {
            problem = "no CPU library defines " + symbol + " (set " + setting.variable + ")";
        } else {
            measurements = measure(routine, cpu_function, options.max_n, budget, problem);
        }
        for (const TuneMeasurement& m : measurements) {
            std::snprintf(line, sizeof line, "#   %9lld %12.3f %12.3f\n",
                          static_cast<long long>(m.n), m.cpu_seconds * 1e3, m.device_seconds * 1e3);
            text += line;
        }
        if (!problem.empty()) text += "#   stopped: " + problem + "\n";
        const int64_t from = crossover(measurements);
        const std::string variable = threshold_variable(routine);
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
