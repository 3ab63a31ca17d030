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

static const struct hc_vmatrix *chosen(const struct hc_vdb *db, const struct export_opts *o)
{
	const struct hc_vmatrix *m = &db->mat[o->level][o->kind];

	if (!m->present) {
		vx_error("%s: no %s matrices in this database (no topology was found)",
		         db->dir, hc_db_level_name(o->level));
		return NULL;
	}
	return m;
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

static int dot_run(const struct hc_vdb *db, const struct export_opts *o)
{
	const struct hc_vmatrix *m = chosen(db, o);
	struct out out;
	uint64_t max = 0, maxrow = 0;
	char label[512], v[64], title[1024];

	if (!m || out_open(&out, o->out))
		return -1;
	for (uint32_t i = 0; i < m->n; i++) {
		uint64_t row = 0;
		for (uint32_t j = 0; j < m->n; j++) {
			row += hc_vmatrix_at(m, i, j);
			if (hc_vmatrix_at(m, i, j) > max)
				max = hc_vmatrix_at(m, i, j);
		}
		if (row > maxrow)
			maxrow = row;
	}
	fprintf(out.f, "// %s: %s communication graph (%s sharing) of %s, unit %s\n",
	        VX_NAME, hc_db_level_name(o->level), hc_db_kind_name(o->kind), db->dir, db->unit);
	fprintf(out.f, "graph comm {\n");
	snprintf(title, sizeof(title), "%s — %s communication (%s), total %s", db->program,
	         hc_db_level_name(o->level), hc_db_kind_name(o->kind),
	         fmt_value(v, sizeof(v), m->total, db->unit));
	fputs("  graph [layout=neato, overlap=false, splines=true, labelloc=t, label=", out.f);
	dot_str(out.f, title);
	fputs("];\n  node [shape=circle, style=filled, fontname=\"Helvetica\"];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n", out.f);
	for (uint32_t i = 0; i < m->n; i++) {
		uint64_t row = 0;
		int shade;
		for (uint32_t j = 0; j < m->n; j++)
			row += hc_vmatrix_at(m, i, j);
		/* white (silent) to orange (most communicating) */
		shade = maxrow ? (int)(255 - (double)row / (double)maxrow * 160) : 255;
		fprintf(out.f, "  n%u [label=", i);
		dot_str(out.f, hc_vdb_index_label(db, o->level, i, label, sizeof(label)));
		fprintf(out.f, ", fillcolor=\"#ff%02x%02x\", volume=%llu];\n", shade, shade * 3 / 4,
		        (unsigned long long)row);
	}
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t j = i + 1; j < m->n; j++) {
			uint64_t x = hc_vmatrix_at(m, i, j);
			double r;
			if (!x)
				continue;
			r = (double)x / (double)max;
			fprintf(out.f, "  n%u -- n%u [volume=%llu, weight=%d, penwidth=%.2f, label=\"%s\"];\n",
			        i, j, (unsigned long long)x, 1 + (int)(r * 99), 0.5 + r * 7.5,
			        fmt_value(v, sizeof(v), x, db->unit));
		}
	fputs("}\n", out.f);
	return out_close(&out, true);
}

/* Divisor that makes the sum of all arc weights fit a signed 32-bit int. */
static uint64_t weight_divisor(const struct hc_vmatrix *m, uint64_t *edges)
{
	uint64_t sum = 0, div;
	bool wrap = false;

	*edges = 0;
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t j = i + 1; j < m->n; j++) {
			uint64_t x = hc_vmatrix_at(m, i, j);
			if (!x)
				continue;
			(*edges)++;
			if (sum + 2 * x < sum)
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

static int metis_run(const struct hc_vdb *db, const struct export_opts *o)
{
	const struct hc_vmatrix *m = chosen(db, o);
	struct out out;
	uint64_t edges, div;

	if (!m || out_open(&out, o->out))
		return -1;
	div = weight_divisor(m, &edges);
	fprintf(out.f, "%% %s: %s communication graph (%s sharing) of %s\n", VX_NAME,
	        hc_db_level_name(o->level), hc_db_kind_name(o->kind), db->dir);
	fprintf(out.f, "%% vertex k (1-based) is %s index k-1; edge weight = volume in %s / %llu\n",
	        hc_db_level_name(o->level), db->unit, (unsigned long long)div);
	fprintf(out.f, "%u %llu 001\n", m->n, (unsigned long long)edges);
	for (uint32_t i = 0; i < m->n; i++) {
		bool first = true;
		for (uint32_t j = 0; j < m->n; j++) {
			uint64_t x = hc_vmatrix_at(m, i, j);
			if (!x || i == j)
				continue;
			fprintf(out.f, "%s%u %llu", first ? "" : " ", j + 1,
			        (unsigned long long)scaled(x, div));
			first = false;
		}
		fputc('\n', out.f);
	}
	return out_close(&out, true);
}

static int scotch_run(const struct hc_vdb *db, const struct export_opts *o)
{
	const struct hc_vmatrix *m = chosen(db, o);
	struct out out;
	uint64_t edges, div;

	if (!m || out_open(&out, o->out))
		return -1;
	div = weight_divisor(m, &edges);
	if (div > 1)
		fprintf(stderr, VX_NAME ": %s: edge weights divided by %llu to fit 32 bits\n",
		        o->out, (unsigned long long)div);
	fprintf(out.f, "0\n%u\t%llu\n0\t010\n", m->n, (unsigned long long)(2 * edges));
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t deg = 0;
		for (uint32_t j = 0; j < m->n; j++)
			deg += i != j && hc_vmatrix_at(m, i, j) != 0;
		fprintf(out.f, "%u", deg);
		for (uint32_t j = 0; j < m->n; j++) {
			uint64_t x = hc_vmatrix_at(m, i, j);
			if (x && i != j)
				fprintf(out.f, "\t%llu %u", (unsigned long long)scaled(x, div), j);
		}
		fputc('\n', out.f);
	}
	return out_close(&out, true);
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
