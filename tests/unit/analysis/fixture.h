/* SPDX-License-Identifier: BSD-3-Clause */
/* fixture.h — synthetic measurement directories for the analyzer tests:
   profiles written with the real profile writer (hc_prof_writer_*) under the
   runtime's file names, hwloc topologies exported from synthetic
   descriptions, and small readers for what the analyzer writes (CSV matrices,
   whole files, XSD validation with libxml2). Test code only. */
#ifndef HC_TEST_FIXTURE_H
#define HC_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hc/profile.h"

struct fx_counter {
	const char *name;
	uint64_t value;
};

struct fx_prof {
	struct hc_prof_thread th;       /* exe, index, pid, tid, unit... */
	uint32_t hostid, gen;
	const struct hc_prof_module *mods;
	size_t nmods;
	const struct hc_prof_node *nodes;   /* ids and parents as in the file */
	size_t nnodes;
	const struct hc_prof_event *evs;
	size_t nevs;
	const struct fx_counter *cnts;
	size_t ncnts;
};

/* A fresh empty directory under $TMPDIR (or /tmp); the path is malloc'd. */
char *fx_tmpdir(const char *tag);
char *fx_join(const char *a, const char *b);
void fx_mkdir(const char *path);
void fx_rm_rf(const char *path);

/* Write p into dir under "<exe basename>-000000-<idx:03>-<host:08x>-<pid>-<gen>.hcprof";
   returns the path (malloc'd), exits the test on failure. */
char *fx_write_profile(const char *dir, const struct fx_prof *p);
/* topology-<host:08x>.xml from an hwloc synthetic description. */
void fx_write_topology(const char *dir, uint32_t hostid, const char *synthetic);
/* A file with the given bytes. */
void fx_write_file(const char *path, const void *data, size_t n);

/* Whole file, NUL-terminated (malloc'd), NULL if unreadable. */
char *fx_read(const char *path, size_t *len);
bool fx_exists(const char *path);

/* A parsed square matrix file. */
struct fx_matrix {
	uint32_t n;
	uint64_t *v;     /* n * n */
	bool ok;         /* the header and every row were well-formed */
	char why[256];
};

bool fx_read_matrix(const char *path, struct fx_matrix *m);
static inline uint64_t fx_cell(const struct fx_matrix *m, uint32_t i, uint32_t j)
{
	return m->v[(size_t)i * m->n + j];
}
void fx_free_matrix(struct fx_matrix *m);

/* Validate an XML file against an XSD (paths). 0 = valid; else prints the
   libxml2 messages and returns non-zero. */
int fx_validate(const char *xml, const char *xsd);
/* The XSD shipped in doc/ ($HC_SRCDIR/doc/NAME). malloc'd. */
char *fx_doc(const char *name);

/* XPath over an XML file: the number of nodes matched by expr, -1 on error. */
int fx_xpath_count(const char *xml, const char *expr);
/* XPath string(expr) over an XML file (malloc'd, "" when nothing matches). */
char *fx_xpath_string(const char *xml, const char *expr);

/* Number of occurrences of needle in s. */
int fx_count(const char *s, const char *needle);

#endif
