/* SPDX-License-Identifier: BSD-3-Clause */
/* assets.h — report.js and report.css as byte arrays, generated at build time
   from viewer-export/report.{js,css} by viewer-export/embed.sh (POSIX od and
   awk), so report.html needs no file beside the program. No signal context. */
#ifndef HC_VIEWER_ASSETS_H
#define HC_VIEWER_ASSETS_H

#include <stddef.h>

extern const unsigned char vx_report_js[];
extern const size_t vx_report_js_len;
extern const unsigned char vx_report_css[];
extern const size_t vx_report_css_len;

#endif
