/* SPDX-License-Identifier: BSD-3-Clause */
/* common.c — what the exporters of viewer-export share beyond lib/report:
   error messages and output files committed by rename (a reader of
   report.html never sees half of it). No signal context. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"

int vx_error(const char *fmt, ...)
{
	va_list ap;

	fputs(VX_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int vx_open(struct hc_out *o, const char *path)
{
	char err[4200];
	int rc = hc_out_open_file(o, path, err, sizeof(err));

	return rc ? vx_error("%s", err) : 0;
}

int vx_close(struct hc_out *o, bool ok)
{
	char err[4200];
	int rc = hc_out_close(o, ok, err, sizeof(err));

	if (rc)
		vx_error("%s", err);
	return rc || !ok ? -1 : 0;
}
