// Every FFTW planner's arguments as the canonical guru64 problem (dispatch/fft_call.h),
// with FFTW's own rules for the implicit layouts of the basic and advanced interfaces. A
// problem is described only where the device might compute it: anything else (split
// arrays, r2r, invalid arguments) is left undescribed, for FFTW alone to judge.
#pragma once

#include <initializer_list>
#include <vector>

#include "dispatch/fft_call.h"
#include "shim/fftw_abi.h"

namespace gpushim::shim {

// A planner's transform, and the arrays it was planned on (what fftw_execute transforms).
struct PlannedTransform {
    FftProblem problem;
    const void* in = nullptr;
    void* out = nullptr;
};

inline PlannedTransform describe_on_cpu(FftKind kind) {
    PlannedTransform planned;
    planned.problem.kind = kind;
    return planned;
}

// The advanced interface (plan_many_*), and through it the basic one. Without an embed,
// an array's physical dimensions are the logical ones, but for the last dimension of a
// real transform: the half spectrum n/2 + 1 on its complex side, and 2 (n/2 + 1) reals on
// its real side when the transform is in place (FFTW's padding).
inline PlannedTransform describe_many(FftKind kind, int rank, const int* n, int howmany,
                                      const void* in, const int* inembed, int istride, int idist,
                                      void* out, const int* onembed, int ostride, int odist,
                                      int sign) {
    PlannedTransform planned{describe_on_cpu(kind).problem, in, out};
    FftProblem& problem = planned.problem;
    problem.sign = sign;
    if (rank < 1 || n == nullptr || howmany < 0) return planned;
    for (int i = 0; i < rank; ++i) {
        if (n[i] < 1) return planned;
    }
    const bool in_place = in == out;
    const int64_t last = n[rank - 1];
    auto physical = [&](const int* embed, bool complex_side, int i) -> int64_t {
        if (embed != nullptr) return embed[i];
        if (i < rank - 1 || kind == FftKind::c2c) return n[i];
        if (complex_side) return last / 2 + 1;
        return in_place ? 2 * (last / 2 + 1) : last;
    };
    const bool input_complex = kind != FftKind::r2c;
    const bool output_complex = kind != FftKind::c2r;
    problem.dims.resize(static_cast<std::size_t>(rank));
    int64_t in_stride = istride;
    int64_t out_stride = ostride;
    for (int i = rank - 1; i >= 0; --i) {
        problem.dims[static_cast<std::size_t>(i)] = {n[i], in_stride, out_stride};
        in_stride *= physical(inembed, input_complex, i);
        out_stride *= physical(onembed, output_complex, i);
    }
    problem.howmany = {{howmany, idist, odist}};
    problem.described = true;
    return planned;
}

// The basic interface's fixed ranks (plan_dft_1d/2d/3d and the r2c, c2r ones).
inline PlannedTransform describe_sizes(FftKind kind, std::initializer_list<int> n, const void* in,
                                       void* out, int sign) {
    const std::vector<int> sizes(n);
    return describe_many(kind, static_cast<int>(sizes.size()), sizes.data(), 1, in, nullptr, 1, 1,
                         out, nullptr, 1, 1, sign);
}

// The guru interfaces: the dimensions are given.
template <class Dim>
PlannedTransform describe_guru(FftKind kind, int rank, const Dim* dims, int howmany_rank,
                               const Dim* howmany_dims, const void* in, void* out, int sign) {
    PlannedTransform planned{describe_on_cpu(kind).problem, in, out};
    FftProblem& problem = planned.problem;
    problem.sign = sign;
    if (rank < 1 || dims == nullptr || howmany_rank < 0 ||
        (howmany_rank > 0 && howmany_dims == nullptr))
        return planned;
    for (int i = 0; i < rank; ++i) problem.dims.push_back({dims[i].n, dims[i].is, dims[i].os});
    for (int i = 0; i < howmany_rank; ++i)
        problem.howmany.push_back({howmany_dims[i].n, howmany_dims[i].is, howmany_dims[i].os});
    problem.described = true;
    return planned;
}

}  // namespace gpushim::shim
