#!/usr/bin/env python3
"""LAPACK timings for the GPU check (bench/gpu_check.sh), and their table.

The dense linear algebra a Python user calls, n x n, the way a Python user calls it:
np.linalg.solve, inv, cholesky, qr, svd, eigh, eig, lstsq, scipy.linalg.lu_factor and
scipy.linalg.solve(assume_a='sym') (the table OPS below: per operation its input, the call in each implementation, the
LAPACK routines behind the NumPy/SciPy call, its check, its flops). Each column is one
process (the gpushim column: one per report group, see below), started by gpu_check.sh
with the environment that selects it:

  run --impl numpy  --label openblas   NumPy/SciPy on host arrays, nothing preloaded:
                                       pip NumPy >= 2 calls scipy_?gesv_64_ ... of its
                                       scipy-openblas64, pip SciPy scipy_?getrf_ of its
                                       scipy-openblas32; all cores
  run --impl numpy  --label gpushim    the same under LD_PRELOAD=libgpushim.so, which
    [--split-report]                   exports those names (GPUSHIM_THRESHOLD=0)
  run --impl device --label device     the same operation on device-resident data:
                                       torch.linalg (else CuPy; eig only in torch): the
                                       compute-only limit
  table FILE... [--report LABEL=PATH]  the comparison table

Cells are op:precision pairs (solve:d, svd:s, ...), each at every --sizes n, then at
every --extra-sizes n where time is left; op:prec:n1/n2 gives a cell its own sizes.
Cells run by n, and at one n cheapest first (by a prior cost per op, CPU-like), so a
short budget loses the largest and most expensive cells, which are recorded as skipped
with their predicted time.

What a host column times: the whole NumPy/SciPy call, including NumPy's copy of its
input into a Fortran-ordered buffer and the allocation of its outputs (the same in both
host columns); lu_factor runs on a Fortran-ordered copy made before the timing
(overwrite_a=True), so it times the getrf call. Before every timed call one element of
A changes (a diagonal element for the Hermitian inputs), so no device-side copy of an
unchanged input can be reused.

Every cell is checked on its last call, by matrix-vector products only (gemv, which the
shim does not intercept, so the checks add nothing to its report): a backward error or
residual relative to |A|_inf (and |x|_inf, and the norms of the other factors where they
enter), which must be <= 16 n eps, plus the orthogonality of Q, U, V where there are
any, and INFO = 0 where the call reports one (torch's *_ex).

Where the shim ran each cell: GPUSHIM_REPORT (a JSON file, keys = lower-case routine
names) is written once, at exit, and counts per routine, not per call site. The gpushim
column therefore runs with --split-report: one child process per report group (OPS'
"group"): the operations of a group call disjoint sets of routines, so the table can
tell which routines each cell's operation ran on the GPU (the precision is in the
routine name; the sizes of a cell share one process). An operation whose LAPACK driver
the shim does not export (it looks up the symbol) runs in OpenBLAS, whose own calls to
exported routines (geev's orghr -> orgqr, ormhr -> ormqr, ...) reach the shim and show
in the report: the table says so.

Timing and records work as in gemm_compare.py (whose helpers this script uses): a small
(n = 256) warm-up call per op and precision (plugin load, library initialisation), a
warm-up call at the cell's size for short calls, then up to --reps timed calls
(fewer where they would take over --cell-seconds: median and best), a --budget counted
from process start, a cell predicted not to fit recorded as skipped, one JSON line per
cell appended to --out at once. Works without a GPU (hostsim, small --sizes); a missing SciPy,
torch or CuPy is recorded as an error record, not a crash.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_compare as gc  # noqa: E402  (emit, now, load, fmt_time, host_matrix, ...)

EPS = {"s": 2.0 ** -23, "c": 2.0 ** -23, "d": 2.0 ** -52, "z": 2.0 ** -52}
COMPLEX_FACTOR = {"s": 1, "d": 1, "c": 4, "z": 4}
# The complex twins of the real routine names (the report's keys are these names).
COMPLEX_NAMES = {"orgqr": "ungqr", "ormqr": "unmqr", "syevd": "heevd", "syev": "heev",
                 "syevr": "heevr", "sygvd": "hegvd", "orghr": "unghr", "ormhr": "unmhr"}
REAL_NAMES = {v: k for k, v in COMPLEX_NAMES.items()}
ALIASES = {"potrf": "cholesky", "getrf": "lu_factor", "lu": "lu_factor"}
SMALL_N = 256  # the size of the first warm-up call of each op and precision


def routine_name(prec, base):
    return prec + (COMPLEX_NAMES.get(base, base) if prec in "cz" else base)


def routine_base(name):
    return REAL_NAMES.get(name[1:], name[1:])


def tolerance(prec, n):
    return 16.0 * n * EPS[prec]


# --------------------------------------------------------------------------- checks
# check(o, A, v, result) -> relative error. o: the array operations of the implementation
# (ArrayOps, TorchOps); v: the right-hand side b of solve/lstsq, else a random vector x.

def _rel(o, r, scale):
    return o.amax(r) / scale if scale > 0 else float("inf")


def check_solve(o, A, b, x):
    """Normwise backward error of A x = b: |A x - b| / (|A| |x| + |b|)."""
    return _rel(o, o.mv(A, x) - b, o.norm_inf(A) * o.amax(x) + o.amax(b))


def check_inv(o, A, v, X):
    """|A (X v) - v| / (|A| |X| |v|)."""
    return _rel(o, o.mv(A, o.mv(X, v)) - v, o.norm_inf(A) * o.norm_inf(X) * o.amax(v))


def check_cholesky(o, A, x, L):
    """|A x - L (L^H x)| / (|A| |x|)."""
    return _rel(o, o.mv(L, o.hmv(L, x)) - o.mv(A, x), o.norm_inf(A) * o.amax(x))


def perm_from_ipiv(ipiv, base):
    """LAPACK's row interchanges (row i swapped with ipiv[i], in order) as a
    permutation: row i of P A is row perm[i] of A."""
    import numpy as np
    perm = np.arange(len(ipiv))
    for i, p in enumerate(ipiv.tolist()):
        p -= base
        if p != i:
            perm[i], perm[p] = perm[p], perm[i]
    return perm


def check_lu(o, A, x, res):
    """|P A x - L (U x)| / (|A| |x|), L unit lower and U upper from the packed factors."""
    lu, piv, base = res
    y = o.mv(o.triu(lu), x)
    z = o.mv(o.tril(lu, -1), y) + y
    perm = perm_from_ipiv(o.host(piv), base)
    return _rel(o, o.take(o.mv(A, x), perm) - z, o.norm_inf(A) * o.amax(x))


def _orth(o, Q, x):
    """|Q^H (Q x) - x| / |x|: how far the columns of Q are from orthonormal."""
    return _rel(o, o.hmv(Q, o.mv(Q, x)) - x, o.amax(x))


def check_qr(o, A, x, QR):
    Q, R = QR
    return max(_rel(o, o.mv(Q, o.mv(R, x)) - o.mv(A, x), o.norm_inf(A) * o.amax(x)),
               _orth(o, Q, x))


def check_svd(o, A, x, USV):
    U, s, Vh = USV
    return max(_rel(o, o.mv(U, s * o.mv(Vh, x)) - o.mv(A, x), o.norm_inf(A) * o.amax(x)),
               _orth(o, U, x), _rel(o, o.mv(Vh, o.hmv(Vh, x)) - x, o.amax(x)))


def check_eigh(o, A, x, wV):
    w, V = wV
    return max(_rel(o, o.mv(A, o.mv(V, x)) - o.mv(V, w * x), o.norm_inf(A) * o.amax(x)),
               _orth(o, V, x))


def check_eig(o, A, x, wV):
    """|A V x - V (w x)| / (|A| |V| |x|): V is not orthogonal."""
    w, V = wV
    return _rel(o, o.mv(A, o.mv(V, x)) - o.mv(V, w * x),
                o.norm_inf(A) * o.norm_inf(V) * o.amax(x))


# --------------------------------------------------------------------------- the operations

class Op:
    """One operation of the table.

    input    general (entries in [-0.5, 0.5)), spd (Hermitian, diagonal 2n), hermitian
    caller   the module whose LAPACK names the host call reaches (numpy: scipy_?xxx_64_,
             scipy: scipy_?xxx_)
    single   the host call in single precision (s, c), through SciPy: np.linalg computes
             float32 and complex64 in double (it would call dgesdd for a float32 SVD); an
             np.linalg op without one has no single-precision host cell
    lapack   the LAPACK routines behind the host call (real names)
    group    the gpushim column's report group (disjoint routine sets within a group)
    flops    nominal real flops at order n (complex: x4), for GFLOP/s in the JSON
    cost     prior cost per n^3, relative, CPU-like: the order cells run in, and the
             prediction of a cell before a rate is known
    calls    implementation -> (what is called, fn(m, A, b) -> (result, info)); b, a
             random vector, is the right-hand side of solve and lstsq (the others
             ignore it; their checks use it as x)
    """

    def __init__(self, name, input, lapack, group, flops, cost, check, calls,
                 caller="numpy", workcopy=False, single=None):
        self.name, self.input, self.lapack, self.group = name, input, lapack, group
        self.flops_n3, self.cost, self.check, self.calls = flops, cost, check, calls
        self.caller, self.workcopy, self.single = caller, workcopy, single

    def host(self, prec):
        """(what is called, fn, caller) of the host implementation, or None."""
        if prec in "sc" and self.caller == "numpy":
            return self.single + ("scipy",) if self.single else None
        return self.calls["numpy"] + (self.caller,)

    def flops(self, prec, n):
        return self.flops_n3 * COMPLEX_FACTOR[prec] * float(n) ** 3

    def prior(self, prec, n):
        return self.cost * (0.6 if prec in "sc" else 1.0) * COMPLEX_FACTOR[prec] * float(n) ** 3


def _torch_lstsq(m, A, b):
    return m.t.linalg.lstsq(A, b.unsqueeze(-1)).solution.squeeze(-1), 0


def _torch_solve_sym(m, A, b):
    LD, pivots, info = m.t.linalg.ldl_factor_ex(A)
    return m.t.linalg.ldl_solve(LD, pivots, b.unsqueeze(-1)).squeeze(-1), info


def _cupy_solve_sym(m, A, b):
    raise NotImplementedError("CuPy has no symmetric indefinite (LDL^T) solver")


def _cupy_eig(m, A, b):
    if not hasattr(m.cp.linalg, "eig"):
        raise NotImplementedError("CuPy %s has no linalg.eig" % m.cp.__version__)
    return m.cp.linalg.eig(A), 0


OPS = [
    Op("cholesky", "spd", ("potrf",), "a", 1.0 / 3, 0.75, check_cholesky, {
        "numpy": ("np.linalg.cholesky(A)", lambda m, A, b: (m.np.linalg.cholesky(A), 0)),
        "torch": ("torch.linalg.cholesky_ex(A)", lambda m, A, b: m.t.linalg.cholesky_ex(A)),
        "cupy": ("cupy.linalg.cholesky(A)", lambda m, A, b: (m.cp.linalg.cholesky(A), 0))}),
    Op("lu_factor", "general", ("getrf",), "a", 2.0 / 3, 0.67, check_lu, {
        "numpy": ("scipy.linalg.lu_factor(A, overwrite_a=True)", lambda m, A, b: (
            m.sl.lu_factor(A, overwrite_a=True, check_finite=False) + (0,), 0)),
        "torch": ("torch.linalg.lu_factor_ex(A)", lambda m, A, b: (
            lambda lu, piv, info: ((lu, piv, 1), info))(*m.t.linalg.lu_factor_ex(A))),
        "cupy": ("cupyx.scipy.linalg.lu_factor(A)", lambda m, A, b: (
            m.csl.lu_factor(A, check_finite=False) + (0,), 0))},
       caller="scipy", workcopy=True),
    Op("solve", "general", ("gesv",), "a", 2.0 / 3, 0.75, check_solve, {
        "numpy": ("np.linalg.solve(A, b)", lambda m, A, b: (m.np.linalg.solve(A, b), 0)),
        "torch": ("torch.linalg.solve_ex(A, b)", lambda m, A, b: m.t.linalg.solve_ex(A, b)),
        "cupy": ("cupy.linalg.solve(A, b)", lambda m, A, b: (m.cp.linalg.solve(A, b), 0))}),
    # Real only: a Hermitian input is no complex symmetric one. SciPy 1.17 calls SYTRF and
    # SYTRS (1.10: SYSV, then not measured as offloaded).
    Op("solve_sym", "hermitian", ("sytrf", "sytrs"), "a", 1.0 / 3, 1.0, check_solve, {
        "numpy": ("scipy.linalg.solve(A, b, assume_a='sym')", lambda m, A, b: (
            m.sl.solve(A, b, assume_a="sym", check_finite=False), 0)),
        "torch": ("torch.linalg.ldl_factor_ex + ldl_solve", _torch_solve_sym),
        "cupy": ("-", _cupy_solve_sym)},
       caller="scipy"),
    Op("inv", "general", ("gesv",), "b", 2.0, 2.2, check_inv, {
        "numpy": ("np.linalg.inv(A)", lambda m, A, b: (m.np.linalg.inv(A), 0)),
        "torch": ("torch.linalg.inv_ex(A)", lambda m, A, b: m.t.linalg.inv_ex(A)),
        "cupy": ("cupy.linalg.inv(A)", lambda m, A, b: (m.cp.linalg.inv(A), 0))}),
    Op("qr", "general", ("geqrf", "orgqr"), "a", 8.0 / 3, 5.0, check_qr, {
        "numpy": ("np.linalg.qr(A)", lambda m, A, b: (tuple(m.np.linalg.qr(A)), 0)),
        "torch": ("torch.linalg.qr(A)", lambda m, A, b: (tuple(m.t.linalg.qr(A)), 0)),
        "cupy": ("cupy.linalg.qr(A)", lambda m, A, b: (tuple(m.cp.linalg.qr(A)), 0))}),
    Op("eigh", "hermitian", ("syevd",), "a", 9.0, 22.0, check_eigh, {
        "numpy": ("np.linalg.eigh(A)", lambda m, A, b: (tuple(m.np.linalg.eigh(A)), 0)),
        "torch": ("torch.linalg.eigh(A)", lambda m, A, b: (tuple(m.t.linalg.eigh(A)), 0)),
        "cupy": ("cupy.linalg.eigh(A)", lambda m, A, b: (tuple(m.cp.linalg.eigh(A)), 0))},
       single=("scipy.linalg.eigh(A, driver='evd')", lambda m, A, b: (
           tuple(m.sl.eigh(A, driver="evd", check_finite=False)), 0))),
    Op("eigh_evr", "hermitian", ("syevr",), "d", 9.0, 20.0, check_eigh, {
        "numpy": ("scipy.linalg.eigh(A) (driver evr)", lambda m, A, b: (
            tuple(m.sl.eigh(A, check_finite=False)), 0)),
        "torch": ("torch.linalg.eigh(A)", lambda m, A, b: (tuple(m.t.linalg.eigh(A)), 0)),
        "cupy": ("cupy.linalg.eigh(A)", lambda m, A, b: (tuple(m.cp.linalg.eigh(A)), 0))},
       caller="scipy"),
    Op("lstsq", "general", ("gelsd",), "b", 12.0, 28.0, check_solve, {
        "numpy": ("np.linalg.lstsq(A, b)", lambda m, A, b: (
            m.np.linalg.lstsq(A, b, rcond=None)[0], 0)),
        "torch": ("torch.linalg.lstsq(A, b) (gels: QR)", _torch_lstsq),
        "cupy": ("cupy.linalg.lstsq(A, b) (SVD)", lambda m, A, b: (
            m.cp.linalg.lstsq(A, b, rcond=None)[0], 0))}),
    Op("svd", "general", ("gesdd",), "a", 21.0, 63.0, check_svd, {
        "numpy": ("np.linalg.svd(A)", lambda m, A, b: (tuple(m.np.linalg.svd(A)), 0)),
        "torch": ("torch.linalg.svd(A)", lambda m, A, b: (tuple(m.t.linalg.svd(A)), 0)),
        "cupy": ("cupy.linalg.svd(A)", lambda m, A, b: (tuple(m.cp.linalg.svd(A)), 0))},
       single=("scipy.linalg.svd(A)", lambda m, A, b: (
           tuple(m.sl.svd(A, check_finite=False)), 0))),
    Op("eig", "general", ("geev",), "c", 25.0, 170.0, check_eig, {
        "numpy": ("np.linalg.eig(A)", lambda m, A, b: (tuple(m.np.linalg.eig(A)), 0)),
        "torch": ("torch.linalg.eig(A)", lambda m, A, b: (tuple(m.t.linalg.eig(A)), 0)),
        "cupy": ("cupy.linalg.eig(A)", _cupy_eig)}),
]
OP = {o.name: o for o in OPS}
OP_ORDER = [o.name for o in OPS]


def parse_cells(text):
    """'solve:d,eig:d:2048/4096' -> [(op, prec, [n...] or None)]."""
    cells = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split(":")
        if len(parts) not in (2, 3):
            raise SystemExit("bad cell %r (want solve:d, svd:s, eig:d:2048/4096, ...)" % item)
        op, prec = ALIASES.get(parts[0], parts[0]), parts[1]
        if op not in OP or prec not in gc.DTYPE_NAMES:
            raise SystemExit("bad cell %r: ops %s, precisions s d c z" % (item, " ".join(OP_ORDER)))
        own = [int(s) for s in parts[2].split("/") if s] if len(parts) == 3 else None
        cells.append((op, prec, own))
    return cells


def plan(cells, sizes, extra):
    """The cells in the order they run: smallest n first, at one n cheapest first (so a
    short budget loses the largest and most expensive cells); then the extra sizes,
    cheapest first."""
    first, later = [], []
    for op, prec, own in cells:
        for n in own or sizes:
            first.append((op, prec, n))
        for n in ([] if own else extra):
            later.append((op, prec, n))
    cost = lambda c: (OP[c[0]].prior(c[1], c[2]), c[2], OP_ORDER.index(c[0]))  # noqa: E731
    seen, order = set(), []
    for c in sorted(first, key=lambda c: (c[2],) + cost(c)) + sorted(later, key=cost):
        if c not in seen:
            seen.add(c)
            order.append(c)
    return order


# --------------------------------------------------------------------------- array operations

class ArrayOps:
    """What the checks need, on NumPy or CuPy arrays (one API)."""

    def __init__(self, m):
        self.m = m

    def mv(self, M, v):
        m = self.m
        if not m.iscomplexobj(M) and m.iscomplexobj(v):  # no complex copy of a real M
            return M @ v.real + 1j * (M @ v.imag)
        return M @ v

    def hmv(self, M, v):
        return self.m.conj(self.mv(M.T, self.m.conj(v)))

    def amax(self, v):
        return float(self.m.abs(v).max())

    def norm_inf(self, M):
        return float(self.m.abs(M).sum(axis=1).max())

    def tril(self, M, k=0):
        return self.m.tril(M, k)

    def triu(self, M):
        return self.m.triu(M)

    def host(self, v):
        return v.get() if hasattr(v, "get") else v

    def take(self, v, perm):
        return v[self.m.asarray(perm)]


class TorchOps:
    def __init__(self, t):
        self.t = t

    def mv(self, M, v):
        if not M.is_complex() and v.is_complex():
            return self.t.complex(M @ v.real.contiguous(), M @ v.imag.contiguous())
        if M.is_complex() and not v.is_complex():
            v = v.to(M.dtype)
        return M @ v

    def hmv(self, M, v):
        return self.mv(M.mH, v)

    def amax(self, v):
        return float(v.abs().max())

    def norm_inf(self, M):
        return float(M.abs().sum(dim=1).max())

    def tril(self, M, k=0):
        return self.t.tril(M, k)

    def triu(self, M):
        return self.t.triu(M)

    def host(self, v):
        return v.cpu().numpy()

    def take(self, v, perm):
        return v[self.t.as_tensor(perm, device=v.device)]


# --------------------------------------------------------------------------- host (NumPy)

def host_general(np, prec, n, seed):
    """A column-major n x n matrix with entries in [-0.5, 0.5), filled at memcpy speed."""
    a = gc.host_matrix(np, prec, n, "F", seed)  # entries in [0.5, 1.5)
    a -= 1.0
    return a


def host_hermitian(np, prec, n, seed, diagonal=None):
    """A Hermitian n x n matrix (C order): off-diagonal entries of modulus < 1, the
    diagonal `diagonal` (2n: positive definite) or random and real. Mirrored tile by tile
    (a transposed whole-matrix copy costs several times more)."""
    a = gc.host_matrix(np, prec, n, "C", seed)
    a -= 1.0
    tile = 1024
    for i in range(0, n, tile):
        for j in range(0, i, tile):
            a[j:j + tile, i:i + tile] = a[i:i + tile, j:j + tile].conj().T
        d = a[i:i + tile, i:i + tile]
        d[...] = np.tril(d) + np.tril(d, -1).conj().T
    idx = np.diag_indices(n)
    a[idx] = 2.0 * n if diagonal is not None else a[idx].real
    return a


class NumpyImpl:
    """NumPy / SciPy on host arrays (OpenBLAS, or the shim under LD_PRELOAD)."""

    name = "numpy"
    device = False

    def __init__(self, np):
        self.np = np
        self.ops = ArrayOps(np)
        self.offload = "gpushim" in os.environ.get("LD_PRELOAD", "")
        try:
            import scipy
            import scipy.linalg
            self.scipy, self.sl = scipy, scipy.linalg
        except ImportError as e:
            self.scipy = self.sl = None
            self.scipy_error = "%s: %s" % (type(e).__name__, e)

    def info(self):
        return {"scipy": self.scipy.__version__ if self.scipy else None}

    def call_of(self, op, prec):
        h = op.host(prec)
        if h is None:
            raise NotImplementedError("np.linalg computes %s in double: no %s host call for %s"
                                      % (gc.DTYPE_NAMES[prec], gc.DTYPE_NAMES[prec], op.name))
        if h[2] == "scipy" and self.sl is None:
            raise NotImplementedError("SciPy not importable (%s)" % self.scipy_error)
        return h[:2]

    def sync(self):
        pass

    def inputs(self, op, prec, n):
        np = self.np
        if op.input == "general":
            A = host_general(np, prec, n, 12)
        else:
            A = host_hermitian(np, prec, n, 11, 2.0 * n if op.input == "spd" else None)
        rng = np.random.default_rng(3)
        v = rng.random(n) - 0.5
        if prec in "cz":
            v = v + 1j * (rng.random(n) - 0.5)
        self.W = np.empty_like(A, order="F") if op.workcopy else None
        return A, v.astype(A.dtype)

    def prepare(self, op, A, i, fresh):
        """Outside the timing: change one element (fresh), refill the work copy. Returns
        the array the call gets."""
        n = A.shape[0]
        if fresh and op.input == "general":
            A[(3 * i) % n, (7 * i) % n] += 0.25
        elif fresh:
            A[i % n, i % n] += 1e-3  # stays Hermitian (positive definite)
        if op.workcopy:
            self.np.copyto(self.W, A)
            return self.W
        return A

    def cleanup(self):
        self.W = None


# --------------------------------------------------------------------------- device

class TorchImpl:
    """torch.linalg on CUDA tensors (cuSOLVER, or MAGMA where PyTorch's heuristics prefer
    it: its choice is recorded in the info line)."""

    name = "torch"
    device = True
    offload = False

    def __init__(self, np):
        import torch
        self.np, self.t = np, torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        torch.backends.cuda.matmul.allow_tf32 = False  # the checks' products in full precision
        self.dev = torch.device("cuda")
        self.ops = TorchOps(torch)

    def info(self):
        t = self.t
        info = {"torch": t.__version__, "cuda": t.version.cuda,
                "device": t.cuda.get_device_name(0)}
        try:
            info["preferred_linalg_library"] = str(t.backends.cuda.preferred_linalg_library())
        except Exception:
            pass
        return info

    def call_of(self, op, prec):
        return op.calls[self.name]

    def sync(self):
        self.t.cuda.synchronize()

    def random(self, prec, shape, g):
        t = self.t
        real = t.float32 if prec in "sc" else t.float64
        if prec in "sd":
            return t.rand(*shape, dtype=real, device=self.dev, generator=g) - 0.5
        return t.view_as_complex(t.rand(*shape, 2, dtype=real, device=self.dev, generator=g) - 0.5)

    def inputs(self, op, prec, n):
        g = self.t.Generator(device=self.dev)
        g.manual_seed(1)
        A = self.random(prec, (n, n), g)
        if op.input != "general":
            A = A + A.mH
            if op.input == "spd":
                A.diagonal().fill_(2.0 * n)
        v = self.random(prec, (n,), g)
        self.sync()
        return A, v

    def prepare(self, op, A, i, fresh):
        return A  # device-resident; the library writes its results to new tensors

    def cleanup(self):
        self.t.cuda.empty_cache()


class CupyImpl(TorchImpl):
    """cupy.linalg / cupyx.scipy.linalg on device arrays (cuSOLVER)."""

    name = "cupy"

    def __init__(self, np):
        import cupy
        import cupyx.scipy.linalg
        self.np, self.cp, self.csl = np, cupy, cupyx.scipy.linalg
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device visible to CuPy")
        self.ops = ArrayOps(cupy)

    def info(self):
        return gc.CupyImpl.info(self)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def inputs(self, op, prec, n):
        cp = self.cp
        rs = cp.random.RandomState(1)
        real = cp.float32 if prec in "sc" else cp.float64

        def random(shape):
            if prec in "sd":
                return rs.random_sample(shape, dtype=real) - 0.5
            cplx = cp.complex64 if prec == "c" else cp.complex128
            wide = shape[:-1] + (2 * shape[-1],)
            return (rs.random_sample(wide, dtype=real) - 0.5).view(cplx)

        A = random((n, n))
        if op.input != "general":
            A = A + A.conj().T
            if op.input == "spd":
                cp.fill_diagonal(A, 2.0 * n)
        v = random((n,))
        self.sync()
        return A, v

    def cleanup(self):
        self.cp.get_default_memory_pool().free_all_blocks()


IMPLS = {"numpy": NumpyImpl, "torch": TorchImpl, "cupy": CupyImpl}


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


def shim_exports(cells):
    """{routine: exported?} for the LAPACK routines behind the cells' host calls, under
    the names NumPy (scipy_?xxx_64_) or SciPy (scipy_?xxx_) call, from the preloaded shim."""
    path = next((p for p in os.environ.get("LD_PRELOAD", "").replace(":", " ").split()
                 if "gpushim" in os.path.basename(p)), None)
    if path is None:
        return {}
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return {}
    out = {}
    for op, prec in sorted(set((c[0], c[1]) for c in cells)):
        host = OP[op].host(prec)
        for base in OP[op].lapack if host else ():
            name = routine_name(prec, base)
            symbol = "scipy_%s_64_" % name if host[2] == "numpy" else "scipy_%s_" % name
            out[name] = hasattr(lib, symbol)
    return out


# --------------------------------------------------------------------------- run

def run_cell(impl, op, prec, n, reps, warmup, deadline, cell_seconds):
    """Warm-up (optional), then up to `reps` timed calls: fewer when the calls take longer
    than predicted (cell_seconds, the deadline). Returns (times, rel_err, info)."""
    m, fn = impl, impl.call_of(op, prec)[1]
    A, v = impl.inputs(op, prec, n)
    try:
        fresh = not impl.device
        t_cell = time.perf_counter()
        if warmup:
            res, info = fn(m, impl.prepare(op, A, -1, fresh), v)
            impl.sync()
            res = info = None
        times = []
        for i in range(reps):
            res = None  # freeing the last call's outputs is no part of the next call
            arg = impl.prepare(op, A, i, fresh)
            t0 = time.perf_counter()
            res, info = fn(m, arg, v)
            impl.sync()
            t1 = time.perf_counter()
            times.append(t1 - t0)
            spent = t1 - t_cell
            if t1 + (t1 - t0) > deadline or spent + (t1 - t0) > cell_seconds:
                break
        err = op.check(impl.ops, A, v, res)
        info = int(info)
    finally:
        A = v = res = None
        impl.cleanup()
    times.sort()
    return times, err, info


def small_warmup(impl, op, prec):
    fn = impl.call_of(op, prec)[1]
    A, v = impl.inputs(op, prec, SMALL_N)
    try:
        fn(impl, impl.prepare(op, A, 0, False), v)
        impl.sync()
    finally:
        impl.cleanup()


def load_prior(path, label):
    """{(op, prec, n): seconds per call} of `label` (the OpenBLAS column): measured, else
    as predicted where it skipped the cell."""
    measured, predicted = {}, {}
    for r in gc.load([path] if path else []):
        if r.get("kind") == "factor" and r.get("label") == label:
            key = (ALIASES.get(r["op"], r["op"]), r["prec"], r["n"])
            if "median_s" in r:
                measured[key] = r["median_s"]
            elif r.get("predicted_s"):
                predicted[key] = r["predicted_s"]
    predicted.update(measured)
    return predicted


def cmd_run(args):
    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    extra = sorted(int(s) for s in (args.extra_sizes or "").split(",") if s)
    cells = parse_cells(args.cells)
    if args.split_report and os.environ.get("GPUSHIM_REPORT") and args.group is None:
        return run_groups(args, cells, sizes, extra)
    if args.group is not None:
        cells = [c for c in cells if OP[c[0]].group == args.group]

    import numpy as np
    impl, why = make_impl(args.impl, np)
    if impl is None:
        gc.emit(args.out, {"kind": "error", "label": args.label, "impl": args.impl, "error": why})
        return 0
    info = gc.process_info(np, impl)
    exports = shim_exports(cells) if impl.offload else {}
    calls = {}
    for op, prec, own in cells:
        try:
            calls["%s:%s" % (op, prec)] = impl.call_of(OP[op], prec)[0]
        except NotImplementedError:
            pass
    record = {"kind": "info", "label": args.label, "impl": impl.name, "info": info,
              "calls": calls}
    if impl.offload:
        record.update({"report": os.environ.get("GPUSHIM_REPORT"), "exports": exports,
                       "group": args.group or "all",
                       "ops": sorted(set(c[0] for c in cells))})
    gc.emit(args.out, record)

    prior = load_prior(args.prior_file or args.out, args.prior_label) if args.prior_label else {}
    measured = {}  # (op, prec) -> (n, seconds per call)
    rates = []  # prior cost per second, to predict an op not measured yet
    warmed = set()

    def predict(op, prec, n):
        """Seconds per call: from the same op at another size (n^3, a little more: CPU
        reductions to tridiagonal/bidiagonal form slow down once A leaves the caches),
        else from the op's prior cost at the median rate seen so far, with a margin."""
        if (op, prec) in measured:
            n0, t0 = measured[(op, prec)]
            return 1.15 * t0 * (float(n) / n0) ** 3
        # An op whose LAPACK driver the shim does not export runs in OpenBLAS: as fast as
        # the OpenBLAS column measured it (plus the offloaded calls it makes).
        cpu = [(k[2], t) for k, t in prior.items() if k[:2] == (op, prec)]
        if cpu and any(not exports.get(routine_name(prec, b), True) for b in OP[op].lapack):
            n0, t0 = min(cpu, key=lambda x: abs(x[0] - n))
            return 1.2 * t0 * (float(n) / n0) ** 3
        return 1.25 * OP[op].prior(prec, n) / sorted(rates)[len(rates) // 2] if rates else 0.0

    deadline = gc.START + args.budget
    for op, prec, n in plan(cells, sizes, extra):
        o = OP[op]
        record = {"kind": "factor", "label": args.label, "impl": impl.name, "op": op,
                  "prec": prec, "n": n}
        if args.group:
            record["group"] = args.group
        try:
            impl.call_of(o, prec)
        except NotImplementedError as e:
            record["error"] = "n/a: %s" % e
            gc.emit(args.out, record)
            continue
        left = args.budget - gc.now()
        per_call = predict(op, prec, n)
        # Set-up and check: a few passes over the matrix on the host (device: nothing);
        # the first warm-up of an op may load and initialise a library.
        setup = 0.0 if impl.device else 3 * n * n * gc.ELEMENT_BYTES[prec] / 1e9
        if (op, prec) not in warmed:
            setup += 0.5 if impl.device or impl.offload else 0.05
        reps = args.reps
        if per_call > 0:
            reps = max(1, min(reps, int(args.cell_seconds / per_call)))
        # A warm-up at the cell's size (memory pools, workspaces, staging grow) for short
        # calls, where that growth would show; the n = 256 warm-up has loaded and
        # initialised the libraries already.
        warmup = per_call < (0.5 if impl.device or impl.offload else 0.25)
        while reps > 1 and setup + (reps + int(warmup)) * per_call > left:
            reps -= 1
        if warmup and setup + (reps + 1) * per_call > left:
            warmup = False
        if left <= 0 or setup + reps * per_call > left:
            record["skipped"] = "predicted %.1f s per call, %.1f s of budget left" % (
                per_call, max(left, 0.0))
            record["predicted_s"] = per_call
            gc.emit(args.out, record)
            continue
        # A cell the step's timeout ends shows as such in the table.
        gc.emit(args.out, dict(record, kind="start", predicted_s=per_call, reps=reps))
        try:
            if (op, prec) not in warmed:
                small_warmup(impl, o, prec)
                warmed.add((op, prec))
            times, err, info = run_cell(impl, o, prec, n, reps, warmup, deadline,
                                        args.cell_seconds)
        except Exception as e:
            text = str(e).splitlines()[0] if str(e) else ""
            record["error"] = "%s: %s" % (type(e).__name__, text)
            gc.emit(args.out, record)
            continue
        k = len(times)
        median = times[k // 2] if k % 2 else 0.5 * (times[k // 2 - 1] + times[k // 2])
        measured[(op, prec)] = (n, median)
        rates.append(o.prior(prec, n) / median)
        ok = info == 0 and err <= tolerance(prec, n)
        record.update({"best_s": times[0], "median_s": median, "reps": k, "warmup": warmup,
                       "predicted_s": per_call,
                       "gflops_best": o.flops(prec, n) / times[0] / 1e9,
                       "check_rel_err": err, "check_tol": tolerance(prec, n), "info": info,
                       "check": "ok" if ok else "FAIL"})
        gc.emit(args.out, record)
    return 0


def run_groups(args, cells, sizes, extra):
    """The gpushim column as one child process per report group (GPUSHIM_REPORT is
    written per process): each group's operations call disjoint routines. The groups run
    smallest first (by the prior cost of their cells), each but the last with at most
    half of the time left; the last, largest one gets the rest and loses its most
    expensive cells first."""
    base, ext = os.path.splitext(os.environ["GPUSHIM_REPORT"])
    mine = {}
    for c in cells:
        mine.setdefault(OP[c[0]].group, []).append(c)
    cost = {g: sum(OP[op].prior(prec, n) for op, prec, n in plan(cs, sizes, []))
            for g, cs in mine.items()}
    groups = sorted(mine, key=lambda g: (cost[g], g))
    deadline = gc.START + args.budget
    for i, g in enumerate(groups):
        left = deadline - time.perf_counter()
        later = len(groups) - i - 1
        budget = left if not later else min(left - 3.0 * later, 0.5 * left)
        if budget < 3:
            for op, prec, n in plan(mine[g], sizes, extra):
                gc.emit(args.out, {"kind": "factor", "label": args.label, "impl": args.impl,
                                   "op": op, "prec": prec, "n": n, "group": g,
                                   "skipped": "no time left for its process"})
            continue
        argv = [sys.executable, os.path.abspath(__file__), "run", "--impl", args.impl,
                "--label", args.label, "--cells", args.cells, "--sizes", args.sizes,
                "--extra-sizes", args.extra_sizes or "", "--reps", str(args.reps),
                "--cell-seconds", str(args.cell_seconds), "--budget", "%.1f" % budget,
                "--group", g]
        for opt, val in (("--out", args.out), ("--prior-label", args.prior_label),
                         ("--prior-file", args.prior_file)):
            if val:
                argv += [opt, val]
        env = dict(os.environ, GPUSHIM_REPORT="%s.%s%s" % (base, g, ext))
        print("group %s: %.1f s of the %.1f s left" % (g, budget, left), flush=True)
        try:
            rc = subprocess.run(argv, env=env, timeout=max(left - 1.0, 1.0)).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        if rc != 0:
            gc.emit(args.out, {"kind": "error", "label": args.label, "impl": args.impl,
                               "error": "report group %s: process ended with %s" % (g, rc)})
    return 0


# --------------------------------------------------------------------------- table

COLUMNS = [
    ("openblas", "OpenBLAS (pip NumPy/SciPy, all cores)"),
    ("gpushim", "gpushim, host data"),
    ("device", "device-resident"),
]
LABEL_ALIASES = {"cusolver": "device"}


def fmt_cell(r):
    if r is None:
        return "-"
    if "median_s" in r:
        if r.get("reps", 1) > 1:
            text = "%s / %s" % (gc.fmt_time(r["median_s"]), gc.fmt_time(r["best_s"]))
        else:
            text = "%s (1 call)" % gc.fmt_time(r["median_s"])
        if r.get("check") != "ok":
            text += ", CHECK FAIL (err %.1e > %.1e or info %s)" % (
                r.get("check_rel_err", float("nan")), r.get("check_tol", float("nan")),
                r.get("info"))
        return text
    if "skipped" in r:
        p = r.get("predicted_s")
        return "skipped (predicted %s)" % gc.fmt_time(p) if p else "skipped (budget)"
    if r.get("kind") == "start":
        return "killed at the step's time limit"
    e = r.get("error", "")
    return "n/a" if e.startswith(("n/a", "NotImplementedError")) else "error"


def speedup(num, den):
    a, b = (num or {}).get("median_s"), (den or {}).get("median_s")
    return "%.2fx" % (a / b) if a and b else "-"


def load_reports(infos, extra):
    """[(label, group, ops or None, routines or error)] from the info records of the
    offloading processes and --report LABEL=PATH."""
    out = []
    sources = sorted((r["label"], r.get("group", "all"), r.get("ops"), r.get("report"))
                     for r in infos if r.get("report"))
    for item in extra or []:
        label, _, path = item.partition("=")
        if not any(s[3] == path for s in sources):
            sources.append((label, "all", None, path))
    for label, group, ops, path in sources:
        try:
            with open(path) as f:
                out.append((label, group, ops, json.load(f).get("routines", {}), path))
        except (OSError, ValueError) as e:
            why = "no report %s (%s)" % (path, e.__class__.__name__)
            out.append((label, group, ops, why, path))
    return out


def attribute(routines, ops, exports, measured):
    """{(op, prec): [routine names]} and [unattributed names]: a routine belongs to the
    op of its process whose host call is built on it, else to the op whose LAPACK driver
    the shim does not export (OpenBLAS's driver called it)."""
    got, loose = {}, []
    for name in sorted(routines):
        prec, base = name[0], routine_base(name)
        mine = [o for o in ops if (o, prec) in measured]
        cand = [o for o in mine if base in OP[o].lapack]
        if not cand:
            cand = [o for o in mine
                    if any(not exports.get(routine_name(prec, b), True) for b in OP[o].lapack)]
        if len(cand) == 1:
            got.setdefault((cand[0], prec), []).append(name)
        else:
            loose.append(name)
    return got, loose


def cmd_table(args):
    recs = gc.load(args.files)
    lines = []
    w = lines.append
    cells, notes, infos, errors = {}, [], [], {}
    for r in recs:
        label = LABEL_ALIASES.get(r.get("label"), r.get("label"))
        if r.get("kind") in ("factor", "start"):
            key = (label, ALIASES.get(r["op"], r["op"]), r["prec"], r["n"])
            if r["kind"] == "factor" or key not in cells:
                cells[key] = r
        elif r.get("kind") == "error":
            errors[label] = r.get("error")
            notes.append("%s (%s): not measured: %s" % (label, r.get("impl"), r.get("error")))
        elif r.get("kind") == "info":
            r = dict(r, label=label)
            infos.append(r)
    impl_of = {r["label"]: r.get("impl") for r in infos}
    labels = [c for c in COLUMNS if any(k[0] == c[0] for k in cells) or c[0] in errors]
    labels += [(l, l) for l in sorted(set(k[0] for k in cells)) if l not in dict(COLUMNS)]
    title = dict(labels)
    if "device" in title:
        title["device"] = "%s, device-resident" % (impl_of.get("device") or "torch/CuPy")

    # Where the shim ran each cell.
    exports = {}
    for r in infos:
        exports.update(r.get("exports") or {})
    gpu_of, report_lines = {}, []
    for label, group, ops, routines, path in load_reports(infos, args.report):
        if isinstance(routines, str):
            report_lines.append("  %-8s [%s] %s" % (label, group, routines))
            continue
        measured = set((k[1], k[2]) for k in cells if k[0] == label and "median_s" in cells[k])
        ops = ops or sorted(set(k[0] for k in measured))
        got, loose = attribute(routines, ops, exports, measured)
        for (op, prec), names in got.items():
            gpu_of[(label, op, prec)] = [(n, routines[n]) for n in names]
        for name in sorted(routines):
            r = routines[name]
            owner = [o for (o, p), ns in got.items() if name in ns]
            report_lines.append(
                "  %-8s [%s] %-7s calls %d: gpu %d, cpu %d, fallbacks %d; H2D %.2f GB, "
                "D2H %.2f GB  (%s)" % (
                    label, group, name, r.get("calls", 0), r.get("gpu_calls", 0),
                    r.get("cpu_calls", 0), r.get("fallbacks", 0), r.get("bytes_h2d", 0) / 1e9,
                    r.get("bytes_d2h", 0) / 1e9, owner[0] if owner else "not attributed"))
        for name in loose:
            notes.append("%s report [%s]: %s could not be attributed to one operation"
                         % (label, group, name))

    def where(op, prec):
        """What the gpushim report shows for (op, prec)."""
        if not any(k[:3] == ("gpushim", op, prec) and "median_s" in r for k, r in cells.items()):
            return "-"
        if not any(r.get("report") for r in infos if r["label"] == "gpushim") and not args.report:
            return "no report"
        rs = gpu_of.get(("gpushim", op, prec), [])
        on_gpu = ["%s%s" % (n, " (%d fallbacks)" % r["fallbacks"] if r.get("fallbacks") else "")
                  for n, r in rs if r.get("gpu_calls", 0) > 0]
        fell = ["%s %d fallbacks" % (n, r["fallbacks"]) for n, r in rs
                if r.get("fallbacks") and not r.get("gpu_calls")]
        missing = [routine_name(prec, b) for b in OP[op].lapack
                   if not exports.get(routine_name(prec, b), True)]
        text = ", ".join(on_gpu) if on_gpu else "none"
        if fell:
            text += " (%s)" % ", ".join(fell)
        if missing:
            text += "; %s not exported (CPU)" % ", ".join(missing)
        elif not on_gpu:
            text += "  <-- NOT OFFLOADED"
        return text

    cell_notes = {}  # (error, prec, op) -> {label: [n]}
    rows = sorted(set(k[1:] for k in cells),
                  key=lambda r: (OP_ORDER.index(r[0]) if r[0] in OP else 99,
                                 gc.DTYPE_ORDER.index(r[1]), r[2]))
    w("LAPACK through NumPy/SciPy, n x n: median / best time per call; speed-ups from the "
      "medians")
    w("")
    head = ["operation", "n"] + [title[l] for l, _ in labels]
    have = set(l for l, _ in labels)
    if {"openblas", "gpushim"} <= have:
        head.append("gpushim vs OpenBLAS")
    if {"gpushim", "device"} <= have:
        head.append("device vs gpushim")
    if "gpushim" in have:
        head.append("on the GPU under gpushim (its report)")
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for op, prec, n in rows:
        get = lambda l: cells.get((l, op, prec, n))  # noqa: E731
        out = ["%s %s" % (prec, op), "%d" % n] + [
            "n/a" if get(l) is None and l in errors else fmt_cell(get(l)) for l, _ in labels]
        if {"openblas", "gpushim"} <= have:
            out.append(speedup(get("openblas"), get("gpushim")))
        if {"gpushim", "device"} <= have:
            out.append(speedup(get("gpushim"), get("device")))
        if "gpushim" in have:
            out.append(where(op, prec))
        for l, _ in labels:
            r = get(l)
            if r is not None and "error" in r:
                cell_notes.setdefault((r["error"], prec, op), {}).setdefault(l, []).append(n)
        w("| " + " | ".join(out) + " |")
    w("")
    w("Speed-ups: gpushim vs OpenBLAS = t(OpenBLAS) / t(gpushim); device vs gpushim = "
      "t(gpushim) / t(device), what the copies and the shim cost. \"(1 call)\": one timed "
      "call (a long one). Host columns time the whole NumPy/SciPy call (its copy of A to "
      "Fortran order, its outputs' allocation); lu_factor runs on a Fortran-ordered copy "
      "(overwrite_a=True). One element of A changes before every host call. Single "
      "precision goes through SciPy (np.linalg computes float32 in double); SciPy's eigh "
      "is asked for driver='evd' (syevd; its default, evr, is op eigh_evr). On the device, "
      "torch's lstsq is QR-based (gels) and its eig may run partly on the CPU (MAGMA). "
      "Every cell is checked on its last call with matrix-vector products: backward error "
      "or residual relative to |A| (and the other factors' norms), orthogonality of Q, U, "
      "V, <= 16 n eps, info = 0.")
    calls = {}  # (op, host or device) -> set of calls
    for r in infos:
        side = "device" if r["label"] == "device" else "host"
        for cell, text in (r.get("calls") or {}).items():
            calls.setdefault((cell.split(":")[0], side), set()).add(text)
    if calls:
        w("")
        w("Calls (host | device), LAPACK behind the host call:")
        for o in OPS:
            host, dev = calls.get((o.name, "host")), calls.get((o.name, "device"))
            if host or dev:
                w("  %-9s %s | %s; %s" % (o.name, ", ".join(sorted(host or ["-"])),
                                          ", ".join(sorted(dev or ["-"])), "+".join(o.lapack)))

    for (error, prec, op), by_label in cell_notes.items():
        where_ = "; ".join("%s n=%s" % (l, ",".join(map(str, ns))) for l, ns in by_label.items())
        notes.append("%s %s (%s): %s" % (prec, op, where_, error))
    if report_lines:
        w("")
        w("Where the shim ran them (GPUSHIM_REPORT per report group, all sizes of a cell in "
          "one process, warm-ups included; CPU calls include workspace queries):")
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

    r = sub.add_parser("run", help="time LAPACK cells")
    r.add_argument("--impl", required=True, choices=sorted(IMPLS) + ["device"],
                   help="device = torch if importable with a GPU, else cupy")
    r.add_argument("--label", required=True)
    r.add_argument("--cells", default="solve:d,inv:d,cholesky:d,lu_factor:d,qr:d,eigh:d,svd:d,"
                   "lstsq:d:2048,eig:d:1024/4096,eigh:s,svd:s,solve_sym:d:4096",
                   help="op:precision[:n1/n2] items; ops: " + " ".join(OP_ORDER))
    r.add_argument("--sizes", default="4096,8192")
    r.add_argument("--extra-sizes", default="",
                   help="sizes measured after all others, where time is left")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--cell-seconds", type=float, default=3.0,
                   help="timed calls per cell: fewer than --reps when they would take longer")
    r.add_argument("--budget", type=float, default=60.0,
                   help="seconds from process start after which no cell starts")
    r.add_argument("--out", help="JSON-lines file to append to")
    r.add_argument("--split-report", action="store_true",
                   help="with GPUSHIM_REPORT set: one child process (and report) per group")
    r.add_argument("--group", help=argparse.SUPPRESS)
    r.add_argument("--prior-label",
                   help="predict ops the shim does not export from this label's records")
    r.add_argument("--prior-file", help="where those records are (default: --out)")
    r.set_defaults(fn=cmd_run)

    t = sub.add_parser("table", help="the comparison table from JSON-lines files")
    t.add_argument("files", nargs="+")
    t.add_argument("--report", action="append", metavar="LABEL=PATH",
                   help="a GPUSHIM_REPORT JSON file besides those the records name")
    t.set_defaults(fn=cmd_table)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
