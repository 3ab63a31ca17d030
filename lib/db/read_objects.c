/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.c — objects.xml, the optional data-object file of a database: one
   <Object> per static variable, heap allocation context, stack or TLS block,
   with its totals, its sparse thread matrix, the fields (or offset ranges)
   that took part and its top code pairs. The file is optional: without it
   has_objects stays false and the exporters say "no object data in this
   database". The format is doc/database-format.md §7 (schema
   doc/objects.xsd); unknown elements and attributes are ignored, references
   (thread indexes, node ids) are checked. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

struct objload {
	struct load *ld;
	struct xr *x;
	size_t cap_obj, cap_cells, cap_fields, cap_pairs;
};

/* threads="1 4 7": thread indexes, each below the thread count. */
static int parse_threads(struct objload *o, const char *s, struct hc_db_field *f)
{
	size_t n = 0, cap = 0;
	char *copy = load__strdup(s), *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, " ;,", &save); tok; tok = strtok_r(NULL, " ;,", &save)) {
		uint64_t t;
		if (!load__parse_u64(tok, &t) || t >= o->ld->db->nthreads) {
			int rc = load__fail(o->ld, xr__line(o->x), "<Field threads=\"%.60s\">: '%s' is "
			                     "not a thread index (0..%zu)", s, tok, o->ld->db->nthreads - 1);
			free(copy);
			return rc;
		}
		if (load__grow(&f->threads, &cap, n, sizeof(*f->threads))) {
			free(copy);
			return -ENOMEM;
		}
		f->threads[n++] = (uint32_t)t;
	}
	f->nthreads = n;
	free(copy);
	return 0;
}

static int load_object(struct objload *o)
{
	struct hc_db *db = o->ld->db;
	struct hc_db_object *ob;
	bool has;
	int rc;

	if (load__grow(&db->objects, &o->cap_obj, db->nobjects, sizeof(*db->objects)))
		return -ENOMEM;
	ob = &db->objects[db->nobjects++];
	o->cap_cells = o->cap_fields = o->cap_pairs = 0;
	rc = xr__u64(o->x, "i", &ob->i);
	if (!rc)
		rc = xr__str(o->x, "kind", &ob->kind);
	if (!rc)
		rc = xr__str(o->x, "name", &ob->name);
	if (!rc)
		rc = xr__str_opt(o->x, "module", &ob->module);
	if (!rc && !ob->module && !(ob->module = load__strdup("")))
		rc = -ENOMEM;
	if (!rc)
		rc = xr__u64_opt(o->x, "context", &ob->context, &has);
	if (!rc && has && ob->context && !hc_db_node_find(db, ob->context))
		rc = load__fail(o->ld, xr__line(o->x), "<Object context=\"%llu\">: not a node of "
		                 HC_DB_EXPERIMENT, (unsigned long long)ob->context);
	if (!rc)
		rc = xr__u64_opt(o->x, "size", &ob->size, NULL);
	if (!rc)
		rc = xr__u64_opt(o->x, "blocks", &ob->blocks, NULL);
	if (!rc)
		rc = xr__str_opt(o->x, "type", &ob->type);
	if (!rc && !ob->type && !(ob->type = load__strdup("")))
		rc = -ENOMEM;
	if (!rc)
		rc = xr__u64_opt(o->x, "elem", &ob->elem, NULL);
	if (!rc)
		rc = load__vol(o->ld, o->x, &ob->all, &ob->tru, &ob->fal);
	return rc;
}

static int load_child(struct objload *o, struct hc_db_object *ob)
{
	struct hc_db *db = o->ld->db;
	const char *name = xr__name(o->x);
	int rc = 0;

	if (!strcmp(name, "T")) {
		struct hc_db_objcell *c;
		uint64_t i, j;
		if (load__grow(&ob->cells, &o->cap_cells, ob->ncells, sizeof(*c)))
			return -ENOMEM;
		c = &ob->cells[ob->ncells];
		if ((rc = xr__u64(o->x, "i", &i)) || (rc = xr__u64(o->x, "j", &j)))
			return rc;
		if (i >= db->nthreads || j >= db->nthreads || i == j)
			return load__fail(o->ld, xr__line(o->x), "<T i=\"%llu\" j=\"%llu\">: not a pair "
			                   "of two threads (0..%zu)", (unsigned long long)i,
			                   (unsigned long long)j, db->nthreads - 1);
		c->i = (uint32_t)(i < j ? i : j);
		c->j = (uint32_t)(i < j ? j : i);
		if ((rc = load__vol(o->ld, o->x, &c->all, &c->tru, &c->fal)))
			return rc;
		ob->ncells++;
	} else if (!strcmp(name, "Field")) {
		struct hc_db_field *f;
		char *threads = NULL;
		if (load__grow(&ob->fields, &o->cap_fields, ob->nfields, sizeof(*f)))
			return -ENOMEM;
		f = &ob->fields[ob->nfields++];
		rc = xr__str_opt(o->x, "name", &f->name);
		if (!rc && !f->name && !(f->name = load__strdup("")))
			rc = -ENOMEM;
		if (!rc)
			rc = xr__u64(o->x, "offset", &f->offset);
		if (!rc)
			rc = xr__u64(o->x, "size", &f->size);
		f->access = 0;   /* absent: not recorded */
		if (!rc)
			rc = xr__u64_opt(o->x, "access", &f->access, NULL);
		if (!rc)
			rc = load__vol(o->ld, o->x, &f->all, &f->tru, &f->fal);
		if (!rc)
			rc = xr__str_opt(o->x, "threads", &threads);
		if (!rc && threads)
			rc = parse_threads(o, threads, f);
		free(threads);
	} else if (!strcmp(name, "CP")) {
		struct hc_db_codepair *p;
		bool has_p;
		if (load__grow(&ob->pairs, &o->cap_pairs, ob->npairs, sizeof(*p)))
			return -ENOMEM;
		p = &ob->pairs[ob->npairs];
		rc = xr__u64(o->x, "c", &p->c);
		if (!rc)
			rc = xr__u64_opt(o->x, "p", &p->p, &has_p);
		if (!rc && (!hc_db_node_find(db, p->c) || (has_p && !hc_db_node_find(db, p->p))))
			rc = load__fail(o->ld, xr__line(o->x), "<CP c=\"%llu\" p=\"%llu\">: not nodes of "
			                 HC_DB_EXPERIMENT, (unsigned long long)p->c,
			                 (unsigned long long)p->p);
		if (!rc)
			rc = load__vol(o->ld, o->x, &p->all, &p->tru, &p->fal);
		if (!rc)
			ob->npairs++;
	}
	return rc;
}

int read__objects(struct load *ld)
{
	struct hc_db *db = ld->db;
	struct objload o = { .ld = ld };
	int rc;

	rc = xr__open(&o.x, ld, HC_DB_OBJECTS, true);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	db->has_objects = true;
	while ((rc = xr__next(o.x)) > 0) {
		const char *name = xr__name(o.x), *parent = xr__parent(o.x);
		rc = 0;   /* not xr__next's 1: an element we skip is no error */
		if (xr__depth(o.x) == 0) {
			uint64_t version;
			char *unit = NULL;
			if (strcmp(name, HC_DB_ROOT_OBJECTS)) {
				rc = load__fail(ld, xr__line(o.x), "root element is <%s>, expected <Objects>",
				                 name);
				break;
			}
			if ((rc = xr__u64(o.x, "version", &version)))
				break;
			if (version != HC_DB_VERSION) {
				rc = load__fail(ld, xr__line(o.x), "format version %llu, this viewer reads "
				                 "version %d", (unsigned long long)version, HC_DB_VERSION);
				break;
			}
			if ((rc = xr__str(o.x, "unit", &unit)))
				break;
			if (strcmp(unit, db->unit))
				rc = load__fail(ld, xr__line(o.x), "unit '%s', but database.xml says '%s'",
				                 unit, db->unit);
			free(unit);
		} else if (!strcmp(name, "Object") && !strcmp(parent, HC_DB_ROOT_OBJECTS)) {
			rc = load_object(&o);
		} else if (!strcmp(parent, "Object") && db->nobjects) {
			rc = load_child(&o, &db->objects[db->nobjects - 1]);
		}
		if (rc)
			break;
	}
	xr__close(o.x);
	return rc;
}
