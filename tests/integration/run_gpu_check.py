#!/usr/bin/env python3
"""bench/gpu_check.sh rehearsed at small sizes, on the backend under test.

  run_gpu_check.py --shim build/libgpushim.so --script bench/gpu_check.sh
                   --python .venv/bin/python

The GPU check runs once, on a machine lent for minutes; a script error found there costs
the run. This runs every step of it but the build, the test suite and the Netlib testers
(which CI runs itself) on the build beside --shim, with cells small enough for a CPU:
the GEMM columns (OpenBLAS, gpushim through NumPy and through dgemm_, a cell again with
unchanged inputs), the LAPACK columns (every operation of the default cell list, report
groups included), the FFT columns (c2c ranks 1-3, batched, r2c) and `gpushim tune`; not
the device columns (PyTorch or CuPy on a GPU: bench/torch_on_cpu rehearses them). Under
TEST_GPUSHIM_CUDASIM=1 (the CUDA plugin over tests/cudasim) NVBLAS and cuFFTW are left
out: they need entry points of cuBLAS and cuFFT the emulation does not have.

Passes when every cell of the OpenBLAS/FFTW and gpushim columns was measured and passed
its own check, the gpushim reports show each operation's routines on the device without
a fallback, the gpushim steps' call traces (logs/*.trace) show calls on the GPU, tune
measured every routine, the summary names no failed step and the tables were written.
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

GEMM_DTYPES = ("s", "d", "z")
GEMM_SIZES = (96, 160)
GEMM_REUSE = ("d", 160)
FACTOR_N = 96
# op:precision -> the LAPACK routines (less the precision letter) gpushim must run on the
# device for it; ops as bench/factor_compare.py names them
FACTOR_CELLS = {
    "solve:d": ("gesv",), "inv:d": ("gesv",), "cholesky:d": ("potrf",),
    "lu_factor:d": ("getrf",), "lu_factor:z": ("getrf",), "qr:d": ("geqrf", "orgqr"),
    "eigh:d": ("syevd",), "eigh:s": ("syevd",), "eigh_evr:d": ("syevr",),
    "svd:d": ("gesdd",), "svd:s": ("gesdd",), "lstsq:d": ("gelsd",), "eig:d": ("geev",),
    "solve_sym:d": ("sytrf", "sytrs"),
}
FFT_CELLS = ("c2c:2^10", "c2c:32x32", "c2c:8x8x8", "c2c:2^6*8", "r2c:32x32")
FFT_ROUTINES = ("fftw_dft", "fftw_dft_r2c", "fftw_dft_c2r")
TUNE_ROUTINES = ("dgemm", "zgemm", "dgetrf", "dpotrf")


def records(path: str, kind: str, label: str) -> list[dict]:
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    return [r for r in recs if r.get("kind") == kind and r.get("label") == label]


def check_cells(what: str, recs: list[dict], expected: list[tuple], key) -> list[str]:
    """Each expected cell measured once with check "ok"."""
    problems = []
    found = {key(r): r for r in recs}
    for cell in expected:
        r = found.get(cell)
        if r is None:
            problems.append(f"{what} {cell}: not measured")
        elif r.get("check") != "ok":
            problems.append(f"{what} {cell}: check {r.get('check')!r}: {r}")
    return problems


def check_device_routines(what: str, report: str, routines: list[str]) -> list[str]:
    """Problems unless each routine ran on the device, none fell back, and the process ran
    on the emulated CUDA libraries where the test says so."""
    if not os.path.isfile(report):
        return [f"{what}: no report {report}"]
    with open(report) as f:
        data = json.load(f)
    problems = []
    backend = data.get("backend") or ""
    if os.environ.get(st.CUDASIM_VARIABLE) == "1" and "cudasim" not in backend:
        problems.append(f"{what}: backend {backend!r}, not the emulated CUDA libraries")
    reps = data.get("routines", {})
    for name in routines:
        r = reps.get(name)
        if r is None or r.get("gpu_calls", 0) <= 0:
            problems.append(f"{what}: {name} not on the device: {r}")
    problems += [f"{what}: {name}: {r['fallbacks']} fallbacks" for name, r in reps.items()
                 if r.get("fallbacks", 0) > 0]
    return problems


def check_trace(step: str, path: str, line_start: str) -> list[str]:
    """The step's call trace (GPUSHIM_LOG=trace into a file): calls on the GPU, with their
    sizes, for the first GPU run to show each call's time and bytes."""
    if not os.path.isfile(path):
        return [f"{step}: no call trace {path}"]
    with open(path) as f:
        lines = [line for line in f if line_start in line]
    if not any(": GPU, " in line for line in lines):
        return [f"{step}: no call on the GPU in its trace {path} ({len(lines)} lines)"]
    return []


def check_gemm(out: str) -> list[str]:
    jsonl = os.path.join(out, "gemm.jsonl")
    problems = []
    all_cells = [(p, n) for p in GEMM_DTYPES for n in GEMM_SIZES]
    for label, cells in (("openblas", all_cells), ("gpushim", all_cells),
                         ("gpushim_reuse", [GEMM_REUSE]),
                         ("gpushim_f", [("d", n) for n in GEMM_SIZES])):
        problems += check_cells(f"gemm {label}", records(jsonl, "gemm", label), cells,
                                lambda r: (r["prec"], r["n"]))
    logs = os.path.join(out, "logs")
    problems += check_device_routines("gemm gpushim", os.path.join(
        logs, "gemm_gpushim.report.json"), [f"{p}gemm" for p in GEMM_DTYPES])
    problems += check_device_routines("gemm gpushim_f", os.path.join(
        logs, "gemm_gpushim_f.report.json"), ["dgemm"])
    problems += check_trace("gemm gpushim", os.path.join(logs, "gemm_gpushim.trace"),
                            "trace: dgemm m=")
    report = os.path.join(logs, "gemm_gpushim.report.json")
    if os.path.isfile(report):
        with open(report) as f:
            dgemm = json.load(f).get("routines", {}).get("dgemm", {})
        if dgemm.get("bytes_reused", 0) <= 0:
            problems.append("gemm gpushim: the cell with unchanged inputs reused nothing "
                            "on the device")
    return problems


def check_factor(out: str) -> list[str]:
    jsonl = os.path.join(out, "factor.jsonl")
    expected = [tuple(c.split(":")) + (FACTOR_N,) for c in FACTOR_CELLS]
    problems = []
    for label in ("openblas", "gpushim"):
        problems += check_cells(f"factor {label}", records(jsonl, "factor", label), expected,
                                lambda r: (r["op"], r["prec"], r["n"]))
    infos = records(jsonl, "info", "gpushim")
    # one process and report per report group (--split-report), so that the table can say
    # which routines each operation ran on the device
    groups = [info.get("group") for info in infos]
    if "all" in groups or len({info.get("report") for info in infos}) != len(infos):
        problems.append(f"factor gpushim: not one report per report group: groups {groups}")
    routines_by_report: dict[str, list[str]] = {}
    for info in infos:
        for cell in info.get("calls", {}):
            routines_by_report.setdefault(info["report"], []).extend(
                cell.split(":")[1] + r for r in FACTOR_CELLS.get(cell, ()))
    covered = {c for info in infos for c in info.get("calls", {})}
    problems += [f"factor gpushim: {c} in no report group" for c in FACTOR_CELLS
                 if c not in covered]
    for report, routines in sorted(routines_by_report.items()):
        problems += check_device_routines(f"factor gpushim {os.path.basename(report)}",
                                          report, sorted(set(routines)))
    problems += check_trace("factor gpushim", os.path.join(out, "logs", "factor_gpushim.trace"),
                            "trace: d")
    return problems


def check_fft(out: str) -> list[str]:
    jsonl = os.path.join(out, "fft.jsonl")
    problems = []
    for label in ("fftw", "gpushim"):
        problems += check_cells(f"fft {label}", records(jsonl, "fft", label),
                                [(c,) for c in FFT_CELLS], lambda r: (r["cell"],))
    problems += check_device_routines("fft gpushim", os.path.join(
        out, "logs", "fft_gpushim.report.json"), list(FFT_ROUTINES))
    problems += check_trace("fft gpushim", os.path.join(out, "logs", "fft_gpushim.trace"),
                            "trace: fftw")
    return problems


def check_tune(out: str) -> list[str]:
    path = os.path.join(out, "tuned.conf")
    if not os.path.isfile(path):
        return [f"tune wrote no {path}"]
    text = open(path).read()
    problems = []
    for routine in TUNE_ROUTINES + ("fft",):
        section = re.search(rf"^# {routine}: .*?\n((?:#\s+\d+\s+[\d.]+\s+[\d.]+\n)+)", text,
                            re.M)
        if section is None:
            problems.append(f"tune: no measured sizes for {routine} in {path}")
    problems += [f"tune: {line}" for line in text.splitlines()
                 if line.startswith("GPUSHIM_") and not re.fullmatch(
                     r"GPUSHIM_THRESHOLD_[A-Z]+=\d+", line)]
    return problems


def check_summary(out: str) -> list[str]:
    text = open(os.path.join(out, "gpu_check.txt")).read()
    problems = [f"summary: {line.strip()}" for line in text.splitlines()
                if re.search(r"FAILED|TIMED OUT|out of time|Traceback", line)]
    if os.environ.get(st.CUDASIM_VARIABLE) == "1" and \
            "gpushim info: device: cuda: cudasim" not in text:
        problems.append("summary: `gpushim info` did not find the emulated device")
    for table in ("table.txt", "factor_table.txt", "fft_table.txt"):
        path = os.path.join(out, table)
        if not os.path.isfile(path) or "| " not in open(path).read():
            problems.append(f"{table}: no table written")
    return problems


def main() -> int:
    ap = st.arg_parser(__doc__, python=os.path.join(HERE, "..", "..", ".venv", "bin", "python"))
    ap.add_argument("--script", required=True)
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    build = os.path.dirname(shim)
    st.require_numpy(args.python)
    backend = st.test_backend()

    # the device columns need PyTorch or CuPy on a GPU (bench/torch_on_cpu rehearses them)
    skip = ["build", "ctest", "netlib", "device", "factor_device", "fft_device"]
    if os.environ.get(st.CUDASIM_VARIABLE) == "1":
        skip += ["nvblas", "fft_cufftw"]
    with st.tempdir("gpu_check_") as out:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GPUSHIM_", "GPU_CHECK_"))}
        env.update({
            "OUT": out, "PYTHON": args.python, "GPU_CHECK_BUILD_DIR": build,
            "GPU_CHECK_BACKEND": backend, "GPU_CHECK_SKIP": " ".join(skip),
            "GPU_CHECK_BUDGET": "300",
            "GPU_CHECK_DTYPES": ",".join(GEMM_DTYPES),
            "GPU_CHECK_SIZES": ",".join(map(str, GEMM_SIZES)), "GPU_CHECK_REPS": "2",
            "GPU_CHECK_REUSE_CELLS": "%s:%d" % GEMM_REUSE,
            "GPU_CHECK_FACTOR_SIZES": str(FACTOR_N), "GPU_CHECK_FACTOR_EXTRA_SIZES": "",
            "GPU_CHECK_FACTOR_CELLS": ",".join(FACTOR_CELLS), "GPU_CHECK_FACTOR_REPS": "2",
            "GPU_CHECK_FFT_CELLS": ",".join(FFT_CELLS), "GPU_CHECK_FFT_REPS": "2",
        })
        res = st.run(["bash", args.script], env, timeout=540)
        st.log(st.tail(res.stdout, 200))
        st.log_stderr(res)
        if res.returncode != 0:
            return st.finish([f"gpu_check.sh exited {res.returncode}"])
        if "no FFTW to build against" in res.stdout:
            st.skip("no FFTW headers and threads library (libfftw3-dev)")
        problems = check_summary(out)
        problems += check_gemm(out) + check_factor(out) + check_fft(out) + check_tune(out)
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
