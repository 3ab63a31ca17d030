/* SPDX-License-Identifier: BSD-3-Clause */
/* format.h — the names a database directory is made of, shared by lib/db's
   writer (write_*.c, used by hpcprof-comm) and its reader (read_*.c, used
   by viewer-export, lib/report and the tests): file and directory names,
   the format version, each XML file's root element, the unit, level and
   kind spellings used in file names and XML attributes, the threads.csv
   columns, the metric table of experiment.xml, the kinds of objects and
   regions and the phase vocabulary. The other element and attribute names
   are spelled in the writer and the reader of their file, side by side in
   lib/db; tests/unit/db/test_db_write checks that they agree. The formats
   themselves are specified in doc/database-format.md; the XML schemas are
   doc/database.xsd, experiment.xsd, objects.xsd, regions.xsd, phases.xsd
   and locality.xsd. Plain constants, no functions that touch the system. */
#ifndef HC_DB_FORMAT_H
#define HC_DB_FORMAT_H

#include <string.h>

#include "hc/common.h"

/* Bumped whenever a reader written against the previous version could
   misread a file (a removed or renamed column/attribute, a changed meaning).
   Added optional attributes or elements do not bump it. */
#define HC_DB_VERSION 1

/* The root element of each XML file (writer and reader). */
#define HC_DB_ROOT_META       "Database"
#define HC_DB_ROOT_EXPERIMENT "HPCToolkitExperiment"
#define HC_DB_ROOT_OBJECTS    "Objects"
#define HC_DB_ROOT_REGIONS    "Regions"
#define HC_DB_ROOT_PHASES     "Phases"
#define HC_DB_ROOT_LOCALITY   "Locality"

/* Files and folders inside a database directory. */
#define HC_DB_META        "database.xml"    /* metadata: units, processes, matrices, labels */
#define HC_DB_EXPERIMENT  "experiment.xml"  /* calling-context tree and code pairs */
#define HC_DB_THREADS     "threads.csv"     /* one row per thread */
#define HC_DB_SUMMARY     "summary.txt"     /* the terminal summary */
#define HC_DB_MATRICES    "matrices"        /* <level>-<kind>.csv */
#define HC_DB_OBJECTS     "objects.xml"     /* data objects (written by a later version) */
#define HC_DB_OBJECTS_CSV "objects.csv"     /* the same, one row per object (lib/report) */
#define HC_DB_PHASES      "phases.xml"      /* phases over time (optional) */
#define HC_DB_LOCALITY    "locality.xml"    /* NUMA locality per object (optional) */
#define HC_DB_REGIONS     "regions.xml"     /* code regions: the tree and totals */
#define HC_DB_REGION_MATRICES "regions.csv" /* their sparse thread matrices */

/* regions.csv: the header row; then one row per non-zero inclusive cell of
   each region, upper triangle (row < column), sorted by (region, row,
   column): inclusive true, false, exclusive true, false. */
#define HC_DB_REGION_HEADER "region,row,column,true,false,excl_true,excl_false"
/* regions.xml's version: 2 adds <Region cells="parent">, 3 <Region
   cells="K"> (the cells of earlier region K; doc/database-format.md §8); a
   file without cells="K" is written as version 2. The reader reads 1 to 3. */
#define HC_DB_REGIONS_VERSION 3

/* First line of a matrix file in the sparse form (<Matrix format="sparse">):
   then "i,j,v" per non-zero upper-triangle cell, i < j, sorted by (i, j). */
#define HC_DB_SPARSE_HEADER "row,column,value"

/* Schemas shipped in doc/ (installed with the documentation). */
#define HC_DB_META_XSD        "database.xsd"
#define HC_DB_EXPERIMENT_XSD  "experiment.xsd"

/* Default database name for a measurement directory "hpctoolkit-X-measurements"
   is "hpctoolkit-X-database"; see doc/hpcprof-comm.md. */
#define HC_DB_MEASUREMENTS_SUFFIX "-measurements"
#define HC_DB_DATABASE_SUFFIX     "-database"

/* Matrix levels and kinds; a matrix file is matrices/<level>-<kind>.csv. */
enum hc_db_level {
	HC_DB_LEVEL_THREAD = 0,  /* global thread index (threads.csv) */
	HC_DB_LEVEL_CORE   = 1,  /* logical CPU (hwloc PU) of the access */
	HC_DB_LEVEL_SOCKET = 2,  /* package of that CPU (needs the topology) */
	HC_DB_LEVEL_NUMA   = 3,  /* NUMA node of that CPU (needs the topology) */
	HC_DB_LEVEL_COUNT  = 4,
};

enum hc_db_kind {
	HC_DB_KIND_ALL   = 0,    /* true + false */
	HC_DB_KIND_TRUE  = 1,
	HC_DB_KIND_FALSE = 2,
	HC_DB_KIND_COUNT = 3,
};

static inline const char *hc_db_level_name(int level)
{
	static const char *const names[HC_DB_LEVEL_COUNT] = { "thread", "core", "socket", "numa" };
	return level >= 0 && level < HC_DB_LEVEL_COUNT ? names[level] : "?";
}

static inline const char *hc_db_kind_name(int kind)
{
	static const char *const names[HC_DB_KIND_COUNT] = { "all", "true", "false" };
	return kind >= 0 && kind < HC_DB_KIND_COUNT ? names[kind] : "?";
}

/* Unit spellings in database.xml / experiment.xml ("unit" attributes). */
#define HC_DB_UNIT_NS        "ns"
#define HC_DB_UNIT_TRANSFERS "transfers"

static inline const char *hc_db_unit_name(int unit)
{
	return unit == HC_UNIT_TRANSFERS ? HC_DB_UNIT_TRANSFERS : HC_DB_UNIT_NS;
}

static inline const char *hc_db_unit_text(int unit)
{
	return unit == HC_UNIT_TRANSFERS ? "estimated cache-line transfers"
	                                 : "estimated CPU nanoseconds in communicating accesses";
}

/* The unit's text for a database measured by the samplers in the bit set
   `samplers` (bit per enum hc_sampler): exact mode alone counts transfers,
   it does not estimate them. */
static inline const char *hc_db_unit_text_of(int unit, uint32_t samplers)
{
	if (unit == HC_UNIT_TRANSFERS && samplers == (1u << HC_SAMPLER_EXACT))
		return "cache-line transfers, every one counted (exact mode)";
	return hc_db_unit_text(unit);
}

/* How a PMU sampler's samples are scaled into the unit ("scaling"
   attribute of <Measurement>, written when the sampler took part). IBS
   tags one op in every P ops (op counting, cnt_ctl), of which only loads
   and stores are kept: a memory op is sampled with probability 1/P, as
   with PEBS's P memory ops, so each kept sample weighs P and the unit stays
   cache-line transfers; the measured memory-op fraction (kept / all IBS
   samples) only sets the interrupt cost, and the log reports it. */
#define HC_DB_IBS_SCALING \
	"ibs: one op in every P ops is sampled (IBS op counting); only loads and stores with a " \
	"valid linear address are kept, each weighing P: memory ops are sampled with probability " \
	"1/P as with pebs, so the unit is unchanged; non-memory samples are dropped and counted " \
	"(counter pmu_not_memory)"

static inline const char *hc_db_sampler_name(int sampler)
{
	static const char *const names[] = { "none", "soft", "pebs", "ibs", "exact" };
	return sampler >= 0 && sampler <= HC_SAMPLER_LAST ? names[sampler] : "?";
}

/* threads.csv: the header row, exactly (columns in this order). */
#define HC_DB_THREADS_HEADER \
	"index,process,pid,thread,tid,creator,start_routine,creation_context,cpus,sampler,period,profile," \
	"rank,host"
/* Databases written before the MPI columns (read as rank 0, host ""). */
#define HC_DB_THREADS_HEADER_V1 \
	"index,process,pid,thread,tid,creator,start_routine,creation_context,cpus,sampler,period,profile"

/* experiment.xml metric table: metric i = 2 * base + (exclusive ? 1 : 0);
   the inclusive and exclusive variants are partners. */
enum hc_db_metric {
	HC_DB_M_ALL    = 0,  /* true + false */
	HC_DB_M_TRUE   = 1,
	HC_DB_M_FALSE  = 2,
	HC_DB_M_SAMPLE = 3,  /* detected by an address sample (true + false) */
	HC_DB_M_TRAP   = 4,  /* detected by a watchpoint trap (true + false) */
	HC_DB_M_COUNT  = 5,
};

static inline const char *hc_db_metric_name(int m)
{
	static const char *const names[HC_DB_M_COUNT] = {
		"comm-all", "comm-true", "comm-false", "comm-sample", "comm-trap" };
	return m >= 0 && m < HC_DB_M_COUNT ? names[m] : "?";
}

/* Attribute "kind" of a <Metric>: the base metric without the "comm-" prefix. */
static inline const char *hc_db_metric_kind(int m)
{
	static const char *const names[HC_DB_M_COUNT] = { "all", "true", "false", "sample", "trap" };
	return m >= 0 && m < HC_DB_M_COUNT ? names[m] : "?";
}

#define HC_DB_METRIC_ID(base, exclusive) (2 * (base) + ((exclusive) ? 1 : 0))

/* objects.xml: <Object kind>, by enum hc_db_okind. */
enum hc_db_okind {
	HC_DB_OBJ_STATIC = 0, HC_DB_OBJ_HEAP, HC_DB_OBJ_STACK, HC_DB_OBJ_TLS, HC_DB_OBJ_UNKNOWN,
	HC_DB_OBJ_KINDS
};

static inline const char *hc_db_object_kind_name(int k)
{
	static const char *const names[HC_DB_OBJ_KINDS] = { "static", "heap", "stack", "tls",
	                                                    "unknown" };
	return k >= 0 && k < HC_DB_OBJ_KINDS ? names[k] : "?";
}

/* regions.xml: <Region kind>, by enum hc_db_rkind; the program is the one
   region at the top. <Regions exclusive> says which side of a
   communication a region's exclusive cells are credited to. */
enum hc_db_rkind {
	HC_DB_REG_PROGRAM = 0, HC_DB_REG_PROCEDURE, HC_DB_REG_PARALLEL, HC_DB_REG_LOOP,
	HC_DB_REG_KINDS
};

static inline const char *hc_db_region_kind_name(int k)
{
	static const char *const names[HC_DB_REG_KINDS] = { "program", "procedure", "parallel",
	                                                    "loop" };
	return k >= 0 && k < HC_DB_REG_KINDS ? names[k] : "?";
}

/* The kind named s (enum hc_db_rkind), -1 when unknown. */
static inline int hc_db_region_kind_parse(const char *s)
{
	for (int k = 0; k < HC_DB_REG_KINDS; k++)
		if (!strcmp(s, hc_db_region_kind_name(k)))
			return k;
	return -1;
}

#define HC_DB_REGION_EXCLUSIVE "detecting-side"

/* phases.xml: <Phases rule>, how windows are compared; <Line kind>. */
#define HC_DB_PHASE_RULE   "bhattacharyya"
#define HC_DB_LINE_PAIR    "pair"
#define HC_DB_LINE_OBJECT  "object"

#endif
