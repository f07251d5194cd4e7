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
//   - all four precisions; then larger calls on the same queue (dpotrf 'L' n, zpotrf 'U'
//     3n/4, dgetrf n x n, with n from --large-n), which make a plugin's workspaces grow,
//     checked by matrix-vector residuals (A x against L (L^H x), P A x against L (U x));
//   - the CUDA plugin only: GETRF with a null ipiv is refused (cuSOLVER would factor
//     without pivoting); queue_destroy succeeds and gives the workspaces back.
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
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/device_interface.h"

namespace {

constexpr int kSkipped = 77;

const gpushim_device_plugin* plugin = nullptr;
gpushim_queue queue = nullptr;
int failures = 0;

// A failed plugin call ends the current case as a failure.
#define CHECK_STATUS(call)                                                                \
    do {                                                                                  \
        const int status_ = (call);                                                       \
        if (status_ != 0) {                                                               \
            std::printf("FAIL %s:%d %s -> %d (%s)\n", __FILE__, __LINE__, #call, status_, \
                        plugin->describe_error(status_));                                 \
            ++failures;                                                                   \
            return;                                                                       \
        }                                                                                 \
    } while (0)

void report(bool ok, const std::string& line) {
    failures += ok ? 0 : 1;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", line.c_str());
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buffer[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    return buffer;
}

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

struct DeviceBlock {
    void* pointer = nullptr;
    DeviceBlock() = default;
    DeviceBlock(const DeviceBlock&) = delete;
    DeviceBlock& operator=(const DeviceBlock&) = delete;
    ~DeviceBlock() {
        if (pointer != nullptr) plugin->device_free(pointer);
    }
};

// Runs `op` on a device copy of the column-major host matrix `a` (lda x n) and copies a,
// the pivots (when `ipiv` is given) and INFO back. `seconds`: the lapack call alone.
template <typename T>
int run_op(gpushim_lapack_op op, std::vector<T>& a, std::vector<int64_t>* ipiv, int* info,
           double* seconds) {
    DeviceBlock dev_a, dev_ipiv, dev_info;
    const size_t column_bytes = sizeof(T) * static_cast<size_t>(op.lda);
    const size_t columns = static_cast<size_t>(op.n);
    const size_t pivot_bytes = ipiv != nullptr ? sizeof(int64_t) * ipiv->size() : 0;
    int s = plugin->device_alloc(&dev_a.pointer, column_bytes * columns);
    if (s == 0 && ipiv != nullptr) s = plugin->device_alloc(&dev_ipiv.pointer, pivot_bytes);
    if (s == 0) s = plugin->device_alloc(&dev_info.pointer, sizeof(int));
    if (s == 0) {
        s = plugin->copy_to_device_2d(dev_a.pointer, column_bytes, a.data(), column_bytes,
                                      column_bytes, columns, queue);
    }
    if (s == 0) s = plugin->queue_synchronize(queue);
    op.a = dev_a.pointer;
    op.ipiv = static_cast<int64_t*>(dev_ipiv.pointer);
    op.info = static_cast<int*>(dev_info.pointer);
    const auto t0 = std::chrono::steady_clock::now();
    if (s == 0) s = plugin->lapack(&op, queue);
    if (s == 0) s = plugin->queue_synchronize(queue);
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s == 0) {
        s = plugin->copy_to_host_2d(a.data(), column_bytes, dev_a.pointer, column_bytes,
                                    column_bytes, columns, queue);
    }
    if (s == 0 && ipiv != nullptr) {
        s = plugin->copy_to_host_2d(ipiv->data(), pivot_bytes, dev_ipiv.pointer, pivot_bytes,
                                    pivot_bytes, 1, queue);
    }
    if (s == 0) {
        s = plugin->copy_to_host_2d(info, sizeof(int), dev_info.pointer, sizeof(int), sizeof(int),
                                    1, queue);
    }
    if (s == 0) s = plugin->queue_synchronize(queue);
    return s;
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

void log_message(int level, const char* message) {
    std::printf("  [plugin log %d] %s\n", level, message);
}

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

int usage() {
    std::printf("usage: plugin_lapack_check [--large-n N] PLUGIN.so\n");
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    int64_t large_n = 1024;
    const char* path = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--large-n") == 0 && i + 1 < argc) {
            large_n = std::strtoll(argv[++i], nullptr, 10);
            if (large_n < 8) return usage();
        } else if (path == nullptr && argv[i][0] != '-') {
            path = argv[i];
        } else {
            return usage();
        }
    }
    if (path == nullptr) return usage();

    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        std::printf("FAIL dlopen(%s): %s\n", path, dlerror());
        return 1;
    }
    auto entry =
        reinterpret_cast<gpushim_device_plugin_entry>(dlsym(library, GPUSHIM_DEVICE_PLUGIN_ENTRY));
    if (entry == nullptr || (plugin = entry()) == nullptr ||
        plugin->interface_version != GPUSHIM_DEVICE_INTERFACE_VERSION) {
        std::printf("FAIL %s: no %s of interface version %d\n", path, GPUSHIM_DEVICE_PLUGIN_ENTRY,
                    GPUSHIM_DEVICE_INTERFACE_VERSION);
        return 1;
    }
    const bool hostsim = std::strcmp(plugin->name, "hostsim") == 0;
    const bool cuda = std::strcmp(plugin->name, "cuda") == 0;
    if (hostsim) {
        for (const char* name : {"spotrf_", "dpotrf_", "cpotrf_", "zpotrf_", "sgetrf_", "dgetrf_",
                                 "cgetrf_", "zgetrf_"}) {
            if (resolve_cpu_symbol(name) == nullptr) {
                std::printf(
                    "SKIP: the host-simulated plugin needs a CPU LAPACK "
                    "(liblapack.so.3 or libopenblas.so.0) with %s\n",
                    name);
                return kSkipped;
            }
        }
    }
    const gpushim_host_services services{resolve_cpu_symbol, log_message};
    if (const int s = plugin->init(&services)) {
        std::printf("SKIP: %s plugin: init() -> %d (%s): no usable device\n", plugin->name, s,
                    plugin->describe_error(s));
        return kSkipped;
    }
    std::printf("plugin %s (%s): %s; large n = %lld\n", plugin->name, path,
                plugin->device_description(), static_cast<long long>(large_n));
    if (const int s = plugin->queue_create(&queue)) {
        std::printf("FAIL queue_create -> %d (%s)\n", s, plugin->describe_error(s));
        return 1;
    }
    size_t free_at_start = 0, total = 0;
    plugin->memory_info(&free_at_start, &total);

    small_cases<float>();
    small_cases<double>();
    small_cases<std::complex<float>>();
    small_cases<std::complex<double>>();
    // Larger calls on the same queue: workspaces grow (and a time, for scale).
    potrf_large<double>('L', large_n);
    potrf_large<std::complex<double>>('U', large_n * 3 / 4);
    getrf_large<double>(large_n, large_n);
    getrf_large<double>(large_n / 2, large_n / 4);  // after growth: the workspace is reused

    if (cuda) {
        // A null ipiv would make cuSOLVER factor without pivoting: the plugin refuses it
        // before touching any pointer.
        gpushim_lapack_op op = getrf_op(GPUSHIM_PREC_D, 4, 4, 4);
        op.a = reinterpret_cast<void*>(uintptr_t{0x100});
        op.info = reinterpret_cast<int*>(uintptr_t{0x100});
        const int s = plugin->lapack(&op, queue);
        report(s != 0, format("dgetrf with a null ipiv refused: %d (%s)", s,
                              s != 0 ? plugin->describe_error(s) : "accepted"));
    }
    size_t free_after = 0;
    plugin->memory_info(&free_after, &total);
    std::printf("     device memory held by the queue after the run (workspaces): %.1f MiB\n",
                (static_cast<double>(free_at_start) - static_cast<double>(free_after)) / (1 << 20));
    const int destroyed = plugin->queue_destroy(queue);
    report(destroyed == 0, format("queue_destroy -> %d", destroyed));
    size_t free_at_end = 0;
    plugin->memory_info(&free_at_end, &total);
    std::printf(
        "     device memory after queue_destroy, against the start: %.1f MiB\n",
        (static_cast<double>(free_at_start) - static_cast<double>(free_at_end)) / (1 << 20));
    std::printf("%d failure(s)\n", failures);
    return failures == 0 ? 0 : 1;
}
