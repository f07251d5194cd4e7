#!/usr/bin/env python3
"""Factorization timings for the GPU check (bench/gpu_check.sh), and their table.

DPOTRF, DGETRF and ZPOTRF at a few sizes, the way a Python user calls them. Each column
is one process, started by gpu_check.sh with the environment that selects it:

  run --impl numpy  --label openblas   numpy.linalg.cholesky (pip NumPy >= 2 calls
                                       scipy_?potrf_64_ in its scipy-openblas64) and
                                       scipy.linalg.lu_factor (pip SciPy calls
                                       scipy_?getrf_ in its scipy-openblas32), all cores
  run --impl numpy  --label gpushim    the same under LD_PRELOAD=libgpushim.so, which
                                       exports both names (GPUSHIM_THRESHOLD=0)
  run --impl device --label cusolver   torch.linalg.cholesky_ex / lu_factor_ex on GPU
                                       tensors (else CuPy): the device-resident limit
  table FILE... [--report LABEL=PATH]  the comparison table

What a host column times: np.linalg.cholesky(A) copies A into a column-major buffer,
factors it and zeroes the upper triangle, so its time includes two passes over n^2
elements on the CPU (the same in both host columns); lu_factor runs on a Fortran-ordered
copy of A made before the timing (overwrite_a=True), so its time is the getrf call.
Before every timed call one element of A changes (a diagonal element for POTRF), so no
device-side copy of an unchanged input can be reused.

Every cell is checked (the last timed call): POTRF by |A x - L (L^H x)| and GETRF by the
backward error of a solve with its factors (lu_solve: getrs, which stays on the CPU),
both relative to |A|_inf |x|_inf, against 16 n eps; and INFO must be 0.

Timing, budget and records work as in gemm_compare.py (whose helpers this script uses):
a warm-up call per cell, then --reps timed calls (median and best), a --budget counted
from process start, a cell predicted not to fit is recorded as skipped, one JSON line
per cell appended to --out at once. Works without a GPU (hostsim, small --sizes); a
missing SciPy, torch or CuPy is recorded as an error record, not a crash.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_compare as gc  # noqa: E402  (emit, now, load, fmt_time, host_matrix, ...)

# flops of an n x n factorization: POTRF n^3/3, GETRF 2n^3/3 (complex: 4x)
OP_FLOPS = {"potrf": 1.0 / 3.0, "getrf": 2.0 / 3.0}
COMPLEX_FACTOR = {"s": 1, "d": 1, "c": 4, "z": 4}
EPS = {"s": 2.0 ** -23, "c": 2.0 ** -23, "d": 2.0 ** -52, "z": 2.0 ** -52}
CALLS = {"potrf": "np.linalg.cholesky", "getrf": "scipy.linalg.lu_factor"}


def flops(op, prec, n):
    return OP_FLOPS[op] * COMPLEX_FACTOR[prec] * float(n) ** 3


def tolerance(prec, n):
    return 16.0 * n * EPS[prec]


def parse_cells(text):
    cells = []
    for item in text.split(","):
        item = item.strip()
        if item:
            op, prec = item.split(":")
            if op not in OP_FLOPS or prec not in gc.DTYPE_NAMES:
                raise SystemExit("bad cell %r (want potrf:d, getrf:z, ...)" % item)
            cells.append((op, prec))
    return cells


# --------------------------------------------------------------------------- host (NumPy)

def host_general(np, prec, n, seed):
    """A column-major n x n matrix with entries in [-0.5, 0.5), filled at memcpy speed."""
    a = gc.host_matrix(np, prec, n, "F", seed)  # entries in [0.5, 1.5)
    a -= 1.0
    return a


def host_hermitian(np, prec, n, seed):
    """A Hermitian, diagonally dominant n x n matrix (C order): off-diagonal entries of
    modulus < 1, diagonal 2n. Mirrored tile by tile (a transposed whole-matrix copy
    costs several times more)."""
    a = gc.host_matrix(np, prec, n, "C", seed)
    a -= 1.0
    tile = 1024
    for i in range(0, n, tile):
        for j in range(0, i, tile):
            a[j:j + tile, i:i + tile] = a[i:i + tile, j:j + tile].conj().T
        d = a[i:i + tile, i:i + tile]
        d[...] = np.tril(d) + np.tril(d, -1).conj().T
    a[np.diag_indices(n)] = 2.0 * n
    return a


class NumpyFactor:
    """np.linalg.cholesky and scipy.linalg.lu_factor on host arrays."""

    name = "numpy"
    device = False

    def __init__(self, np):
        import scipy
        import scipy.linalg
        self.np, self.scipy, self.sl = np, scipy, scipy.linalg

    def info(self):
        return {"scipy": self.scipy.__version__}

    def setup(self, op, prec, n):
        self.op, self.n = op, n
        if op == "potrf":
            self.A = host_hermitian(self.np, prec, n, 11)
        else:
            self.A = host_general(self.np, prec, n, 12)
            self.W = self.np.empty_like(self.A, order="F")

    def prepare(self, i, fresh):
        """Outside the timing: change one element (fresh), refill getrf's work copy."""
        n = self.n
        if fresh and self.op == "potrf":
            self.A[i % n, i % n] += 1e-3  # stays Hermitian positive definite
        elif fresh:
            self.A[(3 * i) % n, (7 * i) % n] += 0.25
        if self.op == "getrf":
            self.np.copyto(self.W, self.A)

    def call(self):
        if self.op == "potrf":
            self.L = self.np.linalg.cholesky(self.A)
        else:
            self.lu, self.piv = self.sl.lu_factor(self.W, overwrite_a=True, check_finite=False)

    def check(self, prec):
        np, A, n = self.np, self.A, self.n
        rng = np.random.default_rng(3)
        x = rng.random(n) - 0.5
        if prec in "cz":
            x = x + 1j * (rng.random(n) - 0.5)
        x = x.astype(A.dtype)
        norm_a = float(np.abs(A).sum(axis=1).max())
        if self.op == "potrf":
            L = self.L
            y = L @ np.conj(L.T @ np.conj(x))  # L (L^H x)
            r, scale = y - A @ x, x
        else:
            b = A @ x
            xs = self.sl.lu_solve((self.lu, self.piv), b, check_finite=False)
            r, scale = A @ xs - b, xs
        return float(np.abs(r).max() / (norm_a * np.abs(scale).max())), 0

    def teardown(self):
        self.A = self.W = self.L = self.lu = self.piv = None


# --------------------------------------------------------------------------- device

class TorchFactor:
    """torch.linalg.cholesky_ex / lu_factor_ex on CUDA tensors (cuSOLVER, or MAGMA where
    PyTorch's heuristics prefer it: its choice is recorded in the info line)."""

    name = "torch"
    device = True

    def __init__(self, np):
        import torch
        self.np, self.torch = np, torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.dev = torch.device("cuda")

    def info(self):
        t = self.torch
        info = {"torch": t.__version__, "cuda": t.version.cuda,
                "device": t.cuda.get_device_name(0)}
        try:
            info["preferred_linalg_library"] = str(t.backends.cuda.preferred_linalg_library())
        except Exception:
            pass
        return info

    def sync(self):
        self.torch.cuda.synchronize()

    def random(self, prec, shape, g):
        t = self.torch
        real = t.float32 if prec in "sc" else t.float64
        if prec in "sd":
            return t.rand(*shape, dtype=real, device=self.dev, generator=g) - 0.5
        return t.view_as_complex(t.rand(*shape, 2, dtype=real, device=self.dev, generator=g) - 0.5)

    def setup(self, op, prec, n):
        t = self.torch
        self.op, self.n = op, n
        g = t.Generator(device=self.dev)
        g.manual_seed(1)
        r = self.random(prec, (n, n), g)
        if op == "potrf":
            self.A = r + r.mH
            del r
            self.A.diagonal().fill_(2.0 * n)
        else:
            self.A = r
        self.x = self.random(prec, (n,), g)
        self.sync()

    def prepare(self, i, fresh):
        pass  # device-resident; torch writes its results to new tensors

    def call(self):
        la = self.torch.linalg
        if self.op == "potrf":
            self.F, self.info_t = la.cholesky_ex(self.A)
        else:
            self.F, self.piv, self.info_t = la.lu_factor_ex(self.A)
        self.sync()

    def check(self, prec):
        t, A, x = self.torch, self.A, self.x
        norm_a = A.abs().sum(dim=1).max()
        if self.op == "potrf":
            r, scale = self.F @ (self.F.mH @ x) - A @ x, x
        else:
            b = A @ x
            xs = t.linalg.lu_solve(self.F, self.piv, b.unsqueeze(-1)).squeeze(-1)
            r, scale = A @ xs - b, xs
        rel = r.abs().max() / (norm_a * scale.abs().max())
        return float(rel), int(self.info_t)

    def teardown(self):
        self.A = self.F = self.piv = self.info_t = self.x = None
        self.torch.cuda.empty_cache()


class CupyFactor(TorchFactor):
    """cupy.linalg.cholesky / cupyx.scipy.linalg.lu_factor on device arrays (cuSOLVER)."""

    name = "cupy"

    def __init__(self, np):
        import cupy
        import cupyx.scipy.linalg
        self.np, self.cp, self.csl = np, cupy, cupyx.scipy.linalg
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device visible to CuPy")

    def info(self):
        return gc.CupyImpl.info(self)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def random(self, prec, shape, rs):
        cp = self.cp
        real = cp.float32 if prec in "sc" else cp.float64
        if prec in "sd":
            return rs.random_sample(shape, dtype=real) - 0.5
        cplx = cp.complex64 if prec == "c" else cp.complex128
        wide = shape[:-1] + (2 * shape[-1],)
        return (rs.random_sample(wide, dtype=real) - 0.5).view(cplx)

    def setup(self, op, prec, n):
        cp = self.cp
        self.op, self.n = op, n
        rs = cp.random.RandomState(1)
        r = self.random(prec, (n, n), rs)
        if op == "potrf":
            self.A = r + r.conj().T
            del r
            cp.fill_diagonal(self.A, 2.0 * n)
        else:
            self.A = cp.asfortranarray(r)
        self.x = self.random(prec, (n,), rs)
        self.sync()

    def call(self):
        if self.op == "potrf":
            self.F = self.cp.linalg.cholesky(self.A)
        else:
            self.F, self.piv = self.csl.lu_factor(self.A, check_finite=False)
        self.sync()

    def check(self, prec):
        cp, A, x = self.cp, self.A, self.x
        norm_a = cp.abs(A).sum(axis=1).max()
        if self.op == "potrf":
            r, scale = self.F @ (self.F.conj().T @ x) - A @ x, x
        else:
            b = A @ x
            xs = self.csl.lu_solve((self.F, self.piv), b, check_finite=False)
            r, scale = A @ xs - b, xs
        return float(cp.abs(r).max() / (norm_a * cp.abs(scale).max())), 0

    def teardown(self):
        self.A = self.F = self.piv = self.x = None
        self.cp.get_default_memory_pool().free_all_blocks()


IMPLS = {"numpy": NumpyFactor, "torch": TorchFactor, "cupy": CupyFactor}


def make_impl(name, np):
    names = ["torch", "cupy"] if name == "device" else [name]
    reasons = []
    for n in names:
        try:
            return IMPLS[n](np), None
        except Exception as e:  # ImportError, no device, ...
            text = str(e).splitlines()[0] if str(e) else ""
            reasons.append("%s: %s: %s" % (n, type(e).__name__, text))
    return None, "; ".join(reasons)


# --------------------------------------------------------------------------- run

def measure_cell(impl, op, prec, n, reps, warmup, fresh):
    impl.setup(op, prec, n)
    try:
        if warmup:
            impl.prepare(-1, fresh)
            impl.call()
        times = []
        for i in range(reps):
            impl.prepare(i, fresh)
            t0 = time.perf_counter()
            impl.call()
            times.append(time.perf_counter() - t0)
        err, info = impl.check(prec)
    finally:
        impl.teardown()
    times.sort()
    return times, err, info


def cmd_run(args):
    import numpy as np

    impl, why = make_impl(args.impl, np)
    if impl is None:
        gc.emit(args.out, {"kind": "error", "label": args.label, "impl": args.impl, "error": why})
        return 0
    gc.emit(args.out, {"kind": "info", "label": args.label, "impl": impl.name,
                       "info": gc.process_info(np, impl)})
    cells = parse_cells(args.cells)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    order = [(op, prec, n) for n in sizes for op, prec in cells]  # the largest go last
    measured = {}  # (op, prec) -> (n, seconds per call)
    rates = []  # measured flop/s, to predict a cell not seen yet

    def predict(op, prec, n):
        if (op, prec) in measured:
            n0, t0 = measured[(op, prec)]
            return t0 * (float(n) / n0) ** 3
        return flops(op, prec, n) / min(rates) if rates else 0.0

    for op, prec, n in order:
        record = {"kind": "factor", "label": args.label, "impl": impl.name, "op": op,
                  "prec": prec, "n": n}
        left = args.budget - gc.now()
        per_call = predict(op, prec, n)
        # Set-up and check: a few passes over the matrix on the host (device: nothing).
        setup = 0.0 if impl.device else 3 * n * n * gc.ELEMENT_BYTES[prec] / 1e9
        reps, warmup = args.reps, True
        while reps > 1 and setup + (reps + 1) * per_call > left:
            reps -= 1
        if setup + (reps + 1) * per_call > left and not impl.device and per_call > 5.0:
            warmup = False  # a multi-second CPU call needs no warm-up
        if left <= 0 or setup + (reps + int(warmup)) * per_call > left:
            record["skipped"] = "predicted %.1f s per call, %.1f s of budget left" % (
                per_call, max(left, 0.0))
            gc.emit(args.out, record)
            continue
        try:
            times, err, info = measure_cell(impl, op, prec, n, reps, warmup,
                                            fresh=not impl.device)
        except Exception as e:
            record["error"] = "%s: %s" % (type(e).__name__, e)
            gc.emit(args.out, record)
            continue
        k = len(times)
        median = times[k // 2] if k % 2 else 0.5 * (times[k // 2 - 1] + times[k // 2])
        measured[(op, prec)] = (n, median)
        rates.append(flops(op, prec, n) / median)
        ok = info == 0 and err <= tolerance(prec, n)
        record.update({"best_s": times[0], "median_s": median, "reps": k, "warmup": warmup,
                       "gflops_best": flops(op, prec, n) / times[0] / 1e9,
                       "check_rel_err": err, "check_tol": tolerance(prec, n), "info": info,
                       "check": "ok" if ok else "FAIL"})
        gc.emit(args.out, record)
    return 0


# --------------------------------------------------------------------------- table

COLUMNS = [
    ("openblas", "OpenBLAS (pip NumPy/SciPy, all cores)"),
    ("gpushim", "gpushim, host data"),
    ("cusolver", "cuSOLVER, device-resident"),
]


def cmd_table(args):
    recs = gc.load(args.files)
    lines = []
    w = lines.append
    cells, notes = {}, []
    for r in recs:
        if r.get("kind") == "factor":
            key = (r["label"], r["op"], r["prec"], r["n"])
            if "median_s" in r or key not in cells:
                cells[key] = r
        elif r.get("kind") == "error":
            notes.append("%s (%s): not measured: %s" % (r.get("label"), r.get("impl"),
                                                        r.get("error")))
    known = [c for c in COLUMNS if any(k[0] == c[0] for k in cells)]
    labels = known + [(l, l) for l in sorted(set(k[0] for k in cells))
                      if l not in dict(COLUMNS)]
    rows = sorted(set(k[1:] for k in cells),
                  key=lambda r: (gc.DTYPE_ORDER.index(r[1]), r[0] != "potrf", r[2]))
    w("Factorizations (n x n, in place): median time per call | GFLOP/s (from the median) | "
      "speed-up over OpenBLAS")
    w("")
    w("| routine | n | " + " | ".join(c[1] for c in labels) + " |")
    w("|" + "---|" * (2 + len(labels)))
    for op, prec, n in rows:
        base = cells.get(("openblas", op, prec, n), {}).get("median_s")
        out = []
        for label, _ in labels:
            r = cells.get((label, op, prec, n))
            if r is None:
                out.append("-")
            elif "median_s" in r:
                t = r["median_s"]
                cell = "%s, %.0f GF/s" % (gc.fmt_time(t), flops(op, prec, n) / t / 1e9)
                if base:
                    cell += ", %.2fx" % (base / t)
                if r.get("check") != "ok":
                    cell += ", CHECK FAIL (err %.1e, info %s)" % (
                        r.get("check_rel_err", float("nan")), r.get("info"))
                out.append(cell)
            elif "skipped" in r:
                out.append("skipped (budget)")
            else:
                out.append("error")
                notes.append("%s %s%s n=%d: %s" % (label, prec, op, n, r.get("error")))
        w("| %s%s | %d | %s |" % (prec, op, n, " | ".join(out)))
    w("")
    w("Host columns: potrf is %s (includes NumPy's copy to column-major and the zeroing of "
      "the upper triangle, on the CPU), getrf is %s on a Fortran-ordered copy "
      "(overwrite_a=True): the getrf call alone. Device column: torch.linalg.cholesky_ex / "
      "lu_factor_ex (or CuPy) on GPU tensors. Flops: potrf n^3/3, getrf 2n^3/3, complex x4. "
      "Every cell checked: residual <= 16 n eps, info = 0." % (CALLS["potrf"], CALLS["getrf"]))

    report_lines = []
    for item in args.report or []:
        label, _, path = item.partition("=")
        try:
            with open(path) as f:
                routines = json.load(f).get("routines", {})
        except (OSError, ValueError) as e:
            report_lines.append("  %s: no report (%s)" % (label, e.__class__.__name__))
            continue
        measured = sorted(set(prec + op for (l, op, prec, n), r in cells.items()
                              if l == label and "median_s" in r))
        for name in measured:
            r = routines.get(name, {})
            verdict = "" if r.get("gpu_calls", 0) > 0 else "  <-- NOT OFFLOADED"
            report_lines.append(
                "  %-9s %-7s calls %d: gpu %d, cpu %d, fallbacks %d; H2D %.2f GB, D2H %.2f GB%s"
                % (label, name, r.get("calls", 0), r.get("gpu_calls", 0), r.get("cpu_calls", 0),
                   r.get("fallbacks", 0), r.get("bytes_h2d", 0) / 1e9,
                   r.get("bytes_d2h", 0) / 1e9, verdict))
    if report_lines:
        w("")
        w("Where the shim ran the factorizations (GPUSHIM_REPORT, warm-ups included):")
        lines.extend(report_lines)
    if notes:
        w("")
        w("Not measured / errors:")
        lines.extend("  " + x for x in notes)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True

    r = sub.add_parser("run", help="time factorization cells")
    r.add_argument("--impl", required=True, choices=sorted(IMPLS) + ["device"],
                   help="device = torch if importable with a GPU, else cupy")
    r.add_argument("--label", required=True)
    r.add_argument("--cells", default="potrf:d,getrf:d,potrf:z",
                   help="routine:precision pairs, e.g. potrf:d,getrf:z")
    r.add_argument("--sizes", default="4096,8192")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--budget", type=float, default=30.0,
                   help="seconds from process start after which no cell starts")
    r.add_argument("--out", help="JSON-lines file to append to")
    r.set_defaults(fn=cmd_run)

    t = sub.add_parser("table", help="the comparison table from JSON-lines files")
    t.add_argument("files", nargs="+")
    t.add_argument("--report", action="append", metavar="LABEL=PATH",
                   help="a GPUSHIM_REPORT JSON file to summarise (repeatable)")
    t.set_defaults(fn=cmd_table)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
