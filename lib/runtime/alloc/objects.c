/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.c — the heap objects of a thread's communication events
   (doc/objects.md): when an event is recorded, its two addresses are looked
   up in the live-block table and the block each falls in is kept as an
   object record; the records become the profile's OBJS section. The
   lookup runs in signal context (record.c calls objects__note_event from
   the sample and trap paths): lock-free and read-only on the table, the
   records in the thread's arena. */
#include <errno.h>
#include "runtime/rt.h"

int objects__thread_start(struct rt_thread *t)
{
	/* both sides of every event the thread keeps: with one record per
	   event, a thread past half its events had none for the rest (NPB MG
	   exact: half the volume "<unknown>") */
	uint32_t cap = 2 * hc_rt.opt.events_cap;

	t->alloc.obj = hc_arena_alloc(&t->arena, (size_t)cap * sizeof(*t->alloc.obj), 64);
	if (!t->alloc.obj)
		return -ENOMEM;
	t->alloc.capobj = cap;
	return 0;
}

void objects__note_event(struct rt_thread *t, uint32_t ev)
{
	const struct hc_prof_event *e = &t->events.v[ev];
	struct rt_alloc_thread *a = &t->alloc;

	if (!a->obj)
		return;
	HC_ASSERT(ev < t->events.n);      /* recorded: record__comm published it */
	/* Event numbering restarted (measurement resumed after a failed exec):
	   the old records describe events that are gone. */
	if (a->nobj && a->obj[a->nobj - 1].event >= ev)
		a->nobj = 0;
	for (uint32_t side = HC_SIDE_ADDR; side <= HC_SIDE_PEER; side++) {
		uint64_t addr = side == HC_SIDE_ADDR ? e->addr : e->peer_addr;
		struct hc_prof_object *o;
		struct rt_block b;
		uint32_t th, ctx;

		if (!addr || !blocks__find(addr, &b) || !blocks__site_get(b.site, &th, &ctx))
			continue;
		if (a->nobj >= a->capobj) {
			t->cnt.objects_dropped++;
			continue;
		}
		o = &a->obj[a->nobj];
		o->event = ev;
		o->side = side;
		o->base = b.base;
		o->size = b.size;
		o->thread = th;
		o->ctx = ctx;
		o->kind = b.kind;
		o->reserved = 0;
		a->nobj++;
		t->cnt.objects_resolved++;
	}
}

int objects__write(struct hc_prof_writer *w, const struct rt_thread *t)
{
	int ret;

	if (!t->alloc.nobj)
		return 0;
	ret = hc_prof_section_begin(w, HC_SEC_OBJECTS);
	for (uint32_t i = 0; !ret && i < t->alloc.nobj; i++)
		if (t->alloc.obj[i].event < t->events.n)
			ret = hc_prof_put_object(w, &t->alloc.obj[i]);
	return ret ? ret : hc_prof_section_end(w);
}
