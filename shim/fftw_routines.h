/* The FFT routines of the report and of the per-routine settings: one row per transform
 * kind and precision, whatever planner made the plan (dispatch/fft_call.h).
 *
 * X(name, KIND, Real, ...)
 *   name    the report's name: FFTW's execute function of the kind, e.g. fftw_dft
 *   KIND    the FftKind
 *   Real    double (fftw_) or float (fftwf_)
 *
 * Plain preprocessor text, like the other routine tables. */
#ifndef GPUSHIM_SHIM_FFTW_ROUTINES_H
#define GPUSHIM_SHIM_FFTW_ROUTINES_H

#define GPUSHIM_FOR_EACH_FFT_ROUTINE(X, ...)                \
    X(fftw_dft, c2c, double, __VA_ARGS__)                   \
    X(fftw_dft_r2c, r2c, double, __VA_ARGS__)               \
    X(fftw_dft_c2r, c2r, double, __VA_ARGS__)               \
    X(fftw_split_dft, split_c2c, double, __VA_ARGS__)       \
    X(fftw_split_dft_r2c, split_r2c, double, __VA_ARGS__)   \
    X(fftw_split_dft_c2r, split_c2r, double, __VA_ARGS__)   \
    X(fftw_r2r, r2r, double, __VA_ARGS__)                   \
    X(fftwf_dft, c2c, float, __VA_ARGS__)                   \
    X(fftwf_dft_r2c, r2c, float, __VA_ARGS__)               \
    X(fftwf_dft_c2r, c2r, float, __VA_ARGS__)               \
    X(fftwf_split_dft, split_c2c, float, __VA_ARGS__)       \
    X(fftwf_split_dft_r2c, split_r2c, float, __VA_ARGS__)   \
    X(fftwf_split_dft_c2r, split_c2r, float, __VA_ARGS__)   \
    X(fftwf_r2r, r2r, float, __VA_ARGS__)

#endif
