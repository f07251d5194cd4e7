#include "gpu/retired_fft_plans.h"

#include <algorithm>

#include "gpu/staging.h"

namespace gpushim::gpu {

bool same_transform(const gpushim_fft_desc& a, const gpushim_fft_desc& b) {
    return a.kind == b.kind && a.precision == b.precision && a.sign == b.sign && a.rank == b.rank &&
           a.howmany == b.howmany && std::equal(a.n, a.n + std::clamp(a.rank, 0, 3), b.n);
}

gpushim_fft_plan RetiredFftPlans::adopt(const gpushim_fft_desc& desc) {
    const std::lock_guard lock(mutex_);
    const auto found = std::find_if(plans_.rbegin(), plans_.rend(), [&](const auto& retired) {
        return same_transform(retired.first, desc);
    });
    if (found == plans_.rend()) return nullptr;
    const gpushim_fft_plan plan = found->second;
    plans_.erase(std::next(found).base());
    return plan;
}

void RetiredFftPlans::retire(const gpushim_fft_desc& desc, gpushim_fft_plan plan) {
    gpushim_fft_plan evicted = nullptr;
    {
        const std::lock_guard lock(mutex_);
        plans_.emplace_back(desc, plan);
        if (plans_.size() > kCapacity) {
            evicted = plans_.front().second;
            plans_.erase(plans_.begin());
        }
    }
    if (evicted != nullptr) plugin_.fft_plan_destroy(evicted);
}

bool RetiredFftPlans::release_all() {
    std::vector<std::pair<gpushim_fft_desc, gpushim_fft_plan>> released;
    {
        const std::lock_guard lock(mutex_);
        released.swap(plans_);
    }
    for (const auto& [desc, plan] : released) plugin_.fft_plan_destroy(plan);
    return !released.empty();
}

std::size_t RetiredFftPlans::size() const {
    const std::lock_guard lock(mutex_);
    return plans_.size();
}

RetiredFftPlans& retired_fft_plans(const gpushim_device_plugin& plugin) {
    static auto* const plans = [&plugin] {
        auto* made = new RetiredFftPlans(plugin);
        device_pool(plugin).on_shortage([made] { return made->release_all(); });
        return made;
    }();
    return *plans;
}

}  // namespace gpushim::gpu
