/* The legacy Fortran interface of FFTW 3.3 (FFTW's api/f77funcs.h): every dfftw_/sfftw_
 * function that creates or consumes a plan, described once. Each calls the shim's C
 * function of the same name (dfftw_plan_dft_1d_ -> fftw_plan_dft_1d), so that a plan made
 * in Fortran is a shim plan; wisdom, cleanup and set_timelimit are not listed and resolve
 * to FFTW's own.
 *
 * GPUSHIM_FOR_EACH_FFTW_LEGACY_PRECISION(X, ...):  X(LP, P, ...)
 *   LP   the legacy prefix (dfftw_, sfftw_)
 *   P    the prefix of the C function it calls (fftw_, fftwf_): the shim's functions are
 *        declared in gpushim::fftw::<P>api (shim/fftw_api.h), with that precision's R, C
 *        and Plan
 *   ...  passed through
 *
 * GPUSHIM_FOR_EACH_FFTW_LEGACY_FUNCTION(X, ...):  X(..., name, RESULT, PARAMS, ARGS)
 *   ...     passed through (at least one argument)
 *   name    the name after the prefix, e.g. plan_dft_1d
 *   RESULT  where the C function's result goes: plan (into *p, the caller's integer*8),
 *           cost (into *cost: these two return a double through their first argument),
 *           none, or flush (none, and C's stdout is flushed after the call, as FFTW does,
 *           because a Fortran program's own output is buffered apart from C's)
 *   PARAMS  the Fortran parameters: every argument by reference
 *   ARGS    the arguments of the C function. Fortran's column-major dimensions become
 *           FFTW's row-major ones: reversed(rank, array) for n, inembed and onembed,
 *           kinds(rank, kind) for the r2r kinds, and nx, ny, nz (with their kinds) passed
 *           as nz, ny, nx. The guru forms'
 *           parallel arrays n, is, os become iodims(rank, n, is, os) in their given order,
 *           and their r2r kinds are reversed all the same: FFTW 3.3 does exactly this.
 *
 * The exported names: dfftw_ and sfftw_, each under the two manglings FFTW exports, `_`
 * (gfortran and most compilers) and `__` (g77 appends two to a name with an underscore).
 * GPUSHIM_FOR_EACH_FFTW_LEGACY_NAME(X) yields X(symbol) for each.
 *
 * Plain preprocessor text: also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_FFTW_LEGACY_FUNCTIONS_H
#define GPUSHIM_SHIM_FFTW_LEGACY_FUNCTIONS_H

#define GPUSHIM_FOR_EACH_FFTW_LEGACY_PRECISION(X, ...) \
    X(dfftw_, fftw_, __VA_ARGS__)                      \
    X(sfftw_, fftwf_, __VA_ARGS__)

#define GPUSHIM_FFTW_LEGACY_GURU_PARAMS                                                            \
    Plan *p, const int *rank, const int *n, const int *is, const int *os, const int *howmany_rank, \
        const int *h_n, const int *h_is, const int *h_os
#define GPUSHIM_FFTW_LEGACY_GURU_ARGS \
    *rank, iodims(*rank, n, is, os), *howmany_rank, iodims(*howmany_rank, h_n, h_is, h_os)

#define GPUSHIM_FFTW_LEGACY_MANY_PARAMS(In, Out)                                                \
    Plan *p, const int *rank, const int *n, const int *howmany, In *in, const int *inembed,     \
        const int *istride, const int *idist, Out *out, const int *onembed, const int *ostride, \
        const int *odist
#define GPUSHIM_FFTW_LEGACY_MANY_ARGS                                                         \
    *rank, reversed(*rank, n), *howmany, in, reversed(*rank, inembed), *istride, *idist, out, \
        reversed(*rank, onembed), *ostride, *odist

#define GPUSHIM_FOR_EACH_FFTW_LEGACY_FUNCTION(X, ...)                                              \
    X(__VA_ARGS__, plan_dft, plan,                                                                 \
      (Plan * p, const int* rank, const int* n, C* in, C* out, const int* sign, const int* flags), \
      (*rank, reversed(*rank, n), in, out, *sign, *flags))                                         \
    X(__VA_ARGS__, plan_dft_1d, plan,                                                              \
      (Plan * p, const int* n, C* in, C* out, const int* sign, const int* flags),                  \
      (*n, in, out, *sign, *flags))                                                                \
    X(__VA_ARGS__, plan_dft_2d, plan,                                                              \
      (Plan * p, const int* nx, const int* ny, C* in, C* out, const int* sign, const int* flags),  \
      (*ny, *nx, in, out, *sign, *flags))                                                          \
    X(__VA_ARGS__, plan_dft_3d, plan,                                                              \
      (Plan * p, const int* nx, const int* ny, const int* nz, C* in, C* out, const int* sign,      \
       const int* flags),                                                                          \
      (*nz, *ny, *nx, in, out, *sign, *flags))                                                     \
    X(__VA_ARGS__, plan_many_dft, plan,                                                            \
      (GPUSHIM_FFTW_LEGACY_MANY_PARAMS(C, C), const int* sign, const int* flags),                  \
      (GPUSHIM_FFTW_LEGACY_MANY_ARGS, *sign, *flags))                                              \
    X(__VA_ARGS__, plan_guru_dft, plan,                                                            \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, C * in, C * out, const int* sign, const int* flags),       \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, in, out, *sign, *flags))                                     \
    X(__VA_ARGS__, plan_guru_split_dft, plan,                                                      \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, R * ri, R * ii, R * ro, R * io, const int* flags),         \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, ri, ii, ro, io, *flags))                                     \
    X(__VA_ARGS__, plan_dft_r2c, plan,                                                             \
      (Plan * p, const int* rank, const int* n, R* in, C* out, const int* flags),                  \
      (*rank, reversed(*rank, n), in, out, *flags))                                                \
    X(__VA_ARGS__, plan_dft_r2c_1d, plan,                                                          \
      (Plan * p, const int* n, R* in, C* out, const int* flags), (*n, in, out, *flags))            \
    X(__VA_ARGS__, plan_dft_r2c_2d, plan,                                                          \
      (Plan * p, const int* nx, const int* ny, R* in, C* out, const int* flags),                   \
      (*ny, *nx, in, out, *flags))                                                                 \
    X(__VA_ARGS__, plan_dft_r2c_3d, plan,                                                          \
      (Plan * p, const int* nx, const int* ny, const int* nz, R* in, C* out, const int* flags),    \
      (*nz, *ny, *nx, in, out, *flags))                                                            \
    X(__VA_ARGS__, plan_many_dft_r2c, plan,                                                        \
      (GPUSHIM_FFTW_LEGACY_MANY_PARAMS(R, C), const int* flags),                                   \
      (GPUSHIM_FFTW_LEGACY_MANY_ARGS, *flags))                                                     \
    X(__VA_ARGS__, plan_guru_dft_r2c, plan,                                                        \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, R * in, C * out, const int* flags),                        \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, in, out, *flags))                                            \
    X(__VA_ARGS__, plan_guru_split_dft_r2c, plan,                                                  \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, R * in, R * ro, R * io, const int* flags),                 \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, in, ro, io, *flags))                                         \
    X(__VA_ARGS__, plan_dft_c2r, plan,                                                             \
      (Plan * p, const int* rank, const int* n, C* in, R* out, const int* flags),                  \
      (*rank, reversed(*rank, n), in, out, *flags))                                                \
    X(__VA_ARGS__, plan_dft_c2r_1d, plan,                                                          \
      (Plan * p, const int* n, C* in, R* out, const int* flags), (*n, in, out, *flags))            \
    X(__VA_ARGS__, plan_dft_c2r_2d, plan,                                                          \
      (Plan * p, const int* nx, const int* ny, C* in, R* out, const int* flags),                   \
      (*ny, *nx, in, out, *flags))                                                                 \
    X(__VA_ARGS__, plan_dft_c2r_3d, plan,                                                          \
      (Plan * p, const int* nx, const int* ny, const int* nz, C* in, R* out, const int* flags),    \
      (*nz, *ny, *nx, in, out, *flags))                                                            \
    X(__VA_ARGS__, plan_many_dft_c2r, plan,                                                        \
      (GPUSHIM_FFTW_LEGACY_MANY_PARAMS(C, R), const int* flags),                                   \
      (GPUSHIM_FFTW_LEGACY_MANY_ARGS, *flags))                                                     \
    X(__VA_ARGS__, plan_guru_dft_c2r, plan,                                                        \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, C * in, R * out, const int* flags),                        \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, in, out, *flags))                                            \
    X(__VA_ARGS__, plan_guru_split_dft_c2r, plan,                                                  \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, R * ri, R * ii, R * out, const int* flags),                \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, ri, ii, out, *flags))                                        \
    X(__VA_ARGS__, plan_r2r, plan,                                                                 \
      (Plan * p, const int* rank, const int* n, R* in, R* out, const int* kind, const int* flags), \
      (*rank, reversed(*rank, n), in, out, kinds(*rank, kind), *flags))                            \
    X(__VA_ARGS__, plan_r2r_1d, plan,                                                              \
      (Plan * p, const int* n, R* in, R* out, const int* kind, const int* flags),                  \
      (*n, in, out, *kind, *flags))                                                                \
    X(__VA_ARGS__, plan_r2r_2d, plan,                                                              \
      (Plan * p, const int* nx, const int* ny, R* in, R* out, const int* kindx, const int* kindy,  \
       const int* flags),                                                                          \
      (*ny, *nx, in, out, *kindy, *kindx, *flags))                                                 \
    X(__VA_ARGS__, plan_r2r_3d, plan,                                                              \
      (Plan * p, const int* nx, const int* ny, const int* nz, R* in, R* out, const int* kindx,     \
       const int* kindy, const int* kindz, const int* flags),                                      \
      (*nz, *ny, *nx, in, out, *kindz, *kindy, *kindx, *flags))                                    \
    X(__VA_ARGS__, plan_many_r2r, plan,                                                            \
      (GPUSHIM_FFTW_LEGACY_MANY_PARAMS(R, R), const int* kind, const int* flags),                  \
      (GPUSHIM_FFTW_LEGACY_MANY_ARGS, kinds(*rank, kind), *flags))                                 \
    X(__VA_ARGS__, plan_guru_r2r, plan,                                                            \
      (GPUSHIM_FFTW_LEGACY_GURU_PARAMS, R * in, R * out, const int* kind, const int* flags),       \
      (GPUSHIM_FFTW_LEGACY_GURU_ARGS, in, out, kinds(*rank, kind), *flags))                        \
    X(__VA_ARGS__, execute, none, (const Plan* p), (*p))                                           \
    X(__VA_ARGS__, execute_dft, none, (const Plan* p, C* in, C* out), (*p, in, out))               \
    X(__VA_ARGS__, execute_split_dft, none, (const Plan* p, R* ri, R* ii, R* ro, R* io),           \
      (*p, ri, ii, ro, io))                                                                        \
    X(__VA_ARGS__, execute_dft_r2c, none, (const Plan* p, R* in, C* out), (*p, in, out))           \
    X(__VA_ARGS__, execute_split_dft_r2c, none, (const Plan* p, R* in, R* ro, R* io),              \
      (*p, in, ro, io))                                                                            \
    X(__VA_ARGS__, execute_dft_c2r, none, (const Plan* p, C* in, R* out), (*p, in, out))           \
    X(__VA_ARGS__, execute_split_dft_c2r, none, (const Plan* p, R* ri, R* ii, R* out),             \
      (*p, ri, ii, out))                                                                           \
    X(__VA_ARGS__, execute_r2r, none, (const Plan* p, R* in, R* out), (*p, in, out))               \
    X(__VA_ARGS__, destroy_plan, none, (const Plan* p), (*p))                                      \
    X(__VA_ARGS__, print_plan, flush, (const Plan* p), (*p))                                       \
    X(__VA_ARGS__, flops, none, (const Plan* p, double* add, double* mul, double* fmas),           \
      (*p, add, mul, fmas))                                                                        \
    X(__VA_ARGS__, estimate_cost, cost, (double* cost, const Plan* p), (*p))                       \
    X(__VA_ARGS__, cost, cost, (double* cost, const Plan* p), (*p))

#define GPUSHIM_FFTW_LEGACY_NAMES_OF_FUNCTION(X, LP, name, RESULT, PARAMS, ARGS) \
    X(LP##name##_) X(LP##name##__)
#define GPUSHIM_FFTW_LEGACY_NAMES_OF_PRECISION(LP, P, X) \
    GPUSHIM_FOR_EACH_FFTW_LEGACY_FUNCTION(GPUSHIM_FFTW_LEGACY_NAMES_OF_FUNCTION, X, LP)
#define GPUSHIM_FOR_EACH_FFTW_LEGACY_NAME(X) \
    GPUSHIM_FOR_EACH_FFTW_LEGACY_PRECISION(GPUSHIM_FFTW_LEGACY_NAMES_OF_PRECISION, X)

#endif
