#!/usr/bin/env python3
"""The `gpushim` command (tools/): info and tune, seen from the shell.

  test_tool.py --shim build/libgpushim.so --tool build/gpushim [--python /usr/bin/python3]

  - --help: usage, exit 0; an unknown command or a routine tune does not measure (dtrsm,
    dheevd): exit 2
  - info, a settings file with GPUSHIM_THRESHOLD_DGEMM=77, the backend under test: names
    the file, GPUSHIM_VERIFY off, dgemm's threshold, the device, the residency cache's room, the CPU BLAS
    library; exit 0; with GPUSHIM_CACHE_BYTES=0: the cache is off; with
    GPUSHIM_GPU_MEMORY=4G: that limit, and a cache of a quarter of it; with
    GPUSHIM_CPU_LAPACK=Debian's reference LAPACK: that library for dgesv_; with
    GPUSHIM_DEVICE=local-rank and SLURM_LOCALID=5: that rank (and, over the emulated CUDA
    libraries with two devices, device 1)
  - info with a backend that does not exist: says there is no device; exit 0
  - tune --routines dgemm,dgetrf,dsyevd,zgesdd,fft --max-n 160 --write FILE, the backend
    under test: exit 0; sizes measured (the device completed its calls); every line of FILE
    a comment or a GPUSHIM_THRESHOLD_DGEMM/DGETRF/DSYEVD/ZGESDD/FFT setting; a NumPy program
    under LD_PRELOAD with GPUSHIM_CONFIG=FILE computes right, without a warning
  - tune with a backend that does not exist: exit 1, saying there is no usable device
  - run: without a program or with an unknown option, exit 2; a program not found, exit 127;
    `run printenv LD_PRELOAD` with LD_PRELOAD=/elsewhere/libgpushim.so:libm.so.6: this
    library's absolute path first, the other shim gone, libm.so.6 kept; a statically linked
    program and a 32-bit one: a warning that nothing is preloaded into them;
    `run --report=FILE --trace --verify PYTHON products.py` (no LD_PRELOAD of its own,
    threshold 0): computes right, FILE has dgemm on the device, stderr a trace line for it
    that says it was checked
"""
from __future__ import annotations

import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

PRODUCTS = r'''
import numpy as np
r = np.random.default_rng(3)
a = r.standard_normal((300, 200))
b = r.standard_normal((200, 250))
c = a @ b
exact = np.einsum("ij,jk->ik", a, b, optimize=False)
ok = np.allclose(c, exact, rtol=0, atol=1e-10 * np.abs(exact).max())
print("RESULTS", "OK" if ok else "WRONG")
'''


STATIC_PROGRAM = "int main(void) { return 0; }\n"


def elf32_header() -> bytes:
    """The ELF header of a 32-bit x86 executable, alone: enough for `run` to tell its class."""
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)  # ELFCLASS32, little-endian, version 1
    return ident + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, 0, 52, 0, 0, 52, 32, 0, 40, 0, 0)


def check_run(tool, shim, python, products, tmp, expect, problems):
    """`gpushim run`: see the module's docstring."""
    plain = st.make_env(shim, None, preload=False)
    expect("run without a program", st.run([tool, "run"], plain), 2, "no program",
           stream="stderr")
    expect("run with an unknown option", st.run([tool, "run", "--bogus", "true"], plain), 2,
           "--bogus", stream="stderr")
    expect("run of a program not found",
           st.run([tool, "run", "--", "no-such-program-gpushim"], plain), 127,
           "no-such-program-gpushim", stream="stderr")
    inherited = dict(plain, LD_PRELOAD="/elsewhere/libgpushim.so:libm.so.6")
    res = st.run([tool, "run", "printenv", "LD_PRELOAD"], inherited)
    want = f"{os.path.realpath(shim)}:libm.so.6"
    if res.returncode != 0 or res.stdout.strip() != want:
        problems.append(f"run's LD_PRELOAD: {res.stdout.strip()!r} (exit {res.returncode}), "
                        f"want {want!r}")
    st.log(f"run's LD_PRELOAD: {res.stdout.strip()}")

    compiler = shutil.which("cc")
    static = os.path.join(tmp, "static_program")
    source = static + ".c"
    with open(source, "w") as f:
        f.write(STATIC_PROGRAM)
    if compiler is not None and st.run([compiler, "-static", "-o", static, source],
                                       plain).returncode == 0:
        expect("run of a statically linked program", st.run([tool, "run", static], plain), 0,
               "statically linked", stream="stderr")
    elif os.environ.get("CI") == "true":
        problems.append("cc -static could not build a static program")
    elf32 = os.path.join(tmp, "program32")
    with open(elf32, "wb") as f:
        f.write(elf32_header())
    os.chmod(elf32, 0o755)
    res = st.run([tool, "run", elf32], plain)
    if "32-bit" not in res.stderr:
        problems.append(f"run of a 32-bit program does not warn: {res.stderr[-500:]!r}")

    report = os.path.join(tmp, "run_report.json")
    res = st.run([tool, "run", f"--report={report}", "--trace", "--verify", python, products],
                 plain)
    if res.returncode != 0 or "RESULTS OK" not in res.stdout:
        problems.append(f"run of the products: exit {res.returncode}, {res.stdout.strip()!r}, "
                        f"stderr {res.stderr[-500:]!r}")
    if os.path.isfile(report):
        problems += st.check_report(st.load_report_file(report), gpu=["dgemm"])
    else:
        problems.append("run --report=FILE wrote no report")
    if not re.search(r"dgemm m=\d+ n=\d+ k=200: GPU, .*checked: agrees", res.stderr):
        problems.append(f"run --trace --verify: no trace line of the product, checked: "
                        f"{res.stderr[-800:]!r}")


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    ap.add_argument("--tool", required=True)
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    tool = os.path.abspath(args.tool)
    missing_backend = "/nonexistent/libgpushim_nothing.so"
    problems = []

    def tool_env(backend=None, extra=None):
        # The backend under test unless one is named; no LD_PRELOAD: the command is the
        # library's code itself.
        chosen = {"backend": backend} if backend is not None else {}
        return st.make_env(shim, None, preload=False, threshold=None, extra=extra, **chosen)

    def expect(name, res, code, *needles, stream="stdout"):
        text = res.stdout if stream == "stdout" else res.stderr
        mine = []
        if res.returncode != code:
            mine.append(f"exit {res.returncode}, want {code}")
        mine += [f"no {needle!r} in its {stream}" for needle in needles if needle not in text]
        if mine:
            problems.append(f"{name}: " + "; ".join(mine) +
                            f"\n  stdout: {res.stdout[-800:]!r}\n  stderr: {res.stderr[-800:]!r}")
        st.log(f"{name}: {'FAIL' if mine else 'ok'}")

    with st.tempdir("tool_") as tmp:
        expect("--help", st.run([tool, "--help"], tool_env()), 0, "gpushim tune")
        expect("unknown command", st.run([tool, "frobnicate"], tool_env()), 2, "usage",
               stream="stderr")
        expect("tune of a routine it does not measure",
               st.run([tool, "tune", "--routines", "dtrsm"], tool_env()), 2, "dtrsm",
               stream="stderr")
        expect("tune of a Hermitian routine in real precision",
               st.run([tool, "tune", "--routines", "dheevd"], tool_env()), 2, "dheevd",
               stream="stderr")

        settings = os.path.join(tmp, "site.conf")
        with open(settings, "w") as f:
            f.write("GPUSHIM_THRESHOLD_DGEMM = 77\n")
        res = st.run([tool, "info"], tool_env(extra={"GPUSHIM_CONFIG": settings}))
        expect("info", res, 0, f"settings file: {settings}", "dgemm 77", "device: ",
               "GPUSHIM_VERIFY: 0",
               "CPU BLAS (dgemm_): /", "residency cache: up to")
        res_off = st.run([tool, "info"], tool_env(extra={"GPUSHIM_CACHE_BYTES": "0"}))
        expect("info, cache off", res_off, 0, "residency cache: off")
        res_limit = st.run([tool, "info"], tool_env(extra={"GPUSHIM_GPU_MEMORY": "4G"}))
        expect("info, GPUSHIM_GPU_MEMORY=4G", res_limit, 0,
               "device memory gpushim may hold: 4.29 GB (GPUSHIM_GPU_MEMORY)",
               "residency cache: up to 1.07 GB")
        cudasim = os.environ.get(st.CUDASIM_VARIABLE) == "1"
        res_device = st.run([tool, "info"], tool_env(extra={
            **{v: None for v in st.LOCAL_RANK_VARIABLES},
            "GPUSHIM_DEVICE": "local-rank", "SLURM_LOCALID": "5",
            **({"CUDASIM_DEVICES": "2"} if cudasim else {})}))
        expect("info, GPUSHIM_DEVICE=local-rank", res_device, 0,
               "GPUSHIM_DEVICE: local-rank (5, from SLURM_LOCALID)",
               *(["(device 1 of 2, "] if cudasim else []))
        ref_lapack = "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3"
        if os.path.isfile(ref_lapack):
            res_lapack = st.run([tool, "info"], tool_env(extra={"GPUSHIM_CPU_LAPACK": ref_lapack}))
            expect("info, GPUSHIM_CPU_LAPACK=reference", res_lapack, 0,
                   f"CPU LAPACK (dgesv_): {ref_lapack}")
        if st.test_backend() == "hostsim" and "device: hostsim" not in res.stdout:
            problems.append(f"info: the device is not hostsim's: {res.stdout[-800:]!r}")
        if "CPU BLAS (dgemm_): not found" in res.stdout:
            # The GPU machine has no BLAS with the standard names (pip's are scipy_-named).
            st.skip("no CPU BLAS with the standard names for tune to time")
        expect("info without a device",
               st.run([tool, "info"], tool_env(backend=missing_backend)), 0, "device: none")

        written = os.path.join(tmp, "tuned.conf")
        res = st.run([tool, "tune", "--routines", "dgemm,dgetrf,dsyevd,zgesdd,fft", "--max-n", "160",
                      "--seconds", "20", "--write", written], tool_env(), timeout=300)
        expect("tune", res, 0, "# dgemm: the CPU's ", "n, CPU ms, device ms", "written to")
        lines = open(written).read().splitlines() if os.path.isfile(written) else []
        settings_lines = [line for line in lines if not line.startswith("#")]
        bad = [line for line in settings_lines
               if not re.fullmatch(r"GPUSHIM_THRESHOLD_(DGEMM|DGETRF|DSYEVD|ZGESDD|FFT)=\d+", line)]
        if not lines or bad:
            problems.append(f"tune wrote {len(lines)} lines, {bad[:3]} not settings")
        for routine in ("DGEMM", "DGETRF", "DSYEVD", "ZGESDD", "FFT"):
            if not any(f"THRESHOLD_{routine}" in line for line in lines):
                problems.append(f"tune wrote nothing about {routine.lower()}")
        measured = [line for line in lines if re.fullmatch(r"#\s+\d+\s+[\d.]+\s+[\d.]+", line)]
        if len(measured) < 12:  # n = 64, 96, 160 for each matrix, more FFTs: the device computed
            problems.append(f"tune measured {len(measured)} sizes: {lines}")
        st.require_numpy(args.python)
        prog = os.path.join(tmp, "products.py")
        with open(prog, "w") as f:
            f.write(PRODUCTS)
        res = st.run([args.python, prog],
                     st.make_env(shim, None, threshold=None, extra={"GPUSHIM_CONFIG": written}))
        if res.returncode != 0 or "RESULTS OK" not in res.stdout or "warning" in res.stderr:
            problems.append(f"the tuned settings under LD_PRELOAD: exit {res.returncode}, "
                            f"{res.stdout.strip()!r}, stderr {res.stderr[-500:]!r}")

        check_run(tool, shim, args.python, prog, tmp, expect, problems)

        expect("tune without a device",
               st.run([tool, "tune", "--routines", "dgemm", "--max-n", "64"],
                      tool_env(backend=missing_backend)), 1, "no usable device",
               stream="stderr")

    return st.finish(problems, "PASS")


if __name__ == "__main__":
    sys.exit(main())
