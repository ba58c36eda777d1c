/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation of formats and ops: what both engines accept, one log line per refusal. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>

#include "blkint_log.h"
#include "blkint_pi.h"
#include "blkint_priv.h"

namespace {

const char *const op_names[RTE_BLKINT_OP_MAX] = {"insert", "verify", "strip", "convert"};

/*
 * An enum field as the caller stored it: C callers may put any int there, and a C++ load
 * of an out-of-range value through the enum type is undefined.
 */
unsigned int raw(const void *enum_field)
{
	unsigned int v;

	memcpy(&v, enum_field, sizeof(v));
	return v;
}

bool block_size_ok(uint32_t bs)
{
	return bs == 512 || bs == 520 || bs == 4048 || bs == 4096 || bs == 4160;
}

/** A format the op needs: valid and with PI. */
int need_pi(const struct rte_blkint_op *op, const struct rte_blkint_format *f, const char *which)
{
	if (!f) {
		BLKINT_LOG(ERR, "%s op without %s", op_names[op->type], which);
		return -EINVAL;
	}
	if (rte_blkint_format_check(f) < 0)
		return -EINVAL;
	if (f->type == RTE_BLKINT_PI_NONE) {
		BLKINT_LOG(ERR, "%s op: %s has no PI", op_names[op->type], which);
		return -EINVAL;
	}
	return 0;
}

bool overlap(const void *a, uint64_t alen, const void *b, uint64_t blen)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + blen && y < x + alen;
}

} // namespace

int rte_blkint_format_check(const struct rte_blkint_format *f)
{
	if (!f) {
		BLKINT_LOG(ERR, "NULL format");
		return -EINVAL;
	}
	if (raw(&f->type) >= RTE_BLKINT_PI_MAX) {
		BLKINT_LOG(ERR, "format type %u unknown", raw(&f->type));
		return -EINVAL;
	}
	if (!block_size_ok(f->block_size)) {
		BLKINT_LOG(ERR, "block size %u not 512/520/4048/4096/4160", f->block_size);
		return -EINVAL;
	}
	if (f->type == RTE_BLKINT_PI_T10DIF) {
		if (raw(&f->guard) > RTE_BLKINT_GUARD_IPCSUM) {
			BLKINT_LOG(ERR, "T10-DIF guard kind %u unknown", raw(&f->guard));
			return -EINVAL;
		}
		if (f->guard_seed != 0 && f->guard_seed != 0xffff) {
			BLKINT_LOG(ERR, "T10-DIF guard seed 0x%x not 0 or 0xffff", f->guard_seed);
			return -EINVAL;
		}
		if (f->flags & ~(RTE_BLKINT_F_REF_INC | RTE_BLKINT_F_APP_ESCAPE |
				 RTE_BLKINT_F_APP_REF_ESCAPE)) {
			BLKINT_LOG(ERR, "T10-DIF flags 0x%x unknown", f->flags);
			return -EINVAL;
		}
		if (f->check & ~RTE_BLKINT_CHECK_ALL) {
			BLKINT_LOG(ERR, "T10-DIF check mask 0x%x unknown", f->check);
			return -EINVAL;
		}
		return 0;
	}
	if (f->flags || f->check) {
		BLKINT_LOG(ERR, "flags 0x%x / check 0x%x given without T10-DIF", f->flags,
			   f->check);
		return -EINVAL;
	}
	if (f->type == RTE_BLKINT_PI_CRC64 ? (f->crc_seed != 0 && f->crc_seed != ~0ull)
					   : (f->crc_seed != 0 && f->crc_seed != 0xffffffffu)) {
		BLKINT_LOG(ERR, "CRC seed 0x%" PRIx64 " not 0 or all ones", f->crc_seed);
		return -EINVAL;
	}
	return 0;
}

uint64_t rte_blkint_buf_len(const struct rte_blkint_format *fmt, uint32_t nb_blocks)
{
	if (!fmt)
		return 0;
	return (uint64_t)blkint_stride(fmt) * nb_blocks;
}

int blkint_op_check(const struct rte_blkint_op *op)
{
	const struct rte_blkint_format *layout_fmt;
	uint64_t slen, dlen;

	if (raw(&op->type) >= RTE_BLKINT_OP_MAX) {
		BLKINT_LOG(ERR, "op type %u unknown", raw(&op->type));
		return -EINVAL;
	}
	if (op->nb_blocks == 0 || !op->src) {
		BLKINT_LOG(ERR, "%s op: %u blocks, src %p", op_names[op->type], op->nb_blocks,
			   op->src);
		return -EINVAL;
	}
	if ((op->type == RTE_BLKINT_OP_VERIFY) != (op->dst == NULL)) {
		BLKINT_LOG(ERR, "%s op with dst %p (NULL for verify only)", op_names[op->type],
			   op->dst);
		return -EINVAL;
	}
	if (op->type != RTE_BLKINT_OP_INSERT && need_pi(op, op->src_fmt, "src_fmt") < 0)
		return -EINVAL;
	if ((op->type == RTE_BLKINT_OP_INSERT || op->type == RTE_BLKINT_OP_CONVERT) &&
	    need_pi(op, op->dst_fmt, "dst_fmt") < 0)
		return -EINVAL;
	if (op->type == RTE_BLKINT_OP_CONVERT) {
		if (op->src_fmt->block_size != op->dst_fmt->block_size) {
			BLKINT_LOG(ERR, "convert op: block sizes %u and %u differ",
				   op->src_fmt->block_size, op->dst_fmt->block_size);
			return -EINVAL;
		}
		if (op->src == op->dst &&
		    blkint_stride(op->src_fmt) != blkint_stride(op->dst_fmt)) {
			BLKINT_LOG(ERR, "in-place convert op: PI sizes %u and %u differ",
				   blkint_pi_size(op->src_fmt->type),
				   blkint_pi_size(op->dst_fmt->type));
			return -EINVAL;
		}
	}
	layout_fmt = op->type == RTE_BLKINT_OP_INSERT ? op->dst_fmt : op->src_fmt;
	slen = op->type == RTE_BLKINT_OP_INSERT ? (uint64_t)layout_fmt->block_size * op->nb_blocks
						: rte_blkint_buf_len(op->src_fmt, op->nb_blocks);
	dlen = op->type == RTE_BLKINT_OP_STRIP ? (uint64_t)layout_fmt->block_size * op->nb_blocks
					       : rte_blkint_buf_len(op->dst_fmt, op->nb_blocks);
	/* one device transfer addresses at most 4 GiB - 1 bytes (a 32-bit length) */
	if (slen > UINT32_MAX || dlen > UINT32_MAX) {
		BLKINT_LOG(ERR, "%s op of %u blocks: over 4 GiB", op_names[op->type],
			   op->nb_blocks);
		return -EINVAL;
	}
	if (op->dst && op->dst != op->src && overlap(op->src, slen, op->dst, dlen)) {
		BLKINT_LOG(ERR, "%s op: src %p and dst %p overlap without being equal",
			   op_names[op->type], op->src, op->dst);
		return -EINVAL;
	}
	return 0;
}
