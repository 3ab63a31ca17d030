/* SPDX-License-Identifier: BSD-3-Clause */
/* write_threads.c — writing threads.csv (doc/database-format.md, header
   HC_DB_THREADS_HEADER): one row per thread in global index order, CPU sets
   as ranges ("0-3;8;10-11"), text fields quoted as CSV needs. The reader's
   twin is read_threads.c. No signal context. */
#include "db/write.h"
#include "support/out.h"

/* "0-3;8;10-11" */
static void put_cpus(struct hc_out *o, const int32_t *c, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t j = i;
		while (j + 1 < n && c[j + 1] == c[j] + 1)
			j++;
		if (i)
			hc_out_puts(o, ";");
		if (j == i)
			hc_out_printf(o, "%d", c[i]);
		else
			hc_out_printf(o, "%d-%d", c[i], c[j]);
		i = j + 1;
	}
}

int hc_db_write_threads(const char *dir, const struct hc_db_wthread *rows, size_t n, char *err,
                        size_t errlen)
{
	struct hc_out o;
	size_t i;
	int ret;

	ret = hc_out_open(&o, dir, HC_DB_THREADS, err, errlen);
	if (ret)
		return ret;
	hc_out_puts(&o, HC_DB_THREADS_HEADER "\n");
	for (i = 0; i < n; i++) {
		const struct hc_db_wthread *t = &rows[i];

		hc_out_printf(&o, "%zu,%u,%u,%u,", i, t->process, t->pid, t->thread);
		if (t->tid >= 0)
			hc_out_printf(&o, "%lld", (long long)t->tid);
		hc_out_puts(&o, ",");
		if (t->creator >= 0)
			hc_out_printf(&o, "%lld", (long long)t->creator);
		hc_out_puts(&o, ",");
		if (t->start_routine)
			hc_out_csv(&o, t->start_routine);
		hc_out_puts(&o, ",");
		if (t->creation_context)
			hc_out_printf(&o, "%u", t->creation_context);
		hc_out_puts(&o, ",");
		put_cpus(&o, t->cpus, t->ncpus);
		hc_out_puts(&o, ",");
		if (t->profile) {
			hc_out_puts(&o, hc_db_sampler_name(t->sampler));
			hc_out_printf(&o, ",%llu,", (unsigned long long)t->period);
			hc_out_csv(&o, t->profile);
		} else {
			hc_out_puts(&o, ",,");
		}
		hc_out_printf(&o, ",%u,", t->rank);
		hc_out_csv(&o, t->host);
		hc_out_puts(&o, "\n");
	}
	return hc_out_close(&o, true, err, errlen);
}
