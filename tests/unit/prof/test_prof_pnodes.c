/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_pnodes.c — the PNOD section (NUMA nodes of an event's pages,
   doc/profile-format.md): written and read back, found by event with
   hc_prof_pnode_find (absent events read as -1, -1); the writer's refusals
   (events out of order or repeated, nodes out of -1..HC_PNODE_MAX); the
   reader's rejections (event beyond the EVNT section, order, a node out of
   range), each on a file whose CRC is valid so the semantic check is what
   fails; and a profile without the section reads as "no page nodes".
   Not signal-context code. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc/profile.h"
#include "hc_test.h"

#define NEV 100

static char path[256];

/* A profile with NEV events and the given page-node records (when
   `section`), as the writer takes them: its verdict is returned. */
static int write_file(const struct hc_prof_pnode *pn, size_t n, bool section)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof_node root = { .id = 0, .parent = HC_NONE, .lm = HC_NONE };
	int fd, rc;

	memset(&th, 0, sizeof(th));
	strcpy(th.exe, "/bin/pnodes");
	th.start_lm = HC_NONE;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	rc = hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th);
	rc |= hc_prof_section_begin(&w, HC_SEC_CCT);
	rc |= hc_prof_put_node(&w, &root);
	rc |= hc_prof_section_end(&w);
	rc |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (uint32_t i = 0; i < NEV; i++) {
		struct hc_prof_event e;
		memset(&e, 0, sizeof(e));
		e.time = 1000 + i;
		e.weight = 1;
		e.peer = 1;
		e.cpu = e.peer_cpu = -1;
		rc |= hc_prof_put_event(&w, &e);
	}
	rc |= hc_prof_section_end(&w);
	if (section) {
		rc |= hc_prof_section_begin(&w, HC_SEC_PNODES);
		for (size_t i = 0; i < n; i++)
			rc |= hc_prof_put_pnode(&w, &pn[i]);
		rc |= hc_prof_section_end(&w);
	}
	rc |= hc_prof_writer_finish(&w);
	close(fd);
	return rc;
}

int main(void)
{
	struct hc_prof_pnode want[NEV], got;
	struct hc_prof *p = NULL;
	char err[512];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/test_prof_pnodes-%d.hcprof",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	for (uint32_t i = 0; i < NEV; i += 2)
		want[n++] = (struct hc_prof_pnode){ i, (int32_t)(i % 3) - 1, (int32_t)(i % 5), 0 };
	CHECK_EQ_U64(write_file(want, n, true), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (p) {
		CHECK_EQ_U64(hc_prof_npnodes(p), n);
		for (uint32_t i = 0; i < NEV; i++) {
			bool found = hc_prof_pnode_find(p, i, &got);
			CHECK(found == (i % 2 == 0));
			CHECK_EQ_U64(got.event, i);
			CHECK(got.node == (found ? (int32_t)(i % 3) - 1 : -1));
			CHECK(got.peer_node == (found ? (int32_t)(i % 5) : -1));
		}
		hc_prof_close(p);
	}

	/* No PNOD section: no page nodes. */
	CHECK_EQ_U64(write_file(NULL, 0, false), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (p) {
		CHECK_EQ_U64(hc_prof_npnodes(p), 0);
		CHECK(!hc_prof_pnode_find(p, 3, &got) && got.node == -1 && got.peer_node == -1);
		hc_prof_close(p);
	}

	/* The writer refuses what the reader would. */
	{
		struct hc_prof_pnode bad[2][2] = {
			{ { 5, 0, 0, 0 }, { 5, 1, 1, 0 } },                 /* repeated event */
			{ { 5, 0, 0, 0 }, { 4, 1, 1, 0 } },                 /* out of order */
		};
		struct hc_prof_pnode range[3] = {
			{ 1, -2, 0, 0 }, { 1, 0, HC_PNODE_MAX + 1, 0 }, { 1, HC_PNODE_MAX, -1, 0 } };
		for (int k = 0; k < 2; k++)
			CHECK(write_file(bad[k], 2, true) != 0);
		CHECK(write_file(&range[0], 1, true) != 0);
		CHECK(write_file(&range[1], 1, true) != 0);
		CHECK_EQ_U64(write_file(&range[2], 1, true), 0);
	}

	/* The reader refuses an event beyond the EVNT section: written by a
	   writer that cannot know the event count. */
	{
		struct hc_prof_pnode beyond = { NEV, 0, 0, 0 };
		CHECK_EQ_U64(write_file(&beyond, 1, true), 0);
		CHECK(hc_prof_open(path, &p, err, sizeof(err)) == -EINVAL);
		CHECK_MSG(strstr(err, "page-node record 0's event below 100") != NULL, "%s", err);
	}
	unlink(path);
	return hc_test_done("test_prof_pnodes");
}
