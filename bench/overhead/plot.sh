#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# plot.sh — draws the overhead sweeps written by bench/overhead/run.sh (the
# .dat files in its WORKDIR) as PNG files with gnuplot (Debian gnuplot-nox):
# overhead-period.png (runtime ratio vs sampling period, micro private) and
# overhead-threads.png (runtime and peak-RSS ratio vs thread count).
#
#   bench/overhead/plot.sh WORKDIR OUTDIR
set -eu
work=${1:?usage: plot.sh WORKDIR OUTDIR}
out=${2:?usage: plot.sh WORKDIR OUTDIR}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$work"
gnuplot <<GP
set terminal pngcairo size 640,440 font "DejaVu Sans,10"
set grid
set key top right

set output "$out/overhead-period.png"
set title "Overhead vs sampling period (micro private, 2 threads, medians of interleaved runs)"
set xlabel 'sampling period P of COMM\@P  [µs of thread CPU time]'
set ylabel "ratio to native"
set logscale x
set xrange [80:6000]
set yrange [0.95:*]
plot 1.05 title "goal 1.05" with lines dt 2 lc rgb "black", \
     1/(1-32.5/x) title "1/(1 - 32.5 µs/P): per-sample cost only" with lines dt 3 lc rgb "gray40", \
     "period.dat" using (strcol(1) eq "private" ? \$2 : 1/0):3 title "wall time" with linespoints pt 7, \
     "period.dat" using (strcol(1) eq "private" ? \$2 : 1/0):4 title "CPU time" with linespoints pt 6

set output "$out/overhead-threads.png"
set title "Overhead vs thread count, fixed total work, 2 CPUs"
set xlabel "worker threads"
set ylabel "runtime ratio to native"
set y2label "peak RSS ratio to native"
set logscale x 2
unset logscale y
set xrange [0.8:20]
set yrange [0.9:1.5]
set logscale y2
set y2range [1:20]
set y2tics
set ytics nomirror
set key top left
plot 1.05 title "goal 1.05" with lines dt 2 lc rgb "black", \
     "threads.dat" using (strcol(1) eq "private" ? \$2 : 1/0):3 title "private: runtime" with linespoints pt 7, \
     "threads.dat" using (strcol(1) eq "sharing" ? \$2 : 1/0):3 title "sharing 0.5: runtime" with linespoints pt 5, \
     "threads.dat" using (strcol(1) eq "private" ? \$2 : 1/0):5 axes x1y2 title "private: peak RSS (right)" with linespoints pt 6 dt 3, \
     "threads.dat" using (strcol(1) eq "sharing" ? \$2 : 1/0):5 axes x1y2 title "sharing 0.5: peak RSS (right)" with linespoints pt 4 dt 3
GP
ls "$out"/overhead-*.png
