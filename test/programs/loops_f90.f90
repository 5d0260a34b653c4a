! SPDX-License-Identifier: BSD-3-Clause
!
! loops_f90.f90 -- Fortran loop shapes for csprof-struct's loop recovery
! tests: a two-level DO nest with a statement between the loops and a DO
! WHILE loop.  Annotations as in loops_c.c (procedure names are gfortran's
! link names).  Test input only.
module kernels
  implicit none
contains
  subroutine smooth(a, b, n)
    integer, intent(in) :: n
    real, intent(inout) :: a(n, n)
    real, intent(in) :: b(n, n)
    integer :: i, j
    real :: t
    do j = 2, n - 1 ! @loop f_outer proc=__kernels_MOD_smooth
      t = b(1, j) * 0.5
      do i = 2, n - 1 ! @loop f_inner proc=__kernels_MOD_smooth in=f_outer also=+1
        a(i, j) = 0.25 * (b(i - 1, j) + b(i + 1, j) + b(i, j - 1) + b(i, j + 1)) + t
      end do
    end do
  end subroutine smooth

  integer function halvings(x)
    integer, intent(in) :: x
    integer :: y
    y = x
    halvings = 0
    do while (y > 1) ! @loop f_while proc=__kernels_MOD_halvings
      y = y / 2
      halvings = halvings + 1
    end do
  end function halvings
end module kernels

program main
  use kernels
  implicit none
  integer :: n
  real, allocatable :: a(:, :), b(:, :)
  n = command_argument_count() * 10 + 50
  allocate (a(n, n), b(n, n))
  b = 1.0
  a = 0.0
  call smooth(a, b, n)
  print *, sum(a), halvings(n * 1000)
end program main
