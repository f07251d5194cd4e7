#!/usr/bin/env python3
"""Checks that each LAPACK family's SHAPE (shim/lapack_signatures.h) lists, as m, n, k and
nrhs, the family's integer arguments of those names, or 0 where it has none: the entry
points compare the order those sizes give with the threshold before the call is described,
so a size left out would keep a large call on the CPU.

Usage: check_lapack_shapes.py <shim/lapack_signatures.h>"""
import re
import sys

SLOTS = ("m", "n", "k", "nrhs")


def macros(text, suffix):
    """{family: body} of the #define GPUSHIM_LAPACK_<family>_<suffix> macros."""
    joined = re.sub(r"\\\n", " ", text)
    pattern = rf"^#define GPUSHIM_LAPACK_(\w+?)_{suffix}(?:\(T, I\))?[ \t]+(.*)$"
    return {m.group(1): m.group(2).strip() for m in re.finditer(pattern, joined, re.M)}


def main():
    text = open(sys.argv[1]).read()
    params = macros(text, "PARAMS")
    shapes = macros(text, "SHAPE")
    problems = []
    if not params:
        problems.append("no PARAMS macro found")
    for family, body in sorted(params.items()):
        sizes = set(re.findall(r"const I \*(\w+)", body))
        expected = ", ".join(f"*{slot}" if slot in sizes else "0" for slot in SLOTS)
        found = re.sub(r"\s+", " ", shapes.get(family, "(none)"))
        if found != expected:
            problems.append(f"{family}: SHAPE is {found}, its arguments make it {expected}")
    for family in sorted(set(shapes) - set(params)):
        problems.append(f"{family}: a SHAPE without PARAMS")
    for problem in problems:
        print(problem)
    print(f"{len(params)} families, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
