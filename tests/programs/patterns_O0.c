/* SPDX-License-Identifier: BSD-3-Clause */
/* patterns_O0.c — tests/programs/patterns.c compiled as at -O0 (every
   variable in its stack slot, every pointer reloaded before use), whatever
   optimization level the build's CFLAGS give (they come after a program's
   own flags): issue #14's -O0 patterns. */
#pragma GCC optimize("O0")
#include "patterns.c"
