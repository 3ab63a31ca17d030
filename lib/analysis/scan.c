/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.c — finding the inputs: the profiles, logs and topologies of each
   measurement directory, and what their file names say. Names follow
   HPCToolkit's convention and are parsed from the right, because the program
   name may itself contain '-':
     <exe>-<rank:06>-<thread:03>-<hostid:08x>-<pid>-<gen>.hcprof
     <exe>-<rank:06>-<hostid:08x>-<pid>-<gen>.log
     topology-<hostid:08x>.xml
   A profile whose name does not parse is still read (its header has the pid
   and thread); it belongs to host 00000000 and generation 0. Entries are
   processed in name order so that every run gives the same database. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/internal.h"

/* Take the last '-'-separated field of [s, *end): digits only (hex when hex),
   at least minlen long. On success *end points at its '-'. */
static bool take_field(const char *s, const char **end, bool hex, size_t minlen, size_t maxlen,
                       uint32_t *val)
{
	const char *e = *end, *b = e;
	uint64_t v = 0;
	const char *p;

	while (b > s && b[-1] != '-')
		b--;
	if (b == s || (size_t)(e - b) < minlen || (size_t)(e - b) > maxlen)
		return false;
	for (p = b; p < e; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		v = v * (hex ? 16 : 10) + (uint64_t)d;
		if (v > UINT32_MAX)
			return false;
	}
	*val = (uint32_t)v;
	*end = b - 1;   /* the '-' */
	return true;
}

static bool has_suffix(const char *s, const char *suf, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suf);

	if (n <= m || strcmp(s + n - m, suf) != 0)
		return false;
	*stem = n - m;
	return true;
}

static bool parse_name(const char *base, const char *suffix, bool with_thread, struct an_name *out)
{
	const char *end;
	size_t stem;

	memset(out, 0, sizeof(*out));
	if (!has_suffix(base, suffix, &stem))
		return false;
	end = base + stem;
	if (!take_field(base, &end, false, 1, 10, &out->gen) ||
	    !take_field(base, &end, false, 1, 10, &out->pid) ||
	    !take_field(base, &end, true, 8, 8, &out->hostid))
		return false;
	if (with_thread && !take_field(base, &end, false, 3, 10, &out->thread))
		return false;
	if (!take_field(base, &end, false, 6, 10, &out->rank))
		return false;
	if (end <= base)    /* empty program name */
		return false;
	out->ok = true;
	return true;
}

bool scan__parse_profile_name(const char *base, struct an_name *out)
{
	return parse_name(base, "." HC_PROF_SUFFIX, true, out);
}

bool scan__parse_log_name(const char *base, struct an_name *out)
{
	return parse_name(base, ".log", false, out);
}

bool scan__parse_topology_name(const char *base, uint32_t *hostid)
{
	const char *end;
	size_t stem;

	if (strncmp(base, "topology-", 9) != 0 || !has_suffix(base, ".xml", &stem))
		return false;
	end = base + stem;
	if (!take_field(base, &end, true, 8, 8, hostid))
		return false;
	return end == base + 8;
}

static int host_index(struct an *an, uint32_t id, uint32_t *out)
{
	uint32_t i;
	int ret;

	for (i = 0; i < an->nhosts; i++) {
		if (an->hosts[i].id == id) {
			*out = i;
			return 0;
		}
	}
	ret = an__grow(&an->hosts, &an->hostcap, an->nhosts + 1, sizeof(*an->hosts));
	if (ret)
		return ret;
	memset(&an->hosts[an->nhosts], 0, sizeof(an->hosts[0]));
	an->hosts[an->nhosts].id = id;
	*out = an->nhosts++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);
	char *p = malloc(n + m + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, n);
	p[n] = '/';
	memcpy(p + n + 1, name, m + 1);
	return p;
}

/* Topology files, remembered per host id until the hosts are known. */
struct topo_file {
	uint32_t id;
	char *path;
};

static int scan_dir(struct an *an, unsigned input, const char *dir, struct topo_file **tf,
                    uint32_t *ntf, uint32_t *tfcap)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	uint32_t n = 0, cap = 0, i;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		ret = an__grow(&names, &cap, n + 1, sizeof(*names));
		if (ret)
			goto out;
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);

	for (i = 0; i < n && !ret; i++) {
		struct an_name nm;
		size_t stem;
		uint32_t hid;

		if (has_suffix(names[i], "." HC_PROF_SUFFIX, &stem)) {
			struct an_prof *p;
			uint32_t host;
			bool mine = true;

			scan__parse_profile_name(names[i], &nm);
			ret = host_index(an, nm.ok ? nm.hostid : 0, &host);
			if (!ret && an->comm)
				ret = dist__owner(an, input, nm.ok ? nm.hostid : 0, &nm, &mine);
			if (ret)
				break;
			/* Distributed: the ranks but 0 keep their share only (rank 0
			   holds a record for every profile: the thread table). */
			if (!mine && an->comm->rank != 0) {
				an->nlisted++;
				continue;
			}
			ret = an__grow(&an->profs, &an->profcap, an->nprofs + 1, sizeof(*an->profs));
			if (ret)
				break;
			p = &an->profs[an->nprofs];
			memset(p, 0, sizeof(*p));
			p->path = join(dir, names[i]);
			if (!p->path) {
				ret = -ENOMEM;
				break;
			}
			p->input = input;
			p->host = host;
			p->host_id = nm.ok ? nm.hostid : 0;
			p->gen = nm.ok ? nm.gen : 0;
			p->name_pid = nm.ok ? nm.pid : 0;
			p->gthread = HC_NONE;
			p->start_lm = HC_NONE;
			p->gidx = an->nlisted++;
			p->remote = p->theirs = !mine;
			an->nprofs++;
		} else if (scan__parse_log_name(names[i], &nm)) {
			struct an_log *l;

			ret = an__grow(&an->logs, &an->logcap, an->nlogs + 1, sizeof(*an->logs));
			if (ret)
				break;
			l = &an->logs[an->nlogs];
			l->input = input;
			l->name = nm;
			l->path = join(dir, names[i]);
			if (!l->path) {
				ret = -ENOMEM;
				break;
			}
			an->nlogs++;
		} else if (scan__parse_topology_name(names[i], &hid)) {
			ret = an__grow(tf, tfcap, *ntf + 1, sizeof(**tf));
			if (ret)
				break;
			(*tf)[*ntf].id = hid;
			(*tf)[*ntf].path = join(dir, names[i]);
			if (!(*tf)[*ntf].path) {
				ret = -ENOMEM;
				break;
			}
			(*ntf)++;
		}
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

static int cmp_host(const void *a, const void *b)
{
	const struct an_host *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Hosts in id order; profiles follow their host. */
static int sort_hosts(struct an *an)
{
	uint32_t i;

	if (an->nhosts < 2)
		return 0;
	qsort(an->hosts, an->nhosts, sizeof(*an->hosts), cmp_host);
	/* Ids are unique: find each old index's new place by id. */
	for (i = 0; i < an->nprofs; i++) {
		uint32_t h;
		for (h = 0; h < an->nhosts; h++)
			if (an->hosts[h].id == an->profs[i].host_id)
				break;
		an->profs[i].host = h;
	}
	return 0;
}

int scan__inputs(struct an *an, uint32_t *ndirs_ok)
{
	struct topo_file *tf = NULL;
	uint32_t ntf = 0, tfcap = 0, i, h;
	size_t k;
	int ret = 0;

	*ndirs_ok = 0;
	for (k = 0; k < an->o->ninputs; k++) {
		const char *dir = an->o->inputs[k];
		struct stat st;

		if (stat(dir, &st) < 0) {
			if (an->o->diag)
				fprintf(an->o->diag, "hpcprof-comm: %s: %s\n", dir, strerror(errno));
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (an->o->diag)
				fprintf(an->o->diag, "hpcprof-comm: %s: not a directory (expected a "
				        "measurement directory)\n", dir);
			continue;
		}
		ret = scan_dir(an, (unsigned)k, dir, &tf, &ntf, &tfcap);
		if (ret == -ENOMEM)
			goto out;
		if (ret) {
			if (an->o->diag)
				fprintf(an->o->diag, "hpcprof-comm: %s: cannot list: %s\n", dir,
				        strerror(-ret));
			ret = 0;
			continue;
		}
		(*ndirs_ok)++;
	}
	ret = sort_hosts(an);
	if (ret)
		goto out;
	/* First topology file per host, in input order. */
	for (h = 0; h < an->nhosts; h++) {
		for (i = 0; i < ntf; i++) {
			if (tf[i].id == an->hosts[h].id) {
				an->hosts[h].topo_path = tf[i].path;
				tf[i].path = NULL;
				break;
			}
		}
	}
out:
	for (i = 0; i < ntf; i++)
		free(tf[i].path);
	free(tf);
	return ret;
}
