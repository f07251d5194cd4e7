#ifndef GPUSHIM_GPU_CUDA_CUDA_BLAS3_H
#define GPUSHIM_GPU_CUDA_CUDA_BLAS3_H

#include <cublas_v2.h>

#include "gpu/device_interface.h"

namespace gpushim::cuda {

// Enqueues `op` on the stream bound to `handle` and returns a plugin status
// (see cuda_status.h); it does not wait for the result.
int enqueue_blas3(const gpushim_blas3_op& op, cublasHandle_t handle);

}  // namespace gpushim::cuda

#endif
