// SPDX-License-Identifier: BSD-3-Clause
// objects_cxx.cc — C++ heap false sharing for the allocation tracker: an
// array of small structs allocated with new[] in make_counters(), one per
// worker thread (std::thread), adjacent, so the workers false-share its
// cache line; a second new'd object (a std::vector's buffer, from another
// call site) is written by the main thread only. Prints "block BASE SIZE"
// for the array, like objects_heap.
// Usage: objects_cxx [-t WORKERS] [-s SECONDS]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

struct Counter {
	volatile long hits;
};

static std::atomic<bool> stop{false};

__attribute__((noinline)) static Counter *make_counters(int n)
{
	Counter *c = new Counter[n];

	for (int i = 0; i < n; i++)
		c[i].hits = 0;
	std::printf("block %p %zu\n", static_cast<void *>(c), n * sizeof(Counter));
	return c;
}

__attribute__((noinline)) static void count(Counter *c)
{
	while (!stop.load(std::memory_order_relaxed))
		for (int i = 0; i < 1024; i++)
			c->hits = c->hits + 1;
}

int main(int argc, char **argv)
{
	int nw = 2;
	double seconds = 1.0;

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "-t") && i + 1 < argc)
			nw = std::atoi(argv[++i]);
		else if (!std::strcmp(argv[i], "-s") && i + 1 < argc)
			seconds = std::atof(argv[++i]);
		else {
			std::fprintf(stderr, "usage: objects_cxx [-t WORKERS] [-s SECONDS]\n");
			return 2;
		}
	}
	if (nw < 1 || nw > 16)
		return 2;
	Counter *c = make_counters(nw);
	std::vector<std::thread> th;
	for (int w = 0; w < nw; w++)
		th.emplace_back(count, &c[w]);
	std::vector<long> own(1024);
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	while (std::chrono::steady_clock::now() < end)
		for (auto &x : own)
			x++;
	stop = true;
	for (auto &t : th)
		t.join();
	delete[] c;
	std::fflush(stdout);
	return 0;
}
