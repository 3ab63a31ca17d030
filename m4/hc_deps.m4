dnl SPDX-License-Identifier: BSD-3-Clause
dnl hc_deps.m4 — one probe per library; each failure names the Debian package.
dnl Zydis and libpfm4 ship no pkg-config file in Debian 12: AC_CHECK_LIB only.

AC_DEFUN([HC_REQUIRE_LIB], [
  dnl $1 = header, $2 = library, $3 = function, $4 = Debian package, $5 = VAR, $6 = extra libs
  AC_CHECK_HEADER([$1], [],
    [AC_MSG_ERROR([header $1 not found: install the Debian package '$4' (apt-get install $4, or run scripts/install-deps.sh)])])
  AC_CHECK_LIB([$2], [$3], [$5_LIBS="-l$2 $6"],
    [AC_MSG_ERROR([library lib$2 not usable: install the Debian package '$4' (apt-get install $4, or run scripts/install-deps.sh)])], [$6])
  AC_SUBST([$5_LIBS])
])

AC_DEFUN([HC_CHECK_DEPS], [
  HC_REQUIRE_LIB([Zydis/Zydis.h], [Zydis], [ZydisDecoderInit], [libzydis-dev], [ZYDIS])
  HC_REQUIRE_LIB([libunwind.h], [unwind], [unw_backtrace], [libunwind-dev], [UNWIND])
  HC_REQUIRE_LIB([elfutils/libdw.h], [dw], [dwarf_begin], [libdw-dev], [DW], [-lelf])
  HC_REQUIRE_LIB([libelf.h], [elf], [elf_begin], [libelf-dev], [ELF])
  dnl The analyzer's C++ (and D, Rust) demangler: GNU libiberty, the one c++filt
  dnl and gdb use (a static library, no pkg-config file).
  HC_REQUIRE_LIB([libiberty/demangle.h], [iberty], [cplus_demangle], [libiberty-dev], [IBERTY])
  HC_REQUIRE_LIB([perfmon/pfmlib_perf_event.h], [pfm], [pfm_initialize], [libpfm4-dev], [PFM])
  HC_REQUIRE_LIB([hwloc.h], [hwloc], [hwloc_topology_init], [libhwloc-dev], [HWLOC])
  HC_REQUIRE_LIB([zlib.h], [z], [crc32], [zlib1g-dev], [Z])
  dnl Scotch (graph mapping: the thread placement, lib/report/placement.c);
  dnl Debian's header lives in /usr/include/scotch/, no pkg-config file.
  HC_REQUIRE_LIB([scotch/scotch.h], [scotch], [SCOTCH_graphMap], [libscotch-dev], [SCOTCH], [-lscotcherr -lm])
  AC_CHECK_LIB([pthread], [pthread_create], [], [AC_MSG_ERROR([pthreads are required (libc6-dev)])])
  AC_CHECK_LIB([dl], [dlsym], [], [AC_MSG_ERROR([libdl is required (libc6-dev)])])
  dnl libxml2's headers live under /usr/include/libxml2: ask pkg-config.
  PKG_CHECK_MODULES([XML2], [libxml-2.0], [],
    [AC_MSG_ERROR([libxml-2.0 not found by pkg-config: install the Debian packages 'libxml2-dev pkg-config'])])
])
