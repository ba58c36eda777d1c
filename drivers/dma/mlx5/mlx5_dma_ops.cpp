/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_dma control operations of dma_mlx5. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_sig.h"

namespace {

struct mlx5_dma_dev *priv_of(const struct rte_dma_dev *dev)
{
	return (struct mlx5_dma_dev *)dev->data->dev_private;
}

int info_get(const struct rte_dma_dev *dev, struct rte_dma_info *info, uint32_t info_sz)
{
	const struct mlx5_dma_dev *p = priv_of(dev);

	if (info_sz < sizeof(*info))
		return -EINVAL;
	info->dev_capa = RTE_DMA_CAPA_MEM_TO_MEM | RTE_DMA_CAPA_HANDLES_ERRORS |
			 RTE_DMA_CAPA_OPS_COPY | RTE_DMA_CAPA_OPS_COPY_SG;
	if (p->sva)
		info->dev_capa |= RTE_DMA_CAPA_SVA;
	if (p->has_mkey)
		info->dev_capa |= RTE_DMA_CAPA_OPS_FILL;
	info->dev_capa |= mlx5_dma_enq_deq_capa(); /* DPDK 25.11 on */
	info->dev_capa |= mlx5_dma_domain_capa(p); /* DPDK 25.11 on */
	info->max_vchans = p->args.max_vchans;
	info->min_desc = (uint16_t)p->args.min_desc;
	info->max_desc = (uint16_t)RTE_MIN(p->args.max_desc, 32768u);
	info->max_sges = p->max_sges;
	return 0;
}

int configure(struct rte_dma_dev *dev, const struct rte_dma_conf *conf, uint32_t conf_sz)
{
	struct mlx5_dma_dev *p = priv_of(dev);

	if (conf_sz < sizeof(*conf))
		return -EINVAL;
	if (mlx5_dma_conf_silent(conf)) { /* not advertised: the library refuses it first */
		MLX5_DMA_LOG(ERR, "%s: silent mode not supported", p->name);
		return -EINVAL;
	}
	/* vchans beyond the new count are released; the others keep their set-up */
	for (uint16_t i = conf->nb_vchans; i < p->args.max_vchans; i++) {
		mlx5_dma_domain_vchan_release(p, i);
		mlx5_dma_vchan_destroy(&p->vchans[i]);
	}
	p->nb_vchans = conf->nb_vchans;
	p->enq_deq = mlx5_dma_conf_enq_deq(conf);
	for (uint16_t i = 0; i < p->nb_vchans; i++) {
		/* vchans kept from before: their op rings follow the new mode */
		int ret = p->vchans[i].configured ? mlx5_dma_enq_deq_setup(p, i) : 0;

		if (ret) { /* back to the plain API: no vchan left without its op ring */
			p->enq_deq = false;
			mlx5_dma_enq_deq_release(p);
			return ret;
		}
	}
	return 0;
}

int vchan_setup(struct rte_dma_dev *dev, uint16_t vchan, const struct rte_dma_vchan_conf *conf,
		uint32_t conf_sz)
{
	struct mlx5_dma_dev *p = priv_of(dev);
	struct mlx5_dma_vchan_domain dom = mlx5_dma_conf_domain(conf);
	int ret;

	if (conf_sz < sizeof(*conf))
		return -EINVAL;
	if (conf->direction != RTE_DMA_DIR_MEM_TO_MEM) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: direction %d not supported", p->name, vchan,
			     conf->direction);
		return -EINVAL;
	}
	mlx5_dma_vchan_destroy(&p->vchans[vchan]);
	ret = mlx5_dma_vchan_create(p, &p->vchans[vchan], vchan, conf->nb_desc);
	p->vchans[vchan].stopped = true; /* set up on a stopped device (rte_dma checks) */
	if (!ret) {
		ret = mlx5_dma_enq_deq_setup(p, vchan);
		if (ret) /* not left set up without its op ring */
			mlx5_dma_vchan_destroy(&p->vchans[vchan]);
	}
	/* a peer process's domain: its ops go to a remote channel (the vchan's queues
	 * stay, idle, for what start and stop expect of every vchan) */
	if (!ret) {
		ret = mlx5_dma_domain_vchan_setup(p, dev->data->dev_id, vchan, &dom, conf->nb_desc);
		if (ret)
			mlx5_dma_vchan_destroy(&p->vchans[vchan]);
	}
	return ret;
}

int start(struct rte_dma_dev *dev)
{
	struct mlx5_dma_dev *p = priv_of(dev);

	for (uint16_t i = 0; i < p->nb_vchans; i++) {
		if (!p->vchans[i].configured) {
			MLX5_DMA_LOG(ERR, "%s: vchan %u is not set up", p->name, i);
			return -EINVAL;
		}
	}
	/* ring indices restart at 0 after stop/start, as rte_dmadev.h documents */
	for (uint16_t i = 0; i < p->nb_vchans; i++) {
		int ret = mlx5_dma_vchan_restart(&p->vchans[i]);

		if (ret)
			return ret;
	}
	for (uint16_t i = 0; i < p->nb_vchans; i++)
		p->vchans[i].stopped = false;
	mlx5_dma_fp_set(dev->fp_obj, p, true);
	p->stopped = false;
	mlx5_dma_progress_start(p);
	return 0;
}

/* How long rte_dma_stop() lets the device finish the ops already submitted. */
#define MLX5_DMA_STOP_WAIT_MS 1000

/*
 * Stop one vchan (see the guide, "Stopping a device"): the device gets until @p deadline
 * (TSC) to finish what was submitted; then its QP goes to RESET, after which the device
 * executes none of its WQEs. What was enqueued and is not known complete (never
 * submitted, or still running then) completes as RTE_DMA_STATUS_USER_ABORT, reported by
 * the stopped device's completed()/completed_status() entries. Returns those ops.
 */
uint16_t stop_vchan(struct mlx5_dma_vchan *vc, uint64_t deadline)
{
	const struct mlx5_glue *glue = vc->dev->glue;
	struct ibv_qp_attr attr = {};
	uint32_t idle = 0;
	uint16_t aborted = 0;

	/* one poll at least: what completed is reported as such, bound spent or not */
	while (vc->done_upto != vc->submitted_idx && !vc->dead) {
		uint16_t before = vc->done_upto;

		if (vc->path == MLX5_DMA_PATH_DIRECT)
			mlx5_dma_poll_cq_direct(vc); /* errors recover as usual meanwhile */
		else
			mlx5_dma_poll_cq_verbs(vc);
		if (vc->done_upto == vc->submitted_idx || rte_get_timer_cycles() >= deadline)
			break;
		if (vc->done_upto == before && ++idle % 1024 == 0)
			mlx5_dma_idle_check(vc); /* a lost CQ, a signature stop */
		rte_pause();
	}
	if (vc->batch_open)
		ibv_wr_abort(vc->qpx); /* unsubmitted: never reaches the device */
	vc->batch_open = false;
	attr.qp_state = IBV_QPS_RESET;
	if (glue->modify_qp(vc->qp, &attr, IBV_QP_STATE))
		MLX5_DMA_LOG(ERR, "%s vchan %u: QP %#x to RESET: %s", vc->dev->name, vc->vchan_id,
			     vc->qp->qp_num, strerror(errno));
	if (vc->path == MLX5_DMA_PATH_DIRECT)
		mlx5_dma_cq_skip_all(vc); /* libmlx5 cleans the CQ itself on the verbs path */
	for (uint16_t i = vc->done_upto; i != vc->ring_idx; i++) {
		uint16_t *st = &vc->op_status[i & vc->sq_mask];

		if (!*st)
			*st = RTE_DMA_STATUS_USER_ABORT;
		vc->err_pending++;
		aborted++;
	}
	vc->stats.submitted += (uint16_t)(vc->ring_idx - vc->submitted_idx);
	vc->submitted_idx = vc->done_upto = vc->ring_idx;
	vc->db_pi = vc->bb_ci = vc->pi;
	vc->multi_valid = false;
	vc->credits = 0;
	vc->stopped = true;
	return aborted;
}

int stop(struct rte_dma_dev *dev)
{
	struct mlx5_dma_dev *p = priv_of(dev);
	uint64_t deadline = rte_get_timer_cycles() +
			    rte_get_timer_hz() * MLX5_DMA_STOP_WAIT_MS / 1000;

	/* first: from here on no op is taken, whatever the wait below finds */
	mlx5_dma_fp_set(dev->fp_obj, p, false);
	p->stopped = true;
	for (uint16_t i = 0; i < p->nb_vchans; i++) {
		struct mlx5_dma_vchan *vc = &p->vchans[i];
		uint16_t unsubmitted, aborted;

		if (!vc->configured || vc->stopped)
			continue;
		unsubmitted = (uint16_t)(vc->ring_idx - vc->submitted_idx);
		aborted = stop_vchan(vc, deadline);
		if (aborted > unsubmitted)
			MLX5_DMA_LOG(WARNING,
				     "%s vchan %u: %u submitted ops not complete %u ms after stop: "
				     "aborted (USER_ABORT), their destinations undefined",
				     p->name, i, aborted - unsubmitted, MLX5_DMA_STOP_WAIT_MS);
	}
	return 0;
}

int close_dev(struct rte_dma_dev *dev)
{
	struct mlx5_dma_dev *p = priv_of(dev);

	mlx5_dma_progress_teardown(p); /* no pass may run over QPs being destroyed */
	mlx5_dma_domain_release(p, dev->data->dev_id); /* before the remote state goes */
	for (uint16_t i = 0; i < p->args.max_vchans; i++)
		mlx5_dma_vchan_destroy(&p->vchans[i]);
	mlx5_dma_dev_release(p);
	return 0;
}

void add_stats(struct rte_dma_stats *s, const struct mlx5_dma_vchan *vc)
{
	s->submitted += vc->stats.submitted;
	s->completed += vc->stats.completed;
	s->errors += vc->stats.errors;
}

int stats_get(const struct rte_dma_dev *dev, uint16_t vchan, struct rte_dma_stats *stats,
	      uint32_t stats_sz)
{
	const struct mlx5_dma_dev *p = priv_of(dev);

	if (stats_sz < sizeof(*stats))
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	/* a peer's domain: its remote channel counts, not the vchan's idle QP */
	for (uint16_t i = 0; i < p->nb_vchans; i++)
		if ((vchan == RTE_DMA_ALL_VCHAN || vchan == i) &&
		    !mlx5_dma_domain_vchan_stats(p, i, stats))
			add_stats(stats, &p->vchans[i]);
	return 0;
}

int stats_reset(struct rte_dma_dev *dev, uint16_t vchan)
{
	struct mlx5_dma_dev *p = priv_of(dev);

	for (uint16_t i = 0; i < p->nb_vchans; i++)
		if (vchan == RTE_DMA_ALL_VCHAN || vchan == i)
			memset(&p->vchans[i].stats, 0, sizeof(p->vchans[i].stats));
	return 0;
}

/* Peeks at the CQ, so that IDLE means the data has landed. */
int vchan_status(const struct rte_dma_dev *dev, uint16_t vchan, enum rte_dma_vchan_status *st)
{
	struct mlx5_dma_vchan *vc = &priv_of(dev)->vchans[vchan];

	if (mlx5_dma_domain_vchan_status(priv_of(dev), vchan, st))
		return 0;
	if (vc->done_upto != vc->submitted_idx) {
		if (vc->path == MLX5_DMA_PATH_DIRECT)
			mlx5_dma_poll_cq_direct(vc);
		else
			mlx5_dma_poll_cq_verbs(vc);
	}
	if (unlikely(vc->dead))
		*st = RTE_DMA_VCHAN_HALTED_ERROR;
	else
		*st = vc->done_upto == vc->submitted_idx ? RTE_DMA_VCHAN_IDLE
							 : RTE_DMA_VCHAN_ACTIVE;
	return 0;
}

int dump(const struct rte_dma_dev *dev, FILE *f)
{
	const struct mlx5_dma_dev *p = priv_of(dev);

	fprintf(f,
		"  dma_mlx5: device %s (%s backend), posting path %s, max memcpy %" PRIu64
		", %u MRs%s, copy keys %s\n",
		p->glue->get_device_name(p->device), p->glue->name,
		p->args.path == MLX5_DMA_PATH_DIRECT ? "direct" : "verbs", p->max_wr_memcpy_length,
		mlx5_dma_mr_count(p->mrs), p->sva ? " (SVA)" : "",
		p->sva ? "whole-memory" : "checked");
	for (uint16_t i = 0; i < p->nb_vchans; i++) {
		const struct mlx5_dma_vchan *vc = &p->vchans[i];
		struct ibv_qp_attr attr = {};
		struct ibv_qp_init_attr init = {};

		if (!vc->configured) {
			fprintf(f, "  vchan %u: not set up\n", i);
			continue;
		}
		p->glue->query_qp(vc->qp, &attr, IBV_QP_STATE, &init);
		fprintf(f,
			"  vchan %u: QP %#x state %d, SQ %u WQEBBs pi %u db_pi %u bb_ci %u "
			"(%u in use), CQ %u CQEs ci %u\n",
			i, vc->qp->qp_num, attr.qp_state, vc->sq_mask + 1, vc->pi, vc->db_pi,
			vc->bb_ci, vc->pi - vc->bb_ci, vc->cq_mask + 1, vc->cq_ci);
		fprintf(f,
			"    ring_idx %u submitted %u done %u reported %u, errors pending %u, "
			"recoveries %" PRIu64 ", batch failures %" PRIu64 "\n",
			vc->ring_idx, vc->submitted_idx, vc->done_upto, vc->reported,
			vc->err_pending, vc->stats.recoveries, vc->stats.batch_failures);
		if (vc->last_err.valid)
			fprintf(f, "    last error: op %u syndrome %#x vendor %#x wqe opcode %#x\n",
				vc->last_err.ring_idx, vc->last_err.syndrome,
				vc->last_err.vendor_syndrome, vc->last_err.wqe_opcode);
		if (vc->sig)
			fprintf(f,
				"    signature: %u failed verifications, %" PRIu64
				" SQD resumes, %" PRIu64 " responses withdrawn%s\n",
				vc->sig->nb_errs, vc->sig->drains, vc->sig->cancels,
				vc->sig->drain_pending ? ", SQ draining" : "");
	}
	return 0;
}

} // namespace

/* one entry list, DPDK 25.11's access pair group entries appended */
/* clang-format off */
const struct rte_dma_dev_ops mlx5_dma_dev_ops = {
	info_get,    configure, start,       stop,         close_dev,
	vchan_setup, stats_get, stats_reset, vchan_status, dump
	MLX5_DMA_SDK_GROUP_OPS(mlx5_dma_group_create, mlx5_dma_group_destroy, mlx5_dma_group_join,
			       mlx5_dma_group_leave, mlx5_dma_group_handler_get)
};
/* clang-format on */
