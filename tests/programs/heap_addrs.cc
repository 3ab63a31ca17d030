// SPDX-License-Identifier: BSD-3-Clause
// heap_addrs.cc — prints where the program's heap blocks land, for
// tests/integration/heap_neutral.sh: run natively and under hpcrun-comm with
// address randomisation off (setarch -R), the two outputs must be the same.
// The main thread allocates (and frees some of) 2,000 blocks of varying sizes
// through malloc, calloc, realloc, posix_memalign, aligned_alloc, new and
// new[]; then 4 threads do the same, one after the other (a thread's arena
// is the one glibc gives its first allocation: taking turns keeps that
// order the same in every run); then 16 short-lived threads, created and
// joined one at a time, allocate a few blocks each; then main and the 4
// threads allocate again. Every address is recorded in a static table (no
// allocation of the program's own besides the blocks) and printed at the
// end, one line per block: "<who> <i> <size> <where>", where <where> is
//   - main:ADDR    a block of the main arena (brk heap): its absolute address;
//   - arena<k>+OFF a block of a thread arena: glibc puts each in a 64 MiB
//                  aligned heap mapped with mmap (k: the arenas in the order
//                  of first appearance), OFF its offset in it;
//   - mmap+PAGEOFF a block mmap'd on its own (glibc's large blocks): its
//                  offset in its page.
// The mappings themselves (thread arenas, big blocks) sit wherever mmap puts
// them, which depends on every library loaded: their addresses are not
// compared, the layout inside them is. Lines starting with '#' are
// information that is not compared (stack and TLS addresses).
// Before its blocks the main thread calls setenv and getpwuid, as many
// programs do: glibc then allocates on its own (the environment array, the
// name service's state), and those blocks must land where they do natively.
// Usage: heap_addrs [-n BLOCKS]
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <pthread.h>
#include <pwd.h>
#include <unistd.h>

#define MAXREC     (1 << 16)
#define WORKERS    4
#define SHORT      16
#define ARENA_SIZE (64ul << 20)     // glibc's HEAP_MAX_SIZE on 64-bit

struct rec {
	const char *who;
	int who_i;
	int i;
	size_t size;
	uintptr_t addr;
	int mmapped;
};

static rec recs[MAXREC];
static int nrec;
static int nblocks = 2000;
static __thread int tls_probe;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;                // which worker may allocate now (phase 1: 0..3, phase 2: 10..13)

static void note(const char *who, int who_i, int i, size_t size, void *p)
{
	rec *r;
	size_t hdr;

	if (!p) {
		std::fprintf(stderr, "heap_addrs: allocation of %zu bytes failed\n", size);
		std::exit(2);
	}
	pthread_mutex_lock(&mu);
	if (nrec >= MAXREC) {
		std::fprintf(stderr, "heap_addrs: too many blocks\n");
		std::exit(2);
	}
	r = &recs[nrec++];
	pthread_mutex_unlock(&mu);
	std::memcpy(&hdr, (char *)p - sizeof hdr, sizeof hdr);   // glibc's chunk size word
	r->who = who;
	r->who_i = who_i;
	r->i = i;
	r->size = size;
	r->addr = (uintptr_t)p;
	r->mmapped = (hdr & 2) != 0;                              // IS_MMAPPED
}

// A deterministic sequence of sizes: mostly small (where false sharing
// lives), some medium, a few above glibc's mmap threshold.
static size_t next_size(uint64_t *s)
{
	uint64_t x;

	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	x = *s >> 33;
	switch (x % 16) {
	case 15: return 4096 + x % 60000;
	case 14: return 140000 + x % 100000;   // mmap'd by glibc (threshold 128 KiB)
	case 13: case 12: return 256 + x % 2048;
	default: return 1 + x % 256;
	}
}

// n blocks through every allocation call; every third one freed again, one
// in seven of the rest grown with realloc. Records what stays and what the
// calls returned.
static void allocate(const char *who, int who_i, int n, uint64_t seed)
{
	static const int KEEP = 4096;
	void *live[KEEP];
	bool fromc[KEEP];   // live[j] came from the malloc family (realloc may take it; a new'd block not)
	int nlive = 0;
	uint64_t s = seed;

	for (int i = 0; i < n; i++) {
		size_t sz = next_size(&s);
		void *p = nullptr;

		switch (i % 7) {
		case 0: p = std::malloc(sz); break;
		case 1: p = std::calloc(1, sz); break;
		case 2: if (posix_memalign(&p, 64, sz)) p = nullptr; break;
		case 3: p = new char[sz]; break;
		case 4: p = ::operator new(sz); break;
		case 5: p = std::aligned_alloc(32, (sz + 31) & ~(size_t)31); break;
		default: p = std::realloc(nullptr, sz); break;
		}
		note(who, who_i, i, sz, p);
		std::memset(p, 0x5a, sz);
		if (i % 3 == 2) {
			if (i % 7 == 3)
				delete[] static_cast<char *>(p);
			else if (i % 7 == 4)
				::operator delete(p);
			else
				std::free(p);
		} else if (i % 7 == 6 && nlive > 0 && fromc[nlive - 1]) {
			void *q = std::realloc(live[nlive - 1], sz + 100);
			note(who, who_i, i, sz + 100, q);
			live[nlive - 1] = q;
			int j = nlive < KEEP ? nlive++ : KEEP - 1;
			live[j] = p;
			fromc[j] = true;
		} else if (nlive < KEEP) {
			fromc[nlive] = i % 7 != 3 && i % 7 != 4;
			live[nlive++] = p;
		}
	}
	// Keep the survivors for the later phases (never freed: the program's
	// heap keeps growing as a real one would).
	(void)live;
}

static void info(const char *who, int who_i)
{
	int local;

	std::printf("# %s %d stack %p tls %p\n", who, who_i, (void *)&local, (void *)&tls_probe);
}

static void wait_turn(int t)
{
	pthread_mutex_lock(&mu);
	while (turn != t)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void pass_turn(void)
{
	pthread_mutex_lock(&mu);
	turn++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg;

	wait_turn(k);
	allocate("worker", k, nblocks, 100 + k);
	pass_turn();
	wait_turn(10 + k);
	allocate("worker2", k, nblocks / 4, 200 + k);
	info("worker", k);
	pass_turn();
	return nullptr;
}

static void *short_lived(void *arg)
{
	int k = (int)(intptr_t)arg;

	allocate("short", k, 50, 300 + k);
	return nullptr;
}

static void print(void)
{
	uintptr_t bases[64];
	int nb = 0;

	for (int r = 0; r < nrec; r++) {
		const rec *e = &recs[r];
		char where[64];

		if (e->mmapped) {
			std::snprintf(where, sizeof where, "mmap+%#lx", (unsigned long)(e->addr & 4095));
		} else if (e->addr < (uintptr_t)sbrk(0)) {      // the brk heap lies below every mapping
			std::snprintf(where, sizeof where, "main:%#lx", (unsigned long)e->addr);
		} else {
			uintptr_t b = e->addr & ~(ARENA_SIZE - 1);
			int k;
			for (k = 0; k < nb && bases[k] != b; k++)
				;
			if (k == nb && nb < 64)
				bases[nb++] = b;
			std::snprintf(where, sizeof where, "arena%d+%#lx", k, (unsigned long)(e->addr - b));
		}
		std::printf("%s %d %d %zu %s\n", e->who, e->who_i, e->i, e->size, where);
	}
}

int main(int argc, char **argv)
{
	pthread_t w[WORKERS], s;

	if (argc == 3 && std::strcmp(argv[1], "-n") == 0)
		nblocks = std::atoi(argv[2]);
	if (nblocks < 1 || nblocks > MAXREC / 16) {
		std::fprintf(stderr, "usage: heap_addrs [-n BLOCKS (1..%d)]\n", MAXREC / 16);
		return 2;
	}
	{
		void *p = std::malloc(128);
		note("first", 0, 0, 128, p);
		std::printf("# first malloc(128) at offset %lu in its cache line\n",
		            (unsigned long)((uintptr_t)p & 63));
	}
	info("main", 0);
	// What many programs do first, and what glibc then allocates on its
	// own: the environment array copied by setenv (as long as the
	// environment is), the name service's state (nsswitch.conf read once).
	setenv("HEAP_ADDRS_PHASE", "main", 1);
	if (!getpwuid(getuid()))
		std::printf("# no passwd entry for uid %u\n", (unsigned)getuid());
	allocate("main", 0, nblocks, 1);
	turn = 0;
	for (int k = 0; k < WORKERS; k++)
		if (pthread_create(&w[k], nullptr, worker, (void *)(intptr_t)k) != 0) {
			std::fprintf(stderr, "heap_addrs: pthread_create failed\n");
			return 2;
		}
	wait_turn(WORKERS);
	for (int k = 0; k < SHORT; k++) {
		if (pthread_create(&s, nullptr, short_lived, (void *)(intptr_t)k) != 0) {
			std::fprintf(stderr, "heap_addrs: pthread_create failed\n");
			return 2;
		}
		pthread_join(s, nullptr);
	}
	allocate("main2", 0, nblocks / 4, 2);
	pthread_mutex_lock(&mu);
	turn = 10;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	wait_turn(10 + WORKERS);
	for (int k = 0; k < WORKERS; k++)
		pthread_join(w[k], nullptr);
	print();
	return 0;
}
