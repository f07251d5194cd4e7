// What a Level-3 BLAS entry point reads before anything else: the CPU library's function of
// its name, once resolved, and the size below which it forwards a call there at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "shim/cpu_function.h"

// Byte offsets of the resolved CPU function and of forward_below in a Blas3EntryGate, as the
// assembly entry points read them.
#define GPUSHIM_GATE_FUNCTION_OFFSET 0
#define GPUSHIM_GATE_FORWARD_BELOW_OFFSET 16

namespace gpushim::shim {

// The entry point forwards a call at once when the CPU function is resolved and the call's
// size_product is below `forward_below` (-infinity until the routing path sets it).
template <class Function>
struct Blas3EntryGate {
    constexpr explicit Blas3EntryGate(const char* symbol) : cpu(symbol) {}

    CpuFunction<Function> cpu;
    std::atomic<double> forward_below{-std::numeric_limits<double>::infinity()};
};

// Every function pointer has the same size, so one instantiation checks them all; the
// resolved function is the first member of `cpu` (cpu_function.h).
using SomeBlas3EntryGate = Blas3EntryGate<void()>;
static_assert(std::is_standard_layout_v<SomeBlas3EntryGate>);
static_assert(offsetof(SomeBlas3EntryGate, cpu) == GPUSHIM_GATE_FUNCTION_OFFSET);
static_assert(sizeof(std::atomic<void (*)()>) == 8 && sizeof(CpuFunction<void()>) == 16);
static_assert(std::atomic<double>::is_always_lock_free && sizeof(std::atomic<double>) == 8);
static_assert(offsetof(SomeBlas3EntryGate, forward_below) == GPUSHIM_GATE_FORWARD_BELOW_OFFSET);

}  // namespace gpushim::shim
