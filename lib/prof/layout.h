/* SPDX-License-Identifier: BSD-3-Clause */
/* layout.h — the byte layout of a profile file, shared by the writer and the
   reader (lib/prof internal). Every on-disk integer is little-endian and every
   record is serialized field by field at the offsets below, never as a raw C
   struct, so padding and host byte order never reach the file. The grammar in
   doc/profile-format.md is the same table in prose. The helpers are pure byte
   shuffling and are safe in signal context. */
#ifndef HC_PROF_LAYOUT_H
#define HC_PROF_LAYOUT_H

#include <stdint.h>

/* File header: magic, version, header size, then the thread record. */
#define L_MAGIC_OFF     0
#define L_VERSION_OFF   8
#define L_HDRSIZE_OFF   12
#define L_THREAD_OFF    16

/* Thread record, offsets relative to L_THREAD_OFF. */
#define L_TH_INDEX        0
#define L_TH_CREATOR      4
#define L_TH_PID          8
#define L_TH_TID          12
#define L_TH_PPID         16
#define L_TH_SAMPLER      20
#define L_TH_UNIT         24
#define L_TH_CREATION_CTX 28
#define L_TH_PERIOD       32
#define L_TH_START_NS     40
#define L_TH_END_NS       48
#define L_TH_STACK_LO     56
#define L_TH_STACK_HI     64
#define L_TH_TLS_LO       72
#define L_TH_TLS_HI       80
#define L_TH_START_LM     88
#define L_TH_RANK         92
#define L_TH_START_OFF    96
#define L_TH_EXE          104
#define L_TH_EXE_LEN      256
#define L_TH_SIZE         360
#define L_HEADER_SIZE     (L_THREAD_OFF + L_TH_SIZE)   /* 376 */

/* Section header: tag, record size, record count, payload byte length. */
#define L_SEC_TAG     0
#define L_SEC_RSIZE   4
#define L_SEC_COUNT   8
#define L_SEC_LENGTH  16
#define L_SEC_SIZE    24

/* LMAP record (struct hc_prof_module). */
#define L_MOD_ID        0
#define L_MOD_RESERVED  4
#define L_MOD_BASE      8
#define L_MOD_LO        16
#define L_MOD_HI        24
#define L_MOD_PATH      32
#define L_MOD_PATH_LEN  512
#define L_MOD_SIZE      544

/* CCT record (struct hc_prof_node). */
#define L_NODE_ID       0
#define L_NODE_PARENT   4
#define L_NODE_LM       8
#define L_NODE_FLAGS    12
#define L_NODE_OFFSET   16
#define L_NODE_M        24     /* HC_M_COUNT u64, 8 bytes apart */
#define L_NODE_SIZE     56

/* EVNT record (struct hc_prof_event). */
#define L_EV_TIME       0
#define L_EV_WEIGHT     8
#define L_EV_ADDR       16
#define L_EV_PEER_ADDR  24
#define L_EV_LEN        32
#define L_EV_PEER_LEN   36
#define L_EV_PEER       40
#define L_EV_CPU        44
#define L_EV_PEER_CPU   48
#define L_EV_CTX        52
#define L_EV_PEER_CTX   56
#define L_EV_FLAGS      60
#define L_EV_SIZE       64

/* ALOC record (struct hc_prof_alloc). */
#define L_AL_TIME       0
#define L_AL_ADDR       8
#define L_AL_SIZE_F     16
#define L_AL_CTX        24
#define L_AL_KIND       28
#define L_AL_SIZE       32

/* OBJS record (struct hc_prof_object). */
#define L_OB_EVENT      0
#define L_OB_SIDE       4
#define L_OB_BASE       8
#define L_OB_SIZE_F     16
#define L_OB_THREAD     24
#define L_OB_CTX        28
#define L_OB_KIND       32
#define L_OB_RESERVED   36
#define L_OB_SIZE       40

/* PNOD record (struct hc_prof_pnode). */
#define L_PN_EVENT      0
#define L_PN_NODE       4
#define L_PN_PEER_NODE  8
#define L_PN_RESERVED   12
#define L_PN_SIZE       16

/* FRAM record (struct hc_prof_frame). */
#define L_FR_CFA        0
#define L_FR_NODE       8
#define L_FR_COUNT      12
#define L_FR_FSIZE      16
#define L_FR_RESERVED   20
#define L_FR_SIZE       24

/* CNTR record (struct hc_prof_counter). */
#define L_CN_NAME       0
#define L_CN_NAME_LEN   40
#define L_CN_VALUE      40
#define L_CN_SIZE       48

/* END record: CRC of every byte before it, and the total file length. */
#define L_END_CRC       0
#define L_END_RESERVED  4
#define L_END_TOTAL     8
#define L_END_SIZE      16
#define L_TRAILER_SIZE  (L_SEC_SIZE + L_END_SIZE)      /* 40 */

static inline void le_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void le_put64(uint8_t *p, uint64_t v)
{
	le_put32(p, (uint32_t)v);
	le_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t le_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le_get64(const uint8_t *p)
{
	return (uint64_t)le_get32(p) | (uint64_t)le_get32(p + 4) << 32;
}

#endif
