## R's linear algebra, computed once without the shim (the reference) and again under it.
##
##   Rscript r_linalg.R save FILE      # the reference run: results saved to FILE
##   Rscript r_linalg.R compare FILE   # under the shim: compared with FILE, then
##                                     # "N checks, M failed" (tests/integration/shimtest.py)
##
## R calls BLAS and LAPACK through the Fortran names with hidden character lengths. What is
## compared is what LAPACK fixes: values, reconstructions, projectors onto invariant
## subspaces, residuals (vectors may differ in sign or phase), and R's error messages,
## which quote LAPACK's info (the singular pivot, the order of a leading minor).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2 || !(args[1] %in% c("save", "compare")))
  stop("usage: Rscript r_linalg.R save|compare FILE")

set.seed(20261130)
real_matrix <- function(m, n) matrix(rnorm(m * n), m, n)
complex_matrix <- function(m, n) matrix(complex(real = rnorm(m * n), imaginary = rnorm(m * n)), m, n)
positive_definite <- function(n) crossprod(real_matrix(n + 10, n)) + diag(n)
hermitian_positive_definite <- function(n) {
  X <- complex_matrix(n + 10, n)
  crossprod(Conj(X), X) + diag(n)
}
projector <- function(U) U %*% t(Conj(U))

results <- list()
## Each result: its value (or the error or warning message), and the order n that scales
## its tolerance.
record <- function(name, n, expr) {
  value <- tryCatch(expr,
                    error = function(e) structure(conditionMessage(e), class = "r_error"),
                    warning = function(w) structure(conditionMessage(w), class = "r_warning"))
  results[[name]] <<- list(value = value, n = n)
}

n <- 200
A <- real_matrix(n, n); B <- real_matrix(n, n); b <- rnorm(n); B7 <- real_matrix(n, 7)
S <- positive_definite(n); Z <- complex_matrix(n, n); Z2 <- complex_matrix(n, n)
H <- hermitian_positive_definite(n)
Tall <- real_matrix(3 * n, n / 2); y <- rnorm(3 * n)
half <- n / 2

record("gemm", n, A %*% B)
record("gemm.transposed", n, t(A) %*% B)
record("gemm.rectangular", n, Tall %*% t(Tall[1:half, ]))
record("syrk.crossprod", n, crossprod(A))
record("syrk.tcrossprod", n, tcrossprod(A))
record("gemm.crossprod", n, crossprod(A, B))
record("zgemm", n, Z %*% Z2)
record("zgemm.crossprod", n, crossprod(Z))
record("solve.vector", n, solve(A, b))
record("solve.matrix", n, solve(A, B7))
record("solve.inverse", n, solve(A))
record("zsolve", n, solve(Z, Z2[, 1:5]))
record("zsolve.inverse", n, solve(Z))
record("chol", n, chol(S))
record("chol2inv", n, chol2inv(chol(S)))
record("backsolve", n, backsolve(chol(S), B7))
record("backsolve.transposed", n, backsolve(chol(S), B7, transpose = TRUE))
record("forwardsolve", n, forwardsolve(t(chol(S)), B7))
record("qr", n, {
  q <- qr(Tall)
  list(qr.coef(q, y), qr.fitted(q, y), abs(diag(qr.R(q))), projector(qr.Q(q)))
})
record("qr.lapack", n, {
  q <- qr(Tall, LAPACK = TRUE)
  list(qr.coef(q, y), sort(abs(diag(qr.R(q)))), projector(qr.Q(q)))
})
record("zqr", n, {
  q <- qr(Z)
  list(qr.coef(q, Z2[, 1]), abs(diag(qr.R(q))), qr.Q(q) %*% qr.R(q))
})
record("svd", n, {
  s <- svd(A)
  list(s$d, s$u %*% (s$d * t(s$v)), projector(s$u[, 1:10]), projector(s$v[, 1:10]))
})
record("svd.values", n, svd(A, nu = 0, nv = 0)$d)
record("svd.tall", n, {
  s <- svd(Tall)
  list(s$d, s$u %*% (s$d * t(s$v)), projector(s$u[, 1:5]))
})
record("svd.wide", n, {
  s <- svd(t(Tall))
  list(s$d, s$u %*% (s$d * t(s$v)))
})
record("svd.complete", n, {
  s <- svd(Tall, nu = 3 * n, nv = 2)
  list(s$d, crossprod(s$u), projector(s$v))
})
record("zsvd", n, {
  s <- svd(Z)
  list(s$d, s$u %*% (s$d * t(Conj(s$v))), projector(s$u[, 1:5]))
})
record("eigen.symmetric", n, {
  e <- eigen(S, symmetric = TRUE)
  list(e$values, e$vectors %*% (e$values * t(e$vectors)), projector(e$vectors[, 1:5]))
})
record("eigen.symmetric.values", n, eigen(S, symmetric = TRUE, only.values = TRUE)$values)
record("eigen.hermitian", n, {
  e <- eigen(H, symmetric = TRUE)
  list(e$values, e$vectors %*% (e$values * t(Conj(e$vectors))))
})
record("eigen.general", n, {
  e <- eigen(A)
  list(e$values, A %*% e$vectors - e$vectors %*% diag(e$values))
})
record("eigen.general.values", n, eigen(A, only.values = TRUE)$values)
record("eigen.complex", n, {
  e <- eigen(Z)
  list(e$values, Z %*% e$vectors - e$vectors %*% diag(e$values))
})
record("det", n, det(A))
record("determinant", n, unlist(determinant(A)))
record("lm.fit", n, {
  f <- lm.fit(Tall, y)
  list(f$coefficients, f$residuals, f$rank)
})
record("prcomp", n, {
  p <- prcomp(Tall)
  list(p$sdev, projector(p$rotation[, 1:3]))
})
record("kappa", n, c(kappa(A, exact = TRUE), rcond(A), norm(A, "2")))
## A zero column: U(2, 2) = 0 exactly, whatever the LU's order of operations.
record("solve.singular", n, {
  A2 <- A
  A2[, 2] <- 0
  solve(A2, b)
})
record("chol.indefinite", n, {
  S2 <- S
  S2[half, half] <- -1
  chol(S2)
})
## R multiplies matrices holding a NaN with its own loops unless told to use the BLAS.
record("nan.gemm", 50, {
  X <- real_matrix(50, 50)
  X[3, 3] <- NaN
  options(matprod = "blas")
  product <- X %*% real_matrix(50, 50)
  options(matprod = "default")
  product
})
record("empty.crossprod", 1, crossprod(matrix(0, 5, 0)))
record("order.one.svd", 1, svd(matrix(-2))$d)

if (args[1] == "save") {
  saveRDS(results, args[2])
  cat("saved", length(results), "results\n")
  quit(status = 0)
}

## What differs between one part of a result and the reference's, or NULL: non-finite
## entries must be the same (NaN where NaN, the same infinities), finite ones within 100 eps n
## of the part's largest magnitude.
part_problem <- function(got, expected, n) {
  if (is.character(expected) || is.character(got)) {
    if (identical(got, expected)) return(NULL)
    return(sprintf("expected %s \"%s\", got %s \"%s\"", class(expected)[1], format(expected),
                   class(got)[1], format(got)))
  }
  e <- as.vector(expected)
  g <- as.vector(got)
  if (length(g) != length(e)) return("shapes differ")
  finite <- is.finite(e)
  if (any(is.finite(g) != finite) || any(is.nan(g) != is.nan(e)) ||
      !identical(g[is.infinite(e)], e[is.infinite(e)]))
    return("non-finite entries differ")
  if (!any(finite)) return(NULL)
  scale <- max(1, Mod(e[finite]))
  error <- max(Mod(g[finite] - e[finite])) / (.Machine$double.eps * n * scale)
  if (error > 100) return(sprintf("error %.3g x eps x n x scale", error))
  NULL
}

reference <- readRDS(args[2])
failed <- 0
for (name in names(reference)) {
  expected <- reference[[name]]$value
  got <- results[[name]]$value
  parts <- if (is.list(expected)) seq_along(expected) else 1
  for (k in parts) {
    problem <- if (!is.list(expected)) {
      part_problem(got, expected, reference[[name]]$n)
    } else if (!is.list(got) || length(got) != length(expected)) {
      "not the reference's list"
    } else {
      part_problem(got[[k]], expected[[k]], reference[[name]]$n)
    }
    if (!is.null(problem)) {
      failed <- failed + 1
      cat("FAIL", name, "part", k, ":", problem, "\n")
      break
    }
  }
}
cat(sprintf("%d checks, %d failed\n", length(reference), failed))
