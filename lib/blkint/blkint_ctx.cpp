/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The context: routes each op to the device or the CPU, keeps device jobs in slots until
 * they complete, cross-checks a sample of them, and queues results for dequeue.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "blkint_log.h"
#include "blkint_priv.h"

RTE_LOG_REGISTER_DEFAULT(blkint_logtype, INFO);

#define BLKINT_NAME_LEN 32

struct rte_blkint_ctx {
	char name[BLKINT_NAME_LEN];
	struct blkint_dev *dev; /* NULL: CPU only */
	uint32_t min_dev_blocks;
	uint32_t cap;  /* max_inflight: slots, and the size of the result ring */
	uint32_t mask; /* cap - 1 */
	/* results waiting for dequeue: ring [head, tail) */
	struct rte_blkint_result *res;
	uint32_t head, tail;
	/* device jobs in flight; free slots on a stack */
	struct rte_blkint_dev_job *jobs;
	uint32_t *free_slots;
	uint32_t nb_free;
	uint32_t in_flight;
	/* cross-check sampling: a 32.32 fixed-point accumulator of the rate */
	uint64_t xcheck_step;
	uint64_t xcheck_acc;
	struct rte_blkint_stats stats;
};

namespace {

const char *const field_names[RTE_BLKINT_FIELD_MAX] = {"none", "guard", "apptag", "reftag", "crc"};

uint32_t data_bytes(const struct rte_blkint_dev_job *j)
{
	const struct rte_blkint_format *f = j->op.type == RTE_BLKINT_OP_INSERT ? &j->dst_fmt
									       : &j->src_fmt;

	return f->block_size * j->op.nb_blocks;
}

void count(struct rte_blkint_ctx *c, enum rte_blkint_engine e, const struct rte_blkint_dev_job *j,
	   const struct rte_blkint_result *r)
{
	struct rte_blkint_engine_stats *s = &c->stats.engine[e];

	s->ops++;
	s->blocks += j->op.nb_blocks;
	s->bytes += data_bytes(j);
	s->op_kind[j->op.type]++;
	if (r->status == RTE_BLKINT_ERR_PI)
		s->pi_errors[r->error.field]++;
	else if (r->status == RTE_BLKINT_ERR_ENGINE)
		s->engine_errors++;
}

struct rte_blkint_result *push_result(struct rte_blkint_ctx *c)
{
	return &c->res[c->tail++ & c->mask];
}

void copy_job(struct rte_blkint_dev_job *j, const struct rte_blkint_op *op)
{
	j->op = *op;
	memset(&j->src_fmt, 0, sizeof(j->src_fmt));
	memset(&j->dst_fmt, 0, sizeof(j->dst_fmt));
	if (op->src_fmt && op->type != RTE_BLKINT_OP_INSERT)
		j->src_fmt = *op->src_fmt;
	if (op->dst_fmt && (op->type == RTE_BLKINT_OP_INSERT || op->type == RTE_BLKINT_OP_CONVERT))
		j->dst_fmt = *op->dst_fmt;
	j->op.src_fmt = &j->src_fmt;
	j->op.dst_fmt = &j->dst_fmt;
}

bool sample(struct rte_blkint_ctx *c)
{
	c->xcheck_acc += c->xcheck_step;
	if (c->xcheck_acc < (1ull << 32))
		return false;
	c->xcheck_acc -= 1ull << 32;
	return true;
}

void complete_dev(struct rte_blkint_ctx *c, struct rte_blkint_dev_done *d)
{
	struct rte_blkint_dev_job *j = &c->jobs[d->slot];
	struct rte_blkint_engine_stats *s = &c->stats.engine[RTE_BLKINT_ENGINE_DEV];
	struct rte_blkint_result *r;

	if (d->status != RTE_BLKINT_ERR_ENGINE && sample(c)) {
		s->xcheck_run++;
		if (!blkint_xcheck(j, d)) {
			s->xcheck_failed++;
			/* error path: one line per mismatch */
			BLKINT_LOG(ERR,
				   "%s: device result differs from ISA-L: op 0x%" PRIx64
				   " block %u %s expected 0x%" PRIx64 " actual 0x%" PRIx64,
				   c->name, j->op.user_data, d->error.block,
				   field_names[d->error.field], d->error.expected, d->error.actual);
		}
	}
	r = push_result(c);
	r->user_data = j->op.user_data;
	r->status = d->status;
	r->on_device = 1;
	r->error = d->error;
	count(c, RTE_BLKINT_ENGINE_DEV, j, r);
	c->free_slots[c->nb_free++] = d->slot;
	c->in_flight--;
}

void poll_dev(struct rte_blkint_ctx *c)
{
	struct rte_blkint_dev_done done[32];
	uint16_t n;

	if (!c->dev || !c->in_flight)
		return;
	do {
		n = c->dev->poll(done, RTE_DIM(done));
		for (uint16_t i = 0; i < n; i++)
			complete_dev(c, &done[i]);
	} while (n == RTE_DIM(done));
}

void free_ctx(struct rte_blkint_ctx *c)
{
	delete c->dev;
	rte_free(c->res);
	rte_free(c->jobs);
	rte_free(c->free_slots);
	rte_free(c);
}

} // namespace

struct rte_blkint_ctx *blkint_create_with_dev(const struct rte_blkint_conf *conf,
					      struct blkint_dev *dev)
{
	struct rte_blkint_ctx *c;
	uint32_t cap;
	int ret;

	if (!conf || !conf->name || strlen(conf->name) >= BLKINT_NAME_LEN) {
		BLKINT_LOG(ERR, "missing conf or name (at most %d chars)", BLKINT_NAME_LEN - 1);
		delete dev;
		rte_errno = EINVAL;
		return NULL;
	}
	cap = conf->max_inflight ? conf->max_inflight : RTE_BLKINT_DEFAULT_MAX_INFLIGHT;
	if (!rte_is_power_of_2(cap) || cap > 65536 || !(conf->xcheck_rate >= 0.0) ||
	    conf->xcheck_rate > 1.0) {
		BLKINT_LOG(ERR,
			   "%s: max_inflight %u (power of 2 up to 65536), xcheck_rate %g (0..1)",
			   conf->name, cap, conf->xcheck_rate);
		delete dev;
		rte_errno = EINVAL;
		return NULL;
	}
	c = (struct rte_blkint_ctx *)rte_zmalloc_socket("blkint", sizeof(*c), 0, conf->socket_id);
	if (!c) {
		delete dev;
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(c->name, sizeof(c->name), "%s", conf->name);
	c->dev = dev;
	c->cap = cap;
	c->mask = cap - 1;
	c->min_dev_blocks = conf->min_dev_blocks ? conf->min_dev_blocks
						 : RTE_BLKINT_DEFAULT_MIN_DEV_BLOCKS;
	c->xcheck_step = (uint64_t)llround(conf->xcheck_rate * (double)(1ull << 32));
	c->res = (struct rte_blkint_result *)rte_zmalloc_socket("blkint", sizeof(*c->res) * cap, 0,
								conf->socket_id);
	c->jobs = (struct rte_blkint_dev_job *)rte_zmalloc_socket("blkint", sizeof(*c->jobs) * cap,
								  0, conf->socket_id);
	c->free_slots = (uint32_t *)rte_zmalloc_socket("blkint", sizeof(uint32_t) * cap, 0,
						       conf->socket_id);
	if (!c->res || !c->jobs || !c->free_slots) {
		free_ctx(c);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < cap; i++)
		c->free_slots[i] = cap - 1 - i;
	c->nb_free = cap;
	ret = blkint_registry_add(c);
	if (ret < 0) {
		free_ctx(c);
		rte_errno = -ret;
		return NULL;
	}
	return c;
}

struct rte_blkint_ctx *rte_blkint_create(const struct rte_blkint_conf *conf)
{
	struct blkint_dev *dev = NULL;

	if (conf && conf->dev_id >= 0) {
		dev = blkint_dev_create(conf->dev_id, conf->vchan,
					conf->max_inflight ? conf->max_inflight
							   : RTE_BLKINT_DEFAULT_MAX_INFLIGHT);
		if (!dev && rte_errno != ENOTSUP)
			return NULL;
		/* ENOTSUP: no engine for that device; the context runs on the CPU */
	}
	return blkint_create_with_dev(conf, dev);
}

void rte_blkint_free(struct rte_blkint_ctx *ctx)
{
	const char *lost = NULL;
	uint64_t deadline;

	if (!ctx)
		return;
	/* Bounded, as rte_reasm_free(): a closed dmadev or a vchan set up again never
	 * completes the ops it had. The device only touches the ops' own buffers, never
	 * the context's memory, so everything is released whatever is left. */
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	while (ctx->in_flight && !(lost = ctx->dev->lost()) && rte_get_tsc_cycles() < deadline)
		poll_dev(ctx);
	ctx->head = ctx->tail; /* results nobody will read */
	if (ctx->in_flight)
		BLKINT_LOG(ERR,
			   "%s: %u device ops still in flight (%s); freed anyway: the device may "
			   "still write their destinations until its dmadev is stopped",
			   ctx->name, ctx->in_flight, lost ? lost : "not completed within 1 s");
	blkint_registry_del(ctx);
	free_ctx(ctx);
}

int rte_blkint_on_device(const struct rte_blkint_ctx *ctx)
{
	return ctx && ctx->dev ? 1 : 0;
}

uint16_t rte_blkint_enqueue(struct rte_blkint_ctx *c, const struct rte_blkint_op *ops, uint16_t n)
{
	uint16_t i;
	bool rung = false;
	int ret;

	if (!c || (!ops && n)) {
		rte_errno = EINVAL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct rte_blkint_op *op = &ops[i];
		struct rte_blkint_result *r;
		struct rte_blkint_dev_job cpu_job;
		struct rte_blkint_dev_job *j;

		if (c->in_flight + (c->tail - c->head) >= c->cap) {
			rte_errno = ENOSPC;
			break;
		}
		if (blkint_op_check(op) < 0) {
			rte_errno = EINVAL;
			break;
		}
		if (c->dev && op->nb_blocks >= c->min_dev_blocks && op->dst != op->src) {
			j = &c->jobs[c->free_slots[c->nb_free - 1]];
			copy_job(j, op);
			ret = c->dev->submit(j, c->free_slots[c->nb_free - 1]);
			if (ret == 0) {
				c->nb_free--;
				c->in_flight++;
				rung = true;
				continue;
			}
			if (ret == -ENOSPC) {
				c->stats.dev_busy++;
				rte_errno = ENOSPC;
				break;
			}
			/* -ENOTSUP: a layout the device cannot take; the CPU runs it */
			c->stats.refused_to_cpu++;
		} else if (c->dev) {
			if (op->dst == op->src)
				c->stats.inplace_to_cpu++;
			else
				c->stats.small_to_cpu++;
		}
		copy_job(&cpu_job, op);
		r = push_result(c);
		blkint_cpu_run(&cpu_job, r);
		r->user_data = op->user_data;
		count(c, RTE_BLKINT_ENGINE_CPU, &cpu_job, r);
	}
	if (rung)
		c->dev->doorbell();
	return i;
}

uint16_t rte_blkint_dequeue(struct rte_blkint_ctx *c, struct rte_blkint_result *res, uint16_t n)
{
	uint16_t k = 0;

	if (!c || !res)
		return 0;
	poll_dev(c);
	while (k < n && c->head != c->tail)
		res[k++] = c->res[c->head++ & c->mask];
	return k;
}

uint32_t rte_blkint_pending(const struct rte_blkint_ctx *c)
{
	return c ? c->in_flight + (c->tail - c->head) : 0;
}

int rte_blkint_stats_get(const struct rte_blkint_ctx *c, struct rte_blkint_stats *s)
{
	if (!c || !s)
		return -EINVAL;
	*s = c->stats;
	return 0;
}

void rte_blkint_stats_reset(struct rte_blkint_ctx *c)
{
	if (c)
		memset(&c->stats, 0, sizeof(c->stats));
}

const char *rte_blkint_field_name(enum rte_blkint_field f)
{
	return (unsigned int)f < RTE_BLKINT_FIELD_MAX ? field_names[f] : NULL;
}

const char *blkint_ctx_name(const struct rte_blkint_ctx *c)
{
	return c->name;
}

const char *blkint_ctx_engine_kind(const struct rte_blkint_ctx *c)
{
	return c->dev ? c->dev->kind() : "cpu";
}
