/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit suite of the provider's send path for what the golden vectors do not pin:
 * bad builder input, legacy ibv_post_send against the new API, ibv_post_recv layout,
 * table installation and the doorbell choice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "mlx5_hw.h"
#include "provider/provider.h"

using namespace mlx5sim;

namespace {

struct Db {
	bool bf;
	uint32_t offset;
	std::vector<uint8_t> data;
};

class Recorder : public UarSink {
public:
	void mmio64(SimQp *, uint32_t off, uint64_t v) override
	{
		const uint8_t *p = reinterpret_cast<const uint8_t *>(&v);

		events.push_back({false, off, std::vector<uint8_t>(p, p + 8)});
	}
	void blueflame(SimQp *, uint32_t off, const void *d, size_t len) override
	{
		const uint8_t *p = static_cast<const uint8_t *>(d);

		events.push_back({true, off, std::vector<uint8_t>(p, p + len)});
	}
	std::vector<Db> events;
};

/** An RTS RC QP with an 8-WQEBB SQ (128-byte WQEs: max_post 4) and a 4-entry RQ. */
struct Fixture {
	static constexpr uint32_t kWqeCnt = 8;
	static constexpr uint32_t kRqCnt = 4;

	std::unique_ptr<SimContext> ctx{new SimContext()};
	SimPd pd{};
	std::unique_ptr<SimQp> qp{new SimQp()};
	alignas(64) uint8_t ring[kWqeCnt * 64];
	alignas(64) uint8_t rq_ring[kRqCnt * 64];
	uint64_t wrid[kWqeCnt], rq_wrid[kRqCnt];
	uint32_t wqe_head[kWqeCnt], wr_data[kWqeCnt];
	uint32_t dbrec[2] = {};
	Recorder uar;

	explicit Fixture(uint64_t dv_ops = MLX5DV_QP_EX_WITH_MEMCPY | MLX5DV_QP_EX_WITH_RAW_WQE)
	{
		memset(ring, 0, sizeof(ring));
		memset(rq_ring, 0, sizeof(rq_ring));
		memset(wrid, 0, sizeof(wrid));
		memset(rq_wrid, 0, sizeof(rq_wrid));
		memset(wqe_head, 0, sizeof(wqe_head));
		memset(wr_data, 0, sizeof(wr_data));
		ctx->dma_mmo_max_size = 1u << 31;
		ctx->max_sq_desc_sz = 1024;
		ctx->max_send_wqebb = 32768;
		pd.opaque_buf = reinterpret_cast<void *>(0x7f0000001000ull);
		pd.opaque_lkey = 0x1234;
		qp->ctx = ctx.get();
		qp->pd = &pd;
		qp->qpn = 0x00abcd;
		qp->type = IBV_QPT_RC;
		qp->send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_LOCAL_INV;
		qp->dv_send_ops_flags = dv_ops;
		qp->operational = true;
		qp->qpx.qp_base.qp_num = qp->qpn;
		qp->sq = {ring,     ring + sizeof(ring),
			  kWqeCnt,  4,
			  3,        60,
			  0,        0,
			  0,        wrid,
			  wqe_head, wr_data,
			  0,        0};
		qp->rq = {rq_ring, kRqCnt, 6, 4, 0, 0, rq_wrid};
		qp->bf = {&uar, 0, 256};
		qp->dbrec = dbrec;
	}
	int install() { return sim_qp_install_wr_ops(qp.get()); }
	struct ibv_qp_ex *x() { return &qp->qpx; }
	struct ibv_qp *ibqp() { return &qp->qpx.qp_base; }
};

void test_memcpy_bad_length(void)
{
	Fixture f;
	uint8_t before[sizeof(f.ring)];

	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	memset(f.ring, 0x5c, sizeof(f.ring));
	memcpy(before, f.ring, sizeof(before));
	for (size_t len : {(size_t)0, ((size_t)1 << 31) + 1, (size_t)1 << 32}) {
		ibv_wr_start(f.x());
		mlx5dv_wr_memcpy(&f.qp->dv, 1, 0x1000, 2, 0x2000, len);
		CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
		CU_ASSERT_EQUAL(memcmp(before, f.ring, sizeof(before)), 0);
		CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
		CU_ASSERT_EQUAL(f.qp->sq.head, 0);
		CU_ASSERT(f.uar.events.empty());
	}
	/* a smaller device limit is honoured too */
	f.ctx->dma_mmo_max_size = 4096;
	ibv_wr_start(f.x());
	mlx5dv_wr_memcpy(&f.qp->dv, 1, 0x1000, 2, 0x2000, 4097);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	ibv_wr_start(f.x());
	mlx5dv_wr_memcpy(&f.qp->dv, 1, 0x1000, 2, 0x2000, 4096);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 1);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 32), 4096);
}

void test_memcpy_without_opaque_mr(void)
{
	Fixture f(MLX5DV_QP_EX_WITH_RAW_WQE); /* v44.0 still installs memcpy */

	f.qp->pd = nullptr;
	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.qp->dv.wr_memcpy);
	ibv_wr_start(f.x());
	mlx5dv_wr_memcpy(&f.qp->dv, 1, 0x1000, 2, 0x2000, 64);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
}

void test_sge_list_too_long(void)
{
	Fixture f;
	struct ibv_sge sg[4] = {{0x1000, 8, 1}, {0x2000, 8, 2}, {0x3000, 8, 3}, {0x4000, 8, 4}};

	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	ibv_wr_start(f.x());
	ibv_wr_send(f.x());
	ibv_wr_set_sge_list(f.x(), 4, sg); /* max_gs is 3 */
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), ENOMEM);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT_EQUAL(f.qp->sq.head, 0);
	CU_ASSERT(f.uar.events.empty());
	/* no data segment was written, the WQE was closed with ds 1 */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 4), f.qp->qpn << 8 | 1);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 16), 0);
}

void test_not_operational(void)
{
	Fixture f;
	struct ibv_sge sge = {0x1000, 16, 7};
	struct ibv_send_wr wr = {}, *bad = nullptr;

	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	f.qp->operational = false;
	ibv_wr_start(f.x());
	ibv_wr_send(f.x());
	ibv_wr_set_sge(f.x(), 7, 0x1000, 16);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT(f.uar.events.empty());

	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(sim_post_send(f.ibqp(), &wr, &bad), ENOMEM);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT_EQUAL(f.dbrec[MLX5_SND_DBR], 0);
}

/** Build one WR of each kind with both APIs on fresh zeroed rings; compare bytes. */
void post_all_legacy(Fixture &f, int *ret, struct ibv_send_wr **bad)
{
	static uint8_t inl_data[40];
	struct ibv_sge sg2[2] = {{0x1000, 100, 11}, {0x2000, 0, 12}};
	struct ibv_sge sg_inl[2] = {{(uint64_t)(uintptr_t)inl_data, 30, 0},
				    {(uint64_t)(uintptr_t)(inl_data + 30), 10, 0}};
	struct ibv_sge sg8 = {0x3000, 8, 13};
	struct ibv_send_wr w[4] = {};

	for (int i = 0; i < 40; i++)
		inl_data[i] = (uint8_t)(i * 7 + 1);
	w[0].wr_id = 1;
	w[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w[0].send_flags = IBV_SEND_SIGNALED;
	w[0].imm_data = htobe32(0xfeedf00d);
	w[0].wr.rdma.rkey = 0x55;
	w[0].wr.rdma.remote_addr = 0x99000;
	w[0].sg_list = sg2;
	w[0].num_sge = 2;
	w[0].next = &w[1];
	w[1].wr_id = 2;
	w[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w[1].send_flags = IBV_SEND_FENCE;
	w[1].wr.atomic.rkey = 0x66;
	w[1].wr.atomic.remote_addr = 0x88000;
	w[1].wr.atomic.compare_add = 5;
	w[1].sg_list = &sg8;
	w[1].num_sge = 1;
	w[1].next = &w[2];
	w[2].wr_id = 3;
	w[2].opcode = IBV_WR_LOCAL_INV;
	w[2].invalidate_rkey = 0xabc00;
	w[2].next = &w[3];
	w[3].wr_id = 4;
	w[3].opcode = IBV_WR_SEND_WITH_INV;
	w[3].send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED;
	w[3].invalidate_rkey = 0x77;
	w[3].sg_list = sg_inl;
	w[3].num_sge = 2;
	*ret = sim_post_send(f.ibqp(), w, bad);
}

void post_all_new(Fixture &f, int *ret)
{
	static uint8_t inl_data[40];
	struct ibv_sge sg2[2] = {{0x1000, 100, 11}, {0x2000, 0, 12}};
	struct ibv_data_buf bufs[2] = {{inl_data, 30}, {inl_data + 30, 10}};
	struct ibv_qp_ex *x = f.x();

	for (int i = 0; i < 40; i++)
		inl_data[i] = (uint8_t)(i * 7 + 1);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(x, 0x55, 0x99000, htobe32(0xfeedf00d));
	ibv_wr_set_sge_list(x, 2, sg2);
	x->wr_id = 2;
	x->wr_flags = IBV_SEND_FENCE;
	ibv_wr_atomic_fetch_add(x, 0x66, 0x88000, 5);
	ibv_wr_set_sge(x, 13, 0x3000, 8);
	x->wr_id = 3;
	x->wr_flags = 0;
	ibv_wr_local_inv(x, 0xabc00);
	x->wr_id = 4;
	x->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_send_inv(x, 0x77);
	ibv_wr_set_inline_data_list(x, 2, bufs);
	*ret = ibv_wr_complete(x);
}

void test_legacy_matches_new_api(void)
{
	Fixture a, b;
	struct ibv_send_wr *bad = nullptr;
	int ra, rb;

	CU_ASSERT_EQUAL_FATAL(a.install(), 0);
	CU_ASSERT_EQUAL_FATAL(b.install(), 0);
	/* start near the ring end so WQEs wrap */
	a.qp->sq.cur_post = b.qp->sq.cur_post = 6;
	a.qp->sq.max_post = b.qp->sq.max_post = 8;
	post_all_legacy(a, &ra, &bad);
	post_all_new(b, &rb);
	CU_ASSERT_EQUAL(ra, 0);
	CU_ASSERT_EQUAL(rb, 0);
	CU_ASSERT_EQUAL(memcmp(a.ring, b.ring, sizeof(a.ring)), 0);
	CU_ASSERT_EQUAL(a.qp->sq.cur_post, b.qp->sq.cur_post);
	CU_ASSERT_EQUAL(a.qp->sq.cur_post, 6 + 1 + 1 + 2 + 1);
	CU_ASSERT_EQUAL(a.qp->sq.head, 4);
	CU_ASSERT_EQUAL(b.qp->sq.head, 4);
	CU_ASSERT_EQUAL(a.qp->sq.fm_cache, b.qp->sq.fm_cache);
	CU_ASSERT_EQUAL(a.dbrec[MLX5_SND_DBR], b.dbrec[MLX5_SND_DBR]);
	CU_ASSERT_EQUAL(memcmp(a.wrid, b.wrid, sizeof(a.wrid)), 0);
	CU_ASSERT_EQUAL(memcmp(a.wqe_head, b.wqe_head, sizeof(a.wqe_head)), 0);
	CU_ASSERT_EQUAL(memcmp(a.wr_data, b.wr_data, sizeof(a.wr_data)), 0);
	CU_ASSERT_EQUAL_FATAL(a.uar.events.size(), 1);
	CU_ASSERT_EQUAL_FATAL(b.uar.events.size(), 1);
	CU_ASSERT(a.uar.events[0].data == b.uar.events[0].data);
	/* LOCAL_INV (slot 0..1 after the wrap): UMR opcode, small fence for the next WQE */
	CU_ASSERT_EQUAL(a.ring[0 * 64 + 3], MLX5_OPCODE_UMR);
	CU_ASSERT_EQUAL(a.ring[2 * 64 + 11] & MLX5_HW_FM_MASK, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
	CU_ASSERT_EQUAL(a.wr_data[0], IBV_WC_LOCAL_INV);
}

void test_legacy_overflow(void)
{
	Fixture f;
	struct ibv_sge sge = {0x1000, 16, 7};
	struct ibv_send_wr w[5] = {}, *bad = nullptr;

	for (int i = 0; i < 5; i++) {
		w[i].wr_id = (uint64_t)i;
		w[i].opcode = IBV_WR_SEND;
		w[i].sg_list = &sge;
		w[i].num_sge = 1;
		w[i].next = i < 4 ? &w[i + 1] : nullptr;
	}
	CU_ASSERT_EQUAL(sim_post_send(f.ibqp(), w, &bad), ENOMEM); /* max_post 4 */
	CU_ASSERT_PTR_EQUAL(bad, &w[4]);
	CU_ASSERT_EQUAL(f.qp->sq.head, 4);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 4);
	CU_ASSERT_EQUAL(be32toh(f.dbrec[MLX5_SND_DBR]), 4);
	CU_ASSERT_EQUAL_FATAL(f.uar.events.size(), 1);
	CU_ASSERT_FALSE(f.uar.events[0].bf);
	/* unsupported opcode and too many SGEs */
	w[0].next = nullptr;
	f.qp->sq.tail = 4;
	w[0].opcode = IBV_WR_BIND_MW;
	CU_ASSERT_EQUAL(sim_post_send(f.ibqp(), w, &bad), EINVAL);
	w[0].opcode = IBV_WR_SEND;
	w[0].num_sge = 4;
	CU_ASSERT_EQUAL(sim_post_send(f.ibqp(), w, &bad), ENOMEM);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 4);
}

void test_blueflame_choice(void)
{
	Fixture f;
	uint8_t data[40] = {1, 2, 3};

	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	f.qp->sq.cur_post = 7; /* the WQE wraps: BlueFlame copy follows the ring */
	ibv_wr_start(f.x());
	ibv_wr_rdma_write(f.x(), 1, 2);
	ibv_wr_set_inline_data(f.x(), data, sizeof(data));
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL_FATAL(f.uar.events.size(), 1);
	CU_ASSERT(f.uar.events[0].bf);
	CU_ASSERT_EQUAL(f.uar.events[0].offset, 0);
	CU_ASSERT_EQUAL_FATAL(f.uar.events[0].data.size(), 128); /* ds 5: two WQEBBs */
	CU_ASSERT_EQUAL(memcmp(f.uar.events[0].data.data(), f.ring + 7 * 64, 64), 0);
	CU_ASSERT_EQUAL(memcmp(f.uar.events[0].data.data() + 64, f.ring, 64), 0);
	CU_ASSERT_EQUAL(f.qp->bf.offset, 256);
	/* uuar 0 (no BlueFlame) always writes 8 bytes and never toggles */
	f.qp->bf.buf_size = 0;
	f.qp->bf.offset = 0;
	ibv_wr_start(f.x());
	ibv_wr_send(f.x());
	ibv_wr_set_inline_data(f.x(), data, sizeof(data));
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL_FATAL(f.uar.events.size(), 2);
	CU_ASSERT_FALSE(f.uar.events[1].bf);
	CU_ASSERT_EQUAL(f.qp->bf.offset, 0);
}

void test_post_recv_layout(void)
{
	Fixture f;
	struct ibv_sge sg[3] = {{0x1000, 64, 1}, {0x2000, 0, 2}, {0x3000, 32, 3}};
	struct ibv_sge full[4] = {{0x1000, 1, 1}, {0x2000, 2, 2}, {0x3000, 3, 3}, {0x4000, 8, 4}};
	struct ibv_recv_wr w[2] = {}, *bad = nullptr;
	const uint8_t *e;

	w[0].wr_id = 0x11;
	w[0].sg_list = sg;
	w[0].num_sge = 3; /* one zero-length entry: two segments, then the terminator */
	w[0].next = &w[1];
	w[1].wr_id = 0x22;
	w[1].sg_list = full;
	w[1].num_sge = 4;
	memset(f.rq_ring, 0xee, sizeof(f.rq_ring));
	CU_ASSERT_EQUAL(sim_post_recv(f.ibqp(), w, &bad), 0);
	e = f.rq_ring;
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 0), 64);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 4), 1);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(e + 8), 0x1000);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 16), 32);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 32), 0);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 36), MLX5_INVALID_LKEY);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(e + 40), 0);
	CU_ASSERT_EQUAL(e[48], 0xee); /* nothing after the terminator */
	e = f.rq_ring + 64;           /* a full list has no terminator */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 48), 8);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(e + 52), 4);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(e + 56), 0x4000);
	CU_ASSERT_EQUAL(f.rq_wrid[0], 0x11);
	CU_ASSERT_EQUAL(f.rq_wrid[1], 0x22);
	CU_ASSERT_EQUAL(f.qp->rq.head, 2);
	CU_ASSERT_EQUAL(be32toh(f.dbrec[MLX5_RCV_DBR]), 2);
	/* too many SGEs: EINVAL; a full RQ: ENOMEM; nothing posted either time */
	w[1].num_sge = 5;
	w[0].next = nullptr;
	CU_ASSERT_EQUAL(sim_post_recv(f.ibqp(), &w[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &w[1]);
	f.qp->rq.head = 4;
	CU_ASSERT_EQUAL(sim_post_recv(f.ibqp(), &w[0], &bad), ENOMEM);
	CU_ASSERT_PTR_EQUAL(bad, &w[0]);
	CU_ASSERT_EQUAL(be32toh(f.dbrec[MLX5_RCV_DBR]), 2);
}

void test_install_refusals(void)
{
	for (uint64_t dv :
	     {(uint64_t)MLX5DV_QP_EX_WITH_MR_LIST, (uint64_t)MLX5DV_QP_EX_WITH_MR_INTERLEAVED,
	      (uint64_t)MLX5DV_QP_EX_WITH_MKEY_CONFIGURE}) {
		Fixture f(dv);

		/* UMR builders are installed now; any dv flag installs every dv builder */
		CU_ASSERT_EQUAL(f.install(), 0);
		CU_ASSERT_PTR_NOT_NULL(f.qp->qpx.wr_start);
		CU_ASSERT_PTR_NOT_NULL(f.qp->dv.wr_mr_list);
		CU_ASSERT_PTR_NOT_NULL(f.qp->dv.wr_mkey_configure);
		CU_ASSERT_PTR_NOT_NULL(f.qp->dv.wr_set_mkey_sig_block);
		CU_ASSERT_PTR_NOT_NULL(f.qp->dv.wr_memcpy);
	}
	Fixture bind(0);

	bind.qp->send_ops_flags |= IBV_QP_EX_WITH_BIND_MW;
	CU_ASSERT_EQUAL(bind.install(), -EOPNOTSUPP);
	Fixture dci(MLX5DV_QP_EX_WITH_MEMCPY);

	dci.qp->is_dci = true;
	dci.qp->type = IBV_QPT_DRIVER;
	/* a DCI gets the RC builders and the DC address setters */
	CU_ASSERT_EQUAL(dci.install(), 0);
	CU_ASSERT_PTR_NOT_NULL(dci.qp->qpx.wr_send);
	CU_ASSERT_PTR_NOT_NULL(dci.qp->dv.wr_set_dc_addr);
	CU_ASSERT_PTR_NOT_NULL(dci.qp->dv.wr_set_dc_addr_stream);
	CU_ASSERT_PTR_NOT_NULL(dci.qp->dv.wr_memcpy);
	dci.qp->send_ops_flags |= IBV_QP_EX_WITH_BIND_MW;
	CU_ASSERT_EQUAL(dci.install(), -EOPNOTSUPP);
	Fixture plain(0);

	CU_ASSERT_EQUAL(plain.install(), 0);
	CU_ASSERT_PTR_NOT_NULL(plain.qp->qpx.wr_local_inv);
	CU_ASSERT_PTR_NULL(plain.qp->dv.wr_raw_wqe);     /* no dv flag, no dv builder */
	CU_ASSERT_PTR_NULL(plain.qp->dv.wr_set_dc_addr); /* RC: no address setter */
}

void test_raw_wqe_wrap(void)
{
	Fixture f;
	uint8_t wqe[128];

	CU_ASSERT_EQUAL_FATAL(f.install(), 0);
	for (int i = 0; i < 128; i++)
		wqe[i] = (uint8_t)(0x80 + i);
	mlx5_hw_st_be32(wqe, 0x05ffff0a);             /* opmod 5, index 0xffff, SEND */
	mlx5_hw_st_be32(wqe + 4, f.qp->qpn << 8 | 5); /* ds 5: two WQEBBs */
	f.qp->sq.cur_post = 0x1234567f;               /* last slot, 16-bit index 0x567f */
	ibv_wr_start(f.x());
	f.x()->wr_flags = IBV_SEND_SIGNALED; /* ignored by raw WQEs */
	mlx5dv_wr_raw_wqe(&f.qp->dv, wqe);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.ring + 7 * 64), 0x05567f0a);
	CU_ASSERT_EQUAL(memcmp(f.ring + 7 * 64 + 4, wqe + 4, 60), 0);
	CU_ASSERT_EQUAL(memcmp(f.ring, wqe + 64, 16), 0);
	CU_ASSERT_EQUAL(f.ring[16], 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0x12345681u);
	CU_ASSERT_EQUAL(f.wr_data[7], IBV_WC_DRIVER2);
}

void test_sizing_table(void)
{
	SimContext ctx{};
	struct ibv_qp_cap cap = {};
	SqGeometry g;

	ctx.max_sq_desc_sz = 1024;
	ctx.max_send_wqebb = 32768;
	/*
	 * rdma-core providers/mlx5/verbs.c, mlx5_calc_sq_size:
	 * RC, SEND, dv MKEY_CONFIGURE, wr 1000, inline 512 -> 576 B, 1820
	 */
	cap = {1000, 0, 1, 0, 512};
	g = sim_sq_size(ctx, IBV_QPT_RC, false, cap, true, IBV_QP_EX_WITH_SEND,
			MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	CU_ASSERT_EQUAL(g.wqe_size, 576);
	CU_ASSERT_EQUAL(g.wqe_cnt, 16384);
	CU_ASSERT_EQUAL(g.max_post, 1820);
	/* no ops mask: UMR room assumed */
	cap = {100, 0, 1, 0, 0};
	g = sim_sq_size(ctx, IBV_QPT_RC, false, cap, false, 0, 0);
	CU_ASSERT_EQUAL(g.wqe_size, 256);
	CU_ASSERT_EQUAL(g.max_post, 128);
	CU_ASSERT_EQUAL(g.max_inline_data, 60);
	/* too many SGEs, too much inline data, ring too large */
	cap = {4, 0, 63, 0, 0};
	CU_ASSERT_EQUAL(sim_sq_size(ctx, IBV_QPT_RC, false, cap, true, 0, 0).sizing_ret, -EINVAL);
	cap = {4, 0, 1, 0, 0xffffffffu};
	g = sim_sq_size(ctx, IBV_QPT_RC, false, cap, true, 0, 0);
	CU_ASSERT_EQUAL(g.sizing_ret, -EINVAL);
	CU_ASSERT_EQUAL(g.wqe_size, -1);
	cap = {1u << 20, 0, 1, 0, 0};
	g = sim_sq_size(ctx, IBV_QPT_RC, false, cap, true, 0, 0);
	CU_ASSERT_EQUAL(g.sizing_ret, -EINVAL);
	CU_ASSERT_EQUAL(g.wqe_size, 64);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"memcpy length 0 / above the limit", test_memcpy_bad_length},
		{"memcpy without opaque MR", test_memcpy_without_opaque_mr},
		{"sge list longer than max_gs", test_sge_list_too_long},
		{"not operational", test_not_operational},
		{"legacy post_send == new API", test_legacy_matches_new_api},
		{"legacy overflow and bad WRs", test_legacy_overflow},
		{"BlueFlame vs MMIO doorbell", test_blueflame_choice},
		{"post_recv layout", test_post_recv_layout},
		{"install refusals", test_install_refusals},
		{"raw WQE wrap and index", test_raw_wqe_wrap},
		{"SQ sizing table", test_sizing_table},
	};

	return CUNIT_RUN_SUITE("wr_builders", tests);
}
