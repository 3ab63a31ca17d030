#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test_browser_views.py — the phase timeline and the NUMA locality view of
# report.html in a real headless Chromium, on real runs (issue #18):
# views_prog "phases" (a ring, then pairs across it) measured, analysed and
# exported; the page must load without console errors or network requests,
# draw one bar per window and one band per phase of phases.xml, and a real
# mouse hover over a window of each phase must show that phase's heatmap
# with exactly its cells (the ring's in phase 1, the pairs' in phase 2). The
# one-node run says "single NUMA domain". Then views_prog "numa" with an
# injected two-node page map and a synthetic two-node topology: the locality
# table flags the object on node 1 (100 % remote) and not the local one.
# Screenshot: tests/viewer/report-phases.png in the build tree.
# Exit 77 (SKIP) without chromium, hwloc's lstopo or when this machine
# cannot measure.
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from browser_checks import Checker, check_errors, check_offline, open_report  # noqa: E402
from dbread import measure  # noqa: E402

B = os.environ.get("HC_BUILDDIR")
if not B:
    sys.exit("run through make check (HC_BUILDDIR)")
HPCRUN = os.path.join(B, "hpcrun-comm", "hpcrun-comm")
HPCPROF = os.path.join(B, "hpcprof-comm", "hpcprof-comm")
PROG = os.path.join(B, "tests", "programs", "views_prog")
VX = os.path.join(B, "viewer-export", "viewer-export")
OUT = os.path.join(B, "tests", "viewer")

if not os.path.exists(cdp.CHROMIUM):
    print("SKIP: %s not installed (Debian package chromium)" % cdp.CHROMIUM)
    sys.exit(77)
if not shutil.which("lstopo-no-graphics"):
    print("SKIP: lstopo-no-graphics (hwloc) missing")
    sys.exit(77)
probe = subprocess.run([HPCRUN, "-L"], capture_output=True, text=True)
if probe.returncode != 0:
    print(probe.stdout + probe.stderr)
    print("SKIP: this machine cannot measure")
    sys.exit(77)

os.makedirs(OUT, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="hc-vx-views-")
c = Checker("views")
b = None


def run(name, args, env=None, topo=None):
    m, d = os.path.join(tmp, name), os.path.join(tmp, name + ".db")
    r = measure([HPCRUN, "-o", m, "-e", "COMM@100000", PROG] + args) if env is None else \
        subprocess.run([HPCRUN, "-o", m, "-e", "COMM@100000", PROG] + args, capture_output=True,
                       text=True, env=dict(os.environ, **env))
    c.check(r.returncode == 0, "hpcrun-comm views_prog %s (rc %d) %s" % (" ".join(args), r.returncode, r.stderr[-300:]))
    for t in glob.glob(os.path.join(m, "topology-*.xml")) if topo else []:
        subprocess.run(["lstopo-no-graphics", "--if", "synthetic", "--input", topo, "--of", "xml", "-f", t], check=True)
    r = subprocess.run([HPCPROF, "-q", "-o", d, m], capture_output=True, text=True)
    c.check(r.returncode == 0, "hpcprof-comm (rc %d) %s" % (r.returncode, r.stderr[-300:]))
    html = os.path.join(tmp, name + ".html")
    r = subprocess.run([VX, "-o", html, d], capture_output=True, text=True)
    if not c.check(r.returncode == 0 and os.path.exists(html), "viewer-export: %s" % r.stderr.strip()):
        raise SystemExit(1)
    return d, html


try:
    d, html = run("ph", ["phases", "-s", "1.5"])
    root = ET.parse(os.path.join(d, "phases.xml")).getroot()
    phases = root.findall("Phase")
    nwin = len(root.findall("Window"))
    c.check(len(phases) == 2, "the database holds two phases (%d)" % len(phases))
    b = cdp.Browser()
    url = open_report(b, c, html)
    bars = b.eval("document.querySelectorAll('#phase-timeline .phase-bar').length")
    bands = b.eval("document.querySelectorAll('#phase-timeline .phase-band').length")
    c.check(bars == nwin, "timeline: one bar per window (%d of %d)" % (bars, nwin))
    c.check(bands == len(phases), "timeline: one band per phase (%d of %d)" % (bands, len(phases)))
    for k, p in enumerate(phases):
        w = (int(p.get("first")) + int(p.get("last"))) // 2
        pos = b.eval("(() => { const r = document.querySelector('#phase-timeline .phase-bar[data-window=\"%d\"]');"
                     " r.scrollIntoView({block: 'center'}); const q = r.getBoundingClientRect();"
                     " return {x: q.left + q.width / 2, y: q.bottom - 2}; })()" % w)
        b.mouse("mouseMoved", pos["x"], pos["y"])
        shown = b.eval("hcReport.phaseShown()")
        c.check(shown == k, "hover over window %d shows phase %d (%r)" % (w, k + 1, shown))
        want = {(int(t.get("i")), int(t.get("j"))): int(t.get("all")) for t in p.findall("T")}
        got = b.eval("[...document.querySelectorAll('#phase-heatmap rect[data-i]')]"
                     ".map(r => [+r.dataset.i, +r.dataset.j, +r.dataset.v])")
        gotd = {(x[0], x[1]): x[2] for x in got}
        c.check(gotd == want and len(got) == 2 * len(want),
                "phase %d heatmap: its %d cells, both triangles, with the database values" % (k + 1, len(want)))
        title = b.eval("document.getElementById('phase-title').textContent")
        c.check(title.startswith("Phase %d of %d" % (k + 1, len(phases))), "phase detail title: %r" % title)
    ring = {(1, 2), (2, 3), (3, 4), (1, 4)}
    first = {(int(t.get("i")), int(t.get("j"))) for t in phases[0].findall("T")} if phases else set()
    c.check(ring <= first, "the first phase holds the ring cells")
    single = b.eval("(document.getElementById('locality-single') || {}).textContent")
    if os.path.exists("/sys/devices/system/node/node1"):
        print("note: multi-node host, the single-domain message is not checked")
    else:
        c.check(single == "single NUMA domain: every access is local", "one node: %r" % single)
    check_offline(b, c, url)
    check_errors(b, c)
    b.eval("document.getElementById('phases').scrollIntoView()")
    shot = os.path.join(OUT, "report-phases.png")
    b.screenshot(shot, full=False)
    print("screenshot: " + shot)
    b.close()
    b = None

    mapf = os.path.join(tmp, "map.txt")
    with open(mapf, "w") as f:
        # X and Z on node 0, Y on node 1, at each base views_prog may use
        for base in (0x100080000000, 0x3e0000000000, 0x200000000000):
            for k, node in enumerate((0, 1, 0)):
                lo = base + k * 0x200000
                f.write("0x%x 0x%x %d\n" % (lo, lo + 0x10000, node))
    # Y is flagged when it is remote and holds at least 1 % of the located
    # volume: what the sampler found on it in its second of the run is
    # chance (a CI run under ASan and load found Y 100 % remote with too
    # little volume to flag): measured again, at most 3 runs, until it is.
    for attempt in range(3):
        if b:
            b.close()
            b = None
        d, html = run("nu%d" % attempt if attempt else "nu", ["numa", "-s", "1"],
                      env={"HPCRUN_COMM_NUMA_MAP": mapf}, topo="numa:2 pu:1")
        b = cdp.Browser()
        open_report(b, c, html)
        rows = b.eval("[...document.querySelectorAll('#locality-table tbody tr')]"
                      ".map(r => [r.dataset.name, +r.dataset.share, r.classList.contains('flagged'), r.children[1].textContent])")
        print("locality rows:", rows)
        remote = [r for r in rows if r[3] == "node 1: 100.0%"]
        if len(remote) == 1 and remote[0][2]:
            break
        print("note: run %d: the object on node 1 not flagged (too little volume on it?): measuring again" % (attempt + 1))
    # the mmap'd X (node 0, main's thread only); the barrier `bar` (static,
    # waited on by every thread) may be sampled too and is not judged
    local = [r for r in rows if r[1] == 0 and r[0].startswith("x = mmap")]
    c.check(len(remote) == 1 and remote[0][1] == 1 and remote[0][2], "the object on node 1 is 100% remote and flagged")
    c.check(len(local) == 1 and not local[0][2], "the local object is not flagged")
    check_errors(b, c)
finally:
    if b:
        b.close()
    shutil.rmtree(tmp, ignore_errors=True)
print("%d failure(s)" % c.failures)
sys.exit(1 if c.failures else 0)
