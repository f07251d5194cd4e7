// plugin_fft_check: the FFT entries of one device plugin (gpu/device_interface.h:
// fft_plan_create, fft_execute, fft_plan_destroy), checked numerically on the plugin alone,
// loaded with dlopen as libgpushim.so loads it:
//
//   - C2C (sign -1 and +1), R2C and C2R, in double and float, of ranks 1, 2 and 3: sizes with
//     the factors 2, 3, 5 and 7, odd sizes, the primes 101 and 1009, batches (howmany > 1);
//     R2C and C2R are described with the contrary sign, which the plugin must ignore;
//   - every output element against the DFT's definition, summed directly in long double (no FFT
//     algorithm involved), and, where the CPU's FFTW loads (libfftw3.so.3, libfftw3f.so.3),
//     against FFTW's guru64 transform of the same input. C2R's input is an exactly Hermitian
//     half spectrum (FFTW's assumption), whose real transform the direct sum gives as well;
//   - the error as the relative 2-norm |y - ref| / |ref| over the batch, in units of
//     eps log2(N) (N: the points of one transform), within kBound;
//   - C2C's and R2C's inputs unchanged (only C2R may overwrite its own), nothing written past
//     the output's end;
//   - one plan of each kind and precision executed on a second queue right after the first
//     execution, before anything waits for it, on twice the input: twice the result;
//   - C2C in place (the output array is the input array) of ranks 1, 2 and 3, batched;
//   - descriptions the interface does not allow are refused (rank 0 and 4, a size or howmany of
//     0, a negative size, a complex precision, an unknown kind, a C2C sign of 0, element counts
//     beyond int64);
//   - with --large: 1-D 2^22 C2C, 2-D 2048 x 2048 R2C and C2R (double), 3-D 256^3 C2C and 4096
//     transforms of the prime 1009 (float), 3-D 256^3 C2C in place (double), against the direct sum
//     at sampled outputs of the first and last transform and against FFTW everywhere, with the time
//     of the execution.
// Without FFTW (the CUDA plugin on a machine without it), the comparisons with FFTW are
// skipped and said so; everything else still runs.
//
// Usage: plugin_fft_check [--large] PLUGIN.so
// Exit status: 0 every check passed; 1 a check failed, or the plugin could not be loaded;
// 77 skipped (CTest SKIP_RETURN_CODE): the plugin's init() failed (no GPU), or the
// host-simulated plugin found no CPU FFTW to run on.
//
// Plain C++ (no GoogleTest, no FFTW header), so that it also builds on the GPU machine.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/device_interface.h"
#include "plugin_check_harness.h"

namespace {

using namespace gpushim::plugin_check;  // NOLINT(google-build-using-namespace)

// c in the error bound c eps log2(N): FFT errors grow like eps sqrt(log2 N) on average and
// eps log2 N at worst; both the plugin's and FFTW's count.
constexpr double kBound = 10;
// Elements after the output, which the plugin must leave as they are.
constexpr size_t kGuard = 64;

gpushim_queue second_queue = nullptr;

template <typename R>
struct Traits;
template <>
struct Traits<float> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_S;
    static constexpr const char* name = "float";
    static constexpr double eps = 6e-8;
};
template <>
struct Traits<double> {
    static constexpr gpushim_precision precision = GPUSHIM_PREC_D;
    static constexpr const char* name = "double";
    static constexpr double eps = 1.1e-16;
};

// splitmix64: fast, deterministic, good enough for test data.
struct Random {
    uint64_t state;
    explicit Random(uint64_t seed) : state(seed * 0x9e3779b97f4a7c15ULL + 1) {}
    uint64_t bits() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() {  // in (-1, 1)
        return static_cast<double>(bits() >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
};

// ---- the cases --------------------------------------------------------------------------------

// Sizes padded to three dimensions with leading 1s, so that every walk is a triple loop.
struct Extents {
    int64_t n[3] = {1, 1, 1};
    int64_t count() const { return n[0] * n[1] * n[2]; }
};

struct Case {
    gpushim_fft_kind kind;
    int sign;  // C2C: the direction; R2C, C2R: a value the plugin must ignore
    int rank;
    int64_t n[3];
    int64_t howmany;

    Extents spatial() const {
        Extents e;
        for (int d = 0; d < rank; ++d) e.n[3 - rank + d] = n[d];
        return e;
    }
    Extents spectral() const {  // the half spectrum of a real transform
        Extents e = spatial();
        if (kind != GPUSHIM_FFT_C2C) e.n[2] = e.n[2] / 2 + 1;
        return e;
    }
    Extents input() const { return kind == GPUSHIM_FFT_C2R ? spectral() : spatial(); }
    Extents output() const { return kind == GPUSHIM_FFT_R2C ? spectral() : spatial(); }
    bool complex_input() const { return kind != GPUSHIM_FFT_R2C; }
    bool complex_output() const { return kind != GPUSHIM_FFT_C2R; }

    std::string text() const {
        static constexpr const char* kKinds[] = {"c2c", "r2c", "c2r"};
        std::string sizes;
        for (int d = 0; d < rank; ++d) {
            if (d > 0) sizes += 'x';
            sizes += std::to_string(n[d]);
        }
        return format("%s sign %+d n=%s howmany=%lld", kKinds[kind], sign, sizes.c_str(),
                      static_cast<long long>(howmany));
    }
};

template <typename R>
gpushim_fft_desc describe(const Case& c) {
    gpushim_fft_desc desc{};
    desc.kind = c.kind;
    desc.precision = Traits<R>::precision;
    desc.sign = c.sign;
    desc.rank = c.rank;
    for (int d = 0; d < c.rank; ++d) desc.n[d] = c.n[d];
    desc.howmany = c.howmany;
    return desc;
}

// An exactly Hermitian half spectrum, as C2R assumes its input to be (so that every correct
// implementation gives the same result): the planes of the last index 0 and, for an even last
// size, n/2 are Hermitian in the other indices, Y(-k0, -k1) = conj(Y(k0, k1)).
template <typename R>
void make_hermitian(const Case& c, R* spectrum) {
    const Extents half = c.spectral(), full = c.spatial();
    for (int64_t k2 : {int64_t{0}, full.n[2] / 2}) {
        if (k2 == full.n[2] / 2 && full.n[2] % 2 != 0) continue;
        for (int64_t k0 = 0; k0 < half.n[0]; ++k0) {
            for (int64_t k1 = 0; k1 < half.n[1]; ++k1) {
                const int64_t p0 = (half.n[0] - k0) % half.n[0], p1 = (half.n[1] - k1) % half.n[1];
                const int64_t self = (k0 * half.n[1] + k1) * half.n[2] + k2;
                const int64_t partner = (p0 * half.n[1] + p1) * half.n[2] + k2;
                if (partner == self) {
                    spectrum[2 * self + 1] = 0;
                } else if (partner < self) {  // the partner is kept as drawn
                    spectrum[2 * self] = spectrum[2 * partner];
                    spectrum[2 * self + 1] = -spectrum[2 * partner + 1];
                }
            }
        }
    }
}

// ---- the direct sum -----------------------------------------------------------------------------

// The DFT's definition summed term by term in long double, with exp(2 pi i m / n_d) from
// per-dimension tables.
class Dft {
  public:
    explicit Dft(const Extents& n) : n_(n) {
        const long double two_pi = 2 * std::acos(-1.0L);
        for (int d = 0; d < 3; ++d) {
            cos_[d].resize(static_cast<size_t>(n.n[d]));
            sin_[d].resize(static_cast<size_t>(n.n[d]));
            for (int64_t m = 0; m < n.n[d]; ++m) {
                const long double angle =
                    two_pi * static_cast<long double>(m) / static_cast<long double>(n.n[d]);
                cos_[d][m] = std::cos(angle);
                sin_[d][m] = std::sin(angle);
            }
        }
    }

    // Calls term(j, c, s) for every multi-index of `extent`, j being its row-major index, with
    // c + i s = exp(sign 2 pi i sum_d j_d k_d / n_d).
    template <typename Term>
    void sum(const Extents& extent, const int64_t k[3], int sign, Term term) const {
        int64_t j = 0, m0 = 0;
        for (int64_t j0 = 0; j0 < extent.n[0]; ++j0) {
            int64_t m1 = 0;
            for (int64_t j1 = 0; j1 < extent.n[1]; ++j1) {
                const long double c01 = cos_[0][m0] * cos_[1][m1] - sin_[0][m0] * sin_[1][m1];
                const long double s01 = cos_[0][m0] * sin_[1][m1] + sin_[0][m0] * cos_[1][m1];
                int64_t m2 = 0;
                for (int64_t j2 = 0; j2 < extent.n[2]; ++j2, ++j) {
                    const long double c = c01 * cos_[2][m2] - s01 * sin_[2][m2];
                    const long double s = c01 * sin_[2][m2] + s01 * cos_[2][m2];
                    term(j, c, sign * s);
                    m2 = next(m2, k[2], 2);
                }
                m1 = next(m1, k[1], 1);
            }
            m0 = next(m0, k[0], 0);
        }
    }

  private:
    int64_t next(int64_t m, int64_t k, int d) const {
        m += k;
        return m >= n_.n[d] ? m - n_.n[d] : m;
    }

    Extents n_;
    std::vector<long double> cos_[3], sin_[3];
};

// The exact transform of one batch entry `in` at the output multi-index k.
template <typename R>
void exact_at(const Case& c, const Dft& dft, const R* in, const int64_t k[3], long double* re,
              long double* im) {
    long double sum_re = 0, sum_im = 0;
    switch (c.kind) {
        case GPUSHIM_FFT_C2C:
            dft.sum(c.input(), k, c.sign, [&](int64_t j, long double cs, long double sn) {
                const long double x_re = in[2 * j], x_im = in[2 * j + 1];
                sum_re += x_re * cs - x_im * sn;
                sum_im += x_re * sn + x_im * cs;
            });
            break;
        case GPUSHIM_FFT_R2C:
            dft.sum(c.input(), k, -1, [&](int64_t j, long double cs, long double sn) {
                sum_re += in[j] * cs;
                sum_im += in[j] * sn;
            });
            break;
        case GPUSHIM_FFT_C2R: {
            // Over the whole spectrum, every term of the half spectrum outside the planes
            // kept whole (last index 0, and n/2 when even) has its conjugate partner: the sum
            // is that of the half spectrum, those terms counted twice, real parts only.
            const int64_t half = c.input().n[2], n_last = c.spatial().n[2];
            dft.sum(c.input(), k, +1, [&](int64_t j, long double cs, long double sn) {
                const int64_t k_last = j % half;
                const long double weight = k_last == 0 || 2 * k_last == n_last ? 1 : 2;
                sum_re += weight * (in[2 * j] * cs - in[2 * j + 1] * sn);
            });
            break;
        }
    }
    *re = sum_re;
    *im = sum_im;
}

// |y - ref| and |ref| (2-norms) over the elements compared.
struct Deviation {
    long double diff2 = 0, ref2 = 0;
    void add(long double y_re, long double y_im, long double ref_re, long double ref_im) {
        diff2 += (y_re - ref_re) * (y_re - ref_re) + (y_im - ref_im) * (y_im - ref_im);
        ref2 += ref_re * ref_re + ref_im * ref_im;
    }
    // In units of eps log2(N); NaN when y holds one, which no bound accepts.
    double ratio(double eps, const Case& c) const {
        const double log2n = std::max(1.0, std::log2(static_cast<double>(c.spatial().count())));
        const double relative = ref2 > 0 ? std::sqrt(static_cast<double>(diff2 / ref2))
                                         : std::sqrt(static_cast<double>(diff2));
        return relative / (eps * log2n);
    }
};

// ---- FFTW, the second reference -----------------------------------------------------------------

// fftw_iodim64, and the planner flag FFTW_ESTIMATE (fftw3.h), declared here so that the check
// needs no FFTW header.
struct IoDim64 {
    std::ptrdiff_t n, is, os;
};
constexpr unsigned kFftwEstimate = 1U << 6;

// FFTW's guru64 planners, for one precision. The arrays are void*: double*, fftw_complex*,
// float* and fftwf_complex* are passed alike.
struct Fftw {
    void* (*plan_dft)(int, const IoDim64*, int, const IoDim64*, void*, void*, int,
                      unsigned) = nullptr;
    void* (*plan_r2c)(int, const IoDim64*, int, const IoDim64*, void*, void*, unsigned) = nullptr;
    void* (*plan_c2r)(int, const IoDim64*, int, const IoDim64*, void*, void*, unsigned) = nullptr;
    void (*execute)(void*) = nullptr;
    void (*destroy)(void*) = nullptr;
    bool loaded = false;
};
Fftw fftw_double, fftw_float;

template <typename R>
const Fftw& fftw() {
    if constexpr (std::is_same_v<R, double>) {
        return fftw_double;
    } else {
        return fftw_float;
    }
}

// FFTW's transform of the whole batch: false when it could not be planned.
template <typename R>
bool fftw_transform(const Case& c, std::vector<R> in, std::vector<R>* out) {
    // Packed row-major: strides grow from the fastest dimension, in elements of each array.
    const Extents input = c.input(), output = c.output(), full = c.spatial();
    IoDim64 dims[3];
    std::ptrdiff_t in_stride = 1, out_stride = 1;
    for (int d = 2; d >= 3 - c.rank; --d) {
        dims[d - (3 - c.rank)] = {full.n[d], in_stride, out_stride};
        in_stride *= input.n[d];
        out_stride *= output.n[d];
    }
    const IoDim64 batch{c.howmany, in_stride, out_stride};
    const Fftw& f = fftw<R>();
    void* plan = nullptr;
    switch (c.kind) {
        case GPUSHIM_FFT_C2C:
            plan =
                f.plan_dft(c.rank, dims, 1, &batch, in.data(), out->data(), c.sign, kFftwEstimate);
            break;
        case GPUSHIM_FFT_R2C:
            plan = f.plan_r2c(c.rank, dims, 1, &batch, in.data(), out->data(), kFftwEstimate);
            break;
        case GPUSHIM_FFT_C2R:
            plan = f.plan_c2r(c.rank, dims, 1, &batch, in.data(), out->data(), kFftwEstimate);
            break;
    }
    if (plan == nullptr) return false;
    f.execute(plan);
    f.destroy(plan);
    return true;
}

// ---- plugin resources ---------------------------------------------------------------------------

// A plan that a failed case still destroys; a case that gets so far destroys it itself, to
// check the status.
struct Plan {
    gpushim_fft_plan plan = nullptr;
    Plan() = default;
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan() {
        if (plan != nullptr) plugin->fft_plan_destroy(plan);
    }
    int destroy() {
        const int status = plugin->fft_plan_destroy(plan);
        plan = nullptr;
        return status;
    }
};

template <typename R>
int upload(DeviceBlock& block, const std::vector<R>& host, gpushim_queue on) {
    const size_t bytes = sizeof(R) * host.size();
    const int s = plugin->device_alloc(&block.pointer, bytes);
    if (s != 0) return s;
    return plugin->copy_to_device_2d(block.pointer, bytes, host.data(), bytes, bytes, 1, on);
}

template <typename R>
int download(std::vector<R>& host, const DeviceBlock& block, gpushim_queue on) {
    const size_t bytes = sizeof(R) * host.size();
    return plugin->copy_to_host_2d(host.data(), bytes, block.pointer, bytes, bytes, 1, on);
}

// ---- one case -----------------------------------------------------------------------------------

enum class Scope {
    kEverywhere,  // every output element against the direct sum
    kSampled,     // a few outputs of the first and last transform (large cases)
};

enum class Placement {
    kOutOfPlace,
    kInPlace,  // C2C only: the output array is the input array
};

// Runs `c` on the plugin and checks it. `twice`: the plan also runs on the second queue, on twice
// the input, before the first execution is waited for (out of place only).
template <typename R>
void fft_case(const Case& c, bool twice = false, Scope scope = Scope::kEverywhere,
              Placement placement = Placement::kOutOfPlace) {
    constexpr R kSentinel = R(-12345.5);
    const Extents in_extents = c.input(), out_extents = c.output();
    const size_t in_per = static_cast<size_t>(in_extents.count()) * (c.complex_input() ? 2 : 1);
    const size_t out_per = static_cast<size_t>(out_extents.count()) * (c.complex_output() ? 2 : 1);
    const size_t batch = static_cast<size_t>(c.howmany);
    Random g(static_cast<uint64_t>(c.kind * 1000003 + c.n[0] * 101 + c.n[1] * 7 + c.howmany));
    std::vector<R> in(in_per * batch);
    for (auto& x : in) x = R(g.uniform());
    if (c.kind == GPUSHIM_FFT_C2R) {
        for (size_t b = 0; b < batch; ++b) make_hermitian(c, in.data() + b * in_per);
    }
    std::vector<R> in2(twice ? in.size() : 0);
    for (size_t i = 0; i < in2.size(); ++i) in2[i] = 2 * in[i];

    const gpushim_fft_desc desc = describe<R>(c);
    Plan plan;
    CHECK_STATUS(plugin->fft_plan_create(&desc, &plan.plan));
    std::vector<R> out(out_per * batch + kGuard, kSentinel),
        out2(twice ? out.size() : 0, kSentinel);
    const bool in_place = placement == Placement::kInPlace;
    DeviceBlock dev_in, dev_out, dev_in2, dev_out2;
    // In place: the input, then the guard the output must leave alone, in one array. It lives
    // until the queue is synchronised below: an asynchronous copy from pageable memory may
    // read its source after the call has returned.
    std::vector<R> in_then_guard;
    if (in_place) {
        in_then_guard = in;
        in_then_guard.resize(out.size(), kSentinel);
        CHECK_STATUS(upload(dev_in, in_then_guard, queue));
    } else {
        CHECK_STATUS(upload(dev_in, in, queue));
        CHECK_STATUS(upload(dev_out, out, queue));
    }
    const DeviceBlock& dev_result = in_place ? dev_in : dev_out;
    if (twice) {
        CHECK_STATUS(upload(dev_in2, in2, second_queue));
        CHECK_STATUS(upload(dev_out2, out2, second_queue));
        CHECK_STATUS(plugin->queue_synchronize(second_queue));
    }
    CHECK_STATUS(plugin->queue_synchronize(queue));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_STATUS(plugin->fft_execute(plan.plan, dev_in.pointer, dev_result.pointer, queue));
    if (twice) {
        CHECK_STATUS(
            plugin->fft_execute(plan.plan, dev_in2.pointer, dev_out2.pointer, second_queue));
        // The later execution's queue first: it must wait for the earlier one, with which it
        // shares the plan's work area.
        CHECK_STATUS(plugin->queue_synchronize(second_queue));
    }
    CHECK_STATUS(plugin->queue_synchronize(queue));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<R> in_after(in_place ? 0 : in.size());
    CHECK_STATUS(download(out, dev_result, queue));
    if (!in_place) CHECK_STATUS(download(in_after, dev_in, queue));
    if (twice) CHECK_STATUS(download(out2, dev_out2, second_queue));
    CHECK_STATUS(plugin->queue_synchronize(queue));
    if (twice) CHECK_STATUS(plugin->queue_synchronize(second_queue));
    const int destroyed = plan.destroy();

    // Out of place, only C2R may overwrite its input; nothing may be written past the output.
    const bool input_kept = in_place || c.kind == GPUSHIM_FFT_C2R ||
                            std::memcmp(in.data(), in_after.data(), sizeof(R) * in.size()) == 0;
    bool guard_kept = true;
    for (const auto* o : {&out, &out2}) {
        if (o->empty()) continue;
        guard_kept = guard_kept &&
                     std::all_of(o->end() - kGuard, o->end(), [&](R x) { return x == kSentinel; });
    }

    const auto value = [&](const std::vector<R>& y, size_t b, int64_t o, long double* re,
                           long double* im) {
        const size_t at = b * out_per + static_cast<size_t>(o) * (c.complex_output() ? 2 : 1);
        *re = y[at];
        *im = c.complex_output() ? y[at + 1] : 0;
    };

    // Against the direct sum: every output, or a few of the first and last transform.
    const Dft dft(c.spatial());
    Deviation exact, exact2;
    const auto compare_at = [&](size_t b, int64_t o) {
        const int64_t k[3] = {o / (out_extents.n[1] * out_extents.n[2]),
                              o / out_extents.n[2] % out_extents.n[1], o % out_extents.n[2]};
        long double ref_re = 0, ref_im = 0, y_re = 0, y_im = 0;
        exact_at(c, dft, in.data() + b * in_per, k, &ref_re, &ref_im);
        value(out, b, o, &y_re, &y_im);
        exact.add(y_re, y_im, ref_re, ref_im);
        if (twice) {
            value(out2, b, o, &y_re, &y_im);
            exact2.add(y_re, y_im, 2 * ref_re, 2 * ref_im);
        }
    };
    const int64_t outputs = out_extents.count();
    if (scope == Scope::kEverywhere) {
        for (size_t b = 0; b < batch; ++b) {
            for (int64_t o = 0; o < outputs; ++o) compare_at(b, o);
        }
    } else {
        for (size_t b = 0; b < batch; b += std::max<size_t>(1, batch - 1)) {
            for (int64_t o : {int64_t{0}, int64_t{1}, outputs - 1}) compare_at(b, o);
            for (int i = 0; i < 5; ++i) compare_at(b, static_cast<int64_t>(g.bits() % outputs));
        }
    }
    const double exact_ratio = exact.ratio(Traits<R>::eps, c);
    bool ok = destroyed == 0 && input_kept && guard_kept && exact_ratio < kBound;
    std::string line = format("%s %s%s: |y - dft|/|dft| = %.3g", Traits<R>::name, c.text().c_str(),
                              in_place ? " in place" : "", exact_ratio);
    if (twice) {
        const double ratio = exact2.ratio(Traits<R>::eps, c);
        ok = ok && ratio < kBound;
        line += format(", on the second queue (2x input) %.3g", ratio);
    }

    // Against FFTW, every output.
    if (fftw<R>().loaded) {
        std::vector<R> reference(out_per * batch);
        if (!fftw_transform(c, in, &reference)) {
            ok = false;
            line += ", FFTW could not plan it";
        } else {
            Deviation against_fftw;
            for (size_t i = 0; i < reference.size(); i += c.complex_output() ? 2 : 1) {
                const bool complex = c.complex_output();
                against_fftw.add(out[i], complex ? out[i + 1] : 0, reference[i],
                                 complex ? reference[i + 1] : 0);
            }
            const double ratio = against_fftw.ratio(Traits<R>::eps, c);
            ok = ok && ratio < kBound;
            line += format(", |y - fftw|/|fftw| = %.3g", ratio);
        }
    }
    line +=
        format(" (eps log2 N); input kept=%d, nothing past the output=%d", input_kept, guard_kept);
    if (destroyed != 0) {
        line +=
            format("; fft_plan_destroy -> %d (%s)", destroyed, plugin->describe_error(destroyed));
    }
    if (scope == Scope::kSampled) line += format("; %.3f s", seconds);
    report(ok, line);
}

// ---- the suites ---------------------------------------------------------------------------------

Case c2c(int sign, std::initializer_list<int64_t> n, int64_t howmany) {
    Case c{GPUSHIM_FFT_C2C, sign, static_cast<int>(n.size()), {}, howmany};
    std::copy(n.begin(), n.end(), c.n);
    return c;
}

// R2C is forward and C2R backward: they are described with the other sign.
Case r2c(std::initializer_list<int64_t> n, int64_t howmany) {
    Case c = c2c(+1, n, howmany);
    c.kind = GPUSHIM_FFT_R2C;
    return c;
}

Case c2r(std::initializer_list<int64_t> n, int64_t howmany) {
    Case c = c2c(-1, n, howmany);
    c.kind = GPUSHIM_FFT_C2R;
    return c;
}

template <typename R>
void small_cases() {
    for (int sign : {-1, +1}) {
        fft_case<R>(c2c(sign, {2}, 1));
        fft_case<R>(c2c(sign, {15}, 2));
        fft_case<R>(c2c(sign, {64}, 1));
        fft_case<R>(c2c(sign, {210}, 3));  // 2 3 5 7
        fft_case<R>(c2c(sign, {1009}, 1));
        fft_case<R>(c2c(sign, {12, 35}, 2), true);
        fft_case<R>(c2c(sign, {7, 101}, 1));
        fft_case<R>(c2c(sign, {8, 9, 10}, 2));
        fft_case<R>(c2c(sign, {5, 7, 11}, 1));
        fft_case<R>(c2c(sign, {3, 4, 25}, 1));
        fft_case<R>(c2c(sign, {210}, 3), false, Scope::kEverywhere, Placement::kInPlace);
        fft_case<R>(c2c(sign, {12, 35}, 2), false, Scope::kEverywhere, Placement::kInPlace);
        fft_case<R>(c2c(sign, {8, 9, 10}, 2), false, Scope::kEverywhere, Placement::kInPlace);
    }
    for (const auto& real : {r2c, c2r}) {
        fft_case<R>(real({2}, 1));
        fft_case<R>(real({16}, 3));
        fft_case<R>(real({15}, 1));
        fft_case<R>(real({210}, 1));
        fft_case<R>(real({1009}, 2));
        fft_case<R>(real({6, 10}, 2), true);
        fft_case<R>(real({9, 7}, 1));
        fft_case<R>(real({12, 35}, 1));
        fft_case<R>(real({7, 101}, 1));
        fft_case<R>(real({4, 6, 8}, 2));
        fft_case<R>(real({3, 5, 7}, 1));
        fft_case<R>(real({8, 9, 10}, 1));
    }
}

void large_cases() {
    fft_case<double>(c2c(-1, {int64_t{1} << 22}, 1), false, Scope::kSampled);
    fft_case<double>(r2c({2048, 2048}, 1), false, Scope::kSampled);
    fft_case<double>(c2r({2048, 2048}, 1), false, Scope::kSampled);
    fft_case<float>(c2c(+1, {256, 256, 256}, 1), false, Scope::kSampled);
    fft_case<double>(c2c(+1, {256, 256, 256}, 1), false, Scope::kSampled, Placement::kInPlace);
    fft_case<float>(c2c(-1, {1009}, 4096), false, Scope::kSampled);
}

// Descriptions outside the interface: fft_plan_create must fail, and touch nothing.
void refusals() {
    const auto refused = [](gpushim_fft_desc desc, const char* what) {
        gpushim_fft_plan plan = nullptr;
        const int status = plugin->fft_plan_create(&desc, &plan);
        if (status == 0) plugin->fft_plan_destroy(plan);
        report(status != 0, format("%s refused: %d (%s)", what, status,
                                   status != 0 ? plugin->describe_error(status) : "accepted"));
    };
    const gpushim_fft_desc good = describe<double>(c2c(-1, {8, 8}, 1));
    gpushim_fft_desc bad = good;
    bad.rank = 0;
    refused(bad, "rank 0");
    bad = good;
    bad.rank = 4;
    refused(bad, "rank 4");
    bad = good;
    bad.n[1] = 0;
    refused(bad, "a size of 0");
    bad = good;
    bad.n[0] = -8;
    refused(bad, "a negative size");
    bad = good;
    bad.howmany = 0;
    refused(bad, "howmany 0");
    bad = good;
    bad.precision = GPUSHIM_PREC_Z;
    refused(bad, "precision Z");
    bad = good;
    const int unknown_kind = 7;  // stored as a C caller may: not a value of the enumeration
    static_assert(sizeof bad.kind == sizeof unknown_kind);
    std::memcpy(&bad.kind, &unknown_kind, sizeof unknown_kind);
    refused(bad, "kind 7");
    bad = good;
    bad.sign = 0;
    refused(bad, "a C2C with sign 0");
    bad = good;
    bad.rank = 3;
    bad.n[0] = bad.n[1] = bad.n[2] = int64_t{1} << 31;
    refused(bad, "2^93 elements");
    bad = describe<float>(r2c({int64_t{1} << 40, int64_t{1} << 40}, 1));
    refused(bad, "an R2C of 2^80 elements");

    // With the host refusing the device memory the plugin would take for its work area, a
    // plan of a prime length (cuFFT's Bluestein algorithm works in an area of its own) is
    // refused; the CUDA plugin must have asked for it.
    const gpushim_fft_desc prime = describe<double>(c2c(-1, {1000003}, 1));
    const size_t refused_before = account.refused;
    account.refusing = true;
    gpushim_fft_plan plan = nullptr;
    const int status = plugin->fft_plan_create(&prime, &plan);
    account.refusing = false;
    if (status == 0) plugin->fft_plan_destroy(plan);
    const bool asked = account.refused > refused_before;
    const bool cuda = std::strcmp(plugin->name, "cuda") == 0;
    report(asked ? status != 0 : !cuda,
           format("a C2C of 1000003 points, its work area refused by the host: %s -> %d",
                  asked ? "asked for" : "took nothing", status));
}

// ---- host services ------------------------------------------------------------------------------

// The CPU's FFTW: the host-simulated plugin runs on it, as libgpushim.so's resolver would give
// it, and the check compares with it.
void* resolve_cpu_symbol(const char* name) {
    static void* const double_library = dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
    static void* const float_library = dlopen("libfftw3f.so.3", RTLD_NOW | RTLD_LOCAL);
    void* library = std::strncmp(name, "fftwf_", 6) == 0  ? float_library
                    : std::strncmp(name, "fftw_", 5) == 0 ? double_library
                                                          : nullptr;
    return library != nullptr ? dlsym(library, name) : nullptr;
}

void load_fftw(Fftw& f, const std::string& prefix) {
    const auto get = [&](auto& function, const char* name) {
        void* symbol = resolve_cpu_symbol((prefix + name).c_str());
        function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(symbol);
        return symbol != nullptr;
    };
    f.loaded = get(f.plan_dft, "plan_guru64_dft") && get(f.plan_r2c, "plan_guru64_dft_r2c") &&
               get(f.plan_c2r, "plan_guru64_dft_c2r") && get(f.execute, "execute") &&
               get(f.destroy, "destroy_plan");
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    bool large = false;
    const char* path =
        plugin_path(argc, argv, "plugin_fft_check [--large] PLUGIN.so", [&](char** args, int) {
            if (std::strcmp(args[0], "--large") != 0) return 0;
            large = true;
            return 1;
        });
    if (path == nullptr || !load_plugin(path)) return 1;
    load_fftw(fftw_double, "fftw_");
    load_fftw(fftw_float, "fftwf_");
    const bool fftw_found = fftw_double.loaded && fftw_float.loaded;
    if (!fftw_found && std::strcmp(plugin->name, "hostsim") == 0) {
        std::printf(
            "SKIP: the host-simulated plugin needs the CPU's FFTW (libfftw3.so.3 and "
            "libfftw3f.so.3 with the guru64 planners)\n");
        return kSkipped;
    }
    if (!init_plugin(resolve_cpu_symbol)) return kSkipped;
    std::printf("plugin %s (%s): %s; large cases: %s\n", plugin->name, path,
                plugin->device_description(), large ? "yes" : "no");
    if (!fftw_found) {
        std::printf(
            "     no CPU FFTW (libfftw3.so.3, libfftw3f.so.3): the comparisons with FFTW are "
            "skipped\n");
    }
    if (!create_queue(&queue) || !create_queue(&second_queue)) return 1;

    small_cases<double>();
    small_cases<float>();
    if (large) large_cases();
    refusals();

    destroy_queue(queue);
    destroy_queue(second_queue);
    return finish();
}
