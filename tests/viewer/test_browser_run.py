#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test_browser_run.py — the whole pipeline on a real run, checked in a real
# headless Chromium: comm_bench "pairs" measured by hpcrun-comm, analysed by
# hpcprof-comm, exported by viewer-export with its defaults (DB/report.html),
# then opened and driven (browser_checks.full_check: no console errors, no
# network, N×N cells with the database's values, hottest pair darkest, hover
# value, click drill-down, objects table or its absence, lazy tree). Then a
# designed false-sharing run ("false 0.5"): false_line must lead the objects
# table with its fields. Screenshots are kept as tests/viewer/report.png and
# report-objects.png in the build tree.
# Exit 77 (SKIP) without chromium or when this machine cannot measure.
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from browser_checks import Checker, full_check  # noqa: E402
from dbread import Database, hottest, measure  # noqa: E402

B = os.environ.get("HC_BUILDDIR")
if not B:
    sys.exit("run through make check (HC_BUILDDIR)")
HPCRUN = os.path.join(B, "hpcrun-comm", "hpcrun-comm")
HPCPROF = os.path.join(B, "hpcprof-comm", "hpcprof-comm")
BENCH = os.path.join(B, "tests", "programs", "comm_bench")
VX = os.path.join(B, "viewer-export", "viewer-export")
OUT = os.path.join(B, "tests", "viewer")

if not os.path.exists(cdp.CHROMIUM):
    print("SKIP: %s not installed (Debian package chromium)" % cdp.CHROMIUM)
    sys.exit(77)
probe = subprocess.run([HPCRUN, "-L"], capture_output=True, text=True)
if probe.returncode != 0:
    print(probe.stdout + probe.stderr)
    print("SKIP: this machine cannot measure")
    sys.exit(77)

os.makedirs(OUT, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="hc-vx-run-")
c = Checker("run")
b = None
try:
    m, d = os.path.join(tmp, "M"), os.path.join(tmp, "DB")
    r = measure([HPCRUN, "-o", m, "-e", "COMM@200000", BENCH, "pairs", "-t", "4", "-s", "2"])
    c.check(r.returncode == 0, "hpcrun-comm comm_bench pairs (rc %d) %s" % (r.returncode, r.stderr[-300:]))
    r = subprocess.run([HPCPROF, "-q", "-o", d, m], capture_output=True, text=True)
    c.check(r.returncode == 0, "hpcprof-comm (rc %d) %s" % (r.returncode, r.stderr[-300:]))
    r = subprocess.run([VX, d], capture_output=True, text=True)
    html = os.path.join(d, "report.html")
    if not c.check(r.returncode == 0 and os.path.exists(html),
                   "viewer-export DB writes DB/report.html: %s" % r.stderr.strip()):
        raise SystemExit(1)
    db = Database(d)
    tm = db.matrix("thread", "all")
    i, j, v = hottest(tm)
    c.check(len(tm) == 5, "5 threads (main + 4 workers)")
    c.check(v > 0 and (i, j) in ((1, 2), (3, 4)), "the hottest pair (%d,%d) is a designed pair" % (i, j))
    b = cdp.Browser()
    full_check(b, c, db, html, os.path.join(OUT, "report.png"))
    b.close()
    b = None

    # a designed false-sharing run: every worker stores to its own word of
    # one line half of the time; that object must lead the table with its fields
    m, d = os.path.join(tmp, "M-false"), os.path.join(tmp, "DB-false")
    r = measure([HPCRUN, "-o", m, "-e", "COMM@200000", BENCH, "false", "0.5", "-t", "4", "-s", "2"])
    c.check(r.returncode == 0, "hpcrun-comm comm_bench false 0.5 (rc %d)" % r.returncode)
    r = subprocess.run([HPCPROF, "-q", "-o", d, m], capture_output=True, text=True)
    c.check(r.returncode == 0, "hpcprof-comm (rc %d) %s" % (r.returncode, r.stderr[-300:]))
    html = os.path.join(tmp, "false.html")
    r = subprocess.run([VX, "-o", html, d], capture_output=True, text=True)
    if not c.check(r.returncode == 0, "viewer-export -o: %s" % r.stderr.strip()):
        raise SystemExit(1)
    db = Database(d)
    if c.check(db.objects is not None, "the analyzer wrote objects.xml"):
        b = cdp.Browser()
        full_check(b, c, db, html, os.path.join(OUT, "report-objects.png"))
        first = b.eval("hcReport.objectOrder()[0]")
        c.check(first == "false_line", "the designed false-sharing object is first in the table: %s" % first)
        fields = b.eval("[...document.querySelectorAll('#objects-table tbody tr:first-child .fieldlist code')]"
                        ".map(e => e.textContent)")
        c.check(len(fields) >= 2 and all(f.startswith("false_line.w[") for f in fields),
                "its fields are listed: %r" % fields)
finally:
    if b:
        b.close()
    shutil.rmtree(tmp, ignore_errors=True)
print("%d failure(s)" % c.failures)
sys.exit(1 if c.failures else 0)
