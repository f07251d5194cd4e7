// plugin_lapack_check: the `lapack` entry of one device plugin (gpu/device_interface.h),
// checked numerically on the plugin alone, loaded with dlopen as libgpushim.so loads it:
//
//   - POTRF, uplo 'U' and 'L': residual |A - L L^H| (|A - U^H U|), the other triangle and
//     the padding rows (lda > n) untouched; INFO for a matrix that is not positive
//     definite (the leading minor of order 7: INFO = 7);
//   - GETRF, square, tall and wide: |P A - L U| with the pivots applied as LAPACK's
//     1-based row interchanges, pivots in range, padding untouched; the classic
//     A = [1 2 3; 4 5 6; 7 8 10], whose LAPACK pivots are 3 3 3 (0-based would be 2 2 2);
//     INFO = 4 for a zero fourth column;
//   - every other kind, against what it means, with a reference in double precision and
//     ratios scaled by n eps (bound 30), every leading dimension above the row count and
//     the padding rows checked untouched, read-only operands checked unchanged:
//     GETRS (trans N, T, C): |op(A) X - B|; GESV: |A X - B|, and INFO = 4 for a zero
//     fourth column, as GETRF; GETRI: |A inv(A) - I|; POTRS, POSV ('U', 'L'): |A X - B|,
//     and POSV's INFO = 7 where POTRF's is; POTRI: |A inv(A) - I| from the inverse's
//     triangle, the other triangle kept; TRTRS (every uplo, trans, diag): |op(T) X - B|,
//     with junk in the triangle (and, for diag 'U', the diagonal) it must not read;
//     TRTRI: |T inv(T) - I|, the rest kept; GEQRF + ORGQR (tall, square, wide, and k < n):
//     |Q^H Q - I|, |A - Q R|; ORMQR (side L, R; trans N and T or C): against the explicit
//     Q built from the reflectors; SYEVD (jobz V, N; uplo U, L) of Q diag(lambda) Q^H:
//     w ascending and equal to lambda and to the CPU's ?syev/?heev, |A V - V diag(w)|,
//     |V^H V - I|; GESVD (jobs AA, SS, OS, SO, NN, AN) of U diag(sigma) V^H: s
//     descending and equal to sigma and to the CPU's ?gesvd, |A - U S VT|, |U^H U - I|,
//     |VT VT^H - I|, wherever the jobs put U and VT; SYEVR (jobz V, N; uplo U, L; range A,
//     V with an interval holding exactly 20 known eigenvalues, I with il = 5, iu = 17) of
//     Q diag(lambda) Q^H: found = m, w ascending and equal to the known subset and to the
//     CPU's, |A Z - Z W|, |Z^H Z - I|, w and u beyond the m found untouched; SYGVD (itype
//     1, 2, 3; jobz V, N; uplo U, L): w ascending and equal to the CPU's ?sygv/?hegv,
//     |A Z - B Z W|, |A B Z - Z W|, |B A Z - Z W|, Z^H B Z = I (itype 3: Z^H inv(B) Z = I),
//     b holding B's Cholesky factor, INFO = n + 5 for a B not positive definite at 5;
//     GEEV (jobz V, N; real with WR and WI apart and in one array) of Q T Q^H with T
//     quasi-triangular of known eigenvalues: eigenvalues equal (as multisets) to the known
//     ones and to the CPU's ?geev, LAPACK's real pair convention, |A V - V W| with V in
//     that convention, unit columns whose largest component is real; GELS (tall, square,
//     one column): |A^H (A X - B)|, X against the CPU's ?gels, the residual rows' norm
//     against |A x - b|, a holding R (R^H R = A^H A); GELSD (tall, square, one column; rcond
//     < 0 and 0; full rank, and two equal columns with rcond sqrt(eps)): the rank (n, n - 1),
//     s descending and equal to the CPU's ?gelsd's, X against |A^H (A X - B)| and the CPU's
//     minimum-norm solution (two equal columns: equal rows of X), with full rank the residual
//     rows' norm against |A x - b|;
//   - SYTRF ('L', 'U'; random, and with a zero diagonal, which takes 2 x 2 pivots): the factor
//     and pivots read as LAPACK documents them (L = P(1) L(1) P(2) L(2) ...) give A x for a
//     random x to |A||x| + |L||D||L^T||x| times n eps, the other triangle kept; INFO > 0 for
//     a zero row and column; SYTRI of the plugin's SYTRF factors: |A inv(A) - I|, the other
//     triangle kept, the pivots unchanged; SYTRS with them and SYSV (one to 2100 right-hand
//     sides): |A X - B|, and SYSV's INFO > 0 for a zero row and column; SYTRS and SYTRI of the
//     CPU's ?sytrf factor, and the CPU's ?sytrs of the plugin's (n = 150, zero diagonal):
//     |A X - B|, |A inv(A) - I| (a layout other than LAPACK's would show here);
//   - all four precisions; then larger calls on the same queue (dpotrf 'L' n, zpotrf 'U'
//     3n/4, dsytrf 'L' n and 'U' n/2 + 3, zsytrf 'U' n/2 and 'L' n/4 + 5, dsytri n/8 + 3,
//     zsytri n/16 + 5, dsytrs and dsysv n/8 + 1 with n/64 right-hand sides (checked as above),
//     dgetrf n x n, dgesv n, dsyevd n/4, with n from --large-n), which make a
//     plugin's workspaces grow, checked by matrix-vector residuals (A x against
//     L (L^H x), P A x against L (U x), A X against B, A V y against V W y);
//   - the CUDA plugin only: GETRF, GETRS, GESV, GETRI, SYTRF, SYTRI, SYTRS and SYSV with a
//     null ipiv are refused
//     (cuSOLVER would go without pivoting), and so is a GESVD it cannot compute (m < n,
//     both jobs 'O'), a SYEVR with a malformed range or no found, a SYGVD of itype 4 or
//     of order 32767 or a POTRI of order 46341 (their int workspace counts may have
//     wrapped), a SYTRI of order 65536
//     (its packed triangle beyond an int), a real GEEV without wi, a
//     GELS with m < n or trans 'T', a GELSD with m < n or no found;
//     queue_destroy succeeds and gives the workspaces back.
// Without a CPU LAPACK (the CUDA plugin on a machine without one), the comparisons with
// the CPU's values are skipped and said so; everything else still runs.
//
// Usage: plugin_lapack_check [--large-n N] PLUGIN.so
// Exit status: 0 every check passed; 1 a check failed, or the plugin could not be loaded;
// 77 skipped (CTest SKIP_RETURN_CODE): the plugin's init() failed (no GPU), or the
// host-simulated plugin found no CPU LAPACK to run on.
//
// Plain C++ (no GoogleTest), so that it also builds on the GPU machine.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/device_interface.h"
#include "plugin_check_harness.h"

namespace {

using namespace gpushim::plugin_check;  // NOLINT(google-build-using-namespace)

template <typename T>
struct Traits;
template <>
struct Traits<float> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_S;
    static constexpr char name = 's';
    static constexpr double eps = 6e-8;
};
template <>
struct Traits<double> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_D;
    static constexpr char name = 'd';
    static constexpr double eps = 1.1e-16;
};
template <>
struct Traits<std::complex<float>> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_C;
    static constexpr char name = 'c';
    static constexpr double eps = 6e-8;
};
template <>
struct Traits<std::complex<double>> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_Z;
    static constexpr char name = 'z';
    static constexpr double eps = 1.1e-16;
};

template <typename T>
T conj_(T x) {
    if constexpr (std::is_floating_point_v<T>) {
        return x;
    } else {
        return std::conj(x);
    }
}

// splitmix64: fast, deterministic, good enough for test matrices.
struct Random {
    uint64_t state;
    explicit Random(uint64_t seed) : state(seed * 0x9e3779b97f4a7c15ULL + 1) {}
    double uniform() {  // in (-1, 1)
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<double>(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
    template <typename T>
    T next() {
        if constexpr (std::is_floating_point_v<T>) {
            return T(uniform());
        } else {
            const double re = uniform();
            return T(re, uniform());
        }
    }
};

template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T>, double, std::complex<double>>;
template <typename T>
struct RealOf {
    using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
    using type = R;
};
template <typename T>
using Real = typename RealOf<T>::type;

// A column-major matrix with ld >= rows; the padding rows hold kPadding.
constexpr double kPadding = 777;
template <typename T>
struct Matrix {
    int64_t rows = 0, cols = 0, ld = 1;
    std::vector<T> v;
    Matrix() = default;
    Matrix(int64_t r, int64_t c, int64_t pad = 0)
        : rows(r),
          cols(c),
          ld(std::max<int64_t>(1, r + pad)),
          v(static_cast<size_t>(ld * std::max<int64_t>(1, c)), T(kPadding)) {}
    T& operator()(int64_t i, int64_t j) { return v[static_cast<size_t>(i + j * ld)]; }
    const T& operator()(int64_t i, int64_t j) const { return v[static_cast<size_t>(i + j * ld)]; }
};

// ---- staging: one operation on device copies of its operands --------------------------------

// Where stage() puts the device copy of an operand.
// kSlotWPair: one array whose first half is w and second half wi (GEEV's WR, WI in one).
enum Slot {
    kSlotA,
    kSlotB,
    kSlotIpiv,
    kSlotTau,
    kSlotW,
    kSlotU,
    kSlotVT,
    kSlotWI,
    kSlotWPair,
    kSlotFound
};

void set_slot(gpushim_lapack_op& op, Slot slot, void* pointer, size_t bytes) {
    switch (slot) {
        case kSlotWI:
            op.wi = pointer;
            return;
        case kSlotWPair:
            op.w = pointer;
            op.wi = static_cast<char*>(pointer) + bytes / 2;
            return;
        case kSlotFound:
            op.found = static_cast<int64_t*>(pointer);
            return;
        case kSlotA:
            op.a = pointer;
            return;
        case kSlotB:
            op.b = pointer;
            return;
        case kSlotIpiv:
            op.ipiv = static_cast<int64_t*>(pointer);
            return;
        case kSlotTau:
            op.tau = pointer;
            return;
        case kSlotW:
            op.w = pointer;
            return;
        case kSlotU:
            op.u = pointer;
            return;
        case kSlotVT:
            op.vt = pointer;
            return;
    }
}

// The leading dimension that goes with a matrix's slot; nullptr for an array's.
int64_t* leading_dimension(gpushim_lapack_op& op, Slot slot) {
    switch (slot) {
        case kSlotA:
            return &op.lda;
        case kSlotB:
            return &op.ldb;
        case kSlotU:
            return &op.ldu;
        case kSlotVT:
            return &op.ldvt;
        default:
            return nullptr;
    }
}

// kIn: the operation only reads the operand, which must come back as it went; kInOut: it may
// write it, all but a matrix's padding rows.
enum Role { kIn, kInOut };

// A host array copied as `count` rows of `pitch` bytes, of which the first `used` are the
// operand's (a matrix: its columns, of ld elements of which `rows` are the matrix's).
struct Operand {
    Slot slot;
    Role role;
    void* host;
    size_t pitch, count, used;
    int64_t ld;  // 0 for an array
};

template <typename V>
Operand operand(Slot slot, Role role, std::vector<V>& vector) {
    const size_t bytes = sizeof(V) * vector.size();
    return {slot, role, vector.data(), bytes, 1, bytes, 0};
}

template <typename T>
Operand operand(Slot slot, Role role, Matrix<T>& m) {
    return {slot,
            role,
            m.v.data(),
            sizeof(T) * static_cast<size_t>(m.ld),
            static_cast<size_t>(m.cols),
            sizeof(T) * static_cast<size_t>(m.rows),
            m.ld};
}

template <typename Host>
Operand in(Slot slot, Host& host) {
    return operand(slot, kIn, host);
}

template <typename Host>
Operand inout(Slot slot, Host& host) {
    return operand(slot, kInOut, host);
}

// A gpushim_lapack_op without its precision and pointers, so that a case names (with designated
// initializers) only what its kind uses. stage() sets the leading dimensions of the matrices it
// is given.
struct Call {
    gpushim_lapack_kind kind;
    char uplo = 0, trans = 0, side = 0, diag = 0, jobz = 0, jobu = 0, jobvt = 0, range = 0;
    int64_t m = 0, n = 0, k = 0, nrhs = 0, itype = 0, il = 0, iu = 0;
    double vl = 0, vu = 0, rcond = 0;
    int64_t lda = 0, ldb = 0, ldu = 0, ldvt = 0;
};

template <typename T>
gpushim_lapack_op lapack_op(const Call& call) {
    gpushim_lapack_op op{};
    op.kind = call.kind;
    op.precision = Traits<T>::precision;
    op.uplo = call.uplo;
    op.trans = call.trans;
    op.side = call.side;
    op.diag = call.diag;
    op.jobz = call.jobz;
    op.jobu = call.jobu;
    op.jobvt = call.jobvt;
    op.range = call.range;
    op.m = call.m;
    op.n = call.n;
    op.k = call.k;
    op.nrhs = call.nrhs;
    op.itype = call.itype;
    op.il = call.il;
    op.iu = call.iu;
    op.vl = call.vl;
    op.vu = call.vu;
    op.rcond = call.rcond;
    op.lda = call.lda;
    op.ldb = call.ldb;
    op.ldu = call.ldu;
    op.ldvt = call.ldvt;
    return op;
}

struct Outcome {
    int info = -99;            // -99 where the plugin never set it
    bool unchanged = true;     // every kIn operand came back as it went
    bool padding_kept = true;  // and every kInOut matrix's padding rows
    double seconds = 0;        // the lapack call alone
};

// Runs `call` in T's precision on device copies of the operands and copies the kInOut ones
// and INFO back. An empty operand (an output that the call does not ask for) is not given: its
// pointer and leading dimension stay 0.
template <typename T>
int stage(const Call& call, const std::vector<Operand>& operands, Outcome* outcome) {
    gpushim_lapack_op op = lapack_op<T>(call);
    const size_t count = operands.size();
    std::vector<DeviceBlock> blocks(count + 1);  // the operands', then INFO's
    *outcome = Outcome{};
    for (size_t i = 0; i < count; ++i) {
        const Operand& o = operands[i];
        if (o.pitch * o.count == 0) continue;
        if (const int s = plugin->device_alloc(&blocks[i].pointer, o.pitch * o.count)) return s;
        if (const int s = plugin->copy_to_device_2d(blocks[i].pointer, o.pitch, o.host, o.pitch,
                                                    o.pitch, o.count, queue)) {
            return s;
        }
        set_slot(op, o.slot, blocks[i].pointer, o.pitch * o.count);
        if (int64_t* ld = leading_dimension(op, o.slot)) *ld = o.ld;
    }
    void*& info = blocks[count].pointer;
    if (const int s = plugin->device_alloc(&info, sizeof(int))) return s;
    if (const int s = plugin->copy_to_device_2d(info, sizeof(int), &outcome->info, sizeof(int),
                                                sizeof(int), 1, queue)) {
        return s;
    }
    if (const int s = plugin->queue_synchronize(queue)) return s;
    op.info = static_cast<int*>(info);
    const auto t0 = std::chrono::steady_clock::now();
    if (const int s = plugin->lapack(&op, queue)) return s;
    if (const int s = plugin->queue_synchronize(queue)) return s;
    outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Every operand comes back beside its host array: the kIn ones to be compared, the kInOut
    // ones for their padding.
    std::vector<std::vector<unsigned char>> back(count);
    for (size_t i = 0; i < count; ++i) {
        const Operand& o = operands[i];
        back[i].resize(o.pitch * o.count);
        if (back[i].empty()) continue;
        if (const int s = plugin->copy_to_host_2d(back[i].data(), o.pitch, blocks[i].pointer,
                                                  o.pitch, o.pitch, o.count, queue)) {
            return s;
        }
    }
    if (const int s = plugin->copy_to_host_2d(&outcome->info, sizeof(int), info, sizeof(int),
                                              sizeof(int), 1, queue)) {
        return s;
    }
    if (const int s = plugin->queue_synchronize(queue)) return s;
    for (size_t i = 0; i < count; ++i) {
        const Operand& o = operands[i];
        if (back[i].empty()) continue;
        const auto* host = static_cast<const unsigned char*>(o.host);
        if (o.role == kIn) {
            outcome->unchanged =
                outcome->unchanged && std::memcmp(back[i].data(), host, back[i].size()) == 0;
            continue;
        }
        for (size_t r = 0; r < o.count; ++r) {
            const size_t padding = r * o.pitch + o.used;
            outcome->padding_kept =
                outcome->padding_kept &&
                std::memcmp(back[i].data() + padding, host + padding, o.pitch - o.used) == 0;
        }
        std::memcpy(o.host, back[i].data(), back[i].size());
    }
    return 0;
}

// A factorization that a case builds on, which fails the case where it fails: INFO > 0 as the
// status -1000 - INFO, padding rows written as -2000.
template <typename T>
int factor(const Call& call, const std::vector<Operand>& operands) {
    Outcome outcome;
    const int s = stage<T>(call, operands, &outcome);
    if (s != 0) return s;
    if (outcome.info != 0) return -1000 - outcome.info;
    return outcome.padding_kept ? 0 : -2000;
}

// ---- measures ---------------------------------------------------------------------------------
//
// The references are in double (or double complex) arithmetic, so that they add no error of the
// precision under test. Ratios are normwise (1-norm) and scaled by n eps, as LAPACK's own tests
// scale them; a correct result stays far below kBound.

constexpr double kBound = 30;
constexpr double kJunk = 999;  // what a part the operation must not read (or write) holds

// The top-left rows x cols block, in double precision and without padding.
template <typename T>
Matrix<Wide<T>> block(const Matrix<T>& m, int64_t rows, int64_t cols) {
    Matrix<Wide<T>> r(rows, cols);
    for (int64_t j = 0; j < cols; ++j) {
        for (int64_t i = 0; i < rows; ++i) r(i, j) = static_cast<Wide<T>>(m(i, j));
    }
    return r;
}
template <typename T>
Matrix<Wide<T>> widen(const Matrix<T>& m) {
    return block(m, m.rows, m.cols);
}

// `m` rounded to T, with `pad` padding rows.
template <typename T, typename W>
Matrix<T> rounded(const Matrix<W>& m, int64_t pad) {
    Matrix<T> r(m.rows, m.cols, pad);
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) r(i, j) = static_cast<T>(m(i, j));
    }
    return r;
}

template <typename T>
Matrix<T> random_matrix(int64_t rows, int64_t cols, int64_t pad, Random& g) {
    Matrix<T> m(rows, cols, pad);
    for (int64_t j = 0; j < cols; ++j) {
        for (int64_t i = 0; i < rows; ++i) m(i, j) = g.next<T>();
    }
    return m;
}

template <typename W>
Matrix<W> identity(int64_t n) {
    Matrix<W> m(n, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) m(i, j) = W(i == j ? 1 : 0);
    }
    return m;
}

// op(m) for trans 'N', 'T' or 'C'.
template <typename W>
Matrix<W> apply_op(const Matrix<W>& m, char trans) {
    if (trans == 'N') return m;
    Matrix<W> r(m.cols, m.rows);
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) r(j, i) = trans == 'C' ? conj_(m(i, j)) : m(i, j);
    }
    return r;
}

template <typename W>
Matrix<W> multiply(const Matrix<W>& a, const Matrix<W>& b) {
    Matrix<W> c(a.rows, b.cols);
    for (int64_t j = 0; j < b.cols; ++j) {
        for (int64_t i = 0; i < a.rows; ++i) c(i, j) = W(0);
        for (int64_t p = 0; p < a.cols; ++p) {
            const W x = b(p, j);
            for (int64_t i = 0; i < a.rows; ++i) c(i, j) += a(i, p) * x;
        }
    }
    return c;
}

// Columns scaled: m(:, j) * d[j].
template <typename W, typename R>
Matrix<W> scale_columns(Matrix<W> m, const std::vector<R>& d) {
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) m(i, j) *= static_cast<double>(d[j]);
    }
    return m;
}

template <typename W>
double norm1(const Matrix<W>& m) {  // the largest column sum
    double norm = 0;
    for (int64_t j = 0; j < m.cols; ++j) {
        double sum = 0;
        for (int64_t i = 0; i < m.rows; ++i) sum += std::abs(m(i, j));
        norm = std::max(norm, sum);
    }
    return norm;
}

template <typename W>
double distance1(const Matrix<W>& a, const Matrix<W>& b) {  // |a - b|_1, same shapes
    Matrix<W> d(a.rows, a.cols);
    for (int64_t j = 0; j < a.cols; ++j) {
        for (int64_t i = 0; i < a.rows; ++i) d(i, j) = a(i, j) - b(i, j);
    }
    return norm1(d);
}

template <typename W>
double identity_distance(const Matrix<W>& m) {  // |m - I|_1
    return distance1(m, identity<W>(m.rows));
}

// |Q^H Q - I|_1 for the columns of q.
template <typename W>
double orthogonality(const Matrix<W>& q) {
    return identity_distance(multiply(apply_op(q, 'C'), q));
}

double ratio(double error, double scale, int64_t n, double eps) {
    return scale > 0 ? error / (scale * static_cast<double>(std::max<int64_t>(1, n)) * eps) : error;
}

// |op(A) X - B| / (|op(A)||X| n eps): how well X solves op(A) X = B.
template <typename T>
double solve_ratio(const Matrix<Wide<T>>& op_a, const Matrix<T>& x, const Matrix<T>& b) {
    const auto wx = widen(x);
    return ratio(distance1(multiply(op_a, wx), widen(b)), norm1(op_a) * norm1(wx), op_a.rows,
                 Traits<T>::eps);
}

// |A inv(A) - I| / (|A||inv(A)| n eps).
template <typename W>
double inverse_ratio(const Matrix<W>& a, const Matrix<W>& inverse, double eps) {
    return ratio(identity_distance(multiply(a, inverse)), norm1(a) * norm1(inverse), a.rows, eps);
}

// |A Z - Z diag(w)| / (|A| n eps) and |Z^H Z - I| / (n eps), for eigenvectors Z of the Hermitian
// A and their eigenvalues w.
template <typename W, typename R>
std::pair<double, double> eigenvector_ratios(const Matrix<W>& a, const Matrix<W>& z,
                                             const std::vector<R>& w, double eps) {
    const int64_t n = a.rows;
    return {ratio(distance1(multiply(a, z), scale_columns(z, w)), norm1(a), n, eps),
            ratio(orthogonality(z), 1, n, eps)};
}

// Whether the strict other triangle (the diagonal too, with `diagonal`) is as it was.
template <typename T>
bool triangle_kept(const Matrix<T>& before, const Matrix<T>& after, char uplo, bool diagonal) {
    for (int64_t j = 0; j < before.cols; ++j) {
        for (int64_t i = 0; i < before.rows; ++i) {
            const bool other = uplo == 'L' ? i < j : i > j;
            if ((other || (diagonal && i == j)) && before(i, j) != after(i, j)) return false;
        }
    }
    return true;
}

// Whether the first `count` values ascend (descend, with `descending`); a NaN breaks the order.
template <typename R>
bool in_order(const std::vector<R>& values, int64_t count, bool descending = false) {
    for (int64_t i = 1; i < count; ++i) {
        if (!(descending ? values[i - 1] >= values[i] : values[i - 1] <= values[i])) return false;
    }
    return true;
}

// LAPACK's row interchanges, 1-based: i <= ipiv(i) <= m.
bool pivots_in_range(const std::vector<int64_t>& ipiv, int64_t m) {
    for (size_t i = 0; i < ipiv.size(); ++i) {
        if (ipiv[i] < static_cast<int64_t>(i) + 1 || ipiv[i] > m) return false;
    }
    return true;
}

// max |x_i - y_i|
template <typename R>
double max_difference(const std::vector<R>& x, const std::vector<double>& y) {
    double d = 0;
    for (size_t i = 0; i < x.size(); ++i)
        d = std::max(d, std::abs(static_cast<double>(x[i]) - y[i]));
    return d;
}

template <typename T>
double max_abs(const std::vector<T>& x) {
    double norm = 0;
    for (const auto& v : x) norm = std::max<double>(norm, std::abs(v));
    return norm;
}

// A x, and |A|_inf (the largest row sum) in *norm_inf: O(n^2), for the large cases.
template <typename T>
std::vector<T> times(const Matrix<T>& a, const std::vector<T>& x, double* norm_inf) {
    std::vector<T> y(static_cast<size_t>(a.rows), T(0));
    std::vector<double> row_sums(y.size(), 0.0);
    for (int64_t j = 0; j < a.cols; ++j) {
        for (int64_t i = 0; i < a.rows; ++i) {
            y[i] += a(i, j) * x[j];
            row_sums[i] += std::abs(a(i, j));
        }
    }
    *norm_inf = *std::max_element(row_sums.begin(), row_sums.end());
    return y;
}

// max |y - z| / (|A|_inf |x|_inf n eps)
template <typename T>
double normwise(const std::vector<T>& y, const std::vector<T>& z, double norm_a, double norm_x,
                int64_t n) {
    double err = 0;
    for (size_t i = 0; i < y.size(); ++i) err = std::max<double>(err, std::abs(y[i] - z[i]));
    return err / (norm_a * norm_x * static_cast<double>(n) * Traits<T>::eps);
}

std::string shape(int64_t m, int64_t n) {
    return format("%lldx%lld", static_cast<long long>(m), static_cast<long long>(n));
}

// The name of T's routine: its real form or its complex one.
template <typename T>
const char* lapack_name(const char* real, const char* complex) {
    return std::is_floating_point_v<T> ? real : complex;
}

// ---- POTRF, GETRF: exact residuals (O(n^3) on the host) ---------------------------------------

template <typename T>
void potrf_case(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 31 + uplo));
    std::vector<T> b(static_cast<size_t>(n * n));
    Matrix<T> a(n, n, 3);
    for (auto& x : b) x = g.next<T>();
    for (int64_t j = 0; j < n; ++j) {  // A = B B^H + n I
        for (int64_t i = 0; i < n; ++i) {
            T s = (i == j) ? T(static_cast<double>(n)) : T(0);
            for (int64_t k = 0; k < n; ++k) s += b[i + k * n] * conj_(b[j + k * n]);
            a(i, j) = s;
        }
    }
    Matrix<T> f = a;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_POTRF, .uplo = uplo, .n = n}, {inout(kSlotA, f)}, &out));
    const bool untouched = triangle_kept(a, f, uplo, false) && out.padding_kept;
    double err = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;  // (L L^H)(i,j) or (U^H U)(i,j)
            for (int64_t k = 0; k <= std::min(i, j); ++k) {
                s += uplo == 'L' ? f(i, k) * conj_(f(j, k)) : conj_(f(k, i)) * f(k, j);
            }
            err = std::max<double>(err, std::abs(s - a(i, j)));
            norm = std::max<double>(norm, std::abs(a(i, j)));
        }
    }
    const double rel = norm > 0 ? err / norm / (static_cast<double>(n) * Traits<T>::eps) : 0;
    report(out.info == 0 && untouched && rel < 10,
           format("%cpotrf %c n=%lld: info=%d, other triangle and padding untouched=%d, "
                  "|A - LL^H|/(|A| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), out.info, untouched, rel));
}

// A's leading minor of order `order` is not positive definite: zero but for a diagonal of 4, and
// -1 at `order`.
template <typename T>
void make_indefinite_at(Matrix<T>& a, int64_t order) {
    for (int64_t j = 0; j < a.cols; ++j) {
        for (int64_t i = 0; i < a.rows; ++i) a(i, j) = T(i == j ? 4 : 0);
    }
    a(order - 1, order - 1) = T(-1);
}

template <typename T>
void potrf_not_positive_definite() {
    Matrix<T> a(40, 40);
    make_indefinite_at(a, 7);
    Outcome out;
    CHECK_STATUS(
        stage<T>({.kind = GPUSHIM_POTRF, .uplo = 'L', .n = a.rows}, {inout(kSlotA, a)}, &out));
    report(out.info == 7, format("%cpotrf not positive definite at 7: info=%d (LAPACK: 7)",
                                 Traits<T>::name, out.info));
}

template <typename T>
void getrf_case(int64_t m, int64_t n, bool zero_column_4 = false) {
    Random g(static_cast<uint64_t>(m * 131 + n));
    const int64_t k = std::min(m, n);
    Matrix<T> a(m, n, 2);
    for (auto& x : a.v) x = g.next<T>();  // the padding rows too
    if (zero_column_4) {
        for (int64_t i = 0; i < m; ++i) a(i, 3) = T(0);
    }
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(k), -1);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GETRF, .m = m, .n = n},
                          {inout(kSlotA, f), inout(kSlotIpiv, ipiv)}, &out));
    const bool one_based = pivots_in_range(ipiv, m);
    // The interchanges (1-based, in order) applied to the original A must give L U.
    Matrix<T> pa = a;
    for (int64_t i = 0; i < k && one_based; ++i) {
        if (ipiv[i] - 1 == i) continue;
        for (int64_t j = 0; j < n; ++j) std::swap(pa(i, j), pa(ipiv[i] - 1, j));
    }
    double err = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            T s = 0;
            for (int64_t p = 0; p <= std::min<int64_t>({i, j, k - 1}); ++p) {
                const T l = p == i ? T(1) : f(i, p);
                s += l * f(p, j);
            }
            err = std::max<double>(err, std::abs(s - pa(i, j)));
            norm = std::max<double>(norm, std::abs(a(i, j)));
        }
    }
    const double rel = err / norm / (static_cast<double>(std::max(m, n)) * Traits<T>::eps);
    const int want = zero_column_4 ? 4 : 0;
    report(out.info == want && one_based && out.padding_kept && rel < 10,
           format("%cgetrf m=%lld n=%lld%s: info=%d (want %d), pivots 1-based and in range=%d, "
                  "padding untouched=%d, |PA - LU|/(|A| n eps)=%.3g, ipiv[0..2]=%lld %lld %lld",
                  Traits<T>::name, static_cast<long long>(m), static_cast<long long>(n),
                  zero_column_4 ? " (column 4 zero)" : "", out.info, want, one_based,
                  out.padding_kept, rel, static_cast<long long>(ipiv[0]),
                  static_cast<long long>(ipiv[1]), static_cast<long long>(ipiv[2])));
}

template <typename T>
void getrf_classic_3x3() {
    Matrix<T> a(3, 3);
    a.v = {T(1), T(4), T(7), T(2), T(5), T(8), T(3), T(6), T(10)};
    std::vector<int64_t> ipiv(3, -1);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GETRF, .m = 3, .n = 3},
                          {inout(kSlotA, a), inout(kSlotIpiv, ipiv)}, &out));
    report(out.info == 0 && ipiv[0] == 3 && ipiv[1] == 3 && ipiv[2] == 3,
           format("%cgetrf [1 2 3; 4 5 6; 7 8 10]: info=%d, ipiv = %lld %lld %lld (LAPACK "
                  "1-based: 3 3 3; 0-based would be 2 2 2)",
                  Traits<T>::name, out.info, static_cast<long long>(ipiv[0]),
                  static_cast<long long>(ipiv[1]), static_cast<long long>(ipiv[2])));
}

// ---- large cases: matrix-vector residuals (O(n^2) on the host) ------------------------------

template <typename T>
void potrf_large(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 7 + uplo));
    // Hermitian, diagonally dominant: |a_ij| < sqrt(2) off the diagonal, a_ii = 2n.
    Matrix<T> a(n, n, 3);
    for (int64_t j = 0; j < n; ++j) {
        a(j, j) = T(2.0 * static_cast<double>(n));
        for (int64_t i = j + 1; i < n; ++i) {
            const T r = g.next<T>();
            a(i, j) = r;
            a(j, i) = conj_(r);
        }
    }
    Matrix<T> f = a;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_POTRF, .uplo = uplo, .n = n}, {inout(kSlotA, f)}, &out));
    const bool untouched = triangle_kept(a, f, uplo, false) && out.padding_kept;
    std::vector<T> x(static_cast<size_t>(n)), w(x.size(), T(0)), y(x.size(), T(0));
    for (auto& v : x) v = g.next<T>();
    double norm_a = 0;
    const std::vector<T> z = times(a, x, &norm_a);
    if (uplo == 'L') {  // y = L (L^H x)
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = k; i < n; ++i) w[k] += conj_(f(i, k)) * x[i];
        }
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = k; i < n; ++i) y[i] += f(i, k) * w[k];
        }
    } else {  // y = U^H (U x)
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = 0; i <= k; ++i) w[i] += f(i, k) * x[k];
        }
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = 0; i <= k; ++i) y[k] += conj_(f(i, k)) * w[i];
        }
    }
    const double rel = normwise(y, z, norm_a, max_abs(x), n);
    report(out.info == 0 && untouched && rel < 10,
           format("%cpotrf %c n=%lld (large): info=%d, untouched=%d, "
                  "|Ax - LL^H x|/(|A| |x| n eps)=%.3g, %.3f s",
                  Traits<T>::name, uplo, static_cast<long long>(n), out.info, untouched, rel,
                  out.seconds));
}

template <typename T>
void getrf_large(int64_t m, int64_t n) {
    Random g(static_cast<uint64_t>(m * 17 + n));
    const int64_t k = std::min(m, n);
    Matrix<T> a(m, n, 2);
    for (auto& v : a.v) v = g.next<T>();
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(k), -1);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GETRF, .m = m, .n = n},
                          {inout(kSlotA, f), inout(kSlotIpiv, ipiv)}, &out));
    const bool one_based = pivots_in_range(ipiv, m);
    std::vector<T> x(static_cast<size_t>(n)), w(static_cast<size_t>(k), T(0)),
        y(static_cast<size_t>(m), T(0));
    for (auto& v : x) v = g.next<T>();
    double norm_a = 0;
    std::vector<T> z = times(a, x, &norm_a);
    for (int64_t i = 0; i < k && one_based; ++i) std::swap(z[i], z[ipiv[i] - 1]);  // P A x
    for (int64_t j = 0; j < n; ++j) {  // w = U x (U: k x n, upper)
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i) w[i] += f(i, j) * x[j];
    }
    for (int64_t p = 0; p < k; ++p) {  // y = L w (L: m x k, unit lower)
        y[p] += w[p];
        for (int64_t i = p + 1; i < m; ++i) y[i] += f(i, p) * w[p];
    }
    const double rel = normwise(y, z, norm_a, max_abs(x), std::max(m, n));
    report(out.info == 0 && one_based && out.padding_kept && rel < 10,
           format("%cgetrf m=%lld n=%lld (large): info=%d, pivots 1-based and in range=%d, "
                  "padding untouched=%d, |PAx - LUx|/(|A| |x| n eps)=%.3g, %.3f s",
                  Traits<T>::name, static_cast<long long>(m), static_cast<long long>(n), out.info,
                  one_based, out.padding_kept, rel, out.seconds));
}

// ---- test matrices ----------------------------------------------------------------------------

// A random unitary (orthogonal) n x n matrix: a product of Householder reflections.
template <typename W>
Matrix<W> random_unitary(int64_t n, Random& g) {
    Matrix<W> q = identity<W>(n);
    std::vector<W> v(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
        double vv = 0;
        for (auto& x : v) {
            x = g.next<W>();
            vv += std::norm(x);
        }
        for (int64_t j = 0; j < n; ++j) {  // q = (I - 2 v v^H / v^H v) q
            W s = 0;
            for (int64_t i = 0; i < n; ++i) s += conj_(v[i]) * q(i, j);
            s *= 2 / vv;
            for (int64_t i = 0; i < n; ++i) q(i, j) -= v[i] * s;
        }
    }
    return q;
}

// A = B B^H + n I, Hermitian positive definite, both triangles set.
template <typename T>
Matrix<T> hpd_matrix(int64_t n, int64_t pad, Random& g) {
    const Matrix<Wide<T>> b = random_matrix<Wide<T>>(n, n, 0, g);
    const Matrix<Wide<T>> bbh = multiply(b, apply_op(b, 'C'));
    Matrix<T> a(n, n, pad);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            a(i, j) = static_cast<T>(i == j ? Wide<T>(std::real(bbh(i, i)) + static_cast<double>(n))
                                            : (i > j ? bbh(i, j) : conj_(bbh(j, i))));
        }
    }
    return a;
}

// The Hermitian matrix whose uplo triangle `m` holds; with `conjugate` false, the (complex)
// symmetric one.
template <typename T>
Matrix<Wide<T>> hermitian_from(const Matrix<T>& m, char uplo, bool conjugate = true) {
    Matrix<Wide<T>> h(m.rows, m.cols);
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            const auto mirrored = static_cast<Wide<T>>(m(j, i));
            h(i, j) = stored      ? static_cast<Wide<T>>(m(i, j))
                      : conjugate ? conj_(mirrored)
                                  : mirrored;
        }
    }
    return h;
}

// The uplo triangle of `full` (Hermitian), junk in the other one, padding rows below.
template <typename T, typename W>
Matrix<T> stored_triangle(const Matrix<W>& full, char uplo, int64_t pad) {
    const int64_t n = full.rows;
    Matrix<T> a(n, n, pad);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            a(i, j) = i == j ? T(std::real(full(i, i)))
                             : (stored ? static_cast<T>(full(i, j)) : T(kJunk));
        }
    }
    return a;
}

// Q diag(lambda) Q^H with a random unitary Q and known eigenvalues lambda, ascending and spaced
// 3/n from -1: its uplo triangle (junk in the other one, which the plugin must not read).
template <typename T>
Matrix<T> known_spectrum(int64_t n, char uplo, Random& g, std::vector<double>* lambda) {
    using W = Wide<T>;
    lambda->resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        (*lambda)[i] = -1.0 + 3.0 * static_cast<double>(i) / static_cast<double>(n);
    const Matrix<W> q = random_unitary<W>(n, g);
    return stored_triangle<T>(multiply(scale_columns(q, *lambda), apply_op(q, 'C')), uplo, 3);
}

// The triangular matrix that the uplo triangle of `m` holds (a unit diagonal for diag 'U').
template <typename T>
Matrix<Wide<T>> triangle_of(const Matrix<T>& m, char uplo, char diag) {
    Matrix<Wide<T>> t(m.rows, m.cols);
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            t(i, j) = i == j && diag == 'U' ? Wide<T>(1)
                      : stored              ? static_cast<Wide<T>>(m(i, j))
                                            : Wide<T>(0);
        }
    }
    return t;
}

// A well-conditioned triangle: diagonal 1 + |x| (junk where diag 'U' must not read it),
// entries below 1/n elsewhere in the triangle, junk in the other one.
template <typename T>
Matrix<T> triangular_matrix(int64_t n, int64_t pad, char uplo, char diag, Random& g) {
    Matrix<T> a(n, n, pad);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            const bool stored = uplo == 'L' ? i > j : i < j;
            if (i == j) {
                a(i, j) =
                    diag == 'U' ? T(kJunk) : T(1.0 + std::abs(g.uniform())) + g.next<T>() * T(0.1);
            } else {
                a(i, j) = stored ? g.next<T>() / T(static_cast<double>(n)) : T(kJunk);
            }
        }
    }
    return a;
}

// ---- the CPU LAPACK, for reference values (when the check finds one) ---------------------------

void* resolve_cpu_symbol(const char* name);  // the host services, below

constexpr size_t kFlagLength = 1;  // the hidden length of a CHARACTER*1 argument

template <typename T, typename... Args>
bool call_cpu(const char* name, Args... args) {
    const std::string symbol = std::string(1, Traits<T>::name) + name + "_";
    void* function = resolve_cpu_symbol(symbol.c_str());
    if (function == nullptr) return false;
    reinterpret_cast<void (*)(Args...)>(function)(args...);
    return true;
}

// `routine(work, lwork)` first as the workspace query (lwork -1), then with the workspace it
// asked for; false without a CPU LAPACK.
template <typename T, typename Routine>
bool with_workspace(Routine routine) {
    T query{};
    const int32_t ask = -1;
    if (!routine(&query, &ask)) return false;
    const int32_t lwork = std::max<int32_t>(1, static_cast<int32_t>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    return routine(work.data(), &lwork);
}

// The eigenvalues of the Hermitian matrix in the uplo triangle of `a`, by the CPU's
// ?syev/?heev (QR iteration, not SYEVD's divide and conquer); false without a CPU LAPACK.
template <typename T>
bool cpu_eigenvalues(Matrix<T> a, char uplo, std::vector<Real<T>>* w) {
    using Int = int32_t;
    const Int n = static_cast<Int>(a.rows), lda = static_cast<Int>(a.ld);
    const char jobz = 'N';
    w->assign(static_cast<size_t>(n), 0);
    std::vector<Real<T>> rwork(static_cast<size_t>(std::max<Int>(1, 3 * n - 2)));
    Int info = 0;
    return with_workspace<T>([&](T* work, const Int* lwork) {
               if constexpr (std::is_floating_point_v<T>) {
                   return call_cpu<T>("syev", &jobz, &uplo, &n, a.v.data(), &lda, w->data(), work,
                                      lwork, &info, kFlagLength, kFlagLength);
               } else {
                   return call_cpu<T>("heev", &jobz, &uplo, &n, a.v.data(), &lda, w->data(), work,
                                      lwork, rwork.data(), &info, kFlagLength, kFlagLength);
               }
           }) &&
           info == 0;
}

// The singular values of `a`, by the CPU's ?gesvd; false without a CPU LAPACK.
template <typename T>
bool cpu_singular_values(Matrix<T> a, std::vector<Real<T>>* s) {
    using Int = int32_t;
    const Int m = static_cast<Int>(a.rows), n = static_cast<Int>(a.cols),
              lda = static_cast<Int>(a.ld), one = 1;
    const char job = 'N';
    s->assign(static_cast<size_t>(std::min(m, n)), 0);
    std::vector<Real<T>> rwork(static_cast<size_t>(5 * std::max<Int>(1, std::min(m, n))));
    T unused{};
    Int info = 0;
    return with_workspace<T>([&](T* work, const Int* lwork) {
               if constexpr (std::is_floating_point_v<T>) {
                   return call_cpu<T>("gesvd", &job, &job, &m, &n, a.v.data(), &lda, s->data(),
                                      &unused, &one, &unused, &one, work, lwork, &info, kFlagLength,
                                      kFlagLength);
               } else {
                   return call_cpu<T>("gesvd", &job, &job, &m, &n, a.v.data(), &lda, s->data(),
                                      &unused, &one, &unused, &one, work, lwork, rwork.data(),
                                      &info, kFlagLength, kFlagLength);
               }
           }) &&
           info == 0;
}

// The generalized eigenvalues of (A, B) by the CPU's ?sygv/?hegv (QR iteration); false
// without a CPU LAPACK.
template <typename T>
bool cpu_generalized_eigenvalues(int64_t itype, Matrix<T> a, Matrix<T> b, char uplo,
                                 std::vector<Real<T>>* w) {
    using Int = int32_t;
    const Int type = static_cast<Int>(itype), n = static_cast<Int>(a.rows),
              lda = static_cast<Int>(a.ld), ldb = static_cast<Int>(b.ld);
    const char jobz = 'N';
    w->assign(static_cast<size_t>(n), 0);
    std::vector<Real<T>> rwork(static_cast<size_t>(std::max<Int>(1, 3 * n - 2)));
    Int info = 0;
    return with_workspace<T>([&](T* work, const Int* lwork) {
               if constexpr (std::is_floating_point_v<T>) {
                   return call_cpu<T>("sygv", &type, &jobz, &uplo, &n, a.v.data(), &lda, b.v.data(),
                                      &ldb, w->data(), work, lwork, &info, kFlagLength,
                                      kFlagLength);
               } else {
                   return call_cpu<T>("hegv", &type, &jobz, &uplo, &n, a.v.data(), &lda, b.v.data(),
                                      &ldb, w->data(), work, lwork, rwork.data(), &info,
                                      kFlagLength, kFlagLength);
               }
           }) &&
           info == 0;
}

// The eigenvalues of a general matrix by the CPU's ?geev (no vectors), as complex numbers;
// false without a CPU LAPACK.
template <typename T>
bool cpu_general_eigenvalues(Matrix<T> a, std::vector<std::complex<double>>* values) {
    using Int = int32_t;
    using R = Real<T>;
    const Int n = static_cast<Int>(a.rows), lda = static_cast<Int>(a.ld), one = 1;
    const char job = 'N';
    std::vector<R> wr(static_cast<size_t>(std::max<Int>(1, n))), wi(wr.size()),
        rwork(2 * wr.size());
    std::vector<T> w(wr.size());
    T unused{};
    Int info = 0;
    const bool ran = with_workspace<T>([&](T* work, const Int* lwork) {
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("geev", &job, &job, &n, a.v.data(), &lda, wr.data(), wi.data(),
                               &unused, &one, &unused, &one, work, lwork, &info, kFlagLength,
                               kFlagLength);
        } else {
            return call_cpu<T>("geev", &job, &job, &n, a.v.data(), &lda, w.data(), &unused, &one,
                               &unused, &one, work, lwork, rwork.data(), &info, kFlagLength,
                               kFlagLength);
        }
    });
    if (!ran || info != 0) return false;
    values->clear();
    for (Int i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>) {
            values->emplace_back(wr[i], wi[i]);
        } else {
            values->emplace_back(w[i]);
        }
    }
    return true;
}

// x and the residual norms of ?gels on the CPU; false without a CPU LAPACK.
template <typename T>
bool cpu_gels(Matrix<T> a, Matrix<T>* b) {
    using Int = int32_t;
    const Int m = static_cast<Int>(a.rows), n = static_cast<Int>(a.cols),
              nrhs = static_cast<Int>(b->cols), lda = static_cast<Int>(a.ld),
              ldb = static_cast<Int>(b->ld);
    const char trans = 'N';
    Int info = 0;
    return with_workspace<T>([&](T* work, const Int* lwork) {
               return call_cpu<T>("gels", &trans, &m, &n, &nrhs, a.v.data(), &lda, b->v.data(),
                                  &ldb, work, lwork, &info, kFlagLength);
           }) &&
           info == 0;
}

// x, s and the rank of ?gelsd on the CPU; false without a CPU LAPACK.
template <typename T>
bool cpu_gelsd(Matrix<T> a, Matrix<T>* b, double rcond, std::vector<Real<T>>* s, int* rank) {
    using Int = int32_t;
    using R = Real<T>;
    const Int m = static_cast<Int>(a.rows), n = static_cast<Int>(a.cols),
              nrhs = static_cast<Int>(b->cols), lda = static_cast<Int>(a.ld),
              ldb = static_cast<Int>(b->ld);
    const R r = static_cast<R>(rcond);
    Int info = 0, found = 0;
    s->assign(static_cast<size_t>(std::min(m, n)), 0);
    // The workspace query also answers RWORK's and IWORK's sizes, in their first elements.
    std::vector<R> rwork(1);
    std::vector<Int> iwork(1);
    const bool ran = with_workspace<T>([&](T* work, const Int* lwork) {
        if (*lwork != -1) {
            rwork.resize(static_cast<size_t>(std::max<Int>(1, static_cast<Int>(rwork[0]))));
            iwork.resize(static_cast<size_t>(std::max<Int>(1, iwork[0])));
        }
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a.v.data(), &lda, b->v.data(), &ldb,
                               s->data(), &r, &found, work, lwork, iwork.data(), &info);
        } else {
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a.v.data(), &lda, b->v.data(), &ldb,
                               s->data(), &r, &found, work, lwork, rwork.data(), iwork.data(),
                               &info);
        }
    });
    *rank = found;
    return ran && info == 0;
}

// A check of the plugin's values against the CPU's: its text, and whether it passed (true
// when no CPU LAPACK was found: said in the text).
template <typename R>
std::pair<bool, std::string> against_cpu(bool found, const std::vector<R>& values,
                                         const std::vector<R>& cpu, double scale, int64_t n,
                                         double eps, const char* label) {
    if (!found) return {true, "CPU comparison skipped (no CPU LAPACK)"};
    std::vector<double> reference(cpu.begin(), cpu.end());
    const double r = ratio(max_difference(values, reference), scale, n, eps);
    return {r < kBound, format("%s=%.3g", label, r)};
}

// ---- the other kinds, against what they mean ---------------------------------------------------
//
// Each check builds its inputs on the host, runs one operation on the plugin, and measures the
// result against what the operation means.

// ---- LU: GETRS, GESV, GETRI ------------------------------------------------------------------

template <typename T>
int plugin_getrf(Matrix<T>& f, std::vector<int64_t>& ipiv) {
    return factor<T>({.kind = GPUSHIM_GETRF, .m = f.rows, .n = f.cols},
                     {inout(kSlotA, f), inout(kSlotIpiv, ipiv)});
}

template <typename T>
void getrs_case(char trans, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 7 + nrhs + trans));
    const Matrix<T> a = random_matrix<T>(n, n, 3, g), b = random_matrix<T>(n, nrhs, 2, g);
    Matrix<T> f = a, x = b;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    CHECK_STATUS(plugin_getrf(f, ipiv));
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GETRS, .trans = trans, .n = n, .nrhs = nrhs},
                          {in(kSlotA, f), in(kSlotIpiv, ipiv), inout(kSlotB, x)}, &out));
    const double r = solve_ratio(apply_op(widen(a), trans), x, b);
    report(out.info == 0 && out.unchanged && out.padding_kept && r < kBound,
           format("%cgetrs trans=%c n=%lld nrhs=%lld: info=%d, a and ipiv unchanged=%d, padding "
                  "kept=%d, |op(A)X - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, trans, static_cast<long long>(n), static_cast<long long>(nrhs),
                  out.info, out.unchanged, out.padding_kept, r));
}

// zero_column: that column (1-based) of A is zero, so GETRF's INFO is that column.
template <typename T>
void gesv_case(int64_t n, int64_t nrhs, int64_t zero_column = 0) {
    Random g(static_cast<uint64_t>(n * 11 + nrhs));
    Matrix<T> a = random_matrix<T>(n, n, 3, g);
    if (zero_column > 0) {
        for (int64_t i = 0; i < n; ++i) a(i, zero_column - 1) = T(0);
    }
    const Matrix<T> b = random_matrix<T>(n, nrhs, 1, g);
    Matrix<T> f = a, x = b;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GESV, .n = n, .nrhs = nrhs},
                          {inout(kSlotA, f), inout(kSlotIpiv, ipiv), inout(kSlotB, x)}, &out));
    const bool pivots = pivots_in_range(ipiv, n);
    if (zero_column > 0) {  // b holds no solution: LAPACK's INFO is what counts
        report(
            out.info == zero_column && pivots && out.padding_kept,
            format("%cgesv n=%lld, column %lld zero: info=%d (want %lld, as GETRF), pivots in "
                   "range=%d, padding kept=%d",
                   Traits<T>::name, static_cast<long long>(n), static_cast<long long>(zero_column),
                   out.info, static_cast<long long>(zero_column), pivots, out.padding_kept));
        return;
    }
    const double r = solve_ratio(widen(a), x, b);
    report(out.info == 0 && pivots && out.padding_kept && r < kBound,
           format("%cgesv n=%lld nrhs=%lld: info=%d, pivots in range=%d, padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, static_cast<long long>(n), static_cast<long long>(nrhs),
                  out.info, pivots, out.padding_kept, r));
}

template <typename T>
void getri_case(int64_t n) {
    Random g(static_cast<uint64_t>(n * 13));
    const Matrix<T> a = random_matrix<T>(n, n, 2, g);
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    CHECK_STATUS(plugin_getrf(f, ipiv));
    Outcome out;
    CHECK_STATUS(
        stage<T>({.kind = GPUSHIM_GETRI, .n = n}, {inout(kSlotA, f), in(kSlotIpiv, ipiv)}, &out));
    const double r = inverse_ratio(widen(a), widen(f), Traits<T>::eps);
    report(out.info == 0 && out.unchanged && out.padding_kept && r < kBound,
           format("%cgetri n=%lld: info=%d, ipiv unchanged=%d, padding kept=%d, "
                  "|A inv(A) - I|/(|A||inv(A)| n eps)=%.3g",
                  Traits<T>::name, static_cast<long long>(n), out.info, out.unchanged,
                  out.padding_kept, r));
}

// ---- Cholesky: POTRS, POSV, POTRI -------------------------------------------------------------

template <typename T>
int plugin_potrf(Matrix<T>& f, char uplo) {
    return factor<T>({.kind = GPUSHIM_POTRF, .uplo = uplo, .n = f.rows}, {inout(kSlotA, f)});
}

template <typename T>
void potrs_case(char uplo, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 17 + uplo));
    const Matrix<T> a = hpd_matrix<T>(n, 3, g), b = random_matrix<T>(n, nrhs, 2, g);
    Matrix<T> f = a, x = b;
    CHECK_STATUS(plugin_potrf(f, uplo));
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_POTRS, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {in(kSlotA, f), inout(kSlotB, x)}, &out));
    const double r = solve_ratio(widen(a), x, b);
    report(out.info == 0 && out.unchanged && out.padding_kept && r < kBound,
           format("%cpotrs %c n=%lld nrhs=%lld: info=%d, a unchanged=%d, padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  out.info, out.unchanged, out.padding_kept, r));
}

// not_positive_definite: A's leading minor of order 7 is not, so POTRF's INFO is 7.
template <typename T>
void posv_case(char uplo, int64_t n, int64_t nrhs, bool not_positive_definite = false) {
    Random g(static_cast<uint64_t>(n * 19 + uplo));
    Matrix<T> a = hpd_matrix<T>(n, 2, g);
    if (not_positive_definite) make_indefinite_at(a, 7);
    const Matrix<T> b = random_matrix<T>(n, nrhs, 3, g);
    Matrix<T> f = a, x = b;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_POSV, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {inout(kSlotA, f), inout(kSlotB, x)}, &out));
    const bool kept = triangle_kept(a, f, uplo, false) && out.padding_kept;
    if (not_positive_definite) {
        report(out.info == 7 && kept,
               format("%cposv %c n=%lld, not positive definite at 7: info=%d (want 7, as POTRF), "
                      "other triangle and padding kept=%d",
                      Traits<T>::name, uplo, static_cast<long long>(n), out.info, kept));
        return;
    }
    const double r = solve_ratio(widen(a), x, b);
    report(out.info == 0 && kept && r < kBound,
           format("%cposv %c n=%lld nrhs=%lld: info=%d, other triangle and padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  out.info, kept, r));
}

template <typename T>
void potri_case(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 23 + uplo));
    const Matrix<T> a = hpd_matrix<T>(n, 2, g);
    Matrix<T> f = a;
    CHECK_STATUS(plugin_potrf(f, uplo));
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_POTRI, .uplo = uplo, .n = n}, {inout(kSlotA, f)}, &out));
    const double r = inverse_ratio(widen(a), hermitian_from(f, uplo), Traits<T>::eps);
    const bool kept = triangle_kept(a, f, uplo, false) && out.padding_kept;
    report(out.info == 0 && kept && r < kBound,
           format("%cpotri %c n=%lld: info=%d, other triangle and padding kept=%d, "
                  "|A inv(A) - I|/(|A||inv(A)| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), out.info, kept, r));
}

// ---- Bunch-Kaufman: SYTRF ---------------------------------------------------------------------
//
// LAPACK's SYTRF storage read back as an operator, independently of any LAPACK: A = L D L^T
// ('L') with L = P(1) L(1) P(2) L(2) ... over the blocks of D in increasing order, or
// A = U D U^T ('U') with U = P(n) U(n) ... over them in decreasing order. A block of D is 1 x 1
// where its ipiv entry is positive (P interchanges its row k and ipiv(k)), 2 x 2 where two
// adjacent entries are the same negative number (P interchanges -ipiv(k) with the block's
// second row for 'L', its first for 'U'). L(k) (U(k)) is the identity but for the block's
// columns below (above) the block, which hold the multipliers as stored. Complex means complex
// symmetric: transposes, no conjugates.

struct PivotBlock {
    int64_t start, size;
    int64_t swap_row, swap_with;  // 0-based
    int64_t v_first, v_last;      // the rows of the block's multipliers, [first, last)
};

// The blocks in the order of the product, or an empty list when ipiv breaks the convention.
std::vector<PivotBlock> pivot_blocks(const std::vector<int64_t>& ipiv, char uplo) {
    const auto n = static_cast<int64_t>(ipiv.size());
    const auto at = [&](int64_t k) { return ipiv[static_cast<size_t>(k)]; };
    std::vector<PivotBlock> blocks;
    for (int64_t step = 0; step < n;) {
        const int64_t k = uplo == 'L' ? step : n - 1 - step;
        // LAPACK interchanges a row with one not yet eliminated: below it for 'L', above it
        // for 'U' (SYTRI and SciPy's ldl rely on that).
        const auto ahead = [&](int64_t row, int64_t with) {
            return uplo == 'L' ? with >= row : with <= row;
        };
        PivotBlock b{};
        if (at(k) > 0 && at(k) <= n && ahead(k, at(k) - 1)) {
            b = {k, 1, k, at(k) - 1, 0, 0};
        } else {
            const int64_t partner = uplo == 'L' ? k + 1 : k - 1;
            if (at(k) >= 0 || -at(k) > n || partner < 0 || partner >= n || at(partner) != at(k) ||
                !ahead(partner, -at(k) - 1))
                return {};
            b = {std::min(k, partner), 2, partner, -at(k) - 1, 0, 0};
        }
        b.v_first = uplo == 'L' ? b.start + b.size : 0;
        b.v_last = uplo == 'L' ? n : b.start;
        blocks.push_back(b);
        step += b.size;
    }
    return blocks;
}

// The factored operator applied to x (with `absolute`: |L| |D| |L^T| |x|, the scale of its
// rounding errors).
template <typename W>
std::vector<W> apply_factored(const Matrix<W>& f, char uplo, const std::vector<PivotBlock>& blocks,
                              std::vector<W> x, bool absolute) {
    const auto entry = [&](int64_t i, int64_t j) {
        return absolute ? W(std::abs(f(i, j))) : f(i, j);
    };
    const auto value = [&](int64_t i) -> W& { return x[static_cast<size_t>(i)]; };
    if (absolute) {
        for (W& e : x) e = W(std::abs(e));
    }
    for (const PivotBlock& b : blocks) {  // L^T x = ... L(2)^T P(2) L(1)^T P(1) x
        std::swap(value(b.swap_row), value(b.swap_with));
        for (int64_t c = b.start; c < b.start + b.size; ++c) {
            for (int64_t i = b.v_first; i < b.v_last; ++i) value(c) += entry(i, c) * value(i);
        }
    }
    for (const PivotBlock& b : blocks) {  // D
        if (b.size == 1) {
            value(b.start) *= entry(b.start, b.start);
            continue;
        }
        const int64_t p = b.start, q = b.start + 1;
        const W off = uplo == 'L' ? entry(q, p) : entry(p, q);
        const W xp = value(p), xq = value(q);
        value(p) = entry(p, p) * xp + off * xq;
        value(q) = off * xp + entry(q, q) * xq;
    }
    for (auto b = blocks.rbegin(); b != blocks.rend(); ++b) {  // L z = P(1) L(1) P(2) L(2) ... z
        for (int64_t i = b->v_first; i < b->v_last; ++i) {
            for (int64_t c = b->start; c < b->start + b->size; ++c)
                value(i) += entry(i, c) * value(c);
        }
        std::swap(value(b->swap_row), value(b->swap_with));
    }
    return x;
}

// A random (complex) symmetric matrix in its uplo triangle, junk in the other; zero on the
// diagonal where `zero_diagonal` (2 x 2 pivots).
template <typename T>
Matrix<T> symmetric_triangle(char uplo, int64_t n, int64_t pad, bool zero_diagonal, Random& g) {
    Matrix<T> a = random_matrix<T>(n, n, pad, g);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            if (uplo == 'L' ? i < j : i > j) a(i, j) = T(kJunk);
            if (zero_diagonal && i == j) a(i, j) = T(0);
        }
    }
    return a;
}

// SYSV, and SYTRS with the plugin's own SYTRF factor: |A X - B|, the other triangle kept (SYSV),
// the factor and pivots unchanged (SYTRS); SYSV with a zero row and column 6: INFO > 0, as SYTRF.
template <typename T>
void sytrs_sysv_case(char uplo, int64_t n, int64_t nrhs, bool zero_diagonal) {
    Random g(static_cast<uint64_t>(n * 41 + uplo + nrhs + (zero_diagonal ? 3 : 0)));
    const Matrix<T> a = symmetric_triangle<T>(uplo, n, 3, zero_diagonal, g);
    const Matrix<T> b = random_matrix<T>(n, nrhs, 2, g);
    const Matrix<Wide<T>> full = hermitian_from(a, uplo, false);
    // SYSV first: its SYTRS step may be the first to need a larger workspace.
    Matrix<T> f = a, x = b;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), 0);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYSV, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {inout(kSlotA, f), inout(kSlotIpiv, ipiv), inout(kSlotB, x)}, &out));
    double r = solve_ratio(full, x, b);
    const bool kept = triangle_kept(a, f, uplo, false) && out.padding_kept;
    report(out.info == 0 && kept && !pivot_blocks(ipiv, uplo).empty() && r < kBound,
           format("%csysv %c n=%lld nrhs=%lld%s: info=%d, other triangle and padding kept=%d, "
                  "pivots in LAPACK's convention=%d, |AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  zero_diagonal ? " zero diagonal" : "", out.info, kept,
                  !pivot_blocks(ipiv, uplo).empty(), r));
    f = a;
    x = b;
    CHECK_STATUS(factor<T>({.kind = GPUSHIM_SYTRF, .uplo = uplo, .n = n},
                           {inout(kSlotA, f), inout(kSlotIpiv, ipiv)}));
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYTRS, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {in(kSlotA, f), in(kSlotIpiv, ipiv), inout(kSlotB, x)}, &out));
    r = solve_ratio(full, x, b);
    report(out.info == 0 && out.unchanged && out.padding_kept && r < kBound,
           format("%csytrs %c n=%lld nrhs=%lld%s: info=%d, a and ipiv unchanged=%d, padding "
                  "kept=%d, |AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  zero_diagonal ? " zero diagonal" : "", out.info, out.unchanged, out.padding_kept,
                  r));
    Matrix<T> singular = a;
    for (int64_t i = 0; i < n; ++i) {
        if (uplo == 'L' ? i >= 5 : i <= 5) singular(i, 5) = T(0);
        if (uplo == 'L' ? i <= 5 : i >= 5) singular(5, i) = T(0);
    }
    x = b;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYSV, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {inout(kSlotA, singular), inout(kSlotIpiv, ipiv), inout(kSlotB, x)},
                          &out));
    report(out.info > 0,
           format("%csysv %c n=%lld, row and column 6 zero: info=%d (want > 0, as SYTRF)",
                  Traits<T>::name, uplo, static_cast<long long>(n), out.info));
}

// SYTRI on the plugin's own SYTRF factor (with 2 x 2 blocks where `zero_diagonal`): |A inv(A) - I|
// from the inverse's uplo triangle, the other triangle kept, the pivots read only.
template <typename T>
void sytri_case(char uplo, int64_t n, bool zero_diagonal) {
    Random g(static_cast<uint64_t>(n * 37 + uplo + (zero_diagonal ? 5 : 0)));
    const Matrix<T> a = symmetric_triangle<T>(uplo, n, 2, zero_diagonal, g);
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), 0);
    CHECK_STATUS(factor<T>({.kind = GPUSHIM_SYTRF, .uplo = uplo, .n = n},
                           {inout(kSlotA, f), inout(kSlotIpiv, ipiv)}));
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYTRI, .uplo = uplo, .n = n},
                          {inout(kSlotA, f), in(kSlotIpiv, ipiv)}, &out));
    const double r = inverse_ratio(hermitian_from(a, uplo, false), hermitian_from(f, uplo, false),
                                   Traits<T>::eps);
    const bool kept = triangle_kept(a, f, uplo, false) && out.padding_kept;
    report(out.info == 0 && kept && out.unchanged && r < kBound,
           format("%csytri %c n=%lld%s: info=%d, other triangle and padding kept=%d, ipiv "
                  "unchanged=%d, |A inv(A) - I|/(|A||inv(A)| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n),
                  zero_diagonal ? " zero diagonal" : "", out.info, kept, out.unchanged, r));
}

// The CPU's ?sytrf factor of the uplo triangle of `a` (2 x 2 pivots where its diagonal is zero)
// and its pivots, widened to the interface's int64, and its INFO; false without a CPU LAPACK.
template <typename T>
bool cpu_sytrf(char uplo, Matrix<T>* a, std::vector<int64_t>* ipiv, int32_t* info) {
    using Int = int32_t;
    const Int n = static_cast<Int>(a->rows), lda = static_cast<Int>(a->ld);
    std::vector<Int> pivots(static_cast<size_t>(n), 0);
    const bool ran = with_workspace<T>([&](T* work, const Int* lwork) {
        return call_cpu<T>("sytrf", &uplo, &n, a->v.data(), &lda, pivots.data(), work, lwork, info,
                           kFlagLength);
    });
    ipiv->assign(pivots.begin(), pivots.end());
    return ran;
}

// The CPU's ?sytrs: B := A^-1 B with a SYTRF factor (int64 pivots narrowed to LAPACK's int);
// false without a CPU LAPACK.
template <typename T>
bool cpu_sytrs(char uplo, const Matrix<T>& factor, const std::vector<int64_t>& ipiv, Matrix<T>* b) {
    using Int = int32_t;
    const Int n = static_cast<Int>(factor.rows), lda = static_cast<Int>(factor.ld),
              nrhs = static_cast<Int>(b->cols), ldb = static_cast<Int>(b->ld);
    const std::vector<Int> pivots(ipiv.begin(), ipiv.end());
    Int info = 0;
    return call_cpu<T>("sytrs", &uplo, &n, &nrhs, factor.v.data(), &lda, pivots.data(), b->v.data(),
                       &ldb, &info, kFlagLength) &&
           info == 0;
}

// A SYTRF factor serves whichever side solves with it: the device's SYTRS and SYTRI take the
// CPU's ?sytrf factor (a program's SYTRF below its threshold, its SYTRS or SYTRI above), the
// CPU's ?sytrs takes the device's. 2 x 2 pivots (a zero diagonal) included, complex symmetric
// in c and z. On a GPU this is where cuSOLVER's layout would show if it were not LAPACK's; the
// emulation runs LAPACK's own routines, so there they agree by construction.
template <typename T>
void sytrf_factor_shared_with_the_cpu(char uplo, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 43 + uplo + nrhs));
    const Matrix<T> a = symmetric_triangle<T>(uplo, n, 2, true, g);
    const Matrix<T> b = random_matrix<T>(n, nrhs, 3, g);
    const Matrix<Wide<T>> full = hermitian_from(a, uplo, false);
    Matrix<T> cpu_factor = a;
    std::vector<int64_t> cpu_ipiv;
    int32_t cpu_info = -99;
    if (!cpu_sytrf<T>(uplo, &cpu_factor, &cpu_ipiv, &cpu_info)) {
        std::printf(
            "     %csytrf %c n=%lld: factors shared with the CPU not checked (no CPU "
            "LAPACK)\n",
            Traits<T>::name, uplo, static_cast<long long>(n));
        return;
    }
    const bool two_by_two_pivots =
        std::any_of(cpu_ipiv.begin(), cpu_ipiv.end(), [](int64_t pivot) { return pivot < 0; });
    if (cpu_info != 0 || !two_by_two_pivots) {
        report(false, format("%csytrf %c n=%lld zero diagonal: the CPU's factor has info=%d, "
                             "2 x 2 pivots=%d (want 0 and 1)",
                             Traits<T>::name, uplo, static_cast<long long>(n), cpu_info,
                             two_by_two_pivots));
        return;
    }
    Matrix<T> x = b;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYTRS, .uplo = uplo, .n = n, .nrhs = nrhs},
                          {in(kSlotA, cpu_factor), in(kSlotIpiv, cpu_ipiv), inout(kSlotB, x)},
                          &out));
    const double solved = solve_ratio(full, x, b);
    Matrix<T> inverse = cpu_factor;
    Outcome inverted;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYTRI, .uplo = uplo, .n = n},
                          {inout(kSlotA, inverse), in(kSlotIpiv, cpu_ipiv)}, &inverted));
    const double inverse_r =
        inverse_ratio(full, hermitian_from(inverse, uplo, false), Traits<T>::eps);
    Matrix<T> device_factor = a;
    std::vector<int64_t> device_ipiv(static_cast<size_t>(n), 0);
    CHECK_STATUS(factor<T>({.kind = GPUSHIM_SYTRF, .uplo = uplo, .n = n},
                           {inout(kSlotA, device_factor), inout(kSlotIpiv, device_ipiv)}));
    Matrix<T> cpu_x = b;
    const bool cpu_solved = cpu_sytrs<T>(uplo, device_factor, device_ipiv, &cpu_x);
    const double cpu_r = cpu_solved ? solve_ratio(full, cpu_x, b) : HUGE_VAL;
    report(out.info == 0 && inverted.info == 0 && solved < kBound && inverse_r < kBound &&
               cpu_r < kBound,
           format("%csytrf %c n=%lld zero diagonal, factors shared with the CPU: the device's "
                  "sytrs and sytri of ?sytrf's factor: info=%d %d, |AX - B|/(|A||X| n eps)=%.3g, "
                  "|A inv(A) - I|/(|A||inv(A)| n eps)=%.3g; ?sytrs of the device's factor: "
                  "ran=%d, |AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), out.info, inverted.info, solved,
                  inverse_r, cpu_solved, cpu_r));
}

// `zero_diagonal`: Bunch-Kaufman then takes 2 x 2 pivots (reported; at least one expected);
// `zero_row`: that row and column (1-based) are zero, so D is exactly singular: INFO > 0.
template <typename T>
void sytrf_case(char uplo, int64_t n, bool zero_diagonal, int64_t zero_row = 0) {
    Random g(static_cast<uint64_t>(n * 31 + uplo + (zero_diagonal ? 7 : 0) + zero_row));
    Matrix<T> a = symmetric_triangle<T>(uplo, n, 3, zero_diagonal, g);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            if (stored && (i == zero_row - 1 || j == zero_row - 1)) a(i, j) = T(0);
        }
    }
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), 0);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYTRF, .uplo = uplo, .n = n},
                          {inout(kSlotA, f), inout(kSlotIpiv, ipiv)}, &out));
    const bool kept = triangle_kept(a, f, uplo, false) && out.padding_kept;
    if (zero_row > 0) {
        report(out.info > 0 && kept,
               format("%csytrf %c n=%lld, row and column %lld zero: info=%d (want > 0), other "
                      "triangle and padding kept=%d",
                      Traits<T>::name, uplo, static_cast<long long>(n),
                      static_cast<long long>(zero_row), out.info, kept));
        return;
    }
    using W = Wide<T>;
    const std::vector<PivotBlock> blocks = pivot_blocks(ipiv, uplo);
    const int64_t two_by_two = std::count_if(blocks.begin(), blocks.end(),
                                             [](const PivotBlock& b) { return b.size == 2; });
    double r = std::numeric_limits<double>::infinity();
    if (!blocks.empty()) {
        const Matrix<W> wide_a = widen(a), wide_f = widen(f);
        std::vector<W> x(static_cast<size_t>(n));
        for (W& e : x) e = g.next<W>();
        const std::vector<W> product = apply_factored(wide_f, uplo, blocks, x, false);
        const std::vector<W> scale = apply_factored(wide_f, uplo, blocks, x, true);
        r = 0;
        for (int64_t i = 0; i < n; ++i) {
            W direct = 0;
            double direct_scale = 0;
            for (int64_t j = 0; j < n; ++j) {
                const bool stored = uplo == 'L' ? i >= j : i <= j;
                const W aij = stored ? wide_a(i, j) : wide_a(j, i);
                direct += aij * x[static_cast<size_t>(j)];
                direct_scale += std::abs(aij) * std::abs(x[static_cast<size_t>(j)]);
            }
            const auto k = static_cast<size_t>(i);
            const double e =
                std::abs(direct - product[k]) /
                ((direct_scale + std::abs(scale[k])) * static_cast<double>(n) * Traits<T>::eps);
            if (!(e <= r)) r = e;  // a NaN is the largest
        }
    }
    const bool pivots_exercised = !zero_diagonal || two_by_two > 0;
    report(out.info == 0 && kept && r < kBound && pivots_exercised,
           format("%csytrf %c n=%lld%s: info=%d, other triangle and padding kept=%d, pivots in "
                  "LAPACK's convention=%d (2x2 blocks: %lld), |A x - L D L^T x|/((|A||x| + "
                  "|L||D||L^T||x|) n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n),
                  zero_diagonal ? " zero diagonal" : "", out.info, kept, !blocks.empty(),
                  static_cast<long long>(two_by_two), r));
}

// ---- triangular: TRTRS, TRTRI -----------------------------------------------------------------

template <typename T>
void trtrs_case(char uplo, char trans, char diag, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 29 + uplo * 3 + trans * 5 + diag));
    const Matrix<T> a = triangular_matrix<T>(n, 2, uplo, diag, g);
    const Matrix<T> b = random_matrix<T>(n, nrhs, 3, g);
    Matrix<T> f = a, x = b;
    Outcome out;
    CHECK_STATUS(stage<T>(
        {.kind = GPUSHIM_TRTRS, .uplo = uplo, .trans = trans, .diag = diag, .n = n, .nrhs = nrhs},
        {in(kSlotA, f), inout(kSlotB, x)}, &out));
    const double r = solve_ratio(apply_op(triangle_of(a, uplo, diag), trans), x, b);
    const bool kept = out.unchanged && out.padding_kept;
    report(out.info == 0 && kept && r < kBound,
           format("%ctrtrs %c%c%c n=%lld nrhs=%lld: info=%d, a and padding unchanged=%d, "
                  "|op(A)X - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, trans, diag, static_cast<long long>(n),
                  static_cast<long long>(nrhs), out.info, kept, r));
}

template <typename T>
void trtri_case(char uplo, char diag, int64_t n) {
    Random g(static_cast<uint64_t>(n * 31 + uplo * 3 + diag));
    const Matrix<T> a = triangular_matrix<T>(n, 3, uplo, diag, g);
    Matrix<T> f = a;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_TRTRI, .uplo = uplo, .diag = diag, .n = n},
                          {inout(kSlotA, f)}, &out));
    const double r =
        inverse_ratio(triangle_of(a, uplo, diag), triangle_of(f, uplo, diag), Traits<T>::eps);
    // diag 'U': the diagonal is neither read nor written.
    const bool kept = triangle_kept(a, f, uplo, diag == 'U') && out.padding_kept;
    report(out.info == 0 && kept && r < kBound,
           format("%ctrtri %c%c n=%lld: info=%d, other triangle%s and padding kept=%d, "
                  "|T inv(T) - I|/(|T||inv(T)| n eps)=%.3g",
                  Traits<T>::name, uplo, diag, static_cast<long long>(n), out.info,
                  diag == 'U' ? ", diagonal" : "", kept, r));
}

// ---- QR: GEQRF, ORGQR, ORMQR ------------------------------------------------------------------

// Q (m x m) = H(1) ... H(k), H(i) = I - tau(i) v v^H, v(i) = 1, v below i in column i of f.
template <typename T>
Matrix<Wide<T>> explicit_q(const Matrix<T>& f, const std::vector<T>& tau, int64_t k) {
    using W = Wide<T>;
    const int64_t m = f.rows;
    Matrix<W> q = identity<W>(m);
    std::vector<W> v(static_cast<size_t>(m));
    for (int64_t i = k - 1; i >= 0; --i) {  // q = H(i) q
        for (int64_t p = 0; p < m; ++p) {
            v[p] = p < i ? W(0) : (p == i ? W(1) : static_cast<W>(f(p, i)));
        }
        const W t = static_cast<W>(tau[i]);
        for (int64_t j = 0; j < m; ++j) {
            W s = 0;
            for (int64_t p = i; p < m; ++p) s += conj_(v[p]) * q(p, j);
            s *= t;
            for (int64_t p = i; p < m; ++p) q(p, j) -= v[p] * s;
        }
    }
    return q;
}

// GEQRF of an m x n A, then ORGQR of its min(m, n) reflectors into the m x min(m, n) Q:
// Q orthonormal and A = Q R. extra_columns > 0: a second ORGQR, of n + extra_columns
// columns from the same reflectors (k < n), orthonormal too.
template <typename T>
void geqrf_orgqr_case(int64_t m, int64_t n, int64_t extra_columns = 0) {
    Random g(static_cast<uint64_t>(m * 37 + n));
    const int64_t k = std::min(m, n);
    const char* const orgqr = lapack_name<T>("orgqr", "ungqr");
    const Matrix<T> a = random_matrix<T>(m, n, 3, g);
    Matrix<T> f = a;
    std::vector<T> tau(static_cast<size_t>(k), T(kJunk));
    Outcome geqrf;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GEQRF, .m = m, .n = n},
                          {inout(kSlotA, f), inout(kSlotTau, tau)}, &geqrf));
    const bool geqrf_ok = geqrf.info == 0 && geqrf.padding_kept;
    // ORGQR's a: the reflectors, in the first k of `columns` columns (random after them).
    const auto orgqr_of = [&](Matrix<T> q, Outcome* out) {
        for (int64_t j = 0; j < k; ++j) {
            for (int64_t i = 0; i < m; ++i) q(i, j) = f(i, j);
        }
        const int status = stage<T>({.kind = GPUSHIM_ORGQR, .m = m, .n = q.cols, .k = k},
                                    {inout(kSlotA, q), in(kSlotTau, tau)}, out);
        return std::pair{status, q};
    };
    Outcome out;
    const auto [status, q] = orgqr_of(Matrix<T>(m, k, 3), &out);
    CHECK_STATUS(status);
    const auto wq = widen(q);
    Matrix<Wide<T>> r(k, n);  // R: the upper triangle (trapezoid) of GEQRF's output
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < k; ++i) r(i, j) = i <= j ? static_cast<Wide<T>>(f(i, j)) : 0.0;
    }
    const auto wa = widen(a);
    const double orthogonal = ratio(orthogonality(wq), 1, m, Traits<T>::eps);
    const double factored = ratio(distance1(multiply(wq, r), wa), norm1(wa), m, Traits<T>::eps);
    const bool kept = out.padding_kept && out.unchanged;
    report(
        geqrf_ok && out.info == 0 && kept && orthogonal < kBound && factored < kBound,
        format("%cgeqrf + %s %s: info=%d, padding kept and tau unchanged=%d, |Q^H Q - I|/(m "
               "eps)=%.3g, |A - QR|/(|A| m eps)=%.3g",
               Traits<T>::name, orgqr, shape(m, n).c_str(), out.info, kept, orthogonal, factored));
    if (extra_columns == 0) return;
    const int64_t columns = n + extra_columns;  // m >= columns > k reflectors
    const auto [status2, q2] = orgqr_of(random_matrix<T>(m, columns, 2, g), &out);
    CHECK_STATUS(status2);
    const double orthogonal2 = ratio(orthogonality(widen(q2)), 1, m, Traits<T>::eps);
    report(out.info == 0 && orthogonal2 < kBound,
           format("%c%s m=%lld n=%lld k=%lld: info=%d, |Q^H Q - I|/(m eps)=%.3g", Traits<T>::name,
                  orgqr, static_cast<long long>(m), static_cast<long long>(columns),
                  static_cast<long long>(k), out.info, orthogonal2));
}

// ORMQR with the k reflectors of a GEQRF of an nq x k matrix, against the explicit Q:
// side 'L': C is nq x nc, op(Q) C; side 'R': C is nc x nq, C op(Q).
template <typename T>
void ormqr_case(char side, char trans, int64_t nq, int64_t k, int64_t nc) {
    Random g(static_cast<uint64_t>(nq * 41 + k + side * 3 + trans));
    Matrix<T> f = random_matrix<T>(nq, k, 2, g);
    std::vector<T> tau(static_cast<size_t>(k));
    CHECK_STATUS(factor<T>({.kind = GPUSHIM_GEQRF, .m = nq, .n = k},
                           {inout(kSlotA, f), inout(kSlotTau, tau)}));
    const int64_t m = side == 'L' ? nq : nc, n = side == 'L' ? nc : nq;
    const Matrix<T> c = random_matrix<T>(m, n, 3, g);
    Matrix<T> result = c;
    Outcome out;
    CHECK_STATUS(
        stage<T>({.kind = GPUSHIM_ORMQR, .trans = trans, .side = side, .m = m, .n = n, .k = k},
                 {in(kSlotA, f), in(kSlotTau, tau), inout(kSlotB, result)}, &out));
    const auto q = apply_op(explicit_q(f, tau, k), trans);
    const auto wc = widen(c);
    const auto expected = side == 'L' ? multiply(q, wc) : multiply(wc, q);
    const double r = ratio(distance1(widen(result), expected), norm1(wc), nq, Traits<T>::eps);
    const bool read_only = out.unchanged && out.padding_kept;
    report(out.info == 0 && read_only && r < kBound,
           format("%c%s side=%c trans=%c %s k=%lld: info=%d, a, tau and padding unchanged=%d, "
                  "|result - explicit Q product|/(|C| m eps)=%.3g",
                  Traits<T>::name, lapack_name<T>("ormqr", "unmqr"), side, trans,
                  shape(m, n).c_str(), static_cast<long long>(k), out.info, read_only, r));
}

// ---- SYEVD, GESVD -----------------------------------------------------------------------------

// SYEVD of Q diag(lambda) Q^H (known_spectrum).
template <typename T>
void syevd_case(char jobz, char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 43 + jobz * 3 + uplo));
    std::vector<double> lambda;
    const Matrix<T> a = known_spectrum<T>(n, uplo, g, &lambda);
    const auto full = hermitian_from(a, uplo);  // what the plugin is given, exactly
    Matrix<T> v = a;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_SYEVD, .uplo = uplo, .jobz = jobz, .n = n},
                          {inout(kSlotA, v), inout(kSlotW, w)}, &out));
    const double eps = Traits<T>::eps, norm = norm1(full);
    const bool ascending = in_order(w, n);
    const double values = ratio(max_difference(w, lambda), norm, n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] = against_cpu(cpu_eigenvalues(a, uplo, &cpu), w, cpu, norm, n,
                                                eps, "|w - w_cpu|/(|A| n eps)");
    bool ok = out.info == 0 && ascending && values < kBound && cpu_ok && out.padding_kept;
    std::string vectors;
    if (jobz == 'V') {
        const auto [residual, orthogonal] = eigenvector_ratios(full, widen(v), w, eps);
        ok = ok && residual < kBound && orthogonal < kBound;
        vectors =
            format(", |AV - VW|/(|A| n eps)=%.3g, |V^H V - I|/(n eps)=%.3g", residual, orthogonal);
    }
    report(ok, format("%c%s jobz=%c uplo=%c n=%lld: info=%d, ascending=%d, padding kept=%d, "
                      "|w - lambda|/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, lapack_name<T>("syevd", "heevd"), jobz, uplo,
                      static_cast<long long>(n), out.info, ascending, out.padding_kept, values,
                      cpu_text.c_str(), vectors.c_str()));
}

// A = U0 diag(sigma) V0^H (m >= n) with random unitary U0, V0 and known, descending sigma.
template <typename T>
void gesvd_case(char jobu, char jobvt, int64_t m, int64_t n) {
    using W = Wide<T>;
    Random g(static_cast<uint64_t>(m * 47 + n + jobu * 3 + jobvt));
    std::vector<double> sigma(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        sigma[i] = 2.0 - 1.5 * static_cast<double>(i) / static_cast<double>(n);
    const Matrix<W> u0 = random_unitary<W>(m, g), v0 = random_unitary<W>(n, g);
    Matrix<W> us(m, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) us(i, j) = u0(i, j) * sigma[j];
    }
    const Matrix<T> a = rounded<T>(multiply(us, apply_op(v0, 'C')), 3);
    const auto full = widen(a);
    const bool has_u = jobu == 'A' || jobu == 'S', has_vt = jobvt == 'A' || jobvt == 'S';
    Matrix<T> f = a;
    Matrix<T> u(m, has_u ? (jobu == 'A' ? m : n) : 0, 2), vt(n, has_vt ? n : 0, 1);
    std::vector<Real<T>> s(static_cast<size_t>(n), Real<T>(-kJunk));
    Outcome out;
    CHECK_STATUS(
        stage<T>({.kind = GPUSHIM_GESVD, .jobu = jobu, .jobvt = jobvt, .m = m, .n = n},
                 {inout(kSlotA, f), inout(kSlotW, s), inout(kSlotU, u), inout(kSlotVT, vt)}, &out));
    const double eps = Traits<T>::eps;
    const bool descending = in_order(s, n, true);
    const double values = ratio(max_difference(s, sigma), sigma[0], n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] = against_cpu(cpu_singular_values(a, &cpu), s, cpu, sigma[0], n,
                                                eps, "|s - s_cpu|/(s_max n eps)");
    bool ok = out.info == 0 && descending && values < kBound && cpu_ok && out.padding_kept;
    // U's first n columns and VT, wherever the jobs put them.
    Matrix<W> left, right;
    std::string vectors;
    if (jobu != 'N') {
        left = jobu == 'O' ? block(f, m, n) : widen(u);
        const double orthogonal = ratio(orthogonality(left), 1, m, eps);
        ok = ok && orthogonal < kBound;
        vectors += format(", |U^H U - I|/(m eps)=%.3g (%lld columns)", orthogonal,
                          static_cast<long long>(left.cols));
    }
    if (jobvt != 'N') {
        right = jobvt == 'O' ? block(f, n, n) : widen(vt);
        const double orthogonal = ratio(orthogonality(apply_op(right, 'C')), 1, n, eps);
        ok = ok && orthogonal < kBound;
        vectors += format(", |VT VT^H - I|/(n eps)=%.3g", orthogonal);
    }
    if (jobu != 'N' && jobvt != 'N') {
        Matrix<W> left_s(m, n);
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) left_s(i, j) = left(i, j) * static_cast<double>(s[j]);
        }
        const double residual =
            ratio(distance1(multiply(left_s, right), full), norm1(full), n, eps);
        ok = ok && residual < kBound;
        vectors += format(", |A - U S VT|/(|A| n eps)=%.3g", residual);
    }
    report(ok, format("%cgesvd jobu=%c jobvt=%c %s: info=%d, descending=%d, padding kept=%d, "
                      "|s - sigma|/(s_max n eps)=%.3g, %s%s",
                      Traits<T>::name, jobu, jobvt, shape(m, n).c_str(), out.info, descending,
                      out.padding_kept, values, cpu_text.c_str(), vectors.c_str()));
}

// ---- SYEVR, SYGVD, GEEV, GELS -----------------------------------------------------------------

// X solving A X = B (square A), by Gaussian elimination with partial pivoting in double.
template <typename W>
Matrix<W> solve_dense(Matrix<W> a, Matrix<W> b) {
    const int64_t n = a.rows;
    for (int64_t k = 0; k < n; ++k) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; ++i) {
            if (std::abs(a(i, k)) > std::abs(a(p, k))) p = i;
        }
        for (int64_t j = 0; j < n; ++j) std::swap(a(k, j), a(p, j));
        for (int64_t j = 0; j < b.cols; ++j) std::swap(b(k, j), b(p, j));
        for (int64_t i = k + 1; i < n; ++i) {
            const W l = a(i, k) / a(k, k);
            for (int64_t j = k; j < n; ++j) a(i, j) -= l * a(k, j);
            for (int64_t j = 0; j < b.cols; ++j) b(i, j) -= l * b(k, j);
        }
    }
    for (int64_t j = 0; j < b.cols; ++j) {
        for (int64_t i = n - 1; i >= 0; --i) {
            W s = b(i, j);
            for (int64_t p = i + 1; p < n; ++p) s -= a(i, p) * b(p, j);
            b(i, j) = s / a(i, i);
        }
    }
    return b;
}

// SYEVR of Q diag(lambda) Q^H (known_spectrum): range 'A' all of them, 'V' the interval
// between lambda[9] and lambda[10] and between lambda[29] and lambda[30] (midpoints), which
// holds exactly lambda[10..29], 'I' il = 5, iu = 17. w has room for n values and u for n
// columns: what lies beyond the m found must stay as it was.
template <typename T>
void syevr_case(char jobz, char range, char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 61 + jobz * 7 + range * 3 + uplo));
    std::vector<double> lambda;
    const Matrix<T> a = known_spectrum<T>(n, uplo, g, &lambda);
    const auto full = hermitian_from(a, uplo);
    int64_t first = 0, count = n;  // the expected eigenvalues: lambda[first .. first + count)
    Call call{.kind = GPUSHIM_SYEVR, .uplo = uplo, .jobz = jobz, .range = range, .n = n};
    if (range == 'V') {
        first = 10;
        count = 20;
        call.vl = (lambda[9] + lambda[10]) / 2;
        call.vu = (lambda[29] + lambda[30]) / 2;
    } else if (range == 'I') {
        call.il = 5;
        call.iu = 17;
        first = call.il - 1;
        count = call.iu - call.il + 1;
    }
    Matrix<T> f = a;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    Matrix<T> u(n, jobz == 'V' ? n : 0, 2);
    std::vector<int64_t> found(1, -1);
    Outcome out;
    CHECK_STATUS(stage<T>(
        call, {inout(kSlotA, f), inout(kSlotW, w), inout(kSlotU, u), inout(kSlotFound, found)},
        &out));
    const char* const name = lapack_name<T>("syevr", "heevr");
    const double eps = Traits<T>::eps, norm = norm1(full);
    const int64_t m = found[0];
    if (m != count) {
        report(false, format("%c%s jobz=%c range=%c uplo=%c n=%lld: info=%d, found=%lld (want "
                             "%lld)",
                             Traits<T>::name, name, jobz, range, uplo, static_cast<long long>(n),
                             out.info, static_cast<long long>(m), static_cast<long long>(count)));
        return;
    }
    bool beyond = true;
    for (int64_t i = m; i < n; ++i) beyond = beyond && w[i] == Real<T>(-kJunk);
    const bool ascending = in_order(w, m);
    std::vector<Real<T>> wm(w.begin(), w.begin() + m);
    const std::vector<double> expected(lambda.begin() + first, lambda.begin() + first + m);
    const double values = ratio(max_difference(wm, expected), norm, n, eps);
    std::vector<Real<T>> cpu_all, cpu;
    const bool cpu_found = cpu_eigenvalues(a, uplo, &cpu_all);
    if (cpu_found) cpu.assign(cpu_all.begin() + first, cpu_all.begin() + first + m);
    const auto [cpu_ok, cpu_text] =
        against_cpu(cpu_found, wm, cpu, norm, n, eps, "|w - w_cpu|/(|A| n eps)");
    bool ok = out.info == 0 && ascending && beyond && values < kBound && cpu_ok && out.padding_kept;
    std::string vectors;
    if (jobz == 'V') {
        const auto [residual, orthogonal] = eigenvector_ratios(full, block(u, n, m), wm, eps);
        bool kept = out.padding_kept;  // and the columns beyond m, as made (all padding)
        for (int64_t j = m; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) kept = kept && u(i, j) == T(kPadding);
        }
        ok = ok && residual < kBound && orthogonal < kBound && kept;
        vectors = format(", u beyond m columns and padding kept=%d, |AZ - ZW|/(|A| n eps)=%.3g, "
                         "|Z^H Z - I|/(n eps)=%.3g",
                         kept, residual, orthogonal);
    }
    report(ok, format("%c%s jobz=%c range=%c uplo=%c n=%lld: info=%d, found=%lld, ascending=%d, "
                      "w beyond m kept=%d, |w - lambda|/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, name, jobz, range, uplo, static_cast<long long>(n), out.info,
                      static_cast<long long>(m), ascending, beyond, values, cpu_text.c_str(),
                      vectors.c_str()));
}

// SYGVD of a random Hermitian A and B = C C^H + n I, only the uplo triangles stored (junk in
// the others). itype 1: |A Z - B Z W|, Z^H B Z = I; 2: |A B Z - Z W|, Z^H B Z = I; 3:
// |B A Z - Z W|, Z^H inv(B) Z = I. b: B's Cholesky factor (|B - L L^H| or |B - U^H U|).
// not_positive_definite: B's leading minor of order 5 is not, so INFO = n + 5.
template <typename T>
void sygvd_case(int64_t itype, char jobz, char uplo, int64_t n, bool not_positive_definite = false) {
    using W = Wide<T>;
    Random g(static_cast<uint64_t>(n * 67 + itype * 11 + jobz * 5 + uplo));
    Matrix<W> h = random_matrix<W>(n, n, 0, g);
    for (int64_t j = 0; j < n; ++j) {  // Hermitian
        h(j, j) = W(std::real(h(j, j)));
        for (int64_t i = j + 1; i < n; ++i) h(j, i) = conj_(h(i, j));
    }
    const Matrix<T> a = stored_triangle<T>(h, uplo, 2);
    Matrix<T> b = stored_triangle<T>(widen(hpd_matrix<T>(n, 0, g)), uplo, 3);
    if (not_positive_definite) {  // in the uplo triangle only: the other keeps its junk
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) {
                if (uplo == 'L' ? i >= j : i <= j) b(i, j) = T(i == j ? 4 : 0);
            }
        }
        b(4, 4) = T(-1);
    }
    Matrix<T> f = a, fb = b;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    Outcome out;
    CHECK_STATUS(
        stage<T>({.kind = GPUSHIM_SYGVD, .uplo = uplo, .jobz = jobz, .n = n, .itype = itype},
                 {inout(kSlotA, f), inout(kSlotB, fb), inout(kSlotW, w)}, &out));
    const char* const name = lapack_name<T>("sygvd", "hegvd");
    const bool kept = triangle_kept(b, fb, uplo, false) && out.padding_kept;
    if (not_positive_definite) {
        report(out.info == n + 5 && kept,
               format("%c%s itype=%lld %c n=%lld, B not positive definite at 5: info=%d (want "
                      "%lld), other triangle and padding kept=%d",
                      Traits<T>::name, name, static_cast<long long>(itype), uplo,
                      static_cast<long long>(n), out.info, static_cast<long long>(n + 5), kept));
        return;
    }
    const double eps = Traits<T>::eps;
    const auto wa = hermitian_from(a, uplo), wb = hermitian_from(b, uplo);
    const bool ascending = in_order(w, n);
    const double w_max = max_abs(w);
    // The factor of B in fb's uplo triangle.
    const auto factor = triangle_of(fb, uplo, 'N');
    const auto llh = uplo == 'L' ? multiply(factor, apply_op(factor, 'C'))
                                 : multiply(apply_op(factor, 'C'), factor);
    const double cholesky = ratio(distance1(llh, wb), norm1(wb), n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] =
        against_cpu(cpu_generalized_eigenvalues(itype, a, b, uplo, &cpu), w, cpu, w_max, n, eps,
                    "|w - w_cpu|/(|w| n eps)");
    bool ok = out.info == 0 && ascending && kept && cholesky < kBound && cpu_ok;
    std::string vectors;
    if (jobz == 'V') {
        const auto z = widen(f);
        const auto zw = scale_columns(z, w);
        double residual = 0, normal = 0;
        if (itype == 1) {
            residual = ratio(distance1(multiply(wa, z), multiply(wb, zw)),
                             norm1(wa) * norm1(z) + norm1(wb) * norm1(z) * w_max, n, eps);
        } else {
            const auto product = itype == 2 ? multiply(wa, multiply(wb, z))
                                            : multiply(wb, multiply(wa, z));
            residual = ratio(distance1(product, zw),
                             norm1(wa) * norm1(wb) * norm1(z) + norm1(z) * w_max, n, eps);
        }
        const auto bz = itype == 3 ? solve_dense(wb, z) : multiply(wb, z);
        normal = ratio(identity_distance(multiply(apply_op(z, 'C'), bz)), 1, n, eps);
        ok = ok && residual < kBound && normal < kBound;
        vectors = format(", |%s|/(n eps)=%.3g, |Z^H %s Z - I|/(n eps)=%.3g",
                         itype == 1   ? "AZ - BZW"
                         : itype == 2 ? "ABZ - ZW"
                                      : "BAZ - ZW",
                         residual, itype == 3 ? "inv(B)" : "B", normal);
    }
    report(ok, format("%c%s itype=%lld jobz=%c uplo=%c n=%lld: info=%d, ascending=%d, other "
                      "triangle and padding kept=%d, |B - LL^H|/(|B| n eps)=%.3g, %s%s",
                      Traits<T>::name, name, static_cast<long long>(itype), jobz, uplo,
                      static_cast<long long>(n), out.info, ascending, kept, cholesky,
                      cpu_text.c_str(), vectors.c_str()));
}

// The largest distance between two multisets of complex numbers of the same size, matched
// greedily (each value to the nearest one not yet taken): for well separated values, the
// distance of the right matching.
double multiset_distance(const std::vector<std::complex<double>>& x,
                         std::vector<std::complex<double>> y) {
    if (x.size() != y.size()) return 1e300;
    double worst = 0;
    for (const auto& v : x) {
        size_t best = 0;
        for (size_t i = 1; i < y.size(); ++i) {
            if (std::abs(y[i] - v) < std::abs(y[best] - v)) best = i;
        }
        worst = std::max(worst, std::abs(y[best] - v));
        y.erase(y.begin() + static_cast<std::ptrdiff_t>(best));
    }
    return worst;
}

// GEEV of A = Q T Q^H: T is upper (quasi-)triangular with known eigenvalues on its diagonal
// (real: 2x2 blocks [a b; -b a] for the pairs a +- ib), moderately non-normal. The eigenvalues
// must equal the known ones and the CPU's (as multisets); real: LAPACK's pair convention (WI
// > 0 first, its conjugate next); jobz 'V': |A V - V W| with V in that convention, unit
// 2-norm columns whose largest component is real. paired: w and wi are one array (wi = w + n).
template <typename T>
void geev_case(char jobz, int64_t n, bool paired = false) {
    using W = Wide<T>;
    using C = std::complex<double>;
    constexpr bool real = std::is_floating_point_v<T>;
    Random g(static_cast<uint64_t>(n * 71 + jobz * 3 + (paired ? 1 : 0)));
    Matrix<W> t(n, n);
    std::vector<C> known;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) t(i, j) = i < j ? g.next<W>() * (0.5 / std::sqrt(n)) : W(0);
    }
    for (int64_t j = 0; j < n;) {
        const double a = -2.0 + 4.0 * static_cast<double>(j) / static_cast<double>(n);
        if (j + 1 < n && j % 4 == 0) {  // a conjugate pair, then (for real) its 2x2 block
            const double b = 0.3 + 0.05 * static_cast<double>(j);
            if constexpr (real) {
                t(j, j) = t(j + 1, j + 1) = a;
                t(j, j + 1) = b;
                t(j + 1, j) = -b;
            } else {
                t(j, j) = C(a, b);
                t(j + 1, j + 1) = C(a, -b);
                t(j + 1, j) = W(0);
            }
            known.emplace_back(a, b);
            known.emplace_back(a, -b);
            j += 2;
        } else {
            t(j, j) = W(a);
            known.emplace_back(a, 0.0);
            j += 1;
        }
    }
    const Matrix<W> q = random_unitary<W>(n, g);
    const Matrix<T> a = rounded<T>(multiply(q, multiply(t, apply_op(q, 'C'))), 2);
    const auto full = widen(a);
    Matrix<T> f = a;
    // Real: w and wi (or one array of 2n); complex: w of n complex values. The arrays that the
    // precision does not use are empty, so not given.
    std::vector<Real<T>> wr(static_cast<size_t>(real ? (paired ? 2 * n : n) : 0), Real<T>(-kJunk)),
        wi(static_cast<size_t>(real && !paired ? n : 0), Real<T>(-kJunk));
    std::vector<T> wc(static_cast<size_t>(real ? 0 : n), T(-kJunk));
    Matrix<T> vr(n, jobz == 'V' ? n : 0, 3);
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GEEV, .jobz = jobz, .n = n},
                          {inout(kSlotA, f), inout(paired ? kSlotWPair : kSlotW, wr),
                           inout(kSlotWI, wi), inout(kSlotW, wc), inout(kSlotU, vr)},
                          &out));
    if (real && paired) {
        wi.assign(wr.begin() + n, wr.end());
        wr.resize(static_cast<size_t>(n));
    }
    std::vector<C> values;
    bool convention = true;  // real: pairs adjacent, positive imaginary part first
    for (int64_t j = 0; j < n; ++j) {
        if constexpr (real) {
            values.emplace_back(wr[j], wi[j]);
            if (wi[j] > 0) {
                convention = convention && j + 1 < n && wi[j + 1] == -wi[j] && wr[j + 1] == wr[j];
            } else if (wi[j] < 0) {
                convention = convention && j > 0 && wi[j - 1] == -wi[j];
            }
        } else {
            values.emplace_back(wc[j]);
        }
    }
    const double eps = Traits<T>::eps, norm = norm1(full);
    const double to_known = ratio(multiset_distance(values, known), norm, n, eps);
    std::vector<C> cpu;
    const bool cpu_found = cpu_general_eigenvalues(a, &cpu);
    double to_cpu = 0;
    if (cpu_found) to_cpu = ratio(multiset_distance(values, cpu), norm, n, eps);
    const std::string cpu_text = cpu_found ? format("|w - w_cpu| (multisets)/(|A| n eps)=%.3g",
                                                    to_cpu)
                                           : "CPU comparison skipped (no CPU LAPACK)";
    bool ok =
        out.info == 0 && convention && to_known < kBound && to_cpu < kBound && out.padding_kept;
    std::string vectors;
    if (jobz == 'V') {
        Matrix<C> v(n, n);  // the eigenvectors as complex columns
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) {
                if constexpr (real) {
                    if (wi[j] > 0 && j + 1 < n) {
                        v(i, j) = C(vr(i, j), vr(i, j + 1));
                    } else if (wi[j] < 0 && j > 0) {
                        v(i, j) = C(vr(i, j - 1), -vr(i, j));
                    } else {
                        v(i, j) = C(vr(i, j), 0.0);
                    }
                } else {
                    v(i, j) = C(vr(i, j));
                }
            }
        }
        Matrix<C> ca(n, n), vw(n, n);
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) {
                ca(i, j) = C(full(i, j));
                vw(i, j) = v(i, j) * values[j];
            }
        }
        const double residual = ratio(distance1(multiply(ca, v), vw), norm * norm1(v), n, eps);
        double unit = 0;        // max | |v_j|_2 - 1 |
        double largest = 0;     // max over j of the smallest |Im| among v_j's largest entries
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0, big = 0;
            for (int64_t i = 0; i < n; ++i) {
                sum += std::norm(v(i, j));
                big = std::max(big, std::abs(v(i, j)));
            }
            unit = std::max(unit, std::abs(std::sqrt(sum) - 1));
            double imaginary = 1e300;  // among the entries within 0.1% of the largest
            for (int64_t i = 0; i < n; ++i) {
                if (std::abs(v(i, j)) >= big * (1 - 1e-3)) {
                    imaginary = std::min(imaginary, std::abs(v(i, j).imag()));
                }
            }
            largest = std::max(largest, imaginary);
        }
        const double unit_ratio = ratio(unit, 1, n, eps), largest_ratio = ratio(largest, 1, n, eps);
        ok = ok && residual < kBound && unit_ratio < kBound && largest_ratio < kBound;
        vectors = format(", |AV - VW|/(|A||V| n eps)=%.3g, unit norm (/(n eps))=%.3g, largest "
                         "component real (|Im|/(n eps))=%.3g",
                         residual, unit_ratio, largest_ratio);
    }
    report(ok, format("%cgeev jobz=%c n=%lld%s: info=%d, %spadding kept=%d, |w - known| "
                      "(multisets)/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, jobz, static_cast<long long>(n),
                      paired ? " (wi = w + n)" : "", out.info,
                      real ? (convention ? "pair convention=1, " : "pair convention=0, ") : "",
                      out.padding_kept, to_known, cpu_text.c_str(), vectors.c_str()));
}

// How well X (x's first n rows) solves min |A X - B| for an m x n A (m >= n):
// |A^H (A X - B)| / (|A| (|A||X| + |B|) m eps), and, for each column, how far its residual rows
// (n+1..m, where LAPACK leaves the components of the residual) are in 2-norm from |A x - b|,
// / ((|A||X| + |B|) m eps), the largest.
template <typename T>
std::pair<double, double> least_squares_ratios(const Matrix<T>& a, const Matrix<T>& b,
                                               const Matrix<T>& x) {
    using W = Wide<T>;
    const int64_t m = a.rows, n = a.cols, nrhs = b.cols;
    const auto wa = widen(a), wb = widen(b), wx = block(x, n, nrhs);
    Matrix<W> r = multiply(wa, wx);  // A X - B
    for (int64_t j = 0; j < nrhs; ++j) {
        for (int64_t i = 0; i < m; ++i) r(i, j) -= wb(i, j);
    }
    double residual_rows = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double tail = 0, full = 0;
        for (int64_t i = n; i < m; ++i) tail += std::norm(static_cast<W>(x(i, j)));
        for (int64_t i = 0; i < m; ++i) full += std::norm(r(i, j));
        residual_rows = std::max(residual_rows, std::abs(std::sqrt(tail) - std::sqrt(full)));
    }
    const double scale = norm1(wa) * norm1(wx) + norm1(wb), eps = Traits<T>::eps;
    return {ratio(norm1(multiply(apply_op(wa, 'C'), r)), norm1(wa) * scale, m, eps),
            ratio(residual_rows, scale, m, eps)};
}

// GELS ('N', m >= n) of a random A: X (b's first n rows) against the normal equations
// (|A^H (A X - B)|) and the CPU's ?gels; each column's residual rows (n+1..m) have the 2-norm
// of A x - b; a holds R (R^H R = A^H A).
template <typename T>
void gels_case(int64_t m, int64_t n, int64_t nrhs) {
    using W = Wide<T>;
    Random g(static_cast<uint64_t>(m * 73 + n * 5 + nrhs));
    const Matrix<T> a = random_matrix<T>(m, n, 2, g), b = random_matrix<T>(m, nrhs, 3, g);
    Matrix<T> f = a, x = b;
    Outcome out;
    CHECK_STATUS(stage<T>({.kind = GPUSHIM_GELS, .trans = 'N', .m = m, .n = n, .nrhs = nrhs},
                          {inout(kSlotA, f), inout(kSlotB, x)}, &out));
    const double eps = Traits<T>::eps;
    const auto [normal, rows] = least_squares_ratios(a, b, x);
    const auto wa = widen(a), wx = block(x, n, nrhs);
    Matrix<W> rf(n, n);  // R: the upper triangle of a's first n rows
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) rf(i, j) = i <= j ? static_cast<W>(f(i, j)) : W(0);
    }
    const double factor =
        ratio(distance1(multiply(apply_op(rf, 'C'), rf), multiply(apply_op(wa, 'C'), wa)),
              norm1(wa) * norm1(wa), m, eps);
    Matrix<T> cpu = b;
    const bool cpu_found = cpu_gels(a, &cpu);
    std::string cpu_text = "CPU comparison skipped (no CPU LAPACK)";
    double to_cpu = 0;
    if (cpu_found) {
        to_cpu = ratio(distance1(wx, block(cpu, n, nrhs)), norm1(wx), m, eps);
        cpu_text = format("|X - X_cpu|/(|X| m eps)=%.3g", to_cpu);
    }
    report(out.info == 0 && out.padding_kept && normal < kBound && rows < kBound &&
               factor < kBound && to_cpu < kBound,
           format("%cgels %s nrhs=%lld: info=%d, padding kept=%d, |A^H(AX - B)|/(|A|(|A||X| + "
                  "|B|) m eps)=%.3g, residual rows' norm against |Ax - b| (/(.. m eps))=%.3g, "
                  "|R^H R - A^H A|/(|A|^2 m eps)=%.3g, %s",
                  Traits<T>::name, shape(m, n).c_str(), static_cast<long long>(nrhs), out.info,
                  out.padding_kept, normal, rows, factor, cpu_text.c_str()));
}

// GELSD (m >= n) of a random A, of full rank or (deficient) with its last column equal to its
// first (rank n - 1), with the given rcond: the rank; s descending and equal to the CPU's
// ?gelsd's; X (b's first n rows) against the normal equations (|A^H (A X - B)|) and the CPU's
// minimum-norm solution (deficient: X's first and last rows equal, as the minimum norm
// makes them); with full rank, each column's residual rows (n+1..m) have the 2-norm of
// A x - b; the padding rows kept.
template <typename T>
void gelsd_case(int64_t m, int64_t n, int64_t nrhs, bool deficient, double rcond) {
    using R = Real<T>;
    Random g(static_cast<uint64_t>(m * 79 + n * 7 + nrhs + (deficient ? 1000 : 0)));
    Matrix<T> a = random_matrix<T>(m, n, 2, g);
    const Matrix<T> b = random_matrix<T>(m, nrhs, 3, g);
    if (deficient) {
        for (int64_t i = 0; i < m; ++i) a(i, n - 1) = a(i, 0);
    }
    const int64_t expected_rank = deficient ? n - 1 : n;
    Matrix<T> f = a, x = b;
    std::vector<R> s(static_cast<size_t>(n), R(kJunk));
    std::vector<int64_t> found(1, -1);
    Outcome out;
    CHECK_STATUS(stage<T>(
        {.kind = GPUSHIM_GELSD, .m = m, .n = n, .nrhs = nrhs, .rcond = rcond},
        {inout(kSlotA, f), inout(kSlotB, x), inout(kSlotW, s), inout(kSlotFound, found)}, &out));
    const double eps = Traits<T>::eps;
    const bool descending = in_order(s, n, true);
    const auto wx = block(x, n, nrhs);
    const auto [normal, full_rank_rows] = least_squares_ratios(a, b, x);
    const double rows = deficient ? 0 : full_rank_rows;  // the residual rows: full rank only
    double symmetric = 0;  // deficient: |x(1, :) - x(n, :)| / (|X| m eps)
    if (deficient) {
        for (int64_t j = 0; j < nrhs; ++j) {
            symmetric = std::max(symmetric, std::abs(wx(0, j) - wx(n - 1, j)));
        }
        symmetric = ratio(symmetric, norm1(wx), m, eps);
    }
    Matrix<T> cpu = b;
    std::vector<R> cpu_s;
    int cpu_rank = -1;
    const bool cpu_found = cpu_gelsd(a, &cpu, rcond, &cpu_s, &cpu_rank);
    const auto [s_ok, s_text] =
        against_cpu(cpu_found, s, cpu_s, cpu_s.empty() ? 0.0 : static_cast<double>(cpu_s[0]), n,
                    eps, "|s - s_cpu|/(s1 n eps)");
    std::string cpu_text = "X: CPU comparison skipped (no CPU LAPACK)";
    double to_cpu = 0;
    if (cpu_found) {
        to_cpu = ratio(distance1(wx, block(cpu, n, nrhs)), norm1(wx), m, eps);
        cpu_text = format("|X - X_cpu|/(|X| m eps)=%.3g, CPU rank=%d", to_cpu, cpu_rank);
    }
    const bool rank_ok = found[0] == expected_rank && (!cpu_found || cpu_rank == expected_rank);
    const std::string specific =
        deficient ? format("|x_1 - x_n|/(|X| m eps)=%.3g", symmetric)
                  : format("residual rows' norm against |Ax - b| (/(.. m eps))=%.3g", rows);
    report(
        out.info == 0 && rank_ok && descending && s_ok && out.padding_kept && normal < kBound &&
            rows < kBound && symmetric < kBound && to_cpu < kBound,
        format("%cgelsd %s nrhs=%lld rcond=%g%s: info=%d, rank=%lld (expected %lld), "
               "descending=%d, padding kept=%d, |A^H(AX - B)|/(|A|(|A||X| + |B|) m eps)=%.3g, "
               "%s, %s, %s",
               Traits<T>::name, shape(m, n).c_str(), static_cast<long long>(nrhs), rcond,
               deficient ? " (two equal columns)" : "", out.info, static_cast<long long>(found[0]),
               static_cast<long long>(expected_rank), descending, out.padding_kept, normal,
               specific.c_str(), s_text.c_str(), cpu_text.c_str()));
}

template <typename T>
void more_kinds() {
    const bool complex = !std::is_floating_point_v<T>;
    for (char trans : {'N', 'T', 'C'}) getrs_case<T>(trans, 70, 5);
    gesv_case<T>(70, 4);
    gesv_case<T>(64, 2, 4);  // singular: INFO = 4, as GETRF
    getri_case<T>(60);
    for (char uplo : {'L', 'U'}) {
        potrs_case<T>(uplo, 70, 3);
        posv_case<T>(uplo, 70, 3);
        potri_case<T>(uplo, 60);
        for (char diag : {'N', 'U'}) {
            for (char trans : {'N', 'T', 'C'}) trtrs_case<T>(uplo, trans, diag, 60, 4);
            trtri_case<T>(uplo, diag, 60);
        }
    }
    posv_case<T>('L', 40, 2, true);  // not positive definite: INFO = 7, as POTRF
    for (char uplo : {'L', 'U'}) {
        sytrf_case<T>(uplo, 70, false);
        sytrf_case<T>(uplo, 41, true);
        sytrf_case<T>(uplo, 30, false, 9);  // D exactly singular: INFO > 0
        sytri_case<T>(uplo, 60, false);
        sytri_case<T>(uplo, 45, true);
        sytrs_sysv_case<T>(uplo, 64, 3, false);
        sytrs_sysv_case<T>(uplo, 37, 1, true);
        // Many right-hand sides: SYSV's SYTRS may need more workspace than its SYTRF, which
        // then moves between the two steps (the emulation's does, from double precision on).
        sytrs_sysv_case<T>(uplo, 40, 2100, false);
        sytrf_factor_shared_with_the_cpu<T>(uplo, 150, 4);
    }
    geqrf_orgqr_case<T>(90, 60, 10);
    geqrf_orgqr_case<T>(50, 50);
    geqrf_orgqr_case<T>(40, 60);  // wide: Q is m x m, R m x n
    for (char side : {'L', 'R'}) {
        for (char trans : {'N', complex ? 'C' : 'T'}) ormqr_case<T>(side, trans, 70, 40, 30);
    }
    for (char uplo : {'L', 'U'}) {
        syevd_case<T>('V', uplo, 50);
        syevd_case<T>('N', uplo, 50);
    }
    gesvd_case<T>('A', 'A', 60, 40);
    gesvd_case<T>('S', 'S', 60, 40);
    gesvd_case<T>('O', 'S', 60, 40);
    gesvd_case<T>('S', 'O', 60, 40);
    gesvd_case<T>('N', 'N', 60, 40);
    gesvd_case<T>('A', 'N', 45, 45);
    for (char uplo : {'L', 'U'}) {
        for (char range : {'A', 'V', 'I'}) syevr_case<T>('V', range, uplo, 50);
    }
    for (char range : {'A', 'V', 'I'}) syevr_case<T>('N', range, 'L', 50);
    for (int64_t itype : {1, 2, 3}) {
        for (char uplo : {'L', 'U'}) sygvd_case<T>(itype, 'V', uplo, 40);
        sygvd_case<T>(itype, 'N', 'U', 40);
    }
    sygvd_case<T>(1, 'V', 'L', 30, true);  // B not positive definite at 5: INFO = n + 5
    geev_case<T>('V', 40);
    geev_case<T>('N', 40);
    if (!complex) geev_case<T>('V', 41, true);  // WR and WI in one array
    gels_case<T>(70, 40, 3);
    gels_case<T>(50, 50, 2);
    gels_case<T>(60, 1, 1);
    // GELSD: rcond < 0 and 0 (both machine epsilon, as LAPACK's), and with two equal columns
    // an rcond of sqrt(eps), far above the rounding of the zero singular value and far below
    // the smallest nonzero one.
    const double sqrt_eps = std::sqrt(Traits<T>::eps);
    gelsd_case<T>(70, 40, 3, false, -1.0);
    gelsd_case<T>(50, 50, 2, false, 0.0);
    gelsd_case<T>(60, 1, 1, false, -1.0);
    gelsd_case<T>(64, 30, 2, true, sqrt_eps);
    gelsd_case<T>(30, 30, 1, true, sqrt_eps);
}

// ---- larger calls of the new kinds: matrix-vector residuals (O(n^2) on the host) --------------

void gesv_large(int64_t n) {
    Random g(static_cast<uint64_t>(n * 53));
    const int64_t nrhs = 2;
    const Matrix<double> a = random_matrix<double>(n, n, 2, g),
                         b = random_matrix<double>(n, nrhs, 1, g);
    Matrix<double> f = a, x = b;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    Outcome out;
    CHECK_STATUS(stage<double>({.kind = GPUSHIM_GESV, .n = n, .nrhs = nrhs},
                               {inout(kSlotA, f), inout(kSlotIpiv, ipiv), inout(kSlotB, x)}, &out));
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        std::vector<double> xc(static_cast<size_t>(n)), z(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            xc[i] = x(i, c);
            z[i] = b(i, c);
        }
        double norm_a = 0;
        const std::vector<double> y = times(a, xc, &norm_a);
        worst = std::max(worst, normwise(y, z, norm_a, max_abs(xc), n));
    }
    report(out.info == 0 && worst < kBound,
           format("dgesv n=%lld nrhs=%lld (large): info=%d, |AX - B|/(|A||X| n eps)=%.3g, %.3f s",
                  static_cast<long long>(n), static_cast<long long>(nrhs), out.info, worst,
                  out.seconds));
}

void syevd_large(int64_t n) {
    Random g(static_cast<uint64_t>(n * 59));
    Matrix<double> a(n, n, 1);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j; i < n; ++i) a(i, j) = a(j, i) = g.uniform();
    }
    Matrix<double> v = a;
    std::vector<double> w(static_cast<size_t>(n));
    Outcome out;
    CHECK_STATUS(stage<double>({.kind = GPUSHIM_SYEVD, .uplo = 'L', .jobz = 'V', .n = n},
                               {inout(kSlotA, v), inout(kSlotW, w)}, &out));
    const bool ascending = in_order(w, n);
    // With y random: A (V y) against V (w .* y), and V^T (V y) against y.
    std::vector<double> y(static_cast<size_t>(n)), vy(static_cast<size_t>(n), 0.0),
        vwy(static_cast<size_t>(n), 0.0), vtvy(static_cast<size_t>(n), 0.0);
    for (auto& x : y) x = g.uniform();
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            vy[i] += v(i, j) * y[j];
            vwy[i] += v(i, j) * w[j] * y[j];
        }
    }
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) vtvy[j] += v(i, j) * vy[i];
    }
    double norm_a = 0;
    const std::vector<double> avy = times(a, vy, &norm_a);
    const double residual = normwise(avy, vwy, norm_a, max_abs(y), n);
    const double orthogonal = normwise(vtvy, y, 1.0, max_abs(y), n);
    report(
        out.info == 0 && ascending && residual < kBound && orthogonal < kBound,
        format("dsyevd jobz=V n=%lld (large): info=%d, ascending=%d, |AVy - VWy|/(|A||y| n "
               "eps)=%.3g, |V^T V y - y|/(|y| n eps)=%.3g, %.3f s",
               static_cast<long long>(n), out.info, ascending, residual, orthogonal, out.seconds));
}

template <typename T>
void small_cases() {
    getrf_classic_3x3<T>();
    potrf_case<T>('L', 300);
    potrf_case<T>('U', 300);
    potrf_case<T>('U', 7);
    potrf_not_positive_definite<T>();
    getrf_case<T>(300, 300);
    getrf_case<T>(350, 200);
    getrf_case<T>(200, 350);
    getrf_case<T>(64, 64, true);
}

// ---- host services ----------------------------------------------------------------------

// Only the host-simulated plugin asks for CPU symbols: it runs LAPACK on the CPU library
// (32-bit Fortran interface), as libgpushim.so's resolver would give it.
void* cpu_lapack() {
    static void* const handle = [] {
        for (const char* name : {"liblapack.so.3", "libopenblas.so.0"}) {
            if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
        }
        return static_cast<void*>(nullptr);
    }();
    return handle;
}

void* resolve_cpu_symbol(const char* name) {
    return cpu_lapack() != nullptr ? dlsym(cpu_lapack(), name) : nullptr;
}

// ---- what the CUDA plugin refuses ---------------------------------------------------------------

// The CUDA plugin's status for an operation beyond the int of a legacy cuSOLVER routine
// (kUnsupportedLapackSize in gpu/cuda/cuda_status.h, which needs the CUDA headers).
constexpr int kCudaUnsupportedLapackSize = 5;

// A call that the plugin must refuse before it touches any pointer: `given` are the operands
// given a (fake) pointer; INFO always is. `expected`: the status it must refuse with (0: any).
void refuse(const char* what, const Call& call, std::initializer_list<Slot> given,
            int expected = 0) {
    void* const fake = reinterpret_cast<void*>(uintptr_t{0x100});
    gpushim_lapack_op op = lapack_op<double>(call);
    for (const Slot slot : given) set_slot(op, slot, fake, 0);
    op.info = static_cast<int*>(fake);
    const int status = plugin->lapack(&op, queue);
    report(failed_for_this_call(status) && (expected == 0 || status == expected),
           format("%s refused: %d (%s)", what, status,
                  status != 0 ? plugin->describe_error(status) : "accepted"));
}

// With the host refusing the device memory the plugin would take for itself, a POTRF on a new
// queue (no workspace yet) fails (the CUDA plugin must have asked); allowed again, it succeeds.
void workspace_refused(bool cuda) {
    gpushim_queue fresh = nullptr;
    if (!create_queue(&fresh)) return;
    constexpr int64_t n = 64;
    constexpr size_t column_bytes = n * sizeof(double);
    std::vector<double> identity(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) identity[static_cast<size_t>(i * n + i)] = 1.0;
    DeviceBlock a, info;
    const auto potrf = [&] {
        int status = plugin->copy_to_device_2d(a.pointer, column_bytes, identity.data(),
                                               column_bytes, column_bytes, n, fresh);
        gpushim_lapack_op op{};
        op.kind = GPUSHIM_POTRF;
        op.precision = GPUSHIM_PREC_D;
        op.uplo = 'L';
        op.n = n;
        op.a = a.pointer;
        op.lda = n;
        op.info = static_cast<int*>(info.pointer);
        if (status == 0) status = plugin->lapack(&op, fresh);
        const int synchronized = plugin->queue_synchronize(fresh);
        return status != 0 ? status : synchronized;
    };
    if (plugin->device_alloc(&a.pointer, column_bytes * n) == 0 &&
        plugin->device_alloc(&info.pointer, sizeof(int)) == 0) {
        const size_t refused_before = account.refused;
        account.refusing = true;
        const int refused_status = potrf();
        account.refusing = false;
        const bool asked = account.refused > refused_before;
        // The CUDA plugin asks for every operation's first workspace (its scratch INFO).
        report(asked ? failed_for_this_call(refused_status) : !cuda,
               format("dpotrf on a new queue, its workspace refused by the host: %s -> %d",
                      asked ? "asked for" : "took nothing", refused_status));
        const int status = potrf();
        report(status == 0, format("the same dpotrf, allowed: %d", status));
    } else {
        report(false, "device memory for the dpotrf with its workspace refused");
    }
    destroy_queue(fresh);
}

// A null ipiv would make cuSOLVER factor without pivoting; a GESVD that cuSOLVER cannot compute
// (m < n, or both jobs 'O'), and the like, would be run with a different meaning; a malformed
// range has none. Each call differs from the one before it in what makes it refused.
void refusals() {
    refuse("dgetrf with a null ipiv", {.kind = GPUSHIM_GETRF, .m = 4, .n = 4, .lda = 4}, {kSlotA});
    Call lu{.kind = GPUSHIM_GETRS, .trans = 'N', .n = 4, .nrhs = 4, .lda = 4, .ldb = 4};
    refuse("dgetrs with a null ipiv", lu, {kSlotA, kSlotB});
    lu.kind = GPUSHIM_GESV;
    lu.trans = 0;
    refuse("dgesv with a null ipiv", lu, {kSlotA, kSlotB});
    refuse("dgetri with a null ipiv", {.kind = GPUSHIM_GETRI, .n = 4, .lda = 4}, {kSlotA});
    refuse("dsytrf with a null ipiv", {.kind = GPUSHIM_SYTRF, .uplo = 'L', .n = 4, .lda = 4},
           {kSlotA});
    refuse("dsytri with a null ipiv", {.kind = GPUSHIM_SYTRI, .uplo = 'U', .n = 4, .lda = 4},
           {kSlotA});
    Call bk{.kind = GPUSHIM_SYTRS, .uplo = 'L', .n = 4, .nrhs = 2, .lda = 4, .ldb = 4};
    refuse("dsytrs with a null ipiv", bk, {kSlotA, kSlotB});
    bk.kind = GPUSHIM_SYSV;
    refuse("dsysv with a null ipiv", bk, {kSlotA, kSlotB});
    Call svd{.kind = GPUSHIM_GESVD,
             .jobu = 'S',
             .jobvt = 'S',
             .m = 3,
             .n = 4,
             .lda = 4,
             .ldu = 4,
             .ldvt = 4};
    refuse("dgesvd with m < n", svd, {kSlotA, kSlotB, kSlotW, kSlotU, kSlotVT});
    svd.jobu = svd.jobvt = 'O';
    svd.m = svd.lda = svd.ldu = 5;
    refuse("dgesvd with both jobs 'O'", svd, {kSlotA, kSlotB, kSlotW, kSlotU, kSlotVT});
    Call ev{.kind = GPUSHIM_SYEVR,
            .uplo = 'L',
            .jobz = 'V',
            .range = 'I',
            .n = 4,
            .il = 3,
            .iu = 2,
            .lda = 4,
            .ldu = 4};
    refuse("dsyevr with il > iu", ev, {kSlotA, kSlotW, kSlotU, kSlotFound});
    ev.il = 1;
    ev.iu = 5;
    refuse("dsyevr with iu > n", ev, {kSlotA, kSlotW, kSlotU, kSlotFound});
    ev.range = 'V';
    ev.vl = ev.vu = 1;
    refuse("dsyevr with vl = vu", ev, {kSlotA, kSlotW, kSlotU, kSlotFound});
    ev.range = 'X';
    refuse("dsyevr with range 'X'", ev, {kSlotA, kSlotW, kSlotU, kSlotFound});
    ev.range = 'A';
    refuse("dsyevr with a null found", ev, {kSlotA, kSlotW, kSlotU});
    refuse(
        "dsygvd with itype 4",
        {.kind = GPUSHIM_SYGVD, .uplo = 'U', .jobz = 'V', .n = 4, .itype = 4, .lda = 4, .ldb = 4},
        {kSlotA, kSlotB, kSlotW});
    // Refused for its size before its arrays are touched (the slots are not device memory).
    refuse("dsygvd of order 32767 (its int workspace count may have wrapped)",
           {.kind = GPUSHIM_SYGVD,
            .uplo = 'U',
            .jobz = 'V',
            .n = 32767,
            .itype = 1,
            .lda = 32767,
            .ldb = 32767},
           {kSlotA, kSlotB, kSlotW}, kCudaUnsupportedLapackSize);
    refuse("dpotri of order 46341 (an int workspace count growing like n^2 may have wrapped)",
           {.kind = GPUSHIM_POTRI, .uplo = 'L', .n = 46341, .lda = 46341}, {kSlotA},
           kCudaUnsupportedLapackSize);
    refuse("dsytri of order 65536 (its packed triangle has more elements than an int counts)",
           {.kind = GPUSHIM_SYTRI, .uplo = 'L', .n = 65536, .lda = 65536}, {kSlotA, kSlotIpiv},
           kCudaUnsupportedLapackSize);
    refuse("dgeev with a null wi", {.kind = GPUSHIM_GEEV, .jobz = 'V', .n = 4, .lda = 4, .ldu = 4},
           {kSlotA, kSlotW, kSlotU});
    Call ls{.kind = GPUSHIM_GELS, .trans = 'N', .m = 3, .n = 4, .nrhs = 1, .lda = 4, .ldb = 4};
    refuse("dgels with m < n", ls, {kSlotA, kSlotB});
    ls.m = ls.lda = ls.ldb = 5;
    ls.trans = 'T';
    refuse("dgels with trans 'T'", ls, {kSlotA, kSlotB});
    Call lsd{.kind = GPUSHIM_GELSD, .m = 3, .n = 4, .nrhs = 1, .rcond = -1, .lda = 4, .ldb = 4};
    refuse("dgelsd with m < n", lsd, {kSlotA, kSlotB, kSlotW, kSlotFound});
    lsd.m = lsd.lda = lsd.ldb = 5;
    refuse("dgelsd with a null found", lsd, {kSlotA, kSlotB, kSlotW});
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    int64_t large_n = 1024;
    const auto large_n_option = [&](char** args, int left) {
        if (std::strcmp(args[0], "--large-n") != 0 || left < 2) return 0;
        large_n = std::strtoll(args[1], nullptr, 10);
        return large_n < 8 ? 0 : 2;
    };
    const char* path =
        plugin_path(argc, argv, "plugin_lapack_check [--large-n N] PLUGIN.so", large_n_option);
    if (path == nullptr || !load_plugin(path)) return 1;
    const bool hostsim = std::strcmp(plugin->name, "hostsim") == 0;
    const bool cuda = std::strcmp(plugin->name, "cuda") == 0;
    // The routines the host-simulated plugin runs (and the check's own references).
    bool cpu_lapack_found = true;
    for (const char prefix : {'s', 'd', 'c', 'z'}) {
        const bool complex = prefix == 'c' || prefix == 'z';
        for (const char* routine :
             {"potrf", "getrf", "getrs", "gesv", "getri", "potrs", "posv", "potri", "trtrs",
              "trtri", "geqrf", complex ? "ungqr" : "orgqr", complex ? "unmqr" : "ormqr",
              complex ? "heevd" : "syevd", complex ? "heev" : "syev", "gesvd",
              complex ? "heevr" : "syevr", complex ? "hegvd" : "sygvd", complex ? "hegv" : "sygv",
              "geev", "gels", "gelsd"}) {
            const std::string name = std::string(1, prefix) + routine + "_";
            if (resolve_cpu_symbol(name.c_str()) != nullptr) continue;
            if (hostsim) {
                std::printf(
                    "SKIP: the host-simulated plugin needs a CPU LAPACK "
                    "(liblapack.so.3 or libopenblas.so.0) with %s\n",
                    name.c_str());
                return kSkipped;
            }
            cpu_lapack_found = false;
        }
    }
    if (!init_plugin(resolve_cpu_symbol)) return kSkipped;
    std::printf("plugin %s (%s): %s; large n = %lld\n", plugin->name, path,
                plugin->device_description(), static_cast<long long>(large_n));
    if (!create_queue(&queue)) return 1;
    size_t free_at_start = 0, total = 0;
    plugin->memory_info(&free_at_start, &total);

    allocation_beyond_the_device();
    small_cases<float>();
    small_cases<double>();
    small_cases<std::complex<float>>();
    small_cases<std::complex<double>>();
    if (!cpu_lapack_found) {
        std::printf(
            "     no CPU LAPACK (liblapack.so.3, libopenblas.so.0): the eigenvalues and "
            "singular values are checked against known ones only\n");
    }
    more_kinds<float>();
    more_kinds<double>();
    more_kinds<std::complex<float>>();
    more_kinds<std::complex<double>>();
    // Larger calls on the same queue: workspaces grow (and a time, for scale).
    potrf_large<double>('L', large_n);
    potrf_large<std::complex<double>>('U', large_n * 3 / 4);
    // cuSOLVER's blocked SYTRF, at orders that offload, and one no block size divides.
    sytrf_case<double>('L', large_n, false);
    sytrf_case<double>('U', large_n / 2 + 3, false);
    sytrf_case<std::complex<double>>('U', large_n / 2, false);
    sytrf_case<std::complex<double>>('L', large_n / 4 + 5, false);
    // Xsytrs (SYTRI solves on an identity), at orders whose checks (an O(n^3) product on the
    // host for SYTRI) stay within seconds at --large-n 8192.
    sytri_case<double>('U', large_n / 8 + 3, true);
    sytri_case<std::complex<double>>('L', large_n / 16 + 5, false);
    sytrs_sysv_case<double>('L', large_n / 8 + 1, large_n / 64, true);
    getrf_large<double>(large_n, large_n);
    getrf_large<double>(large_n / 2, large_n / 4);  // after growth: the workspace is reused
    gesv_large(large_n);
    syevd_large(large_n / 4);
    if (cuda) refusals();
    // What the queue kept for its operations is given back, and reserved again by the next.
    const size_t held = account.held;
    const int released = plugin->queue_release_workspaces(queue);
    report(released == 0 && account.held == 0 && (held > 0 || !cuda),
           format("queue_release_workspaces -> %d: %zu of the %zu bytes taken still held", released,
                  account.held, held));
    potrf_large<double>('U', 300);
    report(account.held > 0 || !cuda,
           format("the next operation reserves its workspace again: %zu bytes", account.held));
    workspace_refused(cuda);
    size_t free_after = 0;
    plugin->memory_info(&free_after, &total);
    std::printf("     device memory held by the queue after the run (workspaces): %.1f MiB\n",
                (static_cast<double>(free_at_start) - static_cast<double>(free_after)) / (1 << 20));
    destroy_queue(queue);
    size_t free_at_end = 0;
    plugin->memory_info(&free_at_end, &total);
    std::printf(
        "     device memory after queue_destroy, against the start: %.1f MiB\n",
        (static_cast<double>(free_at_start) - static_cast<double>(free_at_end)) / (1 << 20));
    return finish();
}
