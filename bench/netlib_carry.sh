#!/usr/bin/env bash
# Gathers what gpu_check.sh needs to run the Netlib Level-3 BLAS testers on the GPU
# machine, which has no Debian libblas-test, reference BLAS or libgfortran:
#
#   build-carry/netlib/   xblat3{s,d,c,z}, x{s,d,c,z}cblat3 and their input files,
#                         the reference libblas.so.3 (Fortran + CBLAS, needs only libc),
#                         libgfortran.so.5 and libquadmath.so.0          (about 5 MB)
#
# and, through bench/fftw_carry.sh, beside it:
#
#   build-carry/fftw/     FFTW (double, single, their pthreads libraries) and fftw3.h,
#                         for the FFT step                                  (about 4.5 MB)
#
# Then carry it with the check (the path is ignored by git through /build*/):
#   run(command="bash bench/gpu_check.sh", carry=["build-carry"])
# gpu_check.sh looks in build-carry/netlib and build-carry/fftw by default (or
# $GPU_CHECK_NETLIB_DIR, $GPU_CHECK_FFTW_DIR).
#
# usage: bench/netlib_carry.sh [destination]   (default: build-carry/netlib; FFTW goes to
#                                               fftw/ beside it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
dest=${1:-$root/build-carry/netlib}
src=${NETLIB_SRC:-/usr/lib/x86_64-linux-gnu/blas}   # Debian: libblas-test + libblas3

if [[ ! -x $src/xblat3d ]]; then
    echo "netlib_carry: no testers in $src (Debian: apt-get install libblas-test)" >&2
    exit 1
fi
mkdir -p "$dest"
for p in s d c z; do
    cp "$src/xblat3$p" "$src/x${p}cblat3" "$src/${p}blat3.in" "$src/${p}in3" "$dest/"
done
# The reference BLAS itself (not the alternatives link, which may point to OpenBLAS).
cp -L "$src/libblas.so.3" "$dest/libblas.so.3"

# The Fortran runtime the testers link against, as this system resolves it.
for lib in libgfortran.so.5 libquadmath.so.0; do
    path=$(ldd "$src/xblat3d" | awk -v l="$lib" '$1 == l {print $3}')
    if [[ -z $path || ! -f $path ]]; then
        [[ $lib == libquadmath.so.0 ]] && continue   # not every platform has one
        echo "netlib_carry: cannot find $lib for the testers" >&2
        exit 1
    fi
    cp -L "$path" "$dest/$lib"
done

# Self-test here: one tester against the carried libraries only.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && LD_LIBRARY_PATH=$dest "$dest/xblat3d" <"$dest/dblat3.in" >stdout.txt 2>&1) || {
    echo "netlib_carry: xblat3d does not run from $dest" >&2
    exit 1
}
if ! grep -q "END OF TESTS" "$tmp/dblat3.out" || grep -Eqi "fail|fatal" "$tmp/dblat3.out"; then
    echo "netlib_carry: xblat3d did not pass against the carried reference BLAS" >&2
    exit 1
fi
du -sh "$dest"
echo "netlib_carry: ready in $dest"
bash "$here/fftw_carry.sh" "$(dirname "$dest")/fftw"
