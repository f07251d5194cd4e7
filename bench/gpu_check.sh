#!/usr/bin/env bash
# The GPU check: one command for the device machine (see DESIGN.md, "The GPU machine").
#
#   bash bench/gpu_check.sh            from the repository root; writes $OUT/gpu_check.txt
#
# 1. configure + build the project there (Ninja if present; no benchmarks; tests only
#    if they configure; warnings not fatal: this run measures, it does not lint)
# 2. the test suite with the CUDA plugin and forced offload
#    (GPUSHIM_BACKEND=cuda GPUSHIM_THRESHOLD=0 ctest)
# 3. the Netlib Level-3 BLAS testers (Fortran and CBLAS) under LD_PRELOAD of the shim,
#    forced offload, when carried (bench/netlib_carry.sh) or installed
# 4. GEMM timings {s,d,z} x n: OpenBLAS (pip NumPy, all cores), gpushim with host data
#    (the same NumPy under LD_PRELOAD), NVBLAS and gpushim through dgemm_ (ctypes),
#    cuBLAS on device-resident data (PyTorch or CuPy), copy rates, and the PCIe model
#    for DGEMM n = 8192 (bench/gemm_compare.py)
#
# Every step has a timeout derived from one overall budget, so a hung step cannot
# eat the device time; what was skipped, and why, is said in the summary.
#
# Environment (all optional; none is named GPUSHIM_*: the shim warns about every
# GPUSHIM_ variable that is not one of its settings):
#   GPU_CHECK_BUDGET=460          seconds for the whole script
#   GPU_CHECK_BUILD_DIR=build-gpu build directory (relative to the repository root)
#   GPU_CHECK_BACKEND=cuda        GPUSHIM_BACKEND for every step (hostsim: a dry run
#                                 on a machine without a GPU)
#   GPU_CHECK_SIZES=1024,2048,4096,8192,16384     GPU_CHECK_DTYPES=s,d,z
#   GPU_CHECK_REPS=5              timed calls per cell (after one warm-up call)
#   GPU_CHECK_CTEST_ARGS="-LE scipy"  extra ctest arguments ("" runs every test)
#   GPU_CHECK_SKIP="ctest netlib nvblas ..."     steps to leave out: build ctest netlib
#                                 device openblas gpushim nvblas gpushim_f
#   GPU_CHECK_NETLIB_DIR          Netlib testers + libs (default build-carry/netlib, else
#                                 Debian's /usr/lib/<triplet>/blas when it has them)
#   PYTHON=python3                the Python with NumPy (and PyTorch/CuPy)
#   NVBLAS_LIB                    default $CUDA_HOME/lib64/libnvblas.so
set -u
export LC_ALL=C

t_start=$SECONDS
budget=${GPU_CHECK_BUDGET:-460}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${GPU_CHECK_BUILD_DIR:-build-gpu}
[[ $build == /* ]] || build=$root/$build
backend=${GPU_CHECK_BACKEND:-cuda}
sizes=${GPU_CHECK_SIZES:-1024,2048,4096,8192,16384}
dtypes=${GPU_CHECK_DTYPES:-s,d,z}
reps=${GPU_CHECK_REPS:-5}
skip=" ${GPU_CHECK_SKIP:-} "
py=${PYTHON:-python3}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
[[ -d $cuda_home/bin ]] && PATH=$cuda_home/bin:$PATH
nvblas_lib=${NVBLAS_LIB:-$cuda_home/lib64/libnvblas.so}
jobs=$(nproc 2>/dev/null || echo 8)

results=${OUT:-$build/gpu_check-results}
mkdir -p "$results/logs" "$build" || exit 2
report=$results/gpu_check.txt
jsonl=$results/gemm.jsonl
: >"$report"
: >"$jsonl"

# --- helpers ----------------------------------------------------------------------
say() { printf '%s\n' "$*" | tee -a "$report"; }
elapsed() { echo $(( SECONDS - t_start )); }
left() { echo $(( budget - (SECONDS - t_start) )); }
skipped() { [[ $skip == *" $1 "* ]]; }

# step_time CAP RESERVE: seconds a step may take: at most CAP, leaving RESERVE for
# what comes after it; 0 when less than 10 s would be left. CAP and RESERVE are
# written for the default 460 s budget and scale with GPU_CHECK_BUDGET.
step_time() {
    local cap=$(( $1 * budget / 460 )) reserve=$(( $2 * budget / 460 ))
    local t=$(( $(left) - reserve ))
    (( t > cap )) && t=$cap
    (( t < 10 )) && t=0
    echo "$t"
}

# run_step NAME SECONDS CMD...: CMD under timeout, output in logs/NAME.log.
# Returns CMD's status; 124/137 mean it ran out of time.
run_step() {
    local name=$1 secs=$2; shift 2
    local log=$results/logs/$name.log
    local t0=$SECONDS rc
    timeout -k 10 "$secs" "$@" >"$log" 2>&1
    rc=$?
    echo "[$name: rc=$rc after $(( SECONDS - t0 )) s of $secs s]" >>"$log"
    return "$rc"
}

tail_log() { tail -n "${2:-15}" "$results/logs/$1.log" 2>/dev/null | sed 's/^/    | /' | tee -a "$report"; }

status_of() {  # a word for an exit status
    case $1 in
        0) echo ok ;;
        124 | 137) echo "TIMED OUT" ;;
        *) echo "FAILED (rc=$1)" ;;
    esac
}

# --- 0. where we are -------------------------------------------------------------------
say "gpushim GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), budget ${budget} s, backend $backend"
say "host: $(uname -srm), $jobs CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
say "source: $(git -C "$root" describe --always --dirty 2>/dev/null || echo 'no commit yet') in $root"
if command -v nvidia-smi >/dev/null; then
    gpu=$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.current \
          --format=csv,noheader 2>&1 | head -4)
    say "gpu: ${gpu:-nvidia-smi gave nothing} (name, driver, memory, PCIe gen max/current, width)"
else
    say "gpu: nvidia-smi not found"
fi
say "tools: $(cmake --version 2>/dev/null | head -1 || echo 'no cmake'); ninja $(ninja --version 2>/dev/null || echo 'absent');" \
    "nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || true);" \
    "$($py --version 2>&1 | head -1)"
say ""

summary=()
note() { summary+=("$*"); }

# --- 1. configure + build ---------------------------------------------------------------
shim=$build/libgpushim.so
build_ok=0
if skipped build; then
    note "build: skipped (GPU_CHECK_SKIP); using what is in $build"
    [[ -f $shim ]] && build_ok=1
else
    # The source configured: the checkout, or (no Fortran compiler, below) a copy of it.
    src=$root
    nofortran_src=$build-src-nofortran
    # nofortran_copy: the checkout copied (fresh: the source may have changed since a
    # previous run) with a project() line that does not ask for Fortran.
    nofortran_copy() {
        rm -rf "$nofortran_src"
        mkdir -p "$nofortran_src"
        tar -C "$root" --exclude=./.git --exclude='./build*' --exclude=./.venv -cf - . |
            tar -C "$nofortran_src" -xf -
        sed -i '0,/^project(/s/^\(project(.*\) Fortran)/\1)/' "$nofortran_src/CMakeLists.txt"
        src=$nofortran_src
    }
    if [[ -f $build/CMakeCache.txt ]]; then
        if grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$nofortran_src\$" "$build/CMakeCache.txt"; then
            nofortran_copy  # a previous run here needed the copy
            note "build: configuring a copy without Fortran, as the previous run here did ($nofortran_src)"
        elif ! grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$root\$" "$build/CMakeCache.txt"; then
            # A build directory carried from another machine (or checkout) is not reused.
            rm -rf "$build"
            mkdir -p "$build"
        fi
    fi
    gen=()
    if command -v ninja >/dev/null && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Unix Makefiles' "$build/CMakeCache.txt" 2>/dev/null; then
        gen=(-G Ninja)
    fi
    # configure NAME TESTS: one configure attempt of $src, log in logs/NAME.log.
    configure() {
        local t
        t=$(step_time 90 300)
        (( t == 0 )) && return 1
        run_step "$1" "$t" cmake -S "$src" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
            -DGPUSHIM_BUILD_BENCH=OFF -DGPUSHIM_WERROR=OFF -DGPUSHIM_BUILD_TESTS="$2"
    }
    tests_built=ON
    if (( $(step_time 90 330) == 0 )); then
        tests_built=FAILED
        note "build: configure skipped, out of time"
    elif ! configure configure ON; then
        if grep -q "No CMAKE_Fortran_COMPILER could be found" "$results/logs/configure.log"; then
            # project() asks for Fortran, used only by a relinking test that needs Debian
            # OpenBLAS anyway. Configure a copy whose project() line does without it.
            note "build: no Fortran compiler here and CMakeLists.txt's project() requires one: configured a copy without Fortran ($nofortran_src)"
            rm -rf "$build"
            mkdir -p "$build"
            nofortran_copy
            configure configure-nofortran ON || tests_built=OFF
        else
            tests_built=OFF
        fi
        if [[ $tests_built == OFF ]]; then
            say "configure with tests failed; retrying without them:"
            tail_log "$( [[ $src == "$root" ]] && echo configure || echo configure-nofortran )" 8
            if ! configure configure-notests OFF; then
                tests_built=FAILED
                say "configure failed:"
                tail_log configure-notests 20
            fi
        fi
    fi
    if [[ $tests_built != FAILED ]] && [[ -f $build/CMakeCache.txt ]]; then
        grep -q "CMAKE_GENERATOR:INTERNAL=Ninja" "$build/CMakeCache.txt" && keep_going=(-k 0) || keep_going=(-k)
        t=$(step_time 300 200)
        if (( t == 0 )); then
            note "build: skipped, out of time"
        else
            run_step build "$t" cmake --build "$build" -j "$jobs" -- "${keep_going[@]}"
            rc=$?
            [[ -f $shim ]] && build_ok=1
            note "build: $(status_of $rc) in $(grep -o 'after [0-9]* s' "$results/logs/build.log" | tail -1 | cut -d' ' -f2) s; tests configured: $tests_built"
            if (( rc != 0 )); then
                say "build $(status_of $rc); last lines:"
                grep -E 'error|Error|FAILED' "$results/logs/build.log" | head -20 | sed 's/^/    | /' | tee -a "$report"
            fi
        fi
    elif [[ -f $results/logs/configure.log ]]; then
        note "build: configure FAILED (see logs/configure*.log)"
    fi
fi
plugin=$build/libgpushim_$backend.so
[[ $backend == */* ]] && plugin=$backend
have_plugin=0
[[ -f $plugin ]] && have_plugin=1
if (( build_ok )); then
    note "artifacts: libgpushim.so yes; $(basename "$plugin") $([[ $have_plugin == 1 ]] && echo yes || echo 'NO (offload impossible)')"
else
    note "artifacts: libgpushim.so NOT built: every gpushim step below is skipped"
fi

# The prefix adapter: standard Fortran BLAS names for NVBLAS_CPU_BLAS_LIB and the shim's
# Fortran-name fallback, on a machine whose only CPU BLAS is pip SciPy's scipy_ one.
adapter=""
scipy_blas=$(timeout 30 "$py" -c 'import glob, os, scipy
d = os.path.join(os.path.dirname(scipy.__file__), os.pardir, "scipy.libs")
c = sorted(glob.glob(os.path.join(d, "libscipy_openblas-*.so")))
print(os.path.realpath(c[0]) if c else "")' 2>/dev/null || true)
if [[ -n $scipy_blas ]]; then
    adapter=$build/libgpushim_blas_prefix_adapter.so
    if [[ ! -f $adapter ]]; then
        cc -O2 -shared -fPIC -o "$adapter" "$root/bench/blas_prefix_adapter.c" -ldl \
            >"$results/logs/adapter.log" 2>&1 || adapter=""
    fi
fi

# A CPU BLAS with standard Fortran names (NVBLAS needs one; so does the shim's dgemm_
# fallback): Debian OpenBLAS, else the adapter over SciPy's, else carried reference BLAS.
netlib_dir=${GPU_CHECK_NETLIB_DIR:-}
if [[ -z $netlib_dir ]]; then
    for d in "$root/build-carry/netlib" /usr/lib/x86_64-linux-gnu/blas /usr/lib/aarch64-linux-gnu/blas; do
        [[ -x $d/xblat3d ]] && { netlib_dir=$d; break; }
    done
fi
cpu_blas="" cpu_blas_env=()
for c in /usr/lib/x86_64-linux-gnu/libopenblas.so.0 /usr/lib/aarch64-linux-gnu/libopenblas.so.0; do
    [[ -f $c ]] && { cpu_blas=$c; break; }
done
if [[ -z $cpu_blas && -n $adapter ]]; then
    cpu_blas=$adapter
    cpu_blas_env=("BLAS_PREFIX_ADAPTER_LIB=$scipy_blas")
fi
if [[ -z $cpu_blas && -n $netlib_dir && -f $netlib_dir/libblas.so.3 ]]; then
    cpu_blas=$netlib_dir/libblas.so.3
fi

shim_env=("LD_PRELOAD=$shim" "GPUSHIM_BACKEND=$backend" "GPUSHIM_THRESHOLD=0")

# --- 2. ctest, forced offload ------------------------------------------------------------------
if skipped ctest; then
    note "ctest: skipped (GPU_CHECK_SKIP)"
elif (( ! build_ok )) || [[ ! -f $build/CTestTestfile.cmake ]] || ! grep -q "add_test\|subdirs" "$build/CTestTestfile.cmake"; then
    note "ctest: skipped, no tests were built"
else
    t=$(step_time 120 200)
    if (( t == 0 )); then
        note "ctest: skipped, out of time"
    else
        # Default: leave out SciPy's own BLAS test files (label scipy, the longest by far;
        # their driver runs them on hostsim whatever the environment says).
        read -r -a ctest_args <<<"${GPU_CHECK_CTEST_ARGS--LE scipy}"
        run_step ctest "$t" env GPUSHIM_BACKEND="$backend" GPUSHIM_THRESHOLD=0 \
            ctest --test-dir "$build" --output-on-failure -j 8 --timeout 90 "${ctest_args[@]}"
        rc=$?
        line=$(grep -E 'tests passed|No tests were found' "$results/logs/ctest.log" | tail -1)
        if [[ -z $line ]]; then  # killed before its summary: count what finished
            line="$(grep -c ' Passed ' "$results/logs/ctest.log") passed, $(grep -c '\*\*\*Failed\|\*\*\*Timeout\|\*\*\*Exception' "$results/logs/ctest.log") failed before the step ended"
        fi
        nskip=$(grep -c '\*\*\*Skipped\|Not Run' "$results/logs/ctest.log")
        note "ctest ${ctest_args[*]} (GPUSHIM_BACKEND=$backend GPUSHIM_THRESHOLD=0): $(status_of $rc): ${line:-no summary line}; $nskip skipped/not run (logs/ctest.log)"
        if [[ -f $root/tests/integration/shimtest.py ]] &&
           grep -q 'backend: str | None = "hostsim"' "$root/tests/integration/shimtest.py"; then
            note "    note: the integration drivers set GPUSHIM_BACKEND=hostsim for their children themselves, so only tests that read the environment ran on '$backend'"
        fi
        if (( rc != 0 )); then
            say "ctest $(status_of $rc); failed tests:"
            sed -n '/The following tests FAILED/,$p' "$results/logs/ctest.log" | head -30 | sed 's/^/    | /' | tee -a "$report"
        fi
    fi
fi

# --- 3. Netlib Level-3 testers under the shim ------------------------------------------------------
if skipped netlib; then
    note "netlib: skipped (GPU_CHECK_SKIP)"
elif [[ -z $netlib_dir ]]; then
    note "netlib: skipped: not available (no build-carry/netlib, set GPU_CHECK_NETLIB_DIR; bench/netlib_carry.sh makes one)"
elif (( ! build_ok )); then
    note "netlib: skipped, libgpushim.so not built"
else
    t=$(step_time 100 170)
    if (( t == 0 )); then
        note "netlib: skipped, out of time"
    else
        netlib_bad='\*{5}|FAIL|SUSPECT|FATAL|ABANDONED|NOT RECOGNIZED|ERROR IN|NOT DETECTED|INSTEAD OF'
        # report_counts FILE: "G gpu, C cpu, F fallbacks" summed over a GPUSHIM_REPORT file.
        report_counts() {
            [[ -f $1 ]] || { echo "no report written"; return; }
            timeout 20 "$py" -c 'import json, sys
r = json.load(open(sys.argv[1])).get("routines", {})
t = lambda k: sum(int(v.get(k, 0)) for v in r.values())
print("%d gpu, %d cpu, %d fallbacks" % (t("gpu_calls"), t("cpu_calls"), t("fallbacks")))' "$1" 2>/dev/null ||
                echo "no report (unreadable)"
        }
        nl_run=$build/netlib-run
        rm -rf "$nl_run"
        mkdir -p "$nl_run"
        deadline=$(( SECONDS + t ))
        nl_pass=0 nl_total=0 nl_lines=()
        for p in s d c z; do
            for kind in fortran cblas; do
                if [[ $kind == fortran ]]; then exe=xblat3$p input=${p}blat3.in; else exe=x${p}cblat3 input=${p}in3; fi
                [[ -x $netlib_dir/$exe && -f $netlib_dir/$input ]] || continue
                nl_total=$(( nl_total + 1 ))
                # One hung tester must not starve the others: each gets a quarter of
                # the step (a normal run takes seconds).
                per=$(( deadline - SECONDS )); cap=$(( t / 4 > 10 ? t / 4 : 10 ))
                (( per > cap )) && per=$cap
                if (( per < 5 )); then nl_lines+=("$exe: not run, out of time"); continue; fi
                mkdir -p "$nl_run/$exe"
                (cd "$nl_run/$exe" &&
                 timeout -k 5 "$per" env LD_LIBRARY_PATH="$netlib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                     "${shim_env[@]}" GPUSHIM_REPORT="$results/logs/netlib_$exe.report.json" \
                     "$netlib_dir/$exe" <"$netlib_dir/$input" >stdout.txt 2>stderr.txt)
                rc=$?
                out=$(cat "$nl_run/$exe"/*.out "$nl_run/$exe/stdout.txt" 2>/dev/null)
                cp "$nl_run/$exe/stdout.txt" "$results/logs/netlib_$exe.stdout.txt" 2>/dev/null
                ls "$nl_run/$exe"/*.out >/dev/null 2>&1 && cp "$nl_run/$exe"/*.out "$results/logs/" 2>/dev/null
                passed=$(grep -c "PASSED THE .*COMPUTATIONAL TESTS" <<<"$out")
                # The failure words of tests/integration/run_netlib.py.
                bad=$(grep -Eci "$netlib_bad" <<<"$out")
                # Forced offload: the report must show device calls.
                gpu_calls=$(report_counts "$results/logs/netlib_$exe.report.json")
                if (( rc == 0 )) && (( bad == 0 )) && grep -q "END OF TESTS" <<<"$out" &&
                   [[ $gpu_calls != "0 gpu"* && $gpu_calls != "no report"* ]]; then
                    nl_pass=$(( nl_pass + 1 ))
                    nl_lines+=("$exe: pass ($passed computational test groups passed; calls: $gpu_calls)")
                else
                    nl_lines+=("$exe: FAIL ($(status_of $rc), $bad failure lines, $passed groups passed; calls: $gpu_calls; logs/netlib_$exe.*): $(grep -Ei "$netlib_bad" <<<"$out" | head -2 | tr -s ' ' | paste -sd'|' -) $(head -c 300 "$nl_run/$exe/stderr.txt" | tr '\n' ' ')")
                fi
            done
        done
        note "netlib (from $netlib_dir, GPUSHIM_THRESHOLD=0): $nl_pass of $nl_total testers passed"
        for l in "${nl_lines[@]}"; do note "    $l"; done
    fi
fi

# --- 4. GEMM timings -----------------------------------------------------------------------------
gemm_py=$root/bench/gemm_compare.py
have_numpy=0
timeout 60 "$py" -c 'import numpy' >/dev/null 2>&1 && have_numpy=1
steps=(device openblas gpushim nvblas gpushim_f)
declare -A share=([device]=14 [openblas]=30 [gpushim]=28 [nvblas]=18 [gpushim_f]=10)
table_reserve=15

# gemm_step NAME: a python process measuring one column, its budget a share of the time left.
gemm_step() {
    local name=$1; shift
    local rest=0 s
    local seen=0
    for s in "${steps[@]}"; do
        [[ $s == "$name" ]] && seen=1
        (( seen )) && ! skipped "$s" && rest=$(( rest + share[$s] ))
    done
    local avail=$(( $(left) - table_reserve ))
    local b=$(( avail * share[$name] / (rest > 0 ? rest : 1) ))
    if (( b < 15 )); then
        note "gemm $name: skipped, out of time"
        return 0
    fi
    # The python budget ends new cells; the timeout also covers start-up and teardown.
    local py_budget=$(( b - (b / 6 > 10 ? b / 6 : 10) ))
    run_step "gemm_$name" "$b" "$@" --budget "$py_budget" --out "$jsonl"
    local rc=$?
    (( rc != 0 )) && note "gemm $name: $(status_of $rc) (logs/gemm_$name.log)"
    return 0
}

if (( ! have_numpy )); then
    note "gemm: skipped, $py has no NumPy"
else
    common_gemm=(--dtypes "$dtypes" --sizes "$sizes" --reps "$reps")
    if skipped device; then note "gemm device: skipped (GPU_CHECK_SKIP)"; else
        gemm_step device "$py" "$gemm_py" gemm --impl device --label cublas "${common_gemm[@]}" --bandwidth-mib 512
    fi
    if skipped openblas; then note "gemm openblas: skipped (GPU_CHECK_SKIP)"; else
        gemm_step openblas "$py" "$gemm_py" gemm --impl numpy --label openblas "${common_gemm[@]}"
    fi
    if skipped gpushim; then note "gemm gpushim: skipped (GPU_CHECK_SKIP)"
    elif (( ! build_ok )); then note "gemm gpushim: skipped, libgpushim.so not built"
    else
        gemm_step gpushim env "${shim_env[@]}" GPUSHIM_REPORT="$results/logs/gemm_gpushim.report.json" \
            "$py" "$gemm_py" gemm --impl numpy --label gpushim "${common_gemm[@]}" --reuse-cells d:8192
    fi
    if skipped nvblas; then note "gemm nvblas: skipped (GPU_CHECK_SKIP)"
    elif [[ ! -f $nvblas_lib ]]; then note "gemm nvblas: n/a, $nvblas_lib not found"
    elif [[ -z $cpu_blas ]]; then
        note "gemm nvblas: n/a, no CPU BLAS with standard names for NVBLAS_CPU_BLAS_LIB (no Debian OpenBLAS, no SciPy scipy-openblas for the adapter, no carried reference BLAS)"
    else
        cat >"$results/nvblas.conf" <<EOF
NVBLAS_LOGFILE $results/logs/nvblas.log
NVBLAS_CPU_BLAS_LIB $cpu_blas
NVBLAS_GPU_LIST ALL
EOF
        gemm_step nvblas env LD_PRELOAD="$nvblas_lib" NVBLAS_CONFIG_FILE="$results/nvblas.conf" "${cpu_blas_env[@]}" \
            "$py" "$gemm_py" gemm --impl fortran --label nvblas "${common_gemm[@]}"
    fi
    if skipped gpushim_f; then note "gemm gpushim_f: skipped (GPU_CHECK_SKIP)"
    elif (( ! build_ok )); then note "gemm gpushim_f: skipped, libgpushim.so not built"
    elif [[ -z $cpu_blas ]]; then note "gemm gpushim_f: n/a, no CPU BLAS with standard names for the shim's fallback"
    else
        gemm_step gpushim_f env "${shim_env[@]}" GPUSHIM_CPU_BLAS="$cpu_blas" "${cpu_blas_env[@]}" \
            GPUSHIM_REPORT="$results/logs/gemm_gpushim_f.report.json" \
            "$py" "$gemm_py" gemm --impl fortran --label gpushim_f --dtypes d --sizes "$sizes" --reps "$reps"
    fi
fi

# --- summary -------------------------------------------------------------------------------------
say "Summary"
for l in "${summary[@]}"; do say "  $l"; done
say ""
if (( have_numpy )) && [[ -s $jsonl ]]; then
    reports=()
    for l in gpushim gpushim_f; do
        [[ -f $results/logs/gemm_$l.report.json ]] && reports+=(--report "$l=$results/logs/gemm_$l.report.json")
    done
    timeout 30 "$py" "$gemm_py" table "$jsonl" "${reports[@]}" >"$results/table.txt" 2>&1
    tee -a "$report" <"$results/table.txt"
else
    say "GEMM table: nothing measured"
fi
say ""
say "gpushim reports (GPUSHIM_REPORT) and step logs: $results/logs; raw timings: $jsonl"
say "total $(elapsed) s of ${budget} s"
