// The shim's Level-3 BLAS results against OpenBLAS called directly, through the real exported
// entry points of libgpushim.so.
//
// The test links no BLAS: it dlopen()s the shim (GPUSHIM_SHIM_PATH, or $GPUSHIM_TEST_SHIM)
// and Debian's 32-bit OpenBLAS (GPUSHIM_TEST_OPENBLAS_PATH, or $GPUSHIM_TEST_OPENBLAS), and
// makes every call twice, through the shim and through OpenBLAS, on identical operands.
// main() points the shim at the host-simulated device (or $TEST_GPUSHIM_BACKEND) with a zero
// threshold, so that every valid, non-degenerate call is offloaded; CTest runs the executable
// again with faults injected, with a small device, and with the shim disabled
// (tests/unit/shim_vs_cpu.cmake).
//
// For each of the 30 routines, Fortran and CBLAS (column- and row-major), every flag
// combination, sizes 1, 7, 33 and larger, ld = rows + 3 (and ld = rows), beta 0, 1 and
// complex, degenerate calls, and one call too large for the small device. A case checks:
//  - the written part of the output agrees with OpenBLAS to 32 (K + 4) eps scale, where
//    scale = |alpha| max|A| max|B| K + |beta| max|C| + max|result| (elementwise);
//  - beta == 0 (and alpha == 0 for TRMM/TRSM) over an output pre-filled with NaN: the output
//    must not be read;
//  - the padding rows between the matrix and its leading dimension, and the triangle of C
//    that SYRK/HERK/SYR2K/HER2K do not reference, hold a sentinel that must stay bit-exact;
//  - inputs stay bit-exact; their unreferenced parts (padding, the other triangle of a
//    symmetric or triangular A, a unit diagonal) are NaN, so that reading them shows.
// Invalid calls (each flag, size and leading dimension in turn, bad layouts) must reach
// OpenBLAS's xerbla: the same message on stdout (Debian's xerbla prints and returns) and
// untouched operands. Also: operands larger than a 32 MiB staging chunk, concurrent callers,
// 64-bit leading dimensions above 2^32 through the 64_ names, and the exported name set.
//
// The other name schemes forward CPU work to a CPU symbol of their own: scipy_ names exist
// only inside a pip wheel's OpenBLAS, 64_ names in an ILP64 OpenBLAS (Debian's
// libopenblas64.so.0, which the shim's default search finds when GPUSHIM_CPU_BLAS is empty;
// the 32-bit library that main() names by default has none). With a CPU symbol, a subset of
// routines runs every case under those names; without one, only valid non-degenerate calls,
// and only when the device certainly completes every call (forced offload, no faults,
// unlimited device memory, not disabled). The reference is always 32-bit OpenBLAS. A death
// test checks that a CPU-bound 64_ call without a CPU symbol stops with a message.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "shim_test_harness.h"
#include "under_emulator.h"

#ifndef GPUSHIM_TEST_OPENBLAS_PATH
#define GPUSHIM_TEST_OPENBLAS_PATH "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
#endif

namespace {

using namespace gpushim::test_harness;  // NOLINT(google-build-using-namespace): the shared harness

// --- Types --------------------------------------------------------------------------------
// A CBLAS scalar: real ones by value, complex ones by address.
template <class S>
using CblasArg = std::conditional_t<std::is_floating_point_v<S>, S, const void*>;
template <class S>
CblasArg<S> cblas_arg(const S& s) {
    if constexpr (std::is_floating_point_v<S>) {
        return s;
    } else {
        return static_cast<const void*>(&s);
    }
}

template <class S>
S scalar_as(c64 v) {
    return make_value<S>(v.real(), v.imag());
}

// --- Routines, interfaces, name schemes ---------------------------------------------------
enum class Kind { gemm, symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm };
enum class Family { gemm, symm, rank_k, rank_2k, triangular };
enum class Api { fortran, cblas_col, cblas_row };

Family family_of(Kind kind) {
    switch (kind) {
        case Kind::gemm:
            return Family::gemm;
        case Kind::symm:
        case Kind::hemm:
            return Family::symm;
        case Kind::syrk:
        case Kind::herk:
            return Family::rank_k;
        case Kind::syr2k:
        case Kind::her2k:
            return Family::rank_2k;
        case Kind::trmm:
        case Kind::trsm:
            return Family::triangular;
    }
    return Family::gemm;
}

struct Routine {
    const char* name;
    Kind kind;
};

// The 30 Level-3 routines, written out here rather than taken from the shim's table, so
// that the test also checks the exported set.
constexpr Routine kRoutines[] = {
    {"sgemm", Kind::gemm},   {"dgemm", Kind::gemm},   {"cgemm", Kind::gemm},
    {"zgemm", Kind::gemm},   {"ssymm", Kind::symm},   {"dsymm", Kind::symm},
    {"csymm", Kind::symm},   {"zsymm", Kind::symm},   {"chemm", Kind::hemm},
    {"zhemm", Kind::hemm},   {"ssyrk", Kind::syrk},   {"dsyrk", Kind::syrk},
    {"csyrk", Kind::syrk},   {"zsyrk", Kind::syrk},   {"cherk", Kind::herk},
    {"zherk", Kind::herk},   {"ssyr2k", Kind::syr2k}, {"dsyr2k", Kind::syr2k},
    {"csyr2k", Kind::syr2k}, {"zsyr2k", Kind::syr2k}, {"cher2k", Kind::her2k},
    {"zher2k", Kind::her2k}, {"strmm", Kind::trmm},   {"dtrmm", Kind::trmm},
    {"ctrmm", Kind::trmm},   {"ztrmm", Kind::trmm},   {"strsm", Kind::trsm},
    {"dtrsm", Kind::trsm},   {"ctrsm", Kind::trsm},   {"ztrsm", Kind::trsm},
};
constexpr int kRoutineCount = static_cast<int>(std::size(kRoutines));

int routine_index(const std::string& name) {
    for (int i = 0; i < kRoutineCount; ++i) {
        if (name == kRoutines[i].name) return i;
    }
    return -1;
}

const char* api_name(Api api) {
    switch (api) {
        case Api::fortran:
            return "fortran";
        case Api::cblas_col:
            return "cblas_col";
        case Api::cblas_row:
            return "cblas_row";
    }
    return "?";
}
// Test parameters print by name (PrintTo(Scheme) is the harness's).
void PrintTo(Api api, std::ostream* os) {
    *os << api_name(api);
}

// CBLAS enumerations (cblas.h); anything else becomes an invalid value.
enum : int { kRowMajor = 101, kColMajor = 102 };
int cblas_trans(char f) {
    return f == 'N' ? 111 : f == 'T' ? 112 : f == 'C' ? 113 : -1;
}
int cblas_uplo(char f) {
    return f == 'U' ? 121 : f == 'L' ? 122 : -1;
}
int cblas_diag(char f) {
    return f == 'N' ? 131 : f == 'U' ? 132 : -1;
}
int cblas_side(char f) {
    return f == 'L' ? 141 : f == 'R' ? 142 : -1;
}

// --- Libraries ----------------------------------------------------------------------------
void* shim_symbol(const std::string& name) {
    return dlsym(libraries().shim, name.c_str());
}
void* reference_symbol(const std::string& name) {
    return dlsym(libraries().openblas, name.c_str());
}

using FortranDgemm64 = void(const char*, const char*, const int64_t*, const int64_t*,
                            const int64_t*, const double*, const double*, const int64_t*,
                            const double*, const int64_t*, const double*, double*, const int64_t*,
                            std::size_t, std::size_t);

// A dgemm_64_ call that always runs on the CPU (alpha = 0, beta = 1: a quick return).
void degenerate_dgemm_64() {
    auto* fn = reinterpret_cast<FortranDgemm64*>(shim_symbol("dgemm_64_"));
    const int64_t n = 2;
    const double alpha = 0.0, beta = 1.0, a[4] = {}, b[4] = {};
    double c[4] = {};
    fn("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n, 1, 1);
}

// Whether the shim finds a CPU symbol for the 64_ names in this process (Debian's ILP64
// libopenblas64.so.0 when GPUSHIM_CPU_BLAS is empty; none in the 32-bit OpenBLAS). Asked of
// the shim itself, in a forked child, so that the answer follows the shim's resolver: a
// child that finds none stops with a message.
bool cpu_has_64bit_blas() {
    static const bool available = succeeds_in_child([] {
        degenerate_dgemm_64();
        return true;
    });
    return available;
}

// --- Matrices -----------------------------------------------------------------------------
// A logical rows x cols matrix stored column- or row-major with a leading dimension.
template <class T>
struct Matrix {
    int rows = 0, cols = 0, ld = 1;
    bool row_major = false;
    std::vector<T> v;

    Matrix() = default;
    Matrix(int r, int c, int pad, bool row) : rows(r), cols(c), row_major(row) {
        ld = std::max(1, inner() + pad);
        v.assign(static_cast<std::size_t>(ld) * static_cast<std::size_t>(std::max(outer(), 1)),
                 T{});
    }
    int inner() const { return row_major ? cols : rows; }
    int outer() const { return row_major ? rows : cols; }
    std::size_t index(int i, int j) const {
        return row_major ? static_cast<std::size_t>(i) * ld + j
                         : static_cast<std::size_t>(j) * ld + i;
    }
    // Storage position -> logical (i, j); false for padding (and for the spare column that
    // keeps an empty matrix non-null).
    bool logical(std::size_t p, int& i, int& j) const {
        const int in = static_cast<int>(p % static_cast<std::size_t>(ld));
        const int out = static_cast<int>(p / static_cast<std::size_t>(ld));
        if (in >= inner() || out >= outer()) return false;
        i = row_major ? out : in;
        j = row_major ? in : out;
        return true;
    }
    // Fills every logical element with f(i, j) and the rest with `outside`.
    template <class F>
    void fill(T outside, F&& f) {
        for (std::size_t p = 0; p < v.size(); ++p) {
            int i = 0, j = 0;
            v[p] = logical(p, i, j) ? f(i, j) : outside;
        }
    }
    // The largest |element| over finite logical elements (NaN marks the unreferenced ones).
    double max_abs() const {
        double m = 0.0;
        for (std::size_t p = 0; p < v.size(); ++p) {
            int i = 0, j = 0;
            if (!logical(p, i, j)) continue;
            const double a = std::abs(v[p]);
            if (std::isfinite(a)) m = std::max(m, a);
        }
        return m;
    }
};

template <class T>
bool identical(const Matrix<T>& x, const Matrix<T>& y) {
    return x.v.size() == y.v.size() &&
           (x.v.empty() || std::memcmp(x.v.data(), y.v.data(), x.v.size() * sizeof(T)) == 0);
}

bool in_triangle(char uplo, int i, int j) {
    return uplo == 'U' ? i <= j : i >= j;
}

// --- Cases --------------------------------------------------------------------------------
struct Case {
    Api api = Api::fortran;
    // gemm: transa transb | symm: side uplo | rank: uplo trans | triangular: side uplo trans diag
    char f[4] = {'N', 'N', 'N', 'N'};
    int m = 0, n = 0, k = 0;
    int pad = 3;  // leading dimension = inner extent + pad
    c64 alpha{1.0, 0.0}, beta{0.0, 0.0};
    bool nan_output = false;   // the output's referenced part starts as NaN (must not be read)
    bool lower_flags = false;  // Fortran flags passed in lower case
    // An invalid variant of the call (the operands are those of the valid one): flag number
    // `flag` becomes 'X', size number `size` (m, n, k) becomes -1, leading dimension number
    // `ld` (lda, ldb, ldc) shrinks by one. -1: unchanged.
    struct {
        int flag = -1, size = -1, ld = -1;
    } bad;
};

std::string describe(const std::string& symbol, Kind kind, const Case& c) {
    std::ostringstream s;
    s << symbol << " [" << api_name(c.api) << "] flags=";
    const int flags = family_of(kind) == Family::triangular ? 4 : 2;
    for (int i = 0; i < flags; ++i)
        s << (c.lower_flags ? static_cast<char>(std::tolower(c.f[i])) : c.f[i]);
    s << " m=" << c.m << " n=" << c.n << " k=" << c.k << " pad=" << c.pad << " alpha=" << c.alpha;
    if (family_of(kind) != Family::triangular) s << " beta=" << c.beta;
    if (c.nan_output) s << " (output pre-filled with NaN)";
    if (c.bad.flag >= 0) s << ", invalid: flag " << c.bad.flag + 1 << " = 'X'";
    if (c.bad.size >= 0)
        s << ", invalid: "
          << "mnk"[c.bad.size] << " = -1";
    if (c.bad.ld >= 0)
        s << ", invalid: ld"
          << "abc"[c.bad.ld] << " too small by one";
    return s.str();
}

struct ScalarSet {
    c64 alpha, beta;
    bool nan_output;
};
// beta = 0 over a NaN output; beta = 1; complex alpha and beta with non-zero imaginary parts.
const ScalarSet kScalarSets[] = {
    {{1.5, -0.5}, {0.0, 0.0}, true},
    {{1.0, 0.0}, {1.0, 0.0}, false},
    {{-0.75, 0.25}, {0.5, -1.25}, false},
};
const ScalarSet kTriangularScalarSets[] = {
    {{1.5, -0.5}, {0.0, 0.0}, false},
    {{1.0, 0.0}, {0.0, 0.0}, false},
    {{-0.75, 0.25}, {0.0, 0.0}, false},
};

std::vector<std::vector<char>> flag_combinations(Kind kind, bool complex) {
    std::vector<std::vector<char>> out;
    const char* trans = "NTC";
    switch (family_of(kind)) {
        case Family::gemm:
            for (char a : std::string("NTC"))
                for (char b : std::string("NTC")) out.push_back({a, b});
            break;
        case Family::symm:
            for (char side : std::string("LR"))
                for (char uplo : std::string("UL")) out.push_back({side, uplo});
            break;
        case Family::rank_k:
        case Family::rank_2k:
            if (kind == Kind::herk || kind == Kind::her2k) {
                trans = "NC";
            } else if (complex) {
                trans = "NT";
            }
            for (char uplo : std::string("UL"))
                for (char t : std::string(trans)) out.push_back({uplo, t});
            break;
        case Family::triangular:
            for (char side : std::string("LR"))
                for (char uplo : std::string("UL"))
                    for (char t : std::string("NTC"))
                        for (char diag : std::string("NU")) out.push_back({side, uplo, t, diag});
            break;
    }
    return out;
}

struct Dims {
    int m, n, k, pad;
};

// Sizes: 1 and odd sizes with ld = rows + 3, one larger rectangular case, one with ld = rows.
std::vector<Dims> sizes(Kind kind, bool reduced) {
    std::vector<Dims> out;
    const std::vector<int> small = reduced ? std::vector<int>{7, 33} : std::vector<int>{1, 7, 33};
    const Family family = family_of(kind);
    if (family == Family::gemm) {
        for (int m : small)
            for (int n : small)
                for (int k : small) out.push_back({m, n, k, 3});
        out.push_back({65, 47, 40, 3});
        if (!reduced) out.push_back({40, 33, 65, 0});
    } else if (family == Family::rank_k || family == Family::rank_2k) {
        for (int n : small)
            for (int k : small) out.push_back({0, n, k, 3});
        out.push_back({0, 65, 47, 3});
        if (!reduced) out.push_back({0, 33, 40, 0});
    } else {
        for (int m : small)
            for (int n : small) out.push_back({m, n, 0, 3});
        out.push_back({65, 47, 0, 3});
        if (!reduced) out.push_back({33, 40, 0, 0});
    }
    return out;
}

// Calls every offload variant sees alike: each flag combination x size x scalar set. With
// `reduced`, fewer sizes and no degenerate calls (for names without a CPU symbol).
std::vector<Case> make_cases(Kind kind, bool complex, Api api, bool reduced) {
    std::vector<Case> out;
    const bool triangular = family_of(kind) == Family::triangular;
    const auto flag_sets = flag_combinations(kind, complex);
    int serial = 0;
    for (const auto& flags : flag_sets) {
        for (const Dims& d : sizes(kind, reduced)) {
            for (const ScalarSet& s : triangular ? kTriangularScalarSets : kScalarSets) {
                if (reduced && !s.nan_output && s.beta == c64(1.0, 0.0)) continue;
                Case c;
                c.api = api;
                std::copy(flags.begin(), flags.end(), c.f);
                c.m = d.m;
                c.n = d.n;
                c.k = d.k;
                c.pad = d.pad;
                c.alpha = s.alpha;
                c.beta = s.beta;
                c.nan_output = s.nan_output;
                c.lower_flags = api == Api::fortran && (serial++ % 2 == 1);
                out.push_back(c);
            }
        }
    }
    if (reduced) return out;

    // One call too large for GPUSHIM_HOSTSIM_MEMORY=100000 in every precision (the operands
    // of a 130 x 130 call take at least 135 KB, in one pool block): it must run on the CPU.
    {
        Case c;
        c.api = api;
        std::copy(flag_sets.back().begin(), flag_sets.back().end(), c.f);
        c.m = c.n = c.k = 130;
        c.pad = 1;
        c.alpha = kScalarSets[2].alpha;
        c.beta = triangular ? c64{} : kScalarSets[2].beta;
        out.push_back(c);
    }

    // Degenerate calls (empty dimensions, alpha = 0), which stay on the CPU: the quick
    // returns and the scaling by beta must match too, NaN outputs included.
    const std::vector<char> first = flag_sets.front();
    const std::vector<char> last = flag_sets.back();
    struct Degenerate {
        int m, n, k;
        c64 alpha, beta;
        bool nan_output;
    };
    std::vector<Degenerate> degenerate;
    const c64 a{1.5, -0.5}, zero{}, half{0.5, 0.25};
    switch (family_of(kind)) {
        case Family::gemm:
            degenerate = {{0, 7, 5, a, half, false},    {7, 0, 5, a, half, false},
                          {7, 5, 0, a, half, false},    {7, 5, 0, a, zero, true},
                          {7, 5, 3, zero, half, false}, {7, 5, 3, zero, zero, true}};
            break;
        case Family::symm:
            degenerate = {{0, 7, 0, a, half, false},
                          {7, 0, 0, a, half, false},
                          {7, 5, 0, zero, half, false},
                          {7, 5, 0, zero, zero, true}};
            break;
        case Family::rank_k:
        case Family::rank_2k:
            degenerate = {{0, 0, 5, a, half, false},
                          {0, 7, 0, a, half, false},
                          {0, 7, 0, a, zero, true},
                          {0, 7, 5, zero, half, false},
                          {0, 7, 5, zero, zero, true}};
            break;
        case Family::triangular:
            degenerate = {
                {0, 7, 0, a, zero, false}, {7, 0, 0, a, zero, false}, {7, 5, 0, zero, zero, true}};
            break;
    }
    for (const auto& flags : {first, last}) {
        for (const Degenerate& d : degenerate) {
            Case c;
            c.api = api;
            std::copy(flags.begin(), flags.end(), c.f);
            c.m = d.m;
            c.n = d.n;
            c.k = d.k;
            c.alpha = d.alpha;
            c.beta = d.beta;
            c.nan_output = d.nan_output;
            out.push_back(c);
        }
    }
    return out;
}

// Invalid variants of one valid call: every flag, size and leading dimension in turn.
std::vector<Case> make_invalid_cases(Kind kind, bool complex, Api api) {
    const auto flag_sets = flag_combinations(kind, complex);
    Case valid;
    valid.api = api;
    std::copy(flag_sets[1].begin(), flag_sets[1].end(), valid.f);
    valid.m = 5;
    valid.n = 4;
    valid.k = 3;
    valid.pad = 0;  // leading dimensions exactly the inner extent: one less is invalid
    valid.alpha = kScalarSets[2].alpha;
    valid.beta = kScalarSets[2].beta;
    int flags = 2;
    std::vector<int> sizes_used, lds_used;
    switch (family_of(kind)) {
        case Family::gemm:
            sizes_used = {0, 1, 2};
            lds_used = {0, 1, 2};
            break;
        case Family::symm:
            sizes_used = {0, 1};
            lds_used = {0, 1, 2};
            break;
        case Family::rank_k:
            sizes_used = {1, 2};
            lds_used = {0, 2};
            break;
        case Family::rank_2k:
            sizes_used = {1, 2};
            lds_used = {0, 1, 2};
            break;
        case Family::triangular:
            flags = 4;
            sizes_used = {0, 1};
            lds_used = {0, 1};
            break;
    }
    std::vector<Case> out;
    for (int i = 0; i < flags; ++i) {
        out.push_back(valid);
        out.back().bad.flag = i;
    }
    for (int i : sizes_used) {
        out.push_back(valid);
        out.back().bad.size = i;
    }
    for (int i : lds_used) {
        out.push_back(valid);
        out.back().bad.ld = i;
    }
    return out;
}

// --- Operands -----------------------------------------------------------------------------
template <class T>
struct Operands {
    Matrix<T> a, b, c;  // triangular routines: b is the in/out matrix, c unused
};

// Shapes and contents of the operands of a case, by routine (logical shapes hold for both
// layouts; CBLAS row-major has the same logical meaning).
template <class T>
Operands<T> make_operands(Kind kind, const Case& c, Rng& rng) {
    const bool row = c.api == Api::cblas_row;
    const T nan = nan_value<T>();
    const T sentinel = sentinel_value<T>();
    const auto random = [&](int, int) { return random_value<T>(rng); };
    // The imaginary part of a Hermitian diagonal is not referenced: finite garbage.
    const auto hermitian_diagonal = [&](T x) {
        if constexpr (kIsComplex<T>) {
            return T(x.real(), static_cast<Real<T>>(0.375));
        } else {
            return x;
        }
    };
    Operands<T> o;
    switch (family_of(kind)) {
        case Family::gemm: {
            const bool na = c.f[0] == 'N', nb = c.f[1] == 'N';
            o.a = Matrix<T>(na ? c.m : c.k, na ? c.k : c.m, c.pad, row);
            o.b = Matrix<T>(nb ? c.k : c.n, nb ? c.n : c.k, c.pad, row);
            o.c = Matrix<T>(c.m, c.n, c.pad, row);
            o.a.fill(nan, random);
            o.b.fill(nan, random);
            o.c.fill(sentinel, [&](int i, int j) { return c.nan_output ? nan : random(i, j); });
            break;
        }
        case Family::symm: {
            const int na = c.f[0] == 'L' ? c.m : c.n;
            const char uplo = c.f[1];
            o.a = Matrix<T>(na, na, c.pad, row);
            o.b = Matrix<T>(c.m, c.n, c.pad, row);
            o.c = Matrix<T>(c.m, c.n, c.pad, row);
            o.a.fill(nan, [&](int i, int j) {
                if (!in_triangle(uplo, i, j)) return nan;
                const T x = random(i, j);
                return (kind == Kind::hemm && i == j) ? hermitian_diagonal(x) : x;
            });
            o.b.fill(nan, random);
            o.c.fill(sentinel, [&](int i, int j) { return c.nan_output ? nan : random(i, j); });
            break;
        }
        case Family::rank_k:
        case Family::rank_2k: {
            const char uplo = c.f[0];
            const bool nt = c.f[1] == 'N';
            o.a = Matrix<T>(nt ? c.n : c.k, nt ? c.k : c.n, c.pad, row);
            if (family_of(kind) == Family::rank_2k) {
                o.b = Matrix<T>(nt ? c.n : c.k, nt ? c.k : c.n, c.pad, row);
                o.b.fill(nan, random);
            }
            o.c = Matrix<T>(c.n, c.n, c.pad, row);
            o.a.fill(nan, random);
            const bool hermitian = kind == Kind::herk || kind == Kind::her2k;
            o.c.fill(sentinel, [&](int i, int j) {
                if (!in_triangle(uplo, i, j)) return sentinel;
                if (c.nan_output) return nan;
                const T x = random(i, j);
                return (hermitian && i == j) ? hermitian_diagonal(x) : x;
            });
            break;
        }
        case Family::triangular: {
            const int na = c.f[0] == 'L' ? c.m : c.n;
            const char uplo = c.f[1];
            const bool unit = c.f[3] == 'U';
            o.a = Matrix<T>(na, na, c.pad, row);
            o.b = Matrix<T>(c.m, c.n, c.pad, row);
            // Well conditioned: a dominant diagonal, small off-diagonal entries.
            o.a.fill(nan, [&](int i, int j) {
                if (!in_triangle(uplo, i, j)) return nan;
                if (i == j) {
                    if (unit) return nan;  // a unit diagonal is not referenced
                    const T x = random(i, j);
                    const double re = std::real(x);
                    return make_value<T>((re < 0 ? -1.0 : 1.0) * (1.0 + std::abs(re)),
                                         0.25 * std::imag(x));
                }
                return static_cast<T>(random(i, j) / static_cast<Real<T>>(na));
            });
            o.b.fill(sentinel, [&](int i, int j) { return c.nan_output ? nan : random(i, j); });
            break;
        }
    }
    return o;
}

// --- Calls --------------------------------------------------------------------------------
char pass_flag(char f, bool lower) {
    return lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(f))) : f;
}

// Calls `fn` (a Fortran or CBLAS entry of the routine, with integers I) on the operands.
template <class T, class A, class B, class I>
void call(Kind kind, void* fn, const Case& c, Operands<T>& o) {
    const A alpha = scalar_as<A>(c.alpha);
    const B beta = scalar_as<B>(c.beta);
    const I m = c.bad.size == 0 ? -1 : c.m, n = c.bad.size == 1 ? -1 : c.n;
    const I k = c.bad.size == 2 ? -1 : c.k;
    const I lda = o.a.ld - (c.bad.ld == 0), ldb = o.b.ld - (c.bad.ld == 1);
    const I ldc = o.c.ld - (c.bad.ld == 2);
    const T* a = o.a.v.data();
    T* b = o.b.v.data();
    T* cm = o.c.v.data();
    char flag[4] = {c.f[0], c.f[1], c.f[2], c.f[3]};
    if (c.bad.flag >= 0) flag[c.bad.flag] = 'X';
    const bool lower = c.lower_flags;
    const char f0 = pass_flag(flag[0], lower), f1 = pass_flag(flag[1], lower);
    const char f2 = pass_flag(flag[2], lower), f3 = pass_flag(flag[3], lower);
    const std::size_t one = 1;
    const int layout = c.api == Api::cblas_row ? kRowMajor : kColMajor;
    const bool fortran = c.api == Api::fortran;
    switch (family_of(kind)) {
        case Family::gemm:
            if (fortran) {
                using F = void(const char*, const char*, const I*, const I*, const I*, const A*,
                               const T*, const I*, const T*, const I*, const B*, T*, const I*,
                               std::size_t, std::size_t);
                reinterpret_cast<F*>(fn)(&f0, &f1, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, cm,
                                         &ldc, one, one);
            } else {
                using F = void(int, int, int, I, I, I, CblasArg<A>, const T*, I, const T*, I,
                               CblasArg<B>, T*, I);
                reinterpret_cast<F*>(fn)(layout, cblas_trans(flag[0]), cblas_trans(flag[1]), m, n,
                                         k, cblas_arg(alpha), a, lda, b, ldb, cblas_arg(beta), cm,
                                         ldc);
            }
            return;
        case Family::symm:       // side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc
        case Family::rank_2k: {  // uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc
            // The same argument types: only what the two flags and two sizes are differs.
            const bool symm = family_of(kind) == Family::symm;
            const I size0 = symm ? m : n;
            const I size1 = symm ? n : k;
            if (fortran) {
                using F =
                    void(const char*, const char*, const I*, const I*, const A*, const T*, const I*,
                         const T*, const I*, const B*, T*, const I*, std::size_t, std::size_t);
                reinterpret_cast<F*>(fn)(&f0, &f1, &size0, &size1, &alpha, a, &lda, b, &ldb, &beta,
                                         cm, &ldc, one, one);
            } else {
                using F = void(int, int, int, I, I, CblasArg<A>, const T*, I, const T*, I,
                               CblasArg<B>, T*, I);
                const int flag0 = symm ? cblas_side(flag[0]) : cblas_uplo(flag[0]);
                const int flag1 = symm ? cblas_uplo(flag[1]) : cblas_trans(flag[1]);
                reinterpret_cast<F*>(fn)(layout, flag0, flag1, size0, size1, cblas_arg(alpha), a,
                                         lda, b, ldb, cblas_arg(beta), cm, ldc);
            }
            return;
        }
        case Family::rank_k:
            if (fortran) {
                using F = void(const char*, const char*, const I*, const I*, const A*, const T*,
                               const I*, const B*, T*, const I*, std::size_t, std::size_t);
                reinterpret_cast<F*>(fn)(&f0, &f1, &n, &k, &alpha, a, &lda, &beta, cm, &ldc, one,
                                         one);
            } else {
                using F = void(int, int, int, I, I, CblasArg<A>, const T*, I, CblasArg<B>, T*, I);
                reinterpret_cast<F*>(fn)(layout, cblas_uplo(flag[0]), cblas_trans(flag[1]), n, k,
                                         cblas_arg(alpha), a, lda, cblas_arg(beta), cm, ldc);
            }
            return;
        case Family::triangular:
            if (fortran) {
                using F = void(const char*, const char*, const char*, const char*, const I*,
                               const I*, const A*, const T*, const I*, T*, const I*, std::size_t,
                               std::size_t, std::size_t, std::size_t);
                reinterpret_cast<F*>(fn)(&f0, &f1, &f2, &f3, &m, &n, &alpha, a, &lda, b, &ldb, one,
                                         one, one, one);
            } else {
                using F = void(int, int, int, int, int, I, I, CblasArg<A>, const T*, I, T*, I);
                reinterpret_cast<F*>(fn)(layout, cblas_side(flag[0]), cblas_uplo(flag[1]),
                                         cblas_trans(flag[2]), cblas_diag(flag[3]), m, n,
                                         cblas_arg(alpha), a, lda, b, ldb);
            }
            return;
    }
}

// --- Comparison ---------------------------------------------------------------------------
// Checks the shim's operands after the call against OpenBLAS's. Empty: agreement.
template <class T, class A, class B>
std::string compare(Kind kind, const Case& c, const Operands<T>& before, const Operands<T>& shim,
                    const Operands<T>& ref) {
    const Family family = family_of(kind);
    const bool triangular = family == Family::triangular;
    const Matrix<T>& out_before = triangular ? before.b : before.c;
    const Matrix<T>& out_shim = triangular ? shim.b : shim.c;
    const Matrix<T>& out_ref = triangular ? ref.b : ref.c;

    if (!identical(shim.a, before.a)) return "the shim modified A";
    if (!triangular && !identical(shim.b, before.b)) return "the shim modified B";

    // Normwise scale of the result.
    double inner = 0;
    switch (family) {
        case Family::gemm:
            inner = c.k;
            break;
        case Family::symm:
            inner = c.f[0] == 'L' ? c.m : c.n;
            break;
        case Family::rank_k:
            inner = c.k;
            break;
        case Family::rank_2k:
            inner = 2.0 * c.k;
            break;
        case Family::triangular:
            inner = c.f[0] == 'L' ? c.m : c.n;
            break;
    }
    const double alpha = std::abs(scalar_as<A>(c.alpha));
    const double beta = triangular ? 0.0 : std::abs(scalar_as<B>(c.beta));
    const double max_a = before.a.max_abs();
    const double max_b = family == Family::rank_k ? max_a : before.b.max_abs();
    const double max_c = (triangular || c.nan_output) ? 0.0 : before.c.max_abs();
    const double scale = alpha * max_a * max_b * std::max(inner, 1.0) + beta * max_c +
                         out_ref.max_abs() + std::numeric_limits<double>::min();
    const double eps = std::numeric_limits<Real<T>>::epsilon();
    const double tolerance = 32.0 * (inner + 4.0) * eps * scale;

    const bool triangle_only = family == Family::rank_k || family == Family::rank_2k;
    const char uplo = c.f[0];
    for (std::size_t p = 0; p < out_shim.v.size(); ++p) {
        int i = 0, j = 0;
        const bool written =
            out_shim.logical(p, i, j) && (!triangle_only || in_triangle(uplo, i, j));
        if (!written) {
            if (!same_bits(out_shim.v[p], out_before.v[p])) {
                std::ostringstream where;
                where << "element at storage offset " << p
                      << " (padding or unreferenced triangle) changed from "
                      << show(out_before.v[p]) << " to " << show(out_shim.v[p]);
                return where.str();
            }
            continue;
        }
        const double difference = std::abs(out_shim.v[p] - out_ref.v[p]);
        if (!(difference <= tolerance)) {
            std::ostringstream where;
            where << "C(" << i << "," << j << "): shim " << show(out_shim.v[p]) << ", OpenBLAS "
                  << show(out_ref.v[p]) << ", |difference| " << difference << " > tolerance "
                  << tolerance;
            return where.str();
        }
    }
    return {};
}

// Runs one case through `shim_fn` (integers I) and through OpenBLAS (`ref_fn`, 32-bit).
template <class Call>
std::string captured_stdout(Call&& call) {
    std::fflush(stdout);
    testing::internal::CaptureStdout();
    call();
    std::fflush(stdout);
    return testing::internal::GetCapturedStdout();
}

template <class T, class A, class B>
std::string run_case(Kind kind, Scheme scheme, void* shim_fn, void* ref_fn, const Case& c,
                     uint64_t seed) {
    Rng rng(seed);
    const Operands<T> before = make_operands<T>(kind, c, rng);
    Operands<T> shim = before;
    Operands<T> ref = before;
    const auto call_shim = [&] {
        if (is_64(scheme)) {
            call<T, A, B, int64_t>(kind, shim_fn, c, shim);
        } else {
            call<T, A, B, int32_t>(kind, shim_fn, c, shim);
        }
    };
    if (c.bad.flag >= 0 || c.bad.size >= 0 || c.bad.ld >= 0) {
        // Invalid: the shim must forward the call, so that OpenBLAS's xerbla prints the
        // same message (Debian's prints on stdout and returns) and nothing is written.
        const std::string by_ref =
            captured_stdout([&] { call<T, A, B, int32_t>(kind, ref_fn, c, ref); });
        const std::string by_shim = captured_stdout(call_shim);
        if (by_ref.find("illegal value") == std::string::npos) {
            return "OpenBLAS accepted this invalid call (it printed \"" + by_ref + "\")";
        }
        if (by_shim != by_ref) {
            return "the shim's call printed \"" + by_shim + "\", OpenBLAS's \"" + by_ref + "\"";
        }
        if (!identical(shim.a, before.a) || !identical(shim.b, before.b) ||
            !identical(shim.c, before.c)) {
            return "the shim's call wrote to an operand";
        }
        return {};
    }
    call_shim();
    call<T, A, B, int32_t>(kind, ref_fn, c, ref);
    return compare<T, A, B>(kind, c, before, shim, ref);
}

template <class T>
std::string run_typed(Kind kind, Scheme scheme, void* shim_fn, void* ref_fn, const Case& c,
                      uint64_t seed) {
    switch (kind) {
        case Kind::herk:
            return run_case<T, Real<T>, Real<T>>(kind, scheme, shim_fn, ref_fn, c, seed);
        case Kind::her2k:
            return run_case<T, T, Real<T>>(kind, scheme, shim_fn, ref_fn, c, seed);
        default:
            return run_case<T, T, T>(kind, scheme, shim_fn, ref_fn, c, seed);
    }
}

std::string run_any(const Routine& r, Scheme scheme, void* shim_fn, void* ref_fn, const Case& c,
                    uint64_t seed) {
    switch (r.name[0]) {
        case 's':
            return run_typed<float>(r.kind, scheme, shim_fn, ref_fn, c, seed);
        case 'd':
            return run_typed<double>(r.kind, scheme, shim_fn, ref_fn, c, seed);
        case 'c':
            return run_typed<c32>(r.kind, scheme, shim_fn, ref_fn, c, seed);
        default:
            return run_typed<c64>(r.kind, scheme, shim_fn, ref_fn, c, seed);
    }
}

// Runs all cases of a routine under one name and interface; reports the first few failures.
enum class CaseSet { full, reduced, invalid };

void run_cases(const Routine& r, Scheme scheme, Api api, CaseSet set) {
    const bool cblas = api != Api::fortran;
    const std::string shim_name = symbol_name(r.name, scheme, cblas);
    const std::string ref_name = symbol_name(r.name, Scheme::standard, cblas);
    void* shim_fn = shim_symbol(shim_name);
    void* ref_fn = reference_symbol(ref_name);
    ASSERT_NE(shim_fn, nullptr) << "libgpushim.so does not export " << shim_name;
    ASSERT_NE(ref_fn, nullptr) << "OpenBLAS does not define " << ref_name;
    const bool complex = r.name[0] == 'c' || r.name[0] == 'z';
    const std::vector<Case> cases = set == CaseSet::invalid
                                        ? make_invalid_cases(r.kind, complex, api)
                                        : make_cases(r.kind, complex, api, set == CaseSet::reduced);
    int failures = 0;
    uint64_t seed = 0x5eed0000u + static_cast<uint64_t>(routine_index(r.name)) * 7919u;
    for (const Case& c : cases) {
        const std::string error = run_any(r, scheme, shim_fn, ref_fn, c, ++seed);
        if (error.empty()) continue;
        if (++failures <= 5) ADD_FAILURE() << describe(shim_name, r.kind, c) << ": " << error;
    }
    EXPECT_EQ(failures, 0) << failures << " of " << cases.size() << " calls of " << shim_name
                           << " disagree with OpenBLAS";
}

// --- Tests: every routine, standard names -------------------------------------------------
using StandardParam = std::tuple<int, Api>;
class StandardNames : public testing::TestWithParam<StandardParam> {};

TEST_P(StandardNames, AgreeWithOpenBLAS) {
    const auto [index, api] = GetParam();
    run_cases(kRoutines[index], Scheme::standard, api, CaseSet::full);
}

// Invalid calls (every flag, size and leading dimension in turn) through the standard names.
TEST_P(StandardNames, InvalidCallsBehaveAsInOpenBLAS) {
    const auto [index, api] = GetParam();
    run_cases(kRoutines[index], Scheme::standard, api, CaseSet::invalid);
}

std::vector<StandardParam> standard_params() {
    std::vector<StandardParam> out;
    for (int i = 0; i < kRoutineCount; ++i) {
        for (Api api : {Api::fortran, Api::cblas_col, Api::cblas_row}) out.emplace_back(i, api);
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllRoutines, StandardNames, testing::ValuesIn(standard_params()),
                         [](const testing::TestParamInfo<StandardParam>& info) {
                             return std::string(kRoutines[std::get<0>(info.param)].name) + "_" +
                                    api_name(std::get<1>(info.param));
                         });

// --- Tests: operands larger than a staging chunk (32 MiB) -----------------------------------
// Uploads go through pinned chunks: many columns per chunk over several chunks, and a
// column longer than a chunk in pieces. Both must land where they belong.
TEST(LargeOperands, StagedInSeveralChunks) {
    const Routine& dgemm = kRoutines[routine_index("dgemm")];
    // Row-major C of 2100 x 2103 doubles (35 MB, read since beta != 0): two chunks.
    Case wide;
    wide.api = Api::cblas_row;
    wide.m = wide.n = 2100;
    wide.k = 2;
    wide.alpha = kScalarSets[2].alpha;
    wide.beta = kScalarSets[2].beta;
    // A transposed: 4.2 million rows by 2 columns (a 33.6 MB column is more than a chunk).
    Case tall;
    tall.api = Api::fortran;
    tall.f[0] = 'T';
    tall.m = 2;
    tall.n = 1;
    tall.k = 4200000;
    tall.alpha = kScalarSets[2].alpha;
    tall.beta = kScalarSets[2].beta;
    for (const Case& c : {wide, tall}) {
        const bool cblas = c.api != Api::fortran;
        const std::string name = symbol_name(dgemm.name, Scheme::standard, cblas);
        void* shim_fn = shim_symbol(name);
        void* ref_fn = reference_symbol(name);
        ASSERT_TRUE(shim_fn != nullptr && ref_fn != nullptr) << name;
        const std::string error = run_any(dgemm, Scheme::standard, shim_fn, ref_fn, c, 42);
        EXPECT_TRUE(error.empty()) << describe(name, dgemm.kind, c) << ": " << error;
    }
}

// --- Tests: the other name schemes, a subset of routines ----------------------------------
using SchemeParam = std::tuple<Scheme, int, Api>;
class OtherSchemes : public testing::TestWithParam<SchemeParam> {};

// Names with a CPU symbol (64_ with an ILP64 OpenBLAS at hand) get every case, degenerate
// and invalid calls included; the others only what the device completes.
TEST_P(OtherSchemes, AgreeWithOpenBLAS) {
    const auto [scheme, index, api] = GetParam();
    if (scheme == Scheme::suffix64 && cpu_has_64bit_blas()) {
        run_cases(kRoutines[index], scheme, api, CaseSet::full);
        run_cases(kRoutines[index], scheme, api, CaseSet::invalid);
        return;
    }
    if (!device_completes_every_call()) {
        GTEST_SKIP() << "no CPU symbol for these names: run only when the device completes "
                        "every call (forced offload, no faults, unlimited device memory)";
    }
    run_cases(kRoutines[index], scheme, api, CaseSet::reduced);
}

std::vector<SchemeParam> scheme_params() {
    std::vector<SchemeParam> out;
    for (Scheme scheme : {Scheme::suffix64, Scheme::scipy64, Scheme::scipy32}) {
        for (const char* name : {"dgemm", "cgemm", "strsm", "ztrsm", "zherk", "dsyr2k", "cher2k"}) {
            for (Api api : {Api::fortran, Api::cblas_col, Api::cblas_row}) {
                out.emplace_back(scheme, routine_index(name), api);
            }
        }
    }
    return out;
}

std::string scheme_param_name(const testing::TestParamInfo<SchemeParam>& info) {
    return std::string(scheme_name(std::get<0>(info.param))) + "_" +
           kRoutines[std::get<1>(info.param)].name + "_" + api_name(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Subset, OtherSchemes, testing::ValuesIn(scheme_params()),
                         scheme_param_name);

// --- Tests: where a call runs, as its size crosses the threshold --------------------------
// Without a report, an entry point forwards a call below its routine's threshold to the CPU
// library at once, from its raw arguments (in assembly on x86-64), and routes any other.
// The boundary variant sets GPUSHIM_THRESHOLD=12 (1728 multiply-adds), a device of one byte
// (every call routed to it runs on the CPU after one "does not fit" line at level info) and
// GPUSHIM_LOG_FILE: each routed call adds one such line, a call forwarded at once none. For
// every routine, name scheme with a CPU symbol and interface, each size (and side) in turn
// decides: the largest value below the threshold must stay on the CPU, the next must be
// offered to the device, and both results must agree with OpenBLAS.
constexpr const char* kDoesNotFit = "does not fit in device memory";

// Multiply-adds as the BLAS counts them, written here independently of the shim.
double reference_multiply_adds(Kind kind, char side, double m, double n, double k) {
    switch (family_of(kind)) {
        case Family::gemm:
            return m * n * k;
        case Family::symm:
            return side == 'L' ? m * m * n : m * n * n;
        case Family::rank_k:
            return n * (n + 1) / 2 * k;
        case Family::rank_2k:
            return n * (n + 1) * k;
        case Family::triangular:
            return side == 'L' ? m * (m + 1) / 2 * n : m * n * (n + 1) / 2;
    }
    return 0;
}

// How many times the log file gained `needle` since the last call.
class LogWatch {
  public:
    explicit LogWatch(std::string path) : path_(std::move(path)) { new_lines(); }
    int new_lines() {
        std::FILE* file = std::fopen(path_.c_str(), "r");
        if (file == nullptr) return 0;
        std::fseek(file, offset_, SEEK_SET);
        std::string text;
        char buffer[4096];
        for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
            text.append(buffer, got);
        offset_ += static_cast<long>(text.size());
        std::fclose(file);
        int count = 0;
        for (std::size_t at = text.find(kDoesNotFit); at != std::string::npos;
             at = text.find(kDoesNotFit, at + 1))
            ++count;
        return count;
    }

  private:
    std::string path_;
    long offset_ = 0;
};

class ThresholdBoundary : public testing::TestWithParam<SchemeParam> {};

TEST_P(ThresholdBoundary, SmallCallsStayOnTheCpuAndOthersAreRouted) {
    const std::string log = environment("GPUSHIM_LOG_FILE");
    if (log.empty() || environment("GPUSHIM_HOSTSIM_MEMORY") != "1" ||
        environment("GPUSHIM_THRESHOLD") != "12" || !environment("GPUSHIM_REPORT").empty()) {
        GTEST_SKIP() << "runs in the boundary variant only (GPUSHIM_THRESHOLD=12, "
                        "GPUSHIM_HOSTSIM_MEMORY=1, GPUSHIM_LOG=info, GPUSHIM_LOG_FILE, no report)";
    }
    const auto [scheme, index, api] = GetParam();
    if (is_64(scheme) && !cpu_has_64bit_blas()) GTEST_SKIP() << "no CPU symbol for the 64_ names";
    const Routine& r = kRoutines[index];
    const bool cblas = api != Api::fortran;
    const std::string shim_name = symbol_name(r.name, scheme, cblas);
    void* shim_fn = shim_symbol(shim_name);
    void* ref_fn = reference_symbol(symbol_name(r.name, Scheme::standard, cblas));
    ASSERT_TRUE(shim_fn != nullptr && ref_fn != nullptr) << shim_name;

    const double boundary = 12.0 * 12.0 * 12.0;
    const Family family = family_of(r.kind);
    const bool sided = family == Family::symm || family == Family::triangular;
    // Which of m, n, k the routine has.
    const std::vector<int> dimensions = family == Family::gemm ? std::vector{0, 1, 2}
                                        : family == Family::rank_k || family == Family::rank_2k
                                            ? std::vector{1, 2}
                                            : std::vector{0, 1};
    const bool complex = r.name[0] == 'c' || r.name[0] == 'z';
    LogWatch watch(log);
    uint64_t seed = 0xb0d0u;
    for (char side : sided ? std::string("LR") : std::string("-")) {
        for (int deciding : dimensions) {
            for (int base : {5, 12, 17}) {
                Case c;
                c.api = api;
                const auto flags = flag_combinations(r.kind, complex);
                std::copy(flags.back().begin(), flags.back().end(), c.f);
                if (sided) c.f[0] = side;
                c.alpha = kScalarSets[2].alpha;
                c.beta = family == Family::triangular ? c64{} : kScalarSets[2].beta;
                int size[3] = {base, base, base};
                const auto multiply_adds = [&] {
                    return reference_multiply_adds(r.kind, c.f[0], size[0], size[1], size[2]);
                };
                size[deciding] = 1;
                while (multiply_adds() < boundary) ++size[deciding];
                for (const int value : {size[deciding] - 1, size[deciding]}) {
                    if (value < 1) continue;
                    size[deciding] = value;
                    c.m = size[0];
                    c.n = size[1];
                    c.k = size[2];
                    const bool routed = multiply_adds() >= boundary;
                    const std::string error = run_any(r, scheme, shim_fn, ref_fn, c, ++seed);
                    const int lines = watch.new_lines();
                    EXPECT_TRUE(error.empty()) << describe(shim_name, r.kind, c) << ": " << error;
                    EXPECT_EQ(lines, routed ? 1 : 0)
                        << describe(shim_name, r.kind, c) << ": " << multiply_adds()
                        << " multiply-adds, threshold " << boundary << ": expected "
                        << (routed ? "the device to be tried" : "the CPU at once");
                }
            }
        }
    }
}

std::vector<SchemeParam> boundary_params() {
    std::vector<SchemeParam> out;
    for (Scheme scheme : {Scheme::standard, Scheme::suffix64}) {
        for (int i = 0; i < kRoutineCount; ++i) {
            for (Api api : {Api::fortran, Api::cblas_col, Api::cblas_row})
                out.emplace_back(scheme, i, api);
        }
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllRoutines, ThresholdBoundary, testing::ValuesIn(boundary_params()),
                         scheme_param_name);

// --- Tests: the export table --------------------------------------------------------------
TEST(Exports, EveryRoutineUnderEveryName) {
    int missing = 0;
    for (const Routine& r : kRoutines) {
        for (Scheme scheme :
             {Scheme::standard, Scheme::suffix64, Scheme::scipy64, Scheme::scipy32}) {
            for (bool cblas : {false, true}) {
                const std::string name = symbol_name(r.name, scheme, cblas);
                if (shim_symbol(name) == nullptr) {
                    ++missing;
                    ADD_FAILURE() << "libgpushim.so does not export " << name;
                }
            }
        }
    }
    EXPECT_EQ(missing, 0);
}

// --- Tests: 64-bit integers are read as 64-bit --------------------------------------------
// A leading dimension of 2^32 + 3 is valid for a single column (or row) of 7 elements and
// touches no memory beyond it; truncated to 32 bits it would be 3, an invalid argument.
TEST(Schemes64, LeadingDimensionsAbove32BitsAreHonoured) {
    if (!device_completes_every_call() && !cpu_has_64bit_blas()) {
        GTEST_SKIP() << "no CPU symbol for the 64_ names: run only under forced offload";
    }
    const int64_t huge = (int64_t{1} << 32) + 3;
    void* ref = reference_symbol("dgemm_");
    ASSERT_NE(ref, nullptr);
    // Column-major, Fortran and CBLAS: C (7 x 1) = A (7 x 1) B (1 x 1) + C.
    for (Scheme scheme : {Scheme::suffix64, Scheme::scipy64}) {
        if (scheme == Scheme::scipy64 && !device_completes_every_call()) continue;
        for (bool cblas : {false, true}) {
            const std::string name = symbol_name("dgemm", scheme, cblas);
            void* fn = shim_symbol(name);
            ASSERT_NE(fn, nullptr) << name;
            const double a[7] = {1, 2, 3, 4, 5, 6, 7}, b[1] = {0.5};
            double c[7] = {1, 1, 1, 1, 1, 1, 1};
            double expected[7] = {1, 1, 1, 1, 1, 1, 1};
            const int32_t m32 = 7, one32 = 1;
            const double alpha = 2.0, beta = 1.0;
            using F32 =
                void(const char*, const char*, const int32_t*, const int32_t*, const int32_t*,
                     const double*, const double*, const int32_t*, const double*, const int32_t*,
                     const double*, double*, const int32_t*, std::size_t, std::size_t);
            reinterpret_cast<F32*>(ref)("N", "N", &m32, &one32, &one32, &alpha, a, &m32, b, &one32,
                                        &beta, expected, &m32, 1, 1);
            const int64_t m = 7, one = 1;
            if (cblas) {
                using F = void(int, int, int, int64_t, int64_t, int64_t, double, const double*,
                               int64_t, const double*, int64_t, double, double*, int64_t);
                reinterpret_cast<F*>(fn)(kColMajor, 111, 111, m, one, one, alpha, a, huge, b, huge,
                                         beta, c, huge);
            } else {
                using F = void(const char*, const char*, const int64_t*, const int64_t*,
                               const int64_t*, const double*, const double*, const int64_t*,
                               const double*, const int64_t*, const double*, double*,
                               const int64_t*, std::size_t, std::size_t);
                reinterpret_cast<F*>(fn)("N", "N", &m, &one, &one, &alpha, a, &huge, b, &huge,
                                         &beta, c, &huge, 1, 1);
            }
            for (int i = 0; i < 7; ++i) EXPECT_EQ(c[i], expected[i]) << name << " element " << i;
        }
        // Row-major CBLAS: C (1 x 7) = A (1 x 1) B (1 x 7) + C, ldc = 2^32 + 3 >= n = 7.
        const std::string name = symbol_name("dgemm", scheme, true);
        using F = void(int, int, int, int64_t, int64_t, int64_t, double, const double*, int64_t,
                       const double*, int64_t, double, double*, int64_t);
        const double a[1] = {3.0}, b[7] = {1, -2, 3, -4, 5, -6, 7};
        double c[7] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
        reinterpret_cast<F*>(shim_symbol(name))(kRowMajor, 111, 111, 1, 7, 1, 1.0, a, huge, b, huge,
                                                1.0, c, huge);
        for (int j = 0; j < 7; ++j) EXPECT_EQ(c[j], 0.5 + 3.0 * b[j]) << name << " element " << j;
    }
}

// A 64_ call that must run on the CPU (alpha = 0) where no CPU BLAS has a 64-bit dgemm
// (as when GPUSHIM_CPU_BLAS names the 32-bit OpenBLAS): the shim stops with a message naming
// the symbol rather than guess (DESIGN.md, "Finding the CPU implementation").
TEST(Schemes64DeathTest, CpuCallWithoutA64BitCpuSymbolStopsWithAMessage) {
    if (cpu_has_64bit_blas()) GTEST_SKIP() << "a 64-bit CPU BLAS is available";
    if (gpushim::testing_support::kUnderEmulator)
        GTEST_SKIP() << gpushim::testing_support::kNotRunAgain;
    ASSERT_NE(shim_symbol("dgemm_64_"), nullptr);
    EXPECT_DEATH(degenerate_dgemm_64(), "gpushim: error: .*dgemm_64_");
}

// --- Tests: invalid arguments reach the CPU library's xerbla ------------------------------
// Debian's OpenBLAS xerbla prints " ** On entry to DGEMM  parameter number  1 had an
// illegal value" on stdout and returns: the shim's call must print the same and leave the
// output as it was.
struct Observed {
    std::string output;
    std::vector<double> c;
};

template <class Invoke>
Observed observe(Invoke&& invoke, std::vector<double> c) {
    std::fflush(stdout);
    testing::internal::CaptureStdout();
    invoke(c.data());
    std::fflush(stdout);
    return {testing::internal::GetCapturedStdout(), std::move(c)};
}

// Calls `invoke(fn, c)` with the OpenBLAS and then the shim function of `name` and checks
// the same message and the same output. `expect_error`: OpenBLAS must have complained.
template <class F, class Invoke>
void expect_same_behaviour(const std::string& name, Invoke&& invoke, bool expect_error = true) {
    void* ref = reference_symbol(name);
    void* shim = shim_symbol(name);
    ASSERT_NE(ref, nullptr) << name;
    ASSERT_NE(shim, nullptr) << name;
    std::vector<double> initial(64);
    for (std::size_t i = 0; i < initial.size(); ++i)
        initial[i] = 0.25 * static_cast<double>(i) - 3.0;
    const Observed by_ref =
        observe([&](double* c) { invoke(reinterpret_cast<F*>(ref), c); }, initial);
    const Observed by_shim =
        observe([&](double* c) { invoke(reinterpret_cast<F*>(shim), c); }, initial);
    if (expect_error) {
        EXPECT_NE(by_ref.output.find("illegal value"), std::string::npos)
            << name << ": OpenBLAS printed \"" << by_ref.output << "\"";
        EXPECT_EQ(std::memcmp(by_ref.c.data(), initial.data(), initial.size() * sizeof(double)), 0)
            << name << ": OpenBLAS changed the output of an invalid call";
    }
    EXPECT_EQ(by_shim.output, by_ref.output) << name;
    EXPECT_EQ(std::memcmp(by_shim.c.data(), by_ref.c.data(), initial.size() * sizeof(double)), 0)
        << name << ": the shim's output differs from OpenBLAS's";
}

using CblasDgemm = void(int, int, int, int, int, int, double, const double*, int, const double*,
                        int, double, double*, int);

const double kOperand[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

TEST(InvalidArguments, BadLayout) {
    expect_same_behaviour<CblasDgemm>("cblas_dgemm", [&](CblasDgemm* f, double* c) {
        f(100, 111, 111, 2, 2, 2, 1.0, kOperand, 2, kOperand, 2, 0.0, c, 2);
    });
    using CblasDtrsm =
        void(int, int, int, int, int, int, int, double, const double*, int, double*, int);
    expect_same_behaviour<CblasDtrsm>("cblas_dtrsm", [&](CblasDtrsm* f, double* c) {
        f(0, 141, 121, 111, 131, 2, 2, 1.0, kOperand, 2, c, 2);
    });
}

// Flags valid for other routines: TRANS = 'T' for HERK and HER2K, ConjTrans for complex SYRK.
TEST(InvalidArguments, FlagsValidOnlyForOtherRoutines) {
    // Complex routines on a double buffer: only the bytes matter here.
    const int two = 2;
    const c64 alpha{1.0, 0.5}, beta{0.5, 0.0};
    const double real_alpha = 1.0, real_beta = 0.5;
    using FortranZherk =
        void(const char*, const char*, const int*, const int*, const double*, const double*,
             const int*, const double*, double*, const int*, std::size_t, std::size_t);
    expect_same_behaviour<FortranZherk>("zherk_", [&](FortranZherk* f, double* c) {
        f("U", "T", &two, &two, &real_alpha, kOperand, &two, &real_beta, c, &two, 1, 1);
    });
    using CblasZsyrk =
        void(int, int, int, int, int, const void*, const double*, int, const void*, double*, int);
    for (int layout : {kColMajor, kRowMajor}) {
        expect_same_behaviour<CblasZsyrk>("cblas_zsyrk", [&](CblasZsyrk* f, double* c) {
            f(layout, 121, 113, 2, 2, &alpha, kOperand, 2, &beta, c, 2);
        });
    }
    using CblasZher2k = void(int, int, int, int, int, const void*, const double*, int,
                             const double*, int, double, double*, int);
    for (int layout : {kColMajor, kRowMajor}) {
        expect_same_behaviour<CblasZher2k>("cblas_zher2k", [&](CblasZher2k* f, double* c) {
            f(layout, 122, 112, 2, 2, &alpha, kOperand, 2, kOperand, 2, real_beta, c, 2);
        });
    }
}

// OpenBLAS accepts TRANS = 'R' (conjugate, no transpose) in ZGEMM, and CblasConjNoTrans
// (114) in cblas_zgemm: extensions the shim does not offload; forwarded, they must give
// OpenBLAS's result.
TEST(InvalidArguments, OpenBlasConjugateNoTransposeExtension) {
    const int two = 2;
    const c64 alpha{1.0, 0.5}, beta{0.5, -0.25};
    using FortranZgemm = void(const char*, const char*, const int*, const int*, const int*,
                              const void*, const double*, const int*, const double*, const int*,
                              const void*, double*, const int*, std::size_t, std::size_t);
    expect_same_behaviour<FortranZgemm>(
        "zgemm_",
        [&](FortranZgemm* f, double* c) {
            f("R", "N", &two, &two, &two, &alpha, kOperand, &two, kOperand + 8, &two, &beta, c,
              &two, 1, 1);
        },
        /*expect_error=*/false);
    using CblasZgemm = void(int, int, int, int, int, int, const void*, const double*, int,
                            const double*, int, const void*, double*, int);
    for (int layout : {kColMajor, kRowMajor}) {
        expect_same_behaviour<CblasZgemm>(
            "cblas_zgemm",
            [&](CblasZgemm* f, double* c) {
                f(layout, 111, 114, 2, 2, 2, &alpha, kOperand, 2, kOperand + 8, 2, &beta, c, 2);
            },
            /*expect_error=*/false);
    }
}

// --- Tests: concurrent callers ------------------------------------------------------------
TEST(Threads, ConcurrentCallsAgreeWithOpenBLAS) {
    constexpr int kThreads = 4, kCalls = 25, kN = 33;
    using CblasZgemm = void(int, int, int, int, int, int, const void*, const c64*, int, const c64*,
                            int, const void*, c64*, int);
    auto* shim_d = reinterpret_cast<CblasDgemm*>(shim_symbol("cblas_dgemm"));
    auto* ref_d = reinterpret_cast<CblasDgemm*>(reference_symbol("cblas_dgemm"));
    auto* shim_z = reinterpret_cast<CblasZgemm*>(shim_symbol("cblas_zgemm"));
    auto* ref_z = reinterpret_cast<CblasZgemm*>(reference_symbol("cblas_zgemm"));
    ASSERT_TRUE(shim_d && ref_d && shim_z && ref_z);
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Rng rng(1000 + t);
            for (int call = 0; call < kCalls; ++call) {
                const int n = kN + t;
                if ((call + t) % 2 == 0) {
                    std::vector<double> a(n * n), b(n * n), c(n * n);
                    for (auto* v : {&a, &b, &c})
                        for (double& x : *v) x = random_value<double>(rng);
                    std::vector<double> expected = c;
                    ref_d(kColMajor, 111, 112, n, n, n, 1.25, a.data(), n, b.data(), n, 0.5,
                          expected.data(), n);
                    shim_d(kColMajor, 111, 112, n, n, n, 1.25, a.data(), n, b.data(), n, 0.5,
                           c.data(), n);
                    for (int i = 0; i < n * n; ++i) {
                        if (!(std::abs(c[i] - expected[i]) <= 1e-12 * n)) ++failures[t];
                    }
                } else {
                    std::vector<c64> a(n * n), b(n * n), c(n * n);
                    for (auto* v : {&a, &b, &c})
                        for (c64& x : *v) x = random_value<c64>(rng);
                    std::vector<c64> expected = c;
                    const c64 alpha{0.5, 1.0}, beta{-1.0, 0.25};
                    ref_z(kRowMajor, 113, 111, n, n, n, &alpha, a.data(), n, b.data(), n, &beta,
                          expected.data(), n);
                    shim_z(kRowMajor, 113, 111, n, n, n, &alpha, a.data(), n, b.data(), n, &beta,
                           c.data(), n);
                    for (int i = 0; i < n * n; ++i) {
                        if (!(std::abs(c[i] - expected[i]) <= 1e-12 * n)) ++failures[t];
                    }
                }
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace

// The shim reads its configuration once, at its first call: start_harness() sets it before
// any test runs.
int main(int argc, char** argv) {
    if (const int status = start_harness(argc, argv, "shim_vs_cpu_test", GPUSHIM_TEST_OPENBLAS_PATH,
                                         /*openblas64_built_in=*/nullptr);
        status != 0)
        return status;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    return RUN_ALL_TESTS();
}
