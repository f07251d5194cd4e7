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
//   - all four precisions; then larger calls on the same queue (dpotrf 'L' n, zpotrf 'U'
//     3n/4, dgetrf n x n, dgesv n, dsyevd n/4, with n from --large-n), which make a
//     plugin's workspaces grow, checked by matrix-vector residuals (A x against
//     L (L^H x), P A x against L (U x), A X against B, A V y against V W y);
//   - the CUDA plugin only: GETRF, GETRS, GESV and GETRI with a null ipiv are refused
//     (cuSOLVER would go without pivoting), and so is a GESVD it cannot compute (m < n,
//     both jobs 'O'), a SYEVR with a malformed range or no found, a SYGVD of itype 4, a
//     real GEEV without wi, a GELS with m < n or trans 'T', a GELSD with m < n or no found;
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
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
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

gpushim_lapack_op potrf_op(gpushim_precision precision, char uplo, int64_t n, int64_t lda) {
    gpushim_lapack_op op{};
    op.kind = GPUSHIM_POTRF;
    op.precision = precision;
    op.uplo = uplo;
    op.n = n;
    op.lda = lda;
    return op;
}

gpushim_lapack_op getrf_op(gpushim_precision precision, int64_t m, int64_t n, int64_t lda) {
    gpushim_lapack_op op{};
    op.kind = GPUSHIM_GETRF;
    op.precision = precision;
    op.m = m;
    op.n = n;
    op.lda = lda;
    return op;
}

// Where run() puts the device copy of an operand.
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

// A host array: `rows` rows of `row_bytes` (a matrix: its columns, of ld elements each).
struct Operand {
    Slot slot;
    void* host;
    size_t row_bytes;
    size_t rows;
};

template <typename V>
Operand operand(Slot slot, std::vector<V>& vector) {
    return {slot, vector.data(), sizeof(V) * vector.size(), 1};
}

// Runs `op` on device copies of the operands, copies every operand back (inputs too, so that
// a read-only one can be checked unchanged) and INFO, which starts as -99 so that a plugin
// that never sets it is seen. `seconds`: the lapack call alone.
int run(gpushim_lapack_op op, std::initializer_list<Operand> operands, int* info,
        double* seconds = nullptr) {
    std::array<DeviceBlock, 8> blocks;
    if (operands.size() > blocks.size()) return -1;
    DeviceBlock dev_info;
    int s = 0;
    size_t used = 0;
    for (const Operand& o : operands) {
        DeviceBlock& block = blocks[used++];
        if (s == 0) s = plugin->device_alloc(&block.pointer, o.row_bytes * o.rows);
        if (s == 0) {
            s = plugin->copy_to_device_2d(block.pointer, o.row_bytes, o.host, o.row_bytes,
                                          o.row_bytes, o.rows, queue);
        }
        if (s == 0) set_slot(op, o.slot, block.pointer, o.row_bytes * o.rows);
    }
    *info = -99;
    if (s == 0) s = plugin->device_alloc(&dev_info.pointer, sizeof(int));
    if (s == 0) {
        s = plugin->copy_to_device_2d(dev_info.pointer, sizeof(int), info, sizeof(int), sizeof(int),
                                      1, queue);
    }
    if (s == 0) s = plugin->queue_synchronize(queue);
    op.info = static_cast<int*>(dev_info.pointer);
    const auto t0 = std::chrono::steady_clock::now();
    if (s == 0) s = plugin->lapack(&op, queue);
    if (s == 0) s = plugin->queue_synchronize(queue);
    if (seconds != nullptr) {
        *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    used = 0;
    for (const Operand& o : operands) {
        const DeviceBlock& block = blocks[used++];
        if (s == 0) {
            s = plugin->copy_to_host_2d(o.host, o.row_bytes, block.pointer, o.row_bytes,
                                        o.row_bytes, o.rows, queue);
        }
    }
    if (s == 0) {
        s = plugin->copy_to_host_2d(info, sizeof(int), dev_info.pointer, sizeof(int), sizeof(int),
                                    1, queue);
    }
    if (s == 0) s = plugin->queue_synchronize(queue);
    return s;
}

// Runs `op` on a device copy of the column-major host matrix `a` (lda x n) and copies a,
// the pivots (when `ipiv` is given) and INFO back.
template <typename T>
int run_op(gpushim_lapack_op op, std::vector<T>& a, std::vector<int64_t>* ipiv, int* info,
           double* seconds) {
    const Operand matrix{kSlotA, a.data(), sizeof(T) * static_cast<size_t>(op.lda),
                         static_cast<size_t>(op.n)};
    if (ipiv != nullptr) return run(op, {matrix, operand(kSlotIpiv, *ipiv)}, info, seconds);
    return run(op, {matrix}, info, seconds);
}

// ---- small cases: exact residuals (O(n^3) on the host) --------------------------------------

template <typename T>
void potrf_case(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 31 + uplo));
    const int64_t lda = n + 3;
    std::vector<T> b(static_cast<size_t>(n * n)), a(static_cast<size_t>(lda * n));
    for (auto& x : b) x = g.next<T>();
    for (int64_t j = 0; j < n; ++j) {  // A = B B^H + n I; padding rows hold junk
        for (int64_t i = 0; i < lda; ++i) {
            if (i >= n) {
                a[i + j * lda] = T(777);
                continue;
            }
            T s = (i == j) ? T(static_cast<double>(n)) : T(0);
            for (int64_t k = 0; k < n; ++k) s += b[i + k * n] * conj_(b[j + k * n]);
            a[i + j * lda] = s;
        }
    }
    std::vector<T> f = a;
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(
        run_op<T>(potrf_op(Traits<T>::precision, uplo, n, lda), f, nullptr, &info, &seconds));
    bool untouched = true;  // the padding rows and the other triangle
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < lda; ++i) {
            const bool other = i >= n || (uplo == 'L' ? i < j : i > j);
            if (other && f[i + j * lda] != a[i + j * lda]) untouched = false;
        }
    }
    double err = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;  // (L L^H)(i,j) or (U^H U)(i,j)
            for (int64_t k = 0; k <= std::min(i, j); ++k) {
                s += uplo == 'L' ? f[i + k * lda] * conj_(f[j + k * lda])
                                 : conj_(f[k + i * lda]) * f[k + j * lda];
            }
            err = std::max<double>(err, std::abs(s - a[i + j * lda]));
            norm = std::max<double>(norm, std::abs(a[i + j * lda]));
        }
    }
    const double rel = norm > 0 ? err / norm / (static_cast<double>(n) * Traits<T>::eps) : 0;
    report(info == 0 && untouched && rel < 10,
           format("%cpotrf %c n=%lld: info=%d, other triangle and padding untouched=%d, "
                  "|A - LL^H|/(|A| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), info, untouched, rel));
}

template <typename T>
void potrf_not_positive_definite() {
    const int64_t n = 40, lda = 40;
    std::vector<T> a(static_cast<size_t>(lda * n), T(0));
    for (int64_t i = 0; i < n; ++i) a[i + i * lda] = T(4);
    a[6 + 6 * lda] = T(-1);  // the leading minor of order 7 is not positive definite
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(
        run_op<T>(potrf_op(Traits<T>::precision, 'L', n, lda), a, nullptr, &info, &seconds));
    report(info == 7, format("%cpotrf not positive definite at 7: info=%d (LAPACK: 7)",
                             Traits<T>::name, info));
}

template <typename T>
void getrf_case(int64_t m, int64_t n, bool zero_column_4 = false) {
    Random g(static_cast<uint64_t>(m * 131 + n));
    const int64_t lda = m + 2, k = std::min(m, n);
    std::vector<T> a(static_cast<size_t>(lda * n));
    for (auto& x : a) x = g.next<T>();
    if (zero_column_4) {
        for (int64_t i = 0; i < m; ++i) a[i + 3 * lda] = T(0);
    }
    std::vector<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(k), -1);
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(run_op<T>(getrf_op(Traits<T>::precision, m, n, lda), f, &ipiv, &info, &seconds));
    bool one_based = true;  // LAPACK: i <= ipiv(i) <= m
    for (int64_t i = 0; i < k; ++i) one_based = one_based && ipiv[i] >= i + 1 && ipiv[i] <= m;
    // The interchanges (1-based, in order) applied to the original A must give L U.
    std::vector<T> pa = a;
    for (int64_t i = 0; i < k && one_based; ++i) {
        if (ipiv[i] - 1 == i) continue;
        for (int64_t j = 0; j < n; ++j) std::swap(pa[i + j * lda], pa[ipiv[i] - 1 + j * lda]);
    }
    double err = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            T s = 0;
            for (int64_t p = 0; p <= std::min<int64_t>({i, j, k - 1}); ++p) {
                const T l = p == i ? T(1) : f[i + p * lda];
                s += l * f[p + j * lda];
            }
            err = std::max<double>(err, std::abs(s - pa[i + j * lda]));
            norm = std::max<double>(norm, std::abs(a[i + j * lda]));
        }
    }
    bool padding = true;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = m; i < lda; ++i) padding = padding && f[i + j * lda] == a[i + j * lda];
    }
    const double rel = err / norm / (static_cast<double>(std::max(m, n)) * Traits<T>::eps);
    const int want = zero_column_4 ? 4 : 0;
    report(info == want && one_based && padding && rel < 10,
           format("%cgetrf m=%lld n=%lld%s: info=%d (want %d), pivots 1-based and in range=%d, "
                  "padding untouched=%d, |PA - LU|/(|A| n eps)=%.3g, ipiv[0..2]=%lld %lld %lld",
                  Traits<T>::name, static_cast<long long>(m), static_cast<long long>(n),
                  zero_column_4 ? " (column 4 zero)" : "", info, want, one_based, padding, rel,
                  static_cast<long long>(ipiv[0]), static_cast<long long>(ipiv[1]),
                  static_cast<long long>(ipiv[2])));
}

template <typename T>
void getrf_classic_3x3() {
    std::vector<T> a = {T(1), T(4), T(7), T(2), T(5), T(8), T(3), T(6), T(10)};
    std::vector<int64_t> ipiv(3, -1);
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(run_op<T>(getrf_op(Traits<T>::precision, 3, 3, 3), a, &ipiv, &info, &seconds));
    report(info == 0 && ipiv[0] == 3 && ipiv[1] == 3 && ipiv[2] == 3,
           format("%cgetrf [1 2 3; 4 5 6; 7 8 10]: info=%d, ipiv = %lld %lld %lld (LAPACK "
                  "1-based: 3 3 3; 0-based would be 2 2 2)",
                  Traits<T>::name, info, static_cast<long long>(ipiv[0]),
                  static_cast<long long>(ipiv[1]), static_cast<long long>(ipiv[2])));
}

// ---- large cases: matrix-vector residuals (O(n^2) on the host) ------------------------------

// max |y - z| / (|A|_inf |x|_inf n eps)
template <typename T>
double normwise(const std::vector<T>& y, const std::vector<T>& z, double norm_a, double norm_x,
                int64_t n) {
    double err = 0;
    for (size_t i = 0; i < y.size(); ++i) err = std::max<double>(err, std::abs(y[i] - z[i]));
    return err / (norm_a * norm_x * static_cast<double>(n) * Traits<T>::eps);
}

template <typename T>
void potrf_large(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 7 + uplo));
    const int64_t lda = n + 3;
    // Hermitian, diagonally dominant: |a_ij| < sqrt(2) off the diagonal, a_ii = 2n.
    std::vector<T> a(static_cast<size_t>(lda * n));
    for (int64_t j = 0; j < n; ++j) {
        a[j + j * lda] = T(2.0 * static_cast<double>(n));
        for (int64_t i = j + 1; i < n; ++i) {
            const T r = g.next<T>();
            a[i + j * lda] = r;
            a[j + i * lda] = conj_(r);
        }
        for (int64_t i = n; i < lda; ++i) a[i + j * lda] = T(777);
    }
    std::vector<T> f = a;
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(
        run_op<T>(potrf_op(Traits<T>::precision, uplo, n, lda), f, nullptr, &info, &seconds));
    bool untouched = true;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < lda; ++i) {
            const bool other = i >= n || (uplo == 'L' ? i < j : i > j);
            if (other && f[i + j * lda] != a[i + j * lda]) untouched = false;
        }
    }
    std::vector<T> x(static_cast<size_t>(n)), z(x.size(), T(0)), w(x.size(), T(0)),
        y(x.size(), T(0));
    std::vector<double> row_sums(x.size(), 0.0);
    for (auto& v : x) v = g.next<T>();
    for (int64_t j = 0; j < n; ++j) {  // z = A x
        for (int64_t i = 0; i < n; ++i) {
            z[i] += a[i + j * lda] * x[j];
            row_sums[i] += std::abs(a[i + j * lda]);
        }
    }
    if (uplo == 'L') {  // y = L (L^H x)
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = k; i < n; ++i) w[k] += conj_(f[i + k * lda]) * x[i];
        }
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = k; i < n; ++i) y[i] += f[i + k * lda] * w[k];
        }
    } else {  // y = U^H (U x)
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = 0; i <= k; ++i) w[i] += f[i + k * lda] * x[k];
        }
        for (int64_t k = 0; k < n; ++k) {
            for (int64_t i = 0; i <= k; ++i) y[k] += conj_(f[i + k * lda]) * w[i];
        }
    }
    double norm_x = 0;
    for (const auto& v : x) norm_x = std::max<double>(norm_x, std::abs(v));
    const double rel =
        normwise(y, z, *std::max_element(row_sums.begin(), row_sums.end()), norm_x, n);
    report(info == 0 && untouched && rel < 10,
           format("%cpotrf %c n=%lld (large): info=%d, untouched=%d, "
                  "|Ax - LL^H x|/(|A| |x| n eps)=%.3g, %.3f s",
                  Traits<T>::name, uplo, static_cast<long long>(n), info, untouched, rel, seconds));
}

template <typename T>
void getrf_large(int64_t m, int64_t n) {
    Random g(static_cast<uint64_t>(m * 17 + n));
    const int64_t lda = m + 2, k = std::min(m, n);
    std::vector<T> a(static_cast<size_t>(lda * n));
    for (auto& v : a) v = g.next<T>();
    std::vector<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(k), -1);
    int info = -99;
    double seconds = 0;
    CHECK_STATUS(run_op<T>(getrf_op(Traits<T>::precision, m, n, lda), f, &ipiv, &info, &seconds));
    bool one_based = true;
    for (int64_t i = 0; i < k; ++i) one_based = one_based && ipiv[i] >= i + 1 && ipiv[i] <= m;
    bool padding = true;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = m; i < lda; ++i) padding = padding && f[i + j * lda] == a[i + j * lda];
    }
    std::vector<T> x(static_cast<size_t>(n)), z(static_cast<size_t>(m), T(0)),
        w(static_cast<size_t>(k), T(0)), y(static_cast<size_t>(m), T(0));
    std::vector<double> row_sums(static_cast<size_t>(m), 0.0);
    for (auto& v : x) v = g.next<T>();
    for (int64_t j = 0; j < n; ++j) {  // z = A x
        for (int64_t i = 0; i < m; ++i) {
            z[i] += a[i + j * lda] * x[j];
            row_sums[i] += std::abs(a[i + j * lda]);
        }
    }
    for (int64_t i = 0; i < k && one_based; ++i) std::swap(z[i], z[ipiv[i] - 1]);  // P A x
    for (int64_t j = 0; j < n; ++j) {  // w = U x (U: k x n, upper)
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i) w[i] += f[i + j * lda] * x[j];
    }
    for (int64_t p = 0; p < k; ++p) {  // y = L w (L: m x k, unit lower)
        y[p] += w[p];
        for (int64_t i = p + 1; i < m; ++i) y[i] += f[i + p * lda] * w[p];
    }
    double norm_x = 0;
    for (const auto& v : x) norm_x = std::max<double>(norm_x, std::abs(v));
    const double rel =
        normwise(y, z, *std::max_element(row_sums.begin(), row_sums.end()), norm_x, std::max(m, n));
    report(info == 0 && one_based && padding && rel < 10,
           format("%cgetrf m=%lld n=%lld (large): info=%d, pivots 1-based and in range=%d, "
                  "padding untouched=%d, |PAx - LUx|/(|A| |x| n eps)=%.3g, %.3f s",
                  Traits<T>::name, static_cast<long long>(m), static_cast<long long>(n), info,
                  one_based, padding, rel, seconds));
}

// ---- the other kinds: dense host references in double precision -----------------------------
//
// Each check builds its inputs on the host, runs one operation on the plugin, and measures the
// result against what the operation means, in double (or double complex) arithmetic so that
// the reference adds no error of the precision under test. Ratios are normwise (1-norm) and
// scaled by n eps, as LAPACK's own tests scale them; a correct result stays far below kBound.

constexpr double kBound = 30;
constexpr double kJunk = 999;  // what a part the operation must not read (or write) holds

void* resolve_cpu_symbol(const char* name);  // the host services, below

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

template <typename T>
Operand operand(Slot slot, Matrix<T>& m) {
    return {slot, m.v.data(), sizeof(T) * static_cast<size_t>(m.ld),
            static_cast<size_t>(std::max<int64_t>(1, m.cols))};
}

template <typename To, typename From>
Matrix<To> convert(const Matrix<From>& m) {
    Matrix<To> r;
    r.rows = m.rows;
    r.cols = m.cols;
    r.ld = m.ld;
    r.v.reserve(m.v.size());
    for (const From& x : m.v) r.v.push_back(static_cast<To>(x));
    return r;
}

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

template <typename T>
bool padding_kept(const Matrix<T>& before, const Matrix<T>& after) {
    for (int64_t j = 0; j < before.cols; ++j) {
        for (int64_t i = before.rows; i < before.ld; ++i) {
            if (before(i, j) != after(i, j)) return false;
        }
    }
    return true;
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

// The Hermitian matrix whose uplo triangle `m` holds.
template <typename T>
Matrix<Wide<T>> hermitian_from(const Matrix<T>& m, char uplo) {
    Matrix<Wide<T>> h(m.rows, m.cols);
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            h(i, j) = stored ? static_cast<Wide<T>>(m(i, j)) : conj_(static_cast<Wide<T>>(m(j, i)));
        }
    }
    return h;
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

template <typename T>
gpushim_lapack_op lapack_op(gpushim_lapack_kind kind) {
    gpushim_lapack_op op{};
    op.kind = kind;
    op.precision = Traits<T>::precision;
    return op;
}

std::string shape(int64_t m, int64_t n) {
    return format("%lldx%lld", static_cast<long long>(m), static_cast<long long>(n));
}

// ---- the CPU LAPACK, for reference values (when the check finds one) ---------------------------

constexpr size_t kFlagLength = 1;  // the hidden length of a CHARACTER*1 argument

template <typename T, typename... Args>
bool call_cpu(const char* name, Args... args) {
    const std::string symbol = std::string(1, Traits<T>::name) + name + "_";
    void* function = resolve_cpu_symbol(symbol.c_str());
    if (function == nullptr) return false;
    reinterpret_cast<void (*)(Args...)>(function)(args...);
    return true;
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
    const auto syev = [&](T* work, const Int* lwork) {
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("syev", &jobz, &uplo, &n, a.v.data(), &lda, w->data(), work, lwork,
                               &info, kFlagLength, kFlagLength);
        } else {
            return call_cpu<T>("heev", &jobz, &uplo, &n, a.v.data(), &lda, w->data(), work, lwork,
                               rwork.data(), &info, kFlagLength, kFlagLength);
        }
    };
    T query{};
    const Int ask = -1;
    if (!syev(&query, &ask)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    return syev(work.data(), &lwork) && info == 0;
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
    const auto gesvd = [&](T* work, const Int* lwork) {
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("gesvd", &job, &job, &m, &n, a.v.data(), &lda, s->data(), &unused,
                               &one, &unused, &one, work, lwork, &info, kFlagLength, kFlagLength);
        } else {
            return call_cpu<T>("gesvd", &job, &job, &m, &n, a.v.data(), &lda, s->data(), &unused,
                               &one, &unused, &one, work, lwork, rwork.data(), &info, kFlagLength,
                               kFlagLength);
        }
    };
    T query{};
    const Int ask = -1;
    if (!gesvd(&query, &ask)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    return gesvd(work.data(), &lwork) && info == 0;
}

// max |x_i - y_i|
template <typename R>
double max_difference(const std::vector<R>& x, const std::vector<double>& y) {
    double d = 0;
    for (size_t i = 0; i < x.size(); ++i)
        d = std::max(d, std::abs(static_cast<double>(x[i]) - y[i]));
    return d;
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

// ---- LU: GETRS, GESV, GETRI ------------------------------------------------------------------

template <typename T>
int plugin_getrf(Matrix<T>& f, std::vector<int64_t>& ipiv) {
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GETRF);
    op.m = f.rows;
    op.n = f.cols;
    op.lda = f.ld;
    int info = 0;
    const int s = run(op, {operand(kSlotA, f), operand(kSlotIpiv, ipiv)}, &info);
    return s != 0 ? s : (info == 0 ? 0 : -1000 - info);
}

template <typename T>
void getrs_case(char trans, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 7 + nrhs + trans));
    const Matrix<T> a = random_matrix<T>(n, n, 3, g), b = random_matrix<T>(n, nrhs, 2, g);
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    CHECK_STATUS(plugin_getrf(f, ipiv));
    const Matrix<T> f_in = f;
    const std::vector<int64_t> ipiv_in = ipiv;
    Matrix<T> x = b;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GETRS);
    op.trans = trans;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(
        run(op, {operand(kSlotA, f), operand(kSlotIpiv, ipiv), operand(kSlotB, x)}, &info));
    const auto op_a = apply_op(widen(a), trans);
    const auto wx = widen(x);
    const double r =
        ratio(distance1(multiply(op_a, wx), widen(b)), norm1(op_a) * norm1(wx), n, Traits<T>::eps);
    const bool read_only = f.v == f_in.v && ipiv == ipiv_in;
    const bool padding = padding_kept(b, x);
    report(info == 0 && read_only && padding && r < kBound,
           format("%cgetrs trans=%c n=%lld nrhs=%lld: info=%d, a and ipiv unchanged=%d, padding "
                  "kept=%d, |op(A)X - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, trans, static_cast<long long>(n), static_cast<long long>(nrhs),
                  info, read_only, padding, r));
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
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GESV);
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(
        run(op, {operand(kSlotA, f), operand(kSlotIpiv, ipiv), operand(kSlotB, x)}, &info));
    bool pivots = true;
    for (int64_t i = 0; i < n; ++i) pivots = pivots && ipiv[i] >= i + 1 && ipiv[i] <= n;
    const bool padding = padding_kept(a, f) && padding_kept(b, x);
    if (zero_column > 0) {  // b holds no solution: LAPACK's INFO is what counts
        report(
            info == zero_column && pivots && padding,
            format("%cgesv n=%lld, column %lld zero: info=%d (want %lld, as GETRF), pivots in "
                   "range=%d, padding kept=%d",
                   Traits<T>::name, static_cast<long long>(n), static_cast<long long>(zero_column),
                   info, static_cast<long long>(zero_column), pivots, padding));
        return;
    }
    const auto wa = widen(a);
    const auto wx = widen(x);
    const double r =
        ratio(distance1(multiply(wa, wx), widen(b)), norm1(wa) * norm1(wx), n, Traits<T>::eps);
    report(info == 0 && pivots && padding && r < kBound,
           format("%cgesv n=%lld nrhs=%lld: info=%d, pivots in range=%d, padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, static_cast<long long>(n), static_cast<long long>(nrhs), info,
                  pivots, padding, r));
}

template <typename T>
void getri_case(int64_t n) {
    Random g(static_cast<uint64_t>(n * 13));
    const Matrix<T> a = random_matrix<T>(n, n, 2, g);
    Matrix<T> f = a;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    CHECK_STATUS(plugin_getrf(f, ipiv));
    const std::vector<int64_t> ipiv_in = ipiv;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GETRI);
    op.n = n;
    op.lda = f.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotIpiv, ipiv)}, &info));
    const auto wa = widen(a);
    const auto inverse = widen(f);
    const double r = ratio(identity_distance(multiply(wa, inverse)), norm1(wa) * norm1(inverse), n,
                           Traits<T>::eps);
    const bool padding = padding_kept(a, f);
    report(info == 0 && ipiv == ipiv_in && padding && r < kBound,
           format("%cgetri n=%lld: info=%d, ipiv unchanged=%d, padding kept=%d, "
                  "|A inv(A) - I|/(|A||inv(A)| n eps)=%.3g",
                  Traits<T>::name, static_cast<long long>(n), info, ipiv == ipiv_in, padding, r));
}

// ---- Cholesky: POTRS, POSV, POTRI -------------------------------------------------------------

template <typename T>
int plugin_potrf(Matrix<T>& f, char uplo) {
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_POTRF);
    op.uplo = uplo;
    op.n = f.rows;
    op.lda = f.ld;
    int info = 0;
    const int s = run(op, {operand(kSlotA, f)}, &info);
    return s != 0 ? s : (info == 0 ? 0 : -1000 - info);
}

template <typename T>
void potrs_case(char uplo, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 17 + uplo));
    const Matrix<T> a = hpd_matrix<T>(n, 3, g), b = random_matrix<T>(n, nrhs, 2, g);
    Matrix<T> f = a;
    CHECK_STATUS(plugin_potrf(f, uplo));
    const Matrix<T> f_in = f;
    Matrix<T> x = b;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_POTRS);
    op.uplo = uplo;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotB, x)}, &info));
    const auto wa = widen(a);
    const auto wx = widen(x);
    const double r =
        ratio(distance1(multiply(wa, wx), widen(b)), norm1(wa) * norm1(wx), n, Traits<T>::eps);
    const bool read_only = f.v == f_in.v;
    const bool padding = padding_kept(b, x);
    report(info == 0 && read_only && padding && r < kBound,
           format("%cpotrs %c n=%lld nrhs=%lld: info=%d, a unchanged=%d, padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  info, read_only, padding, r));
}

// not_positive_definite: A's leading minor of order 7 is not, so POTRF's INFO is 7.
template <typename T>
void posv_case(char uplo, int64_t n, int64_t nrhs, bool not_positive_definite = false) {
    Random g(static_cast<uint64_t>(n * 19 + uplo));
    Matrix<T> a = hpd_matrix<T>(n, 2, g);
    if (not_positive_definite) {
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) a(i, j) = T(i == j ? 4 : 0);
        }
        a(6, 6) = T(-1);
    }
    const Matrix<T> b = random_matrix<T>(n, nrhs, 3, g);
    Matrix<T> f = a, x = b;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_POSV);
    op.uplo = uplo;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotB, x)}, &info));
    const bool kept = triangle_kept(a, f, uplo, false) && padding_kept(a, f) && padding_kept(b, x);
    if (not_positive_definite) {
        report(info == 7 && kept,
               format("%cposv %c n=%lld, not positive definite at 7: info=%d (want 7, as POTRF), "
                      "other triangle and padding kept=%d",
                      Traits<T>::name, uplo, static_cast<long long>(n), info, kept));
        return;
    }
    const auto wa = widen(a);
    const auto wx = widen(x);
    const double r =
        ratio(distance1(multiply(wa, wx), widen(b)), norm1(wa) * norm1(wx), n, Traits<T>::eps);
    report(info == 0 && kept && r < kBound,
           format("%cposv %c n=%lld nrhs=%lld: info=%d, other triangle and padding kept=%d, "
                  "|AX - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), static_cast<long long>(nrhs),
                  info, kept, r));
}

template <typename T>
void potri_case(char uplo, int64_t n) {
    Random g(static_cast<uint64_t>(n * 23 + uplo));
    const Matrix<T> a = hpd_matrix<T>(n, 2, g);
    Matrix<T> f = a;
    CHECK_STATUS(plugin_potrf(f, uplo));
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_POTRI);
    op.uplo = uplo;
    op.n = n;
    op.lda = f.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f)}, &info));
    const auto wa = widen(a);
    const auto inverse = hermitian_from(f, uplo);
    const double r = ratio(identity_distance(multiply(wa, inverse)), norm1(wa) * norm1(inverse), n,
                           Traits<T>::eps);
    const bool kept = triangle_kept(a, f, uplo, false) && padding_kept(a, f);
    report(info == 0 && kept && r < kBound,
           format("%cpotri %c n=%lld: info=%d, other triangle and padding kept=%d, "
                  "|A inv(A) - I|/(|A||inv(A)| n eps)=%.3g",
                  Traits<T>::name, uplo, static_cast<long long>(n), info, kept, r));
}

// ---- triangular: TRTRS, TRTRI -----------------------------------------------------------------

template <typename T>
void trtrs_case(char uplo, char trans, char diag, int64_t n, int64_t nrhs) {
    Random g(static_cast<uint64_t>(n * 29 + uplo * 3 + trans * 5 + diag));
    const Matrix<T> a = triangular_matrix<T>(n, 2, uplo, diag, g);
    const Matrix<T> b = random_matrix<T>(n, nrhs, 3, g);
    Matrix<T> f = a, x = b;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_TRTRS);
    op.uplo = uplo;
    op.trans = trans;
    op.diag = diag;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotB, x)}, &info));
    const auto op_t = apply_op(triangle_of(a, uplo, diag), trans);
    const auto wx = widen(x);
    const double r =
        ratio(distance1(multiply(op_t, wx), widen(b)), norm1(op_t) * norm1(wx), n, Traits<T>::eps);
    const bool kept = f.v == a.v && padding_kept(b, x);
    report(info == 0 && kept && r < kBound,
           format("%ctrtrs %c%c%c n=%lld nrhs=%lld: info=%d, a and padding unchanged=%d, "
                  "|op(A)X - B|/(|A||X| n eps)=%.3g",
                  Traits<T>::name, uplo, trans, diag, static_cast<long long>(n),
                  static_cast<long long>(nrhs), info, kept, r));
}

template <typename T>
void trtri_case(char uplo, char diag, int64_t n) {
    Random g(static_cast<uint64_t>(n * 31 + uplo * 3 + diag));
    const Matrix<T> a = triangular_matrix<T>(n, 3, uplo, diag, g);
    Matrix<T> f = a;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_TRTRI);
    op.uplo = uplo;
    op.diag = diag;
    op.n = n;
    op.lda = f.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f)}, &info));
    const auto t = triangle_of(a, uplo, diag);
    const auto inverse = triangle_of(f, uplo, diag);
    const double r = ratio(identity_distance(multiply(t, inverse)), norm1(t) * norm1(inverse), n,
                           Traits<T>::eps);
    // diag 'U': the diagonal is neither read nor written.
    const bool kept = triangle_kept(a, f, uplo, diag == 'U') && padding_kept(a, f);
    report(info == 0 && kept && r < kBound,
           format("%ctrtri %c%c n=%lld: info=%d, other triangle%s and padding kept=%d, "
                  "|T inv(T) - I|/(|T||inv(T)| n eps)=%.3g",
                  Traits<T>::name, uplo, diag, static_cast<long long>(n), info,
                  diag == 'U' ? ", diagonal" : "", kept, r));
}

// ---- QR: GEQRF, ORGQR, ORMQR ------------------------------------------------------------------

template <typename T>
int plugin_geqrf(Matrix<T>& f, std::vector<T>& tau) {
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GEQRF);
    op.m = f.rows;
    op.n = f.cols;
    op.lda = f.ld;
    int info = 0;
    const int s = run(op, {operand(kSlotA, f), operand(kSlotTau, tau)}, &info);
    return s != 0 ? s : (info == 0 ? 0 : -1000 - info);
}

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
    const Matrix<T> a = random_matrix<T>(m, n, 3, g);
    Matrix<T> f = a;
    std::vector<T> tau(static_cast<size_t>(k), T(kJunk));
    int info = 0;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GEQRF);
    op.m = m;
    op.n = n;
    op.lda = f.ld;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotTau, tau)}, &info));
    const bool geqrf_ok = info == 0 && padding_kept(a, f);
    Matrix<T> q(m, k, 3);  // the reflectors, then Q
    for (int64_t j = 0; j < k; ++j) {
        for (int64_t i = 0; i < m; ++i) q(i, j) = f(i, j);
    }
    const Matrix<T> q_in = q;
    const std::vector<T> tau_in = tau;
    op = lapack_op<T>(GPUSHIM_ORGQR);
    op.m = m;
    op.n = k;
    op.k = k;
    op.lda = q.ld;
    CHECK_STATUS(run(op, {operand(kSlotA, q), operand(kSlotTau, tau)}, &info));
    const auto wq = widen(q);
    Matrix<Wide<T>> r(k, n);  // R: the upper triangle (trapezoid) of GEQRF's output
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < k; ++i) r(i, j) = i <= j ? static_cast<Wide<T>>(f(i, j)) : 0.0;
    }
    const auto wa = widen(a);
    const double orthogonal = ratio(orthogonality(wq), 1, m, Traits<T>::eps);
    const double factored = ratio(distance1(multiply(wq, r), wa), norm1(wa), m, Traits<T>::eps);
    const bool kept = padding_kept(q_in, q) && tau == tau_in;
    report(geqrf_ok && info == 0 && kept && orthogonal < kBound && factored < kBound,
           format("%cgeqrf + %s %s: info=%d, padding kept and tau unchanged=%d, |Q^H Q - I|/(m "
                  "eps)=%.3g, |A - QR|/(|A| m eps)=%.3g",
                  Traits<T>::name, std::is_floating_point_v<T> ? "orgqr" : "ungqr",
                  shape(m, n).c_str(), info, kept, orthogonal, factored));
    if (extra_columns == 0) return;
    const int64_t columns = n + extra_columns;  // m >= columns > k reflectors
    Matrix<T> q2 = random_matrix<T>(m, columns, 2, g);
    for (int64_t j = 0; j < k; ++j) {
        for (int64_t i = 0; i < m; ++i) q2(i, j) = f(i, j);
    }
    op = lapack_op<T>(GPUSHIM_ORGQR);
    op.m = m;
    op.n = columns;
    op.k = k;
    op.lda = q2.ld;
    CHECK_STATUS(run(op, {operand(kSlotA, q2), operand(kSlotTau, tau)}, &info));
    const double orthogonal2 = ratio(orthogonality(widen(q2)), 1, m, Traits<T>::eps);
    report(info == 0 && orthogonal2 < kBound,
           format("%c%s m=%lld n=%lld k=%lld: info=%d, |Q^H Q - I|/(m eps)=%.3g", Traits<T>::name,
                  std::is_floating_point_v<T> ? "orgqr" : "ungqr", static_cast<long long>(m),
                  static_cast<long long>(columns), static_cast<long long>(k), info, orthogonal2));
}

// ORMQR with the k reflectors of a GEQRF of an nq x k matrix, against the explicit Q:
// side 'L': C is nq x nc, op(Q) C; side 'R': C is nc x nq, C op(Q).
template <typename T>
void ormqr_case(char side, char trans, int64_t nq, int64_t k, int64_t nc) {
    Random g(static_cast<uint64_t>(nq * 41 + k + side * 3 + trans));
    Matrix<T> f = random_matrix<T>(nq, k, 2, g);
    std::vector<T> tau(static_cast<size_t>(k));
    CHECK_STATUS(plugin_geqrf(f, tau));
    const Matrix<T> f_in = f;
    const std::vector<T> tau_in = tau;
    const int64_t m = side == 'L' ? nq : nc, n = side == 'L' ? nc : nq;
    const Matrix<T> c = random_matrix<T>(m, n, 3, g);
    Matrix<T> result = c;
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_ORMQR);
    op.side = side;
    op.trans = trans;
    op.m = m;
    op.n = n;
    op.k = k;
    op.lda = f.ld;
    op.ldb = result.ld;
    int info = 0;
    CHECK_STATUS(
        run(op, {operand(kSlotA, f), operand(kSlotTau, tau), operand(kSlotB, result)}, &info));
    const auto q = apply_op(explicit_q(f_in, tau_in, k), trans);
    const auto wc = widen(c);
    const auto expected = side == 'L' ? multiply(q, wc) : multiply(wc, q);
    const double r = ratio(distance1(widen(result), expected), norm1(wc), nq, Traits<T>::eps);
    const bool read_only = f.v == f_in.v && tau == tau_in && padding_kept(c, result);
    report(info == 0 && read_only && r < kBound,
           format("%c%s side=%c trans=%c %s k=%lld: info=%d, a, tau and padding unchanged=%d, "
                  "|result - explicit Q product|/(|C| m eps)=%.3g",
                  Traits<T>::name, std::is_floating_point_v<T> ? "ormqr" : "unmqr", side, trans,
                  shape(m, n).c_str(), static_cast<long long>(k), info, read_only, r));
}

// ---- SYEVD, GESVD -----------------------------------------------------------------------------

// A = Q diag(lambda) Q^H with a random unitary Q and known, ascending lambda; only the uplo
// triangle is meaningful (the other holds junk the plugin must not read).
template <typename T>
void syevd_case(char jobz, char uplo, int64_t n) {
    using W = Wide<T>;
    Random g(static_cast<uint64_t>(n * 43 + jobz * 3 + uplo));
    std::vector<double> lambda(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        lambda[i] = -1.0 + 3.0 * static_cast<double>(i) / static_cast<double>(n);
    const Matrix<W> q = random_unitary<W>(n, g);
    Matrix<W> scaled = q;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) scaled(i, j) *= lambda[j];
    }
    Matrix<W> full = multiply(scaled, apply_op(q, 'C'));
    Matrix<T> a(n, n, 3);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            const bool stored = uplo == 'L' ? i >= j : i <= j;
            a(i, j) = i == j ? T(std::real(full(i, i)))
                             : (stored ? static_cast<T>(full(i, j)) : T(kJunk));
        }
    }
    full = hermitian_from(a, uplo);  // what the plugin is given, exactly
    Matrix<T> v = a;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_SYEVD);
    op.jobz = jobz;
    op.uplo = uplo;
    op.n = n;
    op.lda = v.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, v), operand(kSlotW, w)}, &info));
    const double eps = Traits<T>::eps, norm = norm1(full);
    bool ascending = true;
    for (int64_t i = 1; i < n; ++i) ascending = ascending && w[i - 1] <= w[i];
    const double values = ratio(max_difference(w, lambda), norm, n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] = against_cpu(cpu_eigenvalues(a, uplo, &cpu), w, cpu, norm, n,
                                                eps, "|w - w_cpu|/(|A| n eps)");
    bool ok = info == 0 && ascending && values < kBound && cpu_ok && padding_kept(a, v);
    std::string vectors;
    if (jobz == 'V') {
        const auto wv = widen(v);
        Matrix<W> vw = wv;
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) vw(i, j) *= static_cast<double>(w[j]);
        }
        const double residual = ratio(distance1(multiply(full, wv), vw), norm, n, eps);
        const double orthogonal = ratio(orthogonality(wv), 1, n, eps);
        ok = ok && residual < kBound && orthogonal < kBound;
        vectors =
            format(", |AV - VW|/(|A| n eps)=%.3g, |V^H V - I|/(n eps)=%.3g", residual, orthogonal);
    }
    report(ok, format("%c%s jobz=%c uplo=%c n=%lld: info=%d, ascending=%d, padding kept=%d, "
                      "|w - lambda|/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, std::is_floating_point_v<T> ? "syevd" : "heevd", jobz, uplo,
                      static_cast<long long>(n), info, ascending, padding_kept(a, v), values,
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
    const Matrix<W> full_w = multiply(us, apply_op(v0, 'C'));
    Matrix<T> a(m, n, 3);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) a(i, j) = static_cast<T>(full_w(i, j));
    }
    const auto full = widen(a);
    const bool has_u = jobu == 'A' || jobu == 'S', has_vt = jobvt == 'A' || jobvt == 'S';
    Matrix<T> f = a;
    Matrix<T> u(m, has_u ? (jobu == 'A' ? m : n) : 0, 2), vt(n, has_vt ? n : 0, 1);
    const Matrix<T> u_in = u, vt_in = vt;
    std::vector<Real<T>> s(static_cast<size_t>(n), Real<T>(-kJunk));
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GESVD);
    op.jobu = jobu;
    op.jobvt = jobvt;
    op.m = m;
    op.n = n;
    op.lda = f.ld;
    if (has_u) op.ldu = u.ld;
    if (has_vt) op.ldvt = vt.ld;
    int info = 0;
    if (has_u && has_vt) {
        CHECK_STATUS(run(
            op, {operand(kSlotA, f), operand(kSlotW, s), operand(kSlotU, u), operand(kSlotVT, vt)},
            &info));
    } else if (has_u) {
        CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotW, s), operand(kSlotU, u)}, &info));
    } else if (has_vt) {
        CHECK_STATUS(
            run(op, {operand(kSlotA, f), operand(kSlotW, s), operand(kSlotVT, vt)}, &info));
    } else {
        CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotW, s)}, &info));
    }
    const double eps = Traits<T>::eps;
    bool descending = true;
    for (int64_t i = 1; i < n; ++i) descending = descending && s[i - 1] >= s[i];
    const double values = ratio(max_difference(s, sigma), sigma[0], n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] = against_cpu(cpu_singular_values(a, &cpu), s, cpu, sigma[0], n,
                                                eps, "|s - s_cpu|/(s_max n eps)");
    const bool padding = padding_kept(a, f) && (!has_u || padding_kept(u_in, u)) &&
                         (!has_vt || padding_kept(vt_in, vt));
    bool ok = info == 0 && descending && values < kBound && cpu_ok && padding;
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
                      Traits<T>::name, jobu, jobvt, shape(m, n).c_str(), info, descending, padding,
                      values, cpu_text.c_str(), vectors.c_str()));
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

// Columns scaled: m(:, j) * d[j].
template <typename W, typename R>
Matrix<W> scale_columns(Matrix<W> m, const std::vector<R>& d) {
    for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i) m(i, j) *= static_cast<double>(d[j]);
    }
    return m;
}

// SYEVR of Q diag(lambda) Q^H (lambda ascending, spaced 3/n): range 'A' all of them, 'V' the
// interval between lambda[9] and lambda[10] and between lambda[29] and lambda[30] (midpoints),
// which holds exactly lambda[10..29], 'I' il = 5, iu = 17. w has room for n values and u for
// n columns: what lies beyond the m found must stay as it was.
template <typename T>
void syevr_case(char jobz, char range, char uplo, int64_t n) {
    using W = Wide<T>;
    Random g(static_cast<uint64_t>(n * 61 + jobz * 7 + range * 3 + uplo));
    std::vector<double> lambda(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        lambda[i] = -1.0 + 3.0 * static_cast<double>(i) / static_cast<double>(n);
    const Matrix<W> q = random_unitary<W>(n, g);
    const Matrix<W> full0 = multiply(scale_columns(q, lambda), apply_op(q, 'C'));
    const Matrix<T> a = stored_triangle<T>(full0, uplo, 3);
    const auto full = hermitian_from(a, uplo);
    int64_t first = 0, count = n;  // the expected eigenvalues: lambda[first .. first + count)
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_SYEVR);
    op.jobz = jobz;
    op.range = range;
    op.uplo = uplo;
    op.n = n;
    if (range == 'V') {
        first = 10;
        count = 20;
        op.vl = (lambda[9] + lambda[10]) / 2;
        op.vu = (lambda[29] + lambda[30]) / 2;
    } else if (range == 'I') {
        op.il = 5;
        op.iu = 17;
        first = op.il - 1;
        count = op.iu - op.il + 1;
    }
    Matrix<T> f = a;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    Matrix<T> u(n, jobz == 'V' ? n : 0, 2);
    const Matrix<T> u_in = u;
    std::vector<int64_t> found(1, -1);
    op.lda = f.ld;
    op.ldu = jobz == 'V' ? u.ld : 0;
    int info = 0;
    if (jobz == 'V') {
        CHECK_STATUS(run(op,
                         {operand(kSlotA, f), operand(kSlotW, w), operand(kSlotU, u),
                          operand(kSlotFound, found)},
                         &info));
    } else {
        CHECK_STATUS(
            run(op, {operand(kSlotA, f), operand(kSlotW, w), operand(kSlotFound, found)}, &info));
    }
    const double eps = Traits<T>::eps, norm = norm1(full);
    const int64_t m = found[0];
    if (m != count) {
        report(false, format("%c%s jobz=%c range=%c uplo=%c n=%lld: info=%d, found=%lld (want "
                             "%lld)",
                             Traits<T>::name, std::is_floating_point_v<T> ? "syevr" : "heevr",
                             jobz, range, uplo, static_cast<long long>(n), info,
                             static_cast<long long>(m), static_cast<long long>(count)));
        return;
    }
    bool ascending = true, beyond = true;
    for (int64_t i = 1; i < m; ++i) ascending = ascending && w[i - 1] <= w[i];
    for (int64_t i = m; i < n; ++i) beyond = beyond && w[i] == Real<T>(-kJunk);
    std::vector<Real<T>> wm(w.begin(), w.begin() + m);
    const std::vector<double> expected(lambda.begin() + first, lambda.begin() + first + m);
    const double values = ratio(max_difference(wm, expected), norm, n, eps);
    std::vector<Real<T>> cpu_all, cpu;
    const bool cpu_found = cpu_eigenvalues(a, uplo, &cpu_all);
    if (cpu_found) cpu.assign(cpu_all.begin() + first, cpu_all.begin() + first + m);
    const auto [cpu_ok, cpu_text] =
        against_cpu(cpu_found, wm, cpu, norm, n, eps, "|w - w_cpu|/(|A| n eps)");
    bool ok = info == 0 && ascending && beyond && values < kBound && cpu_ok && padding_kept(a, f);
    std::string vectors;
    if (jobz == 'V') {
        const auto z = block(u, n, m);
        const double residual =
            ratio(distance1(multiply(full, z), scale_columns(z, wm)), norm, n, eps);
        const double orthogonal = ratio(orthogonality(z), 1, n, eps);
        bool kept = padding_kept(u_in, u);
        for (int64_t j = m; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) kept = kept && u(i, j) == u_in(i, j);
        }
        ok = ok && residual < kBound && orthogonal < kBound && kept;
        vectors = format(", u beyond m columns and padding kept=%d, |AZ - ZW|/(|A| n eps)=%.3g, "
                         "|Z^H Z - I|/(n eps)=%.3g",
                         kept, residual, orthogonal);
    }
    report(ok, format("%c%s jobz=%c range=%c uplo=%c n=%lld: info=%d, found=%lld, ascending=%d, "
                      "w beyond m kept=%d, |w - lambda|/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, std::is_floating_point_v<T> ? "syevr" : "heevr", jobz,
                      range, uplo, static_cast<long long>(n), info, static_cast<long long>(m),
                      ascending, beyond, values, cpu_text.c_str(), vectors.c_str()));
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
    const auto sygv = [&](T* work, const Int* lwork) {
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("sygv", &type, &jobz, &uplo, &n, a.v.data(), &lda, b.v.data(), &ldb,
                               w->data(), work, lwork, &info, kFlagLength, kFlagLength);
        } else {
            return call_cpu<T>("hegv", &type, &jobz, &uplo, &n, a.v.data(), &lda, b.v.data(), &ldb,
                               w->data(), work, lwork, rwork.data(), &info, kFlagLength,
                               kFlagLength);
        }
    };
    T query{};
    const Int ask = -1;
    if (!sygv(&query, &ask)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    return sygv(work.data(), &lwork) && info == 0;
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
    if (not_positive_definite) {
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) {
                if (uplo == 'L' ? i >= j : i <= j) b(i, j) = T(i == j ? 4 : 0);
            }
        }
        b(4, 4) = T(-1);
    }
    Matrix<T> f = a, fb = b;
    std::vector<Real<T>> w(static_cast<size_t>(n), Real<T>(-kJunk));
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_SYGVD);
    op.itype = itype;
    op.jobz = jobz;
    op.uplo = uplo;
    op.n = n;
    op.lda = f.ld;
    op.ldb = fb.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotB, fb), operand(kSlotW, w)}, &info));
    const char* const name = std::is_floating_point_v<T> ? "sygvd" : "hegvd";
    const bool kept = triangle_kept(b, fb, uplo, false) && padding_kept(b, fb) && padding_kept(a, f);
    if (not_positive_definite) {
        report(info == n + 5 && kept,
               format("%c%s itype=%lld %c n=%lld, B not positive definite at 5: info=%d (want "
                      "%lld), other triangle and padding kept=%d",
                      Traits<T>::name, name, static_cast<long long>(itype), uplo,
                      static_cast<long long>(n), info, static_cast<long long>(n + 5), kept));
        return;
    }
    const double eps = Traits<T>::eps;
    const auto wa = hermitian_from(a, uplo), wb = hermitian_from(b, uplo);
    bool ascending = true;
    for (int64_t i = 1; i < n; ++i) ascending = ascending && w[i - 1] <= w[i];
    double w_max = 0;
    for (const auto x : w) w_max = std::max(w_max, std::abs(static_cast<double>(x)));
    // The factor of B in fb's uplo triangle.
    const auto factor = triangle_of(fb, uplo, 'N');
    const auto llh = uplo == 'L' ? multiply(factor, apply_op(factor, 'C'))
                                 : multiply(apply_op(factor, 'C'), factor);
    const double cholesky = ratio(distance1(llh, wb), norm1(wb), n, eps);
    std::vector<Real<T>> cpu;
    const auto [cpu_ok, cpu_text] =
        against_cpu(cpu_generalized_eigenvalues(itype, a, b, uplo, &cpu), w, cpu, w_max, n, eps,
                    "|w - w_cpu|/(|w| n eps)");
    bool ok = info == 0 && ascending && kept && cholesky < kBound && cpu_ok;
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
                      static_cast<long long>(n), info, ascending, kept, cholesky,
                      cpu_text.c_str(), vectors.c_str()));
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
    const auto geev = [&](T* work, const Int* lwork) {
        if constexpr (std::is_floating_point_v<T>) {
            return call_cpu<T>("geev", &job, &job, &n, a.v.data(), &lda, wr.data(), wi.data(),
                               &unused, &one, &unused, &one, work, lwork, &info, kFlagLength,
                               kFlagLength);
        } else {
            return call_cpu<T>("geev", &job, &job, &n, a.v.data(), &lda, w.data(), &unused, &one,
                               &unused, &one, work, lwork, rwork.data(), &info, kFlagLength,
                               kFlagLength);
        }
    };
    T query{};
    const Int ask = -1;
    if (!geev(&query, &ask)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    if (!geev(work.data(), &lwork) || info != 0) return false;
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
    const Matrix<W> full0 = multiply(q, multiply(t, apply_op(q, 'C')));
    Matrix<T> a(n, n, 2);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) a(i, j) = static_cast<T>(full0(i, j));
    }
    const auto full = widen(a);
    Matrix<T> f = a;
    // Real: w and wi (or one array of 2n); complex: w of n complex values.
    std::vector<Real<T>> wr(static_cast<size_t>(paired ? 2 * n : n), Real<T>(-kJunk)),
        wi(static_cast<size_t>(n), Real<T>(-kJunk));
    std::vector<T> wc(static_cast<size_t>(n), T(-kJunk));
    Matrix<T> vr(n, jobz == 'V' ? n : 0, 3);
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GEEV);
    op.jobz = jobz;
    op.n = n;
    op.lda = f.ld;
    op.ldu = jobz == 'V' ? vr.ld : 0;
    int info = 0;
    std::vector<Operand> operands{operand(kSlotA, f)};
    if (real && paired) {
        operands.push_back(operand(kSlotWPair, wr));
    } else if (real) {
        operands.push_back(operand(kSlotW, wr));
        operands.push_back(operand(kSlotWI, wi));
    } else {
        operands.push_back(operand(kSlotW, wc));
    }
    if (jobz == 'V') operands.push_back(operand(kSlotU, vr));
    if (operands.size() == 2) {
        CHECK_STATUS(run(op, {operands[0], operands[1]}, &info));
    } else if (operands.size() == 3) {
        CHECK_STATUS(run(op, {operands[0], operands[1], operands[2]}, &info));
    } else {
        CHECK_STATUS(run(op, {operands[0], operands[1], operands[2], operands[3]}, &info));
    }
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
    bool ok = info == 0 && convention && to_known < kBound && to_cpu < kBound &&
              padding_kept(a, f);
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
        ok = ok && residual < kBound && unit_ratio < kBound && largest_ratio < kBound &&
             padding_kept(Matrix<T>(n, n, 3), vr);
        vectors = format(", |AV - VW|/(|A||V| n eps)=%.3g, unit norm (/(n eps))=%.3g, largest "
                         "component real (|Im|/(n eps))=%.3g",
                         residual, unit_ratio, largest_ratio);
    }
    report(ok, format("%cgeev jobz=%c n=%lld%s: info=%d, %spadding kept=%d, |w - known| "
                      "(multisets)/(|A| n eps)=%.3g, %s%s",
                      Traits<T>::name, jobz, static_cast<long long>(n),
                      paired ? " (wi = w + n)" : "", info,
                      real ? (convention ? "pair convention=1, " : "pair convention=0, ") : "",
                      padding_kept(a, f), to_known, cpu_text.c_str(), vectors.c_str()));
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
    const auto gels = [&](T* work, const Int* lwork) {
        return call_cpu<T>("gels", &trans, &m, &n, &nrhs, a.v.data(), &lda, b->v.data(), &ldb,
                           work, lwork, &info, kFlagLength);
    };
    T query{};
    const Int ask = -1;
    if (!gels(&query, &ask)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    return gels(work.data(), &lwork) && info == 0;
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
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GELS);
    op.trans = 'N';
    op.m = m;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotB, x)}, &info));
    const double eps = Traits<T>::eps;
    const auto wa = widen(a), wb = widen(b), wx = block(x, n, nrhs);
    const auto r = [&] {  // A X - B
        Matrix<W> d = multiply(wa, wx);
        for (int64_t j = 0; j < nrhs; ++j) {
            for (int64_t i = 0; i < m; ++i) d(i, j) -= wb(i, j);
        }
        return d;
    }();
    const double scale = norm1(wa) * (norm1(wa) * norm1(wx) + norm1(wb));
    const double normal = ratio(norm1(multiply(apply_op(wa, 'C'), r)), scale, m, eps);
    double residual_rows = 0;  // max over columns | |rows n+1..m| - |A x - b| |
    double residual_scale = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double tail = 0, full = 0;
        for (int64_t i = n; i < m; ++i) tail += std::norm(static_cast<W>(x(i, j)));
        for (int64_t i = 0; i < m; ++i) full += std::norm(r(i, j));
        residual_rows = std::max(residual_rows, std::abs(std::sqrt(tail) - std::sqrt(full)));
        residual_scale = std::max(residual_scale, norm1(wa) * norm1(wx) + norm1(wb));
    }
    const double rows = ratio(residual_rows, residual_scale, m, eps);
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
    const bool padding = padding_kept(a, f) && padding_kept(b, x);
    report(info == 0 && padding && normal < kBound && rows < kBound && factor < kBound &&
               to_cpu < kBound,
           format("%cgels %s nrhs=%lld: info=%d, padding kept=%d, |A^H(AX - B)|/(|A|(|A||X| + "
                  "|B|) m eps)=%.3g, residual rows' norm against |Ax - b| (/(.. m eps))=%.3g, "
                  "|R^H R - A^H A|/(|A|^2 m eps)=%.3g, %s",
                  Traits<T>::name, shape(m, n).c_str(), static_cast<long long>(nrhs), info,
                  padding, normal, rows, factor, cpu_text.c_str()));
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
    const auto gelsd = [&](T* work, const Int* lwork, R* rwork, Int* iwork) {
        if constexpr (std::is_floating_point_v<T>) {
            (void)rwork;
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a.v.data(), &lda, b->v.data(), &ldb,
                               s->data(), &r, &found, work, lwork, iwork, &info);
        } else {
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a.v.data(), &lda, b->v.data(), &ldb,
                               s->data(), &r, &found, work, lwork, rwork, iwork, &info);
        }
    };
    T query{};
    R rquery{};
    Int iquery = 0;
    const Int ask = -1;
    if (!gelsd(&query, &ask, &rquery, &iquery)) return false;
    const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(query)));
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<R> rwork(static_cast<size_t>(std::max<Int>(1, static_cast<Int>(rquery))));
    std::vector<Int> iwork(static_cast<size_t>(std::max<Int>(1, iquery)));
    const bool ran = gelsd(work.data(), &lwork, rwork.data(), iwork.data()) && info == 0;
    *rank = found;
    return ran;
}

// GELSD (m >= n) of a random A, of full rank or (deficient) with its last column equal to its
// first (rank n - 1), with the given rcond: the rank; s descending and equal to the CPU's
// ?gelsd's; X (b's first n rows) against the normal equations (|A^H (A X - B)|) and the CPU's
// minimum-norm solution (deficient: X's first and last rows equal, as the minimum norm
// makes them); with full rank, each column's residual rows (n+1..m) have the 2-norm of
// A x - b; the padding rows kept.
template <typename T>
void gelsd_case(int64_t m, int64_t n, int64_t nrhs, bool deficient, double rcond) {
    using W = Wide<T>;
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
    gpushim_lapack_op op = lapack_op<T>(GPUSHIM_GELSD);
    op.m = m;
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    op.rcond = rcond;
    int info = 0;
    CHECK_STATUS(run(
        op,
        {operand(kSlotA, f), operand(kSlotB, x), operand(kSlotW, s), operand(kSlotFound, found)},
        &info));
    const double eps = Traits<T>::eps;
    bool descending = true;
    for (int64_t i = 1; i < n; ++i) descending = descending && s[i - 1] >= s[i];
    const auto wa = widen(a), wb = widen(b), wx = block(x, n, nrhs);
    const auto r = [&] {  // A X - B
        Matrix<W> d = multiply(wa, wx);
        for (int64_t j = 0; j < nrhs; ++j) {
            for (int64_t i = 0; i < m; ++i) d(i, j) -= wb(i, j);
        }
        return d;
    }();
    const double scale = norm1(wa) * (norm1(wa) * norm1(wx) + norm1(wb));
    const double normal = ratio(norm1(multiply(apply_op(wa, 'C'), r)), scale, m, eps);
    double rows = 0;  // full rank: max over columns | |rows n+1..m| - |A x - b| |, scaled
    if (!deficient) {
        double residual_rows = 0;
        for (int64_t j = 0; j < nrhs; ++j) {
            double tail = 0, full = 0;
            for (int64_t i = n; i < m; ++i) tail += std::norm(static_cast<W>(x(i, j)));
            for (int64_t i = 0; i < m; ++i) full += std::norm(r(i, j));
            residual_rows = std::max(residual_rows, std::abs(std::sqrt(tail) - std::sqrt(full)));
        }
        rows = ratio(residual_rows, norm1(wa) * norm1(wx) + norm1(wb), m, eps);
    }
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
    const bool padding = padding_kept(a, f) && padding_kept(b, x);
    const std::string specific =
        deficient ? format("|x_1 - x_n|/(|X| m eps)=%.3g", symmetric)
                  : format("residual rows' norm against |Ax - b| (/(.. m eps))=%.3g", rows);
    report(info == 0 && rank_ok && descending && s_ok && padding && normal < kBound &&
               rows < kBound && symmetric < kBound && to_cpu < kBound,
           format("%cgelsd %s nrhs=%lld rcond=%g%s: info=%d, rank=%lld (expected %lld), "
                  "descending=%d, padding kept=%d, |A^H(AX - B)|/(|A|(|A||X| + |B|) m eps)=%.3g, "
                  "%s, %s, %s",
                  Traits<T>::name, shape(m, n).c_str(), static_cast<long long>(nrhs), rcond,
                  deficient ? " (two equal columns)" : "", info, static_cast<long long>(found[0]),
                  static_cast<long long>(expected_rank), descending, padding, normal,
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
    gpushim_lapack_op op = lapack_op<double>(GPUSHIM_GESV);
    op.n = n;
    op.nrhs = nrhs;
    op.lda = f.ld;
    op.ldb = x.ld;
    int info = 0;
    double seconds = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, f), operand(kSlotIpiv, ipiv), operand(kSlotB, x)}, &info,
                     &seconds));
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        std::vector<double> y(static_cast<size_t>(n), 0.0), z(static_cast<size_t>(n)),
            xc(static_cast<size_t>(n));
        std::vector<double> row_sums(static_cast<size_t>(n), 0.0);
        for (int64_t j = 0; j < n; ++j) {
            xc[j] = x(j, c);
            for (int64_t i = 0; i < n; ++i) {
                y[i] += a(i, j) * x(j, c);
                row_sums[i] += std::abs(a(i, j));
            }
        }
        for (int64_t i = 0; i < n; ++i) z[i] = b(i, c);
        double norm_x = 0;
        for (double v : xc) norm_x = std::max(norm_x, std::abs(v));
        worst = std::max(
            worst, normwise(y, z, *std::max_element(row_sums.begin(), row_sums.end()), norm_x, n));
    }
    report(info == 0 && worst < kBound,
           format("dgesv n=%lld nrhs=%lld (large): info=%d, |AX - B|/(|A||X| n eps)=%.3g, %.3f s",
                  static_cast<long long>(n), static_cast<long long>(nrhs), info, worst, seconds));
}

void syevd_large(int64_t n) {
    Random g(static_cast<uint64_t>(n * 59));
    Matrix<double> a(n, n, 1);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j; i < n; ++i) a(i, j) = a(j, i) = g.uniform();
    }
    Matrix<double> v = a;
    std::vector<double> w(static_cast<size_t>(n));
    gpushim_lapack_op op = lapack_op<double>(GPUSHIM_SYEVD);
    op.jobz = 'V';
    op.uplo = 'L';
    op.n = n;
    op.lda = v.ld;
    int info = 0;
    double seconds = 0;
    CHECK_STATUS(run(op, {operand(kSlotA, v), operand(kSlotW, w)}, &info, &seconds));
    bool ascending = true;
    for (int64_t i = 1; i < n; ++i) ascending = ascending && w[i - 1] <= w[i];
    // With y random: A (V y) against V (w .* y), and V^T (V y) against y.
    std::vector<double> y(static_cast<size_t>(n)), vy(static_cast<size_t>(n), 0.0),
        avy(static_cast<size_t>(n), 0.0), vwy(static_cast<size_t>(n), 0.0),
        vtvy(static_cast<size_t>(n), 0.0), row_sums(static_cast<size_t>(n), 0.0);
    for (auto& x : y) x = g.uniform();
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            vy[i] += v(i, j) * y[j];
            vwy[i] += v(i, j) * w[j] * y[j];
        }
    }
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
            avy[i] += a(i, j) * vy[j];
            row_sums[i] += std::abs(a(i, j));
            vtvy[j] += v(i, j) * vy[i];
        }
    }
    double norm_y = 0;
    for (double x : y) norm_y = std::max(norm_y, std::abs(x));
    const double norm_a = *std::max_element(row_sums.begin(), row_sums.end());
    const double residual = normwise(avy, vwy, norm_a, norm_y, n);
    const double orthogonal = normwise(vtvy, y, 1.0, norm_y, n);
    report(info == 0 && ascending && residual < kBound && orthogonal < kBound,
           format("dsyevd jobz=V n=%lld (large): info=%d, ascending=%d, |AVy - VWy|/(|A||y| n "
                  "eps)=%.3g, |V^T V y - y|/(|y| n eps)=%.3g, %.3f s",
                  static_cast<long long>(n), info, ascending, residual, orthogonal, seconds));
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
    getrf_large<double>(large_n, large_n);
    getrf_large<double>(large_n / 2, large_n / 4);  // after growth: the workspace is reused
    gesv_large(large_n);
    syevd_large(large_n / 4);

    if (cuda) {
        // A null ipiv would make cuSOLVER factor without pivoting: the plugin refuses it
        // before touching any pointer.
        gpushim_lapack_op op = getrf_op(GPUSHIM_PREC_D, 4, 4, 4);
        op.a = reinterpret_cast<void*>(uintptr_t{0x100});
        op.info = reinterpret_cast<int*>(uintptr_t{0x100});
        const int s = plugin->lapack(&op, queue);
        report(s != 0, format("dgetrf with a null ipiv refused: %d (%s)", s,
                              s != 0 ? plugin->describe_error(s) : "accepted"));
        // Likewise for the kinds that read pivots, and a GESVD that cuSOLVER cannot compute
        // (m < n, or both jobs 'O'): refused, never run with a different meaning.
        void* const fake = reinterpret_cast<void*>(uintptr_t{0x100});
        const auto refused = [&](gpushim_lapack_op refused_op, const char* what) {
            refused_op.a = fake;
            refused_op.b = refused_op.kind == GPUSHIM_GETRI ? nullptr : fake;
            refused_op.w = refused_op.kind == GPUSHIM_GESVD ? fake : nullptr;
            refused_op.u = refused_op.vt = refused_op.kind == GPUSHIM_GESVD ? fake : nullptr;
            refused_op.info = static_cast<int*>(fake);
            const int status = plugin->lapack(&refused_op, queue);
            report(status != 0, format("%s refused: %d (%s)", what, status,
                                       status != 0 ? plugin->describe_error(status) : "accepted"));
        };
        gpushim_lapack_op bad = lapack_op<double>(GPUSHIM_GETRS);
        bad.trans = 'N';
        bad.n = bad.nrhs = bad.lda = bad.ldb = 4;
        refused(bad, "dgetrs with a null ipiv");
        bad.kind = GPUSHIM_GESV;
        bad.trans = 0;
        refused(bad, "dgesv with a null ipiv");
        bad = lapack_op<double>(GPUSHIM_GETRI);
        bad.n = bad.lda = 4;
        refused(bad, "dgetri with a null ipiv");
        bad = lapack_op<double>(GPUSHIM_GESVD);
        bad.jobu = bad.jobvt = 'S';
        bad.m = 3;
        bad.n = bad.lda = bad.ldu = bad.ldvt = 4;
        refused(bad, "dgesvd with m < n");
        bad.jobu = bad.jobvt = 'O';
        bad.m = bad.lda = bad.ldu = 5;
        refused(bad, "dgesvd with both jobs 'O'");
        // The new kinds: what cuSOLVER cannot compute, or a malformed range.
        const auto refused_op = [&](gpushim_lapack_op refused_op, const char* what) {
            const int status = plugin->lapack(&refused_op, queue);
            report(status != 0, format("%s refused: %d (%s)", what, status,
                                       status != 0 ? plugin->describe_error(status) : "accepted"));
        };
        gpushim_lapack_op ev = lapack_op<double>(GPUSHIM_SYEVR);
        ev.jobz = 'V';
        ev.uplo = 'L';
        ev.range = 'I';
        ev.n = ev.lda = ev.ldu = 4;
        ev.il = 3;
        ev.iu = 2;
        ev.a = ev.w = ev.u = fake;
        ev.found = static_cast<int64_t*>(fake);
        ev.info = static_cast<int*>(fake);
        refused_op(ev, "dsyevr with il > iu");
        ev.il = 1;
        ev.iu = 5;
        refused_op(ev, "dsyevr with iu > n");
        ev.range = 'V';
        ev.vl = 1;
        ev.vu = 1;
        refused_op(ev, "dsyevr with vl = vu");
        ev.range = 'X';
        refused_op(ev, "dsyevr with range 'X'");
        ev.range = 'A';
        ev.found = nullptr;
        refused_op(ev, "dsyevr with a null found");
        gpushim_lapack_op gv = lapack_op<double>(GPUSHIM_SYGVD);
        gv.itype = 4;
        gv.jobz = 'V';
        gv.uplo = 'U';
        gv.n = gv.lda = gv.ldb = 4;
        gv.a = gv.b = gv.w = fake;
        gv.info = static_cast<int*>(fake);
        refused_op(gv, "dsygvd with itype 4");
        gpushim_lapack_op ge = lapack_op<double>(GPUSHIM_GEEV);
        ge.jobz = 'V';
        ge.n = ge.lda = ge.ldu = 4;
        ge.a = ge.w = ge.u = fake;
        ge.info = static_cast<int*>(fake);
        refused_op(ge, "dgeev with a null wi");
        gpushim_lapack_op ls = lapack_op<double>(GPUSHIM_GELS);
        ls.trans = 'N';
        ls.m = 3;
        ls.n = 4;
        ls.nrhs = 1;
        ls.lda = ls.ldb = 4;
        ls.a = ls.b = fake;
        ls.info = static_cast<int*>(fake);
        refused_op(ls, "dgels with m < n");
        ls.m = 5;
        ls.lda = ls.ldb = 5;
        ls.trans = 'T';
        refused_op(ls, "dgels with trans 'T'");
        gpushim_lapack_op lsd = lapack_op<double>(GPUSHIM_GELSD);
        lsd.m = 3;
        lsd.n = 4;
        lsd.nrhs = 1;
        lsd.lda = lsd.ldb = 4;
        lsd.rcond = -1;
        lsd.a = lsd.b = lsd.w = fake;
        lsd.found = static_cast<int64_t*>(fake);
        lsd.info = static_cast<int*>(fake);
        refused_op(lsd, "dgelsd with m < n");
        lsd.m = lsd.lda = lsd.ldb = 5;
        lsd.found = nullptr;
        refused_op(lsd, "dgelsd with a null found");
    }
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
