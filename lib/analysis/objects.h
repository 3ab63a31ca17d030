/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.h — data objects in the analyzer (doc/database-format.md
   "objects.xml"): dwarf_vars.c names static variables and their fields from
   ELF symbols and DWARF; objects.c resolves both addresses of every
   communication event to a static variable, a heap allocation context, a
   thread's stack or TLS, or "unknown", sums them per object and writes
   objects.xml, objects.csv and the summary's object table. No signal
   context. */
#ifndef HC_ANALYSIS_OBJECTS_H
#define HC_ANALYSIS_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------- dwarf_vars.c ---------------- */

struct dvmod;

/* The variable holding one address of a module. */
struct dv_hit {
	char var[256];              /* source name (DWARF), else the symbol name */
	uint64_t start, size;       /* symbol value (offset from the load bias) and size */
	char field[512];            /* "stats[3].hits"; empty when the type is unknown */
	uint64_t foff, fsize;       /* the field's offset in the variable and its size
	                               (fsize 0: unknown, use the access length) */
	bool typed;
};

/* Open a module's ELF file; NULL when it cannot be read. */
struct dvmod *dvars__open(const char *path);
void dvars__close(struct dvmod *m);
/* The data symbol covering off (relative to the load bias): true and *out
   filled, false when no variable covers it. */
bool dvars__lookup(struct dvmod *m, uint64_t off, struct dv_hit *out);

/* ---------------- objects.c ---------------- */

struct an;
struct objects;

/* Third pass over the events (after view__build): resolve and sum. 0 or
   -ENOMEM. */
int objects__build(struct an *an, struct objects **out);
void objects__free(struct objects *ob);
/* objects.xml and objects.csv into dir. */
int objects__write(struct an *an, const struct objects *ob, const char *dir, char *err,
                   size_t errlen);
/* Append the top objects by false sharing to dir/summary.txt and to *text. */
int objects__summary(struct an *an, const struct objects *ob, const char *dir, char **text,
                     char *err, size_t errlen);

#endif
