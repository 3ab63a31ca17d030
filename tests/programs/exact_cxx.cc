// SPDX-License-Identifier: BSD-3-Clause
// exact_cxx.cc — a C++ program for the exact-mode wrapper test: std::thread,
// std::atomic (fetch_add, exchange, compare_exchange), a virtual call (vptr
// instrumentation), std::vector. Prints the counter: 4 threads x 20000.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

struct Work {
	virtual ~Work() {}
	virtual long step(long i) { return i & 1; }
};
struct Odd : Work {
	long step(long i) override { return (i & 1) ^ 1; }
};

static std::atomic<long> counter{0};
static std::atomic<int> flag{0};

int main()
{
	std::vector<std::thread> ts;
	for (int t = 0; t < 4; t++)
		ts.emplace_back([t] {
			Odd o;
			Work *w = t % 2 ? static_cast<Work *>(&o) : new Work;
			long s = 0;
			for (long i = 0; i < 20000; i++) {
				counter.fetch_add(1);
				s += w->step(i);
				int e = flag.load();
				flag.compare_exchange_weak(e, e + 1);
			}
			flag.exchange(0);
			if (w != &o)
				delete w;
			(void)s;
		});
	for (auto &t : ts)
		t.join();
	std::printf("counter %ld\n", counter.load());
	return counter.load() == 80000 ? 0 : 1;
}
