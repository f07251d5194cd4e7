// From an ABI call to the canonical column-major description: Fortran arguments are read
// through their pointers, CBLAS enums become BLAS flags, and row-major CBLAS calls are
// folded into column-major ones (C = op(A) op(B) row-major is C^T = op(B)^T op(A)^T).
// Arguments that are invalid stay recognisably invalid, so the call is forwarded untouched.
#pragma once

#include <complex>
#include <cstdint>
#include <utility>

#include "dispatch/blas3_call.h"
#include "shim/blas3_signatures.h"

namespace gpushim::shim {

// Entry points build their call description inline, so that for a small call (below the
// threshold) the compiler keeps only what the size test reads.
#define GPUSHIM_INLINE [[gnu::always_inline]] inline

template <class T>
constexpr gpushim_precision precision_of() {
    if constexpr (std::is_same_v<T, float>) return GPUSHIM_PREC_S;
    if constexpr (std::is_same_v<T, double>) return GPUSHIM_PREC_D;
    if constexpr (std::is_same_v<T, ccomplex>) return GPUSHIM_PREC_C;
    return GPUSHIM_PREC_Z;
}

template <class S>
GPUSHIM_INLINE void store_scalar(double (&out)[2], const S& value) {
    if constexpr (std::is_floating_point_v<S>) {
        out[0] = static_cast<double>(value);
        out[1] = 0.0;
    } else {
        out[0] = static_cast<double>(value.real());
        out[1] = static_cast<double>(value.imag());
    }
}

// A CBLAS scalar: a real one by value, a complex one by address.
template <class S>
GPUSHIM_INLINE void store_cblas_scalar(double (&out)[2], CblasScalar<S> value) {
    if constexpr (std::is_floating_point_v<S>) {
        store_scalar(out, value);
    } else {
        store_scalar(out, *static_cast<const S*>(value));
    }
}

// ASCII upper case, as LSAME compares: no locale lookup on every call.
GPUSHIM_INLINE char fortran_flag(const char* flag) {
    const char c = *flag;
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

// CBLAS enum values (cblas.h); anything else maps to '?', which no routine accepts.
enum : int { kRowMajor = 101, kColMajor = 102 };
inline char cblas_transpose(int value) {
    return value == 111 ? 'N' : value == 112 ? 'T' : value == 113 ? 'C' : '?';
}
inline char cblas_uplo(int value) {
    return value == 121 ? 'U' : value == 122 ? 'L' : '?';
}
inline char cblas_diag(int value) {
    return value == 131 ? 'N' : value == 132 ? 'U' : '?';
}
inline char cblas_side(int value) {
    return value == 141 ? 'L' : value == 142 ? 'R' : '?';
}

inline char flip_side(char side) {
    return side == 'L' ? 'R' : side == 'R' ? 'L' : side;
}
inline char flip_uplo(char uplo) {
    return uplo == 'U' ? 'L' : uplo == 'L' ? 'U' : uplo;
}

// The transposition of a rank-k/2k update seen from the other layout: N and the routine's
// own transposition (T, or C for the Hermitian ones; both for real data) trade places.
inline char flip_rank_update_trans(const Blas3Op& op) {
    const bool hermitian = op.kind == GPUSHIM_HERK || op.kind == GPUSHIM_HER2K;
    const char own = hermitian ? 'C' : 'T';
    if (op.transa == 'N') return own;
    if (op.transa == own || (!is_complex(op.precision) && op.transa == 'C')) return 'N';
    return '?';
}

// Rewrites a row-major call as the column-major call with the same effect on memory.
void fold_row_major(Blas3Op& op);

GPUSHIM_INLINE Blas3Op blank_op(gpushim_blas3_kind kind, gpushim_precision precision) {
    Blas3Op op{};
    op.kind = kind;
    op.precision = precision;
    return op;
}

// Applies the layout in place (copying the description costs small calls measurably):
// column-major stays, row-major is folded, anything else is invalid.
GPUSHIM_INLINE void apply_layout(Blas3Op& op, int layout) {
    if (layout == kRowMajor) {
        fold_row_major(op);
    } else if (layout != kColMajor) {
        op.m = op.n = op.k = -1;  // no routine accepts negative sizes: forwarded as is
    }
}

// --- Fortran ------------------------------------------------------------------------------
template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op fortran_gemm_op(gpushim_blas3_kind kind, const char* transa,
                                       const char* transb, const I* m, const I* n, const I* k,
                                       const A* alpha, const T* a, const I* lda, const T* b,
                                       const I* ldb, const B* beta, T* c, const I* ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.transa = fortran_flag(transa);
    op.transb = fortran_flag(transb);
    op.m = *m;
    op.n = *n;
    op.k = *k;
    store_scalar(op.alpha, *alpha);
    store_scalar(op.beta, *beta);
    op.a = a;
    op.lda = *lda;
    op.b = b;
    op.ldb = *ldb;
    op.c = c;
    op.ldc = *ldc;
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op fortran_symm_op(gpushim_blas3_kind kind, const char* side, const char* uplo,
                                       const I* m, const I* n, const A* alpha, const T* a,
                                       const I* lda, const T* b, const I* ldb, const B* beta, T* c,
                                       const I* ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.side = fortran_flag(side);
    op.uplo = fortran_flag(uplo);
    op.m = *m;
    op.n = *n;
    store_scalar(op.alpha, *alpha);
    store_scalar(op.beta, *beta);
    op.a = a;
    op.lda = *lda;
    op.b = b;
    op.ldb = *ldb;
    op.c = c;
    op.ldc = *ldc;
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op fortran_rank_k_op(gpushim_blas3_kind kind, const char* uplo,
                                         const char* trans, const I* n, const I* k, const A* alpha,
                                         const T* a, const I* lda, const B* beta, T* c,
                                         const I* ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.uplo = fortran_flag(uplo);
    op.transa = fortran_flag(trans);
    op.n = *n;
    op.k = *k;
    store_scalar(op.alpha, *alpha);
    store_scalar(op.beta, *beta);
    op.a = a;
    op.lda = *lda;
    op.c = c;
    op.ldc = *ldc;
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op fortran_rank_2k_op(gpushim_blas3_kind kind, const char* uplo,
                                          const char* trans, const I* n, const I* k, const A* alpha,
                                          const T* a, const I* lda, const T* b, const I* ldb,
                                          const B* beta, T* c, const I* ldc) {
    Blas3Op op = fortran_rank_k_op(kind, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
    op.b = b;
    op.ldb = *ldb;
    return op;
}

template <class T, class A, class I>
GPUSHIM_INLINE Blas3Op fortran_triangular_op(gpushim_blas3_kind kind, const char* side,
                                             const char* uplo, const char* transa, const char* diag,
                                             const I* m, const I* n, const A* alpha, const T* a,
                                             const I* lda, T* b, const I* ldb) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.side = fortran_flag(side);
    op.uplo = fortran_flag(uplo);
    op.transa = fortran_flag(transa);
    op.diag = fortran_flag(diag);
    op.m = *m;
    op.n = *n;
    store_scalar(op.alpha, *alpha);
    op.a = a;
    op.lda = *lda;
    op.b = b;
    op.ldb = *ldb;
    return op;
}

// --- CBLAS --------------------------------------------------------------------------------
template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op cblas_gemm_op(gpushim_blas3_kind kind, int layout, int transa, int transb,
                                     I m, I n, I k, CblasScalar<A> alpha, const T* a, I lda,
                                     const T* b, I ldb, CblasScalar<B> beta, T* c, I ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.transa = cblas_transpose(transa);
    op.transb = cblas_transpose(transb);
    op.m = m;
    op.n = n;
    op.k = k;
    store_cblas_scalar<A>(op.alpha, alpha);
    store_cblas_scalar<B>(op.beta, beta);
    op.a = a;
    op.lda = lda;
    op.b = b;
    op.ldb = ldb;
    op.c = c;
    op.ldc = ldc;
    apply_layout(op, layout);
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op cblas_symm_op(gpushim_blas3_kind kind, int layout, int side, int uplo, I m,
                                     I n, CblasScalar<A> alpha, const T* a, I lda, const T* b,
                                     I ldb, CblasScalar<B> beta, T* c, I ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.side = cblas_side(side);
    op.uplo = cblas_uplo(uplo);
    op.m = m;
    op.n = n;
    store_cblas_scalar<A>(op.alpha, alpha);
    store_cblas_scalar<B>(op.beta, beta);
    op.a = a;
    op.lda = lda;
    op.b = b;
    op.ldb = ldb;
    op.c = c;
    op.ldc = ldc;
    apply_layout(op, layout);
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op cblas_rank_k_op(gpushim_blas3_kind kind, int layout, int uplo, int trans,
                                       I n, I k, CblasScalar<A> alpha, const T* a, I lda,
                                       CblasScalar<B> beta, T* c, I ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.uplo = cblas_uplo(uplo);
    op.transa = cblas_transpose(trans);
    op.n = n;
    op.k = k;
    store_cblas_scalar<A>(op.alpha, alpha);
    store_cblas_scalar<B>(op.beta, beta);
    op.a = a;
    op.lda = lda;
    op.c = c;
    op.ldc = ldc;
    apply_layout(op, layout);
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op cblas_rank_2k_op(gpushim_blas3_kind kind, int layout, int uplo, int trans,
                                        I n, I k, CblasScalar<A> alpha, const T* a, I lda,
                                        const T* b, I ldb, CblasScalar<B> beta, T* c, I ldc) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.uplo = cblas_uplo(uplo);
    op.transa = cblas_transpose(trans);
    op.n = n;
    op.k = k;
    store_cblas_scalar<A>(op.alpha, alpha);
    store_cblas_scalar<B>(op.beta, beta);
    op.a = a;
    op.lda = lda;
    op.b = b;
    op.ldb = ldb;
    op.c = c;
    op.ldc = ldc;
    apply_layout(op, layout);
    return op;
}

template <class T, class A, class B, class I>
GPUSHIM_INLINE Blas3Op cblas_triangular_op(gpushim_blas3_kind kind, int layout, int side, int uplo,
                                           int transa, int diag, I m, I n, CblasScalar<A> alpha,
                                           const T* a, I lda, T* b, I ldb) {
    Blas3Op op = blank_op(kind, precision_of<T>());
    op.side = cblas_side(side);
    op.uplo = cblas_uplo(uplo);
    op.transa = cblas_transpose(transa);
    op.diag = cblas_diag(diag);
    op.m = m;
    op.n = n;
    store_cblas_scalar<A>(op.alpha, alpha);
    op.a = a;
    op.lda = lda;
    op.b = b;
    op.ldb = ldb;
    apply_layout(op, layout);
    return op;
}

}  // namespace gpushim::shim
