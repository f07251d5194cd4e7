#!/usr/bin/env python3
"""Run an FFTW client of the shim (a program that prints "N checks, M failed"), check its report.

  run_fftw.py --shim build/libgpushim.so [--preload] [--fail-every 7] --gpu R,R,...
              [--cpu R,R,...] [--fallbacks R,R,...]
              [--device-memory BYTES | --memory-limit BYTES] [--partly-on-cpu R,R,...]
              [--panel-bytes BYTES] [--verify [--wrong-every N]] -- PROGRAM ARGS...

Runs PROGRAM as run_program.py does (linked against the shim, or with --preload under
LD_PRELOAD; GPUSHIM_BACKEND the backend under test, GPUSHIM_THRESHOLD=0, GPUSHIM_REPORT in a
temporary folder). Passes when it exits 0 and prints "N checks, 0 failed" with N > 0, and the
report, summed over its processes, shows:
  --gpu        these routines ran on the device (shimtest.check_report: gpu_calls > 0; with
               --fail-every, each was tried there and some call fell back to FFTW);
  --cpu        these routines were intercepted and ran on FFTW only (split arrays, r2r: what
               the device cannot do): check_report.py --routines CPU --no-gpu;
  --fallbacks  with --fail-every, each of these routines completed calls on the device and had
               device failures recomputed on FFTW (c2c, r2c and c2r do not share one fallback
               path): check_report.py --routines FALLBACKS --gpu --fallbacks.
  --device-memory  the hostsim device holds this many bytes: transforms whose arrays do not
               fit run on FFTW (not a device failure); --partly-on-cpu: these routines
               together completed calls on the device and ran others on FFTW.
  --memory-limit  the same through GPUSHIM_GPU_MEMORY, the library's own limit; on hostsim, a
               device of that capacity which aborts the program at any request beyond it
               (GPUSHIM_HOSTSIM_MEMORY_STRICT); on the emulated CUDA libraries, whose plans
               report work areas, the plugin's share counts too.
  --panel-bytes  GPUSHIM_PANEL_BYTES: batches larger than this many bytes are computed in
               sub-batches (a small value splits the program's batches, tails included).
  --verify     GPUSHIM_VERIFY=1: each routine in --gpu must show executions checked, and none
               may differ; with --wrong-every N on the host-simulated device, every N-th
               device result is changed (GPUSHIM_HOSTSIM_WRONG_EVERY), which the check must
               find and replace by FFTW's: the program's checks still pass and some execution
               differed.
Without --fail-every no execution may fall back (shimtest.check_report): hostsim, for one,
rejects a C2R input that is not Hermitian.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402

CHECK_REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit",
                            "check_report.py")


def names(text: str) -> list[str]:
    return [r for r in text.split(",") if r]


def main() -> int:
    ap = st.arg_parser(__doc__)
    ap.add_argument("--preload", action="store_true")
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--gpu", type=names, default=[])
    ap.add_argument("--cpu", type=names, default=[])
    ap.add_argument("--fallbacks", type=names, default=[])
    ap.add_argument("--device-memory", type=int, default=0)
    ap.add_argument("--memory-limit", type=int, default=0)
    ap.add_argument("--partly-on-cpu", type=names, default=[])
    ap.add_argument("--panel-bytes", type=int, default=0)
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--wrong-every", type=int, default=0, help="hostsim only; with --verify")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = st.program_command(args.cmd)
    shim = st.find_shim(args.shim)
    if args.fail_every:
        st.require_fault_injection()

    with st.tempdir("fftw_") as tmp:
        extra = {"GPUSHIM_HOSTSIM_MEMORY": str(args.device_memory)} if args.device_memory else {}
        if args.memory_limit:
            extra["GPUSHIM_GPU_MEMORY"] = str(args.memory_limit)
            if st.test_backend() == "hostsim":
                extra.update({"GPUSHIM_HOSTSIM_MEMORY": str(args.memory_limit),
                              "GPUSHIM_HOSTSIM_MEMORY_STRICT": "1"})
        if args.panel_bytes:
            extra["GPUSHIM_PANEL_BYTES"] = str(args.panel_bytes)
        wrong = args.verify and args.wrong_every > 0 and st.test_backend() == "hostsim"
        if args.verify:
            extra["GPUSHIM_VERIFY"] = "1"
        if wrong:
            extra["GPUSHIM_HOSTSIM_WRONG_EVERY"] = str(args.wrong_every)
        env = st.make_env(shim, tmp, preload=args.preload, fail_every=args.fail_every,
                          extra=extra)
        # cmd[-1]: the script, where PROGRAM is an interpreter (pyfftw_check.py)
        problems = st.run_checking_program(cmd, env, tmp, name=os.path.basename(cmd[-1]))
        problems += st.check_reports(tmp, gpu=args.gpu, faults=args.fail_every > 0,
                                     checked=args.verify, differences=wrong)
        if st.report_files(tmp) and args.partly_on_cpu:
            report = st.load_reports(tmp)
            placed = {where: sum(report.get(name, {}).get(where, 0) for name in args.partly_on_cpu)
                      for where in ("gpu_calls", "cpu_calls")}
            if not all(placed.values()):
                problems.append(f"{','.join(args.partly_on_cpu)}: not both on the device and "
                                f"on FFTW: {placed}")
        if st.report_files(tmp):
            summed = os.path.join(tmp, "summed.json")
            with open(summed, "w") as f:
                json.dump({"routines": st.load_reports(tmp)}, f)
            checks = [(args.cpu, ["--no-gpu"])]
            if args.fail_every:
                checks.append((args.fallbacks, ["--gpu", st.fallbacks_flag()]))
            for routines, flags in checks:
                if not routines:
                    continue
                out = st.run([sys.executable, CHECK_REPORT, summed, "--routines",
                              ",".join(routines)] + flags, dict(os.environ), echo=False)
                st.log((out.stdout + out.stderr).strip())
                if out.returncode != 0:
                    problems.append(f"check_report.py {' '.join(flags)}: "
                                    f"{','.join(routines)} not as expected")
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
