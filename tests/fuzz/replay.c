/* SPDX-License-Identifier: BSD-3-Clause */
/* replay.c — test_fuzz_replay_<target>: runs one fuzz target (fuzz_<target>.c,
   linked in) over every file of its regression corpus,
   tests/fuzz/corpus/<target> (or the directory given as argv[1]), without
   clang or libFuzzer. Beyond "does not crash" (and "every rejection names the
   file", which the targets enforce themselves), the file names carry
   expectations: "ok-*" must be accepted as is, "bad-*" must be rejected;
   other names (inputs the fuzzer found, "fuzz-*", "crash-*") only have to
   survive. SKIPs (77) rather than passes when the corpus is missing. No
   signal context. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz_target.h"
#include "hc_test.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
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
	char dir[1024], path[2048], err[2048], name[64];
	const char *src = getenv("HC_SRCDIR");
	struct dirent *de;
	int n = 0, nok = 0, nbad = 0;
	DIR *d;

	snprintf(name, sizeof(name), "test_fuzz_replay_%s", fuzz_target_name);
	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src ? src : ".",
		         fuzz_target_name);
	d = opendir(dir);
	if (!d)
		SKIP("no corpus at %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
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
		err[0] = '\0';
		ret = fuzz_target_check(data, len, err, sizeof(err));
		if (getenv("HC_FUZZ_VERBOSE"))   /* to read the messages */
			fprintf(stderr, "%s: %s\n", de->d_name, ret ? err : "accepted");
		if (strncmp(de->d_name, "ok-", 3) == 0) {
			CHECK_MSG(ret == 0, "%s: rejected: %s", path, err);
			nok++;
		} else if (strncmp(de->d_name, "bad-", 4) == 0) {
			CHECK_MSG(ret < 0 && err[0], "%s: accepted or no message", path);
			nbad++;
		}
		free(data);
	}
	closedir(d);
	fprintf(stderr, "%s: replayed %d inputs (%d must-accept, %d must-reject)\n", name, n,
	        nok, nbad);
	CHECK_MSG(nok > 0 && nbad > 0, "the corpus needs ok-* and bad-* files");
	return hc_test_done(name);
}
