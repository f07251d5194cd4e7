! A legacy Fortran code calling FFTW through its legacy interface (dfftw_* / sfftw_, plans
! held in integer*8), linked -lgpushim -lfftw3 -lfftw3f: the shim's definitions come first,
! so every plan is the shim's. run_fftw.py runs it with GPUSHIM_BACKEND=hostsim
! GPUSHIM_THRESHOLD=0, so the transforms are offloaded.
!
! The reference is a naive DFT in extended precision (selected_real_kind(18)), one dimension
! at a time, with angles reduced exactly (mod(j*k, n)): its own error is far below the bound,
! which is that of fftw_matrix.c: relative 2-norm error at most 8 eps log2(N).
! Each external routine is always called with the same argument types and ranks, as gfortran
! (10 and later) requires of a file without explicit interfaces. The arrays are allocatable:
! malloc'ed, so FFTW sees the same 16-byte alignment in the arrays of a new-array execute as in
! the planned ones.
! Prints a FAILED line per failed check and "N checks, M failed"; exit status 0 when none
! failed, 1 otherwise.
program fftw_legacy
  implicit none
  include 'fftw3.f'
  integer, parameter :: dp = kind(1d0), sp = kind(1.0), xp = selected_real_kind(18)
  real(xp), parameter :: bound = 8, pi = acos(-1.0_xp)
  integer :: nchecks = 0, nfailed = 0

  call seed_random()
  call c2c_1d_double()
  call r2c_c2r_2d_double()
  call many_dft_double()
  call c2c_3d_double()
  call single_precision()
  print '(i0, " checks, ", i0, " failed")', nchecks, nfailed
  if (nfailed > 0) stop 1

contains

  subroutine seed_random()
    integer :: n, i
    integer, allocatable :: s(:)
    call random_seed(size=n)
    s = [(20240 + 7 * i, i = 1, n)]
    call random_seed(put=s)
  end subroutine

  function random_complex(n) result(z)
    integer, intent(in) :: n
    complex(xp) :: z(n)
    real(xp) :: re(n), im(n)
    call random_number(re)
    call random_number(im)
    z = cmplx(2 * re - 1, 2 * im - 1, xp)
  end function

  ! The unnormalised DFT, exp(sign 2 pi i j k / n), along dimension axis of a column-major
  ! array of extents dims stored in a, in place.
  subroutine dft_axis(a, dims, axis, sign)
    complex(xp), intent(inout) :: a(:)
    integer, intent(in) :: dims(:), axis, sign
    complex(xp) :: line(dims(axis)), w(0:dims(axis) - 1)
    integer :: n, stride, lo, hi, base, j, k
    n = dims(axis)
    stride = product(dims(1:axis - 1))
    do k = 0, n - 1
      w(k) = exp(cmplx(0, sign * 2 * pi * k / n, xp))
    end do
    do hi = 0, size(a) / (stride * n) - 1
      do lo = 0, stride - 1
        base = 1 + lo + hi * stride * n
        line = a(base:base + (n - 1) * stride:stride)
        do k = 0, n - 1
          a(base + k * stride) = sum(line * w(mod([(j * k, j = 0, n - 1)], n)))
        end do
      end do
    end do
  end subroutine

  function dft(x, dims, sign) result(y)
    complex(xp), intent(in) :: x(:)
    integer, intent(in) :: dims(:), sign
    complex(xp) :: y(size(x))
    integer :: axis
    y = x
    do axis = 1, size(dims)
      call dft_axis(y, dims, axis, sign)
    end do
  end function

  ! The first dims(1)/2+1 rows of a column-major dims(1) x rest array: the half spectrum.
  function half(y, dims) result(h)
    complex(xp), intent(in) :: y(:)
    integer, intent(in) :: dims(:)
    complex(xp) :: h((dims(1) / 2 + 1) * (size(y) / dims(1)))
    integer :: m, col
    m = dims(1) / 2 + 1
    do col = 0, size(y) / dims(1) - 1
      h(col * m + 1:col * m + m) = y(col * dims(1) + 1:col * dims(1) + m)
    end do
  end function

  subroutine check(name, got, want, eps, n)
    character(*), intent(in) :: name
    complex(xp), intent(in) :: got(:), want(:)
    real(xp), intent(in) :: eps
    integer, intent(in) :: n
    real(xp) :: rel, limit
    nchecks = nchecks + 1
    rel = sqrt(sum(abs(got - want)**2) / sum(abs(want)**2))
    limit = bound * eps * max(1.0_xp, log(real(n, xp)) / log(2.0_xp))
    if (.not. (rel <= limit)) then
      nfailed = nfailed + 1
      print '("FAILED: ", a, ": relative error ", es10.3, " > ", es10.3)', name, rel, limit
    end if
  end subroutine

  subroutine check_true(name, ok)
    character(*), intent(in) :: name
    logical, intent(in) :: ok
    nchecks = nchecks + 1
    if (.not. ok) then
      nfailed = nfailed + 1
      print '("FAILED: ", a)', name
    end if
  end subroutine

  ! dfftw_plan_dft_1d forward (executed twice, the input changed in between, then on new
  ! arrays) and backward in place
  subroutine c2c_1d_double()
    integer, parameter :: n = 360
    real(xp), parameter :: eps = epsilon(1.0_dp)
    complex(dp), allocatable :: x(:), y(:), x2(:), y2(:)
    integer*8 :: plan
    integer :: round
    allocate (x(n), y(n), x2(n), y2(n))
    call dfftw_plan_dft_1d(plan, n, x, y, FFTW_FORWARD, FFTW_ESTIMATE)
    do round = 1, 2
      x = cmplx(random_complex(n), kind=dp)
      call dfftw_execute(plan)
      call check('dfftw_plan_dft_1d 360 forward, dfftw_execute', cmplx(y, kind=xp), &
                 dft(cmplx(x, kind=xp), [n], -1), eps, n)
    end do
    x2 = cmplx(random_complex(n), kind=dp)
    call dfftw_execute_dft(plan, x2, y2)
    call check('dfftw_plan_dft_1d 360 forward, dfftw_execute_dft', cmplx(y2, kind=xp), &
               dft(cmplx(x2, kind=xp), [n], -1), eps, n)
    call dfftw_destroy_plan(plan)
    call dfftw_plan_dft_1d(plan, n, x2, x2, FFTW_BACKWARD, FFTW_ESTIMATE)
    x2 = cmplx(random_complex(n), kind=dp)
    x = x2
    call dfftw_execute(plan)
    call check('dfftw_plan_dft_1d 360 backward in place', cmplx(x2, kind=xp), &
               dft(cmplx(x, kind=xp), [n], 1), eps, n)
    call dfftw_destroy_plan(plan)
  end subroutine

  ! dfftw_plan_dft_r2c_2d / c2r_2d on 24 x 30 (Fortran order: the first extent is halved);
  ! c2r(half spectrum of r) = N r
  subroutine r2c_c2r_2d_double()
    integer, parameter :: n1 = 24, n2 = 30, m = (n1 / 2 + 1) * n2
    real(xp), parameter :: eps = epsilon(1.0_dp)
    real(dp), allocatable :: r(:), r2(:), back(:)
    complex(dp), allocatable :: c(:), c2(:)
    complex(xp) :: spectrum(m)
    integer*8 :: forward, backward
    allocate (r(n1 * n2), r2(n1 * n2), back(n1 * n2), c(m), c2(m))
    call dfftw_plan_dft_r2c_2d(forward, n1, n2, r, c, FFTW_ESTIMATE)
    call dfftw_plan_dft_c2r_2d(backward, n1, n2, c, back, FFTW_ESTIMATE)
    r = real(random_complex(n1 * n2), dp)
    call dfftw_execute(forward)
    spectrum = half(dft(cmplx(r, kind=xp), [n1, n2], -1), [n1, n2])
    call check('dfftw_plan_dft_r2c_2d 24x30, dfftw_execute', cmplx(c, kind=xp), spectrum, &
               eps, n1 * n2)
    c = cmplx(spectrum, kind=dp)
    call dfftw_execute(backward)
    call check('dfftw_plan_dft_c2r_2d 24x30, dfftw_execute', cmplx(back, kind=xp), &
               cmplx(n1 * n2 * r, kind=xp), eps, n1 * n2)
    r2 = real(random_complex(n1 * n2), dp)
    call dfftw_execute_dft_r2c(forward, r2, c2)
    spectrum = half(dft(cmplx(r2, kind=xp), [n1, n2], -1), [n1, n2])
    call check('dfftw_plan_dft_r2c_2d 24x30, dfftw_execute_dft_r2c', cmplx(c2, kind=xp), &
               spectrum, eps, n1 * n2)
    c2 = cmplx(spectrum, kind=dp)
    call dfftw_execute_dft_c2r(backward, c2, r)
    call check('dfftw_plan_dft_c2r_2d 24x30, dfftw_execute_dft_c2r', cmplx(r, kind=xp), &
               cmplx(n1 * n2 * r2, kind=xp), eps, n1 * n2)
    call dfftw_destroy_plan(forward)
    call dfftw_destroy_plan(backward)
  end subroutine

  ! dfftw_plan_many_dft: three 12 x 10 transforms, backward, read from 14 x 10 padded blocks
  ! (the padding and the input must stay as they are)
  subroutine many_dft_double()
    integer, parameter :: n1 = 12, n2 = 10, p1 = 14, howmany = 3
    real(xp), parameter :: eps = epsilon(1.0_dp)
    complex(dp), allocatable :: x(:), kept(:), y(:)
    complex(xp) :: block(n1 * n2)
    integer*8 :: plan
    integer :: b, col
    allocate (x(p1 * n2 * howmany), kept(p1 * n2 * howmany), y(n1 * n2 * howmany))
    call dfftw_plan_many_dft(plan, 2, [n1, n2], howmany, x, [p1, n2], 1, p1 * n2, &
                             y, [n1, n2], 1, n1 * n2, FFTW_BACKWARD, FFTW_ESTIMATE)
    x = cmplx(random_complex(size(x)), kind=dp)
    kept = x
    call dfftw_execute(plan)
    call check_true('dfftw_plan_many_dft: the input (and its padding) unchanged', &
                    all(x == kept))
    do b = 0, howmany - 1
      do col = 0, n2 - 1
        block(col * n1 + 1:col * n1 + n1) = &
          x(b * p1 * n2 + col * p1 + 1:b * p1 * n2 + col * p1 + n1)
      end do
      call check('dfftw_plan_many_dft 12x10 x3 from 14x10 blocks, backward', &
                 cmplx(y(b * n1 * n2 + 1:(b + 1) * n1 * n2), kind=xp), &
                 dft(block, [n1, n2], 1), eps, n1 * n2)
    end do
    call dfftw_destroy_plan(plan)
  end subroutine

  ! dfftw_plan_dft_3d in place, 6 x 10 x 7
  subroutine c2c_3d_double()
    integer, parameter :: n1 = 6, n2 = 10, n3 = 7, n = n1 * n2 * n3
    real(xp), parameter :: eps = epsilon(1.0_dp)
    complex(dp), allocatable :: a(:), x(:)
    integer*8 :: plan
    allocate (a(n), x(n))
    call dfftw_plan_dft_3d(plan, n1, n2, n3, a, a, FFTW_FORWARD, FFTW_ESTIMATE)
    a = cmplx(random_complex(n), kind=dp)
    x = a
    call dfftw_execute(plan)
    call check('dfftw_plan_dft_3d 6x10x7 in place', cmplx(a, kind=xp), &
               dft(cmplx(x, kind=xp), [n1, n2, n3], -1), eps, n)
    call dfftw_destroy_plan(plan)
  end subroutine

  ! sfftw_: the 1-D c2c and the 2-D r2c / c2r again, in single precision
  subroutine single_precision()
    integer, parameter :: n = 360, n1 = 24, n2 = 30, m = (n1 / 2 + 1) * n2
    real(xp), parameter :: eps = epsilon(1.0_sp)
    complex(sp), allocatable :: x(:), y(:), x2(:), y2(:), c(:)
    real(sp), allocatable :: r(:), back(:)
    complex(xp) :: spectrum(m)
    integer*8 :: plan, forward, backward
    allocate (x(n), y(n), x2(n), y2(n), c(m), r(n1 * n2), back(n1 * n2))
    call sfftw_plan_dft_1d(plan, n, x, y, FFTW_FORWARD, FFTW_ESTIMATE)
    x = cmplx(random_complex(n), kind=sp)
    call sfftw_execute(plan)
    call check('sfftw_plan_dft_1d 360 forward, sfftw_execute', cmplx(y, kind=xp), &
               dft(cmplx(x, kind=xp), [n], -1), eps, n)
    x2 = cmplx(random_complex(n), kind=sp)
    call sfftw_execute_dft(plan, x2, y2)
    call check('sfftw_plan_dft_1d 360 forward, sfftw_execute_dft', cmplx(y2, kind=xp), &
               dft(cmplx(x2, kind=xp), [n], -1), eps, n)
    call sfftw_destroy_plan(plan)
    call sfftw_plan_dft_r2c_2d(forward, n1, n2, r, c, FFTW_ESTIMATE)
    call sfftw_plan_dft_c2r_2d(backward, n1, n2, c, back, FFTW_ESTIMATE)
    r = real(random_complex(n1 * n2), sp)
    call sfftw_execute(forward)
    spectrum = half(dft(cmplx(r, kind=xp), [n1, n2], -1), [n1, n2])
    call check('sfftw_plan_dft_r2c_2d 24x30', cmplx(c, kind=xp), spectrum, eps, n1 * n2)
    c = cmplx(spectrum, kind=sp)
    call sfftw_execute(backward)
    call check('sfftw_plan_dft_c2r_2d 24x30', cmplx(back, kind=xp), &
               cmplx(n1 * n2 * real(r, xp), kind=xp), eps, n1 * n2)
    call sfftw_destroy_plan(forward)
    call sfftw_destroy_plan(backward)
  end subroutine

end program
