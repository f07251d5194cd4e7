#!/usr/bin/env python3
"""Run examples/matmul_demo.py the way the README says, and on the backend under test.

  run_example.py --shim build/libgpushim.so --python /usr/bin/python3 examples/matmul_demo.py

1. LD_PRELOAD=<shim> GPUSHIM_REPORT=1 python3 matmul_demo.py  (default backend and
   threshold: on a machine without a GPU everything stays on the CPU): exit 0, "all results
   OK", and the report table on stderr names dgemm.
2. The same with GPUSHIM_BACKEND=$TEST_GPUSHIM_BACKEND (default hostsim) and the default
   threshold, JSON report: the large products are offloaded (dgemm gpu_calls > 0), results
   still OK.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    ap.add_argument("script")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    st.require_numpy(args.python)
    problems = []
    with st.tempdir("example_") as tmp:
        env = st.make_env(shim, None, backend=None, threshold=None,
                          extra={"GPUSHIM_REPORT": "1"})
        res = st.run([args.python, args.script], env, cwd=tmp)
        st.log(res.stdout.rstrip())
        st.log("--- stderr ---\n" + st.tail(res.stderr, 40))
        if res.returncode != 0 or "all results OK" not in res.stdout:
            problems.append(f"README run: exit {res.returncode}")
        if "dgemm" not in res.stderr:
            problems.append("README run: GPUSHIM_REPORT=1 printed no table naming dgemm")

        backend = st.test_backend()
        env = st.make_env(shim, tmp, threshold=None)
        res = st.run([args.python, args.script], env, cwd=tmp)
        st.log(res.stdout.rstrip())
        st.log_stderr(res)
        if res.returncode != 0 or "all results OK" not in res.stdout:
            problems.append(f"{backend} run: exit {res.returncode}")
        problems += [f"{backend} run: {p}" for p in
                     st.check_reports(tmp, gpu=["dgemm", "sgemm", "zgemm", "dsyrk"])]
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
