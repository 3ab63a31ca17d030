#!/bin/sh
# Heap objects in the runtime: communication events on heap blocks resolve
# to the right block and allocation context, thread stack and TLS ranges
# hold the threads' own variables, and the allocation wrappers survive a
# stress run (8 threads x 10^6 operations of the whole malloc family, cross-
# thread frees, a fork) with sampling on, with no crash or deadlock.
#   objects_heap    counters carved from one malloc in alloc_counters(),
#                   false-shared: events on the block carry an object record
#                   naming that block and that context, allocated by thread 0
#   objects_padded  the same block padded to 64 bytes: (almost) no events on it
#   --min-alloc 32  objects_heap's 16-byte block is not tracked
#   objects_cxx     a new[]'d array false-shared: context make_counters
# In a sanitizer build (libasan first in LD_PRELOAD, so ASan's allocator
# takes the program's calls) the stress run checks only that nothing breaks;
# a second run puts the runtime first so that its wrappers run over ASan's.
. "$(dirname "$0")/lib.sh"
require_measurable
OBJS="$B/tests/unit/runtime/hc_objs"
P="$B/tests/programs"
ASAN=no
grep -q "define HC_SANITIZERS 1" "$B/config.h" 2>/dev/null && ASAN=yes

# objs NAME: the object facts of measurement NAME in $TMP/NAME.objs
objs() {
	"$OBJS" "$TMP/$1" >"$TMP/$1.objs" || fail "$1: hc_objs could not read the profiles"
}

ocounter() {
	awk -v n="$2" '$1 == "counter" && $2 == n { print $3; f = 1 } END { if (!f) print 0 }' "$TMP/$1.objs"
}

# block NAME: "BASE SIZE" of the block the program printed (hex base without 0x)
block() {
	awk '$1 == "block" { sub(/^0x/, "", $2); print $2, $3 }' "$TMP/$1.out"
}

# sides_in NAME BASE SIZE: event addresses (both sides) inside the block,
# recorded by the workers (threads 1..): they run only while the block is
# live. The main thread allocates and frees it; glibc's free writes into the
# freed block, and a watchpoint may catch that: such an event rightly has no
# object record.
sides_in() {
	awk -v b="$2" -v s="$3" '
		function hex(x,   i, c, v) { v = 0; x = tolower(x)
			for (i = 1; i <= length(x); i++) { c = index("0123456789abcdef", substr(x, i, 1)) - 1; v = v * 16 + c }
			return v }
		BEGIN { lo = hex(b); hi = lo + s }
		$1 == "event" && $3 != 0 { a = hex($5); p = hex($6)
			if (a >= lo && a < hi) n++
			if (p >= lo && p < hi) n++ }
		END { print n + 0 }' "$TMP/$1.objs"
}

# objs_in NAME BASE SIZE REGEX: the workers' object records whose block
# starts at BASE, and how many of them have the expected size, allocating
# thread 0, kind 0 and frames matching REGEX: prints "TOTAL GOOD"
objs_in() {
	awk -v b="$2" -v s="$3" -v re="$4" '
		$1 == "obj" && $3 != 0 && $7 == b { n++; if ($8 == s && $9 == 0 && $10 == 0 && $11 ~ re) g++ }
		END { print n + 0, g + 0 }' "$TMP/$1.objs"
}

check_block_events() {
	name=$1 re=$2
	set -- $(block "$name")
	base=$1 size=$2
	[ -n "$base" ] || { fail "$name: the program printed no block"; return; }
	n=$(sides_in "$name" "$base" "$size")
	set -- $(objs_in "$name" "$base" "$size" "$re")
	echo "$name: block $base+$size: $n event addresses in it, $1 object records, $2 as expected"
	[ "$n" -gt 0 ] || { fail "$name: no communication recorded on the false-shared block"; return; }
	[ "$1" -eq "$n" ] && ok "$name: every event address in the block resolved to it" ||
		fail "$name: $n event addresses in the block but $1 object records"
	[ "$2" -eq "$1" ] && ok "$name: size $size, thread 0, context /$re/" ||
		fail "$name: $(($1 - $2)) object records with the wrong size, thread, kind or context"
	grep "^obj .* $base $size " "$TMP/$name.objs" | head -n 2
}

if [ $ASAN = no ]; then
	# 1. False sharing on a malloc'd block.
	measure heap -e COMM@200000 "$P/objects_heap" -t 2 -s 3 || fail "objects_heap exited non-zero"
	objs heap
	check_block_events heap '^alloc_counters<main<'
	[ "$(ocounter heap allocs_tracked)" -gt 1000 ] && ok "heap: allocations tracked" ||
		fail "heap: only $(ocounter heap allocs_tracked) allocations tracked"
	[ "$(ocounter heap alloc_ctx_mismatches)" -eq 0 ] &&
		ok "heap: $(ocounter heap alloc_ctx_checks) context checks, no mismatch" ||
		fail "heap: $(ocounter heap alloc_ctx_mismatches) cached allocation contexts were wrong"

	# 2. Stack and TLS ranges hold each thread's own variables, and do not overlap.
	bad=$(awk 'FNR == NR && $1 == "thread" { st[$3] = $5; sh[$3] = $6; tl[$3] = $7; th[$3] = $8; next }
		function hex(x,   i, c, v) { v = 0; x = tolower(x); sub(/^0x/, "", x)
			for (i = 1; i <= length(x); i++) { c = index("0123456789abcdef", substr(x, i, 1)) - 1; v = v * 16 + c }
			return v }
		$1 == "thread" { i = $2; seen++
			if (!(i in st)) { print "thread " i ": no profile"; next }
			if (hex($3) < hex(st[i]) || hex($3) >= hex(sh[i])) print "thread " i ": local " $3 " outside stack " st[i] "-" sh[i]
			if (hex($4) < hex(tl[i]) || hex($4) >= hex(th[i])) print "thread " i ": __thread variable " $4 " outside TLS " tl[i] "-" th[i]
			if (hex($5) < hex(tl[i]) || hex($5) >= hex(th[i])) print "thread " i ": errno " $5 " outside TLS " tl[i] "-" th[i]
			if (hex(tl[i]) < hex(sh[i]) && hex(st[i]) < hex(th[i])) print "thread " i ": stack and TLS overlap" }
		END { if (seen < 4) print "only " seen + 0 " threads printed" }' "$TMP/heap.objs" "$TMP/heap.out")
	[ -z "$bad" ] && ok "stack and TLS ranges of 4 threads hold their variables" ||
		fail "stack/TLS ranges: $bad"

	# 3. The same block padded: no false sharing left on it.
	measure padded -e COMM@200000 "$P/objects_padded" -t 2 -s 3 || fail "objects_padded exited non-zero"
	objs padded
	set -- $(block heap)
	hn=$(sides_in heap "$1" "$2")
	set -- $(block padded)
	pn=$(sides_in padded "$1" "$2")
	echo "padded: $pn event addresses in the block (false-shared: $hn)"
	[ $((pn * 4)) -lt "$hn" ] && ok "padding removes the block's communication" ||
		fail "padded block still has $pn event addresses (false-shared: $hn)"

	# 3b. --min-alloc above the block's size: the block is not tracked.
	measure minalloc -e COMM@200000 --min-alloc 32 "$P/objects_heap" -t 2 -s 2 ||
		fail "objects_heap --min-alloc exited non-zero"
	objs minalloc
	set -- $(block minalloc)
	mo=$(objs_in minalloc "$1" "$2" .)
	echo "min-alloc 32: $(sides_in minalloc "$1" "$2") event addresses in the 16-byte block," \
	     "object records: ${mo% *}, allocations below the minimum: $(ocounter minalloc allocs_below_min)"
	[ "${mo% *}" -eq 0 ] && [ "$(ocounter minalloc allocs_below_min)" -gt 0 ] &&
		[ "$(ocounter minalloc alloc_min_size)" -gt 0 ] &&
		ok "--min-alloc 32 leaves the 16-byte block untracked" ||
		fail "--min-alloc 32: the 16-byte block was tracked, or nothing counted below the minimum"

	# 4. C++: an array of structs from new[].
	measure cxx -e COMM@200000 "$P/objects_cxx" -t 2 -s 3 || fail "objects_cxx exited non-zero"
	objs cxx
	check_block_events cxx '^_Znwm<_ZL13make_countersi<main<'
fi

# 5. Stress: the whole allocation family, 8 threads x 10^6 operations, with
# sampling and watchpoints on, cross-thread frees and a fork.
measure_stress() {
	name=$1; shift
	timeout 600 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	[ $rc -eq 124 ] && { fail "$name: no progress in 600 s (deadlock?)"; return; }
	[ $rc -eq 0 ] && grep -q "stress done" "$TMP/$name.out" && ok "$name: finished" ||
		{ fail "$name: exit status $rc"; tail -n 20 "$TMP/$name.err" >&2; return; }
	objs "$name"
}
measure_stress stress "$HPCRUN" -o "$TMP/stress" "$P/objects_stress" -t 8 -n 1000000 -f
if [ $ASAN = no ]; then
	at=$(ocounter stress allocs_tracked) ft=$(ocounter stress frees_tracked)
	echo "stress: $at blocks tracked, $ft removed, $(ocounter stress allocs_dropped) dropped," \
	     "$(ocounter stress samples) samples ($(ocounter stress samples_blocked) refused)"
	[ "$at" -ge 7000000 ] && ok "stress: allocations tracked" || fail "stress: only $at allocations tracked"
	# Samples landing in the wrappers' hit path (which runs without the
	# guard) must be refused by their PC: a few percent of this program's
	# time is spent there. Taken, they would record the runtime's own
	# shadow and cache accesses as the program's.
	ns=$(ocounter stress samples) nr=$(ocounter stress samples_in_runtime)
	[ "$ns" -gt 0 ] && [ $((nr * 1000 / ns)) -ge 5 ] && ok "stress: samples in the wrappers refused ($nr of $ns)" ||
		fail "stress: only $nr of $ns samples refused in the runtime's code (its wrappers' hit path is a few % of the time)"
	[ "$(ocounter stress allocs_dropped)" -eq 0 ] || fail "stress: allocations dropped"
	d=$((at - ft)); [ $d -lt 0 ] && d=$((-d))
	[ $d -le 200 ] && ok "stress: every tracked block was removed again ($d left)" ||
		fail "stress: $at tracked but $ft removed"
	[ "$(ocounter stress samples)" -gt 0 ] || fail "stress: no samples taken"
else
	# ASan's allocator took the calls above; now run the wrappers on top of it.
	RT="$B/lib/runtime/libhpcrun-comm.so"
	ASANLIB=$(ldd "$RT" | awk '/libasan/ { print $3 }')
	mkdir -p "$TMP/stress-rt-first"
	measure_stress stress-rt-first env LD_PRELOAD="$RT:$ASANLIB" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		HPCRUN_COMM_DIR="$TMP/stress-rt-first" "$P/objects_stress" -t 8 -n 1000000 -f
	# (ASan's own strdup does not call malloc: about 9 % fewer blocks.)
	at=$(ocounter stress-rt-first allocs_tracked)
	echo "stress with the runtime over ASan's allocator: $at blocks tracked," \
	     "$(ocounter stress-rt-first allocs_dropped) dropped"
	[ "$at" -ge 6000000 ] && ok "stress (runtime first): allocations tracked" ||
		fail "stress (runtime first): only $at allocations tracked"
	[ "$(ocounter stress-rt-first allocs_dropped)" -eq 0 ] || fail "stress (runtime first): allocations dropped"
fi
finish
