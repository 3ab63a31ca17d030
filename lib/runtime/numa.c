/* SPDX-License-Identifier: BSD-3-Clause */
/* numa.c — the NUMA node of the pages a communication touched
   (doc/runtime.md "NUMA nodes of sampled pages"), for the analyzer's
   locality view (HPCToolkit-NUMA style).

   When: only on a host with more than one NUMA node
   (/sys/devices/system/node/node1 exists) or when a page map is injected
   (HPCRUN_COMM_NUMA_MAP=FILE, for tests: multi-node hardware is not always
   at hand); HPCRUN_COMM_NUMA=0 turns it off. A one-node host records
   nothing and the analyzer says "single NUMA domain".

   How: move_pages(2) with nodes = NULL asks where a page is without moving
   it; it is a raw system call, async-signal-safe. A per-thread
   direct-mapped table (NUMA_CACHE pages, in the thread's arena, no malloc)
   keeps each answer for one window of NUMA_WINDOW_NS, so a page is looked
   up at most once per window and thread while it stays in the table. The
   nodes of both addresses of an event go into a per-event array parallel
   to the event buffer and out as the profile's PNOD section.

   The injected map is read once at start (outside signal context) into a
   fixed table: lines "LO HI NODE" (hex addresses, [LO, HI), decimal node),
   '#' comments; pages it covers take its node, others are asked of the
   kernel. Signal context: numa__note (from record__comm). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "runtime/rt.h"
#include "runtime/numa.h"

#define NUMA_CACHE      64                  /* pages per thread */
#define NUMA_WINDOW_NS  100000000ull        /* 100 ms */
#define NUMA_MAP_MAX    64                  /* ranges of an injected map */
#define PAGE_SHIFT      12

struct rt_numa_thread {
	struct {
		uint64_t page;                      /* page number + 1, 0 = empty */
		uint64_t window;
		int32_t node;
	} cache[NUMA_CACHE];
	uint32_t *pn;                               /* per event: (node + 1) | (peer node + 1) << 16 */
};

static struct {
	bool on;
	uint32_t nmap;
	struct { uint64_t lo, hi; int32_t node; } map[NUMA_MAP_MAX];
} numa;

static const char *parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	s = p;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
		        *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0)
			break;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return p == s ? NULL : p;
}

static void read_map(const char *path)
{
	static char buf[16384];
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *line, *save = NULL;
	unsigned lineno = 0;

	if (fd < 0)
		process__fatal("HPCRUN_COMM_NUMA_MAP: cannot open %s: %s", path, strerror(errno));
	while (len < (ssize_t)sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t lo, hi;
		const char *p = line;
		char *end;
		long node;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!(p = parse_hex(p, &lo)) || (*p != ' ' && *p != '\t'))
			goto bad;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!(p = parse_hex(p, &hi)) || (*p != ' ' && *p != '\t'))
			goto bad;
		node = strtol(p, &end, 10);
		if (end == p || node < 0 || node > HC_PNODE_MAX || hi <= lo)
			goto bad;
		if (numa.nmap == NUMA_MAP_MAX)
			process__fatal("HPCRUN_COMM_NUMA_MAP: %s: more than %d ranges", path, NUMA_MAP_MAX);
		numa.map[numa.nmap].lo = lo;
		numa.map[numa.nmap].hi = hi;
		numa.map[numa.nmap].node = (int32_t)node;
		numa.nmap++;
		continue;
bad:
		process__fatal("HPCRUN_COMM_NUMA_MAP: %s: line %u: expected \"LO HI NODE\" (hex addresses, "
		          "LO < HI, node 0..%d), found \"%.80s\"", path, lineno, HC_PNODE_MAX, line);
	}
}

void numa__init(void)
{
	const char *off = getenv("HPCRUN_COMM_NUMA");
	const char *map = getenv("HPCRUN_COMM_NUMA_MAP");

	numa.on = false;
	numa.nmap = 0;
	if (off && !strcmp(off, "0")) {
		process__log("NUMA page nodes: off (HPCRUN_COMM_NUMA=0)");
		return;
	}
	if (map && *map) {
		read_map(map);
		numa.on = true;
		process__log("NUMA page nodes: recorded, %u ranges injected from %s (HPCRUN_COMM_NUMA_MAP), "
		        "other pages asked with move_pages", numa.nmap, map);
		return;
	}
	if (access("/sys/devices/system/node/node1", F_OK) == 0) {
		numa.on = true;
		process__log("NUMA page nodes: recorded (move_pages, once per page and %llu ms window)",
		        (unsigned long long)(NUMA_WINDOW_NS / 1000000));
	} else {
		process__log("NUMA page nodes: not recorded (one NUMA node)");
	}
}

bool numa__on(void)
{
	return numa.on;
}

void numa__thread_start(struct rt_thread *t, uint32_t events_cap)
{
	t->numa = NULL;
	if (!numa.on)
		return;
	t->numa = hc_arena_alloc(&t->arena, sizeof *t->numa, 64);
	if (t->numa)
		t->numa->pn = hc_arena_alloc(&t->arena, (size_t)events_cap * sizeof *t->numa->pn, 64);
	if (t->numa && !t->numa->pn)
		t->numa = NULL;
	if (t->numa)
		memset(t->numa->cache, 0, sizeof t->numa->cache);
}

/* Signal context. */
static int32_t node_of(struct rt_numa_thread *n, uint64_t addr, uint64_t now)
{
	uint64_t page = addr >> PAGE_SHIFT, win = now / NUMA_WINDOW_NS;
	uint32_t slot = (uint32_t)((page * 0x9E3779B97F4A7C15ull) >> 58) % NUMA_CACHE;
	void *pages[1];
	int status[1] = { -1 };

	if (!addr)
		return -1;
	for (uint32_t i = 0; i < numa.nmap; i++)
		if (addr >= numa.map[i].lo && addr < numa.map[i].hi)
			return numa.map[i].node;
	if (n->cache[slot].page == page + 1 && n->cache[slot].window == win)
		return n->cache[slot].node;
	pages[0] = (void *)(page << PAGE_SHIFT);
	if (syscall(SYS_move_pages, 0, 1UL, pages, NULL, status, 0) != 0 || status[0] < 0 ||
	    status[0] > HC_PNODE_MAX)
		status[0] = -1;
	n->cache[slot].page = page + 1;
	n->cache[slot].window = win;
	n->cache[slot].node = status[0];
	return status[0];
}

void numa__note(struct rt_thread *t, uint32_t event, uint64_t addr, uint64_t peer_addr,
                   uint64_t now)
{
	struct rt_numa_thread *n = t->numa;
	int32_t a, b;

	if (!n)
		return;
	a = node_of(n, addr, now);
	b = node_of(n, peer_addr, now);
	n->pn[event] = (uint32_t)(a + 1) | (uint32_t)(b + 1) << 16;
}

int numa__write(struct hc_prof_writer *w, const struct rt_thread *t)
{
	const struct rt_numa_thread *n = t->numa;
	int ret;

	if (!n)
		return 0;
	ret = hc_prof_section_begin(w, HC_SEC_PNODES);
	for (uint32_t i = 0; !ret && i < t->events.n; i++) {
		struct hc_prof_pnode r;
		if (!n->pn[i])
			continue;
		r.event = i;
		r.node = (int32_t)(n->pn[i] & 0xffff) - 1;
		r.peer_node = (int32_t)(n->pn[i] >> 16) - 1;
		r.reserved = 0;
		ret = hc_prof_put_pnode(w, &r);
	}
	return ret ? ret : hc_prof_section_end(w);
}
