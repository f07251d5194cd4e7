/* The FFTW3 functions the shim exports: every function that creates or consumes a plan,
 * described once and instantiated for fftw_ (double) and fftwf_ (float), as fftw3.h
 * declares its API once for every precision, and the few functions that read out or forget
 * wisdom. Everything else of FFTW (memory, importing wisdom, threads) is not exported and
 * so resolves to FFTW itself.
 *
 * GPUSHIM_FOR_EACH_FFTW_PLANNER(X, P, R, C):  X(P, name, KIND, PARAMS, ARGS, DESCRIPTION)
 *   P            the prefix (fftw_, fftwf_), passed through
 *   name         the function's name after the prefix, e.g. plan_dft_1d
 *   KIND         the transform (dispatch/fft_call.h FftKind): the report's routine
 *   PARAMS       the parameter list, in the types R (real) and C (complex, R[2]);
 *                the planner flags are always `unsigned flags`
 *   ARGS         the arguments to forward to FFTW's function of the same name, with
 *                `planner_flags` in place of the caller's flags
 *   DESCRIPTION  a call of shim/fftw_descriptions.h that turns the arguments into the
 *                canonical (guru64) problem
 *
 * GPUSHIM_FOR_EACH_FFTW_CONSUMER(X, P, R, C):  X(P, name, Return, ROLE, PARAMS, ARGS)
 *   PARAMS and ARGS follow the plan argument `p`; ROLE (shim/fftw_plan.h) says what the
 *   function does with a plan of the shim's: execute_planned (on the planned arrays),
 *   execute_new (on new arrays ARGS = in, out), execute_on_cpu (split and r2r: FFTW's),
 *   inspect (FFTW's answer for the plan that computes on the CPU), destroy.
 *
 * GPUSHIM_FOR_EACH_FFTW_WISDOM_FUNCTION(X, P):  X(P, name, Return, BEFORE, PARAMS, ARGS)
 *   the functions that read FFTW's wisdom out or forget it. The shim skips FFTW's search
 *   (MEASURE, PATIENT, EXHAUSTIVE) for a transform the device computes (shim/fftw_plan.h),
 *   and FFTW would have wisdom from it; BEFORE forwarding, make_skipped_searches makes those
 *   searches (wisdom read out holds what FFTW's would), forget_skipped_searches forgets them
 *   (FFTW_WISDOM_ONLY then finds nothing, as with FFTW).
 *
 * Plain preprocessor text: also read by cpp to write the version script. */
#ifndef GPUSHIM_SHIM_FFTW_FUNCTIONS_H
#define GPUSHIM_SHIM_FFTW_FUNCTIONS_H

#define GPUSHIM_FFTW_MANY_PARAMS(In, Out)                                                    \
    int rank, const int *n, int howmany, In *in, const int *inembed, int istride, int idist, \
        Out *out, const int *onembed, int ostride, int odist

#define GPUSHIM_FOR_EACH_FFTW_PLANNER(X, P, R, C)                                                   \
    X(P, plan_dft, c2c, (int rank, const int *n, C *in, C *out, int sign, unsigned flags),           \
      (rank, n, in, out, sign, planner_flags),                                                    \
      describe_many(FftKind::c2c, rank, n, 1, in, nullptr, 1, 1, out, nullptr, 1, 1, sign))       \
    X(P, plan_dft_1d, c2c, (int n0, C *in, C *out, int sign, unsigned flags),                        \
      (n0, in, out, sign, planner_flags), describe_sizes(FftKind::c2c, {n0}, in, out, sign))      \
    X(P, plan_dft_2d, c2c, (int n0, int n1, C *in, C *out, int sign, unsigned flags),                \
      (n0, n1, in, out, sign, planner_flags),                                                     \
      describe_sizes(FftKind::c2c, {n0, n1}, in, out, sign))                                      \
    X(P, plan_dft_3d, c2c, (int n0, int n1, int n2, C *in, C *out, int sign, unsigned flags),        \
      (n0, n1, n2, in, out, sign, planner_flags),                                                 \
      describe_sizes(FftKind::c2c, {n0, n1, n2}, in, out, sign))                                  \
    X(P, plan_many_dft, c2c, (GPUSHIM_FFTW_MANY_PARAMS(C, C), int sign, unsigned flags),             \
      (rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride, odist, sign,         \
       planner_flags),                                                                            \
      describe_many(FftKind::c2c, rank, n, howmany, in, inembed, istride, idist, out, onembed,    \
                    ostride, odist, sign))                                                        \
    X(P, plan_guru_dft, c2c,                                                                         \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, C *in, C *out,   \
       int sign, unsigned flags),                                                                 \
      (rank, dims, howmany_rank, howmany_dims, in, out, sign, planner_flags),                     \
      describe_guru(FftKind::c2c, rank, dims, howmany_rank, howmany_dims, in, out, sign))         \
    X(P, plan_guru64_dft, c2c,                                                                       \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, C *in,       \
       C *out, int sign, unsigned flags),                                                         \
      (rank, dims, howmany_rank, howmany_dims, in, out, sign, planner_flags),                     \
      describe_guru(FftKind::c2c, rank, dims, howmany_rank, howmany_dims, in, out, sign))         \
    X(P, plan_guru_split_dft, split_c2c,                                                             \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, R *ri, R *ii,    \
       R *ro, R *io, unsigned flags),                                                             \
      (rank, dims, howmany_rank, howmany_dims, ri, ii, ro, io, planner_flags),                    \
      describe_on_cpu(FftKind::split_c2c))                                                        \
    X(P, plan_guru64_split_dft, split_c2c,                                                           \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, R *ri,       \
       R *ii, R *ro, R *io, unsigned flags),                                                      \
      (rank, dims, howmany_rank, howmany_dims, ri, ii, ro, io, planner_flags),                    \
      describe_on_cpu(FftKind::split_c2c))                                                        \
    X(P, plan_many_dft_r2c, r2c, (GPUSHIM_FFTW_MANY_PARAMS(R, C), unsigned flags),                   \
      (rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride, odist,               \
       planner_flags),                                                                            \
      describe_many(FftKind::r2c, rank, n, howmany, in, inembed, istride, idist, out, onembed,    \
                    ostride, odist, -1))                                                          \
    X(P, plan_dft_r2c, r2c, (int rank, const int *n, R *in, C *out, unsigned flags),                 \
      (rank, n, in, out, planner_flags),                                                          \
      describe_many(FftKind::r2c, rank, n, 1, in, nullptr, 1, 1, out, nullptr, 1, 1, -1))         \
    X(P, plan_dft_r2c_1d, r2c, (int n0, R *in, C *out, unsigned flags),                              \
      (n0, in, out, planner_flags), describe_sizes(FftKind::r2c, {n0}, in, out, -1))              \
    X(P, plan_dft_r2c_2d, r2c, (int n0, int n1, R *in, C *out, unsigned flags),                      \
      (n0, n1, in, out, planner_flags), describe_sizes(FftKind::r2c, {n0, n1}, in, out, -1))      \
    X(P, plan_dft_r2c_3d, r2c, (int n0, int n1, int n2, R *in, C *out, unsigned flags),              \
      (n0, n1, n2, in, out, planner_flags),                                                       \
      describe_sizes(FftKind::r2c, {n0, n1, n2}, in, out, -1))                                    \
    X(P, plan_guru_dft_r2c, r2c,                                                                     \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, R *in, C *out,   \
       unsigned flags),                                                                           \
      (rank, dims, howmany_rank, howmany_dims, in, out, planner_flags),                           \
      describe_guru(FftKind::r2c, rank, dims, howmany_rank, howmany_dims, in, out, -1))           \
    X(P, plan_guru64_dft_r2c, r2c,                                                                   \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, R *in,       \
       C *out, unsigned flags),                                                                   \
      (rank, dims, howmany_rank, howmany_dims, in, out, planner_flags),                           \
      describe_guru(FftKind::r2c, rank, dims, howmany_rank, howmany_dims, in, out, -1))           \
    X(P, plan_guru_split_dft_r2c, split_r2c,                                                         \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, R *in, R *ro,    \
       R *io, unsigned flags),                                                                    \
      (rank, dims, howmany_rank, howmany_dims, in, ro, io, planner_flags),                        \
      describe_on_cpu(FftKind::split_r2c))                                                        \
    X(P, plan_guru64_split_dft_r2c, split_r2c,                                                       \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, R *in,       \
       R *ro, R *io, unsigned flags),                                                             \
      (rank, dims, howmany_rank, howmany_dims, in, ro, io, planner_flags),                        \
      describe_on_cpu(FftKind::split_r2c))                                                        \
    X(P, plan_many_dft_c2r, c2r, (GPUSHIM_FFTW_MANY_PARAMS(C, R), unsigned flags),                   \
      (rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride, odist,               \
       planner_flags),                                                                            \
      describe_many(FftKind::c2r, rank, n, howmany, in, inembed, istride, idist, out, onembed,    \
                    ostride, odist, 1))                                                           \
    X(P, plan_dft_c2r, c2r, (int rank, const int *n, C *in, R *out, unsigned flags),                 \
      (rank, n, in, out, planner_flags),                                                          \
      describe_many(FftKind::c2r, rank, n, 1, in, nullptr, 1, 1, out, nullptr, 1, 1, 1))          \
    X(P, plan_dft_c2r_1d, c2r, (int n0, C *in, R *out, unsigned flags),                              \
      (n0, in, out, planner_flags), describe_sizes(FftKind::c2r, {n0}, in, out, 1))               \
    X(P, plan_dft_c2r_2d, c2r, (int n0, int n1, C *in, R *out, unsigned flags),                      \
      (n0, n1, in, out, planner_flags), describe_sizes(FftKind::c2r, {n0, n1}, in, out, 1))       \
    X(P, plan_dft_c2r_3d, c2r, (int n0, int n1, int n2, C *in, R *out, unsigned flags),              \
      (n0, n1, n2, in, out, planner_flags),                                                       \
      describe_sizes(FftKind::c2r, {n0, n1, n2}, in, out, 1))                                     \
    X(P, plan_guru_dft_c2r, c2r,                                                                     \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, C *in, R *out,   \
       unsigned flags),                                                                           \
      (rank, dims, howmany_rank, howmany_dims, in, out, planner_flags),                           \
      describe_guru(FftKind::c2r, rank, dims, howmany_rank, howmany_dims, in, out, 1))            \
    X(P, plan_guru64_dft_c2r, c2r,                                                                   \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, C *in,       \
       R *out, unsigned flags),                                                                   \
      (rank, dims, howmany_rank, howmany_dims, in, out, planner_flags),                           \
      describe_guru(FftKind::c2r, rank, dims, howmany_rank, howmany_dims, in, out, 1))            \
    X(P, plan_guru_split_dft_c2r, split_c2r,                                                         \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, R *ri, R *ii,    \
       R *out, unsigned flags),                                                                   \
      (rank, dims, howmany_rank, howmany_dims, ri, ii, out, planner_flags),                       \
      describe_on_cpu(FftKind::split_c2r))                                                        \
    X(P, plan_guru64_split_dft_c2r, split_c2r,                                                       \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, R *ri,       \
       R *ii, R *out, unsigned flags),                                                            \
      (rank, dims, howmany_rank, howmany_dims, ri, ii, out, planner_flags),                       \
      describe_on_cpu(FftKind::split_c2r))                                                        \
    X(P, plan_many_r2r, r2r,                                                                         \
      (GPUSHIM_FFTW_MANY_PARAMS(R, R), const R2rKind *kind, unsigned flags),                      \
      (rank, n, howmany, in, inembed, istride, idist, out, onembed, ostride, odist, kind,         \
       planner_flags),                                                                            \
      describe_on_cpu(FftKind::r2r))                                                              \
    X(P, plan_r2r, r2r, (int rank, const int *n, R *in, R *out, const R2rKind *kind, unsigned flags), \
      (rank, n, in, out, kind, planner_flags), describe_on_cpu(FftKind::r2r))                     \
    X(P, plan_r2r_1d, r2r, (int n0, R *in, R *out, R2rKind kind0, unsigned flags),                   \
      (n0, in, out, kind0, planner_flags), describe_on_cpu(FftKind::r2r))                         \
    X(P, plan_r2r_2d, r2r,                                                                           \
      (int n0, int n1, R *in, R *out, R2rKind kind0, R2rKind kind1, unsigned flags),              \
      (n0, n1, in, out, kind0, kind1, planner_flags), describe_on_cpu(FftKind::r2r))              \
    X(P, plan_r2r_3d, r2r,                                                                           \
      (int n0, int n1, int n2, R *in, R *out, R2rKind kind0, R2rKind kind1, R2rKind kind2,        \
       unsigned flags),                                                                           \
      (n0, n1, n2, in, out, kind0, kind1, kind2, planner_flags), describe_on_cpu(FftKind::r2r))   \
    X(P, plan_guru_r2r, r2r,                                                                         \
      (int rank, const IoDim *dims, int howmany_rank, const IoDim *howmany_dims, R *in, R *out,   \
       const R2rKind *kind, unsigned flags),                                                      \
      (rank, dims, howmany_rank, howmany_dims, in, out, kind, planner_flags),                     \
      describe_on_cpu(FftKind::r2r))                                                              \
    X(P, plan_guru64_r2r, r2r,                                                                       \
      (int rank, const IoDim64 *dims, int howmany_rank, const IoDim64 *howmany_dims, R *in,       \
       R *out, const R2rKind *kind, unsigned flags),                                              \
      (rank, dims, howmany_rank, howmany_dims, in, out, kind, planner_flags),                     \
      describe_on_cpu(FftKind::r2r))

#define GPUSHIM_FOR_EACH_FFTW_CONSUMER(X, P, R, C)                                                  \
    X(P, execute, void, execute_planned, (), ())                                                     \
    X(P, execute_dft, void, execute_new, (C * in, C * out), (in, out))                               \
    X(P, execute_dft_r2c, void, execute_new, (R * in, C * out), (in, out))                           \
    X(P, execute_dft_c2r, void, execute_new, (C * in, R * out), (in, out))                           \
    X(P, execute_split_dft, void, execute_on_cpu, (R * ri, R * ii, R * ro, R * io),                  \
      (ri, ii, ro, io))                                                                           \
    X(P, execute_split_dft_r2c, void, execute_on_cpu, (R * in, R * ro, R * io), (in, ro, io))        \
    X(P, execute_split_dft_c2r, void, execute_on_cpu, (R * ri, R * ii, R * out), (ri, ii, out))      \
    X(P, execute_r2r, void, execute_on_cpu, (R * in, R * out), (in, out))                            \
    X(P, destroy_plan, void, destroy, (), ())                                                        \
    X(P, print_plan, void, inspect, (), ())                                                          \
    X(P, fprint_plan, void, inspect, (FILE * output_file), (output_file))                            \
    X(P, sprint_plan, char *, inspect, (), ())                                                       \
    X(P, flops, void, inspect, (double *add, double *mul, double *fmas), (add, mul, fmas))           \
    X(P, estimate_cost, double, inspect, (), ())                                                     \
    X(P, cost, double, inspect, (), ())

#define GPUSHIM_FOR_EACH_FFTW_WISDOM_FUNCTION(X, P)                                          \
    X(P, export_wisdom_to_filename, int, make_skipped_searches, (const char *filename),      \
      (filename))                                                                           \
    X(P, export_wisdom_to_file, void, make_skipped_searches, (FILE * output_file),           \
      (output_file))                                                                        \
    X(P, export_wisdom_to_string, char *, make_skipped_searches, (), ())                     \
    X(P, export_wisdom, void, make_skipped_searches,                                         \
      (void (*write_char)(char c, void *data), void *data), (write_char, data))             \
    X(P, forget_wisdom, void, forget_skipped_searches, (), ())                               \
    X(P, cleanup, void, forget_skipped_searches, (), ())

/* X(prefix, Real): the precisions the shim serves (not fftwl_, fftwq_). */
#define GPUSHIM_FOR_EACH_FFTW_PRECISION(X) \
    X(fftw_, double)                       \
    X(fftwf_, float)

#endif
