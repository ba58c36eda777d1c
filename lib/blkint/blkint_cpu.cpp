/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine: every op block by block with ISA-L. As on the device, data moves through
 * failing blocks too and CONVERT writes the new PI of every block; the result names the
 * first failing block only.
 */
#include <string.h>

#include "blkint_pi.h"
#include "blkint_priv.h"

namespace {

/** Record the first failure of an op. */
inline void note(struct rte_blkint_result *res, enum rte_blkint_field f, uint32_t b,
		 const struct rte_blkint_error *e)
{
	if (f == RTE_BLKINT_FIELD_NONE || res->status != RTE_BLKINT_OK)
		return;
	res->status = RTE_BLKINT_ERR_PI;
	res->error = *e;
	res->error.block = b;
	res->error.field = f;
}

void run_insert(const struct rte_blkint_dev_job *j)
{
	const struct rte_blkint_format *df = &j->dst_fmt;
	uint32_t bs = df->block_size, ds = blkint_stride(df);
	const uint8_t *src = (const uint8_t *)j->op.src;
	uint8_t *dst = (uint8_t *)j->op.dst;
	bool in_place = j->op.src == j->op.dst;
	uint64_t sum;

	for (uint32_t b = 0; b < j->op.nb_blocks; b++) {
		uint8_t *d = dst + (uint64_t)b * ds;

		if (in_place)
			sum = blkint_pi_sum(df, d, bs);
		else
			sum = blkint_pi_sum_copy(df, d, src + (uint64_t)b * bs, bs);
		blkint_pi_write(df, d + bs, sum, blkint_ref_of(df, j->op.dst_ref_tag, b));
	}
}

void run_verify_strip(const struct rte_blkint_dev_job *j, struct rte_blkint_result *res)
{
	const struct rte_blkint_format *sf = &j->src_fmt;
	uint32_t bs = sf->block_size, ss = blkint_stride(sf);
	const uint8_t *src = (const uint8_t *)j->op.src;
	uint8_t *dst = (uint8_t *)j->op.dst; /* NULL: verify only */
	struct rte_blkint_error e = {};
	uint64_t sum;

	for (uint32_t b = 0; b < j->op.nb_blocks; b++) {
		const uint8_t *s = src + (uint64_t)b * ss;

		if (dst && dst != src) {
			sum = blkint_pi_sum_copy(sf, dst + (uint64_t)b * bs, s, bs);
		} else {
			/* in place: block b's PI lies past its new place; check, then move */
			sum = blkint_pi_sum(sf, s, bs);
			if (dst && b)
				memmove(dst + (uint64_t)b * bs, s, bs);
		}
		note(res,
		     blkint_pi_check(sf, s + bs, sum, blkint_ref_of(sf, j->op.src_ref_tag, b), &e),
		     b, &e);
	}
}

/** Same guard/CRC definition: the destination's sum is the source's. */
bool same_sum(const struct rte_blkint_format *a, const struct rte_blkint_format *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == RTE_BLKINT_PI_T10DIF)
		return a->guard == b->guard && a->guard_seed == b->guard_seed;
	return a->crc_seed == b->crc_seed;
}

void run_convert(const struct rte_blkint_dev_job *j, struct rte_blkint_result *res)
{
	const struct rte_blkint_format *sf = &j->src_fmt, *df = &j->dst_fmt;
	uint32_t bs = sf->block_size, ss = blkint_stride(sf), ds = blkint_stride(df);
	const uint8_t *src = (const uint8_t *)j->op.src;
	uint8_t *dst = (uint8_t *)j->op.dst;
	bool reuse = same_sum(sf, df);
	struct rte_blkint_error e = {};
	uint64_t sum, dsum;

	for (uint32_t b = 0; b < j->op.nb_blocks; b++) {
		const uint8_t *s = src + (uint64_t)b * ss;
		uint8_t *d = dst + (uint64_t)b * ds;

		if (d != s)
			sum = blkint_pi_sum_copy(sf, d, s, bs);
		else
			sum = blkint_pi_sum(sf, s, bs);
		note(res,
		     blkint_pi_check(sf, s + bs, sum, blkint_ref_of(sf, j->op.src_ref_tag, b), &e),
		     b, &e);
		dsum = reuse ? sum : blkint_pi_sum(df, d, bs);
		blkint_pi_write(df, d + bs, dsum, blkint_ref_of(df, j->op.dst_ref_tag, b));
	}
}

} // namespace

void blkint_cpu_run(const struct rte_blkint_dev_job *job, struct rte_blkint_result *res)
{
	res->status = RTE_BLKINT_OK;
	res->on_device = 0;
	memset(&res->error, 0, sizeof(res->error));
	switch (job->op.type) {
	case RTE_BLKINT_OP_INSERT:
		run_insert(job);
		break;
	case RTE_BLKINT_OP_VERIFY:
	case RTE_BLKINT_OP_STRIP:
		run_verify_strip(job, res);
		break;
	case RTE_BLKINT_OP_CONVERT:
		run_convert(job, res);
		break;
	default:
		break;
	}
}
