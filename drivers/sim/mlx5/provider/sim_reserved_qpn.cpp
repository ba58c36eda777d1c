/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_reserved_qpn_alloc / _dealloc as libmlx5 v44 does them (providers/mlx5/mlx5.c): the
 * context keeps a list of device RESERVED_QPN objects of 2^granularity QPNs
 * each; alloc hands out the next slot of the last object (a new object when
 * there is none or it is used up), so QPNs only move forward; dealloc clears
 * the slot's bit and destroys the object once all its slots were handed out
 * and freed.
 */
#include <errno.h>

#include "sim_internal.h"

namespace mlx5sim {

namespace {

bool bit_test(const SimRsvQpnBlock &b, uint32_t slot)
{
	return b.inuse[slot / 64] >> (slot % 64) & 1;
}

} // namespace

int sim_dv_reserved_qpn_alloc(struct ibv_context *context, uint32_t *qpn)
{
	if (!sim_is_sim_context(context) || !qpn)
		return EINVAL;
	SimCtxFull *ctx = to_ctx_full(context);
	const HcaCaps &caps = ctx->hca->caps();
	/* libmlx5: only a device listing the object type in general_obj_types */
	if (!caps.reserved_qpn)
		return EOPNOTSUPP;
	const uint32_t log = caps.log_reserved_qpn_granularity;
	const uint32_t slots = 1u << log;
	std::lock_guard<std::mutex> g(ctx->lock);

	if (ctx->rsv_qpns.empty() || ctx->rsv_qpns.back().next_avail >= slots) {
		SimRsvQpnBlock blk;
		try {
			blk.inuse.assign((slots + 63) / 64, 0);
			ctx->rsv_qpns.reserve(ctx->rsv_qpns.size() + 1);
		} catch (...) {
			return ENOMEM;
		}
		int ret = ctx->hca->create_reserved_qpn(log, &blk.first_qpn);
		if (ret)
			return -ret;
		blk.next_avail = 0;
		blk.nr_inuse = 0;
		ctx->rsv_qpns.push_back(std::move(blk)); /* capacity reserved: no throw */
	}
	SimRsvQpnBlock &b = ctx->rsv_qpns.back();
	uint32_t slot = b.next_avail++;
	b.inuse[slot / 64] |= 1ull << (slot % 64);
	b.nr_inuse++;
	*qpn = b.first_qpn + slot;
	return 0;
}

int sim_dv_reserved_qpn_dealloc(struct ibv_context *context, uint32_t qpn)
{
	if (!sim_is_sim_context(context))
		return EINVAL;
	SimCtxFull *ctx = to_ctx_full(context);
	const uint32_t slots = 1u << ctx->hca->caps().log_reserved_qpn_granularity;
	std::lock_guard<std::mutex> g(ctx->lock);

	for (auto it = ctx->rsv_qpns.begin(); it != ctx->rsv_qpns.end(); ++it) {
		if (qpn < it->first_qpn || qpn - it->first_qpn >= slots)
			continue;
		uint32_t slot = qpn - it->first_qpn;
		if (!bit_test(*it, slot))
			return EINVAL; /* never handed out, or freed already */
		/* the device object goes only when every slot was handed out and freed */
		if (it->nr_inuse == 1 && it->next_avail >= slots) {
			int ret = ctx->hca->destroy_reserved_qpn(it->first_qpn);
			if (ret)
				return -ret;
			ctx->rsv_qpns.erase(it);
			return 0;
		}
		it->inuse[slot / 64] &= ~(1ull << (slot % 64));
		it->nr_inuse--;
		return 0;
	}
	return EINVAL;
}

void sim_reserved_qpn_release(SimCtxFull *ctx)
{
	for (const SimRsvQpnBlock &b : ctx->rsv_qpns)
		(void)ctx->hca->destroy_reserved_qpn(b.first_qpn);
	ctx->rsv_qpns.clear();
}

} // namespace mlx5sim
