#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Real programs, measured (issue #8): a shell pipeline, make -j2 of a small
# generated project, python3 with threads. Exit status and output identical
# to the native run; every process image that ran (pid, exec generation)
# has its log and its main thread's profile, and every thread a profile.
. "$(dirname "$0")/lib.sh"
require_measurable

# images DIR: "pid-gen" of every process log, and of every main-thread profile
logs() { ls "$1" | sed -n 's/.*-000000-[0-9a-f]\{8\}-\([0-9]*\)-\([0-9]*\)\.log$/\1-\2/p' | sort; }
mains() { ls "$1" | sed -n 's/.*-000000-000-[0-9a-f]\{8\}-\([0-9]*\)-\([0-9]*\)\.hcprof$/\1-\2/p' | sort; }

# same NAME NRC RC: status, stdout and stderr identical, every image profiled
same() {
	[ "$3" -eq "$2" ] || fail "$1: exit status $3, native $2"
	cmp -s "$TMP/$1.nout" "$TMP/$1.out" || fail "$1: stdout differs: $(diff "$TMP/$1.nout" "$TMP/$1.out" | head -5)"
	grep -v '^hpcrun-comm: measuring' "$TMP/$1.err" | cmp -s "$TMP/$1.nerr" - ||
		fail "$1: stderr differs: $(grep -v '^hpcrun-comm: measuring' "$TMP/$1.err" | diff "$TMP/$1.nerr" - | head -5)"
	logs "$TMP/$1" >"$TMP/$1.logs"
	mains "$TMP/$1" >"$TMP/$1.mains"
	n=$(wc -l <"$TMP/$1.logs")
	[ "$n" -ge 1 ] || fail "$1: no process measured"
	cmp -s "$TMP/$1.logs" "$TMP/$1.mains" ||
		fail "$1: images with a log but no main profile: $(comm -23 "$TMP/$1.logs" "$TMP/$1.mains" | tr '\n' ' ')"
	"$ROWS" "$TMP/$1" >/dev/null || fail "$1: unreadable profiles"
	grep -h "threads measured" "$TMP/$1"/*.log | grep -v "unmeasured: 0" | head -1 | grep . &&
		fail "$1: unmeasured threads"
	grep -l "^error:" "$TMP/$1"/*.log 2>/dev/null | head -1 | grep . && fail "$1: a process log has an error"
	echo "ok: $1: status $3, $n process images, each with its profiles"
}

# A shell pipeline
CMD='seq 100000 | sort -n | tail -1'
sh -c "$CMD" >"$TMP/pipe.nout" 2>"$TMP/pipe.nerr"; nrc=$?
"$HPCRUN" -o "$TMP/pipe" sh -c "$CMD" >"$TMP/pipe.out" 2>"$TMP/pipe.err"; rc=$?
same pipe $nrc $rc
sh=$(basename "$(readlink -f "$(command -v sh)")")
for p in "$sh" seq sort tail; do
	ls "$TMP/pipe" | grep -q "^$p-000000-000-" || fail "pipe: $p was not measured"
done

# make -j2 of a small generated project (4 units, a program, and its run)
mkdir "$TMP/proj"
for i in 1 2 3 4; do
	printf 'int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' $i $i >"$TMP/proj/u$i.c"
done
cat >"$TMP/proj/main.c" <<'EOC'
#include <stdio.h>
int f1(int), f2(int), f3(int), f4(int);
int main(void) { printf("%d\n", f1(100) + f2(200) + f3(300) + f4(400)); return 0; }
EOC
cat >"$TMP/proj/Makefile" <<'EOM'
OBJS = u1.o u2.o u3.o u4.o main.o
all: run
prog: $(OBJS)
	@cc -o $@ $(OBJS)
%.o: %.c
	@cc -O1 -c -o $@ $<
run: prog
	@./prog
clean:
	@rm -f $(OBJS) prog
.PHONY: all run clean
EOM
make -s -C "$TMP/proj" -j2 >"$TMP/make.nout" 2>"$TMP/make.nerr"; nrc=$?
make -s -C "$TMP/proj" clean
"$HPCRUN" -o "$TMP/make" make -s -C "$TMP/proj" -j2 >"$TMP/make.out" 2>"$TMP/make.err"; rc=$?
same make $nrc $rc
ls "$TMP/make" | grep -q '^cc1-000000-000-' || fail "make: the compiler proper (cc1) was not measured"
ls "$TMP/make" | grep -q '^prog-000000-000-' || fail "make: the built program was not measured"

# A program that must stay single-threaded: unshare(CLONE_NEWUSER) fails
# with EINVAL in a multithreaded process (the runtime starts no thread of
# its own in a program that creates none)
if command -v unshare >/dev/null; then
	unshare -U true >/dev/null 2>&1; nrc=$?
	"$HPCRUN" -o "$TMP/unshare" unshare -U true >"$TMP/unshare.out" 2>"$TMP/unshare.err"; rc=$?
	[ $rc -eq $nrc ] || fail "unshare: status $rc, native $nrc: $(tail -1 "$TMP/unshare.err")"
	echo "ok: unshare -U: status $rc as natively"
fi

# python3 with 4 threads
PY=/usr/bin/python3
if [ -x $PY ]; then
	CODE='import threading
r = [0] * 4
def w(i):
    r[i] = sum(k * k for k in range(200000 + i))
ts = [threading.Thread(target=w, args=(i,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print(r)'
	$PY -c "$CODE" >"$TMP/py.nout" 2>"$TMP/py.nerr"; nrc=$?
	"$HPCRUN" -o "$TMP/py" $PY -c "$CODE" >"$TMP/py.out" 2>"$TMP/py.err"; rc=$?
	same py $nrc $rc
	n=$(ls "$TMP/py" | grep -c '^python3.*\.hcprof$')
	[ "$n" -eq 5 ] || fail "py: $n thread profiles, want 5 (main + 4 threads)"
else
	echo "skip: no $PY"
fi
finish
