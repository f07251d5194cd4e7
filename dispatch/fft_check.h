// GPUSHIM_VERIFY for FFTs: an execution the device computed, computed again by FFTW's plan of
// the CPU path on copies of the caller's arrays, and compared transform by transform:
//   ||y_device - y_fftw||_2 / (eps log2(N) sqrt(N) ||x||_2)
// for a transform of N points of input x (a half spectrum counted as the whole spectrum it
// stands for). sqrt(N) ||x|| is the norm of the exact result (Parseval), and the error of a
// fast Fourier transform grows as eps log2(N) of it (Cooley-Tukey; Bluestein's algorithm for
// large primes by a small factor more), so a correct result gives ratios of order 1; a
// transform beyond kRatioLimit fails the check, and FFTW's result replaces the device's in
// every element of the output. A transform whose result from FFTW is not finite (an Inf or
// NaN in its input, an overflow) is not compared.
//
// FFTW's plan never sees the caller's arrays here: they may be in use (the device wrote the
// output; an in-place transform overwrote the input), and FFTW's new-array execution needs
// only arrays of the planned layout and alignment, which the copies have. A C2R input that
// is not Hermitian (a spectrum no real signal has) has no single right answer: FFTW and a
// device library may each answer differently, and under GPUSHIM_VERIFY such a transform
// fails its check and gets FFTW's answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dispatch/call_trace.h"
#include "dispatch/fft_call.h"

namespace gpushim {

class FftCheck {
  public:
    static constexpr double kRatioLimit = 100.0;

    // Copies the input (before the device may overwrite it: an in-place transform) and makes
    // room for FFTW's output.
    FftCheck(const FftOp& op, FftOnCpu cpu);

    // Checks the device's result, now in the caller's output; where a transform differs,
    // writes FFTW's result to the whole output instead.
    Verdict finish();

    // After a difference: which transform, its ratio, the limit, and how many differ.
    const char* difference() const { return difference_; }

  private:
    // Room for the bytes one or both sides of the transform reach, at the caller's
    // alignment (`origin` stands for the caller's array pointer), holding copies of the
    // elements only (pages of wide gaps between them, never touched, cost no memory where
    // the system commits memory as it is touched).
    struct Scratch {
        std::unique_ptr<std::byte[]> storage;
        std::byte* origin = nullptr;
    };
    static Scratch make_scratch(FftReach reach, const void* like);

    template <class Real>
    Verdict finish_in();

    FftOp op_;
    FftOnCpu cpu_;
    Scratch input_;   // the caller's input (and output, in place) as it was
    Scratch output_;  // FFTW's output, out of place
    bool copied_ = false;
    char difference_[256] = "";
};

}  // namespace gpushim
