/* SPDX-License-Identifier: BSD-3-Clause */
/* replay_prof.c — test_fuzz_replay_prof: runs the fuzz target over every file
   of the regression corpus (tests/fuzz/corpus/prof, or the directory given as
   argv[1]) without clang or libFuzzer. Beyond "does not crash", the file names
   carry expectations: "ok-*" must be accepted as is, "bad-*" must be
   rejected; other names (inputs the fuzzer found, "fuzz-*") only have to
   survive. Also SKIPs (77) rather than passes when the corpus is missing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc/profile.h"
#include "fuzz_prof.h"
#include "hc_test.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

int main(int argc, char **argv)
{
	char dir[1024], path[2048], err[512];
	const char *src = getenv("HC_SRCDIR");
	struct dirent *de;
	int n = 0, nok = 0, nbad = 0;
	DIR *d;

	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/prof", src ? src : ".");
	d = opendir(dir);
	if (!d)
		SKIP("no corpus at %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct hc_prof *p = NULL;
		uint8_t *data;
		size_t len;
		int ret;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		data = slurp(path, &len);
		CHECK_MSG(data != NULL, "%s: unreadable", path);
		if (!data)
			continue;
		LLVMFuzzerTestOneInput(data, len);
		n++;
		ret = hc_prof_open(path, &p, err, sizeof(err));
		if (strncmp(de->d_name, "ok-", 3) == 0) {
			CHECK_MSG(ret == 0, "%s", err);
			nok++;
		} else if (strncmp(de->d_name, "bad-", 4) == 0) {
			CHECK_MSG(ret < 0 && strstr(err, "expected"), "%s: accepted or no message", path);
			nbad++;
		}
		hc_prof_close(p);
		free(data);
	}
	closedir(d);
	fprintf(stderr, "replayed %d inputs (%d must-accept, %d must-reject)\n", n, nok, nbad);
	CHECK(nok > 0 && nbad > 0);
	return hc_test_done("test_fuzz_replay_prof");
}
