/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Helpers of the indirect-mkey suites (test_hca_umr, test_hca_mkey_xlat): UMR
 * WQEs as libmlx5 lays them out (mr_list, mr_interleaved, LOCAL_INV) built with
 * wqe_segs.h, memcpy MMO WQEs, and a device with one RC QP connected to itself.
 */
#ifndef MLX5_SIM_HCA_UMR_TEST_UTIL_H
#define MLX5_SIM_HCA_UMR_TEST_UTIL_H

#include <stdio.h>

#include <vector>

#include "hca_test_util.h"

namespace hcatest {

constexpr uint8_t kLW = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
constexpr uint8_t kRR = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ;
constexpr uint8_t kRW = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
constexpr uint64_t kAccessMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
/** What libmlx5's mr_list / mr_interleaved / configure(access + layout) set. */
constexpr uint64_t kLayoutMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | kAccessMask;
constexpr uint8_t kSmallFence = 0x20;
constexpr uint8_t kSig = MLX5_WQE_CTRL_CQ_UPDATE;

struct Klm {
	uint32_t bc;
	uint32_t key;
	const void *addr;
};

struct Rep {
	uint16_t stride;
	uint16_t bc;
	uint32_t key;
	const void *addr;
};

/** A device, a CQ, one RC QP connected to itself, the MMO opaque buffer. */
struct UmrEnv {
	Env e;
	TestCq cq;
	TestQp q;
	Buf opaque;
	uint32_t okey;
	explicit UmrEnv(ExecMode mode = ExecMode::Inline, const HcaCaps &caps = HcaCaps())
		: e(mode, caps), cq(e.h(), 256), q(e.h(), e.pdn, cq.cqn, cq.cqn, 64), opaque(64)
	{
		okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
	}
	Hca &h() { return e.h(); }
	uint32_t mkey(uint32_t num_desc = 4, uint32_t flags = 0, uint32_t pdn = 0)
	{
		uint32_t k = 0;
		CU_ASSERT_EQUAL(h().create_mkey(pdn ? pdn : e.pdn, num_desc, flags, &k), 0);
		return k;
	}
	/** mr_list: one KLM per entry, padded to 64 bytes. */
	void umr_list(uint32_t key, uint8_t access, const std::vector<Klm> &ents,
		      uint8_t fm_ce_se = kSig, uint64_t mask = kLayoutMask, uint8_t flags = 0x80)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		uint32_t oct = (uint32_t)((ents.size() + 3) & ~3u);
		uint64_t len = 0;
		for (const Klm &k : ents)
			len += k.bc;
		w.umr_ctrl(flags, (uint16_t)oct, mask).mkey_ctx(0, access, len);
		for (const Klm &k : ents)
			w.klm(k.bc, k.key, k.addr);
		w.pad64();
		w.post(q);
	}
	/** mr_interleaved: repeat-block header, entries, padding. */
	void umr_repeat(uint32_t key, uint8_t access, uint32_t repeat, const std::vector<Rep> &ents,
			uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		uint32_t oct = (uint32_t)((ents.size() + 1 + 3) & ~3u);
		uint32_t per = 0;
		for (const Rep &r : ents)
			per += r.bc;
		w.umr_ctrl(0x80, (uint16_t)oct, kLayoutMask)
			.mkey_ctx(0, access, (uint64_t)per * repeat)
			.repeat_hdr(per, repeat, (uint16_t)ents.size());
		for (const Rep &r : ents)
			w.repeat_ent(r.stride, r.bc, r.key, r.addr);
		w.pad64();
		w.post(q);
	}
	/** LOCAL_INV as libmlx5 builds it (free, klm_octowords 0). */
	void local_inv(uint32_t key, uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		w.umr_ctrl(0x98, 0,
			   MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				   MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN)
			.mkey_ctx(MLX5_WQE_MKEY_CONTEXT_FREE, 0, 0);
		w.post(q);
	}
	void mmo(uint32_t skey, uint64_t src, uint32_t dkey, uint64_t dst, uint32_t bc,
		 uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_MMO, fm_ce_se, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opaque.p())
			.data(bc, skey, reinterpret_cast<const void *>(src))
			.data(bc, dkey, reinterpret_cast<const void *>(dst));
		w.post(q);
	}
	/** Ring and collect every CQE. */
	std::vector<struct mlx5_cqe64> run()
	{
		q.ring(h());
		h().quiesce();
		std::vector<struct mlx5_cqe64> v;
		cq.drain(&v);
		return v;
	}
	/** Ring; expect @p n CQEs, all successful; returns them. */
	std::vector<struct mlx5_cqe64> run_ok(size_t n)
	{
		std::vector<struct mlx5_cqe64> v = run();
		CU_ASSERT_EQUAL(v.size(), n);
		for (const auto &c : v) /* requester or responder, no error */
			CU_ASSERT(cqe_opcode(c) != MLX5_CQE_REQ_ERR &&
				  cqe_opcode(c) != MLX5_CQE_RESP_ERR);
		return v;
	}
};

static inline uint64_t a(const void *p)
{
	return (uintptr_t)p;
}

static inline void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/** The last CQE is an error with @p synd; the ones before succeeded. */
static inline void expect_last_err(const std::vector<struct mlx5_cqe64> &v, uint8_t synd)
{
	CU_ASSERT_FATAL(!v.empty());
	for (size_t i = 0; i + 1 < v.size(); i++)
		CU_ASSERT_EQUAL(cqe_opcode(v[i]), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_opcode(v.back()), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(v.back()), synd);
}

static inline bool all_eq(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

} // namespace hcatest

#endif /* MLX5_SIM_HCA_UMR_TEST_UTIL_H */
