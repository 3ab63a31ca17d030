/* SPDX-License-Identifier: BSD-3-Clause */
/* test_analysis_symbols.c — symbolization with libdw on real code, both
   module kinds the runtime records: this test binary (PIE, ET_DYN: offset =
   address - load bias) and the symexec helper (non-PIE, ET_EXEC: bias 0,
   offset = absolute address). For each, a return address taken inside a
   function inlined into another must come back, looked up at offset - 1 as
   the runtime's frame nodes are, as the chain outer function > inlined
   function (called at a known line) at the known line of the call; a
   function's entry must give its name and definition line. Then the whole
   analyzer runs on a profile whose module is this binary, and experiment.xml
   must contain PF outer > A inlined (call line) > C (call line) > PF leaf > S
   (merged from two threads whose load maps list the modules in different
   orders, with the same result for one or three workers), and threads.csv the
   start routine by name. */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"

static volatile int sink;

__attribute__((noinline)) static void *pie_leaf(void)
{
	void *r = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
	return r;
}

enum { PIE_CALL_LINE = __LINE__ + 4 };
static inline __attribute__((always_inline)) void *pie_inlined(void)
{
	void *r;
	r = pie_leaf();
	sink++;
	return r;
}

enum { PIE_OUTER_LINE = __LINE__ + 2, PIE_INLINE_LINE = __LINE__ + 4 };
__attribute__((noinline)) void *pie_outer(void);
__attribute__((noinline)) void *pie_outer(void)
{
	void *r = pie_inlined();
	sink++;
	return r;
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;   /* the first object is the program */
	return 1;
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
		snprintf(arg, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The frame chain of a call site in outer, as the analyzer will see it. */
static void check_call_site(const char *module, uint64_t ret_off, const char *outer,
                            const char *inlined, int inline_line, int call_line,
                            const char *file_suffix)
{
	char err[1024];
	struct symmod *m = sym__open(module, err, sizeof(err));
	struct sym_result *r = calloc(1, sizeof(*r));

	CHECK_MSG(m != NULL, "sym__open(%s): %s", module, err);
	if (!m || !r) {
		free(r);
		return;
	}
	sym__lookup(m, ret_off - 1, r);
	CHECK_MSG(r->nframes == 2, "%s: %d frames at 0x%llx", module, r->nframes,
	          (unsigned long long)ret_off - 1);
	if (r->nframes == 2) {
		CHECK_STR(r->fr[0].name, outer);
		CHECK_STR(r->fr[1].name, inlined);
		CHECK_MSG(r->fr[1].call_line == inline_line, "%s: inlined at line %d, expected %d",
		          module, r->fr[1].call_line, inline_line);
		CHECK_MSG(ends_with(r->fr[1].call_file, file_suffix), "%s: inlined call in %s", module,
		          r->fr[1].call_file ? r->fr[1].call_file : "(null)");
		CHECK_MSG(ends_with(r->fr[0].decl_file, file_suffix), "%s: outer defined in %s", module,
		          r->fr[0].decl_file ? r->fr[0].decl_file : "(null)");
	}
	CHECK_MSG(r->line == call_line, "%s: call at line %d, expected %d", module, r->line, call_line);
	CHECK_MSG(ends_with(r->file, file_suffix), "%s: call in %s", module,
	          r->file ? r->file : "(null)");
	sym__close(m);
	free(r);
}

static void check_entry(const char *module, uint64_t off, const char *name, int decl_line)
{
	char err[1024];
	struct symmod *m = sym__open(module, err, sizeof(err));
	struct sym_result *r = calloc(1, sizeof(*r));

	CHECK_MSG(m != NULL, "sym__open(%s): %s", module, err);
	if (!m || !r) {
		free(r);
		return;
	}
	sym__lookup(m, off, r);
	CHECK_MSG(r->nframes >= 1, "%s: nothing at 0x%llx", module, (unsigned long long)off);
	if (r->nframes >= 1) {
		CHECK_STR(r->fr[0].name, name);
		CHECK_MSG(r->fr[0].decl_line == decl_line, "%s: %s defined at line %d, expected %d",
		          module, name, r->fr[0].decl_line, decl_line);
	}
	sym__close(m);
	free(r);
}

static void check_exec(void)
{
	const char *b = getenv("HC_BUILDDIR");
	char path[PATH_MAX], cmd[PATH_MAX + 16], line[256];
	unsigned long long ret, outer;
	int call_line, inline_line, outer_line;
	FILE *p;

	snprintf(path, sizeof(path), "%s/tests/unit/analysis/symexec", b && *b ? b : ".");
	snprintf(cmd, sizeof(cmd), "'%s'", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(fgets(line, sizeof(line), p) != NULL);
	CHECK(pclose(p) == 0);
	CHECK(sscanf(line, "%llx %d %d %llx %d", &ret, &call_line, &inline_line, &outer,
	             &outer_line) == 5);
	/* ET_EXEC: the load bias is 0, the offset is the address itself. */
	check_call_site(path, ret, "exec_outer", "exec_inlined", inline_line, call_line, "symexec.c");
	check_entry(path, outer, "exec_outer", outer_line);
}

static void check_pipeline(const char *self, uintptr_t bias, uint64_t ret_off, uint64_t leaf_off)
{
	char *work = fx_tmpdir("sym"), *meas = fx_join(work, "m"), *db = fx_join(work, "db");
	const char *inputs[1] = { meas };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 2,
	                              .unit = -1, .diag = stderr };
	struct hc_prof_module mod;
	struct hc_prof_node nodes[3];
	struct hc_prof_event ev;
	struct fx_prof p;
	char err[1024], *xml, *threads, *text, expr[512], *id_outer, *id_inl, *id_leaf;
	int ret, n;

	fx_mkdir(meas);
	memset(&mod, 0, sizeof(mod));
	snprintf(mod.path, sizeof(mod.path), "%s", self);
	mod.base = bias;
	memset(nodes, 0, sizeof(nodes));
	nodes[0] = (struct hc_prof_node){ .id = 0, .parent = HC_NONE, .lm = HC_NONE };
	nodes[1] = (struct hc_prof_node){ .id = 1, .parent = 0, .lm = 0, .offset = ret_off };
	nodes[2] = (struct hc_prof_node){ .id = 2, .parent = 1, .lm = 0, .offset = leaf_off,
	                                  .flags = HC_NODE_LEAF };
	nodes[2].m[HC_M_FALSE_TRAP] = 32;
	memset(&ev, 0, sizeof(ev));
	ev = (struct hc_prof_event){ .weight = 64, .flags = HC_COMM_TRAP, .cpu = -1, .peer_cpu = -1,
	                             .peer = 0, .ctx = 2, .peer_ctx = 2 };
	memset(&p, 0, sizeof(p));
	p.th = (struct hc_prof_thread){ .index = 1, .creator = 0, .pid = 77, .tid = 78,
	                                .sampler = HC_SAMPLER_PEBS, .unit = HC_UNIT_TRANSFERS,
	                                .creation_ctx = HC_NONE, .period = 10000, .start_lm = 0,
	                                .start_off = leaf_off };
	snprintf(p.th.exe, sizeof(p.th.exe), "%s", self);
	p.hostid = 1;
	p.mods = &mod;
	p.nmods = 1;
	p.nodes = nodes;
	p.nnodes = 3;
	p.evs = &ev;
	p.nevs = 1;
	free(fx_write_profile(meas, &p));
	/* Thread 2: the same code, its load map in another order (libc first),
	   so modules reach the workers in different orders. */
	{
		struct hc_prof_module mods2[2];
		struct hc_prof_node nodes2[3];
		char libc[PATH_MAX] = "";

		dl_iterate_phdr(find_libc, libc);
		memset(mods2, 0, sizeof(mods2));
		snprintf(mods2[0].path, sizeof(mods2[0].path), "%s", libc[0] ? libc : "/nonexistent/libc.so.6");
		mods2[1] = mod;
		mods2[1].id = 1;
		memcpy(nodes2, nodes, sizeof(nodes2));
		nodes2[1].lm = 1;
		nodes2[2].lm = 1;
		p.mods = mods2;
		p.nmods = 2;
		p.nodes = nodes2;
		p.th.index = 2;
		p.th.tid = 79;
		p.th.start_lm = 1;
		free(fx_write_profile(meas, &p));
	}

	ret = hc_analysis_run(&o, NULL, err, sizeof(err));
	CHECK_MSG(ret == 0, "hc_analysis_run: %s", err);
	{
		/* Same database with one worker; modules sorted by path. */
		char *db1 = fx_join(work, "db1"), *x1, *x3, *a, *b;
		struct hc_analysis_opts o1 = o;
		o1.outdir = db1;
		o1.jobs = 1;
		CHECK(hc_analysis_run(&o1, NULL, err, sizeof(err)) == 0);
		a = fx_join(db1, HC_DB_EXPERIMENT);
		b = fx_join(db, HC_DB_EXPERIMENT);
		x1 = fx_read(a, NULL);
		x3 = fx_read(b, NULL);
		CHECK(x1 && x3 && strcmp(x1, x3) == 0);
		free(x1);
		free(x3);
		x1 = fx_xpath_string(b, "//LoadModule[@i='0']/@n");
		x3 = fx_xpath_string(b, "//LoadModule[@i='1']/@n");
		CHECK_MSG(strcmp(x1, x3) < 0, "modules not sorted: %s, %s", x1, x3);
		free(x1);
		free(x3);
		free(a);
		free(b);
		free(db1);
	}
	xml = fx_join(db, HC_DB_EXPERIMENT);
	threads = fx_join(db, HC_DB_THREADS);
	text = fx_read(threads, NULL);
	{
		char *xsd = fx_doc(HC_DB_EXPERIMENT_XSD);
		CHECK(fx_validate(xml, xsd) == 0);
		free(xsd);
	}
	id_outer = fx_xpath_string(xml, "//Procedure[@n='pie_outer']/@i");
	id_inl = fx_xpath_string(xml, "//Procedure[@n='pie_inlined']/@i");
	id_leaf = fx_xpath_string(xml, "//Procedure[@n='pie_leaf']/@i");
	CHECK(id_outer[0] && id_inl[0] && id_leaf[0]);
	snprintf(expr, sizeof(expr), "//PF[@n='%s']/A[@n='%s' and @l='%d']/C[@l='%d']/PF[@n='%s']/S"
	         "/M[@n='%d' and @v='64']", id_outer, id_inl, PIE_INLINE_LINE, PIE_CALL_LINE, id_leaf,
	         HC_DB_METRIC_ID(HC_DB_M_FALSE, 1));
	n = fx_xpath_count(xml, expr);
	CHECK_MSG(n == 1, "%s matched %d nodes", expr, n);
	/* The file of the outer procedure is this source file. */
	snprintf(expr, sizeof(expr), "//File[@i=//Procedure[@n='pie_outer']/@f]/@n");
	free(id_outer);
	id_outer = fx_xpath_string(xml, expr);
	CHECK_MSG(ends_with(id_outer, "test_analysis_symbols.c"), "pie_outer's file: %s", id_outer);
	/* Units follow the profile: a PEBS profile gives transfers. */
	CHECK(fx_xpath_count(xml, "//NV[@n='unit' and @v='transfers']") == 1);
	/* threads.csv: thread 0 (known from the creator field only), thread 1
	   started at pie_leaf. */
	CHECK(text && strstr(text, "\n1,0,77,1,78,0,pie_leaf,,,pebs,10000,") != NULL);
	CHECK(text && strstr(text, "\n0,0,77,0,,,,,,,,,0,00000001\n") != NULL);
	CHECK(text && strstr(text, "\n2,0,77,2,79,0,pie_leaf,,,pebs,10000,") != NULL);
	free(id_outer);
	free(id_inl);
	free(id_leaf);
	free(text);
	free(threads);
	free(xml);
	if (!hc_test_failures && !getenv("HC_KEEP_TMP"))
		fx_rm_rf(work);
	else
		fprintf(stderr, "kept %s for inspection\n", work);
	free(db);
	free(meas);
	free(work);
}

int main(void)
{
	char self[PATH_MAX];
	uintptr_t bias = 0;
	uint64_t ret_off, leaf_off;
	void *ret;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		SKIP("cannot read /proc/self/exe");
	self[n] = '\0';
	dl_iterate_phdr(main_bias, &bias);
	ret = pie_outer();
	ret_off = (uint64_t)((uintptr_t)ret - bias);
	leaf_off = (uint64_t)((uintptr_t)pie_leaf - bias);

	check_call_site(self, ret_off, "pie_outer", "pie_inlined", PIE_INLINE_LINE, PIE_CALL_LINE,
	                "test_analysis_symbols.c");
	check_entry(self, (uint64_t)((uintptr_t)pie_outer - bias), "pie_outer", PIE_OUTER_LINE);
	check_exec();
	check_pipeline(self, bias, ret_off, leaf_off);
	return hc_test_done("test_analysis_symbols");
}
