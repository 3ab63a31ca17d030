#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# gen_vdb_corpus.py — writes the seeds of the database-reader fuzz targets
# (meta, experiment, objects, threads, matrix; see fuzz_vdb.c) from the
# template database tests/viewer/fixtures/small: "ok-fixture" (the file as
# is, must be accepted) and "bad-*" damaged variants that must be rejected
# with a message, "edit-*" variants that only have to be survived, and
# "ok-crlf" (RFC 4180 line ends) for the CSV files (truncations, malformed XML, entity bombs, external
# entities, bad numbers, missing attributes, wrong shapes). Deterministic.
# Usage: gen_vdb_corpus.py SRCDIR   (writes SRCDIR/tests/fuzz/corpus/<target>)
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else "."
fix = os.path.join(top, "tests/viewer/fixtures/small")
TARGETS = {"meta": "database.xml", "experiment": "experiment.xml",
           "objects": "objects.xml", "threads": "threads.csv",
           "matrix": "matrices/thread-all.csv"}

BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE d [\n<!ENTITY a "aaaaaaaaaa">\n'
        + b"".join(b'<!ENTITY %c "%s">\n' % (ord("b") + i, (b"&%c;" % (ord("a") + i)) * 10)
                   for i in range(8))
        + b"]>\n")
XXE = b'<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'


def xml_variants(d):
    v = {}
    n = len(d)
    for cut in (0, 1, 40, n // 3, n // 2, n - 2):
        v["trunc-%d" % cut] = d[:cut]
    v["unclosed-root"] = d[:d.rfind(b"</")]
    v["garbage"] = bytes((i * 151 + 7) & 0xff for i in range(512))
    v["not-xml"] = b"this is not XML at all\n"
    v["two-roots"] = d + d[d.find(b"<", 2 + d.find(b"?>")):]
    root = re.search(rb"<([A-Za-z]+)", d[d.find(b"?>"):]).group(1)
    v["wrong-root"] = d.replace(b"<" + root, b"<Wrong", 1).replace(b"</" + root + b">", b"</Wrong>")
    body = d[d.find(b"?>") + 2:]
    v["entity-bomb"] = BOMB + body.replace(b'version="1"', b'version="&i;"', 1)
    v["external-entity"] = XXE + body.replace(b'version="1"', b'version="&x;"', 1)
    v["version-2"] = d.replace(b'version="1"', b'version="2"', 1)
    # number damage on the first few numeric attributes
    nums = list(re.finditer(rb' ([a-z-]+)="([0-9]+)"', d))
    for k, m in enumerate(nums[:: max(1, len(nums) // 6)][:6]):
        a, b = m.span(2)
        v["num-%s-%d-neg" % (m.group(1).decode(), k)] = d[:a] + b"-1" + d[b:]
        v["num-%s-%d-huge" % (m.group(1).decode(), k)] = d[:a] + b"99999999999999999999999" + d[b:]
        v["num-%s-%d-junk" % (m.group(1).decode(), k)] = d[:a] + m.group(2) + b"x" + d[b:]
        v["num-%s-%d-missing" % (m.group(1).decode(), k)] = d[:m.start()] + d[m.end():]
    v["nul-byte"] = d[: n // 2] + b"\0" + d[n // 2:]
    v["bad-utf8"] = d.replace(b'"', b'"\xff\xfe', 1)
    return v


def csv_variants(d):
    v = {}
    n = len(d)
    lines = d.split(b"\n")
    for cut in (0, 1, n // 2, n - 2):
        v["trunc-%d" % cut] = d[:cut]
    v["garbage"] = bytes((i * 151 + 7) & 0xff for i in range(512))
    v["no-header"] = b"\n".join(lines[1:])
    v["extra-field"] = b"\n".join(lines[:2] + [lines[2] + b",7"] + lines[3:])
    v["missing-field"] = b"\n".join(lines[:2] + [lines[2].rsplit(b",", 1)[0]] + lines[3:])
    v["extra-row"] = d + lines[2] + b"\n"
    v["missing-row"] = b"\n".join(lines[:-2]) + b"\n"
    v["open-quote"] = d.replace(b",", b',"', 1)
    v["quote-in-field"] = d.replace(b",0,", b',"0""1",', 1)
    v["negative"] = d.replace(b",0,", b",-5,", 1)
    v["huge"] = d.replace(b",0,", b",184467440737095516160,", 1)
    v["junk-number"] = d.replace(b",0,", b",0x10,", 1)
    v["crlf"] = d.replace(b"\n", b"\r\n")
    v["nul-byte"] = d[: n // 2] + b"\0" + d[n // 2:]
    return v


def main():
    for t, f in TARGETS.items():
        out = os.path.join(top, "tests/fuzz/corpus", t)
        os.makedirs(out, exist_ok=True)
        d = open(os.path.join(fix, f), "rb").read()
        with open(os.path.join(out, "ok-fixture"), "wb") as o:
            o.write(d)
        var = csv_variants(d) if f.endswith(".csv") else xml_variants(d)
        for name, data in sorted(var.items()):
            if data == d:
                continue
            # an absent attribute may be optional: only has to be survived
            prefix = "edit-" if name.endswith("-missing") else "bad-"
            if name == "crlf":   # RFC 4180 line ends: valid
                prefix = "ok-"
            with open(os.path.join(out, prefix + name), "wb") as o:
                o.write(data)


main()
