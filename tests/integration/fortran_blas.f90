! A legacy-style Fortran program that calls Level-3 BLAS through the Fortran ABI.
! Built with `-lgpushim -lopenblas` (the relink scenario: no LD_PRELOAD) and run with
! GPUSHIM_BACKEND=hostsim GPUSHIM_THRESHOLD=0 by run_program.py, which also checks the
! JSON report. Every result is compared with naive loops in this file; the parts of every
! array that BLAS must not write (padding rows beyond m in C(ldc,*), the other triangle of
! SYRK/HERK results, the input matrices) are checked to be untouched.
! Exit status 0 when all checks pass, 1 otherwise.
program fortran_blas
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer :: nchk = 0, nfail = 0
  integer(8) :: seed = 123456789_8
  character, parameter :: tr(2) = ['N', 'T'], trc(3) = ['N', 'T', 'C']
  character, parameter :: sides(2) = ['L', 'R'], uplos(2) = ['U', 'L'], diags(2) = ['N', 'U']
  external :: dgemm, sgemm, zgemm, cgemm, dtrsm, ztrsm, dsyrk, zherk, dsymm, zhemm, ztrmm, &
              dsyr2k

  call test_dgemm(37, 29, 41)
  call test_dgemm(150, 120, 90)
  call test_sgemm(33, 21, 45)
  call test_zgemm(23, 31, 19)
  call test_cgemm(17, 13, 29)
  call test_dtrsm(33, 27)
  call test_ztrsm(21, 18)
  call test_dsyrk(31, 23)
  call test_zherk(26, 17)
  call test_dsymm(24, 19)
  call test_zhemm(15, 22)
  call test_ztrmm(19, 14)
  call test_dsyr2k(28, 16)

  print '(i0, " checks, ", i0, " failed")', nchk, nfail
  if (nfail > 0) error stop 1

contains

  ! ---- deterministic pseudo-random numbers in [-1, 1) -----------------------------------
  real(dp) function rnd()
    ! Park and Miller's generator: the product stays below 2**47, as Fortran's integers do not
    ! wrap on overflow.
    seed = modulo(seed * 48271_8, 2147483647_8)
    rnd = real(seed, dp) / 2.0_dp**30 - 1.0_dp
  end function

  subroutine fill_d(x)
    real(dp), intent(out) :: x(:, :)
    integer :: i, j
    do j = 1, size(x, 2)
      do i = 1, size(x, 1)
        x(i, j) = rnd()
      end do
    end do
  end subroutine

  subroutine fill_z(x)
    complex(dp), intent(out) :: x(:, :)
    integer :: i, j
    do j = 1, size(x, 2)
      do i = 1, size(x, 1)
        x(i, j) = cmplx(rnd(), rnd(), dp)
      end do
    end do
  end subroutine

  ! The real helpers below go through the complex ones (mm_d, close_d, tri_d): with zero
  ! imaginary parts, the real parts of the complex results are the real results, bit for bit.

  ! op(X) as a dense matrix, X stored in x(1:r, 1:c); t = 'N', 'T' or 'C'
  function op_d(t, x, r, c) result(y)
    character, intent(in) :: t
    real(dp), intent(in) :: x(:, :)
    integer, intent(in) :: r, c
    real(dp), allocatable :: y(:, :)
    y = x(1:r, 1:c)
    if (t /= 'N') y = transpose(y)
  end function

  function op_z(t, x, r, c) result(y)
    character, intent(in) :: t
    complex(dp), intent(in) :: x(:, :)
    integer, intent(in) :: r, c
    complex(dp), allocatable :: y(:, :)
    y = x(1:r, 1:c)
    if (t /= 'N') y = transpose(y)
    if (t == 'C') y = conjg(y)
  end function

  ! naive products (no matmul intrinsic: the reference must not depend on any BLAS)
  function mm_d(a, b) result(c)
    real(dp), intent(in) :: a(:, :), b(:, :)
    real(dp) :: c(size(a, 1), size(b, 2))
    c = real(mm_z(cmplx(a, 0, dp), cmplx(b, 0, dp)), dp)
  end function

  function mm_z(a, b) result(c)
    complex(dp), intent(in) :: a(:, :), b(:, :)
    complex(dp) :: c(size(a, 1), size(b, 2))
    integer :: i, j, l
    c = 0
    do j = 1, size(b, 2)
      do l = 1, size(a, 2)
        do i = 1, size(a, 1)
          c(i, j) = c(i, j) + a(i, l) * b(l, j)
        end do
      end do
    end do
  end function

  subroutine verdict(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    nchk = nchk + 1
    if (.not. ok) then
      nfail = nfail + 1
      print '("FAILED: ", a)', what
    end if
  end subroutine

  ! |got - want| <= tol * scale elementwise (scale = the |.| version of the computation)
  logical function close_d(got, want, scale, tol)
    real(dp), intent(in) :: got(:, :), want(:, :), scale(:, :), tol
    close_d = close_z(cmplx(got, 0, dp), cmplx(want, 0, dp), scale, tol)
  end function

  logical function close_z(got, want, scale, tol)
    complex(dp), intent(in) :: got(:, :), want(:, :)
    real(dp), intent(in) :: scale(:, :), tol
    close_z = all(abs(got - want) <= tol * scale + tiny(1.0_dp))
    if (.not. close_z) print '("  max error ", es10.3, " max allowed ", es10.3)', &
      maxval(abs(got - want)), maxval(tol * scale)
  end function

  ! ---- GEMM --------------------------------------------------------------------------
  subroutine test_dgemm(m, n, k)
    integer, intent(in) :: m, n, k
    real(dp), allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :), a0(:, :), b0(:, :)
    real(dp), allocatable :: oa(:, :), ob(:, :), want(:, :), scale(:, :)
    real(dp), parameter :: alpha = 0.7_dp, beta = -1.3_dp
    integer :: ia, ib, lda, ldb, ldc, ra, ca, rb, cb
    character(64) :: what
    do ia = 1, 2
      do ib = 1, 2
        ra = merge(m, k, tr(ia) == 'N'); ca = merge(k, m, tr(ia) == 'N')
        rb = merge(k, n, tr(ib) == 'N'); cb = merge(n, k, tr(ib) == 'N')
        lda = ra + 3; ldb = rb + 1; ldc = m + 5
        allocate (a(lda, ca), b(ldb, cb), c(ldc, n))
        call fill_d(a); call fill_d(b); call fill_d(c)
        a0 = a; b0 = b; c0 = c
        call dgemm(tr(ia), tr(ib), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        oa = op_d(tr(ia), a0, ra, ca); ob = op_d(tr(ib), b0, rb, cb)
        want = alpha * mm_d(oa, ob) + beta * c0(1:m, :)
        scale = abs(alpha) * mm_d(abs(oa), abs(ob)) + abs(beta) * abs(c0(1:m, :))
        write (what, '("dgemm ", 2a1, 3(1x, i0))') tr(ia), tr(ib), m, n, k
        call verdict(close_d(c(1:m, :), want, scale, 4.0_dp * (k + 2) * epsilon(1.0_dp)), &
                     trim(what))
        call verdict(all(c(m + 1:, :) == c0(m + 1:, :)), trim(what)//' padding rows')
        call verdict(all(a == a0) .and. all(b == b0), trim(what)//' inputs unchanged')
        deallocate (a, b, c)
      end do
    end do
  end subroutine

  subroutine test_sgemm(m, n, k)
    integer, intent(in) :: m, n, k
    real(dp), allocatable :: ad(:, :), bd(:, :), cd(:, :), want(:, :), scale(:, :)
    real(sp), allocatable :: a(:, :), b(:, :), c(:, :)
    real(sp), parameter :: alpha = 1.5, beta = 0.5
    allocate (ad(k, m), bd(k, n), cd(m, n))
    call fill_d(ad); call fill_d(bd); call fill_d(cd)
    a = real(ad, sp); b = real(bd, sp); c = real(cd, sp)
    ad = a; bd = b; cd = c
    call sgemm('T', 'N', m, n, k, alpha, a, k, b, k, beta, c, m)
    want = alpha * mm_d(transpose(ad), bd) + beta * cd
    scale = abs(alpha) * mm_d(transpose(abs(ad)), abs(bd)) + abs(beta) * abs(cd)
    call verdict(close_d(real(c, dp), want, scale, 4.0_dp * (k + 2) * epsilon(1.0_sp)), &
                 'sgemm TN')
  end subroutine

  subroutine test_zgemm(m, n, k)
    integer, intent(in) :: m, n, k
    complex(dp), allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :), a0(:, :), b0(:, :)
    complex(dp), allocatable :: oa(:, :), ob(:, :), want(:, :)
    real(dp), allocatable :: scale(:, :)
    complex(dp), parameter :: alpha = (0.6_dp, -0.8_dp), beta = (1.1_dp, 0.3_dp)
    integer :: ia, ib, lda, ldb, ldc, ra, ca, rb, cb
    character(64) :: what
    do ia = 1, 3
      do ib = 1, 3
        ra = merge(m, k, trc(ia) == 'N'); ca = merge(k, m, trc(ia) == 'N')
        rb = merge(k, n, trc(ib) == 'N'); cb = merge(n, k, trc(ib) == 'N')
        lda = ra + 2; ldb = rb + 4; ldc = m + 1
        allocate (a(lda, ca), b(ldb, cb), c(ldc, n))
        call fill_z(a); call fill_z(b); call fill_z(c)
        a0 = a; b0 = b; c0 = c
        call zgemm(trc(ia), trc(ib), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        oa = op_z(trc(ia), a0, ra, ca); ob = op_z(trc(ib), b0, rb, cb)
        want = alpha * mm_z(oa, ob) + beta * c0(1:m, :)
        scale = abs(alpha) * real(mm_z(cmplx(abs(oa), 0, dp), cmplx(abs(ob), 0, dp)), dp) &
                + abs(beta) * abs(c0(1:m, :))
        write (what, '("zgemm ", 2a1, 3(1x, i0))') trc(ia), trc(ib), m, n, k
        call verdict(close_z(c(1:m, :), want, scale, 8.0_dp * (k + 2) * epsilon(1.0_dp)), &
                     trim(what))
        call verdict(all(c(m + 1:, :) == c0(m + 1:, :)), trim(what)//' padding rows')
        call verdict(all(a == a0) .and. all(b == b0), trim(what)//' inputs unchanged')
        deallocate (a, b, c)
      end do
    end do
  end subroutine

  subroutine test_cgemm(m, n, k)
    integer, intent(in) :: m, n, k
    complex(dp), allocatable :: ad(:, :), bd(:, :), cd(:, :), want(:, :)
    complex(sp), allocatable :: a(:, :), b(:, :), c(:, :)
    real(dp), allocatable :: scale(:, :)
    complex(sp), parameter :: alpha = (1.0, 1.0), beta = (0.0, 0.0)
    allocate (ad(m, k), bd(n, k), cd(m, n))
    call fill_z(ad); call fill_z(bd); call fill_z(cd)
    a = cmplx(ad, kind=sp); b = cmplx(bd, kind=sp); c = cmplx(cd, kind=sp)
    ad = a; bd = b
    call cgemm('N', 'C', m, n, k, alpha, a, m, b, n, beta, c, m)
    want = cmplx(alpha, kind=dp) * mm_z(ad, conjg(transpose(bd)))
    scale = abs(alpha) * real(mm_z(cmplx(abs(ad), 0, dp), cmplx(abs(transpose(bd)), 0, dp)), dp)
    ! beta = 0: C's old contents (random here) must not leak in
    call verdict(close_z(cmplx(c, kind=dp), want, scale, 8.0_dp * (k + 2) * epsilon(1.0_sp)), &
                 'cgemm NC beta=0')
  end subroutine

  ! ---- triangular: the dense matrix the routine must see --------------------------------
  ! .true. where (i, j) lies in the uplo ('U' or 'L') triangle of an n x n matrix, diagonal
  ! included
  function tri_mask(uplo, n) result(mask)
    character, intent(in) :: uplo
    integer, intent(in) :: n
    logical :: mask(n, n)
    integer :: i, j
    do j = 1, n
      do i = 1, n
        mask(i, j) = (uplo == 'U' .and. i <= j) .or. (uplo == 'L' .and. i >= j)
      end do
    end do
  end function

  function tri_d(a, n, uplo, diag) result(t)
    real(dp), intent(in) :: a(:, :)
    integer, intent(in) :: n
    character, intent(in) :: uplo, diag
    real(dp) :: t(n, n)
    t = real(tri_z(cmplx(a, 0, dp), n, uplo, diag), dp)
  end function

  function tri_z(a, n, uplo, diag) result(t)
    complex(dp), intent(in) :: a(:, :)
    integer, intent(in) :: n
    character, intent(in) :: uplo, diag
    complex(dp) :: t(n, n)
    integer :: j
    t = merge(a(1:n, 1:n), (0.0_dp, 0.0_dp), tri_mask(uplo, n))
    if (diag == 'U') then
      do j = 1, n
        t(j, j) = 1
      end do
    end if
  end function

  subroutine test_dtrsm(m, n)
    integer, intent(in) :: m, n
    real(dp), allocatable :: a(:, :), a0(:, :), b(:, :), b0(:, :), t(:, :), ot(:, :)
    real(dp), allocatable :: lhs(:, :), scale(:, :)
    real(dp), parameter :: alpha = 1.7_dp
    integer :: is, iu, it, id, ka, j
    character(64) :: what
    do is = 1, 2
      do iu = 1, 2
        do it = 1, 2
          do id = 1, 2
            ka = merge(m, n, sides(is) == 'L')
            allocate (a(ka + 2, ka), b(m + 3, n))
            call fill_d(a); call fill_d(b)
            do j = 1, ka       ! well conditioned; with diag='U' the stored diagonal
              a(j, j) = a(j, j) + merge(2.0_dp, 1.0e3_dp, diags(id) == 'N') ! must be ignored
            end do
            a0 = a; b0 = b
            call dtrsm(sides(is), uplos(iu), tr(it), diags(id), m, n, alpha, a, ka + 2, b, m + 3)
            t = tri_d(a0, ka, uplos(iu), diags(id))
            ot = op_d(tr(it), t, ka, ka)
            if (sides(is) == 'L') then
              lhs = mm_d(ot, b(1:m, :)); scale = mm_d(abs(ot), abs(b(1:m, :)))
            else
              lhs = mm_d(b(1:m, :), ot); scale = mm_d(abs(b(1:m, :)), abs(ot))
            end if
            write (what, '("dtrsm ", 4a1)') sides(is), uplos(iu), tr(it), diags(id)
            call verdict(close_d(lhs, alpha * b0(1:m, :), scale + abs(alpha * b0(1:m, :)), &
                                 8.0_dp * (ka + 2) * epsilon(1.0_dp)), trim(what))
            call verdict(all(b(m + 1:, :) == b0(m + 1:, :)), trim(what)//' padding rows')
            call verdict(all(a == a0), trim(what)//' A unchanged')
            deallocate (a, b)
          end do
        end do
      end do
    end do
  end subroutine

  subroutine test_ztrsm(m, n)
    integer, intent(in) :: m, n
    complex(dp), allocatable :: a(:, :), a0(:, :), b(:, :), b0(:, :), t(:, :), ot(:, :)
    complex(dp), allocatable :: lhs(:, :)
    real(dp), allocatable :: scale(:, :)
    complex(dp), parameter :: alpha = (0.5_dp, 2.0_dp)
    integer :: is, iu, it, ka, j
    character(64) :: what
    do is = 1, 2
      do iu = 1, 2
        do it = 1, 3
          ka = merge(m, n, sides(is) == 'L')
          allocate (a(ka, ka), b(m, n))
          call fill_z(a); call fill_z(b)
          do j = 1, ka
            a(j, j) = a(j, j) + 3
          end do
          a0 = a; b0 = b
          call ztrsm(sides(is), uplos(iu), trc(it), 'N', m, n, alpha, a, ka, b, m)
          t = tri_z(a0, ka, uplos(iu), 'N')
          ot = op_z(trc(it), t, ka, ka)
          if (sides(is) == 'L') then
            lhs = mm_z(ot, b)
            scale = real(mm_z(cmplx(abs(ot), 0, dp), cmplx(abs(b), 0, dp)), dp)
          else
            lhs = mm_z(b, ot)
            scale = real(mm_z(cmplx(abs(b), 0, dp), cmplx(abs(ot), 0, dp)), dp)
          end if
          write (what, '("ztrsm ", 3a1, "N")') sides(is), uplos(iu), trc(it)
          call verdict(close_z(lhs, alpha * b0, scale + abs(alpha * b0), &
                               16.0_dp * (ka + 2) * epsilon(1.0_dp)), trim(what))
          deallocate (a, b)
        end do
      end do
    end do
  end subroutine

  ! ---- SYRK / HERK: only the uplo triangle is written -----------------------------------
  subroutine test_dsyrk(n, k)
    integer, intent(in) :: n, k
    real(dp), allocatable :: a(:, :), c(:, :), c0(:, :), oa(:, :), full(:, :), scale(:, :)
    real(dp), parameter :: alpha = -0.9_dp, beta = 0.4_dp
    integer :: iu, it
    logical, allocatable :: inside(:, :)
    logical :: ok, untouched
    character(64) :: what
    do iu = 1, 2
      do it = 1, 2
        if (tr(it) == 'N') then
          allocate (a(n, k))
        else
          allocate (a(k, n))
        end if
        allocate (c(n + 2, n))
        call fill_d(a); call fill_d(c)
        c0 = c
        call dsyrk(uplos(iu), tr(it), n, k, alpha, a, size(a, 1), beta, c, n + 2)
        oa = op_d(tr(it), a, size(a, 1), size(a, 2))
        full = alpha * mm_d(oa, transpose(oa)) + beta * c0(1:n, :)
        scale = abs(alpha) * mm_d(abs(oa), transpose(abs(oa))) + abs(beta) * abs(c0(1:n, :))
        inside = tri_mask(uplos(iu), n)
        ok = all(abs(c(1:n, :) - full) <= 4 * (k + 2) * epsilon(1.0_dp) * scale .or. .not. inside)
        untouched = all(c(1:n, :) == c0(1:n, :) .or. inside) .and. &
                    all(c(n + 1:, :) == c0(n + 1:, :))
        write (what, '("dsyrk ", 2a1)') uplos(iu), tr(it)
        call verdict(ok, trim(what))
        call verdict(untouched, trim(what)//' other triangle and padding untouched')
        deallocate (a, c)
      end do
    end do
  end subroutine

  subroutine test_zherk(n, k)
    integer, intent(in) :: n, k
    complex(dp), allocatable :: a(:, :), c(:, :), c0(:, :), oa(:, :), full(:, :)
    real(dp), allocatable :: scale(:, :)
    real(dp), parameter :: alpha = 0.8_dp, beta = 1.2_dp
    integer :: iu, it, j
    logical, allocatable :: inside(:, :)
    logical :: ok, untouched
    character(64) :: what
    do iu = 1, 2
      do it = 1, 2
        if (it == 1) then
          allocate (a(n, k))
        else
          allocate (a(k, n))
        end if
        allocate (c(n, n))
        call fill_z(a); call fill_z(c)
        c0 = c
        call zherk(uplos(iu), merge('N', 'C', it == 1), n, k, alpha, a, size(a, 1), beta, c, n)
        oa = op_z(merge('N', 'C', it == 1), a, size(a, 1), size(a, 2))
        do j = 1, n      ! the imaginary parts of C's diagonal are taken as zero
          c0(j, j) = cmplx(real(c0(j, j)), 0, dp)
        end do
        full = alpha * mm_z(oa, conjg(transpose(oa))) + beta * c0
        scale = abs(alpha) * real(mm_z(cmplx(abs(oa), 0, dp), cmplx(transpose(abs(oa)), 0, dp)), &
                                  dp) + abs(beta) * abs(c0)
        inside = tri_mask(uplos(iu), n)
        ok = all(abs(c - full) <= 8 * (k + 2) * epsilon(1.0_dp) * scale .or. .not. inside)
        ok = ok .and. all([(aimag(c(j, j)) == 0, j = 1, n)])   ! set to zero on exit
        untouched = all(c == c0 .or. inside)
        write (what, '("zherk ", a1, i0)') uplos(iu), it
        call verdict(ok, trim(what))
        call verdict(untouched, trim(what)//' other triangle untouched')
        deallocate (a, c)
      end do
    end do
  end subroutine

  ! ---- SYMM / HEMM: A read from the uplo triangle only ----------------------------------
  subroutine test_dsymm(m, n)
    integer, intent(in) :: m, n
    real(dp), allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :), s(:, :), want(:, :), scale(:, :)
    real(dp), parameter :: alpha = 1.25_dp, beta = -0.5_dp
    integer :: is, iu, ka
    character(64) :: what
    do is = 1, 2
      do iu = 1, 2
        ka = merge(m, n, sides(is) == 'L')
        allocate (a(ka, ka), b(m, n), c(m, n), s(ka, ka))
        call fill_d(a); call fill_d(b); call fill_d(c)
        c0 = c
        s = merge(a, transpose(a), tri_mask(uplos(iu), ka))   ! the uplo triangle, mirrored
        call dsymm(sides(is), uplos(iu), m, n, alpha, a, ka, b, m, beta, c, m)
        if (sides(is) == 'L') then
          want = alpha * mm_d(s, b) + beta * c0
          scale = abs(alpha) * mm_d(abs(s), abs(b)) + abs(beta) * abs(c0)
        else
          want = alpha * mm_d(b, s) + beta * c0
          scale = abs(alpha) * mm_d(abs(b), abs(s)) + abs(beta) * abs(c0)
        end if
        write (what, '("dsymm ", 2a1)') sides(is), uplos(iu)
        call verdict(close_d(c, want, scale, 4.0_dp * (ka + 2) * epsilon(1.0_dp)), trim(what))
        deallocate (a, b, c, s)
      end do
    end do
  end subroutine

  subroutine test_zhemm(m, n)
    integer, intent(in) :: m, n
    complex(dp), allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :), h(:, :), want(:, :)
    real(dp), allocatable :: scale(:, :)
    complex(dp), parameter :: alpha = (0.3_dp, 0.9_dp), beta = (-1.0_dp, 0.25_dp)
    integer :: is, iu, ka, j
    character(64) :: what
    do is = 1, 2
      do iu = 1, 2
        ka = merge(m, n, sides(is) == 'L')
        allocate (a(ka, ka), b(m, n), c(m, n), h(ka, ka))
        call fill_z(a); call fill_z(b); call fill_z(c)
        c0 = c
        h = merge(a, conjg(transpose(a)), tri_mask(uplos(iu), ka))   ! the uplo triangle, mirrored
        do j = 1, ka
          h(j, j) = real(a(j, j), dp)     ! imaginary part of the diagonal is not used
        end do
        call zhemm(sides(is), uplos(iu), m, n, alpha, a, ka, b, m, beta, c, m)
        if (sides(is) == 'L') then
          want = alpha * mm_z(h, b) + beta * c0
          scale = abs(alpha) * real(mm_z(cmplx(abs(h), 0, dp), cmplx(abs(b), 0, dp)), dp) &
                  + abs(beta) * abs(c0)
        else
          want = alpha * mm_z(b, h) + beta * c0
          scale = abs(alpha) * real(mm_z(cmplx(abs(b), 0, dp), cmplx(abs(h), 0, dp)), dp) &
                  + abs(beta) * abs(c0)
        end if
        write (what, '("zhemm ", 2a1)') sides(is), uplos(iu)
        call verdict(close_z(c, want, scale, 8.0_dp * (ka + 2) * epsilon(1.0_dp)), trim(what))
        deallocate (a, b, c, h)
      end do
    end do
  end subroutine

  ! ---- TRMM, SYR2K ------------------------------------------------------------------------
  subroutine test_ztrmm(m, n)
    integer, intent(in) :: m, n
    complex(dp), allocatable :: a(:, :), b(:, :), b0(:, :), ot(:, :), want(:, :)
    real(dp), allocatable :: scale(:, :)
    complex(dp), parameter :: alpha = (-0.4_dp, 0.7_dp)
    integer :: is, iu, it, id, ka
    character(64) :: what
    do is = 1, 2
      do iu = 1, 2
        do it = 1, 3
          do id = 1, 2
            ka = merge(m, n, sides(is) == 'L')
            allocate (a(ka, ka), b(m, n))
            call fill_z(a); call fill_z(b)
            b0 = b
            call ztrmm(sides(is), uplos(iu), trc(it), diags(id), m, n, alpha, a, ka, b, m)
            ot = op_z(trc(it), tri_z(a, ka, uplos(iu), diags(id)), ka, ka)
            if (sides(is) == 'L') then
              want = alpha * mm_z(ot, b0)
              scale = abs(alpha) * real(mm_z(cmplx(abs(ot), 0, dp), cmplx(abs(b0), 0, dp)), dp)
            else
              want = alpha * mm_z(b0, ot)
              scale = abs(alpha) * real(mm_z(cmplx(abs(b0), 0, dp), cmplx(abs(ot), 0, dp)), dp)
            end if
            write (what, '("ztrmm ", 4a1)') sides(is), uplos(iu), trc(it), diags(id)
            call verdict(close_z(b, want, scale, 8.0_dp * (ka + 2) * epsilon(1.0_dp)), &
                         trim(what))
            deallocate (a, b)
          end do
        end do
      end do
    end do
  end subroutine

  subroutine test_dsyr2k(n, k)
    integer, intent(in) :: n, k
    real(dp), allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :), oa(:, :), ob(:, :)
    real(dp), allocatable :: full(:, :), scale(:, :)
    real(dp), parameter :: alpha = 0.6_dp, beta = 2.0_dp
    integer :: iu, it
    logical, allocatable :: inside(:, :)
    logical :: ok, untouched
    character(64) :: what
    do iu = 1, 2
      do it = 1, 2
        if (tr(it) == 'N') then
          allocate (a(n, k), b(n, k))
        else
          allocate (a(k, n), b(k, n))
        end if
        allocate (c(n, n))
        call fill_d(a); call fill_d(b); call fill_d(c)
        c0 = c
        call dsyr2k(uplos(iu), tr(it), n, k, alpha, a, size(a, 1), b, size(b, 1), beta, c, n)
        oa = op_d(tr(it), a, size(a, 1), size(a, 2)); ob = op_d(tr(it), b, size(b, 1), size(b, 2))
        full = alpha * (mm_d(oa, transpose(ob)) + mm_d(ob, transpose(oa))) + beta * c0
        scale = abs(alpha) * (mm_d(abs(oa), transpose(abs(ob))) + mm_d(abs(ob), transpose(abs(oa)))) &
                + abs(beta) * abs(c0)
        inside = tri_mask(uplos(iu), n)
        ok = all(abs(c - full) <= 8 * (k + 2) * epsilon(1.0_dp) * scale .or. .not. inside)
        untouched = all(c == c0 .or. inside)
        write (what, '("dsyr2k ", 2a1)') uplos(iu), tr(it)
        call verdict(ok, trim(what))
        call verdict(untouched, trim(what)//' other triangle untouched')
        deallocate (a, b, c)
      end do
    end do
  end subroutine

end program
