#!/usr/bin/env python3
"""cuFFT on device-resident data: the compute-only column of the GPU check's FFT table.

  fft_device_limit.py --label device --cells c2c:2^20,... [--reps 5] [--cell-seconds 1.5]
                      [--budget 60] [--out FILE]

The cells of bench/fft_compare.c (TYPE:DIMS[*HOWMANY], double precision), transformed by
PyTorch (torch.fft, which calls cuFFT), else CuPy (cupy.fft.fftn / rfftn), on arrays that
are already on the GPU and stay there (PyTorch first, as in the other device columns: its
paths have run, on bench/torch_on_cpu; CuPy's have not): no host<->device copy is timed, so this is what
the host-data columns (gpushim, cuFFTW) could reach at best. Per cell: input generated on
the device, one warm-up transform (cuFFT plan creation, memory pool growth), the checks,
then up to --reps timed reps (fewer once they took --cell-seconds), each the mean of
enough back-to-back transforms to last ~5 ms (a 2^20 transform takes tens of
microseconds, below the resolution of one synchronised Python call), between device
synchronisations. Median and best.

Checks, as in fft_compare.c and with its tolerance (32 log2(N) eps): the spectrum at n/4
along the first and the last axis of the first and the last transform against
sum_j x_j (-i)^(j_axis), relative to |x|_2; the unnormalised backward transform of the
spectrum against N x, relative to N |x|_2.

One JSON line per cell (the records of fft_compare.c: kind "fft", seconds_per_transform,
best_s, gflops, check, err_spectrum, err_roundtrip, or skipped with predicted_s, or an
"n/a: ..." error), on stdout and appended to --out. Without PyTorch or CuPy on a GPU one
"error" record says why (not a failure: the column is then not available).
"""

import argparse
import math
import os
import re
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_compare as gc  # noqa: E402  (emit, now)

EPS = 2.0 ** -52
PRIOR_GFLOPS = 20.0          # before the first cell: a low rate for a GPU
PRIOR_SETUP_PER_POINT = 5e-9  # input generation and checks, seconds per point
MIN_REP_SECONDS = 0.005

stop_requested = False


def on_sigterm(signum, frame):
    global stop_requested
    stop_requested = True


def parse_size(text):
    base, _, exp = text.partition("^")
    return int(base) ** int(exp) if exp else int(base)


def parse_cell(spec):
    m = re.fullmatch(r"(c2c|r2c):([0-9^]+(?:x[0-9^]+){0,2})(?:\*([0-9^]+))?", spec)
    if not m:
        raise ValueError("bad cell %r (TYPE:DIMS[*HOWMANY], e.g. c2c:2^20, r2c:4096x4096, "
                         "c2c:2^16*1024)" % spec)
    dims = [parse_size(d) for d in m.group(2).split("x")]
    if any(d < 4 or d % 4 for d in dims):
        raise ValueError("bad cell %r: sizes must be multiples of 4" % spec)
    howmany = parse_size(m.group(3)) if m.group(3) else 1
    points = math.prod(dims)
    r2c = m.group(1) == "r2c"
    return {"cell": spec, "type": m.group(1), "dims": dims, "n": points, "howmany": howmany,
            "r2c": r2c, "flops": (2.5 if r2c else 5.0) * points * math.log2(points) * howmany}


def first_line(e):
    return str(e).splitlines()[0] if str(e) else e.__class__.__name__


class CupyBackend:
    name = "cupy"

    def __init__(self):
        import cupy
        from cupy.cuda import cufft
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no GPU")
        self.cp = cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        self.impl = "cupy %s (cuFFT %s) on %s" % (
            cupy.__version__, cufft.getVersion(), props["name"].decode())

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def random(self, shape, r2c):
        g = self.cp.random.default_rng(1)
        x = g.random(shape, dtype=self.cp.float64) * 2 - 1
        return x if r2c else x + 1j * (g.random(shape, dtype=self.cp.float64) * 2 - 1)

    def forward(self, x, c, axes):
        fft = self.cp.fft
        return fft.rfftn(x, axes=axes) if c["r2c"] else fft.fftn(x, axes=axes)

    def backward(self, X, c, axes):
        fft = self.cp.fft
        if c["r2c"]:
            return fft.irfftn(X, s=c["dims"], axes=axes, norm="forward")
        return fft.ifftn(X, axes=axes, norm="forward")

    def quarter_phases(self, n):
        return self.cp.asarray([1, -1j, -1, 1j])[self.cp.arange(n) % 4]

    def norm2(self, x):
        return float(self.cp.sum(self.cp.abs(x) ** 2))

    def scalar(self, v):
        return complex(v.item())

    def release(self):
        self.cp.get_default_memory_pool().free_all_blocks()


class TorchBackend:
    name = "torch"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no GPU")
        self.torch = torch
        self.dev = torch.device("cuda")
        self.impl = "torch %s (cuFFT) on %s" % (torch.__version__, torch.cuda.get_device_name(0))

    def sync(self):
        self.torch.cuda.synchronize()

    def random(self, shape, r2c):
        t = self.torch
        g = t.Generator(device=self.dev).manual_seed(1)
        x = t.rand(shape, dtype=t.float64, device=self.dev, generator=g) * 2 - 1
        if r2c:
            return x
        return t.complex(x, t.rand(shape, dtype=t.float64, device=self.dev, generator=g) * 2 - 1)

    def forward(self, x, c, axes):
        fft = self.torch.fft
        return fft.rfftn(x, dim=axes) if c["r2c"] else fft.fftn(x, dim=axes)

    def backward(self, X, c, axes):
        fft = self.torch.fft
        if c["r2c"]:
            return fft.irfftn(X, s=c["dims"], dim=axes, norm="forward")
        return fft.ifftn(X, dim=axes, norm="forward")

    def quarter_phases(self, n):
        t = self.torch
        table = t.tensor([1, -1j, -1, 1j], dtype=t.complex128, device=self.dev)
        return table[t.arange(n, device=self.dev) % 4]

    def norm2(self, x):
        return float((x.abs() ** 2).sum())

    def scalar(self, v):
        return complex(v.item())

    def release(self):
        self.torch.cuda.empty_cache()


def make_backend():
    errors = []
    for cls in (TorchBackend, CupyBackend):
        try:
            return cls(), None
        except Exception as e:  # ImportError, no device, a CUDA driver error
            errors.append("%s: %s" % (cls.name, first_line(e)))
    return None, "; ".join(errors)


def spectrum_error(b, c, x, X):
    """Largest error of X at n/4 along the first and the last axis, in the first and the
    last transform, relative to |x|_2 of that transform."""
    dims, rank = c["dims"], len(c["dims"])
    worst = 0.0
    for t in sorted({0, c["howmany"] - 1}):
        xt, Xt = x[t], X[t]
        scale = math.sqrt(b.norm2(xt))
        for a in sorted({0, rank - 1}):
            shape = [1] * rank
            shape[a] = dims[a]
            want = b.scalar((xt * b.quarter_phases(dims[a]).reshape(shape)).sum())
            index = [0] * rank
            index[a] = dims[a] // 4
            err = abs(b.scalar(Xt[tuple(index)]) - want) / scale
            worst = err if math.isnan(err) or err > worst else worst
    return worst


def run_cell(b, c, args, predicted):
    shape = [c["howmany"]] + c["dims"]  # the batch axis first, as the C program's layout
    axes = tuple(range(1, len(shape)))
    t_cell = time.perf_counter()
    x = b.random(shape, c["r2c"])
    b.sync()
    setup = time.perf_counter() - t_cell
    t0 = time.perf_counter()
    X = b.forward(x, c, axes)
    b.sync()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    err_spectrum = spectrum_error(b, c, x, X)
    y = b.backward(X, c, axes)
    err_roundtrip = math.sqrt(b.norm2(y - c["n"] * x) / b.norm2(x)) / c["n"]
    del y
    b.sync()
    setup += time.perf_counter() - t0

    t0 = time.perf_counter()
    X = b.forward(x, c, axes)
    b.sync()
    inner = max(1, min(200, math.ceil(MIN_REP_SECONDS / max(time.perf_counter() - t0, 1e-7))))
    times = []
    t_loop = time.perf_counter()
    while len(times) < args.reps and (not times or (time.perf_counter() - t_loop < args.cell_seconds
                                                   and not stop_requested)):
        b.sync()
        t0 = time.perf_counter()
        for _ in range(inner):
            X = b.forward(x, c, axes)
        b.sync()
        times.append((time.perf_counter() - t0) / inner)
    del x, X
    b.release()
    median = statistics.median(times)
    tol = 32 * math.log2(c["n"]) * EPS
    rec = cell_record(c, args.label)
    rec.update({
        "seconds_per_transform": median, "best_s": min(times), "reps": len(times),
        "calls_per_rep": inner, "gflops": c["flops"] / median * 1e-9, "first_s": first,
        "host_s": setup, "cell_s": time.perf_counter() - t_cell, "predicted_s": predicted,
        "check": "ok" if err_spectrum <= tol and err_roundtrip <= tol else "FAIL",
        "err_spectrum": err_spectrum, "err_roundtrip": err_roundtrip, "tol": tol})
    return rec, setup / (c["n"] * c["howmany"])


def cell_record(c, label):
    return {"kind": "fft", "label": label, "cell": c["cell"], "type": c["type"],
            "dims": c["dims"], "n": c["n"], "howmany": c["howmany"], "prec": "d"}


def predict(c, gflops, setup_per_point, reps, cell_seconds):
    t = c["flops"] / (gflops * 1e9)
    timed = max(1, min(reps, math.ceil(cell_seconds / t)))
    # warm-up, calibration and backward transforms; 1.5 for first-call overheads
    return 1.5 * (3 + timed) * t + setup_per_point * c["n"] * c["howmany"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--cells", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cell-seconds", type=float, default=1.5)
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds from process start after which no cell starts")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        cells = sorted((parse_cell(s) for s in args.cells.split(",") if s),
                       key=lambda c: c["flops"])
    except ValueError as e:
        ap.error(str(e))

    b, why = make_backend()
    if b is None:
        gc.emit(args.out, {"kind": "error", "label": args.label,
                           "error": "n/a: no PyTorch or CuPy with a GPU (%s)" % why})
        return 0
    gc.emit(args.out, {"kind": "info", "label": args.label, "impl": b.impl, "budget": args.budget})

    gflops, setup_per_point = PRIOR_GFLOPS, PRIOR_SETUP_PER_POINT
    for c in cells:
        predicted = predict(c, gflops, setup_per_point, args.reps, args.cell_seconds)
        left = args.budget - gc.now()
        if stop_requested or predicted > left:
            gc.emit(args.out, dict(cell_record(c, args.label), predicted_s=predicted, left_s=left,
                                   skipped="stopped (SIGTERM)" if stop_requested else "budget"))
            continue
        gc.emit(args.out, dict(cell_record(c, args.label), kind="start"))
        try:
            rec, setup_per_point = run_cell(b, c, args, predicted)
            gflops = rec["gflops"]
        except Exception as e:  # out of device memory, a cuFFT error: this cell only
            rec = dict(cell_record(c, args.label),
                       error="error: %s: %s" % (e.__class__.__name__, first_line(e)))
            b.release()
        gc.emit(args.out, rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
