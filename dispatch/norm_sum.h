// A 2-norm summed without overflow or underflow, for the checks of GPUSHIM_VERIFY.
#pragma once

#include <cmath>
#include <type_traits>

namespace gpushim {

// A 2-norm summed without overflow or underflow: a scale and a sum of squares scaled by it,
// as LAPACK's xNRM2 keeps them.
class NormSum {
  public:
    void add(double x) {
        x = std::fabs(x);
        if (x == 0) return;
        if (scale_ < x) {
            sum_ = 1 + sum_ * (scale_ / x) * (scale_ / x);
            scale_ = x;
        } else {
            sum_ += (x / scale_) * (x / scale_);
        }
    }
    template <class T>
    void add_element(const T& value) {
        if constexpr (std::is_floating_point_v<T>) {
            add(value);
        } else {
            add(value.real());
            add(value.imag());
        }
    }
    double norm() const { return scale_ * std::sqrt(sum_); }

  private:
    double scale_ = 0;
    double sum_ = 1;
};

}  // namespace gpushim
