// What a LAPACK operation moves between the caller's memory and the device: each array
// with its extent, whether it is uploaded, whether the device's version is delivered (and
// which part of it), and the pivots.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "dispatch/lapack_call.h"
#include "gpu/staging.h"

namespace gpushim::gpu {

// The array fields of gpushim_lapack_op.
enum class Slot { a, b, tau, w, wi, u, vt };

// SYEVR finds a number of eigenvalues known only afterwards: of its w and z, only the
// first `found` rows or columns are delivered.
enum class FoundLimits { nothing, rows, columns };

struct LapackOperand {
    Slot slot;
    Matrix host;  // the caller's array, as a column-major matrix
    bool upload;
    bool deliver;
    Triangle part;  // what of it is delivered
    FoundLimits limits;
    bool device_reads_only = false;  // uploaded, and left as it was (the factors of a solve)
    bool factors = false;  // overwritten with the factors of a factorization, delivered whole
};

struct LapackOperands {
    std::array<LapackOperand, 5> list{};
    std::size_t count = 0;
    int64_t pivot_count = 0;
    bool pivots_in = false;   // the caller's pivots are read (GETRS, GETRI)
    bool pivots_out = false;  // the device's pivots are delivered (GETRF, GESV)
    bool counts_found = false;  // the operation reports a count in `found` (SYEVR)

    const LapackOperand* begin() const { return list.data(); }
    const LapackOperand* end() const { return list.data() + count; }
};

// The operands of a valid, non-degenerate call that suits the device.
LapackOperands lapack_operands(const LapackOp& op);

// Points the array fields of a device operation at a device buffer (leading dimension:
// the matrix's rows).
void set_device_array(gpushim_lapack_op& device_op, const LapackOperand& operand, void* device);

}  // namespace gpushim::gpu
