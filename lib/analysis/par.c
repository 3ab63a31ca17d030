/* SPDX-License-Identifier: BSD-3-Clause */
/* par.c — the analyzer's one way of running work in parallel: start N
   threads that each pull items from a shared atomic counter (the function
   decides what an item is), and let the calling thread wait for them while it
   reports progress through the caller's callback at most ten times a second.
   The calling thread does no work itself, so progress reports stay regular. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/internal.h"

struct par_thread {
	struct an *an;
	void (*fn)(void *arg, unsigned id);
	void *arg;
	unsigned id;
	pthread_t tid;
};

static void *trampoline(void *p)
{
	struct par_thread *t = p;
	struct an *an = t->an;

	t->fn(t->arg, t->id);
	pthread_mutex_lock(&an->lock);
	an->running--;
	pthread_cond_signal(&an->cond);
	pthread_mutex_unlock(&an->lock);
	return NULL;
}

int par__run(struct an *an, unsigned n, void (*fn)(void *arg, unsigned id), void *arg,
             const char *what, const uint32_t *done, size_t total)
{
	struct par_thread *t;
	unsigned i, started = 0;

	if (n == 0)
		n = 1;
	t = calloc(n, sizeof(*t));
	if (!t)
		return -ENOMEM;
	pthread_mutex_lock(&an->lock);
	an->running = 0;
	for (i = 0; i < n; i++) {
		t[i] = (struct par_thread){ .an = an, .fn = fn, .arg = arg, .id = i };
		an->running++;
		if (pthread_create(&t[i].tid, NULL, trampoline, &t[i]) != 0) {
			an->running--;
			break;
		}
		started++;
	}
	if (!started) {
		pthread_mutex_unlock(&an->lock);
		free(t);
		return -EAGAIN;
	}
	while (an->running) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&an->cond, &an->lock, &ts);
		if (an->o->progress && an->running && what) {
			pthread_mutex_unlock(&an->lock);
			an->o->progress(an->o->progress_arg, what,
			                done ? __atomic_load_n(done, __ATOMIC_RELAXED) : 0, total);
			pthread_mutex_lock(&an->lock);
		}
	}
	pthread_mutex_unlock(&an->lock);
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
	free(t);
	return 0;
}
