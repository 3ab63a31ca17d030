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
#define HC_MIN_SOFT_PERIOD 50000ull   /* below 50 us the VM timer livelocks (FINDINGS §6) */

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

/* Each probe: 0 when usable, else -errno, with why[] in plain words. */
int hc_probe_soft(char *why, size_t len);
int hc_probe_pebs(char *why, size_t len);
int hc_probe_ibs(char *why, size_t len);
/* Number of debug-register watchpoints a thread can hold (0..4) and whether
   they can be re-targeted in place. */
int hc_probe_watch(int *count, bool *fast_rearm, char *why, size_t len);
/* Sampler to use for `requested` (HC_SAMPLER_NONE = auto): pebs, ibs, then
   soft. Returns the kind, or -errno when nothing (or not the requested one)
   can sample; why[] says which ran and why the others did not. Back ends not
   built into this runtime count as unusable. */
int hc_probe_select(int requested, char *why, size_t len);

/* perf_event_paranoid level, or -1 if unreadable. */
int hc_perf_paranoid(void);
/* Plain-words explanation of a perf_event_open errno. */
const char *hc_perf_strerror(int err, int paranoid);

#endif
