/* SPDX-License-Identifier: BSD-3-Clause */
/* The context shared by the jobs of rte_reasm (one per lcore). */
#ifndef REASM_PRIV_H
#define REASM_PRIV_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "reasm_engine.h"
#include "reasm_ip_parse.h"
#include "rte_reasm.h"

/** Part [start, end) of a datagram's payload, at packet offset @c moff of @c m. */
struct reasm_piece {
	uint32_t start;
	uint32_t end;
	uint32_t moff;
	uint32_t last; /* came from a fragment with M = 0 */
	struct rte_mbuf *m;
};

enum reasm_dgram_state : uint8_t {
	DGRAM_FREE,
	DGRAM_OPEN,      /* collecting fragments */
	DGRAM_DISCARDED, /* RFC 5722: swallows the rest of its fragments until its timeout */
	DGRAM_GATHERING, /* complete; its fragments are the gather's sources */
};

/** A datagram in reassembly: in a hash bucket chain and in the age list. */
struct reasm_dgram {
	struct reasm_key key;
	uint32_t bucket; /* of the key: hashed once, when the datagram opens */
	int32_t next_in_bucket;
	int32_t older, newer; /* age list; also the free list (newer) */
	uint64_t first_tsc;
	enum reasm_dgram_state state;
	uint8_t have_last;
	uint16_t nfrags;
	uint16_t npieces;
	uint32_t total;          /* payload length, known once the last fragment came */
	uint32_t covered;        /* payload bytes held (pieces never overlap) */
	uint64_t bytes;          /* buffer bytes (buf_len of each segment) of the fragments held */
	uint32_t mbufs;          /* segments of the fragments held */
	struct reasm_frag first; /* header facts of the offset-0 fragment */
	struct rte_mbuf *first_m;
	struct reasm_piece *pieces; /* max_frags, sorted by start */
	struct rte_mbuf **frags;    /* max_frags: each held mbuf once */
};

enum reasm_op_kind : uint8_t {
	OP_DGRAM,
	OP_PACKET
};

/** A gather on the engine: its output, and what to free once it is done. */
struct reasm_op {
	enum reasm_op_kind kind;
	enum rte_reasm_drop fail_reason;
	int32_t dgram;       /* OP_DGRAM */
	struct rte_mbuf *in; /* OP_PACKET: the source packet */
	struct rte_mbuf *out;
	uint64_t *done_counter;
	/* engine ops of this gather not yet completed, +1 while it is being queued */
	uint32_t parts_left;
	bool part_failed; /* one of them failed: the gather fails once, at the last */
};

/* Where a gather stands: the next byte of each side (a gather queued in parts). */
struct gather_cursor {
	uint16_t si, di;
	uint32_t soff, doff;
};

/*
 * A gather the engine had no room for (ring full, mkeys all in flight): its pieces and
 * how far it got, retried at the next enqueue or dequeue after completions. A context
 * has REASM_PENDING_SLOTS; it accepts no packet while they are all taken (one packet
 * starts at most one gather), so they never overflow.
 */
#define REASM_PENDING_SLOTS 4
/* How far a gather got onto the engine; small, apart from the piece lists: a gather
 * that goes straight to the engine starts one on the stack. */
struct gather_progress {
	bool in_parts; /* being queued part by part (from cur) */
	struct gather_cursor cur;
	struct rte_reasm_dev_strided strided; /* strided.nrec == 0: none */
};
struct reasm_pending {
	uint32_t op;
	uint16_t nb_src, nb_dst;
	struct gather_progress prog;
	struct rte_reasm_dev_sge src[RTE_REASM_MAX_SGES];
	struct rte_reasm_dev_sge dst[RTE_REASM_MAX_SGES];
};

struct rte_reasm_ctx {
	char name[64];
	struct rte_reasm_conf conf;
	struct rte_reasm_engine *engine;
	uint32_t seg_room; /* data room of one pool mbuf */
	uint64_t timeout_cycles;

	/* IP reassembly table */
	struct reasm_dgram *dgrams;
	int32_t *buckets;
	uint32_t bucket_mask;
	int32_t free_dgram;
	int32_t oldest, newest;
	uint32_t dgrams_used; /* not free: open, discarded, gathering */

	/* gathers in flight */
	struct reasm_op *ops;
	uint32_t *free_ops;
	uint32_t nb_free_ops;
	uint32_t parts_inflight;       /* engine ops queued and not yet completed */
	struct reasm_pending *pending; /* REASM_PENDING_SLOTS, FIFO */
	uint32_t pend_head, pend_tail;

	/* results ring */
	struct rte_mbuf **results;
	uint32_t res_mask, res_head, res_tail;

	/* scratch of one gather */
	struct rte_reasm_dev_sge src[RTE_REASM_MAX_SGES];
	struct rte_reasm_dev_sge dst[RTE_REASM_MAX_SGES];
	/* one part of a gather split at the engine's max_sges */
	struct rte_reasm_dev_sge part_src[RTE_REASM_MAX_SGES];
	struct rte_reasm_dev_sge part_dst[RTE_REASM_MAX_SGES];
	uint32_t poll_cookies[64];
	bool poll_ok[64];

	struct rte_reasm_stats st;
};

/* reasm_ctx.cpp: the machinery every job uses */
uint32_t reasm_results_count(const struct rte_reasm_ctx *c);
/** Room for one more packet: a result slot and an op slot whatever it turns into. */
bool reasm_has_room(const struct rte_reasm_ctx *c);
void reasm_result_push(struct rte_reasm_ctx *c, struct rte_mbuf *m);
/** Output mbuf(s) for @p len bytes (a chain when over one segment's room), or NULL. */
struct rte_mbuf *reasm_out_alloc(struct rte_reasm_ctx *c, uint32_t len, enum rte_reasm_drop *why);
/** Append [off, off + len) of packet @p m to the source list; false: too many pieces. */
bool reasm_sge_add(struct rte_reasm_dev_sge *l, uint16_t *n, const struct rte_mbuf *m, uint32_t off,
		   uint32_t len);
/** Copy the packet metadata an application expects to keep. */
void reasm_copy_meta(struct rte_mbuf *to, const struct rte_mbuf *from);
/**
 * Gather src[0..nb_src) into @p out from byte @p out_off; op carries what to release
 * after. The op completes now (CPU) or later (dequeue). Never fails: a gather waits in a
 * pending slot while the engine's ring is full, and one the engine cannot take at all is
 * done by the CPU. @p strided: the same gather as fixed-stride records, for engines that
 * move it in one interleaved-mkey op (else NULL); with it @p nb_src may be 0 (the
 * pieces are then listed only if the engine does not take the records).
 */
void reasm_gather_start(struct rte_reasm_ctx *c, uint16_t nb_src, struct rte_mbuf *out,
			uint32_t out_off, const struct reasm_op *op,
			const struct rte_reasm_dev_strided *strided = NULL);
/** Gathers waiting for room on the engine. */
uint32_t reasm_pending_count(const struct rte_reasm_ctx *c);
/** Poll the engine, then queue the pending gathers it made room for. */
void reasm_progress(struct rte_reasm_ctx *c);
void reasm_drop(struct rte_reasm_ctx *c, struct rte_mbuf *m, enum rte_reasm_drop why);

/* reasm_modes.cpp */
/**
 * The pieces of split @p s of packet @p m (any segments) into @p src; false when over
 * RTE_REASM_MAX_SGES.
 */
bool reasm_split_pieces(const struct rte_mbuf *m, const struct rte_reasm_dev_strided *s,
			struct rte_reasm_dev_sge *src, uint16_t *n);
/** Split @p s (one segment in, one out) by the CPU. */
void reasm_split_cpu(const struct rte_reasm_dev_strided *s);

/* reasm_table.cpp: IP reassembly */
int reasm_table_init(struct rte_reasm_ctx *c);
void reasm_table_fini(struct rte_reasm_ctx *c);
/* One packet at time @p now; the caller has expired the table at @p now. */
void reasm_ip_input(struct rte_reasm_ctx *c, struct rte_mbuf *m, uint64_t now);
/** The gather of datagram @p d ended: free its fragments and its slot. */
void reasm_dgram_release(struct rte_reasm_ctx *c, int32_t d);

/* reasm_telemetry.cpp */
int reasm_registry_add(struct rte_reasm_ctx *c);
void reasm_registry_del(struct rte_reasm_ctx *c);

#endif /* REASM_PRIV_H */
