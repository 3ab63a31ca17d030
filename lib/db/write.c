/* SPDX-License-Identifier: BSD-3-Clause */
/* write.c — the database directory as a whole, for its one writer
   (hpcprof-comm through lib/analysis): the whole database is written into a
   staging directory next to the target and renamed into place at the end
   (renameat2 RENAME_NOREPLACE), so a failed run leaves no half-written
   database and an existing one is never silently replaced: --force replaces
   only an earlier database (it has database.xml) or an empty directory. The
   files inside are written by write_*.c (db/write.h) with lib/support/out.h;
   the small helpers they share are at the end. No signal context. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "db/write.h"
#include "support/fmt.h"
#include "support/out.h"


static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

/* An existing path that --force may replace: a directory that is empty or
   holds database.xml. */
static bool replaceable(const char *path)
{
	struct stat st;
	char *meta;
	size_t n;
	bool ok;
	int fd;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	n = strlen(path) + sizeof("/" HC_DB_META);
	meta = malloc(n);
	if (!meta)
		return false;
	snprintf(meta, n, "%s/%s", path, HC_DB_META);
	ok = access(meta, F_OK) == 0;
	free(meta);
	if (!ok) {
		/* Empty: rmdir would succeed; test without removing. */
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			DIR *d = fdopendir(fd);
			struct dirent *e;
			ok = true;
			if (!d) {
				close(fd);
				return false;
			}
			while ((e = readdir(d)) != NULL)
				if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
					ok = false;
			closedir(d);
		}
	}
	return ok;
}

int hc_db_check_target(const char *outdir, bool force, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(outdir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot use output %s: %s", outdir, strerror(errno));
		return -errno;
	}
	if (!force) {
		snprintf(err, errlen, "output %s already exists; not overwriting it "
		         "(choose another name with -o, or replace it with --force)", outdir);
		return -EEXIST;
	}
	if (!replaceable(outdir)) {
		snprintf(err, errlen, "output %s exists and is neither an hpcprof-comm database "
		         "nor an empty directory; refusing to replace it, even with --force", outdir);
		return -EEXIST;
	}
	return 0;
}

int hc_db_stage(const char *outdir, char **stage, char *err, size_t errlen)
{
	size_t n = strlen(outdir) + 32;
	char *s = malloc(n), *m;
	int e;

	*stage = NULL;
	if (!s)
		return -ENOMEM;
	snprintf(s, n, "%s.tmp-%ld", outdir, (long)getpid());
	if (mkdir(s, 0777) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create the output directory next to %s (%s): %s",
		         outdir, s, strerror(e));
		free(s);
		return -e;
	}
	n = strlen(s) + sizeof("/" HC_DB_MATRICES);
	m = malloc(n);
	if (!m) {
		rm_tree(s);
		free(s);
		return -ENOMEM;
	}
	snprintf(m, n, "%s/%s", s, HC_DB_MATRICES);
	if (mkdir(m, 0777) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create %s: %s", m, strerror(e));
		free(m);
		rm_tree(s);
		free(s);
		return -e;
	}
	free(m);
	*stage = s;
	return 0;
}

void hc_db_discard(const char *stage)
{
	if (stage)
		rm_tree(stage);
}

int hc_db_commit(const char *stage, const char *outdir, bool force, char *err, size_t errlen)
{
	size_t n;
	char *old;
	int e;

	if (renameat2(AT_FDCWD, stage, AT_FDCWD, outdir, RENAME_NOREPLACE) == 0)
		return 0;
	e = errno;
	if (e == EINVAL || e == ENOSYS) {
		/* File system without RENAME_NOREPLACE: check, then rename. */
		if (access(outdir, F_OK) != 0 && rename(stage, outdir) == 0)
			return 0;
		e = errno == ENOENT ? EEXIST : errno;
	}
	if (e != EEXIST && e != ENOTEMPTY) {
		snprintf(err, errlen, "cannot move the database into place as %s: %s", outdir,
		         strerror(e));
		return -e;
	}
	e = hc_db_check_target(outdir, force, err, errlen);
	if (e)
		return e;
	n = strlen(outdir) + 32;
	old = malloc(n);
	if (!old)
		return -ENOMEM;
	snprintf(old, n, "%s.old-%ld", outdir, (long)getpid());
	if (rename(outdir, old) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot replace %s: %s", outdir, strerror(e));
		free(old);
		return -e;
	}
	if (rename(stage, outdir) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot move the database into place as %s: %s", outdir,
		         strerror(e));
		rename(old, outdir);
		free(old);
		return -e;
	}
	rm_tree(old);
	free(old);
	return 0;
}

/* ---- shared by the file writers (db/write.h) ---- */

void hc_db_attr_str(struct hc_out *o, const char *name, const char *v)
{
	hc_out_printf(o, " %s=\"", name);
	hc_out_xml(o, v);
	hc_out_puts(o, "\"");
}

void hc_db_attr_u64(struct hc_out *o, const char *name, uint64_t v)
{
	char b[24];

	hc_out_printf(o, " %s=\"%s\"", name, hc_fmt_u64(b, v));
}

const char hc_db_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Appends s (NUL-terminated) at p; returns the new end. */
static char *put(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* Without printf: a phase's cells and the objects' rows call this millions
   of times on large inputs (doc/performance.md). */
void hc_db_attr_vol(struct hc_out *o, uint64_t t, uint64_t f)
{
	char line[128], b[24], *p = line;

	p = put(p, " all=\"");
	p = put(p, hc_fmt_u64(b, t + f));
	p = put(p, "\" true=\"");
	p = put(p, hc_fmt_u64(b, t));
	p = put(p, "\" false=\"");
	p = put(p, hc_fmt_u64(b, f));
	p = put(p, "\"");
	*p = '\0';
	hc_out_puts(o, line);
}

void hc_db_put_samplers(struct hc_out *o, uint32_t samplers)
{
	int b, e;

	for (b = 0, e = 0; b <= HC_SAMPLER_LAST; b++)
		if (samplers & (1u << b))
			hc_out_printf(o, "%s%s", e++ ? " " : "", hc_db_sampler_name(b));
}

int hc_db_xml_open(struct hc_out *o, const char *dir, const char *name, const char *root, char *err,
                   size_t errlen)
{
	int ret = hc_out_open(o, dir, name, err, errlen);

	if (ret)
		return ret;
	hc_out_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	hc_out_printf(o, "<%s version=\"%d\" generator=\"hpcprof-comm %s\">\n", root, HC_DB_VERSION,
	              PACKAGE_VERSION);
	return 0;
}

int hc_db_write_file(const char *dir, const char *name, const char *buf, size_t len, char *err,
                     size_t errlen)
{
	struct hc_out f;
	int ret = hc_out_open(&f, dir, name, err, errlen);

	if (ret)
		return ret;
	if (len && fwrite(buf, 1, len, f.f) != len)
		f.err = errno ? errno : EIO;
	return hc_out_close(&f, true, err, errlen);
}
