/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * In which order the bytes of a message land in memory (data-in-order, as
 * ibv_query_qp_data_in_order() reports it). A reader that polls the last byte
 * of a message instead of its completion is right only on a device that
 * promises WHOLE_MSG; the model makes the
 * difference observable:
 *  - WholeMsg: every byte but the last, a release fence, then the last byte;
 *  - Aligned128: the 128-byte aligned destination blocks last block first, each
 *    block in order (its last byte after a release fence);
 *  - None: the blocks last first, each with a plain memmove.
 * RDMA writes, RDMA read responses and SENDs only; messages whose source and
 * destination overlap (loopback) move in plain order, as memmove would.
 */
#include <atomic>

#include <string.h>

#include "wqe_special.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kBlock = 128;

struct Pos {
	uint32_t i;   /**< span */
	uint64_t off; /**< offset in it */
};

Pos seek(const Span *s, uint32_t n, uint64_t off)
{
	uint32_t i = 0;
	while (i < n && off >= s[i].len) {
		off -= s[i].len;
		i++;
	}
	return Pos{i, off};
}

/** Move message bytes [off, off + len) from the source spans to the destination spans. */
void copy_range(const Plan *pl, uint32_t nsrc, uint64_t off, uint64_t len)
{
	Pos a = seek(pl->src, nsrc, off);
	Pos b = seek(pl->dst, pl->ndst, off);
	while (len && a.i < nsrc && b.i < pl->ndst) {
		uint64_t n = pl->src[a.i].len - a.off;
		if (pl->dst[b.i].len - b.off < n)
			n = pl->dst[b.i].len - b.off;
		if (len < n)
			n = len;
		memmove(pl->dst[b.i].p + b.off, pl->src[a.i].p + a.off, n);
		len -= n;
		a.off += n;
		b.off += n;
		if (a.off == pl->src[a.i].len) {
			a.i++;
			a.off = 0;
		}
		if (b.off == pl->dst[b.i].len) {
			b.i++;
			b.off = 0;
		}
	}
}

/** [off, off + len) with its last byte landing after all the others. */
void copy_last_last(const Plan *pl, uint32_t nsrc, uint64_t off, uint64_t len)
{
	if (len > 1)
		copy_range(pl, nsrc, off, len - 1);
	std::atomic_thread_fence(std::memory_order_release);
	copy_range(pl, nsrc, off + len - 1, 1);
}

bool overlap(const Plan *pl, uint32_t nsrc)
{
	for (uint32_t i = 0; i < nsrc; i++)
		for (uint32_t j = 0; j < pl->ndst; j++)
			if (pl->src[i].p < pl->dst[j].p + pl->dst[j].len &&
			    pl->dst[j].p < pl->src[i].p + pl->src[i].len)
				return true;
	return false;
}

} // namespace

void plan_data_order(const HcaCaps &local, const HcaCaps *peer, Plan *pl)
{
	uint8_t op = pl->opcode;
	bool msg = op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
		   op == MLX5_OPCODE_SEND_INVAL || op == MLX5_OPCODE_RDMA_WRITE ||
		   op == MLX5_OPCODE_RDMA_WRITE_IMM || op == MLX5_OPCODE_RDMA_READ;
	if (!msg || pl->safe || pl->total < 2 || (pl->xflags & (XF_PATTERN | XF_SIG)))
		return;
	/* the receiving host's promise: the responder's, or the requester's for a read */
	const HcaCaps &c = op != MLX5_OPCODE_RDMA_READ && peer ? *peer : local;
	switch (c.data_in_order) {
	case DataInOrder::WholeMsg:
		pl->xflags |= XF_DIO_WHOLE;
		break;
	case DataInOrder::Aligned128:
		pl->xflags |= XF_DIO_REVERSE | XF_DIO_BLOCK;
		break;
	case DataInOrder::None:
		pl->xflags |= XF_DIO_REVERSE;
		break;
	}
}

void exec_data_order(Plan *pl)
{
	const uint32_t nsrc = pl->nsrc & ~HCA_NSRC_SPECIAL;
	uint64_t total = pl->total;

	pl->fault = 0;
	if (overlap(pl, nsrc)) {
		copy_range(pl, nsrc, 0, total);
		return;
	}
	if (pl->xflags & XF_DIO_WHOLE) {
		copy_last_last(pl, nsrc, 0, total);
		return;
	}
	/* destination blocks from the message's end backwards */
	uint64_t span_end = 0;
	uint32_t last = 0;
	for (; last < pl->ndst && span_end < total; last++)
		span_end += pl->dst[last].len;
	for (uint32_t j = last; j-- > 0;) {
		uint64_t span_start = span_end - pl->dst[j].len;
		uint64_t end = span_end < total ? span_end : total; /* message offset */
		while (end > span_start) {
			/* the block boundary at or below the byte before end, by address */
			uintptr_t a_end = (uintptr_t)pl->dst[j].p + (end - span_start);
			uintptr_t a_blk = (a_end - 1) & ~(uintptr_t)(kBlock - 1);
			uint64_t start = a_blk <= (uintptr_t)pl->dst[j].p
						 ? span_start
						 : span_start + (a_blk - (uintptr_t)pl->dst[j].p);
			if (pl->xflags & XF_DIO_BLOCK)
				copy_last_last(pl, nsrc, start, end - start);
			else
				copy_range(pl, nsrc, start, end - start);
			end = start;
		}
		span_end = span_start;
	}
}

} // namespace mlx5sim
