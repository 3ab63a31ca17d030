/* SPDX-License-Identifier: BSD-3-Clause */
/* dl_loop ITER: load and unload a library ITER times (dlopen, dlsym,
   dlclose), most of the CPU time inside the loader, while a second thread
   computes; prints a checksum that does not depend on timing. The loader
   gate's test (tests/integration/loader.sh). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int stop;

static void *spin(void *arg)
{
	unsigned long x = 1;

	(void)arg;
	while (!stop)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return (void *)x;
}

int main(int argc, char **argv)
{
	static const char *const libs[] = { "libresolv.so.2", "libm.so.6" };
	long iter = argc > 1 ? atol(argv[1]) : 5000, found = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, spin, NULL))
		return 1;
	for (long i = 0; i < iter; i++) {
		void *h = dlopen(libs[i & 1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "dl_loop: %s\n", dlerror());
			return 1;
		}
		found += dlsym(h, (i & 1) ? "cos" : "res_query") != NULL;
		if (dlclose(h)) {
			fprintf(stderr, "dl_loop: %s\n", dlerror());
			return 1;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("dl_loop: %ld loads, %ld symbols found\n", iter, found);
	return 0;
}
