/* SPDX-License-Identifier: BSD-3-Clause */
/* json.h — streaming JSON writer used by viewer-export for --json and for the
   data blob embedded in report.html (html mode escapes '<'). Callers nest at
   most HC_JSON_MAXDEPTH containers. No signal context. */
#ifndef HC_VIEWER_JSON_H
#define HC_VIEWER_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HC_JSON_MAXDEPTH 32
#define HC_JSON_PRETTY 2     /* containers this deep or shallower are indented */

struct hc_json {
	FILE *f;
	bool html;
	bool after_key;
	int depth;
	unsigned count[HC_JSON_MAXDEPTH];   /* values written in each open container */
};

void hc_json_init(struct hc_json *j, FILE *f, bool html);
void hc_json_obj(struct hc_json *j);
void hc_json_obj_end(struct hc_json *j);
void hc_json_arr(struct hc_json *j);
void hc_json_arr_end(struct hc_json *j);
void hc_json_key(struct hc_json *j, const char *k);
void hc_json_str(struct hc_json *j, const char *s);
void hc_json_u64(struct hc_json *j, uint64_t v);
void hc_json_i64(struct hc_json *j, int64_t v);   /* negative -> null */
void hc_json_f64(struct hc_json *j, double v);    /* %.4g; NaN/inf -> null */
void hc_json_null(struct hc_json *j);
void hc_json_bool(struct hc_json *j, bool b);
/* key + value; a NULL string is written as null */
void hc_json_kstr(struct hc_json *j, const char *k, const char *s);
void hc_json_ku64(struct hc_json *j, const char *k, uint64_t v);
void hc_json_ki64(struct hc_json *j, const char *k, int64_t v);
/* key + an array of n objects, one per element of base[0..n) (each size
   bytes): fn writes an element's members between the braces (arg: what
   it needs besides the element). */
typedef void hc_json_members_fn(struct hc_json *j, const void *elem, const void *arg);
void hc_json_objects(struct hc_json *j, const char *k, const void *base, size_t n, size_t size,
                     hc_json_members_fn *fn, const void *arg);

struct hc_db;
/* The model's "regions" member (lib/report/regions.c). */
void hc_report_json_regions(const struct hc_db *db, struct hc_json *j);

struct hc_db_field;
/* One field of an object as a JSON object: name, offset, size, access
   size, the volume (all and true too when `counts`), the threads
   (lib/report/model.c; the object list and the advice's layout). */
void hc_report_json_field(struct hc_json *j, const struct hc_db_field *fd, bool counts);

#endif
