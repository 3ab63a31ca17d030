! SPDX-License-Identifier: BSD-3-Clause
! golden_f.f90 — golden program (Fortran, gfortran -O2 -fopenmp): a module
! procedure allocating an array of derived types, another running in an
! OpenMP region. Names must read "physics::setup", "physics::step". The
! expected names are in golden_f.expected. Test code only.
module physics
  use iso_c_binding
  implicit none
  type, bind(C) :: cell
    real(c_double) :: e, p
  end type cell
  type(cell), allocatable, target :: grid(:)
  integer(c_int), volatile, bind(C, name="probe_sink") :: probe_sink
  interface
    subroutine probe_comm(mine, len, peer, plen, tru) bind(C, name="probe_comm")
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: mine, peer
      integer(c_size_t), value :: len, plen
      integer(c_int), value :: tru
    end subroutine probe_comm
  end interface
contains
  subroutine setup(n)
    integer, intent(in) :: n
    allocate(grid(n))
  end subroutine setup

  subroutine step(me)
    integer, intent(in) :: me
    call probe_comm(c_loc(grid(me + 1)%e), 8_c_size_t, c_loc(grid(2 - me)%p), &
                    8_c_size_t, 0_c_int)
    probe_sink = me
  end subroutine step
end module physics

program golden
  use physics
  use omp_lib
  implicit none
  interface
    subroutine probe_arm() bind(C, name="probe_arm")
    end subroutine probe_arm
    subroutine probe_finish() bind(C, name="probe_finish")
    end subroutine probe_finish
  end interface
  call probe_arm()
  call setup(4)
  !$omp parallel num_threads(2)
  call step(omp_get_thread_num())
  probe_sink = 0
  !$omp end parallel
  call probe_finish()
end program golden
