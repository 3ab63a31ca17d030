/* SPDX-License-Identifier: BSD-3-Clause */
/* profile.h — the per-thread profile file (".hcprof"): the one writer (used by
   the runtime, async-signal-safe: only write/pwrite on a caller buffer, no
   malloc) and the one reader (used by the analyzer: mmap, validate everything
   up front, then random access to fixed-size records). The byte-level grammar
   is in doc/profile-format.md; lib/prof/ implements both sides.

   Conventions: all integers little-endian; records fixed size per section;
   every function returns 0 or a negative errno (reader: -EINVAL plus a
   message naming the file, the offset and what was expected). */
#ifndef HC_PROFILE_H
#define HC_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hc/common.h"

#define HC_PROF_MAGIC   "HCPROF\r\n"   /* 8 bytes */
#define HC_PROF_VERSION 1u
#define HC_PROF_SUFFIX  "hcprof"
#define HC_NONE         UINT32_MAX     /* "no node / no module / no thread" */

/* Section tags (4 ASCII bytes read as a little-endian u32). */
#define HC_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
enum hc_prof_section {
	HC_SEC_LOADMAP  = HC_TAG('L', 'M', 'A', 'P'),
	HC_SEC_CCT      = HC_TAG('C', 'C', 'T', ' '),
	HC_SEC_EVENTS   = HC_TAG('E', 'V', 'N', 'T'),
	HC_SEC_COUNTERS = HC_TAG('C', 'N', 'T', 'R'),
	HC_SEC_ALLOCS   = HC_TAG('A', 'L', 'O', 'C'),
	HC_SEC_OBJECTS  = HC_TAG('O', 'B', 'J', 'S'),
	HC_SEC_PNODES   = HC_TAG('P', 'N', 'O', 'D'),   /* optional; readers before it skip it */
	HC_SEC_FRAMES   = HC_TAG('F', 'R', 'A', 'M'),   /* optional; readers before it skip it */
	HC_SEC_END      = HC_TAG('E', 'N', 'D', ' '),
};

/* Thread identity and measurement parameters (the file header). */
struct hc_prof_thread {
	uint32_t index;        /* creation order within the process, main = 0 */
	uint32_t creator;      /* index of the creating thread, HC_NONE for main */
	uint32_t pid, tid;     /* OS ids */
	uint32_t ppid;         /* parent process (fork/exec children), 0 if none */
	uint32_t sampler;      /* enum hc_sampler */
	uint32_t unit;         /* enum hc_unit */
	uint32_t creation_ctx; /* node in the *creator's* CCT where pthread_create was called, HC_NONE */
	uint64_t period;       /* events or ns between samples */
	uint64_t start_ns, end_ns;      /* CLOCK_MONOTONIC */
	uint64_t stack_lo, stack_hi;    /* this thread's stack, [lo, hi) */
	uint64_t tls_lo, tls_hi;        /* this thread's static TLS block, [lo, hi) */
	uint32_t start_lm;              /* start routine as (load module, offset), HC_NONE for main */
	uint32_t rank;                  /* MPI rank of the process, 0 outside MPI (was "reserved", always 0) */
	uint64_t start_off;
	char     exe[256];              /* program path, NUL-terminated */
};

/* One loaded object: [lo, hi) mapped, addresses stored as offset from base. */
struct hc_prof_module {
	uint32_t id;
	uint32_t reserved;
	uint64_t base;         /* load bias (dlpi_addr) */
	uint64_t lo, hi;       /* lowest/highest mapped address of its PT_LOAD segments */
	char     path[512];    /* NUL-terminated; "[vdso]" etc. for pseudo modules */
};

/* One calling-context node. Nodes are stored parents-first: parent < id.
   Node 0 is the root (parent = HC_NONE, lm = HC_NONE). lm/offset name a
   return address (a call site: symbolize offset - 1) for frame nodes, and the
   exact address of the accessing instruction for HC_NODE_LEAF nodes. */
enum hc_node_flag {
	HC_NODE_LEAF = 1u << 0,  /* offset is an instruction address, not a return address */
};
struct hc_prof_node {
	uint32_t id;
	uint32_t parent;
	uint32_t lm;
	uint32_t flags;          /* enum hc_node_flag */
	uint64_t offset;
	uint64_t m[HC_M_COUNT]; /* exclusive metrics, in the profile's unit */
};

/* One detected communication, recorded by the detecting thread. */
struct hc_prof_event {
	uint64_t time;          /* CLOCK_MONOTONIC ns */
	uint64_t weight;        /* in the profile's unit */
	uint64_t addr;          /* detecting access */
	uint64_t peer_addr;     /* published access of the peer */
	uint32_t len, peer_len; /* bytes */
	uint32_t peer;          /* peer thread index (same process) */
	int32_t  cpu, peer_cpu; /* -1 if unknown */
	uint32_t ctx;           /* node in this thread's CCT */
	uint32_t peer_ctx;      /* node in the peer's CCT */
	uint32_t flags;         /* enum hc_comm_flag */
};

/* One allocation or free, recorded by the allocation wrappers. */
enum hc_alloc_kind { HC_ALLOC = 0, HC_FREE = 1 };
struct hc_prof_alloc {
	uint64_t time;
	uint64_t addr;
	uint64_t size;          /* 0 for HC_FREE */
	uint32_t ctx;           /* allocation context (node in this thread's CCT), HC_NONE for free */
	uint32_t kind;          /* enum hc_alloc_kind */
};

/* The live heap block that held one address of an event, resolved by the
   runtime when it recorded the event (doc/objects.md). An address that was in
   no tracked block has no record. Records are sorted by (event, side), at
   most one per pair, and the address always lies in [base, base + size). */
enum hc_obj_side { HC_SIDE_ADDR = 0, HC_SIDE_PEER = 1 };   /* event addr / peer_addr */
enum hc_obj_kind { HC_OBJ_MALLOC = 0, HC_OBJ_MMAP = 1 };   /* malloc family / anonymous mmap */
struct hc_prof_object {
	uint32_t event;         /* index in this file's EVNT section */
	uint32_t side;          /* enum hc_obj_side */
	uint64_t base;          /* block start */
	uint64_t size;          /* bytes requested (> 0); mmap: length rounded up to pages */
	uint32_t thread;        /* allocating thread index (same process) */
	uint32_t ctx;           /* allocation context: node in the *allocating* thread's CCT */
	uint32_t kind;          /* enum hc_obj_kind */
	uint32_t reserved;
};

/* The NUMA nodes of the pages holding an event's two addresses, looked up
   by the runtime when it recorded the event (doc/profile-format.md "PNOD",
   doc/runtime.md "NUMA"). Records are sorted by event, at most one per
   event; an event with neither node known has none. */
#define HC_PNODE_MAX 4095        /* largest node number accepted */
struct hc_prof_pnode {
	uint32_t event;         /* index in this file's EVNT section */
	int32_t  node;          /* node of addr's page, -1 unknown */
	int32_t  peer_node;     /* node of peer_addr's page, -1 unknown */
	uint32_t reserved;
};

/* One stack frame seen in this thread's samples (doc/objects.md "Stack
   locals"): the frame's canonical frame address (CFA: the caller's stack
   pointer before the call) and a CCT node whose address lies in the
   frame's function (a return address into it, or the sampled instruction
   of the leaf frame). Any order; the analyzer sorts them. */
struct hc_prof_frame {
	uint64_t cfa;
	uint32_t node;          /* node in this thread's CCT */
	uint32_t count;         /* unwinds that saw this frame (saturates) */
	uint32_t size;          /* cfa - the frame's stack pointer when first seen, 0 unknown */
	uint32_t reserved;
};

/* One named counter (samples taken, dropped..., see doc/profile-format.md). */
struct hc_prof_counter {
	char     name[40];      /* NUL-terminated */
	uint64_t value;
};

/* ---------------- writer (runtime side; async-signal-safe) ---------------- */
struct hc_prof_writer {
	int      fd;
	int      err;           /* first negative errno, sticky */
	uint8_t *buf;           /* caller-provided staging buffer */
	size_t   cap, len;
	uint64_t off;           /* file offset of buf[0] */
	uint64_t sec_off;       /* file offset of the open section's header, 0 if none */
	uint64_t sec_count;
	uint32_t sec_tag;
	uint32_t crc;           /* zlib crc32 of every byte written so far */
	uint64_t last_key;      /* OBJS: (event << 1 | side) + 1 of the previous record, 0 if none */
};

/* Start a profile on an open, empty fd; buf (>= 4 KiB) stays the caller's. */
int hc_prof_writer_init(struct hc_prof_writer *w, int fd, void *buf, size_t cap,
                        const struct hc_prof_thread *th);
int hc_prof_section_begin(struct hc_prof_writer *w, uint32_t tag);
int hc_prof_put_module(struct hc_prof_writer *w, const struct hc_prof_module *m);
int hc_prof_put_node(struct hc_prof_writer *w, const struct hc_prof_node *n);
int hc_prof_put_event(struct hc_prof_writer *w, const struct hc_prof_event *e);
int hc_prof_put_alloc(struct hc_prof_writer *w, const struct hc_prof_alloc *a);
/* Records must come sorted by (event, side), one per pair, size > 0. */
int hc_prof_put_object(struct hc_prof_writer *w, const struct hc_prof_object *o);
int hc_prof_put_counter(struct hc_prof_writer *w, const char *name, uint64_t value);
/* Records must come sorted by event, one per event, nodes in -1..HC_PNODE_MAX. */
int hc_prof_put_pnode(struct hc_prof_writer *w, const struct hc_prof_pnode *n);
/* Any order; node below the CCT's node count (checked by the reader). */
int hc_prof_put_frame(struct hc_prof_writer *w, const struct hc_prof_frame *f);
int hc_prof_section_end(struct hc_prof_writer *w);
/* Write the END section (with the CRC) and flush. Does not close fd. */
int hc_prof_writer_finish(struct hc_prof_writer *w);

/* ---------------- reader (analyzer side) ---------------- */
struct hc_prof;  /* opaque */

/* Open and fully validate a profile (structure, bounds, CRC, parent order,
   module and node references). On error returns a negative errno and writes
   "FILE: offset N: what was expected" into err. */
int hc_prof_open(const char *path, struct hc_prof **out, char *err, size_t errlen);
void hc_prof_close(struct hc_prof *p);

const struct hc_prof_thread *hc_prof_thread(const struct hc_prof *p);
const char *hc_prof_path(const struct hc_prof *p);
size_t hc_prof_nmodules(const struct hc_prof *p);
size_t hc_prof_nnodes(const struct hc_prof *p);
size_t hc_prof_nevents(const struct hc_prof *p);
size_t hc_prof_nallocs(const struct hc_prof *p);
size_t hc_prof_nobjects(const struct hc_prof *p);
size_t hc_prof_ncounters(const struct hc_prof *p);
void hc_prof_module(const struct hc_prof *p, size_t i, struct hc_prof_module *out);
void hc_prof_node(const struct hc_prof *p, size_t i, struct hc_prof_node *out);
void hc_prof_event(const struct hc_prof *p, size_t i, struct hc_prof_event *out);
void hc_prof_alloc(const struct hc_prof *p, size_t i, struct hc_prof_alloc *out);
void hc_prof_object(const struct hc_prof *p, size_t i, struct hc_prof_object *out);
/* The object record of (event, side), by binary search: true and *out filled
   if there is one. */
bool hc_prof_object_find(const struct hc_prof *p, uint32_t event, uint32_t side,
                         struct hc_prof_object *out);
void hc_prof_counter(const struct hc_prof *p, size_t i, struct hc_prof_counter *out);
size_t hc_prof_npnodes(const struct hc_prof *p);
/* The page-node record of an event by binary search: true and *out filled
   if there is one (else *out = { event, -1, -1 }). */
bool hc_prof_pnode_find(const struct hc_prof *p, uint32_t event, struct hc_prof_pnode *out);
size_t hc_prof_nframes(const struct hc_prof *p);
void hc_prof_frame(const struct hc_prof *p, size_t i, struct hc_prof_frame *out);
/* Counter by name, 0 if absent. */
uint64_t hc_prof_counter_value(const struct hc_prof *p, const char *name);

#endif
