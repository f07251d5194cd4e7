#!/usr/bin/env python3
"""The GPU check's FFT table, from the JSON lines of its four columns.

  fft_table.py FILE... [--report LABEL=PATH] [--columns LABEL=WHY ...]

Columns (records' "label"): fftw (bench/fft_compare.c against FFTW, all cores), gpushim
(the same binary under LD_PRELOAD=libgpushim.so: host data), cufftw (fft_compare.c
built against cuFFTW: host data), device (bench/fft_device_limit.py: cuFFT on
device-resident data, the compute-only limit). Per cell: the median time of one execute
(a batched plan: the whole batch) and its GFLOP/s (5 N log2 N per complex transform,
half for r2c), gpushim vs FFTW = t(FFTW) / t(gpushim), gpushim vs cuFFTW =
t(cuFFTW) / t(gpushim), the checks of every column, and which of the shim's routines
ran the cell on the GPU.

GPUSHIM_REPORT (--report gpushim=PATH) counts per routine (fftw_dft, fftw_dft_r2c,
fftw_dft_c2r, ...) for the whole process; the records say how many executes each cell
made of each routine. Where a routine's GPU calls equal the executes all cells made of it
(and it has no CPU call), every cell using it ran on the GPU; otherwise the row says how
many of the process's executes did. --columns LABEL=WHY names a column that was not run
(e.g. "cufftw=n/a, no cufftw.h"), so the table shows it as such.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_compare as gc  # noqa: E402  (load, fmt_time)

COLUMNS = [("fftw", "FFTW"), ("gpushim", "gpushim, host data"), ("cufftw", "cuFFTW, host data"),
           ("device", "cuFFT, device-resident")]
ROUTINES = {"c2c": ["fftw_dft"], "r2c": ["fftw_dft_r2c", "fftw_dft_c2r"]}


def fmt_size(n):
    e = int(round(math.log2(n))) if n > 0 else 0
    return "2^%d" % e if n >= 4096 and 2 ** e == n else str(n)


def cell_title(r):
    dims = r["dims"]
    text = "%s %d-D %s" % (r["type"], len(dims), fmt_size(dims[0]) if len(dims) == 1
                           else "x".join(str(d) for d in dims))
    if r.get("howmany", 1) > 1:
        text += " x %d (batch)" % r["howmany"]
    return text


def row_key(r):
    howmany = r.get("howmany", 1)
    return (r["type"] == "r2c", howmany > 1, len(r["dims"]), r["n"], howmany)


def fmt_value(r):
    if r is None:
        return "-"
    if "seconds_per_transform" in r:
        text = "%s, %.1f GF/s" % (gc.fmt_time(r["seconds_per_transform"]), r["gflops"])
        if r.get("check") != "ok":
            text += ", CHECK FAIL"
        return text
    if "skipped" in r:
        p = r.get("predicted_s")
        return "skipped (predicted %s)" % gc.fmt_time(p) if p else "skipped (%s)" % r["skipped"]
    if r.get("kind") == "start":  # the process ended inside the cell
        return "no result (time limit or crash: the column's log)"
    return "n/a" if str(r.get("error", "")).startswith("n/a") else "error"


def ratio(num, den):
    a = (num or {}).get("seconds_per_transform")
    b = (den or {}).get("seconds_per_transform")
    return "%.2fx" % (a / b) if a and b else "-"


def checks(by_label, labels):
    measured = [(l, r) for l, r in ((l, by_label.get(l)) for l, _ in labels)
                if r and "seconds_per_transform" in r]
    if not measured:
        return "-"
    bad = [(l, r) for l, r in measured if r.get("check") != "ok"]
    if bad:
        return "FAIL: " + "; ".join("%s (spectrum %s, round trip %s, tol %.0e)" % (
            l, fmt_err(r.get("err_spectrum")), fmt_err(r.get("err_roundtrip")), r.get("tol", 0))
            for l, r in bad)
    worst = max(max(r["err_spectrum"], r["err_roundtrip"]) for _, r in measured)
    return "ok (%d, errors <= %.0e)" % (len(measured), worst)


def fmt_err(e):
    return "NaN" if e is None else "%.1e" % e


def load_report(path):
    try:
        with open(path) as f:
            return json.load(f).get("routines", {}), None
    except (OSError, ValueError) as e:
        return None, "no report %s (%s)" % (path, e.__class__.__name__)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--report", action="append", default=[], metavar="LABEL=PATH",
                    help="the GPUSHIM_REPORT JSON of the process that measured LABEL")
    ap.add_argument("--columns", action="append", default=[], metavar="LABEL=WHY",
                    help="a column that was not run, and why")
    args = ap.parse_args(argv)

    recs = gc.load(args.files)
    cells, infos, notes, absent = {}, {}, [], {}
    for item in args.columns:
        label, _, why = item.partition("=")
        absent[label] = why
    for r in recs:
        kind, label = r.get("kind"), r.get("label")
        if kind in ("fft", "start"):
            key = (r["cell"], label)
            if kind == "fft" or key not in cells:  # a start record stays only when nothing followed
                cells[key] = r
        elif kind == "info":
            infos[label] = r
        elif kind == "error":
            absent[label] = r.get("error", "error")
    labels = [(l, t) for l, t in COLUMNS if l in absent or any(k[1] == l for k in cells)]
    labels += [(l, l) for l in sorted(set(k[1] for k in cells)) if l not in dict(COLUMNS)]
    title = dict(labels)
    if "fftw" in infos:
        title["fftw"] = "FFTW, %s threads" % infos["fftw"].get("threads", "?")
    if "device" in infos:
        title["device"] = "cuFFT, device-resident (%s)" % infos["device"]["impl"].split()[0]
    have = set(title)

    # What the shim's report proves, per routine.
    reports = {}
    for item in args.report:
        label, _, path = item.partition("=")
        reports[label] = load_report(path) + (path,)
    expected = {}
    for (cell, label), r in cells.items():
        for name, k in (r.get("executes") or {}).items():
            expected[(label, name)] = expected.get((label, name), 0) + k

    def on_gpu(r):
        if r is None or "seconds_per_transform" not in r:
            return "-"
        if "gpushim" not in reports:
            return "no report"
        routines = reports["gpushim"][0]
        if routines is None:  # why: under the table
            return "no report"
        out = []
        for name in ROUTINES[r["type"]]:
            t = routines.get(name)
            want = expected.get(("gpushim", name), 0)
            fell = " (%d fallbacks)" % t["fallbacks"] if t and t.get("fallbacks") else ""
            if t is None or not t.get("gpu_calls"):
                out.append("%s NOT OFFLOADED%s" % (name, fell))
            elif t.get("gpu_calls") >= want and not t.get("cpu_calls"):
                out.append("%s (GPU)" % name)
            else:
                out.append("%s: %d of %d executes of the process on the GPU%s" % (
                    name, t.get("gpu_calls", 0), t.get("calls", 0), fell))
        return ", ".join(out)

    lines, unavailable = [], {}  # (label, reason) -> cells
    w = lines.append
    w("FFT, double precision, out of place: median time of one execute (a batched plan: the "
      "whole batch), GFLOP/s = 5 N log2 N per transform (r2c: half) / time")
    w("")
    head = ["cell"] + [title[l] for l, _ in labels]
    if {"fftw", "gpushim"} <= have:
        head.append("gpushim vs FFTW")
    if {"cufftw", "gpushim"} <= have:
        head.append("gpushim vs cuFFTW")
    head.append("checks")
    if "gpushim" in have:
        head.append("on the GPU under gpushim (its report)")
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    rows = sorted(set(k[0] for k in cells), key=lambda c: row_key(next(
        r for k, r in cells.items() if k[0] == c)))
    for cell in rows:
        by_label = {l: r for (c, l), r in cells.items() if c == cell}
        any_rec = next(iter(by_label.values()))
        out = [cell_title(any_rec)]
        for l, _ in labels:
            out.append("n/a" if l in absent and l not in by_label else fmt_value(by_label.get(l)))
        if {"fftw", "gpushim"} <= have:
            out.append(ratio(by_label.get("fftw"), by_label.get("gpushim")))
        if {"cufftw", "gpushim"} <= have:
            out.append(ratio(by_label.get("cufftw"), by_label.get("gpushim")))
        out.append(checks(by_label, labels))
        if "gpushim" in have:
            out.append(on_gpu(by_label.get("gpushim")))
        w("| " + " | ".join(out) + " |")
        for l, r in by_label.items():
            if "error" in r and str(r["error"]).startswith("n/a"):
                unavailable.setdefault((l, r["error"]), []).append(cell)
            elif "error" in r:
                notes.append("%s %s: %s" % (l, cell, r["error"]))
    w("")
    w("Ratios > 1: gpushim is faster. The host-data columns run bench/fft_compare.c (FFTW and "
      "gpushim: one binary; cuFFTW: built against cufftw.h) on fftw_malloc'ed host arrays; "
      "one input element changes before "
      "every timed execute, so a copy kept on the device cannot be reused. Plans are made "
      "with FFTW_ESTIMATE (FFTW_MEASURE plans may be faster on the CPU, but take minutes to "
      "make at these sizes). Checks: the spectrum at n/4 along the first and the last axis "
      "against the direct sum, and backward(forward(x)) = N x, both <= 32 log2(N) eps; "
      "ok (k, ...): k columns checked.")

    w("")
    w("Columns:")
    for l, _ in labels:
        if l in infos:
            i = infos[l]
            threads = ", %s threads" % i["threads"] if i.get("threads") else ""
            preload = ", preloaded %s" % i["preload"] if i.get("preload") else ""
            w("  %-8s %s%s%s" % (l, i.get("impl"), threads, preload))
        if l in absent:
            w("  %-8s not measured: %s" % (l, absent[l]))
        for (label, why), cs in sorted(unavailable.items()):
            if label == l:
                which = ("all cells" if len(cs) == len(rows) else ", ".join(cs) if len(cs) <= 3
                         else "%d of %d cells" % (len(cs), len(rows)))
                w("  %-8s %s: %s" % (l, which, why))

    for label, (routines, why, path) in sorted(reports.items()):
        w("")
        w("Where the shim ran them (%s GPUSHIM_REPORT %s; whole process, warm-ups and checks "
          "included):" % (label, path))
        if routines is None:
            w("  " + why)
            continue
        names = sorted(set(routines) | set(n for (l, n) in expected if l == label))
        for name in names:
            t = routines.get(name, {})
            w("  %-14s calls %d: gpu %d, cpu %d, fallbacks %d; H2D %.2f GB, D2H %.2f GB; "
              "executes in the records %d" % (
                  name, t.get("calls", 0), t.get("gpu_calls", 0), t.get("cpu_calls", 0),
                  t.get("fallbacks", 0), t.get("bytes_h2d", 0) / 1e9, t.get("bytes_d2h", 0) / 1e9,
                  expected.get((label, name), 0)))
    if notes:
        w("")
        w("Errors:")
        lines.extend("  " + x for x in notes)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
