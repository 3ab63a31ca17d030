#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# plot.sh — draws the overhead sweeps written by bench/overhead/run.sh (the
# .dat files in its WORKDIR) as PNG files with gnuplot (Debian gnuplot-nox):
# overhead-period.png (runtime ratio vs sampling period) and
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
set title "Overhead vs sampling period (median of interleaved runs)"
set xlabel "sampling period COMM@P  [µs of thread CPU time]"
set ylabel "runtime / native runtime"
set logscale x
set xrange [80:6000]
set yrange [0.95:*]
plot 1.05 title "goal 1.05" with lines dt 2 lc rgb "black", \
     "period.dat" using (strcol(1) eq "private" ? \$2 : 1/0):3 title "micro private, wall" with linespoints pt 7, \
     "period.dat" using (strcol(1) eq "private" ? \$2 : 1/0):4 title "micro private, CPU" with linespoints pt 6 dt 3, \
     "period.dat" using (strcol(1) eq "stencil" ? \$2 : 1/0):3 title "omp stencil, wall" with linespoints pt 5, \
     "period.dat" using (strcol(1) eq "stencil" ? \$2 : 1/0):4 title "omp stencil, CPU" with linespoints pt 4 dt 3

set output "$out/overhead-threads.png"
set title "Overhead vs thread count, fixed total work, 2 CPUs"
set xlabel "worker threads"
set ylabel "ratio to native"
set logscale x 2
set xrange [0.8:20]
set yrange [0.9:*]
set key top left
plot 1.05 title "goal 1.05" with lines dt 2 lc rgb "black", \
     "threads.dat" using (strcol(1) eq "private" ? \$2 : 1/0):3 title "private: runtime" with linespoints pt 7, \
     "threads.dat" using (strcol(1) eq "sharing" ? \$2 : 1/0):3 title "sharing 0.5: runtime" with linespoints pt 5, \
     "threads.dat" using (strcol(1) eq "private" ? \$2 : 1/0):5 title "private: peak RSS" with linespoints pt 6 dt 3, \
     "threads.dat" using (strcol(1) eq "sharing" ? \$2 : 1/0):5 title "sharing 0.5: peak RSS" with linespoints pt 4 dt 3
GP
ls "$out"/overhead-*.png
