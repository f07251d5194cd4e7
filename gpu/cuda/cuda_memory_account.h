// The host's account of the device memory the plugin holds for itself (LAPACK workspaces,
// cuFFT work areas): gpu/device_interface.h's take_device_memory, give_device_memory and
// release_kept_device_memory, through the services init() was given. Defined in
// cuda_plugin.cpp.
#ifndef GPUSHIM_GPU_CUDA_CUDA_MEMORY_ACCOUNT_H
#define GPUSHIM_GPU_CUDA_CUDA_MEMORY_ACCOUNT_H

#include <cstddef>

namespace gpushim::cuda {

// Whether `bytes` more may be held; a host that keeps no account allows everything. Without
// `make_room` (for a size merely preferred) the host frees nothing to allow them.
bool take_device_memory(size_t bytes, bool make_room = true);
// After `bytes` taken have been freed.
void give_device_memory(size_t bytes);
// After the device refused an allocation: the host frees what it keeps, for one more try.
void release_kept_device_memory();

}  // namespace gpushim::cuda

#endif
