#!/usr/bin/env python3
"""The GPUSHIM_* environment variables, seen from a NumPy program.

  test_env_controls.py --shim build/libgpushim.so [--python /usr/bin/python3]

Each case runs a small NumPy program under LD_PRELOAD=<shim> that computes products and
checks them against a BLAS-free reference, then checks the route in the JSON report:
  - GPUSHIM_DISABLE=1 (threshold 0): correct, nothing on the GPU
  - default threshold, 8x8 products: correct, nothing on the GPU (small calls stay on CPU)
  - GPUSHIM_BACKEND=<path of the plugin under test, libgpushim_hostsim.so>: offloaded
  - GPUSHIM_BACKEND=<a path that does not exist>: correct, on the CPU, exit 0
  - ... the same with GPUSHIM_LOG=off: and not a byte on stderr
  - GPUSHIM_HOSTSIM_MEMORY=1 MiB, products of 600x600 (8.6 MB of operands): correct
  - GPUSHIM_HOSTSIM_MEMORY=64 MiB, the same products: offloaded
  - GPUSHIM_GPU_MEMORY=1M, the same products: correct, nothing on the GPU (no operand fits)
  - GPUSHIM_GPU_MEMORY=64M: offloaded; GPUSHIM_GPU_MEMORY=lots: a warning naming it
The backend is the one under test ($TEST_GPUSHIM_BACKEND, default hostsim); with another
than hostsim the GPUSHIM_HOSTSIM_* cases are left out.
  - GPUSHIM_REPORT=1: the table on stderr names dgemm
  - GPUSHIM_THRESHOLD=banana: a warning naming GPUSHIM_THRESHOLD, correct results
  - GPUSHIM_CPU_BLAS=Debian's reference libblas.so.3 (+ GPUSHIM_DISABLE=1): correct
  - GPUSHIM_CPU_LAPACK=Debian's reference liblapack.so.3, and a solve (np.linalg.solve):
    correct, and the debug log says dgesv_ comes from it (GPUSHIM_DISABLE=1; and offloaded
    to hostsim, which computes on the CPU LAPACK the shim resolves for it)
A settings file (GPUSHIM_CONFIG) holds the same settings; the environment wins:
  - a file with GPUSHIM_THRESHOLD=0, no threshold in the environment: offloaded
  - a file with GPUSHIM_DISABLE=1: nothing on the GPU; with GPUSHIM_DISABLE=0 in the
    environment too: offloaded
  - a file with GPUSHIM_LOG=off and a backend that does not exist: not a byte on stderr
  - a file with a line that is no setting and an unknown name: one warning for each,
    naming the file and line, and results correct
  - GPUSHIM_CONFIG naming no file: a warning naming it, correct results
GPUSHIM_LOG=trace (a line for each call):
  - 8x8 products at the default threshold, no report: each on the CPU, "below its
    threshold" (the trace alone makes small calls leave the entry points' shortcut)
  - offloaded products and a solve: each on the GPU, with its sizes; an eigh: its workspace
    query on the CPU ("a workspace query"), the decomposition on the GPU; with every other device
    operation failing (hostsim): each recomputed on the CPU, with the bytes the failed attempt
    moved ("... to the device, 0 B back"); in narrow panels, one in nine
    failing: a product finished by the CPU
GPUSHIM_VERIFY=1 (each product the device computed, checked on the CPU):
  - with the trace: each product "checked: agrees with the CPU"; on a device computing every
    result wrong (hostsim): results correct, a warning and a trace line for each difference,
    the report's differed counts; with GPUSHIM_REPORT=1 the table's verified and differed
    columns; GPUSHIM_VERIFY=maybe: a warning naming it
A device lost for good (hostsim's GPUSHIM_HOSTSIM_LOSE_DEVICE_AT; on the emulated CUDA
libraries CUDASIM_STICKY_FAULT_AT, a kernel's illegal address, CUDA's sticky error):
  - a solve, then products, the device lost in the first calls: results correct, one
    warning, that gpushim can no longer use the GPU, the report's backend says it was lost, and
    one call tried the device and failed (on CUDA the solve, whose GETRS fails first and the
    wait for its queue then says the device is lost): every later one ran on the CPU, traced
    as "the GPU was lost earlier in this process"
A device the program resets (on the CUDA plugin, a cudaDeviceReset between the solve and the
products, after which touching a pinned buffer faults; again with the driver's
cuDevicePrimaryCtxReset, as Numba's cuda.close(); again with the program's cudaFree(0) after
it, which makes a new context; hostsim's GPUSHIM_HOSTSIM_RESET_AT), or faults with a
kernel of its own between the solve and the products (the emulated CUDA libraries'
cudasimFaultDevice, a sticky error that the plugin's driver calls meet first): results
correct, one warning, that the program reset the device (or the driver's error), no call
failed (the device was asked before it was used), the products on the CPU, traced as lost,
the report's backend says so
GPUSHIM_DEVICE (the emulated CUDA libraries with two devices; hostsim has one):
  - local-rank with OMPI_COMM_WORLD_LOCAL_RANK=3, products and a solve: offloaded to
    device 3 mod the count (the info log says which, and the CUDA plugin's description),
    device 0 left without a context
  - local-rank without a launcher's variable, 5 (beyond the devices), gpu1: one warning
    naming GPUSHIM_DEVICE, offloaded to the current device
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

PROGRAM = r'''
import sys
import numpy as np
n = int(sys.argv[1])
r = np.random.default_rng(n)
def mv(a, x):          # a @ x without BLAS
    return np.add.reduce(a * x[None, :], axis=1)
bad = 0
if "solve" in sys.argv[2:]:  # a solve first: backward error |A y - b| <= c n eps |A| |y|
    a = r.standard_normal((n, n))
    b = r.standard_normal(n)
    y = np.linalg.solve(a, b)
    err = np.abs(mv(a, y) - b).max()
    bound = 16 * n * np.finfo(np.float64).eps * np.abs(a).sum(axis=1).max() * np.abs(y).max()
    if not err <= bound:
        bad += 1
        print(f"WRONG solve n={n}: |A y - b| {err:.3g} > {bound:.3g}")
if "fault" in sys.argv[2:]:  # a kernel of the program's own faults (emulated CUDA only)
    import ctypes
    ctypes.CDLL("libcudart.so.13").cudasimFaultDevice()
if "reset" in sys.argv[2:]:  # the program resets the device, as cudaDeviceReset does
    import ctypes
    cudart = ctypes.CDLL("libcudart.so.13")
    if "driver" in sys.argv[2:]:  # or as Numba's cuda.close() does, through the driver
        address, found = ctypes.c_void_p(), ctypes.c_int()
        status = cudart.cudaGetDriverEntryPointByVersion(
            b"cuDevicePrimaryCtxReset", ctypes.byref(address), 12000, 0, ctypes.byref(found))
        if status == 0:
            status = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(address.value)(0)
    else:
        status = cudart.cudaDeviceReset()
    if status == 0 and "reinit" in sys.argv[2:]:  # and uses CUDA again: a new context
        status = cudart.cudaFree(None)
    if status != 0:
        bad += 1
        print(f"WRONG the reset (or cudaFree(0) after it) returned {status}")
for dt in (np.float64, np.complex128, np.float32):
    a = r.standard_normal((n, n)).astype(dt)
    b = r.standard_normal((n, n)).astype(dt)
    w = np.complex128 if np.iscomplexobj(a) else np.float64
    x = r.standard_normal(n).astype(w)
    for c, (p, q) in ((a @ b, (a, b)), (a @ a.T, (a, a.T))):
        p, q = p.astype(w), q.astype(w)
        # residual C x - P (Q x), bounded by (n + 2) eps |P| (|Q| |x|)
        err = np.abs(mv(c.astype(w), x) - mv(p, mv(q, x)))
        bound = 8 * (n + 2) * np.finfo(dt).eps * mv(np.abs(p), mv(np.abs(q), np.abs(x)))
        if not np.all(err <= bound):
            bad += 1
            print(f"WRONG {dt.__name__} n={n} max err {err.max():.3g}")
if "eigh" in sys.argv[2:]:  # and eigh: |S v - w v| <= c n eps |S| for each pair
    s = r.standard_normal((n, n))
    s = s + s.T
    w, v = np.linalg.eigh(s)
    err = max(np.abs(mv(s, v[:, j]) - w[j] * v[:, j]).max() for j in range(n))
    bound = 16 * n * np.finfo(np.float64).eps * np.abs(s).sum(axis=1).max()
    if not err <= bound:
        bad += 1
        print(f"WRONG eigh n={n}: |S v - w v| {err:.3g} > {bound:.3g}")
print("RESULTS", "WRONG" if bad else "OK")
sys.exit(1 if bad else 0)
'''


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    st.require_numpy(args.python)
    backend = st.test_backend()
    plugin_path = backend if "/" in backend else os.path.join(os.path.dirname(shim),
                                                              f"libgpushim_{backend}.so")
    ref_blas = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
    ref_lapack = "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3"
    mib = 1 << 20

    # name, size, make_env kwargs, extra env, expectations
    cases = [
        ("DISABLE=1", 120, {}, {"GPUSHIM_DISABLE": "1"}, {"gpu": "none"}),
        ("default threshold, small", 8, {"threshold": None}, {}, {"gpu": "none"}),
        ("BACKEND=path", 120, {"backend": plugin_path}, {}, {"gpu": "dgemm"}),
        ("BACKEND=missing", 120, {"backend": "/nonexistent/libgpushim_nothing.so"}, {},
         {"gpu": "none"}),
        ("BACKEND=missing LOG=off", 120, {"backend": "/nonexistent/libgpushim_nothing.so"},
         {"GPUSHIM_LOG": "off"}, {"gpu": "none", "stderr_empty": True}),
        ("HOSTSIM_MEMORY=1MiB", 600, {}, {"GPUSHIM_HOSTSIM_MEMORY": str(mib)}, {}),
        ("HOSTSIM_MEMORY=64MiB", 600, {}, {"GPUSHIM_HOSTSIM_MEMORY": str(64 * mib)},
         {"gpu": "dgemm"}),
        ("GPU_MEMORY=1M", 600, {}, {"GPUSHIM_GPU_MEMORY": "1M"}, {"gpu": "none"}),
        ("GPU_MEMORY=64M", 600, {}, {"GPUSHIM_GPU_MEMORY": "64M"}, {"gpu": "dgemm"}),
        ("GPU_MEMORY=lots", 60, {}, {"GPUSHIM_GPU_MEMORY": "lots"},
         {"gpu": "dgemm", "stderr_has": "GPUSHIM_GPU_MEMORY"}),
        ("REPORT=1", 60, {}, {}, {"report_stderr": True}),
        ("THRESHOLD=banana", 60, {"threshold": "banana"}, {},
         {"stderr_has": "GPUSHIM_THRESHOLD"}),
    ]
    # "@config": the settings file's text (GPUSHIM_CONFIG names it); "@config" None: a
    # GPUSHIM_CONFIG that names no file.
    cases += [
        ("CONFIG: THRESHOLD=0", 120, {"threshold": None},
         {"@config": "# a comment\n\nGPUSHIM_THRESHOLD = 0\n"}, {"gpu": "dgemm"}),
        ("CONFIG: DISABLE=1", 120, {}, {"@config": "GPUSHIM_DISABLE=1\n"}, {"gpu": "none"}),
        ("CONFIG: DISABLE=1, environment DISABLE=0", 120, {},
         {"@config": "GPUSHIM_DISABLE=1\n", "GPUSHIM_DISABLE": "0"}, {"gpu": "dgemm"}),
        ("CONFIG: LOG=off, BACKEND=missing", 120,
         {"backend": "/nonexistent/libgpushim_nothing.so"},
         {"@config": "GPUSHIM_LOG=off\n", "GPUSHIM_LOG": None},
         {"gpu": "none", "stderr_empty": True}),
        ("CONFIG: a bad line, an unknown name", 60, {},
         {"@config": "GPUSHIM_THRESHOLD=0\nthreshold 0\nGPUSHIM_TRESHOLD=5\n"},
         {"gpu": "dgemm", "stderr_has": "gpushim.conf:2", "stderr_has_too": "GPUSHIM_TRESHOLD"}),
        ("CONFIG naming no file", 60, {}, {"@config": None},
         {"stderr_has": "cannot be read"}),
    ]
    if os.path.isfile(ref_blas):
        cases.append(("CPU_BLAS=reference", 80, {},
                      {"GPUSHIM_CPU_BLAS": ref_blas, "GPUSHIM_DISABLE": "1"}, {"gpu": "none"}))
        cases.append(("CPU_BLAS=reference, offloaded", 80, {},
                      {"GPUSHIM_CPU_BLAS": ref_blas}, {"gpu": "dgemm"}))
    # "@solve": the program solves a system too (LAPACK's GESV).
    if os.path.isfile(ref_lapack):
        cases.append(("CPU_LAPACK=reference", 80, {},
                      {"@solve": True, "GPUSHIM_CPU_LAPACK": ref_lapack, "GPUSHIM_DISABLE": "1",
                       "GPUSHIM_LOG": "debug"},
                      {"gpu": "none", "stderr_has": f"dgesv_ on the CPU comes from {ref_lapack}"}))
    if os.path.isfile(ref_lapack) and backend == "hostsim":
        cases.append(("CPU_LAPACK=reference, offloaded", 80, {},
                      {"@solve": True, "GPUSHIM_CPU_LAPACK": ref_lapack, "GPUSHIM_LOG": "debug"},
                      {"gpu": "dgemm,dgesv",
                       "stderr_has": f"dgesv_ on the CPU comes from {ref_lapack}"}))

    # GPUSHIM_LOG=trace: a line for each call, small ones included.
    cases += [
        ("LOG=trace, small, no report", 8, {"threshold": None}, {"GPUSHIM_LOG": "trace"},
         {"no_report": True, "stderr_lacks": "GPUSHIM_REPORT",
          "stderr_has": "trace: dgemm m=8 n=8 k=8: CPU, ", "stderr_has_also": "below its threshold",
          "stderr_has_too": "trace: ssyrk n=8 k=8: CPU"}),
        ("LOG=trace, offloaded", 120, {}, {"@solve": True, "GPUSHIM_LOG": "trace"},
         {"gpu": "dgemm,dgesv", "stderr_has": "trace: dgemm m=120 n=120 k=120: GPU, ",
          "stderr_has_too": "trace: dgesv n=120 nrhs=1: GPU, "}),
        ("LOG=trace, eigh", 120, {}, {"@eigh": True, "GPUSHIM_LOG": "trace"},
         {"gpu": "dsyevd", "stderr_has": "a workspace query",
          "stderr_has_too": "trace: dsyevd n=120: GPU, ", "stderr_has_also": ": CPU, "}),
        ("LOG=trace, device failing", 120, {}, {"GPUSHIM_LOG": "trace",
                                                "GPUSHIM_HOSTSIM_FAIL_EVERY": "2"},
         {"stderr_has": "trace: zgemm m=120 n=120 k=120: the device failed; the CPU computed it",
          "stderr_has_too": "kB to the device, 0 B back"}),
        ("LOG=trace, device failing part-way", 200, {},
         {"GPUSHIM_LOG": "trace", "GPUSHIM_PANEL_BYTES": "20000", "GPUSHIM_HOSTSIM_FAIL_EVERY": "9"},
         {"stderr_has": "trace: dgemm m=200 n=200 k=200: GPU and CPU (the device failed part-way"}),
    ]

    # GPUSHIM_VERIFY: each product the device computed, checked on the CPU.
    cases += [
        ("VERIFY=1", 120, {}, {"GPUSHIM_VERIFY": "1", "GPUSHIM_LOG": "trace"},
         {"gpu": "dgemm", "stderr_has": "trace: dgemm m=120 n=120 k=120: GPU, ",
          "stderr_has_too": "checked: agrees with the CPU", "stderr_lacks": "DIFFERS"}),
        ("VERIFY=1, a device computing wrong", 120, {},
         {"GPUSHIM_VERIFY": "1", "GPUSHIM_HOSTSIM_WRONG_EVERY": "1", "GPUSHIM_LOG": "trace"},
         {"gpu": "dgemm", "differences": True,
          "stderr_has": "GPUSHIM_VERIFY: dgemm m=120 n=120 k=120: the device's result fails its check",
          "stderr_has_too": "checked: DIFFERS from the CPU, whose result is used"}),
        ("VERIFY=1, REPORT=1", 60, {}, {"GPUSHIM_VERIFY": "1"},
         {"report_stderr": True, "stderr_has": " verified  differed"}),
        ("VERIFY=maybe", 60, {}, {"GPUSHIM_VERIFY": "maybe"},
         {"gpu": "dgemm", "stderr_has": "GPUSHIM_VERIFY=maybe is not valid"}),
    ]

    # A device lost for good, after the first calls: "lost" is the most calls that may have
    # failed on it.
    lost_warning = "gpushim can no longer use the GPU in this process"
    reset_warning = lost_warning + " (the program reset the device (cudaDeviceReset"
    lost_trace = "trace: zgemm m=120 n=120 k=120: CPU, "
    if os.environ.get(st.CUDASIM_VARIABLE) == "1":
        # The 7th allocation or library call is the solve's GETRF: its GETRS, a library call,
        # fails first, and the wait for its stream says the device is lost.
        # A kernel of the program's faults between two calls of the library: the plugin's driver
        # calls before the next one see the sticky error; no call fails.
        cases.append(("device lost (the program's kernel faulted)", 120, {},
                      {"@solve": True, "@fault": True, "GPUSHIM_LOG": "trace"},
                      {"reset": "dgesv", "stderr_has": lost_warning + " (CUDA driver error 700",
                       "stderr_has_too": lost_trace,
                       "stderr_has_also": "the GPU was lost earlier in this process"}))
        cases.append(("device lost (sticky error)", 120, {},
                      {"@solve": True, "CUDASIM_STICKY_FAULT_AT": "7", "GPUSHIM_LOG": "trace"},
                      {"lost": 1, "stderr_has": lost_warning, "stderr_has_too": lost_trace,
                       "stderr_has_also": "the GPU was lost earlier in this process"}))
    if backend == "cuda":  # the emulated CUDA libraries, or a GPU
        cases.append(("device reset by the program", 120, {},
                      {"@solve": True, "@reset": True, "GPUSHIM_LOG": "trace"},
                      {"reset": "dgesv", "stderr_has": reset_warning,
                       "stderr_has_too": lost_trace,
                       "stderr_has_also": "the GPU was lost earlier in this process"}))
        cases.append(("device reset by the program through the driver", 120, {},
                      {"@solve": True, "@reset": True, "@driver": True, "GPUSHIM_LOG": "trace"},
                      {"reset": "dgesv", "stderr_has": reset_warning, "stderr_has_too": lost_trace,
                       "stderr_has_also": "the GPU was lost earlier in this process"}))
        cases.append(("device reset by the program, which then uses CUDA again", 120, {},
                      {"@solve": True, "@reset": True, "@reinit": True, "GPUSHIM_LOG": "trace"},
                      {"reset": "dgesv", "stderr_has": reset_warning, "stderr_has_too": lost_trace,
                       "stderr_has_also": "the GPU was lost earlier in this process"}))
    # The third question whether the device is intact is the first product's: the solve asks
    # twice (for its work, and as it ends, the first call always; later ones at most every
    # 20 ms).
    cases.append(("device reset", 120, {},
                  {"@solve": True, "GPUSHIM_HOSTSIM_RESET_AT": "3", "GPUSHIM_LOG": "trace"},
                  {"reset": "dgesv", "stderr_has": lost_warning + " (hostsim: the program reset "
                   "the device", "stderr_has_too": lost_trace,
                   "stderr_has_also": "the GPU was lost earlier in this process"}))
    cases.append(("device lost", 120, {},
                  {"@solve": True, "GPUSHIM_HOSTSIM_LOSE_DEVICE_AT": "12", "GPUSHIM_LOG": "trace"},
                  {"lost": 1, "stderr_has": lost_warning, "stderr_has_too": lost_trace,
                   "stderr_has_also": "the GPU was lost earlier in this process"}))

    # GPUSHIM_DEVICE: the emulated CUDA libraries have two devices here, hostsim has one.
    # The launcher's variables other than the one a case sets are taken out of its
    # environment (a test run inside a Slurm job has SLURM_LOCALID).
    no_launcher = {v: None for v in st.LOCAL_RANK_VARIABLES}
    cudasim = os.environ.get(st.CUDASIM_VARIABLE) == "1"
    devices = {"CUDASIM_DEVICES": "2"} if cudasim else {}
    # Device 0's context, which a process offloading to device 1 never makes, stops it.
    untouched_0 = {"CUDASIM_UNTOUCHED_DEVICE": "0"} if cudasim else {}
    rank_3_device = "on 2 devices: device 1" if cudasim else "on 1 device: device 0"
    cases += [
        ("DEVICE=local-rank", 120, {},
         {**no_launcher, **devices, **untouched_0, "@solve": True, "GPUSHIM_DEVICE": "local-rank",
          "OMPI_COMM_WORLD_LOCAL_RANK": "3", "GPUSHIM_LOG": "info"},
         {"gpu": "dgemm,dgesv",
          "stderr_has": f"local rank 3 (OMPI_COMM_WORLD_LOCAL_RANK) {rank_3_device}",
          "stderr_has_too": "(device 1 of 2" if cudasim else "offloading to"}),
        ("DEVICE=local-rank, no launcher", 60, {},
         {**no_launcher, **devices, "GPUSHIM_DEVICE": "local-rank"},
         {"gpu": "dgemm", "stderr_has": "GPUSHIM_DEVICE=local-rank: no launcher's local rank"}),
        ("DEVICE=5", 60, {}, {**devices, "GPUSHIM_DEVICE": "5"},
         {"gpu": "dgemm", "stderr_has": "GPUSHIM_DEVICE=5 is not valid here"}),
        ("DEVICE=gpu1", 60, {}, {"GPUSHIM_DEVICE": "gpu1"},
         {"gpu": "dgemm", "stderr_has": "GPUSHIM_DEVICE=gpu1 is not valid"}),
    ]

    if backend != "hostsim":
        left_out = [c[0] for c in cases if any(k.startswith("GPUSHIM_HOSTSIM_") for k in c[3])]
        cases = [c for c in cases if c[0] not in left_out]
        st.log(f"left out (hostsim only; backend {backend}): {', '.join(left_out)}")

    problems = []
    with st.tempdir("env_controls_") as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        for i, (name, n, kw, extra, expect) in enumerate(cases):
            rdir = os.path.join(tmp, f"case{i}")
            os.mkdir(rdir)
            extra = dict(extra)
            solve = ["solve"] if extra.pop("@solve", False) else []
            solve += ["eigh"] if extra.pop("@eigh", False) else []
            solve += ["reset"] if extra.pop("@reset", False) else []
            solve += ["reinit"] if extra.pop("@reinit", False) else []
            solve += ["driver"] if extra.pop("@driver", False) else []
            solve += ["fault"] if extra.pop("@fault", False) else []
            if "@config" in extra:
                config = os.path.join(rdir, "gpushim.conf")
                text = extra.pop("@config")
                if text is not None:
                    with open(config, "w") as f:
                        f.write(text)
                extra["GPUSHIM_CONFIG"] = config
            if expect.get("report_stderr"):
                env = st.make_env(shim, None, extra={"GPUSHIM_REPORT": "1", **extra}, **kw)
            elif expect.get("no_report"):
                env = st.make_env(shim, None, extra=extra, **kw)
            else:
                env = st.make_env(shim, rdir, extra=extra, **kw)
            res = st.run([args.python, prog, str(n)] + solve, env, cwd=tmp)
            mine = []
            if res.returncode != 0 or "RESULTS OK" not in res.stdout:
                mine.append(f"exit {res.returncode}, stdout {res.stdout.strip()!r}")
            if expect.get("stderr_empty") and res.stderr:
                mine.append(f"stderr not empty: {res.stderr[:300]!r}")
            if expect.get("report_stderr") and "dgemm" not in res.stderr:
                mine.append(f"GPUSHIM_REPORT=1 printed no table naming dgemm: "
                            f"{res.stderr[-600:]!r}")
            if expect.get("stderr_has") and expect["stderr_has"] not in res.stderr:
                mine.append(f"stderr does not mention {expect['stderr_has']}: "
                            f"{res.stderr[-600:]!r}")
            if expect.get("stderr_has_too") and expect["stderr_has_too"] not in res.stderr:
                mine.append(f"stderr does not mention {expect['stderr_has_too']}: "
                            f"{res.stderr[-600:]!r}")
            if expect.get("stderr_has_also") and expect["stderr_has_also"] not in res.stderr:
                mine.append(f"stderr does not mention {expect['stderr_has_also']}: "
                            f"{res.stderr[-600:]!r}")
            if expect.get("stderr_lacks") and expect["stderr_lacks"] in res.stderr:
                mine.append(f"stderr mentions {expect['stderr_lacks']}: {res.stderr[-600:]!r}")
            if expect.get("stderr_has") and res.stderr.count(expect["stderr_has"]) > 3:
                mine.append(f"warned {res.stderr.count(expect['stderr_has'])} times "
                            f"(want once)")
            lost = expect.get("lost")
            reset = expect.get("reset")
            if (lost or reset is not None) and res.stderr.count("warning:") != 1:
                mine.append(f"{res.stderr.count('warning:')} warnings (want one, that the GPU "
                            f"was lost)")
            gpu = expect.get("gpu")
            if gpu and not expect.get("report_stderr"):
                files = st.report_files(rdir)
                if not files:
                    if gpu != "none":
                        mine.append("no JSON report")
                else:
                    rep = st.load_reports(rdir)
                    st.log(st.format_report(rep))
                    if gpu == "none":
                        on_gpu = {k: v["gpu_calls"] for k, v in rep.items() if v["gpu_calls"]}
                        if on_gpu:
                            mine.append(f"expected no GPU call, report says {on_gpu}")
                        if not any(v["cpu_calls"] for v in rep.values()):
                            mine.append("expected CPU calls in the report")
                    else:
                        mine += st.check_report(rep, gpu=gpu.split(","),
                                                differences=expect.get("differences", False))
            if lost or reset is not None:
                files = st.report_files(rdir)
                rep = st.load_reports(rdir, files)
                st.log(st.format_report(rep))
                failed = sum(r["fallbacks"] for r in rep.values())
                if lost and not 1 <= failed <= lost:
                    mine.append(f"{failed} calls failed on the lost device (want 1 to {lost}: "
                                f"the later ones on the CPU at once)")
                if reset is not None:
                    if failed:
                        mine.append(f"{failed} calls failed on the reset device (want none: "
                                    f"the reset is seen before the device is used)")
                    on_gpu = {k: v["gpu_calls"] for k, v in rep.items() if v["gpu_calls"]}
                    if reset and set(on_gpu) != set(reset.split(",")):
                        mine.append(f"on the GPU: {on_gpu} (want {reset}, before the reset)")
                    if any(k.endswith("gemm") for k in on_gpu):
                        mine.append(f"products after the reset on the GPU: {on_gpu}")
                backends = [st.load_report_backend(f) for f in files]
                if not backends or not all(", lost (" in b for b in backends):
                    mine.append(f"the reports' backends do not say it was lost: {backends}")
            if res.stderr.strip():
                st.log("  stderr: " + st.tail(res.stderr, 8).replace("\n", "\n  stderr: "))
            st.log(f"[{'ok' if not mine else 'FAILED'}] {name}")
            problems += [f"{name}: {m}" for m in mine]
    return st.finish(problems, f"OK: {len(cases)} cases")


if __name__ == "__main__":
    sys.exit(main())
