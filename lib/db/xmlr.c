/* SPDX-License-Identifier: BSD-3-Clause */
/* xmlr.c — a thin wrapper over libxml2's streaming xmlTextReader for the
   database's XML files: it steps from element start to element start, keeps
   the names of the enclosing elements (so a loader can ask "is this <Matrix>
   inside <Matrices>?"), turns libxml2's own errors into "FILE:LINE: message"
   through a per-reader handler (no global libxml2 state is touched), and reads
   attributes with the checks the format promises: required ones present,
   integers in plain decimal. No network access (XML_PARSE_NONET), no entity
   expansion, deep trees allowed (XML_PARSE_HUGE: calling contexts nest as
   deep as the program's recursion). No signal context. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/xmlreader.h>

#include "db/internal.h"

struct xr {
	xmlTextReaderPtr r;
	struct load *ld;
	int fd;
	char **names;          /* element names by depth */
	size_t nnames, cap;
	int depth;
	bool root_closed;      /* the end tag of the root element was read */
	int pending;           /* xr__skip read ahead: xmlTextReaderNext's result, 0 none */
	char xmlerr[512];      /* first libxml2 error */
	long xmlerr_line;
};

static void on_error(void *arg, const char *msg, xmlParserSeverities sev,
                     xmlTextReaderLocatorPtr loc)
{
	struct xr *x = arg;
	size_t n;

	if (sev == XML_PARSER_SEVERITY_WARNING || sev == XML_PARSER_SEVERITY_VALIDITY_WARNING)
		return;
	if (x->xmlerr[0])
		return;
	snprintf(x->xmlerr, sizeof(x->xmlerr), "%s", msg ? msg : "malformed XML");
	n = strlen(x->xmlerr);
	while (n && (x->xmlerr[n - 1] == '\n' || x->xmlerr[n - 1] == ' '))
		x->xmlerr[--n] = 0;
	x->xmlerr_line = loc ? xmlTextReaderLocatorLineNumber(loc) : 0;
}

/* libxml2 reports some errors (encoding conversion, I/O) through its global
   generic handler, which prints to stderr; keep the first one as the file's
   error instead. The viewer reads one file at a time, in one thread. */
static void HC_PRINTF(2, 3) on_generic_error(void *arg, const char *fmt, ...)
{
	struct xr *x = arg;
	va_list ap;
	size_t n;

	if (!x || x->xmlerr[0])
		return;
	va_start(ap, fmt);
	vsnprintf(x->xmlerr, sizeof(x->xmlerr), fmt, ap);
	va_end(ap);
	n = strlen(x->xmlerr);
	while (n && (x->xmlerr[n - 1] == '\n' || x->xmlerr[n - 1] == ' '))
		x->xmlerr[--n] = 0;
}

/* A database file has no document type declaration, and one is the only
   place entities can be declared: refuse it, so that no entity expansion
   (a "billion laughs" file asks for gigabytes) reaches libxml2, whose limits
   XML_PARSE_HUGE lifts (we need it for deep calling-context trees). The
   prolog is scanned up to the root element's start tag; the parser is told
   the file is UTF-8, so no other encoding can hide the declaration. */
static int check_prolog(struct xr *x)
{
	char buf[4096 + 16];
	size_t keep = 0;
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(x->fd, buf + keep, sizeof(buf) - 16 - keep, off);
		size_t len, i;

		if (n < 0)
			return load__errno(x->ld, errno);
		if (n == 0)
			return 0;   /* no root element: the parser says so */
		len = keep + (size_t)n;
		for (i = 0; i + 1 < len; i++) {
			unsigned char c = (unsigned char)buf[i + 1];

			if (buf[i] != '<')
				continue;
			if (c == '_' || c == ':' || (unsigned)((c | 0x20) - 'a') < 26u || c >= 0x80)
				return 0;   /* the root element: end of the prolog */
			if (len - i >= 9 && memcmp(buf + i, "<!DOCTYPE", 9) == 0)
				return load__fail(x->ld, 0, "has a document type declaration "
				                   "(<!DOCTYPE>): not an hpcprof-comm database file");
		}
		off += n;
		if (off > (1 << 20))
			return load__fail(x->ld, 0, "no root element in the first MiB");
		/* keep the last 8 bytes: a "<!DOCTYPE" may straddle two reads */
		keep = len < 8 ? len : 8;
		memmove(buf, buf + len - keep, keep);
	}
}

int xr__open(struct xr **out, struct load *ld, const char *rel, bool missing_ok)
{
	struct xr *x;
	const char *path = load__file(ld, rel);
	int rc;

	*out = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->ld = ld;
	x->depth = -1;
	x->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0) {
		int e = errno;
		free(x);
		if (e == ENOENT && missing_ok)
			return -ENOENT;
		return load__errno(ld, e);
	}
	if ((rc = check_prolog(x))) {
		close(x->fd);
		free(x);
		return rc;
	}
	xmlSetGenericErrorFunc(x, on_generic_error);
	x->r = xmlReaderForFd(x->fd, path, "UTF-8",
	                      XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_BIG_LINES |
	                      XML_PARSE_NOBLANKS);
	if (!x->r) {
		xmlSetGenericErrorFunc(NULL, NULL);
		close(x->fd);
		free(x);
		return load__fail(ld, 0, "cannot start the XML parser");
	}
	xmlTextReaderSetErrorHandler(x->r, on_error, x);
	*out = x;
	return 0;
}

void xr__close(struct xr *x)
{
	if (!x)
		return;
	xmlFreeTextReader(x->r);
	xmlSetGenericErrorFunc(NULL, NULL);
	close(x->fd);
	for (size_t i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x);
}

/* Does the file end (trailing white space aside) with the root's end tag?
   Then the document is not cut short but has something after its root (the
   reader reads ahead, so root_closed may not be set yet). */
static bool ends_with_root(struct xr *x)
{
	char tail[256], want[256];
	off_t size = lseek(x->fd, 0, SEEK_END);
	ssize_t n;
	size_t w;

	if (x->nnames == 0 || size <= 0)
		return false;
	n = pread(x->fd, tail, sizeof(tail), size > (off_t)sizeof(tail) ? size - (off_t)sizeof(tail) : 0);
	while (n > 0 && tail[n - 1] && strchr(" \t\r\n", tail[n - 1]))
		n--;
	snprintf(want, sizeof(want), "</%s>", x->names[0]);
	w = strlen(want);
	return n >= (ssize_t)w && memcmp(tail + n - w, want, w) == 0;
}

static int parse_error(struct xr *x)
{
	/* libxml2's reader calls a document that stops early "Extra content at
	   the end of the document"; say what it is. */
	if (!x->root_closed && strstr(x->xmlerr, "Extra content at the end") && !ends_with_root(x)) {
		if (x->nnames == 0)
			return load__fail(x->ld, 0, "no root element (empty or cut-short file)");
		return load__fail(x->ld, xmlTextReaderGetParserLineNumber(x->r),
		                   "truncated XML: the document ends inside <%s> (file cut short?)",
		                   x->names[0]);
	}
	if (x->xmlerr[0])
		return load__fail(x->ld, x->xmlerr_line, "malformed XML: %s", x->xmlerr);
	return load__fail(x->ld, xmlTextReaderGetParserLineNumber(x->r),
	                   "malformed or truncated XML");
}

int xr__next(struct xr *x)
{
	for (;;) {
		int rc = x->pending ? x->pending : xmlTextReaderRead(x->r);
		int d;

		x->pending = 0;

		if (rc < 0 || x->xmlerr[0])
			return parse_error(x);
		if (rc == 0) {
			/* a well-formed end: the root element must have been seen */
			if (x->nnames == 0)
				return load__fail(x->ld, 0, "empty document (no root element)");
			return 0;
		}
		if (xmlTextReaderNodeType(x->r) == XML_READER_TYPE_END_ELEMENT &&
		    xmlTextReaderDepth(x->r) == 0)
			x->root_closed = true;
		if (xmlTextReaderNodeType(x->r) != XML_READER_TYPE_ELEMENT)
			continue;
		d = xmlTextReaderDepth(x->r);
		if (d < 0)
			return parse_error(x);
		if (load__grow(&x->names, &x->cap, (size_t)d, sizeof(*x->names)))
			return -ENOMEM;
		for (size_t i = (size_t)d; i < x->nnames; i++) {
			free(x->names[i]);
			x->names[i] = NULL;
		}
		x->names[d] = load__strdup((const char *)xmlTextReaderConstName(x->r));
		if (!x->names[d])
			return -ENOMEM;
		x->nnames = (size_t)d + 1;
		x->depth = d;
		return 1;
	}
}

int xr__skip(struct xr *x)
{
	int rc = xmlTextReaderNext(x->r);

	if (rc < 0 || x->xmlerr[0])
		return parse_error(x);
	/* rc 0: the document ended; xr__next reads once more and sees the end */
	x->pending = rc == 1 ? 1 : 0;
	return 0;
}

const char *xr__name(struct xr *x)
{
	return x->names[x->depth];
}

const char *xr__parent(struct xr *x)
{
	return x->depth > 0 ? x->names[x->depth - 1] : "";
}

int xr__depth(struct xr *x)
{
	return x->depth;
}

/* The line of the current element's start tag (the parser itself may have
   read further ahead). */
long xr__line(struct xr *x)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(x->r);
	long l = n ? xmlGetLineNo(n) : -1;

	return l > 0 ? l : xmlTextReaderGetParserLineNumber(x->r);
}

bool xr__has(struct xr *x, const char *attr)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, (const xmlChar *)attr);
	bool has = v != NULL;

	xmlFree(v);
	return has;
}

int xr__u64_opt(struct xr *x, const char *attr, uint64_t *v, bool *found)
{
	xmlChar *s = xmlTextReaderGetAttribute(x->r, (const xmlChar *)attr);
	int rc = 0;

	if (found)
		*found = s != NULL;
	if (!s)
		return 0;
	if (!load__parse_u64((const char *)s, v))
		rc = load__fail(x->ld, xr__line(x),
		                 "<%s %s=\"%.40s\">: expected a non-negative decimal integer",
		                 xr__name(x), attr, (const char *)s);
	xmlFree(s);
	return rc;
}

int xr__u64(struct xr *x, const char *attr, uint64_t *v)
{
	bool found;
	int rc = xr__u64_opt(x, attr, v, &found);

	if (rc)
		return rc;
	if (!found)
		return load__fail(x->ld, xr__line(x), "<%s> lacks the required attribute '%s'",
		                   xr__name(x), attr);
	return 0;
}

int xr__i64_opt(struct xr *x, const char *attr, int64_t *v)
{
	uint64_t u = 0;
	bool found;
	int rc = xr__u64_opt(x, attr, &u, &found);

	if (rc)
		return rc;
	if (found && u > INT64_MAX)
		return load__fail(x->ld, xr__line(x), "<%s %s>: value too large", xr__name(x), attr);
	*v = found ? (int64_t)u : -1;
	return 0;
}

int xr__str_opt(struct xr *x, const char *attr, char **s)
{
	xmlChar *v = xmlTextReaderGetAttribute(x->r, (const xmlChar *)attr);

	*s = NULL;
	if (!v)
		return 0;
	*s = load__strdup((const char *)v);
	xmlFree(v);
	return *s ? 0 : -ENOMEM;
}

int xr__str(struct xr *x, const char *attr, char **s)
{
	int rc = xr__str_opt(x, attr, s);

	if (rc)
		return rc;
	if (!*s)
		return load__fail(x->ld, xr__line(x), "<%s> lacks the required attribute '%s'",
		                   xr__name(x), attr);
	return 0;
}

int xr__text(struct xr *x, char **s)
{
	xmlChar *v = xmlTextReaderReadString(x->r);

	*s = load__strdup(v ? (const char *)v : "");
	xmlFree(v);
	return *s ? 0 : -ENOMEM;
}
