#!/usr/bin/env python3
"""Run an FFTW client of the shim (a program that prints "N checks, M failed"), check its report.

  run_fftw.py --shim build/libgpushim.so [--preload] [--fail-every 7] --gpu R,R,...
              [--cpu R,R,...] [--fallbacks R,R,...] -- PROGRAM ARGS...

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
"""
from __future__ import annotations

import argparse
import json
import os
import re
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
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        st.fail("no program given")
    if not os.access(cmd[0], os.X_OK):
        st.fail(f"program not built: {cmd[0]}")
    cmd[0] = os.path.abspath(cmd[0])  # it runs in a temporary folder
    shim = st.find_shim(args.shim)
    if args.fail_every:
        st.hostsim_only("fault injection (--fail-every)")

    with st.tempdir("fftw_") as tmp:
        env = st.make_env(shim, tmp, preload=args.preload, fail_every=args.fail_every)
        res = st.run(cmd, env, cwd=tmp)
        st.log(st.tail(res.stdout, 100))
        if res.returncode == st.SKIP:
            st.skip(f"{os.path.basename(cmd[-1])} says a prerequisite is missing")
        st.log_stderr(res, 60)
        problems = []
        if res.returncode != 0:
            problems.append(f"exit code {res.returncode}")
        m = re.search(r"^(\d+) checks, (\d+) failed$", res.stdout, re.M)
        if not m:
            problems.append("no 'N checks, M failed' line")
        elif int(m.group(1)) == 0 or int(m.group(2)) != 0:
            problems.append(f"the program says: {m.group(0)}")
        problems += st.check_reports(tmp, gpu=args.gpu, faults=args.fail_every > 0)
        if st.report_files(tmp):
            summed = os.path.join(tmp, "summed.json")
            with open(summed, "w") as f:
                json.dump({"routines": st.load_reports(tmp)}, f)
            checks = [(args.cpu, ["--no-gpu"])]
            if args.fail_every:
                checks.append((args.fallbacks, ["--gpu", "--fallbacks"]))
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
