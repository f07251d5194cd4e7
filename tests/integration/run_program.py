#!/usr/bin/env python3
"""Run a test program (one that prints "N checks, M failed") with the shim, check its report.

  run_program.py --shim build/libgpushim.so [--preload] [--fail-every 7]
                 [--expect-gpu dgemm,zgemm] [--env K=V ...] -- PROGRAM ARGS...

Without --preload the program is expected to link libgpushim.so itself (the relink
scenario: `-lgpushim -lopenblas`); the driver then only sets GPUSHIM_BACKEND (the backend
under test, $TEST_GPUSHIM_BACKEND, default hostsim), GPUSHIM_THRESHOLD=0 and
GPUSHIM_REPORT. Passes when the program exits 0, prints "N checks, 0 failed" with N > 0,
and the JSON report has gpu_calls > 0 for every --expect-gpu routine (and some fallback
with --fail-every).
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402


def main() -> int:
    ap = st.arg_parser(__doc__)
    ap.add_argument("--preload", action="store_true")
    st.add_program_options(ap)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = st.program_command(args.cmd)
    shim = st.find_shim(args.shim)
    extra = st.program_settings(args)

    with st.tempdir("program_") as tmp:
        env = st.make_env(shim, tmp, preload=args.preload, fail_every=args.fail_every,
                          extra=extra)
        problems = st.run_checking_program(cmd, env, tmp)
        problems += st.check_program_reports(tmp, args)
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
