/* SPDX-License-Identifier: BSD-3-Clause */
/* fixture.c — see fixture.h: synthetic measurement directories written with
   the real profile writer, hwloc synthetic topologies, and readers/validators
   for the database the analyzer writes. Test code only. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xmlschemas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fixture: %s: %s\n", what, detail);
	exit(99);   /* automake: hard error */
}

char *fx_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	if (!p)
		die("malloc", "out of memory");
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

char *fx_tmpdir(const char *tag)
{
	const char *t = getenv("TMPDIR");
	char tmpl[4096];
	char *d;

	snprintf(tmpl, sizeof(tmpl), "%s/hc-%s-XXXXXX", t && *t ? t : "/tmp", tag);
	d = mkdtemp(tmpl);
	if (!d)
		die("mkdtemp", strerror(errno));
	return strdup(d);
}

void fx_mkdir(const char *path)
{
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		die(path, strerror(errno));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	chmod(path, 0700);
	return remove(path) < 0 ? -1 : 0;
}

void fx_rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *fx_write_profile(const char *dir, const struct fx_prof *p)
{
	static uint8_t buf[1 << 16];
	struct hc_prof_writer w;
	char name[512];
	const char *exe = strrchr(p->th.exe, '/');
	char *path;
	size_t i;
	int fd, r = 0;

	exe = exe ? exe + 1 : p->th.exe;
	snprintf(name, sizeof(name), "%s-%06u-%03u-%08x-%u-%u.%s", exe, p->th.rank, p->th.index, p->hostid,
	         p->th.pid, p->gen, HC_PROF_SUFFIX);
	path = fx_join(dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path, strerror(errno));
	r |= hc_prof_writer_init(&w, fd, buf, sizeof(buf), &p->th);
	r |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
	for (i = 0; i < p->nmods; i++)
		r |= hc_prof_put_module(&w, &p->mods[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_CCT);
	for (i = 0; i < p->nnodes; i++)
		r |= hc_prof_put_node(&w, &p->nodes[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (i = 0; i < p->nevs; i++)
		r |= hc_prof_put_event(&w, &p->evs[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_COUNTERS);
	for (i = 0; i < p->ncnts; i++)
		r |= hc_prof_put_counter(&w, p->cnts[i].name, p->cnts[i].value);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_writer_finish(&w);
	if (r)
		die(path, "the profile writer failed");
	close(fd);
	return path;
}

void fx_write_topology(const char *dir, uint32_t hostid, const char *synthetic)
{
	hwloc_topology_t t;
	char name[64], *path;

	snprintf(name, sizeof(name), "topology-%08x.xml", hostid);
	path = fx_join(dir, name);
	if (hwloc_topology_init(&t) < 0 || hwloc_topology_set_synthetic(t, synthetic) < 0 ||
	    hwloc_topology_load(t) < 0 || hwloc_topology_export_xml(t, path, 0) < 0)
		die(path, "hwloc cannot build or export the synthetic topology");
	hwloc_topology_destroy(t);
	free(path);
}

void fx_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		die(path, strerror(errno));
}

char *fx_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536 * 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("realloc", "out of memory");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

bool fx_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool parse_u64(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		x = x * 10 + (uint64_t)(*p++ - '0');
	*s = p;
	*v = x;
	return true;
}

bool fx_read_matrix(const char *path, struct fx_matrix *m)
{
	char *text = fx_read(path, NULL);
	const char *p;
	uint64_t v;
	uint32_t n = 0, i, j;

	memset(m, 0, sizeof(*m));
	if (!text) {
		snprintf(m->why, sizeof(m->why), "cannot read %s", path);
		return false;
	}
	/* Header: ",0,1,...,N-1\n" */
	p = text;
	while (*p == ',') {
		p++;
		if (!parse_u64(&p, &v) || v != n) {
			snprintf(m->why, sizeof(m->why), "header column %u is not %u", n, n);
			goto out;
		}
		n++;
	}
	if (*p != '\n' || n == 0) {
		snprintf(m->why, sizeof(m->why), "header does not end after %u columns", n);
		goto out;
	}
	p++;
	m->n = n;
	m->v = calloc((size_t)n * n, sizeof(*m->v));
	for (i = 0; i < n; i++) {
		if (!parse_u64(&p, &v) || v != i) {
			snprintf(m->why, sizeof(m->why), "row %u does not start with its index", i);
			goto out;
		}
		for (j = 0; j < n; j++) {
			if (*p != ',' ) {
				snprintf(m->why, sizeof(m->why), "row %u has fewer than %u values", i, n);
				goto out;
			}
			p++;
			if (!parse_u64(&p, &m->v[(size_t)i * n + j])) {
				snprintf(m->why, sizeof(m->why), "row %u column %u is not a plain number", i, j);
				goto out;
			}
		}
		if (*p != '\n') {
			snprintf(m->why, sizeof(m->why), "row %u has more than %u values", i, n);
			goto out;
		}
		p++;
	}
	if (*p) {
		snprintf(m->why, sizeof(m->why), "text after the last row");
		goto out;
	}
	m->ok = true;
out:
	free(text);
	return m->ok;
}

void fx_free_matrix(struct fx_matrix *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

char *fx_doc(const char *name)
{
	const char *src = getenv("HC_SRCDIR");
	char *d, *p;

	d = fx_join(src && *src ? src : ".", "doc");
	p = fx_join(d, name);
	free(d);
	return p;
}

int fx_validate(const char *xml, const char *xsd)
{
	xmlSchemaParserCtxtPtr pc;
	xmlSchemaValidCtxtPtr vc;
	xmlSchemaPtr schema;
	xmlDocPtr doc;
	int ret;

	pc = xmlSchemaNewParserCtxt(xsd);
	schema = pc ? xmlSchemaParse(pc) : NULL;
	if (!schema) {
		fprintf(stderr, "fixture: cannot parse schema %s\n", xsd);
		if (pc)
			xmlSchemaFreeParserCtxt(pc);
		return -1;
	}
	doc = xmlReadFile(xml, NULL, XML_PARSE_NONET);
	if (!doc) {
		fprintf(stderr, "fixture: %s is not well-formed XML\n", xml);
		xmlSchemaFree(schema);
		xmlSchemaFreeParserCtxt(pc);
		return -1;
	}
	vc = xmlSchemaNewValidCtxt(schema);
	ret = vc ? xmlSchemaValidateDoc(vc, doc) : -1;
	if (ret != 0)
		fprintf(stderr, "fixture: %s does not validate against %s (%d)\n", xml, xsd, ret);
	if (vc)
		xmlSchemaFreeValidCtxt(vc);
	xmlFreeDoc(doc);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pc);
	return ret;
}

int fx_count(const char *s, const char *needle)
{
	int n = 0;
	const char *p = s;

	while (p && (p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static xmlXPathObjectPtr xpath(const char *xml, const char *expr, xmlDocPtr *docp)
{
	xmlXPathContextPtr ctx;
	xmlXPathObjectPtr r;
	xmlDocPtr doc = xmlReadFile(xml, NULL, XML_PARSE_NONET);

	*docp = doc;
	if (!doc)
		return NULL;
	ctx = xmlXPathNewContext(doc);
	if (!ctx)
		return NULL;
	r = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	xmlXPathFreeContext(ctx);
	if (!r)
		fprintf(stderr, "fixture: bad XPath %s\n", expr);
	return r;
}

int fx_xpath_count(const char *xml, const char *expr)
{
	xmlDocPtr doc;
	xmlXPathObjectPtr r = xpath(xml, expr, &doc);
	int n = -1;

	if (r) {
		n = r->nodesetval ? r->nodesetval->nodeNr : 0;
		xmlXPathFreeObject(r);
	}
	if (doc)
		xmlFreeDoc(doc);
	return n;
}

char *fx_xpath_string(const char *xml, const char *expr)
{
	char *wrapped = malloc(strlen(expr) + 16), *s = NULL;
	xmlDocPtr doc;
	xmlXPathObjectPtr r;

	if (!wrapped)
		die("malloc", "out of memory");
	sprintf(wrapped, "string(%s)", expr);
	r = xpath(xml, wrapped, &doc);
	if (r) {
		s = strdup(r->stringval ? (const char *)r->stringval : "");
		xmlXPathFreeObject(r);
	}
	if (doc)
		xmlFreeDoc(doc);
	free(wrapped);
	return s ? s : strdup("");
}
