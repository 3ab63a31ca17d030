/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hpcprof_cli.c — the hpcprof-comm program as a user runs it: the
   default database name next to hpctoolkit-app-measurements and a fresh name
   when it exists, refusal to overwrite an explicit -o without --force, the
   summary on stdout (none with -q), no progress output when stderr is not a
   terminal, exit codes 0 / 1 (nothing usable, unwritable output) / 2 (usage),
   --help and --version. Runs the built program through /bin/sh. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hc_test.h"
#include "fixture.h"
#include "scenario.h"

static char *prog;
static char *work;

struct res {
	int code;
	char *out, *err;
};

static void sh(const char *args, struct res *r)
{
	char cmd[8192], *o = fx_join(work, "stdout"), *e = fx_join(work, "stderr");
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >'%s' 2>'%s' </dev/null", work, prog, args, o, e);
	st = system(cmd);
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r->out = fx_read(o, NULL);
	r->err = fx_read(e, NULL);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	free(o);
	free(e);
}

static void done(struct res *r)
{
	free(r->out);
	free(r->err);
}

static bool has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

int main(void)
{
	const char *b = getenv("HC_BUILDDIR");
	char *meas, *garbage, *p;
	struct res r;

	prog = fx_join(b && *b ? b : ".", "hpcprof-comm/hpcprof-comm");
	if (!fx_exists(prog))
		SKIP("%s not built", prog);
	work = fx_tmpdir("cli");
	meas = fx_join(work, "hpctoolkit-app-measurements");
	fx_mkdir(meas);
	sc_write(meas, NULL);

	sh("hpctoolkit-app-measurements", &r);
	CHECK_MSG(r.code == 0, "exit %d: %s", r.code, r.err);
	CHECK(has(r.out, "Top thread pairs") && has(r.out, "Top code pairs"));
	CHECK(has(r.out, "Database: hpctoolkit-app-database ("));
	CHECK(!has(r.err, "\r"));   /* stderr is a file: no progress */
	p = fx_join(work, "hpctoolkit-app-database/summary.txt");
	CHECK(fx_exists(p));
	free(p);
	done(&r);

	/* Again: a fresh name, never the existing one. */
	sh("-q hpctoolkit-app-measurements", &r);
	CHECK_MSG(r.code == 0, "exit %d: %s", r.code, r.err);
	CHECK_STR(r.out, "");
	p = fx_join(work, "hpctoolkit-app-database-2/database.xml");
	CHECK(fx_exists(p));
	free(p);
	done(&r);

	sh("-o hpctoolkit-app-database hpctoolkit-app-measurements", &r);
	CHECK_EQ_U64(r.code, 1);
	CHECK(has(r.err, "hpctoolkit-app-database") && has(r.err, "--force"));
	done(&r);

	sh("--force -q -j 1 --top 3 -o hpctoolkit-app-database hpctoolkit-app-measurements", &r);
	CHECK_MSG(r.code == 0, "exit %d: %s", r.code, r.err);
	p = fx_join(work, "hpctoolkit-app-database/experiment.xml");
	{
		char *x = fx_read(p, NULL);
		CHECK(x && has(x, "<CodePairTable top=\"3\">"));
		free(x);
	}
	free(p);
	done(&r);

	sh("--unit transfers -o db-t hpctoolkit-app-measurements", &r);
	CHECK_EQ_U64(r.code, 1);   /* every profile is in ns: nothing usable */
	CHECK(has(r.err, "nothing usable") && has(r.err, "hpctoolkit-app-measurements/"));
	done(&r);

	garbage = fx_join(work, "garbage");
	fx_mkdir(garbage);
	p = fx_join(garbage, "x-000000-000-00000000-1-0.hcprof");
	fx_write_file(p, "junk", 4);
	sh("garbage", &r);
	CHECK_EQ_U64(r.code, 1);
	CHECK(has(r.err, "x-000000-000-00000000-1-0.hcprof") && has(r.err, "magic"));
	free(p);
	p = fx_join(work, "garbage-database");
	CHECK(!fx_exists(p));
	free(p);
	done(&r);

	sh("-o /nonexistent-dir-for-hpcprof/db hpctoolkit-app-measurements", &r);
	CHECK_EQ_U64(r.code, 1);
	CHECK(has(r.err, "/nonexistent-dir-for-hpcprof/db"));
	done(&r);

	sh("", &r);
	CHECK_EQ_U64(r.code, 2);
	done(&r);
	sh("-j 0 hpctoolkit-app-measurements", &r);
	CHECK_EQ_U64(r.code, 2);
	done(&r);
	sh("--unit=bytes hpctoolkit-app-measurements", &r);
	CHECK_EQ_U64(r.code, 2);
	done(&r);
	sh("--bogus", &r);
	CHECK_EQ_U64(r.code, 2);
	done(&r);
	sh("--help", &r);
	CHECK(r.code == 0 && has(r.out, "Usage: hpcprof-comm") && has(r.out, "--force"));
	done(&r);
	sh("-V", &r);
	CHECK(r.code == 0 && has(r.out, "hpcprof-comm "));
	done(&r);

	if (!hc_test_failures)
		fx_rm_rf(work);
	free(garbage);
	free(meas);
	free(work);
	free(prog);
	return hc_test_done("test_hpcprof_cli");
}
