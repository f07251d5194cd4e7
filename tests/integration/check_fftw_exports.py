#!/usr/bin/env python3
"""Check that libgpushim.so exports exactly FFTW's plan-creating and plan-consuming functions,
and those that read out or forget wisdom.

  check_fftw_exports.py --shim build/libgpushim.so --header /usr/include/fftw3.h
                        --fftw /usr/lib/.../libfftw3.so.3 --fftwf /usr/lib/.../libfftw3f.so.3

An fftw_plan is opaque and the shim returns plans of its own, so every function that creates
or consumes a plan must be the shim's, or a shim plan reaches FFTW and crashes it; everything
else must stay FFTW's own (DESIGN.md, "FFTW"). Required exports:
  - the fftw_ and fftwf_ functions declared in fftw3.h's FFTW_DEFINE_API whose names match
    plan_*, execute*, destroy_plan, *print_plan, flops, cost, estimate_cost and whose signature
    returns or takes an X(plan) (plan_with_nthreads has such a name, but is a threads function);
  - the legacy Fortran functions of the same names (dfftw_/sfftw_ with `_` and `__`) that
    libfftw3.so.3 / libfftw3f.so.3 export;
  - the fftw_ and fftwf_ functions declared in FFTW_DEFINE_API named export_wisdom*,
    forget_wisdom and cleanup: the shim makes (or forgets) FFTW's searches it skipped for
    transforms the device computes before FFTW reads out (or forgets) its wisdom. Their
    legacy Fortran twins call them through the PLT, and stay FFTW's.
Any other FFTW name the shim exports (fftw_malloc, importing wisdom, threads, the fftwl_ and
fftwq_ APIs) is an error. Exit status 0 when both hold, 1 listing what is missing or extra,
77 when the header, a library or nm is missing (a failure with CI=true).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shimtest as st  # noqa: E402

PLAN_NAME = re.compile(
    r"^(plan_\w+|execute\w*|destroy_plan|\w*print_plan|flops|cost|estimate_cost)$")
WISDOM_NAME = re.compile(r"^(export_wisdom\w*|forget_wisdom|cleanup)$")
FFTW_NAME = re.compile(r"^(fftw[flq]?_|[dslq]fftw_)")
LEGACY = re.compile(r"^([ds])fftw_(\w+?)(__?)$")


def api_functions(header: str) -> list[tuple[str, str, str]]:
    """(return type, name, parameters) of each function in FFTW_DEFINE_API, names unmangled."""
    m = re.search(r"#define FFTW_DEFINE_API\(X, R, C\)((?:.*\\\n)+.*\n)", header)
    if not m:
        st.fail("no FFTW_DEFINE_API macro in the header")
    body = m.group(1).replace("\\\n", " ")
    decl = re.compile(r"FFTW_EXTERN\s+(.+?)\s*FFTW_CDECL\s+X\((\w+)\)\s*\((.*)\)\s*$", re.S)
    return [d.groups() for d in map(decl.search, body.split(";")) if d]


def mangling_prefixes(header: str) -> list[str]:
    """fftw_ and fftwf_, as the header's FFTW_MANGLE_DOUBLE / _FLOAT spell them."""
    prefixes = []
    for precision in ("DOUBLE", "FLOAT"):
        m = re.search(rf"#define\s+FFTW_MANGLE_{precision}\(name\)\s+FFTW_CONCAT\((\w+),\s*name\)",
                      header)
        if not m:
            st.fail(f"no FFTW_MANGLE_{precision} in the header")
        prefixes.append(m.group(1))
    return prefixes


def exported(nm: str, library: str) -> set[str]:
    res = subprocess.run([nm, "-D", "--defined-only", library], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        st.fail(f"nm -D {library}: {res.stderr.strip()}")
    # "ADDRESS TYPE NAME", NAME possibly carrying its version (name@@VERSION)
    return {line.split()[-1].split("@")[0] for line in res.stdout.splitlines() if line.strip()}


def main() -> int:
    ap = st.arg_parser(__doc__)
    ap.add_argument("--header", default="/usr/include/fftw3.h")
    ap.add_argument("--fftw", default="", help="libfftw3.so.3")
    ap.add_argument("--fftwf", default="", help="libfftw3f.so.3")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    for path, package in ((args.header, "libfftw3-dev"), (args.fftw, "libfftw3-double3"),
                          (args.fftwf, "libfftw3-single3")):
        if not os.path.isfile(path):
            st.skip(f"{path or 'an FFTW library'} not found ({package})")
    nm = shutil.which("nm")
    if not nm:
        st.skip("nm not found (binutils)")

    with open(args.header) as f:
        header = f.read()
    plan_functions, other_names, wisdom_functions = [], [], []
    problems = []
    for ret, name, params in api_functions(header):
        if WISDOM_NAME.match(name):
            wisdom_functions.append(name)
            continue
        handles_plan = ret == "X(plan)" or re.search(r"\bX\(plan\)\s+\w+", params)
        if PLAN_NAME.match(name) and handles_plan:
            plan_functions.append(name)
        elif handles_plan:
            problems.append(f"fftw3.h: {name} creates or takes a plan but its name matches no "
                            f"pattern of this check")
        elif PLAN_NAME.match(name):
            other_names.append(name)
    # a parser that found nothing would make every check below pass
    if len(plan_functions) < 40:
        st.fail(f"only {len(plan_functions)} plan functions parsed from {args.header}: "
                f"{plan_functions}")
    st.log(f"fftw3.h: {len(plan_functions)} plan functions per precision; matching the names "
           f"but no plan function (left to FFTW): {', '.join(other_names) or 'none'}")

    if len(wisdom_functions) != 6:
        st.fail(f"wisdom functions parsed from {args.header}: {wisdom_functions} (want the 4 "
                f"export_wisdom functions, forget_wisdom and cleanup)")

    required = {p + name for p in mangling_prefixes(header)
                for name in plan_functions + wisdom_functions}
    for library, prefix in ((args.fftw, "d"), (args.fftwf, "s")):
        legacy = {s for s in exported(nm, library)
                  if (m := LEGACY.match(s)) and m.group(1) == prefix
                  and m.group(2) in plan_functions}
        if not legacy:
            problems.append(f"{library} exports no {prefix}fftw_ plan function")
        st.log(f"{os.path.basename(library)}: {len(legacy)} legacy {prefix}fftw_ plan functions")
        required |= legacy

    shim_fftw = {s for s in exported(nm, shim) if FFTW_NAME.match(s)}
    missing = sorted(required - shim_fftw)
    extra = sorted(shim_fftw - required)
    if missing:
        problems.append(f"{len(missing)} of {len(required)} required names not exported by "
                        f"the shim: {' '.join(missing)}")
    if extra:
        problems.append(f"{len(extra)} FFTW names exported by the shim that must stay FFTW's: "
                        f"{' '.join(extra)}")
    return st.finish(problems, f"OK: the shim exports the {len(required)} FFTW plan and wisdom "
                               f"functions and no other FFTW name")


if __name__ == "__main__":
    sys.exit(main())
