#!/usr/bin/env bash
# The GPU check: one command for the device machine (see DESIGN.md, "The GPU machine").
#
#   bash bench/gpu_check.sh            from the repository root; writes $OUT/gpu_check.txt
#
# 1. configure + build (Ninja if present; no benchmarks; warnings not fatal: this run
#    measures, it does not lint). Without GoogleTest the unit tests are left out.
# 2. the test suite on the CUDA plugin: TEST_GPUSHIM_BACKEND=cuda ctest (the drivers
#    force offload; the hostsim-only fault/small-device variants skip themselves)
# 3. the Netlib Level-3 BLAS testers (Fortran and CBLAS), ctest -L netlib, from
#    build-carry/netlib (bench/netlib_carry.sh) or Debian's libblas-test; the *_verify ones
#    with GPUSHIM_VERIFY=1: every cuBLAS result checked on the CPU, none may differ
# 4. GEMM timings {s,d,z} x n: OpenBLAS (pip NumPy, all cores), gpushim with host data
#    (the same NumPy under LD_PRELOAD), NVBLAS and gpushim through dgemm_ (ctypes),
#    cuBLAS on device-resident data (PyTorch or CuPy), copy rates, and the PCIe model
#    for DGEMM n = 8192 (bench/gemm_compare.py)
# 5. LAPACK timings (bench/factor_compare.py): np.linalg solve, inv, cholesky, qr, svd,
#    eigh, eig, lstsq, scipy.linalg.lu_factor and scipy.linalg.solve(assume_a='sym')
#    (SYTRF, SYTRS) in double, svd and eigh also in single
#    (through SciPy: np.linalg computes float32 in double), at n = 4096, 8192 (eig 1024
#    and 4096, lstsq 2048, the symmetric solve 4096; 16384 where time is left): OpenBLAS (pip NumPy/SciPy, all
#    cores), gpushim with host data (the same under LD_PRELOAD; one process and
#    GPUSHIM_REPORT per report group, so the table names the routines each operation ran
#    on the GPU), and the same operation on device-resident data (torch.linalg, else
#    CuPy): time, speed-ups, checks. One time box of at most 150 s
#    (GPU_CHECK_FACTOR_SECONDS), never more than half of what is left when GEMM starts;
#    cells run by n, cheapest first, and those predicted not to fit are recorded as
#    skipped with their predicted time (OpenBLAS's svd, eigh at 8192 take a minute or
#    more on 16 cores). The plugin-level LAPACK check (plugin.lapack.cuda) runs in step 2.
# 6. FFT timings, double precision, out of place: c2c 1-D 2^20 ... 2^26, 2-D 4096^2 and
#    8192^2, 3-D 256^3 and 512^3, batched 1-D 1024 x 2^16, r2c 2-D 4096^2 and 8192^2.
#    bench/fft_compare.c (plain FFTW3 API, FFTW_ESTIMATE plans), built here with cc: FFTW
#    with libfftw3_threads on all cores (FFTW carried in build-carry/fftw: the machine
#    has none; bench/netlib_carry.sh makes it), the same binary under LD_PRELOAD of the
#    shim (host data; its GPUSHIM_REPORT shows the transforms ran on the GPU), the same
#    source built against cuFFTW; and cuFFT on device-resident data (PyTorch, else CuPy:
#    bench/fft_device_limit.py), the compute-only limit. Every cell checked (spectral
#    values against direct sums, backward(forward(x)) = N x). One time box of at most
#    90 s (GPU_CHECK_FFT_SECONDS), kept aside while GEMM runs but never more than a third
#    of what is left when GEMM starts; cells run cheapest first, those predicted not to
#    fit are recorded as skipped with their predicted time (bench/fft_table.py).
# 7. Thresholds measured on this machine with what time is left (at most 45 s):
#    `gpushim tune` for dgemm, zgemm, dgetrf, dpotrf, and fft where FFTW is at hand (CPU
#    library against the device, host data, growing n): the crossovers the default
#    thresholds should come from, written to $OUT/tuned.conf and into the report.
#
# Every step runs under a timeout carved from one overall budget, so a hung step cannot
# eat the device time; the summary says what ran, what was skipped and why.
#
# Environment (all optional; none is named GPUSHIM_*: the shim warns about every
# GPUSHIM_ variable that is not one of its settings):
#   GPU_CHECK_BUDGET=460          seconds for the whole script
#   GPU_CHECK_BUILD_DIR=build-gpu build directory (relative to the repository root)
#   GPU_CHECK_BACKEND=cuda        the backend of every step (hostsim: a dry run on a
#                                 machine without a GPU)
#   GPU_CHECK_SIZES=1024,2048,4096,8192,16384     GPU_CHECK_DTYPES=s,d,z
#   GPU_CHECK_REPS=5              timed calls per cell (after one warm-up call)
#   GPU_CHECK_REUSE_CELLS=d:8192  GEMM cells measured again with unchanged inputs (gpushim;
#                                 empty: none)
#   GPU_CHECK_FACTOR_SIZES=4096,8192    GPU_CHECK_FACTOR_EXTRA_SIZES=16384 (after all
#                                 other cells, where time is left)
#   GPU_CHECK_FACTOR_CELLS=solve:d,inv:d,cholesky:d,lu_factor:d,qr:d,eigh:d,svd:d,
#                          lstsq:d:2048,eig:d:1024/4096,eigh:s,svd:s,solve_sym:d:4096
#                                 op:precision[:n1/n2] (own sizes); potrf = cholesky,
#                                 getrf = lu_factor; eigh_evr: SciPy's default eigh;
#                                 complex: z (and c for svd, eigh, eigh_evr, lu_factor)
#   GPU_CHECK_FACTOR_REPS=3       timed calls per LAPACK cell at most (fewer past 3 s a cell)
#   GPU_CHECK_FACTOR_SECONDS=150  step 5's seconds at most (scaled with GPU_CHECK_BUDGET)
#   GPU_CHECK_FFT_CELLS=c2c:2^20,...,c2c:2^26,c2c:4096x4096,c2c:8192x8192,c2c:256x256x256,
#                       c2c:512x512x512,c2c:2^16*1024,r2c:4096x4096,r2c:8192x8192
#                                 TYPE:DIMS[*HOWMANY]: c2c or r2c, 1 to 3 sizes joined by x
#                                 (integers or B^E, multiples of 4), HOWMANY in one plan
#   GPU_CHECK_FFT_REPS=5          timed executes per FFT cell at most (fewer past 1.5 s)
#   GPU_CHECK_FFT_SECONDS=90      step 6's seconds at most (scaled with GPU_CHECK_BUDGET)
#   GPU_CHECK_FFTW_DIR            FFTW to build against: include/fftw3.h and
#                                 lib/libfftw3{,_threads}.so.3 (default build-carry/fftw,
#                                 else the system's)
#   GPU_CHECK_CTEST_ARGS          extra arguments of step 2's ctest (e.g. "-LE scipy")
#   GPU_CHECK_SKIP="netlib nvblas ..."   steps to leave out: build ctest netlib
#                                 device openblas gpushim nvblas gpushim_f (GEMM columns)
#                                 factor (all of step 5) factor_device factor_openblas
#                                 factor_gpushim fft (all of step 6) fft_device fft_gpushim
#                                 fft_fftw fft_cufftw tune (step 7)
#   GPU_CHECK_NETLIB_DIR          Netlib testers + libs (default build-carry/netlib, else
#                                 Debian's /usr/lib/<triplet>/blas when it has them)
#   PYTHON=python3                the Python with NumPy (and PyTorch/CuPy)
#   NVBLAS_LIB                    default $CUDA_HOME/lib64/libnvblas.so
set -u
export LC_ALL=C

t_start=$SECONDS
budget=${GPU_CHECK_BUDGET:-460}
py=$(command -v "${PYTHON:-python3}" || echo "${PYTHON:-python3}")
[[ $py == /* ]] || py=$PWD/$py
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
build=${GPU_CHECK_BUILD_DIR:-build-gpu}
[[ $build == /* ]] || build=$root/$build
backend=${GPU_CHECK_BACKEND:-cuda}
export TEST_GPUSHIM_BACKEND=$backend  # the backend the test drivers use (tests/integration)
sizes=${GPU_CHECK_SIZES:-1024,2048,4096,8192,16384}
dtypes=${GPU_CHECK_DTYPES:-s,d,z}
reps=${GPU_CHECK_REPS:-5}
reuse_cells=${GPU_CHECK_REUSE_CELLS-d:8192}
factor_sizes=${GPU_CHECK_FACTOR_SIZES:-4096,8192}
factor_extra_sizes=${GPU_CHECK_FACTOR_EXTRA_SIZES-16384}
factor_cells=${GPU_CHECK_FACTOR_CELLS:-solve:d,inv:d,cholesky:d,lu_factor:d,qr:d,eigh:d,svd:d,lstsq:d:2048,eig:d:1024/4096,eigh:s,svd:s,solve_sym:d:4096}
factor_reps=${GPU_CHECK_FACTOR_REPS:-3}
factor_seconds=${GPU_CHECK_FACTOR_SECONDS:-150}
fft_cells=${GPU_CHECK_FFT_CELLS:-c2c:2^20,c2c:2^21,c2c:2^22,c2c:2^23,c2c:2^24,c2c:2^25,c2c:2^26,c2c:4096x4096,c2c:8192x8192,c2c:256x256x256,c2c:512x512x512,c2c:2^16*1024,r2c:4096x4096,r2c:8192x8192}
fft_reps=${GPU_CHECK_FFT_REPS:-5}
fft_seconds=${GPU_CHECK_FFT_SECONDS:-90}
skip=" ${GPU_CHECK_SKIP:-} "
cuda_home=${CUDA_HOME:-/usr/local/cuda}
[[ -d $cuda_home/bin ]] && PATH=$cuda_home/bin:$PATH
nvblas_lib=${NVBLAS_LIB:-$cuda_home/lib64/libnvblas.so}
jobs=$(nproc 2>/dev/null || echo 8)
shim=$build/libgpushim.so
shim_env=("LD_PRELOAD=$shim" "GPUSHIM_BACKEND=$backend" "GPUSHIM_THRESHOLD=0")

results=${OUT:-$build/gpu_check-results}
mkdir -p "$results/logs" "$build" || exit 2
report=$results/gpu_check.txt
jsonl=$results/gemm.jsonl
factor_jsonl=$results/factor.jsonl
fft_jsonl=$results/fft.jsonl
: >"$report"
: >"$jsonl"
: >"$factor_jsonl"
: >"$fft_jsonl"

# --- helpers ----------------------------------------------------------------------------
say() { printf '%s\n' "$*" | tee -a "$report"; }
left() { echo $(( budget - (SECONDS - t_start) )); }
skipped() { [[ $skip == *" $1 "* ]]; }
summary=()
note() { summary+=("$*"); }

# step_time CAP RESERVE: seconds a step may take: at most CAP, leaving RESERVE for what
# comes after it. Both are written for the default 460 s and scale with the budget.
step_time() {
    local cap=$(( $1 * budget / 460 )) t=$(( $(left) - $2 * budget / 460 ))
    echo $(( t < cap ? t : cap ))
}

# run_step NAME SECONDS CMD...: CMD under timeout, output in logs/NAME.log. Returns CMD's
# status: 124/137 when it ran out of time, 125 when not even 10 s were left to start it.
run_step() {
    local name=$1 secs=$2 t0=$SECONDS rc; shift 2
    if (( secs < 10 )); then echo "not run: out of time" >"$results/logs/$name.log"; return 125; fi
    timeout -k 10 "$secs" "$@" >"$results/logs/$name.log" 2>&1
    rc=$?
    echo "[$name: rc=$rc after $(( SECONDS - t0 )) s of $secs s]" >>"$results/logs/$name.log"
    return "$rc"
}

status_of() {
    case $1 in
        0) echo ok ;;
        124 | 137) echo "TIMED OUT" ;;
        125) echo "not run, out of time" ;;
        *) echo "FAILED (rc=$1)" ;;
    esac
}

# ctest_step NAME CAP RESERVE CMD...: a ctest command line (CMD) as a step; notes its
# pass/fail/skip counts, counted from ctest's per-test lines (so they survive a timeout).
ctest_step() {
    local name=$1 cap=$2 reserve=$3; shift 3
    run_step "$name" "$(step_time "$cap" "$reserve")" "$@"
    local rc=$? re='^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' lines n pass skip planned failed
    lines=$(grep -E "$re" "$results/logs/$name.log")
    n=$(grep -c . <<<"$lines")
    pass=$(grep -c ' Passed ' <<<"$lines")
    skip=$(grep -c '\*\*\*Skipped' <<<"$lines")
    planned=$(sed -nE '1s|^ *[0-9]+/([0-9]+) Test.*|\1|p' <<<"$lines")
    note "$name: $(status_of $rc): $pass passed, $(( n - pass - skip )) failed, $skip skipped" \
         "of ${planned:-?}$( (( ${planned:-0} > n )) && echo ", $(( planned - n )) unfinished") (logs/$name.log)"
    failed=$(grep '\*\*\*' <<<"$lines" | grep -v '\*\*\*Skipped' | sed -E "s|$re([^ ]+) .*|\1|" | paste -sd' ' -)
    [[ -n $failed ]] && note "    failed: $failed"
    return 0
}

# --- 0. where we are -------------------------------------------------------------------
say "gpushim GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), budget ${budget} s, backend $backend"
say "host: $(uname -srm), $jobs CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
say "source: $(git -C "$root" describe --always --dirty 2>/dev/null || echo 'no commit') in $root"
gpu=$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.current \
      --format=csv,noheader 2>&1 | head -4)
say "gpu: ${gpu:-nvidia-smi gave nothing} (name, driver, memory, PCIe gen max/current, width)"
say "tools: $(cmake --version 2>/dev/null | head -1); ninja $(ninja --version 2>/dev/null || echo absent);" \
    "nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p');" \
    "$("$py" --version 2>&1 | head -1) ($py)"
say ""

# The Netlib testers (and, carried, the libgfortran they need).
netlib_dir=${GPU_CHECK_NETLIB_DIR:-}
for d in "$root/build-carry/netlib" /usr/lib/x86_64-linux-gnu/blas /usr/lib/aarch64-linux-gnu/blas; do
    [[ -z $netlib_dir && -x $d/xblat3d ]] && netlib_dir=$d
done

# FFTW for step 6 (headers and the libraries to link): carried, else the system's.
fftw_inc="" fftw_lib=""
for d in ${GPU_CHECK_FFTW_DIR:+"$GPU_CHECK_FFTW_DIR"} "$root/build-carry/fftw"; do
    [[ -z $fftw_lib && -f $d/include/fftw3.h && -f $d/lib/libfftw3.so.3 && -f $d/lib/libfftw3_threads.so.3 ]] &&
        fftw_inc=$d/include fftw_lib=$d/lib
done
for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
    [[ -z $fftw_lib && -f /usr/include/fftw3.h && -f $d/libfftw3.so.3 && -f $d/libfftw3_threads.so.3 ]] &&
        fftw_inc=/usr/include fftw_lib=$d
done

# --- 1. configure + build ------------------------------------------------------------------
if skipped build; then
    note "build: skipped (GPU_CHECK_SKIP); using what is in $build"
else
    cache=$build/CMakeCache.txt
    # A build directory configured from another source tree (carried) is not reused.
    if [[ -f $cache ]] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$cache"; then
        rm -rf "$build" && mkdir -p "$build"
    fi
    cfg=(cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUSHIM_BUILD_BENCH=OFF -DGPUSHIM_WERROR=OFF)
    [[ ! -f $cache ]] && command -v ninja >/dev/null && cfg+=(-G Ninja)
    # The tests' Pythons: Debian's and the project venv's, else the one with NumPy here.
    /usr/bin/python3 -c 'import numpy' 2>/dev/null || cfg+=(-DGPUSHIM_SYSTEM_PYTHON="$py")
    [[ -x $root/.venv/bin/python ]] || cfg+=(-DGPUSHIM_VENV_PYTHON="$py")
    [[ -n $netlib_dir ]] && cfg+=(-DGPUSHIM_NETLIB_DIR="$netlib_dir")
    if run_step configure "$(step_time 90 330)" "${cfg[@]}" -DGPUSHIM_BUILD_TESTS=ON; then
        tests=yes
    elif run_step configure-notests "$(step_time 60 330)" "${cfg[@]}" -DGPUSHIM_BUILD_TESTS=OFF; then
        tests="NO (configure with tests failed, logs/configure.log)"
    else
        tests=FAILED
    fi
    if [[ $tests == FAILED ]]; then
        note "build: configure FAILED (logs/configure*.log)"
    else
        keep_going=(-k)  # one broken test target must not cost the shim and the plugin
        grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja' "$cache" && keep_going=(-k 0)
        run_step build "$(step_time 300 200)" cmake --build "$build" -j "$jobs" -- "${keep_going[@]}"
        rc=$?
        note "build: $(status_of $rc) $(grep -o 'after [0-9]* s' "$results/logs/build.log"); tests: $tests"
        if (( rc != 0 )); then
            while read -r l; do note "    | $l"; done < <(grep -E 'error|FAILED' "$results/logs/build.log" | head -10)
        fi
    fi
fi
plugin=$build/libgpushim_$backend.so
if [[ ! -f $shim ]]; then
    note "artifacts: libgpushim.so NOT built: every gpushim step below is skipped"
else
    note "artifacts: libgpushim.so yes; $(basename "$plugin") $([[ -f $plugin ]] && echo yes || echo 'NO (offload impossible)')"
fi
# What the library makes of this machine (settings, device, CPU libraries): logs/gpushim_info.log.
if [[ -x $build/gpushim ]]; then
    GPUSHIM_BACKEND=$backend GPUSHIM_CONFIG= timeout -k 5 60 "$build/gpushim" info >"$results/logs/gpushim_info.log" 2>&1
    note "gpushim info: $(grep -m1 '^device: ' "$results/logs/gpushim_info.log" || echo 'no device line (logs/gpushim_info.log)')"
fi

# A CPU BLAS with the standard Fortran names, for NVBLAS and the shim's dgemm_ fallback:
# Debian OpenBLAS, else bench/blas_prefix_adapter.c over pip SciPy's scipy_-named one.
cpu_blas="" cpu_blas_env=()
for c in /usr/lib/x86_64-linux-gnu/libopenblas.so.0 /usr/lib/aarch64-linux-gnu/libopenblas.so.0; do
    [[ -z $cpu_blas && -f $c ]] && cpu_blas=$c
done
if [[ -z $cpu_blas ]]; then
    scipy_blas=$(timeout 30 "$py" -c 'import glob, os, scipy
c = sorted(glob.glob(os.path.join(os.path.dirname(scipy.__file__), os.pardir, "scipy.libs", "libscipy_openblas-*.so")))
print(os.path.realpath(c[0]) if c else "")' 2>/dev/null)
    adapter=$build/libgpushim_blas_prefix_adapter.so
    if [[ -n $scipy_blas ]] && { [[ -f $adapter ]] ||
        cc -O2 -shared -fPIC -o "$adapter" "$root/bench/blas_prefix_adapter.c" -ldl >"$results/logs/adapter.log" 2>&1; }; then
        cpu_blas=$adapter cpu_blas_env=("BLAS_PREFIX_ADAPTER_LIB=$scipy_blas")
    fi
fi

# --- 2, 3. the test suite and the Netlib testers on the backend -------------------------------
ctest_cmd=(ctest --test-dir "$build" --output-on-failure -j $(( jobs < 8 ? jobs : 8 )) --timeout 90)
have_tests=0
[[ -f $shim ]] && grep -qs 'add_test\|subdirs' "$build/CTestTestfile.cmake" && have_tests=1
if skipped ctest; then note "ctest: skipped (GPU_CHECK_SKIP)"
elif (( ! have_tests )); then note "ctest: skipped, no tests were built"
else
    read -r -a ctest_args <<<"${GPU_CHECK_CTEST_ARGS:-}"
    # cudasim: the CUDA libraries emulated on the CPU, for machines without a GPU
    ctest_step ctest 120 180 "${ctest_cmd[@]}" -LE 'netlib|cudasim' "${ctest_args[@]}"
fi
if skipped netlib; then note "netlib: skipped (GPU_CHECK_SKIP)"
elif (( ! have_tests )); then note "netlib: skipped, no tests were built"
elif [[ -z $netlib_dir ]]; then
    note "netlib: skipped, no testers (bench/netlib_carry.sh makes build-carry/netlib; or GPU_CHECK_NETLIB_DIR)"
else  # LD_LIBRARY_PATH: the libgfortran carried beside the testers
    ctest_step netlib 60 130 env LD_LIBRARY_PATH="$netlib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "${ctest_cmd[@]}" -L netlib -LE cudasim
fi

# --- 4. GEMM timings -----------------------------------------------------------------------
gemm_py=$root/bench/gemm_compare.py
factor_py=$root/bench/factor_compare.py
steps=(device openblas gpushim nvblas gpushim_f)
declare -A share=([device]=14 [openblas]=30 [gpushim]=28 [nvblas]=18 [gpushim_f]=10)
common_gemm=(--dtypes "$dtypes" --sizes "$sizes" --reps "$reps")
# Step 5's columns and their seconds (for the default 460 s budget), in percent of
# GPU_CHECK_FACTOR_SECONDS. OpenBLAS takes the most: at 4096 alone, on 16 cores, its
# svd, eigh and float32 svd and eigh are estimated at 4-20 s a call, eig at ~1 minute
# (hence eig at 1024, lstsq at 2048 by default).
factor_steps=(factor_device factor_openblas factor_gpushim)
declare -A factor_share=([factor_device]=17 [factor_openblas]=56 [factor_gpushim]=27)
for s in "${factor_steps[@]}"; do factor_share[$s]=$(( factor_share[$s] * factor_seconds / 100 )); done
# Step 6's columns, in the order they run, in percent of GPU_CHECK_FFT_SECONDS. FFTW takes
# the most: with ESTIMATE plans on 16 cores, an estimated 10-20 GFLOP/s, so 512^3 takes
# 1-2 s a transform; the device column is mostly PyTorch's import and CUDA's start, several
# seconds, hence its share: it runs first, so what it leaves goes to the others. The
# gpushim column runs before FFTW, so that what it leaves goes to FFTW.
fft_steps=(fft_device fft_gpushim fft_fftw fft_cufftw)
declare -A fft_share=([fft_device]=22 [fft_gpushim]=24 [fft_fftw]=36 [fft_cufftw]=18)
for s in "${fft_steps[@]}"; do fft_share[$s]=$(( fft_share[$s] * fft_seconds / 100 )); done

# fft_keep: the seconds step 6 keeps for itself while GEMM and step 5 run: its columns'
# seconds, but at most a third of what is left when GEMM starts (set there).
fft_keep=0
fft_reserve() {
    local s r=0 third=$(( ($(left) - 15) / 3 ))
    for s in "${fft_steps[@]}"; do
        [[ -z $(why_not "$s") ]] && r=$(( r + fft_share[$s] ))
    done
    r=$(( r * budget / 460 ))
    (( third < 0 )) && third=0
    echo $(( r < third ? r : third ))
}

# factor_keep: the seconds step 5 keeps for itself while GEMM runs: its columns' seconds,
# but at most half of what is left when GEMM starts, less step 6's seconds (set there).
factor_keep=0
factor_reserve() {
    local s r=0 half=$(( ($(left) - 15 - fft_keep) / 2 ))
    for s in "${factor_steps[@]}"; do
        [[ -z $(why_not "$s") ]] && r=$(( r + factor_share[$s] ))
    done
    r=$(( r * budget / 460 ))
    (( half < 0 )) && half=0
    echo $(( r < half ? r : half ))
}

# gemm_step NAME CMD...: one python process measuring one column; its time is its share
# of what is left (15 s kept for the tables, steps 5 and 6's seconds kept for them), the
# python --budget a bit less than that.
gemm_step() {
    local name=$1 s seen=0 rest=0; shift
    for s in "${steps[@]}"; do
        [[ $s == "$name" ]] && seen=1
        (( seen )) && [[ -z $(why_not "$s") ]] && rest=$(( rest + share[$s] ))
    done
    local b=$(( ($(left) - 15 - factor_keep - fft_keep) * share[$name] / rest ))
    if (( b < 15 )); then note "gemm $name: not run, out of time"; return 0; fi
    run_step "gemm_$name" "$b" "$@" --budget $(( b - (b / 6 > 10 ? b / 6 : 10) )) --out "$jsonl"
    local rc=$?
    (( rc != 0 )) && note "gemm $name: $(status_of $rc) (logs/gemm_$name.log)"
    return 0
}

# why_not NAME: why a gemm, factor or fft column is not measured (empty: it is).
why_not() {
    if skipped "$1"; then echo "skipped (GPU_CHECK_SKIP)"
    elif [[ $1 == factor_* ]] && skipped factor; then echo "skipped (GPU_CHECK_SKIP)"
    elif [[ $1 == fft_* ]] && skipped fft; then echo "skipped (GPU_CHECK_SKIP)"
    elif [[ ($1 == fft_fftw || $1 == fft_gpushim) && -z $fftw_lib ]]; then
        echo "n/a, no FFTW to build against (bench/netlib_carry.sh makes build-carry/fftw; or GPU_CHECK_FFTW_DIR)"
    elif [[ $1 == fft_cufftw && ! -f $cuda_home/include/cufftw.h ]]; then echo "n/a, no $cuda_home/include/cufftw.h"
    elif [[ $1 == factor_* && -z $have_numpy ]]; then echo "skipped, $py has no NumPy"
    elif [[ $1 == *gpushim* && ! -f $shim ]]; then echo "skipped, libgpushim.so not built"
    elif [[ $1 == nvblas && ! -f $nvblas_lib ]]; then echo "n/a, $nvblas_lib not found"
    elif [[ ($1 == nvblas || $1 == gpushim_f) && -z $cpu_blas ]]; then
        echo "n/a, no CPU BLAS with standard Fortran names (no Debian OpenBLAS, no pip SciPy for the adapter)"
    fi
}

have_numpy=""
timeout 60 "$py" -c 'import numpy' >/dev/null 2>&1 && have_numpy=yes
fft_keep=$(fft_reserve)
factor_keep=$(factor_reserve)
if [[ -z $have_numpy ]]; then
    note "gemm: skipped, $py has no NumPy"
else
    for s in "${steps[@]}"; do
        why=$(why_not "$s")
        if [[ -n $why ]]; then note "gemm $s: $why"; continue; fi
        case $s in
            device) gemm_step device "$py" "$gemm_py" gemm --impl device --label cublas "${common_gemm[@]}" --bandwidth-mib 512 ;;
            openblas) gemm_step openblas "$py" "$gemm_py" gemm --impl numpy --label openblas "${common_gemm[@]}" ;;
            gpushim)
                gemm_step gpushim env "${shim_env[@]}" GPUSHIM_REPORT="$results/logs/gemm_gpushim.report.json" \
                    GPUSHIM_LOG=trace GPUSHIM_LOG_FILE="$results/logs/gemm_gpushim.trace" \
                    "$py" "$gemm_py" gemm --impl numpy --label gpushim "${common_gemm[@]}" --reuse-cells "$reuse_cells" ;;
            nvblas)
                printf 'NVBLAS_LOGFILE %s\nNVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\n' \
                    "$results/logs/nvblas.log" "$cpu_blas" >"$results/nvblas.conf"
                gemm_step nvblas env LD_PRELOAD="$nvblas_lib" NVBLAS_CONFIG_FILE="$results/nvblas.conf" "${cpu_blas_env[@]}" \
                    "$py" "$gemm_py" gemm --impl fortran --label nvblas "${common_gemm[@]}" ;;
            gpushim_f)
                gemm_step gpushim_f env "${shim_env[@]}" GPUSHIM_CPU_BLAS="$cpu_blas" "${cpu_blas_env[@]}" \
                    GPUSHIM_REPORT="$results/logs/gemm_gpushim_f.report.json" \
                    GPUSHIM_LOG=trace GPUSHIM_LOG_FILE="$results/logs/gemm_gpushim_f.trace" \
                    "$py" "$gemm_py" gemm --impl fortran --label gpushim_f --dtypes d --sizes "$sizes" --reps "$reps" ;;
        esac
    done
fi

# --- 5. LAPACK timings -----------------------------------------------------------------------
# Step 5 is one time box: its columns' seconds, at most what is left less 10 s for the
# tables and step 6's seconds. factor_step NAME CMD...: one python process measuring one
# column, for its share of what is left of the box (what an earlier column did not use
# goes to the later ones); the python --budget keeps a margin for the cell running when
# it ends (a long CPU call).
factor_end=$SECONDS
for s in "${factor_steps[@]}"; do
    [[ -z $(why_not "$s") ]] && factor_end=$(( factor_end + factor_share[$s] * budget / 460 ))
done
(( factor_end > SECONDS + $(left) - 10 - fft_keep )) && factor_end=$(( SECONDS + $(left) - 10 - fft_keep ))
factor_step() {
    local name=$1 s seen=0 rest=0; shift
    for s in "${factor_steps[@]}"; do
        [[ $s == "$name" ]] && seen=1
        (( seen )) && [[ -z $(why_not "$s") ]] && rest=$(( rest + factor_share[$s] ))
    done
    local b=$(( (factor_end - SECONDS) * factor_share[$name] / rest ))
    if (( b < 8 )); then note "factor ${name#factor_}: not run, out of time"; return 0; fi
    run_step "$name" "$b" "$@" --budget $(( b - (b / 8 > 4 ? b / 8 : 4) )) --out "$factor_jsonl"
    local rc=$?
    (( rc != 0 )) && note "factor ${name#factor_}: $(status_of $rc) (logs/$name.log)"
    return 0
}

common_factor=(--cells "$factor_cells" --sizes "$factor_sizes" --extra-sizes "$factor_extra_sizes"
               --reps "$factor_reps")
for s in "${factor_steps[@]}"; do
    why=$(why_not "$s")
    if [[ -n $why ]]; then note "factor ${s#factor_}: $why"; continue; fi
    case $s in
        factor_device) factor_step "$s" "$py" "$factor_py" run --impl device --label device "${common_factor[@]}" ;;
        factor_openblas) factor_step "$s" "$py" "$factor_py" run --impl numpy --label openblas "${common_factor[@]}" ;;
        factor_gpushim)  # GPUSHIM_REPORT: one file per report group, factor_gpushim.report.<group>.json
            factor_step "$s" env "${shim_env[@]}" GPUSHIM_REPORT="$results/logs/factor_gpushim.report.json" \
                GPUSHIM_LOG=trace GPUSHIM_LOG_FILE="$results/logs/factor_gpushim.trace" \
                "$py" "$factor_py" run --impl numpy --label gpushim "${common_factor[@]}" \
                --split-report --prior-label openblas ;;
    esac
done

# --- 6. FFT timings --------------------------------------------------------------------------
# Step 6 is one time box like step 5 (its columns' seconds, at most what is left less 10 s
# for the tables), building fft_compare.c included (a second or two). fft_step NAME CMD...:
# one process measuring one column, for its share of what is left of the box; the
# --budget keeps a margin for the cell running when it ends (a 512^3 FFTW cell takes
# several seconds), and SIGTERM lets a program end after its current execute.
fft_bin=$build/fft_compare_fftw
fft_cufftw_bin=$build/fft_compare_cufftw
fft_end=$SECONDS
for s in "${fft_steps[@]}"; do
    [[ -z $(why_not "$s") ]] && fft_end=$(( fft_end + fft_share[$s] * budget / 460 ))
done
(( fft_end > SECONDS + $(left) - 10 )) && fft_end=$(( SECONDS + $(left) - 10 ))

# fft_outcome LABEL: what a column's records say.
fft_outcome() {
    local recs err
    recs=$(grep -F "\"label\": \"$1\"" "$fft_jsonl")
    err=$(grep -F '"kind": "error"' <<<"$recs" | sed -n 's/.*"error": "\([^"]*\)".*/\1/p' | head -1)
    if [[ -n $err ]]; then echo "$err"; return; fi
    recs=$(grep -F '"kind": "fft"' <<<"$recs")
    echo "$(grep -c '"seconds_per_transform"' <<<"$recs") cells measured" \
         "($(grep -c '"check": "FAIL"' <<<"$recs") failing their checks)," \
         "$(grep -c '"skipped"' <<<"$recs") skipped, $(grep -c '"error"' <<<"$recs") n/a or errors"
}

declare -A fft_why  # why each column is not run (empty: it is), set after the builds
fft_step() {
    local name=$1 s seen=0 rest=0; shift
    for s in "${fft_steps[@]}"; do
        [[ $s == "$name" ]] && seen=1
        (( seen )) && [[ -z ${fft_why[$s]} ]] && rest=$(( rest + fft_share[$s] ))
    done
    # At least the 10 s run_step needs to start one, while the box has them: the device
    # column's share is small, and a smaller box would otherwise leave it out.
    local b=$(( (fft_end - SECONDS) * fft_share[$name] / rest ))
    (( b < 10 )) && b=$(( fft_end - SECONDS < 10 ? fft_end - SECONDS : 10 ))
    if (( b < 10 )); then
        note "fft ${name#fft_}: not run, out of time"
        fft_table_args+=(--columns "${name#fft_}=not run, out of time")
        return 0
    fi
    run_step "$name" "$b" "$@" --cells "$fft_cells" --reps "$fft_reps" \
        --budget $(( b - (b / 8 > 4 ? b / 8 : 4) )) --out "$fft_jsonl"
    local rc=$?
    note "fft ${name#fft_}: $( (( rc != 0 )) && echo "$(status_of $rc), ")$(fft_outcome "${name#fft_}") (logs/$name.log)"
    return 0
}

# fft_build OUT CC-ARGS...: one build of fft_compare.c, logged.
fft_build() {
    local out=$1; shift
    echo "+ cc -O2 -std=c11 -o $out $*" >>"$results/logs/fft_build.log"
    timeout 60 cc -O2 -std=c11 -o "$out" "$@" >>"$results/logs/fft_build.log" 2>&1
}
rm -f "$fft_bin" "$fft_cufftw_bin"  # a binary from an earlier run must not stand in for a failed build
if [[ -z $(why_not fft_fftw) || -z $(why_not fft_gpushim) ]]; then
    fft_build "$fft_bin" "$root/bench/fft_compare.c" -I"$fftw_inc" "$fftw_lib/libfftw3_threads.so.3" \
        "$fftw_lib/libfftw3.so.3" -lm -lpthread -Wl,-rpath,"$fftw_lib" -Wl,-rpath-link,"$fftw_lib"
fi
if [[ -z $(why_not fft_cufftw) ]]; then
    fft_build "$fft_cufftw_bin" -DFFT_COMPARE_CUFFTW -I"$cuda_home/include" "$root/bench/fft_compare.c" \
        -L"$cuda_home/lib64" -lcufftw -lcufft -lm -Wl,-rpath,"$cuda_home/lib64"
fi

fft_table_args=()  # the columns not run (--columns LABEL=WHY) and the shim's report
for s in "${fft_steps[@]}"; do
    why=$(why_not "$s")
    if [[ -z $why && $s == fft_cufftw && ! -x $fft_cufftw_bin ]]; then
        why="n/a, fft_compare.c did not build against cuFFTW (logs/fft_build.log)"
    elif [[ -z $why && ($s == fft_fftw || $s == fft_gpushim) && ! -x $fft_bin ]]; then
        why="n/a, fft_compare.c did not build against FFTW (logs/fft_build.log)"
    fi
    fft_why[$s]=$why
done
for s in "${fft_steps[@]}"; do
    if [[ -n ${fft_why[$s]} ]]; then
        note "fft ${s#fft_}: ${fft_why[$s]}"
        fft_table_args+=(--columns "${s#fft_}=${fft_why[$s]}")
        continue
    fi
    case $s in
        fft_device) fft_step "$s" "$py" "$root/bench/fft_device_limit.py" --label device ;;
        fft_gpushim)
            fft_table_args+=(--report "gpushim=$results/logs/fft_gpushim.report.json")
            fft_step "$s" env "${shim_env[@]}" GPUSHIM_REPORT="$results/logs/fft_gpushim.report.json" \
                GPUSHIM_LOG=trace GPUSHIM_LOG_FILE="$results/logs/fft_gpushim.trace" \
                "$fft_bin" --label gpushim ;;
        fft_fftw) fft_step "$s" "$fft_bin" --label fftw ;;
        fft_cufftw) fft_step "$s" "$fft_cufftw_bin" --label cufftw ;;
    esac
done

# --- 7. thresholds measured here -------------------------------------------------------------
tuned=$results/tuned.conf
if skipped tune; then note "tune: skipped (GPU_CHECK_SKIP)"
elif [[ ! -x $build/gpushim ]]; then note "tune: skipped, build/gpushim was not built"
else
    secs=$(step_time 45 0)
    # The CPU library: Debian OpenBLAS, else the adapter over pip SciPy's (as for NVBLAS).
    tune_env=() tune_routines=dgemm,zgemm,dgetrf,dpotrf
    [[ -n $cpu_blas ]] && tune_env=(GPUSHIM_CPU_BLAS="$cpu_blas" "${cpu_blas_env[@]}")
    [[ -n $fftw_lib ]] && tune_env+=(GPUSHIM_CPU_FFTW="$fftw_lib/libfftw3.so.3") tune_routines+=,fft
    run_step tune "$secs" env GPUSHIM_BACKEND="$backend" GPUSHIM_CONFIG= "${tune_env[@]}" "$build/gpushim" tune \
        --routines "$tune_routines" --seconds $(( secs > 15 ? secs - 10 : 5 )) --write "$tuned"
    note "tune: $(status_of $?) (thresholds below, logs/tune.log)"
fi

# --- summary -------------------------------------------------------------------------------
say "Summary"
for l in "${summary[@]}"; do say "  $l"; done
say ""
if [[ -s $jsonl ]]; then
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
if [[ -s $factor_jsonl ]]; then  # the gpushim reports: named in the records
    timeout 30 "$py" "$factor_py" table "$factor_jsonl" >"$results/factor_table.txt" 2>&1
    tee -a "$report" <"$results/factor_table.txt"
else
    say "LAPACK table: nothing measured"
fi
say ""
if [[ -s $fft_jsonl ]]; then
    timeout 30 "$py" "$root/bench/fft_table.py" "$fft_jsonl" "${fft_table_args[@]}" >"$results/fft_table.txt" 2>&1
    tee -a "$report" <"$results/fft_table.txt"
else
    say "FFT table: nothing measured"
fi
say ""
if [[ -s $tuned ]]; then
    say "Thresholds measured by gpushim tune ($tuned):"
    tee -a "$report" <"$tuned"
    say ""
fi
say "step logs and gpushim reports: $results/logs; raw timings: $jsonl, $factor_jsonl, $fft_jsonl"
say "total $(( SECONDS - t_start )) s of ${budget} s"
