#ifndef GPUSHIM_GPU_CUDA_CUDA_FFT_H
#define GPUSHIM_GPU_CUDA_CUDA_FFT_H

#include <cuda_runtime_api.h>
#include <cufft.h>

#include "gpu/cuda/cuda_status.h"
#include "gpu/device_interface.h"

namespace gpushim::cuda {

// cuFFT's statuses, in a range of their own above those of cuda_status.h (cufftResult values
// stay below 100).
inline constexpr int kCufftStatusBase = 400000;

// A description the plugin does not hand to cuFFT: an unknown kind or precision, a rank
// outside 1..3, a size or batch below 1, a C2C sign other than -1 and +1, or arrays whose
// byte offsets exceed int64. Found by the plugin itself; it takes the one slot of cuFFT's range
// that no cuFFT failure uses (CUFFT_SUCCESS's).
inline constexpr int kInvalidFftOperation = kCufftStatusBase;

inline int status_from(cufftResult result) {
    return result == CUFFT_SUCCESS ? kSuccess : kCufftStatusBase + static_cast<int>(result);
}

// "CUFFT_...: meaning" for a status cufft.h defines; null for another.
const char* cufft_status_text(cufftResult result);

// Plans `desc`'s batch of transforms on the calling thread's current device, which must be
// the one the plan is executed on. cuFFT allocates the plan's work area now, once the host's
// account of the plugin's device memory has allowed it; the plan holds it until
// destroy_fft_plan.
int create_fft_plan(const gpushim_fft_desc& desc, gpushim_fft_plan* plan);

// Enqueues the transform of dev_in into dev_out on `stream`; it does not wait for the result.
int execute_fft(gpushim_fft_plan plan, void* dev_in, void* dev_out, cudaStream_t stream);

// Waits for the plan's last execution, then releases the plan and its work area.
int destroy_fft_plan(gpushim_fft_plan plan);

}  // namespace gpushim::cuda

#endif
