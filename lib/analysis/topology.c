/* SPDX-License-Identifier: BSD-3-Clause */
/* topology.c — where a CPU sits, from the hwloc XML the runtime saved for its
   host (topology-<hostid>.xml): for every PU (os_index = the CPU number the
   kernel reported in the events) its core (logical index within the host), its
   package (os_index) and its NUMA node (os_index, first node of its nodeset).
   The topology is loaded once, flattened into sorted arrays and closed, so the
   rest of the analyzer never calls hwloc. hwloc runs in a child process that
   sends the arrays back through a pipe: hwloc 2.9 crashes on some damaged
   files (a PU without complete_cpuset: NULL dereference in
   hwloc_topology_load, found by tests/fuzz), and a damaged file must be an
   error message, not a crashed analyzer. */
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/internal.h"

static int cmp_pu(const void *a, const void *b)
{
	const struct topo_pu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorted distinct values of an int list. */
static uint32_t uniq(int *v, uint32_t n)
{
	uint32_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_int);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int load_here(const char *xmlpath, struct topo **out, char *err, size_t errlen)
{
	hwloc_topology_t h;
	struct topo *t;
	int npu, ncore, i, ret = -EINVAL;

	*out = NULL;
	if (hwloc_topology_init(&h) < 0) {
		snprintf(err, errlen, "%s: cannot initialize hwloc", xmlpath);
		return -ENOMEM;
	}
	if (hwloc_topology_set_xml(h, xmlpath) < 0) {
		snprintf(err, errlen, "%s: not a usable hwloc XML file: %s", xmlpath, strerror(errno));
		goto out_h;
	}
	if (hwloc_topology_load(h) < 0) {
		snprintf(err, errlen, "%s: hwloc cannot load it: %s", xmlpath, strerror(errno));
		goto out_h;
	}
	npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	ncore = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	if (npu <= 0) {
		snprintf(err, errlen, "%s: the topology has no processing unit", xmlpath);
		goto out_h;
	}
	ret = -ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out_h;
	t->pu = calloc((size_t)npu, sizeof(*t->pu));
	t->sockets = calloc((size_t)npu, sizeof(*t->sockets));
	t->numas = calloc((size_t)npu, sizeof(*t->numas));
	if (!t->pu || !t->sockets || !t->numas) {
		topo__free(t);
		goto out_h;
	}
	for (i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
		int node = pu->nodeset ? hwloc_bitmap_first(pu->nodeset) : -1;

		t->pu[i].cpu = (int)pu->os_index;
		t->pu[i].core = core ? (int)core->logical_index : -1;
		t->pu[i].socket = pkg && pkg->os_index != HWLOC_UNKNOWN_INDEX ? (int)pkg->os_index : -1;
		t->pu[i].numa = node;
		if (t->pu[i].socket >= 0)
			t->sockets[t->nsockets++] = t->pu[i].socket;
		if (node >= 0)
			t->numas[t->nnuma++] = node;
	}
	t->npu = (uint32_t)npu;
	t->ncores = ncore > 0 ? (uint32_t)ncore : 0;
	qsort(t->pu, t->npu, sizeof(*t->pu), cmp_pu);
	t->nsockets = uniq(t->sockets, t->nsockets);
	t->nnuma = uniq(t->numas, t->nnuma);
	{
		/* The launcher's hwloc writes the host's name into the root's infos. */
		const char *hn = hwloc_obj_get_info_by_name(hwloc_get_root_obj(h), "HostName");
		snprintf(t->hostname, sizeof(t->hostname), "%s", hn ? hn : "");
	}
	*out = t;
	ret = 0;
out_h:
	hwloc_topology_destroy(h);
	return ret;
}

/* What the child sends: this header, then npu topo_pu, nsockets and nnuma ints. */
struct topo_msg {
	int ret;
	uint32_t npu, ncores, nsockets, nnuma;
	char err[512];
	char hostname[256];
};

/* All n bytes written (out) or read, through EINTR and short transfers;
   -1 on an error or end of file. */
static int xfer_all(int fd, char *c, size_t n, bool out)
{
	while (n) {
		ssize_t k = out ? write(fd, c, n) : read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	return xfer_all(fd, (char *)(uintptr_t)p, n, true);
}

static int read_all(int fd, void *p, size_t n)
{
	return xfer_all(fd, p, n, false);
}

static void __attribute__((noreturn)) child(int fd, const char *xmlpath)
{
	struct topo_msg m;
	struct topo *t = NULL;

	memset(&m, 0, sizeof(m));
	m.ret = load_here(xmlpath, &t, m.err, sizeof(m.err));
	if (m.ret == 0) {
		m.npu = t->npu;
		m.ncores = t->ncores;
		m.nsockets = t->nsockets;
		m.nnuma = t->nnuma;
		memcpy(m.hostname, t->hostname, sizeof(m.hostname));
	}
	if (write_all(fd, &m, sizeof(m)) < 0 ||
	    (m.ret == 0 && (write_all(fd, t->pu, m.npu * sizeof(*t->pu)) < 0 ||
	                    write_all(fd, t->sockets, m.nsockets * sizeof(int)) < 0 ||
	                    write_all(fd, t->numas, m.nnuma * sizeof(int)) < 0)))
		_exit(1);
	_exit(0);
}

int topo__load(const char *xmlpath, struct topo **out, char *err, size_t errlen)
{
	struct topo_msg m;
	struct topo *t = NULL;
	int fd[2], status, ret = -EINVAL, got;
	pid_t pid;

	*out = NULL;
	if (pipe2(fd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s: cannot read it: pipe: %s", xmlpath, strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read it: fork: %s", xmlpath, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return ret;
	}
	if (pid == 0) {
		close(fd[0]);
		child(fd[1], xmlpath);
	}
	close(fd[1]);
	got = read_all(fd[0], &m, sizeof(m)) == 0;
	if (got && m.ret == 0) {
		ret = -ENOMEM;
		t = calloc(1, sizeof(*t));
		if (t) {
			t->pu = calloc(m.npu ? m.npu : 1, sizeof(*t->pu));
			t->sockets = calloc(m.nsockets ? m.nsockets : 1, sizeof(int));
			t->numas = calloc(m.nnuma ? m.nnuma : 1, sizeof(int));
		}
		if (t && t->pu && t->sockets && t->numas &&
		    read_all(fd[0], t->pu, m.npu * sizeof(*t->pu)) == 0 &&
		    read_all(fd[0], t->sockets, m.nsockets * sizeof(int)) == 0 &&
		    read_all(fd[0], t->numas, m.nnuma * sizeof(int)) == 0) {
			t->npu = m.npu;
			t->ncores = m.ncores;
			t->nsockets = m.nsockets;
			t->nnuma = m.nnuma;
			memcpy(t->hostname, m.hostname, sizeof(t->hostname));
			t->hostname[sizeof(t->hostname) - 1] = '\0';
			ret = 0;
		} else if (t && t->pu && t->sockets && t->numas) {
			got = 0;   /* the child died half-way */
		}
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!got) {
		topo__free(t);
		if (WIFSIGNALED(status))
			snprintf(err, errlen, "%s: hwloc crashed reading it (signal %d): the file is "
			         "damaged", xmlpath, WTERMSIG(status));
		else
			snprintf(err, errlen, "%s: hwloc failed reading it (its process exited with "
			         "status %d): the file is damaged", xmlpath,
			         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -EINVAL;
	}
	if (ret) {
		topo__free(t);
		if (m.ret != 0) {
			snprintf(err, errlen, "%s", m.err);
			return m.ret;
		}
		snprintf(err, errlen, "%s: out of memory", xmlpath);
		return ret;
	}
	*out = t;
	return 0;
}

void topo__free(struct topo *t)
{
	if (!t)
		return;
	free(t->pu);
	free(t->sockets);
	free(t->numas);
	free(t);
}

const struct topo_pu *topo__pu(const struct topo *t, int cpu)
{
	struct topo_pu key = { .cpu = cpu };

	if (!t)
		return NULL;
	return bsearch(&key, t->pu, t->npu, sizeof(*t->pu), cmp_pu);
}
