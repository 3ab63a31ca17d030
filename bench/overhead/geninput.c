/* SPDX-License-Identifier: BSD-3-Clause */
/* geninput.c — writes a deterministic, text-like input for the compressor
   workloads of bench/overhead (pigz, zstd, xz): lines of pseudo-words drawn
   with a skewed (roughly Zipf) distribution from a fixed vocabulary, mixed
   with numbers, so the data compresses about as well as ordinary text
   (~3-4x) and every run compresses the same bytes.

   Usage: geninput MEBIBYTES > FILE */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define VOCAB 4096

static uint64_t state = 88172645463325252ull;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

int main(int argc, char **argv)
{
	static const char *syl[] = { "ka", "ri", "to", "me", "lu", "sa", "ne", "po", "di", "ga",
	                             "vo", "che", "str", "an", "el", "or", "qu", "is", "um", "ex" };
	static char words[VOCAB][16];
	long long left;
	char line[256];

	if (argc != 2 || atol(argv[1]) < 1) {
		fprintf(stderr, "usage: geninput MEBIBYTES > FILE\n");
		return 2;
	}
	left = atoll(argv[1]) << 20;
	for (int w = 0; w < VOCAB; w++) {
		int n = 1 + (int)(rnd() % 4), len = 0;
		for (int k = 0; k < n; k++)
			len += snprintf(words[w] + len, sizeof words[w] - (size_t)len, "%s",
			                syl[rnd() % (sizeof syl / sizeof syl[0])]);
	}
	while (left > 0) {
		int len = 0, nw = 6 + (int)(rnd() % 10);
		for (int k = 0; k < nw; k++) {
			/* min of three uniforms: small indices much more likely */
			uint64_t a = rnd() % VOCAB, b = rnd() % VOCAB, c = rnd() % VOCAB;
			uint64_t i = a < b ? (a < c ? a : c) : (b < c ? b : c);
			if (rnd() % 11 == 0)
				len += snprintf(line + len, sizeof line - (size_t)len, "%llu ",
				                (unsigned long long)(rnd() % 100000));
			else
				len += snprintf(line + len, sizeof line - (size_t)len, "%s ", words[i]);
		}
		line[len - 1] = '\n';
		if (len > left)
			len = (int)left;
		if (fwrite(line, 1, (size_t)len, stdout) != (size_t)len)
			return 1;
		left -= len;
	}
	return fclose(stdout) != 0;
}
