// SPDX-License-Identifier: BSD-3-Clause
// cxx_stats.cc — a C++ program: std::thread workers, each owning one element
// of a std::vector<Stats> (8-byte elements, eight to a cache line) that it
// updates through member functions after private work, and one shared
// std::atomic<long> progress counter bumped every 32 iterations.
// Designed communication: false sharing between workers whose Stats share a
// line (all of them up to 2 threads, whose 16 bytes never straddle a line;
// beyond, where the lines split depends on the heap), true sharing all-to-all on
// `progress`; the top false-sharing object: the vector's storage (heap,
// allocated by the std::vector constructor called from main).
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include "acc_prog.h"

namespace {

struct Stats {
	int hits = 0;
	int misses = 0;
	void record(int v)
	{
		if (v & 1)
			hits += v;
		else
			misses += 1;
	}
};

std::atomic<long> progress{0};

void run(Stats &s, long iters)
{
	double buf[32] = {};
	for (long i = 0; i < iters; i++) {
		s.record(static_cast<int>(acc_work(buf, 32, 2)) & 15);
		if (i % 32 == 31)
			progress.fetch_add(1, std::memory_order_relaxed);
	}
}

} // namespace

int main(int argc, char **argv)
{
	acc_args a = acc_parse(argc, argv, "C++: std::thread, std::vector<Stats>, std::atomic");
	long iters = acc_iters(a, 8000000 / a.threads);
	std::vector<Stats> stats(static_cast<size_t>(a.threads));
	std::vector<std::thread> workers;

	for (int i = 0; i < a.threads; i++)
		workers.emplace_back(run, std::ref(stats[static_cast<size_t>(i)]), iters);
	for (auto &w : workers)
		w.join();
	long sum = 0;
	for (const auto &s : stats)
		sum += s.hits + s.misses;
	std::printf("cxx_stats threads=%d iters=%ld sum=%ld progress=%ld\n", a.threads, iters, sum,
		    progress.load());
	return 0;
}
