/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: DevX general commands (MLX5_DEVX/OTHER), the firmware's part. libmlx5
 * sends QUERY_HCA_CAP while opening a context (providers/mlx5/verbs.c) and
 * sets its features from the answer, so the capability bits are exactly what the
 * software HCA has (HcaCaps). Other PRM commands are refused as the kernel refuses
 * a command outside its general-command list.
 */
#include <errno.h>
#include <string.h>

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
	prm_set(cap, log_max_pd, log2_floor(caps.max_pd));
	prm_set(cap, log_max_msg, 31);
	prm_set(cap, port_type, 0); /* InfiniBand */
	prm_set(cap, cqe_version, caps.cqe_version);
	prm_set(cap, dct, caps.dc);
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
		klog(1, "uverbs%u: DEVX general command opcode 0x%x not served", idx, opcode);
		return -EINVAL;
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
	if (opcode != kPrmOpInit2InitQp || qpn != qp.qpn) {
		klog(1, "uverbs%u: DEVX_OBJ/MODIFY of QP 0x%x: opcode 0x%x qpn 0x%x not served",
		     idx, qp.qpn, opcode, qpn);
		return -EINVAL;
	}
	std::vector<uint8_t> out(kPrmOutHeader, 0);
	uint32_t mask = prm_get(in, init2init::opt_param_mask);
	uint32_t mask_hi = prm_get(in, init2init::opt_mask_95_64);
	uint32_t mask_lo = prm_get(in, init2init::opt_mask_63_32);
	bool mmo = prm_get(in, init2init::qpc_ext_mmo);
	/* only qpc_ext.mmo is modelled: other optional parameters are refused */
	if (mask || mask_hi || mask_lo != init2init::kOptMaskMmo ||
	    !prm_get(in, init2init::qpc_ext)) {
		klog(1,
		     "uverbs%u: INIT2INIT of QP 0x%x: optional parameters 0x%x/0x%x%08x "
		     "(only qpc_ext.mmo is modelled)",
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

} // namespace kernel
} // namespace mlx5sim
