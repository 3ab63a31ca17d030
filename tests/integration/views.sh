#!/bin/sh
# Views over time and memory nodes (issue #18), on real programs under the
# real runtime (soft sampler):
# * phases: views_prog runs a ring among four workers, then pairs across the
#   ring; the database must hold two phases, the first with >= 85 % of its
#   volume in the ring cells, the second in the pair cells; the phase
#   matrices sum to the whole-run thread matrix cell by cell (in one of three
#   runs: a stalled worker can split a phase); phases.xml and
#   locality.xml validate; one NUMA node here: "single NUMA domain".
# * NUMA: views_prog numa with an injected two-node page map
#   (HPCRUN_COMM_NUMA_MAP) and a synthetic two-node hwloc topology replacing
#   the recorded one: X on node 0 shared by two threads on node 0 is local,
#   Y on node 1 shared by them is remote, Z on node 0 shared by a node-0 and
#   a node-1 thread is half remote (tolerances, not timing).
. "$(dirname "$0")/lib.sh"
require_measurable
command -v python3 >/dev/null || { echo "SKIP: python3 missing (reads the XML)"; exit 77; }
PROG="$B/tests/programs/views_prog"

# The phase check, on a database (DB): 0 when it holds.
check_phases() {
python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
db = sys.argv[1]
root = ET.parse(db + "/phases.xml").getroot()
ph = root.findall("Phase")
bad = 0
def cells(p):
    return {(int(t.get("i")), int(t.get("j"))): int(t.get("all")) for t in p.findall("T")}
print("phases:", [(p.get("start"), p.get("end"), p.get("all"), p.get("pair_i") + "-" + p.get("pair_j")) for p in ph])
if len(ph) != 2:
    print("FAIL: %d phases, expected 2" % len(ph)); sys.exit(1)
ring = {(1, 2), (2, 3), (3, 4), (1, 4)}
pairs = {(1, 3), (2, 4)}
for p, want, name in ((ph[0], ring, "ring"), (ph[1], pairs, "pairs")):
    c = cells(p)
    tot = sum(c.values())
    inw = sum(v for k, v in c.items() if k in want)
    share = inw / tot if tot else 0
    seen = sum(1 for k in want if c.get(k, 0) > 0)
    print("%s phase: %.3f of %d in its cells, %d of %d cells seen" % (name, share, tot, seen, len(want)))
    if share < 0.85 or seen < len(want):
        print("FAIL: %s phase cells" % name); bad = 1
    if tot != int(p.get("all")):
        print("FAIL: %s phase: cells sum %d != all %s" % (name, tot, p.get("all"))); bad = 1
# Phase matrices sum to the thread matrix, cell by cell.
rows = [l.strip().split(",") for l in open(db + "/matrices/thread-all.csv")]
n = len(rows) - 1
whole = {}
for r in rows[1:]:
    i = int(r[0])
    for j in range(i + 1, n):
        if int(r[j + 1]):
            whole[(i, j)] = int(r[j + 1])
summed = {}
for p in ph:
    for k, v in cells(p).items():
        summed[k] = summed.get(k, 0) + v
if summed != whole:
    print("FAIL: phase matrices do not sum to thread-all.csv:", summed, whole); bad = 1
else:
    print("phase matrices sum to the thread matrix (%d cells)" % len(whole))
wins = root.findall("Window")
if len(wins) != int(root.get("windows")) or sum(int(w.get("all")) for w in wins) != sum(int(p.get("all")) for p in ph):
    print("FAIL: windows do not add up"); bad = 1
sys.exit(bad)
PY
}
# A loaded machine (the sanitizer build beside other work) can stall a
# worker for part of the ring phase; the detector then rightly splits that
# phase where its matrix changed. The program's two phases must show in one
# of three runs; each miss is printed.
ph_try=1
while :; do
	rm -rf "$TMP/ph" "$TMP/ph.db"
	measure ph -e COMM@100000 "$PROG" phases -s 1.5 || fail "phases run failed"
	"$HPCPROF" -o "$TMP/ph.db" "$TMP/ph" >"$TMP/ph.sum" 2>"$TMP/ph.prof.err" ||
		{ fail "phases: hpcprof-comm failed"; cat "$TMP/ph.prof.err" >&2; break; }
	check_phases "$TMP/ph.db" && { ok "phases: two phases with the ring and the pair cells (run $ph_try)"; break; }
	[ "$ph_try" -ge 3 ] && { fail "phases: see above (3 runs)"; break; }
	echo "phases: run $ph_try of 3 did not show the program's two phases; measuring again"
	ph_try=$((ph_try + 1))
done

if command -v xmllint >/dev/null; then
	for f in phases locality; do
		xmllint --noout --schema "$S/doc/$f.xsd" "$TMP/ph.db/$f.xml" 2>"$TMP/x.err" ||
			{ fail "$f.xml invalid"; cat "$TMP/x.err" >&2; }
	done
else
	echo "note: xmllint missing (libxml2-utils): schemas not checked"
fi
grep -q "^Phases " "$TMP/ph.sum" || fail "summary: no phase table"
if [ -e /sys/devices/system/node/node1 ]; then
	echo "note: multi-node host: the single-domain message is not checked"
else
	grep -q "single NUMA domain" "$TMP/ph.sum" || fail "summary: no 'single NUMA domain' on a one-node host"
	grep -q 'single="1"' "$TMP/ph.db/locality.xml" || fail "locality.xml: not single on a one-node host"
fi

# NUMA: injected page map, synthetic two-node topology (CPU n on node n).
command -v lstopo-no-graphics >/dev/null || { echo "SKIP: lstopo-no-graphics (hwloc) missing"; finish; }
cat >"$TMP/map.txt" <<MAP
# views_prog numa: X and Z on node 0, Y on node 1 (at each of its candidate bases)
0x100080000000 0x100080010000 0
0x100080200000 0x100080210000 1
0x100080400000 0x100080410000 0
0x3e0000000000 0x3e0000010000 0
0x3e0000200000 0x3e0000210000 1
0x3e0000400000 0x3e0000410000 0
0x200000000000 0x200000010000 0
0x200000200000 0x200000210000 1
0x200000400000 0x200000410000 0
MAP
HPCRUN_COMM_NUMA_MAP="$TMP/map.txt" measure nu -e COMM@100000 "$PROG" numa -s 1 || fail "numa run failed"
grep -q "NUMA page nodes: recorded, 9 ranges" "$TMP"/nu/*.log || fail "numa: the runtime did not read the map"
for t in "$TMP"/nu/topology-*.xml; do
	lstopo-no-graphics --if synthetic --input "numa:2 pu:1" --of xml -f "$t" || fail "lstopo failed"
done
"$HPCPROF" -o "$TMP/nu.db" "$TMP/nu" >"$TMP/nu.sum" 2>"$TMP/nu.prof.err" ||
	{ fail "numa: hpcprof-comm failed"; cat "$TMP/nu.prof.err" >&2; }
ncpu=$(getconf _NPROCESSORS_ONLN)
python3 - "$TMP/nu.db" "$ncpu" <<'PY' || fail "numa: see above"
import sys, xml.etree.ElementTree as ET
db, ncpu = sys.argv[1], int(sys.argv[2])
root = ET.parse(db + "/locality.xml").getroot()
bad = 0
if root.get("single") != "0" or root.get("pages") != "1" or root.get("domains") != "2":
    print("FAIL: locality.xml header", root.attrib); sys.exit(1)
x = y = z = None
for o in root.findall("Object"):
    pages = {int(p.get("node")) for p in o.findall("Page")}
    thr = {int(p.get("node")) for p in o.findall("Thread")}
    share = float(o.get("remote_share"))
    print("object %s: pages on %s, threads on %s, remote %.3f, first thread %s" % (o.get("i"), sorted(pages), sorted(thr), share, o.get("first_thread")))
    # by name: the program's three mmap'd objects (its barrier `bar`, a
    # static all threads wait on, may be sampled too: it is not judged)
    name = o.get("name")
    if name.startswith("y = mmap"): y = o
    elif name.startswith("x = mmap"): x = o
    elif name.startswith("z = mmap"): z = o
if x is None or float(x.get("remote_share")) > 0.05 or x.get("flagged") != "0":
    print("FAIL: X (node 0, threads on node 0) should be local"); bad = 1
if y is None or float(y.get("remote_share")) < 0.95 or y.get("flagged") != "1":
    print("FAIL: Y (node 1, threads on node 0) should be remote and flagged"); bad = 1
if ncpu > 1 and (z is None or abs(float(z.get("remote_share")) - 0.5) > 0.1):
    print("FAIL: Z (node 0, threads on nodes 0 and 1) should be half remote"); bad = 1
for o in (x, y, z):
    if o is not None and o.get("first_thread") != "0":
        print("FAIL: object %s: first-touching (allocating) thread should be main (0)" % o.get("i")); bad = 1
sys.exit(bad)
PY
[ "$FAILS" -eq 0 ] && ok "numa: local, remote and half-remote objects as designed"
grep -q "NUMA locality (2 domains)" "$TMP/nu.sum" || fail "numa: no locality table in the summary"
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$S/doc/locality.xsd" "$TMP/nu.db/locality.xml" 2>"$TMP/x.err" ||
		{ fail "numa: locality.xml invalid"; cat "$TMP/x.err" >&2; }
fi
finish
