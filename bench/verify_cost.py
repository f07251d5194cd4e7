#!/usr/bin/env python3
"""What GPUSHIM_VERIFY costs: NumPy/SciPy calls timed without and with it, in one run.

  python3 bench/verify_cost.py --shim build/libgpushim.so [--backend hostsim] [--n 1500]
                               [--python /usr/bin/python3] [--reps 3]

Each mode runs in a child process under LD_PRELOAD=<shim>, GPUSHIM_THRESHOLD=0 (every call
offloaded), GPUSHIM_BACKEND=<backend>, with GPUSHIM_VERIFY=0, then 1. A call's time is the
best of --reps after one warm-up call. On the host-simulated device, whose "GPU" is the CPU,
the difference between the columns is the check's own cost; on a GPU, the checked column is
about the CPU library's time for the call on top of the GPU's. Prints a Markdown table and
the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import json, sys, time
import numpy as np
import scipy.linalg as sl
n, reps = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n))
s = a @ a.T + n * np.eye(n)
b = rng.standard_normal((n, 4))
tall = rng.standard_normal((3 * n, n // 2))
rhs = rng.standard_normal((3 * n, 4))
calls = {
    "a @ a (dgemm)": lambda: a @ a,
    "np.linalg.solve, 4 right-hand sides (dgesv)": lambda: np.linalg.solve(a, b),
    "scipy.linalg.lu_factor (dgetrf)": lambda: sl.lu_factor(a),
    "np.linalg.cholesky (dpotrf)": lambda: np.linalg.cholesky(s),
    "scipy.linalg.inv (dgetrf, dgetri)": lambda: sl.inv(a),
    "np.linalg.qr (dgeqrf, dorgqr)": lambda: np.linalg.qr(a),
    "np.linalg.eigh (dsyevd)": lambda: np.linalg.eigh(s),
    "np.linalg.eigvalsh (dsyevd, values only)": lambda: np.linalg.eigvalsh(s),
    f"np.linalg.lstsq, {3 * n} x {n // 2} (dgelsd)": lambda: np.linalg.lstsq(tall, rhs, rcond=None),
    "scipy.linalg.solve(assume_a='sym') (dsysv)": lambda: sl.solve(a + a.T, b, assume_a="sym"),
}
try:
    import pyfftw.interfaces.numpy_fft as fftw
    x = rng.standard_normal(2**20) + 1j * rng.standard_normal(2**20)
    calls["complex FFT of 2^20 points (pyFFTW)"] = lambda: fftw.fft(x)
except ImportError:
    pass
times = {}
for name, call in calls.items():
    call()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    times[name] = best
print(json.dumps(times))
'''


def measure(args: argparse.Namespace, verify: bool) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_")}
    env.update({"LD_PRELOAD": os.path.abspath(args.shim), "GPUSHIM_THRESHOLD": "0",
                "GPUSHIM_BACKEND": args.backend, "GPUSHIM_VERIFY": "1" if verify else "0",
                "GPUSHIM_CONFIG": ""})
    out = subprocess.run([args.python, "-c", CHILD, str(args.n), str(args.reps)], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"the {'checked' if verify else 'unchecked'} run failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--backend", default="hostsim")
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    plain, checked = measure(args, False), measure(args, True)
    print(f"n = {args.n}, backend {args.backend}, best of {args.reps}\n")
    print("| call | unchecked | checked | ratio |\n|---|---|---|---|")
    for name, seconds in plain.items():
        print(f"| {name} | {seconds * 1e3:.0f} ms | {checked[name] * 1e3:.0f} ms | "
              f"{checked[name] / seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
