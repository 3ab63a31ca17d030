#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# plot.sh — draws the accuracy sweeps written by bench/accuracy/sweeps.sh (the
# .dat files in its WORKDIR) as PNG files with gnuplot (Debian gnuplot-nox):
# accuracy-false.png, accuracy-sharing.png, accuracy-readwrite.png,
# accuracy-pairs.png and accuracy-pairs8.png (the 8-worker pairs matrix).
#
#   bench/accuracy/plot.sh WORKDIR OUTDIR
set -eu
work=${1:?usage: plot.sh WORKDIR OUTDIR}
out=${2:?usage: plot.sh WORKDIR OUTDIR}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$work"
gnuplot <<GP
set terminal pngcairo size 640,440 font "DejaVu Sans,10"
set key top left
set grid

set output "$out/accuracy-false.png"
set title "False-sharing sweep: measured vs designed false fraction"
set xlabel "designed false fraction F"
set ylabel "measured false fraction of the volume"
set xrange [-0.05:1.05]; set yrange [-0.05:1.05]
plot x title "designed" with lines dt 2 lc rgb "black", \
     "false.dat" using (\$1-0.01):2:3:4 title "2 threads" with yerrorlines pt 7, \
     "false.dat" using 1:5:6:7 title "4 threads" with yerrorlines pt 5, \
     "false.dat" using (\$1+0.01):8:9:10 title "8 threads" with yerrorlines pt 9

set output "$out/accuracy-sharing.png"
set title "Sharing sweep: volume relative to S = 1"
set xlabel "designed sharing fraction S"
set ylabel "volume / volume at S = 1"
set xrange [-0.05:1.05]; set autoscale y; set yrange [0:*]
plot x title "designed (S)" with lines dt 2 lc rgb "black", \
     "sharing.dat" using 1:3 title "2 threads" with linespoints pt 7, \
     "sharing.dat" using 1:6 title "4 threads" with linespoints pt 5, \
     "sharing.dat" using 1:9 title "8 threads" with linespoints pt 9

set output "$out/accuracy-readwrite.png"
set title "Read-fraction sweep: communicating share of the sampled CPU time"
set xlabel "read fraction R"
set ylabel "volume / (samples x period)  [%]"
set xrange [-0.05:1.05]; set autoscale y; set yrange [0:*]
plot "readwrite.dat" using 1:(\$2*100) title "2 threads" with linespoints pt 7, \
     "readwrite.dat" using 1:(\$3*100) title "4 threads" with linespoints pt 5, \
     "readwrite.dat" using 1:(\$4*100) title "8 threads" with linespoints pt 9

set output "$out/accuracy-pairs.png"
set title "Pairs: each pair's share of the pair-cell volume"
set xlabel "designed share f_k / sum f"
set ylabel "measured share"
set xrange [0:0.8]; set yrange [0:1]
plot x title "designed" with lines dt 2 lc rgb "black", \
     "pairs.dat" using (\$1==4 ? \$4 : 1/0):5 title "4 workers" with points pt 5 ps 1.5, \
     "pairs.dat" using (\$1==8 ? \$4 : 1/0):5 title "8 workers" with points pt 9 ps 1.5

set output "$out/accuracy-pairs8.png"
set title "Pairs, 8 workers, f = 0.25 / 0.5 / 0.75 / 1: thread matrix (ms of CPU time, repetitions summed)"
unset key; unset grid
set xlabel "thread"; set ylabel "thread"
set xrange [-0.5:8.5]; set yrange [8.5:-0.5]
set xtics 1; set ytics 1
set palette defined (0 "white", 1 "#fdd49e", 2 "#fc8d59", 3 "#b30000")
set cbrange [0:*]
plot "pairs8.matrix" matrix with image, \
     "pairs8.matrix" matrix using 1:2:(\$3 > 0 ? sprintf("%g", \$3) : "") with labels font ",8"
GP
ls "$out"/accuracy-*.png
