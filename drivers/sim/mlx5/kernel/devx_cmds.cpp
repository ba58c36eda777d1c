/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: DevX general commands (MLX5_DEVX/OTHER) and objects (MLX5_DEVX_OBJ),
 * the firmware's part. libmlx5 sends QUERY_HCA_CAP while opening a context
 * (providers/mlx5/verbs.c) and sets its features from the answer, so the capability
 * bits are exactly what the software HCA has (HcaCaps). Objects: the indirect mkeys
 * and PSVs of mlx5dv_create_mkey, RESERVED_QPN blocks; QPs take INIT2INIT (mmo,
 * drain_sigerr) and QUERY_QP. A command the kernel would pass on but the software
 * HCA does not implement fails as a device fails an unknown one (status BAD_OP);
 * one the kernel itself refuses (outside its command lists) is EINVAL.
 */
#include <errno.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "mlx5_abi.h"
#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

namespace {

uint32_t log2_floor(uint64_t v)
{
	uint32_t l = 0;
	while (v >>= 1)
		l++;
	return l;
}

/** cmd_hca_cap (general device capabilities) of the device behind @p caps. */
void fill_general_caps(const HcaCaps &caps, uint8_t *cap)
{
	using namespace hca_cap;
	prm_set(cap, has_hca_cap_2, 1); /* for log_reserved_qpn_granularity */
	prm_set(cap, qp_data_in_order, caps.data_in_order != DataInOrder::None);
	if (caps.max_wr_memcpy_length) {
		prm_set(cap, dma_mmo_qp, 1);
		prm_set(cap, log_dma_mmo_max_size, log2_floor(caps.max_wr_memcpy_length));
	}
	prm_set(cap, log_max_qp_sz, log2_floor(caps.max_send_wqebb));
	prm_set(cap, log_max_qp, log2_floor(caps.max_qp));
	prm_set(cap, log_max_cq, log2_floor(caps.max_cq));
	prm_set(cap, cq_resize, 1); /* RESIZE_CQ (uverbs_qp.cpp) */
	prm_set(cap, log_max_pd, log2_floor(caps.max_pd));
	prm_set(cap, log_max_msg, 31);
	prm_set(cap, port_type, 0); /* InfiniBand */
	prm_set(cap, cqe_version, caps.cqe_version);
	prm_set(cap, dct, caps.dc);
	prm_set(cap, qpc_extension, caps.dc && caps.dci_max_log_errored);
	bool sig = caps.sig_sho && caps.sig_domain_and_sig_type;
	prm_set(cap, sho, caps.sig_sho);
	prm_set(cap, sigerr_domain_and_sig_type, caps.sig_domain_and_sig_type);
	prm_set(cap, sig_block_4048, sig && caps.sig_block_4048);
	prm_set(cap, sig_crc32c, sig && caps.sig_crc32c);
	prm_set(cap, sig_crc64_xp10, sig && caps.sig_crc64_xp10);
	prm_set(cap, general_obj_types, caps.reserved_qpn ? 1ull << kObjTypeReservedQpn : 0);
}

void fill_general2_caps(const HcaCaps &caps, uint8_t *cap)
{
	prm_set(cap, hca_cap_2::log_reserved_qpn_granularity, caps.log_reserved_qpn_granularity);
}

/** Answer @p out with a failed command status (the ioctl then fails with EREMOTEIO). */
int prm_fail(Call &c, std::vector<uint8_t> &out, uint8_t status, uint32_t syndrome,
	     uint16_t out_attr = A_DEVX_CMD_OUT)
{
	prm_set(out.data(), kPrmOutStatus, status);
	prm_set(out.data(), kPrmOutSyndrome, syndrome);
	int ret = c.write_out(out_attr, out.data(), out.size());
	return ret ? ret : -EREMOTEIO;
}

/**
 * Query commands the kernel passes to the firmware as general commands
 * (mlx5_ib's devx_is_general_cmd) besides QUERY_HCA_CAP: a device without them
 * answers BAD_OP.
 */
bool is_general_cmd(uint32_t op)
{
	static const uint16_t ops[] = {
		0x101, /* QUERY_ADAPTER */
		0x10a, /* QUERY_ISSI */
		0x740, /* QUERY_ESW_FUNCTIONS */
		0x750, /* QUERY_VPORT_STATE */
		0x752, /* QUERY_ESW_VPORT_CONTEXT */
		0x754, /* QUERY_NIC_VPORT_CONTEXT */
		0x760, /* QUERY_ROCE_ADDRESS */
		0x762, /* QUERY_HCA_VPORT_CONTEXT */
		0x805, /* ACCESS_REG */
		0x842, /* QUERY_LAG */
	};
	return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

/**
 * Create commands the kernel accepts in DEVX_OBJ/CREATE (devx_is_obj_create_cmd)
 * besides the three served here: the device answers them BAD_OP.
 */
bool is_obj_create_cmd(uint32_t op)
{
	static const uint16_t ops[] = {
		0x301, 0x400, 0x500, 0x700, 0x705, 0x710, 0x717, 0x771, 0x782, 0x800, 0x802, 0x80e,
		0x816, 0x900, 0x904, 0x908, 0x90c, 0x912, 0x916, 0x930, 0x933, 0x939, 0x93d, 0x940,
	};
	return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

/** PD @p pdn is one of this context's (a device checks the PD against the uid). */
bool own_pd(const Context &ctx, uint32_t pdn)
{
	for (const auto &kv : ctx.objs)
		if (kv.second.type == Uobj::Type::Pd && kv.second.pdn == pdn)
			return true;
	return false;
}

/** The device's status for a model errno of a create command. */
uint8_t status_of(int err)
{
	switch (err) {
	case -ENOMEM:
		return kPrmStatusLim;
	case -EOPNOTSUPP:
		return kPrmStatusBadOp;
	default:
		return kPrmStatusBadParam;
	}
}

uint64_t prm_get64(const uint8_t *box, PrmField hi, PrmField lo)
{
	return (uint64_t)prm_get(box, hi) << 32 | prm_get(box, lo);
}

/**
 * CREATE_MKEY as mlx5dv_create_mkey sends it (verbs.c): a free, UMR-enabled
 * KLM-mode mkey of the caller's PD with local read, optionally with a signature
 * BSF and remote invalidation. Everything else in the mkey context would ask the
 * device for a property the model's indirect mkeys do not have: BAD_PARAM.
 */
int devx_create_mkey(Call &c, const std::vector<uint8_t> &inv, size_t inlen,
		     std::vector<uint8_t> &out, Uobj *o)
{
	using namespace create_mkey;
	unsigned idx = c.ctx.dev()->index;
	const uint8_t *in = inv.data();
	if (inlen < kPrmCreateMkeyIn) {
		klog(1, "uverbs%u: CREATE_MKEY of %zu bytes (%zu needed)", idx, inlen,
		     kPrmCreateMkeyIn);
		return prm_fail(c, out, kPrmStatusBadInpLen, 0x300, A_DEVX_OBJ_CMD_OUT);
	}
	uint32_t pdn = prm_get(in, pd);
	if (!own_pd(c.ctx, pdn)) {
		klog(1, "uverbs%u: CREATE_MKEY: PD 0x%x is not the context's", idx, pdn);
		return prm_fail(c, out, kPrmStatusBadParam, 0x301, A_DEVX_OBJ_CMD_OUT);
	}
	bool sig = prm_get(in, bsf_en);
	uint32_t bsf_size = prm_get(in, bsf_octword_size);
	bool extra = std::any_of(inv.begin() + kPrmCreateMkeyIn, inv.begin() + inlen,
				 [](uint8_t b) { return b != 0; });
	if (prm_get(in, access_mode_1_0) != kAccessModeKlms || prm_get(in, access_mode_4_2) ||
	    !prm_get(in, is_free) || !prm_get(in, umr_en) || !prm_get(in, lr) ||
	    prm_get(in, a_rw_rr_lw) || prm_get(in, qpn) != 0xffffff || prm_get(in, mkey_7_0) ||
	    prm_get(in, length64) || prm_get64(in, start_addr_hi, start_addr_lo) ||
	    prm_get64(in, len_hi, len_lo) || prm_get(in, sync_umr) ||
	    prm_get(in, expected_sigerr_count) || prm_get(in, relaxed_ordering_write) ||
	    prm_get(in, relaxed_ordering_read) || prm_get(in, crypto_en) ||
	    prm_get(in, pg_access) || prm_get(in, mkey_umem_valid) ||
	    prm_get(in, translations_octword_actual_size) || extra ||
	    (sig ? bsf_size != kSigBsfOctowords : bsf_size != 0)) {
		klog(1,
		     "uverbs%u: CREATE_MKEY: only free, UMR-enabled KLM mkeys with local "
		     "read (and a 4-octoword signature BSF) are modelled",
		     idx);
		return prm_fail(c, out, kPrmStatusBadParam, 0x302, A_DEVX_OBJ_CMD_OUT);
	}
	const HcaCaps &caps = c.ctx.hca->caps();
	if (sig && !(caps.sig_sho && caps.sig_domain_and_sig_type)) {
		klog(1, "uverbs%u: CREATE_MKEY with a BSF: no signature offload", idx);
		return prm_fail(c, out, kPrmStatusBadParam, 0x303, A_DEVX_OBJ_CMD_OUT);
	}
	uint32_t flags = (sig ? (uint32_t)HCA_MKEY_BSF : 0u) |
			 (prm_get(in, en_rinval) ? (uint32_t)HCA_MKEY_REMOTE_INVALIDATE : 0u);
	uint32_t octowords = prm_get(in, translations_octword_size);
	uint32_t key;
	int ret = c.ctx.hca->create_mkey(pdn, octowords, flags, &key);
	if (ret) {
		klog(1, "uverbs%u: CREATE_MKEY of %u octowords: %s", idx, octowords,
		     strerror(-ret));
		return prm_fail(c, out, status_of(ret), 0x304, A_DEVX_OBJ_CMD_OUT);
	}
	prm_set(out.data(), out_mkey_index, key >> 8);
	o->devx_id = key;
	return 0;
}

/** CREATE_PSV with num_psv 1 (libmlx5's mlx5_create_psv, mlx5.c). */
int devx_create_psv(Call &c, const uint8_t *in, size_t inlen, std::vector<uint8_t> &out, Uobj *o)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t pdn = prm_get(in, create_psv::pd);
	uint32_t n = prm_get(in, create_psv::num_psv);
	if (inlen < kPrmCreatePsvIn || out.size() < kPrmCreatePsvOut) {
		klog(1, "uverbs%u: CREATE_PSV: %zu bytes in, %zu out", idx, inlen, out.size());
		return prm_fail(c, out, kPrmStatusBadInpLen, 0x310, A_DEVX_OBJ_CMD_OUT);
	}
	if (n != 1 || !own_pd(c.ctx, pdn)) {
		klog(1, "uverbs%u: CREATE_PSV of %u PSVs on PD 0x%x (one PSV on an own PD)", idx, n,
		     pdn);
		return prm_fail(c, out, kPrmStatusBadParam, 0x311, A_DEVX_OBJ_CMD_OUT);
	}
	uint32_t psv;
	int ret = c.ctx.hca->create_psv(pdn, &psv);
	if (ret) {
		klog(1, "uverbs%u: CREATE_PSV: %s", idx, strerror(-ret));
		return prm_fail(c, out, status_of(ret), 0x312, A_DEVX_OBJ_CMD_OUT);
	}
	prm_set(out.data(), create_psv::out_psv0_index, psv);
	o->devx_id = psv;
	return 0;
}

/** CREATE_GENERAL_OBJECT: RESERVED_QPN only (mlx5dv_reserved_qpn_alloc, mlx5.c). */
int devx_create_general(Call &c, const uint8_t *in, size_t inlen, std::vector<uint8_t> &out,
			Uobj *o)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t type = prm_get(in, general_obj::obj_type);
	if (type != hca_cap::kObjTypeReservedQpn || !c.ctx.hca->caps().reserved_qpn) {
		klog(1, "uverbs%u: CREATE_GENERAL_OBJECT of type 0x%x: not implemented", idx, type);
		return prm_fail(c, out, kPrmStatusBadOp, kPrmSyndromeBadOp, A_DEVX_OBJ_CMD_OUT);
	}
	if (inlen < kPrmCreateReservedQpnIn) {
		klog(1, "uverbs%u: CREATE RESERVED_QPN of %zu bytes", idx, inlen);
		return prm_fail(c, out, kPrmStatusBadInpLen, 0x320, A_DEVX_OBJ_CMD_OUT);
	}
	uint32_t log_range = prm_get(in, general_obj::log_obj_range);
	uint32_t first;
	int ret = c.ctx.hca->create_reserved_qpn(log_range, &first);
	if (ret) {
		klog(1, "uverbs%u: CREATE RESERVED_QPN of 2^%u QPNs: %s", idx, log_range,
		     strerror(-ret));
		return prm_fail(c, out, status_of(ret), 0x321, A_DEVX_OBJ_CMD_OUT);
	}
	prm_set(out.data(), general_obj::out_obj_id, first);
	o->devx_id = first;
	return 0;
}

/** The device's QUERY_QP answer for QP @p qpn (PRM state numbering). */
void fill_query_qp(const QpInfo &info, uint32_t pdn, bool in_order, uint8_t *out)
{
	uint32_t st;
	switch (info.state) {
	case IBV_QPS_RESET:
		st = kQpcStateRst;
		break;
	case IBV_QPS_INIT:
		st = kQpcStateInit;
		break;
	case IBV_QPS_RTR:
		st = kQpcStateRtr;
		break;
	case IBV_QPS_RTS:
		st = kQpcStateRts;
		break;
	case IBV_QPS_SQD:
		st = kQpcStateSqd;
		break;
	case IBV_QPS_SQE:
		st = kQpcStateSqer;
		break;
	default:
		st = kQpcStateErr;
		break;
	}
	prm_set(out, query_qp::state, st);
	prm_set(out, query_qp::pd, pdn);
	prm_set(out, query_qp::drain_sigerr, info.drain_sigerr);
	prm_set(out, query_qp::data_in_order, in_order);
	prm_set(out, query_qp::hw_sq_wqebb_counter, info.hw_sq_wqebb_counter);
}

/**
 * INIT2INIT setting qpc.drain_sigerr (libmlx5's mlx5_modify_qp_drain_sigerr, for
 * MLX5DV_QP_CREATE_SIG_PIPELINING): needs signature offload; the QP in INIT.
 */
int init2init_drain_sigerr(Call &c, Uobj &qp, const uint8_t *in, std::vector<uint8_t> &out)
{
	unsigned idx = c.ctx.dev()->index;
	const HcaCaps &caps = c.ctx.hca->caps();
	if (!prm_get(in, init2init::qpc_drain_sigerr) || prm_get(in, init2init::qpc_ext) ||
	    !(caps.sig_sho && caps.sig_domain_and_sig_type)) {
		klog(1,
		     "uverbs%u: INIT2INIT of QP 0x%x: drain_sigerr %u without signature "
		     "offload or with qpc_ext",
		     idx, qp.qpn, prm_get(in, init2init::qpc_drain_sigerr));
		return prm_fail(c, out, kPrmStatusBadParam, 0x203, A_DEVX_MODIFY_CMD_OUT);
	}
	if (c.ctx.hca->set_drain_sigerr(qp.qpn)) {
		klog(1, "uverbs%u: INIT2INIT of QP 0x%x (drain_sigerr) outside INIT", idx, qp.qpn);
		return prm_fail(c, out, kPrmStatusBadResState, 0x202, A_DEVX_MODIFY_CMD_OUT);
	}
	return c.write_out(A_DEVX_MODIFY_CMD_OUT, out.data(), out.size());
}

/**
 * RTS2RTS with qpc_ext.dci_stream_channel_id only (mlx5dv_dci_stream_id_reset): the
 * errored stream of a DCI in RTS runs again. Anything else, or a stream not in error,
 * is BAD_PARAM (the model's dci_stream_reset: EINVAL).
 */
int rts2rts_stream_reset(Call &c, Uobj &qp, const uint8_t *in, std::vector<uint8_t> &out)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t mask = prm_get(in, init2init::opt_param_mask);
	uint32_t mask_hi = prm_get(in, init2init::opt_mask_95_64);
	uint32_t mask_lo = prm_get(in, init2init::opt_mask_63_32);
	uint16_t stream = (uint16_t)prm_get(in, rts2rts::dci_stream_channel_id);
	if (mask || mask_hi || mask_lo != rts2rts::kOptMaskDciStreamChannelId ||
	    !prm_get(in, init2init::qpc_ext)) {
		klog(1,
		     "uverbs%u: RTS2RTS of QP 0x%x: optional parameters 0x%x/0x%x%08x (only "
		     "qpc_ext.dci_stream_channel_id is modelled)",
		     idx, qp.qpn, mask, mask_hi, mask_lo);
		return prm_fail(c, out, kPrmStatusBadParam, 0x204, A_DEVX_MODIFY_CMD_OUT);
	}
	if (c.ctx.hca->dci_stream_reset(qp.qpn, stream)) {
		klog(1, "uverbs%u: RTS2RTS of QP 0x%x: stream %u of no DCI in RTS, or not in error",
		     idx, qp.qpn, stream);
		return prm_fail(c, out, kPrmStatusBadParam, 0x205, A_DEVX_MODIFY_CMD_OUT);
	}
	return c.write_out(A_DEVX_MODIFY_CMD_OUT, out.data(), out.size());
}
} // namespace

int h_devx_other(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	if (!c.ctx.devx) {
		klog(1, "uverbs%u: DEVX command on a context opened without DEVX", idx);
		return -EINVAL;
	}
	uint8_t in[kPrmQueryHcaCapIn];
	int ret = c.read_in(A_DEVX_CMD_IN, in, sizeof(in));
	if (ret)
		return ret;
	uint32_t opcode = prm_get(in, kPrmInOpcode);
	if (opcode != kPrmOpQueryHcaCap) {
		if (!is_general_cmd(opcode)) {
			klog(1, "uverbs%u: DEVX general command opcode 0x%x not served", idx,
			     opcode);
			return -EINVAL;
		}
		klog(1, "uverbs%u: DEVX general command 0x%x: not implemented by the device", idx,
		     opcode);
		std::vector<uint8_t> out(kPrmOutHeader, 0);
		return prm_fail(c, out, kPrmStatusBadOp, kPrmSyndromeBadOp);
	}
	size_t outlen = c.len(A_DEVX_CMD_OUT);
	std::vector<uint8_t> out(outlen < kPrmQueryHcaCapOut ? kPrmQueryHcaCapOut : outlen, 0);
	uint32_t op_mod = prm_get(in, kPrmInOpMod);
	uint8_t *cap = out.data() + kPrmCapOffset;
	const HcaCaps &caps = c.ctx.hca->caps();
	switch (op_mod) {
	case kCapGeneral:
		fill_general_caps(caps, cap);
		break;
	case kCapGeneral2:
		fill_general2_caps(caps, cap);
		break;
	case kCapOdp:    /* no DC ODP capabilities */
	case kCapAtomic: /* no PCIe atomics: the device's atomics are its own */
		break;
	case kCapEthOffloads: /* an InfiniBand port */
	case kCapRoce:
	case kCapNicFlowTable: /* no flow steering */
	case kCapEswFlowTable:
	case kCapEsw:
	case kCapQos:    /* no scheduling elements */
	case kCapDevMem: /* no device memory */
	case kCapCrypto:
		/* capability pages of features the model lacks: every bit 0 */
		break;
	default:
		klog(1, "uverbs%u: QUERY_HCA_CAP op_mod 0x%x: no such capability", idx, op_mod);
		return prm_fail(c, out, kPrmStatusBadParam, 0x100);
	}
	if (outlen < kPrmQueryHcaCapOut) {
		klog(1, "uverbs%u: QUERY_HCA_CAP output of %zu bytes (%zu needed)", idx, outlen,
		     kPrmQueryHcaCapOut);
		return prm_fail(c, out, kPrmStatusBadParam, 0x101);
	}
	return c.write_out(A_DEVX_CMD_OUT, out.data(), outlen);
}

int h_devx_obj_modify(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	if (!c.ctx.devx) {
		klog(1, "uverbs%u: DEVX command on a context opened without DEVX", idx);
		return -EINVAL;
	}
	/* the kernel accepts any object here; of ours only a QP has DevX modify commands */
	uint32_t h = (uint32_t)c.data(A_DEVX_MODIFY_HANDLE);
	auto it = c.ctx.objs.find(h);
	if (it == c.ctx.objs.end() || it->second.type != Uobj::Type::Qp) {
		klog(1, "uverbs%u: DEVX_OBJ/MODIFY of handle %u: no QP", idx, h);
		return it == c.ctx.objs.end() ? -ENOENT : -EINVAL;
	}
	Uobj &qp = it->second;
	uint8_t in[kPrmInit2InitIn];
	int ret = c.read_in(A_DEVX_MODIFY_CMD_IN, in, sizeof(in));
	if (ret)
		return ret;
	uint32_t opcode = prm_get(in, kPrmInOpcode);
	uint32_t qpn = prm_get(in, init2init::qpn);
	/* mlx5_ib checks that the command modifies the object named (devx_is_valid_obj_id) */
	if ((opcode != kPrmOpInit2InitQp && opcode != kPrmOpRts2RtsQp) || qpn != qp.qpn) {
		klog(1, "uverbs%u: DEVX_OBJ/MODIFY of QP 0x%x: opcode 0x%x qpn 0x%x not served",
		     idx, qp.qpn, opcode, qpn);
		return -EINVAL;
	}
	std::vector<uint8_t> out(kPrmOutHeader, 0);
	if (opcode == kPrmOpRts2RtsQp)
		return rts2rts_stream_reset(c, qp, in, out);
	uint32_t mask = prm_get(in, init2init::opt_param_mask);
	uint32_t mask_hi = prm_get(in, init2init::opt_mask_95_64);
	uint32_t mask_lo = prm_get(in, init2init::opt_mask_63_32);
	bool mmo = prm_get(in, init2init::qpc_ext_mmo);
	if (mask == init2init::kOptMaskDrainSigerr && !mask_hi && !mask_lo)
		return init2init_drain_sigerr(c, qp, in, out);
	/* only qpc_ext.mmo and drain_sigerr are modelled: other parameters are refused */
	if (mask || mask_hi || mask_lo != init2init::kOptMaskMmo ||
	    !prm_get(in, init2init::qpc_ext)) {
		klog(1,
		     "uverbs%u: INIT2INIT of QP 0x%x: optional parameters 0x%x/0x%x%08x "
		     "(only qpc_ext.mmo and drain_sigerr are modelled)",
		     idx, qp.qpn, mask, mask_hi, mask_lo);
		return prm_fail(c, out, kPrmStatusBadParam, 0x200, A_DEVX_MODIFY_CMD_OUT);
	}
	if (mmo && !c.ctx.hca->caps().max_wr_memcpy_length) {
		klog(1, "uverbs%u: INIT2INIT of QP 0x%x: no memcpy MMO on this device", idx,
		     qp.qpn);
		return prm_fail(c, out, kPrmStatusBadParam, 0x201, A_DEVX_MODIFY_CMD_OUT);
	}
	QpInfo info = {};
	if (c.ctx.hca->query_qp(qp.qpn, &info) || info.state != IBV_QPS_INIT) {
		klog(1, "uverbs%u: INIT2INIT of QP 0x%x in state %d", idx, qp.qpn, (int)info.state);
		return prm_fail(c, out, kPrmStatusBadResState, 0x202, A_DEVX_MODIFY_CMD_OUT);
	}
	qp.mmo = mmo;
	return c.write_out(A_DEVX_MODIFY_CMD_OUT, out.data(), out.size());
}

int h_devx_obj_create(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	if (!c.ctx.devx) {
		klog(1, "uverbs%u: DEVX command on a context opened without DEVX", idx);
		return -EINVAL;
	}
	size_t inlen = c.len(A_DEVX_OBJ_CMD_IN);
	std::vector<uint8_t> in(std::max(inlen, kPrmCreateMkeyIn), 0);
	int ret = c.read_in(A_DEVX_OBJ_CMD_IN, in.data(), inlen);
	if (ret)
		return ret;
	size_t outlen = c.len(A_DEVX_OBJ_CMD_OUT);
	std::vector<uint8_t> out(outlen, 0);
	uint32_t opcode = prm_get(in.data(), kPrmInOpcode);
	Uobj o;
	o.type = Uobj::Type::DevxObj;
	o.devx_op = (uint16_t)opcode;
	switch (opcode) {
	case kPrmOpCreateMkey:
		ret = devx_create_mkey(c, in, inlen, out, &o);
		break;
	case kPrmOpCreatePsv:
		ret = devx_create_psv(c, in.data(), inlen, out, &o);
		break;
	case kPrmOpCreateGeneralObject:
		ret = devx_create_general(c, in.data(), inlen, out, &o);
		break;
	default:
		if (!is_obj_create_cmd(opcode)) {
			klog(1, "uverbs%u: DEVX_OBJ/CREATE opcode 0x%x is no create command", idx,
			     opcode);
			return -EINVAL;
		}
		klog(1, "uverbs%u: DEVX_OBJ/CREATE 0x%x: not implemented by the device", idx,
		     opcode);
		return prm_fail(c, out, kPrmStatusBadOp, kPrmSyndromeBadOp, A_DEVX_OBJ_CMD_OUT);
	}
	if (ret)
		return ret;
	uint32_t handle = c.ctx.add(o);
	if ((ret = c.write_out(A_DEVX_OBJ_CMD_OUT, out.data(), out.size())) ||
	    (ret = c.set_new(A_DEVX_OBJ_HANDLE, handle))) {
		c.ctx.destroy_obj(c.ctx.objs[handle]);
		c.ctx.objs.erase(handle);
	}
	return ret;
}

int devx_obj_destroy(Hca &hca, const Uobj &o)
{
	switch (o.devx_op) {
	case kPrmOpCreateMkey:
		return hca.destroy_mkey(o.devx_id);
	case kPrmOpCreatePsv:
		return hca.destroy_psv(o.devx_id);
	case kPrmOpCreateGeneralObject:
		return hca.destroy_reserved_qpn(o.devx_id);
	}
	return -EINVAL;
}

int h_devx_obj_destroy(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	uint32_t h = (uint32_t)c.data(A_DEVX_OBJ_HANDLE);
	Uobj *o = c.ctx.find(h, Uobj::Type::DevxObj);
	if (!o) {
		klog(1, "uverbs%u: DEVX_OBJ/DESTROY of handle %u: no DevX object", idx, h);
		return c.ctx.objs.count(h) ? -EINVAL : -ENOENT;
	}
	int ret = devx_obj_destroy(*c.ctx.hca, *o);
	if (ret) {
		klog(1, "uverbs%u: DEVX_OBJ/DESTROY of object 0x%x (opcode 0x%x): %s", idx,
		     o->devx_id, o->devx_op, strerror(-ret));
		return ret;
	}
	c.ctx.objs.erase(h);
	return 0;
}

int h_devx_obj_query(Call &c)
{
	unsigned idx = c.ctx.dev()->index;
	if (!c.ctx.devx) {
		klog(1, "uverbs%u: DEVX command on a context opened without DEVX", idx);
		return -EINVAL;
	}
	uint32_t h = (uint32_t)c.data(A_DEVX_OBJ_HANDLE);
	auto it = c.ctx.objs.find(h);
	if (it == c.ctx.objs.end()) {
		klog(1, "uverbs%u: DEVX_OBJ/QUERY of handle %u: no object", idx, h);
		return -ENOENT;
	}
	uint8_t in[kPrmQueryQpIn];
	int ret = c.read_in(A_DEVX_OBJ_CMD_IN, in, sizeof(in));
	if (ret)
		return ret;
	uint32_t opcode = prm_get(in, kPrmInOpcode);
	size_t outlen = c.len(A_DEVX_OBJ_CMD_OUT);
	std::vector<uint8_t> out(std::max(outlen, kPrmOutHeader), 0);
	Uobj &o = it->second;
	if (o.type != Uobj::Type::Qp) {
		/* QUERY_MKEY, QUERY_GENERAL_OBJECT, ...: the device has none */
		klog(1, "uverbs%u: DEVX_OBJ/QUERY 0x%x of handle %u: not implemented", idx, opcode,
		     h);
		return prm_fail(c, out, kPrmStatusBadOp, kPrmSyndromeBadOp, A_DEVX_OBJ_CMD_OUT);
	}
	/* mlx5_ib checks that the command names the object (devx_is_valid_obj_id) */
	if (opcode != kPrmOpQueryQp || prm_get(in, query_qp::qpn) != o.qpn) {
		klog(1, "uverbs%u: DEVX_OBJ/QUERY of QP 0x%x: opcode 0x%x qpn 0x%x not served", idx,
		     o.qpn, opcode, prm_get(in, query_qp::qpn));
		return -EINVAL;
	}
	if (outlen < kPrmQueryQpOut) {
		klog(1, "uverbs%u: QUERY_QP output of %zu bytes (%zu needed)", idx, outlen,
		     kPrmQueryQpOut);
		return prm_fail(c, out, kPrmStatusBadParam, 0x330, A_DEVX_OBJ_CMD_OUT);
	}
	QpInfo info = {};
	if ((ret = c.ctx.hca->query_qp(o.qpn, &info))) {
		klog(1, "uverbs%u: QUERY_QP of QP 0x%x: %s", idx, o.qpn, strerror(-ret));
		return prm_fail(c, out, kPrmStatusBadRes, 0x331, A_DEVX_OBJ_CMD_OUT);
	}
	Uobj *pd = c.ctx.find(o.pd_handle, Uobj::Type::Pd);
	bool in_order = c.ctx.hca->caps().data_in_order != DataInOrder::None;
	fill_query_qp(info, pd ? pd->pdn : 0, in_order, out.data());
	return c.write_out(A_DEVX_OBJ_CMD_OUT, out.data(), outlen);
}

} // namespace kernel
} // namespace mlx5sim
