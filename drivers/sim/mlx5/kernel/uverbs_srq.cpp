/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: shared receive queues on the provider's own WQE ring and doorbell
 * record (SRQ/CREATE with mlx5's driver data, SRQ/DESTROY), MODIFY_SRQ (arming the
 * limit; mlx5 cannot resize) and QUERY_SRQ. The ring is libmlx5's linked list
 * (srq.c); the device follows its links (srq_table.cpp). The Context lock is held
 * (Context::ioctl).
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "mlx5_abi.h"
#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

namespace {

constexpr uint32_t kSrqNextSeg = 16;  /* mlx5_wqe_srq_next_seg */
constexpr uint32_t kDataSeg = 16;     /* mlx5_wqe_data_seg */
constexpr uint32_t kSrqMaxShift = 10; /* the model's largest receive WQE (hca_limits.h) */
constexpr uint32_t kSrqFlagSignature = 1u << 0;
constexpr uint32_t kUidxMask = 0xffffff;

/** The power of two at or above @p v (at most 2^31: callers bound @p v). */
uint32_t round_pow2(uint64_t v)
{
	uint32_t l = 0;
	while ((1ull << l) < v)
		l++;
	return 1u << l;
}

uint32_t log2_of(uint32_t pow2)
{
	uint32_t l = 0;
	while ((1u << l) < pow2)
		l++;
	return l;
}

} // namespace

int h_srq_create(Call &c)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	uint32_t type = 0, max_wr = 0, max_sge = 0;
	uint64_t user_handle = 0;
	Mlx5CreateSrq req;
	int ret;

	if ((ret = c.read_in(A_SRQ_TYPE, &type, sizeof(type))) ||
	    (ret = c.read_in(A_SRQ_USER_HANDLE, &user_handle, sizeof(user_handle))) ||
	    (ret = c.read_in(A_SRQ_MAX_WR, &max_wr, sizeof(max_wr))) ||
	    (ret = c.read_in(A_SRQ_MAX_SGE, &max_sge, sizeof(max_sge))))
		return ret;
	if (type != kUverbsSrqtBasic || c.has(A_SRQ_XRCD) || c.has(A_SRQ_CQ) ||
	    c.has(A_SRQ_MAX_NUM_TAGS)) {
		klog(1, "uverbs%u: SRQ/CREATE type %u (XRC, tag matching): not modelled", idx,
		     type);
		return -EOPNOTSUPP;
	}
	if (c.len(kAttrUhwIn) < offsetof(Mlx5CreateSrq, uidx)) {
		klog(1, "uverbs%u: SRQ/CREATE driver request of %zu bytes", idx, c.len(kAttrUhwIn));
		return -EINVAL;
	}
	if ((ret = c.read_in(kAttrUhwIn, &req, sizeof(req))))
		return ret;
	if (req.reserved0 || req.reserved1 || (req.flags & ~kSrqFlagSignature) ||
	    (req.uidx & ~kUidxMask)) {
		klog(1, "uverbs%u: SRQ/CREATE driver flags 0x%x uidx 0x%x reserved %u/%u", idx,
		     req.flags, req.uidx, req.reserved0, req.reserved1);
		return -EINVAL;
	}
	if (req.flags & kSrqFlagSignature) {
		/* MLX5_SRQ_SIGNATURE: the device would check WQE signatures it does not model */
		klog(1, "uverbs%u: SRQ/CREATE with WQE signatures: not modelled", idx);
		return -EOPNOTSUPP;
	}
	Uobj *pd = ctx.find((uint32_t)c.data(A_SRQ_PD), Uobj::Type::Pd);
	if (!pd) {
		klog(1, "uverbs%u: SRQ/CREATE on PD handle %u: no such PD", idx,
		     (uint32_t)c.data(A_SRQ_PD));
		return ctx.objs.count((uint32_t)c.data(A_SRQ_PD)) ? -EINVAL : -ENOENT;
	}
	/* the SRQ's async events go to its event fd, else the file's first (as the kernel) */
	std::shared_ptr<AsyncFile> event_file = ctx.default_async;
	if (c.has(A_SRQ_EVENT_FD) &&
	    (ret = event_fd_lookup(ctx, (int)c.data(A_SRQ_EVENT_FD), EventFile::Kind::Async,
				   "SRQ/CREATE", &event_file)))
		return ret;
	const HcaCaps &caps = ctx.hca->caps();
	/* the kernel's geometry (mlx5_ib_create_srq): a power of two of WQEs above max_wr,
	 * each the next segment and max_sge data segments, at least 32 bytes. max_wr 0 is
	 * a ring of one WQE (libmlx5 asks for it when the caller's max_wr is 0) */
	uint32_t wqe_bytes = 0;
	if (max_sge <= caps.max_sge) { /* bounded: no shift beyond 32 bits below */
		wqe_bytes = round_pow2(kSrqNextSeg + (uint64_t)kDataSeg * max_sge);
		if (wqe_bytes < 32)
			wqe_bytes = 32;
	}
	if (max_wr >= caps.max_recv_wr || max_sge > caps.max_sge ||
	    wqe_bytes > (1u << kSrqMaxShift)) {
		klog(1, "uverbs%u: SRQ/CREATE max_wr %u max_sge %u (limits %u, %u)", idx, max_wr,
		     max_sge, caps.max_recv_wr - 1, caps.max_sge);
		return -EINVAL;
	}
	uint32_t wqe_cnt = round_pow2((uint64_t)max_wr + 1);
	uint64_t bytes = (uint64_t)wqe_cnt * wqe_bytes;
	if (!user_range_writable(req.buf_addr, bytes) || !user_range_writable(req.db_addr, 4)) {
		klog(1,
		     "uverbs%u: SRQ/CREATE ring 0x%llx (+%llu) or doorbell record 0x%llx not "
		     "the process's",
		     idx, (unsigned long long)req.buf_addr, (unsigned long long)bytes,
		     (unsigned long long)req.db_addr);
		return -EFAULT;
	}
	SrqConfig cfg;
	cfg.pdn = pd->pdn;
	cfg.buf = reinterpret_cast<void *>(req.buf_addr);
	cfg.wqe_cnt = wqe_cnt;
	cfg.wqe_shift = log2_of(wqe_bytes);
	cfg.dbrec = reinterpret_cast<uint32_t *>(req.db_addr);
	uint32_t srqn;
	if ((ret = ctx.hca->create_srq(cfg, &srqn))) {
		klog(1, "uverbs%u: SRQ/CREATE of %u WQEs of %u bytes: %s", idx, wqe_cnt, wqe_bytes,
		     strerror(-ret));
		return ret;
	}
	Uobj o;
	o.type = Uobj::Type::Srq;
	o.srqn = srqn;
	o.pd_handle = (uint32_t)c.data(A_SRQ_PD);
	o.user_handle = user_handle;
	o.srq_max_wr = wqe_cnt - 1;
	o.srq_max_sge = (wqe_bytes - kSrqNextSeg) / kDataSeg;
	qp_events_prepare(event_file, user_handle, o);
	srq_events_created(ctx, o);
	uint32_t handle = ctx.add(o);
	srq_doorbell_watch(ctx.dev(), ctx.hca.get(), srqn, cfg.dbrec);
	Mlx5CreateSrqResp m = {srqn, 0};
	if ((ret = c.write_out(A_SRQ_RESP_MAX_WR, &o.srq_max_wr, sizeof(o.srq_max_wr))) ||
	    (ret = c.write_out(A_SRQ_RESP_MAX_SGE, &o.srq_max_sge, sizeof(o.srq_max_sge))) ||
	    (ret = c.write_out(A_SRQ_RESP_SRQ_NUM, &srqn, sizeof(srqn))) ||
	    (ret = c.write_out(kAttrUhwOut, &m, sizeof(m))) ||
	    (ret = c.set_new(A_SRQ_HANDLE, handle))) {
		ctx.destroy_obj(ctx.objs[handle]);
		ctx.objs.erase(handle);
	}
	return ret;
}

int h_srq_destroy(Call &c)
{
	uint32_t h = (uint32_t)c.data(A_DESTROY_HANDLE);
	auto it = c.ctx.objs.find(h);
	if (it == c.ctx.objs.end() || it->second.type != Uobj::Type::Srq) {
		klog(1, "uverbs%u: SRQ/DESTROY: handle %u is no SRQ", c.ctx.dev()->index, h);
		return it == c.ctx.objs.end() ? -ENOENT : -EINVAL;
	}
	int ret = c.ctx.destroy_obj(it->second);
	if (ret) {
		/* EBUSY while a QP receives from it */
		klog(1, "uverbs%u: SRQ/DESTROY of SRQ 0x%x: %s", c.ctx.dev()->index,
		     it->second.srqn, strerror(-ret));
		return ret;
	}
	uint32_t events = it->second.ev ? it->second.ev->async_reported.load() : 0; /* read ones */
	c.ctx.objs.erase(it);
	return c.write_out(A_DESTROY_RESP, &events, sizeof(events));
}

int w_modify_srq(Call &c, const uint8_t *in, size_t)
{
	ModifySrqCmd q;
	memcpy(&q, in, sizeof(q));
	unsigned idx = c.ctx.dev()->index;
	Uobj *srq = c.ctx.find(q.srq_handle, Uobj::Type::Srq);
	if (!srq) {
		klog(1, "uverbs%u: MODIFY_SRQ of handle %u: no such SRQ", idx, q.srq_handle);
		return -EINVAL;
	}
	if (q.attr_mask & ~(uint32_t)(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) {
		klog(1, "uverbs%u: MODIFY_SRQ attr_mask 0x%x", idx, q.attr_mask);
		return -EINVAL;
	}
	if (q.attr_mask & IBV_SRQ_MAX_WR) {
		/* mlx5 cannot resize an SRQ (mlx5_ib_modify_srq) */
		klog(1, "uverbs%u: MODIFY_SRQ resize to %u: mlx5 SRQs are not resizable", idx,
		     q.max_wr);
		return -EINVAL;
	}
	if (!(q.attr_mask & IBV_SRQ_LIMIT))
		return 0;
	int ret = c.ctx.hca->arm_srq(srq->srqn, q.srq_limit);
	if (ret)
		klog(1, "uverbs%u: MODIFY_SRQ limit %u of SRQ 0x%x (%u WQEs): %s", idx, q.srq_limit,
		     srq->srqn, srq->srq_max_wr + 1, strerror(-ret));
	return ret;
}

int w_query_srq(Call &c, const uint8_t *in, size_t)
{
	QuerySrqCmd q;
	memcpy(&q, in, sizeof(q));
	Uobj *srq = c.ctx.find(q.srq_handle, Uobj::Type::Srq);
	if (!srq) {
		klog(1, "uverbs%u: QUERY_SRQ of handle %u: no such SRQ", c.ctx.dev()->index,
		     q.srq_handle);
		return -EINVAL;
	}
	QuerySrqResp r;
	memset(&r, 0, sizeof(r));
	int ret = c.ctx.hca->query_srq(srq->srqn, &r.srq_limit);
	if (ret)
		return ret;
	r.max_wr = srq->srq_max_wr;
	r.max_sge = srq->srq_max_sge;
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

} // namespace kernel
} // namespace mlx5sim
