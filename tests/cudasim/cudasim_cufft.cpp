// The emulated cuFFT (libcufft.so.12): the plan calls and the six execution calls the CUDA plugin
// makes, after the cuFFT API reference (docs.nvidia.com/cuda/cufft): plans of the advanced data
// layout, unnormalized transforms, CUFFT_FORWARD -1 and CUFFT_INVERSE +1, the padded layout of
// in-place real transforms, and out-of-place C2R transforms that overwrite their input. FFTW's
// guru64 interface computes them: its dimensions and howmany dimension spell the advanced layout
// exactly.
//
// Choices where the documentation is silent, each the stricter reading:
// - a plan executes with the function of its own type only (CUFFT_INVALID_PLAN otherwise), is
//   made once, and its handle number is never reused, so a destroyed handle stays invalid;
// - the advanced layout takes both embeddings or neither; strides and distances are positive,
//   each embedding (but the unused first) holds its dimension, and no two output elements
//   share an address;
// - an in-place complex transform has one layout for input and output, and the input and output
//   of an out-of-place one do not overlap;
// - arrays are aligned to their element type, as the GPU's loads require.
// The plan reports a work area (cufftGetSizeMany64 and cufftMakePlanMany64 answer the same
// size: none when every length is a power of two, else the size of the batch's complex data, as a
// Bluestein transform would ask), so that its caller's accounting of it is exercised, but nothing
// is allocated on the device; its executions are held to the work area's rules: one at a time,
// all finished before cufftDestroy.
#include <cufft.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "tests/cudasim/cudasim.h"

struct fftw_plan_s;  // FFTW's names for what fftw_plan and fftwf_plan point to
struct fftwf_plan_s;

namespace {

// ---- FFTW ---------------------------------------------------------------------------------------
//
// A copy of FFTW of the emulation's own (cudasim::private_cpu_symbol), so that no plan made
// here is wisdom for the program's FFTW and no planning here runs beside the program's. Its
// few declarations are written here, so that no FFTW header is needed.

struct FftwDim {  // fftw_iodim64: a size and its strides, in elements of each array's type
    std::ptrdiff_t n, is, os;
};

constexpr unsigned kFftwEstimate = 1U << 6;  // FFTW_ESTIMATE: plans without touching the arrays

template <class R>
struct FftwNames;
template <>
struct FftwNames<double> {
    using Plan = fftw_plan_s*;
    static constexpr const char* const* kLibraries = cudasim::kCpuFftw;
    static constexpr const char* kPrefix = "fftw_";
};
template <>
struct FftwNames<float> {
    using Plan = fftwf_plan_s*;
    static constexpr const char* const* kLibraries = cudasim::kCpuFftwf;
    static constexpr const char* kPrefix = "fftwf_";
};

template <class R>
struct Fftw {
    using Plan = typename FftwNames<R>::Plan;
    using Complex = R[2];
    Plan (*plan_dft)(int, const FftwDim*, int, const FftwDim*, Complex*, Complex*, int, unsigned);
    Plan (*plan_r2c)(int, const FftwDim*, int, const FftwDim*, R*, Complex*, unsigned);
    Plan (*plan_c2r)(int, const FftwDim*, int, const FftwDim*, Complex*, R*, unsigned);
    void (*execute)(Plan);
    void (*destroy)(Plan);
};

template <class R>
const Fftw<R>& fftw() {
    static const Fftw<R> functions = [] {
        Fftw<R> f;
        const auto get = [](auto& function, const char* name) {
            using F = std::remove_pointer_t<std::remove_reference_t<decltype(function)>>;
            function = reinterpret_cast<F*>(cudasim::private_cpu_symbol(
                FftwNames<R>::kLibraries, (std::string(FftwNames<R>::kPrefix) + name).c_str()));
        };
        get(f.plan_dft, "plan_guru64_dft");
        get(f.plan_r2c, "plan_guru64_dft_r2c");
        get(f.plan_c2r, "plan_guru64_dft_c2r");
        get(f.execute, "execute");
        get(f.destroy, "destroy_plan");
        return f;
    }();
    return functions;
}

// FFTW's planner and fftw_destroy_plan run in one thread at a time; its execute in any number.
std::mutex& fftw_planner_mutex() {
    static auto* mutex = new std::mutex;  // outlives exit-time calls
    return *mutex;
}

// ---- Plans --------------------------------------------------------------------------------------

bool real_input(cufftType type) {
    return type == CUFFT_R2C || type == CUFFT_D2Z;
}
bool real_output(cufftType type) {
    return type == CUFFT_C2R || type == CUFFT_Z2D;
}
bool is_double(cufftType type) {
    return type == CUFFT_Z2Z || type == CUFFT_D2Z || type == CUFFT_Z2D;
}
bool known_type(cufftType type) {
    return type == CUFFT_C2C || type == CUFFT_Z2Z || real_input(type) || real_output(type);
}

// A plan's executions share its work area: each must have finished before the next one runs,
// and before the plan (and the area with it) is destroyed. cuFFT does not order executions
// enqueued on different streams, nor does cufftDestroy wait for them; the caller must.
struct WorkArea {
    std::atomic<uint64_t> enqueued{0};  // executions enqueued, numbered from 1
    std::atomic<uint64_t> finished{0};  // the number of the last one that ran
};

struct Plan {
    int device = 0;     // the device current when it was made
    bool made = false;  // by cufftMakePlanMany64; a handle from cufftCreate alone executes nothing
    std::shared_ptr<WorkArea> work_area;
    cudaStream_t stream = nullptr;
    cufftType type = CUFFT_C2C;
    int rank = 0;
    long long n[3] = {};
    long long batch = 0;
    // Null embeddings: the basic layout, packed, in which the real array of an in-place real
    // transform is padded to the complex array's size. Otherwise the advanced layout.
    bool basic = true;
    long long inembed[3] = {}, onembed[3] = {};
    long long istride = 1, idist = 1, ostride = 1, odist = 1;
};

// The elements of one array of a plan's batch: element (b, i0, i1, i2) lies at
// b * dist + sum of i_d * stride[d], in elements of the array's type.
struct Side {
    int rank = 0;
    long long count[3] = {};   // n, or n/2 + 1 in the last dimension of a real transform's
                               // complex array
    long long stride[3] = {};  // from the embedding: stride[rank - 1] is istride or ostride
    long long dist = 0;
    long long batch = 0;
    size_t element_bytes = 0;
};

// The input or output array of `plan`; false when an offset overflows.
bool side_of(const Plan& plan, bool input, bool in_place, Side* side) {
    const bool real = input ? real_input(plan.type) : real_output(plan.type);
    const bool real_transform = real_input(plan.type) || real_output(plan.type);
    const int last = plan.rank - 1;
    side->rank = plan.rank;
    side->batch = plan.batch;
    side->element_bytes = (is_double(plan.type) ? 8 : 4) * (real ? 1 : 2);
    long long embed[3] = {};
    for (int d = 0; d < plan.rank; ++d) {
        side->count[d] = real_transform && !real && d == last ? plan.n[d] / 2 + 1 : plan.n[d];
        embed[d] = plan.basic ? side->count[d] : (input ? plan.inembed[d] : plan.onembed[d]);
    }
    if (plan.basic && real && in_place) embed[last] = 2 * (plan.n[last] / 2 + 1);
    side->stride[last] = plan.basic ? 1 : (input ? plan.istride : plan.ostride);
    for (int d = last - 1; d >= 0; --d) {
        if (__builtin_mul_overflow(side->stride[d + 1], embed[d + 1], &side->stride[d])) {
            return false;
        }
    }
    if (!plan.basic) {
        side->dist = input ? plan.idist : plan.odist;
    } else if (__builtin_mul_overflow(side->stride[0], embed[0], &side->dist)) {
        return false;
    }
    return true;
}

// The elements from the first of `side` to its last, inclusive; false on overflow.
bool span(const Side& side, long long* elements) {
    long long last = 0, term = 0;
    if (__builtin_mul_overflow(side.dist, side.batch - 1, &last)) return false;
    for (int d = 0; d < side.rank; ++d) {
        if (__builtin_mul_overflow(side.stride[d], side.count[d] - 1, &term) ||
            __builtin_add_overflow(last, term, &last)) {
            return false;
        }
    }
    long long bytes = 0;
    return !__builtin_add_overflow(last, 1, elements) &&
           !__builtin_mul_overflow(*elements, static_cast<long long>(side.element_bytes), &bytes);
}

// Whether no two elements of `side` share an address: taken from the finest stride up, each
// dimension (the batch being one more) must step past everything the finer ones span.
// Sufficient rather than necessary, and it admits every packed, padded or interleaved layout.
bool distinct_elements(const Side& side) {
    struct Dim {
        long long count, stride;
    };
    Dim dims[4] = {{side.batch, side.dist}};
    int count = 1;
    for (int d = 0; d < side.rank; ++d) dims[count++] = {side.count[d], side.stride[d]};
    std::sort(dims, dims + count, [](Dim a, Dim b) { return a.stride < b.stride; });
    long long spanned = 1;
    for (int d = 0; d < count; ++d) {
        if (dims[d].count == 1) continue;
        if (dims[d].stride < spanned) return false;
        spanned += dims[d].stride * (dims[d].count - 1);
    }
    return true;
}

bool same_layout(const Side& a, const Side& b) {
    return a.dist == b.dist && std::equal(a.stride, a.stride + a.rank, b.stride);
}

// Fills every element of `side` at `base` with NaN bytes.
void poison_elements(const Side& side, void* base) {
    long long count[4] = {side.batch, 1, 1, 1}, stride[4] = {side.dist, 0, 0, 0};
    for (int d = 0; d < side.rank; ++d) {
        count[d + 1] = side.count[d];
        stride[d + 1] = side.stride[d];
    }
    auto* bytes = static_cast<std::byte*>(base);
    for (long long b = 0; b < count[0]; ++b) {
        for (long long i = 0; i < count[1]; ++i) {
            for (long long j = 0; j < count[2]; ++j) {
                for (long long k = 0; k < count[3]; ++k) {
                    const long long element =
                        b * stride[0] + i * stride[1] + j * stride[2] + k * stride[3];
                    cudasim::poison(bytes + element * static_cast<long long>(side.element_bytes),
                                    side.element_bytes);
                }
            }
        }
    }
}

// Whether `n` has no prime factor above 127.
bool factors_up_to_127(long long n) {
    for (long long p = 2; p <= 127 && n > 1; ++p) {
        while (n % p == 0) n /= p;
    }
    return n == 1;
}

// The work area reported for a plan: see the top of this file.
size_t work_area_bytes(cufftType type, int rank, const long long* n, long long batch) {
    if (std::all_of(n, n + rank, [](long long size) { return (size & (size - 1)) == 0; })) return 0;
    size_t bytes = is_double(type) ? 16 : 8;
    for (int d = 0; d < rank; ++d) bytes *= static_cast<size_t>(n[d]);
    return bytes * static_cast<size_t>(batch);
}

// The handles. cuFFT is thread safe for different plans in different threads (Thread Safety),
// so the table is shared under a lock.
struct Plans {
    std::mutex mutex;
    std::unordered_map<cufftHandle, Plan> plans;
    cufftHandle last = 0;
};

Plans& plans() {
    static auto* table = new Plans;  // outlives exit-time calls
    return *table;
}

// A copy of the plan of `handle`; false when there is none.
bool find_plan(cufftHandle handle, Plan* plan) {
    Plans& table = plans();
    const std::lock_guard lock(table.mutex);
    const auto found = table.plans.find(handle);
    if (found == table.plans.end()) return false;
    *plan = found->second;
    return true;
}

// Stops the process unless `address` holds all of `side` in one device allocation, aligned to
// its element.
void require_array(const char* api, const char* what, const void* address, const Side& side) {
    long long elements = 0;
    span(side, &elements);  // checked when the plan was made
    const size_t bytes = static_cast<size_t>(elements) * side.element_bytes;
    cudasim::require_device(api, what, address, bytes);
    if (reinterpret_cast<uintptr_t>(address) % side.element_bytes != 0) {
        cudasim::misuse(api, std::string(what) + " is not aligned to its " +
                                 std::to_string(side.element_bytes) + "-byte elements");
    }
}

bool overlap(const void* a, const Side& side_a, const void* b, const Side& side_b) {
    long long elements_a = 0, elements_b = 0;
    span(side_a, &elements_a);
    span(side_b, &elements_b);
    const auto start_a = reinterpret_cast<uintptr_t>(a), start_b = reinterpret_cast<uintptr_t>(b);
    return start_a < start_b + static_cast<uintptr_t>(elements_b) * side_b.element_bytes &&
           start_b < start_a + static_cast<uintptr_t>(elements_a) * side_a.element_bytes;
}

// cufftExec*: checks the call, plans the transform on FFTW and enqueues its execution on the
// plan's stream.
template <class R>
cufftResult execute(const char* api, cufftHandle handle, cufftType type, void* in, void* out,
                    int direction) {
    Plan plan;
    // A plan of another type is no valid plan for this function.
    if (!find_plan(handle, &plan) || !plan.made || plan.type != type) return CUFFT_INVALID_PLAN;
    const bool complex = type == CUFFT_C2C || type == CUFFT_Z2Z;
    if (in == nullptr || out == nullptr) return CUFFT_INVALID_VALUE;
    if (complex && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) {
        return CUFFT_INVALID_VALUE;
    }
    // In place when idata is odata (cufftExecC2C and the others).
    const bool in_place = in == out;
    Side input, output;
    side_of(plan, true, in_place, &input);  // checked when the plan was made
    side_of(plan, false, in_place, &output);
    if (in_place && complex && !same_layout(input, output)) return CUFFT_INVALID_VALUE;
    require_array(api, "idata", in, input);
    require_array(api, "odata", out, output);
    if (!in_place && overlap(in, input, out, output)) {
        cudasim::misuse(api, "idata and odata overlap without being the same array");
    }
    if (cudasim::injected_fault()) return CUFFT_EXEC_FAILED;

    using Complex = typename Fftw<R>::Complex;
    FftwDim dims[3], batch{plan.batch, input.dist, output.dist};
    for (int d = 0; d < plan.rank; ++d) dims[d] = {plan.n[d], input.stride[d], output.stride[d]};
    // Planned now rather than in the enqueued work, so that a layout FFTW cannot compute is
    // refused with a status; FFTW_ESTIMATE reads and writes neither array.
    const Fftw<R>& f = fftw<R>();
    typename Fftw<R>::Plan fftw_plan;
    {
        const std::lock_guard lock(fftw_planner_mutex());
        if (complex) {
            fftw_plan = f.plan_dft(plan.rank, dims, 1, &batch, static_cast<Complex*>(in),
                                   static_cast<Complex*>(out), direction, kFftwEstimate);
        } else if (real_input(type)) {
            fftw_plan = f.plan_r2c(plan.rank, dims, 1, &batch, static_cast<R*>(in),
                                   static_cast<Complex*>(out), kFftwEstimate);
        } else {
            fftw_plan = f.plan_c2r(plan.rank, dims, 1, &batch, static_cast<Complex*>(in),
                                   static_cast<R*>(out), kFftwEstimate);
        }
    }
    // Only an in-place real transform whose two advanced layouts do not fit together gets here.
    if (fftw_plan == nullptr) return CUFFT_INVALID_VALUE;

    // cuFFT's Data Layout: "Out-of-place complex-to-real FFT will always overwrite input
    // buffer"; so does the emulation, once the output is computed.
    const bool overwrite_input = real_output(type) && !in_place;
    const uint64_t number = plan.work_area->enqueued.fetch_add(1) + 1;
    cudasim::enqueue(
        plan.stream, [api, fftw_plan, overwrite_input, input, in, area = plan.work_area, number] {
            if (area->finished.load() != number - 1) {
                cudasim::misuse(api,
                                "an execution of the plan runs before its previous one has "
                                "finished (on another stream, unordered): they share its work "
                                "area");
            }
            const Fftw<R>& functions = fftw<R>();
            functions.execute(fftw_plan);
            {
                const std::lock_guard lock(fftw_planner_mutex());
                functions.destroy(fftw_plan);
            }
            if (overwrite_input) poison_elements(input, in);
            area->finished.store(number);
        });
    return CUFFT_SUCCESS;
}

// What cufftGetSizeMany64 and cufftMakePlanMany64 check first: a handle not yet made into a
// plan (copied to *plan), and the sizes, type and batch.
cufftResult check_sizes(cufftHandle handle, int rank, const long long* n, cufftType type,
                        long long batch, const size_t* workSize, Plan* plan) {
    if (!find_plan(handle, plan) || plan->made) return CUFFT_INVALID_PLAN;
    if (rank < 1 || rank > 3) return CUFFT_INVALID_SIZE;
    // CUFFT_INVALID_TYPE is "no longer used" (cufftResult).
    if (n == nullptr || workSize == nullptr || !known_type(type)) return CUFFT_INVALID_VALUE;
    if (batch < 1 || std::any_of(n, n + rank, [](long long size) { return size < 1; })) {
        return CUFFT_INVALID_SIZE;
    }
    return CUFFT_SUCCESS;
}

}  // namespace

cufftResult cufftCreate(cufftHandle* handle) {
    if (handle == nullptr) return CUFFT_INVALID_VALUE;
    if (cudasim::injected_fault()) return CUFFT_ALLOC_FAILED;
    Plan created;
    created.device = cudasim::context_device();
    Plans& table = plans();
    const std::lock_guard lock(table.mutex);
    *handle = ++table.last;
    table.plans.emplace(*handle, std::move(created));
    return CUFFT_SUCCESS;
}

cufftResult cufftMakePlanMany64(cufftHandle handle, int rank, long long int* n,
                                long long int* inembed, long long int istride, long long int idist,
                                long long int* onembed, long long int ostride, long long int odist,
                                cufftType type, long long int batch, size_t* workSize) {
    Plan plan;
    if (const cufftResult result = check_sizes(handle, rank, n, type, batch, workSize, &plan))
        return result;
    if ((inembed == nullptr) != (onembed == nullptr)) return CUFFT_INVALID_VALUE;
    plan.type = type;
    plan.rank = rank;
    plan.batch = batch;
    std::copy(n, n + rank, plan.n);
    plan.basic = inembed == nullptr;
    if (!plan.basic) {
        if (istride < 1 || ostride < 1 || idist < 1 || odist < 1) return CUFFT_INVALID_VALUE;
        std::copy(inembed, inembed + rank, plan.inembed);
        std::copy(onembed, onembed + rank, plan.onembed);
        plan.istride = istride;
        plan.idist = idist;
        plan.ostride = ostride;
        plan.odist = odist;
    }

    // cufftMakePlanMany64: above 4G elements, the sizes must factor into primes up to 127,
    // and the last size of a real transform must be even.
    long long elements = 1;
    for (int d = 0; d < rank; ++d) {
        if (__builtin_mul_overflow(elements, n[d], &elements)) return CUFFT_INVALID_SIZE;
    }
    if (elements > (1LL << 32) &&
        (!std::all_of(n, n + rank, factors_up_to_127) ||
         ((real_input(type) || real_output(type)) && n[rank - 1] % 2 != 0))) {
        return CUFFT_INVALID_SIZE;
    }

    // The basic layout pads the real array of an in-place real transform: both placements.
    for (const bool in_place : {false, true}) {
        Side input, output;
        long long span_elements = 0;
        if (!side_of(plan, true, in_place, &input) || !side_of(plan, false, in_place, &output) ||
            !span(input, &span_elements) || !span(output, &span_elements)) {
            return CUFFT_INVALID_SIZE;
        }
        if (!plan.basic) {
            // The first embedding is never used (Advanced Data Layout).
            for (int d = 1; d < rank; ++d) {
                if (plan.inembed[d] < input.count[d] || plan.onembed[d] < output.count[d]) {
                    return CUFFT_INVALID_VALUE;
                }
            }
        }
        if (!distinct_elements(output)) return CUFFT_INVALID_VALUE;
    }
    if (cudasim::injected_fault()) return CUFFT_ALLOC_FAILED;

    plan.made = true;
    plan.work_area = std::make_shared<WorkArea>();
    Plans& table = plans();
    const std::lock_guard lock(table.mutex);
    const auto found = table.plans.find(handle);
    if (found == table.plans.end() || found->second.made) return CUFFT_INVALID_PLAN;
    plan.stream = found->second.stream;  // a cufftSetStream that came in meanwhile
    found->second = plan;
    *workSize = work_area_bytes(type, rank, n, batch);
    return CUFFT_SUCCESS;
}

// The size cufftMakePlanMany64 will report, for a handle not yet made into a plan; the layout
// is checked by cufftMakePlanMany64 alone.
cufftResult cufftGetSizeMany64(cufftHandle handle, int rank, long long int* n,
                               long long int* /*inembed*/, long long int /*istride*/,
                               long long int /*idist*/, long long int* /*onembed*/,
                               long long int /*ostride*/, long long int /*odist*/, cufftType type,
                               long long int batch, size_t* workSize) {
    Plan plan;
    if (const cufftResult result = check_sizes(handle, rank, n, type, batch, workSize, &plan))
        return result;
    *workSize = work_area_bytes(type, rank, n, batch);
    return CUFFT_SUCCESS;
}

cufftResult cufftSetStream(cufftHandle handle, cudaStream_t stream) {
    Plans& table = plans();
    const std::lock_guard lock(table.mutex);
    const auto found = table.plans.find(handle);
    if (found == table.plans.end()) return CUFFT_INVALID_PLAN;
    cudasim::require_handle_device("cufftSetStream", found->second.device, stream);
    found->second.stream = stream;
    return CUFFT_SUCCESS;
}

// The plan's work area goes with it: an execution that has not run yet would use freed memory.
cufftResult cufftDestroy(cufftHandle handle) {
    Plans& table = plans();
    const std::lock_guard lock(table.mutex);
    const auto found = table.plans.find(handle);
    if (found == table.plans.end()) return CUFFT_INVALID_PLAN;
    const std::shared_ptr<WorkArea>& area = found->second.work_area;
    if (area != nullptr && area->finished.load() != area->enqueued.load()) {
        cudasim::misuse("cufftDestroy",
                        "the plan is destroyed before all its executions have "
                        "finished: they would use its freed work area");
    }
    table.plans.erase(found);
    return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata,
                         int direction) {
    return execute<float>("cufftExecC2C", plan, CUFFT_C2C, idata, odata, direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata,
                         int direction) {
    return execute<double>("cufftExecZ2Z", plan, CUFFT_Z2Z, idata, odata, direction);
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata) {
    return execute<float>("cufftExecR2C", plan, CUFFT_R2C, idata, odata, 0);
}

cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata) {
    return execute<double>("cufftExecD2Z", plan, CUFFT_D2Z, idata, odata, 0);
}

cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata) {
    return execute<float>("cufftExecC2R", plan, CUFFT_C2R, idata, odata, 0);
}

cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata) {
    return execute<double>("cufftExecZ2D", plan, CUFFT_Z2D, idata, odata, 0);
}
