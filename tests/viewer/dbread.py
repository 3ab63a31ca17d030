# SPDX-License-Identifier: BSD-3-Clause
# dbread.py — an independent reader of a database directory for the
# viewer-export tests (Python standard library: csv, xml.etree), written from
# doc/database-format.md and doc/viewer-export.md, so that what the viewer
# shows is compared with the database files themselves and not with the
# viewer's own reading of them. Also measure(): run hpcrun-comm under the
# lock the integration tests share.
import csv
import fcntl
import os
import subprocess
import xml.etree.ElementTree as ET

KINDS = ("all", "true", "false")
LEVELS = ("thread", "core", "socket", "numa")


class Database:
    def __init__(self, path):
        self.path = path
        self.meta = ET.parse(os.path.join(path, "database.xml")).getroot()
        self.unit = self.meta.find("Measurement").get("unit")
        self.matrix_files = {(m.get("level"), m.get("kind")): m.get("file")
                             for m in self.meta.find("Matrices")}
        self.levels = [l for l in LEVELS if (l, "all") in self.matrix_files]
        t = self.meta.find("Totals")
        self.totals = {k: int(t.get(k)) for k in ("all", "true", "false", "sample", "trap", "events")}
        with open(os.path.join(path, "threads.csv"), newline="") as f:
            self.threads = list(csv.DictReader(f))
        self.exp = ET.parse(os.path.join(path, "experiment.xml")).getroot()
        self.program = self.exp.find("Header").get("n")
        obj = os.path.join(path, "objects.xml")
        self.objects = None
        if os.path.exists(obj):
            self.objects = []
            for o in ET.parse(obj).getroot().iter("Object"):
                self.objects.append(dict(
                    i=int(o.get("i")), name=o.get("name"), kind=o.get("kind"),
                    all=int(o.get("all")), true=int(o.get("true")), false=int(o.get("false")),
                    size=int(o.get("size", "0")),
                    cells=[(int(c.get("i")), int(c.get("j")), int(c.get("all")), int(c.get("true")),
                            int(c.get("false"))) for c in o.iter("T")],
                    fields=[f.get("name") for f in o.iter("Field")]))

    def matrix(self, level, kind):
        with open(os.path.join(self.path, self.matrix_files[(level, kind)]), newline="") as f:
            rows = list(csv.reader(f))
        return [[int(v) for v in r[1:]] for r in rows[1:]]

    def nodes(self):
        """All calling-context node elements (PF, A, C, S)."""
        data = self.exp.find("SecCallPathProfile").find("SecCallPathProfileData")
        return [e for e in data.iter() if e.tag in ("PF", "A", "C", "S")]

    def code_pairs(self):
        t = self.exp.find("SecCallPathProfile").find("CodePairTable")
        return [(int(c.get("c")), int(c.get("p")) if c.get("p") else None, int(c.get("all")),
                 int(c.get("true")), int(c.get("false"))) for c in t.iter("CP")]

    def objects_for_pair(self, i, j, kind="all"):
        """Objects with thread pair {i, j}, by their volume there (as the drill-down ranks)."""
        k = 2 + KINDS.index(kind)
        a, b = min(i, j), max(i, j)
        out = []
        for o in self.objects or []:
            v = [0, 0, 0]
            for c in o["cells"]:
                if (c[0], c[1]) == (a, b):
                    v = [v[0] + c[2], v[1] + c[3], v[2] + c[4]]
            if v[0]:
                out.append((o, v))
        out.sort(key=lambda x: (-x[1][k - 2], -x[1][0]))
        return out


def hottest(m):
    """(i, j, v) of the largest upper-triangle cell, first in row order on ties."""
    best = (0, 1, -1)
    for i in range(len(m)):
        for j in range(i + 1, len(m)):
            if m[i][j] > best[2]:
                best = (i, j, m[i][j])
    return best


def measure(cmd):
    """Run a measurement (hpcrun-comm ...) while holding the lock that the
    integration tests take (tests/integration/lib.sh): timing-dependent runs
    go one at a time even under make -j."""
    lock = os.path.join(os.environ.get("TMPDIR", "/tmp"), "hpcrun-comm-integration.lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            return subprocess.run(cmd, capture_output=True, text=True)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
