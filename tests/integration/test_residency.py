#!/usr/bin/env python3
"""Device copies of operands kept between calls (the residency cache), seen from NumPy.

  test_residency.py --shim build/libgpushim.so [--python /usr/bin/python3]

A NumPy program multiplies X (8 x 4200) by W (4200 x 1000) again and again under
LD_PRELOAD=<shim>, GPUSHIM_THRESHOLD=0, changing the operands in between, and checks every
product against a BLAS-free reference. Row-major X @ W is the column-major product
W^T X^T: the device's A is W's buffer (33.6 MB: two 32 MiB upload chunks, the second of
45568 bytes), B is X's (268800 bytes). The JSON report's bytes_h2d and bytes_reused must
then be exactly what the cache promises: an unchanged chunk is not copied, a changed one
is copied again.
  - one panel: the steps below, exact bytes
  - four panels of the output (GPUSHIM_PANEL_BYTES=16000): B is kept panel by panel, so a
    change to one column of X copies only that panel's B again
  - GPUSHIM_CACHE_BYTES=0: every call copies everything, nothing reused
  - GPUSHIM_CACHE_BYTES=40000000 (room for W or W2, not both): results right
  - faults (every 11th device operation fails): results right, some calls recomputed on
    the CPU, so some leases end without their upload complete
  - four threads multiplying by the same W at once: results right
  - X and W refilled before each of 10 calls (as a Fortran code does), then 6 calls
    without a change: everything copied 11 times, found on the device 5 times
  - a result used by the next call: P = X @ W, then Q = Z @ P (P is the device's A) or
    Q = P @ V (its B), into the same arrays five times, X changed before each repetition
    (so P changes too) and P changed by the program once between the two products. Once
    a call has read P, the result written into it is kept on the device with the prints
    taken as it was delivered, and P is not copied again unless the program changed it;
    Q, which no call reads, is never kept. In one panel and in four
    (GPUSHIM_PANEL_BYTES=16000: P's prints are taken across panels, and P @ V reads the
    kept P whole, not in the panels it would otherwise keep)
  - SciPy's solve (GETRF, then GETRS on the factors) three times and inv (GETRF, then
    GETRI): each GETRS and GETRI finds the factors on the device (the report's dgetrs and
    dgetri bytes_reused are the factors' bytes, each time), and every result is checked;
    then SciPy's qr_multiply twice (GEQRF, then ORMQR with the reflectors GEQRF left, which
    the device only reads: dormqr's bytes_reused are the reflectors' bytes, each time),
    checked by C A = (C Q) R and A^T A = R^T R
Steps: 1 first product (an operand seen once is not kept); 2 the same (now kept); 2b the
same (found on the device); 3 W[0,0] changed; 4 W[-1,-1] changed; 5 X[3,5] changed; 6 a
copy of W (another address); 7 W doubled in place; 8 the copy freed and a new random
matrix of its shape made (its memory may well be the copy's).
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

M, K, N = 8, 4200, 1000
A_BYTES = N * K * 8       # W, the device's A
B_BYTES = K * M * 8       # X, the device's B
Z_ROWS = 6                # the chained scenario's Q = Z @ P
P_BYTES = M * N * 8       # P, the first product's output, the second's A or B
Z_BYTES = Z_ROWS * M * 8  # Z, the second product's B in Z @ P
V_BYTES = N * N * 8       # V, the second product's A in P @ V
CHUNK = 32 << 20          # QueueContext::kChunkBytes
A_LAST_CHUNK = A_BYTES - CHUNK
PANELS = 4                # GPUSHIM_PANEL_BYTES=16000: 2 output columns of 1000 doubles each

PROGRAM = r'''
import sys
import threading
import numpy as np
Z_ROWS, M, K, N = %d, %d, %d, %d
scenario = sys.argv[1]
rng = np.random.default_rng(11)
bad = []

def check(step, x, w, c):
    # BLAS-free: einsum without optimisation; bound (K + 2) eps |X| |W| per entry
    exact = np.einsum("ij,jk->ik", x, w, optimize=False)
    bound = 4 * (K + 2) * np.finfo(np.float64).eps * np.einsum(
        "ij,jk->ik", np.abs(x), np.abs(w), optimize=False)
    if not np.all(np.abs(c - exact) <= bound):
        bad.append(f"step {step}: max error {np.abs(c - exact).max():.3g}")

X = rng.standard_normal((M, K))
W = rng.standard_normal((K, N))
if scenario == "refilled":
    # As a Fortran code does: the same arrays refilled before every call, then left alone.
    for i in range(16):
        if i < 10:
            X[:] = rng.standard_normal((M, K))
            W[:] = rng.standard_normal((K, N))
        check(f"refilled {i}", X, W, X @ W)
elif scenario in ("chained", "chained_b"):
    P = np.empty((M, N))
    if scenario == "chained":
        left, right = rng.standard_normal((Z_ROWS, M)), P
    else:
        left, right = P, rng.standard_normal((N, N))
    Q = np.empty((left.shape[0], right.shape[1]))
    for i in range(5):
        if i > 0:
            X[i %% M, 0] += 1.0
        np.matmul(X, W, out=P)
        check(f"{scenario} {i} P", X, W, P)
        if i == 3:
            P[0, 0] += 1.0
        np.matmul(left, right, out=Q)
        check(f"{scenario} {i} Q", left, right, Q)
elif scenario == "threads":
    def work(seed):
        local = np.random.default_rng(seed)
        for i in range(5):
            x = local.standard_normal((M, K))
            check(f"thread {seed} product {i}", x, W, x @ W)
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
else:
    check(1, X, W, X @ W)
    check(2, X, W, X @ W)
    check("2b", X, W, X @ W)
    W[0, 0] += 1.0
    check(3, X, W, X @ W)
    W[-1, -1] -= 1.0
    check(4, X, W, X @ W)
    X[3, 5] += 1.0
    check(5, X, W, X @ W)
    W2 = W.copy()
    check(6, X, W2, X @ W2)
    W *= 2.0
    check(7, X, W, X @ W)
    del W2
    W3 = rng.standard_normal((K, N))
    check(8, X, W3, X @ W3)
print("RESULTS", "WRONG " + "; ".join(bad) if bad else "OK")
sys.exit(1 if bad else 0)
''' % (Z_ROWS, M, K, N)


SOLVES = 3
QR_PRODUCTS = 2
FACTOR_ORDER = 500
SCIPY_PROGRAM = r'''
import numpy as np
import scipy.linalg as sl
n = %d
rng = np.random.default_rng(5)
A = rng.standard_normal((n, n)) + n * np.eye(n)
B = rng.standard_normal((n, 3))
eps = np.finfo(np.float64).eps
bad = []
for i in range(%d):
    x = sl.solve(A, B)
    residual = np.abs(np.einsum("ij,jk->ik", A, x, optimize=False) - B).max()
    if not residual <= 16 * n * eps * (n * np.abs(A).max() * np.abs(x).max() + np.abs(B).max()):
        bad.append(f"solve {i}: residual {residual:.3g}")
inverse = sl.inv(A)
off = np.abs(np.einsum("ij,jk->ik", A, inverse, optimize=False) - np.eye(n)).max()
if not off <= 1e-10:
    bad.append(f"inv: max |A inv(A) - I| {off:.3g}")
C = rng.standard_normal((3, n))
for i in range(%d):
    CQ, R = sl.qr_multiply(A, C)
    scale = 16 * n * eps * n * np.abs(A).max() * max(np.abs(C).max(), np.abs(R).max())
    off = np.abs(np.einsum("ij,jk->ik", CQ, R, optimize=False) -
                 np.einsum("ij,jk->ik", C, A, optimize=False)).max()
    gram = np.abs(np.einsum("ji,jk->ik", R, R, optimize=False) -
                  np.einsum("ji,jk->ik", A, A, optimize=False)).max()
    if not (off <= scale and gram <= scale * np.abs(R).max()):
        bad.append(f"qr_multiply {i}: max |(C Q) R - C A| {off:.3g}, |R^T R - A^T A| {gram:.3g}")
print("RESULTS", "WRONG " + "; ".join(bad) if bad else "OK")
''' % (FACTOR_ORDER, SOLVES, QR_PRODUCTS)


SCIPY_CASE = "scipy solve, inv, qr_multiply"


def scipy_factors_case(python: str, shim: str, tmp: str) -> list[str]:
    """SciPy's solve, inv and qr_multiply: the factors GETRF and GEQRF leave are found by
    GETRS, GETRI and ORMQR."""
    prog = os.path.join(tmp, "scipy_solve.py")
    with open(prog, "w") as f:
        f.write(SCIPY_PROGRAM)
    rdir = os.path.join(tmp, "scipy")
    os.mkdir(rdir)
    env = st.make_env(shim, rdir, extra={"OPENBLAS_NUM_THREADS": "1"})
    res = st.run([python, prog], env, cwd=tmp)
    if res.returncode != 0 or "RESULTS OK" not in res.stdout:
        return [f"exit {res.returncode}, stdout {res.stdout.strip()[-600:]!r}, stderr "
                f"{res.stderr.strip()[-600:]!r}"]
    report = st.load_report_file(st.report_files(rdir)[0]) if st.report_files(rdir) else {}
    factor_bytes = FACTOR_ORDER * FACTOR_ORDER * 8
    problems = []
    for routine, gpu_calls, reused in (("dgetrf", SOLVES + 1, 0),
                                       ("dgetrs", SOLVES, SOLVES * factor_bytes),
                                       ("dgetri", 1, factor_bytes),
                                       ("dormqr", QR_PRODUCTS, QR_PRODUCTS * factor_bytes)):
        entry = report.get(routine)
        if entry is None:
            problems.append(f"no {routine} in the report")
            continue
        st.log(f"{SCIPY_CASE}: {routine} gpu_calls {entry['gpu_calls']}, bytes_reused "
               f"{entry.get('bytes_reused')}")
        if (entry["gpu_calls"], entry.get("bytes_reused")) != (gpu_calls, reused):
            problems.append(f"{routine}: (gpu_calls, bytes_reused) = ({entry['gpu_calls']}, "
                            f"{entry.get('bytes_reused')}), expected ({gpu_calls}, {reused})")
    return problems


def expected_bytes(panels: int) -> tuple[int, int]:
    """(bytes_h2d, bytes_reused) of the nine steps with an unlimited cache."""
    b_panel = B_BYTES // panels
    steps = [  # (copied, reused) per step
        (A_BYTES + B_BYTES, 0),                          # 1: first seen: not kept
        (A_BYTES + B_BYTES, 0),                          # 2: seen again: kept
        (0, A_BYTES + B_BYTES),                          # 2b: all of it on the device
        (CHUNK, A_LAST_CHUNK + B_BYTES),                 # 3: W's first chunk changed
        (A_LAST_CHUNK, CHUNK + B_BYTES),                 # 4: W's last chunk changed
        (b_panel, A_BYTES + B_BYTES - b_panel),          # 5: one panel's columns of X
        (A_BYTES, B_BYTES),                              # 6: the copy is new
        (A_BYTES, B_BYTES),                              # 7: every chunk of W changed
        (A_BYTES, B_BYTES),                              # 8: new bytes, wherever they are
    ]
    return sum(s[0] for s in steps), sum(s[1] for s in steps)


def expected_chained_bytes(panels: int, other: int) -> tuple[int, int]:
    """(bytes_h2d, bytes_reused) of a chained scenario's five repetitions, `other` being
    the bytes of the second product's other operand (Z or V)."""
    x_panel = B_BYTES // panels
    # X's changed rows 1, 2, 3, 4 are columns of the device's B: in one panel, or in panels
    # 0, 1, 1, 2 of four (panel 1 changed at two uses in a row rests one use: copied).
    x_copied = [B_BYTES] * 5 if panels == 1 else [B_BYTES, B_BYTES, x_panel, x_panel,
                                                    2 * x_panel]
    steps = [  # (copied, reused) per repetition, of W, Z or V, P; X's below
        (A_BYTES + other + P_BYTES, 0),            # 0: all read once
        (A_BYTES + other, P_BYTES),                # 1: W, Z or V read again: kept; P
                                                   #    written after it was read: kept
        (0, A_BYTES + other + P_BYTES),            # 2
        (P_BYTES, A_BYTES + other),                # 3: P changed by the program
        (0, A_BYTES + other + P_BYTES),            # 4
    ]
    copied = sum(s[0] for s in steps) + sum(x_copied)
    reused = sum(s[1] for s in steps) + sum(B_BYTES - c for c in x_copied[1:])
    return copied, reused


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    st.require_numpy(args.python)

    # name, scenario, extra env, (bytes_h2d, bytes_reused) or None
    cases = [
        ("one panel", "steps", {}, expected_bytes(1)),
        ("four panels", "steps", {"GPUSHIM_PANEL_BYTES": "16000"}, expected_bytes(PANELS)),
        ("CACHE_BYTES=0", "steps", {"GPUSHIM_CACHE_BYTES": "0"},
         (9 * (A_BYTES + B_BYTES), 0)),
        ("CACHE_BYTES=40000000", "steps", {"GPUSHIM_CACHE_BYTES": "40000000"}, None),
        ("threads", "threads", {}, None),
        # 10 calls with everything refilled: all copied (the operands rest from the checks
        # after two misses in a row); then 6 unchanged: prints taken again at the 11th,
        # found unchanged from the 12th.
        ("refilled", "refilled", {}, (11 * (A_BYTES + B_BYTES), 5 * (A_BYTES + B_BYTES))),
        ("chained", "chained", {}, expected_chained_bytes(1, Z_BYTES)),
        ("chained, four panels", "chained", {"GPUSHIM_PANEL_BYTES": "16000"},
         expected_chained_bytes(PANELS, Z_BYTES)),
        ("chained as B", "chained_b", {}, expected_chained_bytes(1, V_BYTES)),
        ("chained as B, four panels", "chained_b", {"GPUSHIM_PANEL_BYTES": "16000"},
         expected_chained_bytes(PANELS, V_BYTES)),
    ]
    if st.test_backend() == "hostsim":
        cases.append(("faults", "steps", {"GPUSHIM_HOSTSIM_FAIL_EVERY": "11"}, None))

    problems = []
    with st.tempdir("residency_") as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        for i, (name, scenario, extra, expect) in enumerate(cases):
            rdir = os.path.join(tmp, f"case{i}")
            os.mkdir(rdir)
            env = st.make_env(shim, rdir, extra={"OPENBLAS_NUM_THREADS": "1", **extra})
            res = st.run([args.python, prog, scenario], env, cwd=tmp)
            mine = []
            if res.returncode != 0 or "RESULTS OK" not in res.stdout:
                mine.append(f"exit {res.returncode}, stdout {res.stdout.strip()[-600:]!r}")
            rep = st.load_reports(rdir).get("dgemm") if st.report_files(rdir) else None
            if rep is None:
                mine.append("no dgemm in the report")
            else:
                reused = st.load_report_file(st.report_files(rdir)[0])["dgemm"].get(
                    "bytes_reused")
                st.log(f"{name}: dgemm gpu_calls {rep['gpu_calls']}, fallbacks "
                       f"{rep['fallbacks']}, bytes_h2d {rep['bytes_h2d']}, bytes_reused "
                       f"{reused}")
                if reused is None:
                    mine.append("the report has no bytes_reused")
                elif expect is not None:
                    calls = {"refilled": 16, "chained": 10, "chained_b": 10}.get(scenario, 9)
                    if rep["gpu_calls"] != calls:
                        mine.append(f"gpu_calls {rep['gpu_calls']}")
                    if (rep["bytes_h2d"], reused) != expect:
                        mine.append(f"(bytes_h2d, bytes_reused) = ({rep['bytes_h2d']}, "
                                    f"{reused}), expected {expect}")
                elif name == "faults":
                    if rep["gpu_calls"] <= 0 or rep["fallbacks"] <= 0:
                        mine.append("want calls completed on the device and calls recomputed "
                                    "on the CPU")
                elif reused <= 0:
                    mine.append("nothing was reused")
            if res.stderr.strip():
                st.log(f"stderr: {res.stderr.strip()[-600:]}")
            problems += [f"{name}: {p}" for p in mine]
            st.log(f"{name}: {'FAIL' if mine else 'ok'}")
        mine = scipy_factors_case(args.python, shim, tmp)
        problems += [f"{SCIPY_CASE}: {p}" for p in mine]
        st.log(f"{SCIPY_CASE}: {'FAIL' if mine else 'ok'}")
    return st.finish(problems, "PASS")


if __name__ == "__main__":
    sys.exit(main())
