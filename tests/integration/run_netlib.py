#!/usr/bin/env python3
"""Run a Netlib Level-3 BLAS tester (Debian package libblas-test) under the shim.

  run_netlib.py --shim build/libgpushim.so --kind f77   --prec d [--fail-every 7]
  run_netlib.py --shim build/libgpushim.so --kind cblas --prec z
  run_netlib.py --shim build/libgpushim.so --kind f77 --prec d --verify --wrong-every 5
  run_netlib.py --baseline --kind f77 --prec d            # no shim: what the tester says natively

f77:   xblat3{s,d,c,z} reads {s,d,c,z}blat3.in on stdin and writes its summary to the file the
       first line of the .in names (e.g. 'dblat3.out'; unit 6 is redirected there).
cblas: x{s,d,c,z}cblat3 reads {s,d,c,z}in3 on stdin and prints its summary on stdout. It needs
       Debian's reference BLAS (libblas.so.3 in /usr/lib/x86_64-linux-gnu/blas, which also
       provides cblas_* and the RowMajorStrg global the tester's cblas_xerbla reads): the
       alternatives link libblas.so.3 -> OpenBLAS lacks RowMajorStrg, so we run it with
       LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas.

Passes when the tester exits 0, every routine the .in enables reports PASSED for its error
exits and computational tests (both layouts for CBLAS), nothing says FAIL/SUSPECT/FATAL,
"END OF TESTS" is there, and (with the shim) the JSON report shows gpu_calls > 0 for every
routine tested, plus some fallback when faults are injected. --verify sets GPUSHIM_VERIFY=1:
every routine must show calls checked. On the host-simulated device, --wrong-every N also
makes it change the result of every N-th operation (GPUSHIM_HOSTSIM_WRONG_EVERY), which the
check must find and replace by the CPU's: the tester still passes and some call differed; on
any other device no call may differ (a real GPU's rounding stays within the check's bound).
"""
from __future__ import annotations

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402

BAD = re.compile(r"\*{5}|FAIL|SUSPECT|FATAL|ABANDONED|NOT RECOGNIZED|ERROR IN|"
                 r"NOT DETECTED|INSTEAD OF", re.IGNORECASE)


def enabled_routines(infile: str, kind: str) -> list[str]:
    names = []
    pat = (re.compile(r"^\s*([SDCZ][A-Z0-9]{2,5})\s+([TF])\b") if kind == "f77"
           else re.compile(r"^\s*(cblas_[sdcz][a-z0-9]+)\s+([TF])\b"))
    with open(infile) as f:
        for line in f:
            m = pat.match(line)
            if m and m.group(2) == "T":
                names.append(m.group(1))
    return names


def error_exits_tested(infile: str) -> bool:
    with open(infile) as f:
        for line in f:
            if "TEST ERROR EXITS" in line.upper():
                return line.split()[0].upper().startswith("T")
    return True


def summary_file(infile: str) -> str | None:
    first = open(infile).readline()
    m = re.match(r"\s*'([^']+)'", first)
    return m.group(1) if m else None


def check_output(text: str, kind: str, routines: list[str], errexits: bool) -> list[str]:
    problems = []
    for line in text.splitlines():
        if BAD.search(line):
            problems.append(f"tester says: {line.strip()}")
    if "END OF TESTS" not in text:
        problems.append("no 'END OF TESTS' line: the tester did not finish")
    for r in routines:
        esc = re.escape(r)
        if errexits and not re.search(rf"^\s*{esc}\s+PASSED THE TESTS OF ERROR-EXITS", text,
                                      re.M):
            problems.append(f"{r}: no 'PASSED THE TESTS OF ERROR-EXITS'")
        if kind == "f77":
            if not re.search(rf"^\s*{esc}\s+PASSED THE COMPUTATIONAL TESTS \(\s*\d+ CALLS\)",
                             text, re.M):
                problems.append(f"{r}: no 'PASSED THE COMPUTATIONAL TESTS'")
        else:
            for layout in ("COLUMN-MAJOR", "ROW-MAJOR"):
                if not re.search(rf"^\s*{esc}\s+PASSED THE {layout}\s+COMPUTATIONAL TESTS "
                                 rf"\(\s*\d+ CALLS\)", text, re.M):
                    problems.append(f"{r}: no 'PASSED THE {layout} COMPUTATIONAL TESTS'")
    return problems


def main() -> int:
    ap = st.arg_parser(__doc__)
    ap.add_argument("--baseline", action="store_true", help="run without the shim")
    ap.add_argument("--kind", choices=("f77", "cblas"), required=True)
    ap.add_argument("--prec", choices=tuple("sdcz"), required=True)
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--wrong-every", type=int, default=0, help="hostsim only; with --verify")
    ap.add_argument("--blas-dir", default="/usr/lib/x86_64-linux-gnu/blas")
    args = ap.parse_args()
    if args.fail_every:
        st.require_fault_injection()

    bd = args.blas_dir
    if args.kind == "f77":
        exe, inp = f"{bd}/xblat3{args.prec}", f"{bd}/{args.prec}blat3.in"
    else:
        exe, inp = f"{bd}/x{args.prec}cblat3", f"{bd}/{args.prec}in3"
    if not (os.access(exe, os.X_OK) and os.path.isfile(inp)):
        st.skip(f"{exe} or {inp} missing (Debian package libblas-test)")
    if args.kind == "cblas" and not os.path.exists(f"{bd}/libblas.so.3"):
        st.skip(f"{bd}/libblas.so.3 (reference BLAS with CBLAS) missing")
    shim = None if args.baseline else st.find_shim(args.shim)

    with st.tempdir(f"netlib_{args.kind}_{args.prec}_") as tmp:
        local_in = os.path.join(tmp, os.path.basename(inp))
        shutil.copy(inp, local_in)
        rdir = os.path.join(tmp, "reports")
        os.mkdir(rdir)
        extra = {}
        if args.kind == "cblas":
            old = os.environ.get("LD_LIBRARY_PATH")
            extra["LD_LIBRARY_PATH"] = bd + (":" + old if old else "")
        wrong = args.verify and args.wrong_every > 0 and st.test_backend() == "hostsim"
        if args.verify:
            extra["GPUSHIM_VERIFY"] = "1"
        if wrong:
            extra["GPUSHIM_HOSTSIM_WRONG_EVERY"] = str(args.wrong_every)
        env = st.make_env(shim, rdir, fail_every=args.fail_every, extra=extra)
        with open(local_in) as stdin:
            res = st.run([exe], env, cwd=tmp, stdin=stdin)
        # The shim's own messages (stderr, "gpushim: ...") are shown but not parsed: with
        # faults injected it warns once that it recomputed a call on the CPU.
        text = res.stdout
        summ = summary_file(local_in) if args.kind == "f77" else None
        if summ:
            path = os.path.join(tmp, summ)
            if not os.path.isfile(path):
                st.log(st.tail(text + res.stderr))
                st.fail(f"the tester wrote no summary file {summ} (exit code {res.returncode})")
            with open(path, errors="replace") as f:
                text = f.read() + "\n" + text
        st.log(text.rstrip())
        st.log_stderr(res)

        problems = []
        if res.returncode != 0:
            problems.append(f"tester exit code {res.returncode}")
        routines = enabled_routines(local_in, args.kind)
        if not routines:
            problems.append(f"no routine enabled in {inp}?")
        problems += check_output(text, args.kind, routines, error_exits_tested(local_in))

        if shim is not None:
            files = st.report_files(rdir)
            if len(files) != 1:
                problems.append(f"expected one JSON report, found {files}")
            rep = st.load_reports(rdir)
            st.log("report:\n" + st.format_report(rep))
            want = [re.sub(r"^cblas_", "", r).lower() for r in routines]
            problems += st.check_report(rep, gpu=want, faults=args.fail_every > 0,
                                        checked=args.verify, differences=wrong)
            problems += st.check_cudasim_backend(rdir)

    return st.finish(problems, f"OK: {os.path.basename(exe)}: all {len(routines)} routines passed"
                               + ("" if shim is None else " under the shim"))


if __name__ == "__main__":
    sys.exit(main())
