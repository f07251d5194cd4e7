#!/usr/bin/env python3
"""NumPy matrix products under the shim, checked against a BLAS-free reference.

  numpy_products.py --shim build/libgpushim.so --python /usr/bin/python3 [--fail-every 7]
  numpy_products.py --shim build/libgpushim.so --python .venv/bin/python

The driver (this file, run by any python3, stdlib only) starts `--python numpy_products.py
--child` with LD_PRELOAD=<shim> GPUSHIM_BACKEND=$TEST_GPUSHIM_BACKEND (default hostsim)
GPUSHIM_THRESHOLD=0 and a JSON report, then asserts that the child's checks passed and
that the report shows gpu_calls > 0 for {s,d,c,z}gemm and {s,d,c,z}syrk (NumPy turns
`A @ A.T` on one buffer into ?syrk). Debian's
NumPy 1.24 calls cblas_dgemm; pip NumPy >= 2 calls scipy_cblas_dgemm64_.

The reference never touches BLAS: elementwise products broadcast to (m, k, n) and reduced
with the add ufunc, in float64 / complex128. A result passes when, elementwise,
|C - C_ref| <= 4 (k + 2) eps |A| |B|  (|A| |B| computed the same BLAS-free way).
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

GPU_EXPECTED = [f"{p}{r}" for r in ("gemm", "syrk") for p in "sdcz"]


# ----------------------------------------------------------------------------------------
# child: the checks themselves (needs NumPy)
# ----------------------------------------------------------------------------------------
def child(args) -> int:
    try:
        import numpy as np
    except ImportError:
        st.skip(f"NumPy is not importable by {sys.executable}")
    import concurrent.futures
    import threading

    st.log(f"numpy {np.__version__} from {np.__file__} ({sys.executable})")
    rng = np.random.default_rng(20240229)
    DTYPES = (np.float32, np.float64, np.complex64, np.complex128)
    failures = []
    counts = {"checks": 0}
    lock = threading.Lock()

    def wide(dt):
        return np.complex128 if np.issubdtype(dt, np.complexfloating) else np.float64

    def rand(shape, dt, r=None):
        r = r or rng
        x = r.standard_normal(shape)
        if np.issubdtype(dt, np.complexfloating):
            x = x + 1j * r.standard_normal(shape)
        return x.astype(dt)

    def ref_product(a, b):
        """a @ b without BLAS: broadcast products summed by the add ufunc (chunked)."""
        w = np.result_type(wide(a.dtype), wide(b.dtype))
        a = np.asarray(a, dtype=w)
        b = np.asarray(b, dtype=w)
        if a.ndim == 1:
            return ref_product(a[None, :], b)[..., 0, :]
        if b.ndim == 1:
            return ref_product(a, b[:, None])[..., 0]
        m, k = a.shape[-2:]
        n = b.shape[-1]
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        out = np.zeros(batch + (m, n), dtype=w)
        step = max(1, (1 << 22) // max(1, k * n * max(1, int(np.prod(batch)))))
        for i in range(0, m, step):
            blk = a[..., i:i + step, :, None] * b[..., None, :, :]
            out[..., i:i + step, :] = np.add.reduce(blk, axis=-2) if k else 0
        return out

    def record(ok, msg):
        with lock:
            counts["checks"] += 1
            if not ok:
                failures.append(msg)
                st.log(f"  MISMATCH {msg}")

    def check(name, got, a, b, k=None, ref=None, absref=None):
        a = np.asarray(a)
        b = np.asarray(b)
        if ref is None:
            ref = ref_product(a, b)
            absref = ref_product(np.abs(a), np.abs(b))
        got = np.asarray(got)
        exp_dt = np.result_type(a.dtype, b.dtype)
        if got.shape != ref.shape or got.dtype != exp_dt:
            record(False, f"{name}: got {got.shape} {got.dtype}, want {ref.shape} {exp_dt}")
            return
        if k is None:
            k = a.shape[-1] if a.ndim else 1
        eps = np.finfo(got.dtype).eps
        err = np.abs(got.astype(ref.dtype) - ref)
        bound = 4.0 * (k + 2) * eps * absref + np.finfo(got.dtype).tiny
        bad = ~(err <= bound)
        if bad.any():
            idx = np.unravel_index(np.argmax(np.where(bad, err - bound, -np.inf)), err.shape)
            record(False, f"{name} {got.dtype} {a.shape}x{b.shape}: {int(bad.sum())} bad "
                          f"elements, e.g. at {idx}: got {got[idx]}, want {ref[idx]}, "
                          f"bound {bound[idx]:.3g}")
        else:
            record(True, name)

    # ---- 1. plain products, all precisions, shapes incl. degenerate ----------------------
    SHAPES = [(0, 5, 3), (4, 0, 3), (3, 5, 0), (0, 0, 0), (1, 1, 1), (1, 37, 1),
              (1, 64, 50), (50, 64, 1), (64, 1, 50), (2, 3, 4), (37, 53, 41),
              (128, 96, 160), (200, 150, 100)]
    for dt in DTYPES:
        for (m, k, n) in SHAPES:
            a, b = rand((m, k), dt), rand((k, n), dt)
            ref, absref = ref_product(a, b), ref_product(np.abs(a), np.abs(b))
            check(f"a@b {m}x{k}x{n}", a @ b, a, b, ref=ref, absref=absref)
            check(f"np.dot {m}x{k}x{n}", np.dot(a, b), a, b, ref=ref, absref=absref)
            check(f"np.matmul {m}x{k}x{n}", np.matmul(a, b), a, b, ref=ref, absref=absref)
            # transposed operands (F-ordered views: NumPy passes Trans flags to gemm)
            at = np.ascontiguousarray(a.T).T
            bt = np.ascontiguousarray(b.T).T
            check(f"aT@b {m}x{k}x{n}", at @ b, a, b, ref=ref, absref=absref)
            check(f"a@bT {m}x{k}x{n}", a @ bt, a, b, ref=ref, absref=absref)
            check(f"aT@bT {m}x{k}x{n}", at @ bt, a, b, ref=ref, absref=absref)
            # np.inner(a, c) == a @ c.T
            c = np.ascontiguousarray(b.T)
            check(f"np.inner {m}x{k}x{n}", np.inner(a, c), a, b, ref=ref, absref=absref)

    # ---- 2. exact small-integer products (any wrong element shows exactly) ---------------
    for dt in DTYPES:
        a = rng.integers(-3, 4, size=(70, 90)).astype(dt)
        b = rng.integers(-3, 4, size=(90, 50)).astype(dt)
        if np.issubdtype(dt, np.complexfloating):
            a = a + 1j * rng.integers(-3, 4, size=a.shape)
            b = b + 1j * rng.integers(-3, 4, size=b.shape)
            a, b = a.astype(dt), b.astype(dt)
        got = a @ b
        ref = ref_product(a, b)
        record(bool(np.array_equal(got, ref.astype(dt))), f"exact integer product {dt}")

    # ---- 3. strided / sub-block / negative-stride views -----------------------------------
    for dt in DTYPES:
        m, k, n = 45, 33, 29
        big_a = rand((m + 7, k + 11), dt)
        big_b = rand((k + 5, n + 9), dt)
        views = {
            "subblock(lda>k)": (big_a[3:3 + m, 2:2 + k], big_b[1:1 + k, 4:4 + n]),
            "subblock F": (np.asfortranarray(big_a)[3:3 + m, 2:2 + k],
                           np.asfortranarray(big_b)[1:1 + k, 4:4 + n]),
        }
        big2 = rand((2 * m + 3, 3 * k + 1), dt)
        big3 = rand((2 * k + 1, 2 * n + 1), dt)
        views["stride2x3"] = (big2[1:2 * m + 1:2, 1:3 * k + 1:3], big3[:2 * k:2, 1:2 * n + 1:2])
        views["negative strides"] = (big_a[m - 1::-1, :k], big_b[:k, n - 1::-1])
        views["mixed"] = (big2[1:2 * m + 1:2, 1:3 * k + 1:3].T.T, big_b[1:1 + k, 4:4 + n])
        for nm, (a, b) in views.items():
            check(f"view {nm}", a @ b, a, b)
            check(f"view {nm} np.dot", np.dot(a, b), a, b)
        # out= into a non-contiguous view: the untouched columns must stay untouched
        a, b = views["subblock(lda>k)"]
        out_big = np.full((m, 2 * n), 7, dtype=dt)
        np.matmul(a, b, out=out_big[:, ::2])
        check("matmul out=strided", out_big[:, ::2], a, b)
        record(bool(np.all(out_big[:, 1::2] == 7)), f"matmul out= left other columns {dt}")
        out_blk = np.full((m + 4, n + 6), 5, dtype=dt)
        np.matmul(a, b, out=out_blk[2:2 + m, 3:3 + n])
        check("matmul out=subblock", out_blk[2:2 + m, 3:3 + n], a, b)
        mask = np.ones(out_blk.shape, bool)
        mask[2:2 + m, 3:3 + n] = False
        record(bool(np.all(out_blk[mask] == 5)), f"matmul out=subblock border intact {dt}")

    # ---- 4. syrk path: A @ A.T and A.T @ A on one buffer --------------------------------
    for dt in DTYPES:
        for (m, k) in [(1, 5), (60, 40), (130, 70), (17, 200)]:
            a = rand((m, k), dt)
            check(f"syrk a@a.T {m}x{k}", a @ a.T, a, a.T)
            check(f"syrk a.T@a {m}x{k}", a.T @ a, a.T, a)
            check(f"syrk np.dot(a,a.T) {m}x{k}", np.dot(a, a.T), a, a.T)
            g = a @ a.T
            record(bool(np.array_equal(g, g.T)), f"syrk result symmetric {dt} {m}x{k}")
            check(f"herm-like a@a.conj().T {m}x{k}", a @ a.conj().T, a, a.conj().T)
        # stacked syrk
        s = rand((3, 25, 40), dt)
        check("stacked s@s^T", s @ s.transpose(0, 2, 1), s, s.transpose(0, 2, 1))

    # ---- 5. stacked (3-D / broadcast) matmul ---------------------------------------------
    for dt in DTYPES:
        a, b = rand((5, 30, 20), dt), rand((5, 20, 25), dt)
        check("stacked 5x(30x20@20x25)", a @ b, a, b)
        a4, b3 = rand((3, 1, 12, 9), dt), rand((2, 9, 14), dt)
        check("broadcast 4-D@3-D", np.matmul(a4, b3), a4, b3)
        at = rand((4, 20, 30), dt).transpose(0, 2, 1)
        check("stacked transposed", at @ b[:4], at, b[:4])
        e = rand((0, 3, 4), dt)
        check("stacked empty batch", e @ rand((4, 2), dt), e, np.zeros((4, 2), dt))

    # ---- 6. vector products: inner / vdot / matvec ----------------------------------------
    for dt in DTYPES:
        x, y = rand(300, dt), rand(300, dt)
        A = rand((40, 300), dt)
        check("np.inner(x,y)", np.inner(x, y), x[None, :], y[:, None], k=300,
              ref=ref_product(x[None, :], y[:, None])[0, 0],
              absref=ref_product(np.abs(x)[None, :], np.abs(y)[:, None])[0, 0])
        cx = np.conj(x)
        check("np.vdot(x,y)", np.vdot(x, y), cx[None, :], y[:, None], k=300,
              ref=ref_product(cx[None, :], y[:, None])[0, 0],
              absref=ref_product(np.abs(x)[None, :], np.abs(y)[:, None])[0, 0])
        check("A@x", A @ x, A, x)
        check("x@A.T", x @ A.T, x, A.T)

    # ---- 7. NaN propagation --------------------------------------------------------------
    for dt in DTYPES:
        a, b = rand((20, 30), dt), rand((30, 25), dt)
        a[3, 7] = np.nan
        c = a @ b
        ok = bool(np.all(np.isnan(c[3])) and np.all(np.isfinite(np.delete(c, 3, axis=0))))
        record(ok, f"NaN in A row 3 poisons exactly row 3 of C ({dt})")

    # ---- 8. many threads doing products at once -------------------------------------------
    def work(i):
        r = np.random.default_rng(1000 + i)
        dt = DTYPES[i % 4]
        m, k, n = (int(v) for v in r.integers(1, 160, size=3))
        a, b = rand((m, k), dt, r), rand((k, n), dt, r)
        res = []
        for rep in range(3):
            if i % 3 == 0:
                res.append(("syrk", a @ a.T, a, a.T))
            else:
                res.append(("gemm", a @ b, a, b))
        for nm, got, x, y in res:
            check(f"thread {i} {nm} {m}x{k}x{n}", got, x, y)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.threads) as ex:
        for f in [ex.submit(work, i) for i in range(args.threads * 6)]:
            f.result()

    # ---- 9. a few larger products (the size that a threshold would offload) --------------
    for dt in DTYPES:
        n = 300
        a, b = rand((n, n), dt), rand((n, n), dt)
        c = a @ b
        # residual check against a matrix-vector reference: C x == A (B x)
        x = rand(n, dt)
        lhs = ref_product(c, x)
        rhs = ref_product(a, ref_product(b, x))
        scale = ref_product(np.abs(a), ref_product(np.abs(b), np.abs(x)))
        err = np.abs(lhs - rhs)
        ok = bool(np.all(err <= 8 * (n + 2) * np.finfo(dt).eps * scale))
        record(ok, f"large {n}^3 {dt} residual |Cx - A(Bx)| max {err.max():.3g}")

    # ---- 10. operands changed in place between calls ---------------------------------------
    # A device-side cache of operands (or of results) may only reuse what is provably
    # unchanged. Integer-valued matrices make every product exact, so a stale operand shows
    # as an exact mismatch; the changes keep sums (and order-insensitive hashes) equal and
    # touch one spot in the middle (a sampled fingerprint would miss it).
    def exact(name, got, a, b):
        want = ref_product(a, b)
        record(bool(np.array_equal(got, want.astype(got.dtype))), f"in-place: {name}")

    for dt in DTYPES:
        n = 260
        a = rng.integers(-4, 5, size=(n, n)).astype(dt)
        b = rng.integers(-4, 5, size=(n, n)).astype(dt)
        exact(f"{dt.__name__} first", a @ b, a, b)
        a[131, 77] += 1
        a[131, 78] -= 1                       # same sum
        exact(f"{dt.__name__} A +1/-1 in the middle", a @ b, a, b)
        a[17, 3], a[17, 4] = a[17, 4] + 0, a[17, 3] + 0    # swap: same multiset
        if a[17, 3] == a[17, 4]:
            a[17, 3] += 2
        exact(f"{dt.__name__} A two elements swapped", a @ b, a, b)
        bt = b.T                              # change B through a transposed view
        bt[n - 1, n - 1] += 3
        exact(f"{dt.__name__} B changed through a view", a @ b, a, b)
        a[-1, -1] -= 1                        # the very last element
        exact(f"{dt.__name__} A last element", a @ b, a, b)
        # results reused as operands, then changed
        c = a @ b
        d = c @ b
        exact(f"{dt.__name__} result as operand", d, c, b)
        c[n // 2, n // 2] += 1
        exact(f"{dt.__name__} changed result as operand", c @ b, c, b)
        # out= into the same buffer, operand changed between the two calls
        out = np.empty((n, n), dtype=dt)
        np.matmul(a, b, out=out)
        a[200, 100] += 1
        np.matmul(a, b, out=out)
        exact(f"{dt.__name__} out= reused", out, a, b)
        # syrk on a changed buffer
        g = a @ a.T
        a[90, 45] += 1
        exact(f"{dt.__name__} syrk after change", a @ a.T, a, a.T)
        del g

    st.log(f"{counts['checks']} checks, {len(failures)} failed")
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------
def main() -> int:
    ap = st.arg_parser(__doc__, python=sys.executable)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline", action="store_true", help="run the checks without the shim")
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--threads", type=int, default=8)
    args = ap.parse_args()
    if args.fail_every:
        st.require_fault_injection()
    if args.child:
        return child(args)

    if not os.access(args.python, os.X_OK):
        st.skip(f"python interpreter {args.python} not found (create the venv: .ci/run)")
    shim = None if args.baseline else st.find_shim(args.shim)
    with st.tempdir("numpy_products_") as tmp:
        env = st.make_env(shim, tmp, fail_every=args.fail_every)
        res = st.run([args.python, os.path.abspath(__file__), "--child",
                      "--threads", str(args.threads)], env, cwd=tmp, timeout=900)
        st.log(res.stdout.rstrip())
        st.log_stderr(res, 80)
        if res.returncode == st.SKIP:
            st.skip(f"NumPy is not importable by {args.python}")
        problems = []
        if res.returncode != 0:
            problems.append(f"child exit code {res.returncode}")
        if shim is not None:
            problems += st.check_reports(tmp, gpu=GPU_EXPECTED, faults=args.fail_every > 0)
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
