#!/usr/bin/env bash
# What LD_PRELOAD of libgpushim.so costs a process that never calls BLAS.
#
# Runs a trivial program (/bin/true) with nothing preloaded, with the shim
# preloaded, and with NVBLAS preloaded, and prints wall time per run, peak RSS,
# the shared objects mapped at start-up, and whether anything was printed.
# Goal (DESIGN.md, "Invisible until it helps"): the shim adds <= 2 ms and <= 3 MiB.
#
# usage: bench/preload_cost.sh [path/to/libgpushim.so]
#   default library: build/libgpushim.so under the repository root
# environment:
#   TARGET=/bin/true          the program to run
#   ROUNDS=15                 interleaved timing rounds (each round times every variant)
#   BATCH_SECONDS=0.1         target duration of one variant's batch in a round
#   RSS_RUNS=15               runs per variant for peak RSS (the median is shown)
#   NVBLAS_LIB=/usr/local/cuda/lib64/libnvblas.so   (skipped if missing)
#   NVBLAS_CPU_BLAS=...       the CPU BLAS NVBLAS is configured with
#                             (default: libopenblas.so.0 if found)
#   USE_HYPERFINE=auto|0|1    time with hyperfine when installed (auto), never, always
# exit status: 0 when the shim meets the goal, 1 when not, 2 on a setup error.
set -u
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
shim=${1:-$root/build/libgpushim.so}
target=${TARGET:-/bin/true}
rounds=${ROUNDS:-15}
batch_seconds=${BATCH_SECONDS:-0.1}
rss_runs=${RSS_RUNS:-15}
nvblas_lib=${NVBLAS_LIB:-/usr/local/cuda/lib64/libnvblas.so}
use_hyperfine=${USE_HYPERFINE:-auto}

if [[ ! -f $shim ]]; then
    echo "preload_cost: $shim does not exist (build the project first, or pass the path)" >&2
    exit 2
fi
shim=$(readlink -f "$shim")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/preload_cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- the variants -----------------------------------------------------------
# Each variant is a name and the environment assignments it runs with.
names=(none gpushim)
declare -A envs=([none]="" [gpushim]="LD_PRELOAD=$shim")

find_cpu_blas() {
    local c
    for c in ${NVBLAS_CPU_BLAS:-} /usr/lib/x86_64-linux-gnu/libopenblas.so.0 \
             /usr/lib/aarch64-linux-gnu/libopenblas.so.0 /usr/lib64/libopenblas.so.0 \
             /usr/lib/x86_64-linux-gnu/libblas.so.3 /usr/lib64/libblas.so.3; do
        [[ -n $c && -f $c ]] && { echo "$c"; return 0; }
    done
    return 1
}
nvblas_note=""
if [[ -f $nvblas_lib ]]; then
    if cpu_blas=$(find_cpu_blas); then
        cat >"$tmp/nvblas.conf" <<EOF
NVBLAS_LOGFILE $tmp/nvblas.log
NVBLAS_CPU_BLAS_LIB $cpu_blas
NVBLAS_GPU_LIST ALL
EOF
        names+=(nvblas)
        envs[nvblas]="LD_PRELOAD=$nvblas_lib NVBLAS_CONFIG_FILE=$tmp/nvblas.conf"
    else
        nvblas_note="nvblas: skipped, no CPU BLAS for NVBLAS_CPU_BLAS_LIB (set NVBLAS_CPU_BLAS)"
    fi
else
    nvblas_note="nvblas: skipped, $nvblas_lib not found"
fi

# run VARIANT CMD...: CMD with the variant's environment added.
run() {
    local v=$1; shift
    # shellcheck disable=SC2086  # envs[] holds space-separated NAME=value words
    env ${envs[$v]} "$@"
}

now_us() {  # microseconds since the epoch, without a fork when bash has EPOCHREALTIME
    if [[ -n ${EPOCHREALTIME:-} ]]; then
        local t=${EPOCHREALTIME/[.,]/}
        echo "$t"
    else
        echo $(( $(date +%s%N) / 1000 ))
    fi
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# --- sanity: each variant runs and what it prints --------------------------------
declare -A printed dsos extra
base_objs=$(LD_TRACE_LOADED_OBJECTS=1 "$target" 2>/dev/null | awk '{print $1}' | sort)
for v in "${names[@]}"; do
    if ! run "$v" "$target" >"$tmp/$v.out" 2>"$tmp/$v.err"; then
        echo "preload_cost: '$target' failed under variant $v:" >&2
        head -5 "$tmp/$v.err" >&2
        exit 2
    fi
    lines=$(cat "$tmp/$v.out" "$tmp/$v.err" | wc -l)
    bytes=$(cat "$tmp/$v.out" "$tmp/$v.err" | wc -c)
    if (( bytes == 0 )); then printed[$v]="nothing"; else printed[$v]="$lines lines"; fi
    # Shared objects mapped at start-up (the DT_NEEDED closure; dlopen()s come later).
    objs=$(run "$v" env LD_TRACE_LOADED_OBJECTS=1 "$target" 2>/dev/null | awk '{print $1}' | sort)
    dsos[$v]=$(printf '%s\n' "$objs" | grep -c .)
    extra[$v]=$(comm -13 <(printf '%s\n' "$base_objs") <(printf '%s\n' "$objs") |
                sed 's,.*/,,' | paste -sd' ' -)
done

# --- wall time ---------------------------------------------------------------------
declare -A wall_ms
have_hyperfine=0
if [[ $use_hyperfine != 0 ]] && command -v hyperfine >/dev/null && command -v python3 >/dev/null; then
    have_hyperfine=1
elif [[ $use_hyperfine == 1 ]]; then
    echo "preload_cost: USE_HYPERFINE=1 but hyperfine (or python3) is missing" >&2
    exit 2
fi

if (( have_hyperfine )); then
    timing_method="hyperfine -N, median of runs (each run via env(1))"
    for v in "${names[@]}"; do
        runs=$(( rounds * 20 ))
        [[ $v == nvblas ]] && runs=$(( rounds * 2 ))
        # shellcheck disable=SC2086
        hyperfine -N --style none --warmup 3 --runs "$runs" \
            --export-json "$tmp/$v.json" "env ${envs[$v]} $target" >/dev/null 2>&1 ||
            { echo "preload_cost: hyperfine failed for $v" >&2; exit 2; }
        wall_ms[$v]=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"]*1e3)' "$tmp/$v.json")
    done
else
    timing_method="bash loop, $rounds interleaved rounds, median of per-round means (each run via env(1); includes bash fork+exec, the same for every variant)"
    # Batch size per variant from a pilot run, so that each batch lasts about BATCH_SECONDS.
    declare -A batch
    for v in "${names[@]}"; do
        t0=$(now_us); for _ in 1 2 3; do run "$v" "$target" >/dev/null 2>&1; done; t1=$(now_us)
        per_us=$(( (t1 - t0) / 3 )); (( per_us < 1 )) && per_us=1
        b=$(awk -v s="$batch_seconds" -v p="$per_us" 'BEGIN {b=int(s*1e6/p); if (b<1) b=1; print b}')
        batch[$v]=$b
    done
    for v in "${names[@]}"; do : >"$tmp/$v.wall"; done
    for (( r = 0; r < rounds; r++ )); do
        for v in "${names[@]}"; do
            n=${batch[$v]}
            # Every variant through env(1), 'none' included, so that only the preload differs.
            t0=$(now_us)
            # shellcheck disable=SC2086
            for (( i = 0; i < n; i++ )); do env ${envs[$v]} "$target"; done >/dev/null 2>&1
            t1=$(now_us)
            awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN {printf "%.6f\n", (b-a)/n/1000}' >>"$tmp/$v.wall"
        done
    done
    for v in "${names[@]}"; do wall_ms[$v]=$(median <"$tmp/$v.wall"); done
fi

# --- peak RSS -------------------------------------------------------------------
declare -A rss_kib
if [[ -x /usr/bin/time ]]; then
    rss_method="/usr/bin/time -f %M, median of $rss_runs runs"
    for v in "${names[@]}"; do
        for (( i = 0; i < rss_runs; i++ )); do
            # shellcheck disable=SC2086
            env ${envs[$v]} /usr/bin/time -f '%M' -o "$tmp/rss.one" "$target" >/dev/null 2>&1
            cat "$tmp/rss.one"
        done | median >"$tmp/$v.rss"
        rss_kib[$v]=$(cat "$tmp/$v.rss")
    done
elif command -v python3 >/dev/null; then
    rss_method="getrusage(RUSAGE_CHILDREN) from python3, median of $rss_runs runs"
    for v in "${names[@]}"; do
        for (( i = 0; i < rss_runs; i++ )); do
            # shellcheck disable=SC2086
            env ${envs[$v]} python3 -c 'import os, resource, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1]])
os.waitpid(pid, 0)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$target" 2>/dev/null
        done | median >"$tmp/$v.rss"
        rss_kib[$v]=$(cat "$tmp/$v.rss")
    done
    # The python process itself runs under the preload; only the child's rusage counts.
else
    rss_method="unavailable (install the 'time' package)"
    for v in "${names[@]}"; do rss_kib[$v]=nan; done
fi

# --- table ------------------------------------------------------------------------
echo "Preload cost into $target ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs)"
echo "shim: $shim"
echo "wall time: $timing_method"
echo "peak RSS:  $rss_method"
[[ -n $nvblas_note ]] && echo "$nvblas_note"
printf '\n%-8s %12s %11s %13s %11s %5s  %-10s %s\n' variant "wall ms/run" "+ms" "peak RSS MiB" "+MiB" DSOs printed "extra objects at start-up"
for v in "${names[@]}"; do
    awk -v v="$v" -v w="${wall_ms[$v]}" -v w0="${wall_ms[none]}" -v r="${rss_kib[$v]}" \
        -v r0="${rss_kib[none]}" -v d="${dsos[$v]}" -v p="${printed[$v]}" -v x="${extra[$v]:-}" \
        'BEGIN {
            dw = (v == "none") ? "-" : sprintf("%+.3f", w - w0)
            dr = (v == "none" || r == "nan") ? "-" : sprintf("%+.2f", (r - r0) / 1024)
            rm = (r == "nan") ? "nan" : sprintf("%.2f", r / 1024)
            printf "%-8s %12.3f %11s %13s %11s %5s  %-10s %s\n", v, w, dw, rm, dr, d, p, x
        }'
done

verdict=$(awk -v w="${wall_ms[gpushim]}" -v w0="${wall_ms[none]}" -v r="${rss_kib[gpushim]}" \
    -v r0="${rss_kib[none]}" 'BEGIN {
        dw = w - w0; dr = (r == "nan") ? 0 : (r - r0) / 1024
        ok = (dw <= 2.0 && dr <= 3.0)
        printf "%s %+.3f ms %+.2f MiB", ok ? "PASS" : "FAIL", dw, dr
    }')
echo
echo "goal for gpushim: <= +2 ms and <= +3 MiB: ${verdict}"
[[ $verdict == PASS* ]]
