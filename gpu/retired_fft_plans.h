// Device plans of destroyed FFTW plans, kept for the next plan of the same transform.
//
// Code that plans, executes and destroys a plan per call (pyFFTW's numpy_fft and scipy_fft
// interfaces without their cache, libraries that plan per call) would otherwise pay the
// device library's planning, and the allocation of its work area, on every call. A few are
// kept (the least recently retired beyond kCapacity are destroyed), and every one is
// destroyed when device memory runs short: the memory pool asks (on_shortage), and so does
// a plan the device cannot make.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "gpu/device_interface.h"

namespace gpushim::gpu {

class RetiredFftPlans {
  public:
    static constexpr std::size_t kCapacity = 16;  // a batch in sub-batches retires two

    explicit RetiredFftPlans(const gpushim_device_plugin& plugin) : plugin_(plugin) {}
    RetiredFftPlans(const RetiredFftPlans&) = delete;
    RetiredFftPlans& operator=(const RetiredFftPlans&) = delete;

    // A retired plan of this very transform, now the caller's; nullptr when there is none.
    gpushim_fft_plan adopt(const gpushim_fft_desc& desc);
    // Keeps `plan`, which computes `desc`, for adoption.
    void retire(const gpushim_fft_desc& desc, gpushim_fft_plan plan);
    // Destroys every retired plan; true when there was one.
    bool release_all();

    std::size_t size() const;

  private:
    const gpushim_device_plugin& plugin_;
    mutable std::mutex mutex_;
    std::vector<std::pair<gpushim_fft_desc, gpushim_fft_plan>> plans_;  // oldest first
};

// Whether two descriptions ask for the same transform.
bool same_transform(const gpushim_fft_desc& a, const gpushim_fft_desc& b);

// The plugin's retired plans (never destroyed, like the device), registered with its memory
// pool as what to release when the device runs short.
RetiredFftPlans& retired_fft_plans(const gpushim_device_plugin& plugin);

}  // namespace gpushim::gpu
