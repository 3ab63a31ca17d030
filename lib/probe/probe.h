/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.h — what this machine can measure, found by trying it: the address
   samplers (soft: task-clock + sigtrap; pebs/ibs: PMU events opened for
   real, never trusting libpfm4's "present"), the debug-register watchpoints
   (how many, and whether PERF_EVENT_IOC_MODIFY_ATTRIBUTES re-targets them),
   and the event-spec / option parsing shared by the launcher and the
   runtime. Runs outside signal context only (it opens and closes perf fds). */
#ifndef HC_RT_PROBE_H
#define HC_RT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define HC_DEFAULT_PERIOD 500000ull   /* COMM@500000 */
#define HC_DEFAULT_FLUSH_INTERVAL 10  /* s of wall time between periodic flushes */
#define HC_MIN_SOFT_PERIOD 50000ull   /* below 50 us the VM timer livelocks (doc/findings.md §6) */
/* The PMU samplers' floor, in events (PEBS: loads, and stores; IBS: ops).
   At the highest rates a thread reaches (about one load per ns, three ops
   per ns) it keeps one event below ~50,000 samples/s, half the kernel's
   default perf_event_max_sample_rate (100,000/s, which the kernel lowers
   itself when interrupts take long): below it the kernel throttles
   (PERF_RECORD_THROTTLE) and whole stretches go unsampled. A smaller
   COMM@P is raised to it, and the log and profiles say so. */
#define HC_MIN_PEBS_PERIOD 20000ull
#define HC_MIN_IBS_PERIOD  65536ull

/* Parse "COMM", "COMM@P" (P a positive decimal). 0 or -EINVAL with a message. */
int hc_event_parse(const char *spec, uint64_t *period, char *err, size_t errlen);
/* Parse "auto|soft|pebs|ibs" into enum hc_sampler (auto = HC_SAMPLER_NONE). */
int hc_sampler_parse(const char *s, int *kind);
const char *hc_sampler_name(int kind);

/* A perf_event_open(2) wrapper (glibc has none). */
int hc_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group, unsigned long flags);
/* Fill the attr of the soft sampler: task-clock, sigtrap to the thread. */
void hc_soft_attr(struct perf_event_attr *a, uint64_t period_ns, uint64_t cookie);
/* Fill the attr of one disabled 8-byte RW watchpoint on addr. */
void hc_watch_attr(struct perf_event_attr *a, uint64_t addr, uint64_t cookie);

/* What a PMU probe found usable: the attrs to open per thread (period and
   cookie are filled in per thread), as the probe opened them. */
struct hc_pmu_plan {
	int kind;                        /* HC_SAMPLER_PEBS or HC_SAMPLER_IBS */
	int nevents;                     /* PEBS: 2 (loads, stores); IBS: 1 */
	struct perf_event_attr attr[2];
	bool store_event[2];             /* PEBS: attr[i] counts stores */
	int precise;                     /* precise_ip that opened (PEBS) */
	char model[32];                  /* libpfm4 PMU name (PEBS) / "ibs_op" */
	bool standin;                    /* TEST-ONLY: software events in PEBS's place */
	bool group;                      /* PEBS: the stores event opens in the loads event's group */
	bool swfilt;                     /* IBS: the kernel filters kernel samples (config2 bit 0) */
};

/* The period in effect for COMM@requested with sampler kind: soft as
   given; PEBS and IBS raised to their floor; IBS rounded as the kernel
   requires (hc_ibs_period). */
uint64_t hc_pmu_period(int kind, uint64_t requested);
/* Expiry of colliding bulletin-board entries, in ns (the board's clock):
   two sampling intervals. The soft sampler's period is already ns of
   thread CPU time; a PMU period counts events, converted at an assumed
   rate (PEBS: one load, or one store, per ns; IBS: three ops per ns: the
   fast end of what threads reach, so entries expire early rather than
   linger). The log prints the measured interval next to it. */
uint64_t hc_bb_expiry_ns(int kind, uint64_t period);
/* The same expiry from what a thread's PMU event measured (pure): it
   counted `count` events in `enabled` ns of the thread's time (read() with
   PERF_FORMAT_TOTAL_TIME_ENABLED; for a per-thread event that is time the
   thread ran), so it samples every period * enabled / count ns of that
   time; the expiry is two such intervals. An event that was not always
   scheduled (running < enabled) counted only while it ran, and its samples
   are that much sparser in the thread's time: enabled, not running, is the
   right clock. `fallback` (hc_bb_expiry_ns) until the event has counted at
   least HC_BB_RATE_MIN_PERIODS periods; the result is clamped to
   [fallback / 64, fallback * 64] (a thread that computes without memory
   accesses for a while must not make entries live for seconds). */
#define HC_BB_RATE_MIN_PERIODS 16
uint64_t hc_bb_expiry_measured(uint64_t period, uint64_t count, uint64_t enabled,
                               uint64_t fallback);
/* Fold one thread's measured expiry into the board's (the board is shared
   by all threads): an exponential average, 1/4 weight to the new value. */
uint64_t hc_bb_expiry_blend(uint64_t board, uint64_t measured);
/* Did an event run less than 95 % of the time it was enabled? (Not
   scheduled meanwhile: nothing was sampled.) False when enabled is 0. */
static inline bool hc_pmu_running_low(uint64_t enabled, uint64_t running)
{
	return enabled > 0 && running < enabled - enabled / 20;
}

/* ---- the self-check: the PMU plan run for a few milliseconds on a loop of
   known loads and stores before anything is measured ---- */
struct hc_selfcheck {
	int nevents;
	uint64_t records[2];      /* samples read per event */
	uint64_t with_addr[2];    /* ... with a data address (IBS: memory ops with one) */
	uint64_t in_buffer[2];    /* ... whose address lies in the loop's buffer */
	uint64_t enabled[2], running[2];   /* ns, from read() */
	uint64_t throttled, lost;
	uint64_t loop_ops;        /* loads + stores the loop made */
	int err;                  /* errno of the stage that failed, 0 = all ran */
	char stage[24];           /* "open", "mmap", "enable", "read" */
};
/* The verdict on an outcome (pure): 0 = the plan samples as expected; else
   -EIO (the events ran but do not sample as expected: no records, one
   event only, addresses zero or elsewhere, not running all the time, ...)
   or -o->err (they could not be run), with why[] in words; a passed check
   may still carry a note (throttled). */
int hc_selfcheck_decide(const struct hc_pmu_plan *plan, const struct hc_selfcheck *o,
                        char *why, size_t len);
/* Run plan's events (sigtrap off, so it can run anywhere, the launcher
   included) for a few ms on the calling thread over a loop of loads and
   stores on a private buffer; fill o. 0, or -errno (o->stage says where). */
int hc_selfcheck_run(const struct hc_pmu_plan *plan, struct hc_selfcheck *o);
/* Test hook: the measurement step (NULL restores hc_selfcheck_run). */
typedef int (*hc_selfcheck_fn)(const struct hc_pmu_plan *plan, struct hc_selfcheck *o);
void hc_probe_set_selfcheck(hc_selfcheck_fn fn);
/* hc_probe_select, then, for a PEBS or IBS plan (not the stand-in), the
   self-check: under auto a plan that fails it gives way to the next (IBS,
   then soft) and why[] says why; a requested pebs/ibs that fails it is
   refused (-EIO) with the reason. */
int hc_probe_select_checked(int requested, struct hc_pmu_plan *plan, char *why, size_t len);

/* Each probe: 0 when usable, else -errno, with why[] in plain words. The
   _plan variants also say how to open it (plan may be NULL). */
int hc_probe_soft(char *why, size_t len);
int hc_probe_pebs(char *why, size_t len);
int hc_probe_ibs(char *why, size_t len);
int hc_probe_pebs_plan(struct hc_pmu_plan *plan, char *why, size_t len);
int hc_probe_ibs_plan(struct hc_pmu_plan *plan, char *why, size_t len);
/* Number of debug-register watchpoints a thread can hold (0..4) and whether
   they can be re-targeted in place. */
int hc_probe_watch(int *count, bool *fast_rearm, char *why, size_t len);
/* Sampler to use for `requested` (HC_SAMPLER_NONE = auto): pebs, ibs, then
   soft. Returns the kind, or -errno when nothing (or not the requested one)
   can sample; why[] says which one runs and why the others do not; *plan
   (may be NULL) says how to open a PMU sampler. */
int hc_probe_select(int requested, struct hc_pmu_plan *plan, char *why, size_t len);

/* The attrs of the PMU samplers (probe and runtime share them): a PEBS
   load or store event encoded by libpfm4, sampling every `period` events
   with precise_ip `precise`; an ibs_op event of PMU type `type` counting
   ops (the config bit cnt_bit, from sysfs format/cnt_ctl), period rounded
   as the kernel requires (hc_ibs_period). Both deliver SIGTRAP with
   `cookie` to the sampled thread, timestamps in CLOCK_MONOTONIC. */
void hc_pebs_attr(struct perf_event_attr *a, uint32_t type, uint64_t config, uint64_t config1,
                  uint64_t period, int precise, uint64_t cookie);
void hc_ibs_attr(struct perf_event_attr *a, uint32_t type, int cnt_bit, uint64_t period,
                 bool exclude_kernel, uint64_t cookie);
/* The ibs_op period the kernel accepts for COMM@period: low 4 bits clear
   (the hardware ignores them), at least 16. */
uint64_t hc_ibs_period(uint64_t period);
/* Per-thread fill of a plan's attr i for COMM@period. */
void hc_plan_attr(const struct hc_pmu_plan *plan, int i, uint64_t period, uint64_t cookie,
                  struct perf_event_attr *out);

/* Test hooks. The probes open events through *fn instead of
   perf_event_open(2) (NULL restores the system call); the sysfs and procfs
   files they read are looked up under $HPCRUN_COMM_SYSFS_ROOT when set (a
   directory holding sys/bus/event_source/devices/... and
   proc/sys/kernel/perf_event_paranoid, as hwloc's HWLOC_FSROOT). */
typedef int (*hc_perf_open_fn)(struct perf_event_attr *attr, int pid, int cpu, int group,
                               unsigned long flags);
void hc_probe_set_open(hc_perf_open_fn fn);

/* TEST-ONLY stand-in for the PEBS sampler (a hidden option, documented in
   doc/samplers.md, never chosen by auto): with
   HPCRUN_COMM_PMU_STANDIN=task-clock (or cpu-clock) and the pebs sampler
   requested explicitly, the plan opens that software event in place of each
   PEBS event with exactly PEBS's other settings (sample_type, wakeup,
   sigtrap + cookie, clock, per-thread, exclusions; precise_ip 0, which
   software events require), so the PMU sampler's whole runtime path runs on
   a machine without a PMU. 0, or -EINVAL for another value; why[] says
   STAND-IN. */
int hc_probe_standin_plan(const char *event, struct hc_pmu_plan *plan, char *why, size_t len);

/* The perf_event_paranoid level in *level (it may be negative: -1 allows
   everything); 0, or -errno when it cannot be read (*level unchanged). */
int hc_perf_paranoid(int *level);
/* What callers assume when the level cannot be read: nothing forbidden. */
#define HC_PARANOID_UNKNOWN (-1)
/* Plain-words explanation of a perf_event_open errno. */
const char *hc_perf_strerror(int err, int paranoid);

#endif
