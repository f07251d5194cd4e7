#!/usr/bin/env python3
"""SciPy's own BLAS test files under forced offload, compared with a run without the shim.

  run_scipy_tests.py --shim build/libgpushim.so --python /usr/bin/python3 [--fail-every 7]
  run_scipy_tests.py --shim build/libgpushim.so --python .venv/bin/python

Runs scipy/linalg/tests/{test_blas,test_fblas,test_cython_blas}.py of the SciPy that
--python imports, twice, with pytest and a JUnit XML file each:
  1. baseline: no shim;
  2. shim:     LD_PRELOAD=<shim> GPUSHIM_BACKEND=$TEST_GPUSHIM_BACKEND (default hostsim)
               GPUSHIM_THRESHOLD=0 (+ faults, hostsim only).
Passes when the shim run has exactly the baseline's test ids and every test that passed in
the baseline passes under the shim (a test that fails natively on this machine is reported
and ignored: that is the "as they do without the shim" contract; on Debian 12's SciPy 1.10
and pip SciPy 1.17 none does), and the shim's JSON report shows gpu_calls > 0 for the
routines listed in GPU_EXPECTED (Debian's SciPy calls dgemm_, pip SciPy scipy_dgemm_).
"""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

TEST_FILES = ("test_blas.py", "test_fblas.py", "test_cython_blas.py")
# Level-3 routines these files call with valid, non-degenerate arguments (seen in both
# Debian's SciPy 1.10 and pip SciPy 1.17).
GPU_EXPECTED = ["sgemm", "dgemm", "cgemm", "zgemm", "dsymm", "zhemm", "ssyrk", "zherk",
                "ssyr2k", "zher2k", "dtrmm", "strsm"]


def outcomes(xml_path: str) -> dict[str, str]:
    res = {}
    for tc in ET.parse(xml_path).getroot().iter("testcase"):
        tid = f"{tc.get('classname')}::{tc.get('name')}"
        out = "passed"
        for child in tc:
            if child.tag in ("failure", "error"):
                out = "failed"
            elif child.tag == "skipped":
                out = "xfailed" if "xfail" in (child.get("type") or "") else "skipped"
        res[tid] = out
    return res


def main() -> int:
    ap = st.arg_parser(__doc__, python=sys.executable)
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--deselect", action="append", default=[],
                    help="pytest node id (relative to the tests folder) to leave out")
    args = ap.parse_args()
    if args.fail_every:
        st.hostsim_only("fault injection (--fail-every)")

    if not os.access(args.python, os.X_OK):
        st.skip(f"python interpreter {args.python} not found (create the venv: .ci/run)")
    probe = subprocess.run(
        [args.python, "-c", "import os, pytest, scipy.linalg, numpy; "
         "print(os.path.join(os.path.dirname(scipy.linalg.__file__), 'tests')); "
         "print(scipy.__version__, numpy.__version__, pytest.__version__)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=st.make_env(None, None))
    if probe.returncode != 0:
        st.skip(f"{args.python} cannot import pytest/scipy/numpy:\n{probe.stderr[-2000:]}")
    testdir, versions = probe.stdout.split("\n")[:2]
    st.log(f"scipy/numpy/pytest {versions} ({args.python}), tests in {testdir}")
    files = [os.path.join(testdir, f) for f in TEST_FILES]
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        st.skip(f"SciPy test files not installed: {missing}")
    shim = st.find_shim(args.shim)

    with st.tempdir("scipy_tests_") as tmp:
        def pytest_run(tag, env):
            xml = os.path.join(tmp, f"{tag}.xml")
            cmd = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                   f"--rootdir={tmp}", f"--junitxml={xml}"]
            for d in args.deselect:
                cmd.append(f"--deselect={os.path.join(testdir, d)}")
            res = st.run(cmd + files, env, cwd=tmp, timeout=1200)
            st.log(st.tail(res.stdout, 25))
            if res.stderr.strip():
                st.log(f"--- {tag} stderr ---\n" + st.tail(res.stderr, 40))
            if not os.path.isfile(xml):
                st.fail(f"{tag} pytest run wrote no JUnit file (exit {res.returncode})")
            return res.returncode, outcomes(xml)

        base_rc, base = pytest_run("baseline", st.make_env(None, None))
        rdir = os.path.join(tmp, "reports")
        os.mkdir(rdir)
        shim_rc, under = pytest_run("shim", st.make_env(shim, rdir, fail_every=args.fail_every))

        problems = []
        native_fail = sorted(t for t, o in base.items() if o == "failed")
        if native_fail:
            st.log("tests that fail WITHOUT the shim on this machine (ignored):\n  "
                   + "\n  ".join(native_fail))
        n_pass = sum(o == "passed" for o in base.values())
        if n_pass < 50:
            problems.append(f"only {n_pass} tests passed natively: the comparison says little")
        for t in sorted(set(base) - set(under)):
            problems.append(f"{t}: ran natively, not under the shim")
        for t in sorted(set(under) - set(base)):
            problems.append(f"{t}: ran under the shim only")
        for t in sorted(set(base) & set(under)):
            if base[t] == "passed" and under[t] != "passed":
                problems.append(f"{t}: passed natively, {under[t]} under the shim")
        if shim_rc not in (0, 1) or (shim_rc == 1 and not native_fail):
            problems.append(f"pytest under the shim exited {shim_rc} (baseline {base_rc})")

        problems += st.check_reports(rdir, gpu=GPU_EXPECTED, faults=args.fail_every > 0)

    return st.finish(problems, f"OK: {n_pass} tests pass with and without the shim, "
                               f"{len(native_fail)} native failures ignored")


if __name__ == "__main__":
    sys.exit(main())
