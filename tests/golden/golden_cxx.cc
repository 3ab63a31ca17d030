// SPDX-License-Identifier: BSD-3-Clause
// golden_cxx.cc — golden program (C++, -O2): a class whose constructor
// allocates its members through a template wrapper (Allocate<double>, as
// LULESH does: two distinct call sites, two distinct objects), an array of
// structs from new[], a lambda run on a std::thread and on the main thread.
// The expected names are in golden_cxx.expected. Test code only.
#include <cstdlib>
#include <thread>

#include "probe.h"

namespace golden {

template <typename T> static inline T *Allocate(size_t n)
{
	return static_cast<T *>(malloc(sizeof(T) * n));
}

struct Counter {
	long hits;
	long misses;
};

class Domain {
public:
	explicit Domain(int n)
	{
		m_x = Allocate<double>(n);
		m_y = Allocate<double>(n);
	}
	void run(int me);
	double *m_x, *m_y;
};

__attribute__((noinline)) void Domain::run(int me)
{
	probe_comm(&m_x[me], 8, &m_x[1 - me], 8, 0);
	probe_comm(&m_y[me], 8, &m_y[1 - me], 8, 0);
	probe_sink = me;
}

} // namespace golden

int main()
{
	probe_arm();
	golden::Domain *d = new golden::Domain(4);
	golden::Counter *c = new golden::Counter[2];
	auto body = [&](int me) {
		probe_comm(&c[me].misses, 8, &c[1 - me].hits, 8, 0);
		d->run(me);
		probe_sink = me;
	};
	std::thread t(body, 1);
	body(0);
	t.join();
	probe_finish();
	return 0;
}
