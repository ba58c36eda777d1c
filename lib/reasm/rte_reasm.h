/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_REASM_H
#define RTE_REASM_H

/**
 * @file
 * rte_reasm: packet reassembly offload (librte_reasm).
 *
 * Three jobs share one context and one copy engine:
 *  - IP reassembly, IPv4 and IPv6, by the RFC rules (RFC 791/815, 5722, 6946, 8200 §4.5);
 *    the payload pieces of a complete datagram are gathered into a fresh mbuf by one
 *    scatter-gather copy;
 *  - linearize: a multi-segment mbuf becomes one contiguous mbuf (one gather);
 *  - header-data split of fixed-stride records and its reverse (one gather each).
 *
 * Copies run on an engine: the CPU (synchronous memcpy; the fallback and the reference)
 * or any dmadev (rte_dma_copy_sg when the device advertises RTE_DMA_CAPA_OPS_COPY_SG,
 * one rte_dma_copy per piece otherwise). Results come back from rte_reasm_dequeue() in
 * completion order.
 *
 * Thread model: a context and its engine belong to one lcore (like a dmadev vchan); use
 * one context per lcore. Only rte_reasm_stats_get() may be called from another thread
 * (the counters it reads may be a burst behind). The fast path allocates nothing besides
 * mbufs from the caller's mempool, takes no lock and makes no system call.
 */

#include <stdint.h>

#include <rte_compat.h>
#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A copy engine (opaque). */
struct rte_reasm_engine;
/** A reassembly context (opaque): one per lcore. */
struct rte_reasm_ctx;

/** How a dmadev engine moves a gather. */
enum rte_reasm_dma_mode {
	/**
	 * The path of the engine module registered for the device's driver
	 * (rte_reasm_driver.h) when there is one, then rte_dma_copy_sg when the device has
	 * RTE_DMA_CAPA_OPS_COPY_SG, else one copy per piece.
	 */
	RTE_REASM_DMA_AUTO = 0,
	/** rte_dma_copy_sg only: engine creation fails with -ENOTSUP without COPY_SG. */
	RTE_REASM_DMA_SG,
	/** One rte_dma_copy per contiguous piece, completion on the last one. */
	RTE_REASM_DMA_COPY,
	/**
	 * The engine module's path required (rte_reasm_driver.h; named after the first
	 * one, indirect memory keys set up by UMR: a gather is one list key per side with
	 * several pieces and one copy, a header-data split a strided key per stream).
	 * Gathers the module declines (beyond its limits) take the COPY_SG path. Engine
	 * creation fails with ENOTSUP on a device whose driver has no module, or whose
	 * module declines the device.
	 */
	RTE_REASM_DMA_UMR,
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The CPU engine: every gather is a memcpy done at enqueue time.
 *
 * @return
 *   The engine, or NULL with rte_errno set (ENOMEM).
 */
__rte_experimental struct rte_reasm_engine *rte_reasm_engine_cpu_create(void);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * A dmadev engine over vchan @p vchan of @p dev_id, which the caller has configured
 * (mem-to-mem) and started, and which no one else uses. A gather with more pieces than
 * the device's max_sges is split into several SG ops of at most max_sges pieces per side
 * (counted as split_gathers); it completes when its last op does, and fails (once) if any
 * of them failed.
 *
 * @param dev_id  dmadev id.
 * @param vchan   virtual channel.
 * @param mode    see enum rte_reasm_dma_mode.
 * @return
 *   The engine, or NULL with rte_errno set: EINVAL (bad device, vchan or mode), ENOTSUP
 *   (no MEM_TO_MEM, RTE_REASM_DMA_SG without COPY_SG, RTE_REASM_DMA_UMR on a device
 *   without an engine module's path), ENOMEM.
 */
__rte_experimental struct rte_reasm_engine *
rte_reasm_engine_dma_create(int16_t dev_id, uint16_t vchan, enum rte_reasm_dma_mode mode);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of the engine's mechanism: "cpu", "dma-umr", "dma-sg" or "dma-copy".
 */
__rte_experimental const char *rte_reasm_engine_kind(const struct rte_reasm_engine *engine);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free an engine no context uses any more, before its dmadev vchan is reconfigured or
 * closed (a UMR engine's mkeys belong to the vchan). NULL is allowed.
 */
__rte_experimental void rte_reasm_engine_free(struct rte_reasm_engine *engine);

/** IPv4 overlaps trimmed instead of discarding the datagram (RFC 791/815 style). */
#define RTE_REASM_F_IPV4_OVERLAP_TRIM (1u << 0)
/** Split: keep the headers, after the payload, in the output packet. */
#define RTE_REASM_F_SPLIT_KEEP_HEADERS (1u << 1)

/** Defaults of struct rte_reasm_conf (a 0 field takes its default). */
#define RTE_REASM_DEFAULT_MAX_FRAGS 64
#define RTE_REASM_DEFAULT_MAX_DGRAMS 4096
#define RTE_REASM_DEFAULT_MAX_BYTES (64u << 20)
#define RTE_REASM_DEFAULT_MAX_MBUFS 4096
#define RTE_REASM_DEFAULT_TIMEOUT_MS 60000 /* RFC 8200 §4.5; RFC 1122 says 60..120 s */
#define RTE_REASM_DEFAULT_MAX_INFLIGHT 256
#define RTE_REASM_MAX_SGES 1024 /**< Most pieces in one gather (any engine). */

/** Context configuration. */
struct rte_reasm_conf {
	/** Name in telemetry (/reasm/list); unique among live contexts. */
	const char *name;
	/** Engine doing the gathers; not owned, must outlive the context. */
	struct rte_reasm_engine *engine;
	/** Pool of the output mbufs (reassembled, linearized, split packets). */
	struct rte_mempool *pool;
	/** Most fragments one datagram may have (default 64). */
	uint32_t max_frags;
	/** Most datagrams being reassembled at once (default 4096). */
	uint32_t max_dgrams;
	/**
	 * Most buffer bytes held by incomplete datagrams: the buf_len of every segment of
	 * every fragment held, what the fragments pin, not their pkt_len (default 64 MiB).
	 */
	uint64_t max_bytes;
	/** Lifetime of an incomplete datagram from its first fragment (default 60 s). */
	uint32_t timeout_ms;
	/** Most gathers in flight on the engine (default 256). */
	uint32_t max_inflight;
	/** RTE_REASM_F_* */
	uint32_t flags;
	/** Hash seed; 0: random (rte_rand). */
	uint32_t hash_seed;
	/** NUMA socket of the context's memory. */
	int socket_id;
	/**
	 * Most mbufs (segments) held by incomplete datagrams (default 4096): keep it well
	 * below the size of the pool the fragments come from, or held fragments can empty it.
	 */
	uint32_t max_mbufs;
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a context.
 *
 * @return
 *   The context, or NULL with rte_errno set: EINVAL (NULL conf, engine or pool, a limit
 *   out of range, logged), EEXIST (name taken), ENOMEM.
 */
__rte_experimental struct rte_reasm_ctx *rte_reasm_create(const struct rte_reasm_conf *conf);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free a context: waits for gathers in flight, frees every mbuf it holds (results not
 * dequeued, fragments). NULL is allowed.
 */
__rte_experimental void rte_reasm_free(struct rte_reasm_ctx *ctx);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Give packets to IP reassembly. Each mbuf must have l2_len set (0: the packet starts
 * with the IP header) and packet_type's L3 part set (RTE_ETH_IS_IPV4_HDR /
 * RTE_ETH_IS_IPV6_HDR); anything else, and IP packets that are not fragments, comes back
 * unchanged from rte_reasm_dequeue() in order with the rest. IPv4 packets with
 * offset 0 and MF 0 are not fragments; IPv6 atomic fragments (RFC 6946) are delivered at
 * once with their fragment header removed.
 *
 * The context takes ownership of the packets it accepts: each is returned by
 * rte_reasm_dequeue() (as is, or as part of a reassembled datagram) or freed and counted
 * in rte_reasm_stats.drop_frags.
 *
 * @param ctx   context.
 * @param pkts  packets.
 * @param n     number of packets.
 * @param now   current TSC (rte_rdtsc()); drives the timeouts.
 * @return
 *   Number of packets accepted (from the start of @p pkts); fewer than @p n when the
 *   results not yet dequeued and the gathers in flight fill the context, or when
 *   gathers already wait for room on a full device ring (back-pressure: they are
 *   queued again as completions come, never dropped): dequeue, then give the rest
 *   again.
 */
__rte_experimental uint16_t rte_reasm_enqueue(struct rte_reasm_ctx *ctx, struct rte_mbuf **pkts,
					      uint16_t n, uint64_t now);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Linearize: each multi-segment packet is gathered into one fresh mbuf of the pool
 * (whose data room must hold it; otherwise it is dropped as too_big); single-segment
 * packets pass unchanged. Ownership and return value as rte_reasm_enqueue().
 */
__rte_experimental uint16_t rte_reasm_linearize_enqueue(struct rte_reasm_ctx *ctx,
							struct rte_mbuf **pkts, uint16_t n);

/** A fixed-stride layout for rte_reasm_split_enqueue(). */
struct rte_reasm_split {
	uint32_t offset;  /**< Bytes before the first record, copied first unchanged. */
	uint32_t hdr_len; /**< H: header bytes of a record. */
	uint32_t pay_len; /**< P: payload bytes of a record (> 0). */
	uint32_t reverse; /**< 0: split; 1: the reverse (scatter into records). */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Header-data split. A packet is @c offset bytes, then N records of H header bytes and
 * P payload bytes (N = remaining length / (H + P), which must divide exactly). The
 * output packet is the @c offset bytes, then the N payloads back to back, then (with
 * RTE_REASM_F_SPLIT_KEEP_HEADERS) the N headers back to back. With @c reverse, the input
 * is that output (payloads then headers) and the output the records again. One gather
 * per packet. Ownership and return value as rte_reasm_enqueue(); a packet whose length
 * does not fit the layout is dropped as bad_header.
 */
__rte_experimental uint16_t rte_reasm_split_enqueue(struct rte_reasm_ctx *ctx,
						    struct rte_mbuf **pkts, uint16_t n,
						    const struct rte_reasm_split *layout);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Collect finished packets, in completion order: reassembled datagrams, linearized and
 * split packets, and the packets passed through unchanged. Polls the engine.
 *
 * @return
 *   Number of packets stored in @p out.
 */
__rte_experimental uint16_t rte_reasm_dequeue(struct rte_reasm_ctx *ctx, struct rte_mbuf **out,
					      uint16_t n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Drop the incomplete datagrams whose first fragment arrived before @p now minus the
 * timeout (counted as timeout). rte_reasm_enqueue() does this too; call it when no
 * packets arrive. With @p now = UINT64_MAX every incomplete datagram is dropped (the end
 * of an input).
 *
 * @return
 *   Number of datagrams dropped.
 */
__rte_experimental uint32_t rte_reasm_expire(struct rte_reasm_ctx *ctx, uint64_t now);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Work held by the context: incomplete datagrams plus gathers in flight plus results
 * not yet dequeued. 0 when everything given has come back or been dropped.
 */
__rte_experimental uint32_t rte_reasm_pending(const struct rte_reasm_ctx *ctx);

/** Why packets or datagrams were dropped. */
enum rte_reasm_drop {
	RTE_REASM_DROP_TIMEOUT, /**< Incomplete when its timeout expired. */
	RTE_REASM_DROP_OVERLAP, /**< Fragments overlap (RFC 5722), or join a discarded one. */
	RTE_REASM_DROP_TOO_MANY_FRAGS, /**< More fragments (or pieces) than max_frags. */
	/**
	 * Reassembled IP length over 65535 (IPv4 total length with the first fragment's
	 * header; IPv6 payload length with the first fragment's unfragmentable part), or an
	 * output larger than the pool can hold.
	 */
	RTE_REASM_DROP_TOO_BIG,
	/** max_dgrams datagrams in reassembly and none of them can be evicted (all gathering). */
	RTE_REASM_DROP_TABLE_FULL,
	RTE_REASM_DROP_BAD_HEADER, /**< Malformed header, bad length, inconsistent last. */
	RTE_REASM_DROP_NO_BUFFER,  /**< Output mempool empty. */
	/**
	 * The fragment alone is over max_bytes or max_mbufs, or what is held cannot be
	 * evicted (its own datagram, gathers in flight).
	 */
	RTE_REASM_DROP_MEM_LIMIT,
	RTE_REASM_DROP_ENGINE_ERROR, /**< The engine reported a failed copy. */
	/**
	 * Incomplete, and the oldest when a new datagram found the table full or a new
	 * fragment found max_bytes or max_mbufs held.
	 */
	RTE_REASM_DROP_EVICTED,
	RTE_REASM_DROP_MAX,
};

/** Counters of a context (since creation or the last rte_reasm_stats_reset()). */
struct rte_reasm_stats {
	uint64_t pkts_in;            /**< Packets accepted by any enqueue call. */
	uint64_t frags_in;           /**< Of them, IP fragments (atomic ones included). */
	uint64_t passthrough;        /**< Returned unchanged. */
	uint64_t reassembled;        /**< Datagrams reassembled and returned. */
	uint64_t atomic;             /**< Of them, IPv6 atomic fragments. */
	uint64_t duplicates;         /**< Exact duplicate fragments freed (datagram kept). */
	uint64_t trimmed;            /**< IPv4 fragments trimmed (RTE_REASM_F_IPV4_OVERLAP_TRIM). */
	uint64_t linearized;         /**< Packets linearized. */
	uint64_t split;              /**< Packets split or merged. */
	uint64_t gathers;            /**< Gathers submitted to the engine. */
	uint64_t cpu_fallbacks;      /**< Gathers done by the CPU (the engine refused them). */
	uint64_t split_gathers;      /**< Gathers split into several engine ops (max_sges). */
	uint64_t gather_ops;         /**< Engine ops queued for gathers (split parts count). */
	uint64_t deferred;           /**< Gathers that waited for room on a full engine. */
	uint64_t umr_gathers;        /**< Engine ops through an engine module's path. */
	uint64_t interleaved_splits; /**< Split packets moved through interleaved mkeys. */
	uint64_t dgrams_in_table;    /**< Incomplete datagrams now held (a gauge). */
	uint64_t bytes_held;         /**< Buffer bytes of fragments now held (a gauge). */
	uint64_t mbufs_held;         /**< mbufs (segments) of fragments now held (a gauge). */
	uint64_t drop_frags[RTE_REASM_DROP_MAX];  /**< Packets freed, by reason. */
	uint64_t drop_dgrams[RTE_REASM_DROP_MAX]; /**< Datagrams discarded, by reason. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read the counters. The same numbers are in telemetry: /reasm/list, /reasm/stats,<name>.
 *
 * @return
 *   0, or -EINVAL (NULL argument).
 */
__rte_experimental int rte_reasm_stats_get(const struct rte_reasm_ctx *ctx,
					   struct rte_reasm_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Zero the counters (not the gauges). Same lcore as the data path.
 */
__rte_experimental void rte_reasm_stats_reset(struct rte_reasm_ctx *ctx);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of a drop reason as in telemetry ("timeout", "overlap", ...), or NULL.
 */
__rte_experimental const char *rte_reasm_drop_name(enum rte_reasm_drop reason);

#ifdef __cplusplus
}
#endif

#endif /* RTE_REASM_H */
