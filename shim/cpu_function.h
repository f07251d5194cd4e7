// A CPU BLAS function, resolved on first use and cached for the life of the process.
#pragma once

#include <atomic>

#include "fallback/symbol_resolver.h"

namespace gpushim::shim {

template <class Function>
class CpuFunction {
  public:
    constexpr explicit CpuFunction(const char* symbol) : symbol_(symbol) {}

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
    const char* symbol_;
    std::atomic<Function*> function_{nullptr};
};

}  // namespace gpushim::shim
