// The shim's LAPACK factorizations ({s,d,c,z}potrf, {s,d,c,z}getrf) against OpenBLAS called
// directly, through the real exported entry points of libgpushim.so.
//
// The test links no BLAS: it dlopen()s the shim (GPUSHIM_SHIM_PATH, or $GPUSHIM_TEST_SHIM),
// Debian's 32-bit OpenBLAS (GPUSHIM_TEST_OPENBLAS_PATH, or $GPUSHIM_TEST_OPENBLAS), which has
// LAPACK, and Debian's ILP64 OpenBLAS (GPUSHIM_TEST_OPENBLAS64_PATH, or
// $GPUSHIM_TEST_OPENBLAS64), whose plain names (dpotrf_) take 64-bit integers: the reference
// for the shim's 64_ names, and the CPU library the shim itself finds for them. Every call is
// made twice, through the shim and through OpenBLAS, on identical operands. main() points the
// shim at the host-simulated device (or $TEST_GPUSHIM_BACKEND) with a zero threshold, so that
// every valid, non-empty call is offloaded; CTest runs the executable again with faults
// injected, with a small device and with the shim disabled (tests/unit/lapack_vs_cpu.cmake).
//
// Checked, in every precision, through the standard names and the 64_ names (and, when the
// device certainly completes every call, the scipy_ names, whose CPU symbols exist only
// inside a pip wheel):
//  - POTRF, uplo U/L (and u/l), on random Hermitian positive definite matrices, n in
//    {1, 7, 33, 70}, lda = n and n + 3: the factor agrees with OpenBLAS's to a scaled-eps
//    bound; INFO = 0; the other triangle (NaN: must not be read) and the padding stay
//    bit-exact, as do guard elements past the end of the array;
//  - GETRF on random square and rectangular (m > n, m < n) matrices, lda = m and lda > m:
//    the pivots equal OpenBLAS's, the factors agree to a scaled-eps bound, INFO = 0, padding
//    and the pivot entries past min(m, n) untouched;
//  - INFO > 0: POTRF on matrices whose leading minor of order k is not positive definite
//    (INFO = k) and GETRF on matrices with an exactly zero column k (INFO = k): the shim
//    recomputes such calls on the CPU, so the whole array, the pivots and INFO must equal
//    OpenBLAS's bit for bit;
//  - invalid arguments (uplo 'X', m < 0, n < 0, lda too small): forwarded, the same xerbla
//    message and the same INFO < 0, the array untouched;
//  - empty matrices (n = 0, m = 0): INFO = 0, nothing written;
//  - larger matrices (n = 260), which the small_device variant computes on the CPU;
//  - a leading dimension above 2^32 through the 64-bit names;
//  - concurrent callers.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "shim_test_harness.h"

#ifndef GPUSHIM_TEST_OPENBLAS_PATH
#define GPUSHIM_TEST_OPENBLAS_PATH "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
#endif
#ifndef GPUSHIM_TEST_OPENBLAS64_PATH
#define GPUSHIM_TEST_OPENBLAS64_PATH "/usr/lib/x86_64-linux-gnu/libopenblas64.so.0"
#endif

namespace {

using namespace gpushim::test_harness;  // NOLINT(google-build-using-namespace): the shared harness

// --- Types --------------------------------------------------------------------------------
template <class T>
char prefix() {
    if constexpr (std::is_same_v<T, float>) return 's';
    if constexpr (std::is_same_v<T, double>) return 'd';
    if constexpr (std::is_same_v<T, c32>) return 'c';
    return 'z';
}

// --- Name schemes and libraries -----------------------------------------------------------
constexpr Scheme kSchemes[] = {Scheme::standard, Scheme::suffix64, Scheme::scipy64,
                               Scheme::scipy32};

using Dpotrf64 = void(const char*, const int64_t*, double*, const int64_t*, int64_t*, std::size_t);

// Whether the shim finds a CPU dpotrf for the 64_ names in this process (Debian's ILP64
// libopenblas64.so.0). Asked of the shim itself, in a forked child: an empty call stays on
// the CPU, and a shim that finds no CPU symbol stops with a message.
bool cpu_has_64bit_lapack() {
    static const bool available = succeeds_in_child([] {
        auto* fn = reinterpret_cast<Dpotrf64*>(dlsym(libraries().shim, "dpotrf_64_"));
        const int64_t n = 0, lda = 1;
        int64_t info = -99;
        double a[1] = {0};
        if (fn != nullptr) fn("U", &n, a, &lda, &info, 1);
        return fn != nullptr && info == 0;
    });
    return available;
}

// Whether every kind of call (CPU-bound ones too) may go through this scheme's names.
bool cpu_available(Scheme scheme) {
    switch (scheme) {
        case Scheme::standard:
            return true;
        case Scheme::suffix64:
            return cpu_has_64bit_lapack();
        case Scheme::scipy64:
        case Scheme::scipy32:
            return false;  // scipy_ names exist only inside a pip wheel's OpenBLAS
    }
    return false;
}

// The schemes a test runs under: those with a CPU symbol; with `offloaded_only` (every call
// of the test is valid, non-empty and succeeds on the device) also the others when the
// device certainly completes every call.
std::vector<Scheme> schemes_for(bool offloaded_only) {
    std::vector<Scheme> out;
    for (Scheme scheme : kSchemes) {
        if (cpu_available(scheme) || (offloaded_only && device_completes_every_call()))
            out.push_back(scheme);
    }
    return out;
}

void* shim_function(const std::string& routine, Scheme scheme) {
    return dlsym(libraries().shim, symbol_name(routine, scheme).c_str());
}

// The reference for a scheme: the ILP64 OpenBLAS (plain names, 64-bit integers) for the 64-bit
// schemes when it is installed, else the 32-bit OpenBLAS.
struct Reference {
    void* function = nullptr;
    bool wide = false;
};
Reference reference_function(const std::string& routine, Scheme scheme) {
    const Libraries& libs = libraries();
    const std::string name = routine + "_";
    if (is_64(scheme) && libs.openblas64 != nullptr)
        return {dlsym(libs.openblas64, name.c_str()), true};
    return {dlsym(libs.openblas, name.c_str()), false};
}

// --- Calls --------------------------------------------------------------------------------
constexpr int64_t kInfoUnset = 4711;
constexpr int64_t kPivotUnset = -77;
constexpr int kGuard = 5;  // sentinel elements after the array (and pivots)

// One matrix argument: lda x cols elements then kGuard guard elements.
template <class T>
struct Array {
    int64_t rows = 0, cols = 0, lda = 1;
    std::vector<T> v;
    Array() = default;
    Array(int64_t r, int64_t c, int64_t ld) : rows(r), cols(c), lda(ld) {
        v.assign(static_cast<std::size_t>(ld * std::max<int64_t>(c, 1) + kGuard),
                 sentinel_value<T>());
    }
    T& at(int64_t i, int64_t j) { return v[static_cast<std::size_t>(j * lda + i)]; }
    const T& at(int64_t i, int64_t j) const { return v[static_cast<std::size_t>(j * lda + i)]; }
    // Storage position -> (i, j) inside rows x cols; false for padding and guard elements.
    bool logical(std::size_t p, int64_t& i, int64_t& j) const {
        const int64_t q = static_cast<int64_t>(p);
        if (q >= lda * cols) return false;
        i = q % lda;
        j = q / lda;
        return i < rows;
    }
};

struct Outcome {
    int64_t info = kInfoUnset;
    std::vector<int64_t> pivots;  // kGuard extra entries past min(m, n)
    std::string output;           // stdout and stderr, when captured
};

// Sizes as passed (they may be invalid); `ld` the leading dimension passed.
struct Args {
    char uplo = 'U';
    int64_t m = 0, n = 0, lda = 1;
};

template <class T, class I>
void potrf_call(void* fn, const Args& args, T* a, Outcome& out) {
    using F = void(const char*, const I*, T*, const I*, I*, std::size_t);
    const I n = static_cast<I>(args.n), lda = static_cast<I>(args.lda);
    I info = static_cast<I>(kInfoUnset);
    reinterpret_cast<F*>(fn)(&args.uplo, &n, a, &lda, &info, 1);
    out.info = info;
}

template <class T, class I>
void getrf_call(void* fn, const Args& args, T* a, Outcome& out) {
    using F = void(const I*, const I*, T*, const I*, I*, I*);
    const I m = static_cast<I>(args.m), n = static_cast<I>(args.n), lda = static_cast<I>(args.lda);
    const int64_t count = std::max<int64_t>(0, std::min(args.m, args.n)) + kGuard;
    std::vector<I> pivots(static_cast<std::size_t>(count), static_cast<I>(kPivotUnset));
    I info = static_cast<I>(kInfoUnset);
    reinterpret_cast<F*>(fn)(&m, &n, a, &lda, pivots.data(), &info);
    out.info = info;
    out.pivots.assign(pivots.begin(), pivots.end());
}

enum class Routine { potrf, getrf };

template <class T>
Outcome invoke(Routine routine, void* fn, bool wide, const Args& args, T* a, bool capture) {
    Outcome out;
    if (capture) {
        std::fflush(stdout);
        std::fflush(stderr);
        testing::internal::CaptureStdout();
        testing::internal::CaptureStderr();
    }
    if (routine == Routine::potrf) {
        wide ? potrf_call<T, int64_t>(fn, args, a, out) : potrf_call<T, int32_t>(fn, args, a, out);
    } else {
        wide ? getrf_call<T, int64_t>(fn, args, a, out) : getrf_call<T, int32_t>(fn, args, a, out);
    }
    if (capture) {
        std::fflush(stdout);
        std::fflush(stderr);
        out.output = testing::internal::GetCapturedStdout();
        out.output += testing::internal::GetCapturedStderr();
    }
    return out;
}

// The same call through the shim's name of `scheme` and through OpenBLAS, each on its own
// copy of `a`.
template <class T>
struct Pair {
    Array<T> shim, ref;
    Outcome by_shim, by_ref;
};

template <class T>
Pair<T> run_both(Routine routine, Scheme scheme, const Args& args, const Array<T>& a,
                 bool capture = false) {
    const std::string name =
        std::string(1, prefix<T>()) + (routine == Routine::potrf ? "potrf" : "getrf");
    Pair<T> p{a, a, {}, {}};
    void* shim = shim_function(name, scheme);
    const Reference ref = reference_function(name, scheme);
    EXPECT_NE(shim, nullptr) << symbol_name(name, scheme);
    EXPECT_NE(ref.function, nullptr) << name << "_ in OpenBLAS";
    if (shim == nullptr || ref.function == nullptr) return p;
    p.by_ref = invoke(routine, ref.function, ref.wide, args, p.ref.v.data(), capture);
    p.by_shim = invoke(routine, shim, is_64(scheme), args, p.shim.v.data(), capture);
    return p;
}

std::string describe(const std::string& routine, Scheme scheme, const Args& args) {
    std::ostringstream s;
    s << symbol_name(routine, scheme) << " [" << scheme_name(scheme) << "]";
    if (routine.find("potrf") != std::string::npos)
        s << " uplo=" << args.uplo;
    else
        s << " m=" << args.m;
    s << " n=" << args.n << " lda=" << args.lda;
    return s.str();
}

// --- Operands -----------------------------------------------------------------------------
// A random Hermitian positive definite n x n matrix in double precision, column-major:
// B^H B / n + I, B with entries in [-1, 1]; eigenvalues in [1, n + 1].
std::vector<c64> random_hpd(int64_t n, bool complex, Rng& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<c64> b(static_cast<std::size_t>(n * n));
    for (c64& x : b) {
        const double re = u(rng);
        x = c64(re, complex ? u(rng) : 0.0);
    }
    std::vector<c64> h(static_cast<std::size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            c64 s = 0;
            for (int64_t k = 0; k < n; ++k)
                s += std::conj(b[static_cast<std::size_t>(i * n + k)]) *
                     b[static_cast<std::size_t>(j * n + k)];
            h[static_cast<std::size_t>(j * n + i)] =
                s / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
        }
    }
    for (int64_t i = 0; i < n; ++i) h[static_cast<std::size_t>(i * n + i)].imag(0.0);
    return h;
}

// The uplo triangle of the Hermitian `h` in an n x n array with leading dimension lda, the
// other triangle NaN (POTRF must not read it), padding and guard the sentinel.
template <class T>
Array<T> potrf_operand(const std::vector<c64>& h, int64_t n, int64_t lda, char uplo) {
    Array<T> a(n, n, lda);
    const bool upper = std::toupper(static_cast<unsigned char>(uplo)) == 'U';
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            const c64 x = h[static_cast<std::size_t>(j * n + i)];
            const bool in = upper ? i <= j : i >= j;
            a.at(i, j) = in ? make_value<T>(x.real(), x.imag()) : nan_value<T>();
        }
    }
    return a;
}

template <class T>
Array<T> random_operand(int64_t m, int64_t n, int64_t lda, Rng& rng) {
    Array<T> a(m, n, lda);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) a.at(i, j) = random_value<T>(rng);
    return a;
}

// --- Comparison ---------------------------------------------------------------------------
template <class T>
bool identical(const Array<T>& x, const Array<T>& y) {
    return x.v.size() == y.v.size() &&
           std::memcmp(x.v.data(), y.v.data(), x.v.size() * sizeof(T)) == 0;
}

template <class T>
double max_abs(const Array<T>& a) {
    double m = 0.0;
    for (std::size_t p = 0; p < a.v.size(); ++p) {
        int64_t i = 0, j = 0;
        if (!a.logical(p, i, j)) continue;
        const double x = std::abs(a.v[p]);
        if (std::isfinite(x)) m = std::max(m, x);
    }
    return m;
}

// Compares the shim's array with OpenBLAS's after a successful factorization: elements where
// `written(i, j)` within `tol` (elementwise, NaN never agrees), every other storage position
// (padding, guard, the triangle POTRF does not reference) bit-exact with the input. Empty:
// agreement. `bit_equal` says whether the written part was bit-exact too.
template <class T, class Written>
std::string compare_factor(const Array<T>& input, const Array<T>& shim, const Array<T>& ref,
                           Written&& written, double tol, bool& bit_equal) {
    bit_equal = true;
    int mismatches = 0;
    std::ostringstream first;
    for (std::size_t p = 0; p < input.v.size(); ++p) {
        int64_t i = -1, j = -1;
        const bool logical = input.logical(p, i, j);
        if (logical && written(i, j)) {
            if (!same_bits(shim.v[p], ref.v[p])) bit_equal = false;
            const double err = std::abs(shim.v[p] - ref.v[p]);
            if (!(err <= tol)) {
                if (mismatches++ == 0)
                    first << "(" << i << ", " << j << "): shim " << show(shim.v[p]) << ", OpenBLAS "
                          << show(ref.v[p]) << ", |difference| " << err << " > " << tol;
            }
        } else if (!same_bits(shim.v[p], input.v[p])) {
            if (mismatches++ == 0) {
                first << "storage position " << p;
                if (logical)
                    first << " = (" << i << ", " << j << "), not to be written,";
                else if (p >= static_cast<std::size_t>(input.lda * input.cols))
                    first << " (guard after the array)";
                else
                    first << " (padding row " << i << " of column " << j << ")";
                first << " changed from " << show(input.v[p]) << " to " << show(shim.v[p]);
            }
        }
    }
    if (mismatches == 0) return "";
    std::ostringstream s;
    s << mismatches << " elements differ; first " << first.str();
    return s.str();
}

// Everything the two calls left, bit for bit. Empty: identical.
template <class T>
std::string compare_exact(const Pair<T>& p) {
    std::ostringstream s;
    if (p.by_shim.info != p.by_ref.info)
        s << "INFO: shim " << p.by_shim.info << ", OpenBLAS " << p.by_ref.info << "; ";
    if (p.by_shim.pivots != p.by_ref.pivots) {
        for (std::size_t i = 0; i < p.by_ref.pivots.size() && i < p.by_shim.pivots.size(); ++i) {
            if (p.by_shim.pivots[i] != p.by_ref.pivots[i]) {
                s << "IPIV(" << i + 1 << "): shim " << p.by_shim.pivots[i] << ", OpenBLAS "
                  << p.by_ref.pivots[i] << "; ";
                break;
            }
        }
    }
    if (!identical(p.shim, p.ref)) {
        for (std::size_t q = 0; q < p.ref.v.size(); ++q) {
            if (!same_bits(p.shim.v[q], p.ref.v[q])) {
                s << "array element " << q << " (i " << q % p.ref.lda << ", j " << q / p.ref.lda
                  << "): shim " << show(p.shim.v[q]) << ", OpenBLAS " << show(p.ref.v[q]) << "; ";
                break;
            }
        }
    }
    if (p.by_shim.output != p.by_ref.output)
        s << "output: shim \"" << p.by_shim.output << "\", OpenBLAS \"" << p.by_ref.output << "\"";
    return s.str();
}

template <class T>
double tolerance(int64_t k, double scale) {
    return 32.0 * static_cast<double>(k + 4) * std::numeric_limits<Real<T>>::epsilon() * scale;
}

// --- Tests --------------------------------------------------------------------------------
template <class T>
class Lapack : public testing::Test {};
using Precisions = testing::Types<float, double, c32, c64>;
class PrecisionNames {
  public:
    template <class T>
    static std::string GetName(int) {
        return std::string(1, prefix<T>());
    }
};
TYPED_TEST_SUITE(Lapack, Precisions, PrecisionNames);

constexpr int64_t kOrders[] = {1, 7, 33, 70};

TYPED_TEST(Lapack, PotrfMatchesOpenBLAS) {
    using T = TypeParam;
    const std::string name = std::string(1, prefix<T>()) + "potrf";
    Rng rng(11);
    int cases = 0, bit_equal_cases = 0;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (int64_t n : kOrders) {
            const std::vector<c64> h = random_hpd(n, kIsComplex<T>, rng);
            for (int64_t pad : {0, 3}) {
                for (char uplo : {'U', 'L', 'u', 'l'}) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(uplo))) continue;
                    const Args args{uplo, 0, n, n + pad};
                    const Array<T> input = potrf_operand<T>(h, n, n + pad, uplo);
                    const Pair<T> p = run_both(Routine::potrf, scheme, args, input);
                    const std::string what = describe(name, scheme, args);
                    EXPECT_EQ(p.by_ref.info, 0) << what << ": OpenBLAS";
                    EXPECT_EQ(p.by_shim.info, 0) << what;
                    const bool upper = uplo == 'U' || uplo == 'u';
                    // |L(i, j)| <= sqrt(A(i, i)): the factor's scale is sqrt(max|A|).
                    const double tol = tolerance<T>(n, std::sqrt(std::max(1.0, max_abs(input))));
                    bool bit_equal = false;
                    const std::string diff = compare_factor(
                        input, p.shim, p.ref,
                        [&](int64_t i, int64_t j) { return upper ? i <= j : i >= j; }, tol,
                        bit_equal);
                    EXPECT_EQ(diff, "") << what;
                    ++cases;
                    bit_equal_cases += bit_equal;
                }
            }
        }
    }
    this->RecordProperty("bit_equal_factors",
                         std::to_string(bit_equal_cases) + "/" + std::to_string(cases));
    std::printf("%s: %d of %d factors bit-equal to OpenBLAS's\n", name.c_str(), bit_equal_cases,
                cases);
}

struct Shape {
    int64_t m, n;
};
constexpr Shape kShapes[] = {{1, 1},   {7, 7}, {33, 33}, {70, 70}, {70, 33},
                             {33, 70}, {7, 1}, {1, 7},   {41, 17}, {17, 41}};

TYPED_TEST(Lapack, GetrfMatchesOpenBLAS) {
    using T = TypeParam;
    const std::string name = std::string(1, prefix<T>()) + "getrf";
    Rng rng(12);
    int cases = 0, bit_equal_cases = 0;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        for (const Shape& shape : kShapes) {
            for (int64_t pad : {3, 0}) {
                const Args args{'N', shape.m, shape.n, shape.m + pad};
                const Array<T> input = random_operand<T>(shape.m, shape.n, args.lda, rng);
                const Pair<T> p = run_both(Routine::getrf, scheme, args, input);
                const std::string what = describe(name, scheme, args);
                EXPECT_EQ(p.by_ref.info, 0) << what << ": OpenBLAS";
                EXPECT_EQ(p.by_shim.info, 0) << what;
                EXPECT_EQ(p.by_shim.pivots, p.by_ref.pivots)
                    << what << ": pivots (the last " << kGuard << " entries must stay "
                    << kPivotUnset << ")";
                const int64_t k = std::min(shape.m, shape.n);
                const double tol = tolerance<T>(k, std::max(max_abs(input), max_abs(p.ref)));
                bool bit_equal = false;
                const std::string diff = compare_factor(
                    input, p.shim, p.ref, [](int64_t, int64_t) { return true; }, tol, bit_equal);
                EXPECT_EQ(diff, "") << what;
                ++cases;
                bit_equal_cases += bit_equal;
            }
        }
    }
    this->RecordProperty("bit_equal_factors",
                         std::to_string(bit_equal_cases) + "/" + std::to_string(cases));
    std::printf("%s: %d of %d factors bit-equal to OpenBLAS's\n", name.c_str(), bit_equal_cases,
                cases);
}

// Larger matrices (at least 270 KB: too large for the small_device variant's 262144 bytes of
// device memory, which then computes them on the CPU).
TYPED_TEST(Lapack, LargerMatricesMatchOpenBLAS) {
    using T = TypeParam;
    const std::string potrf = std::string(1, prefix<T>()) + "potrf";
    const std::string getrf = std::string(1, prefix<T>()) + "getrf";
    Rng rng(17);
    const int64_t n = 260;
    const std::vector<c64> h = random_hpd(n, kIsComplex<T>, rng);
    for (char uplo : {'U', 'L'}) {
        const Args args{uplo, 0, n, n + 1};
        const Array<T> input = potrf_operand<T>(h, n, n + 1, uplo);
        const Pair<T> p = run_both(Routine::potrf, Scheme::standard, args, input);
        EXPECT_EQ(p.by_shim.info, 0) << describe(potrf, Scheme::standard, args);
        bool bit_equal = false;
        EXPECT_EQ(compare_factor(
                      input, p.shim, p.ref,
                      [&](int64_t i, int64_t j) { return uplo == 'U' ? i <= j : i >= j; },
                      tolerance<T>(n, std::sqrt(max_abs(input))), bit_equal),
                  "")
            << describe(potrf, Scheme::standard, args);
    }
    for (const Shape& shape : {Shape{260, 260}, Shape{300, 240}}) {
        const Args args{'N', shape.m, shape.n, shape.m + 2};
        const Array<T> input = random_operand<T>(shape.m, shape.n, args.lda, rng);
        const Pair<T> p = run_both(Routine::getrf, Scheme::standard, args, input);
        EXPECT_EQ(p.by_shim.info, 0) << describe(getrf, Scheme::standard, args);
        EXPECT_EQ(p.by_shim.pivots, p.by_ref.pivots) << describe(getrf, Scheme::standard, args);
        bool bit_equal = false;
        EXPECT_EQ(compare_factor(
                      input, p.shim, p.ref, [](int64_t, int64_t) { return true; },
                      tolerance<T>(shape.n, std::max(max_abs(input), max_abs(p.ref))), bit_equal),
                  "")
            << describe(getrf, Scheme::standard, args);
    }
}

// The leading minor of order k is not positive definite: INFO = k, and the shim recomputes
// the call on the CPU, so everything equals OpenBLAS's bit for bit (the partial factor, the
// untouched rest, the other triangle, the padding).
TYPED_TEST(Lapack, PotrfNotPositiveDefiniteGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    const std::string name = std::string(1, prefix<T>()) + "potrf";
    Rng rng(13);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (int64_t n : {1, 7, 33, 70}) {
            for (int64_t k : {int64_t{1}, (n + 1) / 2, n}) {
                std::vector<c64> h = random_hpd(n, kIsComplex<T>, rng);
                // A(k, k) below what the Schur complement needs: the minor of order k is
                // indefinite, those of order < k stay positive definite.
                h[static_cast<std::size_t>((k - 1) * n + (k - 1))] =
                    c64(-0.5 - static_cast<double>(n), 0.0);
                for (char uplo : {'U', 'L'}) {
                    for (int64_t pad : {0, 3}) {
                        const Args args{uplo, 0, n, n + pad};
                        const Pair<T> p = run_both(Routine::potrf, scheme, args,
                                                   potrf_operand<T>(h, n, n + pad, uplo));
                        const std::string what =
                            describe(name, scheme, args) + " indefinite at " + std::to_string(k);
                        EXPECT_EQ(p.by_ref.info, k) << what << ": OpenBLAS";
                        EXPECT_EQ(compare_exact(p), "") << what;
                    }
                }
            }
        }
    }
}

// Column k exactly zero: U(k, k) = 0, INFO = k; the factorization completes. Recomputed on
// the CPU: the factors, the pivots and INFO equal OpenBLAS's bit for bit.
TYPED_TEST(Lapack, GetrfSingularGivesOpenBLASsResultExactly) {
    using T = TypeParam;
    const std::string name = std::string(1, prefix<T>()) + "getrf";
    Rng rng(14);
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (const Shape& shape : kShapes) {
            const int64_t kmax = std::min(shape.m, shape.n);
            for (int64_t k : {int64_t{1}, (kmax + 1) / 2, kmax}) {
                const Args args{'N', shape.m, shape.n, shape.m + 3};
                Array<T> input = random_operand<T>(shape.m, shape.n, args.lda, rng);
                for (int64_t i = 0; i < shape.m; ++i) input.at(i, k - 1) = T{};
                const Pair<T> p = run_both(Routine::getrf, scheme, args, input);
                const std::string what =
                    describe(name, scheme, args) + " column " + std::to_string(k) + " zero";
                EXPECT_EQ(p.by_ref.info, k) << what << ": OpenBLAS";
                EXPECT_EQ(compare_exact(p), "") << what;
            }
        }
    }
}

// Invalid arguments reach OpenBLAS: its xerbla message (Debian's prints on stdout and
// returns), its INFO < 0, the array untouched.
TYPED_TEST(Lapack, InvalidArgumentsBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(15);
    const std::string potrf = std::string(1, prefix<T>()) + "potrf";
    const std::string getrf = std::string(1, prefix<T>()) + "getrf";
    const std::vector<c64> h = random_hpd(4, kIsComplex<T>, rng);
    struct Bad {
        Routine routine;
        Args args;
        int64_t info;  // LAPACK's: minus the position of the first invalid argument
    };
    const Bad bad[] = {
        {Routine::potrf, {'X', 0, 4, 4}, -1},  {Routine::potrf, {'x', 0, 4, 4}, -1},
        {Routine::potrf, {'U', 0, -1, 4}, -2}, {Routine::potrf, {'L', 0, 4, 3}, -4},
        {Routine::potrf, {'U', 0, 0, 0}, -4},  {Routine::potrf, {'X', 0, -1, 0}, -1},
        {Routine::getrf, {'N', -1, 4, 4}, -1}, {Routine::getrf, {'N', 4, -1, 4}, -2},
        {Routine::getrf, {'N', 4, 4, 3}, -4},  {Routine::getrf, {'N', 0, 0, 0}, -4},
        {Routine::getrf, {'N', 4, 2, 3}, -4},  {Routine::getrf, {'N', 2, 4, 1}, -4},
    };
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (const Bad& b : bad) {
            const bool chol = b.routine == Routine::potrf;
            const Array<T> input =
                chol ? potrf_operand<T>(h, 4, 4, 'U') : random_operand<T>(4, 4, 4, rng);
            const Pair<T> p = run_both(b.routine, scheme, b.args, input, /*capture=*/true);
            const std::string what = describe(chol ? potrf : getrf, scheme, b.args);
            EXPECT_EQ(p.by_ref.info, b.info) << what << ": OpenBLAS";
            EXPECT_NE(p.by_ref.output.find("illegal value"), std::string::npos)
                << what << ": OpenBLAS printed \"" << p.by_ref.output << "\"";
            EXPECT_TRUE(identical(p.ref, input)) << what << ": OpenBLAS changed the array";
            EXPECT_EQ(compare_exact(p), "") << what;
        }
    }
}

// Nothing to factor: INFO = 0, nothing written (and no pivot).
TYPED_TEST(Lapack, EmptyMatricesBehaveAsInOpenBLAS) {
    using T = TypeParam;
    Rng rng(16);
    const std::string potrf = std::string(1, prefix<T>()) + "potrf";
    const std::string getrf = std::string(1, prefix<T>()) + "getrf";
    for (Scheme scheme : schemes_for(/*offloaded_only=*/false)) {
        for (char uplo : {'U', 'L'}) {
            for (int64_t lda : {1, 4}) {
                const Args args{uplo, 0, 0, lda};
                Array<T> input(0, 0, lda);
                const Pair<T> p = run_both(Routine::potrf, scheme, args, input, /*capture=*/true);
                EXPECT_EQ(p.by_ref.info, 0) << describe(potrf, scheme, args) << ": OpenBLAS";
                EXPECT_TRUE(identical(p.shim, input)) << describe(potrf, scheme, args);
                EXPECT_EQ(compare_exact(p), "") << describe(potrf, scheme, args);
            }
        }
        for (const Shape& shape : {Shape{0, 0}, Shape{0, 5}, Shape{5, 0}}) {
            const Args args{'N', shape.m, shape.n, std::max<int64_t>(1, shape.m) + 1};
            const Array<T> input = random_operand<T>(shape.m, shape.n, args.lda, rng);
            const Pair<T> p = run_both(Routine::getrf, scheme, args, input, /*capture=*/true);
            EXPECT_EQ(p.by_ref.info, 0) << describe(getrf, scheme, args) << ": OpenBLAS";
            EXPECT_TRUE(identical(p.shim, input)) << describe(getrf, scheme, args);
            EXPECT_EQ(compare_exact(p), "") << describe(getrf, scheme, args);
        }
    }
}

// A leading dimension above 2^32 through the 64-bit names, on a single column (valid, and
// only lda * (n - 1) + m elements are addressed): POTRF n = 1 and GETRF 7 x 1.
TEST(LapackSchemes64, LeadingDimensionAbove2To32) {
    const int64_t huge = (int64_t{1} << 32) + 3;
    bool any = false;
    for (Scheme scheme : schemes_for(/*offloaded_only=*/true)) {
        // the 32-bit OpenBLAS cannot be the reference here
        if (!is_64(scheme) || !reference_function("dpotrf", scheme).wide) continue;
        any = true;
        {
            const Args args{'L', 0, 1, huge};
            Array<double> input(1, 1, 1);
            input.at(0, 0) = 2.25;
            const Pair<double> p = run_both(Routine::potrf, scheme, args, input);
            EXPECT_EQ(p.by_shim.info, 0) << describe("dpotrf", scheme, args);
            EXPECT_EQ(p.shim.at(0, 0), 1.5) << describe("dpotrf", scheme, args);
            EXPECT_EQ(compare_exact(p), "") << describe("dpotrf", scheme, args);
        }
        {
            const Args args{'N', 7, 1, huge};
            Array<c64> input(7, 1, 7);
            for (int64_t i = 0; i < 7; ++i)
                input.at(i, 0) = c64(static_cast<double>(i % 4) - 1.5, 0.5 * i);
            const Pair<c64> p = run_both(Routine::getrf, scheme, args, input);
            EXPECT_EQ(p.by_shim.info, 0) << describe("zgetrf", scheme, args);
            EXPECT_EQ(p.by_shim.pivots, p.by_ref.pivots) << describe("zgetrf", scheme, args);
            bool bit_equal = false;
            EXPECT_EQ(compare_factor(
                          input, p.shim, p.ref, [](int64_t, int64_t) { return true; },
                          tolerance<c64>(1, 4.0), bit_equal),
                      "")
                << describe("zgetrf", scheme, args);
        }
    }
    if (!any)
        GTEST_SKIP()
            << "no ILP64 OpenBLAS, or no CPU symbol for the 64_ names outside forced offload";
}

// Concurrent callers: each thread's factors and pivots agree with OpenBLAS's.
TEST(LapackThreads, ConcurrentCallsAgreeWithOpenBLAS) {
    constexpr int kThreads = 4, kCalls = 12;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Rng rng(2000 + t);
            for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
                const int64_t n = 20 + 3 * t + call % 5;
                bool bit_equal = false;
                std::string diff;
                if ((call + t) % 2 == 0) {
                    const Args args{'N', n + 2, n, n + 5};
                    const Array<double> input = random_operand<double>(n + 2, n, n + 5, rng);
                    const Pair<double> p = run_both(Routine::getrf, Scheme::standard, args, input);
                    if (p.by_shim.info != 0 || p.by_shim.pivots != p.by_ref.pivots)
                        diff = "info or pivots differ";
                    if (diff.empty())
                        diff = compare_factor(
                            input, p.shim, p.ref, [](int64_t, int64_t) { return true; },
                            tolerance<double>(n, std::max(max_abs(input), max_abs(p.ref))),
                            bit_equal);
                } else {
                    const Args args{'L', 0, n, n + 1};
                    const Array<c64> input =
                        potrf_operand<c64>(random_hpd(n, true, rng), n, n + 1, 'L');
                    const Pair<c64> p = run_both(Routine::potrf, Scheme::standard, args, input);
                    if (p.by_shim.info != 0) diff = "INFO = " + std::to_string(p.by_shim.info);
                    if (diff.empty())
                        diff = compare_factor(
                            input, p.shim, p.ref, [](int64_t i, int64_t j) { return i >= j; },
                            tolerance<c64>(n, std::sqrt(max_abs(input))), bit_equal);
                }
                if (!diff.empty()) failures[t] = "call " + std::to_string(call) + ": " + diff;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace

// The shim reads its configuration once, at its first call: start_harness() sets it before
// any test runs.
int main(int argc, char** argv) {
    if (const int status = start_harness(argc, argv, "lapack_vs_cpu_test",
                                         GPUSHIM_TEST_OPENBLAS_PATH, GPUSHIM_TEST_OPENBLAS64_PATH);
        status != 0)
        return status;
    std::printf("lapack_vs_cpu_test: CPU symbols for the 64_ names: %s\n",
                cpu_has_64bit_lapack() ? "found" : "none");
    return RUN_ALL_TESTS();
}
