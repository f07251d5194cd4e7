// Runs one execution of an FFTW plan on the device: the input gathered from the caller's
// strided layout into packed pinned chunks and uploaded, the plugin's transform, the
// output downloaded and scattered into the caller's layout. The device plan and the packed
// device arrays belong to the FFTW plan: made at its first execution on the device, reused
// by every later one, released when the plan is destroyed.
#pragma once

#include <mutex>

#include "dispatch/fft_call.h"
#include "gpu/blas3_executor.h"
#include "gpu/device_memory_pool.h"

namespace gpushim::gpu {

class FftDeviceState {
  public:
    FftDeviceState() = default;
    FftDeviceState(const FftDeviceState&) = delete;
    FftDeviceState& operator=(const FftDeviceState&) = delete;
    // Releases the device plan and arrays (FFTW's destroy_plan).
    ~FftDeviceState();

  private:
    friend Outcome execute_fft(const FftOp& op, FftDeviceState& state, Transfers& transfers);

    // FFTW allows executing one plan from several threads at once (on different arrays);
    // the device state serves one execution at a time.
    std::mutex mutex_;
    gpushim_fft_plan plan_ = nullptr;
    bool refused_ = false;  // the device cannot plan this transform: the CPU computes it
    DeviceBlock input_;
    DeviceBlock output_;
};

// Outcome::completed: the result is in op.out. Otherwise op.out is unchanged, or, when the
// input and output arrays do not overlap, possibly partly written (the CPU then computes
// all of it again from the untouched input).
Outcome execute_fft(const FftOp& op, FftDeviceState& state, Transfers& transfers);

}  // namespace gpushim::gpu
