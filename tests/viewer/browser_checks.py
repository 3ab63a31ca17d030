# SPDX-License-Identifier: BSD-3-Clause
# browser_checks.py — what the browser tests assert about a report.html open
# in headless Chromium (cdp.Browser), against the database it was built from
# (dbread.Database): the page loads with no console error and no network
# request; every heatmap has N×N cells carrying the database's values; the
# hottest pair is the darkest cell; hovering shows its exact value; a real
# mouse click on a cell lists that pair's objects (or says there is no object
# data); the objects table sorts by false/true/all/name on header clicks; the
# calling-context tree renders lazily; the code-region browser selects a
# region on a click and shows its matrices. Failures are collected, not raised, so
# one run reports everything that is wrong.
import json
import re
import time

from dbread import KINDS, hottest


class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = 0

    def check(self, cond, what):
        if cond:
            print("ok: %s: %s" % (self.name, what))
        else:
            print("FAIL: %s: %s" % (self.name, what))
            self.failures += 1
        return cond


def luminance(css):
    m = re.match(r"rgb\((\d+),\s*(\d+),\s*(\d+)\)", css)
    if m:
        r, g, b = (int(x) for x in m.groups())
    else:
        h = css.lstrip("#")
        r, g, b = int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def timed(what, fn, limit=15.0):
    """Run fn; a page that does not answer within `limit` seconds is frozen
    (a freeze detector with a wide margin, not a benchmark)."""
    t0 = time.time()
    r = fn()
    dt = time.time() - t0
    print("time: %s: %.2f s" % (what, dt))
    return r, dt <= limit


def open_report(b, c, html):
    url = "file://" + html
    (_, fast) = timed("load " + html, lambda: b.navigate(url), 60)
    c.check(fast, "page loads")
    ready = b.eval("!!(window.hcReport && window.hcReport.ready)")
    c.check(ready, "report script ran (window.hcReport.ready)")
    return url


def check_heatmaps(b, c, db):
    labels = b.eval("hcReport.data.levels.map(l => [l.level, l.labels])")
    labels = dict((l, lab) for l, lab in labels)
    for level in db.levels:
        for kind in KINDS:
            b.eval("hcReport.setView(%s, %s)" % (json.dumps(level), json.dumps(kind)))
            m = db.matrix(level, kind)
            n = len(m)
            view = b.eval("hcReport.view()")
            c.check(view["n"] == n, "%s/%s: heatmap is %d×%d" % (level, kind, n, n))
            if view["mode"] == "svg":
                cells = b.eval("[...document.querySelectorAll('#heatmap rect.cell')]"
                               ".map(r => [+r.dataset.i, +r.dataset.j, +r.dataset.v, r.getAttribute('fill')])")
                c.check(len(cells) == n * n, "%s/%s: %d cells drawn (want %d)" % (level, kind, len(cells), n * n))
                bad = [x for x in cells if m[x[0]][x[1]] != x[2]]
                c.check(not bad, "%s/%s: every cell holds the database value%s"
                        % (level, kind, "" if not bad else " (first mismatch %r)" % (bad[0],)))
                fills = {(x[0], x[1]): x[3] for x in cells}
            else:
                # canvas: sample the colours the script painted, by its own colour function
                fills = {}
                vals = b.eval("(() => { const n = hcReport.view().n, out = [];"
                              " for (let i = 0; i < n; i++) for (let j = 0; j < n; j++)"
                              " if (i !== j && hcReport.value(i, j)) out.push([i, j, hcReport.value(i, j), hcReport.color(i, j)]);"
                              " return out; })()")
                bad = [x for x in vals if m[x[0]][x[1]] != x[2]]
                nz = sum(1 for i in range(n) for j in range(n) if i != j and m[i][j])
                c.check(len(vals) == nz and not bad, "%s/%s: canvas holds the database's %d non-zero cells"
                        % (level, kind, nz))
                fills = {(x[0], x[1]): x[3] for x in vals}
            if n >= 2 and any(m[i][j] for i in range(n) for j in range(n)):
                hi, hj, hv = hottest(m)
                dark = luminance(fills[(hi, hj)])
                lighter = all(luminance(f) >= dark for (i, j), f in fills.items() if i != j)
                strictly = all(luminance(f) > dark for (i, j), f in fills.items()
                               if i != j and m[i][j] < hv)
                c.check(lighter and strictly, "%s/%s: hottest pair (%d,%d) is the darkest cell"
                        % (level, kind, hi, hj))


def hover_and_click(b, c, db, level="thread", kind="all", click=True):
    """Hover over and click the hottest cell with real mouse events."""
    b.eval("hcReport.setView(%s, %s)" % (json.dumps(level), json.dumps(kind)))
    m = db.matrix(level, kind)
    i, j, v = hottest(m)
    pos = b.eval("hcReport.cellCenter(%d, %d)" % (i, j))
    (_, fast) = timed("hover", lambda: b.mouse("mouseMoved", pos["x"], pos["y"]))
    tip = b.eval("(() => { const t = document.querySelector('.tooltip'); return [t.style.display, t.textContent]; })()")
    c.check(fast and tip[0] == "block" and "{:,}".format(v) in tip[1],
            "hover on (%d,%d) shows its value %s: %r" % (i, j, "{:,}".format(v), tip[1][:120]))
    if not click:
        return i, j
    (_, fast) = timed("click", lambda: b.click(pos["x"], pos["y"]))
    c.check(fast and b.eval("hcReport.selected()") == [i, j], "click selects cell (%d,%d)" % (i, j))
    title = b.eval("document.getElementById('drill-title').textContent")
    lab = b.eval("hcReport.data.levels.find(l => l.level === %s).labels" % json.dumps(level))
    c.check(lab[i] in title and lab[j] in title, "drill-down names the pair: %r" % title)
    if db.objects is None:
        txt = b.eval("document.getElementById('drill-objects').textContent")
        c.check(txt == "no object data in this database", "drill-down says there is no object data: %r" % txt)
    elif level == "thread":
        want = db.objects_for_pair(i, j, kind)
        got = b.eval("[...document.querySelectorAll('#drill-objects > li')].map(li => +li.dataset.object)")
        c.check(got == [o["i"] for o, _ in want][:10],
                "drill-down lists the pair's objects in order: %r (want %r)" % (got, [o["i"] for o, _ in want][:10]))
    return i, j


def check_objects_sort(b, c, db):
    if db.objects is None:
        txt = b.eval("(document.getElementById('objects-empty') || {}).textContent")
        c.check(txt == "no object data in this database", "objects section says there is no object data")
        return
    objs = db.objects

    def order(key, desc):
        # the page's rule: by the key, ties by all descending, then object id
        if key == "name":
            return [o["name"] for o in sorted(objs, key=lambda o: (o["name"], -o["all"], o["i"]))]
        return [o["name"] for o in sorted(objs, key=lambda o: ((-o[key] if desc else o[key]), -o["all"], o["i"]))]

    def shown():
        return b.eval("hcReport.objectOrder()")

    k = min(100, len(objs))
    c.check(shown()[:k] == order("false", True)[:k], "objects table starts ranked by false sharing")
    c.check(shown()[0] == order("false", True)[0], "first object is the top false-sharing one: %s" % shown()[0])
    # one click per step: a new column sorts descending (names ascending),
    # a second click on the same column reverses it
    for key, desc in (("true", True), ("true", False), ("all", True), ("name", False)):
        b.click_selector('#objects-table th[data-key="%s"]' % key)
        got = shown()[:k]
        c.check(got == order(key, desc)[:k], "click on '%s' header sorts %s" % (key, "descending" if desc else "ascending"))
        sort_attr = b.eval("document.querySelector('#objects-table th[data-key=\"%s\"]').getAttribute('aria-sort')" % key)
        c.check(sort_attr == ("descending" if desc else "ascending"), "'%s' header shows aria-sort=%s" % (key, sort_attr))
    # back to the default ranking for the screenshot
    b.click_selector('#objects-table th[data-key="false"]')


def check_offline(b, c, url):
    reqs = [u for u in b.requests() if u != url and not u.startswith("data:")]
    c.check(not reqs, "no network or file request besides the page itself%s" % ("" if not reqs else ": %r" % reqs[:5]))


def check_errors(b, c):
    errs = b.errors()
    c.check(not errs, "no console errors%s" % ("" if not errs else ": %r" % errs[:5]))


def check_tree(b, c, db):
    n = len(db.nodes())
    shown = b.eval("document.querySelectorAll('#cct-tree .row').length")
    c.check(0 < shown <= min(n, 2000), "calling-context tree shows %d of %d nodes at first (lazy)" % (shown, n))
    c.check(b.eval("hcReport.treeRows()") == shown, "tree row count agrees with the DOM")


def read_regions(path):
    """regions.xml + regions.csv of a database: [(i, parent, name, cells)]
    with cells {(i, j): (inclusive all, exclusive all)}; None when absent."""
    import csv
    import os
    import xml.etree.ElementTree as ET
    x = os.path.join(path, "regions.xml")
    if not os.path.exists(x):
        return None
    regs = []
    same = {}

    def walk(e, parent):
        regs.append([int(e.get("i")), parent, e.get("n"), {}])
        of = e.get("cells")
        if of is not None:   # "parent" (version 2) or an earlier i (version 3)
            same[int(e.get("i"))] = parent if of == "parent" else int(of)
        for k in e.findall("Region"):
            walk(k, int(e.get("i")))
    walk(ET.parse(x).getroot().find("Region"), None)
    with open(os.path.join(path, "regions.csv")) as f:
        rows = csv.reader(f)
        next(rows)
        for r, i, j, t, fa, xt, xf in rows:
            regs[int(r)][3][(int(i), int(j))] = (int(t) + int(fa), int(xt) + int(xf))
    # cells="parent" / "K": that region's inclusive cells, the own rows'
    # exclusive ones
    for r in regs:
        if r[0] in same:
            own = r[3]
            r[3] = {k: (v[0], own[k][1] if k in own else 0)
                    for k, v in regs[same[r[0]]][3].items()}
    return regs


def check_regions(b, c, db):
    """The region browser: the tree, a real click on a region's row selects
    it, and the heatmap holds the database's inclusive and exclusive cells."""
    regs = read_regions(db.path)
    if regs is None:
        txt = b.eval("(document.getElementById('regions-empty') || {}).textContent")
        c.check(txt == "no code regions in this database", "regions: says there are none: %r" % txt)
        return
    rows = b.eval("hcReport.regionRows()")
    c.check(rows and rows[0] == 0, "regions: the tree starts at the program: %r" % (rows or [])[:5])
    # the region with the largest exclusive volume is opened: click its row
    best = max(regs, key=lambda r: (sum(v[1] for v in r[3].values()), -r[0]))
    if best[0] in rows:
        pos = b.eval("hcReport.regionRowCenter(%d)" % best[0])
        b.click(pos["x"], pos["y"])
        c.check(b.eval("hcReport.regionSelected()") == best[0],
                "regions: a click on '%s' selects it" % best[2])
        title = b.eval("document.getElementById('region-title').textContent")
        c.check(title == best[2], "regions: the pane names it: %r" % title)
    else:
        c.check(False, "regions: the busiest region %d ('%s') is shown in the tree %r" % (best[0], best[2], rows))
    n = len(db.threads)
    bad = []
    for r in regs[:40]:
        for excl in (0, 1):
            b.eval("hcReport.regionSelect(%d, %s)" % (r[0], "true" if excl else "false"))
            got = b.eval("Array.from({length: %d}, (_, i) => Array.from({length: %d}, (_, j) => hcReport.regionValue(i, j)))" % (n, n))
            for i in range(n):
                for j in range(n):
                    k = (min(i, j), max(i, j))
                    want = 0 if i == j else r[3].get(k, (0, 0))[excl]
                    if got[i][j] != want:
                        bad.append((r[0], excl, i, j, got[i][j], want))
    c.check(not bad, "regions: every region's heatmap holds its inclusive and exclusive cells%s"
            % ("" if not bad else " (first mismatch %r)" % (bad[0],)))
    b.eval("hcReport.regionSelect(%d, false)" % best[0])


def check_insight(b, c, db):
    """Scale, advice and the grouped heatmap, against the database files:
    the share is recomputed here from database.xml's counters and
    threads.csv's periods (soft: timer samples, coarse ones' extra periods included, x period), the advice cards
    name the top false-sharing objects of objects.xml, and the grouped
    matrix (threads by start routine) sums to the thread matrix."""
    counters = {e.get("n"): int(e.get("v")) for e in db.meta.iter("Counter")}
    periods = sorted({int(t["period"]) for t in db.threads if t.get("period")})
    banner = b.eval("(document.getElementById('scale-banner') || document.getElementById('scale-empty') || {}).textContent || ''")
    if db.totals["all"] == 0:
        c.check("No communication" in banner, "scale says there is no communication, with a reason: %r" % banner[:160])
    elif db.unit == "ns" and "samples" in counters and len(periods) == 1:
        # samples_thinned: the extra periods of a crowded process's coarse
        # samples (doc/profile-format.md), part of the sampled CPU time
        n = (counters["samples"] + counters.get("samples_blocked", 0) + counters.get("samples_in_runtime", 0) +
             counters.get("samples_thinned", 0))
        want = 100.0 * db.totals["all"] / (n * periods[0])
        got = b.eval("parseFloat(document.getElementById('scale-all').textContent)")
        c.check(abs(got - want) < 0.06, "scale leads with %.1f%% of the sampled CPU time (want %.2f%%)" % (got, want))
        first = b.eval("document.querySelector('main section').id")
        c.check(first == "scale", "the scale is the first section: %s" % first)
        verdict = b.eval("document.getElementById('scale-verdict').textContent")
        c.check(("Negligible" in verdict) == (want < 1.0), "verdict negligible iff under 1%%: %r" % verdict[:60])
    if db.objects:
        fs = [o for o in sorted(db.objects, key=lambda o: (-o["false"], o["i"]))
              if o["false"] > 0 and o["kind"] != "unknown"][:3]
        cards = b.eval("[...document.querySelectorAll('#advice .advice-card')].map(e => +e.dataset.object)")
        c.check(cards == [o["i"] for o in fs], "advice cards for the top false-sharing objects %r (want %r)"
                % (cards, [o["i"] for o in fs]))
        if fs:
            fixes = b.eval("[...document.querySelectorAll('#advice .advice-card:first-of-type .fixes li')].map(e => e.textContent)")
            lay = b.eval("document.querySelectorAll('#advice .advice-card:first-of-type table.layout tbody tr').length")
            c.check(len(fixes) >= 1 and lay == len(fs[0]["fields"]),
                    "first card: %d change(s), layout of %d fields (objects.xml has %d)" % (len(fixes), lay, len(fs[0]["fields"])))
    routines = {}
    for t in db.threads:
        r = t.get("start_routine") or ("main thread" if not t.get("creator") else "(unknown start routine)")
        routines[r] = routines.get(r, 0) + 1
    def generations(k):   # lib/report/groups.c: more than 64 threads split by creation order
        if k <= 64:
            return 1
        gen = max(64, -(-k // 16))
        return -(-k // gen)
    ngroups = sum(generations(k) for k in routines.values())
    levels = b.eval("hcReport.levels()")
    if ngroups < len(db.threads):
        if c.check("group" in levels, "a thread-groups level (%d groups of %d threads)" % (ngroups, len(db.threads))):
            b.eval("hcReport.setView('group', 'all')")
            view = b.eval("hcReport.view()")
            c.check(view["n"] == ngroups, "grouped heatmap is %d×%d" % (view["n"], view["n"]))
            vals = b.eval("(() => { const n = hcReport.view().n; let s = 0;"
                          " for (let i = 0; i < n; i++) for (let j = i; j < n; j++) s += hcReport.value(i, j); return s; })()")
            tm = db.matrix("thread", "all")
            tot = sum(tm[i][j] for i in range(len(tm)) for j in range(i + 1, len(tm)))
            c.check(vals == tot, "grouped matrix sums to the thread matrix (%d, want %d)" % (vals, tot))
            b.eval("hcReport.setView('thread', 'all')")
            c.check(b.eval("hcReport.view()")["n"] == len(db.threads), "the full thread matrix on demand")
    else:
        c.check("group" not in levels, "no thread-groups level when every thread is its own group")


def check_placement(b, c, db):
    """The thread placement section (issue 15 point 6): one block per process
    of the model's placement list, with its commands or its reason."""
    model = b.eval("JSON.stringify(hcReport.data.placement)")
    import json
    pl = json.loads(model) if model else []
    c.check(b.eval("!!document.querySelector('section#placement')"), "placement section present")
    blocks = b.eval("document.querySelectorAll('#placement .placement').length")
    c.check(blocks == len(pl), "placement: %d blocks for %d processes in the model" % (blocks, len(pl)))
    for p in pl:
        txt = b.eval("(document.querySelector('#placement .placement[data-process=\"%d\"]') || {}).textContent || ''"
                     % p["process"])
        if p["status"] == "ok":
            c.check((p["omp_places"] is None or "OMP_PLACES='" + p["omp_places"] + "'" in txt) and "hwloc-bind --tid" in txt,
                    "placement of process %d: OMP_PLACES and per-thread commands shown" % p["process"])
        else:
            c.check(("no placement proposed: " + p["why"]) in txt,
                    "placement of process %d: the reason shown (%s)" % (p["process"], p["status"]))


def full_check(b, c, db, html, shot):
    """The whole list, for a report of database `db` written to `html`."""
    url = open_report(b, c, html)
    check_insight(b, c, db)
    check_heatmaps(b, c, db)
    check_objects_sort(b, c, db)
    check_tree(b, c, db)
    check_regions(b, c, db)
    check_placement(b, c, db)
    b.eval("window.scrollTo(0, 0)")
    hover_and_click(b, c, db)
    check_offline(b, c, url)
    check_errors(b, c)
    b.eval("window.scrollTo(0, 0)")
    b.screenshot(shot)
    print("screenshot: " + shot)
