// cudasim: the CUDA runtime, cuBLAS, cuSOLVER and cuFFT entry points that the CUDA plugin
// (gpu/cuda/) calls, emulated on the CPU, so that CI, which has no GPU, runs the plugin's own
// code: its argument mapping, workspaces, pivots, stream order and error paths.
//
// The emulation is deliberately strict where a GPU would forgive or fail silently:
// - work enqueued on a stream runs only when the host waits for it (stream, event or device
//   synchronisation; cudaFree, cudaFreeHost and cudaStreamDestroy, which drain first; device
//   synchronisations drain the current device's streams only), so a
//   result read too early, or a host
//   buffer reused before its copy has run, shows up as a wrong answer;
// - every pointer a library routine dereferences on the device must lie inside one live
//   device allocation, and host pointers must not; a violation stops the process with a
//   message naming the entry point and the argument;
// - new device allocations and workspaces are filled with NaN bytes, so a read of memory
//   nobody wrote shows up in the results;
// - an out-of-place C2R transform overwrites its input, as cuFFT may;
// - with several devices (CUDASIM_DEVICES), streams, events, library handles, cuFFT plans and
//   device memory belong to the device current on the thread that made them: work enqueued
//   on a stream, device memory a routine or copy reads or writes, or a stream given to a
//   handle or plan, while another device is current stops the process (CUDA allows such
//   copies, and peer access once enabled; the plugin needs neither), and an event recorded on
//   another device's stream fails, as in CUDA;
// - a thread has no current context until it sets a device (cudaSetDevice makes the device's
//   context, as since CUDA 12) or makes a call that needs one (which makes device 0's); with
//   CUDASIM_UNTOUCHED_DEVICE=<d>, making device d's context stops the process, so a test can
//   require that a device the program does not use is left alone. The driver's
//   cuCtxGetCurrent, cuCtxSetCurrent, cuCtxGetDevice, cuDevicePrimaryCtxGetState, Retain,
//   Release and Reset, and cuPointerGetAttribute (the buffer id alone) are emulated, through
//   cudaGetDriverEntryPointByVersion.
// The numerical work is done by the CPU's BLAS, LAPACK and FFTW, opened privately
// (RTLD_LOCAL) so that a preloaded libgpushim.so never intercepts it.
//
// Each emulated library carries the soname and symbol version of the toolkit's own, so the
// unchanged libgpushim_cuda.so binds to it when its directory comes first in LD_LIBRARY_PATH.
#ifndef GPUSHIM_TESTS_CUDASIM_CUDASIM_H
#define GPUSHIM_TESTS_CUDASIM_CUDASIM_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

// Not CUDA's: stands in for a kernel of the program's own that faults the device (an illegal
// address), for test programs, which find it in the runtime by name.
extern "C" cudaError_t cudasimFaultDevice(void);

namespace cudasim {

// Runs `work` on `stream` after everything enqueued on it before, at the latest when the host
// waits for the stream. Null and cudaStreamLegacy mean the legacy default stream;
// cudaStreamPerThread is not emulated (misuse).
void enqueue(cudaStream_t stream, std::function<void()> work);

// The device of the calling thread's current context. A thread without one gets device 0's
// primary context, as the runtime makes it at the first call that needs a context.
int context_device();

// The device `stream` belongs to: the one current where it was made; the legacy stream's is
// the calling thread's context's.
int stream_device(cudaStream_t stream);

// Stops the process (misuse) unless the calling thread's context and `stream` are both of
// `device`, the device of the library handle or cuFFT plan that `api` gives the stream to (a
// handle or plan belongs to the device current when it was made).
void require_handle_device(const char* api, int device, cudaStream_t stream);

// Stops the process with "cudasim: <api>: <message>": the plugin used the API in a way a GPU
// would not survive or would answer wrongly.
[[noreturn]] void misuse(const char* api, const std::string& message);

// Stops the process (misuse) unless [address, address + bytes) lies inside one live device
// allocation; `what` names the argument. Zero bytes check nothing.
void require_device(const char* api, const char* what, const void* address, size_t bytes);

// Stops the process (misuse) if `address` lies inside a device allocation (the argument must be
// host memory), or inside a pinned allocation that [address, address + bytes) overruns. A null
// address is refused too.
void require_host(const char* api, const char* what, const void* address, size_t bytes = 1);

// The bytes of a column-major rows x cols matrix with leading dimension ld; zero when empty.
inline size_t matrix_bytes(int64_t rows, int64_t cols, int64_t ld, size_t element_bytes) {
    if (rows <= 0 || cols <= 0) return 0;
    return (static_cast<size_t>(cols - 1) * static_cast<size_t>(ld) + static_cast<size_t>(rows)) *
           element_bytes;
}

// Whether this call fails by request: with CUDASIM_FAIL_EVERY=N, about one in N calls of the
// entry points that ask (allocations, and every cuBLAS, cuSOLVER and cuFFT routine that
// computes or plans) fails, before it enqueues anything, with the status a GPU gives for that
// failure (out of memory, execution failed); every such call fails once CUDASIM_STICKY_FAULT_AT
// has faulted the device.
bool injected_fault();

// Whether CUDASIM_STICKY_FAULT_AT has faulted the device: the runtime's calls then fail with
// cudaErrorIllegalAddress, as after a kernel's illegal memory access.
bool device_faulted();

// Fills `bytes` at `address` with NaN bytes (0xFF): memory the emulated device hands out
// unwritten.
void poison(void* address, size_t bytes);

// The CPU library's definition of `symbol`, from the first of `libraries` (a
// null-terminated list of file names) that dlopen finds, opened RTLD_LOCAL; the process stops
// (misuse) when none defines it. Resolved once per symbol.
void* cpu_symbol(const char* const* libraries, const char* symbol);

// As cpu_symbol, from a copy of the library of the emulation's own, loaded in a link-map
// namespace of its own (dlmopen): for FFTW, whose plans are wisdom for every planner of the
// same FFTW, and whose planner may not run in two threads at once. The emulated cuFFT leaves
// the program's FFTW as it found it, as cuFFT does.
void* private_cpu_symbol(const char* const* libraries, const char* symbol);

inline constexpr const char* kCpuBlas[] = {"libblas.so.3", "libopenblas.so.0", nullptr};
inline constexpr const char* kCpuLapack[] = {"liblapack.so.3", "libopenblas.so.0", nullptr};
inline constexpr const char* kCpuFftw[] = {"libfftw3.so.3", nullptr};
inline constexpr const char* kCpuFftwf[] = {"libfftw3f.so.3", nullptr};

// The CPU function `symbol` of `libraries` with the signature of F.
template <typename F>
F* cpu_function(const char* const* libraries, const char* symbol) {
    return reinterpret_cast<F*>(cpu_symbol(libraries, symbol));
}

}  // namespace cudasim

#endif
