#!/usr/bin/env python3
"""`cmake --install`, and the installed tree used as a user would use it.

  test_install.py --shim build/libgpushim.so --cmake cmake --build-dir build --libdir lib
                  --cc cc --program-source cblas_blas.c --cblas-include DIR --cpu-blas LIB

  - cmake --install BUILD --prefix TMP: exit 0; bin/gpushim, LIBDIR/libgpushim.so,
    LIBDIR/pkgconfig/gpushim.pc, and LIBDIR/libgpushim_cuda.so where the CUDA plugin is
    built (with the toolkit's library directory as a run path, unless the linker searches it
    anyway); nothing of the tests (hostsim, cudasim)
  - pkg-config (PKG_CONFIG_PATH=TMP/LIBDIR/pkgconfig): the version, and --libs naming the
    installed library directory, whatever --prefix the install was given
  - a CBLAS program (cblas_blas.c) relinked with `$(pkg-config --libs gpushim) -lopenblas`:
    runs without LD_LIBRARY_PATH (the run path the .pc file gives), its checks pass and the
    report has dgemm and zgemm on the device; the backend under test by name where it is the
    CUDA plugin (the installed one beside the installed library), else hostsim's path
  - TMP/bin/gpushim info: looks for the plugin in LIBDIR, not beside itself (over the
    emulated CUDA libraries: "device: cuda: cudasim"; without a GPU: not "cannot open" where
    the plugin is built)
  - TMP/bin/gpushim run printenv LD_PRELOAD: the installed library, by its absolute path
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shimtest as st  # noqa: E402


def main() -> int:
    ap = st.arg_parser(__doc__)
    for option in ("--cmake", "--build-dir", "--libdir", "--cc", "--program-source",
                   "--cblas-include", "--cpu-blas"):
        ap.add_argument(option, required=True)
    ap.add_argument("--cuda-library-dir", default="",
                    help="the toolkit's library directory, where the CUDA plugin is built")
    args = ap.parse_args()
    build_shim = st.find_shim(args.shim)
    built_cuda = os.path.join(os.path.dirname(build_shim), "libgpushim_cuda.so")
    backend = st.test_backend()
    problems = []

    with st.tempdir("install_") as tmp:
        prefix = os.path.join(tmp, "prefix")
        base = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_")}
        res = st.run([args.cmake, "--install", args.build_dir, "--prefix", prefix], base)
        if res.returncode != 0:
            return st.finish([f"cmake --install exited {res.returncode}: {st.tail(res.stderr)}"])
        libdir = os.path.join(prefix, args.libdir)
        installed = sorted(os.path.relpath(os.path.join(d, f), prefix)
                           for d, _, files in os.walk(prefix) for f in files)
        st.log("installed: " + ", ".join(installed))
        expected = ["bin/gpushim", f"{args.libdir}/libgpushim.so",
                    f"{args.libdir}/pkgconfig/gpushim.pc"]
        if os.path.isfile(built_cuda):
            expected.append(f"{args.libdir}/libgpushim_cuda.so")
        problems += [f"not installed: {path}" for path in expected if path not in installed]
        problems += [f"installed, but for the tests only: {path}" for path in installed
                     if "hostsim" in path or "cudasim" in path]
        installed_cuda = os.path.join(libdir, "libgpushim_cuda.so")
        implicit = ("/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/lib/x86_64-linux-gnu")
        if os.path.isfile(installed_cuda) and args.cuda_library_dir and \
                os.path.realpath(args.cuda_library_dir) not in map(os.path.realpath, implicit):
            dynamic = st.run(["readelf", "-d", installed_cuda], base).stdout
            paths = [p for line in dynamic.splitlines() if "RUNPATH" in line or "RPATH" in line
                     for p in line.split("[", 1)[1].rstrip("]").split(":")]
            if os.path.realpath(args.cuda_library_dir) not in map(os.path.realpath, paths):
                problems.append(f"the installed CUDA plugin's run path {paths} lacks the "
                                f"toolkit's {args.cuda_library_dir}")
        if shutil.which("pkg-config") is None:
            return st.finish(problems + ["no pkg-config (Debian's pkgconf)"])

        pc_env = dict(base, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"))
        version = st.run(["pkg-config", "--modversion", "gpushim"], pc_env)
        libs = st.run(["pkg-config", "--libs", "gpushim"], pc_env)
        st.log(f"pkg-config: {version.stdout.strip()} | {libs.stdout.strip()}")
        if version.returncode != 0 or not version.stdout.strip():
            problems.append(f"pkg-config --modversion gpushim failed: {version.stderr.strip()}")
        flags = libs.stdout.split()
        library_dirs = [os.path.realpath(f[2:]) for f in flags if f.startswith("-L")]
        if os.path.realpath(libdir) not in library_dirs or "-lgpushim" not in flags:
            problems.append(f"pkg-config --libs gpushim does not name {libdir}: {flags}")

        program = os.path.join(tmp, "cblas_blas")
        compiled = st.run([args.cc, "-std=c11", "-O1", "-I", args.cblas_include, "-o", program,
                           args.program_source, *flags, "-Wl,--no-as-needed", args.cpu_blas,
                           "-lm"], base)
        if compiled.returncode != 0:
            problems.append(f"the relink failed: {st.tail(compiled.stderr, 20)}")
        else:
            # The backend by name finds the installed plugin beside the installed library;
            # hostsim is not installed, so it is named by its path in the build tree.
            chosen = (backend if backend == "cuda" else
                      os.path.join(os.path.dirname(build_shim), f"libgpushim_{backend}.so"))
            reports = os.path.join(tmp, "reports")
            os.mkdir(reports)
            env = st.make_env(os.path.join(libdir, "libgpushim.so"), reports, preload=False,
                              backend=chosen)
            problems += st.run_checking_program([program], env, tmp)
            problems += st.check_reports(reports, gpu=["dgemm", "zgemm"])
            loaded = subprocess.run(["ldd", program], env=env, capture_output=True, text=True)
            shims = [os.path.realpath(line.split("=>")[1].split("(")[0].strip())
                     for line in loaded.stdout.splitlines() if "libgpushim.so =>" in line]
            if shims != [os.path.realpath(os.path.join(libdir, "libgpushim.so"))]:
                problems.append(f"the relinked program does not load the installed library: "
                                f"{loaded.stdout}")

        info = st.run([os.path.join(prefix, "bin", "gpushim"), "info"],
                      st.make_env(None, None, extra=None))
        st.log(st.tail(info.stdout, 30))
        device = next((line for line in info.stdout.splitlines()
                       if line.startswith("device: ")), "")
        if info.returncode != 0 or not device:
            problems.append(f"gpushim info: exit {info.returncode}, no device line")
        else:
            # Loaded, or refused with the path tried: never one beside the command.
            if "/bin/libgpushim_" in device or (os.path.isfile(installed_cuda) and
                                                "cannot open" in device):
                problems.append(f"the installed command does not find the plugin: {device}")
            if os.environ.get(st.CUDASIM_VARIABLE) == "1" and "cudasim" not in device:
                problems.append(f"the installed command's plugin found no device: {device}")

        preloaded = st.run([os.path.join(prefix, "bin", "gpushim"), "run", "printenv",
                            "LD_PRELOAD"], base)
        want = os.path.realpath(os.path.join(libdir, "libgpushim.so"))
        if preloaded.returncode != 0 or preloaded.stdout.strip() != want:
            problems.append(f"the installed gpushim run preloads {preloaded.stdout.strip()!r} "
                            f"(exit {preloaded.returncode}), not {want}")
    return st.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
