/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit suite of the provider's UMR builders for what the public golden vectors do
 * not pin: the tag-byte refusal, error overwriting by conf_attr, the setter count
 * of a later configure, the descriptor limit, and the signature-state transitions
 * of mkey_configure on a BLOCK_SIGNATURE mkey.
 */
#include <errno.h>
#include <string.h>

#include <memory>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "mlx5_hw.h"
#include "provider/provider.h"
#include "provider/sim_mkey.h"

using namespace mlx5sim;

namespace {

class NullUar : public UarSink {
public:
	void mmio64(SimQp *, uint32_t, uint64_t) override { rings++; }
	void blueflame(SimQp *, uint32_t, const void *, size_t) override { rings++; }
	unsigned rings = 0;
};

/** An RTS RC QP with a 16-WQEBB SQ (256-byte WQEs: max_post 4, max_inline 60). */
struct Fixture {
	static constexpr uint32_t kWqeCnt = 16;

	std::unique_ptr<SimContext> ctx{new SimContext()};
	std::unique_ptr<SimQp> qp{new SimQp()};
	alignas(64) uint8_t ring[kWqeCnt * 64];
	uint64_t wrid[kWqeCnt];
	uint32_t wqe_head[kWqeCnt], wr_data[kWqeCnt];
	uint32_t dbrec[2] = {};
	NullUar uar;
	SimMkey mkey{};

	Fixture()
	{
		memset(ring, 0x5c, sizeof(ring));
		memset(wrid, 0, sizeof(wrid));
		memset(wqe_head, 0, sizeof(wqe_head));
		memset(wr_data, 0, sizeof(wr_data));
		ctx->max_sq_desc_sz = 1024;
		ctx->max_send_wqebb = 32768;
		qp->ctx = ctx.get();
		qp->qpn = 0x00abcd;
		qp->type = IBV_QPT_RC;
		qp->send_ops_flags = IBV_QP_EX_WITH_SEND;
		qp->dv_send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
		qp->operational = true;
		qp->qpx.qp_base.qp_num = qp->qpn;
		qp->sq = {ring,     ring + sizeof(ring),
			  kWqeCnt,  4,
			  1,        60,
			  0,        0,
			  0,        wrid,
			  wqe_head, wr_data,
			  0,        0};
		qp->bf = {&uar, 0, 256};
		qp->dbrec = dbrec;
		mkey.dv.lkey = mkey.dv.rkey = 0x00123400;
		mkey.num_desc = 4;
		CU_ASSERT_EQUAL_FATAL(sim_qp_install_wr_ops(qp.get()), 0);
	}
	struct ibv_qp_ex *x() { return &qp->qpx; }
	struct mlx5dv_qp_ex *dv() { return &qp->dv; }
	uint64_t mask(uint32_t slot) { return mlx5_hw_ld_be64(ring + slot * 64 + 24); }
	void start(unsigned flags)
	{
		ibv_wr_start(x());
		qp->qpx.wr_flags = flags;
	}
};

constexpr unsigned kInl = IBV_SEND_INLINE | IBV_SEND_SIGNALED;

void test_tag_byte(void)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};
	uint8_t before[sizeof(f.ring)];

	memcpy(before, f.ring, sizeof(before));
	f.mkey.dv.lkey = f.mkey.dv.rkey = 0x001234a7;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EOPNOTSUPP);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT_EQUAL(f.qp->sq.head, 0);
	CU_ASSERT_EQUAL(f.qp->sq.fm_cache, 0);
	CU_ASSERT_EQUAL(f.uar.rings, 0);
	/* only ctrl bytes 0-3 / 8-11 were started, nothing else */
	CU_ASSERT_EQUAL(memcmp(before + 16, f.ring + 16, sizeof(before) - 16), 0);

	f.ctx->mkey_update_tag_supported = true;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 2);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 12), 0x001234a7u);     /* imm */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 64 + 4), 0xffffffa7u); /* qpn_mkey */
	CU_ASSERT_EQUAL(f.mask(0), 0x20002000ull);
	CU_ASSERT_EQUAL(f.uar.rings, 1);
}

void test_conf_attr_overwrites_error(void)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};

	f.start(kInl);
	mlx5dv_wr_set_mkey_access_flags(f.dv(), IBV_ACCESS_LOCAL_WRITE); /* EINVAL */
	attr.comp_mask = 1;
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EOPNOTSUPP);
	/* a setter error after a good configure keeps the first error */
	attr.comp_mask = 0;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 2, &attr);
	mlx5dv_wr_set_mkey_access_flags(f.dv(), 0x10); /* not an mkey access flag */
	mlx5dv_wr_set_mkey_access_flags(f.dv(), 0);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
}

void test_setter_count_per_configure(void)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};

	/* three setters announced, one made: unposted, small fence pending */
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 3, &attr);
	mlx5dv_wr_set_mkey_access_flags(f.dv(), IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT_EQUAL(f.qp->sq.fm_cache, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
	/* a new configure counts its own setters */
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_access_flags(f.dv(), IBV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 2);
	CU_ASSERT_EQUAL(f.qp->sq.head, 1);
	CU_ASSERT_EQUAL(f.ring[11], MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE);
	CU_ASSERT_EQUAL(f.ring[64 + 2], MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE);
	CU_ASSERT_PTR_NULL(f.qp->wr.cur_mkey);
}

void test_num_desc_limit(void)
{
	Fixture f;
	std::vector<struct ibv_sge> sg(5, {0x1000, 8, 0x42});

	f.qp->sq.max_inline_data = 556; /* room for 35 entries: num_desc decides */
	f.start(kInl);
	mlx5dv_wr_mr_list(f.dv(), &f.mkey.dv, 0, 5, sg.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), ENOMEM);
	f.start(kInl);
	mlx5dv_wr_mr_list(f.dv(), &f.mkey.dv, 0, 4, sg.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.mkey.length, 32);
	/* interleaved: n == num_desc is accepted (v44.0 quirk), n > num_desc is not */
	std::vector<struct mlx5dv_mr_interleaved> d(5, {0x1000, 8, 8, 0x42});

	f.start(kInl);
	mlx5dv_wr_mr_interleaved(f.dv(), &f.mkey.dv, 0, 2, 5, d.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), ENOMEM);
	f.start(kInl);
	mlx5dv_wr_mr_interleaved(f.dv(), &f.mkey.dv, 0, 2, 4, d.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.mkey.length, 64);
}

void test_inline_limit(void)
{
	Fixture f;
	std::vector<struct ibv_sge> sg(5, {0x1000, 8, 0x42});
	std::vector<struct mlx5dv_mr_interleaved> d(4, {0x1000, 8, 8, 0x42});

	/* max_inline_data 60: 4 KLM entries, 3 repeat entries (header takes one) */
	f.mkey.num_desc = 8;
	f.start(kInl);
	mlx5dv_wr_mr_list(f.dv(), &f.mkey.dv, 0, 5, sg.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), ENOMEM);
	f.start(kInl);
	mlx5dv_wr_mr_interleaved(f.dv(), &f.mkey.dv, 0, 1, 4, d.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), ENOMEM);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	f.start(kInl);
	mlx5dv_wr_mr_list(f.dv(), &f.mkey.dv, 0, 4, sg.data());
	mlx5dv_wr_mr_interleaved(f.dv(), &f.mkey.dv, 0, 1, 3, d.data());
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 6);
	CU_ASSERT_EQUAL(f.qp->sq.head, 2);
	/* the second UMR carries the first one's small fence */
	CU_ASSERT_EQUAL(f.ring[3 * 64 + 11],
			MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE);
}

void test_sig_state_transitions(void)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};
	struct mlx5dv_sig_block_attr sb = {};

	f.mkey.has_sig = true;
	f.mkey.sig.state = SigState::INIT;
	f.mkey.sig.err_count = 1;
	f.mkey.sig.err_count_updated = true;
	f.mkey.sig.wire.present = true;
	/* RESET with 0 setters: BSF disabled by mask, fresh error counter pushed */
	attr.conf_flags = MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::RESET);
	CU_ASSERT_FALSE(f.mkey.sig.wire.present);
	CU_ASSERT_FALSE(f.mkey.sig.err_count_updated);
	CU_ASSERT_EQUAL(f.mask(0), 0x20003200ull);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 64 + 12), 1u << 26);
	/* next configure without RESET: RESET -> INIT, counter not pushed again */
	attr.conf_flags = 0;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::INIT);
	CU_ASSERT_EQUAL(f.mask(2), 0x20003000ull);
	/* UPDATED -> SET: no BSF_ENABLE bit */
	f.mkey.sig.state = SigState::UPDATED;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::SET);
	CU_ASSERT_EQUAL(f.mask(4), 0x20002000ull);
	/* a signature block without any domain is refused (test_prov_sig.cpp: the rest) */
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 6);
	/* on a plain mkey it is EINVAL, as in libmlx5 */
	f.mkey.has_sig = false;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"tag byte needs tag-update support", test_tag_byte},
		{"conf_attr EOPNOTSUPP overwrites, setter errors keep the first",
		 test_conf_attr_overwrites_error},
		{"setter count per configure", test_setter_count_per_configure},
		{"num_desc limits the layout", test_num_desc_limit},
		{"max_inline_data limits the layout", test_inline_limit},
		{"signature state transitions", test_sig_state_transitions},
	};

	return CUNIT_RUN_SUITE("wr_umr", tests);
}
