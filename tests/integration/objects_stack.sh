#!/bin/sh
# Stack locals named by the analyzer (doc/objects.md "Stack locals"): a real
# pthreads program under the real runtime, at -O2 and -O0.
#   objects_stack       main's local slots[4] of { long a; long b; }: workers
#                       1 and 2 increment slots[1].a and slots[2].a (false
#                       sharing on main's stack while main waits in
#                       pthread_join): the fields read "local slots[1].a in
#                       main" and "local slots[2].a in main"
#   objects_stack -k    worker 1's local buf[8], written by worker 1 (buf[0])
#                       and worker 2 (buf[3]): "local buf[0] in buf_owner",
#                       "local buf[3] in buf_owner"
# Tolerance: >= 90 % of the stack object's false sharing in the named
# fields (an access the sampler catches elsewhere on the stack may stay a
# byte offset). The names must reach every view: objects.csv, summary.txt,
# viewer-export --text, --csv, --json and --html.
. "$(dirname "$0")/lib.sh"
require_measurable
P="$B/tests/programs"
VE="$B/viewer-export/viewer-export"

# check NAME OWNER FIELD1 FIELD2: the stack object of thread OWNER holds
# >= 90 % of its false volume in FIELD1 and FIELD2, each touched
check() {
	db="$TMP/$1.db"
	"$HPCPROF" -o "$db" "$TMP/$1" >"$TMP/$1.prof" 2>&1 ||
		{ fail "$1: hpcprof-comm failed"; cat "$TMP/$1.prof" >&2; return 1; }
	line=$(awk -F, -v n="stack of thread $2" '$2 == "stack" && $3 == n' "$db/objects.csv")
	echo "$1: $line"
	[ -n "$line" ] || { fail "$1: no stack object of thread $2"; return 1; }
	# objects.xml: the Field elements of that object (names before offsets).
	awk -v n="stack of thread $2" -v f1="$3" -v f2="$4" '
		/<Object / { inobj = index($0, "name=\"" n "\"") > 0 }
		inobj && /<Field / {
			fl = $0; sub(/.* false="/, "", fl); sub(/".*/, "", fl)
			tot += fl
			if (index($0, "name=\"" f1 "\"")) a += fl
			if (index($0, "name=\"" f2 "\"")) b += fl
		}
		END {
			printf "  %s %.0f, %s %.0f of %.0f false\n", f1, a, f2, b, tot
			exit !(tot > 0 && a > 0 && b > 0 && (a + b) * 10 >= tot * 9)
		}' "$db/objects.xml" &&
		ok "$1: $3 and $4 hold >= 90 % of thread $2's stack false sharing" ||
		fail "$1: fields $3 / $4 not found with >= 90 % of the false sharing"
	grep -qF "$3" "$db/summary.txt" && ok "$1: summary.txt names $3" ||
		fail "$1: summary.txt does not name $3"
	"$VE" --text -o "$TMP/$1.txt" "$db" && grep -qF "$3" "$TMP/$1.txt" &&
		ok "$1: viewer-export --text names $3" || fail "$1: viewer-export --text does not name $3"
	mkdir -p "$TMP/$1.csv"
	"$VE" --csv "$TMP/$1.csv" --json "$TMP/$1.json" -o "$TMP/$1.html" --html "$db" >/dev/null &&
		grep -rqF "$3" "$TMP/$1.csv" && grep -qF "$3" "$TMP/$1.json" &&
		grep -qF "$3" "$TMP/$1.html" &&
		ok "$1: --csv, --json and --html name $3" ||
		fail "$1: $3 missing from viewer-export --csv, --json or --html"
}

for prog in objects_stack objects_stack_O0; do
	measure "$prog" -e COMM@200000 "$P/$prog" -s 2 || fail "$prog exited non-zero"
	check "$prog" 0 "local slots[1].a in main" "local slots[2].a in main"
	measure "$prog-k" -e COMM@200000 "$P/$prog" -k -s 2 || fail "$prog -k exited non-zero"
	check "$prog-k" 1 "local buf[0] in buf_owner" "local buf[3] in buf_owner"
done
finish
