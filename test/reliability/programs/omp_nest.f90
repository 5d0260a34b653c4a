! SPDX-License-Identifier: BSD-3-Clause
! omp_nest.f90 -- for r03_openmp.sh: the Fortran twin of omp_nest.c, built
! with -fno-inline so that every procedure keeps its frame: a parallel
! region with a nested region, a region whose single thread creates tasks,
! and a parallel do with a dynamic schedule.  The work is region_work (a
! fixed number of floating-point steps); the program prints how many pieces
! of work ran.
module omp_nest_mod
  use omp_lib
  implicit none
  integer :: pieces = 0
  real(8) :: sink = 0
contains
  subroutine region_work(steps)
    integer, intent(in) :: steps
    integer :: i
    real(8) :: s
    s = 0
    do i = 1, steps
      s = s + sqrt(real(i, 8) + sink)
    end do
    !$omp atomic
    pieces = pieces + 1
    if (s < 0) sink = s
  end subroutine region_work

  subroutine inner_region(steps)
    integer, intent(in) :: steps
    !$omp parallel num_threads(2)
    call region_work(steps)
    !$omp end parallel
  end subroutine inner_region

  subroutine outer_region(steps)
    integer, intent(in) :: steps
    !$omp parallel num_threads(2)
    call region_work(steps)
    call inner_region(steps / 2)
    !$omp end parallel
  end subroutine outer_region

  subroutine task_region(steps)
    integer, intent(in) :: steps
    integer :: i
    !$omp parallel num_threads(3)
    !$omp single
    do i = 1, 12
      !$omp task
      call region_work(steps)
      !$omp end task
    end do
    !$omp end single
    !$omp end parallel
  end subroutine task_region

  subroutine loop_region(n, steps)
    integer, intent(in) :: n, steps
    integer :: i
    !$omp parallel do schedule(dynamic)
    do i = 1, n
      call region_work(steps)
    end do
    !$omp end parallel do
  end subroutine loop_region
end module omp_nest_mod

program omp_nest
  use omp_nest_mod
  implicit none
  integer :: r, rounds
  character(len=16) :: arg
  rounds = 10
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  call omp_set_max_active_levels(2)
  do r = 1, rounds
    call outer_region(4000000)
    call task_region(2000000)
    call loop_region(20, 400000)
  end do
  print '(a,i0)', 'pieces ', pieces
end program omp_nest
