/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: CQs, RC and UD QPs and DCIs on the provider's own buffers and doorbell records
 * (CREATE with mlx5's driver data, DESTROY), MODIFY_QP and QUERY_QP. The device
 * gets the rings through hca.h; its doorbell watcher (kside.cpp) notices new work.
 * The Context lock is held (Context::ioctl).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "mlx5_abi.h"
#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

namespace {

bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/** An IDR attribute naming an object of type @p t: ENOENT if none, EINVAL if another. */
int lookup(Call &c, uint16_t id, Uobj::Type t, Uobj **out, const char *what)
{
	uint32_t h = (uint32_t)c.data(id);
	auto it = c.ctx.objs.find(h);
	if (it == c.ctx.objs.end() || it->second.type != t) {
		klog(1, "uverbs%u: %s: handle %u is no %s", c.ctx.dev()->index, c.method.name, h,
		     what);
		return it == c.ctx.objs.end() ? -ENOENT : -EINVAL;
	}
	*out = &it->second;
	return 0;
}

bool uar_page_live(const Context &ctx, uint32_t page)
{
	for (const auto &kv : ctx.objs)
		if (kv.second.type == Uobj::Type::Uar && kv.second.uar_page == page)
			return true;
	return false;
}

/* ---- DC: the driver data of mlx5dv_create_qp's DC QPs ------------------------------ */

constexpr uint32_t kDcFlags = kQpFlagTypeDci | kQpFlagTypeDct | kQpFlagDciStream;

/**
 * Type and DC role of a QP/CREATE into @p cfg: RC, or (TYPE driver) a DCI with
 * DCI_STREAM's log_num_concurent / log_num_errored, no RQ, or a DCT (its access key,
 * no queues of its own: dct_config). Stream limits are the device's (HcaCaps, EINVAL).
 */
int dc_config(Call &c, uint32_t type, const Mlx5CreateQp &req, QpConfig *cfg)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t dc = req.flags & kDcFlags;
	bool streams = req.flags & kQpFlagDciStream;
	cfg->type = IBV_QPT_RC;
	cfg->dc = DcRole::None;
	if (type == kUverbsQptRc && !dc)
		return 0;
	const HcaCaps &caps = c.ctx.hca->caps();
	if (type == kUverbsQptDriver && dc == kQpFlagTypeDct && caps.dc) {
		cfg->type = IBV_QPT_DRIVER;
		cfg->dc = DcRole::Dct;
		cfg->dct_key = req.sq_buf_addr; /* the union's access_key */
		return 0;
	}
	if (type != kUverbsQptDriver || (dc & ~kQpFlagDciStream) != kQpFlagTypeDci) {
		/* the kernel's create_qp: a driver QP is a DCI or a DCT, and only that */
		klog(1, "uverbs%u: QP/CREATE type %u DC flags 0x%x: no DCI or DCT", idx, type, dc);
		return -EOPNOTSUPP;
	}
	if (!caps.dc || req.rq_wqe_count ||
	    (!streams && (req.dci_log_num_concurent || req.dci_log_num_errored)) ||
	    req.dci_log_num_concurent > caps.dci_max_log_streams ||
	    req.dci_log_num_errored > caps.dci_max_log_errored) {
		klog(1, "uverbs%u: QP/CREATE DCI: rq %u, streams %u/%u (flag %d; device %u/%u)",
		     idx, req.rq_wqe_count, req.dci_log_num_concurent, req.dci_log_num_errored,
		     streams, caps.dci_max_log_streams, caps.dci_max_log_errored);
		return -EINVAL;
	}
	cfg->type = IBV_QPT_DRIVER;
	cfg->dc = DcRole::Dci;
	cfg->dci_log_streams = req.dci_log_num_concurent;
	cfg->dci_log_errored = req.dci_log_num_errored;
	return 0;
}

/**
 * The doorbell record of every DCT: a DCT has no queues (its receives come from its
 * SRQ), so the device never reads it; QpConfig wants one all the same.
 */
uint32_t g_dct_dbrec[2];

/**
 * QP/CREATE of a DCT (libmlx5's create_dct; the kernel's mlx5_ib create_dct): an SRQ
 * and a receive CQ of this context, no buffers. Its number is made public at the
 * modify to RTR (w_ex_modify_qp), as the kernel does: QP/CREATE answers 0.
 */
int dct_create(Call &c, const Mlx5CreateQp &req, Uobj *pd, Uobj *rcq, Uobj *srq, QpCap cap,
	       uint64_t user_handle, QpConfig *cfg)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	int ret;
	if (!srq || req.sq_wqe_count || req.rq_wqe_count || req.uidx >= (1u << 24) ||
	    (req.flags & ~(kQpFlagScatterCqe | kQpFlagTypeDct))) {
		klog(1, "uverbs%u: QP/CREATE DCT: SRQ %d, sq %u rq %u, uidx 0x%x, flags 0x%x", idx,
		     srq != nullptr, req.sq_wqe_count, req.rq_wqe_count, req.uidx, req.flags);
		return -EINVAL;
	}
	cfg->pdn = pd->pdn;
	cfg->uidx = req.uidx;
	cfg->dbrec = g_dct_dbrec;
	cfg->send_cqn = cfg->recv_cqn = rcq->cqn;
	cfg->srqn = srq->srqn;
	uint32_t qpn;
	if ((ret = ctx.hca->create_qp(*cfg, &qpn))) {
		klog(1, "uverbs%u: QP/CREATE DCT: %s", idx, strerror(-ret));
		return ret;
	}
	Uobj o;
	o.type = Uobj::Type::Qp;
	o.qpn = qpn;
	o.dct = true;
	o.pd_handle = (uint32_t)c.data(A_QP_PD);
	o.user_handle = user_handle;
	o.cap = cap;
	o.attr.qp_state = IBV_QPS_RESET;
	o.srqn = cfg->srqn;
	uint32_t handle = ctx.add(o);
	uint32_t none = 0;
	Mlx5CreateQpResp m;
	memset(&m, 0, sizeof(m));
	if ((ret = c.write_out(A_QP_RESP_CAP, &cap, sizeof(cap))) ||
	    (ret = c.write_out(A_QP_RESP_QP_NUM, &none, sizeof(none))) ||
	    (ret = c.write_out(kAttrUhwOut, &m, sizeof(m))) ||
	    (ret = c.set_new(A_QP_HANDLE, handle))) {
		ctx.destroy_obj(ctx.objs[handle]);
		ctx.objs.erase(handle);
	}
	return ret;
}
} // namespace

int h_cq_create(Call &c)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	uint32_t cqe = 0, vector = 0, flags = 0;
	uint64_t user_handle = 0;
	Mlx5CreateCq req;
	int ret;

	if ((ret = c.read_in(A_CQ_CQE, &cqe, sizeof(cqe))) ||
	    (ret = c.read_in(A_CQ_USER_HANDLE, &user_handle, sizeof(user_handle))) ||
	    (ret = c.read_in(A_CQ_COMP_VECTOR, &vector, sizeof(vector))) ||
	    (ret = c.read_in(A_CQ_FLAGS, &flags, sizeof(flags))))
		return ret;
	if (c.len(kAttrUhwIn) < sizeof(req)) {
		klog(1, "uverbs%u: CQ/CREATE driver request of %zu bytes", idx, c.len(kAttrUhwIn));
		return -EINVAL;
	}
	if ((ret = c.read_in(kAttrUhwIn, &req, sizeof(req))))
		return ret;
	if (flags || req.cqe_comp_en || (req.flags & ~kCqFlagUarPageIndex)) {
		/* timestamps, CQE compression, 128-byte padding */
		klog(1,
		     "uverbs%u: CQ/CREATE flags 0x%x compression %u driver flags 0x%x: not "
		     "modelled",
		     idx, flags, req.cqe_comp_en, req.flags);
		return -EOPNOTSUPP;
	}
	const HcaCaps &caps = ctx.hca->caps();
	uint64_t entries = 1;
	while (entries < (uint64_t)cqe + 1)
		entries <<= 1;
	if (cqe == 0 || cqe > caps.max_cqe || vector != 0 ||
	    (req.cqe_size != 64 && req.cqe_size != 128) ||
	    ((req.flags & kCqFlagUarPageIndex) && !uar_page_live(ctx, req.uar_page_index))) {
		klog(1, "uverbs%u: CQ/CREATE cqe %u vector %u cqe_size %u uar page %u", idx, cqe,
		     vector, req.cqe_size, req.uar_page_index);
		return -EINVAL;
	}
	if (!user_range_writable(req.buf_addr, entries * req.cqe_size) ||
	    !user_range_writable(req.db_addr, 8)) {
		klog(1,
		     "uverbs%u: CQ/CREATE buffer 0x%llx or doorbell record 0x%llx not the "
		     "process's",
		     idx, (unsigned long long)req.buf_addr, (unsigned long long)req.db_addr);
		return -EFAULT;
	}
	CqConfig cfg;
	cfg.buf = reinterpret_cast<void *>(req.buf_addr);
	cfg.ncqe = (uint32_t)entries;
	cfg.cqe_size = req.cqe_size;
	cfg.dbrec = reinterpret_cast<uint32_t *>(req.db_addr);
	Uobj o;
	if ((ret = cq_events_prepare(ctx, c.has(A_CQ_COMP_CHANNEL), (int)c.data(A_CQ_COMP_CHANNEL),
				     c.has(A_CQ_EVENT_FD), (int)c.data(A_CQ_EVENT_FD), user_handle,
				     o, cfg)))
		return ret;
	uint32_t cqn;
	if ((ret = ctx.hca->create_cq(cfg, &cqn))) {
		klog(1, "uverbs%u: CQ/CREATE of %llu entries: %s", idx, (unsigned long long)entries,
		     strerror(-ret));
		return ret;
	}
	o.type = Uobj::Type::Cq;
	o.cqn = cqn;
	o.cq_ncqe = cfg.ncqe;
	o.user_handle = user_handle;
	cq_events_created(ctx, o, cfg.dbrec);
	uint32_t handle = ctx.add(o);
	uint32_t resp_cqe = (uint32_t)entries - 1;
	Mlx5CreateCqResp m = {cqn, 0};
	if ((ret = c.write_out(A_CQ_RESP_CQE, &resp_cqe, sizeof(resp_cqe))) ||
	    (ret = c.write_out(kAttrUhwOut, &m, sizeof(m))) ||
	    (ret = c.set_new(A_CQ_HANDLE, handle))) {
		ctx.destroy_obj(ctx.objs[handle]);
		ctx.objs.erase(handle);
	}
	return ret;
}

int h_cq_destroy(Call &c)
{
	Uobj *cq;
	int ret = lookup(c, A_DESTROY_HANDLE, Uobj::Type::Cq, &cq, "CQ");
	if (ret)
		return ret;
	if ((ret = c.ctx.destroy_obj(*cq))) {
		klog(1, "uverbs%u: CQ/DESTROY of CQ 0x%x: %s", c.ctx.dev()->index, cq->cqn,
		     strerror(-ret));
		return ret;
	}
	/* the events the process read (uverbs_events.cpp): libibverbs waits for their acks */
	DestroyCqResp r = {cq->ev ? cq->ev->comp_reported.load() : 0,
			   cq->ev ? cq->ev->async_reported.load() : 0};
	c.ctx.objs.erase((uint32_t)c.data(A_DESTROY_HANDLE));
	return c.write_out(A_DESTROY_RESP, &r, sizeof(r));
}

/**
 * RESIZE_CQ (ibv_resize_cq) as mlx5_ib_resize_cq: the new ring in the driver data,
 * the entries rounded up to a power of two above @c cqe, nothing done when that is
 * the current size. The device writes the RESIZE_CQ CQE into the old ring and goes
 * on in the new one (Hca::resize_cq); libmlx5 moves the unpolled CQEs over. More
 * unpolled CQEs than the new ring holds: EINVAL, as the firmware's BAD_PARAM.
 */
int w_resize_cq(Call &c, const uint8_t *in, size_t)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	ResizeCqCmd q;
	memcpy(&q, in, sizeof(q));
	Uobj *cq = ctx.find(q.cq_handle, Uobj::Type::Cq);
	if (!cq) {
		klog(1, "uverbs%u: RESIZE_CQ of handle %u: no such CQ", idx, q.cq_handle);
		return -EINVAL;
	}
	const HcaCaps &caps = ctx.hca->caps();
	if (q.cqe < 1 || q.cqe > caps.max_cqe) {
		klog(1, "uverbs%u: RESIZE_CQ of CQ 0x%x to %u entries (1..%u)", idx, cq->cqn, q.cqe,
		     caps.max_cqe);
		return -EINVAL;
	}
	uint64_t entries = 1;
	while (entries < (uint64_t)q.cqe + 1)
		entries <<= 1;
	ResizeCqResp r = {(uint32_t)entries - 1, 0};
	if (entries - 1 > caps.max_cqe) {
		klog(1, "uverbs%u: RESIZE_CQ of CQ 0x%x to %llu entries (at most %u)", idx, cq->cqn,
		     (unsigned long long)entries, caps.max_cqe + 1);
		return -EINVAL;
	}
	if (entries == (uint64_t)cq->cq_ncqe) /* the kernel neither reads nor changes a thing */
		return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
	Mlx5ResizeCq req;
	if (c.len(kAttrUhwIn) < sizeof(req)) {
		klog(1, "uverbs%u: RESIZE_CQ driver request of %zu bytes", idx, c.len(kAttrUhwIn));
		return -EINVAL;
	}
	int ret = c.read_in(kAttrUhwIn, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.reserved0 || req.reserved1 || (req.cqe_size != 64 && req.cqe_size != 128)) {
		klog(1, "uverbs%u: RESIZE_CQ cqe_size %u reserved %u/%u", idx, req.cqe_size,
		     req.reserved0, req.reserved1);
		return -EINVAL;
	}
	if (!user_range_writable(req.buf_addr, entries * req.cqe_size)) {
		klog(1, "uverbs%u: RESIZE_CQ ring 0x%llx (+%llu) not the process's", idx,
		     (unsigned long long)req.buf_addr,
		     (unsigned long long)(entries * req.cqe_size));
		return -EFAULT;
	}
	/*
	 * The CQ as of the work posted before the command: hardware has long executed it
	 * when a firmware command arrives, the model may lag a doorbell-thread pass
	 * behind, so the doorbells of the context's QPs are rung and executed first.
	 */
	for (const auto &kv : ctx.objs)
		if (kv.second.type == Uobj::Type::Qp)
			doorbell_resync(ctx.dev(), kv.second.qpn);
	ctx.hca->quiesce();
	if ((ret = ctx.hca->resize_cq(cq->cqn, reinterpret_cast<void *>(req.buf_addr),
				      (uint32_t)entries, req.cqe_size))) {
		klog(1,
		     "uverbs%u: RESIZE_CQ of CQ 0x%x to %llu entries: %s (in error, full, or "
		     "more CQEs unpolled than the new ring holds)",
		     idx, cq->cqn, (unsigned long long)entries, strerror(-ret));
		return ret;
	}
	cq->cq_ncqe = (uint32_t)entries;
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

int h_qp_create(Call &c)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	uint32_t type = 0, flags = 0;
	uint64_t user_handle = 0;
	QpCap cap;
	Mlx5CreateQp req;
	int ret;

	if ((ret = c.read_in(A_QP_TYPE, &type, sizeof(type))) ||
	    (ret = c.read_in(A_QP_FLAGS, &flags, sizeof(flags))) ||
	    (ret = c.read_in(A_QP_USER_HANDLE, &user_handle, sizeof(user_handle))) ||
	    (ret = c.read_in(A_QP_CAP, &cap, sizeof(cap))))
		return ret;
	/* SQ_SIG_ALL only matters to query_qp: libmlx5 sets the signal bit in WQEs */
	bool sig_all = flags & kQpCreateSqSigAll;
	flags &= ~kQpCreateSqSigAll;
	if (type == kUverbsQptUd)
		flags &= ~kQpCreateBlockMcastLb;
	if ((type != kUverbsQptRc && type != kUverbsQptUc && type != kUverbsQptDriver &&
	     type != kUverbsQptUd) ||
	    flags || c.has(A_QP_XRCD) || c.has(A_QP_IND_TABLE) || c.has(A_QP_SOURCE_QPN)) {
		/* raw packet, XRC: later steps */
		klog(1, "uverbs%u: QP/CREATE type %u flags 0x%x: not served yet", idx, type, flags);
		return -EOPNOTSUPP;
	}
	if (c.len(kAttrUhwIn) < offsetof(Mlx5CreateQp, sq_buf_addr)) {
		klog(1, "uverbs%u: QP/CREATE driver request of %zu bytes", idx, c.len(kAttrUhwIn));
		return -EINVAL;
	}
	if ((ret = c.read_in(kAttrUhwIn, &req, sizeof(req))))
		return ret;
	Uobj *pd, *scq, *rcq;
	if ((ret = lookup(c, A_QP_PD, Uobj::Type::Pd, &pd, "PD")) ||
	    (ret = lookup(c, A_QP_SEND_CQ, Uobj::Type::Cq, &scq, "CQ")) ||
	    (ret = lookup(c, A_QP_RECV_CQ, Uobj::Type::Cq, &rcq, "CQ")))
		return ret;
	Uobj *srq = nullptr;
	if (c.has(A_QP_SRQ) && (ret = lookup(c, A_QP_SRQ, Uobj::Type::Srq, &srq, "SRQ")))
		return ret;
	if (srq && req.rq_wqe_count) {
		/* receives come from the SRQ: the QP has no receive queue of its own */
		klog(1, "uverbs%u: QP/CREATE with an SRQ and a receive queue of %u WQEs", idx,
		     req.rq_wqe_count);
		return -EINVAL;
	}
	/* its async events go to its event fd, else the file's first (as the kernel) */
	std::shared_ptr<AsyncFile> event_file = ctx.default_async;
	if (c.has(A_QP_EVENT_FD) &&
	    (ret = event_fd_lookup(ctx, (int)c.data(A_QP_EVENT_FD), EventFile::Kind::Async,
				   "QP/CREATE", &event_file)))
		return ret;
	const HcaCaps &caps = ctx.hca->caps();
	uint32_t pdn = pd->pdn, send_cqn = scq->cqn, recv_cqn = rcq->cqn;
	if (req.flags & ~(kQpFlagScatterCqe | kQpFlagUarPageIndex | kDcFlags)) {
		klog(1, "uverbs%u: QP/CREATE driver flags 0x%x: not modelled", idx, req.flags);
		return -EOPNOTSUPP;
	}
	QpConfig cfg{};
	if ((type == kUverbsQptUd || type == kUverbsQptUc) && (req.flags & kDcFlags)) {
		klog(1, "uverbs%u: QP/CREATE type %u with DC flags 0x%x", idx, type,
		     req.flags & kDcFlags);
		return -EINVAL;
	}
	if (type == kUverbsQptUd || type == kUverbsQptUc) {
		cfg.type = type == kUverbsQptUd ? IBV_QPT_UD : IBV_QPT_UC;
		cfg.dc = DcRole::None;
	} else if ((ret = dc_config(c, type, req, &cfg))) {
		return ret;
	}
	if (cfg.dc == DcRole::Dct)
		return dct_create(c, req, pd, rcq, srq, cap, user_handle, &cfg);
	if (!is_pow2(req.sq_wqe_count) || req.sq_wqe_count > caps.max_send_wqebb ||
	    (req.rq_wqe_count &&
	     (!is_pow2(req.rq_wqe_count) || req.rq_wqe_count > caps.max_recv_wr ||
	      req.rq_wqe_shift < 4 || req.rq_wqe_shift > 10)) ||
	    req.uidx >= (1u << 24) ||
	    ((req.flags & kQpFlagUarPageIndex) && !uar_page_live(ctx, req.bfreg_index))) {
		klog(1, "uverbs%u: QP/CREATE sq %u rq %u shift %u uidx 0x%x bfreg %u", idx,
		     req.sq_wqe_count, req.rq_wqe_count, req.rq_wqe_shift, req.uidx,
		     req.bfreg_index);
		return -EINVAL;
	}
	uint64_t rq_bytes = req.rq_wqe_count ? (uint64_t)req.rq_wqe_count << req.rq_wqe_shift : 0;
	uint64_t bytes = rq_bytes + (uint64_t)req.sq_wqe_count * 64;
	if (!user_range_writable(req.buf_addr, bytes) || !user_range_writable(req.db_addr, 8)) {
		klog(1,
		     "uverbs%u: QP/CREATE buffer 0x%llx (+%llu) or doorbell record 0x%llx "
		     "not the process's",
		     idx, (unsigned long long)req.buf_addr, (unsigned long long)bytes,
		     (unsigned long long)req.db_addr);
		return -EFAULT;
	}
	cfg.pdn = pdn;
	cfg.uidx = req.uidx;
	cfg.rq_buf = req.rq_wqe_count ? reinterpret_cast<void *>(req.buf_addr) : nullptr;
	cfg.rq_wqe_cnt = req.rq_wqe_count;
	cfg.rq_wqe_shift = req.rq_wqe_count ? req.rq_wqe_shift : 0;
	cfg.sq_buf = reinterpret_cast<void *>(req.buf_addr + rq_bytes);
	cfg.sq_wqe_cnt = req.sq_wqe_count;
	cfg.dbrec = reinterpret_cast<uint32_t *>(req.db_addr);
	cfg.send_cqn = send_cqn;
	cfg.recv_cqn = recv_cqn;
	cfg.srqn = srq ? srq->srqn : 0;
	uint32_t qpn;
	if ((ret = ctx.hca->create_qp(cfg, &qpn))) {
		klog(1, "uverbs%u: QP/CREATE: %s", idx, strerror(-ret));
		return ret;
	}
	Uobj o;
	o.type = Uobj::Type::Qp;
	o.qpn = qpn;
	o.qp_type = type;
	o.pd_handle = (uint32_t)c.data(A_QP_PD);
	o.user_handle = user_handle;
	if (srq) /* no receive queue: the kernel answers 0 for it (mlx5's set_rq_size) */
		cap.max_recv_wr = cap.max_recv_sge = 0;
	o.cap = cap;
	if (!srq) {
		/* QUERY_QP reports the receive queue as built (mlx5_ib_query_qp): its WQEs,
		 * the segments one holds; posting beyond them fails in libmlx5 */
		o.cap.max_recv_wr = req.rq_wqe_count;
		o.cap.max_recv_sge = req.rq_wqe_count ? (1u << req.rq_wqe_shift) / 16 : 0;
	}
	o.attr.qp_state = IBV_QPS_RESET;
	o.sq_sig_all = sig_all;
	o.srqn = cfg.srqn;
	qp_events_prepare(event_file, user_handle, o);
	qp_events_created(ctx, o);
	uint32_t handle = ctx.add(o);
	doorbell_watch(ctx.dev(), ctx.hca.get(), qpn, cfg.dbrec);
	Mlx5CreateQpResp m;
	memset(&m, 0, sizeof(m));
	m.bfreg_index = req.bfreg_index;
	if ((ret = c.write_out(A_QP_RESP_CAP, &cap, sizeof(cap))) ||
	    (ret = c.write_out(A_QP_RESP_QP_NUM, &qpn, sizeof(qpn))) ||
	    (ret = c.write_out(kAttrUhwOut, &m, sizeof(m))) ||
	    (ret = c.set_new(A_QP_HANDLE, handle))) {
		ctx.destroy_obj(ctx.objs[handle]);
		ctx.objs.erase(handle);
	}
	return ret;
}

int h_qp_destroy(Call &c)
{
	Uobj *qp;
	int ret = lookup(c, A_DESTROY_HANDLE, Uobj::Type::Qp, &qp, "QP");
	if (ret)
		return ret;
	if ((ret = c.ctx.destroy_obj(*qp))) {
		klog(1, "uverbs%u: QP/DESTROY of QP 0x%x: %s", c.ctx.dev()->index, qp->qpn,
		     strerror(-ret));
		return ret;
	}
	uint32_t events = qp->ev ? qp->ev->async_reported.load() : 0; /* read ones */
	c.ctx.objs.erase((uint32_t)c.data(A_DESTROY_HANDLE));
	return c.write_out(A_DESTROY_RESP, &events, sizeof(events));
}

namespace {

void dest_to_ah(const QpDest &d, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	memcpy(ah->grh.dgid.raw, d.dgid, sizeof(d.dgid));
	ah->grh.flow_label = d.flow_label;
	ah->grh.sgid_index = d.sgid_index;
	ah->grh.hop_limit = d.hop_limit;
	ah->grh.traffic_class = d.traffic_class;
	ah->dlid = d.dlid;
	ah->sl = d.sl;
	ah->src_path_bits = d.src_path_bits;
	ah->static_rate = d.static_rate;
	ah->is_global = d.is_global;
	ah->port_num = d.port_num;
}

void ah_to_dest(const struct ibv_ah_attr &ah, QpDest *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->dgid, ah.grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = ah.grh.flow_label;
	d->sgid_index = ah.grh.sgid_index;
	d->hop_limit = ah.grh.hop_limit;
	d->traffic_class = ah.grh.traffic_class;
	d->dlid = ah.dlid;
	d->sl = ah.sl;
	d->src_path_bits = ah.src_path_bits;
	d->static_rate = ah.static_rate;
	d->is_global = ah.is_global;
	d->port_num = ah.port_num;
}

/** The attribute bits of ibv_modify_qp up to IBV_QP_DEST_QPN (the IB spec's). */
constexpr uint32_t kQpAttrKnown = (1u << 21) - 1;

/** A controlled Q_Key: only a process with CAP_NET_RAW may give a QP one (IB 3.5.3). */
constexpr uint32_t kQkeyControlled = 0x80000000u;

/** The process has CAP_NET_RAW in its effective set (the kernel's capable()). */
bool net_raw_capable()
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {};
	return syscall(SYS_capget, &h, d) == 0 &&
	       (d[CAP_NET_RAW / 32].effective & (1u << (CAP_NET_RAW % 32)));
}

} // namespace

namespace {

/**
 * The rules of ib_modify_qp_is_ok (drivers/infiniband/core/verbs.c) the device's
 * state machine does not check, for RC, UC and UD QPs (mlx5_ib runs it before any
 * firmware command): CUR_STATE only from RTR, RTS, SQD or SQE, and only on the
 * transitions to RTS whose optional attributes list it (for RC not from SQE, an
 * RC QP has no SQE state); RESET has no transition to ERR. @p cur is the state
 * the kernel takes (the caller's CUR_STATE, else the QP's).
 */
bool kernel_transition_ok(uint32_t qp_type, int cur, int next, uint32_t mask)
{
	if (qp_type != kUverbsQptRc && qp_type != kUverbsQptUc && qp_type != kUverbsQptUd)
		return true;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_ERR)
		return false;
	if (!(mask & IBV_QP_CUR_STATE))
		return true;
	return next == IBV_QPS_RTS &&
	       (cur == IBV_QPS_RTR || cur == IBV_QPS_RTS || cur == IBV_QPS_SQD ||
		(cur == IBV_QPS_SQE && qp_type != kUverbsQptRc));
}

} // namespace

int w_modify_qp(Call &c, const uint8_t *in, size_t)
{
	ModifyQpCmd q;
	memcpy(&q, in, sizeof(q));
	unsigned idx = c.ctx.dev()->index;
	Uobj *qp = c.ctx.find(q.qp_handle, Uobj::Type::Qp);
	if (!qp) {
		klog(1, "uverbs%u: MODIFY_QP of handle %u: no such QP", idx, q.qp_handle);
		return -EINVAL;
	}
	if (q.attr_mask & ~kQpAttrKnown) {
		klog(1, "uverbs%u: MODIFY_QP attr_mask 0x%x", idx, q.attr_mask);
		return -EOPNOTSUPP;
	}
	if (qp->dct && c.data(A_WRITE_CMD) != WCMD_EX_MODIFY_QP) {
		/* its number comes back in EX_MODIFY_QP's driver response only */
		klog(1, "uverbs%u: MODIFY_QP of a DCT: EX_MODIFY_QP only", idx);
		return -EINVAL;
	}
	if (((q.attr_mask & IBV_QP_PORT) && q.port_num != 1) ||
	    ((q.attr_mask & IBV_QP_AV) && q.dest.port_num > 1) ||
	    ((q.attr_mask & IBV_QP_ALT_PATH) && q.alt_port_num != 1)) {
		klog(1, "uverbs%u: MODIFY_QP port %u / path port %u (the device has port 1)", idx,
		     q.port_num, q.dest.port_num);
		return -EINVAL;
	}
	/* as uverbs_cmd.c's modify_qp: else any process could claim a privileged Q_Key */
	if ((q.attr_mask & IBV_QP_QKEY) && (q.qkey & kQkeyControlled) && !net_raw_capable()) {
		klog(1, "uverbs%u: MODIFY_QP Q_Key 0x%x is controlled: needs CAP_NET_RAW", idx,
		     q.qkey);
		return -EPERM;
	}
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = (enum ibv_qp_state)q.qp_state;
	a.cur_qp_state = (enum ibv_qp_state)q.cur_qp_state;
	a.path_mtu = (enum ibv_mtu)q.path_mtu;
	a.path_mig_state = (enum ibv_mig_state)q.path_mig_state;
	a.qkey = q.qkey;
	a.rq_psn = q.rq_psn;
	a.sq_psn = q.sq_psn;
	a.dest_qp_num = q.dest_qp_num;
	/* the kernel passes on the bits a QP has and ignores the rest (MR-only bits such
	 * as ON_DEMAND, which pyverbs' ODP tests give their QPs too) */
	a.qp_access_flags = (int)(q.qp_access_flags &
				  (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC));
	dest_to_ah(q.dest, &a.ah_attr);
	dest_to_ah(q.alt_dest, &a.alt_ah_attr);
	a.pkey_index = q.pkey_index;
	a.alt_pkey_index = q.alt_pkey_index;
	a.en_sqd_async_notify = q.en_sqd_async_notify;
	a.max_rd_atomic = q.max_rd_atomic;
	a.max_dest_rd_atomic = q.max_dest_rd_atomic;
	a.min_rnr_timer = q.min_rnr_timer;
	a.port_num = q.port_num;
	a.timeout = q.timeout;
	a.retry_cnt = q.retry_cnt;
	a.rnr_retry = q.rnr_retry;
	a.alt_port_num = q.alt_port_num;
	a.alt_timeout = q.alt_timeout;
	if (!(q.attr_mask & IBV_QP_AV))
		a.ah_attr.port_num = 1;
	int ret;
	QpInfo info;
	if (!(q.attr_mask & IBV_QP_CUR_STATE) && (ret = c.ctx.hca->query_qp(qp->qpn, &info)))
		return ret;
	int cur = (q.attr_mask & IBV_QP_CUR_STATE) ? (int)q.cur_qp_state : (int)info.state;
	int next = (q.attr_mask & IBV_QP_STATE) ? (int)q.qp_state : cur;
	if (!kernel_transition_ok(qp->qp_type, cur, next, q.attr_mask)) {
		klog(1,
		     "uverbs%u: MODIFY_QP of QP 0x%x from state %d to %d mask 0x%x: not a "
		     "transition of ib_modify_qp_is_ok",
		     idx, qp->qpn, cur, next, q.attr_mask);
		return -EINVAL;
	}
	ret = c.ctx.hca->modify_qp(qp->qpn, a, (int)q.attr_mask);
	if (ret) {
		klog(1, "uverbs%u: MODIFY_QP of QP 0x%x to state %u mask 0x%x: %s", idx, qp->qpn,
		     q.qp_state, q.attr_mask, strerror(-ret));
		return ret;
	}
	if (q.attr_mask & IBV_QP_STATE)
		doorbell_resync(c.ctx.dev(), qp->qpn);
	/* remember what query_qp reports beyond the device's own state */
	struct ibv_qp_attr &s = qp->attr;
	uint32_t m = q.attr_mask;
	if (m & IBV_QP_STATE)
		s.qp_state = a.qp_state;
	if (m & IBV_QP_PKEY_INDEX)
		s.pkey_index = a.pkey_index;
	if (m & IBV_QP_PORT)
		s.port_num = a.port_num;
	if (m & IBV_QP_ACCESS_FLAGS)
		s.qp_access_flags = a.qp_access_flags;
	if (m & IBV_QP_AV)
		s.ah_attr = a.ah_attr;
	if (m & IBV_QP_PATH_MTU)
		s.path_mtu = a.path_mtu;
	if (m & IBV_QP_RQ_PSN)
		s.rq_psn = a.rq_psn;
	if (m & IBV_QP_SQ_PSN)
		s.sq_psn = a.sq_psn;
	if (m & IBV_QP_DEST_QPN)
		s.dest_qp_num = a.dest_qp_num;
	if (m & IBV_QP_MAX_DEST_RD_ATOMIC)
		s.max_dest_rd_atomic = a.max_dest_rd_atomic;
	if (m & IBV_QP_MAX_QP_RD_ATOMIC)
		s.max_rd_atomic = a.max_rd_atomic;
	if (m & IBV_QP_MIN_RNR_TIMER)
		s.min_rnr_timer = a.min_rnr_timer;
	if (m & IBV_QP_TIMEOUT)
		s.timeout = a.timeout;
	if (m & IBV_QP_RETRY_CNT)
		s.retry_cnt = a.retry_cnt;
	if (m & IBV_QP_RNR_RETRY)
		s.rnr_retry = a.rnr_retry;
	return 0;
}

/**
 * EX_MODIFY_QP: MODIFY_QP's request and a rate limit, with mlx5's driver data; how
 * libmlx5 moves a DCT (modify_dct). A DCT takes exactly the kernel's masks
 * (mlx5_ib_modify_dct): RESET->INIT with PKEY_INDEX, PORT, ACCESS_FLAGS; INIT->RTR
 * with AV, PATH_MTU, MIN_RNR_TIMER, which answers the DCT's number.
 */
int w_ex_modify_qp(Call &c, const uint8_t *in, size_t)
{
	ExModifyQp q;
	memcpy(&q, in, sizeof(q));
	unsigned idx = c.ctx.dev()->index;
	Mlx5ModifyQp m;
	memset(&m, 0, sizeof(m));
	size_t uhw_in = c.len(kAttrUhwIn);
	int ret;
	if (uhw_in && (ret = c.read_in(kAttrUhwIn, &m, sizeof(m))))
		return ret;
	if ((q.base.attr_mask & IBV_QP_RATE_LIMIT) || q.reserved || m.comp_mask || m.max_burst_sz ||
	    m.typical_pkt_sz || m.reserved || m.ece_options) {
		klog(1,
		     "uverbs%u: EX_MODIFY_QP rate limit %u, burst %u/%u, comp_mask 0x%x, ECE "
		     "0x%x: not modelled",
		     idx, q.rate_limit, m.max_burst_sz, m.typical_pkt_sz, m.comp_mask,
		     m.ece_options);
		return -EOPNOTSUPP;
	}
	Uobj *qp = c.ctx.find(q.base.qp_handle, Uobj::Type::Qp);
	if (qp && qp->dct) {
		uint32_t mask = q.base.attr_mask, cur = qp->attr.qp_state, want;
		if (cur == IBV_QPS_RESET && q.base.qp_state == IBV_QPS_INIT)
			want = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		else if (cur == IBV_QPS_INIT && q.base.qp_state == IBV_QPS_RTR)
			want = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER;
		else
			want = 0;
		if (!want || mask != want) {
			klog(1, "uverbs%u: EX_MODIFY_QP of a DCT from state %u to %u, mask 0x%x",
			     idx, cur, q.base.qp_state, mask);
			return -EINVAL;
		}
	}
	if ((ret = w_modify_qp(c, in, sizeof(q.base))))
		return ret;
	ExModifyQpResp r = {0, (uint32_t)sizeof(r)};
	if ((ret = c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r))))
		return ret;
	if (!qp->dct || q.base.qp_state != IBV_QPS_RTR)
		return 0;
	Mlx5ModifyQpResp d;
	memset(&d, 0, sizeof(d));
	d.response_length = (uint32_t)(offsetof(Mlx5ModifyQpResp, dctn) + sizeof(d.dctn));
	d.dctn = qp->qpn;
	return c.write_out(kAttrUhwOut, &d, d.response_length, d.response_length);
}

int w_query_qp(Call &c, const uint8_t *in, size_t)
{
	QueryQpCmd q;
	memcpy(&q, in, sizeof(q));
	Uobj *qp = c.ctx.find(q.qp_handle, Uobj::Type::Qp);
	if (!qp) {
		klog(1, "uverbs%u: QUERY_QP of handle %u: no such QP", c.ctx.dev()->index,
		     q.qp_handle);
		return -EINVAL;
	}
	QpInfo info;
	int ret = c.ctx.hca->query_qp(qp->qpn, &info);
	if (ret)
		return ret;
	const struct ibv_qp_attr &s = qp->attr;
	QueryQpResp r;
	memset(&r, 0, sizeof(r));
	ah_to_dest(s.ah_attr, &r.dest);
	r.cap = qp->cap;
	r.rq_psn = s.rq_psn;
	r.sq_psn = s.sq_psn;
	r.dest_qp_num = info.dest_qpn;
	r.qp_access_flags = info.access_flags;
	r.pkey_index = s.pkey_index;
	r.qp_state = (uint8_t)info.state;
	r.cur_qp_state = (uint8_t)info.state;
	r.path_mtu = (uint8_t)s.path_mtu;
	r.max_rd_atomic = s.max_rd_atomic;
	r.max_dest_rd_atomic = s.max_dest_rd_atomic;
	r.min_rnr_timer = s.min_rnr_timer;
	r.port_num = s.port_num;
	r.timeout = s.timeout;
	r.retry_cnt = s.retry_cnt;
	r.rnr_retry = s.rnr_retry;
	r.sq_sig_all = qp->sq_sig_all;
	r.qkey = info.qkey;
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

} // namespace kernel
} // namespace mlx5sim
