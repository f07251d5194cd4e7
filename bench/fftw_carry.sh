#!/usr/bin/env bash
# Gathers the FFTW that gpu_check.sh's FFT step needs on the GPU machine, which has none:
#
#   build-carry/fftw/include/fftw3.h
#   build-carry/fftw/lib/libfftw3{,f}.so.3, libfftw3{,f}_threads.so.3   (about 4.6 MB)
#
# double and single precision with their pthreads libraries (not the OpenMP ones: no
# OpenMP runtime to carry). The FFT step builds bench/fft_compare.c against them (and the
# shim's CPU fallback finds them loaded in that process). Called by bench/netlib_carry.sh,
# so one command makes the whole carry; carry it with
#   run(command="bash bench/gpu_check.sh", carry=["build-carry"])
#
# usage: bench/fftw_carry.sh [destination]   (default: build-carry/fftw)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
dest=${1:-$root/build-carry/fftw}
src=${FFTW_SRC:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)}  # Debian: libfftw3-dev
header=${FFTW_HEADER:-/usr/include/fftw3.h}
libs=(libfftw3.so.3 libfftw3f.so.3 libfftw3_threads.so.3 libfftw3f_threads.so.3)

for f in "$header" "${libs[@]/#/$src/}"; do
    if [[ ! -f $f ]]; then
        echo "fftw_carry: no $f (Debian: apt-get install libfftw3-dev; or FFTW_SRC, FFTW_HEADER)" >&2
        exit 1
    fi
done
mkdir -p "$dest/include" "$dest/lib"
cp "$header" "$dest/include/"
for l in "${libs[@]}"; do cp -L "$src/$l" "$dest/lib/$l"; done

# Self-test: fft_compare built as gpu_check.sh builds it, against the carried files only,
# must load them and pass its checks.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=c11 -o "$tmp/fft_compare" "$here/fft_compare.c" -I"$dest/include" \
    "$dest/lib/libfftw3_threads.so.3" "$dest/lib/libfftw3.so.3" -lm -lpthread \
    -Wl,-rpath,"$dest/lib" -Wl,-rpath-link,"$dest/lib"
if ldd "$tmp/fft_compare" | grep -E 'libfftw3(_threads)?\.so\.3' | grep -vqF "$dest/lib/"; then
    echo "fftw_carry: the test binary does not load the carried FFTW:" >&2
    ldd "$tmp/fft_compare" >&2
    exit 1
fi
"$tmp/fft_compare" --label carry --cells c2c:2^12,c2c:64x64,r2c:32x32,c2c:2^8*8 >"$tmp/out.jsonl"
if [[ $(grep -c '"check": "ok"' "$tmp/out.jsonl") != 4 ]]; then
    echo "fftw_carry: fft_compare did not pass against the carried FFTW:" >&2
    cat "$tmp/out.jsonl" >&2
    exit 1
fi
du -sh "$dest"
echo "fftw_carry: ready in $dest"
