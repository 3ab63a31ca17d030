/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.h — data objects in the analyzer (doc/database-format.md
   "objects.xml"): dwarf_vars.c names static variables and their fields from
   ELF symbols and DWARF; objects.c resolves both addresses of every
   communication event to a static variable, a heap allocation context, a
   thread's stack or TLS, or "unknown", sums them per object and writes
   objects.xml. No signal context. */
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
	char etype[128];            /* the element's type as the source spells it ("struct stat",
	                               "lreg_args", "long"): of an array variable its element,
	                               else the variable's type; "" when unknown */
	uint64_t esize;             /* its size in bytes, 0 when unknown */
};

/* Open a module's ELF file; NULL when it cannot be read. */
struct dvmod *dvars__open(const char *path);
void dvars__close(struct dvmod *m);
/* The data symbol covering off (relative to the load bias): true and *out
   filled, false when no variable covers it. */
bool dvars__lookup(struct dvmod *m, uint64_t off, struct dv_hit *out);
/* The module's PT_TLS segment: true and its size and alignment, false when
   it has none. */
bool dvars__tls(const struct dvmod *m, uint64_t *memsz, uint64_t *align);
/* The __thread variable at offset off of the module's TLS block (from
   STT_TLS symbols and DWARF TLS locations), as dvars__lookup. */
bool dvars__tls_lookup(struct dvmod *m, uint64_t off, struct dv_hit *out);

/* The local variable or parameter of the function holding pc whose stack
   location covers byte off from the frame's CFA (off < 0 for locals):
   DW_OP_fbreg with frame base DW_OP_call_frame_cfa or rbp, DW_OP_breg7
   (rsp) when fsize (CFA - the frame's stack pointer) is known (nonzero),
   DW_OP_breg6 (rbp) with a standard frame pointer. true, *out filled as
   dvars__lookup (start: the variable's offset from the CFA, as a
   two's-complement u64) and the function's name in func. */
bool dvars__local_at(struct dvmod *m, uint64_t pc, int64_t off, uint64_t fsize, struct dv_hit *out,
                     char *func, size_t flen);

/* The variable a heap block is stored into (dwarf_vars.c). */
struct dv_type {
	bool found;                 /* a variable (or this->member) of that name is visible */
	bool typed;                 /* it is a pointer and die is what it points to */
	uint64_t die;               /* DWARF offset of the pointee type */
	char tname[128];            /* the pointee's type as the source spells it, "" unknown */
	uint64_t tsize;             /* its size in bytes, 0 when unknown */
};

/* The variable or parameter called name visible at pc (locals of the scopes
   holding pc innermost first, then the compilation unit's globals, then a
   member of *this). */
bool dvars__var_at(struct dvmod *m, uint64_t pc, const char *name, struct dv_type *out);
/* The name of the function called by the call that returns to ra (DWARF
   call-site entries), or NULL. */
const char *dvars__callee_at(struct dvmod *m, uint64_t ra);
/* Byte off of a block holding an array of t's pointee: "var[k].field..." in
   buf, the leaf's offset in the block and size. false when t has no type. */
bool dvars__describe(struct dvmod *m, const struct dv_type *t, const char *var, uint64_t off,
                     char *buf, size_t len, uint64_t *foff, uint64_t *fsize);

/* ---------------- objects.c ---------------- */

struct hc_prof_frame;
/* A thread's recorded stack frames by CFA, ascending; equal CFAs (frames
   of different calls at one depth) most-seen first. */
void objects__frames_sort(struct hc_prof_frame *f, size_t n);
/* The first frame of sorted f whose CFA is above addr, n when none: the
   frame holding addr when it was recorded (its callees' CFAs are at or
   below its stack pointer, so at or below addr), then the frames above. */
size_t objects__frame_first(const struct hc_prof_frame *f, size_t n, uint64_t addr);

struct an;
struct objects;

/* Third pass over the events (after view__build): resolve and sum. 0 or
   -ENOMEM. */
int objects__build(struct an *an, struct objects **out);
void objects__free(struct objects *ob);
/* How many objects; the identity key (kind, a, b) and name of the object
   with objects.xml index r (views.h keys its sums by identity). */
uint32_t objects__count(const struct objects *ob);
void objects__ranked(const struct objects *ob, uint32_t r, uint64_t key[3], const char **name);
/* The identity keys interned into h (initialized, empty) in objects.xml
   order, so that h's index of a key is the object's objects.xml index
   (phases.c and numa.c look their sums up by it). 0 or -ENOMEM. */
struct hmap;
int objects__index_keys(const struct objects *ob, struct hmap *h);
/* Rank the objects (objects.xml's order): objects__build does; again after
   objects__unpack. 0 or -ENOMEM. */
int objects__rank(struct objects *ob);
/* Distributed (doc/mpi.md, dist_objects.c): a rank's table as bytes, and a
   packed table added to another (as the workers' tables are merged: the
   result does not depend on who resolved what). unpack returns -ENOMEM or
   0; a malformed buffer sets b->bad. */
struct wbuf;
struct rbuf;
void objects__pack(const struct objects *ob, struct wbuf *b);
int objects__unpack(const struct an *an, struct objects *into, struct rbuf *b);
/* objects.xml into dir, through lib/db (hc_db_write_objects); objects.csv
   and the summary's object table are lib/report's, from what the reader
   reads back (summary.c). */
int objects__write(struct an *an, const struct objects *ob, const char *dir, char *err,
                   size_t errlen);

#endif
