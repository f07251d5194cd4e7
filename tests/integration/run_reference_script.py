#!/usr/bin/env python3
"""Run a client's script without the shim (the reference) and again under it.

  run_reference_script.py --shim build/libgpushim.so [--fail-every 7]
                          [--expect-gpu dgemm,dgesdd] [--env K=V ...] -- COMMAND ARGS...

COMMAND ARGS... is an interpreter and its script (`Rscript r_linalg.R`). The script is run
as `COMMAND ARGS... save FILE` without LD_PRELOAD, then as `COMMAND ARGS... compare FILE`
preloaded with the shim (GPUSHIM_BACKEND the backend under test, GPUSHIM_THRESHOLD=0):
it compares its results with FILE and prints "N checks, M failed". Passes when the
compare run exits 0 with N > 0 and M = 0, and the JSON report has gpu_calls > 0 for every
--expect-gpu routine (and some fallback with --fail-every). A missing interpreter skips
(exit 77; in CI a failure).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402


def main() -> int:
    ap = st.arg_parser(__doc__)
    st.add_program_options(ap)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else list(args.cmd)
    if len(cmd) < 2:
        st.fail("no interpreter and script given")
    interpreter = shutil.which(cmd[0])
    if interpreter is None:
        st.skip(f"{cmd[0]} not found")
    cmd = [interpreter] + [os.path.abspath(a) if os.path.isfile(a) else a for a in cmd[1:]]
    shim = st.find_shim(args.shim)
    extra = st.program_settings(args)

    with st.tempdir("reference_script_") as tmp:
        reference = os.path.join(tmp, "reference")
        res = st.run(cmd + ["save", reference], st.make_env(None, None), cwd=tmp)
        if res.returncode != 0:
            st.log(st.tail(res.stdout + res.stderr, 60))
            st.fail(f"the reference run (no shim) exited {res.returncode}")
        env = st.make_env(shim, tmp, fail_every=args.fail_every, extra=extra)
        problems = st.run_checking_program(cmd + ["compare", reference], env, tmp,
                                           name=os.path.basename(cmd[1]))
        problems += st.check_program_reports(tmp, args)
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
