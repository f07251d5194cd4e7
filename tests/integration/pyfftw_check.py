#!/usr/bin/env python3
"""pyFFTW against numpy.fft, run under LD_PRELOAD=libgpushim.so (by run_fftw.py): its
numpy_fft interface, FFTW objects and builders, and scipy.fft with pyFFTW as its backend;
and the wisdom of FFTW_MEASURE plans.

Debian's pyFFTW 0.13 plans with fftw_plan_guru_dft / _dft_r2c / _dft_c2r / _r2r (fftwf_ in
single precision) and executes with the new-array functions (fftw_execute_dft ...): under the
preloaded shim those are the shim's. The interfaces' plan cache is disabled, so every call
plans. Each result is compared with numpy.fft (pocketfft, which computes in double even for
single-precision input) to a relative 2-norm error of at most 8 eps log2(N), eps that of the
precision pyFFTW computes in: the bound of fftw_matrix.c, for the same reasons.
Prints a FAILED line per failed check and "N checks, M failed"; exit status 0 when none
failed, 1 otherwise, 77 when pyfftw cannot be imported.
"""
import sys

import numpy as np

try:
    import pyfftw
    import pyfftw.builders
    import pyfftw.interfaces.cache
    import pyfftw.interfaces.numpy_fft as pfft
except ImportError as error:
    print(f"SKIP: cannot import pyfftw: {error} (Debian package python3-pyfftw, or pip's pyfftw)")
    sys.exit(77)

BOUND = 8.0
COMPLEX = (np.complex128, np.complex64)
REAL_OF = {np.complex128: np.float64, np.complex64: np.float32}
rng = np.random.default_rng(4099)
checks = failures = 0


def check(name, got, want, dtype, n):
    """got: pyFFTW's result, computed in dtype's precision; want: numpy.fft's; n: the
    transform size (the product of the transformed lengths)."""
    global checks, failures
    checks += 1
    got, want = np.asarray(got), np.asarray(want)
    bound = BOUND * np.finfo(dtype).eps * max(1.0, np.log2(n))
    if got.shape != want.shape:
        problem = f"shape {got.shape}, numpy.fft's {want.shape}"
    else:
        # sum(|d|^2), not np.linalg.norm: no BLAS call in the checking itself
        rel = np.sqrt(np.sum(np.abs(got.astype(np.complex128) - want) ** 2)
                      / np.sum(np.abs(want) ** 2))
        if rel <= bound:
            return
        problem = f"relative error {rel:.3g} > {bound:.3g}"
    failures += 1
    print(f"FAILED: {name}: {problem}", flush=True)


def real(shape, dtype):
    return rng.uniform(-1, 1, shape).astype(dtype)


def cplx(shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def half_spectrum(shape, cdtype, axes):
    """A c2r input: the rfftn of a real array (one right answer: see fftw_matrix.c)."""
    return np.fft.rfftn(real(shape, np.float64), axes=axes).astype(cdtype)


def size(shape, axes):
    return int(np.prod([shape[a] for a in axes]))


def interfaces():
    pyfftw.interfaces.cache.disable()
    # (shape, pyFFTW-only keywords, keywords of both): sizes of factors 2, 3, 5, 7, large
    # primes, a transform along a strided axis, zero padding, norm, threads
    one_d = [((360,), {}, {}), ((1009,), {}, {}), ((4099,), {"threads": 2}, {}),
             ((48, 7), {}, {"axis": 0}), ((80,), {}, {"n": 100}), ((210,), {}, {"norm": "ortho"})]
    for cdtype in COMPLEX:
        rdtype = REAL_OF[cdtype]
        for shape, own, both in one_d:
            axis = both.get("axis", -1)
            n = both.get("n", shape[axis])
            x = cplx(shape, cdtype)
            name = f"{cdtype.__name__} {shape} {dict(own, **both)}"
            check(f"fft {name}", pfft.fft(x, **own, **both), np.fft.fft(x, **both), cdtype, n)
            check(f"ifft {name}", pfft.ifft(x, **own, **both), np.fft.ifft(x, **both), cdtype, n)
            r = real(shape, rdtype)
            check(f"rfft {name}", pfft.rfft(r, **own, **both), np.fft.rfft(r, **both), rdtype, n)
            h = half_spectrum((n,) if axis == -1 else shape, cdtype, (axis,))
            kw = dict(both, n=n)
            check(f"irfft {name}", pfft.irfft(h, **own, **kw), np.fft.irfft(h, **kw), rdtype, n)
        for shape, axes in [((24, 35), (0, 1)), ((64, 48), (0, 1)), ((6, 5, 10), (0, 2))]:
            x = cplx(shape, cdtype)
            name = f"{cdtype.__name__} {shape} axes {axes}"
            n = size(shape, axes)
            check(f"fft2 {name}", pfft.fft2(x, axes=axes), np.fft.fft2(x, axes=axes), cdtype, n)
            check(f"ifft2 {name}", pfft.ifft2(x, axes=axes, threads=2),
                  np.fft.ifft2(x, axes=axes), cdtype, n)
        for shape, axes in [((7, 9, 11), (0, 1, 2)), ((6, 10, 15), (0, 1, 2)), ((24, 35), (0, 1)),
                            ((12, 10, 3), (0, 1))]:
            name = f"{cdtype.__name__} {shape} axes {axes}"
            n = size(shape, axes)
            x = cplx(shape, cdtype)
            check(f"fftn {name}", pfft.fftn(x, axes=axes), np.fft.fftn(x, axes=axes), cdtype, n)
            r = real(shape, rdtype)
            check(f"rfftn {name}", pfft.rfftn(r, axes=axes), np.fft.rfftn(r, axes=axes),
                  rdtype, n)
            h = half_spectrum(shape, cdtype, axes)
            s = [shape[a] for a in axes]
            check(f"irfftn {name}", pfft.irfftn(h, s=s, axes=axes),
                  np.fft.irfftn(h, s=s, axes=axes), rdtype, n)


def fftw_objects():
    # c2c: planned arrays, then new ones (update_arrays), changed in place, then __call__
    for cdtype, n, flags in [(np.complex128, 1009, ("FFTW_ESTIMATE",)),
                             (np.complex64, 360, ("FFTW_MEASURE",))]:
        name = f"FFTW {cdtype.__name__} {n} {flags[0]}"
        a = pyfftw.empty_aligned(n, dtype=cdtype)
        b = pyfftw.empty_aligned(n, dtype=cdtype)
        fft = pyfftw.FFTW(a, b, flags=flags)  # FFTW_MEASURE may overwrite a and b: fill after
        a[:] = cplx(n, cdtype)
        check(f"{name} execute", fft(), np.fft.fft(a), cdtype, n)
        a2 = pyfftw.empty_aligned(n, dtype=cdtype)
        b2 = pyfftw.empty_aligned(n, dtype=cdtype)
        a2[:] = cplx(n, cdtype)
        fft.update_arrays(a2, b2)
        fft.execute()
        check(f"{name} update_arrays", b2, np.fft.fft(a2), cdtype, n)
        a2 *= -0.5
        a2[::3] = 1.0
        fft.execute()
        check(f"{name} input changed in place", b2, np.fft.fft(a2), cdtype, n)
        x = cplx(n, cdtype)
        check(f"{name} __call__(new input)", fft(x), np.fft.fft(x), cdtype, n)
    # 2-D backward (normalised by __call__), r2c, and c2r of more than one dimension (which
    # destroys its input: numpy.fft gets a copy)
    shape = (24, 35)
    a = pyfftw.empty_aligned(shape, dtype=np.complex64)
    ifft2 = pyfftw.FFTW(a, pyfftw.empty_aligned(shape, dtype=np.complex64), axes=(0, 1),
                        direction="FFTW_BACKWARD", flags=("FFTW_MEASURE",))
    for _ in range(2):
        a[:] = cplx(shape, np.complex64)
        check("FFTW complex64 (24, 35) backward", ifft2(), np.fft.ifft2(a), np.complex64, 840)
    r = pyfftw.empty_aligned(4099, dtype=np.float32)
    # threads only with FFTW_ESTIMATE: FFTW_MEASURE times the threaded plans too (seconds)
    rfft = pyfftw.FFTW(r, pyfftw.empty_aligned(2050, dtype=np.complex64),
                       flags=("FFTW_ESTIMATE",), threads=2)
    for _ in range(2):
        r[:] = real(4099, np.float32)
        check("FFTW float32 4099 r2c", rfft(), np.fft.rfft(r), np.float32, 4099)
    h = pyfftw.empty_aligned((12, 6), dtype=np.complex128)
    irfft2 = pyfftw.FFTW(h, pyfftw.empty_aligned((12, 10), dtype=np.float64), axes=(0, 1),
                         direction="FFTW_BACKWARD", flags=("FFTW_ESTIMATE",))
    for _ in range(2):
        h[:] = half_spectrum((12, 10), np.complex128, (0, 1))
        want = np.fft.irfft2(h.copy(), s=(12, 10))
        check("FFTW float64 (12, 10) c2r", irfft2(), want, np.float64, 120)
    # builders: called on their planned input, then on a new one
    x = cplx(360, np.complex128)
    fft = pyfftw.builders.fft(x)
    check("builders.fft complex128 360", fft(), np.fft.fft(x), np.complex128, 360)
    x = cplx(360, np.complex128)
    check("builders.fft complex128 360 new input", fft(x), np.fft.fft(x), np.complex128, 360)
    r = real((7, 9, 11), np.float32)
    rfftn = pyfftw.builders.rfftn(r, threads=2)
    check("builders.rfftn float32 (7, 9, 11)", rfftn(), np.fft.rfftn(r), np.float32, 693)
    r = real((7, 9, 11), np.float32)
    check("builders.rfftn float32 (7, 9, 11) new input", rfftn(r), np.fft.rfftn(r), np.float32,
          693)
    h = half_spectrum((360,), np.complex128, (0,))
    irfft = pyfftw.builders.irfft(h, n=360)
    check("builders.irfft complex128 360", irfft(), np.fft.irfft(h, n=360), np.float64, 360)
    # r2r (a DCT-II, FFTW's REDFT10) stays on FFTW: numpy.fft of the even extension
    for rdtype in (np.float64, np.float32):
        n = 64
        x = pyfftw.empty_aligned(n, dtype=rdtype)
        dct = pyfftw.FFTW(x, pyfftw.empty_aligned(n, dtype=rdtype), direction="FFTW_REDFT10",
                          flags=("FFTW_ESTIMATE",))
        x[:] = real(n, rdtype)
        z = np.fft.fft(np.concatenate([x, x[::-1]]).astype(np.float64))[:n]
        want = np.real(np.exp(-0.5j * np.pi * np.arange(n) / n) * z)
        check(f"FFTW {rdtype.__name__} {n} REDFT10", dct(), want, rdtype, 2 * n)


def scipy_backend():
    """SciPy code unchanged, with pyFFTW as scipy.fft's backend (pyfftw.interfaces.scipy_fft);
    skipped where this Python has no SciPy."""
    try:
        import scipy.fft
        import pyfftw.interfaces.scipy_fft as backend
    except ImportError as error:
        print(f"note: scipy.fft with the pyFFTW backend not checked ({error})")
        return
    with scipy.fft.set_backend(backend, only=True):
        for cdtype in COMPLEX:
            rdtype = REAL_OF[cdtype]
            x = cplx((64, 90), cdtype)
            check(f"scipy.fft.fft2 {cdtype.__name__} 64x90", scipy.fft.fft2(x), np.fft.fft2(x),
                  cdtype, 64 * 90)
            r = real((6, 1000), rdtype)
            check(f"scipy.fft.rfft {rdtype.__name__} 6 x 1000", scipy.fft.rfft(r),
                  np.fft.rfft(r), rdtype, 1000)
            h = half_spectrum((30, 42), cdtype, (0, 1))
            check(f"scipy.fft.irfftn {cdtype.__name__} 30x42",
                  scipy.fft.irfftn(h, s=(30, 42), axes=(0, 1)),
                  np.fft.irfftn(h, s=(30, 42), axes=(0, 1)), cdtype, 30 * 42)


def expect(name, ok, problem):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print(f"FAILED: {name}: {problem}", flush=True)


def plans_with_wisdom_only(a, b):
    """Whether FFTW has wisdom for the transform a -> b: pyFFTW raises RuntimeError when an
    FFTW_WISDOM_ONLY plan fails."""
    try:
        pyfftw.FFTW(a, b, flags=("FFTW_MEASURE", "FFTW_WISDOM_ONLY"))
        return True
    except RuntimeError:
        return False


def wisdom():
    """pyFFTW's wisdom of FFTW_MEASURE plans: the shim skips FFTW's search for a transform the
    device computes, makes it when wisdom is read out (fftw_export_wisdom with a callback, as
    pyfftw.export_wisdom calls it) and forgets it with FFTW's wisdom."""
    for dtype, n in ((np.complex128, 1000), (np.complex64, 768)):
        name = f"wisdom of FFTW {np.dtype(dtype).name} {n}"
        a = pyfftw.empty_aligned(n, dtype=dtype)
        b = pyfftw.empty_aligned(n, dtype=dtype)
        pyfftw.forget_wisdom()
        pyfftw.FFTW(a, b, flags=("FFTW_MEASURE",))
        pyfftw.forget_wisdom()
        expect(f"{name}: after forget_wisdom", not plans_with_wisdom_only(a, b),
               "an FFTW_WISDOM_ONLY plan")
        pyfftw.FFTW(a, b, flags=("FFTW_MEASURE",))
        exported = pyfftw.export_wisdom()
        pyfftw.forget_wisdom()
        pyfftw.import_wisdom(exported)
        expect(f"{name}: exported, forgotten and imported", plans_with_wisdom_only(a, b),
               "no FFTW_WISDOM_ONLY plan: the exported wisdom lacks the transform")


def main():
    interfaces()
    fftw_objects()
    scipy_backend()
    wisdom()
    print(f"{checks} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
