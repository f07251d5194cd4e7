"""Helpers shared by the integration-test drivers.

Standard library only: the drivers run under Debian's /usr/bin/python3 and under the
project's venv, and the helpers must not load NumPy (a driver process never calls BLAS;
only the children it starts run under the shim).

Conventions
- Exit code 77 means "skipped" (CTest SKIP_RETURN_CODE 77): a prerequisite is missing.
  A missing *shim* is never a skip: the shim is what is under test. With CI=true (the CI
  runner sets it) a missing prerequisite fails instead: CI installs everything.
- The shim is given by --shim or the environment variable GPUSHIM_TEST_SHIM.
- Every child runs with a clean GPUSHIM_* environment (GPUSHIM_LOG passes through),
  GPUSHIM_REPORT=<tmpdir>/r_%p.json, and whatever the driver adds.
- The device plugin under test is $TEST_GPUSHIM_BACKEND (default hostsim): the children
  get it as GPUSHIM_BACKEND. `TEST_GPUSHIM_BACKEND=cuda ctest ...` runs the suite on the
  CUDA plugin; what only the host-simulated device can do (a small device:
  GPUSHIM_HOSTSIM_*) is then skipped, and fault injection too unless the CUDA plugin runs
  over the emulated CUDA libraries (TEST_GPUSHIM_CUDASIM=1, the *.cudasim tests), whose
  CUDASIM_FAIL_EVERY makes about one allocation or library call in N fail, picked at
  random. The names have no
  GPUSHIM_ prefix because the shim warns about every GPUSHIM_ variable that is not one of
  its settings.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
TEST_BACKEND_VARIABLE = "TEST_GPUSHIM_BACKEND"
CUDASIM_VARIABLE = "TEST_GPUSHIM_CUDASIM"
EMULATOR_VARIABLE = "TEST_GPUSHIM_EMULATOR"
# A sanitizer build's runtime (libtsan.so), set by CMake in such a build: an instrumented shim
# preloaded into an uninstrumented program (Python, R, sh) needs it ahead of libc, which it
# comes after when it is loaded as the shim's dependency (the program then crashes).
SANITIZER_RUNTIME_VARIABLE = "TEST_GPUSHIM_SANITIZER_RUNTIME"
# Where launchers put a process's rank on its node, in the order GPUSHIM_DEVICE=local-rank
# looks at them (gpu/device_choice.cpp).
LOCAL_RANK_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                        "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID",
                        "FLUX_TASK_LOCAL_ID", "SLURM_LOCALID")
_TEST_BACKEND = object()  # make_env's default: the backend under test
COUNTERS = ("calls", "gpu_calls", "cpu_calls", "fallbacks", "seconds", "flops",
            "bytes_h2d", "bytes_d2h", "verified", "differed")


def log(msg: str) -> None:
    print(msg, flush=True)


def skip(msg: str) -> "NoReturn":  # noqa: F821
    """Exit 77 (CTest SKIP_RETURN_CODE), except in CI (CI=true, set by the CI runner for
    .ci/run): there .ci/install-deps has installed every prerequisite, so a missing one is
    a failure, not a reason to test less."""
    if os.environ.get("CI") == "true":
        fail(f"{msg} (CI=true: .ci/install-deps should have installed it)")
    log(f"SKIP: {msg}")
    sys.exit(SKIP)


def test_backend() -> str:
    """The GPUSHIM_BACKEND of the children: $TEST_GPUSHIM_BACKEND, default hostsim."""
    return os.environ.get(TEST_BACKEND_VARIABLE) or "hostsim"


def hostsim_only(what: str) -> None:
    """Skip (exit 77, in CI too: nothing is missing) when the backend under test is not
    hostsim: `what` (fault injection, a small device) needs the host-simulated device."""
    if test_backend() != "hostsim":
        log(f"SKIP: {what} needs the hostsim backend; "
            f"{TEST_BACKEND_VARIABLE}={test_backend()}")
        sys.exit(SKIP)


def fault_variable() -> str | None:
    """The variable that makes the backend under test fail device operations: hostsim's
    (every N-th), or the emulated CUDA libraries' under the CUDA plugin (about one in N);
    None for a real GPU."""
    if test_backend() == "hostsim":
        return "GPUSHIM_HOSTSIM_FAIL_EVERY"
    if test_backend() == "cuda" and os.environ.get(CUDASIM_VARIABLE) == "1":
        return "CUDASIM_FAIL_EVERY"
    return None


def fallbacks_flag() -> str:
    """check_report.py's flag for a run with injected faults: hostsim fails every N-th
    device operation, so each routine called often enough falls back (--fallbacks); the
    emulated CUDA libraries pick their failing calls at random, which may miss a routine
    called a few times (--some-fallbacks)."""
    return "--fallbacks" if fault_variable() == "GPUSHIM_HOSTSIM_FAIL_EVERY" else "--some-fallbacks"


def require_fault_injection() -> None:
    """Skip (exit 77, in CI too: nothing is missing) unless faults can be injected."""
    if fault_variable() is None:
        log(f"SKIP: fault injection needs the hostsim backend or the emulated CUDA "
            f"libraries; {TEST_BACKEND_VARIABLE}={test_backend()}")
        sys.exit(SKIP)


def fail(msg: str) -> "NoReturn":  # noqa: F821
    log(f"FAIL: {msg}")
    sys.exit(1)


def arg_parser(doc: str, *, python: str | None = None) -> argparse.ArgumentParser:
    """The driver's command line: its docstring as the help text, --shim, and with `python`
    (the interpreter the children run by default) --python."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shim")
    if python is not None:
        ap.add_argument("--python", default=python)
    return ap


def add_program_options(ap: argparse.ArgumentParser) -> None:
    """The options of a driver that runs one program under the shim: --fail-every N,
    --expect-gpu r1,r2 (routines the report must show offloaded), --env K=V (more
    settings, repeatable)."""
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--expect-gpu", default="")
    ap.add_argument("--env", action="append", default=[], metavar="K=V")


def program_settings(args: argparse.Namespace) -> dict:
    """The --env settings of add_program_options; skips (exit 77) where they need the
    hostsim backend, or --fail-every fault injection, and the backend under test lacks it."""
    extra = dict(kv.split("=", 1) for kv in args.env)
    if any(k.startswith("GPUSHIM_HOSTSIM_") for k in extra):
        hostsim_only("a GPUSHIM_HOSTSIM_* setting")
    if args.fail_every:
        require_fault_injection()
    return extra


def check_program_reports(report_dir: str, args: argparse.Namespace) -> list[str]:
    """check_reports for the --expect-gpu routines, with faults when --fail-every."""
    want = [r for r in args.expect_gpu.split(",") if r]
    return check_reports(report_dir, gpu=want, faults=args.fail_every > 0)


def find_shim(arg: str | None) -> str:
    shim = arg or os.environ.get("GPUSHIM_TEST_SHIM")
    if not shim:
        fail("no shim given (--shim or GPUSHIM_TEST_SHIM)")
    shim = os.path.abspath(shim)
    if not os.path.isfile(shim):
        fail(f"shim library not found: {shim}")
    return shim


def make_env(shim: str | None, report_dir: str | None, *, preload: bool = True,
             backend=_TEST_BACKEND, threshold: str | None = "0",
             fail_every: int = 0, extra: dict | None = None) -> dict:
    """The environment of a child process under test.

    shim=None or preload=False: no LD_PRELOAD (baseline runs, relinked programs).
    backend: the GPUSHIM_BACKEND, by default test_backend(); None leaves it unset (the
    shim's default). GPUSHIM_HOSTSIM_* in extra skip the test (exit 77) unless that backend
    is hostsim, fail_every unless the backend under test can inject faults."""
    if backend is _TEST_BACKEND:
        backend = test_backend()
    if shim is not None and backend != "hostsim" and any(
            k.startswith("GPUSHIM_HOSTSIM_") for k in (extra or {})):
        log(f"SKIP: GPUSHIM_HOSTSIM_* needs the hostsim backend, not {backend}")
        sys.exit(SKIP)
    if shim is not None and fail_every:
        require_fault_injection()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GPUSHIM_") or k == "GPUSHIM_LOG"}
    env.pop("LD_PRELOAD", None)
    if shim is not None and preload:
        old = os.environ.get("LD_PRELOAD", "")
        # Keep a preload the caller set (e.g. a sanitizer runtime), but never a second shim.
        keep = [p for p in old.replace(":", " ").split() if "libgpushim" not in p]
        runtime = os.environ.get(SANITIZER_RUNTIME_VARIABLE)
        env["LD_PRELOAD"] = " ".join(([runtime] if runtime else []) + [shim] + keep)
    if shim is not None:
        if backend is not None:
            env["GPUSHIM_BACKEND"] = backend
        if threshold is not None:
            env["GPUSHIM_THRESHOLD"] = threshold
        if fail_every:
            env[fault_variable()] = str(fail_every)
        if report_dir is not None:
            env["GPUSHIM_REPORT"] = os.path.join(report_dir, "r_%p.json")
        # No settings file (/etc/gpushim.conf on a developer's machine) unless a test names one.
        env["GPUSHIM_CONFIG"] = ""
    if extra:
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
    return env


def report_files(report_dir: str) -> list[str]:
    return sorted(glob.glob(os.path.join(report_dir, "r_*.json")))


def load_report_file(path: str) -> dict:
    with open(path) as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("routines"), dict):
        fail(f"report {path} has no 'routines' object: {data!r:.300}")
    return data["routines"]


def load_report_backend(path: str) -> str:
    """The backend line of a JSON report ("" where it has none)."""
    with open(path) as f:
        return json.load(f).get("backend") or ""


def load_reports(report_dir: str, files: list[str] | None = None) -> dict:
    """Sum the per-routine counters of every report in report_dir (one file per pid)."""
    total: dict[str, dict[str, float]] = {}
    for path in (files if files is not None else report_files(report_dir)):
        for name, rec in load_report_file(path).items():
            if name != name.lower():
                fail(f"report {path}: routine key {name!r} is not lower-case")
            acc = total.setdefault(name, {c: 0 for c in COUNTERS})
            for c in COUNTERS:
                if c not in rec:
                    fail(f"report {path}: routine {name!r} lacks counter {c!r}: {rec}")
                acc[c] += rec[c]
    return total


def format_report(rep: dict) -> str:
    lines = [f"  {'routine':10s} {'calls':>8s} {'gpu':>8s} {'cpu':>8s} {'fallbk':>8s}"]
    for name in sorted(rep):
        r = rep[name]
        lines.append(f"  {name:10s} {int(r['calls']):8d} {int(r['gpu_calls']):8d} "
                     f"{int(r['cpu_calls']):8d} {int(r['fallbacks']):8d}")
    return "\n".join(lines)


def check_report(rep: dict, *, gpu: list[str] = (), faults: bool = False,
                 checked: bool = False, differences: bool = False) -> list[str]:
    """Problems with an aggregated report: routines in `gpu` must have gpu_calls > 0,
    counters must be consistent, with `faults` some fallback must have happened, and
    without them none: a device that refuses what the shim gives it is a bug the results
    cannot show.

    Counter meaning (as the shim reports them): calls = gpu_calls + cpu_calls; a call whose
    device attempt failed counts in cpu_calls and in fallbacks. With faults, each routine in
    `gpu` must have been tried on the device (gpu_calls + fallbacks > 0), and some call must
    have completed there. With `checked` (GPUSHIM_VERIFY=1), each routine in `gpu` must have
    been checked (verified > 0). With `differences` (on a device made to compute wrong
    results), some call must have differed; without, none may."""
    problems = []
    for name in gpu:
        r = rep.get(name)
        if r is None:
            problems.append(f"{name}: not in the report")
        elif faults and r["gpu_calls"] + r["fallbacks"] <= 0:
            # with injected faults a routine called once may have had its only device
            # attempt fail: then it must show as a fallback
            problems.append(f"{name}: never tried on the device (calls={r['calls']}, "
                            f"cpu_calls={r['cpu_calls']}, fallbacks={r['fallbacks']})")
        elif not faults and r["gpu_calls"] <= 0:
            problems.append(f"{name}: gpu_calls == 0 (calls={r['calls']}, "
                            f"cpu_calls={r['cpu_calls']}, fallbacks={r['fallbacks']})")
        elif r["gpu_calls"] > 0 and (r["bytes_d2h"] <= 0 or r["flops"] <= 0):
            # every Level-3 result is copied back to the caller's buffer
            problems.append(f"{name}: gpu_calls > 0 but bytes_d2h / flops are 0: {r}")
    if any(rep.get(n, {}).get("gpu_calls", 0) > 0 for n in gpu) and \
            sum(r["bytes_h2d"] for r in rep.values()) <= 0:
        problems.append("calls ran on the device but no byte was copied to it")
    for name, r in rep.items():
        if any(r[c] < 0 for c in COUNTERS) or any(
                r[c] > r["calls"] for c in ("gpu_calls", "cpu_calls", "fallbacks")) or \
                r["differed"] > r["verified"]:
            problems.append(f"{name}: inconsistent counters {r}")
    if checked:
        problems += [f"{name}: no call checked (verified == 0)" for name in gpu
                     if rep.get(name, {}).get("verified", 0) <= 0]
    if differences:
        if sum(r["differed"] for r in rep.values()) <= 0:
            problems.append("GPUSHIM_VERIFY found no difference on a device computing wrong results")
    else:
        problems += [f"{name}: {r['differed']} results differed from the CPU's"
                     for name, r in rep.items() if r["differed"] > 0]
    if not faults:
        problems += [f"{name}: {r['fallbacks']} device failures without injected faults"
                     for name, r in rep.items() if r["fallbacks"] > 0]
    if faults and sum(r["fallbacks"] for r in rep.values()) <= 0:
        problems.append("fault injection was on but no call fell back to the CPU")
    if faults and gpu and sum(r["gpu_calls"] for r in rep.values()) <= 0:
        problems.append("fault injection was on and no call at all completed on the device")
    return problems


def check_reports(report_dir: str, *, gpu: list[str] = (), faults: bool = False,
                  checked: bool = False, differences: bool = False) -> list[str]:
    """Problems with the JSON reports in report_dir: none written, or what check_report finds
    in their sum (which is logged)."""
    if not report_files(report_dir):
        return ["no JSON report written"]
    rep = load_reports(report_dir)
    log("report:\n" + format_report(rep))
    return (check_report(rep, gpu=gpu, faults=faults, checked=checked, differences=differences) +
            check_cudasim_backend(report_dir))


def check_cudasim_backend(report_dir: str) -> list[str]:
    """With TEST_GPUSHIM_CUDASIM=1, problems where a process's CUDA plugin found a device
    other than the emulated one (a loader path that put the toolkit's libraries first, on a
    machine with a GPU): its results would not test what the test claims."""
    if os.environ.get(CUDASIM_VARIABLE) != "1":
        return []
    problems = []
    for path in report_files(report_dir):
        backend = load_report_backend(path)
        if backend.startswith("cuda:") and "cudasim" not in backend:
            problems.append(f"{path}: the CUDA plugin ran on {backend!r}, not on the emulated "
                            f"CUDA libraries")
    return problems


def finish(problems: list[str], ok: str = "OK") -> int:
    """The driver's end: a FAIL line for each problem and exit code 1, or `ok` and 0."""
    for p in problems:
        log(f"FAIL: {p}")
    if problems:
        return 1
    log(ok)
    return 0


def program_command(words: list[str]) -> list[str]:
    """The driver's trailing PROGRAM ARGS... (argparse.REMAINDER, a leading "--" dropped);
    fails when the program is not built. Its path is made absolute, as it runs in a temporary
    folder."""
    cmd = words[1:] if words[:1] == ["--"] else list(words)
    if not cmd:
        fail("no program given")
    if not os.access(cmd[0], os.X_OK):
        fail(f"program not built: {cmd[0]}")
    cmd[0] = os.path.abspath(cmd[0])
    return cmd


def run_checking_program(cmd: list[str], env: dict, cwd: str, *,
                         name: str | None = None) -> list[str]:
    """Run a program that checks its own results and prints "N checks, M failed": skip when it
    exits 77 (`name`, by default cmd[0]'s, says which one misses a prerequisite). Problems: an
    exit code other than 0, no such line, N = 0 or M > 0."""
    res = run(cmd, env, cwd=cwd)
    log(tail(res.stdout, 100))
    if res.returncode == SKIP:
        skip(f"{name or os.path.basename(cmd[0])} says a prerequisite is missing")
    log_stderr(res, 60)
    problems = []
    if res.returncode != 0:
        problems.append(f"exit code {res.returncode}")
    m = re.search(r"^(\d+) checks, (\d+) failed$", res.stdout, re.M)
    if not m:
        problems.append("no 'N checks, M failed' line")
    elif int(m.group(1)) == 0 or int(m.group(2)) != 0:
        problems.append(f"the program says: {m.group(0)}")
    return problems


def log_stderr(res: subprocess.CompletedProcess, lines: int = 40) -> None:
    """The last lines of a child's stderr, when it wrote any."""
    if res.stderr.strip():
        log("--- stderr ---\n" + tail(res.stderr, lines))


def elf_machine(path: str) -> int | None:
    """The e_machine of an ELF file (EM_X86_64 62, EM_AARCH64 183), None for anything else
    (a script)."""
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return None
    if len(header) < 20 or header[:4] != b"\x7fELF":
        return None
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")


def under_emulator(cmd: list[str], env: dict) -> tuple[list[str], dict]:
    """cmd and env as they must be run: unchanged, unless cmd's program is built for another
    machine than this Python (a cross build's clients), which then runs under the emulator
    $TEST_GPUSHIM_EMULATOR (qemu-user; the cross build sets it). The emulator is a program of
    this machine: the dynamic linker's variables (LD_*, GLIBC_TUNABLES; LD_PRELOAD: the shim)
    go to the program it runs alone, through its -E options; every other variable reaches that
    program unchanged."""
    program = shutil.which(cmd[0], path=env.get("PATH")) or cmd[0]
    foreign = elf_machine(program)
    if foreign is None or foreign == elf_machine(os.path.realpath(sys.executable)):
        return cmd, env
    emulator = os.environ.get(EMULATOR_VARIABLE)
    if not emulator:
        fail(f"{program} is built for another machine (ELF machine {foreign}) and "
             f"{EMULATOR_VARIABLE} names no emulator")
    env = dict(env)
    guest = []
    for name in [n for n in env if n.startswith("LD_") or n == "GLIBC_TUNABLES"]:
        value = env.pop(name)
        if "," in value:  # qemu's -E takes NAME=VALUE[,NAME=VALUE...]
            fail(f"{name}={value}: the emulator cannot be given a value with a comma")
        guest += ["-E", f"{name}={value}"]
    return [emulator, *guest, program, *cmd[1:]], env


def run(cmd: list[str], env: dict, *, cwd: str | None = None, timeout: float = 600,
        stdin=None, echo: bool = True) -> subprocess.CompletedProcess:
    if echo:
        shown = {k: v for k, v in env.items()
                 if k.startswith("GPUSHIM_") or k in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
        log("+ " + " ".join(f"{k}={v}" for k, v in sorted(shown.items())) + " "
            + " ".join(cmd))
    cmd, env = under_emulator(cmd, env)
    try:
        return subprocess.run(cmd, env=env, cwd=cwd, stdin=stdin, timeout=timeout,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"")
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        log(out[-5000:])
        fail(f"timed out after {timeout}s: {' '.join(cmd)}")


def tail(text: str, n: int = 60) -> str:
    lines = text.splitlines()
    return "\n".join(lines[-n:])


def require_numpy(python: str) -> None:
    """Skip (exit 77; in CI a failure) unless `python` exists and imports NumPy."""
    if not os.access(python, os.X_OK):
        skip(f"{python} missing")
    if run([python, "-c", "import numpy"], make_env(None, None), echo=False).returncode != 0:
        skip(f"NumPy not importable by {python}")


def tempdir(prefix: str) -> tempfile.TemporaryDirectory:
    # Kept when GPUSHIM_TEST_KEEP=1, for post-mortems.
    if os.environ.get("GPUSHIM_TEST_KEEP") == "1":
        d = tempfile.mkdtemp(prefix=prefix)
        log(f"(keeping {d})")

        class _Keep:
            name = d

            def __enter__(self):
                return d

            def __exit__(self, *a):
                return False

            def cleanup(self):
                pass
        return _Keep()
    return tempfile.TemporaryDirectory(prefix=prefix)
