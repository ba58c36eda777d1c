/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote copies over DC transport (rte_pmd_dma_mlx5.h, "remote"): DC targets a
 * device offers to other hosts, and remote channels, one DCI each, with a DCI stream
 * per peer.
 *
 * Every op is signaled, so each has its own completion: success, its failure, or a
 * flush. A failure puts the op's stream in error on the device: its status is
 * recorded, the stream is reset, and the stream's ops the device flushed meanwhile
 * are posted again, once: flushed again by their own peer's next failure they end
 * NOT_ATTEMPTED (the peer keeps failing; the work per failing op stays bounded). When
 * too many streams failed at once the DCI itself enters ERR: once every posted op has
 * completed or been flushed, it is reset and the ops it flushed are posted again
 * (healthy peers' ops as often as that happens). Ops are reported in ring order,
 * whatever order they completed in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <mutex>
#include <new>
#include <vector>

#include <rte_dmadev.h>
#include <rte_errno.h>

#include "mlx5_dma.h"
#include "mlx5_qp_state.h"
#include "rte_pmd_dma_mlx5.h"

/*
 * What a DCT lets its requests do: every op a remote key may grant. The key decides
 * the range and which of them, so a request needs both (a DCT has no local ops:
 * LOCAL_WRITE would mean nothing).
 */
#define MLX5_DMA_REMOTE_TARGET_ACCESS \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define MLX5_DMA_REMOTE_KEY_ACCESS_ALL                                                \
	(RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ | RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE | \
	 RTE_PMD_DMA_MLX5_REMOTE_ACCESS_ATOMIC)
#define MLX5_DMA_REMOTE_MIN_DESC 32
#define MLX5_DMA_REMOTE_MAX_DESC 4096
#define MLX5_DMA_REMOTE_MAX_LEN (1u << 31)
/* DCI streams asked for (log2), when the device has more */
#define MLX5_DMA_REMOTE_LOG_STREAMS 4
/* polls of the CQ a channel's free waits for its ops at most */
#define MLX5_DMA_REMOTE_FREE_WAIT_POLLS (1 << 20)

namespace {

/** A DC target of the device: its DCT with the SRQ and CQ a DCT needs. */
struct remote_target {
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq;
	struct ibv_qp *dct;
	uint64_t dc_key; /**< what a listener may publish of it */
	uint16_t lid;
};

enum remote_slot_state : uint8_t {
	SLOT_FREE,   /**< no op, or reported */
	SLOT_POSTED, /**< on the DCI, no completion yet */
	SLOT_REDO,   /**< flushed: to be posted again */
	SLOT_DONE,   /**< completed (status holds the outcome) */
};

/** One op of the ring: what to post again after a flush, and how it ended. */
struct remote_slot {
	uint64_t local;
	uint64_t raddr;
	uint32_t len;
	uint32_t lkey;
	uint16_t peer;
	bool read;
	uint8_t state;
	uint16_t status;        /**< enum rte_dma_status_code */
	uint8_t stream_flushes; /**< times its peer's failed stream flushed it */
};

struct remote_peer {
	struct ibv_ah *ah;
	uint32_t dctn;
	uint64_t key;
	uint32_t rkey;
	bool errored; /**< its stream failed and was not reset yet */
};

} // namespace

/** A remote channel. */
struct rte_pmd_dma_mlx5_remote {
	struct mlx5_dma_dev *dev;
	struct ibv_cq_ex *cq;
	struct ibv_qp *dci;
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dv;
	struct mlx5_dma_mr_cache mr_cache;
	struct mlx5_dma_remote_fill *fill; /**< pattern sources, NULL: no indirect mkeys */
	std::vector<struct remote_slot> slots;
	std::vector<struct remote_peer> peers;
	uint16_t mask;
	uint16_t ring_idx; /**< next op */
	uint16_t reported; /**< next op to report */
	uint32_t posted;   /**< ops on the DCI without a completion */
	bool batch_open;
	bool repair;     /**< a failure or a flush was seen: streams, DCI, ops to post again */
	bool dci_failed; /**< the DCI entered ERR: reset it once nothing is posted */
	struct rte_pmd_dma_mlx5_remote_stats stats;
};

/** A DC target and a remote key published at an address (rdma-cm). */
struct rte_pmd_dma_mlx5_remote_listener {
	struct mlx5_dma_dev *dev;
	struct mlx5_glue_cm_listener *cm;
	uint32_t qpn; /**< reserved on the device: the connections' QPN */
	uint32_t rkey;
	char addr[24]; /**< as given, for logs */
	/* the listener thread's log budget (cm_note()): its lines are what peers make it
	 * say, so a peer must not flood the log */
	uint64_t note_window_ns;   /**< start of the current window */
	unsigned int note_lines;   /**< lines logged in it */
	unsigned int note_dropped; /**< lines suppressed since the last one logged */
};

/** What a device keeps for remote copies, freed with it. */
struct mlx5_dma_remote_state {
	std::vector<struct remote_target> targets;
	std::vector<struct rte_pmd_dma_mlx5_remote *> channels;
	/* remote keys: an MR each, exactly the range exposed (control path, any thread);
	 * the listeners publishing them, under the same lock */
	std::mutex keys_lock;
	std::vector<struct ibv_mr *> keys;
	std::vector<struct rte_pmd_dma_mlx5_remote_listener *> listeners;
};

namespace {

/* creates a device's remote state once, whichever thread asks first */
std::mutex state_lock;

struct mlx5_dma_remote_state *state_of(struct mlx5_dma_dev *p)
{
	std::lock_guard<std::mutex> guard(state_lock);

	if (!p->remote)
		p->remote = new (std::nothrow) mlx5_dma_remote_state();
	return p->remote;
}

/** The device's DCI stream caps: 0 (no streams) when the device reports none. */
void dci_stream_caps(struct mlx5_dma_dev *p, uint8_t *log_streams, uint8_t *log_errored)
{
	struct mlx5dv_context c = {};

	c.comp_mask = MLX5DV_CONTEXT_MASK_DCI_STREAMS;
	*log_streams = *log_errored = 0;
	if (p->glue->dv_query_device(p->ctx, &c) == 0 &&
	    (c.comp_mask & MLX5DV_CONTEXT_MASK_DCI_STREAMS)) {
		*log_streams = RTE_MIN(c.dci_streams_caps.max_log_num_concurent,
				       MLX5_DMA_REMOTE_LOG_STREAMS);
		*log_errored = c.dci_streams_caps.max_log_num_errored;
	}
}

void target_destroy(const struct mlx5_glue *g, struct remote_target &t)
{
	if (t.dct)
		g->destroy_qp(t.dct);
	if (t.srq)
		g->destroy_srq(t.srq);
	if (t.cq)
		g->destroy_cq(ibv_cq_ex_to_cq(t.cq));
}

void channel_destroy(struct rte_pmd_dma_mlx5_remote *ch)
{
	const struct mlx5_glue *g = ch->dev->glue;

	if (ch->batch_open)
		ibv_wr_abort(ch->qpx);
	if (ch->dci)
		g->destroy_qp(ch->dci);
	for (struct remote_peer &p : ch->peers)
		g->destroy_ah(p.ah);
	if (ch->cq)
		g->destroy_cq(ibv_cq_ex_to_cq(ch->cq));
	mlx5_dma_remote_fill_destroy(ch->dev, ch->fill);
	delete ch;
}

/** Build the op of slot @p idx into the open batch (verbs builders: rdma-core's). */
void build(struct rte_pmd_dma_mlx5_remote *ch, uint16_t idx)
{
	struct remote_slot &s = ch->slots[idx & ch->mask];
	const struct remote_peer &p = ch->peers[s.peer];

	if (!ch->batch_open) {
		ibv_wr_start(ch->qpx);
		ch->batch_open = true;
	}
	ch->qpx->wr_id = idx;
	ch->qpx->wr_flags = IBV_SEND_SIGNALED; /* every op's own outcome is needed */
	if (s.read)
		ibv_wr_rdma_read(ch->qpx, p.rkey, s.raddr);
	else
		ibv_wr_rdma_write(ch->qpx, p.rkey, s.raddr);
	/* one stream per peer: a failing peer stops only its own ops */
	mlx5dv_wr_set_dc_addr_stream(ch->dv, p.ah, p.dctn, p.key, s.peer);
	ibv_wr_set_sge(ch->qpx, s.lkey, s.local, s.len);
	s.state = SLOT_POSTED;
	ch->posted++;
}

void submit(struct rte_pmd_dma_mlx5_remote *ch)
{
	if (!ch->batch_open)
		return;
	ch->batch_open = false;
	/* ring room and lengths are checked at enqueue: a refusal is a bug, counted */
	if (ibv_wr_complete(ch->qpx))
		MLX5_DMA_LOG(ERR, "remote channel: ibv_wr_complete failed");
}

/**
 * Whether an op of @p len bytes to @p peer may be enqueued: 0, -EINVAL, -EPERM (the
 * device was stopped: remote channels refuse new ops as its vchans do) or -ENOSPC.
 */
int admit(const struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer, uint32_t len, const char *what)
{
	if (!ch)
		return -EINVAL;
	if (unlikely(ch->dev->stopped))
		return -EPERM;
	if (peer >= ch->peers.size() || len == 0 || len > MLX5_DMA_REMOTE_MAX_LEN) {
		MLX5_DMA_LOG(ERR, "remote %s: bad %s %u", what,
			     peer >= ch->peers.size() ? "peer" : "length",
			     peer >= ch->peers.size() ? (uint32_t)peer : len);
		return -EINVAL;
	}
	if ((uint16_t)(ch->ring_idx - ch->reported) > ch->mask)
		return -ENOSPC;
	return 0;
}

/** Post the admitted op @p s as the next of the ring; its ring index. */
int post(struct rte_pmd_dma_mlx5_remote *ch, const struct remote_slot &s, uint64_t flags)
{
	uint16_t idx = ch->ring_idx++;

	ch->slots[idx & ch->mask] = s;
	build(ch, idx);
	ch->stats.submitted++;
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		submit(ch);
	return idx;
}

int enqueue(struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer, bool read, uint64_t local,
	    uint64_t raddr, uint32_t len, uint64_t flags)
{
	int ret = admit(ch, peer, len, read ? "read" : "write");

	if (ret)
		return ret;
	mlx5_dma_mr_cache_check(&ch->mr_cache);
	const struct mlx5_dma_mr_range *r = mlx5_dma_mr_lookup(&ch->mr_cache, (uintptr_t)local,
							       len);
	if (!r) {
		MLX5_DMA_LOG(ERR, "remote %s: local memory %#" PRIx64 " + %u is not registered",
			     read ? "read" : "write", local, len);
		return -EINVAL;
	}
	return post(ch, remote_slot{local, raddr, len, r->lkey, peer, read, SLOT_FREE, 0, 0},
		    flags);
}

/** Reset the DCI and give every peer's stream a clean start (nothing is posted). */
int recover_dci(struct rte_pmd_dma_mlx5_remote *ch)
{
	if (ch->batch_open) {
		ibv_wr_abort(ch->qpx);
		ch->batch_open = false;
	}
	if (mlx5_qp_connect_dci(ch->dev->glue, ch->dci, 1)) {
		MLX5_DMA_LOG(ERR, "%s: remote channel: DCI %#x not recovered", ch->dev->name,
			     ch->dci->qp_num);
		return -EIO;
	}
	for (struct remote_peer &p : ch->peers)
		p.errored = false;
	ch->dci_failed = false;
	ch->stats.dci_recoveries++;
	return 0;
}

/** Take the completions the CQ holds. */
void poll_cq(struct rte_pmd_dma_mlx5_remote *ch)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cq = ch->cq;

	if (ibv_start_poll(cq, &attr))
		return;
	do {
		struct remote_slot &s = ch->slots[(uint16_t)cq->wr_id & ch->mask];
		enum ibv_wc_status st = cq->status;

		ch->posted--;
		if (st == IBV_WC_SUCCESS) {
			s.state = SLOT_DONE;
			s.status = RTE_DMA_STATUS_SUCCESSFUL;
		} else if (st == IBV_WC_WR_FLUSH_ERR) {
			/*
			 * Its stream (or the DCI) failed before it ran: it is posted again,
			 * once for its own peer's failures (a second one ends it: the peer
			 * is failing), as often as needed for the DCI's (other peers').
			 */
			ch->repair = true;
			if (ch->peers[s.peer].errored && ++s.stream_flushes > 1) {
				s.state = SLOT_DONE;
				s.status = RTE_DMA_STATUS_NOT_ATTEMPTED;
			} else {
				s.state = SLOT_REDO;
			}
		} else {
			s.state = SLOT_DONE;
			s.status = mlx5_dma_status_of_wc(st);
			ch->peers[s.peer].errored = true;
			ch->repair = true;
		}
	} while (ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
}

/** After failures: reset streams (or the DCI) and post the flushed ops again. */
void repair_after_failures(struct rte_pmd_dma_mlx5_remote *ch)
{
	const struct mlx5_glue *g = ch->dev->glue;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	bool any_redo = false;

	/* too many streams in error at once, or no streams: the DCI itself failed */
	if (!ch->dci_failed && g->query_qp(ch->dci, &qa, IBV_QP_STATE, &qi) == 0 &&
	    qa.qp_state == IBV_QPS_ERR)
		ch->dci_failed = true;
	if (ch->dci_failed) {
		if (ch->posted)
			return; /* every posted op must report first: the reset drops CQEs */
		if (recover_dci(ch))
			return; /* tried again at the next completed() */
	}
	for (uint16_t i = 0; i < ch->peers.size(); i++) {
		struct remote_peer &p = ch->peers[i];
		if (!p.errored)
			continue;
		/* EINVAL: the stream is not in error (the DCI was reset meanwhile) */
		int ret = g->dv_dci_stream_id_reset(ch->dci, i);
		if (ret && ret != EINVAL)
			return; /* tried again at the next completed() */
		p.errored = false;
		ch->stats.stream_resets += ret == 0;
	}
	ch->repair = false;
	for (uint16_t idx = ch->reported; idx != ch->ring_idx; idx++) {
		struct remote_slot &s = ch->slots[idx & ch->mask];
		if (s.state != SLOT_REDO || ch->peers[s.peer].errored)
			continue;
		build(ch, idx);
		ch->stats.reposted++;
		any_redo = true;
	}
	if (any_redo)
		submit(ch);
}

} // namespace

void mlx5_dma_remote_release(struct mlx5_dma_dev *p)
{
	if (!p->remote)
		return;
	while (!p->remote->listeners.empty()) {
		MLX5_DMA_LOG(WARNING,
			     "%s: remote listener at %s not closed before close: closed now",
			     p->name, p->remote->listeners.back()->addr);
		rte_pmd_dma_mlx5_remote_listen_close(p->remote->listeners.back());
	}
	for (struct rte_pmd_dma_mlx5_remote *ch : p->remote->channels) {
		MLX5_DMA_LOG(WARNING, "%s: remote channel not freed before close: freed now",
			     p->name);
		channel_destroy(ch);
	}
	for (struct remote_target &t : p->remote->targets)
		target_destroy(p->glue, t);
	/* keys not released by the application: the device goes, so do they */
	for (struct ibv_mr *mr : p->remote->keys)
		p->glue->dereg_mr(mr);
	delete p->remote;
	p->remote = NULL;
}

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_remote_target_create(int16_t dev_id, uint64_t dc_key,
				      struct rte_pmd_dma_mlx5_remote_target *out)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_srq_init_attr sa = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_port_attr port;
	struct remote_target t = {};
	int ret = -ENOMEM;

	if (!p || !out)
		return -EINVAL;
	struct mlx5_dma_remote_state *st = state_of(p);
	if (!st)
		return -ENOMEM;
	ca.cqe = 16; /* RDMA writes and reads leave no completion at the target */
	t.cq = p->glue->create_cq_ex(p->ctx, &ca);
	sa.attr.max_wr = 1;
	sa.attr.max_sge = 1;
	t.srq = t.cq ? p->glue->create_srq(p->pd, &sa) : NULL;
	if (!t.srq)
		goto err;
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(t.cq);
	qa.srq = t.srq;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = p->pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = dc_key;
	t.dct = p->glue->dv_create_qp(p->ctx, &qa, &dv);
	if (!t.dct) {
		ret = errno == EOPNOTSUPP ? -ENOTSUP : -ENOMEM;
		goto err;
	}
	if (mlx5_qp_connect_dct(p->glue, t.dct, MLX5_DMA_REMOTE_TARGET_ACCESS) ||
	    p->glue->query_port(p->ctx, 1, &port)) {
		ret = -EIO;
		goto err;
	}
	try {
		st->targets.push_back(t);
	} catch (...) {
		goto err;
	}
	st->targets.back().dc_key = dc_key;
	st->targets.back().lid = port.lid;
	out->lid = port.lid;
	out->dctn = t.dct->qp_num;
	out->dc_key = dc_key;
	return 0;
err:
	MLX5_DMA_LOG(ERR, "%s: DC target not created: %s", p->name, strerror(-ret));
	target_destroy(p->glue, t);
	return ret;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_data_in_order(int16_t dev_id, uint32_t dctn)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);

	if (!p)
		return -EINVAL;
	for (size_t i = 0; p->remote && i < p->remote->targets.size(); i++) {
		const struct remote_target &t = p->remote->targets[i];
		if (t.dct->qp_num != dctn)
			continue;
		int caps = p->glue->query_qp_data_in_order(t.dct, IBV_WR_RDMA_WRITE,
							   MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS);
		int out = 0;
		if (caps & MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG)
			out |= RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_WHOLE_MSG;
		if (caps & MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES)
			out |= RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_ALIGNED_128;
		return out;
	}
	MLX5_DMA_LOG(ERR, "%s: data in order: %u is not a DC target of this device", p->name, dctn);
	return -ENOENT;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_rkey_access(int16_t dev_id, const void *addr,
							size_t len, uint32_t access, uint32_t *rkey)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	struct ibv_mr *mr;
	int ibv_access = 0;

	if (!p) {
		MLX5_DMA_LOG(ERR, "remote key: %d is not a dma_mlx5 device", dev_id);
		return -EINVAL;
	}
	if (!addr || !len || (uintptr_t)addr + len < (uintptr_t)addr || !rkey) {
		MLX5_DMA_LOG(ERR, "%s: remote key: bad range %p + %zu%s", p->name, addr, len,
			     rkey ? "" : " (no place for the key)");
		return -EINVAL;
	}
	if (!access || (access & ~MLX5_DMA_REMOTE_KEY_ACCESS_ALL)) {
		MLX5_DMA_LOG(ERR, "%s: remote key: bad access %#x", p->name, access);
		return -EINVAL;
	}
	if (access & RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ)
		ibv_access |= IBV_ACCESS_REMOTE_READ;
	/* verbs: remote write and atomics need local write on the MR too */
	if (access & RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE)
		ibv_access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (access & RTE_PMD_DMA_MLX5_REMOTE_ACCESS_ATOMIC)
		ibv_access |= IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE;
	struct mlx5_dma_remote_state *st = state_of(p);
	if (!st)
		return -ENOMEM;
	std::lock_guard<std::mutex> guard(st->keys_lock);
	try {
		st->keys.reserve(st->keys.size() + 1);
	} catch (...) {
		return -ENOMEM;
	}
	/* an MR of its own: the device checks every remote access against exactly this
	 * range and these rights (the registry's MRs are larger and local only) */
	mr = p->glue->reg_mr(p->pd, (void *)(uintptr_t)addr, len, ibv_access);
	if (!mr) {
		int ret = mlx5_dma_neg_errno(ENOMEM);

		MLX5_DMA_LOG(ERR, "%s: remote key: cannot register %p + %zu: %s", p->name, addr,
			     len, strerror(-ret));
		return ret;
	}
	st->keys.push_back(mr); /* reserved above: does not throw */
	*rkey = mr->rkey;
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_rkey(int16_t dev_id, const void *addr, uint32_t len,
						 uint32_t *rkey)
{
	return rte_pmd_dma_mlx5_remote_rkey_access(
		dev_id, addr, len,
		RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ | RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE, rkey);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_rkey_release(int16_t dev_id, uint32_t rkey)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);

	if (!p) {
		MLX5_DMA_LOG(ERR, "remote key: %d is not a dma_mlx5 device", dev_id);
		return -EINVAL;
	}
	struct mlx5_dma_remote_state *st = state_of(p);
	if (!st)
		return -ENOMEM;
	std::lock_guard<std::mutex> guard(st->keys_lock);
	for (const struct rte_pmd_dma_mlx5_remote_listener *l : st->listeners)
		if (l->rkey == rkey) {
			/* peers fetching it there would be handed a dead key */
			MLX5_DMA_LOG(ERR, "%s: remote key %#x is published at %s: close that first",
				     p->name, rkey, l->addr);
			return -EBUSY;
		}
	for (size_t i = 0; i < st->keys.size(); i++) {
		struct ibv_mr *mr = st->keys[i];

		if (mr->rkey != rkey)
			continue;
		int ret = p->glue->dereg_mr(mr);
		if (ret) {
			/* still registered: the key stays on the list, released at close */
			MLX5_DMA_LOG(ERR, "%s: remote key %#x not released: %s", p->name, rkey,
				     strerror(ret > 0 ? ret : -ret));
			return ret > 0 ? -ret : ret;
		}
		st->keys.erase(st->keys.begin() + (long)i);
		return 0;
	}
	MLX5_DMA_LOG(ERR, "%s: remote key %#x is not a key of this device", p->name, rkey);
	return -ENOENT;
}

MLX5_DMA_EXPORT struct rte_pmd_dma_mlx5_remote *rte_pmd_dma_mlx5_remote_create(int16_t dev_id,
									       uint16_t nb_desc)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct rte_pmd_dma_mlx5_remote *ch = NULL;
	uint8_t log_streams, log_errored;
	int err = ENOMEM;

	if (!p || nb_desc < MLX5_DMA_REMOTE_MIN_DESC || nb_desc > MLX5_DMA_REMOTE_MAX_DESC ||
	    (nb_desc & (nb_desc - 1))) {
		if (p)
			MLX5_DMA_LOG(ERR, "%s: remote channel: bad nb_desc %u", p->name, nb_desc);
		rte_errno = EINVAL;
		return NULL;
	}
	struct mlx5_dma_remote_state *st = state_of(p);
	ch = st ? new (std::nothrow) rte_pmd_dma_mlx5_remote() : NULL;
	if (!ch)
		goto err;
	ch->dev = p;
	ch->mask = (uint16_t)(nb_desc - 1);
	try {
		ch->slots.resize(nb_desc);
		ch->peers.reserve(16);
	} catch (...) {
		goto err;
	}
	ca.cqe = nb_desc; /* one completion per op in flight */
	ch->cq = p->glue->create_cq_ex(p->ctx, &ca);
	if (!ch->cq)
		goto err;
	dci_stream_caps(p, &log_streams, &log_errored);
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(ch->cq);
	qa.cap.max_send_wr = nb_desc;
	qa.cap.max_send_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = p->pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	if (log_errored) {
		dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
		dv.dc_init_attr.dci_streams.log_num_concurent = log_streams;
		dv.dc_init_attr.dci_streams.log_num_errored = log_errored;
	}
	ch->dci = p->glue->dv_create_qp(p->ctx, &qa, &dv);
	if (!ch->dci) {
		err = errno == EOPNOTSUPP ? ENOTSUP : errno ? errno : ENOMEM;
		goto err;
	}
	ch->qpx = p->glue->qp_to_qp_ex(ch->dci);
	ch->dv = ch->qpx ? p->glue->dv_qp_ex_from_ibv_qp_ex(ch->qpx) : NULL;
	if (!ch->dv || mlx5_qp_connect_dci(p->glue, ch->dci, 0)) {
		err = EIO;
		goto err;
	}
	mlx5_dma_mr_cache_init(&ch->mr_cache, p->mrs);
	/* without indirect mkeys the channel copies but does not fill */
	if (p->has_mkey &&
	    (err = -mlx5_dma_remote_fill_create(p, MLX5_DMA_REMOTE_MAX_LEN, &ch->fill)) != 0)
		goto err;
	try {
		st->channels.push_back(ch);
	} catch (...) {
		goto err;
	}
	return ch;
err:
	MLX5_DMA_LOG(ERR, "%s: remote channel not created: %s", p->name, strerror(err));
	if (ch)
		channel_destroy(ch);
	rte_errno = err;
	return NULL;
}

MLX5_DMA_EXPORT void rte_pmd_dma_mlx5_remote_free(struct rte_pmd_dma_mlx5_remote *ch)
{
	if (!ch)
		return;
	submit(ch);
	/* the device may still write into the ops' memory: wait for their completions */
	for (int i = 0; ch->posted && i < MLX5_DMA_REMOTE_FREE_WAIT_POLLS; i++)
		poll_cq(ch);
	auto &v = ch->dev->remote->channels;
	for (size_t i = 0; i < v.size(); i++)
		if (v[i] == ch) {
			v.erase(v.begin() + (long)i);
			break;
		}
	channel_destroy(ch);
}

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_remote_peer_add(struct rte_pmd_dma_mlx5_remote *ch,
				 const struct rte_pmd_dma_mlx5_remote_peer *peer)
{
	struct ibv_ah_attr aa = {};
	struct remote_peer p = {};

	if (!ch || !peer)
		return -EINVAL;
	if (ch->peers.size() > UINT16_MAX)
		return -ENOSPC;
	aa.dlid = peer->target.lid;
	aa.port_num = 1;
	p.ah = ch->dev->glue->create_ah(ch->dev->pd, &aa);
	if (!p.ah) {
		MLX5_DMA_LOG(ERR, "%s: no address handle for LID %u", ch->dev->name,
			     peer->target.lid);
		return -EINVAL;
	}
	p.dctn = peer->target.dctn;
	p.key = peer->target.dc_key;
	p.rkey = peer->rkey;
	try {
		ch->peers.push_back(p);
	} catch (...) {
		ch->dev->glue->destroy_ah(p.ah);
		return -ENOMEM;
	}
	return (int)ch->peers.size() - 1;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_write(struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer,
						  rte_iova_t src, uint64_t raddr, uint32_t len,
						  uint64_t flags)
{
	return enqueue(ch, peer, false, src, raddr, len, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_read(struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer,
						 uint64_t raddr, rte_iova_t dst, uint32_t len,
						 uint64_t flags)
{
	return enqueue(ch, peer, true, dst, raddr, len, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_fill(struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer,
						 uint64_t pattern, uint64_t raddr, uint32_t len,
						 uint64_t flags)
{
	uint32_t lkey;
	int ret = admit(ch, peer, len, "fill");

	if (ret)
		return ret;
	if (!ch->fill) {
		MLX5_DMA_LOG(ERR, "%s: remote fill: the device has no indirect mkeys",
			     ch->dev->name);
		return -ENOTSUP;
	}
	/* every pattern source busy with another pattern: report some ops first */
	if (mlx5_dma_remote_fill_source(ch->fill, pattern, ch->ring_idx, ch->reported, &lkey))
		return -ENOSPC;
	return post(ch, remote_slot{0, raddr, len, lkey, peer, false, SLOT_FREE, 0, 0}, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_submit(struct rte_pmd_dma_mlx5_remote *ch)
{
	if (!ch)
		return -EINVAL;
	submit(ch);
	return 0;
}

MLX5_DMA_EXPORT uint16_t rte_pmd_dma_mlx5_remote_completed(struct rte_pmd_dma_mlx5_remote *ch,
							   uint16_t nb_cpls, uint16_t *last_idx,
							   enum rte_dma_status_code *status)
{
	uint16_t n = 0;

	if (!ch || !last_idx || !status)
		return 0;
	if (ch->posted)
		poll_cq(ch);
	if (ch->repair || ch->dci_failed)
		repair_after_failures(ch);
	while (n < nb_cpls && ch->reported != ch->ring_idx) {
		struct remote_slot &s = ch->slots[ch->reported & ch->mask];
		if (s.state != SLOT_DONE)
			break; /* reported in ring order */
		status[n++] = (enum rte_dma_status_code)s.status;
		ch->stats.errors += s.status != RTE_DMA_STATUS_SUCCESSFUL;
		s.state = SLOT_FREE;
		ch->reported++;
	}
	if (n) {
		*last_idx = (uint16_t)(ch->reported - 1);
		ch->stats.completed += n;
	}
	return n;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_remote_stats_get(const struct rte_pmd_dma_mlx5_remote *ch,
						      struct rte_pmd_dma_mlx5_remote_stats *st)
{
	if (!ch || !st)
		return -EINVAL;
	*st = ch->stats;
	return 0;
}

/*
 * DC peers named by address (rdma-cm). The listener's answer, big-endian, in the
 * connection's private data (the IB CM's REP holds 196 bytes):
 *   0 tag "DMX5"  4 version (1)  6 LID  8 DCT number  12 rkey  16 DC key
 *   24 address of the key's range  32 its length  40 reserved QPN  44 zero
 * The request carries the tag and the version (8 bytes): a listener answers only
 * requests that have them. The layout is ours; dc_rdmacm.c in test/ shows the same
 * exchange with the first fields only.
 */
#define MLX5_DMA_CM_TAG 0x444d5835u /* "DMX5" */
#define MLX5_DMA_CM_VERSION 1
#define MLX5_DMA_CM_REQ_LEN 8
#define MLX5_DMA_CM_REP_LEN 48
/* each wait of an exchange (address, route, answer) at most */
#define MLX5_DMA_CM_TIMEOUT_MS 5000
/* a listener's log lines: at most this many per window (cm_note()) */
#define MLX5_DMA_CM_NOTE_BURST 10
#define MLX5_DMA_CM_NOTE_WINDOW_S 5

namespace {

void put_be(uint8_t *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

uint64_t get_be(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

void cm_request(uint8_t req[MLX5_DMA_CM_REQ_LEN])
{
	memset(req, 0, MLX5_DMA_CM_REQ_LEN);
	put_be(req, MLX5_DMA_CM_TAG, 4);
	put_be(req + 4, MLX5_DMA_CM_VERSION, 2);
}

/** "a.b.c.d:port" (port 1..65535) into @p sin: 0, or -EINVAL. */
int cm_parse(const char *addr, struct sockaddr_in *sin)
{
	char ip[INET_ADDRSTRLEN];
	const char *colon = addr ? strrchr(addr, ':') : NULL;
	char *end;

	if (!colon || (size_t)(colon - addr) >= sizeof(ip) || colon == addr)
		return -EINVAL;
	memcpy(ip, addr, (size_t)(colon - addr));
	ip[colon - addr] = '\0';
	errno = 0;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || errno || port == 0 || port > 65535)
		return -EINVAL;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1 ? 0 : -EINVAL;
}

/*
 * The listener's thread: its refusals, one log line each, at most
 * MLX5_DMA_CM_NOTE_BURST lines per MLX5_DMA_CM_NOTE_WINDOW_S seconds (the kernel's
 * default printk rate limit), then one line saying how many were suppressed. Called
 * only from that thread, so the budget needs no lock.
 */
void cm_note(void *arg, const char *line)
{
	struct rte_pmd_dma_mlx5_remote_listener *l =
		static_cast<struct rte_pmd_dma_mlx5_remote_listener *>(arg);
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (l->note_lines == 0 ||
	    now - l->note_window_ns >= MLX5_DMA_CM_NOTE_WINDOW_S * 1000000000ull) {
		if (l->note_dropped)
			MLX5_DMA_LOG(WARNING, "%s: remote listener %s: %u more lines suppressed",
				     l->dev->name, l->addr, l->note_dropped);
		l->note_window_ns = now;
		l->note_lines = 0;
		l->note_dropped = 0;
	}
	if (l->note_lines >= MLX5_DMA_CM_NOTE_BURST) {
		l->note_dropped++;
		return;
	}
	l->note_lines++;
	MLX5_DMA_LOG(WARNING, "%s: remote listener %s: %s", l->dev->name, l->addr, line);
}

/** What peer_add_addr() checks an answer with. */
struct cm_fetch_ctx {
	const char *dev;
	const char *addr;
	struct rte_pmd_dma_mlx5_remote_published pub;
	bool logged;
};

/**
 * The peer's word, checked field by field before anything is built from it; the
 * LID it publishes must be the port that answered (@p lid), so a publisher cannot
 * send the requester to another port's target.
 */
int cm_check(void *arg, uint16_t lid, const void *data, size_t len)
{
	struct cm_fetch_ctx *c = static_cast<struct cm_fetch_ctx *>(arg);
	const uint8_t *d = static_cast<const uint8_t *>(data);
	const char *why = NULL;

	c->logged = true;
	if (len < MLX5_DMA_CM_REP_LEN) {
		MLX5_DMA_LOG(ERR,
			     "%s: peer %s: refused: %zu bytes of private data (a target "
			     "publishes %u)",
			     c->dev, c->addr, len, MLX5_DMA_CM_REP_LEN);
		return -EPROTO;
	}
	struct rte_pmd_dma_mlx5_remote_published &p = c->pub;
	p.peer.target.lid = (uint16_t)get_be(d + 6, 2);
	p.peer.target.dctn = (uint32_t)get_be(d + 8, 4);
	p.peer.rkey = (uint32_t)get_be(d + 12, 4);
	p.peer.target.dc_key = get_be(d + 16, 8);
	p.addr = get_be(d + 24, 8);
	p.len = get_be(d + 32, 8);
	if (get_be(d, 4) != MLX5_DMA_CM_TAG)
		why = "not a dma_mlx5 target's private data (tag)";
	else if (get_be(d + 4, 2) != MLX5_DMA_CM_VERSION)
		why = "unknown version";
	else if (p.peer.target.lid == 0 || p.peer.target.lid >= 0xc000)
		why = "not a unicast LID";
	else if (p.peer.target.lid != lid)
		why = "not the LID of the port that answered";
	else if (p.peer.target.dctn == 0 || p.peer.target.dctn > 0xffffff)
		why = "not a DCT number";
	else if (p.len == 0 || p.addr + p.len < p.addr)
		why = "bad range";
	if (why) {
		MLX5_DMA_LOG(ERR,
			     "%s: peer %s: refused its private data: %s (tag %#" PRIx64
			     ", version %u, LID %u from LID %u, DCT %#x, range %#" PRIx64
			     " + %" PRIu64 ")",
			     c->dev, c->addr, why, get_be(d, 4), (unsigned int)get_be(d + 4, 2),
			     p.peer.target.lid, lid, p.peer.target.dctn, p.addr, p.len);
		return -EPROTO;
	}
	c->logged = false;
	return 0;
}

} // namespace

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_remote_listen(int16_t dev_id, const struct rte_pmd_dma_mlx5_remote_target *target,
			       uint32_t rkey, const char *addr,
			       struct rte_pmd_dma_mlx5_remote_listener **out)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	uint8_t req[MLX5_DMA_CM_REQ_LEN], rep[MLX5_DMA_CM_REP_LEN];
	struct mlx5_dma_remote_state *st;
	struct sockaddr_in sin;
	struct ibv_port_attr port;
	const struct ibv_mr *key = NULL;
	bool found = false;
	int ret;

	if (!p) {
		MLX5_DMA_LOG(ERR, "remote listener: %d is not a dma_mlx5 device", dev_id);
		return -EINVAL;
	}
	if (!target || !out || cm_parse(addr, &sin)) {
		MLX5_DMA_LOG(ERR, "%s: remote listener: bad %s %s", p->name,
			     !target || !out ? "argument" : "address", addr ? addr : "(null)");
		return -EINVAL;
	}
	/* the answer names the target by LID: a port without one (RoCE) has nothing
	 * a peer could reach the target by */
	if (p->glue->query_port(p->ctx, 1, &port)) {
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: port 1 not queried", p->name, addr);
		return -EIO;
	}
	if (port.lid == 0) {
		MLX5_DMA_LOG(ERR,
			     "%s: remote listener %s: port 1 has LID 0 (RoCE?): a published "
			     "target is named by LID",
			     p->name, addr);
		return -ENOTSUP;
	}
	st = state_of(p);
	if (!st) {
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: no memory for the remote state", p->name,
			     addr);
		return -ENOMEM;
	}
	for (const struct remote_target &t : st->targets)
		found |= t.dct->qp_num == target->dctn && t.dc_key == target->dc_key &&
			 t.lid == target->lid;
	if (!found) {
		MLX5_DMA_LOG(ERR,
			     "%s: remote listener %s: DCT %#x is not a DC target of this "
			     "device",
			     p->name, addr, target->dctn);
		return -ENOENT;
	}
	if (!p->glue->cm_listen) {
		MLX5_DMA_LOG(ERR,
			     "%s: remote listener %s: the %s backend has no connection "
			     "manager",
			     p->name, addr, p->glue->name);
		return -ENOTSUP;
	}
	auto *l = new (std::nothrow) rte_pmd_dma_mlx5_remote_listener();
	if (!l) {
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: no memory for the listener", p->name,
			     addr);
		return -ENOMEM;
	}
	l->dev = p;
	l->rkey = rkey;
	snprintf(l->addr, sizeof(l->addr), "%s", addr);
	std::lock_guard<std::mutex> guard(st->keys_lock);
	for (const struct ibv_mr *mr : st->keys)
		if (mr->rkey == rkey)
			key = mr;
	if (!key) {
		MLX5_DMA_LOG(ERR,
			     "%s: remote listener %s: remote key %#x is not a key of this "
			     "device",
			     p->name, addr, rkey);
		delete l;
		return -ENOENT;
	}
	try {
		st->listeners.reserve(st->listeners.size() + 1);
	} catch (...) {
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: no memory for the list of listeners",
			     p->name, addr);
		delete l;
		return -ENOMEM;
	}
	/* the connection's QPN: a QPN of the device nothing else uses */
	ret = p->glue->dv_reserved_qpn_alloc(p->ctx, &l->qpn);
	if (ret) {
		ret = ret > 0 ? -ret : ret;
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: no reserved QPN: %s", p->name, addr,
			     strerror(-ret));
		delete l;
		return ret;
	}
	cm_request(req);
	memset(rep, 0, sizeof(rep));
	put_be(rep, MLX5_DMA_CM_TAG, 4);
	put_be(rep + 4, MLX5_DMA_CM_VERSION, 2);
	put_be(rep + 6, target->lid, 2);
	put_be(rep + 8, target->dctn, 4);
	put_be(rep + 12, rkey, 4);
	put_be(rep + 16, target->dc_key, 8);
	put_be(rep + 24, (uintptr_t)key->addr, 8);
	put_be(rep + 32, key->length, 8);
	put_be(rep + 40, l->qpn, 4);
	ret = p->glue->cm_listen(p->ctx, &sin, l->qpn, req, sizeof(req), rep, sizeof(rep), cm_note,
				 l, &l->cm);
	if (ret) {
		if (ret == -ENOSYS)
			ret = -ENOTSUP;
		MLX5_DMA_LOG(ERR, "%s: remote listener %s: not listening: %s%s", p->name, addr,
			     strerror(-ret), ret == -ENOTSUP ? " (no rdma-cm library)" : "");
		p->glue->dv_reserved_qpn_dealloc(p->ctx, l->qpn);
		delete l;
		return ret;
	}
	st->listeners.push_back(l); /* reserved above: does not throw */
	*out = l;
	return 0;
}

MLX5_DMA_EXPORT void
rte_pmd_dma_mlx5_remote_listen_close(struct rte_pmd_dma_mlx5_remote_listener *l)
{
	if (!l)
		return;
	struct mlx5_dma_dev *p = l->dev;
	/* no new answer from here on: the thread is joined */
	p->glue->cm_listen_close(l->cm);
	if (l->note_dropped) /* the thread is gone: its budget is this thread's now */
		MLX5_DMA_LOG(WARNING, "%s: remote listener %s: %u more lines suppressed", p->name,
			     l->addr, l->note_dropped);
	{
		std::lock_guard<std::mutex> guard(p->remote->keys_lock);
		auto &v = p->remote->listeners;
		for (size_t i = 0; i < v.size(); i++)
			if (v[i] == l) {
				v.erase(v.begin() + (long)i);
				break;
			}
	}
	int ret = p->glue->dv_reserved_qpn_dealloc(p->ctx, l->qpn);
	if (ret)
		MLX5_DMA_LOG(WARNING, "%s: remote listener %s: reserved QPN %#x not freed: %s",
			     p->name, l->addr, l->qpn, strerror(ret > 0 ? ret : -ret));
	delete l;
}

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_remote_peer_add_addr(struct rte_pmd_dma_mlx5_remote *ch, const char *addr,
				      struct rte_pmd_dma_mlx5_remote_published *out)
{
	uint8_t req[MLX5_DMA_CM_REQ_LEN];
	struct sockaddr_in sin;
	struct cm_fetch_ctx c = {};

	if (!ch)
		return -EINVAL;
	const struct mlx5_dma_dev *p = ch->dev;
	if (cm_parse(addr, &sin)) {
		MLX5_DMA_LOG(ERR, "%s: peer %s: not an address (a.b.c.d:port)", p->name,
			     addr ? addr : "(null)");
		return -EINVAL;
	}
	if (!p->glue->cm_fetch) {
		MLX5_DMA_LOG(ERR, "%s: peer %s: the %s backend has no connection manager", p->name,
			     addr, p->glue->name);
		return -ENOTSUP;
	}
	if (ch->peers.size() > UINT16_MAX) {
		MLX5_DMA_LOG(ERR, "%s: peer %s: the channel has %zu peers, the most it takes",
			     p->name, addr, ch->peers.size());
		return -ENOSPC;
	}
	c.dev = p->name;
	c.addr = addr;
	cm_request(req);
	/* the channel's DCI stands for the connection: no QP is connected by it */
	int ret = p->glue->cm_fetch(p->ctx, &sin, ch->dci->qp_num, req, sizeof(req),
				    MLX5_DMA_CM_TIMEOUT_MS, cm_check, &c);
	if (ret == -ENOSYS)
		ret = -ENOTSUP;
	if (ret) {
		if (!c.logged)
			MLX5_DMA_LOG(ERR, "%s: peer %s: %s%s", p->name, addr, strerror(-ret),
				     ret == -ECONNREFUSED ? " (nobody publishes a target there)"
				     : ret == -ENOTSUP    ? " (no rdma-cm library)"
							  : "");
		return ret;
	}
	ret = rte_pmd_dma_mlx5_remote_peer_add(ch, &c.pub.peer);
	if (ret >= 0 && out)
		*out = c.pub;
	return ret;
}
