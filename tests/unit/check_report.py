#!/usr/bin/env python3
"""Checks a GPUSHIM_REPORT JSON file written by shim_vs_cpu_test or lapack_vs_cpu_test
(tests/unit/shim_vs_cpu.cmake, tests/unit/lapack_vs_cpu.cmake).

Every one of the routines checked (--routines: comma-separated lower-case names; by default
the 30 Level-3 routines) must appear in the report (it was called), and:
  --gpu             each routine completed calls on the device (gpu_calls > 0)
  --no-gpu          no routine ran on the device (gpu_calls == 0)
  --fallbacks       each routine had device failures recomputed on the CPU (fallbacks > 0)
  --some-fallbacks  some routine had (for faults injected at random, which may miss a
                    routine called a few times)
  --no-fallbacks    no routine had a device failure: without injected faults, a device that
                    refuses what the shim gives it is a bug the results cannot show
  --more-cpu-than B each routine ran more calls on the CPU than in report B (the same test
                    run with an unlimited device): calls too large for the device stayed there
  --same-split-as B each routine ran as many calls on the device, and on the CPU, as in
                    report B: what the variant limits sent no call to the CPU
  --hostsim-only    exit 77 (skipped) unless the backend under test ($TEST_GPUSHIM_BACKEND,
                    default hostsim) is hostsim: shim_vs_cpu_test skipped that variant too
Exit status 0 when every check holds; the failures are listed otherwise.
"""
import argparse
import json
import os
import sys

ROUTINES = [
    p + r
    for r, precisions in [
        ("gemm", "sdcz"), ("symm", "sdcz"), ("hemm", "cz"), ("syrk", "sdcz"), ("herk", "cz"),
        ("syr2k", "sdcz"), ("her2k", "cz"), ("trmm", "sdcz"), ("trsm", "sdcz"),
    ]
    for p in precisions
]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)["routines"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"check_report: cannot read the report {path}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--routines", type=lambda text: [r for r in text.split(",") if r],
                        default=ROUTINES, metavar="NAME,NAME,...",
                        help="the routines to check (default: the 30 Level-3 routines)")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--no-gpu", action="store_true")
    parser.add_argument("--fallbacks", action="store_true")
    parser.add_argument("--some-fallbacks", action="store_true")
    parser.add_argument("--no-fallbacks", action="store_true")
    parser.add_argument("--more-cpu-than", metavar="BASELINE")
    parser.add_argument("--same-split-as", metavar="BASELINE")
    parser.add_argument("--hostsim-only", action="store_true")
    args = parser.parse_args()
    backend = os.environ.get("TEST_GPUSHIM_BACKEND") or "hostsim"
    if args.hostsim_only and backend != "hostsim":
        print(f"check_report: skipped: this variant needs hostsim, not {backend}")
        return 77

    routines = load(args.report)
    baseline = load(args.more_cpu_than) if args.more_cpu_than else None
    same_split = load(args.same_split_as) if args.same_split_as else None
    problems = []
    for name in args.routines:
        totals = routines.get(name)
        if totals is None or totals.get("calls", 0) == 0:
            problems.append(f"{name}: not called")
            continue
        if args.gpu and totals["gpu_calls"] == 0:
            problems.append(f"{name}: no call ran on the device")
        if args.no_gpu and totals["gpu_calls"] != 0:
            problems.append(f"{name}: {totals['gpu_calls']} calls ran on the device")
        if args.fallbacks and totals["fallbacks"] == 0:
            problems.append(f"{name}: no device failure was recomputed on the CPU")
        if args.no_fallbacks and totals["fallbacks"] != 0:
            problems.append(f"{name}: {totals['fallbacks']} device failures without injected "
                            "faults")
        if baseline is not None:
            before = baseline.get(name, {}).get("cpu_calls", 0)
            if totals["cpu_calls"] <= before:
                problems.append(
                    f"{name}: {totals['cpu_calls']} CPU calls, not more than the "
                    f"{before} of {args.more_cpu_than}")
        if same_split is not None:
            for side in ("gpu_calls", "cpu_calls"):
                before = same_split.get(name, {}).get(side, 0)
                if totals[side] != before:
                    problems.append(f"{name}: {totals[side]} {side}, against {before} in "
                                    f"{args.same_split_as}")
    if args.some_fallbacks and not any(
            routines.get(name, {}).get("fallbacks", 0) for name in args.routines):
        problems.append("no routine had a device failure recomputed on the CPU")
    for problem in problems:
        print(f"check_report: {args.report}: {problem}")
    if not problems:
        print(f"check_report: {args.report}: {len(args.routines)} routines as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
