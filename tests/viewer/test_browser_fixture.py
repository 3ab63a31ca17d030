#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test_browser_fixture.py — report.html in a real headless Chromium, from
# synthetic databases with known content: the committed fixture (objects with
# fields, a designed hot false-sharing pair: its object must come first in the
# drill-down and in the table) and a large one generated on the spot (256
# threads, a 10^5-node calling-context tree) that must stay responsive: canvas
# heatmap with hover values, lazy tree (expanding a 2000-child node renders one
# page of children). Screenshots: tests/viewer/report-fixture.png and
# report-big.png in the build tree. Exit 77 (SKIP) without chromium.
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from browser_checks import Checker, full_check, open_report, hover_and_click, check_heatmaps, \
    check_errors, check_offline, timed  # noqa: E402
from dbread import Database  # noqa: E402

B = os.environ.get("HC_BUILDDIR")
S = os.environ.get("HC_SRCDIR")
if not B or not S:
    sys.exit("run through make check (HC_BUILDDIR, HC_SRCDIR)")
VX = os.path.join(B, "viewer-export", "viewer-export")
OUT = os.path.join(B, "tests", "viewer")
if not os.path.exists(cdp.CHROMIUM):
    print("SKIP: %s not installed (Debian package chromium)" % cdp.CHROMIUM)
    sys.exit(77)
os.makedirs(OUT, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="hc-vx-")
c = Checker("fixture")
b = None
try:
    # 1. the small fixture, with objects
    db = Database(os.path.join(S, "tests", "viewer", "fixtures", "small"))
    html = os.path.join(tmp, "small.html")
    subprocess.run([VX, "-o", html, db.path], check=True)
    b = cdp.Browser()
    full_check(b, c, db, html, os.path.join(OUT, "report-fixture.png"))
    first = b.eval("hcReport.objectOrder()[0]")
    c.check(first == "false_line", "designed false-sharing object is first in the table: %s" % first)
    fields = b.eval("[...document.querySelectorAll('#objects-table tbody tr:first-child .fieldlist code')]"
                    ".map(e => e.textContent)")
    c.check(fields[:2] == ["w[1]", "w[2]"], "its conflicting fields are listed first: %r" % fields)
    drill = b.eval("document.querySelector('#drill-objects > li .objname').textContent")
    c.check(drill == "false_line", "hot pair drill-down starts with false_line: %s" % drill)
    pairs = b.eval("[...document.querySelectorAll('#drill-pairs code')].map(e => e.textContent)")
    c.check(pairs == ["comm_bench.c:64 ↔ comm_bench.c:64"], "drill-down code pair: %r" % pairs)
    # core level: objects of the threads that ran on those CPUs
    b.eval("hcReport.setView('core', 'all')")
    pos = b.eval("hcReport.cellCenter(0, 1)")
    b.click(pos["x"], pos["y"])
    got = b.eval("[...document.querySelectorAll('#drill-objects > li')].length")
    c.check(got >= 1, "core-level drill-down lists objects of the threads on those CPUs (%d)" % got)
    check_errors(b, c)
    b.close()
    b = None

    # 2. the big one: 256 threads, 10^5 nodes
    big = os.path.join(tmp, "big")
    subprocess.run([sys.executable, os.path.join(S, "tests", "viewer", "make_db.py"), "big", big,
                    "--threads", "256", "--nodes", "100000"], check=True)
    dbb = Database(big)
    html = os.path.join(tmp, "big.html")
    subprocess.run([VX, "-o", html, big], check=True)
    print("size: big.html is %.1f MB" % (os.path.getsize(html) / 1e6))
    b = cdp.Browser()
    url = open_report(b, c, html)
    view = b.eval("hcReport.view()")
    c.check(view["level"] == "group" and view["n"] < 256,
            "256 threads open on the grouped heatmap (%d groups by start routine): %r" % (view["n"], view))
    b.eval("hcReport.setView('thread', 'all')")
    view = b.eval("hcReport.view()")
    c.check(view["n"] == 256 and view["mode"] == "canvas", "the full 256×256 matrix on demand, on a canvas: %r" % view)
    check_heatmaps(b, c, dbb)
    b.eval("hcReport.setView('thread', 'all')")
    top = b.eval("document.querySelector('#drill-top li a').textContent")
    c.check(top == "7 worker ↔ 255 worker", "big: the hot pair heads the 'hottest pairs' list: %r" % top)
    b.click_selector("#drill-top li a")
    c.check(b.eval("hcReport.selected()") == [7, 255], "big: clicking it selects the hot cell")
    b.eval("window.scrollTo(0, 0)")
    i, j = hover_and_click(b, c, dbb)
    first = b.eval("document.querySelector('#drill-objects > li .objname').textContent")
    c.check(first == "hot_line", "big: hot pair (%d,%d) drill-down starts with hot_line: %s" % (i, j, first))
    rows0 = b.eval("hcReport.treeRows()")
    c.check(rows0 < 2000, "big: %d tree rows rendered at first out of %d nodes" % (rows0, len(dbb.nodes())))
    # the frame with 2000 statements: one page of children, then a "more" row
    wide = b.eval("(() => { const k = new Map(); for (const n of hcReport.data.cct.nodes)"
                  " k.set(n.parent, (k.get(n.parent) || 0) + 1);"
                  " let best = 0, id = 0; for (const [p, c] of k) if (p && c > best) { best = c; id = p; }"
                  " return [id, best]; })()")
    b.eval("(() => { let n = hcReport.data.cct.nodes.find(x => x.id === %d), path = [];"
           " while (n) { path.unshift(n.id); n = hcReport.data.cct.nodes.find(x => x.id === n.parent); }"
           " for (const id of path) hcReport.expand(id); })()" % wide[0])
    (_, fast) = timed("expand a %d-child node" % wide[1], lambda: b.eval("hcReport.expand(%d)" % wide[0]))
    rows1 = b.eval("hcReport.treeRows()")
    more = b.eval("document.querySelectorAll('#cct-tree .morerow').length")
    c.check(fast and rows1 - rows0 <= 200 + 64 and more >= 1,
            "big: expanding renders one page (%d new rows) and offers more" % (rows1 - rows0))
    b.click_selector("#cct-tree .morerow")
    rows2 = b.eval("hcReport.treeRows()")
    c.check(rows2 - rows1 == 200, "big: 'show more' adds the next 200 rows (%d)" % (rows2 - rows1))
    (_, fast) = timed("expand hot path", lambda: b.click_selector("#cct button.more"))
    c.check(fast, "big: expanding the hot path stays responsive")
    check_offline(b, c, url)
    check_errors(b, c)
    b.eval("document.getElementById('matrices').scrollIntoView()")
    b.screenshot(os.path.join(OUT, "report-big.png"), full=False)
finally:
    if b:
        b.close()
    shutil.rmtree(tmp, ignore_errors=True)
print("%d failure(s)" % c.failures)
sys.exit(1 if c.failures else 0)
