#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# make_db.py — write a synthetic hpcprof-comm database directory that follows
# doc/database-format.md exactly (and doc/viewer-export.md for objects.xml), for
# the viewer-export tests: consistent by construction (symmetric matrices with
# a zero diagonal, all = true + false everywhere, totals that match the tree's
# root, code pairs under both ends). Two shapes:
#   small  5 threads, a designed hot false-sharing pair (1,2) on object
#          "false_line" (fields w[1], w[2]), true sharing between 3 and 4 on
#          "true_line", heap and stack objects; the committed fixture
#          tests/viewer/fixtures/small was written by `make_db.py small DIR`.
#   big    --threads N --nodes M: an N-thread matrix with a designed hot pair
#          and an M-node calling-context tree, deep and wide, for the
#          scalability test of report.html.
# Python 3 standard library only.
import argparse
import os
import random
import sys
from xml.sax.saxutils import quoteattr

UNIT_TEXT = "estimated CPU nanoseconds in communicating accesses"
KINDS = ("all", "true", "false")


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def matrix_csv(m):
    n = len(m)
    lines = ["," + ",".join(str(j) for j in range(n))]
    for i in range(n):
        lines.append(str(i) + "," + ",".join(str(v) for v in m[i]))
    return "\n".join(lines) + "\n"


def sym(n):
    return [[0] * n for _ in range(n)]


def upper(m):
    return sum(m[i][j] for i in range(len(m)) for j in range(i + 1, len(m)))


class Tree:
    """Calling-context tree: nodes with id, parent, type, attrs, exclusive
    metrics [all, true, false, sample, trap]."""

    def __init__(self):
        self.nodes = []          # dicts, in creation order
        self.children = {0: []}

    def add(self, parent, typ, **attrs):
        nid = len(self.nodes) + 1
        node = dict(id=nid, parent=parent, type=typ, attrs=attrs, exc=[0] * 5)
        self.nodes.append(node)
        self.children.setdefault(parent, []).append(nid)
        self.children[nid] = []
        return nid

    def node(self, nid):
        return self.nodes[nid - 1]

    def set_exc(self, nid, true, false, trap_share=0.3):
        allv = true + false
        trap = int(allv * trap_share)
        self.node(nid)["exc"] = [allv, true, false, allv - trap, trap]

    def inclusive(self):
        inc = {}
        # children always have larger ids than their parents
        for node in reversed(self.nodes):
            v = list(node["exc"])
            for c in self.children[node["id"]]:
                v = [a + b for a, b in zip(v, inc[c])]
            inc[node["id"]] = v
        root = [0] * 5
        for c in self.children[0]:
            root = [a + b for a, b in zip(root, inc[c])]
        return inc, root

    def frame_exclusive(self, nid):
        """E of a PF/A: sum over its S and C (and those of inlined A's)."""
        total = [0] * 5
        for c in self.children[nid]:
            t = self.node(c)["type"]
            if t in ("S", "C"):
                total = [a + b for a, b in zip(total, self.node(c)["exc"])]
            elif t == "A":
                total = [a + b for a, b in zip(total, self.frame_exclusive(c))]
        return total

    def xml(self, out):
        inc, root = self.inclusive()
        for b in range(5):
            if root[b]:
                out.append('<M n="%d" v="%d"/>' % (2 * b, root[b]))
        # iterative depth-first writer (trees may be deep)
        stack = [(c, False) for c in reversed(self.children[0])]
        while stack:
            nid, closing = stack.pop()
            node = self.node(nid)
            t = node["type"]
            if closing:
                out.append("</%s>" % t)
                continue
            a = node["attrs"]
            if t == "PF":
                head = '<PF i="%d" n="%d" lm="%d" f="%d" l="%d">' % (nid, a["n"], a["lm"], a["f"], a["l"])
            elif t == "A":
                head = '<A i="%d" n="%d" f="%d" l="%d">' % (nid, a["n"], a["f"], a["l"])
            else:
                head = '<%s i="%d" f="%d" l="%d">' % (t, nid, a["f"], a["l"])
            out.append(head)
            exc = node["exc"] if t in ("S", "C") else self.frame_exclusive(nid)
            for b in range(5):
                if inc[nid][b]:
                    out.append('<M n="%d" v="%d"/>' % (2 * b, inc[nid][b]))
                if exc[b]:
                    out.append('<M n="%d" v="%d"/>' % (2 * b + 1, exc[b]))
            stack.append((nid, True))
            for c in reversed(self.children[nid]):
                stack.append((c, False))
        return root


def distribute(total, parts, rng):
    """Split integer total into `parts` non-negative integers (exact sum)."""
    if parts == 1:
        return [total]
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def write_db(out, d):
    """d: dict with threads, matrices by level, tree, tables, pairs, objects."""
    os.makedirs(os.path.join(out, "matrices"), exist_ok=True)
    n = d["nthreads"]
    inc_root = None

    # experiment.xml first (its root totals go into database.xml)
    x = ['<?xml version="1.0" encoding="UTF-8"?>',
         '<HPCToolkitExperiment version="1" generator="make_db.py">',
         '<Header n=%s><Info>' % quoteattr(d["program"]),
         '<NV n="unit" v="ns"/><NV n="unit-text" v=%s/>' % quoteattr(UNIT_TEXT),
         '<NV n="samplers" v="soft"/><NV n="processes" v="1"/><NV n="threads" v="%d"/>' % n,
         '</Info></Header>',
         '<SecCallPathProfile i="0" n=%s><SecHeader><MetricTable>' % quoteattr(d["program"])]
    for b, kind in enumerate(("all", "true", "false", "sample", "trap")):
        for e, t in enumerate(("inclusive", "exclusive")):
            i = 2 * b + e
            x.append('<Metric i="%d" n="comm-%s (%s)" kind="%s" t="%s" partner="%d" unit="ns"/>'
                     % (i, kind, "IE"[e], kind, t, i ^ 1))
    x.append("</MetricTable><LoadModuleTable>")
    for i, name in enumerate(d["lms"]):
        x.append('<LoadModule i="%d" n=%s/>' % (i, quoteattr(name)))
    x.append("</LoadModuleTable><FileTable>")
    for i, name in enumerate(d["files"]):
        x.append('<File i="%d" n=%s/>' % (i, quoteattr(name)))
    x.append("</FileTable><ProcedureTable>")
    for i, (name, lm, f, l) in enumerate(d["procs"]):
        x.append('<Procedure i="%d" n=%s lm="%d" f="%d" l="%d"/>' % (i, quoteattr(name), lm, f, l))
    x.append("</ProcedureTable></SecHeader><SecCallPathProfileData>")
    inc_root = d["tree"].xml(x)
    x.append('</SecCallPathProfileData><CodePairTable top="10">')
    for c, p, t, f in d["pairs"]:
        pa = ' p="%d"' % p if p else ""
        x.append('<CP c="%d"%s all="%d" true="%d" false="%d"/>' % (c, pa, t + f, t, f))
    x.append("</CodePairTable></SecCallPathProfile></HPCToolkitExperiment>")
    write(os.path.join(out, "experiment.xml"), "\n".join(x) + "\n")

    # matrices
    mats = []
    for level, (m_true, m_false, diag, unplaced) in d["levels"].items():
        m_all = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(m_true, m_false)]
        for kind, m in (("all", m_all), ("true", m_true), ("false", m_false)):
            fname = "matrices/%s-%s.csv" % (level, kind)
            write(os.path.join(out, fname), matrix_csv(m))
            mats.append('<Matrix level="%s" kind="%s" file="%s" unit="ns" n="%d" total="%d" '
                        'diagonal="%d" unplaced="%d"/>' % (level, kind, fname, len(m), upper(m),
                                                           diag[kind], unplaced[kind]))

    # threads.csv
    rows = ["index,process,pid,thread,tid,creator,start_routine,creation_context,cpus,sampler,period,profile"]
    for t in range(n):
        if t == 0:
            rows.append("0,0,4242,0,4242,,,,0,soft,200000,m/app-000000-000-0a1b2c3d-4242-0.hcprof")
        else:
            rows.append('%d,0,4242,%d,%d,0,%s,%s,%s,soft,200000,m/app-000000-%03d-0a1b2c3d-4242-0.hcprof'
                        % (t, t, 4242 + t, d["start_routine"], d["creation_context"],
                           "%d" % (t % 2) if t % 3 else "0-1", t))
    write(os.path.join(out, "threads.csv"), "\n".join(rows) + "\n")

    tot = inc_root
    events = d.get("events", 57)
    meta = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<Database version="1" generator="make_db.py">',
            '  <Measurement unit="ns" unit-text=%s samplers="soft"/>' % quoteattr(UNIT_TEXT),
            '  <Inputs><Input path="m"/></Inputs>',
            '  <Profiles found="%d" read="%d" skipped="0"/>' % (n, n),
            '  <Hosts><Host i="0" id="0a1b2c3d" topology="m/topology-0a1b2c3d.xml" pus="2" '
            'cores="2" sockets="1" numa="1"/></Hosts>',
            '  <Processes><Process i="0" host="0a1b2c3d" pid="4242" ppid="1" gen="0" exe=%s '
            'start-ns="1000" threads="%d" first-thread="0"/></Processes>' % (quoteattr(d["exe"]), n),
            '  <Matrices unit="ns">'] + ["    " + m for m in mats] + ['  </Matrices>']
    ncpu = len(d["levels"]["core"][0])
    meta.append('  <Labels level="core">')
    for c in range(ncpu):
        meta.append('    <Label i="%d" host="0a1b2c3d" cpu="%d" core="%d" socket="0" numa="0"/>' % (c, c, c))
    meta.append('  </Labels>')
    meta.append('  <Labels level="socket"><Label i="0" host="0a1b2c3d" socket="0"/></Labels>')
    meta.append('  <Labels level="numa"><Label i="0" host="0a1b2c3d" numa="0"/></Labels>')
    meta.append('  <Totals all="%d" true="%d" false="%d" sample="%d" trap="%d" events="%d" '
                'event-weight="%d"/>' % (tot[0], tot[1], tot[2], tot[3], tot[4], events, tot[0]))
    meta.append('  <Counters><Counter n="samples" v="%d"/><Counter n="traps" v="%d"/></Counters>'
                % (events * 100, events * 3))
    meta.append('</Database>')
    write(os.path.join(out, "database.xml"), "\n".join(meta) + "\n")

    if d.get("objects") is not None:
        o = ['<?xml version="1.0" encoding="UTF-8"?>', '<Objects version="1" unit="ns">']
        for i, ob in enumerate(d["objects"]):
            extra = " module=%s" % quoteattr(ob.get("module", ""))
            if ob.get("context"):
                extra += ' context="%d"' % ob["context"]
            cells = ob["cells"]
            t = sum(c[2] for c in cells)
            f = sum(c[3] for c in cells)
            o.append('  <Object i="%d" kind="%s" name=%s%s size="%d" blocks="%d" all="%d" true="%d" '
                     'false="%d">' % (i, ob["kind"], quoteattr(ob["name"]), extra, ob["size"],
                                      ob.get("blocks", 1), t + f, t, f))
            for (a, b, ct, cf) in cells:
                o.append('    <T i="%d" j="%d" all="%d" true="%d" false="%d"/>' % (a, b, ct + cf, ct, cf))
            for (name, off, size, ft, ff, thr) in ob.get("fields", []):
                o.append('    <Field name=%s offset="%d" size="%d" all="%d" true="%d" false="%d" '
                         'threads="%s"/>' % (quoteattr(name), off, size, ft + ff, ft, ff,
                                             " ".join(str(x) for x in thr)))
            for (c, p, ct, cf) in ob.get("pairs", []):
                o.append('    <CP c="%d" p="%d" all="%d" true="%d" false="%d"/>' % (c, p, ct + cf, ct, cf))
            o.append('  </Object>')
        o.append('</Objects>')
        write(os.path.join(out, "objects.xml"), "\n".join(o) + "\n")
    write(os.path.join(out, "summary.txt"), "synthetic database written by make_db.py\n")


def core_level(thread_true, thread_false, cpu_of, ncpu):
    """Fold thread matrices onto CPUs; what lands on one CPU is the diagonal."""
    res = []
    for m in (thread_true, thread_false):
        c = sym(ncpu)
        diag = 0
        for i in range(len(m)):
            for j in range(i + 1, len(m)):
                a, b = cpu_of(i), cpu_of(j)
                if a == b:
                    diag += m[i][j]
                else:
                    c[a][b] += m[i][j]
                    c[b][a] += m[i][j]
        res.append((c, diag))
    (ct, dt), (cf, df) = res
    return ct, cf, {"all": dt + df, "true": dt, "false": df}


def finish_levels(d, m_true, m_false, cpu_of, ncpu):
    zero = {"all": 0, "true": 0, "false": 0}
    ct, cf, cdiag = core_level(m_true, m_false, cpu_of, ncpu)
    t_all = upper(m_true) + upper(m_false)
    d["levels"] = {
        "thread": (m_true, m_false, zero, zero),
        "core": (ct, cf, cdiag, zero),
        # one socket: everything is on its diagonal
        "socket": (sym(1), sym(1), {"all": t_all, "true": upper(m_true), "false": upper(m_false)}, zero),
        "numa": (sym(1), sym(1), {"all": t_all, "true": upper(m_true), "false": upper(m_false)}, zero),
    }


def small(out):
    n = 5
    mt, mf = sym(n), sym(n)

    def put(m, i, j, v):
        m[i][j] = m[j][i] = v

    put(mf, 1, 2, 9000000)   # the designed hot pair: false sharing on false_line
    put(mt, 1, 2, 400000)
    put(mt, 3, 4, 3000000)   # true sharing on true_line
    put(mf, 3, 4, 200000)
    put(mf, 2, 3, 600000)    # heap object shared by 2 and 3
    put(mt, 1, 4, 250000)
    put(mf, 0, 1, 50000)     # main thread, stack
    d = dict(nthreads=n, program="comm_bench", exe="/opt/bench/comm_bench",
             start_routine="worker", creation_context=3,
             lms=["<unknown>", "/opt/bench/comm_bench", "/lib/x86_64-linux-gnu/libc.so.6"],
             files=["<unknown file>", "/src/bench/comm_bench.c", "/src/glibc/pthread_create.c"],
             procs=[("main", 1, 1, 200), ("start_thread", 2, 2, 400), ("worker", 1, 1, 150),
                    ("false_kernel", 1, 1, 60), ("true_kernel", 1, 1, 80), ("bump", 1, 1, 40)])
    tr = Tree()
    pf_main = tr.add(0, "PF", n=0, lm=1, f=1, l=200)
    c_create = tr.add(pf_main, "C", f=1, l=220)          # id 2
    tr.add(pf_main, "C", f=1, l=221)                      # id 3: creation context
    s_stack = tr.add(pf_main, "S", f=1, l=230)            # id 4
    tr.set_exc(s_stack, 0, 50000)
    pf_start = tr.add(0, "PF", n=1, lm=2, f=2, l=400)
    c_w = tr.add(pf_start, "C", f=2, l=442)
    pf_worker = tr.add(c_w, "PF", n=2, lm=1, f=1, l=150)
    c_fk = tr.add(pf_worker, "C", f=1, l=160)
    pf_fk = tr.add(c_fk, "PF", n=3, lm=1, f=1, l=60)
    s_f1 = tr.add(pf_fk, "S", f=1, l=64)       # *f = *f + 1 (false_line.w[w])
    tr.set_exc(s_f1, 400000, 9000000 + 600000)
    c_tk = tr.add(pf_worker, "C", f=1, l=161)
    pf_tk = tr.add(c_tk, "PF", n=4, lm=1, f=1, l=80)
    a_bump = tr.add(pf_tk, "A", n=5, f=1, l=84)
    s_t1 = tr.add(a_bump, "S", f=1, l=42)      # bump(): true_line.w[0]++
    tr.set_exc(s_t1, 3000000 + 250000, 200000)
    del c_create
    d["tree"] = tr
    d["pairs"] = [
        (s_stack, s_f1, 0, 50000),
        (s_f1, s_f1, 400000, 9000000),
        (s_f1, s_t1, 0, 600000),
        (s_f1, s_stack, 0, 50000),
        (s_t1, s_t1, 3000000 + 250000, 200000),
        (s_t1, s_f1, 0, 600000),
    ]
    d["objects"] = [
        dict(kind="static", name="false_line", module="/opt/bench/comm_bench", size=64,
             cells=[(1, 2, 400000, 9000000)],
             fields=[("w[1]", 8, 8, 0, 4500000, [1, 2]), ("w[2]", 16, 8, 0, 4500000, [1, 2]),
                     ("w[0]", 0, 8, 400000, 0, [1, 2])],
             pairs=[(s_f1, s_f1, 400000, 9000000)]),
        dict(kind="static", name="true_line", module="/opt/bench/comm_bench", size=64,
             cells=[(3, 4, 3000000, 200000), (1, 4, 250000, 0)],
             fields=[("w[0]", 0, 8, 3250000, 0, [1, 3, 4]), ("w[1]", 8, 8, 0, 200000, [3, 4])],
             pairs=[(s_t1, s_t1, 3250000, 200000)]),
        dict(kind="heap", name="malloc in worker (comm_bench.c:155)", context=c_w, size=4096, blocks=4,
             cells=[(2, 3, 0, 600000)],
             fields=[("", 128, 64, 0, 600000, [2, 3])],
             pairs=[(s_f1, s_t1, 0, 600000)]),
        dict(kind="stack", name="stack of thread 0", size=8388608,
             cells=[(0, 1, 0, 50000)], fields=[], pairs=[(s_stack, s_f1, 0, 50000)]),
    ]
    finish_levels(d, mt, mf, lambda t: t % 2, 2)
    write_db(out, d)


def big(out, n, nodes, seed):
    rng = random.Random(seed)
    mt, mf = sym(n), sym(n)
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.3:
                t, f = rng.randint(0, 5000), rng.randint(0, 20000)
                mt[i][j] = mt[j][i] = t
                mf[i][j] = mf[j][i] = f
    hot = (min(7, n - 2), n - 1)
    mf[hot[0]][hot[1]] = mf[hot[1]][hot[0]] = 10 ** 7       # the designed hot pair
    d = dict(nthreads=n, program="bigapp", exe="/opt/big/bigapp", start_routine="worker",
             creation_context=2,
             lms=["<unknown>", "/opt/big/bigapp"],
             files=["<unknown file>"] + ["/src/big/file%02d.c" % k for k in range(40)],
             procs=[("f%04d" % k, 1, 1 + k % 40, 10 + k) for k in range(2000)])
    tr = Tree()
    frames = [tr.add(0, "PF", n=0, lm=1, f=1, l=10)]
    tr.add(frames[0], "C", f=1, l=11)
    # one wide frame (a flat profile of 2000 statements) and deep chains
    wide = tr.add(tr.add(frames[0], "C", f=1, l=12), "PF", n=1, lm=1, f=2, l=11)
    stmts = []
    deep = frames[0]
    for k in range(min(300, nodes // 20)):     # a recursion 300 calls deep
        deep = tr.add(tr.add(deep, "C", f=3, l=30), "PF", n=2, lm=1, f=3, l=20)
    stmts.append(tr.add(deep, "S", f=3, l=25))
    for k in range(min(2000, nodes // 10)):
        stmts.append(tr.add(wide, "S", f=2 + k % 39, l=100 + k))
    while len(tr.nodes) < nodes - 3:
        parent = rng.choice(frames)
        c = tr.add(parent, "C", f=1 + rng.randrange(40), l=rng.randint(1, 999))
        pf = tr.add(c, "PF", n=rng.randrange(2000), lm=1, f=1 + rng.randrange(40), l=rng.randint(1, 999))
        frames.append(pf)
        stmts.append(tr.add(pf, "S", f=1 + rng.randrange(40), l=rng.randint(1, 999)))
    t_all_true, t_all_false = upper(mt), upper(mf)
    for s, t, f in zip(stmts, distribute(t_all_true, len(stmts), rng),
                       distribute(t_all_false, len(stmts), rng)):
        tr.set_exc(s, t, f)
    d["tree"] = tr
    pairs = []
    for k in range(200):
        a, b = rng.choice(stmts), rng.choice(stmts)
        t, f = rng.randint(0, 1000), rng.randint(1, 5000)
        pairs += [(a, b, t, f), (b, a, t, f)] if a != b else [(a, a, t, f)]
    pairs.sort(key=lambda p: (p[0], -(p[2] + p[3]), p[1]))
    d["pairs"] = pairs
    objs = []
    for k in range(300):
        cells = []
        for _ in range(rng.randint(1, 20)):
            i, j = sorted(rng.sample(range(n), 2))
            cells.append((i, j, rng.randint(0, 1000), rng.randint(0, 3000)))
        objs.append(dict(kind=rng.choice(["static", "heap", "stack", "tls"]), name="obj%03d" % k,
                         size=64 * rng.randint(1, 100), cells=cells,
                         fields=[("f%d" % q, 8 * q, 8, 0, rng.randint(0, 100), [cells[0][0], cells[0][1]])
                                 for q in range(rng.randint(0, 3))],
                         pairs=[(pairs[0][0], pairs[0][1], 0, 10)]))
    objs.append(dict(kind="static", name="hot_line", size=64,
                     cells=[(hot[0], hot[1], 0, 10 ** 7)],
                     fields=[("a", 0, 8, 0, 5 * 10 ** 6, list(hot)), ("b", 8, 8, 0, 5 * 10 ** 6, list(hot))],
                     pairs=[]))
    # an array whose threads write their own elements, 40 of them in
    # communication: a top-objects row names the first fields only
    objs.append(dict(kind="heap", name="wide_array", size=8 * 4096,
                     cells=[(hot[0], hot[1], 0, 4 * 10 ** 6)],
                     fields=[("wide_array[%d]" % q, 64 * q, 8, 0, 10 ** 5, list(hot)) for q in range(40)],
                     pairs=[]))
    d["objects"] = objs
    finish_levels(d, mt, mf, lambda t: t % 2, 2)
    write_db(out, d)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("shape", choices=["small", "big"])
    ap.add_argument("out")
    ap.add_argument("--threads", type=int, default=256)
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    if a.shape == "small":
        small(a.out)
    else:
        big(a.out, a.threads, a.nodes, a.seed)


if __name__ == "__main__":
    main()
