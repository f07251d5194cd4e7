// A CPU library function, resolved on first use and cached for the life of the process.
#pragma once

#include <atomic>
#include <type_traits>

#include "fallback/symbol_resolver.h"

namespace gpushim::shim {

template <class Function>
class CpuFunction {
  public:
    constexpr explicit CpuFunction(const char* symbol) : symbol_(symbol) {}

    const char* symbol() const { return symbol_; }

    // The function if it was resolved already, else nullptr; never resolves (no call).
    Function* resolved() const { return function_.load(std::memory_order_acquire); }

    Function* get() {
        Function* function = function_.load(std::memory_order_acquire);
        if (function == nullptr) {
            // Racing threads resolve the same symbol to the same address.
            function = reinterpret_cast<Function*>(fallback::resolve_cpu_symbol(symbol_));
            function_.store(function, std::memory_order_release);
        }
        return function;
    }

  private:
    // First, in a standard-layout class: at offset 0, where the x86-64 Level-3 BLAS entry
    // points read it (blas3_entry_gate.h).
    std::atomic<Function*> function_{nullptr};
    const char* symbol_;
};

static_assert(std::is_standard_layout_v<CpuFunction<void()>>);

}  // namespace gpushim::shim
