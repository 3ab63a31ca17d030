/* SPDX-License-Identifier: BSD-3-Clause */
/* exact_abi.h — the ThreadSanitizer instrumentation ABI that GCC 12 and
   Clang 14 emit under -fsanitize=thread (__tsan_read/write*, unaligned and
   volatile variants, ranges, function entry/exit, vptr, atomics, fences),
   defined once for both of its users: the exact runtime (exact.c, which
   feeds the ownership model) and the stub library that instrumented
   programs link so they run without hpcrun-comm (exact_stub.c, no-ops).
   The includer defines, before including this file:
     XACC(addr, size, kind)   one access (kind HC_X_READ/WRITE/RMW) at the
                              caller's PC __builtin_return_address(0)
     XENTRY(pc), XEXIT()      function entry (pc = the caller's return address) / exit
   Every atomic performs its operation (sequentially consistent, stronger
   than any order the program asked for). No signal context of our own:
   these run wherever the program's code runs. */
#ifndef HC_RT_EXACT_ABI_H
#define HC_RT_EXACT_ABI_H

#include <stdint.h>
#include "hc/common.h"

/* The entry points are the compiler's ABI, declared by no header of ours. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-declarations"
/* gcc declares them as built-ins in sanitizer builds, with generic types */
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"

typedef signed char xa8;
typedef short xa16;
typedef int xa32;
typedef long long xa64;
typedef __int128 xa128;

#define XSZ(n) \
	HC_EXPORT void __tsan_read##n(void *a) { XACC(a, n, HC_X_READ); } \
	HC_EXPORT void __tsan_write##n(void *a) { XACC(a, n, HC_X_WRITE); } \
	HC_EXPORT void __tsan_unaligned_read##n(void *a) { XACC(a, n, HC_X_READ); } \
	HC_EXPORT void __tsan_unaligned_write##n(void *a) { XACC(a, n, HC_X_WRITE); } \
	HC_EXPORT void __tsan_volatile_read##n(void *a) { XACC(a, n, HC_X_READ); } \
	HC_EXPORT void __tsan_volatile_write##n(void *a) { XACC(a, n, HC_X_WRITE); } \
	HC_EXPORT void __tsan_unaligned_volatile_read##n(void *a) { XACC(a, n, HC_X_READ); } \
	HC_EXPORT void __tsan_unaligned_volatile_write##n(void *a) { XACC(a, n, HC_X_WRITE); }
XSZ(1) XSZ(2) XSZ(4) XSZ(8) XSZ(16)
#undef XSZ

HC_EXPORT void __tsan_read_range(void *a, unsigned long n) { XACC(a, n, HC_X_READ); }
HC_EXPORT void __tsan_write_range(void *a, unsigned long n) { XACC(a, n, HC_X_WRITE); }
HC_EXPORT void __tsan_vptr_read(void **p) { XACC(p, 8, HC_X_READ); }
HC_EXPORT void __tsan_vptr_update(void **p, void *v) { (void)v; XACC(p, 8, HC_X_WRITE); }
HC_EXPORT void __tsan_func_entry(void *pc) { XENTRY(pc); }
HC_EXPORT void __tsan_func_exit(void) { XEXIT(); }
/* The fences are the ABI's own: never instrumented (in a tree configured
   with --enable-tsan gcc would refuse the fence, -Wtsan; that tree's exact
   runtime does not run, doc/reliability.md "TSan"). */
#define XNOTSAN __attribute__((no_sanitize("thread")))
HC_EXPORT XNOTSAN void __tsan_atomic_thread_fence(int mo) { (void)mo; __atomic_thread_fence(__ATOMIC_SEQ_CST); }
HC_EXPORT XNOTSAN void __tsan_atomic_signal_fence(int mo) { (void)mo; __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#undef XNOTSAN

#define SC __ATOMIC_SEQ_CST
/* 8..64 bits: the compiler's own atomics. */
#define XFETCH(b, T, op) \
	HC_EXPORT T __tsan_atomic##b##_fetch_##op(volatile T *a, T v, int mo) \
	{ (void)mo; XACC(a, sizeof(T), HC_X_RMW); return __atomic_fetch_##op(a, v, SC); }
#define XATOMIC(b, T) \
	HC_EXPORT T __tsan_atomic##b##_load(const volatile T *a, int mo) \
	{ (void)mo; XACC(a, sizeof(T), HC_X_READ); return __atomic_load_n(a, SC); } \
	HC_EXPORT void __tsan_atomic##b##_store(volatile T *a, T v, int mo) \
	{ (void)mo; XACC(a, sizeof(T), HC_X_WRITE); __atomic_store_n(a, v, SC); } \
	HC_EXPORT T __tsan_atomic##b##_exchange(volatile T *a, T v, int mo) \
	{ (void)mo; XACC(a, sizeof(T), HC_X_RMW); return __atomic_exchange_n(a, v, SC); } \
	XFETCH(b, T, add) XFETCH(b, T, sub) XFETCH(b, T, and) \
	XFETCH(b, T, or) XFETCH(b, T, xor) XFETCH(b, T, nand) \
	HC_EXPORT int __tsan_atomic##b##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; XACC(a, sizeof(T), HC_X_RMW); \
	  return __atomic_compare_exchange_n(a, c, v, 0, SC, SC); } \
	HC_EXPORT int __tsan_atomic##b##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; XACC(a, sizeof(T), HC_X_RMW); \
	  return __atomic_compare_exchange_n(a, c, v, 1, SC, SC); } \
	HC_EXPORT T __tsan_atomic##b##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; XACC(a, sizeof(T), HC_X_RMW); \
	  __atomic_compare_exchange_n(a, &c, v, 0, SC, SC); return c; }
XATOMIC(8, xa8) XATOMIC(16, xa16) XATOMIC(32, xa32) XATOMIC(64, xa64)
#undef XATOMIC

/* 128 bits: cmpxchg16b (this file is compiled with -mcx16) in CAS loops,
   so no libatomic is needed. A load is a CAS of a value with itself. */
static inline xa128 x128_cas(volatile xa128 *a, xa128 c, xa128 v)
{
	return __sync_val_compare_and_swap(a, c, v);
}
static inline xa128 x128_load(volatile xa128 *a)
{
	return x128_cas(a, 0, 0);
}
#define X128_RMW(name, expr) \
	HC_EXPORT xa128 __tsan_atomic128_##name(volatile xa128 *a, xa128 v, int mo) \
	{ xa128 o, n; (void)mo; XACC(a, 16, HC_X_RMW); \
	  for (o = x128_load(a);; o = n) { n = x128_cas(a, o, (expr)); if (n == o) return o; } }
X128_RMW(exchange, v)
X128_RMW(fetch_add, o + v)
X128_RMW(fetch_sub, o - v)
X128_RMW(fetch_and, o & v)
X128_RMW(fetch_or, o | v)
X128_RMW(fetch_xor, o ^ v)
X128_RMW(fetch_nand, ~(o & v))
#undef X128_RMW
HC_EXPORT xa128 __tsan_atomic128_load(const volatile xa128 *a, int mo)
{
	(void)mo;
	XACC(a, 16, HC_X_READ);
	return x128_load((volatile xa128 *)a);
}
HC_EXPORT void __tsan_atomic128_store(volatile xa128 *a, xa128 v, int mo)
{
	xa128 o, n;

	(void)mo;
	XACC(a, 16, HC_X_WRITE);
	for (o = x128_load(a);; o = n)
		if ((n = x128_cas(a, o, v)) == o)
			return;
}
HC_EXPORT xa128 __tsan_atomic128_compare_exchange_val(volatile xa128 *a, xa128 c, xa128 v, int mo, int fmo)
{
	(void)mo;
	(void)fmo;
	XACC(a, 16, HC_X_RMW);
	return x128_cas(a, c, v);
}
HC_EXPORT int __tsan_atomic128_compare_exchange_strong(volatile xa128 *a, xa128 *c, xa128 v, int mo, int fmo)
{
	xa128 o;

	(void)mo;
	(void)fmo;
	XACC(a, 16, HC_X_RMW);
	o = x128_cas(a, *c, v);
	if (o == *c)
		return 1;
	*c = o;
	return 0;
}
HC_EXPORT int __tsan_atomic128_compare_exchange_weak(volatile xa128 *a, xa128 *c, xa128 v, int mo, int fmo)
{
	return __tsan_atomic128_compare_exchange_strong(a, c, v, mo, fmo);
}
#undef SC
#pragma GCC diagnostic pop

#endif
