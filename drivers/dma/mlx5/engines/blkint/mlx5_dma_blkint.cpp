/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5's rte_blkint engine module (rte_blkint_driver.h), registered for the
 * dma_mlx5 driver from a constructor: each op is one signature copy on a vchan the
 * context owns (rte_pmd_dma_mlx5_sig_copy), completed through rte_dma_completed_status()
 * in ring order; a DATA_POISION status is a failed verification whose details come from
 * rte_pmd_dma_mlx5_sig_error(). On a device without signature caps the module declines
 * (ENOTSUP) and the context runs on the CPU. Built as its own plugin
 * (librte_dma_mlx5_blkint.so, linking librte_blkint and the PMD) so that neither the
 * library nor the PMD depends on the other; see doc/guides/prog_guide/architecture.rst.
 */
#include <errno.h>
#include <stdio.h>

#include <new>

#include <rte_dev.h>
#include <rte_dmadev.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rte_blkint_driver.h"
#include "rte_pmd_dma_mlx5.h"

RTE_LOG_REGISTER_DEFAULT(mlx5_dma_blkint_logtype, INFO);
#define MLX5_DMA_BLKINT_LOG(level, fmt, ...)                                            \
	rte_log(RTE_LOG_##level, mlx5_dma_blkint_logtype, "dma_mlx5 blkint: " fmt "\n", \
		##__VA_ARGS__)

namespace {

struct mlx5_engine {
	int16_t dev;
	uint16_t vchan;
	struct rte_pmd_dma_mlx5_sig_caps caps;
	/* ops posted, in ring order (the vchan completes in order) */
	struct posted {
		uint32_t slot;
		bool crc; /* a guard error of a CRC source is RTE_BLKINT_FIELD_CRC */
	} *fifo = nullptr;
	uint32_t mask = 0, head = 0, tail = 0;
	enum rte_dma_status_code *st = nullptr;
	const struct rte_memseg_list *last_msl = nullptr; /* iova_of() */
	char dev_name[RTE_DEV_NAME_MAX_LEN] = "";         /* lost(): the id may be reused */

	~mlx5_engine()
	{
		rte_free(fifo);
		rte_free(st);
	}
	const char *lost() const;
	int submit(const struct rte_blkint_dev_job *job, uint32_t slot);
	void doorbell() { rte_dma_submit(dev, vchan); }
	uint16_t poll(struct rte_blkint_dev_done *done, uint16_t n);

	bool domain(const struct rte_blkint_format *f, uint32_t ref,
		    struct rte_pmd_dma_mlx5_sig_domain *d) const;
};

bool mlx5_engine::domain(const struct rte_blkint_format *f, uint32_t ref,
			 struct rte_pmd_dma_mlx5_sig_domain *d) const
{
	uint32_t check;

	switch (f->type) {
	case RTE_BLKINT_PI_T10DIF:
		d->type = f->guard == RTE_BLKINT_GUARD_IPCSUM ? RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM
							      : RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC;
		d->flags = (f->guard_seed ? RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES : 0) |
			   (f->flags & RTE_BLKINT_F_REF_INC ? RTE_PMD_DMA_MLX5_SIG_F_REF_INC : 0) |
			   (f->flags & RTE_BLKINT_F_APP_ESCAPE ? RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE
							       : 0) |
			   (f->flags & RTE_BLKINT_F_APP_REF_ESCAPE
				    ? RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE
				    : 0);
		d->app_tag = f->app_tag;
		d->ref_tag = ref;
		check = rte_blkint_dev_check_mask(f);
		d->check_mask = (uint8_t)((check & RTE_BLKINT_CHECK_GUARD ? 0xc0 : 0) |
					  (check & RTE_BLKINT_CHECK_APPTAG ? 0x30 : 0) |
					  (check & RTE_BLKINT_CHECK_REFTAG ? 0x0f : 0));
		if (!d->check_mask)
			return false; /* the device reads 0 as "every byte" */
		break;
	case RTE_BLKINT_PI_CRC32:
	case RTE_BLKINT_PI_CRC32C:
	case RTE_BLKINT_PI_CRC64:
		d->type = f->type == RTE_BLKINT_PI_CRC32    ? RTE_PMD_DMA_MLX5_SIG_CRC32
			  : f->type == RTE_BLKINT_PI_CRC32C ? RTE_PMD_DMA_MLX5_SIG_CRC32C
							    : RTE_PMD_DMA_MLX5_SIG_CRC64;
		d->flags = f->crc_seed ? RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES : 0;
		break;
	default:
		d->type = RTE_PMD_DMA_MLX5_SIG_NONE;
		break;
	}
	d->block_size = (uint16_t)f->block_size;
	return !(d->type != RTE_PMD_DMA_MLX5_SIG_NONE && !(caps.types & (1u << d->type)));
}

/**
 * IOVA of [p, p + len) when it is DPDK memory (the memory dma_mlx5 has registered),
 * else RTE_BAD_IOVA. A table walk, no system call (rte_mem_virt2iova may read pagemap);
 * in IOVA-as-VA mode the memseg list of the last lookup is tried first (@p last), as an
 * application's buffers mostly come from one.
 */
rte_iova_t iova_of(const void *p, uint32_t len, const struct rte_memseg_list **last)
{
	const struct rte_memseg_list *m = *last;
	struct rte_memseg_list *msl;
	struct rte_memseg *ms;
	uintptr_t a = (uintptr_t)p;

	if (m && a >= (uintptr_t)m->base_va && a - (uintptr_t)m->base_va < m->len)
		return (rte_iova_t)a; /* only ever set in IOVA-as-VA mode */
	msl = rte_mem_virt2memseg_list(p);
	if (!msl)
		return RTE_BAD_IOVA;
	if (rte_eal_iova_mode() == RTE_IOVA_VA) {
		*last = msl;
		return (rte_iova_t)a;
	}
	ms = rte_mem_virt2memseg(p, msl);
	if (!ms || ms->iova == RTE_BAD_IOVA || a + len > (uintptr_t)ms->addr + ms->len)
		return RTE_BAD_IOVA; /* across pages whose IOVAs need not follow each other */
	return ms->iova + (a - (uintptr_t)ms->addr);
}

int mlx5_engine::submit(const struct rte_blkint_dev_job *job, uint32_t slot)
{
	const struct rte_blkint_op *op = &job->op;
	bool plain_src = op->type == RTE_BLKINT_OP_INSERT;
	bool plain_dst = op->type == RTE_BLKINT_OP_STRIP;
	const struct rte_blkint_format *lay = plain_src ? &job->dst_fmt : &job->src_fmt;
	struct rte_pmd_dma_mlx5_sig_xfer x = {};
	struct rte_dma_sge s = {}, d = {};
	struct rte_blkint_format none = {};
	int ret;

	if (tail - head > mask ||
	    !(caps.block_sizes & rte_pmd_dma_mlx5_sig_block_size_bit(lay->block_size)))
		return tail - head > mask ? -ENOSPC : -ENOTSUP;
	none.block_size = lay->block_size;
	if (!domain(plain_src ? &none : &job->src_fmt, op->src_ref_tag, &x.src_dom) ||
	    !domain(plain_dst || op->type == RTE_BLKINT_OP_VERIFY ? &none : &job->dst_fmt,
		    op->dst_ref_tag, &x.dst_dom))
		return -ENOTSUP;
	s.length = plain_src ? lay->block_size * op->nb_blocks
			     : (uint32_t)rte_blkint_buf_len(&job->src_fmt, op->nb_blocks);
	x.src = &s;
	x.nb_src = 1;
	if (op->type == RTE_BLKINT_OP_VERIFY) {
		x.flags = RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY;
	} else {
		d.length = plain_dst ? lay->block_size * op->nb_blocks
				     : (uint32_t)rte_blkint_buf_len(&job->dst_fmt, op->nb_blocks);
		x.dst = &d;
		x.nb_dst = 1;
	}
	s.addr = iova_of(op->src, s.length, &last_msl);
	if (x.dst)
		d.addr = iova_of(op->dst, d.length, &last_msl);
	if (s.addr == RTE_BAD_IOVA || (x.dst && d.addr == RTE_BAD_IOVA))
		return -ENOTSUP; /* not DPDK memory: the device could not reach it */
	ret = rte_pmd_dma_mlx5_sig_copy(dev, vchan, &x, 0);
	if (ret == -ENOSPC)
		return -ENOSPC;
	if (ret < 0)
		return -ENOTSUP; /* unregistered memory, halted vchan: the CPU takes it */
	fifo[tail & mask].slot = slot;
	fifo[tail & mask].crc = !plain_src && job->src_fmt.type != RTE_BLKINT_PI_T10DIF;
	tail++;
	return 0;
}

/* A closed dmadev keeps no ops: its fast-path entries are DPDK's dummies from then on. */
const char *mlx5_engine::lost() const
{
	if (!rte_dma_is_valid(dev) || rte_dma_get_dev_id_by_name(dev_name) != dev)
		return "its dmadev was closed";
	return NULL;
}

enum rte_blkint_field field_of(bool crc, uint8_t kind)
{
	switch (kind) {
	case RTE_PMD_DMA_MLX5_SIG_ERR_GUARD:
		return crc ? RTE_BLKINT_FIELD_CRC : RTE_BLKINT_FIELD_GUARD;
	case RTE_PMD_DMA_MLX5_SIG_ERR_APPTAG:
		return RTE_BLKINT_FIELD_APPTAG;
	case RTE_PMD_DMA_MLX5_SIG_ERR_REFTAG:
		return RTE_BLKINT_FIELD_REFTAG;
	default:
		return RTE_BLKINT_FIELD_NONE;
	}
}

uint16_t mlx5_engine::poll(struct rte_blkint_dev_done *done, uint16_t n)
{
	uint16_t last = 0, k;
	uint32_t posted_ops = tail - head;

	/* Never more than this engine posted: a vchan set up again (or used by another
	 * owner) may report completions that are not ours, and the FIFO must not run past
	 * its tail (rte_blkint_free() would then free slots twice). */
	if (n > posted_ops)
		n = (uint16_t)posted_ops;
	if (n == 0)
		return 0;
	k = rte_dma_completed_status(dev, vchan, n, &last, st);
	for (uint16_t i = 0; i < k; i++) {
		struct rte_blkint_dev_done *d = &done[i];
		struct rte_pmd_dma_mlx5_sig_err e;
		uint16_t idx = (uint16_t)(last - (k - 1 - i));

		const posted &p = fifo[head++ & mask];

		d->slot = p.slot;
		d->error = {};
		if (st[i] == RTE_DMA_STATUS_SUCCESSFUL) {
			d->status = RTE_BLKINT_OK;
		} else if (st[i] == RTE_DMA_STATUS_DATA_POISION &&
			   rte_pmd_dma_mlx5_sig_error(dev, vchan, idx, &e) == 0) {
			d->status = RTE_BLKINT_ERR_PI;
			d->error.block = e.block;
			d->error.field = field_of(p.crc, e.kind);
			d->error.expected = e.expected;
			d->error.actual = e.actual;
		} else {
			d->status = RTE_BLKINT_ERR_ENGINE;
		}
	}
	return k;
}

void *engine_create(int16_t dev_id, uint16_t vchan, uint32_t depth)
{
	struct rte_pmd_dma_mlx5_sig_caps caps = {};
	struct rte_dma_info info;
	mlx5_engine *e;

	if (rte_dma_info_get(dev_id, &info) < 0 || vchan >= info.nb_vchans) {
		MLX5_DMA_BLKINT_LOG(ERR, "dmadev %d vchan %u: no such configured device/vchan",
				    dev_id, vchan);
		rte_errno = EINVAL;
		return NULL;
	}
	if (rte_pmd_dma_mlx5_sig_caps(dev_id, &caps) != 0 || !caps.enabled) {
		struct rte_pmd_dma_mlx5_caps dc = {};
		/* the device has the offload, the PMD did not turn it on: say which devarg */
		bool verbs = rte_pmd_dma_mlx5_get_caps(dev_id, &dc) == 0 && !dc.direct_path;

		MLX5_DMA_BLKINT_LOG(INFO,
				    "dmadev %d (%s): no signature offload%s; ops run on the CPU",
				    dev_id, info.dev_name,
				    !caps.types ? ""
				    : verbs ? " (probed with path=verbs: dma_mlx5 posts signature "
					      "copies on the direct path only)"
					    : " (probed without sig=1)");
		rte_errno = ENOTSUP;
		return NULL;
	}
	e = new (std::nothrow) mlx5_engine();
	if (!e) {
		rte_errno = ENOMEM;
		return NULL;
	}
	e->dev = dev_id;
	e->vchan = vchan;
	snprintf(e->dev_name, sizeof(e->dev_name), "%s", info.dev_name);
	e->caps = caps;
	e->mask = rte_align32pow2(depth) - 1;
	e->fifo = (mlx5_engine::posted *)rte_zmalloc("blkint", sizeof(*e->fifo) * (e->mask + 1), 0);
	e->st = (enum rte_dma_status_code *)rte_zmalloc("blkint", sizeof(*e->st) * (e->mask + 1),
							0);
	if (!e->fifo || !e->st) {
		delete e;
		rte_errno = ENOMEM;
		return NULL;
	}
	return e;
}

int engine_submit(void *e, const struct rte_blkint_dev_job *job, uint32_t slot)
{
	return ((mlx5_engine *)e)->submit(job, slot);
}

void engine_doorbell(void *e)
{
	((mlx5_engine *)e)->doorbell();
}

uint16_t engine_poll(void *e, struct rte_blkint_dev_done *done, uint16_t n)
{
	return ((mlx5_engine *)e)->poll(done, n);
}

const char *engine_lost(const void *e)
{
	return ((const mlx5_engine *)e)->lost();
}

void engine_destroy(void *e)
{
	delete (mlx5_engine *)e;
}

const struct rte_blkint_dev_ops engine_ops = {
	engine_submit, engine_doorbell, engine_poll, engine_lost, engine_destroy,
};

/* Constant-initialised: the constructor below may run before any C++ initialiser. */
const struct rte_blkint_dev_driver mlx5_dma_blkint_driver = {
	"dma_mlx5",
	"dma_mlx5",
	engine_create,
	&engine_ops,
};

} // namespace

RTE_INIT(mlx5_dma_blkint_register)
{
	int ret = rte_blkint_dev_driver_register(&mlx5_dma_blkint_driver);

	if (ret < 0)
		MLX5_DMA_BLKINT_LOG(ERR, "not registered with rte_blkint: %d", ret);
}

RTE_FINI(mlx5_dma_blkint_unregister)
{
	rte_blkint_dev_driver_unregister(&mlx5_dma_blkint_driver);
}
