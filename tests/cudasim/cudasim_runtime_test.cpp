// The emulated CUDA runtime's own contract (cudasim.h): a test double that ran work early, lost
// an ordering or let a stray pointer through would hide exactly the plugin bugs it is there
// to expose.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/cudasim/cudasim.h"

namespace {

cudaStream_t new_stream() {
    cudaStream_t stream = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    return stream;
}

void* device_block(size_t bytes) {
    void* block = nullptr;
    EXPECT_EQ(cudaMalloc(&block, bytes), cudaSuccess);
    return block;
}

TEST(CudasimRuntime, WorkRunsWhenTheHostWaitsForTheStream) {
    cudaStream_t stream = new_stream();
    std::vector<int> order;
    cudasim::enqueue(stream, [&] { order.push_back(1); });
    cudasim::enqueue(stream, [&] { order.push_back(2); });
    EXPECT_TRUE(order.empty());
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(order, (std::vector<int>{1, 2}));
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntime, AnEventWaitRunsTheStreamUpToItsRecordOnly) {
    cudaStream_t stream = new_stream();
    cudaEvent_t event = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
    std::vector<int> order;
    cudasim::enqueue(stream, [&] { order.push_back(1); });
    ASSERT_EQ(cudaEventRecord(event, stream), cudaSuccess);
    cudasim::enqueue(stream, [&] { order.push_back(2); });
    ASSERT_EQ(cudaEventSynchronize(event), cudaSuccess);
    EXPECT_EQ(order, (std::vector<int>{1}));
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(order, (std::vector<int>{1, 2}));
    EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntime, AStreamWaitingForAnEventRunsTheOtherStreamFirst) {
    cudaStream_t producer = new_stream();
    cudaStream_t consumer = new_stream();
    cudaEvent_t event = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
    std::vector<int> order;
    cudasim::enqueue(producer, [&] { order.push_back(1); });
    ASSERT_EQ(cudaEventRecord(event, producer), cudaSuccess);
    cudasim::enqueue(producer, [&] { order.push_back(3); });
    ASSERT_EQ(cudaStreamWaitEvent(consumer, event, 0), cudaSuccess);
    cudasim::enqueue(consumer, [&] { order.push_back(2); });
    ASSERT_EQ(cudaStreamSynchronize(consumer), cudaSuccess);
    EXPECT_EQ(order, (std::vector<int>{1, 2}));
    ASSERT_EQ(cudaStreamSynchronize(producer), cudaSuccess);
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(producer), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(consumer), cudaSuccess);
}

TEST(CudasimRuntime, ACopyReadsItsHostSourceWhenItRuns) {
    cudaStream_t stream = new_stream();
    double* device = static_cast<double*>(device_block(sizeof(double)));
    double host = 1.0;
    ASSERT_EQ(cudaMemcpyAsync(device, &host, sizeof host, cudaMemcpyHostToDevice, stream),
              cudaSuccess);
    host = 2.0;  // a GPU may not have read the source yet either
    double back = 0.0;
    ASSERT_EQ(cudaMemcpyAsync(&back, device, sizeof back, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    EXPECT_EQ(back, 0.0);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(back, 2.0);
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntime, NewDeviceMemoryHoldsNaNs) {
    cudaStream_t stream = new_stream();
    constexpr size_t kCount = 5;
    void* device = device_block(kCount * sizeof(double));
    std::vector<double> host(kCount, 0.0);
    ASSERT_EQ(cudaMemcpyAsync(host.data(), device, kCount * sizeof(double), cudaMemcpyDeviceToHost,
                              stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (double value : host) EXPECT_TRUE(std::isnan(value));
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntime, PitchedCopiesMoveTheRowsOnly) {
    cudaStream_t stream = new_stream();
    // Three rows of 4 bytes, 8 bytes apart on the host and 6 on the device.
    std::vector<char> host(24), back(24, '.');
    for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>('a' + i);
    void* device = device_block(2 * 6 + 4);
    ASSERT_EQ(cudaMemcpy2DAsync(device, 6, host.data(), 8, 4, 3, cudaMemcpyHostToDevice, stream),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DAsync(back.data(), 8, device, 6, 4, 3, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(std::string(back.data(), back.size()), "abcd....ijkl....qrst....");
    EXPECT_EQ(cudaMemcpy2DAsync(device, 3, host.data(), 8, 4, 1, cudaMemcpyHostToDevice, stream),
              cudaErrorInvalidPitchValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidPitchValue);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    // A pitch beyond cudaDevAttrMaxPitch (2^31 - 1 bytes) is refused, even for one row.
    const size_t too_wide = size_t{1} << 31;
    EXPECT_EQ(cudaMemcpy2DAsync(device, too_wide, host.data(), too_wide, 4, 1,
                                cudaMemcpyHostToDevice, stream),
              cudaErrorInvalidPitchValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidPitchValue);
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntime, AllocationsCountAgainstTheCapacity) {
    size_t free_before = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    void* block = device_block(1 << 20);
    size_t free_after = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    EXPECT_EQ(free_before - free_after, size_t{1} << 20);
    void* too_large = nullptr;
    EXPECT_EQ(cudaMalloc(&too_large, total), cudaErrorMemoryAllocation);
    EXPECT_EQ(too_large, nullptr);
    EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_EQ(cudaFree(block), cudaSuccess);
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    EXPECT_EQ(free_after, free_before);
}

TEST(CudasimRuntime, AStreamOrderedFreeReturnsTheBytesWhenItRuns) {
    cudaStream_t stream = new_stream();
    cudaMemPool_t pool = nullptr;
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    size_t free_before = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    void* block = nullptr;
    ASSERT_EQ(cudaMallocFromPoolAsync(&block, 4096, pool, stream), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(block, stream), cudaSuccess);
    size_t free_now = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_now, &total), cudaSuccess);
    EXPECT_EQ(free_before - free_now, 4096u);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaMemGetInfo(&free_now, &total), cudaSuccess);
    EXPECT_EQ(free_now, free_before);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntimeDeathTest, DeviceArgumentsMustBeDeviceMemory) {
    double host[4] = {};
    EXPECT_DEATH(cudasim::require_device("cublasDgemm", "A", host, sizeof host),
                 "cudasim: cublasDgemm: A .* is not inside one device allocation");
    void* device = device_block(16);
    EXPECT_DEATH(cudasim::require_device("api", "B", device, 17), "B .* is not inside one device");
    cudasim::require_device("api", "B", static_cast<char*>(device) + 8, 8);
    EXPECT_DEATH(cudasim::require_host("api", "src", device), "src is device memory");
    EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST(CudasimRuntimeDeathTest, MemoryFreedInStreamOrderIsGoneAtOnce) {
    cudaStream_t stream = new_stream();
    void* device = device_block(64);
    ASSERT_EQ(cudaFreeAsync(device, stream), cudaSuccess);
    double host = 0.0;
    EXPECT_DEATH(cudaMemcpyAsync(device, &host, sizeof host, cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync: dst .* is not inside one device allocation");
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(CudasimRuntimeDeathTest, ACopyOverrunningAPinnedBufferStops) {
    cudaStream_t stream = new_stream();
    void* pinned = nullptr;
    ASSERT_EQ(cudaHostAlloc(&pinned, 32, cudaHostAllocPortable), cudaSuccess);
    void* device = device_block(64);
    EXPECT_DEATH(cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, stream),
                 "dst runs past the end of its pinned allocation");
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// The test runs with CUDASIM_DEVICES=2 (tests/cudasim/CMakeLists.txt).
TEST(CudasimRuntime, EachDeviceHasItsOwnMemoryAndPool) {
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    ASSERT_EQ(count, 2);
    size_t free_0 = 0, free_1 = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_0, &total), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    void* block = device_block(4096);
    ASSERT_EQ(cudaMemGetInfo(&free_1, &total), cudaSuccess);
    EXPECT_EQ(free_1, total - 4096);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    size_t free_0_now = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_0_now, &total), cudaSuccess);
    EXPECT_EQ(free_0_now, free_0);
    cudaMemPool_t pool_0 = nullptr, pool_1 = nullptr;
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool_0, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool_1, 1), cudaSuccess);
    EXPECT_NE(pool_0, pool_1);
    EXPECT_EQ(cudaSetDevice(2), cudaErrorInvalidDevice);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_EQ(cudaFree(block), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST(CudasimRuntime, ADeviceSynchronisationRunsItsOwnDevicesWorkOnly) {
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    cudaStream_t stream = new_stream();
    bool ran = false;
    cudasim::enqueue(stream, [&] { ran = true; });
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_FALSE(ran);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(ran);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST(CudasimRuntime, AnEventRecordsWorkOfItsOwnDeviceOnly) {
    cudaEvent_t event = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    cudaStream_t stream = new_stream();
    EXPECT_EQ(cudaEventRecord(event, stream), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
}

TEST(CudasimRuntimeDeathTest, WorkAndMemoryBelongToTheDeviceCurrentWhenMade) {
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    cudaStream_t stream = new_stream();
    void* device = device_block(64);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_DEATH(cudasim::enqueue(stream, [] {}),
                 "work enqueued on a stream of device 1 while device 0 is current");
    EXPECT_DEATH(cudasim::require_device("cublasDgemm", "A", device, 64),
                 "cudasim: cublasDgemm: A is memory of device 1 while device 0 is current");
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    cudasim::enqueue(stream, [] {});
    cudasim::require_device("cublasDgemm", "A", device, 64);
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

template <typename Function>
Function* driver_function(const char* name) {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    EXPECT_EQ(
        cudaGetDriverEntryPointByVersion(name, &address, CUDART_VERSION, cudaEnableDefault, &found),
        cudaSuccess);
    EXPECT_EQ(found, cudaDriverEntryPointSuccess);
    return reinterpret_cast<Function*>(address);
}

// Each case on a thread of its own, which starts without a context.
TEST(CudasimRuntime, AThreadHasNoContextUntilItNeedsOne) {
    std::thread([] {
        auto* get_current = driver_function<CUresult(CUcontext*)>("cuCtxGetCurrent");
        auto* set_current = driver_function<CUresult(CUcontext)>("cuCtxSetCurrent");
        ASSERT_NE(get_current, nullptr);
        ASSERT_NE(set_current, nullptr);
        CUcontext context = nullptr;
        int device = -1;
        EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
        EXPECT_EQ(device, 0);
        ASSERT_EQ(get_current(&context), CUDA_SUCCESS);
        EXPECT_EQ(context, nullptr);  // asking for the device made none
        void* block = device_block(16);
        ASSERT_EQ(get_current(&context), CUDA_SUCCESS);
        ASSERT_NE(context, nullptr);  // the allocation needed one: device 0's
        const CUcontext device_0 = context;

        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        CUcontext device_1 = nullptr;
        ASSERT_EQ(get_current(&device_1), CUDA_SUCCESS);
        EXPECT_NE(device_1, device_0);
        ASSERT_EQ(set_current(nullptr), CUDA_SUCCESS);
        ASSERT_EQ(get_current(&context), CUDA_SUCCESS);
        EXPECT_EQ(context, nullptr);
        ASSERT_EQ(set_current(device_1), CUDA_SUCCESS);
        EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
        EXPECT_EQ(device, 1);
        int made_up = 0;
        EXPECT_EQ(set_current(reinterpret_cast<CUcontext>(&made_up)), CUDA_ERROR_INVALID_CONTEXT);
        ASSERT_EQ(set_current(device_0), CUDA_SUCCESS);
        EXPECT_EQ(cudaFree(block), cudaSuccess);
    }).join();
}

TEST(CudasimRuntimeDeathTest, AHandleTakesStreamsOfItsOwnDeviceOnly) {
    cudaStream_t stream = new_stream();  // device 0's
    cudasim::require_handle_device("cublasSetStream", 0, stream);
    EXPECT_DEATH(cudasim::require_handle_device("cublasSetStream", 1, stream),
                 "cublasSetStream: a stream of device 0, with device 0 current, given to a "
                 "handle of device 1");
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// As CUDA's: a driver older than the version asked for refuses its functions.
TEST(CudasimRuntime, DriverFunctionsOfANewerVersionThanTheDriverAreRefused) {
    int driver = 0;
    ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
    EXPECT_EQ(driver, CUDART_VERSION);  // CUDASIM_DRIVER_VERSION unset
    void* address = nullptr;
    EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &address,
                                               static_cast<unsigned>(driver) + 10,
                                               cudaEnableDefault, nullptr),
              cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &address, 12000,
                                               cudaEnableDefault, nullptr),
              cudaSuccess);
    EXPECT_NE(address, nullptr);
}

// What cudaDeviceReset leaves, seen through the driver functions the plugin watches with:
// the context inactive until a call needs it, the same handle, the allocations unknown (new
// ones with new ids), the streams unknown. In a child: the reset would reach other tests.
bool device_reset_checks() {
    auto* state =
        driver_function<CUresult(CUdevice, unsigned*, int*)>("cuDevicePrimaryCtxGetState");
    auto* retain = driver_function<CUresult(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
    auto* release = driver_function<CUresult(CUdevice)>("cuDevicePrimaryCtxRelease");
    auto* attribute =
        driver_function<CUresult(void*, CUpointer_attribute, CUdeviceptr)>("cuPointerGetAttribute");
    auto* context_device = driver_function<CUresult(CUdevice*)>("cuCtxGetDevice");
    auto* get_current = driver_function<CUresult(CUcontext*)>("cuCtxGetCurrent");
    const auto id_of = [&](const void* pointer, unsigned long long* id) {
        return attribute(id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                         reinterpret_cast<CUdeviceptr>(pointer));
    };
    bool ok = true;
    const auto expect = [&](bool holds, const char* what) {
        if (!holds) std::fprintf(stderr, "FAILED: %s\n", what);
        ok = ok && holds;
    };
    CUdevice device = -1;
    expect(cudaSetDevice(0) == cudaSuccess, "cudaSetDevice");
    expect(context_device(&device) == CUDA_SUCCESS && device == 0, "cuCtxGetDevice");
    CUcontext before = nullptr;
    expect(get_current(&before) == CUDA_SUCCESS && before != nullptr, "a current context");
    void* pinned = nullptr;
    expect(cudaHostAlloc(&pinned, 64, cudaHostAllocPortable) == cudaSuccess, "cudaHostAlloc");
    void* block = device_block(64);
    unsigned long long pinned_id = 0, block_id = 0;
    expect(id_of(pinned, &pinned_id) == CUDA_SUCCESS && pinned_id != 0, "the pinned block's id");
    expect(id_of(block, &block_id) == CUDA_SUCCESS && block_id != 0 && block_id != pinned_id,
           "the device block's id, another");
    unsigned flags = 0;
    int active = 0;
    expect(state(device, &flags, &active) == CUDA_SUCCESS && active == 1, "active before");
    cudaStream_t stream = new_stream();
    expect(cudaMemsetAsync(block, 0, 64, stream) == cudaSuccess, "work enqueued");
    cudaMemPool_t pool = nullptr;
    void* pooled = nullptr;
    expect(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess &&
               cudaMallocFromPoolAsync(&pooled, 64, pool, stream) == cudaSuccess,
           "a block from the memory pool");

    expect(cudaDeviceReset() == cudaSuccess, "cudaDeviceReset");
    expect(state(device, &flags, &active) == CUDA_SUCCESS && active == 0, "inactive after");
    unsigned long long id = 0;
    expect(id_of(pinned, &id) == CUDA_ERROR_INVALID_VALUE, "the pinned block unknown");
    expect(id_of(block, &id) == CUDA_ERROR_INVALID_VALUE, "the device block unknown");
    expect(id_of(pooled, &id) == CUDA_SUCCESS, "the pool's block kept, as CUDA documents");
    expect(cudaStreamSynchronize(stream) == cudaErrorInvalidResourceHandle, "the stream unknown");
    cudaGetLastError();

    void* again = device_block(64);
    expect(state(device, &flags, &active) == CUDA_SUCCESS && active == 1, "made again");
    expect(id_of(again, &id) == CUDA_SUCCESS && id > block_id && id > pinned_id, "a new id");
    CUcontext primary = nullptr;
    expect(retain(&primary, device) == CUDA_SUCCESS && primary == before, "the same handle");
    expect(release(device) == CUDA_SUCCESS, "released");
    return ok;
}

TEST(CudasimRuntimeDeathTest, ADeviceResetDestroysWhatItsContextMade) {
    EXPECT_EXIT(std::exit(device_reset_checks() ? 0 : 1), testing::ExitedWithCode(0), "^$");
}

// The test programs' stand-in for a kernel of their own that faults: runtime calls and the
// driver functions the plugin asks before each call return the sticky error.
TEST(CudasimRuntimeDeathTest, AFaultOfTheProgramsKernelIsSticky) {
    EXPECT_EXIT(
        {
            auto* state =
                driver_function<CUresult(CUdevice, unsigned*, int*)>("cuDevicePrimaryCtxGetState");
            unsigned flags = 0;
            int active = 0;
            const bool before = cudaSetDevice(0) == cudaSuccess &&
                                state(0, &flags, &active) == CUDA_SUCCESS && active == 1;
            cudasimFaultDevice();
            const bool after = state(0, &flags, &active) == CUDA_ERROR_ILLEGAL_ADDRESS &&
                               cudaDeviceSynchronize() == cudaErrorIllegalAddress;
            std::exit(before && after ? 0 : 1);
        },
        testing::ExitedWithCode(0), "^$");
}

TEST(CudasimRuntimeDeathTest, PinnedMemoryFaultsAfterADeviceReset) {
    void* pinned = nullptr;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaHostAlloc(&pinned, 64, cudaHostAllocPortable), cudaSuccess);
    static_cast<volatile char*>(pinned)[0] = 1;
    EXPECT_EXIT(
        {
            cudaDeviceReset();
            static_cast<volatile char*>(pinned)[0] = 2;
            std::exit(0);
        },
        testing::KilledBySignal(SIGSEGV), "");
    EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(CudasimRuntimeDeathTest, UnemulatedDriverFunctionsStop) {
    void* address = nullptr;
    EXPECT_DEATH(cudaGetDriverEntryPointByVersion("cuMemAlloc", &address, CUDART_VERSION,
                                                  cudaEnableDefault, nullptr),
                 "the driver's cuMemAlloc is not emulated");
}

}  // namespace
