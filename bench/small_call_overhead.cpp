// What the shim costs on a call it does not offload.
//
// An 8x8 GEMM (and a few relatives) is timed twice in one process: calling
// OpenBLAS directly, and calling the same symbol in libgpushim.so, whose CPU
// fallback forwards to that same OpenBLAS (GPUSHIM_CPU_BLAS is set to the very
// file the direct path opened). Both libraries are dlopen()ed, so the numbers
// share the process, the cache state and the CPU frequency, and the ratio
// shim/direct is meaningful. Repetitions are randomly interleaved.
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
    std::string label;  // "openblas" or "gpushim"
    std::string path;
    void* handle = nullptr;
};

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

// One benchmark case: a routine at one size, runnable through any library.
struct Case {
    std::string name;    // e.g. "dgemm_/8"
    const char* symbol;  // exported name looked up in both libraries
    // Runs one call per iteration; `out` receives the result for the sanity check.
    std::function<void(void* fn, benchmark::State* st, std::vector<unsigned char>* out)> run;
};

template <class T>
void fill(std::vector<T>& v, double seed) {
    for (size_t i = 0; i < v.size(); ++i) {
        double x = std::sin(seed + 0.37 * static_cast<double>(i));
        if constexpr (std::is_same_v<T, zcomplex>)
            v[i] = zcomplex(x, std::cos(seed * 1.3 + 0.11 * static_cast<double>(i)));
        else
            v[i] = static_cast<T>(x);
    }
}

template <class T>
void save(const std::vector<T>& c, std::vector<unsigned char>* out) {
    if (!out) return;
    out->resize(c.size() * sizeof(T));
    std::memcpy(out->data(), c.data(), out->size());
}

// Makes `call` (which writes c) once per benchmark iteration, or once without a State (the
// sanity check); then saves c into `out`.
template <class T, class Call>
void run_calls(benchmark::State* st, const Call& call, std::vector<T>& c,
               std::vector<unsigned char>* out) {
    if (st) {
        for (auto _ : *st) {
            call();
            benchmark::DoNotOptimize(c.data());
            benchmark::ClobberMemory();
        }
    } else {
        call();
    }
    save(c, out);
}

// Fortran xGEMM, C = A*B (beta = 0, as NumPy's matmul).
template <class T>
Case fortran_gemm(const char* symbol, int n) {
    return Case{std::string(symbol) + "/" + std::to_string(n), symbol,
                [n](void* fn, benchmark::State* st, std::vector<unsigned char>* out) {
                    auto f = reinterpret_cast<gemm_fn<T>>(fn);
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
Case cblas_dgemm_case(int n) {
    return Case{"cblas_dgemm_rowmajor/" + std::to_string(n), "cblas_dgemm",
                [n](void* fn, benchmark::State* st, std::vector<unsigned char>* out) {
                    auto f = reinterpret_cast<cblas_dgemm_fn>(fn);
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
Case cblas_dsyrk_case(int n) {
    return Case{"cblas_dsyrk_rowmajor/" + std::to_string(n), "cblas_dsyrk",
                [n](void* fn, benchmark::State* st, std::vector<unsigned char>* out) {
                    auto f = reinterpret_cast<cblas_dsyrk_fn>(fn);
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

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    cases.push_back(fortran_gemm<double>("dgemm_", 8));  // the headline number
    cases.push_back(cblas_dgemm_case(8));
    cases.push_back(fortran_gemm<float>("sgemm_", 8));
    cases.push_back(fortran_gemm<zcomplex>("zgemm_", 8));
    cases.push_back(cblas_dsyrk_case(8));
    cases.push_back(fortran_gemm<double>("dgemm_", 2));   // the worst case: almost no work
    cases.push_back(fortran_gemm<double>("dgemm_", 32));  // overhead fading with size
    return cases;
}

// ---- the summary ------------------------------------------------------------

struct Timing {
    double median_ns = std::numeric_limits<double>::quiet_NaN();
    double min_ns = std::numeric_limits<double>::quiet_NaN();
};

// A console reporter that also keeps each benchmark's median and minimum and
// prints the shim/direct ratios at the end.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    RatioReporter(OutputOptions opts, std::vector<std::string> order, double max_overhead_pct)
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
        std::fprintf(o, "%-26s %12s %12s %9s %9s %9s\n", "case", "openblas ns", "gpushim ns",
                     "ratio", "overhead", "min-ratio");
        for (const std::string& c : order_) {
            Timing d = timing(c + "/openblas"), s = timing(c + "/gpushim");
            if (std::isnan(d.median_ns) || std::isnan(s.median_ns)) {
                std::fprintf(o, "%-26s %12s\n", c.c_str(), "not run");
                continue;
            }
            const double ratio = s.median_ns / d.median_ns;
            const double min_ratio = s.min_ns / d.min_ns;
            const double overhead = 100.0 * (ratio - 1.0);
            const bool over = overhead > 5.0;
            std::fprintf(o, "%-26s %12.1f %12.1f %9.3f %8.1f%% %9.3f%s\n", c.c_str(), d.median_ns,
                         s.median_ns, ratio, overhead, min_ratio, over ? "  > 5%" : "");
            if (!std::isnan(max_overhead_pct_) && overhead > max_overhead_pct_) failed_ = true;
        }
        std::fprintf(o,
                     "(ratio: median gpushim / median openblas over the repetitions; "
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

    std::vector<std::string> order_;
    double max_overhead_pct_;
    std::map<std::string, Timing> timings_;
    std::map<std::string, std::vector<double>> singles_;
    bool failed_ = false;
};

// Every loaded object whose name suggests a BLAS (or the shim): a second BLAS in
// this list means the shim did not forward to the OpenBLAS the direct path uses.
std::string loaded_blas_objects() {
    std::string list;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            std::string name = info->dlpi_name ? info->dlpi_name : "";
            if (name.find("blas") != std::string::npos ||
                name.find("lapack") != std::string::npos || name.find("mkl") != std::string::npos ||
                name.find("gpushim") != std::string::npos) {
                auto* l = static_cast<std::string*>(data);
                if (!l->empty()) *l += ", ";
                *l += name;
            }
            return 0;
        },
        &list);
    return list;
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

    Library direct{"openblas", GPUSHIM_BENCH_OPENBLAS_PATH};
    Library shim{"gpushim", GPUSHIM_BENCH_SHIM_PATH};
    for (Library* lib : {&direct, &shim}) {
        lib->handle = dlopen(lib->path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib->handle) {
            std::fprintf(stderr, "small_call_overhead: cannot load %s: %s\n", lib->path.c_str(),
                         dlerror());
            return 2;
        }
    }
    if (auto set_threads =
            reinterpret_cast<void (*)(int)>(dlsym(direct.handle, "openblas_set_num_threads")))
        set_threads(1);

    // Sanity: each case once through both libraries. The results must agree
    // (they are bit-identical when the shim forwards the call unchanged).
    std::vector<Case> cases = all_cases();
    std::vector<std::string> order;
    bool wrong = false;
    for (const Case& c : cases) {
        void* fd = own_symbol(direct, c.symbol);
        void* fs = own_symbol(shim, c.symbol);
        if (!fd || !fs) {
            std::fprintf(stderr, "small_call_overhead: %s not exported by %s; case %s skipped\n",
                         c.symbol, fd ? "libgpushim.so" : "OpenBLAS", c.name.c_str());
            continue;
        }
        std::vector<unsigned char> rd, rs;
        c.run(fd, nullptr, &rd);
        c.run(fs, nullptr, &rs);
        if (rd != rs) {
            // Not bit-identical: tolerate rounding (a row-major call may reach OpenBLAS
            // through another entry point), reject anything larger.
            const double* x = reinterpret_cast<const double*>(rd.data());
            const double* y = reinterpret_cast<const double*>(rs.data());
            double maxdiff = 0.0, maxval = 0.0;
            if (c.symbol[0] == 's') {
                const float* xf = reinterpret_cast<const float*>(rd.data());
                const float* yf = reinterpret_cast<const float*>(rs.data());
                for (size_t i = 0; i < rd.size() / sizeof(float); ++i) {
                    maxdiff = std::max(maxdiff, double(std::fabs(xf[i] - yf[i])));
                    maxval = std::max(maxval, double(std::fabs(xf[i])));
                }
            } else {
                for (size_t i = 0; i < rd.size() / sizeof(double); ++i) {
                    maxdiff = std::max(maxdiff, std::fabs(x[i] - y[i]));
                    maxval = std::max(maxval, std::fabs(x[i]));
                }
            }
            const double tol = (c.symbol[0] == 's' ? 1e-5 : 1e-13) * std::max(1.0, maxval);
            std::fprintf(stderr,
                         "small_call_overhead: %s: shim and OpenBLAS results differ (max abs "
                         "difference %.3g)%s\n",
                         c.name.c_str(), maxdiff,
                         maxdiff > tol ? ": WRONG RESULT" : ", within rounding");
            if (maxdiff > tol) wrong = true;
        }
        order.push_back(c.name);
        for (auto [lib, fn] : {std::pair{&direct, fd}, std::pair{&shim, fs}}) {
            auto* b = benchmark::RegisterBenchmark(
                (c.name + "/" + lib->label).c_str(),
                [run = c.run, fn = fn](benchmark::State& st) { run(fn, &st, nullptr); });
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

    benchmark::AddCustomContext("openblas", real_path(direct.path));
    benchmark::AddCustomContext("gpushim", real_path(shim.path));
    benchmark::AddCustomContext("GPUSHIM_CPU_BLAS", GPUSHIM_BENCH_OPENBLAS_PATH);
    benchmark::AddCustomContext("loaded_blas_objects", loaded_blas_objects());

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
