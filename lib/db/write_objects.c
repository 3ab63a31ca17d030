/* SPDX-License-Identifier: BSD-3-Clause */
/* write_objects.c — writing objects.xml (doc/database-format.md, schema
   doc/objects.xsd): the data objects in the analyzer's rank order, each with
   its sparse thread matrix, its fields (with the threads that touched them)
   and its top code pairs. The reader's twin is read_objects.c. No signal
   context. */
#include "db/write.h"
#include "support/out.h"

int hc_db_write_objects(const char *dir, int unit, const struct hc_db_wobject *objects, size_t n,
                        char *err, size_t errlen)
{
	struct hc_out o;
	uint32_t k, a;
	size_t r;
	int ret = hc_out_open(&o, dir, HC_DB_OBJECTS, err, errlen);

	if (ret)
		return ret;
	hc_out_printf(&o, "<?xml version=\"1.0\"?>\n<" HC_DB_ROOT_OBJECTS " version=\"%d\" unit=\"%s\">\n",
	            HC_DB_VERSION, hc_db_unit_name(unit));
	for (r = 0; r < n; r++) {
		const struct hc_db_wobject *x = &objects[r];

		hc_out_printf(&o, "  <Object i=\"%zu\" kind=\"%s\" name=\"", r,
		              hc_db_object_kind_name(x->kind));
		hc_out_xml(&o, x->name);
		hc_out_puts(&o, "\" module=\"");
		hc_out_xml(&o, x->module);
		hc_out_puts(&o, "\"");
		if (x->context)
			hc_out_printf(&o, " context=\"%u\"", x->context);
		hc_out_printf(&o, " size=\"%llu\" blocks=\"%llu\"", (unsigned long long)x->size,
		            (unsigned long long)x->blocks);
		if (x->type[0]) {
			hc_out_puts(&o, " type=\"");
			hc_out_xml(&o, x->type);
			hc_out_puts(&o, "\"");
		}
		if (x->elem)
			hc_out_printf(&o, " elem=\"%llu\"", (unsigned long long)x->elem);
		hc_db_attr_vol(&o, x->t, x->f);
		hc_out_puts(&o, ">\n");
		for (k = 0; k < x->ncells; k++) {
			const struct hc_db_wocell *c = &x->cells[k];
			hc_out_printf(&o, "    <T i=\"%u\" j=\"%u\"", c->i, c->j);
			hc_db_attr_vol(&o, c->t, c->f);
			hc_out_puts(&o, "/>\n");
		}
		for (k = 0; k < x->nfields; k++) {
			const struct hc_db_wfield *f = &x->fields[k];

			hc_out_puts(&o, "    <Field");
			if (f->name) {
				hc_out_puts(&o, " name=\"");
				hc_out_xml(&o, f->name);
				hc_out_puts(&o, "\"");
			}
			hc_out_printf(&o, " offset=\"%llu\" size=\"%llu\" access=\"%u\"",
			            (unsigned long long)f->offset, (unsigned long long)f->size, f->access);
			hc_db_attr_vol(&o, f->t, f->f);
			hc_out_puts(&o, " threads=\"");
			for (a = 0; a < f->nthreads; a++)
				hc_out_printf(&o, "%s%u", a ? " " : "", f->threads[a]);
			hc_out_puts(&o, "\"/>\n");
		}
		for (k = 0; k < x->npairs; k++) {
			const struct hc_db_wpair *c = &x->pairs[k];
			hc_out_printf(&o, "    <CP c=\"%u\"", c->c);
			if (c->p)
				hc_out_printf(&o, " p=\"%u\"", c->p);
			hc_db_attr_vol(&o, c->t, c->f);
			hc_out_puts(&o, "/>\n");
		}
		hc_out_puts(&o, "  </Object>\n");
	}
	hc_out_puts(&o, "</" HC_DB_ROOT_OBJECTS ">\n");
	return hc_out_close(&o, true, err, errlen);
}
