// What the emulated cuSOLVER's two halves (factorizations and solves; eigenvalues and SVD)
// share: the handle and parameter objects, and the checks every routine makes.
#ifndef GPUSHIM_TESTS_CUDASIM_CUDASIM_CUSOLVER_H
#define GPUSHIM_TESTS_CUDASIM_CUDASIM_CUSOLVER_H

#include <cusolverDn.h>

#include <cstddef>
#include <string>

struct cusolverDnContext {
    int device = 0;  // the device current when it was made
    cudaStream_t stream = nullptr;
};

// The emulation honours no advanced option: cusolverDnSetAdvOptions is not emulated, so a
// params object holds nothing.
struct cusolverDnParams {};

namespace cudasim {

// The element size of a cuSOLVER data type (CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F);
// zero for any other.
size_t element_bytes(cudaDataType type);

// The CPU LAPACK symbol of a routine in the precision with LAPACK prefix `prefix` ('s', 'd',
// 'c', 'z'): `real_name` for a real precision, `complex_name` (heevd for syevd, ungqr for orgqr)
// for a complex one where given; e.g. ("z", "syevd", "heevd") is "zheevd_".
std::string lapack_symbol(char prefix, const char* real_name, const char* complex_name);

// Stops the process (misuse) unless the caller's workspaces are at least what the routine's
// bufferSize query answered for the same arguments; a workspace of zero bytes may be null,
// a device workspace must be device memory and a host workspace host memory. On success,
// the device workspace is poisoned in stream order, as a GPU would leave it dirty.
void require_workspaces(const char* api, cudaStream_t stream, const void* device_workspace,
                        size_t device_bytes, size_t device_needed, const void* host_workspace,
                        size_t host_bytes, size_t host_needed);

}  // namespace cudasim

#endif
