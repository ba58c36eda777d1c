/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames in and out of mbufs, a context per engine, and librte_ip_frag as the oracle. */
#ifndef TEST_REASM_HARNESS_H
#define TEST_REASM_HARNESS_H

#include <stdint.h>

#include <vector>

#include <rte_mbuf.h>

#include "pkt_gen.h"
#include "rte_reasm.h"

namespace harness {

extern struct rte_mempool *in_pool;  /* fragments: 2 KiB segments, multi-seg beyond */
extern struct rte_mempool *out_pool; /* results: 9 KiB segments */

int pools_create(void);
/**
 * A packet of @p f in segments of at most @p seg bytes (from @p pool, in_pool by
 * default), l2_len and packet_type set.
 */
struct rte_mbuf *to_mbuf(const pktgen::frame &f, uint32_t seg = 2048,
			 struct rte_mempool *pool = NULL);
pktgen::frame from_mbuf(const struct rte_mbuf *m);

/** A context on @p engine (conf fields left 0 take defaults). */
struct rte_reasm_ctx *ctx_create(struct rte_reasm_engine *engine, struct rte_reasm_conf conf);

/** Feed @p frames (all at time @p now), collect every result until nothing is in flight. */
std::vector<pktgen::frame> run(struct rte_reasm_ctx *ctx, const std::vector<pktgen::frame> &frames,
			       uint64_t now = 1);
/** Collect results until no gather is in flight. */
void drain(struct rte_reasm_ctx *ctx, std::vector<pktgen::frame> *out);

/** librte_ip_frag 22.11 + rte_pktmbuf_linearize + the IPv4 checksum it leaves at 0. */
std::vector<pktgen::frame> oracle(const std::vector<pktgen::frame> &frames);

/** Both pools back to no mbuf in use: nothing leaked, nothing freed twice. */
bool pools_idle(void);

/** Sorted copies, to compare outputs as multisets. */
std::vector<pktgen::frame> sorted(std::vector<pktgen::frame> v);

} // namespace harness

#endif /* TEST_REASM_HARNESS_H */
