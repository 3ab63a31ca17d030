#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test_formats.py — every non-HTML output of viewer-export checked against the
# database it came from (whose XML must itself validate against doc/*.xsd) (read independently by dbread.py): --json validated
# against doc/report.schema.json and compared value by value, the JSON inside
# report.html identical to --json and free of "</", --csv tables equal to the
# matrices, tree, code pairs and objects, --text within its width at several
# widths, --dot/--metis/--scotch graphs with exactly the non-zero pairs and
# their volumes, the command line's exit codes, and damaged databases refused
# with the damaged file named. Runs on the committed fixture, on a generated
# 64-thread database and, when this machine can measure, on a real comm_bench
# run.
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbread import Database, KINDS, measure  # noqa: E402
from jsonschema_lite import validate  # noqa: E402

B = os.environ.get("HC_BUILDDIR")
S = os.environ.get("HC_SRCDIR")
if not B or not S:
    sys.exit("run through make check (HC_BUILDDIR, HC_SRCDIR)")
VX = os.path.join(B, "viewer-export", "viewer-export")
SCHEMA = json.load(open(os.path.join(S, "doc", "report.schema.json")))
FAILS = 0


def check(cond, what):
    global FAILS
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILS += 1
    return cond


def vx(*args, **kw):
    return subprocess.run([VX] + list(args), capture_output=True, text=True, **kw)


def upper_pairs(m):
    return {(i, j): m[i][j] for i in range(len(m)) for j in range(i + 1, len(m)) if m[i][j]}


def check_schemas(db, name):
    """The synthetic databases must be real ones: valid against the shipped XSDs."""
    if not shutil.which("xmllint"):
        print("note: xmllint not installed (Debian package libxml2-utils); XSD check skipped")
        return
    for f in ("database", "experiment", "objects"):
        path = os.path.join(db.path, f + ".xml")
        if not os.path.exists(path):
            continue
        r = subprocess.run(["xmllint", "--huge", "--noout", "--schema", os.path.join(S, "doc", f + ".xsd"), path],
                           capture_output=True, text=True)
        check(r.returncode == 0, "%s: %s.xml validates against doc/%s.xsd %s" % (name, f, f, r.stderr.strip()[-200:]))


def check_json(db, tmp, name):
    out = os.path.join(tmp, name + ".json")
    r = vx("--json", out, db.path)
    if not check(r.returncode == 0, "%s: --json runs (%s)" % (name, r.stderr.strip())):
        return None
    doc = json.load(open(out, encoding="utf-8"))
    errs = validate(doc, SCHEMA)
    check(not errs, "%s: JSON is valid against doc/report.schema.json %s" % (name, errs[:3]))
    check(doc["unit"] == db.unit and doc["program"] == db.program, "%s: unit and program" % name)
    check(all(doc["totals"][k] == db.totals[k] for k in db.totals), "%s: totals equal database.xml" % name)
    check([l["level"] for l in doc["levels"]] == db.levels, "%s: levels %s" % (name, db.levels))
    same = all(l["matrices"][k]["values"] == db.matrix(l["level"], k) for l in doc["levels"] for k in KINDS)
    check(same, "%s: every matrix value equals the CSV files" % name)
    check(len(doc["threads"]) == len(db.threads) and
          all(str(t["index"]) == r["index"] and (t["tid"] is None) == (r["tid"] == "")
              for t, r in zip(doc["threads"], db.threads)), "%s: threads equal threads.csv" % name)
    nodes = db.nodes()
    check(len(doc["cct"]["nodes"]) == len(nodes), "%s: %d tree nodes" % (name, len(nodes)))
    by_id = {n["id"]: n for n in doc["cct"]["nodes"]}
    bad = 0
    for e in nodes:
        n = by_id.get(int(e.get("i")))
        m = {int(x.get("n")): int(x.get("v")) for x in e.findall("M")}
        if not n or n["type"] != e.tag or n["line"] != int(e.get("l")) or \
                [m.get(2 * b, 0) for b in range(5)] != n["inclusive"] or \
                [m.get(2 * b + 1, 0) for b in range(5)] != n["exclusive"]:
            bad += 1
    check(bad == 0, "%s: node types, lines and metrics equal experiment.xml (%d differ)" % (name, bad))
    cps = [(p["c"], p["p"], p["all"], p["true"], p["false"]) for p in doc["code_pairs"]["pairs"]]
    check(cps == db.code_pairs(), "%s: code pairs equal experiment.xml" % name)
    if db.objects is None:
        check(doc["objects"] is None, "%s: no objects.xml: objects is null" % name)
    else:
        check([(o["name"], o["false"], len(o["cells"])) for o in doc["objects"]] ==
              [(o["name"], o["false"], len(o["cells"])) for o in db.objects], "%s: objects equal objects.xml" % name)

    # the same model is embedded in report.html
    html = os.path.join(tmp, name + ".html")
    r = vx("-o", html, db.path)
    page = open(html, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="hc-data">\n(.*?)</script>', page, re.S)
    check(m is not None and "</" not in m.group(1) and json.loads(m.group(1)) == doc,
          "%s: report.html embeds the same model, with no '</' inside" % name)
    check("default-src 'none'" in page and not re.search(r'(src|href)="(https?:)?//', page),
          "%s: report.html forbids and references no network resource" % name)
    return doc


def check_csv(db, tmp, name):
    d = os.path.join(tmp, name + "-csv")
    r = vx("--csv", d, db.path)
    if not check(r.returncode == 0, "%s: --csv runs (%s)" % (name, r.stderr.strip())):
        return

    def rows(f):
        with open(os.path.join(d, f), newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    for level in db.levels:
        got = rows("pairs-%s.csv" % level)
        ms = {k: db.matrix(level, k) for k in KINDS}
        n = len(ms["all"])
        ok = len(got) == n * (n - 1) // 2 and all(
            int(r[k]) == ms[k][int(r["i"])][int(r["j"])] for r in got for k in KINDS)
        check(ok, "%s: pairs-%s.csv holds the whole upper triangle of the %s matrices" % (name, level, level))
    th = rows("threads.csv")
    m = db.matrix("thread", "all")
    check(len(th) == len(db.threads) and all(int(r["all"]) == sum(m[int(r["index"])]) for r in th),
          "%s: threads.csv: per-thread volume is the matrix row sum" % name)
    cct = rows("cct.csv")
    nodes = {int(e.get("i")): e for e in db.nodes()}
    bad = 0
    for r in cct:
        e = nodes.get(int(r["id"]))
        mv = {int(x.get("n")): int(x.get("v")) for x in e.findall("M")} if e is not None else {}
        if e is None or r["type"] != e.tag or int(r["all_i"]) != mv.get(0, 0) or int(r["false_e"]) != mv.get(5, 0):
            bad += 1
    check(len(cct) == len(nodes) and bad == 0, "%s: cct.csv has every node with its metrics" % name)
    cp = rows("code-pairs.csv")
    check([(int(r["c"]), int(r["p"]) if r["p"] else None, int(r["all"]), int(r["true"]), int(r["false"]))
           for r in cp] == db.code_pairs(), "%s: code-pairs.csv equals the code-pair table" % name)
    summ = {r["key"]: r["value"] for r in rows("summary.csv")}
    check(all(int(summ[k]) == db.totals[k] for k in ("all", "true", "false", "sample", "trap")),
          "%s: summary.csv totals" % name)
    if db.objects is None:
        check(not os.path.exists(os.path.join(d, "objects.csv")), "%s: no objects.csv without objects.xml" % name)
    else:
        ob = rows("objects.csv")
        check([(r["name"], int(r["false"]), int(r["true"])) for r in ob] ==
              [(o["name"], o["false"], o["true"]) for o in db.objects], "%s: objects.csv equals objects.xml" % name)
        cells = rows("object-threads.csv")
        check(len(cells) == sum(len(o["cells"]) for o in db.objects), "%s: object-threads.csv has every cell" % name)


def check_text(db, name):
    for w in (40, 64, 80, 100, 160):
        r = vx("--text", "--width", str(w), db.path)
        lines = r.stdout.split("\n")
        too_long = [l for l in lines if len(l) > w]
        check(r.returncode == 0 and not too_long and "Totals" in r.stdout,
              "%s: --text --width %d: %d lines, none longer%s" % (name, w, len(lines), "" if not too_long else ": %r" % too_long[0]))
    # stdout is a pipe: no width limit, nothing cut — every line of a
    # narrow rendering that was cut ("…") is whole here
    r = vx("--text", db.path)
    wide = vx("--text", "--width", "10000", db.path)
    check(r.returncode == 0 and r.stdout == wide.stdout and "…" not in r.stdout,
          "%s: --text into a pipe: no width limit, nothing cut" % name)
    if db.objects:
        top = sorted(db.objects, key=lambda o: (-o["false"], -o["all"], o["i"]))[0]
        check(top["name"] in r.stdout, "%s: --text into a pipe shows the whole name of the top object %r" % (name, top["name"]))
    i, j, v = max(((i, j, v) for (i, j), v in upper_pairs(db.matrix("thread", "all")).items()),
                  key=lambda x: x[2], default=(0, 0, 0))
    if v:
        check(re.search(r"^\s+1\s+%d ↔ %d\s" % (i, j), r.stdout, re.M) is not None,
              "%s: --text ranks pair %d ↔ %d first" % (name, i, j))
    if db.objects is None:
        check("no object data in this database" in r.stdout, "%s: --text says there is no object data" % name)
    elif not db.objects:
        check("no data object took part in communication" in r.stdout,
              "%s: --text says no data object took part" % name)
    else:
        top = sorted(db.objects, key=lambda o: (-o["false"], -o["all"], o["i"]))[0]["name"]
        sec = r.stdout.split("Top data objects")[1]
        check(re.search(r"^\s+1\s+%s\s" % re.escape(top), sec, re.M) is not None,
              "%s: --text lists %s first among objects" % (name, top))
        # a row names at most 8 fields and says how many more there are
        sec = sec.split("\n\n")[0]
        for o in db.objects:
            fields = o.get("fields") or []
            row = [l for l in sec.split("\n") if re.search(r"^\s+\d+\s+%s\s" % re.escape(o["name"]), l)]
            if len(fields) <= 8 or not row:
                continue
            check("%d more (objects.xml)" % (len(fields) - 8) in row[0] and fields[8] + " " not in row[0],
                  "%s: --text names 8 of %s's %d fields and counts the rest" % (name, o["name"], len(fields)))


def check_graphs(db, tmp, name):
    for level, kind in (("thread", "all"), ("core", "false"), ("thread", "true")):
        m = db.matrix(level, kind)
        want = upper_pairs(m)
        n = len(m)
        dot = os.path.join(tmp, "g.dot")
        r = vx("--dot", dot, "--level", level, "--kind", kind, db.path)
        text = open(dot).read() if r.returncode == 0 else ""
        nodes = re.findall(r"^  n(\d+) \[label=\"(?:[^\"\\]|\\.)*\"", text, re.M)
        edges = {(int(a), int(b)): int(v) for a, b, v in
                 re.findall(r"^  n(\d+) -- n(\d+) \[volume=(\d+),", text, re.M)}
        check(text.startswith("// ") and "\ngraph comm {\n" in text and text.rstrip().endswith("}") and
              text.count("{") == text.count("}") and [int(x) for x in nodes] == list(range(n)) and edges == want,
              "%s: --dot %s/%s: %d nodes, edges = the %d non-zero pairs with their volumes"
              % (name, level, kind, n, len(want)))
        met = os.path.join(tmp, "g.metis")
        r = vx("--metis", met, "--level", level, "--kind", kind, db.path)
        lines = [l for l in open(met).read().split("\n") if not l.startswith("%")] if r.returncode == 0 else [""]
        div = int(re.search(r"/ (\d+)", open(met).read()).group(1)) if r.returncode == 0 else 1
        hn, hm, fmt = lines[0].split()
        adj = {}
        for v in range(n):
            f = [int(x) for x in lines[1 + v].split()]
            for k in range(0, len(f), 2):
                adj[(v, f[k] - 1)] = f[k + 1]
        sym = all(adj.get((b, a)) == w for (a, b), w in adj.items())
        check(int(hn) == n and int(hm) == len(want) and fmt == "001" and sym and
              all(adj.get((a, b)) == max(1, v // div) for (a, b), v in want.items()) and len(adj) == 2 * len(want),
              "%s: --metis %s/%s: header, symmetric adjacency and weights" % (name, level, kind))
        sco = os.path.join(tmp, "g.grf")
        r = vx("--scotch", sco, "--level", level, "--kind", kind, db.path)
        tok = open(sco).read().split() if r.returncode == 0 else ["x"]
        ok = tok[0] == "0" and int(tok[1]) == n and int(tok[2]) == 2 * len(want) and tok[3] == "0" and tok[4] == "010"
        pos, arcs = 5, {}
        for v in range(n):
            deg = int(tok[pos])
            pos += 1
            for _ in range(deg):
                arcs[(v, int(tok[pos + 1]))] = int(tok[pos])
                pos += 2
        ok = ok and pos == len(tok) and all(arcs.get((a, b)) == max(1, v // div) and arcs.get((b, a)) == max(1, v // div)
                                            for (a, b), v in want.items()) and len(arcs) == 2 * len(want)
        check(ok, "%s: --scotch %s/%s: version 0, %d arcs, loads = volumes" % (name, level, kind, 2 * len(want)))


def check_cli(db, tmp):
    r = vx(db.path, "--width", "5")
    check(r.returncode == 2 and "--width" in r.stderr, "usage error: bad --width exits 2")
    r = vx("--level", "rack", db.path)
    check(r.returncode == 2, "usage error: bad --level exits 2")
    r = vx()
    check(r.returncode == 2 and "database" in r.stderr, "usage error: no database exits 2")
    r = vx("-o", os.path.join(tmp, "x"), "--json", os.path.join(tmp, "x.json"), db.path)
    check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "x.json")), "usage error: -o without --html/--text exits 2")
    r = vx("--csv", db.path, db.path)
    check(r.returncode == 1 and "is the database directory" in r.stderr, "--csv into the database itself is refused")
    r = vx("--help")
    check(r.returncode == 0 and "--scotch" in r.stdout and "--json" in r.stdout, "--help lists the exporters")
    r = vx("--text", "--level", "numa", os.path.join(tmp, "nonexistent"))
    check(r.returncode == 1 and "nonexistent/database.xml: No such file or directory" in r.stderr,
          "missing database: exit 1, names database.xml: %s" % r.stderr.strip())
    # a damaged database is refused, with the file named, and no report is left behind
    cases = [
        ("threads.csv", lambda t: t.replace("index,process", "idx,process"), "threads.csv:1: header"),
        ("experiment.xml", lambda t: t[: len(t) // 2], "experiment.xml:"),
        ("matrices/thread-all.csv", lambda t: "\n".join(t.split("\n")[:-2]) + "\n", "thread-all.csv:"),
        ("matrices/thread-false.csv", lambda t: t.replace("9000000", "9000001", 1), "thread-false.csv:"),
        ("database.xml", lambda t: t.replace('version="1"', 'version="7"', 1), "database.xml:2: format version 7"),
        ("objects.xml", lambda t: t.replace("</Objects>", ""), "objects.xml:"),
    ]
    for rel, mutate, msg in cases:
        d = os.path.join(tmp, "damaged")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(S, "tests", "viewer", "fixtures", "small"), d)
        p = os.path.join(d, rel)
        with open(p, encoding="utf-8") as f:
            t = f.read()
        with open(p, "w", encoding="utf-8") as f:
            f.write(mutate(t))
        r = vx(d)
        check(r.returncode == 1 and msg in r.stderr and r.stderr.startswith("viewer-export: " + d) and
              not os.path.exists(os.path.join(d, "report.html")),
              "damaged %s: exit 1, '%s'" % (rel, r.stderr.strip()[:160]))


def main():
    tmp = tempfile.mkdtemp(prefix="hc-vx-fmt-")
    try:
        dbs = [("fixture", Database(os.path.join(S, "tests", "viewer", "fixtures", "small")))]
        big = os.path.join(tmp, "big")
        subprocess.run([sys.executable, os.path.join(S, "tests", "viewer", "make_db.py"), "big", big,
                        "--threads", "64", "--nodes", "5000", "--seed", "3"], check=True)
        dbs.append(("big", Database(big)))
        hpcrun = os.path.join(B, "hpcrun-comm", "hpcrun-comm")
        if subprocess.run([hpcrun, "-L"], capture_output=True).returncode == 0:
            m, d = os.path.join(tmp, "M"), os.path.join(tmp, "DB")
            r1 = measure([hpcrun, "-o", m, "-e", "COMM@200000", os.path.join(B, "tests", "programs", "comm_bench"),
                          "pairs", "-t", "4", "-s", "1"])
            r2 = subprocess.run([os.path.join(B, "hpcprof-comm", "hpcprof-comm"), "-q", "-o", d, m], capture_output=True)
            if check(r1.returncode == 0 and r2.returncode == 0, "real run measured and analysed"):
                dbs.append(("run", Database(d)))
        else:
            print("note: this machine cannot measure; checking the fixture only")
        for name, db in dbs:
            check_schemas(db, name)
            check_json(db, tmp, name)
            check_csv(db, tmp, name)
            check_text(db, name)
            check_graphs(db, tmp, name)
        check_cli(dbs[0][1], tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % FAILS)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
