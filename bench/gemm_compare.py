#!/usr/bin/env python3
"""GEMM timings for the GPU check (bench/gpu_check.sh), and the table built from them.

Each measurement runs in its own process, started by gpu_check.sh with the
environment that selects what is measured:

  gemm --impl numpy   --label openblas   numpy.matmul, nothing preloaded: the CPU BLAS
                                         NumPy ships (pip NumPy: scipy-openblas, all cores)
  gemm --impl numpy   --label gpushim    the same under LD_PRELOAD=libgpushim.so
  gemm --impl fortran --label nvblas     dgemm_/sgemm_/zgemm_ called through ctypes
                                         from the process's global scope, under
                                         LD_PRELOAD=libnvblas.so (NVBLAS has only the
                                         Fortran names: NumPy's CBLAS calls never reach it)
  gemm --impl fortran --label gpushim_f  the same Fortran path under the shim
  gemm --impl torch|cupy --label cublas  cuBLAS on device-resident data (compute only)
  bandwidth --impl torch|cupy            host<->device copy rates, pageable and pinned
  table FILE...                          the comparison table and the PCIe model

Results are JSON lines appended to --out (one record per cell, flushed at once, so
a step killed by its timeout keeps what it measured). Every gemm cell is checked:
C x is compared with A (B x) for a random x (matrix-vector products, which the
shim does not intercept).

Timing: a warm-up call at each size (plugin load, cuBLAS initialisation, memory
pool growth stay out of the numbers), then --reps timed calls; best and median are
recorded. A global --budget (seconds, counted from process start) decides which
cells run: the time of a cell is predicted from the previous size (x8 per doubling)
and a cell that cannot finish in the budget left is skipped and recorded as such.

Host-data measurements change a row and a column of A and of B before every timed call
(outside the timing), so the shim's residency cache of unchanged operands (which checks
each 32 MiB chunk) cannot turn the measurement into a compute-only one; --reuse-cells
measures such cells again with unchanged inputs (label suffix "_reuse": what the cache
saves).

Works on a machine without a GPU (e.g. numpy with GPUSHIM_BACKEND=hostsim and small
--sizes); a missing torch/cupy/NVBLAS is recorded as an error record, not a crash.
"""

import argparse
import ctypes
import json
import os
import platform
import sys
import time

START = time.perf_counter()

DTYPE_NAMES = {"s": "float32", "d": "float64", "c": "complex64", "z": "complex128"}
# flops per multiply-add: 2 real, 8 complex
FLOPS_PER_MADD = {"s": 2, "d": 2, "c": 8, "z": 8}
ELEMENT_BYTES = {"s": 4, "d": 8, "c": 8, "z": 16}
DTYPE_ORDER = "dszc"


def now():
    return time.perf_counter() - START


def emit(out, record):
    record.setdefault("t", round(now(), 3))
    line = json.dumps(record, sort_keys=True)
    print(line, flush=True)
    if out:
        with open(out, "a") as f:
            f.write(line + "\n")


def gemm_flops(prec, n):
    return FLOPS_PER_MADD[prec] * float(n) ** 3


# --------------------------------------------------------------------------- host data

def host_matrix(np, prec, n, order, seed):
    """An n x n matrix of positive pseudo-random values, filled at memcpy speed.

    A random block of prime length is repeated over the matrix, so every row differs
    (a wrong tile of C shows in the check) and filling 2 GiB takes well under a second.
    """
    dtype = np.dtype(DTYPE_NAMES[prec])
    a = np.empty((n, n), dtype=dtype, order=order)
    real = np.float32 if prec in "sc" else np.float64
    flat = a.reshape(-1, order="A").view(real)
    block_len = 1000003
    rng = np.random.default_rng(seed)
    block = (rng.random(block_len, dtype=real) + real(0.5)).astype(real)
    for start in range(0, flat.size, block_len):
        stop = min(flat.size, start + block_len)
        flat[start:stop] = block[: stop - start]
    return a


def check_tolerance(prec):
    return 1e-3 if prec in "sc" else 1e-9


class NumpyImpl:
    """numpy.matmul(A, B, out=C): CBLAS row-major xGEMM in NumPy's BLAS (or the shim)."""

    name = "numpy"
    device = False

    def __init__(self, np):
        self.np = np

    def setup(self, prec, n):
        np = self.np
        self.A = host_matrix(np, prec, n, "C", 1)
        self.B = host_matrix(np, prec, n, "C", 2)
        self.C = np.zeros((n, n), dtype=self.A.dtype)

    def call(self):
        self.np.matmul(self.A, self.B, out=self.C)

    def perturb(self, i):
        # A row and a column of each input: an element in every stored row and column, so
        # in every chunk the residency cache fingerprints (C or Fortran order alike), and
        # no cached device copy is still valid.
        n = self.A.shape[0]
        for M, j in ((self.A, 7 * i), (self.B, i)):
            M[:, j % n] += 1
            M[(3 * j + 1) % n, :] += 1

    def check(self, prec):
        np = self.np
        x = np.random.default_rng(3).random(self.A.shape[0]).astype(self.A.dtype)
        y = self.C @ x
        z = self.A @ (self.B @ x)
        return float(np.max(np.abs(y - z)) / np.max(np.abs(z)))

    def teardown(self):
        self.A = self.B = self.C = None


class FortranImpl(NumpyImpl):
    """xGEMM_ ('N','N') called via ctypes on column-major arrays.

    The symbol is looked up in the process's global scope, so it is whatever
    LD_PRELOAD put there (NVBLAS, the shim), else nothing: NumPy's own BLAS is
    loaded with RTLD_LOCAL and (pip NumPy) uses scipy_-prefixed names anyway.
    """

    name = "fortran"

    def __init__(self, np):
        super().__init__(np)
        self.process = ctypes.CDLL(None)
        self.fn = {}

    def symbol(self, prec):
        if prec not in self.fn:
            name = prec + "gemm_"
            try:
                f = getattr(self.process, name)
            except AttributeError:
                raise RuntimeError(
                    "%s is not defined in the process (nothing preloaded exports it)" % name)
            f.restype = None
            self.fn[prec] = f
        return self.fn[prec]

    def setup(self, prec, n):
        np = self.np
        f = self.symbol(prec)
        self.A = host_matrix(np, prec, n, "F", 1)
        self.B = host_matrix(np, prec, n, "F", 2)
        self.C = np.zeros((n, n), dtype=self.A.dtype, order="F")
        if prec == "s":
            alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        elif prec == "d":
            alpha, beta = ctypes.c_double(1.0), ctypes.c_double(0.0)
        elif prec == "c":
            alpha, beta = (ctypes.c_float * 2)(1.0, 0.0), (ctypes.c_float * 2)(0.0, 0.0)
        else:
            alpha, beta = (ctypes.c_double * 2)(1.0, 0.0), (ctypes.c_double * 2)(0.0, 0.0)
        dim = ctypes.c_int(n)
        self.keep = (alpha, beta, dim)
        vp = ctypes.c_void_p
        ref = ctypes.byref
        self.args = (ctypes.c_char_p(b"N"), ctypes.c_char_p(b"N"), ref(dim), ref(dim), ref(dim),
                     ref(alpha), vp(self.A.ctypes.data), ref(dim), vp(self.B.ctypes.data),
                     ref(dim), ref(beta), vp(self.C.ctypes.data), ref(dim),
                     ctypes.c_size_t(1), ctypes.c_size_t(1))
        self.f = f

    def call(self):
        self.f(*self.args)


class TorchImpl:
    """torch.matmul on CUDA tensors: cuBLAS on device-resident data."""

    name = "torch"
    device = True

    def __init__(self, np):
        import torch  # noqa: F401  (ImportError is reported by the caller)
        self.np = np
        self.torch = torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        torch.backends.cuda.matmul.allow_tf32 = False  # sgemm must be sgemm, not TF32
        try:
            torch.set_float32_matmul_precision("highest")
        except AttributeError:
            pass
        self.dev = torch.device("cuda")

    def info(self):
        t = self.torch
        return {"torch": t.__version__, "cuda": t.version.cuda,
                "device": t.cuda.get_device_name(0)}

    def setup(self, prec, n):
        t = self.torch
        real = t.float32 if prec in "sc" else t.float64
        g = t.Generator(device=self.dev)
        g.manual_seed(1)

        def rand():
            if prec in "sd":
                return t.rand(n, n, dtype=real, device=self.dev, generator=g) + 0.5
            x = t.rand(n, n, 2, dtype=real, device=self.dev, generator=g) + 0.5
            return t.view_as_complex(x)

        self.A = rand()
        self.B = rand()
        self.C = t.empty_like(self.A)
        t.cuda.synchronize()

    def call(self):
        self.torch.matmul(self.A, self.B, out=self.C)
        self.torch.cuda.synchronize()

    def perturb(self, i):
        pass  # device-resident: nothing to invalidate

    def check(self, prec):
        t = self.torch
        real = t.float32 if self.A.dtype in (t.float32, t.complex64) else t.float64
        x = t.rand(self.A.shape[0], dtype=real, device=self.dev).to(self.A.dtype)
        y = self.C @ x
        z = self.A @ (self.B @ x)
        return float((y - z).abs().max() / z.abs().max())

    def teardown(self):
        self.A = self.B = self.C = None
        self.torch.cuda.empty_cache()

    def bandwidth(self, nbytes, reps):
        t = self.torch
        host = t.from_numpy(self.np.ones(nbytes, dtype=self.np.uint8))  # pageable, touched
        pinned = t.empty(nbytes, dtype=t.uint8, pin_memory=True)
        pinned.fill_(1)
        dev = t.empty(nbytes, dtype=t.uint8, device=self.dev)
        sync = t.cuda.synchronize

        def rate(dst, src):
            best = float("inf")
            for _ in range(reps + 1):  # the first is a warm-up
                sync()
                t0 = time.perf_counter()
                dst.copy_(src, non_blocking=True)
                sync()
                best = min(best, time.perf_counter() - t0)
            return nbytes / best / 1e9

        return {"h2d_pageable_GBs": rate(dev, host), "h2d_pinned_GBs": rate(dev, pinned),
                "d2h_pageable_GBs": rate(host, dev), "d2h_pinned_GBs": rate(pinned, dev)}


class CupyImpl(TorchImpl):
    """cupy.matmul on device arrays: cuBLAS on device-resident data."""

    name = "cupy"

    def __init__(self, np):
        import cupy  # noqa: F401
        self.np = np
        self.cp = cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device visible to CuPy")

    def info(self):
        cp = self.cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        return {"cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                "device": name.decode() if isinstance(name, bytes) else str(name)}

    def setup(self, prec, n):
        cp = self.cp
        rs = cp.random.RandomState(1)
        if prec in "sd":
            dtype = cp.float32 if prec == "s" else cp.float64
            self.A = rs.random_sample((n, n), dtype=dtype) + 0.5
            self.B = rs.random_sample((n, n), dtype=dtype) + 0.5
        else:
            real = cp.float32 if prec == "c" else cp.float64
            cplx = cp.complex64 if prec == "c" else cp.complex128
            self.A = (rs.random_sample((n, 2 * n), dtype=real) + 0.5).view(cplx)
            self.B = (rs.random_sample((n, 2 * n), dtype=real) + 0.5).view(cplx)
        self.C = cp.empty_like(self.A)
        cp.cuda.Device().synchronize()

    def call(self):
        self.cp.matmul(self.A, self.B, out=self.C)
        self.cp.cuda.Device().synchronize()

    def check(self, prec):
        cp = self.cp
        x = cp.random.RandomState(3).random_sample(self.A.shape[0]).astype(self.A.dtype)
        y = self.C @ x
        z = self.A @ (self.B @ x)
        return float(cp.abs(y - z).max() / cp.abs(z).max())

    def teardown(self):
        self.A = self.B = self.C = None
        self.cp.get_default_memory_pool().free_all_blocks()

    def bandwidth(self, nbytes, reps):
        cp, np = self.cp, self.np
        host = np.ones(nbytes, dtype=np.uint8)
        mem = cp.cuda.alloc_pinned_memory(nbytes)
        pinned = np.frombuffer(mem, dtype=np.uint8, count=nbytes)
        pinned[:] = 1
        dev = cp.empty(nbytes, dtype=cp.uint8)
        sync = cp.cuda.Device().synchronize

        def rate(fn):
            best = float("inf")
            for _ in range(reps + 1):
                sync()
                t0 = time.perf_counter()
                fn()
                sync()
                best = min(best, time.perf_counter() - t0)
            return nbytes / best / 1e9

        return {"h2d_pageable_GBs": rate(lambda: dev.set(host)),
                "h2d_pinned_GBs": rate(lambda: dev.set(pinned)),
                "d2h_pageable_GBs": rate(lambda: dev.get(out=host)),
                "d2h_pinned_GBs": rate(lambda: dev.get(out=pinned))}


IMPLS = {"numpy": NumpyImpl, "fortran": FortranImpl, "torch": TorchImpl, "cupy": CupyImpl}


def make_impl(name, np):
    """The implementation, or (None, reason) when it cannot run here."""
    names = ["torch", "cupy"] if name == "device" else [name]
    reasons = []
    for n in names:
        try:
            return IMPLS[n](np), None
        except Exception as e:  # ImportError, no device, ...
            reasons.append("%s: %s: %s" % (n, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    return None, "; ".join(reasons)


def process_info(np, impl):
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "cpus": os.cpu_count(), "machine": platform.machine()}
    for var in ("LD_PRELOAD", "GPUSHIM_BACKEND", "GPUSHIM_THRESHOLD", "OPENBLAS_NUM_THREADS",
                "OMP_NUM_THREADS", "NVBLAS_CONFIG_FILE", "GPUSHIM_CPU_BLAS"):
        if os.environ.get(var):
            info[var] = os.environ[var]
    try:
        import threadpoolctl
        info["blas_threads"] = [
            {"lib": p.get("internal_api"), "threads": p.get("num_threads"),
             "file": os.path.basename(p.get("filepath", ""))}
            for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
    except Exception:
        pass
    if hasattr(impl, "info"):
        try:
            info.update(impl.info())
        except Exception as e:
            info["info_error"] = str(e)
    return info


# --------------------------------------------------------------------------- gemm

def parse_cells(text):
    cells = []
    for item in (text or "").split(","):
        item = item.strip()
        if item:
            p, n = item.split(":")
            cells.append((p, int(n)))
    return cells


def measure_cell(impl, prec, n, reps, warmup, fresh):
    impl.setup(prec, n)
    try:
        if warmup:
            impl.call()
        times = []
        for i in range(reps):
            if fresh:
                impl.perturb(i)
            t0 = time.perf_counter()
            impl.call()
            times.append(time.perf_counter() - t0)
        err = impl.check(prec)
    finally:
        impl.teardown()
    times.sort()
    return times, err


def cmd_gemm(args):
    import numpy as np

    impl, why = make_impl(args.impl, np)
    if impl is None:
        emit(args.out, {"kind": "error", "label": args.label, "impl": args.impl, "error": why})
        return 0
    precs = [p for p in args.dtypes.split(",") if p]
    if isinstance(impl, FortranImpl):
        missing = []
        for p in precs:
            try:
                impl.symbol(p)
            except RuntimeError as e:
                missing.append(str(e))
        if len(missing) == len(precs):
            emit(args.out, {"kind": "error", "label": args.label, "impl": impl.name,
                            "error": "; ".join(missing)})
            return 0
    emit(args.out, {"kind": "info", "label": args.label, "impl": impl.name,
                    "info": process_info(np, impl)})
    if args.bandwidth_mib and hasattr(impl, "bandwidth"):
        # In the same process as the device GEMMs: one torch/cupy start-up, not two.
        bandwidth(impl, args.bandwidth_mib, 5, args.out)

    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    # Ascending size, then precision: when the budget runs out the largest go first.
    cells = [(p, n) for n in sizes for p in sorted(precs, key=DTYPE_ORDER.index)]
    measured = {}  # prec -> (n, seconds per call)
    rate = {}  # any measured rate, flop/s, to predict a precision not seen yet

    def predict(prec, n):
        if prec in measured:
            n0, t0 = measured[prec]
            return t0 * (float(n) / n0) ** 3
        if rate:
            return gemm_flops(prec, n) / min(rate.values())
        return 0.0

    def run(prec, n, label, fresh):
        left = args.budget - now()
        per_call = predict(prec, n)
        # Setting up the operands costs too (fill at >= ~1 GB/s; device: nothing).
        setup = 0.0 if impl.device else 3 * n * n * ELEMENT_BYTES[prec] / 1e9
        reps = args.reps
        warmup = True
        while reps > 1 and setup + (reps + 1) * per_call > left:
            reps -= 1
        if setup + (reps + 1) * per_call > left and not impl.device and per_call > 5.0:
            # A multi-second CPU call needs no warm-up: caches and threads are warm.
            warmup = False
        if setup + (reps + int(warmup)) * per_call > left or left <= 0:
            emit(args.out, {"kind": "gemm", "label": label, "impl": impl.name, "prec": prec,
                            "n": n, "skipped": "predicted %.1f s per call, %.1f s of budget left"
                            % (per_call, max(left, 0.0))})
            return
        try:
            times, err = measure_cell(impl, prec, n, reps, warmup, fresh)
        except Exception as e:
            emit(args.out, {"kind": "gemm", "label": label, "impl": impl.name, "prec": prec,
                            "n": n, "error": "%s: %s" % (type(e).__name__, e)})
            return
        best = times[0]
        median = times[len(times) // 2] if len(times) % 2 else \
            0.5 * (times[len(times) // 2 - 1] + times[len(times) // 2])
        measured[prec] = (n, median)
        rate[prec] = gemm_flops(prec, n) / median
        ok = err <= check_tolerance(prec)
        emit(args.out, {"kind": "gemm", "label": label, "impl": impl.name, "prec": prec, "n": n,
                        "best_s": best, "median_s": median, "reps": len(times),
                        "warmup": warmup, "fresh_inputs": fresh,
                        "gflops_best": gemm_flops(prec, n) / best / 1e9,
                        "check_rel_err": err, "check": "ok" if ok else "FAIL"})

    for prec, n in cells:
        run(prec, n, args.label, fresh=not args.reuse_inputs)
    for prec, n in parse_cells(args.reuse_cells):
        if (prec, n) in cells:  # only beside a measured fresh-input cell
            run(prec, n, args.label + "_reuse", fresh=False)
    return 0


def bandwidth(impl, mib, reps, out):
    try:
        r = impl.bandwidth(mib << 20, reps)
    except Exception as e:
        emit(out, {"kind": "error", "label": "bandwidth", "impl": impl.name,
                   "error": "%s: %s" % (type(e).__name__, e)})
        return
    r.update({"kind": "bandwidth", "label": "bandwidth", "impl": impl.name, "bytes": mib << 20})
    emit(out, r)


def cmd_bandwidth(args):
    import numpy as np

    impl, why = make_impl(args.impl, np)
    if impl is None:
        emit(args.out, {"kind": "error", "label": "bandwidth", "impl": args.impl, "error": why})
        return 0
    bandwidth(impl, args.mib, args.reps, args.out)
    return 0


# --------------------------------------------------------------------------- table

COLUMNS = [
    ("openblas", "OpenBLAS (NumPy, all cores)"),
    ("gpushim", "gpushim, host data (NumPy matmul)"),
    ("gpushim_reuse", "gpushim, unchanged inputs"),
    ("gpushim_f", "gpushim, host data (dgemm_ via ctypes)"),
    ("nvblas", "NVBLAS, host data (dgemm_ via ctypes)"),
    ("cublas", "cuBLAS, device-resident"),
]


def fmt_time(s):
    if s >= 1.0:
        return "%.2f s" % s
    if s >= 1e-3:
        return "%.1f ms" % (s * 1e3)
    return "%.0f us" % (s * 1e6)


def load(paths):
    recs = []
    for p in paths:
        try:
            with open(p) as f:
                for line in f:
                    line = line.strip()
                    if line.startswith("{"):
                        try:
                            recs.append(json.loads(line))
                        except ValueError:
                            pass
        except OSError:
            pass
    return recs


def cmd_table(args):
    recs = load(args.files)
    lines = []
    w = lines.append
    gemm = {}
    notes = []
    for r in recs:
        if r.get("kind") == "gemm":
            key = (r["label"], r["prec"], r["n"])
            if "median_s" in r or key not in gemm:
                gemm[key] = r
        elif r.get("kind") == "error":
            notes.append("%s (%s): not measured: %s" % (r.get("label"), r.get("impl"), r.get("error")))
    labels = [c for c in COLUMNS if any(k[0] == c[0] for k in gemm)]
    known = set(c[0] for c in COLUMNS)
    labels += [(l, l) for l in sorted(set(k[0] for k in gemm)) if l not in known]
    rows = sorted(set((k[1], k[2]) for k in gemm), key=lambda pn: (DTYPE_ORDER.index(pn[0]), pn[1]))

    w("GEMM C = A*B (n x n, beta = 0): median time per call | GFLOP/s (from the median) | "
      "speed-up over OpenBLAS")
    w("")
    header = "| prec | n | " + " | ".join(c[1] for c in labels) + " |"
    w(header)
    w("|" + "---|" * (2 + len(labels)))
    for prec, n in rows:
        base = gemm.get(("openblas", prec, n), {}).get("median_s")
        cells = []
        for label, _ in labels:
            r = gemm.get((label, prec, n))
            if r is None:
                cells.append("-")
            elif "median_s" in r:
                t = r["median_s"]
                cell = "%s, %.0f GF/s" % (fmt_time(t), gemm_flops(prec, n) / t / 1e9)
                if base:
                    cell += ", %.2fx" % (base / t)
                if r.get("check") != "ok":
                    cell += ", CHECK %s (%.1e)" % (r.get("check"), r.get("check_rel_err", float("nan")))
                cells.append(cell)
            elif "skipped" in r:
                cells.append("skipped (budget)")
            else:
                cells.append("error")
                notes.append("%s %s%s n=%d: %s" % (label, prec, "gemm", n, r.get("error")))
        w("| %s | %d | %s |" % (prec, n, " | ".join(cells)))
    w("")
    w("Each cell: warm-up call excluded; median of the timed calls (best and count in the "
      "JSON). Host-data columns change one element of A and B before every call. "
      "Complex GFLOP/s count 8 flops per multiply-add.")

    # ----- the PCIe model for DGEMM n = model_n
    n = args.model_n
    bw = next((r for r in recs if r.get("kind") == "bandwidth"), None)
    dev = gemm.get(("cublas", "d", n), {})
    shim = gemm.get(("gpushim", "d", n), {})
    w("")
    w("PCIe model, DGEMM n = %d (beta = 0: A and B go in, C comes out)" % n)
    flops = gemm_flops("d", n)
    bytes_in, bytes_out = 2 * n * n * 8.0, n * n * 8.0
    if "median_s" in dev:
        rate_dev, rate_note = flops / dev["median_s"], "measured"
    else:
        rate_dev, rate_note = 55e12, "NOMINAL (no device-resident measurement)"
    t_compute = flops / rate_dev
    w("  flops %.3e; cuBLAS device-resident rate %.1f TFLOP/s (%s) -> compute %s"
      % (flops, rate_dev / 1e12, rate_note, fmt_time(t_compute)))
    w("  bytes in %.2f GB, out %.2f GB" % (bytes_in / 1e9, bytes_out / 1e9))
    if bw:
        bws = {"pinned": (bw["h2d_pinned_GBs"], bw["d2h_pinned_GBs"], "measured"),
               "pageable": (bw["h2d_pageable_GBs"], bw["d2h_pageable_GBs"], "measured")}
        w("  bandwidth (%s, %d MiB copies, best of runs): H2D pageable %.1f GB/s, pinned %.1f GB/s; "
          "D2H pageable %.1f GB/s, pinned %.1f GB/s"
          % (bw.get("impl"), bw.get("bytes", 0) >> 20, bw["h2d_pageable_GBs"],
             bw["h2d_pinned_GBs"], bw["d2h_pageable_GBs"], bw["d2h_pinned_GBs"]))
    else:
        bws = {"pinned": (50.0, 50.0, "NOMINAL")}
        w("  bandwidth: not measured; NOMINAL 50 GB/s pinned each way")
    t_shim = shim.get("median_s")
    if t_shim:
        w("  gpushim (NumPy, host data): median %s, best %s"
          % (fmt_time(t_shim), fmt_time(shim["best_s"])))
    else:
        w("  gpushim (NumPy, host data): not measured at n = %d" % n)
    for kind in ("pinned", "pageable"):
        if kind not in bws:
            continue
        h2d, d2h, how = bws[kind]
        t_copy = bytes_in / (h2d * 1e9) + bytes_out / (d2h * 1e9)
        bound = max(t_copy, t_compute)
        line = ("  bound with %s copies (%s): copies %s, compute %s -> max %s"
                % (kind, how, fmt_time(t_copy), fmt_time(t_compute), fmt_time(bound)))
        if t_shim:
            frac = bound / t_shim
            line += "; gpushim reaches %.0f%% of it" % (100 * frac)
            if kind == "pinned":
                line += " (goal >= 80%%: %s)" % ("PASS" if frac >= 0.8 else "FAIL")
        w(line)
    w("  (bound = max(bytes_in/H2D + bytes_out/D2H, flops/cuBLAS rate): the time of a call "
      "whose copies overlap its compute perfectly; fraction = bound / gpushim median)")

    reports = []
    for item in args.report or []:
        label, _, path = item.partition("=")
        try:
            with open(path) as f:
                routines = json.load(f).get("routines", {})
        except (OSError, ValueError) as e:
            reports.append("  %s: no report (%s)" % (label, e.__class__.__name__))
            continue
        for name in sorted(routines):
            r = routines[name]
            reports.append("  %-10s %-6s calls %d: gpu %d, cpu %d, fallbacks %d; H2D %.2f GB, "
                           "D2H %.2f GB, reused on the device %.2f GB"
                           % (label, name, r.get("calls", 0), r.get("gpu_calls", 0),
                              r.get("cpu_calls", 0), r.get("fallbacks", 0),
                              r.get("bytes_h2d", 0) / 1e9, r.get("bytes_d2h", 0) / 1e9,
                              r.get("bytes_reused", 0) / 1e9))
    if reports:
        w("")
        w("Where the shim ran the calls (GPUSHIM_REPORT, whole process incl. warm-ups and reuse cells):")
        lines.extend(reports)

    infos = [r for r in recs if r.get("kind") == "info"]
    if infos:
        w("")
        w("Processes measured:")
        for r in infos:
            w("  %s (%s): %s" % (r.get("label"), r.get("impl"), json.dumps(r.get("info"), sort_keys=True)))
    if notes:
        w("")
        w("Not measured / errors:")
        for x in notes:
            w("  " + x)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True

    g = sub.add_parser("gemm", help="time xGEMM cells")
    g.add_argument("--impl", required=True, choices=sorted(IMPLS) + ["device"],
                   help="device = torch if importable with a GPU, else cupy")
    g.add_argument("--label", required=True)
    g.add_argument("--dtypes", default="s,d,z")
    g.add_argument("--sizes", default="1024,2048,4096,8192,16384")
    g.add_argument("--reps", type=int, default=5)
    g.add_argument("--budget", type=float, default=60.0,
                   help="seconds from process start after which no cell starts")
    g.add_argument("--reuse-inputs", action="store_true",
                   help="do not change A and B between timed calls")
    g.add_argument("--reuse-cells", default="",
                   help="cells (e.g. d:8192) measured again with unchanged inputs")
    g.add_argument("--bandwidth-mib", type=int, default=0,
                   help="device impls: also measure copy rates with buffers of this size")
    g.add_argument("--out", help="JSON-lines file to append to")
    g.set_defaults(fn=cmd_gemm)

    b = sub.add_parser("bandwidth", help="host<->device copy rates")
    b.add_argument("--impl", default="device", choices=["torch", "cupy", "device"])
    b.add_argument("--mib", type=int, default=512)
    b.add_argument("--reps", type=int, default=5)
    b.add_argument("--out")
    b.set_defaults(fn=cmd_bandwidth)

    t = sub.add_parser("table", help="the comparison table from JSON-lines files")
    t.add_argument("files", nargs="+")
    t.add_argument("--model-n", type=int, default=8192)
    t.add_argument("--out", help="text file to append the table to")
    t.add_argument("--report", action="append", metavar="LABEL=PATH",
                   help="a GPUSHIM_REPORT JSON file to summarise (repeatable)")
    t.set_defaults(fn=cmd_table)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
