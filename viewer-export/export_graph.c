/* SPDX-License-Identifier: BSD-3-Clause */
/* export_graph.c — one matrix (--level, --kind) as a weighted undirected graph
   for other tools: --dot for Graphviz (edge width and weight follow the
   volume, the exact volume is kept in a "volume" attribute), --metis for
   METIS/KaHIP (graph file format "n m 001", 1-based) and --scotch for Scotch
   (source graph format, version 0, "0 010", 0-based). Mapping tools read edge
   weights into 32-bit integers on most builds, so when the weights would not
   fit they are divided by a common factor (a non-zero volume never becomes
   0); --dot keeps exact values. No signal context. */
#include <stdlib.h>
#include <string.h>

#include "exporter.h"

static const struct hc_db_matrix *chosen(const struct hc_db *db, const struct export_opts *o)
{
	const struct hc_db_matrix *m = &db->mat[o->level][o->kind];

	if (!m->present) {
		vx_error("%s: no %s matrices in this database (no topology was found)",
		         db->dir, hc_db_level_name(o->level));
		return NULL;
	}
	return m;
}

/* The symmetric matrix as adjacency lists (CSR): vertex i's neighbours are
   nb[off[i] .. off[i+1]), in increasing index order (cells come sorted by
   (i, j), so the k < i of cells (k, i) arrive first, then the j > i).
   O(n + cells): what METIS and Scotch need for 100,000 threads. */
struct adj {
	uint64_t *off;
	struct nb { uint32_t to; uint64_t v; } *nb;
};

static int adj_build(const struct hc_db_matrix *m, struct adj *g)
{
	uint64_t *fill;

	g->off = calloc((size_t)m->n + 1, sizeof(*g->off));
	g->nb = malloc((2 * m->ncells + 1) * sizeof(*g->nb));
	fill = calloc((size_t)m->n + 1, sizeof(*fill));
	if (!g->off || !g->nb || !fill) {
		free(g->off);
		free(g->nb);
		free(fill);
		return vx_error("out of memory");
	}
	for (size_t c = 0; c < m->ncells; c++) {
		g->off[m->cells[c].i + 1]++;
		g->off[m->cells[c].j + 1]++;
	}
	for (uint32_t i = 0; i < m->n; i++)
		g->off[i + 1] += g->off[i];
	memcpy(fill, g->off, (size_t)m->n * sizeof(*fill));
	for (size_t c = 0; c < m->ncells; c++) {
		const struct hc_db_cell *x = &m->cells[c];
		g->nb[fill[x->i]++] = (struct nb){ x->j, x->v };
		g->nb[fill[x->j]++] = (struct nb){ x->i, x->v };
	}
	free(fill);
	return 0;
}

static void adj_free(struct adj *g)
{
	free(g->off);
	free(g->nb);
}

static void dot_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
	fputc('"', f);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int dot_run(const struct hc_db *db, const struct export_opts *o)
{
	const struct hc_db_matrix *m = chosen(db, o);
	struct hc_out out;
	uint64_t max = 0, maxrow = 0, *vol = NULL;
	uint32_t *idx = NULL, k;
	char label[512], v[64], title[1024];

	if (!m)
		return -1;
	/* A large level: the HC_REPORT_SHOWN indexes with the most communication, and
	   the edges between them; a small one: all (idx = 0 … n-1). */
	k = hc_report_top_indexes(m, m->n > HC_REPORT_LARGE_N ? HC_REPORT_SHOWN : m->n, &idx, &vol);
	if (!idx)
		return vx_error("out of memory");
	qsort(idx, k, sizeof(*idx), cmp_u32);
	if (vx_open(&out, o->out)) {
		free(idx);
		free(vol);
		return -1;
	}
	for (size_t c = 0; c < m->ncells; c++)
		if (m->cells[c].v > max &&
		    bsearch(&m->cells[c].i, idx, k, sizeof(*idx), cmp_u32) &&
		    bsearch(&m->cells[c].j, idx, k, sizeof(*idx), cmp_u32))
			max = m->cells[c].v;
	for (uint32_t r = 0; r < k; r++)
		if (vol[idx[r]] > maxrow)
			maxrow = vol[idx[r]];
	fprintf(out.f, "// %s: %s communication graph (%s sharing) of %s, unit %s\n",
	        VX_NAME, hc_db_level_name(o->level), hc_db_kind_name(o->kind), db->dir, db->unit);
	if (k < m->n)
		fprintf(out.f, "// only the %u of %u indexes taking part in the most communication and "
		        "the edges between them; node volumes and the total are of the whole matrix\n",
		        k, m->n);
	fprintf(out.f, "graph comm {\n");
	snprintf(title, sizeof(title), "%s — %s communication (%s), total %s%s", db->program,
	         hc_db_level_name(o->level), hc_db_kind_name(o->kind),
	         hc_report_value(v, sizeof(v), m->total, db->unit),
	         k < m->n ? " — the top indexes only" : "");
	if (k < m->n) {
		size_t len = strlen(title);
		snprintf(title + len, sizeof(title) - len, " (%u of %u)", k, m->n);
	}
	fputs("  graph [layout=neato, overlap=false, splines=true, labelloc=t, label=", out.f);
	dot_str(out.f, title);
	fputs("];\n  node [shape=circle, style=filled, fontname=\"Helvetica\"];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n", out.f);
	for (uint32_t r = 0; r < k; r++) {
		uint32_t i = idx[r];
		uint64_t row = vol[i];
		int shade;
		/* white (silent) to orange (most communicating) */
		shade = maxrow ? (int)(255 - (double)row / (double)maxrow * 160) : 255;
		fprintf(out.f, "  n%u [label=", i);
		dot_str(out.f, hc_db_index_label(db, o->level, i, label, sizeof(label)));
		fprintf(out.f, ", fillcolor=\"#ff%02x%02x\", volume=%llu];\n", shade, shade * 3 / 4,
		        (unsigned long long)row);
	}
	for (size_t c = 0; c < m->ncells; c++) {
		uint32_t i = m->cells[c].i, j = m->cells[c].j;
		uint64_t x = m->cells[c].v;
		double r;
		if (!bsearch(&i, idx, k, sizeof(*idx), cmp_u32) ||
		    !bsearch(&j, idx, k, sizeof(*idx), cmp_u32))
			continue;
		r = (double)x / (double)max;
		fprintf(out.f, "  n%u -- n%u [volume=%llu, weight=%d, penwidth=%.2f, label=\"%s\"];\n",
		        i, j, (unsigned long long)x, 1 + (int)(r * 99), 0.5 + r * 7.5,
		        hc_report_value(v, sizeof(v), x, db->unit));
	}
	fputs("}\n", out.f);
	free(idx);
	free(vol);
	return vx_close(&out, true);
}

/* Divisor that makes the sum of all arc weights fit a signed 32-bit int. */
static uint64_t weight_divisor(const struct hc_db_matrix *m, uint64_t *edges)
{
	uint64_t sum = 0, div;
	bool wrap = false;

	*edges = 0;
	for (size_t c = 0; c < m->ncells; c++) {
		uint64_t x = m->cells[c].v;
		(*edges)++;
		if (sum + 2 * x < sum || 2 * x < x)
			wrap = true;
		sum += 2 * x;
	}
	if (wrap)
		return UINT64_MAX / INT32_MAX;
	div = sum / (INT32_MAX / 2) + 1;
	return div;
}

static uint64_t scaled(uint64_t x, uint64_t div)
{
	uint64_t w = x / div;
	return w ? w : 1;
}

/* What the METIS and Scotch files are written from: the chosen matrix as
   adjacency lists, the output open, the arc weights' divisor. */
struct graph_file {
	const struct hc_db_matrix *m;
	struct adj g;
	struct hc_out out;
	uint64_t edges, div;
};

/* 0, or -1 (reported). */
static int graph_begin(const struct hc_db *db, const struct export_opts *o, struct graph_file *w)
{
	w->m = chosen(db, o);
	if (!w->m || adj_build(w->m, &w->g))
		return -1;
	if (vx_open(&w->out, o->out)) {
		adj_free(&w->g);
		return -1;
	}
	w->div = weight_divisor(w->m, &w->edges);
	return 0;
}

static int graph_end(struct graph_file *w)
{
	adj_free(&w->g);
	return vx_close(&w->out, true);
}

static int metis_run(const struct hc_db *db, const struct export_opts *o)
{
	struct graph_file w;
	FILE *f;

	if (graph_begin(db, o, &w))
		return -1;
	f = w.out.f;
	fprintf(f, "%% %s: %s communication graph (%s sharing) of %s\n", VX_NAME,
	        hc_db_level_name(o->level), hc_db_kind_name(o->kind), db->dir);
	fprintf(f, "%% vertex k (1-based) is %s index k-1; edge weight = volume in %s / %llu\n",
	        hc_db_level_name(o->level), db->unit, (unsigned long long)w.div);
	fprintf(f, "%u %llu 001\n", w.m->n, (unsigned long long)w.edges);
	for (uint32_t i = 0; i < w.m->n; i++) {
		for (uint64_t e = w.g.off[i]; e < w.g.off[i + 1]; e++)
			fprintf(f, "%s%u %llu", e == w.g.off[i] ? "" : " ", w.g.nb[e].to + 1,
			        (unsigned long long)scaled(w.g.nb[e].v, w.div));
		fputc('\n', f);
	}
	return graph_end(&w);
}

static int scotch_run(const struct hc_db *db, const struct export_opts *o)
{
	struct graph_file w;
	FILE *f;

	if (graph_begin(db, o, &w))
		return -1;
	f = w.out.f;
	if (w.div > 1)
		fprintf(stderr, VX_NAME ": %s: edge weights divided by %llu to fit 32 bits\n",
		        o->out, (unsigned long long)w.div);
	fprintf(f, "0\n%u\t%llu\n0\t010\n", w.m->n, (unsigned long long)(2 * w.edges));
	for (uint32_t i = 0; i < w.m->n; i++) {
		fprintf(f, "%llu", (unsigned long long)(w.g.off[i + 1] - w.g.off[i]));
		for (uint64_t e = w.g.off[i]; e < w.g.off[i + 1]; e++)
			fprintf(f, "\t%llu %u", (unsigned long long)scaled(w.g.nb[e].v, w.div), w.g.nb[e].to);
		fputc('\n', f);
	}
	return graph_end(&w);
}

const struct exporter export_dot = {
	.name = "dot",
	.arg = "FILE",
	.help = "Graphviz graph of the matrix (--level, --kind), edges weighted by volume",
	.run = dot_run,
};

const struct exporter export_metis = {
	.name = "metis",
	.arg = "FILE",
	.help = "the same graph in METIS graph format (for gpmetis, KaHIP)",
	.run = metis_run,
};

const struct exporter export_scotch = {
	.name = "scotch",
	.arg = "FILE",
	.help = "the same graph in Scotch source graph format (.grf)",
	.run = scotch_run,
};
