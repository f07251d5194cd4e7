#!/usr/bin/env python3
"""A few NumPy matrix products, large and small, with a sanity check of each result.

Run it as is, then under the shim and compare (results must agree; only the time moves):

    python3 examples/matmul_demo.py
    LD_PRELOAD=$PWD/build/libgpushim.so GPUSHIM_REPORT=1 python3 examples/matmul_demo.py

GPUSHIM_REPORT=1 prints, at exit, which calls ran on the GPU and which on the CPU. On a
machine without a GPU the shim keeps everything on the CPU (try GPUSHIM_BACKEND=hostsim
GPUSHIM_THRESHOLD=0 to see the offload path taken with a host-simulated device).

Each product C = A @ B is checked with a random vector x: C x must equal A (B x) up to
rounding, relative to |A| (|B| |x|). Matrix-vector products are Level-2 BLAS, which the shim
leaves alone, so the check does not depend on what it checks.
"""
import sys
import time

import numpy as np

rng = np.random.default_rng(2024)


def random(shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def run(label, a, b, *, repeat=1):
    t0 = time.perf_counter()
    for _ in range(repeat):
        c = a @ b
    dt = (time.perf_counter() - t0) / repeat
    x = random(b.shape[1], a.dtype)
    err = np.abs(c @ x - a @ (b @ x)).max()
    scale = (np.abs(a) @ (np.abs(b) @ np.abs(x))).max()
    k = a.shape[1]
    rel = err / scale if scale else 0.0
    ok = rel <= 10 * k * np.finfo(a.dtype).eps
    m, n = c.shape
    flops = (8 if np.iscomplexobj(c) else 2) * m * n * k
    print(f"{label:34s} {str(a.dtype):10s} {m:5d}x{k:<5d}@{k:5d}x{n:<5d} "
          f"{dt * 1e3:9.2f} ms {flops / dt / 1e9:8.1f} GFLOP/s  "
          f"residual {rel:.1e}  {'ok' if ok else 'WRONG'}")
    return ok


def main():
    print(f"NumPy {np.__version__}")
    ok = True
    n = 2000
    ok &= run("large float64", random((n, n), np.float64), random((n, n), np.float64))
    ok &= run("large float32", random((n, n), np.float32), random((n, n), np.float32))
    ok &= run("large complex128 (n/2)", random((n // 2, n // 2), np.complex128),
              random((n // 2, n // 2), np.complex128))
    a = random((n, n // 2), np.float64)
    ok &= run("large A @ A.T (syrk)", a, a.T)
    ok &= run("tall-skinny float64", random((4 * n, 64), np.float64),
              random((64, n), np.float64))
    for dt in (np.float64, np.float32, np.complex64, np.complex128):
        ok &= run("small (stays on the CPU)", random((50, 40), dt), random((40, 30), dt),
                  repeat=200)
    print("all results OK" if ok else "SOME RESULTS ARE WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
