#!/usr/bin/env python3
"""NumPy's and SciPy's own test files under forced offload, compared with a run without the shim.

  run_scipy_tests.py --shim build/libgpushim.so --python /usr/bin/python3 [--fail-every 7]
  run_scipy_tests.py --shim build/libgpushim.so --python .venv/bin/python --suite numpy-lapack

--suite chooses the test files and the routines that must reach the device:
  scipy-blas    (default) scipy/linalg/tests/{test_blas,test_fblas,test_cython_blas}.py;
                12 Level-3 routines (Debian's SciPy calls dgemm_, pip SciPy scipy_dgemm_)
  scipy-lapack  scipy/linalg/tests/{test_basic,test_decomp,test_decomp_cholesky,test_lapack}.py
                and test_decomp_lu.py where installed (SciPy >= 1.11); the LAPACK routines
                of the routine table that both Debian's SciPy 1.10 and pip SciPy 1.17 reach
                (solve, inv, lu, cholesky, qr, svd, eigh, eig, lstsq and their lapack
                wrappers)
  numpy-lapack  numpy/linalg/tests/test_linalg.py; the d and z routines of solve, inv
                (gesv), det (getrf), cholesky (potrf), qr (geqrf, orgqr/ungqr), svd
                (gesdd), eigh (syevd/heevd), eig (geev), lstsq (gelsd): np.linalg computes
                single precision in double.
                Debian's NumPy calls dgesv_, pip NumPy >= 2 scipy_dgesv_64_; the report
                keys both by the lower-case routine name
Tests marked xslow are left out, as the packages' own conftest.py leaves them out unless
asked (they are not loaded here: the files run from a temporary rootdir); SciPy's
TestCholesky::test_int_overflow, for one, factors a 17.7 GB matrix.

The files of the package that --python imports run twice, with pytest and a JUnit XML file
each:
  1. baseline: no shim;
  2. shim:     LD_PRELOAD=<shim> GPUSHIM_BACKEND=$TEST_GPUSHIM_BACKEND (default hostsim)
               GPUSHIM_THRESHOLD=0 (+ faults, hostsim only).
Passes when the shim run has exactly the baseline's test ids and every test that passed in
the baseline passes under the shim (a test that fails natively on this machine is reported
and ignored: that is the "as they do without the shim" contract; on Debian 12 and in the
venv none does), and the shim's JSON report shows gpu_calls > 0 for the suite's routines
(with faults: each was tried on the device, and some call fell back to the CPU).
"""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402


@dataclass
class Suite:
    package: str                 # the module whose <tests> folder holds the files
    tests: str                   # that folder, relative to the package
    # Each entry: a file, or alternatives (the first one installed is run).
    files: list[str | tuple[str, ...]]
    gpu: list[str]               # routines that must have run on the device
    pytest_args: list[str] = field(default_factory=list)
    optional_files: list[str] = field(default_factory=list)  # run where installed


def precisions(prefixes: str, *routines: str) -> list[str]:
    return [p + r for r in routines for p in prefixes]


SCIPY_LAPACK_ROUTINES = (
    precisions("sdcz", "potrf", "getrf", "getrs", "geqrf", "gesdd", "gesvd", "trtrs", "geev", "gelsd")
    + precisions("sd", "orgqr", "ormqr", "syev", "syevd", "syevr", "sygvd")
    + precisions("cz", "ungqr", "unmqr", "heev", "heevd", "heevr", "hegvd")
    + precisions("sdcz", "sytrf")
    + ["dgesv", "zgesv", "dgetri", "sgetri", "zgetri", "dpotri", "dpotrs", "zpotrs", "dtrtri"])
SUITES = {
    # Level-3 routines these files call with valid, non-degenerate arguments (seen in both
    # Debian's SciPy 1.10 and pip SciPy 1.17).
    "scipy-blas": Suite("scipy", "linalg/tests",
                        ["test_blas.py", "test_fblas.py", "test_cython_blas.py"],
                        ["sgemm", "dgemm", "cgemm", "zgemm", "dsymm", "zhemm", "ssyrk",
                         "zherk", "ssyr2k", "zher2k", "dtrmm", "strsm"]),
    # test_gels compares GELS's QR factor bit for bit with hard-coded values; the GEQRF it
    # calls runs on the device, which may round differently in the last bit. It is left out
    # of both runs (-k: pytest's --deselect matches prefixes, and would take test_gelsd too).
    "scipy-lapack": Suite("scipy", "linalg/tests",
                          ["test_basic.py", "test_decomp.py", "test_decomp_cholesky.py",
                           "test_lapack.py"],
                          SCIPY_LAPACK_ROUTINES,
                          ["-m", "not xslow", "-k", "not (TestLeastSquaresSolvers and test_gels "
                           "and not test_gelsd and not test_gelss and not test_gelsy)"],
                          optional_files=["test_decomp_lu.py"]),
    "numpy-lapack": Suite("numpy", "linalg/tests", ["test_linalg.py"],
                          precisions("dz", "gesv", "getrf", "potrf", "geqrf", "gesdd", "geev",
                                     "gelsd")
                          + ["dorgqr", "zungqr", "dsyevd", "zheevd"], ["-m", "not xslow"]),
}


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
    ap.add_argument("--suite", choices=sorted(SUITES), default="scipy-blas")
    ap.add_argument("--fail-every", type=int, default=0)
    args = ap.parse_args()
    suite = SUITES[args.suite]
    if args.fail_every:
        st.require_fault_injection()

    if os.sep in args.python:  # the children run in a temporary folder
        args.python = os.path.abspath(args.python)
    if not os.access(args.python, os.X_OK):
        st.skip(f"python interpreter {args.python} not found (create the venv: .ci/run)")
    probe = subprocess.run(
        [args.python, "-c", f"import os, pytest, numpy, {suite.package} as p; "
         f"print(os.path.join(os.path.dirname(p.__file__), {suite.tests!r})); "
         "print(p.__name__, p.__version__, 'numpy', numpy.__version__, "
         "'pytest', pytest.__version__)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=st.make_env(None, None))
    if probe.returncode != 0:
        st.skip(f"{args.python} cannot import pytest/numpy/{suite.package}:\n"
                f"{probe.stderr[-2000:]}")
    testdir, versions = probe.stdout.split("\n")[:2]
    st.log(f"suite {args.suite}: {versions} ({args.python}), tests in {testdir}")
    files, missing = [], []
    for entry in suite.files:
        choices = (entry,) if isinstance(entry, str) else entry
        found = [f for f in choices if os.path.isfile(os.path.join(testdir, f))]
        if found:
            files.append(os.path.join(testdir, found[0]))
        else:
            missing.append(" or ".join(choices))
    if missing:
        st.skip(f"{suite.package} test files not installed: {missing}")
    files += [os.path.join(testdir, f) for f in suite.optional_files
              if os.path.isfile(os.path.join(testdir, f))]
    st.log("test files: " + " ".join(os.path.basename(f) for f in files))
    shim = st.find_shim(args.shim)

    with st.tempdir(f"{args.suite.replace('-', '_')}_tests_") as tmp:
        def pytest_run(tag, env):
            xml = os.path.join(tmp, f"{tag}.xml")
            cmd = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                   f"--rootdir={tmp}", f"--junitxml={xml}"] + suite.pytest_args
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

        problems += st.check_reports(rdir, gpu=suite.gpu, faults=args.fail_every > 0)

    return st.finish(problems, f"OK ({args.suite}): {n_pass} tests pass with and without "
                               f"the shim, {len(native_fail)} native failures ignored")


if __name__ == "__main__":
    sys.exit(main())
