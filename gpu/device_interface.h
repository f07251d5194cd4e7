/* The device interface: what a backend plugin (libgpushim_<name>.so) provides.
 *
 * Plain C so that a plugin can be built by any compiler and loaded with dlopen.
 * A plugin exports one function, gpushim_device_plugin_v6(), returning a table of
 * function pointers. Every function returns 0 on success and a positive plugin
 * status on failure; describe_error() turns a status into text. Pointers named
 * dev_* are device memory; host pointers are plain host memory. */
#ifndef GPUSHIM_GPU_DEVICE_INTERFACE_H
#define GPUSHIM_GPU_DEVICE_INTERFACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUSHIM_DEVICE_INTERFACE_VERSION 6

typedef enum {
    GPUSHIM_PREC_S = 0, /* float */
    GPUSHIM_PREC_D = 1, /* double */
    GPUSHIM_PREC_C = 2, /* float complex */
    GPUSHIM_PREC_Z = 3  /* double complex */
} gpushim_precision;

typedef enum {
    GPUSHIM_GEMM = 0,
    GPUSHIM_SYMM,
    GPUSHIM_HEMM,
    GPUSHIM_SYRK,
    GPUSHIM_HERK,
    GPUSHIM_SYR2K,
    GPUSHIM_HER2K,
    GPUSHIM_TRMM,
    GPUSHIM_TRSM
} gpushim_blas3_kind;

/* A Level-3 BLAS call in column-major form with reference-BLAS meaning.
 * Flags are upper-case characters: trans* in 'N','T','C'; side 'L','R';
 * uplo 'U','L'; diag 'N','U'. Scalars are stored as {real, imaginary} in
 * double; for HERK alpha/beta and HER2K beta only the real part is meaningful.
 * The rank-k/2k updates (SYRK, HERK, SYR2K, HER2K) keep their TRANS in transa.
 * For TRMM/TRSM the in/out matrix is b (c is unused), as in BLAS.
 * Unused fields are zero. */
typedef struct {
    gpushim_blas3_kind kind;
    gpushim_precision precision;
    char transa, transb, side, uplo, diag;
    int64_t m, n, k;
    double alpha[2];
    double beta[2];
    const void* a;
    int64_t lda;
    const void* b;
    int64_t ldb;
    void* c;
    int64_t ldc;
} gpushim_blas3_op;

typedef enum {
    GPUSHIM_POTRF = 0, /* Cholesky factorization */
    GPUSHIM_GETRF,     /* LU factorization with partial pivoting */
    GPUSHIM_GETRS,     /* solve with an LU factorization */
    GPUSHIM_GESV,      /* GETRF, then GETRS with its factors */
    GPUSHIM_GETRI,     /* inverse from an LU factorization */
    GPUSHIM_POTRS,     /* solve with a Cholesky factor */
    GPUSHIM_POSV,      /* POTRF, then POTRS with its factor */
    GPUSHIM_POTRI,     /* inverse from a Cholesky factor */
    GPUSHIM_TRTRS,     /* triangular solve */
    GPUSHIM_TRTRI,     /* triangular inverse */
    GPUSHIM_GEQRF,     /* QR factorization */
    GPUSHIM_ORGQR,     /* Q of a QR factorization (UNGQR for complex) */
    GPUSHIM_ORMQR,     /* product with Q (UNMQR for complex) */
    GPUSHIM_SYEVD,     /* symmetric/Hermitian eigenvalues and vectors (HEEVD) */
    GPUSHIM_GESVD,     /* singular value decomposition */
    GPUSHIM_SYEVR,     /* eigenvalues by index or interval (HEEVR) */
    GPUSHIM_SYGVD,     /* generalized symmetric-definite eigenproblem (HEGVD) */
    GPUSHIM_GEEV,      /* nonsymmetric eigenvalues and right eigenvectors */
    GPUSHIM_GELS,      /* least squares by QR */
    GPUSHIM_GELSD,     /* minimum-norm least squares by SVD */
    GPUSHIM_SYTRF,     /* symmetric indefinite (complex symmetric) Bunch-Kaufman factorization */
    GPUSHIM_SYTRI,     /* inverse from a Bunch-Kaufman factorization */
    GPUSHIM_SYTRS,     /* solve with a Bunch-Kaufman factorization */
    GPUSHIM_SYSV       /* SYTRF, then SYTRS with its factor */
} gpushim_lapack_kind;

/* A LAPACK operation on device memory, with the meaning of the LAPACK routine of the same
 * name (column-major, 1-based pivots). Flags are upper-case characters. Matrices are
 * packed by the caller of the plugin, but a plugin must honour every leading dimension.
 * An array "read" holds, when the operation ends, every byte it held at its start: the host
 * may keep it for later operations (a plugin may use it as scratch meanwhile, as LAPACK's
 * xORM2R does with the reflectors' diagonal, if it puts it back).
 *   POTRF  uplo, n, a.                 a: the factor in the uplo triangle (other untouched)
 *   GETRF  m, n, a, ipiv.              a: L and U; ipiv: min(m, n) row interchanges
 *   GETRS  trans, n, nrhs, a, ipiv, b. a, ipiv: GETRF's output (read); b: B in, X out
 *   GESV   n, nrhs, a, ipiv, b.        GETRF of a, then GETRS on b; info: GETRF's
 *   GETRI  n, a, ipiv.                 a: GETRF's factors in, the inverse out
 *   POTRS  uplo, n, nrhs, a, b.        a: POTRF's factor (read); b: B in, X out
 *   POSV   uplo, n, nrhs, a, b.        POTRF of a, then POTRS on b; info: POTRF's
 *   POTRI  uplo, n, a.                 a: POTRF's factor in, the inverse's uplo triangle out
 *   TRTRS  uplo, trans, diag, n, nrhs, a, b.   op(a) X = B; a read, b: B in, X out
 *   TRTRI  uplo, diag, n, a.           a: the triangle in, its inverse out
 *   GEQRF  m, n, a, tau.               a: R and the reflectors; tau: min(m, n) scalars
 *   ORGQR  m, n, k, a, tau.            a: k reflectors in, the m x n Q out; tau: k (read)
 *   ORMQR  side, trans, m, n, k, a, tau, b.    b (m x n): op(Q) C or C op(Q); a, tau read
 *   SYEVD  jobz ('N','V'), uplo, n, a, w.      w: n real eigenvalues, ascending;
 *          jobz 'V': a holds the orthonormal eigenvectors; 'N': a is destroyed
 *   GESVD  jobu, jobvt ('A','S','O','N', not both 'O'), m >= n, a, w, u, vt.
 *          w: n real singular values, descending; u: m x m ('A') or m x n ('S');
 *          vt: n x n; 'O' writes U (or VT) over a; otherwise a is destroyed.
 *   SYEVR  jobz, range ('A','V','I'), uplo, n, a, vl, vu, il, iu, w, u, found.
 *          The eigenvalues in (vl, vu] ('V') or with 1-based indices il..iu ('I'), or all;
 *          *found (device int64_t) = their number m; w: m ascending; jobz 'V': u (n x m,
 *          ldu) their orthonormal eigenvectors. a is destroyed.
 *   SYGVD  itype (1, 2, 3), jobz, uplo, n, a, b, w. A x = l B x (1), A B x = l x (2),
 *          B A x = l x (3) with B positive definite: w ascending; jobz 'V': a holds the
 *          B-normalized eigenvectors; b: B's Cholesky factor in the uplo triangle;
 *          info: LAPACK's (> n: B not positive definite)
 *   GEEV   jobz ('N','V': the right eigenvectors; never the left), n, a, w, wi, u.
 *          Real: w = WR and wi = WI (n each), u = VR in LAPACK's real convention for
 *          complex pairs; complex: w = n complex eigenvalues, u = VR. Normalized as LAPACK
 *          does (unit 2-norm, largest component real). a is destroyed.
 *   GELS   trans 'N', m >= n, nrhs, a, b (m x nrhs). a: GEQRF's factors; b: the n x nrhs
 *          least-squares solution over the m - n rows of Q^H B that give the residual.
 *          A is of full rank: the caller checks R's diagonal.
 *   GELSD  m >= n, nrhs, a (destroyed), b (m x nrhs), rcond, w, found. The minimum-norm
 *          solution with the singular values w(i) <= rcond * w(1) taken as zero (rcond <= 0
 *          or >= 1: machine epsilon, as LAPACK's xLALSD): b's first n rows X; when the rank
 *          is n, rows n+1..m the components of the residual (their sum of squares is its
 *          square norm); w: the n singular values of A, descending; *found (device
 *          int64_t): the effective rank.
 *   SYTRF  uplo, n, a, ipiv.           a: D and the multipliers of A = L D L^T (U D U^T), with
 *          L = P(1) L(1) P(2) L(2) ... (U = P(n) U(n) ...), stored in the uplo triangle as
 *          LAPACK's SYTRF stores them (the other triangle untouched); ipiv: n pivots in its
 *          convention (1-based; a 2 x 2 block of D marked by two equal negative entries).
 *          Complex means complex symmetric (A^T = A), as LAPACK's CSYTRF, not Hermitian.
 *   SYTRI  uplo, n, a, ipiv.           a: SYTRF's factor in, the inverse's uplo triangle out
 *          (the other untouched); ipiv: SYTRF's pivots (read).
 *   SYTRS  uplo, n, nrhs, a, ipiv, b.  a, ipiv: SYTRF's output (read); b: B in, X out
 *   SYSV   uplo, n, nrhs, a, ipiv, b.  SYTRF of a, then SYTRS on b; info: SYTRF's
 * The triangular operations (GETRI's U, POTRI, TRTRS, TRTRI with diag 'N') are given only
 * matrices whose diagonal has no exact zero, SYTRI and SYTRS no 1 x 1 block of D that is
 * exactly zero, and pivots each in [-n, -1] or [1, n]. The real outputs (w, wi; vl, vu and rcond
 * are doubles) are float for S and C, double for D and Z. info: one int in device memory, set to
 * LAPACK's INFO (0, or k > 0 as LAPACK defines it for the routine); when it is not 0 the other
 * outputs are unspecified (the host then computes the call on the CPU from its own copy of the
 * inputs: a plugin need not wait for INFO before the steps that follow, such as GESV's solve).
 * Invalid arguments never reach a plugin. Unused fields are zero. */
typedef struct {
    gpushim_lapack_kind kind;
    gpushim_precision precision;
    char uplo, trans, side, diag, jobz, jobu, jobvt, range;
    int64_t m, n, k, nrhs;
    int64_t itype, il, iu;
    double vl, vu, rcond;
    void* a;
    int64_t lda;
    void* b;
    int64_t ldb;
    int64_t* ipiv;
    void* tau;
    void* w;
    void* wi;
    void* u;
    int64_t ldu;
    void* vt;
    int64_t ldvt;
    int64_t* found;
    int* info;
} gpushim_lapack_op;

typedef enum {
    GPUSHIM_FFT_C2C = 0, /* complex to complex */
    GPUSHIM_FFT_R2C,     /* real to the half spectrum (FFTW's r2c, always forward) */
    GPUSHIM_FFT_C2R      /* half spectrum to real (FFTW's c2r, always backward) */
} gpushim_fft_kind;

/* A batch of `howmany` discrete Fourier transforms of rank 1 to 3, with FFTW's meaning:
 * unnormalized, out[k] = sum_j in[j] exp(sign * 2 pi i j.k / n), sign -1 (forward) or +1
 * (backward; R2C is forward and C2R backward whatever `sign` says). precision is
 * GPUSHIM_PREC_D (double) or GPUSHIM_PREC_S (float): the precision of the real numbers.
 * Arrays are packed in device memory, row-major (n[rank-1] varies fastest), the
 * transforms one after another, complex numbers as {real, imaginary}:
 *   C2C  in and out: howmany x n[0] x ... x n[rank-1] complex
 *   R2C  in: howmany x n[0] x ... x n[rank-1] real; out: the same with n[rank-1]/2 + 1
 *        complex in the last dimension (the half spectrum)
 *   C2R  in: the half spectrum; out: the real arrays. in is destroyed (may be overwritten);
 *        it is Hermitian, as FFTW assumes: for rank 1 the imaginary parts of the DC and
 *        (n even) Nyquist terms are zero (FFTW never reads them; the host zeroes them).
 * in and out never overlap, but for C2C, which may also transform in place (out is in). */
typedef struct {
    gpushim_fft_kind kind;
    gpushim_precision precision;
    int sign;
    int rank;
    int64_t n[3];
    int64_t howmany;
} gpushim_fft_desc;

/* Whether desc->kind is one of the kinds above, read as the int it is stored in: a C caller
 * may store any int there, which C++ code must not load as the enumeration. */
static inline int gpushim_fft_kind_known(const gpushim_fft_desc* desc) {
    int kind;
    memcpy(&kind, &desc->kind, sizeof kind);
    return kind >= GPUSHIM_FFT_C2C && kind <= GPUSHIM_FFT_C2R;
}

typedef struct gpushim_fft_plan_s* gpushim_fft_plan;

/* Services the host library offers a plugin. */
typedef struct {
    /* The CPU implementation of a BLAS, LAPACK or FFTW symbol (e.g. "dgemm_",
     * "fftw_plan_many_dft"), never the shim's. */
    void* (*resolve_cpu_symbol)(const char* name);
    /* Logging: level 1 error, 2 warn, 3 info, 4 debug. */
    void (*log)(int level, const char* message);
    /* Device memory the plugin holds for itself beyond device_alloc's blocks (workspaces
     * kept between operations, FFT plans' work areas) counts against the user's limit on
     * the library's device memory. Before holding `bytes` more: take_device_memory returns
     * 1 when they may be held, 0 when they may not: the plugin then fails the operation as
     * out of device memory. With make_room 1 the host may first free memory it keeps; with
     * 0 (a size the plugin prefers to what it needs) it only allows what fits beside what
     * is held. Once they are freed: give_device_memory, from anywhere. The host may call
     * device_alloc, device_free and fft_plan_destroy while it makes room: take_device_memory
     * must not be called from them, nor from init. */
    int (*take_device_memory)(size_t bytes, int make_room);
    void (*give_device_memory)(size_t bytes);
    /* The device itself refused an allocation of the plugin's own: the host frees the device
     * memory it keeps (its cached blocks, resident copies, other queues' workspaces), after
     * which the plugin may try once more. Not to be called where take_device_memory may not. */
    void (*release_kept_device_memory)(void);
    /* Which of the device_count devices the plugin found it should use (0 to
     * device_count - 1), as the user chose it; -1: the device current on the thread calling
     * init. Called once, from init. */
    int (*choose_device)(int device_count);
} gpushim_host_services;

typedef struct gpushim_queue_s* gpushim_queue; /* a stream and its library handles */
typedef struct gpushim_event_s* gpushim_event;

typedef struct {
    uint32_t interface_version; /* GPUSHIM_DEVICE_INTERFACE_VERSION */
    const char* name;

    /* Called once before anything else. Fails when no usable device exists. */
    int (*init)(const gpushim_host_services* services);
    /* A one-line description of the device, valid after init. */
    const char* (*device_description)(void);
    /* Any thread may ask; the text stays valid for the life of the process. */
    const char* (*describe_error)(int status);
    int (*memory_info)(size_t* free_bytes, size_t* total_bytes);

    int (*device_alloc)(void** dev_ptr, size_t bytes);
    int (*device_free)(void* dev_ptr);
    int (*pinned_alloc)(void** host_ptr, size_t bytes);
    int (*pinned_free)(void* host_ptr);

    int (*queue_create)(gpushim_queue* queue);
    int (*queue_destroy)(gpushim_queue queue);
    int (*queue_synchronize)(gpushim_queue queue);
    /* Frees the workspaces the queue keeps for its next operations (what the LAPACK
     * operations reserved), in the queue's order: a later operation reserves them again.
     * Called by the host, from any thread, when device memory runs short, for a queue on
     * which no `lapack` operation is being enqueued. */
    int (*queue_release_workspaces)(gpushim_queue queue);
    int (*event_create)(gpushim_event* event);
    int (*event_destroy)(gpushim_event event);
    int (*event_record)(gpushim_event event, gpushim_queue queue);
    int (*event_synchronize)(gpushim_event event);

    /* Asynchronous 2-D copies: `rows` rows of `width_bytes` each, pitches in bytes.
     * (A column-major matrix is `columns` rows of `m * element size` bytes.) */
    int (*copy_to_device_2d)(void* dev_dst, size_t dst_pitch, const void* host_src,
                             size_t src_pitch, size_t width_bytes, size_t rows,
                             gpushim_queue queue);
    int (*copy_to_host_2d)(void* host_dst, size_t dst_pitch, const void* dev_src, size_t src_pitch,
                           size_t width_bytes, size_t rows, gpushim_queue queue);

    /* Enqueue a Level-3 BLAS operation whose a, b, c point to device memory. */
    int (*blas3)(const gpushim_blas3_op* op, gpushim_queue queue);

    /* Enqueue a LAPACK operation on device memory. The plugin provides whatever
     * workspace it needs (kept per queue, so that a steady workload allocates none). */
    int (*lapack)(const gpushim_lapack_op* op, gpushim_queue queue);

    /* FFT plans: created once for a transform and executed many times, with whatever
     * workspace they need held by the plan until it is destroyed. fft_execute enqueues the
     * transform of `dev_in` into `dev_out` (packed as the description says) on `queue`;
     * a plan may be executed on different queues, from one host thread at a time, each
     * execution enqueued before the previous one has ended on the device: the plugin orders
     * them there (they share the plan's work area). A C2C plan also
     * transforms in place, where `dev_out` is `dev_in` (both layouts are the same). */
    int (*fft_plan_create)(const gpushim_fft_desc* desc, gpushim_fft_plan* plan);
    int (*fft_execute)(gpushim_fft_plan plan, void* dev_in, void* dev_out, gpushim_queue queue);
    int (*fft_plan_destroy)(gpushim_fft_plan plan);
    /* 1 when a status a function returned means that the device can no longer be used by
     * this process, whatever it is asked next (CUDA's sticky errors: the context is
     * corrupted until the process ends); 0 for a failure of one call. The host then stops
     * offloading for the rest of the process. */
    int (*status_is_lasting)(int status);
    /* 0 while the device still holds what the plugin made on it (memory, pinned buffers,
     * queues, plans); otherwise a status: a lasting one where the program destroyed them
     * (CUDA's cudaDeviceReset or cuDevicePrimaryCtxReset, after which touching a pinned
     * buffer faults), another where the device cannot be asked just now (the driver shutting
     * down at exit). Asked by the host before it uses the plugin for a call, from any thread;
     * after a nonzero answer it uses nothing of the plugin's for that call. NULL: nothing
     * outside the plugin can take them away. */
    int (*device_intact)(void);
} gpushim_device_plugin;

typedef const gpushim_device_plugin* (*gpushim_device_plugin_entry)(void);
#define GPUSHIM_DEVICE_PLUGIN_ENTRY "gpushim_device_plugin_v6"

#ifdef __cplusplus
}
#endif

#endif
