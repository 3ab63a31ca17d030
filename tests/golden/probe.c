/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.c — see probe.h. malloc and calloc are defined here, in the
   program, so that every allocation of the program and of its libraries
   (libstdc++'s operator new calls malloc through the PLT) comes here first;
   the block is taken from glibc (__libc_malloc) and, while armed, written
   with the call path from backtrace() starting at the allocating call's
   return address, as the runtime's allocation contexts start there. Lines:
     thread IDX TP STACK_LO STACK_HI TLS_SIZE
     alloc IDX BASE SIZE RA...            (innermost first)
     comm IDX ADDR LEN PEER PLEN TRUE LEAF RA...
     module ID BASE LO HI PATH
   Test code only. */
#define _GNU_SOURCE 1
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);

volatile int probe_sink;
static FILE *out;
static int armed, nthreads;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int busy, me = -1;

static int tls_size_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t *sum = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS) {
			uint64_t al = info->dlpi_phdr[i].p_align ? info->dlpi_phdr[i].p_align : 1;
			*sum = (*sum + info->dlpi_phdr[i].p_memsz + al - 1) / al * al;
		}
	return 0;
}

static void open_out(void)
{
	const char *path = getenv("GOLDEN_OUT");

	if (!out && path) {
		busy++;
		out = fopen(path, "w");
		busy--;
	}
}

/* This thread's index, its ranges written on first use (main first). */
static int self(void)
{
	pthread_attr_t a;
	void *lo = NULL;
	size_t sz = 0;
	uint64_t tls = 0, tp;

	if (me >= 0)
		return me;
	busy++;
	pthread_mutex_lock(&lock);
	open_out();
	me = nthreads++;
	tp = (uint64_t)(uintptr_t)__builtin_thread_pointer();
	dl_iterate_phdr(tls_size_cb, &tls);
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstack(&a, &lo, &sz);
		pthread_attr_destroy(&a);
	}
	if (out)
		fprintf(out, "thread %d %#llx %#llx %#llx %#llx\n", me, (unsigned long long)tp,
		        (unsigned long long)(uintptr_t)lo,
		        (unsigned long long)((uintptr_t)lo + sz), (unsigned long long)tls);
	pthread_mutex_unlock(&lock);
	busy--;
	return me;
}

/* The call path from ra outwards. */
static void path(void *ra)
{
	void *bt[64];
	int n = backtrace(bt, 64), i = 0;

	while (i < n && bt[i] != ra)
		i++;
	if (i == n)
		i = 0;
	for (; i < n; i++)
		fprintf(out, " %#llx", (unsigned long long)(uintptr_t)bt[i]);
	fputc('\n', out);
}

static void note_alloc(void *p, size_t n, void *ra)
{
	int t;

	if (!p || !armed || busy)
		return;
	t = self();
	busy++;
	pthread_mutex_lock(&lock);
	if (out) {
		fprintf(out, "alloc %d %#llx %zu", t, (unsigned long long)(uintptr_t)p, n);
		path(ra);
	}
	pthread_mutex_unlock(&lock);
	busy--;
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	note_alloc(p, n, __builtin_return_address(0));
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);

	note_alloc(p, n * size, __builtin_return_address(0));
	return p;
}

void probe_arm(void)
{
	void *bt[4];

	self();
	busy++;
	backtrace(bt, 4);   /* loads the unwinder (it allocates) before arming */
	busy--;
	armed = 1;
}

static void comm(void *leaf, void *ra, const void *mine, size_t len, const void *peer,
                 size_t plen, int tru)
{
	int t = self();

	busy++;
	pthread_mutex_lock(&lock);
	if (out) {
		fprintf(out, "comm %d %#llx %zu %#llx %zu %d %#llx", t,
		        (unsigned long long)(uintptr_t)mine, len, (unsigned long long)(uintptr_t)peer,
		        plen, tru, (unsigned long long)(uintptr_t)leaf);
		path(ra);
	}
	pthread_mutex_unlock(&lock);
	busy--;
}

__attribute__((noinline)) void probe_comm(const void *mine, size_t len, const void *peer,
                                          size_t plen, int tru)
{
	void *ra = __builtin_return_address(0);

	comm(ra, ra, mine, len, peer, plen, tru);
}

__attribute__((noinline)) void probe_comm_at(const void *pc, const void *mine, size_t len,
                                             const void *peer, size_t plen, int tru)
{
	void *ra = __builtin_return_address(0);

	comm((void *)(uintptr_t)pc, ra, mine, len, peer, plen, tru);
}

__attribute__((noinline)) void probe_frame(const void *cfa)
{
	void *ra = __builtin_return_address(0);
	int t = self();

	busy++;
	pthread_mutex_lock(&lock);
	if (out) {
		fprintf(out, "frame %d %#llx %#llx", t, (unsigned long long)(uintptr_t)cfa,
		        (unsigned long long)(uintptr_t)__builtin_dwarf_cfa());
		path(ra);
	}
	pthread_mutex_unlock(&lock);
	busy--;
}

static int map_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int *id = data, i;
	uint64_t lo = UINT64_MAX, hi = 0;
	char exe[4096];
	const char *name = info->dlpi_name;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (!hi)
		return 0;
	if ((!name || !name[0]) && *id == 0) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	fprintf(out, "module %d %#llx %#llx %#llx %s\n", *id, (unsigned long long)info->dlpi_addr,
	        (unsigned long long)lo, (unsigned long long)hi, name && name[0] ? name : "[anonymous]");
	(*id)++;
	return 0;
}

void probe_finish(void)
{
	int id = 0;

	armed = 0;
	self();
	busy++;
	if (out) {
		dl_iterate_phdr(map_cb, &id);
		fclose(out);
		out = NULL;
	}
	busy--;
}
