/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Translation areas of a UMR WQE (rdma-core providers/mlx5/qp.c,
 * mlx5_send_wr_set_mkey_layout and its interleaved variant): KLM list and repeat block. Both
 * start 128 bytes after the ctrl segment, i.e. on a WQEBB boundary, so an entry
 * never straddles the end of the ring: the writers wrap entry by entry.
 */
#include <string.h>

#include "wr_segments.h"
#include "wr_umr.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kEntry = 16; /* KLM entry, repeat header and repeat entry */

uint32_t align64(uint32_t v)
{
	return (v + MLX5_SEND_WQE_BB - 1) & ~(uint32_t)(MLX5_SEND_WQE_BB - 1);
}

/** Zero entries from @p p until @p n entries in total fill a 64-byte multiple. */
void pad_entries(SimQp *qp, uint8_t *p, uint32_t n)
{
	for (uint32_t i = n; i % (MLX5_SEND_WQE_BB / kEntry); i++) {
		p = wr_wrap(qp, p);
		memset(p, 0, kEntry);
		p += kEntry;
	}
}

} // namespace

UmrLayout umr_write_klm_list(SimQp *qp, uint8_t *seg, uint16_t num_sges, const struct ibv_sge *sge)
{
	UmrLayout out;
	uint32_t sum = 0;

	for (uint32_t i = 0; i < num_sges; i++) {
		seg = wr_wrap(qp, seg);
		wr_set_data(seg, sge[i].length, sge[i].lkey, sge[i].addr);
		sum += sge[i].length;
		seg += kEntry;
	}
	pad_entries(qp, seg, num_sges);
	out.xlat_bytes = (uint32_t)num_sges * kEntry;
	out.wqe_bytes = align64(out.xlat_bytes);
	/* v44.0 sums into an int: totals >= 2 GiB are sign-extended */
	out.length = (uint64_t)(int64_t)(int32_t)sum;
	return out;
}

UmrLayout umr_write_repeat_block(SimQp *qp, uint8_t *seg, uint32_t repeat_count,
				 uint16_t num_interleaved, const struct mlx5dv_mr_interleaved *data)
{
	auto *rb = reinterpret_cast<struct mlx5_wqe_umr_repeat_block_seg *>(seg);
	uint8_t *p = seg + kEntry;
	uint64_t sum = 0;
	UmrLayout out;

	rb->op = htobe32(0x400);
	rb->reserved = 0;
	rb->num_ent = htobe16(num_interleaved);
	rb->repeat_count = htobe32(repeat_count);
	for (uint32_t i = 0; i < num_interleaved; i++) {
		auto *e = reinterpret_cast<struct mlx5_wqe_umr_repeat_ent_seg *>(wr_wrap(qp, p));

		sum += data[i].bytes_count;
		e->va = htobe64(data[i].addr);
		e->byte_count = htobe16((uint16_t)data[i].bytes_count);
		e->stride = htobe16((uint16_t)(data[i].bytes_count + data[i].bytes_skip));
		e->memkey = htobe32(data[i].lkey);
		p = reinterpret_cast<uint8_t *>(e) + kEntry;
	}
	rb->byte_count = htobe32((uint32_t)sum);
	pad_entries(qp, p, (uint32_t)num_interleaved + 1);
	out.xlat_bytes = ((uint32_t)num_interleaved + 1) * kEntry;
	out.wqe_bytes = align64(out.xlat_bytes);
	out.length = sum * repeat_count;
	return out;
}

} // namespace mlx5sim
