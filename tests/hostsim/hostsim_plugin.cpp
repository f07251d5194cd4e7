// libgpushim_hostsim.so: a host-simulated device for tests (DESIGN.md, "The device
// interface"). Device memory is host memory with a capacity (GPUSHIM_HOSTSIM_MEMORY),
// queues run their work at once, BLAS and LAPACK operations run on the CPU library the host
// resolves (each LAPACK kind on the routine of the same name), FFT plans are FFTW plans of the
// plugin's own copy of the CPU's FFTW (which the host resolves; nothing links it), and every
// N-th device operation fails on request (GPUSHIM_HOSTSIM_FAIL_EVERY; FFT executions count, FFT
// plans do not); GPUSHIM_HOSTSIM_PINNED_MEMORY caps the pinned host memory it hands out;
// GPUSHIM_HOSTSIM_INIT_MS makes initialisation take that long; GPUSHIM_HOSTSIM_MEMORY_STRICT=1
// makes an allocation beyond the capacity abort the process (a test that the host never asks
// for more: GPUSHIM_GPU_MEMORY set to the capacity); GPUSHIM_HOSTSIM_NAN_PIVOT=1 makes POTRF
// and POSV leave a NaN as the factor's last diagonal entry with INFO = 0, as a device
// library may carry a NaN through (a test that the host does not deliver such factors);
// GPUSHIM_HOSTSIM_WRONG_EVERY=N makes every N-th Level-3 BLAS operation, FFT execution, and
// LAPACK operation of the kinds GPUSHIM_VERIFY checks, change the first element of its result,
// every other time to a NaN (a test of GPUSHIM_VERIFY); GPUSHIM_HOSTSIM_UNWRITTEN_INFO=1 makes
// LAPACK operations that fail (LAPACK's INFO > 0) leave the device's INFO as it was, as
// CUDA 12.0's cuSOLVER potrf did (a test that the host never reads a stale INFO as success);
// GPUSHIM_HOSTSIM_LOSE_DEVICE_AT=N makes the N-th device operation and everything after it
// (operations, queues, events, pinned memory, FFT plans) fail with a lasting status, as a CUDA
// context does after a sticky error (a test that the host then stops offloading);
// GPUSHIM_HOSTSIM_RESET_AT=N makes the N-th question whether the device is intact, and every
// later one, answer that the program reset it, as after a cudaDeviceReset (the device itself
// keeps working: the emulated CUDA runtime's reset tests that nothing is used afterwards);
// GPUSHIM_HOSTSIM_UNASKABLE_AT=N makes the N-th such question alone answer that the device
// cannot be asked now.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "fallback/fortran_blas3.h"
#include "gpu/device_interface.h"

namespace {

enum Status : int {
    kOk = 0,
    kOutOfMemory = 1,
    kInjectedFault = 2,
    kUnsupported = 3,
    kUnknownPointer = 4,
    kNotHermitian = 5,
    kDeviceLost = 6,
    kDeviceReset = 7,
    kUnaskable = 8,
};

struct Queue {};
struct Event {};

struct Device {
    const gpushim_host_services* services = nullptr;
    std::size_t capacity = std::numeric_limits<std::size_t>::max();
    bool strict_capacity = false;
    uint64_t fail_every = 0;
    std::atomic<uint64_t> operations{0};
    std::mutex mutex;
    std::size_t used = 0;
    std::unordered_map<void*, std::size_t> allocations;
    std::size_t pinned_capacity = std::numeric_limits<std::size_t>::max();
    std::size_t pinned_used = 0;
    std::unordered_map<void*, std::size_t> pinned_allocations;
    bool nan_pivot = false;
    bool unwritten_info = false;
    uint64_t wrong_every = 0;
    uint64_t lose_device_at = 0;
    std::atomic<bool> lost{false};
    uint64_t reset_at = 0;
    uint64_t unaskable_at = 0;
    std::atomic<uint64_t> intact_questions{0};
    std::atomic<uint64_t> results{0};  // BLAS and LAPACK results, for wrong_every
};

Device& device() {
    static auto* instance = new Device;
    return *instance;
}

uint64_t parse_unsigned(const char* variable, uint64_t fallback) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') return fallback;
    uint64_t value = 0;
    const std::string_view view(text);
    auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (error != std::errc{} || end != view.data() + view.size()) {
        const std::string message = std::string(variable) + "=" + text +
                                    " is not valid (accepted: a non-negative integer); ignored";
        device().services->log(2, message.c_str());
        return fallback;
    }
    return value;
}

// kDeviceLost once GPUSHIM_HOSTSIM_LOSE_DEVICE_AT has taken effect, else kOk.
int lasting_failure() {
    return device().lost.load() ? kDeviceLost : kOk;
}

// Counts a device operation and fails it when fault injection asks for it.
int operation() {
    Device& d = device();
    const uint64_t count = d.operations.fetch_add(1) + 1;
    if (d.lose_device_at != 0 && count >= d.lose_device_at) d.lost.store(true);
    if (int status = lasting_failure(); status != kOk) return status;
    return (d.fail_every != 0 && count % d.fail_every == 0) ? kInjectedFault : kOk;
}

int init(const gpushim_host_services* services) {
    Device& d = device();
    d.services = services;
    d.capacity = parse_unsigned("GPUSHIM_HOSTSIM_MEMORY", std::numeric_limits<std::size_t>::max());
    d.strict_capacity = parse_unsigned("GPUSHIM_HOSTSIM_MEMORY_STRICT", 0) != 0;
    d.fail_every = parse_unsigned("GPUSHIM_HOSTSIM_FAIL_EVERY", 0);
    d.nan_pivot = parse_unsigned("GPUSHIM_HOSTSIM_NAN_PIVOT", 0) != 0;
    d.unwritten_info = parse_unsigned("GPUSHIM_HOSTSIM_UNWRITTEN_INFO", 0) != 0;
    d.wrong_every = parse_unsigned("GPUSHIM_HOSTSIM_WRONG_EVERY", 0);
    d.lose_device_at = parse_unsigned("GPUSHIM_HOSTSIM_LOSE_DEVICE_AT", 0);
    d.reset_at = parse_unsigned("GPUSHIM_HOSTSIM_RESET_AT", 0);
    d.unaskable_at = parse_unsigned("GPUSHIM_HOSTSIM_UNASKABLE_AT", 0);
    d.pinned_capacity =
        parse_unsigned("GPUSHIM_HOSTSIM_PINNED_MEMORY", std::numeric_limits<std::size_t>::max());
    // Its one device is the one any choice comes to; asked, as a plugin does, so that the
    // host's answer (its warnings) is tested on this plugin too.
    if (services != nullptr && services->choose_device != nullptr) services->choose_device(1);
    // A slow initialisation, like CUDA's, for tests of what happens meanwhile.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(parse_unsigned("GPUSHIM_HOSTSIM_INIT_MS", 0)));
    return kOk;
}

const char* device_description() {
    return "host-simulated device (tests only)";
}

const char* describe_error(int status) {
    switch (status) {
        case kOutOfMemory:
            return "hostsim: out of device memory";
        case kInjectedFault:
            return "hostsim: injected fault";
        case kUnsupported:
            return "hostsim: operation not supported";
        case kUnknownPointer:
            return "hostsim: pointer is not device memory";
        case kNotHermitian:
            return "hostsim: C2R input with an imaginary DC or Nyquist term (not Hermitian)";
        case kDeviceLost:
            return "hostsim: device lost (GPUSHIM_HOSTSIM_LOSE_DEVICE_AT)";
        case kDeviceReset:
            return "hostsim: the program reset the device (GPUSHIM_HOSTSIM_RESET_AT)";
        case kUnaskable:
            return "hostsim: the device cannot be asked now (GPUSHIM_HOSTSIM_UNASKABLE_AT)";
        default:
            return "hostsim: unknown status";
    }
}

int memory_info(std::size_t* free_bytes, std::size_t* total_bytes) {
    Device& d = device();
    std::lock_guard lock(d.mutex);
    *total_bytes = d.capacity;
    *free_bytes = d.capacity - d.used;
    return kOk;
}

int device_alloc(void** pointer, std::size_t bytes) {
    if (int status = operation(); status != kOk) return status;
    Device& d = device();
    std::lock_guard lock(d.mutex);
    if (bytes > d.capacity - d.used) {
        if (d.strict_capacity) {
            std::fprintf(stderr,
                         "hostsim: %zu bytes asked for with %zu of %zu in use "
                         "(GPUSHIM_HOSTSIM_MEMORY_STRICT): aborting\n",
                         bytes, d.used, d.capacity);
            std::abort();
        }
        return kOutOfMemory;
    }
    void* block = std::malloc(bytes == 0 ? 1 : bytes);
    if (block == nullptr) return kOutOfMemory;
    d.allocations.emplace(block, bytes);
    d.used += bytes;
    *pointer = block;
    return kOk;
}

int device_free(void* pointer) {
    Device& d = device();
    std::lock_guard lock(d.mutex);
    auto it = d.allocations.find(pointer);
    if (it == d.allocations.end()) return kUnknownPointer;
    d.used -= it->second;
    d.allocations.erase(it);
    std::free(pointer);
    return kOk;
}

int pinned_alloc(void** pointer, std::size_t bytes) {
    if (int status = lasting_failure(); status != kOk) return status;
    Device& d = device();
    std::lock_guard lock(d.mutex);
    if (bytes > d.pinned_capacity - d.pinned_used) return kOutOfMemory;
    *pointer = std::malloc(bytes == 0 ? 1 : bytes);
    if (*pointer == nullptr) return kOutOfMemory;
    d.pinned_used += bytes;
    d.pinned_allocations.emplace(*pointer, bytes);
    return kOk;
}

int pinned_free(void* pointer) {
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto it = d.pinned_allocations.find(pointer);
    if (it == d.pinned_allocations.end()) return kUnknownPointer;
    d.pinned_used -= it->second;
    d.pinned_allocations.erase(it);
    std::free(pointer);
    return kOk;
}

int queue_create(gpushim_queue* queue) {
    if (int status = lasting_failure(); status != kOk) return status;
    *queue = reinterpret_cast<gpushim_queue>(new Queue);
    return kOk;
}
int queue_destroy(gpushim_queue queue) {
    delete reinterpret_cast<Queue*>(queue);
    return kOk;
}
int queue_synchronize(gpushim_queue) {
    return lasting_failure();
}

// The host-simulated LAPACK operations keep no workspace between calls.
int queue_release_workspaces(gpushim_queue) {
    return kOk;
}
int event_create(gpushim_event* event) {
    if (int status = lasting_failure(); status != kOk) return status;
    *event = reinterpret_cast<gpushim_event>(new Event);
    return kOk;
}
int event_destroy(gpushim_event event) {
    delete reinterpret_cast<Event*>(event);
    return kOk;
}
int event_record(gpushim_event, gpushim_queue) {
    return lasting_failure();
}
int event_synchronize(gpushim_event) {
    return lasting_failure();
}

void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
             std::size_t width, std::size_t rows) {
    for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                    static_cast<const char*>(src) + r * src_pitch, width);
    }
}

int copy_to_device_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      std::size_t width, std::size_t rows, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
    return kOk;
}

int copy_to_host_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t width, std::size_t rows, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
    return kOk;
}

// BLAS on the CPU library, through its 32-bit Fortran interface.
// The CPU function of a symbol, resolved once: resolving walks the loaded objects, far
// more than a small call costs.
void* cpu_symbol(const std::string& symbol) {
    static std::mutex mutex;
    static auto* resolved = new std::unordered_map<std::string, void*>;  // outlives exit-time calls
    const std::lock_guard lock(mutex);
    auto [entry, inserted] = resolved->try_emplace(symbol, nullptr);
    if (inserted) entry->second = device().services->resolve_cpu_symbol(symbol.c_str());
    return entry->second;
}

// Changes `first` when GPUSHIM_HOSTSIM_WRONG_EVERY asks for it: never to what it was,
// whatever it was (x + |x| + 1), and every other time to a NaN (which a check must not lose).
template <class T>
void make_wrong_on_request(T* first) {
    Device& d = device();
    const uint64_t result = d.results.fetch_add(1) + 1;
    if (d.wrong_every == 0 || result % d.wrong_every != 0) return;
    if ((result / d.wrong_every) % 2 == 0) {
        *first = T(std::numeric_limits<double>::quiet_NaN());
    } else {
        *first += std::abs(*first) + 1;
    }
}

template <class T>
int run_blas3(const gpushim_blas3_op& op, char prefix) {
    static constexpr const char* kNames[] = {"gemm",  "symm",  "hemm", "syrk", "herk",
                                             "syr2k", "her2k", "trmm", "trsm"};
    const std::string symbol = std::string(1, prefix) + kNames[op.kind] + "_";
    void* function = cpu_symbol(symbol);
    if (function == nullptr) return kUnsupported;
    if (!gpushim::fallback::call_fortran_blas3<T, int32_t>(function, op)) return kUnsupported;
    make_wrong_on_request(static_cast<T*>(
        op.kind == GPUSHIM_TRMM || op.kind == GPUSHIM_TRSM ? const_cast<void*>(op.b) : op.c));
    return kOk;
}

int blas3(const gpushim_blas3_op* op, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    switch (op->precision) {
        case GPUSHIM_PREC_S:
            return run_blas3<float>(*op, 's');
        case GPUSHIM_PREC_D:
            return run_blas3<double>(*op, 'd');
        case GPUSHIM_PREC_C:
            return run_blas3<std::complex<float>>(*op, 'c');
        case GPUSHIM_PREC_Z:
            return run_blas3<std::complex<double>>(*op, 'z');
    }
    return kUnsupported;
}

// ---- LAPACK on the CPU library, through its 32-bit Fortran interface ---------------------------
//
// Every kind calls the CPU routine of the same meaning (?getrf_, ?orgqr_ or ?ungqr_, ...) on
// the op's own pointers and leading dimensions. Pivots are int64 in the op and int32 for the
// CPU: narrowed for the routines that read them (GETRS, GETRI, SYTRS, SYTRI), widened for those
// that write them (GETRF, GESV, SYTRF, SYSV). Workspaces come from a query (LWORK = -1) and live
// for the call.

using Int = int32_t;
// The hidden length of a CHARACTER*1 argument, passed by value after the last argument.
// A named size_t, never a literal: call_cpu() takes its argument types from what it is given.
constexpr std::size_t kFlagLength = 1;

template <class T>
struct LapackNames {  // the routines whose names differ between real and complex
    static constexpr bool kComplex = !std::is_floating_point_v<T>;
    static constexpr char kPrefix = std::is_same_v<T, float>                 ? 's'
                                    : std::is_same_v<T, double>              ? 'd'
                                    : std::is_same_v<T, std::complex<float>> ? 'c'
                                                                             : 'z';
    static constexpr const char* kOrgqr = kComplex ? "ungqr" : "orgqr";
    static constexpr const char* kOrmqr = kComplex ? "unmqr" : "ormqr";
    static constexpr const char* kSyevd = kComplex ? "heevd" : "syevd";
};

// Calls the CPU routine <prefix><name>_ with exactly the argument types given (the Fortran
// ABI: everything by address, then the hidden lengths); false when the CPU library lacks it.
template <class T, class... Args>
bool call_cpu(const char* name, Args... args) {
    const std::string symbol = std::string(1, LapackNames<T>::kPrefix) + name + "_";
    void* function = cpu_symbol(symbol);
    if (function == nullptr) return false;
    reinterpret_cast<void (*)(Args...)>(function)(args...);
    return true;
}

// A size a workspace query returned (as a floating-point value in WORK(1) or RWORK(1)).
template <class T>
Int queried_size(const T& value) {
    return std::max<Int>(1, static_cast<Int>(std::ceil(std::real(value))));
}

// The WORK/LWORK idiom: `routine(work, lwork)` is called once with LWORK = -1, then with
// the workspace that query asked for, in an array `slack` elements longer than LWORK says.
template <class T, class Routine>
bool with_workspace(Routine routine, Int slack = 0) {
    T query{};
    const Int ask = -1;
    if (!routine(&query, &ask)) return false;
    const Int lwork = queried_size(query);
    std::vector<T> work(static_cast<std::size_t>(lwork) + static_cast<std::size_t>(slack));
    return routine(work.data(), &lwork);
}

// ?SYEVD (real) or ?HEEVD (complex): WORK, IWORK and, for complex, RWORK, sized by one query.
template <class T>
bool run_syevd(const gpushim_lapack_op& op, Int n, Int lda, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    auto* const w = static_cast<R*>(op.w);
    const auto syevd = [&](T* work, const Int* lwork, R* rwork, const Int* lrwork, Int* iwork,
                           const Int* liwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>(LapackNames<T>::kSyevd, &op.jobz, &op.uplo, &n, a, &lda, w, work,
                               lwork, rwork, lrwork, iwork, liwork, info, kFlagLength, kFlagLength);
        } else {
            (void)rwork;
            (void)lrwork;
            return call_cpu<T>(LapackNames<T>::kSyevd, &op.jobz, &op.uplo, &n, a, &lda, w, work,
                               lwork, iwork, liwork, info, kFlagLength, kFlagLength);
        }
    };
    T work_query{};
    R rwork_query{};
    Int iwork_query = 0;
    const Int ask = -1;
    if (!syevd(&work_query, &ask, &rwork_query, &ask, &iwork_query, &ask)) return false;
    const Int lwork = queried_size(work_query), lrwork = queried_size(rwork_query),
              liwork = std::max<Int>(1, iwork_query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<R> rwork(static_cast<std::size_t>(lrwork));
    std::vector<Int> iwork(static_cast<std::size_t>(liwork));
    return syevd(work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork);
}

// ?GESVD; the complex routine also takes RWORK of 5 min(m, n).
template <class T>
bool run_gesvd(const gpushim_lapack_op& op, Int m, Int n, Int lda, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    auto* const s = static_cast<R*>(op.w);
    T unused{};  // for U or VT where the job references neither
    T* const u = op.u != nullptr ? static_cast<T*>(op.u) : &unused;
    T* const vt = op.vt != nullptr ? static_cast<T*>(op.vt) : &unused;
    // LAPACK wants LDU >= 1 and LDVT >= 1 even where it does not reference U or VT.
    const Int ldu = std::max<Int>(1, static_cast<Int>(op.ldu));
    const Int ldvt = std::max<Int>(1, static_cast<Int>(op.ldvt));
    std::vector<R> rwork(LapackNames<T>::kComplex
                             ? 5 * static_cast<std::size_t>(std::max<Int>(1, std::min(m, n)))
                             : 0);
    return with_workspace<T>([&](T* work, const Int* lwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>("gesvd", &op.jobu, &op.jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt,
                               work, lwork, rwork.data(), info, kFlagLength, kFlagLength);
        } else {
            return call_cpu<T>("gesvd", &op.jobu, &op.jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt,
                               work, lwork, info, kFlagLength, kFlagLength);
        }
    });
}

// ?SYEVR (real) or ?HEEVR (complex) with ABSTOL 0. LAPACK's W has n entries and Z (for RANGE
// 'V') an upper bound of columns, while the op's w and u hold the m found: both are
// computed into arrays of n here and their first m entries (columns) copied to the op's.
template <class T>
bool run_syevr(const gpushim_lapack_op& op, Int n, Int lda, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    const R vl = static_cast<R>(op.vl), vu = static_cast<R>(op.vu), abstol = 0;
    const Int il = static_cast<Int>(op.il), iu = static_cast<Int>(op.iu);
    const bool vectors = op.jobz == 'V';
    const std::size_t columns = static_cast<std::size_t>(std::max<Int>(1, n));
    std::vector<R> w(columns);
    const Int ldz = vectors ? std::max<Int>(1, n) : 1;
    std::vector<T> z(vectors ? columns * static_cast<std::size_t>(ldz) : 1);
    std::vector<Int> isuppz(2 * columns);
    Int m = 0;
    const auto syevr = [&](T* work, const Int* lwork, R* rwork, const Int* lrwork, Int* iwork,
                           const Int* liwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>("heevr", &op.jobz, &op.range, &op.uplo, &n, a, &lda, &vl, &vu, &il,
                               &iu, &abstol, &m, w.data(), z.data(), &ldz, isuppz.data(), work,
                               lwork, rwork, lrwork, iwork, liwork, info, kFlagLength, kFlagLength,
                               kFlagLength);
        } else {
            (void)rwork;
            (void)lrwork;
            return call_cpu<T>("syevr", &op.jobz, &op.range, &op.uplo, &n, a, &lda, &vl, &vu, &il,
                               &iu, &abstol, &m, w.data(), z.data(), &ldz, isuppz.data(), work,
                               lwork, iwork, liwork, info, kFlagLength, kFlagLength, kFlagLength);
        }
    };
    T work_query{};
    R rwork_query{};
    Int iwork_query = 0;
    const Int ask = -1;
    if (!syevr(&work_query, &ask, &rwork_query, &ask, &iwork_query, &ask)) return false;
    const Int lwork = queried_size(work_query), lrwork = queried_size(rwork_query),
              liwork = std::max<Int>(1, iwork_query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<R> rwork(static_cast<std::size_t>(lrwork));
    std::vector<Int> iwork(static_cast<std::size_t>(liwork));
    if (!syevr(work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork)) return false;
    m = std::clamp<Int>(m, 0, n);
    *op.found = m;
    std::copy(w.begin(), w.begin() + m, static_cast<R*>(op.w));
    if (vectors) {
        auto* const u = static_cast<T*>(op.u);
        for (Int j = 0; j < m; ++j) {
            std::copy(z.begin() + static_cast<std::ptrdiff_t>(j) * ldz,
                      z.begin() + static_cast<std::ptrdiff_t>(j) * ldz + n,
                      u + static_cast<std::ptrdiff_t>(j) * op.ldu);
        }
    }
    return true;
}

// ?SYGVD (real) or ?HEGVD (complex): WORK, IWORK and, for complex, RWORK, sized by one query.
template <class T>
bool run_sygvd(const gpushim_lapack_op& op, Int n, Int lda, Int ldb, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    auto* const w = static_cast<R*>(op.w);
    const Int itype = static_cast<Int>(op.itype);
    const auto sygvd = [&](T* work, const Int* lwork, R* rwork, const Int* lrwork, Int* iwork,
                           const Int* liwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>("hegvd", &itype, &op.jobz, &op.uplo, &n, a, &lda, b, &ldb, w, work,
                               lwork, rwork, lrwork, iwork, liwork, info, kFlagLength, kFlagLength);
        } else {
            (void)rwork;
            (void)lrwork;
            return call_cpu<T>("sygvd", &itype, &op.jobz, &op.uplo, &n, a, &lda, b, &ldb, w, work,
                               lwork, iwork, liwork, info, kFlagLength, kFlagLength);
        }
    };
    T work_query{};
    R rwork_query{};
    Int iwork_query = 0;
    const Int ask = -1;
    if (!sygvd(&work_query, &ask, &rwork_query, &ask, &iwork_query, &ask)) return false;
    const Int lwork = queried_size(work_query), lrwork = queried_size(rwork_query),
              liwork = std::max<Int>(1, iwork_query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<R> rwork(static_cast<std::size_t>(lrwork));
    std::vector<Int> iwork(static_cast<std::size_t>(liwork));
    return sygvd(work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork);
}

// ?GEEV with JOBVL 'N' and JOBVR = jobz: WR and WI (real) or W (complex, with RWORK of 2n).
template <class T>
bool run_geev(const gpushim_lapack_op& op, Int n, Int lda, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    const char jobvl = 'N';
    T unused{};  // VL, never referenced; VR where jobz is 'N'
    T* const vr = op.jobz == 'V' ? static_cast<T*>(op.u) : &unused;
    const Int ldvl = 1;
    const Int ldvr = op.jobz == 'V' ? static_cast<Int>(op.ldu) : 1;
    std::vector<R> rwork(
        LapackNames<T>::kComplex ? 2 * static_cast<std::size_t>(std::max<Int>(1, n)) : 0);
    return with_workspace<T>([&](T* work, const Int* lwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>("geev", &jobvl, &op.jobz, &n, a, &lda, static_cast<T*>(op.w),
                               &unused, &ldvl, vr, &ldvr, work, lwork, rwork.data(), info,
                               kFlagLength, kFlagLength);
        } else {
            return call_cpu<T>("geev", &jobvl, &op.jobz, &n, a, &lda, static_cast<R*>(op.w),
                               static_cast<R*>(op.wi), &unused, &ldvl, vr, &ldvr, work, lwork, info,
                               kFlagLength, kFlagLength);
        }
    });
}

// ?GELSD: WORK, IWORK and, for complex, RWORK, sized by one query (LWORK = -1 answers in
// WORK(1), the minimum LIWORK in IWORK(1) and, complex, the minimum LRWORK in RWORK(1)). The
// rank goes to the op's found, the singular values to its w.
template <class T>
bool run_gelsd(const gpushim_lapack_op& op, Int m, Int n, Int nrhs, Int lda, Int ldb, Int* info) {
    using R = typename gpushim::fallback::RealOf<T>::type;
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    auto* const s = static_cast<R*>(op.w);
    const R rcond = static_cast<R>(op.rcond);
    Int rank = 0;
    const auto gelsd = [&](T* work, const Int* lwork, R* rwork, Int* iwork) {
        if constexpr (LapackNames<T>::kComplex) {
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, &rank, work,
                               lwork, rwork, iwork, info);
        } else {
            (void)rwork;
            return call_cpu<T>("gelsd", &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, &rank, work,
                               lwork, iwork, info);
        }
    };
    T work_query{};
    R rwork_query{};
    Int iwork_query = 0;
    const Int ask = -1;
    if (!gelsd(&work_query, &ask, &rwork_query, &iwork_query)) return false;
    if (*info != 0) return true;  // never for valid arguments
    const Int lwork = queried_size(work_query), lrwork = queried_size(rwork_query),
              liwork = std::max<Int>(1, iwork_query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<R> rwork(static_cast<std::size_t>(lrwork));
    std::vector<Int> iwork(static_cast<std::size_t>(liwork));
    if (!gelsd(work.data(), &lwork, rwork.data(), iwork.data())) return false;
    *op.found = rank;
    return true;
}

template <class T>
int run_lapack(const gpushim_lapack_op& op) {
    using Names = LapackNames<T>;
    for (int64_t size :
         {op.m, op.n, op.k, op.nrhs, op.lda, op.ldb, op.ldu, op.ldvt, op.itype, op.il, op.iu}) {
        if (size > std::numeric_limits<Int>::max()) return kUnsupported;
    }
    const Int m = static_cast<Int>(op.m), n = static_cast<Int>(op.n), k = static_cast<Int>(op.k),
              nrhs = static_cast<Int>(op.nrhs), lda = static_cast<Int>(op.lda),
              ldb = static_cast<Int>(op.ldb);
    auto* const a = static_cast<T*>(op.a);
    auto* const b = static_cast<T*>(op.b);
    auto* const tau = static_cast<T*>(op.tau);
    const char* const uplo = &op.uplo;
    // A real ORMQR takes 'T' where a complex UNMQR takes 'C'; both mean Q^H.
    const char trans =
        (!Names::kComplex && op.kind == GPUSHIM_ORMQR && op.trans == 'C') ? 'T' : op.trans;
    Int info = 0;
    std::vector<Int> pivots;
    const auto narrow_pivots = [&](Int count) {  // the op's pivots, for a routine that reads them
        pivots.assign(op.ipiv, op.ipiv + count);
        if (pivots.empty()) pivots.push_back(0);
    };
    const auto widen_pivots = [&](Int count) {  // a routine's pivots, back into the op
        std::copy(pivots.begin(), pivots.begin() + count, op.ipiv);
    };
    bool found = false;
    switch (op.kind) {
        case GPUSHIM_POTRF:
            found = call_cpu<T>("potrf", uplo, &n, a, &lda, &info, kFlagLength);
            break;
        case GPUSHIM_GETRF:
            pivots.assign(static_cast<std::size_t>(std::max<Int>(1, std::min(m, n))), 0);
            found = call_cpu<T>("getrf", &m, &n, a, &lda, pivots.data(), &info);
            if (found) widen_pivots(std::min(m, n));
            break;
        case GPUSHIM_GETRS:
            narrow_pivots(n);
            found = call_cpu<T>("getrs", &trans, &n, &nrhs, a, &lda, pivots.data(), b, &ldb, &info,
                                kFlagLength);
            break;
        case GPUSHIM_GESV:
            pivots.assign(static_cast<std::size_t>(std::max<Int>(1, n)), 0);
            found = call_cpu<T>("gesv", &n, &nrhs, a, &lda, pivots.data(), b, &ldb, &info);
            if (found) widen_pivots(n);
            break;
        case GPUSHIM_GETRI:
            narrow_pivots(n);
            found = with_workspace<T>([&](T* work, const Int* lwork) {
                return call_cpu<T>("getri", &n, a, &lda, pivots.data(), work, lwork, &info);
            });
            break;
        case GPUSHIM_POTRS:
        case GPUSHIM_POSV:
            found = call_cpu<T>(op.kind == GPUSHIM_POTRS ? "potrs" : "posv", uplo, &n, &nrhs, a,
                                &lda, b, &ldb, &info, kFlagLength);
            break;
        case GPUSHIM_POTRI:
            found = call_cpu<T>("potri", uplo, &n, a, &lda, &info, kFlagLength);
            break;
        case GPUSHIM_SYTRF:
            pivots.assign(static_cast<std::size_t>(std::max<Int>(1, n)), 0);
            // Debian's OpenBLAS 0.3.21 CSYTRF and ZSYTRF with UPLO = 'U' read up to N - 1
            // elements past the N * NB of WORK that their query asks for (seen with a guard
            // page): a workspace N elements longer keeps that read inside it.
            found = with_workspace<T>(
                [&](T* work, const Int* lwork) {
                    return call_cpu<T>("sytrf", uplo, &n, a, &lda, pivots.data(), work, lwork,
                                       &info, kFlagLength);
                },
                n);
            if (found) widen_pivots(n);
            break;
        case GPUSHIM_SYTRS:
            narrow_pivots(n);
            found = call_cpu<T>("sytrs", uplo, &n, &nrhs, a, &lda, pivots.data(), b, &ldb, &info,
                                kFlagLength);
            break;
        case GPUSHIM_SYSV:
            pivots.assign(static_cast<std::size_t>(std::max<Int>(1, n)), 0);
            // SYTRF's read past its workspace (below) is SYSV's too.
            found = with_workspace<T>(
                [&](T* work, const Int* lwork) {
                    return call_cpu<T>("sysv", uplo, &n, &nrhs, a, &lda, pivots.data(), b, &ldb,
                                       work, lwork, &info, kFlagLength);
                },
                n);
            if (found) widen_pivots(n);
            break;
        case GPUSHIM_SYTRI: {
            narrow_pivots(n);
            std::vector<T> work(static_cast<std::size_t>(std::max<Int>(1, n)));
            found = call_cpu<T>("sytri", uplo, &n, a, &lda, pivots.data(), work.data(), &info,
                                kFlagLength);
            break;
        }
        case GPUSHIM_TRTRS:
            found = call_cpu<T>("trtrs", uplo, &trans, &op.diag, &n, &nrhs, a, &lda, b, &ldb, &info,
                                kFlagLength, kFlagLength, kFlagLength);
            break;
        case GPUSHIM_TRTRI:
            found =
                call_cpu<T>("trtri", uplo, &op.diag, &n, a, &lda, &info, kFlagLength, kFlagLength);
            break;
        case GPUSHIM_GEQRF:
            found = with_workspace<T>([&](T* work, const Int* lwork) {
                return call_cpu<T>("geqrf", &m, &n, a, &lda, tau, work, lwork, &info);
            });
            break;
        case GPUSHIM_ORGQR:
            found = with_workspace<T>([&](T* work, const Int* lwork) {
                return call_cpu<T>(Names::kOrgqr, &m, &n, &k, a, &lda, tau, work, lwork, &info);
            });
            break;
        case GPUSHIM_ORMQR:
            found = with_workspace<T>([&](T* work, const Int* lwork) {
                return call_cpu<T>(Names::kOrmqr, &op.side, &trans, &m, &n, &k, a, &lda, tau, b,
                                   &ldb, work, lwork, &info, kFlagLength, kFlagLength);
            });
            break;
        case GPUSHIM_SYEVD:
            found = run_syevd<T>(op, n, lda, &info);
            break;
        case GPUSHIM_GESVD:
            found = run_gesvd<T>(op, m, n, lda, &info);
            break;
        case GPUSHIM_SYEVR:
            found = run_syevr<T>(op, n, lda, &info);
            break;
        case GPUSHIM_SYGVD:
            found = run_sygvd<T>(op, n, lda, ldb, &info);
            break;
        case GPUSHIM_GEEV:
            found = run_geev<T>(op, n, lda, &info);
            break;
        case GPUSHIM_GELS:
            found = with_workspace<T>([&](T* work, const Int* lwork) {
                return call_cpu<T>("gels", &trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, lwork,
                                   &info, kFlagLength);
            });
            break;
        case GPUSHIM_GELSD:
            found = run_gelsd<T>(op, m, n, nrhs, lda, ldb, &info);
            break;
    }
    if (!found) return kUnsupported;
    if (device().nan_pivot && info == 0 && n > 0 &&
        (op.kind == GPUSHIM_POTRF || op.kind == GPUSHIM_POSV)) {
        a[static_cast<std::size_t>(n - 1) * (static_cast<std::size_t>(lda) + 1)] =
            T(std::numeric_limits<double>::quiet_NaN());
    }
    if (!(device().unwritten_info && info > 0)) *op.info = info;
    return kOk;
}

// The LAPACK operations GPUSHIM_VERIFY checks (dispatch/lapack_check.h) are made wrong on
// request; not others, which a CPU LAPACK routine the check sent back to the CPU may call
// through the shim.
template <class T>
int run_lapack_on_request_wrong(const gpushim_lapack_op& op) {
    const int status = run_lapack<T>(op);
    if (status != kOk) return status;
    using Real = typename gpushim::fallback::RealOf<T>::type;
    switch (op.kind) {
        case GPUSHIM_GETRS:
        case GPUSHIM_POTRS:
        case GPUSHIM_TRTRS:
        case GPUSHIM_GESV:  // the solution: the factor is GETRF's, POTRF's
        case GPUSHIM_POSV:
        case GPUSHIM_ORMQR:
        case GPUSHIM_GELS:
        case GPUSHIM_GELSD:
        case GPUSHIM_SYSV:
        case GPUSHIM_SYTRS:
            make_wrong_on_request(static_cast<T*>(op.b));
            break;
        case GPUSHIM_SYEVR:
            if (*op.found > 0) {
                if (op.jobz == 'V') {
                    make_wrong_on_request(static_cast<T*>(op.u));
                } else {
                    make_wrong_on_request(static_cast<Real*>(op.w));
                }
            }
            break;
        case GPUSHIM_GESVD:
            if (op.jobu == 'N') {
                make_wrong_on_request(static_cast<Real*>(op.w));
            } else {
                make_wrong_on_request(static_cast<T*>(op.jobu == 'O' ? op.a : op.u));
            }
            break;
        case GPUSHIM_GEEV:  // W is complex for complex GEEV, WR for real
            make_wrong_on_request(static_cast<T*>(op.jobz == 'V' ? op.u : op.w));
            break;
        case GPUSHIM_SYGVD:  // the eigenvectors in A, or the values alone
        case GPUSHIM_SYEVD:
            if (op.jobz == 'V') {
                make_wrong_on_request(static_cast<T*>(op.a));
            } else {
                make_wrong_on_request(static_cast<Real*>(op.w));
            }
            break;
        case GPUSHIM_GETRF:
        case GPUSHIM_POTRF:
        case GPUSHIM_GETRI:
        case GPUSHIM_POTRI:
        case GPUSHIM_TRTRI:
        case GPUSHIM_GEQRF:
        case GPUSHIM_ORGQR:
        case GPUSHIM_SYTRF:
        case GPUSHIM_SYTRI:
            make_wrong_on_request(static_cast<T*>(op.a));
            break;
        default:
            break;
    }
    return status;
}

int lapack(const gpushim_lapack_op* op, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    switch (op->precision) {
        case GPUSHIM_PREC_S:
            return run_lapack_on_request_wrong<float>(*op);
        case GPUSHIM_PREC_D:
            return run_lapack_on_request_wrong<double>(*op);
        case GPUSHIM_PREC_C:
            return run_lapack_on_request_wrong<std::complex<float>>(*op);
        case GPUSHIM_PREC_Z:
            return run_lapack_on_request_wrong<std::complex<double>>(*op);
    }
    return kUnsupported;
}

// ---- FFT on the CPU's FFTW ---------------------------------------------------------------------
//
// On a copy of the program's FFTW library of the plugin's own, loaded in a link-map namespace
// of its own (dlmopen): a device leaves the program's FFTW as it found it, but every plan one
// FFTW makes is wisdom for all of its planners (those of the program's FFTW would answer its
// FFTW_WISDOM_ONLY requests: aarch64's FFTW does), and FFTW's planner may not run in two
// threads at once (the program's and the plugin's). Within that namespace, FFTW's functions
// call one another, not libgpushim.so's. The few declarations needed are written here rather
// than included, so that the plugin builds where FFTW's headers are not installed (the GPU
// machine).

// FFTW's library that defines the CPU's `symbol`, loaded again in the plugin's namespace (one
// for all such libraries); nullptr when FFTW is no library of its own (linked into the program,
// or into another library, which would load again whole) or cannot be loaded again.
void* private_copy_of_cpu_fftw(const std::string& symbol) {
    void* address = cpu_symbol(symbol);
    Dl_info found{};
    if (address == nullptr || dladdr(address, &found) == 0 || found.dli_fname == nullptr)
        return nullptr;
    const std::string_view path = found.dli_fname;
    if (!path.substr(path.rfind('/') + 1).starts_with("libfftw3")) return nullptr;
    static std::mutex mutex;
    static Lmid_t plugin_namespace = LM_ID_NEWLM;
    static auto* copies = new std::unordered_map<std::string, void*>;  // by path
    const std::lock_guard lock(mutex);
    auto [entry, inserted] = copies->try_emplace(found.dli_fname, nullptr);
    if (inserted) {
        entry->second = dlmopen(plugin_namespace, found.dli_fname, RTLD_NOW | RTLD_LOCAL);
        if (entry->second != nullptr && plugin_namespace == LM_ID_NEWLM)
            dlinfo(entry->second, RTLD_DI_LMID, &plugin_namespace);
    }
    return entry->second;
}

}  // namespace

struct fftw_plan_s;  // FFTW's names for what fftw_plan and fftwf_plan point to
struct fftwf_plan_s;

namespace {

struct FftwDim {  // fftw_iodim64: a size and its strides, in elements of each array's type
    std::ptrdiff_t n, is, os;
};

constexpr unsigned kFftwUnaligned = 1U << 1;  // FFTW_UNALIGNED
constexpr unsigned kFftwEstimate = 1U << 6;   // FFTW_ESTIMATE

template <class R>
struct FftwNames;
template <>
struct FftwNames<double> {
    using Plan = fftw_plan_s*;
    static constexpr const char* kPrefix = "fftw_";
};
template <>
struct FftwNames<float> {
    using Plan = fftwf_plan_s*;
    static constexpr const char* kPrefix = "fftwf_";
};

// The FFTW functions of one precision.
template <class R>
struct Fftw {
    using Plan = typename FftwNames<R>::Plan;
    using Complex = R[2];
    Plan (*plan_dft)(int, const FftwDim*, int, const FftwDim*, Complex*, Complex*, int, unsigned);
    Plan (*plan_r2c)(int, const FftwDim*, int, const FftwDim*, R*, Complex*, unsigned);
    Plan (*plan_c2r)(int, const FftwDim*, int, const FftwDim*, Complex*, R*, unsigned);
    void (*execute_dft)(Plan, Complex*, Complex*);
    void (*execute_r2c)(Plan, R*, Complex*);
    void (*execute_c2r)(Plan, Complex*, R*);
    void (*destroy)(Plan);

    // False when the CPU's FFTW lacks one of them, or cannot be loaded again.
    bool resolve() {
        const std::string prefix = FftwNames<R>::kPrefix;
        void* library = private_copy_of_cpu_fftw(prefix + "execute");
        if (library == nullptr) return false;
        bool found = true;
        const auto get = [&](auto& function, const char* name) {
            void* symbol = dlsym(library, (prefix + name).c_str());
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(symbol);
            found = found && symbol != nullptr;
        };
        get(plan_dft, "plan_guru64_dft");
        get(plan_r2c, "plan_guru64_dft_r2c");
        get(plan_c2r, "plan_guru64_dft_c2r");
        get(execute_dft, "execute_dft");
        get(execute_r2c, "execute_dft_r2c");
        get(execute_c2r, "execute_dft_c2r");
        get(destroy, "destroy_plan");
        return found;
    }
};

// FFTW's planner and fftw_destroy_plan run in one thread at a time; its execute functions in
// any number at once.
std::mutex& fftw_planner_mutex() {
    static auto* mutex = new std::mutex;  // outlives exit-time calls
    return *mutex;
}

// What a gpushim_fft_plan points to.
class HostFftPlan {
  public:
    virtual ~HostFftPlan() = default;
    virtual int execute(void* in, void* out) const = 0;
};

template <class R>
class FftwPlan final : public HostFftPlan {
  public:
    using Plan = typename Fftw<R>::Plan;
    using Complex = typename Fftw<R>::Complex;

    // `in_place_plan`: C2C's, for executions where the output array is the input array
    // (FFTW's plans are made for one or the other).
    FftwPlan(const Fftw<R>& fftw, const gpushim_fft_desc& desc, Plan plan, Plan in_place_plan)
        : fftw_(fftw), desc_(desc), plan_(plan), in_place_plan_(in_place_plan) {}
    FftwPlan(const FftwPlan&) = delete;
    FftwPlan& operator=(const FftwPlan&) = delete;
    ~FftwPlan() override {
        const std::lock_guard lock(fftw_planner_mutex());
        fftw_.destroy(plan_);
        if (in_place_plan_ != nullptr) fftw_.destroy(in_place_plan_);
    }

    int execute(void* in, void* out) const override {
        switch (desc_.kind) {
            case GPUSHIM_FFT_C2C:
                fftw_.execute_dft(in == out ? in_place_plan_ : plan_, static_cast<Complex*>(in),
                                  static_cast<Complex*>(out));
                break;
            case GPUSHIM_FFT_R2C:
                fftw_.execute_r2c(plan_, static_cast<R*>(in), static_cast<Complex*>(out));
                break;
            case GPUSHIM_FFT_C2R:
                if (!hermitian_ends(static_cast<const Complex*>(in))) return kNotHermitian;
                fftw_.execute_c2r(plan_, static_cast<Complex*>(in), static_cast<R*>(out));
                break;
            default:
                return kUnsupported;
        }
        make_wrong_on_request(static_cast<R*>(out));
        return kOk;
    }

  private:
    // The interface's C2R input is Hermitian, which for rank 1 means real DC and Nyquist
    // terms: a device library may read their imaginary parts where FFTW never does, so
    // the host must not pass any.
    bool hermitian_ends(const Complex* in) const {
        if (desc_.rank != 1) return true;
        const int64_t half = desc_.n[0] / 2 + 1;
        for (int64_t t = 0; t < desc_.howmany; ++t) {
            const Complex* spectrum = in + t * half;
            if (spectrum[0][1] != 0) return false;
            if (desc_.n[0] % 2 == 0 && spectrum[half - 1][1] != 0) return false;
        }
        return true;
    }

    Fftw<R> fftw_;
    gpushim_fft_desc desc_;
    Plan plan_;
    Plan in_place_plan_;
};

// The packed row-major layout of the description as FFTW's guru dimensions: `dims` (rank of
// them) and the batch; false for a description the interface does not allow.
bool fftw_layout(const gpushim_fft_desc& desc, FftwDim dims[3], FftwDim* batch) {
    if (desc.rank < 1 || desc.rank > 3 || desc.howmany < 1 || !gpushim_fft_kind_known(&desc))
        return false;
    switch (desc.kind) {
        case GPUSHIM_FFT_C2C:
            if (desc.sign != -1 && desc.sign != 1) return false;
            break;
        case GPUSHIM_FFT_R2C:
        case GPUSHIM_FFT_C2R:
            break;
        default:
            return false;
    }
    // Strides grow from the fastest dimension; the complex side of a real transform holds
    // n/2 + 1 elements in the last one.
    std::ptrdiff_t in_stride = 1, out_stride = 1;
    for (int d = desc.rank - 1; d >= 0; --d) {
        const std::ptrdiff_t n = desc.n[d];
        if (n < 1) return false;
        const std::ptrdiff_t spectral =
            d == desc.rank - 1 && desc.kind != GPUSHIM_FFT_C2C ? n / 2 + 1 : n;
        dims[d] = {n, in_stride, out_stride};
        if (__builtin_mul_overflow(in_stride, desc.kind == GPUSHIM_FFT_C2R ? spectral : n,
                                   &in_stride) ||
            __builtin_mul_overflow(out_stride, desc.kind == GPUSHIM_FFT_R2C ? spectral : n,
                                   &out_stride)) {
            return false;
        }
    }
    *batch = {static_cast<std::ptrdiff_t>(desc.howmany), in_stride, out_stride};
    std::ptrdiff_t in_elements = 0, out_elements = 0;
    return !__builtin_mul_overflow(in_stride, batch->n, &in_elements) &&
           !__builtin_mul_overflow(out_stride, batch->n, &out_elements);
}

template <class R>
int plan_fft(const gpushim_fft_desc& desc, gpushim_fft_plan* plan) {
    FftwDim dims[3] = {}, batch{};
    if (!fftw_layout(desc, dims, &batch)) return kUnsupported;
    Fftw<R> fftw{};
    if (!fftw.resolve()) return kUnsupported;
    // Planned out of place on stand-ins for the arrays: FFTW_ESTIMATE never reads or writes
    // them, and FFTW_UNALIGNED makes the plan valid for arrays of any alignment.
    using Complex = typename Fftw<R>::Complex;
    static Complex stand_in[2];
    const unsigned flags = kFftwEstimate | kFftwUnaligned;
    typename Fftw<R>::Plan planned = nullptr;
    typename Fftw<R>::Plan planned_in_place = nullptr;
    {
        const std::lock_guard lock(fftw_planner_mutex());
        switch (desc.kind) {
            case GPUSHIM_FFT_C2C:
                planned = fftw.plan_dft(desc.rank, dims, 1, &batch, &stand_in[0], &stand_in[1],
                                        desc.sign, flags);
                planned_in_place = fftw.plan_dft(desc.rank, dims, 1, &batch, &stand_in[0],
                                                 &stand_in[0], desc.sign, flags);
                if (planned == nullptr || planned_in_place == nullptr) {
                    if (planned != nullptr) fftw.destroy(planned);
                    if (planned_in_place != nullptr) fftw.destroy(planned_in_place);
                    planned = nullptr;
                }
                break;
            case GPUSHIM_FFT_R2C:
                planned =
                    fftw.plan_r2c(desc.rank, dims, 1, &batch, stand_in[0], &stand_in[1], flags);
                break;
            case GPUSHIM_FFT_C2R:
                planned =
                    fftw.plan_c2r(desc.rank, dims, 1, &batch, &stand_in[0], stand_in[1], flags);
                break;
        }
    }
    if (planned == nullptr) return kUnsupported;
    *plan =
        reinterpret_cast<gpushim_fft_plan>(new FftwPlan<R>(fftw, desc, planned, planned_in_place));
    return kOk;
}

int fft_plan_create(const gpushim_fft_desc* desc, gpushim_fft_plan* plan) {
    if (int status = lasting_failure(); status != kOk) return status;
    switch (desc->precision) {
        case GPUSHIM_PREC_D:
            return plan_fft<double>(*desc, plan);
        case GPUSHIM_PREC_S:
            return plan_fft<float>(*desc, plan);
        default:
            return kUnsupported;
    }
}

int fft_execute(gpushim_fft_plan plan, void* dev_in, void* dev_out, gpushim_queue) {
    if (int status = operation(); status != kOk) return status;
    return reinterpret_cast<const HostFftPlan*>(plan)->execute(dev_in, dev_out);
}

int fft_plan_destroy(gpushim_fft_plan plan) {
    delete reinterpret_cast<HostFftPlan*>(plan);
    return kOk;
}

int device_intact() {
    Device& d = device();
    const uint64_t question = d.intact_questions.fetch_add(1) + 1;
    if (d.reset_at != 0 && question >= d.reset_at) return kDeviceReset;
    return question == d.unaskable_at ? kUnaskable : kOk;
}

const gpushim_device_plugin kPlugin{
    .interface_version = GPUSHIM_DEVICE_INTERFACE_VERSION,
    .name = "hostsim",
    .init = init,
    .device_description = device_description,
    .describe_error = describe_error,
    .memory_info = memory_info,
    .device_alloc = device_alloc,
    .device_free = device_free,
    .pinned_alloc = pinned_alloc,
    .pinned_free = pinned_free,
    .queue_create = queue_create,
    .queue_destroy = queue_destroy,
    .queue_synchronize = queue_synchronize,
    .queue_release_workspaces = queue_release_workspaces,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_synchronize = event_synchronize,
    .copy_to_device_2d = copy_to_device_2d,
    .copy_to_host_2d = copy_to_host_2d,
    .blas3 = blas3,
    .lapack = lapack,
    .fft_plan_create = fft_plan_create,
    .fft_execute = fft_execute,
    .fft_plan_destroy = fft_plan_destroy,
    .status_is_lasting =
        [](int status) { return status == kDeviceLost || status == kDeviceReset ? 1 : 0; },
    .device_intact = device_intact,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const gpushim_device_plugin*
gpushim_device_plugin_v6() {
    return &kPlugin;
}
