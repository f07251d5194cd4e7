// What the shim costs on a call it does not offload.
//
// An 8x8 GEMM (and a few relatives) is timed twice in one process: calling
// OpenBLAS directly, and calling the same symbol in libgpushim.so, whose CPU
// fallback forwards to that same OpenBLAS (GPUSHIM_CPU_BLAS is set to the very
// file the direct path opened). Both libraries are dlopen()ed, so the numbers
// share the process, the cache state and the CPU frequency, and the ratio
// shim/direct is meaningful. Repetitions are randomly interleaved.
//
// Small LAPACK calls (dgesv_, dpotrf_, dgetrf_, dsytrf_ of order 3 and 8: what NumPy's solve,
// inv and cholesky make once per matrix of a stack, SciPy's symmetric solve once a call) are timed
// the same way, each iteration copying in the same operands first (both paths pay the copy).
//
// Small FFTs (fftw_execute of plans far below the offload threshold) are timed
// the same way against FFTW (libfftw3.so.3, libfftw3f.so.3; GPUSHIM_CPU_FFTW is
// set to the file the direct path opened). The shim's fftw_execute hands a plan
// it did not make to FFTW unchanged, so each path executes a plan of its own
// planner (FFTW_ESTIMATE, on arrays both paths share, so FFTW makes equal plans).
// These cases are skipped, with a message, where FFTW does not load.
//
// Goal (DESIGN.md, "Invisible until it helps"): shim overhead <= 5%.
//
// Own flags (removed before Google Benchmark sees argv):
//   --max_overhead_pct=X   exit 1 if a case's median overhead exceeds X percent
//   --keep_gpushim_env     keep GPUSHIM_THRESHOLD*/GPUSHIM_DISABLE/GPUSHIM_REPORT/
//                          GPUSHIM_BACKEND from the environment (by default they are
//                          removed so that the shim runs with its defaults)
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifndef GPUSHIM_BENCH_SHIM_PATH
#error "GPUSHIM_BENCH_SHIM_PATH (the path of libgpushim.so) must be defined"
#endif
#ifndef GPUSHIM_BENCH_OPENBLAS_PATH
#define GPUSHIM_BENCH_OPENBLAS_PATH "libopenblas.so.0"
#endif

namespace {

using fint = int;  // LP64 Fortran INTEGER
using zcomplex = std::complex<double>;

template <class T>
using gemm_fn = void (*)(const char*, const char*, const fint*, const fint*, const fint*, const T*,
                         const T*, const fint*, const T*, const fint*, const T*, T*, const fint*,
                         size_t, size_t);
using cblas_dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int,
                                const double*, int, double, double*, int);
using cblas_dsyrk_fn = void (*)(int, int, int, int, int, double, const double*, int, double,
                                double*, int);

constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;
constexpr int kCblasUpper = 121;

struct Library {
    std::string label;  // "openblas", "fftw3", "fftw3f" or "gpushim"
    std::string path;
    void* handle = nullptr;
};

// dlopen()s `lib`; on success its path becomes the file the loader found, so that
// a library opened by its soname can be named exactly to the shim.
bool open_library(Library& lib) {
    lib.handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) return false;
    link_map* map = nullptr;
    if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        lib.path = map->l_name;
    return true;
}

std::string real_path(const std::string& p) {
    char buf[PATH_MAX];
    return realpath(p.c_str(), buf) ? std::string(buf) : p;
}

// The object file a code address belongs to.
std::string object_of(void* fn) {
    Dl_info info{};
    if (fn && dladdr(fn, &info) && info.dli_fname) return real_path(info.dli_fname);
    return "?";
}

// dlsym(handle, name), accepted only when the definition lives in that library
// itself (not in something it depends on or in a library loaded earlier).
void* own_symbol(const Library& lib, const char* name) {
    void* f = dlsym(lib.handle, name);
    if (!f) return nullptr;
    std::string where = object_of(f);
    if (where != real_path(lib.path)) {
        std::fprintf(stderr, "small_call_overhead: %s in %s resolves to %s; case skipped\n", name,
                     lib.label.c_str(), where.c_str());
        return nullptr;
    }
    return f;
}

// ---- the cases --------------------------------------------------------------

// What one run of a case leaves for the sanity check.
struct Result {
    std::vector<unsigned char> bytes;  // the output array
    std::string plan;                  // FFTW's description of the plan (FFT cases)
};

// The case's symbols, resolved in the library under test, in the order of Case::symbols.
using Functions = std::vector<void*>;

// One benchmark case: a routine at one size, runnable through any library.
struct Case {
    std::string name;                  // e.g. "dgemm_/8"
    const Library* direct;             // the CPU library the shim forwards this case to
    std::vector<std::string> symbols;  // exported names looked up in both libraries
    bool single;                       // float results: a looser rounding tolerance
    // Runs one call per iteration; `out` receives the result for the sanity check.
    std::function<void(const Functions& fns, benchmark::State* st, Result* out)> run;
};

template <class Range>
void fill(Range&& v, double seed) {
    using T = std::ranges::range_value_t<Range>;
    for (size_t i = 0; i < std::ranges::size(v); ++i) {
        double x = std::sin(seed + 0.37 * static_cast<double>(i));
        if constexpr (std::is_same_v<T, zcomplex>)
            v[i] = zcomplex(x, std::cos(seed * 1.3 + 0.11 * static_cast<double>(i)));
        else
            v[i] = static_cast<T>(x);
    }
}

template <class Range>
void save(const Range& c, Result* out) {
    if (!out) return;
    out->bytes.resize(std::ranges::size(c) * sizeof(std::ranges::range_value_t<Range>));
    std::memcpy(out->bytes.data(), std::ranges::data(c), out->bytes.size());
}

// Makes `call` (which writes c) once per benchmark iteration, or once without a State (the
// sanity check); then saves c into `out`.
template <class Range, class Call>
void run_calls(benchmark::State* st, const Call& call, const Range& c, Result* out) {
    if (st) {
        for (auto _ : *st) {
            call();
            benchmark::DoNotOptimize(std::ranges::data(c));
            benchmark::ClobberMemory();
        }
    } else {
        call();
    }
    save(c, out);
}

// Fortran xGEMM, C = A*B (beta = 0, as NumPy's matmul).
template <class T>
Case fortran_gemm(const Library& openblas, const char* symbol, int n) {
    return Case{std::string(symbol) + "/" + std::to_string(n),
                &openblas,
                {symbol},
                std::is_same_v<T, float>,
                [n](const Functions& fns, benchmark::State* st, Result* out) {
                    auto f = reinterpret_cast<gemm_fn<T>>(fns[0]);
                    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
                    std::vector<T> a(nn), b(nn), c(nn);
                    fill(a, 1.0);
                    fill(b, 2.0);
                    const T alpha = T(1), beta = T(0);
                    auto call = [&] {
                        f("N", "N", &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, c.data(),
                          &n, 1, 1);
                    };
                    run_calls(st, call, c, out);
                }};
}

// cblas_dgemm, row-major, C = A*B^T (NumPy calls CBLAS row-major only).
Case cblas_dgemm_case(const Library& openblas, int n) {
    return Case{"cblas_dgemm_rowmajor/" + std::to_string(n),
                &openblas,
                {"cblas_dgemm"},
                false,
                [n](const Functions& fns, benchmark::State* st, Result* out) {
                    auto f = reinterpret_cast<cblas_dgemm_fn>(fns[0]);
                    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
                    std::vector<double> a(nn), b(nn), c(nn);
                    fill(a, 3.0);
                    fill(b, 4.0);
                    auto call = [&] {
                        f(kCblasRowMajor, kCblasNoTrans, kCblasTrans, n, n, n, 1.0, a.data(), n,
                          b.data(), n, 0.0, c.data(), n);
                    };
                    run_calls(st, call, c, out);
                }};
}

// cblas_dsyrk, row-major: what NumPy's `A @ A.T` on one buffer becomes.
Case cblas_dsyrk_case(const Library& openblas, int n) {
    return Case{"cblas_dsyrk_rowmajor/" + std::to_string(n),
                &openblas,
                {"cblas_dsyrk"},
                false,
                [n](const Functions& fns, benchmark::State* st, Result* out) {
                    auto f = reinterpret_cast<cblas_dsyrk_fn>(fns[0]);
                    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
                    std::vector<double> a(nn), c(nn, 0.0);
                    fill(a, 5.0);
                    auto call = [&] {
                        f(kCblasRowMajor, kCblasUpper, kCblasNoTrans, n, n, 1.0, a.data(), n, 0.0,
                          c.data(), n);
                    };
                    run_calls(st, call, c, out);
                }};
}

// ---- LAPACK cases -------------------------------------------------------------

// A LAPACK routine that overwrites its operands: each iteration starts from the same A (and
// B), copied in, which costs both paths the same. `call` gets the working arrays.
template <class Call>
Case lapack_case(const Library& openblas, const char* symbol, int n, int nrhs, Call call) {
    return Case{std::string(symbol) + "/" + std::to_string(n),
                &openblas,
                {symbol},
                false,
                [n, nrhs, call](const Functions& fns, benchmark::State* st, Result* out) {
                    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
                    std::vector<double> a0(nn), b0(static_cast<size_t>(n) * nrhs);
                    fill(a0, 7.0);
                    for (int i = 0; i < n; ++i) a0[static_cast<size_t>(i) * (n + 1)] += 2.0 * n;
                    fill(b0, 8.0);
                    std::vector<double> a(a0), b(b0);
                    std::vector<int> ipiv(static_cast<size_t>(n));
                    int info = 0;
                    auto once = [&] {
                        std::ranges::copy(a0, a.begin());
                        std::ranges::copy(b0, b.begin());
                        call(fns[0], n, nrhs, a.data(), b.data(), ipiv.data(), &info);
                    };
                    run_calls(st, once, a, out);
                }};
}

// NumPy's solve and inv call dgesv_ once per matrix of a stack, cholesky dpotrf_.
Case dgesv_case(const Library& openblas, int n) {
    using gesv_fn =
        void (*)(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
    return lapack_case(openblas, "dgesv_", n, 1,
                       [](void* f, int n, int nrhs, double* a, double* b, int* ipiv, int* info) {
                           reinterpret_cast<gesv_fn>(f)(&n, &nrhs, a, &n, ipiv, b, &n, info);
                       });
}

Case dpotrf_case(const Library& openblas, int n) {
    using potrf_fn = void (*)(const char*, const int*, double*, const int*, int*, size_t);
    return lapack_case(openblas, "dpotrf_", n, 0,
                       [](void* f, int n, int, double* a, double*, int*, int* info) {
                           reinterpret_cast<potrf_fn>(f)("L", &n, a, &n, info, 1);
                       });
}

Case dgetrf_case(const Library& openblas, int n) {
    using getrf_fn = void (*)(const int*, const int*, double*, const int*, int*, int*);
    return lapack_case(openblas, "dgetrf_", n, 0,
                       [](void* f, int n, int, double* a, double*, int* ipiv, int* info) {
                           reinterpret_cast<getrf_fn>(f)(&n, &n, a, &n, ipiv, info);
                       });
}

// SciPy's solve and inv of a symmetric indefinite matrix call dsytrf_ (LWORK 64 n, the
// optimum OpenBLAS answers for small n).
Case dsytrf_case(const Library& openblas, int n) {
    using sytrf_fn = void (*)(const char*, const int*, double*, const int*, int*, double*,
                              const int*, int*, size_t);
    return lapack_case(openblas, "dsytrf_", n, 0,
                       [](void* f, int n, int, double* a, double*, int* ipiv, int* info) {
                           static std::vector<double> work;  // both paths, allocated once
                           if (work.size() < static_cast<size_t>(64 * n))
                               work.resize(static_cast<size_t>(64 * n));
                           const int lwork = static_cast<int>(work.size());
                           reinterpret_cast<sytrf_fn>(f)("L", &n, a, &n, ipiv, work.data(), &lwork,
                                                         info, 1);
                       });
}

// ---- FFT cases ----------------------------------------------------------------

// fftw3.h's values, declared here so that the benchmark builds without FFTW's headers.
constexpr unsigned kFftwEstimate = 1U << 6;
constexpr int kFftwForward = -1;

// fftw_malloc and fftw_free of the direct library: FFTW's planners choose by alignment, and
// fftw_malloc's is the alignment FFTW plans best for.
struct FftwMemory {
    void* (*allocate)(size_t) = nullptr;
    void (*release)(void*) = nullptr;
};

// A transform: its arrays (in reals) and how to plan it with a planner of either library.
template <class Real>
struct FftShape {
    std::string name;     // e.g. "c2c_1d/64"
    std::string planner;  // the planner's name after the prefix
    size_t in_reals, out_reals;
    std::function<void*(void* planner, Real* in, Real* out)> plan;  // FFTW_ESTIMATE
};

template <class Real>
FftShape<Real> c2c_1d(int n) {
    using Planner = void* (*)(int, Real*, Real*, int, unsigned);
    const size_t reals = 2 * static_cast<size_t>(n);
    return {"c2c_1d/" + std::to_string(n), "plan_dft_1d", reals, reals,
            [n](void* planner, Real* in, Real* out) {
                return reinterpret_cast<Planner>(planner)(n, in, out, kFftwForward, kFftwEstimate);
            }};
}

template <class Real>
FftShape<Real> c2c_2d(int n0, int n1) {
    using Planner = void* (*)(int, int, Real*, Real*, int, unsigned);
    const size_t reals = 2 * static_cast<size_t>(n0) * static_cast<size_t>(n1);
    return {"c2c_2d/" + std::to_string(n0) + "x" + std::to_string(n1), "plan_dft_2d", reals, reals,
            [n0, n1](void* planner, Real* in, Real* out) {
                return reinterpret_cast<Planner>(planner)(n0, n1, in, out, kFftwForward,
                                                          kFftwEstimate);
            }};
}

template <class Real>
FftShape<Real> r2c_1d(int n) {
    using Planner = void* (*)(int, Real*, Real*, unsigned);
    return {"r2c_1d/" + std::to_string(n), "plan_dft_r2c_1d", static_cast<size_t>(n),
            2 * static_cast<size_t>(n / 2 + 1), [n](void* planner, Real* in, Real* out) {
                return reinterpret_cast<Planner>(planner)(n, in, out, kFftwEstimate);
            }};
}

// The arrays of one FFT case, made once and used by both paths: their placement in memory
// (cache sets, 4K aliasing of input and output) changes an FFT's time by more than the
// shim costs, so the paths must not get arrays of their own.
template <class Real>
struct FftArrays {
    FftArrays(FftwMemory m, size_t in_reals, size_t out_reals, bool new_arrays) : memory(m) {
        auto allocate = [this](size_t reals) {
            return std::span(static_cast<Real*>(memory.allocate(reals * sizeof(Real))), reals);
        };
        in = allocate(in_reals);
        out = allocate(out_reals);
        fill(in, 6.0);
        if (new_arrays) {
            in2 = allocate(in_reals);
            out2 = allocate(out_reals);
            std::ranges::copy(in, in2.begin());
        }
    }
    FftArrays(const FftArrays&) = delete;
    FftArrays& operator=(const FftArrays&) = delete;
    ~FftArrays() {
        for (std::span<Real> a : {in, out, in2, out2})
            if (!a.empty()) memory.release(a.data());
    }

    FftwMemory memory;
    std::span<Real> in, out, in2, out2;  // in2, out2: for fftw_execute_dft
};

// An out-of-place transform (repeated executions see the same input, so the timing never
// reaches inf or NaN) planned once per run, outside the timing, and executed per iteration:
// by fftw_execute, or with `new_arrays` by fftw_execute_dft on a second pair of arrays.
template <class Real>
Case fft_case(const Library& fftw, FftwMemory memory, FftShape<Real> shape,
              bool new_arrays = false) {
    const std::string prefix = std::is_same_v<Real, float> ? "fftwf_" : "fftw_";
    const std::string execute = new_arrays ? "execute_dft" : "execute";
    auto arrays =
        std::make_shared<FftArrays<Real>>(memory, shape.in_reals, shape.out_reals, new_arrays);
    return Case{
        prefix + execute + "/" + shape.name,
        &fftw,
        {prefix + shape.planner, prefix + execute, prefix + "destroy_plan", prefix + "sprint_plan"},
        std::is_same_v<Real, float>,
        [arrays, shape, new_arrays](const Functions& fns, benchmark::State* st, Result* out) {
            FftArrays<Real>& a = *arrays;
            void* plan = shape.plan(fns[0], a.in.data(), a.out.data());
            if (!plan) {
                std::fprintf(stderr, "small_call_overhead: %s returned no plan\n",
                             shape.planner.c_str());
                std::exit(3);
            }
            // The sanity check must see this path's output, not what the other path left.
            std::ranges::fill(new_arrays ? a.out2 : a.out, Real(0));
            if (new_arrays) {
                auto f = reinterpret_cast<void (*)(void*, Real*, Real*)>(fns[1]);
                auto call = [&] { f(plan, a.in2.data(), a.out2.data()); };
                run_calls(st, call, a.out2, out);
            } else {
                auto f = reinterpret_cast<void (*)(void*)>(fns[1]);
                auto call = [&] { f(plan); };
                run_calls(st, call, a.out, out);
            }
            if (out) {
                char* text = reinterpret_cast<char* (*)(void*)>(fns[3])(plan);
                out->plan = text ? text : "";
                std::free(text);  // FFTW's documented way to release it
            }
            reinterpret_cast<void (*)(void*)>(fns[2])(plan);
        }};
}

// ---- all cases --------------------------------------------------------------

// The BLAS cases, and the FFT cases of each FFTW library that loaded (nullptr: did not).
std::vector<Case> all_cases(const Library& openblas, const Library* fftw, FftwMemory fftw_memory,
                            const Library* fftwf, FftwMemory fftwf_memory) {
    std::vector<Case> cases;
    cases.push_back(fortran_gemm<double>(openblas, "dgemm_", 8));  // the headline number
    cases.push_back(cblas_dgemm_case(openblas, 8));
    cases.push_back(fortran_gemm<float>(openblas, "sgemm_", 8));
    cases.push_back(fortran_gemm<zcomplex>(openblas, "zgemm_", 8));
    cases.push_back(cblas_dsyrk_case(openblas, 8));
    cases.push_back(fortran_gemm<double>(openblas, "dgemm_", 2));  // the worst case: almost no work
    cases.push_back(fortran_gemm<double>(openblas, "dgemm_", 32));  // overhead fading with size
    cases.push_back(dgesv_case(openblas, 3));
    cases.push_back(dgesv_case(openblas, 8));
    cases.push_back(dpotrf_case(openblas, 8));
    cases.push_back(dgetrf_case(openblas, 8));
    cases.push_back(dsytrf_case(openblas, 8));
    if (fftw) {
        cases.push_back(fft_case(*fftw, fftw_memory, c2c_1d<double>(64)));
        cases.push_back(fft_case(*fftw, fftw_memory, c2c_1d<double>(1024)));
        cases.push_back(fft_case(*fftw, fftw_memory, r2c_1d<double>(256)));
        cases.push_back(fft_case(*fftw, fftw_memory, c2c_2d<double>(16, 16)));
        cases.push_back(fft_case(*fftw, fftw_memory, c2c_1d<double>(1024), true));
    }
    if (fftwf) cases.push_back(fft_case(*fftwf, fftwf_memory, c2c_1d<float>(64)));
    return cases;
}

// ---- the summary ------------------------------------------------------------

struct Timing {
    double median_ns = std::numeric_limits<double>::quiet_NaN();
    double min_ns = std::numeric_limits<double>::quiet_NaN();
};

// A case by name, and the label of the library its direct path calls.
struct Timed {
    std::string name;
    std::string direct;
};

// A console reporter that also keeps each benchmark's median and minimum and
// prints the shim/direct ratios at the end.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    RatioReporter(OutputOptions opts, std::vector<Timed> order, double max_overhead_pct)
        : ConsoleReporter(opts), order_(std::move(order)), max_overhead_pct_(max_overhead_pct) {}

    void ReportRuns(const std::vector<Run>& reports) override {
        for (const Run& r : reports) {
            if (r.iterations <= 0) continue;  // skipped / failed runs
            const std::string& name = r.run_name.function_name;
            const double ns = r.GetAdjustedRealTime() * unit_to_ns(r.time_unit);
            Timing& t = timings_[name];
            if (r.run_type == Run::RT_Aggregate) {
                if (r.aggregate_name == "median") t.median_ns = ns;
                if (r.aggregate_name == "min") t.min_ns = ns;
            } else {
                singles_[name].push_back(ns);
            }
        }
        ConsoleReporter::ReportRuns(reports);
    }

    void Finalize() override {
        ConsoleReporter::Finalize();
        std::FILE* o = stdout;
        std::fflush(stdout);
        std::fprintf(o, "\nShim overhead on calls that stay on the CPU (goal <= 5%%)\n");
        std::fprintf(o, "%-28s %-8s %12s %12s %9s %9s %9s\n", "case", "direct", "direct ns",
                     "gpushim ns", "ratio", "overhead", "min-ratio");
        for (const Timed& c : order_) {
            Timing d = timing(c.name + "/" + c.direct), s = timing(c.name + "/gpushim");
            if (std::isnan(d.median_ns) || std::isnan(s.median_ns)) {
                std::fprintf(o, "%-28s %-8s %12s\n", c.name.c_str(), c.direct.c_str(), "not run");
                continue;
            }
            const double ratio = s.median_ns / d.median_ns;
            const double min_ratio = s.min_ns / d.min_ns;
            const double overhead = 100.0 * (ratio - 1.0);
            const bool over = overhead > 5.0;
            std::fprintf(o, "%-28s %-8s %12.1f %12.1f %9.3f %8.1f%% %9.3f%s\n", c.name.c_str(),
                         c.direct.c_str(), d.median_ns, s.median_ns, ratio, overhead, min_ratio,
                         over ? "  > 5%" : "");
            if (!std::isnan(max_overhead_pct_) && overhead > max_overhead_pct_) failed_ = true;
        }
        std::fprintf(o,
                     "(ratio: median gpushim / median direct over the repetitions; "
                     "min-ratio: the same with the fastest repetition of each)\n");
        std::fflush(o);
    }

    bool failed() const { return failed_; }

  private:
    static double unit_to_ns(benchmark::TimeUnit u) {
        switch (u) {
            case benchmark::kNanosecond:
                return 1.0;
            case benchmark::kMicrosecond:
                return 1e3;
            case benchmark::kMillisecond:
                return 1e6;
            default:
                return 1e9;  // kSecond
        }
    }

    // Aggregates when there were repetitions, else the single run(s).
    Timing timing(const std::string& name) const {
        Timing t;
        if (auto it = timings_.find(name); it != timings_.end()) t = it->second;
        if (auto it = singles_.find(name); it != singles_.end() && !it->second.empty()) {
            std::vector<double> v = it->second;
            std::sort(v.begin(), v.end());
            if (std::isnan(t.median_ns)) t.median_ns = v[v.size() / 2];
            if (std::isnan(t.min_ns)) t.min_ns = v.front();
        }
        if (std::isnan(t.min_ns)) t.min_ns = t.median_ns;
        return t;
    }

    std::vector<Timed> order_;
    double max_overhead_pct_;
    std::map<std::string, Timing> timings_;
    std::map<std::string, std::vector<double>> singles_;
    bool failed_ = false;
};

// Every loaded object whose name contains one of `needles`: a second BLAS or FFTW
// in this list means the shim did not forward to the library the direct path uses.
std::string loaded_objects(std::vector<std::string_view> needles) {
    struct Search {
        std::vector<std::string_view> needles;
        std::string list;
    } search{std::move(needles), {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            auto* s = static_cast<Search*>(data);
            std::string_view name = info->dlpi_name ? info->dlpi_name : "";
            if (std::ranges::any_of(s->needles, [&](std::string_view n) {
                    return name.find(n) != std::string_view::npos;
                })) {
                if (!s->list.empty()) s->list += ", ";
                s->list += name;
            }
            return 0;
        },
        &search);
    return search.list;
}

bool has_flag(int argc, char** argv, std::string_view prefix) {
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]).substr(0, prefix.size()) == prefix) return true;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    // Own flags first; what remains goes to Google Benchmark.
    double max_overhead_pct = std::numeric_limits<double>::quiet_NaN();
    bool keep_env = false;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        std::string_view a(argv[i]);
        if (i > 0 && a.substr(0, 19) == "--max_overhead_pct=") {
            max_overhead_pct = std::atof(argv[i] + 19);
        } else if (i > 0 && a == "--keep_gpushim_env") {
            keep_env = true;
        } else {
            args.push_back(argv[i]);
        }
    }
    // Defaults a user flag can override (the later occurrence wins).
    static char reps[] = "--benchmark_repetitions=10";
    static char interleave[] = "--benchmark_enable_random_interleaving=true";
    static char aggregates[] = "--benchmark_display_aggregates_only=true";
    const bool user_min_time = has_flag(argc, argv, "--benchmark_min_time");
    args.insert(args.begin() + 1, {reps, interleave, aggregates});
    int bargc = static_cast<int>(args.size());
    args.push_back(nullptr);

    // Environment, before either library is loaded: one OpenBLAS thread (an 8x8
    // call never uses more, but OpenBLAS's thread checks must not vary), the shim
    // forwarding to the same file, and the shim's own defaults.
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("GPUSHIM_CPU_BLAS", GPUSHIM_BENCH_OPENBLAS_PATH, 1);
    if (!keep_env) {
        for (const char* v : {"GPUSHIM_THRESHOLD", "GPUSHIM_DISABLE", "GPUSHIM_REPORT",
                              "GPUSHIM_BACKEND", "GPUSHIM_LOG"})
            unsetenv(v);
        for (char** e = environ; *e;) {  // GPUSHIM_THRESHOLD_<ROUTINE>
            if (std::strncmp(*e, "GPUSHIM_THRESHOLD_", 18) == 0) {
                std::string name(*e, std::strcspn(*e, "="));
                unsetenv(name.c_str());
            } else {
                ++e;
            }
        }
    }

    Library openblas{"openblas", GPUSHIM_BENCH_OPENBLAS_PATH};
    Library shim{"gpushim", GPUSHIM_BENCH_SHIM_PATH};
    if (!open_library(openblas)) {
        std::fprintf(stderr, "small_call_overhead: cannot load %s: %s\n", openblas.path.c_str(),
                     dlerror());
        return 2;
    }
    if (auto set_threads =
            reinterpret_cast<void (*)(int)>(dlsym(openblas.handle, "openblas_set_num_threads")))
        set_threads(1);

    // FFTW is optional (the GPU machine has none unless carried): without it the FFT
    // cases are skipped. Opened by soname, as the shim would find it by default.
    Library fftw{"fftw3", "libfftw3.so.3"}, fftwf{"fftw3f", "libfftw3f.so.3"};
    FftwMemory fftw_memory, fftwf_memory;
    auto open_fftw = [](Library& lib, const char* prefix, FftwMemory& memory) -> const Library* {
        if (!open_library(lib)) {
            std::fprintf(stderr,
                         "small_call_overhead: cannot load %s (%s); its FFT cases skipped\n",
                         lib.path.c_str(), dlerror());
            return nullptr;
        }
        memory.allocate = reinterpret_cast<void* (*)(size_t)>(
            own_symbol(lib, (std::string(prefix) + "malloc").c_str()));
        memory.release = reinterpret_cast<void (*)(void*)>(
            own_symbol(lib, (std::string(prefix) + "free").c_str()));
        if (!memory.allocate || !memory.release) {
            std::fprintf(
                stderr, "small_call_overhead: %s lacks %smalloc or %sfree; its FFT cases skipped\n",
                lib.path.c_str(), prefix, prefix);
            return nullptr;
        }
        return &lib;
    };
    const Library* have_fftw = open_fftw(fftw, "fftw_", fftw_memory);
    const Library* have_fftwf = open_fftw(fftwf, "fftwf_", fftwf_memory);
    // GPUSHIM_CPU_FFTW names one file, for either precision; the shim finds the other
    // precision's symbols in the loaded libraries, which are the ones opened here (the
    // loaded_fftw_objects context would show a second copy).
    const Library* cpu_fftw = have_fftw ? have_fftw : have_fftwf;
    if (cpu_fftw) setenv("GPUSHIM_CPU_FFTW", cpu_fftw->path.c_str(), 1);

    if (!open_library(shim)) {
        std::fprintf(stderr, "small_call_overhead: cannot load %s: %s\n", shim.path.c_str(),
                     dlerror());
        return 2;
    }

    // Sanity: each case once through both libraries. The results must agree
    // (they are bit-identical when the shim forwards the call unchanged).
    std::vector<Case> cases = all_cases(openblas, have_fftw, fftw_memory, have_fftwf, fftwf_memory);
    std::vector<Timed> order;
    bool wrong = false;
    for (const Case& c : cases) {
        const Library& direct = *c.direct;
        auto resolve = [&c](const Library& lib, Functions& fns) {
            for (const std::string& symbol : c.symbols) {
                fns.push_back(own_symbol(lib, symbol.c_str()));
                if (!fns.back()) {
                    std::fprintf(stderr,
                                 "small_call_overhead: %s not exported by %s; case %s skipped\n",
                                 symbol.c_str(), lib.path.c_str(), c.name.c_str());
                    return false;
                }
            }
            return true;
        };
        Functions fd, fs;
        if (!resolve(direct, fd) || !resolve(shim, fs)) continue;
        Result rd, rs;
        c.run(fd, nullptr, &rd);
        c.run(fs, nullptr, &rs);
        // FFTW runs the same code for equal plans, so their results must be bit-identical.
        const bool equal_plans = !rd.plan.empty() && rd.plan == rs.plan;
        if (rd.plan != rs.plan) {
            std::fprintf(stderr,
                         "small_call_overhead: %s: FFTW planned differently through the shim "
                         "(rounding may differ)\n  %s: %s\n  gpushim: %s\n",
                         c.name.c_str(), direct.label.c_str(), rd.plan.c_str(), rs.plan.c_str());
        }
        if (rd.bytes != rs.bytes) {
            // Not bit-identical: tolerate rounding (a row-major call may reach OpenBLAS
            // through another entry point, FFTW may choose another plan), reject anything
            // larger.
            double maxdiff = 0.0, maxval = 0.0;
            auto compare = [&](auto element) {
                using T = decltype(element);
                const T* x = reinterpret_cast<const T*>(rd.bytes.data());
                const T* y = reinterpret_cast<const T*>(rs.bytes.data());
                for (size_t i = 0; i < rd.bytes.size() / sizeof(T); ++i) {
                    maxdiff = std::max(maxdiff, double(std::fabs(x[i] - y[i])));
                    maxval = std::max(maxval, double(std::fabs(x[i])));
                }
            };
            if (c.single)
                compare(0.0f);
            else
                compare(0.0);
            const double tol =
                equal_plans ? 0.0 : (c.single ? 1e-5 : 1e-13) * std::max(1.0, maxval);
            std::fprintf(stderr,
                         "small_call_overhead: %s: shim and %s results differ (max abs "
                         "difference %.3g)%s\n",
                         c.name.c_str(), direct.label.c_str(), maxdiff,
                         maxdiff > tol ? ": WRONG RESULT" : ", within rounding");
            if (maxdiff > tol) wrong = true;
        }
        order.push_back({c.name, direct.label});
        const std::pair<const Library*, const Functions*> paths[] = {{&direct, &fd}, {&shim, &fs}};
        for (auto [lib, fns] : paths) {
            auto* b =
                benchmark::RegisterBenchmark((c.name + "/" + lib->label).c_str(),
                                             [run = c.run, functions = *fns](benchmark::State& st) {
                                                 run(functions, &st, nullptr);
                                             });
            b->Unit(benchmark::kNanosecond);
            b->ComputeStatistics("min", [](const std::vector<double>& v) {
                return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
            });
            if (!user_min_time) b->MinTime(0.05);
        }
    }
    if (wrong) {
        std::fprintf(stderr, "small_call_overhead: the shim returned wrong results\n");
        return 3;
    }
    if (order.empty()) {
        std::fprintf(stderr, "small_call_overhead: no case is exported by both libraries\n");
        return 2;
    }

    benchmark::AddCustomContext("openblas", real_path(openblas.path));
    benchmark::AddCustomContext("gpushim", real_path(shim.path));
    benchmark::AddCustomContext("GPUSHIM_CPU_BLAS", GPUSHIM_BENCH_OPENBLAS_PATH);
    benchmark::AddCustomContext("loaded_blas_objects",
                                loaded_objects({"blas", "lapack", "mkl", "gpushim"}));
    if (cpu_fftw) {
        benchmark::AddCustomContext("GPUSHIM_CPU_FFTW", cpu_fftw->path);
        benchmark::AddCustomContext("loaded_fftw_objects", loaded_objects({"fftw"}));
    }

    benchmark::Initialize(&bargc, args.data());
    if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 1;
    const bool color = isatty(STDOUT_FILENO) != 0;
    RatioReporter reporter(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                 : benchmark::ConsoleReporter::OO_Tabular,
                           order, max_overhead_pct);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return reporter.failed() ? 1 : 0;
}
