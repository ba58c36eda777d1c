/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-check of a device op on the CPU (ISA-L): the verification the device reported is
 * recomputed over the source, and the PI the device wrote is compared byte for byte with
 * the PI ISA-L derives from the source data. Read-only: the device's output is kept.
 */
#include <string.h>

#include "blkint_pi.h"
#include "blkint_priv.h"

namespace {

uint64_t be_field(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/** The field of PI byte @p i, and its value in tuple @p pi. */
enum rte_blkint_field field_at(const struct rte_blkint_format *f, const uint8_t *pi, uint32_t i,
			       uint64_t *val)
{
	if (f->type != RTE_BLKINT_PI_T10DIF) {
		*val = be_field(pi, blkint_pi_size(f->type));
		return RTE_BLKINT_FIELD_CRC;
	}
	if (i < 2) {
		*val = be_field(pi, 2);
		return RTE_BLKINT_FIELD_GUARD;
	}
	if (i < 4) {
		*val = be_field(pi + 2, 2);
		return RTE_BLKINT_FIELD_APPTAG;
	}
	*val = be_field(pi + 4, 4);
	return RTE_BLKINT_FIELD_REFTAG;
}

/** The verification of the source, as the CPU engine finds it. */
void verify_src(const struct rte_blkint_dev_job *j, struct rte_blkint_result *r)
{
	const struct rte_blkint_format *sf = &j->src_fmt;
	uint32_t bs = sf->block_size, ss = blkint_stride(sf);
	struct rte_blkint_error e = {};
	enum rte_blkint_field f;

	for (uint32_t b = 0; b < j->op.nb_blocks; b++) {
		const uint8_t *s = (const uint8_t *)j->op.src + (uint64_t)b * ss;

		f = blkint_pi_check(sf, s + bs, blkint_pi_sum(sf, s, bs),
				    blkint_ref_of(sf, j->op.src_ref_tag, b), &e);
		if (f != RTE_BLKINT_FIELD_NONE) {
			r->status = RTE_BLKINT_ERR_PI;
			r->error = e;
			r->error.block = b;
			r->error.field = f;
			return;
		}
	}
}

/** First block whose written PI differs from ISA-L's; false when none. */
bool pi_differs(const struct rte_blkint_dev_job *j, struct rte_blkint_error *e)
{
	const struct rte_blkint_format *df = &j->dst_fmt;
	bool from_plain = j->op.type == RTE_BLKINT_OP_INSERT;
	uint32_t bs = df->block_size, ds = blkint_stride(df);
	uint32_t ss = from_plain ? bs : blkint_stride(&j->src_fmt), n = blkint_pi_size(df->type);
	uint8_t want[8];
	uint64_t got;

	for (uint32_t b = 0; b < j->op.nb_blocks; b++) {
		const uint8_t *s = (const uint8_t *)j->op.src + (uint64_t)b * ss;
		const uint8_t *pi = (const uint8_t *)j->op.dst + (uint64_t)b * ds + bs;

		blkint_pi_write(df, want, blkint_pi_sum(df, s, bs),
				blkint_ref_of(df, j->op.dst_ref_tag, b));
		for (uint32_t i = 0; i < n; i++) {
			if (want[i] == pi[i])
				continue;
			e->block = b;
			e->field = field_at(df, want, i, &e->expected);
			field_at(df, pi, i, &got);
			e->actual = got;
			return true;
		}
	}
	return false;
}

} // namespace

bool blkint_xcheck(const struct rte_blkint_dev_job *job, struct rte_blkint_dev_done *done)
{
	struct rte_blkint_result cpu = {};
	struct rte_blkint_error e = {};

	if (job->op.type != RTE_BLKINT_OP_INSERT)
		verify_src(job, &cpu);
	if (cpu.status != done->status ||
	    (cpu.status == RTE_BLKINT_ERR_PI &&
	     (cpu.error.block != done->error.block || cpu.error.field != done->error.field ||
	      cpu.error.expected != done->error.expected ||
	      cpu.error.actual != done->error.actual))) {
		/* the CPU's finding, or the device's claim when the CPU found nothing */
		if (cpu.status == RTE_BLKINT_ERR_PI)
			done->error = cpu.error;
		done->status = RTE_BLKINT_ERR_XCHECK;
		return false;
	}
	if ((job->op.type == RTE_BLKINT_OP_INSERT || job->op.type == RTE_BLKINT_OP_CONVERT) &&
	    pi_differs(job, &e)) {
		done->status = RTE_BLKINT_ERR_XCHECK;
		done->error = e;
		return false;
	}
	return true;
}
