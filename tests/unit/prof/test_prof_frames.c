/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_frames.c — the FRAM section (stack frames for naming stack
   locals, doc/profile-format.md): written and read back field by field in
   the writer's order; a profile without the section reads as "no frames";
   the reader rejects a frame naming a node beyond the CCT section (on a
   file whose CRC is valid, so the semantic check is what fails).
   Not signal-context code. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc/profile.h"
#include "hc_test.h"

#define NNODES 4

static char path[256];

static int write_file(const struct hc_prof_frame *f, size_t n, bool section)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	int fd, rc;

	memset(&th, 0, sizeof(th));
	strcpy(th.exe, "/bin/frames");
	th.start_lm = HC_NONE;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	rc = hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th);
	rc |= hc_prof_section_begin(&w, HC_SEC_CCT);
	for (uint32_t i = 0; i < NNODES; i++) {
		struct hc_prof_node nd = { .id = i, .parent = i ? i - 1 : HC_NONE,
		                           .lm = HC_NONE, .offset = i };
		rc |= hc_prof_put_node(&w, &nd);
	}
	rc |= hc_prof_section_end(&w);
	if (section) {
		rc |= hc_prof_section_begin(&w, HC_SEC_FRAMES);
		for (size_t i = 0; i < n; i++)
			rc |= hc_prof_put_frame(&w, &f[i]);
		rc |= hc_prof_section_end(&w);
	}
	rc |= hc_prof_writer_finish(&w);
	close(fd);
	return rc;
}

int main(void)
{
	struct hc_prof_frame want[3] = {
		{ .cfa = 0x7ffc00001000, .node = 3, .count = 7, .size = 192 },
		{ .cfa = 0x7ffc00000f00, .node = 1, .count = UINT32_MAX, .size = 0 },
		{ .cfa = 0x7ffc00001100, .node = 2, .count = 1, .size = 48 },
	}, got;
	struct hc_prof *p = NULL;
	char err[512];

	snprintf(path, sizeof(path), "%s/test_prof_frames-%d.hcprof",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	CHECK_EQ_U64(write_file(want, 3, true), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (p) {
		CHECK_EQ_U64(hc_prof_nframes(p), 3);
		for (size_t i = 0; i < 3 && i < hc_prof_nframes(p); i++) {
			hc_prof_frame(p, i, &got);
			CHECK_EQ_U64(got.cfa, want[i].cfa);
			CHECK_EQ_U64(got.node, want[i].node);
			CHECK_EQ_U64(got.count, want[i].count);
			CHECK_EQ_U64(got.size, want[i].size);
		}
		hc_prof_close(p);
	}

	/* No FRAM section (a profile from before it): no frames. */
	CHECK_EQ_U64(write_file(NULL, 0, false), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (p) {
		CHECK_EQ_U64(hc_prof_nframes(p), 0);
		hc_prof_close(p);
	}

	/* A node beyond the CCT: written (the writer does not know the tree),
	   refused by the reader with the record named. */
	{
		struct hc_prof_frame beyond = { .cfa = 0x1000, .node = NNODES, .count = 1 };

		CHECK_EQ_U64(write_file(&beyond, 1, true), 0);
		CHECK(hc_prof_open(path, &p, err, sizeof(err)) == -EINVAL);
		CHECK_MSG(strstr(err, "stack frame record 0's node below 4") != NULL, "%s", err);
	}
	unlink(path);
	return hc_test_done("test_prof_frames");
}
