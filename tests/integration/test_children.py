#!/usr/bin/env python3
"""Child processes under LD_PRELOAD: they must not notice the shim, and forks stay correct.

  test_children.py --shim build/libgpushim.so [--python /usr/bin/python3]

1. `sh -c 'ls >/dev/null'` with LD_PRELOAD=<shim> GPUSHIM_REPORT=1 (and with
   GPUSHIM_BACKEND=$TEST_GPUSHIM_BACKEND GPUSHIM_THRESHOLD=0): exit 0, nothing on stderr,
   and with GPUSHIM_REPORT=<dir>/r_%p.json no report file (no intercepted call, no report).
2. A process that makes no BLAS call maps no plugin: `cat /proc/self/maps` under the shim
   shows libgpushim.so but no libgpushim_hostsim / libgpushim_cuda / CUDA library.
3. Python + NumPy (--python): a large product (offloaded to the backend under test), then
   os.fork(); the child does products of every precision (and in threads) that must be
   correct and exits normally (the shim's exit path runs in the child); the parent goes
   on computing; a multiprocessing pool (fork) and a subprocess (inherits LD_PRELOAD)
   compute too.
   The parent's report must show dgemm gpu_calls > 0; every report must be valid JSON.
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402

CHILD_SCRIPT = r'''
import os, sys, threading, multiprocessing, subprocess
import numpy as np

def ref(a, b):
    w = np.complex128 if np.iscomplexobj(a) else np.float64
    a = a.astype(w); b = b.astype(w)
    return np.add.reduce(a[:, :, None] * b[None, :, :], axis=1)

def ok_product(a, b, c):
    k = a.shape[1]
    eps = np.finfo(c.dtype).eps
    bound = 4 * (k + 2) * eps * ref(np.abs(a), np.abs(b)) + np.finfo(c.dtype).tiny
    return bool(np.all(np.abs(c - ref(a, b)) <= bound))

def rand(r, shape, dt):
    x = r.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * r.standard_normal(shape)
    return x.astype(dt)

def products(seed, n=60):
    r = np.random.default_rng(seed)
    good = True
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        a, b = rand(r, (n, n + 3), dt), rand(r, (n + 3, n - 5), dt)
        good &= ok_product(a, b, a @ b)
        good &= ok_product(a, a.T, a @ a.T)
    return good

def pool_task(seed):
    return products(seed, 40)

if __name__ == "__main__":
    print(f"PARENT_PID={os.getpid()}", flush=True)
    r = np.random.default_rng(1)
    n = 400
    a, b = r.standard_normal((n, n)), r.standard_normal((n, n))
    c = a @ b
    x = r.standard_normal(n)
    lhs = np.add.reduce(c * x[None, :], axis=1)
    bx = np.add.reduce(b * x[None, :], axis=1)
    rhs = np.add.reduce(a * bx[None, :], axis=1)
    assert np.allclose(lhs, rhs, rtol=0, atol=1e-9 * n * n), "large product before fork"
    print("large product OK", flush=True)

    pid = os.fork()
    if pid == 0:
        good = products(2)
        res = []
        ts = [threading.Thread(target=lambda s=s: res.append(products(s))) for s in (3, 4, 5)]
        for t in ts: t.start()
        for t in ts: t.join()
        good = good and all(res) and len(res) == 3
        a2 = r.standard_normal((300, 200)); b2 = r.standard_normal((200, 250))
        good = good and ok_product(a2, b2, a2 @ b2)
        print(f"fork child {os.getpid()}: {'OK' if good else 'WRONG RESULTS'}", flush=True)
        sys.exit(0 if good else 3)      # normal exit: atexit handlers (the report) run here
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    print(f"fork child exit code {code}", flush=True)
    failures = [] if code == 0 else [f"fork child exit code {code}"]

    if not products(6):
        failures.append("parent products after fork")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        results = pool.map(pool_task, range(10, 14))
    if not all(results):
        failures.append(f"multiprocessing fork pool results {results}")
    print(f"pool results {results}", flush=True)
    sub = subprocess.run([sys.executable, "-c",
        "import numpy as np; r = np.random.default_rng(9); a = r.standard_normal((50, 70)); "
        "b = r.standard_normal((70, 30)); c = a @ b; "
        "w = np.add.reduce(a[:, :, None] * b[None], axis=1); "
        "assert np.allclose(c, w, rtol=1e-12, atol=1e-12); print('subprocess OK')"])
    if sub.returncode != 0:
        failures.append(f"subprocess exit code {sub.returncode}")
    if not products(7):
        failures.append("parent products at the end")
    print("FAILURES: " + "; ".join(failures) if failures else "ALL OK", flush=True)
    sys.exit(1 if failures else 0)
'''


def main() -> int:
    ap = st.arg_parser(__doc__, python="/usr/bin/python3")
    args = ap.parse_args()
    shim = st.find_shim(args.shim)
    problems = []
    skipped = []

    # 1. sh / ls under the shim: silent, no report
    with st.tempdir("children_") as tmp:
        for label, extra in [
                ("REPORT=1", {"GPUSHIM_REPORT": "1"}),
                ("REPORT=1 test backend, threshold 0", {"GPUSHIM_REPORT": "1"}),
                ("REPORT=file", {})]:
            env = st.make_env(shim, tmp if label == "REPORT=file" else None,
                              backend=None if label == "REPORT=1" else st.test_backend(),
                              threshold=None if label == "REPORT=1" else "0", extra=extra)
            res = st.run(["sh", "-c", "ls / >/dev/null && echo done"], env, cwd=tmp)
            if res.returncode != 0 or res.stdout.strip() != "done":
                problems.append(f"sh/ls [{label}]: exit {res.returncode}, stdout {res.stdout!r}")
            if res.stderr != "":
                problems.append(f"sh/ls [{label}]: wrote to stderr: {res.stderr[:500]!r}")
        if st.report_files(tmp):
            problems.append(f"sh/ls wrote a report: {st.report_files(tmp)}")
        st.log("sh -c 'ls': silent, no report" if not problems else "sh -c 'ls': PROBLEMS")

        # 2. nothing but the shim mapped in a process that makes no BLAS call
        env = st.make_env(shim, tmp)
        res = st.run(["cat", "/proc/self/maps"], env, cwd=tmp, echo=False)
        maps = res.stdout
        if "libgpushim.so" not in maps:
            problems.append("LD_PRELOAD did not map libgpushim.so into cat?")
        loaded = sorted({m for m in re.findall(r"\S*lib(?:gpushim_\w+|cuda\w*|cublas\w*|"
                                                r"cusolver\w*|cufft\w*)\S*", maps)})
        if loaded:
            problems.append(f"a process with no BLAS call mapped {loaded}")
        else:
            st.log("cat /proc/self/maps: no plugin or CUDA library mapped")

    # 3. fork / pool / subprocess with NumPy
    if not os.access(args.python, os.X_OK):
        skipped.append(f"{args.python} missing")
    else:
        probe = st.run([args.python, "-c", "import numpy"], st.make_env(None, None), echo=False)
        if probe.returncode != 0:
            skipped.append(f"NumPy not importable by {args.python}")
    if skipped:
        st.log("fork part skipped: " + "; ".join(skipped))
    else:
        with st.tempdir("children_fork_") as tmp:
            script = os.path.join(tmp, "fork_child.py")
            with open(script, "w") as f:
                f.write(CHILD_SCRIPT)
            env = st.make_env(shim, tmp)
            res = st.run([args.python, script], env, cwd=tmp)
            st.log(res.stdout.rstrip())
            st.log_stderr(res)
            if res.returncode != 0:
                problems.append(f"fork script exit code {res.returncode}")
            m = re.search(r"PARENT_PID=(\d+)", res.stdout)
            files = st.report_files(tmp)
            for path in files:
                try:
                    with open(path) as fh:
                        json.load(fh)
                except ValueError as e:
                    problems.append(f"report {path} is not valid JSON: {e}")
            parent = os.path.join(tmp, f"r_{m.group(1)}.json") if m else None
            if not parent or not os.path.isfile(parent):
                problems.append(f"no report from the parent process (files: {files})")
            else:
                rep = st.load_reports(tmp, [parent])
                st.log("parent report:\n" + st.format_report(rep))
                problems += st.check_report(rep, gpu=["dgemm"])

    if skipped and not problems:
        st.skip("the fork part: " + "; ".join(skipped) + " (the rest passed)")
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
