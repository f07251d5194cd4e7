#!/usr/bin/env python3
"""GPUSHIM_VERIFY on the LAPACK routines it checks, seen from NumPy and SciPy.

  test_verify.py --shim build/libgpushim.so [--python /usr/bin/python3]

A program calls, in double, single, complex double and complex single precision (n = 96,
three right-hand sides): solve (GESV), lu_factor (GETRF), lu_solve with trans 0, 1 and 2
(GETRS N, T, C), cho_factor lower and upper (POTRF), cho_solve (POTRS), solve with
assume_a='pos' (POSV) and 'sym' (SYSV, and SYTRS from SYCON), ldl and LAPACK's sytrf lower
and upper (SYTRF) and sytri (SYTRI, by its Fortran symbol), eigh (SYEVD/HEEVD with eigenvectors), svd full and economic (GESDD
A, S) and with lapack_driver='gesvd' (GESVD), SciPy's eigh whole and of 10 eigenpairs
(SYEVR/HEEVR), solve_triangular upper, lower transposed, upper conjugate-transposed
(TRTRS), lu of a tall and a wide matrix (GETRF m > n,
m < n) and svd of the tall one (a whole U, m > n), SciPy's inv of a diagonally dominant
matrix (GETRI), LAPACK's potri lower
and upper (POTRI) and trtri upper and unit lower (TRTRI), NumPy's eig (GEEV, with complex
pairs in the real precisions), NumPy's qr of a square, a tall and a wide matrix (GEQRF,
ORGQR), SciPy's qr_multiply left, right and right conjugate (ORMQR) and qr of a 200000 x 2 matrix
(double precisions), SciPy's generalized eigh of type 1, 2 and 3
with eigenvectors and without, and without of (B, B) for B of condition 1e8 (SYGVD/HEGVD), NumPy's lstsq (GELSD) of a tall matrix of full rank and of rank n/2 and
LAPACK's gels (GELS) of the first, and the values alone: NumPy's eigvalsh (SYEVD/HEEVD),
SciPy's eigh(eigvals_only=True), whole and of 10 values (SYEVR/HEEVR), svd(compute_uv=False) (GESDD) and eigvals
(GEEV), each
checked against a BLAS-free residual,
under LD_PRELOAD=<shim>, GPUSHIM_THRESHOLD=0, GPUSHIM_VERIFY=1:
  - the backend under test: results right; every routine above checked (verified > 0) and
    none differed, in double and complex double, and in the single precisions where the
    report has them (NumPy computes some in double)
  - hostsim changing the first element of every result (GPUSHIM_HOSTSIM_WRONG_EVERY=1):
    results right (each call recomputed on the CPU), every routine above differed, a warning
    naming the ratio that failed, and the bytes the device's attempts moved in the report
and a second program, SciPy's eigh of parts of the spectrum (n = 300, by index and by
value, with eigenvectors and without, double and complex double), whose check counts
eigenvalues by inertia with the CPU library's DSYTRF (of order 600 for the complex ones):
checked, none differed, and the products DSYTRF makes (dgemm) neither offloaded nor in the
report.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

PROGRAM = r'''
import ctypes
import numpy as np
import scipy.linalg as sl
n, nrhs = 96, 3
rng = np.random.default_rng(5)
bad = []

def mv(a, x):  # a @ x without BLAS
    return np.einsum("ij,jk->ik", a, x, optimize=False)

def sytri(factors, pivots, lower, dt):
    # LAPACK's xSYTRI (SciPy has no wrapper) through the preloaded library's Fortran symbol
    routine = getattr(ctypes.CDLL(None), {np.float32: "s", np.float64: "d", np.complex64: "c",
                                          np.complex128: "z"}[dt] + "sytri_")
    a = np.asfortranarray(factors.copy())
    ipiv = np.asfortranarray(pivots.astype(np.int32))
    work = np.zeros(2 * n, dtype=dt)
    order, info = ctypes.c_int(n), ctypes.c_int(0)
    routine(ctypes.c_char_p(b"L" if lower else b"U"), ctypes.byref(order),
            ctypes.c_void_p(a.ctypes.data), ctypes.byref(order), ctypes.c_void_p(ipiv.ctypes.data),
            ctypes.c_void_p(work.ctypes.data), ctypes.byref(info), ctypes.c_size_t(1))
    if info.value != 0:
        bad.append(f"sytri {np.dtype(dt).name}: info {info.value}")
    return a

def expect_normwise(name, a, x, b, dt, tolerance=None):
    # backward error of an eigensolver: ||A x - b|| <= c n tolerance ||A|| ||x||, the
    # tolerance eps or a least-squares solver's rcond
    err = np.linalg.norm(mv(a, x) - b)
    bound = 64 * n * (tolerance or np.finfo(dt).eps) * np.linalg.norm(a) * np.linalg.norm(x)
    if not err <= bound:
        bad.append(f"{name} {np.dtype(dt).name}: error {err:.3g}, bound {bound:.3g}")

def expect(name, a, x, b, dt):
    # backward error |A x - b| <= c n eps |A| |x|, entry by entry
    err = np.abs(mv(a, x) - b)
    bound = 64 * n * np.finfo(dt).eps * mv(np.abs(a), np.abs(x))
    if not np.all(err <= bound):
        bad.append(f"{name} {np.dtype(dt).name}: error {err.max():.3g}")

for dt in (np.float64, np.float32, np.complex128, np.complex64):
    cplx = np.iscomplexobj(np.zeros(1, dt))
    def rand(*shape):
        m = rng.standard_normal(shape)
        if cplx:
            m = m + 1j * rng.standard_normal(shape)
        return m.astype(dt)
    a = rand(n, n)
    b = rand(n, nrhs)
    s = (a @ a.conj().T + n * np.eye(n)).astype(dt)
    s2 = (mv(b, b.conj().T) + n * np.eye(n)).astype(dt)  # positive definite, for SYGVD
    expect("solve", a, np.linalg.solve(a, b), b, dt)
    lu = sl.lu_factor(a)
    for trans, op in ((0, a), (1, a.T), (2, a.conj().T)):
        expect(f"lu_solve trans={trans}", op, sl.lu_solve(lu, b, trans=trans), b, dt)
    for lower in (True, False):
        c = sl.cho_factor(s, lower=lower)
        expect(f"cho_solve lower={lower}", s, sl.cho_solve(c, b), b, dt)
    expect("solve pos", s, sl.solve(s, b, assume_a="pos"), b, dt)
    symmetric = a + a.T  # complex symmetric in c, z
    x = sl.solve(symmetric, b, assume_a="sym")  # SYSV, and SYCON's SYTRS
    expect_normwise("solve sym", symmetric, x, b, dt)
    sytrf = sl.get_lapack_funcs("sytrf", (symmetric,))
    for lower in (True, False):
        lu, d, perm = sl.ldl(symmetric, lower=lower, hermitian=False)
        expect(f"ldl lower={lower}", mv(lu, d), lu.T, symmetric, dt)
        # SYTRI's ratio bounds ||A|| by |L||D||L^T|: a matrix with small multipliers
        dominant = symmetric + n * np.eye(n, dtype=dt)
        factors, pivots, info = sytrf(dominant, lower=lower)
        half = sytri(factors, pivots, lower, dt)
        whole = np.tril(half) + np.tril(half, -1).T if lower else np.triu(half) + np.triu(half, 1).T
        expect(f"sytri lower={lower}", dominant, whole, np.eye(n, dtype=dt), dt)
    w, v = np.linalg.eigh(s)
    expect("eigh", s, v, v * w, dt)
    tolerance = 64 * n * np.finfo(dt).eps * np.linalg.norm(s)
    for name, values in (("eigvalsh", np.linalg.eigvalsh(s)),
                         ("scipy eigh eigvals_only", sl.eigh(s, eigvals_only=True)),
                         ("scipy eigh eigvals_only subset",
                          np.concatenate([sl.eigh(s, eigvals_only=True, subset_by_index=[0, 9]),
                                          w[10:]]))):
        if not np.abs(values - w).max() <= tolerance:
            bad.append(f"{name} {np.dtype(dt).name}: {np.abs(values - w).max():.3g}")
    sv = np.linalg.svd(a, compute_uv=False)
    if not np.abs(sv - np.linalg.svd(a)[1]).max() <= 64 * n * np.finfo(dt).eps * sv[0]:
        bad.append(f"svd compute_uv=False {np.dtype(dt).name}")
    values = np.linalg.eigvals(a)
    if not abs(values.sum() - np.trace(a)) <= 64 * n * np.finfo(dt).eps * np.linalg.norm(a):
        bad.append(f"eigvals {np.dtype(dt).name}: sum {values.sum():.6g}, trace {np.trace(a):.6g}")
    for subset in (None, [0, 9]):
        w, v = sl.eigh(s, subset_by_index=subset)
        expect(f"scipy eigh subset={subset}", s, v, v * w, dt)
    t = np.triu(a) + n * np.eye(n, dtype=dt)
    for lower, trans in ((False, 0), (True, 1), (False, 2)):
        tri = t.T if lower else t
        op = {0: tri, 1: tri.T, 2: tri.conj().T}[trans]
        expect(f"solve_triangular lower={lower} trans={trans}", op,
               sl.solve_triangular(tri, b, lower=lower, trans=trans), b, dt)
    for full in (True, False):
        u, sv, vt = np.linalg.svd(a, full_matrices=full)
        expect(f"svd full={full}", a, vt.conj().T, u[:, :n] * sv, dt)
    u, sv, vt = sl.svd(a, lapack_driver="gesvd")
    expect("svd gesvd", a, vt.conj().T, u * sv, dt)
    eye = np.eye(n, dtype=dt)
    # The inverses' ratio is normwise, n eps ||A|| ||X||: a well-conditioned matrix, so that
    # in single precision a changed element is beyond it.
    dominant = a + n * eye
    expect("inv", dominant, sl.inv(dominant), eye, dt)
    potri = sl.get_lapack_funcs("potri", (s,))
    for lower in (True, False):
        inverse, info = potri(sl.cho_factor(s, lower=lower)[0], lower=lower)
        half = np.tril(inverse) if lower else np.triu(inverse)
        whole = half + np.conj(half.T) - np.diag(np.diag(half).real).astype(dt)
        expect(f"potri lower={lower}", s, whole, eye, dt)
    trtri = sl.get_lapack_funcs("trtri", (t,))
    inverse, info = trtri(t, lower=0, unitdiag=0)
    expect("trtri upper", t, np.triu(inverse), eye, dt)
    unit = np.tril(a, -1) / n + eye
    stored = unit + 4 * eye  # a unit triangle's diagonal is not read
    inverse, info = trtri(stored, lower=1, unitdiag=1)
    expect("trtri unit lower", unit, np.tril(inverse, -1) + eye, eye, dt)
    w, v = np.linalg.eig(a)
    expect_normwise("eig", a, v, v * w, dt)
    for name, m in (("square", a), ("tall", rand(n + 40, n)), ("wide", rand(n, n + 40))):
        q, r = np.linalg.qr(m)
        expect(f"qr {name}", q, r, m, dt)
        gram = np.abs(mv(q.conj().T, q) - np.eye(q.shape[1])).max()
        if not gram <= 64 * n * np.finfo(dt).eps:
            bad.append(f"qr {name} {np.dtype(dt).name}: Q not orthonormal, {gram:.3g}")
    for itype in (1, 2, 3):
        lhs = s if itype == 1 else mv(s, s2) if itype == 2 else mv(s2, s)
        for lower in (True, False):
            w, v = sl.eigh(s, s2, type=itype, lower=lower)
            expect_normwise(f"generalized eigh type={itype} lower={lower}", lhs, v,
                            (mv(s2, v) if itype == 1 else v) * w, dt)
        values = sl.eigh(s, s2, type=itype, eigvals_only=True)
        if not np.abs(values - w).max() <= 64 * n * np.finfo(dt).eps * np.abs(w).max():
            bad.append(f"generalized eigvals type={itype} {np.dtype(dt).name}: "
                       f"{np.abs(values - w).max():.3g}")
    if np.finfo(dt).eps < 1e-10:
        # B of condition 1e8 and A = B: C = L^-1 A L^-H rounds on the scale of ||A|| ||L^-1||^2,
        # far beyond ||C|| = 1 (a check in units of ||C|| failed this correct result)
        q = np.linalg.qr(rand(n, n))[0]
        ill = mv(q * np.logspace(0, -8, n), q.conj().T).astype(dt)
        ill = ((ill + ill.conj().T) / 2).astype(dt)
        for lower in (True, False):
            values = sl.eigh(ill, ill, eigvals_only=True, lower=lower)
            if not np.abs(values - 1).max() <= 64 * n * np.finfo(dt).eps * 1e8:
                bad.append(f"generalized eigvals of B, B {np.dtype(dt).name}: "
                           f"{np.abs(values - 1).max():.3g}")
    tall = rand(n + 40, n)
    rhs = rand(n + 40, nrhs)
    gels, gels_lwork = sl.get_lapack_funcs(("gels", "gels_lwork"), (tall,))
    lwork = int(np.real(gels_lwork(n + 40, n, nrhs)[0]))  # less leaves the call on the CPU
    deficient = mv(tall[:, : n // 2], rand(n // 2, n))  # rank n/2: GELSD's rows n+1.. are not
    for name, m, x in (("lstsq", tall, np.linalg.lstsq(tall, rhs, rcond=None)[0]),  # the residual
                       ("lstsq rank n/2", deficient,
                        np.linalg.lstsq(deficient, rhs, rcond=None)[0]),
                       ("gels", tall, gels(tall, rhs, lwork=lwork)[1][:n])):
        # lstsq's rcond: eps max(m, n); the singular values it drops leave their part of
        # the residual
        expect_normwise(f"{name} normal equations", m.conj().T, mv(m, x) - rhs,
                        np.zeros((n, nrhs), dt), dt, (n + 40) * np.finfo(dt).eps)
    q = np.linalg.qr(a)[0]
    expect("qr_multiply left", q, b, sl.qr_multiply(a, b, mode="left")[0], dt)
    c = rand(nrhs, n)
    expect("qr_multiply right", c, q, sl.qr_multiply(a, c)[0], dt)
    expect("qr_multiply right conjugate", c, q.conj(), sl.qr_multiply(a, c, conjugate=True)[0],
           dt)
    # Tall and thin: Q's orthonormality is judged against its length m, not its width. In
    # double precision only: in single, a ratio of 100 at this m (m eps ~ 0.02) lets a change
    # of R's first entry pass.
    if np.finfo(dt).eps < 1e-10:
        thin = rand(200000, 2)
        q, r = sl.qr(thin, mode="economic")
        expect("qr thin", q, r, thin, dt)
    tall = rand(n + 40, n)
    for name, t in (("lu tall", tall), ("lu wide", tall.T.copy())):
        p, l, u = sl.lu(t)
        expect(name, p @ l, u, t, dt)
    u, sv, vt = np.linalg.svd(tall, full_matrices=True)
    expect("svd tall", tall, vt.conj().T, u[:, :n] * sv, dt)
    gram = np.abs(mv(u.conj().T, u) - np.eye(n + 40)).max()
    if not gram <= 64 * n * np.finfo(dt).eps:
        bad.append(f"svd tall {np.dtype(dt).name}: U not orthonormal, {gram:.3g}")
print("\n".join(bad))
print("RESULTS", "WRONG" if bad else "OK")
'''

RANGES = r'''
import numpy as np
import scipy.linalg as sl
rng = np.random.default_rng(7)
bad = []
for dt in (np.float64, np.complex128):
    a = rng.standard_normal((300, 300))
    if dt == np.complex128:
        a = a + 1j * rng.standard_normal((300, 300))
    s = (a + a.conj().T).astype(dt)
    whole = np.linalg.eigvalsh(s)
    for kw, expected in ((dict(subset_by_index=[10, 19]), whole[10:20]),
                         (dict(subset_by_value=[-1.0, 1.0]),
                          whole[(whole > -1.0) & (whole <= 1.0)])):
        values = sl.eigh(s, eigvals_only=True, **kw)
        pairs, vectors = sl.eigh(s, **kw)
        for got in (values, pairs):
            if got.shape != expected.shape or np.abs(got - expected).max() > 1e-10:
                bad.append(f"eigh {kw} {np.dtype(dt).name}: {got[:3]} for {expected[:3]}")
print("\n".join(bad))
print("RESULTS", "WRONG" if bad else "OK")
'''

CHECKED = ["gesv", "getrf", "getrs", "potrf", "potrs", "posv", "syevd|heevd", "gesdd", "gesvd",
           "syevr|heevr", "trtrs", "getri", "potri", "trtri", "geev", "geqrf", "orgqr|ungqr",
           "ormqr|unmqr", "sygvd|hegvd", "gelsd", "gels", "sysv", "sytrf", "sytrs", "sytri"]


def routines(prefix: str) -> list[str]:
    names = []
    for r in CHECKED:
        if "|" in r:
            r = r.split("|")[prefix in "cz"]
        names.append(prefix + r)
    return names


def run_checked(python: str, shim: str, prog: str, rdir: str, extra: dict):
    """Runs `prog` under GPUSHIM_VERIFY=1 with its report in `rdir`: the result, the report,
    and the problems found (a failed run, or results it found wrong)."""
    os.mkdir(rdir)
    env = st.make_env(shim, rdir, extra={"GPUSHIM_VERIFY": "1", **extra})
    res = st.run([python, prog], env, cwd=os.path.dirname(prog))
    mine = []
    if res.returncode != 0 or "RESULTS OK" not in res.stdout:
        mine.append(f"exit {res.returncode}, {res.stdout.strip()[-800:]!r}, "
                    f"stderr {st.tail(res.stderr, 10)!r}")
    rep = st.load_reports(rdir) if st.report_files(rdir) else {}
    st.log(st.format_report(rep))
    return res, rep, mine


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    st.require_numpy(args.python)
    problems = []
    # NumPy's linalg calls some single-precision routines in double: those in single and
    # complex single are required where the report has them.
    required = [name for p in "dz" for name in routines(p)]
    optional = [name for p in "sc" for name in routines(p)]
    modes = [("the backend under test", {}, False)]
    if st.test_backend() == "hostsim":
        modes.append(("every result wrong", {"GPUSHIM_HOSTSIM_WRONG_EVERY": "1"}, True))
    with st.tempdir("verify_") as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        for i, (name, extra, wrong) in enumerate(modes):
            res, rep, mine = run_checked(args.python, shim, prog, os.path.join(tmp, f"mode{i}"),
                                         extra)
            for routine in required + [name for name in optional if name in rep]:
                r = rep.get(routine, {})
                if r.get("verified", 0) <= 0:
                    mine.append(f"{routine}: not checked ({r})")
                elif wrong and r.get("differed", 0) <= 0:
                    mine.append(f"{routine}: no difference found on a device computing wrong")
                elif not wrong and r.get("differed", 0) > 0:
                    mine.append(f"{routine}: {r['differed']} results differed")
            if wrong and rep.get("dgesv", {}).get("bytes_h2d", 0) <= 0:
                # every dgesv recomputed on the CPU; the device's attempts moved bytes
                mine.append(f"dgesv: the failed attempts' bytes not reported: {rep.get('dgesv')}")
            if wrong and "GPUSHIM_VERIFY: dgesv n=96 nrhs=3: the device's result fails its " \
                         "check: max |b - A x|" not in res.stderr:
                mine.append(f"no warning for dgesv: {st.tail(res.stderr, 10)!r}")
            st.log(f"[{'ok' if not mine else 'FAILED'}] {name}")
            problems += [f"{name}: {m}" for m in mine]
        problems += parts_of_spectra(args.python, shim, tmp)
    return st.finish(problems, f"OK: {len(modes)} modes and parts of spectra")


def parts_of_spectra(python: str, shim: str, tmp: str) -> list[str]:
    prog = os.path.join(tmp, "ranges.py")
    with open(prog, "w") as f:
        f.write(RANGES)
    _, rep, mine = run_checked(python, shim, prog, os.path.join(tmp, "ranges"), {})
    for routine in ("dsyevr", "zheevr"):
        r = rep.get(routine, {})
        if r.get("verified", 0) < 4 or r.get("differed", 0) > 0:
            mine.append(f"{routine}: checked {r.get('verified')}, differed {r.get('differed')}")
    products = [name for name in rep if name.endswith("gemm")]
    if products:
        mine.append(f"the check's own products offloaded or recorded: {products}")
    st.log(f"[{'ok' if not mine else 'FAILED'}] parts of spectra")
    return [f"parts of spectra: {m}" for m in mine]


if __name__ == "__main__":
    sys.exit(main())
