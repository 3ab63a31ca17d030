/* SPDX-License-Identifier: BSD-3-Clause */
/* test_phases.c — the phase rule of lib/analysis/phases.c on hand-made
   window matrices (doc/hpcprof-comm.md "Phases"): the similarity
   (Bhattacharyya coefficient of normalised vectors) on known answers; a
   ring then pairs with a mixed window between them and quiet windows make
   two phases cut at the change; a one-window burst unlike both neighbours
   stays a phase of its own; sampling noise in how volume splits among the
   same pairs does not cut a phase; all-quiet input is one phase. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/views.h"
#include "hc_test.h"

#define K(i, j) ((uint64_t)(i) << 32 | (j))

static int fails;

static void expect(int cond, const char *what)
{
	printf("%s: %s\n", cond ? "ok" : "FAIL", what);
	fails += !cond;
}

/* The ring (1,2) (2,3) (3,4) (1,4) and the pairs (1,3) (2,4), scaled. */
static uint32_t ring(struct vcell *v, uint64_t s)
{
	v[0] = (struct vcell){ K(1, 2), 10 * s };
	v[1] = (struct vcell){ K(1, 4), 9 * s };
	v[2] = (struct vcell){ K(2, 3), 11 * s };
	v[3] = (struct vcell){ K(3, 4), 10 * s };
	return 4;
}

static uint32_t pairs(struct vcell *v, uint64_t a, uint64_t b)
{
	v[0] = (struct vcell){ K(1, 3), a };
	v[1] = (struct vcell){ K(2, 4), b };
	return 2;
}

static uint32_t mix(struct vcell *v)
{
	v[0] = (struct vcell){ K(1, 2), 5 };
	v[1] = (struct vcell){ K(1, 3), 20 };
	v[2] = (struct vcell){ K(1, 4), 5 };
	v[3] = (struct vcell){ K(2, 3), 5 };
	v[4] = (struct vcell){ K(2, 4), 20 };
	v[5] = (struct vcell){ K(3, 4), 5 };
	return 6;
}

/* views__sort_wc on n random window cells (pairs below maxi, windows up to
   maxw): sorted by (i, j, win), and a permutation of the input (t is the
   record's input index). Sizes chosen for both sorts (LSD; MSD then LSD in
   buckets, with an odd and an even number of bucket passes). */
static void sort_check(size_t n, uint32_t maxi, uint32_t maxw, uint64_t seed, const char *what)
{
	struct wc *c = malloc(n * sizeof(*c)), *orig = malloc(n * sizeof(*c));
	struct wc *tmp = malloc(n * sizeof(*c)), *r;
	unsigned char *seen = calloc(n ? n : 1, 1);
	size_t k;
	int ok = c && orig && tmp && seen;

	for (k = 0; ok && k < n; k++) {
		uint32_t a, b;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		a = (uint32_t)(seed >> 33) % maxi;
		b = (uint32_t)(seed >> 13) % maxi;
		if (a == b)
			b = a + 1;
		c[k] = (struct wc){ (uint32_t)(seed >> 5) % (maxw + 1), a < b ? a : b, a < b ? b : a,
		                    k, seed & 0xff };
		orig[k] = c[k];
	}
	r = ok ? views__sort_wc(c, tmp, n) : NULL;
	ok = ok && (r == c || r == tmp);
	for (k = 0; ok && k < n; k++) {
		const struct wc *x = &r[k];
		ok = x->t < n && !seen[x->t] && x->i == orig[x->t].i && x->j == orig[x->t].j &&
		     x->win == orig[x->t].win && x->f == orig[x->t].f;
		if (ok)
			seen[x->t] = 1;
		if (ok && k)
			ok = r[k - 1].i < x->i || (r[k - 1].i == x->i && (r[k - 1].j < x->j ||
			     (r[k - 1].j == x->j && r[k - 1].win <= x->win)));
	}
	expect(ok, what);
	free(c);
	free(orig);
	free(tmp);
	free(seen);
}

int main(void)
{
	struct vcell w[32][8];
	const struct vcell *pw[32];
	uint32_t n[32], ph[32], nph = 0, i;
	struct vcell a[2], b[2];

	/* similarity */
	ring(w[0], 1);
	ring(w[1], 7);
	pairs(w[2], 8, 2);
	pairs(w[3], 4, 6);
	expect(fabs(views__similarity(w[0], 4, w[1], 4) - 1.0) < 1e-9, "same shape at any volume: 1");
	expect(views__similarity(w[0], 4, w[2], 2) == 0.0, "disjoint pairs: 0");
	expect(fabs(views__similarity(w[2], 2, w[3], 2) - 0.9121) < 1e-3,
	       "(0.8, 0.2) vs (0.4, 0.6): 0.912");
	expect(views__similarity(w[0], 0, w[1], 0) == 1.0 && views__similarity(w[0], 4, w[1], 0) == 0.0,
	       "empty vs empty 1, empty vs not 0");
	a[0] = (struct vcell){ K(1, 2), 1 };
	b[0] = (struct vcell){ K(1, 2), 1 };
	b[1] = (struct vcell){ K(3, 4), 1 };
	expect(fabs(views__similarity(a, 1, b, 2) - sqrt(0.5)) < 1e-9, "half overlap: sqrt(0.5)");

	/* quiet, ring x5, mix, pairs x5 (noisy split), quiet */
	i = 0;
	n[i++] = 0;
	for (int k = 0; k < 5; k++, i++)
		n[i] = ring(w[i], 1 + (uint64_t)k % 3);
	n[i] = mix(w[i]);
	i++;
	n[i] = pairs(w[i], 80, 20); i++;
	n[i] = pairs(w[i], 40, 60); i++;
	n[i] = pairs(w[i], 70, 30); i++;
	n[i] = 0; i++;                    /* an idle gap inside the phase */
	n[i] = pairs(w[i], 30, 70); i++;
	n[i] = pairs(w[i], 50, 50); i++;
	n[i] = 0; i++;
	for (uint32_t k = 0; k < i; k++)
		pw[k] = w[k];
	expect(views__segment(pw, n, i, ph, &nph) == 0, "segment runs");
	printf("phases: %u:", nph);
	for (uint32_t k = 0; k < i; k++)
		printf(" %u", ph[k]);
	printf("\n");
	expect(nph == 2, "ring then pairs: two phases");
	expect(ph[0] == 0 && ph[5] == 0 && ph[7] == 1 && ph[i - 1] == 1,
	       "the leading quiet window opens phase 1, the trailing one closes phase 2");
	expect(ph[6] == 1, "the mixed window (pairs-heavy) joins the pairs");
	expect(ph[10] == 1, "a quiet window inside a phase stays in it");

	/* a burst unlike both sides stays its own phase */
	i = 0;
	for (int k = 0; k < 4; k++, i++)
		n[i] = ring(w[i], 1);
	w[i][0] = (struct vcell){ K(5, 6), 40 };
	n[i++] = 1;
	for (int k = 0; k < 4; k++, i++)
		n[i] = ring(w[i], 2);
	for (uint32_t k = 0; k < i; k++)
		pw[k] = w[k];
	expect(views__segment(pw, n, i, ph, &nph) == 0 && nph == 3 && ph[3] == 0 && ph[4] == 1 &&
	       ph[5] == 2, "ring, a one-window burst on other threads, ring: three phases");

	/* nothing at all */
	for (i = 0; i < 5; i++) {
		n[i] = 0;
		pw[i] = w[i];
	}
	expect(views__segment(pw, n, 5, ph, &nph) == 0 && nph == 1 && ph[4] == 0,
	       "all windows quiet: one phase");
	/* the window cells' sort */
	sort_check(1000, 64, 19, 1, "window cells sorted: LSD, 1,000 cells");
	sort_check(70000, 1000, 19, 2, "window cells sorted: MSD, 25-bit keys (2 bucket passes)");
	sort_check(200000, 100000, 19, 3, "window cells sorted: MSD, 10^5 threads (3 bucket passes)");
	sort_check(100000, 1u << 20, 31, 4, "window cells sorted: MSD, 45-bit keys (4 bucket passes)");
	sort_check(100000, 1u << 6, 0, 5, "window cells sorted: LSD, many equal keys");
	printf("%d failure(s)\n", fails);
	return fails ? 1 : 0;
}
