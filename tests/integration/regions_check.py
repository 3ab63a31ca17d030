#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""regions_check.py — checks of a database's code regions (regions.xml,
regions.csv; doc/regions.md), used by regions.sh.

  regions_check.py DB consistency
      the root's inclusive matrix is the whole-program thread matrix; the
      exclusive matrices of all regions sum to it cell by cell; every
      region's inclusive cells are at most its parent's; exclusive <=
      inclusive; the XML totals are the CSV's sums.
  regions_check.py DB loop FUNC LINE CELLS MIN
      prints the volume of FUNC's loop region at source line LINE and exits
      1 unless it exists and holds >= MIN of its inclusive volume on CELLS
      ("1-2,2-3": thread indexes of threads.csv); exit 3 when the loop has
      no volume (the caller retries the measurement).
"""
import csv
import sys
import xml.etree.ElementTree as ET


def load(db):
    root = ET.parse(db + "/regions.xml").getroot()
    regs = {}

    def walk(e, parent):
        i = int(e.get("i"))
        regs[i] = {"e": e, "parent": parent, "cells": {}}
        for c in e.findall("Region"):
            walk(c, i)
    walk(root.find("Region"), None)
    with open(db + "/regions.csv") as f:
        r = csv.reader(f)
        head = next(r)
        assert head == ["region", "row", "column", "true", "false", "excl_true", "excl_false"], head
        for row in r:
            reg, i, j, t, fa, xt, xf = map(int, row)
            regs[reg]["cells"][(i, j)] = (t, fa, xt, xf)
    # cells="parent" (version 2) or cells="K" (version 3, K < i): that
    # region's inclusive cells, the rows give the exclusive ones (it comes
    # first in i order)
    for i in sorted(regs):
        r = regs[i]
        of = r["e"].get("cells")
        if of is not None:
            src = r["parent"] if of == "parent" else int(of)
            assert src is not None and src < i, (i, of)
            own = r["cells"]
            pc = regs[src]["cells"]
            assert all(k in pc and pc[k][:2] == v[:2] for k, v in own.items()), i
            r["cells"] = {k: (v[0], v[1]) + (own[k][2:] if k in own else (0, 0))
                          for k, v in pc.items()}
    return regs


def thread_matrix(db):
    cells = {}
    for kind, k in (("true", 0), ("false", 1)):
        with open("%s/matrices/thread-%s.csv" % (db, kind)) as f:
            rows = list(csv.reader(f))
        if rows[0] == ["row", "column", "value"]:
            for i, j, v in rows[1:]:
                c = cells.setdefault((int(i), int(j)), [0, 0])
                c[k] += int(v)
        else:
            for i, row in enumerate(rows[1:]):
                for j, v in enumerate(row[1:]):
                    if i < j and int(v):
                        c = cells.setdefault((i, j), [0, 0])
                        c[k] += int(v)
    return {k: tuple(v) for k, v in cells.items()}


def consistency(db):
    regs = load(db)
    bad = []
    whole = thread_matrix(db)
    rootc = {k: (v[0], v[1]) for k, v in regs[0]["cells"].items()}
    if rootc != whole:
        bad.append("root inclusive != thread matrix")
    excl = {}
    for i, r in regs.items():
        e = r["e"]
        st = sum(v[0] for v in r["cells"].values())
        sf = sum(v[1] for v in r["cells"].values())
        if st != int(e.get("true")) or sf != int(e.get("false")):
            bad.append("region %d: XML totals are not the CSV sums" % i)
        for k, v in r["cells"].items():
            if v[2] > v[0] or v[3] > v[1]:
                bad.append("region %d cell %s: exclusive > inclusive" % (i, k))
            x = excl.setdefault(k, [0, 0])
            x[0] += v[2]
            x[1] += v[3]
            if r["parent"] is not None:
                p = regs[r["parent"]]["cells"].get(k, (0, 0, 0, 0))
                if v[0] > p[0] or v[1] > p[1]:
                    bad.append("region %d cell %s: inclusive above its parent's" % (i, k))
    excl = {k: tuple(v) for k, v in excl.items() if v != [0, 0]}
    if excl != whole:
        bad.append("exclusive matrices do not sum to the thread matrix")
    procs = [r for r in regs.values() if r["e"].get("kind") in ("procedure", "parallel")]
    print("regions: %d (%d procedures/parallel regions, %d loops), whole-program cells %d" %
          (len(regs), len(procs), sum(1 for r in regs.values() if r["e"].get("kind") == "loop"),
           len(whole)))
    for b in bad[:20]:
        print("FAIL: " + b)
    return 1 if bad else 0


def loop(db, func, line, cells, minshare):
    regs = load(db)
    want = set()
    for c in cells.split(","):
        a, b = sorted(map(int, c.split("-")))
        want.add((a, b))
    found = None
    for i, r in regs.items():
        e = r["e"]
        if e.get("kind") != "loop" or int(e.get("l", 0)) != int(line):
            continue
        p = r["parent"]
        while p is not None and regs[p]["e"].get("kind") == "loop":
            p = regs[p]["parent"]
        if p is not None and regs[p]["e"].get("n") == func:
            found = r
    if found is None:
        names = ["%s %s:%s" % (r["e"].get("kind"), r["e"].get("n"), r["e"].get("l"))
                 for r in regs.values()]
        print("no loop of %s at line %s among: %s" % (func, line, "; ".join(names)))
        return 3
    tot = sum(v[0] + v[1] for v in found["cells"].values())
    on = sum(v[0] + v[1] for k, v in found["cells"].items() if k in want)
    if tot == 0:
        print("loop at line %s: no volume" % line)
        return 3
    share = on / tot
    print("loop %s (line %s): volume %d, %.3f on %s, cells %s" %
          (found["e"].get("n"), line, tot, share, cells, sorted(found["cells"])))
    return 0 if share >= float(minshare) else 1


if __name__ == "__main__":
    if sys.argv[2] == "consistency":
        sys.exit(consistency(sys.argv[1]))
    sys.exit(loop(sys.argv[1], *sys.argv[3:7]))
