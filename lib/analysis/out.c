/* SPDX-License-Identifier: BSD-3-Clause */
/* out.c — writing the database safely. Files are buffered streams that
   remember their first error and report it with the path at close. The whole
   database is written into a staging directory next to the target and renamed
   into place at the end (renameat2 RENAME_NOREPLACE), so a failed run leaves
   no half-written database and an existing one is never silently replaced:
   --force replaces only an earlier database (it has database.xml) or an empty
   directory. Text that reaches XML or CSV is escaped here and made valid
   UTF-8 (invalid bytes become '?'). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/internal.h"

#define OUT_BUF (1u << 20)

int out__open(struct out *o, const char *dir, const char *name, char *err, size_t errlen)
{
	size_t n = strlen(dir) + strlen(name) + 2;

	memset(o, 0, sizeof(*o));
	o->path = malloc(n);
	if (!o->path) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(o->path, n, "%s/%s", dir, name);
	o->f = fopen(o->path, "we");
	if (!o->f) {
		int e = errno;
		snprintf(err, errlen, "cannot create %s: %s", o->path, strerror(e));
		free(o->path);
		o->path = NULL;
		return -e;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

static void note(struct out *o, int r)
{
	if (r < 0 && !o->err)
		o->err = errno ? errno : EIO;
}

int out__close(struct out *o, char *err, size_t errlen)
{
	int e = o->err;

	if (!o->f)
		return 0;
	if (fflush(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	if (ferror(o->f) && !e)
		e = EIO;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (e)
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
	free(o->path);
	o->path = NULL;
	return e ? -e : 0;
}

void out__puts(struct out *o, const char *s)
{
	if (fputs_unlocked(s, o->f) == EOF)
		note(o, -1);
}

void out__printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(o->f, fmt, ap);
	va_end(ap);
	note(o, r);
}

char *out__fmt_u64(char buf[24], uint64_t v)
{
	char *p = buf + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void out__u64(struct out *o, uint64_t v)
{
	char buf[24];

	out__puts(o, out__fmt_u64(buf, v));
}

/* Length of the valid UTF-8 sequence (allowed in XML 1.0) at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		/* U+FFFE and U+FFFF are not XML characters. */
		if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

void out__utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);
		if (n == 0) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

void out__xml(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[256];
	size_t b = 0;

	while (*p) {
		const char *rep = NULL;
		size_t n = utf8_len(p);

		if (b + 8 >= sizeof(buf)) {
			buf[b] = '\0';
			out__puts(o, buf);
			b = 0;
		}
		if (n == 0) {
			buf[b++] = '?';
			p++;
			continue;
		}
		if (n > 1) {
			memcpy(buf + b, p, n);
			b += n;
			p += n;
			continue;
		}
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		case '\t': rep = "&#9;"; break;
		case '\n': rep = "&#10;"; break;
		case '\r': rep = "&#13;"; break;
		default:
			break;
		}
		if (rep) {
			size_t m = strlen(rep);
			memcpy(buf + b, rep, m);
			b += m;
		} else {
			/* Other C0 controls are not XML characters. */
			buf[b++] = *p < 0x20 ? '?' : (char)*p;
		}
		p++;
	}
	buf[b] = '\0';
	out__puts(o, buf);
}

void out__csv(struct out *o, const char *s)
{
	char *c = strdup(s), *p;

	if (!c) {
		note(o, -1);
		return;
	}
	out__utf8_fix(c);
	if (strpbrk(c, ",\"\r\n") == NULL) {
		out__puts(o, c);
		free(c);
		return;
	}
	out__puts(o, "\"");
	for (p = c; *p; p++) {
		if (*p == '"')
			out__puts(o, "\"\"");
		else if (fputc_unlocked(*p, o->f) == EOF)
			note(o, -1);
	}
	out__puts(o, "\"");
	free(c);
}

/* ---- the database directory ---- */

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

int out__check_target(const char *outdir, bool force, char *err, size_t errlen)
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

int out__stage(const char *outdir, char **stage, char *err, size_t errlen)
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

void out__discard(const char *stage)
{
	if (stage)
		rm_tree(stage);
}

int out__commit(const char *stage, const char *outdir, bool force, char *err, size_t errlen)
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
	e = out__check_target(outdir, force, err, errlen);
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
