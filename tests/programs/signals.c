/* SPDX-License-Identifier: BSD-3-Clause */
/* signals.c — programs that use signals the way real applications do, for
   tests/integration/signals.sh. Each mode prints fixed text (counts and
   yes/no facts, never timings) that the test compares with a native run,
   while worker threads compute on shared memory so the runtime samples and
   arms watchpoints all along. Modes:
     trap        own SIGTRAP handler: raise, int3, blocked + sigpending,
                 sigwait, SIG_IGN, SA_RESETHAND, inheritance by new threads
     int3blocked int3 with SIGTRAP blocked (the kernel kills: status 133)
     blockall    threads that block every signal (liblzma does) and compute;
                 BSD masks; a long handler that blocks every signal
     rt          realtime signals queued with values, and a POSIX timer
     segv        SIGSEGV caught and left with siglongjmp, guard pages
                 unprotected by the handler, SIGFPE, SA_RESETHAND
     altstack    threads with their own minimal sigaltstack, a handler that
                 checks it runs there, a stack overflow caught on it
     altsegv     a fault with no handler in a thread whose own sigaltstack
                 is one page (status 139)
     sigwait     sigwaitinfo and signalfd consumers while others compute
     eintr       blocking read, nanosleep, sem_wait, futex, poll while
                 sampled: counts EINTR (must be 0)
     eintr-control  the same, with SIGUSR1 sent to the blocked threads: the
                 EINTR counting must see them
   Exit status 0 unless stated; a self-check that fails prints "BAD ..." and
   exits 1. */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t shared[16] __attribute__((aligned(64)));
static volatile int stop_workers;
static int bad;

#define CHECK(c, ...) do { if (!(c)) { printf("BAD %s: ", #c); printf(__VA_ARGS__); printf("\n"); bad = 1; } } while (0)

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ms of this thread's CPU time, writing shared lines (sampled, shared). */
static void crunch(double ms, int w)
{
	double end = cpu_now() + ms / 1e3;

	while (cpu_now() < end)
		for (int i = 0; i < 2000; i++)
			shared[(w + i) & 15] = shared[(w + i) & 15] + 1;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;

	while (!stop_workers)
		crunch(5, w);
	return NULL;
}

static pthread_t workers[2];

static void start_workers(void)
{
	for (int i = 0; i < 2; i++)
		pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)(i + 1));
}

static void stop_all(void)
{
	stop_workers = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(workers[i], NULL);
}

static int blocked(int sig)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig);
}

static void block1(int how, int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(how, &s, NULL);
}

/* ---------------- trap ---------------- */

static volatile int traps, traps_kernel, traps_user;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	traps++;
	if (si->si_code > 0)
		traps_kernel++;
	else
		traps_user++;
	crunch(0.2, 0);
}

static int child_saw_blocked = -1;

static void *mask_child(void *arg)
{
	child_saw_blocked = blocked(SIGTRAP);
	crunch(20, 3);
	return NULL;
}

static int mode_trap(void)
{
	struct sigaction a, old;
	sigset_t s, p;
	pthread_t t;
	int sig, n;

	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_trap;
	a.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &a, NULL);
	start_workers();
	for (int i = 0; i < 100; i++) {
		raise(SIGTRAP);
		crunch(0.5, 0);
	}
	for (int i = 0; i < 100; i++) {
		__asm__ volatile("int3");
		crunch(0.5, 0);
	}
	printf("trap: %d handled, %d from the CPU, %d sent\n", traps, traps_kernel, traps_user);

	/* Blocked: pending, visible, delivered on unblock. */
	block1(SIG_BLOCK, SIGTRAP);
	printf("trap: blocked reported %d\n", blocked(SIGTRAP));
	n = traps;
	raise(SIGTRAP);
	crunch(30, 0);
	sigpending(&p);
	printf("trap: while blocked: pending %d, handled %d\n", sigismember(&p, SIGTRAP), traps - n);
	pthread_create(&t, NULL, mask_child, NULL);
	pthread_join(t, NULL);
	printf("trap: a thread created meanwhile starts blocked %d\n", child_saw_blocked);
	block1(SIG_UNBLOCK, SIGTRAP);
	printf("trap: after unblock: handled %d, blocked reported %d\n", traps - n, blocked(SIGTRAP));

	/* Blocked, then taken by sigwait: the handler never runs. */
	block1(SIG_BLOCK, SIGTRAP);
	n = traps;
	raise(SIGTRAP);
	crunch(20, 0);
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	sig = 0;
	sigwait(&s, &sig);
	crunch(20, 0);
	sigpending(&p);
	block1(SIG_UNBLOCK, SIGTRAP);
	crunch(5, 0);
	printf("trap: sigwait got %d, pending after %d, handled %d\n", sig, sigismember(&p, SIGTRAP), traps - n);

	/* The old mask of a SIG_SETMASK comes back as the program left it. */
	sigfillset(&s);
	pthread_sigmask(SIG_SETMASK, &s, &old.sa_mask);
	pthread_sigmask(SIG_SETMASK, &old.sa_mask, &s);
	printf("trap: full mask reported back %d, old had SIGTRAP %d\n",
	       sigismember(&s, SIGTRAP) && sigismember(&s, SIGUSR1), sigismember(&old.sa_mask, SIGTRAP));

	/* Ignored, then a one-shot handler. */
	signal(SIGTRAP, SIG_IGN);
	n = traps;
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &old);
	printf("trap: ignored: handled %d, disposition is SIG_IGN %d\n", traps - n, old.sa_handler == SIG_IGN);
	a.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGTRAP, &a, NULL);
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &old);
	printf("trap: one-shot: handled %d, now SIG_DFL %d\n", traps - n, old.sa_handler == SIG_DFL);
	stop_all();
	return bad;
}

static int mode_int3blocked(void)
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_trap;
	a.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &a, NULL);
	start_workers();
	crunch(30, 0);
	block1(SIG_BLOCK, SIGTRAP);
	printf("int3blocked: before\n");
	fflush(stdout);
	__asm__ volatile("int3");
	printf("int3blocked: survived (handled %d)\n", traps);
	return 0;
}

/* ---------------- blockall ---------------- */

static volatile int usr1;

static void on_usr1_long(int sig)
{
	usr1++;
	crunch(3, 0);     /* every signal blocked meanwhile (sa_mask full) */
}

static void *blockall_worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	sigset_t all, cur;
	int full = 1;

	/* Inherited from the creator: everything blocked. */
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	sigfillset(&all);
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP && sigismember(&cur, s) != 1)
			full = 0;
	crunch(150, w);
	return (void *)(intptr_t)full;
}

static int mode_blockall(void)
{
	sigset_t all, old, cur;
	struct sigaction a;
	pthread_t t[2];
	void *full[2];
	int word, word2;

	/* liblzma: block everything, create the workers, restore. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, blockall_worker, (void *)(intptr_t)(i + 1));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &full[i]);
	printf("blockall: workers saw every signal blocked: %d %d\n",
	       (int)(intptr_t)full[0], (int)(intptr_t)full[1]);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("blockall: main restored, SIGTRAP blocked %d\n", sigismember(&cur, SIGTRAP));

	/* BSD masks (deprecated, still used by old code). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	word = sigblock(1 << (SIGTRAP - 1) | 1 << (SIGUSR2 - 1));
	word2 = sigblock(0);
	sigsetmask(word);
	printf("blockall: sigblock old %#x, then %#x, restored %#x\n", (unsigned)word, (unsigned)word2,
	       (unsigned)sigblock(0));
#pragma GCC diagnostic pop

	/* A handler that runs with every signal blocked, for a while. */
	memset(&a, 0, sizeof a);
	a.sa_handler = on_usr1_long;
	sigfillset(&a.sa_mask);
	sigaction(SIGUSR1, &a, NULL);
	for (int i = 0; i < 20; i++)
		raise(SIGUSR1);
	printf("blockall: long handler ran %d times\n", usr1);
	return bad;
}

/* ---------------- rt ---------------- */

#define RT_N 200
static volatile int rt_count;
static volatile uint64_t rt_hash = 1469598103934665603ull;
static volatile int ticks;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	rt_count++;
	rt_hash = (rt_hash ^ (uint64_t)((sig - SIGRTMIN) * 1000 + si->si_value.sival_int)) * 1099511628211ull;
	crunch(0.05, 0);
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	ticks++;
}

static int mode_rt(void)
{
	struct sigaction a;
	sigset_t s;
	timer_t tm;
	struct sigevent ev;
	struct itimerspec its = { { 0, 2000000 }, { 0, 2000000 } };

	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_rt;
	a.sa_flags = SA_SIGINFO | SA_RESTART;
	for (int k = 0; k < 4; k++)
		sigaction(SIGRTMIN + k, &a, NULL);
	a.sa_sigaction = on_tick;
	sigaction(SIGRTMIN + 4, &a, NULL);
	sigemptyset(&s);
	for (int k = 0; k < 4; k++)
		sigaddset(&s, SIGRTMIN + k);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	start_workers();              /* inherit the block: main receives */
	for (int i = 0; i < RT_N; i++)
		for (int k = 3; k >= 0; k--) {
			union sigval v = { .sival_int = i };
			if (sigqueue(getpid(), SIGRTMIN + k, v) < 0)
				printf("BAD sigqueue: %s\n", strerror(errno));
		}
	crunch(20, 0);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	printf("rt: %d delivered, order hash %016llx\n", rt_count, (unsigned long long)rt_hash);

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN + 4;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_create(CLOCK_MONOTONIC, &ev, &tm);
	timer_settime(tm, 0, &its, NULL);
	while (ticks < 50)
		crunch(1, 0);
	timer_delete(tm);
	printf("rt: timer ticked at least 50 times: %d\n", ticks >= 50);
	stop_all();
	return bad;
}

/* ---------------- segv ---------------- */

static sigjmp_buf env;
static volatile int segvs, guards, fpes, fpe_sink;
static char *guard_mem;
static long pagesz;

static void on_segv_jump(int sig, siginfo_t *si, void *uc)
{
	segvs++;
	siglongjmp(env, 1);
}

static void on_segv_guard(int sig, siginfo_t *si, void *uc)
{
	char *a = (char *)((uintptr_t)si->si_addr & ~(uintptr_t)(pagesz - 1));

	if (a < guard_mem || a >= guard_mem + 64 * pagesz)
		abort();
	guards++;
	mprotect(a, pagesz, PROT_READ | PROT_WRITE);
}

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
	fpes++;
	siglongjmp(env, 1);
}

static int mode_segv(void)
{
	struct sigaction a, old;
	volatile int zero = 0;
	uint64_t sum = 0;

	pagesz = sysconf(_SC_PAGESIZE);
	start_workers();
	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_segv_jump;
	a.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &a, NULL);
	for (int i = 0; i < 500; i++) {
		if (!sigsetjmp(env, 1))
			*(volatile int *)(uintptr_t)(i & 7) = 1;
		crunch(0.2, 0);
	}
	printf("segv: %d faults left with siglongjmp, SIGSEGV blocked after %d\n", segvs, blocked(SIGSEGV));

	a.sa_sigaction = on_segv_guard;
	sigaction(SIGSEGV, &a, NULL);
	guard_mem = mmap(NULL, 64 * pagesz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int pass = 0; pass < 20; pass++)
		for (int i = 0; i < 64; i++) {
			guard_mem[i * pagesz + pass] = (char)(i + pass);
			crunch(0.05, 0);
		}
	for (int i = 0; i < 64; i++)
		sum += (unsigned char)guard_mem[i * pagesz + 7];
	printf("segv: %d guard-page faults, checksum %llu\n", guards, (unsigned long long)sum);

	a.sa_sigaction = on_fpe;
	sigaction(SIGFPE, &a, NULL);
	for (int i = 0; i < 100; i++)
		if (!sigsetjmp(env, 1))
			fpe_sink = i / zero;
	printf("segv: %d divisions by zero caught\n", fpes);

	a.sa_sigaction = on_segv_jump;
	a.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGSEGV, &a, NULL);
	if (!sigsetjmp(env, 1))
		*(volatile int *)8 = 1;
	sigaction(SIGSEGV, NULL, &old);
	printf("segv: one-shot handler reset to SIG_DFL %d, faults %d\n", old.sa_handler == SIG_DFL, segvs);
	stop_all();
	return bad;
}

/* ---------------- altstack ---------------- */

struct alt {
	char *lo;
	size_t size;
	volatile int on_it, checked;
	int reported_same;
};
static __thread struct alt *my_alt;
static volatile int overflows;
static __thread sigjmp_buf ov_env;

static void on_usr1_alt(int sig)
{
	char here;

	my_alt->on_it = &here >= my_alt->lo && &here < my_alt->lo + my_alt->size;
	my_alt->checked = 1;
}

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	char here;

	if (!my_alt)
		abort();
	if (&here >= my_alt->lo && &here < my_alt->lo + my_alt->size)
		overflows++;
	siglongjmp(ov_env, 1);
}

static int recurse(int n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	return recurse(n + 1) + pad[0];
}

static void *alt_worker(void *arg)
{
	struct alt *a = arg;
	stack_t ss, cur;
	size_t size = (size_t)sysconf(_SC_MINSIGSTKSZ);
	char *m;

	/* One page (or the kernel's minimum for a signal frame, if more),
	   with a guard page below: as small as real programs make it. */
	size = size < 4096 ? 4096 : (size + 4095) & ~(size_t)4095;
	m = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(m, 4096, PROT_NONE);
	a->lo = m + 4096;
	a->size = size;
	my_alt = a;
	ss.ss_sp = a->lo;
	ss.ss_size = size;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0)
		printf("BAD sigaltstack: %s\n", strerror(errno));
	sigaltstack(NULL, &cur);
	a->reported_same = cur.ss_sp == a->lo && cur.ss_size == size && cur.ss_flags == 0;
	crunch(200, 6);
	while (!a->checked)
		crunch(1, 1);
	/* Overflow this thread's (small) stack: caught on the altstack. A
	   larger one for this: siglongjmp is heavy when a sanitizer's
	   runtime is preloaded (the sanitizer build runs us so). */
	ss.ss_size = 64 << 10;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sigaltstack(&ss, NULL) < 0)
		printf("BAD sigaltstack: %s\n", strerror(errno));
	a->lo = ss.ss_sp;
	a->size = ss.ss_size;
	if (!sigsetjmp(ov_env, 1))
		recurse(0);
	crunch(20, 2);
	return NULL;
}

static int mode_altstack(void)
{
	static struct alt alts[2];
	struct sigaction a;
	pthread_attr_t attr;
	pthread_t t[2];

	memset(&a, 0, sizeof a);
	a.sa_handler = on_usr1_alt;
	a.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGUSR1, &a, NULL);
	a.sa_sigaction = on_overflow;
	a.sa_flags = SA_ONSTACK | SA_SIGINFO;
	sigaction(SIGSEGV, &a, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], &attr, alt_worker, &alts[i]);
	for (int i = 0; i < 2; i++) {
		while (!alts[i].lo)
			crunch(1, 0);
		pthread_kill(t[i], SIGUSR1);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		printf("altstack: thread %d: reported its own %d, handler ran on it %d\n", i,
		       alts[i].reported_same, alts[i].on_it);
	printf("altstack: stack overflows caught on the altstack: %d\n", overflows);
	return bad;
}

/* A fault with no handler in a thread with a one-page sigaltstack: the
   runtime writes the profiles there, then the default action kills. */
static void *altsegv_worker(void *arg)
{
	stack_t ss;

	ss.ss_size = 4096;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	crunch(30, 1);
	printf("altsegv: faulting\n");
	*(volatile int *)(uintptr_t)arg = 1;
	return NULL;
}

static int mode_altsegv(void)
{
	pthread_t t;

	start_workers();
	crunch(10, 0);
	pthread_create(&t, NULL, altsegv_worker, NULL);
	pthread_join(t, NULL);
	return 0;
}

/* ---------------- sigwait / signalfd ---------------- */

#define WAIT_N 300
static sem_t ack_wait, ack_fd;
static uint64_t wait_sum, fd_sum;
static int wait_n, fd_n;

static void *waiter(void *arg)
{
	sigset_t s;
	siginfo_t si;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	while (wait_n < WAIT_N) {
		if (sigwaitinfo(&s, &si) != SIGUSR1) {
			if (errno == EINTR)
				continue;
			printf("BAD sigwaitinfo: %s\n", strerror(errno));
			break;
		}
		wait_n++;
		wait_sum += (uint64_t)si.si_value.sival_int;
		crunch(0.1, 4);
		sem_post(&ack_wait);
	}
	return NULL;
}

static void *fd_reader(void *arg)
{
	sigset_t s;
	struct signalfd_siginfo si;
	int fd;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	fd = signalfd(-1, &s, SFD_CLOEXEC);
	sem_post(&ack_fd);
	while (fd_n < WAIT_N) {
		ssize_t r = read(fd, &si, sizeof si);
		if (r != sizeof si) {
			if (r < 0 && errno == EINTR)
				continue;
			printf("BAD signalfd read: %zd\n", r);
			break;
		}
		fd_n++;
		fd_sum += (uint64_t)si.ssi_int;
		crunch(0.1, 5);
		sem_post(&ack_fd);
	}
	close(fd);
	return NULL;
}

static int mode_sigwait(void)
{
	sigset_t s;
	pthread_t w, r;

	sem_init(&ack_wait, 0, 0);
	sem_init(&ack_fd, 0, 0);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);   /* every thread inherits it */
	start_workers();
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&r, NULL, fd_reader, NULL);
	sem_wait(&ack_fd);                      /* signalfd open */
	for (int i = 0; i < WAIT_N; i++) {
		union sigval v = { .sival_int = i + 1 };
		sigqueue(getpid(), SIGUSR1, v);
		sigqueue(getpid(), SIGUSR2, v);
		while (sem_wait(&ack_wait) < 0 && errno == EINTR)
			;
		while (sem_wait(&ack_fd) < 0 && errno == EINTR)
			;
		crunch(0.1, 0);
	}
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	stop_all();
	printf("sigwait: %d received, sum %llu\n", wait_n, (unsigned long long)wait_sum);
	printf("signalfd: %d received, sum %llu\n", fd_n, (unsigned long long)fd_sum);
	return bad;
}

/* ---------------- eintr ---------------- */

#define EINTR_N 400
static volatile int eintr_count[6];
static const char *const eintr_name[6] = { "read", "nanosleep", "sem_wait", "futex", "poll", "cond" };
static int pipefd[2];
static sem_t sem;
static int futex_word;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_turn;
static volatile int control_on;
static pthread_t blockers[6];

static void on_usr1_nop(int sig) { }

static void *reader(void *arg)
{
	char c;

	for (int i = 0; i < EINTR_N; i++) {
		for (;;) {
			ssize_t r = read(pipefd[0], &c, 1);
			if (r == 1)
				break;
			if (r < 0 && errno == EINTR)
				eintr_count[0]++;
			else
				return NULL;
		}
		crunch(0.3, 1);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	for (int i = 0; i < EINTR_N; i++) {
		struct timespec ts = { 0, 200000 }, rem;
		crunch(0.3, 2);
		while (nanosleep(&ts, &rem) < 0 && errno == EINTR) {
			eintr_count[1]++;
			ts = rem;
		}
	}
	return NULL;
}

static void *sem_waiter(void *arg)
{
	for (int i = 0; i < EINTR_N; i++) {
		while (sem_wait(&sem) < 0)
			if (errno == EINTR)
				eintr_count[2]++;
		crunch(0.3, 3);
	}
	return NULL;
}

static void *futex_waiter(void *arg)
{
	for (int i = 0; i < EINTR_N; i++) {
		struct timespec ts = { 0, 200000 };
		crunch(0.3, 4);
		if (syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0) < 0 && errno == EINTR)
			eintr_count[3]++;
	}
	return NULL;
}

static void *poller(void *arg)
{
	int p[2];
	struct pollfd pf;

	if (pipe(p) < 0)
		return NULL;
	pf.fd = p[0];
	pf.events = POLLIN;
	for (int i = 0; i < EINTR_N; i++) {
		crunch(0.3, 5);
		if (poll(&pf, 1, 1) < 0 && errno == EINTR)
			eintr_count[4]++;
	}
	close(p[0]);
	close(p[1]);
	return NULL;
}

/* pthread_cond_wait never fails with EINTR; the ping-pong must complete. */
static void *cond_pong(void *arg)
{
	for (int i = 0; i < EINTR_N; i++) {
		pthread_mutex_lock(&mu);
		while (cv_turn != 1)
			pthread_cond_wait(&cv, &mu);
		cv_turn = 0;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		crunch(0.2, 6);
	}
	return NULL;
}

static int mode_eintr(int control)
{
	struct sigaction a;
	int total = 0, pongs = 0;

	memset(&a, 0, sizeof a);
	a.sa_handler = on_usr1_nop;
	a.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &a, NULL);
	if (pipe(pipefd) < 0)
		return 1;
	sem_init(&sem, 0, 0);
	pthread_create(&blockers[0], NULL, reader, NULL);
	pthread_create(&blockers[1], NULL, sleeper, NULL);
	pthread_create(&blockers[2], NULL, sem_waiter, NULL);
	pthread_create(&blockers[3], NULL, futex_waiter, NULL);
	pthread_create(&blockers[4], NULL, poller, NULL);
	pthread_create(&blockers[5], NULL, cond_pong, NULL);
	for (int i = 0; i < EINTR_N; i++) {
		crunch(0.2, 0);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
		sem_post(&sem);
		pthread_mutex_lock(&mu);
		cv_turn = 1;
		pthread_cond_signal(&cv);
		while (cv_turn != 0)
			pthread_cond_wait(&cv, &mu);
		pongs++;
		pthread_mutex_unlock(&mu);
		if (control && (i & 3) == 0)
			for (int k = 0; k < 5; k++)
				pthread_kill(blockers[k], SIGUSR1);
	}
	for (int k = 0; k < 6; k++)
		pthread_join(blockers[k], NULL);
	for (int k = 0; k < 6; k++) {
		total += eintr_count[k];
		if (!control)
			printf("eintr: %s: %d\n", eintr_name[k], eintr_count[k]);
	}
	printf("eintr: %d ping-pongs, %s\n", pongs, control ? (total > 0 ? "interrupted" : "never interrupted") : "done");
	if (!control)
		printf("eintr: total %d\n", total);
	return bad;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "trap"))
		ret = mode_trap();
	else if (!strcmp(mode, "int3blocked"))
		ret = mode_int3blocked();
	else if (!strcmp(mode, "blockall"))
		ret = mode_blockall();
	else if (!strcmp(mode, "rt"))
		ret = mode_rt();
	else if (!strcmp(mode, "segv"))
		ret = mode_segv();
	else if (!strcmp(mode, "altstack"))
		ret = mode_altstack();
	else if (!strcmp(mode, "altsegv"))
		ret = mode_altsegv();
	else if (!strcmp(mode, "sigwait"))
		ret = mode_sigwait();
	else if (!strcmp(mode, "eintr"))
		ret = mode_eintr(0);
	else if (!strcmp(mode, "eintr-control"))
		ret = mode_eintr(1);
	else {
		fprintf(stderr, "usage: signals trap|int3blocked|blockall|rt|segv|altstack|altsegv|sigwait|eintr|eintr-control\n");
		return 2;
	}
	return ret;
}
