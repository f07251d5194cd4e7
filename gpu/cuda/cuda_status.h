// Plugin statuses: one integer that still says which library failed, so that
// describe_error() can name the CUDA runtime, cuBLAS or cuSOLVER error behind it.
#ifndef GPUSHIM_GPU_CUDA_CUDA_STATUS_H
#define GPUSHIM_GPU_CUDA_CUDA_STATUS_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>

namespace gpushim::cuda {

// Failures the plugin detects itself; the CUDA, cuBLAS and cuSOLVER ranges start far
// above them.
enum PluginStatus : int {
    kSuccess = 0,
    kNoDevice = 1,
    kHostOutOfMemory = 2,
    kInvalidBlasOperation = 3,
    kInvalidLapackOperation = 4,
    kUnsupportedLapackSize = 5,  // a size beyond the int of a legacy cuSOLVER routine
    kDeviceReset = 6,            // the program reset the device: all the plugin held is gone
    kProcessExiting = 7,         // exit has begun: the runtime may be torn down
    kContextNotPrimary = 8,      // the reset watch cannot ask about the plugin's context
};

// cudaError_t values stay below 100000, cublasStatus_t and cusolverStatus_t values below
// 100, so the ranges cannot overlap.
inline constexpr int kCudaStatusBase = 100000;
inline constexpr int kCublasStatusBase = 200000;
inline constexpr int kCusolverStatusBase = 300000;
// CUresult values of the plugin's driver calls (the current context, the primary context's
// state, a pointer's attributes), below 1000 (kCufftStatusBase, cuda_fft.h, is 400000).
inline constexpr int kDriverStatusBase = 500000;

// The status of a CUDA runtime call that returned `error`. A failing call also leaves the
// error as the calling thread's last one, where a later check of cudaGetLastError (cuBLAS's,
// cuSOLVER's, the program's own) would take it for a failure of its own: it is cleared here.
// A sticky error (a corrupted context) cannot be cleared; every later call reports it anyway.
// Every runtime call of the plugin goes through this, its result used or not.
inline int runtime_status(cudaError_t error) {
    if (error == cudaSuccess) return kSuccess;
    cudaGetLastError();
    return kCudaStatusBase + static_cast<int>(error);
}

// Whether a plugin status is a device reset by the program, or one of the runtime or driver
// errors that CUDA documents as leaving the process in an inconsistent state, every later call
// returning the same error until the process is relaunched (a fault in a kernel, an assert, a
// lost MPS server, an error the driver contained). A driver call of the plugin's may be the
// first to see one (the program's own kernel faulted). cuBLAS, cuSOLVER and cuFFT statuses are
// never lasting: a corrupted context shows up in the next runtime call the plugin makes.
inline bool status_is_lasting(int status) {
    if (status == kDeviceReset) return true;
    if (status > kDriverStatusBase) {
        switch (static_cast<CUresult>(status - kDriverStatusBase)) {
            case CUDA_ERROR_CONTAINED:
            case CUDA_ERROR_ILLEGAL_ADDRESS:
            case CUDA_ERROR_LAUNCH_TIMEOUT:
            case CUDA_ERROR_ASSERT:
            case CUDA_ERROR_HARDWARE_STACK_ERROR:
            case CUDA_ERROR_ILLEGAL_INSTRUCTION:
            case CUDA_ERROR_MISALIGNED_ADDRESS:
            case CUDA_ERROR_INVALID_ADDRESS_SPACE:
            case CUDA_ERROR_INVALID_PC:
            case CUDA_ERROR_LAUNCH_FAILED:
            case CUDA_ERROR_TENSOR_MEMORY_LEAK:
            case CUDA_ERROR_MPS_CLIENT_TERMINATED:
            case CUDA_ERROR_EXTERNAL_DEVICE:
                return true;
            default:
                return false;
        }
    }
    if (status <= kCudaStatusBase || status >= kCublasStatusBase) return false;
    switch (static_cast<cudaError_t>(status - kCudaStatusBase)) {
        case cudaErrorContained:
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchTimeout:
        case cudaErrorAssert:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorLaunchFailure:
        case cudaErrorTensorMemoryLeak:
        case cudaErrorMpsClientTerminated:
        case cudaErrorExternalDevice:
            return true;
        default:
            return false;
    }
}

// What the plugin reports for a workspace it cannot even size (a byte count beyond size_t):
// the runtime's out-of-memory, without a runtime call (so nothing to clear).
inline constexpr int kDeviceOutOfMemory =
    kCudaStatusBase + static_cast<int>(cudaErrorMemoryAllocation);

inline int status_from(cublasStatus_t status) {
    return status == CUBLAS_STATUS_SUCCESS ? kSuccess
                                           : kCublasStatusBase + static_cast<int>(status);
}

inline int status_from(cusolverStatus_t status) {
    return status == CUSOLVER_STATUS_SUCCESS ? kSuccess
                                             : kCusolverStatusBase + static_cast<int>(status);
}

}  // namespace gpushim::cuda

#endif
