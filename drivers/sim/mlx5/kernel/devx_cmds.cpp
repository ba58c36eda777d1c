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
int prm_fail(Call &c, std::vector<uint8_t> &out, uint8_t status, uint32_t syndrome)
{
	prm_set(out.data(), kPrmOutStatus, status);
	prm_set(out.data(), kPrmOutSyndrome, syndrome);
	int ret = c.write_out(A_DEVX_CMD_OUT, out.data(), out.size());
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

} // namespace kernel
} // namespace mlx5sim
