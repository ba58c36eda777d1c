/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: the uverbs methods and legacy commands of the context, the queries,
 * PDs, MRs, UARs and the async event fd, with mlx5's driver data. What the answers
 * say comes from the software HCA's capabilities (hca.h); every object is made by
 * a device command. The Context lock is held (Context::ioctl).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mlx5_abi.h"
#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

namespace {

constexpr uint32_t kPortNum = 1;
constexpr uint32_t kGidTblLen = 1;
/** Optional MR access bits: ignored when the device lacks them (IB_ACCESS_OPTIONAL). */
constexpr uint32_t kAccessOptional = 0x3ff00000u;
constexpr uint32_t kAccessRelaxedOrdering = 1u << 20;
constexpr uint32_t kAccessKnown = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
				  IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
				  IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | kAccessOptional;
/** fw_ver 1.0.0: bits 47..32 major, 31..16 minor, 15..0 subminor. */
constexpr uint64_t kFwVer = 1ull << 32;

uint32_t log2_ceil(uint64_t v)
{
	uint32_t l = 0;
	while ((1ull << l) < v)
		l++;
	return l;
}

uint32_t round_pow2(uint32_t v)
{
	return 1u << log2_ceil(v);
}

void fill_query_device(const Context &ctx, QueryDeviceResp *r)
{
	const HcaCaps &caps = ctx.hca->caps();
	uint64_t guid = htobe64(ctx.dev()->node_guid);

	memset(r, 0, sizeof(*r));
	r->fw_ver = kFwVer;
	r->node_guid = guid;
	r->sys_image_guid = guid;
	r->max_mr_size = UINT64_MAX;
	r->page_size_cap = 0xfffff000u; /* 4 KiB and up */
	r->vendor_id = 0x02c9;          /* Mellanox */
	r->vendor_part_id = 0x1021;     /* ConnectX-7, as the modalias says */
	r->max_qp = caps.max_qp;
	r->max_qp_wr = caps.max_send_wqebb;
	r->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_CHANGE_PHY_PORT |
			      IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_PORT_ACTIVE_EVENT;
	r->max_sge = caps.max_sge;
	r->max_sge_rd = caps.max_sge;
	r->max_cq = caps.max_cq;
	r->max_cqe = caps.max_cqe;
	r->max_mr = caps.max_mr;
	r->max_pd = caps.max_pd;
	r->max_qp_rd_atom = 16;
	r->max_qp_init_rd_atom = 16;
	r->max_res_rd_atom = caps.max_qp * 16;
	r->atomic_cap = IBV_ATOMIC_HCA;
	r->max_srq = caps.max_qp; /* the model's SRQ table (srq_table.cpp) */
	r->max_srq_wr = caps.max_recv_wr - 1;
	r->max_srq_sge = caps.max_sge;
	r->max_pkeys = 1;
	r->local_ca_ack_delay = 16;
	r->phys_port_cnt = 1;
}

void fill_query_port(const Context &ctx, QueryPortResp *r)
{
	memset(r, 0, sizeof(*r));
	r->state = IBV_PORT_ACTIVE;
	r->max_mtu = IBV_MTU_4096;
	r->active_mtu = IBV_MTU_4096;
	r->gid_tbl_len = kGidTblLen;
	r->max_msg_sz = 1u << 31;
	r->pkey_tbl_len = 1;
	/* the preferred LID; a machine-wide fabric may hand out another (hca.h) */
	r->lid = ctx.hca->caps().lid;
	r->sm_lid = 1;
	r->max_vl_num = 1;
	r->phys_state = 5; /* LinkUp */
	r->link_layer = IBV_LINK_LAYER_INFINIBAND;
	r->active_width = 2;          /* 4x */
	r->active_speed = 64;         /* NDR-class */
	r->port_cap_flags = 1u << 16; /* connection management supported */
}

void fill_ucontext_resp(const Context &ctx, Mlx5AllocUcontextResp *r, uint8_t cqe_version)
{
	const HcaCaps &caps = ctx.hca->caps();

	memset(r, 0, sizeof(*r));
	r->qp_tab_size = round_pow2(caps.max_qp);
	r->bf_reg_size = 0; /* no BlueFlame: every QP rings the context's NC UAR */
	r->tot_bfregs = 0;  /* dynamic UARs only (UAR objects) */
	r->cache_line_size = 64;
	r->max_sq_desc_sz = (uint16_t)caps.max_sq_desc_sz;
	r->max_rq_desc_sz = (uint16_t)(16 * caps.max_sge);
	r->max_send_wqebb = caps.max_send_wqebb;
	r->max_recv_wr = caps.max_recv_wr;
	r->max_srq_recv_wr = caps.max_recv_wr;
	r->num_ports = 1;
	r->comp_mask = caps.sqd2rts ? kUctxRespSqd2Rts : 0;
	r->response_length = sizeof(*r);
	r->cqe_version = cqe_version;
	r->cmds_supp_uhw = kCmdsSuppUhwQueryDevice;
	r->log_uar_size = 12;
	r->num_uars_per_page = 1;
}

/* ---- legacy commands through INVOKE_WRITE ----------------------------------------- */

struct WriteCmd {
	uint32_t cmd;
	const char *name;
	size_t req_size;  /**< core request, without headers */
	size_t resp_size; /**< 0: no core response */
	int (*fn)(Call &c, const uint8_t *in, size_t inlen);
};

int w_query_device(Call &c, const uint8_t *, size_t)
{
	QueryDeviceResp r;
	fill_query_device(c.ctx, &r);
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

int w_ex_query_device(Call &c, const uint8_t *in, size_t)
{
	ExQueryDevice q;
	memcpy(&q, in, sizeof(q));
	if (q.comp_mask || q.reserved) {
		klog(1, "uverbs%u: EX_QUERY_DEVICE comp_mask 0x%x reserved 0x%x",
		     c.ctx.dev()->index, q.comp_mask, q.reserved);
		return -EINVAL;
	}
	size_t uhw_out = c.len(kAttrUhwOut);
	if (uhw_out && uhw_out < 8) {
		klog(1, "uverbs%u: EX_QUERY_DEVICE driver response of %zu bytes",
		     c.ctx.dev()->index, uhw_out);
		return -EINVAL;
	}
	ExQueryDeviceResp r;
	memset(&r, 0, sizeof(r));
	fill_query_device(c.ctx, &r.base);
	size_t out = c.len(A_WRITE_CORE_OUT);
	r.response_length = (uint32_t)(out < sizeof(r) ? out : sizeof(r));
	const HcaCaps &caps = c.ctx.hca->caps();
	if (caps.odp_implicit) {
		r.odp_caps.general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
		/* the device probes on-demand pages at every access: atomics and SRQ
		 * receives included (wqe_plan.cpp) */
		r.odp_caps.rc_odp_caps = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
					 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
					 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
		/* UD datagrams move through the same probed spans (ud.cpp) */
		r.odp_caps.ud_odp_caps = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	}
	r.device_cap_flags_ex = r.base.device_cap_flags;
	int ret = c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
	if (ret || !uhw_out)
		return ret;
	Mlx5QueryDeviceResp m;
	memset(&m, 0, sizeof(m));
	m.response_length = (uint32_t)(uhw_out < sizeof(m) ? uhw_out : sizeof(m));
	m.dci_max_log_num_concurent = caps.dc ? caps.dci_max_log_streams : 0;
	m.dci_max_log_num_errored = caps.dc ? caps.dci_max_log_errored : 0;
	return c.write_out(kAttrUhwOut, &m, sizeof(m));
}

int w_query_port(Call &c, const uint8_t *in, size_t)
{
	QueryPortCmd q;
	memcpy(&q, in, sizeof(q));
	if (q.port_num != kPortNum) {
		klog(1, "uverbs%u: QUERY_PORT of port %u (the device has port 1)",
		     c.ctx.dev()->index, q.port_num);
		return -EINVAL;
	}
	QueryPortResp r;
	fill_query_port(c.ctx, &r);
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

int w_alloc_pd(Call &c, const uint8_t *, size_t)
{
	uint32_t pdn;
	int ret = c.ctx.hca->alloc_pd(&pdn);
	if (ret) {
		klog(1, "uverbs%u: ALLOC_PD: %s", c.ctx.dev()->index, strerror(-ret));
		return ret;
	}
	Uobj o;
	o.type = Uobj::Type::Pd;
	o.pdn = pdn;
	AllocPdResp r = {c.ctx.add(o)};
	Mlx5AllocPdResp m = {pdn};
	ret = c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
	if (!ret)
		ret = c.write_out(kAttrUhwOut, &m, sizeof(m));
	if (ret) { /* the caller never learns the handle: undo */
		c.ctx.destroy_obj(c.ctx.objs[r.pd_handle]);
		c.ctx.objs.erase(r.pd_handle);
	}
	return ret;
}

int destroy_handle(Call &c, uint32_t handle, Uobj::Type t, const char *what)
{
	auto it = c.ctx.objs.find(handle);
	if (it == c.ctx.objs.end()) {
		klog(1, "uverbs%u: %s: no object with handle %u", c.ctx.dev()->index, what, handle);
		return -ENOENT;
	}
	if (it->second.type != t) {
		klog(1, "uverbs%u: %s: handle %u is another type of object", c.ctx.dev()->index,
		     what, handle);
		return -EINVAL;
	}
	int ret = c.ctx.destroy_obj(it->second);
	if (ret) {
		klog(1, "uverbs%u: %s of handle %u: %s", c.ctx.dev()->index, what, handle,
		     strerror(-ret));
		return ret;
	}
	c.ctx.objs.erase(it);
	return 0;
}

int w_dealloc_pd(Call &c, const uint8_t *in, size_t)
{
	DeallocPdCmd q;
	memcpy(&q, in, sizeof(q));
	return destroy_handle(c, q.pd_handle, Uobj::Type::Pd, "DEALLOC_PD");
}

int w_reg_mr(Call &c, const uint8_t *in, size_t)
{
	RegMrCmd q;
	memcpy(&q, in, sizeof(q));
	unsigned idx = c.ctx.dev()->index;
	if ((q.start & (kPage - 1)) != (q.hca_va & (kPage - 1)) || q.length == 0) {
		klog(1, "uverbs%u: REG_MR start 0x%llx iova 0x%llx length %llu", idx,
		     (unsigned long long)q.start, (unsigned long long)q.hca_va,
		     (unsigned long long)q.length);
		return -EINVAL;
	}
	if (q.access_flags & ~kAccessKnown) {
		klog(1, "uverbs%u: REG_MR access flags 0x%x", idx, q.access_flags);
		return -EINVAL;
	}
	if (q.hca_va != q.start || (q.access_flags & IBV_ACCESS_ZERO_BASED)) {
		/* the device's MRs are addressed by virtual address (hca.h) */
		klog(1, "uverbs%u: REG_MR with iova 0x%llx != address 0x%llx: not modelled", idx,
		     (unsigned long long)q.hca_va, (unsigned long long)q.start);
		return -EOPNOTSUPP;
	}
	Uobj *pd = c.ctx.find(q.pd_handle, Uobj::Type::Pd);
	if (!pd) {
		klog(1, "uverbs%u: REG_MR on PD handle %u: no such PD", idx, q.pd_handle);
		return -EINVAL;
	}
	/* optional bits the device lacks are dropped, as the kernel does */
	int access = (int)(q.access_flags & ~(kAccessOptional & ~kAccessRelaxedOrdering) &
			   ~IBV_ACCESS_HUGETLB);
	uint32_t key;
	int ret = c.ctx.hca->reg_mr(pd->pdn, q.start, q.length, access, &key);
	if (ret) {
		klog(1, "uverbs%u: REG_MR [0x%llx, +%llu) access 0x%x: %s", idx,
		     (unsigned long long)q.start, (unsigned long long)q.length, access,
		     strerror(-ret));
		return ret;
	}
	Uobj o;
	o.type = Uobj::Type::Mr;
	o.key = key;
	o.pd_handle = q.pd_handle;
	o.mr_addr = q.start;
	o.mr_len = q.length;
	o.mr_access = (uint32_t)access;
	RegMrResp r = {c.ctx.add(o), key, key};
	ret = c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
	if (ret) {
		c.ctx.destroy_obj(c.ctx.objs[r.mr_handle]);
		c.ctx.objs.erase(r.mr_handle);
	}
	return ret;
}

/**
 * REREG_MR: the kernel's checks (ib_uverbs_rereg_mr), then the device changes the MR
 * in place and the keys stay, as mlx5's UMR rereg keeps them.
 */
int w_rereg_mr(Call &c, const uint8_t *in, size_t)
{
	ReregMrCmd q;
	memcpy(&q, in, sizeof(q));
	unsigned idx = c.ctx.dev()->index;
	constexpr uint32_t kAll = IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD |
				  IBV_REREG_MR_CHANGE_ACCESS;
	bool trans = q.flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	if (!q.flags || (q.flags & ~kAll) ||
	    (trans && (!q.start || !q.hca_va || !q.length ||
		       (q.start & (kPage - 1)) != (q.hca_va & (kPage - 1))))) {
		klog(1, "uverbs%u: REREG_MR flags 0x%x start 0x%llx iova 0x%llx length %llu", idx,
		     q.flags, (unsigned long long)q.start, (unsigned long long)q.hca_va,
		     (unsigned long long)q.length);
		return -EINVAL;
	}
	auto it = c.ctx.objs.find(q.mr_handle);
	if (it == c.ctx.objs.end() || it->second.type != Uobj::Type::Mr) {
		klog(1, "uverbs%u: REREG_MR of handle %u: no such MR", idx, q.mr_handle);
		return it == c.ctx.objs.end() ? -ENOENT : -EINVAL;
	}
	Uobj &mr = it->second;
	uint32_t access = mr.mr_access;
	if (q.flags & IBV_REREG_MR_CHANGE_ACCESS) {
		if ((q.access_flags & ~kAccessKnown) ||
		    ((q.access_flags & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
		     !(q.access_flags & IBV_ACCESS_LOCAL_WRITE))) {
			klog(1, "uverbs%u: REREG_MR access flags 0x%x", idx, q.access_flags);
			return -EINVAL;
		}
		access = q.access_flags & ~(kAccessOptional & ~kAccessRelaxedOrdering) &
			 ~IBV_ACCESS_HUGETLB;
	}
	Uobj *pd = c.ctx.find(q.flags & IBV_REREG_MR_CHANGE_PD ? q.pd_handle : mr.pd_handle,
			      Uobj::Type::Pd);
	if (!pd) {
		klog(1, "uverbs%u: REREG_MR to PD handle %u: no such PD", idx, q.pd_handle);
		return -EINVAL;
	}
	if ((trans && (q.hca_va != q.start || (access & IBV_ACCESS_ZERO_BASED))) ||
	    ((access | mr.mr_access) & IBV_ACCESS_ON_DEMAND)) {
		/* the device's MRs are addressed by virtual address; ODP MRs keep theirs */
		klog(1,
		     "uverbs%u: REREG_MR iova 0x%llx of 0x%llx, access 0x%x (was 0x%x): not "
		     "modelled",
		     idx, (unsigned long long)q.hca_va, (unsigned long long)q.start, access,
		     mr.mr_access);
		return -EOPNOTSUPP;
	}
	uint64_t addr = trans ? q.start : mr.mr_addr, len = trans ? q.length : mr.mr_len;
	int ret = c.ctx.hca->rereg_mr(mr.key, pd->pdn, addr, len, (int)access);
	if (ret) {
		klog(1, "uverbs%u: REREG_MR [0x%llx, +%llu) access 0x%x of key 0x%x: %s", idx,
		     (unsigned long long)addr, (unsigned long long)len, access, mr.key,
		     strerror(-ret));
		return ret;
	}
	mr.mr_addr = addr;
	mr.mr_len = len;
	mr.mr_access = access;
	if (q.flags & IBV_REREG_MR_CHANGE_PD)
		mr.pd_handle = q.pd_handle;
	ReregMrResp r = {mr.key, mr.key};
	return c.write_out(A_WRITE_CORE_OUT, &r, sizeof(r));
}

int w_dereg_mr(Call &c, const uint8_t *in, size_t)
{
	DeregMrCmd q;
	memcpy(&q, in, sizeof(q));
	return destroy_handle(c, q.mr_handle, Uobj::Type::Mr, "DEREG_MR");
}

const WriteCmd kWriteCmds[] = {
	{WCMD_QUERY_DEVICE, "QUERY_DEVICE", sizeof(CmdResponsePtr), sizeof(QueryDeviceResp),
	 w_query_device},
	{WCMD_QUERY_PORT, "QUERY_PORT", sizeof(QueryPortCmd), sizeof(QueryPortResp), w_query_port},
	{WCMD_ALLOC_PD, "ALLOC_PD", sizeof(CmdResponsePtr), sizeof(AllocPdResp), w_alloc_pd},
	{WCMD_DEALLOC_PD, "DEALLOC_PD", sizeof(DeallocPdCmd), 0, w_dealloc_pd},
	{WCMD_REG_MR, "REG_MR", sizeof(RegMrCmd), sizeof(RegMrResp), w_reg_mr},
	{WCMD_DEREG_MR, "DEREG_MR", sizeof(DeregMrCmd), 0, w_dereg_mr},
	{WCMD_REREG_MR, "REREG_MR", sizeof(ReregMrCmd), sizeof(ReregMrResp), w_rereg_mr},
	{WCMD_EX_QUERY_DEVICE, "EX_QUERY_DEVICE", sizeof(ExQueryDevice), 0, w_ex_query_device},
	{WCMD_QUERY_QP, "QUERY_QP", sizeof(QueryQpCmd), sizeof(QueryQpResp), w_query_qp},
	{WCMD_MODIFY_QP, "MODIFY_QP", sizeof(ModifyQpCmd), 0, w_modify_qp},
	{WCMD_EX_MODIFY_QP, "EX_MODIFY_QP", sizeof(ExModifyQp), 0, w_ex_modify_qp},
	{WCMD_MODIFY_SRQ, "MODIFY_SRQ", sizeof(ModifySrqCmd), 0, w_modify_srq},
	{WCMD_QUERY_SRQ, "QUERY_SRQ", sizeof(QuerySrqCmd), sizeof(QuerySrqResp), w_query_srq},
	{WCMD_CREATE_COMP_CHANNEL, "CREATE_COMP_CHANNEL", sizeof(CmdResponsePtr), sizeof(uint32_t),
	 w_create_comp_channel},
	{WCMD_RESIZE_CQ, "RESIZE_CQ", sizeof(ResizeCqCmd), sizeof(ResizeCqResp), w_resize_cq},
};

/* ---- UAR pages --------------------------------------------------------------------- */

/** mmap offset of dynamic entry @p n (the kernel's rdma_user_mmap entries). */
uint64_t uar_mmap_offset(uint32_t n)
{
	uint32_t start = (kMmapCmdDynFirst << 16) + n; /* start_pgoff */
	uint32_t cmd = start >> 16, index = start & 0xffff;
	uint64_t pgoff = (uint64_t)(index >> 8) << 16 | cmd << kMmapCmdShift | (index & 0xff);
	return pgoff * kPage;
}

} // namespace

/** INVOKE_WRITE: a legacy command (kWriteCmds) carried by an ioctl. */
int h_invoke_write(Call &c)
{
	uint32_t cmd = 0;
	int ret = c.read_in(A_WRITE_CMD, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	const WriteCmd *w = nullptr;
	for (const WriteCmd &e : kWriteCmds)
		if (e.cmd == cmd)
			w = &e;
	if (!w) {
		klog(1, "uverbs%u: legacy command 0x%x not served", c.ctx.dev()->index, cmd);
		return -EOPNOTSUPP;
	}
	/* the probe libibverbs sends at open (WRITE_CMD alone) ends here, as on Linux */
	size_t inlen = c.len(A_WRITE_CORE_IN);
	if (inlen < w->req_size || c.len(A_WRITE_CORE_OUT) < w->resp_size) {
		klog(2, "uverbs%u: %s: request %zu / response %zu bytes", c.ctx.dev()->index,
		     w->name, inlen, c.len(A_WRITE_CORE_OUT));
		return -ENOSPC;
	}
	if (!c.ctx.have_ucontext) {
		klog(1, "uverbs%u: %s before GET_CONTEXT", c.ctx.dev()->index, w->name);
		return -EINVAL;
	}
	uint8_t in[128];
	static_assert(sizeof(ModifyQpCmd) <= sizeof(in), "largest request");
	ret = c.read_in(A_WRITE_CORE_IN, in, sizeof(in));
	if (ret)
		return ret;
	klog(2, "uverbs%u: INVOKE_WRITE %s", c.ctx.dev()->index, w->name);
	return w->fn(c, in, inlen);
}

int h_get_context(Call &c)
{
	Context &ctx = c.ctx;
	unsigned idx = ctx.dev()->index;
	Mlx5AllocUcontextReq req;

	if (ctx.have_ucontext) {
		klog(1, "uverbs%u: GET_CONTEXT: the fd has its context already", idx);
		return -EINVAL;
	}
	size_t inlen = c.len(kAttrUhwIn);
	if (inlen < kUctxReqMin) {
		klog(1, "uverbs%u: GET_CONTEXT driver request of %zu bytes (16 at least)", idx,
		     inlen);
		return -EINVAL;
	}
	int ret = c.read_in(kAttrUhwIn, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2) {
		klog(1, "uverbs%u: GET_CONTEXT comp_mask 0x%x / reserved fields set", idx,
		     req.comp_mask);
		return -EOPNOTSUPP;
	}
	if (req.flags & ~kUctxDevx) {
		klog(1, "uverbs%u: GET_CONTEXT flags 0x%x", idx, req.flags);
		return -EINVAL;
	}
	if (!(req.lib_caps & kLibCapDynUar)) {
		/* static UAR pages (tot_bfregs != 0) are not modelled: libmlx5 v44 asks for these
		 */
		klog(1,
		     "uverbs%u: GET_CONTEXT without dynamic UARs (lib_caps 0x%llx): not "
		     "modelled",
		     idx, (unsigned long long)req.lib_caps);
		return -EOPNOTSUPP;
	}
	std::shared_ptr<Hca> hca = device_hca(ctx.dev());
	if (!hca)
		return -ENODEV;
	ctx.hca = hca;
	uint8_t cqe_version = req.max_cqe_version < hca->caps().cqe_version
				      ? req.max_cqe_version
				      : hca->caps().cqe_version;
	Mlx5AllocUcontextResp resp;
	fill_ucontext_resp(ctx, &resp, cqe_version);
	size_t outlen = c.len(kAttrUhwOut);
	resp.response_length = (uint32_t)(outlen < sizeof(resp) ? outlen : sizeof(resp));
	uint32_t ncomp = 1;
	uint64_t core = kCoreSupportOptionalMrAccess;
	if ((ret = c.write_out(A_CTX_NUM_COMP_VECTORS, &ncomp, sizeof(ncomp))) ||
	    (ret = c.write_out(A_CTX_CORE_SUPPORT, &core, sizeof(core))) ||
	    (ret = c.write_out(kAttrUhwOut, &resp, sizeof(resp)))) {
		ctx.hca.reset();
		return ret;
	}
	ctx.devx = req.flags & kUctxDevx;
	ctx.have_ucontext = true;
	return 0;
}

int h_query_context(Call &c)
{
	uint32_t ncomp = 1;
	uint64_t core = kCoreSupportOptionalMrAccess;
	Mlx5AllocUcontextResp resp;
	fill_ucontext_resp(c.ctx, &resp, c.ctx.hca->caps().cqe_version);
	size_t outlen = c.len(A_QUERY_CTX_MLX5_RESP_UCTX);
	resp.response_length = (uint32_t)(outlen < sizeof(resp) ? outlen : sizeof(resp));
	int ret;
	if ((ret = c.write_out(A_CTX_NUM_COMP_VECTORS, &ncomp, sizeof(ncomp))) ||
	    (ret = c.write_out(A_CTX_CORE_SUPPORT, &core, sizeof(core))))
		return ret;
	return c.write_out(A_QUERY_CTX_MLX5_RESP_UCTX, &resp, sizeof(resp));
}

int h_query_port(Call &c)
{
	uint64_t port = 0;
	int ret = c.read_in(A_QUERY_PORT_NUM, &port, sizeof(port));
	if (ret)
		return ret;
	if (port != kPortNum) {
		klog(1, "uverbs%u: QUERY_PORT of port %llu (the device has port 1)",
		     c.ctx.dev()->index, (unsigned long long)port);
		return -EINVAL;
	}
	QueryPortRespEx r;
	memset(&r, 0, sizeof(r));
	fill_query_port(c.ctx, &r.legacy);
	return c.write_out(A_QUERY_PORT_RESP, &r, sizeof(r));
}

int h_mlx5_query_port(Call &c)
{
	uint64_t port = 0;
	int ret = c.read_in(A_MLX5_QUERY_PORT_NUM, &port, sizeof(port));
	if (ret)
		return ret;
	if (port != kPortNum) {
		klog(1, "uverbs%u: MLX5_QUERY_PORT of port %llu", c.ctx.dev()->index,
		     (unsigned long long)port);
		return -EINVAL;
	}
	/* an InfiniBand port of a device without e-switch: no vport information */
	Mlx5QueryPortResp r;
	memset(&r, 0, sizeof(r));
	return c.write_out(A_MLX5_QUERY_PORT_RESP, &r, sizeof(r));
}

namespace {

/** GID @p index of the port: the IB default GID, link-local prefix + node GUID. */
void fill_gid(const Context &ctx, uint32_t index, GidEntry *e)
{
	memset(e, 0, sizeof(*e));
	e->gid[0] = htobe64(0xfe80000000000000ull);
	e->gid[1] = htobe64(ctx.dev()->node_guid);
	e->gid_index = index;
	e->port_num = kPortNum;
	e->gid_type = 0; /* IB */
}

} // namespace

int h_query_gid_entry(Call &c)
{
	uint64_t port = 0, index = 0;
	uint64_t flags = 0;
	int ret;
	if ((ret = c.read_in(A_GID_ENTRY_PORT, &port, sizeof(port))) ||
	    (ret = c.read_in(A_GID_ENTRY_GID_INDEX, &index, sizeof(index))) ||
	    (ret = c.read_in(A_GID_ENTRY_FLAGS, &flags, sizeof(flags))))
		return ret;
	if (flags || port != kPortNum || index >= kGidTblLen) {
		klog(1, "uverbs%u: QUERY_GID_ENTRY port %llu index %llu flags 0x%llx",
		     c.ctx.dev()->index, (unsigned long long)port, (unsigned long long)index,
		     (unsigned long long)flags);
		return -EINVAL;
	}
	GidEntry e;
	fill_gid(c.ctx, (uint32_t)index, &e);
	return c.write_out(A_GID_ENTRY_RESP_ENTRY, &e, sizeof(e));
}

int h_query_gid_table(Call &c)
{
	uint64_t entry_size = 0, flags = 0;
	int ret;
	if ((ret = c.read_in(A_GID_TABLE_ENTRY_SIZE, &entry_size, sizeof(entry_size))) ||
	    (ret = c.read_in(A_GID_TABLE_FLAGS, &flags, sizeof(flags))))
		return ret;
	size_t room = c.len(A_GID_TABLE_RESP_ENTRIES);
	if (flags || entry_size < sizeof(GidEntry) || entry_size > 4096 ||
	    room / entry_size < kGidTblLen) {
		klog(1,
		     "uverbs%u: QUERY_GID_TABLE entry size %llu flags 0x%llx room %zu (%u "
		     "entries)",
		     c.ctx.dev()->index, (unsigned long long)entry_size, (unsigned long long)flags,
		     room, kGidTblLen);
		return -EINVAL;
	}
	/* entries at entry_size strides, each zero-padded; the rest of the buffer untouched */
	uint64_t base = c.data(A_GID_TABLE_RESP_ENTRIES);
	for (uint32_t i = 0; i < kGidTblLen; i++) {
		uint8_t buf[4096] = {};
		fill_gid(c.ctx, i, reinterpret_cast<GidEntry *>(buf));
		if (!copy_to_user(base + i * entry_size, buf, entry_size))
			return -EFAULT;
	}
	uint64_t n = kGidTblLen;
	return c.write_out(A_GID_TABLE_RESP_NUM_ENTRIES, &n, sizeof(n));
}

int h_pd_destroy(Call &c)
{
	return destroy_handle(c, (uint32_t)c.data(A_DESTROY_HANDLE), Uobj::Type::Pd, "PD/DESTROY");
}

int h_mr_destroy(Call &c)
{
	return destroy_handle(c, (uint32_t)c.data(A_DESTROY_HANDLE), Uobj::Type::Mr, "MR/DESTROY");
}

/**
 * ADVISE_MR (ibv_advise_mr): prefetch hints for on-demand MRs. Each SGE must lie in
 * an on-demand MR of the PD (writable for PREFETCH_WRITE), else ENOENT as mlx5's
 * get_prefetchable_mr. The device probes on-demand pages at each access and keeps
 * no page tables, so there is nothing to fault in ahead; with FLUSH (synchronous)
 * the pages must be readable now, else EFAULT. That probe touches every page of
 * ranges up to 4 GiB each, so it runs after the Context lock is dropped
 * (AfterUnlock): it reads only the process's memory, never an object of the context,
 * and an MR deregistered meanwhile changes nothing of it (the kernel, too, faults
 * the pages in outside the uverbs locks).
 */
int h_mr_advise(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t advice = 0, flags = 0;
	int ret;
	if ((ret = c.read_in(A_ADVISE_MR_ADVICE, &advice, sizeof(advice))) ||
	    (ret = c.read_in(A_ADVISE_MR_FLAGS, &flags, sizeof(flags))))
		return ret;
	uint32_t pd = (uint32_t)c.data(A_ADVISE_MR_PD);
	if (!c.ctx.find(pd, Uobj::Type::Pd)) {
		klog(1, "uverbs%u: ADVISE_MR on handle %u: no such PD", idx, pd);
		return c.ctx.objs.count(pd) ? -EINVAL : -ENOENT;
	}
	size_t len = c.len(A_ADVISE_MR_SGE_LIST);
	if (len % sizeof(UverbsSge)) {
		klog(1, "uverbs%u: ADVISE_MR SGE list of %zu bytes", idx, len);
		return -EINVAL;
	}
	if (advice > kAdviseMrPrefetchNoFault || (flags & ~kAdviseMrFlagFlush)) {
		klog(1, "uverbs%u: ADVISE_MR advice %u flags 0x%x", idx, advice, flags);
		return -EOPNOTSUPP;
	}
	uint64_t list = c.data(A_ADVISE_MR_SGE_LIST);
	AfterUnlock probe;
	for (size_t off = 0; off < len; off += sizeof(UverbsSge)) {
		UverbsSge sge;
		if (!copy_from_user(&sge, list + off, sizeof(sge)))
			return -EFAULT;
		const Uobj *mr = nullptr;
		for (const auto &kv : c.ctx.objs)
			if (kv.second.type == Uobj::Type::Mr && kv.second.key == sge.lkey)
				mr = &kv.second;
		bool implicit = mr && mr->mr_addr == 0 && mr->mr_len == UINT64_MAX;
		if (!mr || mr->pd_handle != pd || !(mr->mr_access & IBV_ACCESS_ON_DEMAND) ||
		    (advice == 1 && !(mr->mr_access & IBV_ACCESS_LOCAL_WRITE)) ||
		    sge.addr + sge.length < sge.addr ||
		    (!implicit && (sge.addr < mr->mr_addr ||
				   sge.addr + sge.length > mr->mr_addr + mr->mr_len))) {
			klog(1,
			     "uverbs%u: ADVISE_MR lkey 0x%x [0x%llx, +%u): no on-demand MR of "
			     "PD %u covers it",
			     idx, sge.lkey, (unsigned long long)sge.addr, sge.length, pd);
			/* the SGEs before it are faulted in first, as mlx5's prefetch does */
			probe.then = -ENOENT;
			break;
		}
		if ((flags & kAdviseMrFlagFlush) && advice != kAdviseMrPrefetchNoFault)
			probe.probe.emplace_back(sge.addr, sge.length);
	}
	if (c.after) {
		*c.after = probe;
		return 0;
	}
	return probe.run(idx);
}

int AfterUnlock::run(unsigned idx) const
{
	uint8_t b;
	for (const auto &r : probe) {
		for (uint64_t p = r.first; p < r.first + r.second; p = (p & ~(kPage - 1)) + kPage) {
			if (!copy_from_user(&b, p, 1)) {
				klog(1, "uverbs%u: ADVISE_MR page 0x%llx not mapped", idx,
				     (unsigned long long)p);
				return -EFAULT;
			}
		}
	}
	return then;
}

int h_async_event_alloc(Call &c)
{
	auto file = std::make_shared<AsyncFile>();
	file->owner = c.ctx.serial;
	file->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (file->fd < 0) {
		int err = errno;
		klog(1, "uverbs%u: ASYNC_EVENT/ALLOC: eventfd: %s", c.ctx.dev()->index,
		     strerror(err));
		return -err;
	}
	int ret = c.set_new(A_ASYNC_EVENT_FD, (uint64_t)file->fd);
	if (ret) {
		sys::close(file->fd);
		return ret;
	}
	fd_register_async(file->fd, file);
	if (!c.ctx.default_async)
		c.ctx.default_async = file;
	return 0;
}

int h_uar_alloc(Call &c)
{
	uint64_t type = 0;
	int ret = c.read_in(A_UAR_TYPE, &type, sizeof(type));
	if (ret)
		return ret;
	if (type != kUarTypeBf && type != kUarTypeNc) {
		klog(1, "uverbs%u: UAR/ALLOC type %llu", c.ctx.dev()->index,
		     (unsigned long long)type);
		return -EINVAL;
	}
	Context &ctx = c.ctx;
	uint32_t page = ctx.next_uar_page;
	if (page >= 0x10000) /* the dynamic mmap entries of one command byte */
		return -ENOMEM;
	/* the page lives in the context's memfd; the device keeps its own mapping */
	if (ftruncate(ctx.fd(), (off_t)((page + 1) * kPage))) {
		int err = errno;
		klog(1, "uverbs%u: UAR/ALLOC: %s", ctx.dev()->index, strerror(err));
		return -err;
	}
	void *dev_map = sys::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, ctx.fd(),
				  (off_t)(page * kPage));
	if (dev_map == MAP_FAILED) {
		int err = errno;
		klog(1, "uverbs%u: UAR/ALLOC: mapping the page: %s", ctx.dev()->index,
		     strerror(err));
		return -err;
	}
	Uobj o;
	o.type = Uobj::Type::Uar;
	o.uar_page = page;
	o.uar_dev = dev_map;
	uint32_t handle = ctx.add(o);
	uint64_t off = uar_mmap_offset(page);
	uint32_t len = (uint32_t)kPage, page_id = page;
	if ((ret = c.write_out(A_UAR_MMAP_OFFSET, &off, sizeof(off))) ||
	    (ret = c.write_out(A_UAR_MMAP_LENGTH, &len, sizeof(len))) ||
	    (ret = c.write_out(A_UAR_PAGE_ID, &page_id, sizeof(page_id))) ||
	    (ret = c.set_new(A_UAR_HANDLE, handle))) {
		ctx.destroy_obj(ctx.objs[handle]);
		ctx.objs.erase(handle);
		return ret;
	}
	ctx.next_uar_page++; /* pages are never reused: an old mapping stays harmless */
	return 0;
}

int h_uar_destroy(Call &c)
{
	return destroy_handle(c, (uint32_t)c.data(A_UAR_HANDLE), Uobj::Type::Uar,
			      "MLX5_UAR/DESTROY");
}

} // namespace kernel
} // namespace mlx5sim
