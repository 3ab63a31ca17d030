#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI (issue #17, doc/mpi.md) with Open MPI on this machine:
#  * a hybrid MPI + pthreads program (tests/programs/mpi_threads.c, built
#    here with mpicc) measured under `mpirun -np 2 hpcrun-comm` writes
#    profiles and logs named with ranks 0 and 1, and the database lists both
#    ranks (database.xml, threads.csv) with their threads and host;
#  * hpcprof-comm built with MPI under `mpirun -np 2`, `-np 3` and `-np 4`
#    writes the database the sequential hpcprof-comm writes, byte for byte
#    (diff -r; at -np 3 and 4 some ranks have no process of their own: the
#    measurement has two, and a rank holds records for its own share only);
#  * a damaged profile is skipped, with its name, at -np 1, 2, 3 and 4 (and
#    the databases still equal the sequential one);
#  * hpcprof-comm built without MPI, started by mpirun as one of 2 ranks,
#    says so and exits non-zero, writing nothing.
# Skipped (77) when mpicc or mpirun is missing or cannot start 2 ranks here.
. "$(dirname "$0")/lib.sh"
require_measurable

command -v mpicc >/dev/null 2>&1 || { echo "SKIP: no mpicc (apt-get install libopenmpi-dev openmpi-bin)" >&2; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (apt-get install openmpi-bin)" >&2; exit 77; }

# Open MPI in a container, as root, on 2 CPUs: allow root, oversubscribe,
# shared memory without the cross-memory-attach copy (ptrace may be denied).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl=self,vader
# An ASan-built hpcprof-comm or runtime under mpirun: Open MPI's own leaks
# are not ours (the analyzer's are checked by the other tests).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="timeout 300 mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"

MT="$TMP/mpi_threads"
mpicc -g -O1 -pthread -o "$MT" "$S/tests/programs/mpi_threads.c" 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err" >&2; echo "SKIP: mpicc cannot build an MPI program here" >&2; exit 77; }
if ! $MPIRUN -np 2 "$MT" 1000 >"$TMP/native.out" 2>"$TMP/native.err"; then
	tail -n 20 "$TMP/native.err" >&2
	echo "SKIP: mpirun cannot start 2 ranks of an MPI program on this machine" >&2
	exit 77
fi

# ---- measurement: ranks in file names, logs and profiles ----
M="$TMP/mt-measurements"
$MPIRUN -np 2 "$HPCRUN" -o "$M" "$MT" >"$TMP/run.out" 2>"$TMP/run.err" ||
	fail "mpirun -np 2 hpcrun-comm: exit status $?: $(tail -n 5 "$TMP/run.err")"
grep -q "rank 0 of 2" "$TMP/run.out" && grep -q "rank 1 of 2" "$TMP/run.out" ||
	fail "the measured program did not run as 2 ranks: $(cat "$TMP/run.out")"
for r in 000000 000001; do
	n=$(ls "$M" | grep -c "^mpi_threads-$r-[0-9]*-.*\.hcprof$")
	[ "$n" -ge 3 ] || fail "rank $r: $n profiles, want main + 2 workers at least"
	ls "$M" | grep -q "^mpi_threads-$r-[0-9a-f]\{8\}-.*\.log$" || fail "rank $r: no log"
done
grep -q "MPI rank 1 (from OMPI_COMM_WORLD_RANK)" "$M"/mpi_threads-000001-*.log ||
	fail "rank 1's log does not say its rank"
ok "measured: profiles and logs of ranks 0 and 1"

# ---- sequential database: both ranks, their threads, the host ----
# Every database is written as "$TMP/db" and renamed after: summary.txt
# names the database as given with -o, so databases written under one name
# compare byte for byte with nothing left out.
$HPCPROF -q -o "$TMP/db" "$M" 2>"$TMP/seq.err" || fail "hpcprof-comm: $(cat "$TMP/seq.err")"
mv "$TMP/db" "$TMP/seq"
T="$TMP/seq/threads.csv"
head -n 1 "$T" | grep -q ',rank,host$' || fail "threads.csv header: $(head -n 1 "$T")"
for r in 0 1; do
	grep -q "<Process i=\"$r\" host=\"[0-9a-f]*\" rank=\"$r\"" "$TMP/seq/database.xml" ||
		fail "database.xml: no process $r with rank $r"
	# The two workers: created at one call site (in an ASan build their start
	# routine is ASan's asan_thread_start, so the call site is what is checked).
	w=$(awk -F, -v r="$r" 'NR > 1 && $(NF - 1) == r && $8 != "" { n[$8]++ } END { m = 0; for (c in n) if (n[c] > m) m = n[c]; print m }' "$T")
	[ "$w" -eq 2 ] || fail "threads.csv: rank $r has $w threads from one pthread_create site, want 2"
	grep -q '^#define HC_SANITIZERS 1' "$B/config.h" ||
		[ "$(awk -F, -v r="$r" 'NR > 1 && $(NF - 1) == r && $7 == "worker"' "$T" | wc -l)" -eq 2 ] ||
		fail "threads.csv: rank $r: not 2 threads started at worker"
	m=$(awk -F, -v r="$r" 'NR > 1 && $(NF - 1) == r && $4 == 0' "$T" | wc -l)
	[ "$m" -eq 1 ] || fail "threads.csv: rank $r has $m main threads, want 1"
done
host=$(awk -F, 'NR == 2 { print $NF }' "$T")
[ -n "$host" ] || fail "threads.csv: empty host"
# Labels in the reports read rank.thread.
"$B/viewer-export/viewer-export" "$TMP/seq" --csv "$TMP/csv" >/dev/null 2>"$TMP/csv.err" ||
	fail "viewer-export --csv: $(cat "$TMP/csv.err")"
grep -q '^[0-9]*,"\?1\.[0-9]' "$TMP/csv/threads.csv" || fail "the CSV export has no rank.thread label (1.N)"
head -n 1 "$TMP/csv/threads.csv" | grep -q ',rank,host$' || fail "the CSV export's threads.csv has no rank, host columns"
grep -q ",1,$host\$" "$TMP/csv/threads.csv" || fail "the CSV export's threads.csv has no thread of rank 1 on $host"
# The rank view: both ranks, each with the communication of its own workers.
X="$TMP/seq/database.xml"
[ "$(grep -c '<Rank rank=' "$X")" -eq 2 ] || fail "database.xml: <Ranks> does not list 2 ranks"
for r in 0 1; do
	w=$(sed -n "s/.*<Rank rank=\"$r\".*within-true=\"\([0-9]*\)\" within-false=\"\([0-9]*\)\".*/\1 \2/p" "$X" |
	    awk '{ print $1 + $2 }')
	[ "${w:-0}" -gt 0 ] || fail "rank $r: no communication among its threads in <Ranks>"
done
"$B/viewer-export/viewer-export" "$TMP/seq" --text -o "$TMP/report.txt" --json "$TMP/report.json" \
	>/dev/null 2>"$TMP/vx.err" || fail "viewer-export --text --json: $(cat "$TMP/vx.err")"
grep -q '^Ranks (MPI)' "$TMP/report.txt" || fail "the text report has no rank section"
grep -q ' 1\.[0-9]* ↔ 1\.[0-9]* ' "$TMP/report.txt" || fail "the text report's pairs are not rank.thread"
PYTHONPATH="$S/tests/viewer" python3 - "$TMP/report.json" "$S/doc/report.schema.json" <<'PY' || fail "report JSON: rank view missing or not valid"
import json, sys
from jsonschema_lite import validate
d = json.load(open(sys.argv[1]))
errs = validate(d, json.load(open(sys.argv[2])))
assert not errs, errs[:3]
assert [r["rank"] for r in d["ranks"]] == [0, 1], d["ranks"]
assert any(t["label"].startswith("1.") for t in d["threads"])
PY
ok "sequential database: ranks 0 and 1, 2 workers each, host $host; rank view in database.xml, text, JSON"

# ---- distributed merge equals the sequential one ----
# same_db A B: the two databases byte for byte, every file (both written as
# "$TMP/db"). The distributed object pass, phases and locality are in it:
# objects.xml, phases.xml and locality.xml must be there.
same_db() {
	for f in database.xml threads.csv objects.xml phases.xml locality.xml regions.xml summary.txt; do
		[ -s "$1/$f" ] || { echo "$1/$f missing or empty"; return 1; }
	done
	diff -r "$1" "$2"
}
grep -q '<Object ' "$TMP/seq/objects.xml" || fail "objects.xml lists no object"
# the code regions' matrices are built from region events summed on every rank
[ "$(grep -c '<Region ' "$TMP/seq/regions.xml")" -gt 1 ] || fail "regions.xml: no region but the program"
if grep -q '^#define HC_HAVE_MPI 1' "$B/config.h"; then
	for np in 2 3 4; do
		$MPIRUN -np $np "$HPCPROF" -q -o "$TMP/db" "$M" >"$TMP/par$np.out" 2>"$TMP/par$np.err" ||
			fail "mpirun -np $np hpcprof-comm: exit status $?: $(tail -n 5 "$TMP/par$np.err")"
		mv "$TMP/db" "$TMP/par$np"
		same_db "$TMP/seq" "$TMP/par$np" >"$TMP/diff$np" 2>&1 &&
			ok "mpirun -np $np hpcprof-comm: identical to the sequential database" ||
			fail "-np $np differs from the sequential database: $(head -n 20 "$TMP/diff$np")"
	done
	# A damaged profile: skipped with its name at every rank count.
	D="$TMP/damaged-measurements"
	cp -r "$M" "$D"
	victim=$(ls "$D" | grep '^mpi_threads-000001-002-.*\.hcprof$' | head -n 1)
	[ -n "$victim" ] || victim=$(ls "$D" | grep '\.hcprof$' | tail -n 1)
	sz=$(wc -c <"$D/$victim")
	head -c $((sz / 2)) "$D/$victim" >"$D/$victim.x" && mv "$D/$victim.x" "$D/$victim"
	$HPCPROF -q -o "$TMP/db" "$D" 2>"$TMP/dseq.err" || fail "sequential on the damaged input failed"
	mv "$TMP/db" "$TMP/dseq"
	grep -q "skipping profile.*$victim" "$TMP/dseq.err" || fail "sequential: $victim not named"
	for np in 1 2 3 4; do
		$MPIRUN -np $np "$HPCPROF" -q -o "$TMP/db" "$D" >"$TMP/dpar$np.out" 2>"$TMP/dpar$np.err" ||
			fail "damaged, -np $np: exit status $?: $(tail -n 5 "$TMP/dpar$np.err")"
		mv "$TMP/db" "$TMP/dpar$np"
		n=$(grep -c "skipping profile.*$victim" "$TMP/dpar$np.err")
		[ "$n" -eq 1 ] || fail "damaged, -np $np: $victim named $n times, want once: $(cat "$TMP/dpar$np.err")"
		same_db "$TMP/dseq" "$TMP/dpar$np" >/dev/null 2>&1 ||
			fail "damaged, -np $np: database differs from the sequential one"
	done
	grep -q "<Skipped file=\"[^\"]*$victim\"" "$TMP/dpar3/database.xml" ||
		fail "damaged: database.xml does not list $victim as skipped"
	ok "damaged profile $victim skipped with its name at -np 1, 2, 3, 4"
else
	echo "note: hpcprof-comm built without MPI: the distributed merge is not tested here"
fi

# ---- a build without MPI under mpirun refuses ----
NOMPI="$B/tests/integration/hpcprof-comm-nompi"
if [ -x "$NOMPI" ]; then
	if $MPIRUN -np 2 "$NOMPI" -q -o "$TMP/nompi" "$M" >"$TMP/nompi.out" 2>"$TMP/nompi.err"; then
		fail "hpcprof-comm without MPI under mpirun -np 2 exited 0"
	fi
	grep -q "built without MPI" "$TMP/nompi.err" || fail "no reason given: $(head -n 3 "$TMP/nompi.err")"
	[ ! -e "$TMP/nompi" ] || fail "hpcprof-comm without MPI wrote a database under mpirun"
	ok "hpcprof-comm without MPI under mpirun -np 2: refused"
fi

[ "$FAILS" -eq 0 ]
