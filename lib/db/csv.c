/* SPDX-License-Identifier: BSD-3-Clause */
/* csv.c — RFC 4180 records from a whole file held in memory (the database's
   CSV files are small next to experiment.xml: a 256-thread matrix is under a
   megabyte). Fields are unquoted in place ("" inside quotes becomes ") and
   NUL-terminated, so a record is an array of pointers into the buffer. Every
   record must end with "\n", as the format says; a missing final newline or
   an unterminated quote means the file was cut short. No signal context. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/internal.h"

int csv__open(struct csv *c, struct load *ld, const char *rel)
{
	const char *path = load__file(ld, rel);
	struct stat st;
	size_t got = 0;
	int fd, e;

	memset(c, 0, sizeof(*c));
	c->next_line = 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load__errno(ld, errno);
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return load__errno(ld, e);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return load__fail(ld, 0, "not a regular file");
	}
	c->buf = malloc((size_t)st.st_size + 1);
	if (!c->buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, c->buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			close(fd);
			csv__close(c);
			return load__errno(ld, e);
		}
		got += (size_t)r;
	}
	close(fd);
	c->buf[got] = 0;
	c->len = got;
	if (memchr(c->buf, 0, got)) {
		csv__close(c);
		return load__fail(ld, 0, "contains a NUL byte (not a text file)");
	}
	return 0;
}

void csv__close(struct csv *c)
{
	free(c->buf);
	free(c->f);
	memset(c, 0, sizeof(*c));
}

static int push_field(struct csv *c, char *f)
{
	if (load__grow(&c->f, &c->cap, c->nf, sizeof(*c->f)))
		return -ENOMEM;
	c->f[c->nf++] = f;
	return 0;
}

int csv__next(struct csv *c, struct load *ld)
{
	char *p, *end = c->buf + c->len;

	c->nf = 0;
	if (c->pos >= c->len)
		return 0;
	c->line = c->next_line;
	p = c->buf + c->pos;
	for (;;) {
		char *start = p, *w = p;

		if (p < end && *p == '"') {
			p++;
			for (;;) {
				if (p >= end)
					return load__fail(ld, c->line, "unterminated quoted field "
					                   "(file cut short?)");
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*w++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if (*p == '\n')
					c->next_line++;
				*w++ = *p++;
			}
			if (p < end && *p != ',' && *p != '\n')
				return load__fail(ld, c->line, "text after a closing quote");
		} else {
			while (p < end && *p != ',' && *p != '\n') {
				if (*p == '"')
					return load__fail(ld, c->line, "quote inside an unquoted field");
				p++;
			}
			w = p;
		}
		if (p >= end)
			return load__fail(ld, c->line, "last line does not end with a newline "
			                   "(file cut short?)");
		{
			char sep = *p;
			*w = 0;
			if (push_field(c, start))
				return -ENOMEM;
			p++;
			if (sep == '\n')
				break;
		}
	}
	/* a CR before LF belongs to no field */
	if (c->nf && c->f[c->nf - 1][0]) {
		char *last = c->f[c->nf - 1];
		size_t n = strlen(last);
		if (last[n - 1] == '\r')
			last[n - 1] = 0;
	}
	c->next_line++;
	c->pos = (size_t)(p - c->buf);
	return 1;
}
