/* SPDX-License-Identifier: BSD-3-Clause */
/* The copy engines behind rte_reasm: one interface, a CPU and a dmadev implementation. */
#ifndef REASM_ENGINE_H
#define REASM_ENGINE_H

#include <stdint.h>

#include <rte_common.h>

/** One contiguous piece of a gather: the CPU uses va, a device iova. */
struct reasm_sge {
	void *va;
	rte_iova_t iova;
	uint32_t len;
};

/** A gather of one datagram/packet: pieces of src, in order, into pieces of dst. */
struct reasm_gather {
	const struct reasm_sge *src;
	const struct reasm_sge *dst;
	uint16_t nb_src;
	uint16_t nb_dst;
};

/**
 * A header-data split (rte_reasm_split) of one contiguous packet into one contiguous
 * packet, described by its records rather than its pieces: @c offset bytes copied as
 * they are, then @c nrec records of @c hdr_len + @c pay_len bytes (see rte_reasm.h for
 * the output layout and the reverse).
 */
struct reasm_strided {
	struct reasm_sge in;
	struct reasm_sge out;
	uint32_t offset, hdr_len, pay_len, nrec;
	bool keep_headers;
	bool reverse;
};

/** reasm_engine::gather() results besides a negative errno. */
enum {
	REASM_GATHER_QUEUED = 0,
	REASM_GATHER_DONE = 1
};

struct rte_reasm_engine {
	virtual ~rte_reasm_engine() = default;
	virtual const char *kind() const = 0;
	/** Most pieces per side one gather may have on this engine. */
	virtual uint32_t max_sges() const = 0;
	/**
	 * Start a gather. REASM_GATHER_DONE: copied already; REASM_GATHER_QUEUED: @p cookie
	 * comes back from poll(); -ENOSPC: the device ring is full now; -E2BIG: too many
	 * pieces for the device. Nothing is queued on error.
	 */
	virtual int gather(const struct reasm_gather *g, uint32_t cookie) = 0;
	/** Ring the doorbell for the gathers queued since the last submit. */
	virtual void submit() {}
	/** Completed gathers, in completion order: cookie and success. */
	virtual uint16_t poll(uint32_t *cookies, bool *ok, uint16_t n)
	{
		RTE_SET_USED(cookies);
		RTE_SET_USED(ok);
		RTE_SET_USED(n);
		return 0;
	}
	/**
	 * A gather described to the device as one list mkey over the pieces of each side
	 * that has several, and one copy (dma_mlx5's UMR mkeys, rte_pmd_dma_mlx5.h). As
	 * gather(); -ENOTSUP when the engine has no such path or not for this gather (too many
	 * pieces, too long): the caller uses gather().
	 */
	virtual int gather_umr_mkey(const struct reasm_gather *g, uint32_t cookie)
	{
		RTE_SET_USED(g);
		RTE_SET_USED(cookie);
		return -ENOTSUP;
	}
	/**
	 * A header-data split through interleaved mkeys (a repeat count over the records)
	 * and one copy per stream. As gather_umr_mkey().
	 */
	virtual int gather_strided(const struct reasm_strided *s, uint32_t cookie)
	{
		RTE_SET_USED(s);
		RTE_SET_USED(cookie);
		return -ENOTSUP;
	}
};

/** The CPU copy of a gather (the CPU engine, and every engine's fallback). */
void reasm_cpu_gather(const struct reasm_gather *g);

#endif /* REASM_ENGINE_H */
