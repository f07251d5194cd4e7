// The FFT part of the device interface, on cuFFT.
//
// One cuFFT plan per description, made by cufftMakePlanMany64 so that sizes, batches and
// offsets beyond 2^31 elements reach cuFFT unchanged (which then refuses what it cannot do:
// above 4G elements, lengths with a prime factor over 127; an odd last length of a large real
// transform; the shim then computes the transform on FFTW). The layout is spelled out rather than
// left to cuFFT's defaults: unit stride, embeddings equal to the packed array's own extents
// (the last one n/2 + 1 on the complex side of a real transform), and consecutive transforms
// one whole array apart. cuFFT's n runs from the slowest dimension to the fastest, as FFTW's
// does, and its directions are FFTW's signs (CUFFT_FORWARD -1, CUFFT_INVERSE +1), both
// unnormalized, so a description reaches cuFFT unchanged. An out-of-place C2R may overwrite
// its input in cuFFT; the interface allows it.
#include "gpu/cuda/cuda_fft.h"

#include <limits>
#include <new>

#include "gpu/cuda/cuda_memory_account.h"
#include "gpu/cuda/cuda_status.h"

struct gpushim_fft_plan_s {
    cufftHandle handle = 0;
    bool handle_created = false;
    cufftType type = CUFFT_Z2Z;
    int direction = CUFFT_FORWARD;  // C2C only: the other types have theirs built in
    // Recorded after every execution. The work area belongs to the plan, not to a stream:
    // an execution on another queue's stream must not start before the previous one has
    // finished with it, and the plan must not be destroyed (its work area freed) before then.
    cudaEvent_t done = nullptr;
    // What the host's account of the plugin's device memory holds for the work area.
    size_t taken_bytes = 0;
};

namespace gpushim::cuda {
namespace {

// What cufftMakePlanMany64 is given for one description.
struct ManyPlan {
    int rank = 0;
    long long n[3] = {};
    long long inembed[3] = {};
    long long onembed[3] = {};
    long long idist = 1;
    long long odist = 1;
    long long batch = 0;
    cufftType type = CUFFT_Z2Z;
    int direction = CUFFT_FORWARD;
};

// Every element offset of the batch, in bytes of the widest element (double complex), stays
// within int64, so that no index cuFFT computes can wrap.
constexpr long long kMaxElements = std::numeric_limits<long long>::max() / 16;

bool times(long long a, long long b, long long* product) {
    return !__builtin_mul_overflow(a, b, product) && *product <= kMaxElements;
}

// The cuFFT plan of `desc`; false for a description the interface does not allow.
bool many_plan(const gpushim_fft_desc& desc, ManyPlan* plan) {
    if (desc.rank < 1 || desc.rank > 3 || desc.howmany < 1 || !gpushim_fft_kind_known(&desc))
        return false;
    const bool is_double = desc.precision == GPUSHIM_PREC_D;
    if (!is_double && desc.precision != GPUSHIM_PREC_S) return false;
    switch (desc.kind) {
        case GPUSHIM_FFT_C2C:
            if (desc.sign != -1 && desc.sign != 1) return false;
            plan->type = is_double ? CUFFT_Z2Z : CUFFT_C2C;
            plan->direction = desc.sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
            break;
        case GPUSHIM_FFT_R2C:
            plan->type = is_double ? CUFFT_D2Z : CUFFT_R2C;
            break;
        case GPUSHIM_FFT_C2R:
            plan->type = is_double ? CUFFT_Z2D : CUFFT_C2R;
            break;
        default:
            return false;
    }
    // The spatial array has the sizes n; the spectral one is the half spectrum of a real
    // transform (n/2 + 1 in the last dimension), or for C2C the same as the spatial one.
    long long spatial[3] = {}, spectral[3] = {};
    long long spatial_count = 1, spectral_count = 1;
    plan->rank = desc.rank;
    for (int d = 0; d < desc.rank; ++d) {
        const long long n = desc.n[d];
        if (n < 1) return false;
        const bool halved = d == desc.rank - 1 && desc.kind != GPUSHIM_FFT_C2C;
        plan->n[d] = spatial[d] = n;
        spectral[d] = halved ? n / 2 + 1 : n;
        if (!times(spatial_count, spatial[d], &spatial_count) ||
            !times(spectral_count, spectral[d], &spectral_count)) {
            return false;
        }
    }
    long long batch_elements = 0;
    if (!times(spatial_count, desc.howmany, &batch_elements) ||
        !times(spectral_count, desc.howmany, &batch_elements)) {
        return false;
    }
    const bool spectral_in = desc.kind == GPUSHIM_FFT_C2R;
    const bool spectral_out = desc.kind == GPUSHIM_FFT_R2C;
    for (int d = 0; d < desc.rank; ++d) {
        plan->inembed[d] = spectral_in ? spectral[d] : spatial[d];
        plan->onembed[d] = spectral_out ? spectral[d] : spatial[d];
    }
    plan->idist = spectral_in ? spectral_count : spatial_count;
    plan->odist = spectral_out ? spectral_count : spatial_count;
    plan->batch = desc.howmany;
    return true;
}

// Releases whatever part of the plan exists; reports the first failure.
int release(gpushim_fft_plan_s* plan) {
    int status = kSuccess;
    if (plan->handle_created) status = status_from(cufftDestroy(plan->handle));
    if (plan->done != nullptr) {
        const int event_status = runtime_status(cudaEventDestroy(plan->done));
        if (status == kSuccess) status = event_status;
    }
    give_device_memory(plan->taken_bytes);
    delete plan;
    return status;
}

cufftResult execute(const gpushim_fft_plan_s& plan, void* in, void* out) {
    switch (plan.type) {
        case CUFFT_Z2Z:
            return cufftExecZ2Z(plan.handle, static_cast<cufftDoubleComplex*>(in),
                                static_cast<cufftDoubleComplex*>(out), plan.direction);
        case CUFFT_C2C:
            return cufftExecC2C(plan.handle, static_cast<cufftComplex*>(in),
                                static_cast<cufftComplex*>(out), plan.direction);
        case CUFFT_D2Z:
            return cufftExecD2Z(plan.handle, static_cast<cufftDoubleReal*>(in),
                                static_cast<cufftDoubleComplex*>(out));
        case CUFFT_R2C:
            return cufftExecR2C(plan.handle, static_cast<cufftReal*>(in),
                                static_cast<cufftComplex*>(out));
        case CUFFT_Z2D:
            return cufftExecZ2D(plan.handle, static_cast<cufftDoubleComplex*>(in),
                                static_cast<cufftDoubleReal*>(out));
        case CUFFT_C2R:
            return cufftExecC2R(plan.handle, static_cast<cufftComplex*>(in),
                                static_cast<cufftReal*>(out));
    }
    return CUFFT_INVALID_TYPE;  // never: create_fft_plan chose one of the above
}

}  // namespace

// Names from cufft.h (cuFFT 12, CUDA 13), meanings from the cuFFT documentation.
const char* cufft_status_text(cufftResult result) {
    switch (result) {
        case CUFFT_SUCCESS:
            return "CUFFT_SUCCESS: success";
        case CUFFT_INVALID_PLAN:
            return "CUFFT_INVALID_PLAN: an invalid plan handle was passed";
        case CUFFT_ALLOC_FAILED:
            return "CUFFT_ALLOC_FAILED: GPU or CPU memory could not be allocated";
        case CUFFT_INVALID_TYPE:
            return "CUFFT_INVALID_TYPE: an invalid transform type";
        case CUFFT_INVALID_VALUE:
            return "CUFFT_INVALID_VALUE: an invalid pointer or parameter was passed";
        case CUFFT_INTERNAL_ERROR:
            return "CUFFT_INTERNAL_ERROR: a driver or internal cuFFT error";
        case CUFFT_EXEC_FAILED:
            return "CUFFT_EXEC_FAILED: the FFT failed to execute on the GPU";
        case CUFFT_SETUP_FAILED:
            return "CUFFT_SETUP_FAILED: the cuFFT library failed to initialize";
        case CUFFT_INVALID_SIZE:
            return "CUFFT_INVALID_SIZE: a transform size cuFFT does not support";
        case CUFFT_UNALIGNED_DATA:
            return "CUFFT_UNALIGNED_DATA: the data are not aligned as cuFFT needs";
        case CUFFT_INVALID_DEVICE:
            return "CUFFT_INVALID_DEVICE: the plan was executed on another GPU than it was made on";
        case CUFFT_NO_WORKSPACE:
            return "CUFFT_NO_WORKSPACE: no work area was provided before execution";
        case CUFFT_NOT_IMPLEMENTED:
            return "CUFFT_NOT_IMPLEMENTED: not implemented for the parameters given";
        case CUFFT_NOT_SUPPORTED:
            return "CUFFT_NOT_SUPPORTED: not supported for the parameters given";
        case CUFFT_MISSING_DEPENDENCY:
            return "CUFFT_MISSING_DEPENDENCY: a library cuFFT needs is missing";
        case CUFFT_NVRTC_FAILURE:
            return "CUFFT_NVRTC_FAILURE: NVRTC failed";
        case CUFFT_NVJITLINK_FAILURE:
            return "CUFFT_NVJITLINK_FAILURE: nvJitLink failed";
        case CUFFT_NVSHMEM_FAILURE:
            return "CUFFT_NVSHMEM_FAILURE: NVSHMEM failed";
    }
    return nullptr;
}

int create_fft_plan(const gpushim_fft_desc& desc, gpushim_fft_plan* plan) {
    ManyPlan many;
    if (!many_plan(desc, &many)) return kInvalidFftOperation;
    auto* created = new (std::nothrow) gpushim_fft_plan_s;
    if (created == nullptr) return kHostOutOfMemory;
    created->type = many.type;
    created->direction = many.direction;
    int status = runtime_status(cudaEventCreateWithFlags(&created->done, cudaEventDisableTiming));
    if (status == kSuccess) {
        status = status_from(cufftCreate(&created->handle));
        created->handle_created = status == kSuccess;
    }
    // cuFFT allocates the work area while it makes the plan: its size, as cuFFT estimates it
    // beforehand, is taken from the host's account first, then corrected to the real one.
    size_t work_bytes = 0;
    if (status == kSuccess) {
        status = status_from(cufftGetSizeMany64(created->handle, many.rank, many.n, many.inembed, 1,
                                                many.idist, many.onembed, 1, many.odist, many.type,
                                                many.batch, &work_bytes));
    }
    if (status == kSuccess) {
        if (take_device_memory(work_bytes)) {
            created->taken_bytes = work_bytes;
        } else {
            status = kDeviceOutOfMemory;
        }
    }
    if (status == kSuccess) {
        status = status_from(cufftMakePlanMany64(created->handle, many.rank, many.n, many.inembed,
                                                 1, many.idist, many.onembed, 1, many.odist,
                                                 many.type, many.batch, &work_bytes));
    }
    if (status == kSuccess && work_bytes > created->taken_bytes) {
        if (take_device_memory(work_bytes - created->taken_bytes)) {
            created->taken_bytes = work_bytes;
        } else {
            status = kDeviceOutOfMemory;
        }
    } else if (status == kSuccess) {
        give_device_memory(created->taken_bytes - work_bytes);
        created->taken_bytes = work_bytes;
    }
    // cuFFT may upload the plan's tables on the legacy default stream, which the plugin's
    // non-blocking queues do not wait for: let them land before any execution.
    if (status == kSuccess) status = runtime_status(cudaStreamSynchronize(cudaStreamLegacy));
    if (status != kSuccess) {
        release(created);
        return status;
    }
    *plan = created;
    return kSuccess;
}

int execute_fft(gpushim_fft_plan plan, void* dev_in, void* dev_out, cudaStream_t stream) {
    // Waiting for the plan's previous execution costs nothing on its own stream, and a wait
    // for an event never recorded is no wait at all.
    if (const int status = runtime_status(cudaStreamWaitEvent(stream, plan->done, 0))) {
        return status;
    }
    if (const int status = status_from(cufftSetStream(plan->handle, stream))) return status;
    // Recorded even after a failure: cuFFT may have enqueued part of the transform.
    const int executed = status_from(execute(*plan, dev_in, dev_out));
    const int recorded = runtime_status(cudaEventRecord(plan->done, stream));
    if (recorded != kSuccess) {
        // Unrecorded, the event would not hold back the next execution: this one must be over
        // before the call returns. Reported or not, the wait is done.
        runtime_status(cudaStreamSynchronize(stream));
    }
    return executed != kSuccess ? executed : recorded;
}

int destroy_fft_plan(gpushim_fft_plan plan) {
    // cuFFT frees the work area with the plan: the last execution must be done with it.
    const int waited = runtime_status(cudaEventSynchronize(plan->done));
    const int released = release(plan);
    return waited != kSuccess ? waited : released;
}

}  // namespace gpushim::cuda
