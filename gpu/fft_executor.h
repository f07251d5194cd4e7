// The device side of FFTW plans. The device plan is made when the FFTW plan is made (FFTW
// serialises its planner calls, and a device library may plan with FFTW-like machinery:
// an execution never plans) and reused by every execution. When the plan is destroyed the
// device plan is retired (retired_fft_plans.h): the next plan of the same transform takes
// it over instead of planning again. An execution takes its packed device arrays from the
// memory pool and gives them back (a plan holds no device array between executions, so
// that many live plans do not fill the device; a steady workload reuses the pool's blocks),
// gathers the input from the caller's strided layout into packed pinned chunks, uploads
// them, runs the plugin's transform, and scatters the output into the caller's layout.
//
// A batch whose packed input or output is larger than GPUSHIM_PANEL_BYTES, of transforms
// smaller than that, is computed in sub-batches of about that many bytes, by a device plan of one
// sub-batch (and one of the smaller last sub-batch, when the batch is not a multiple): in two
// device slots, on the context's two queues, so that the download of one sub-batch overlaps the
// upload of the next, and the device holds two sub-batches, not the whole batch (one, when it has
// no room for two).
#pragma once

#include <memory>
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
    // Retires the device plan (FFTW's destroy_plan).
    ~FftDeviceState();

  private:
    friend std::unique_ptr<FftDeviceState> plan_fft_on_device(const FftProblem& problem);
    friend Outcome execute_fft(const FftOp& op, FftDeviceState& state, Transfers& transfers);

    // FFTW allows executing one plan from several threads at once (on different arrays);
    // the device state serves one execution at a time.
    std::mutex mutex_;
    gpushim_fft_desc desc_{};  // what plan_ computes: the whole batch, or one sub-batch
    gpushim_fft_plan plan_ = nullptr;
    gpushim_fft_desc tail_desc_{};  // the last sub-batch, when smaller than the others
    gpushim_fft_plan tail_plan_ = nullptr;
    int slots_that_fit_ = 2;  // device slots for sub-batches: 1 once two did not fit
};

// The device plan of a problem that suits the device; nullptr when no device is usable or
// it cannot plan the transform (FFTW then computes it).
std::unique_ptr<FftDeviceState> plan_fft_on_device(const FftProblem& problem);

// Outcome::completed: the result is in op.out. Otherwise op.out is unchanged, or, when the
// input and output arrays do not overlap, possibly partly written (the CPU then computes
// all of it again from the untouched input).
Outcome execute_fft(const FftOp& op, FftDeviceState& state, Transfers& transfers);

}  // namespace gpushim::gpu
