/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Poll path of the software HCA's provider (cq_poll*.cpp, cq_arm.cpp,
 * cq_clean.cpp) against hand-built CQEs: ownership and wrap, CQE version 0/1
 * lookup, error statuses, 128-byte entries, legacy vs extended differences,
 * unknown QPs, responder CQEs, arming and CQ cleaning. The golden-vector replay
 * covers the recorded libmlx5 cases; these pin the rules one by one.
 */
#include <string.h>

#include <memory>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "mlx5_hw.h"
#include "provider/cq_poll.h"

using namespace mlx5sim;

namespace {

constexpr uint32_t kQpn = 0x123456;
constexpr uint32_t kUidx = 0x0abcde;
constexpr uint32_t kWqeCnt = 8;
constexpr uint32_t kRqCnt = 4;
constexpr uint64_t kWrIdBase = 0x1000;
constexpr uint64_t kRqWrIdBase = 0x2000;

/** A context, one QP (SQ of 8 slots, RQ of 4) and one CQ, all in memory. */
struct Fixture {
	std::unique_ptr<SimContext> ctx{new SimContext()};
	std::unique_ptr<SimQp> qp{new SimQp()};
	std::unique_ptr<SimCq> cq{new SimCq()};
	std::vector<uint8_t> ring;
	uint64_t wrid[kWqeCnt];
	uint32_t wqe_head[kWqeCnt];
	uint32_t wr_data[kWqeCnt];
	uint64_t rq_wrid[kRqCnt];
	uint32_t dbrec[2] = {0, 0};

	Fixture(uint8_t cqe_version, uint32_t ncqe = 8, uint32_t cqe_size = 64,
		uint32_t cons_index = 0,
		uint64_t wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM)
	{
		ctx->cqe_version = cqe_version;
		qp->ctx = ctx.get();
		qp->qpn = kQpn;
		qp->uidx = kUidx;
		qp->sq.wqe_cnt = kWqeCnt;
		qp->sq.wrid = wrid;
		qp->sq.wqe_head = wqe_head;
		qp->sq.wr_data = wr_data;
		qp->rq.wqe_cnt = kRqCnt;
		qp->rq.wrid = rq_wrid;
		for (uint32_t i = 0; i < kWqeCnt; i++) {
			wrid[i] = kWrIdBase + i;
			wqe_head[i] = 100 + i;
			wr_data[i] = 0;
		}
		for (uint32_t i = 0; i < kRqCnt; i++)
			rq_wrid[i] = kRqWrIdBase + i;
		ctx->qp_by_uidx.insert(kUidx, qp.get());
		ctx->qp_by_qpn.insert(kQpn, qp.get());
		ring.assign((size_t)ncqe * cqe_size, 0);
		cq->ctx = ctx.get();
		cq->buf = ring.data();
		cq->ncqe = ncqe;
		cq->cqe_size = cqe_size;
		cq->cons_index = cons_index;
		cq->dbrec = dbrec;
		cq->wc_flags = wc_flags;
		cq->cqx.cqe = (int)ncqe - 1;
		for (uint32_t i = 0; i < ncqe; i++)
			ring[(size_t)i * cqe_size + cqe_size - 1] = MLX5_HW_CQE_INVALID_OP_OWN;
		sim_cq_install_poll_ops(cq.get());
	}

	uint8_t *cqe(uint32_t index)
	{
		return ring.data() + (size_t)(index & (cq->ncqe - 1)) * cq->cqe_size +
		       cq->cqe_size - 64;
	}

	/** Write a CQE at consumer position @p n with the owner bit of that pass. */
	uint8_t *put(uint32_t n, uint8_t cqe_opcode, uint8_t wqe_opcode, uint32_t qpn,
		     uint32_t uidx, uint16_t wqe_counter, uint32_t byte_cnt = 0)
	{
		uint8_t *c = cqe(n);

		memset(c, 0, 64);
		mlx5_hw_st_be32(c + 32, uidx);
		mlx5_hw_st_be32(c + 44, byte_cnt);
		mlx5_hw_st_be32(c + 56, (uint32_t)wqe_opcode << 24 | qpn);
		mlx5_hw_st_be16(c + 60, wqe_counter);
		c[63] = (uint8_t)(cqe_opcode << 4 | ((n & cq->ncqe) ? 1 : 0));
		return c;
	}

	uint8_t *req(uint32_t n, uint8_t wqe_opcode, uint16_t wqe_counter, uint32_t byte_cnt = 0)
	{
		return put(n, MLX5_CQE_REQ, wqe_opcode, kQpn, kUidx, wqe_counter, byte_cnt);
	}

	uint8_t *err(uint32_t n, uint8_t syndrome, uint8_t vendor, uint16_t wqe_counter)
	{
		uint8_t *c = put(n, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, kQpn, kUidx, wqe_counter);

		c[54] = vendor;
		c[55] = syndrome;
		return c;
	}

	int poll(int n, struct ibv_wc *wc) { return sim_poll_cq(ibv_cq_ex_to_cq(&cq->cqx), n, wc); }

	uint32_t dbrec_ci() const { return be32toh(dbrec[0]); }
};

/** A WC full of a marker, to see which fields the poll wrote. */
struct ibv_wc marked_wc()
{
	struct ibv_wc wc;

	memset(&wc, 0xa5, sizeof(wc));
	return wc;
}

constexpr uint32_t kMark32 = 0xa5a5a5a5;

/** Raw bits of an enum field that may hold the marker (not a valid enumerator). */
uint32_t raw32(const void *field)
{
	uint32_t v;

	memcpy(&v, field, sizeof(v));
	return v;
}

void test_empty(void)
{
	Fixture f(1, 8, 64, 5);
	struct ibv_wc wc[4];
	struct ibv_poll_cq_attr attr = {};

	f.dbrec[0] = 0;
	CU_ASSERT_EQUAL(f.poll(4, wc), 0);
	CU_ASSERT_EQUAL(f.cq->cons_index, 5);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 5); /* legacy poll always writes SET_CI */
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), ENOENT);
	attr.comp_mask = 1;
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), EINVAL);
	CU_ASSERT_EQUAL(f.cq->cons_index, 5);
}

void test_ownership_wrap(void)
{
	Fixture f(1, 8, 64, 6);
	struct ibv_wc wc[8];

	f.req(6, MLX5_OPCODE_SEND, 0);
	f.req(7, MLX5_OPCODE_SEND, 1);
	f.req(8, MLX5_OPCODE_RDMA_WRITE, 2); /* second pass: owner 1 */
	f.req(9, MLX5_OPCODE_SEND, 3);
	/* entry 2 holds a CQE of the first pass (owner 0): hardware-owned at n = 10 */
	f.req(2, MLX5_OPCODE_SEND, 4);
	CU_ASSERT_EQUAL(f.poll(8, wc), 4);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase + 0);
	CU_ASSERT_EQUAL(wc[2].wr_id, kWrIdBase + 2);
	CU_ASSERT_EQUAL(wc[2].opcode, IBV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(wc[3].wr_id, kWrIdBase + 3);
	CU_ASSERT_EQUAL(f.cq->cons_index, 10);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 10);
	CU_ASSERT_EQUAL(f.qp->sq.tail, 100 + 3 + 1);
	/* an INVALID opcode with the right owner bit is not a CQE either */
	f.cqe(10)[63] = (uint8_t)(MLX5_CQE_INVALID << 4 | 1);
	CU_ASSERT_EQUAL(f.poll(8, wc), 0);
}

void test_consumer_counter_wrap(void)
{
	Fixture f(1, 8, 64, 0xfffffffe);
	struct ibv_wc wc[4];

	f.req(0xfffffffe, MLX5_OPCODE_SEND, 0);
	f.req(0xffffffff, MLX5_OPCODE_SEND, 1);
	f.req(0, MLX5_OPCODE_SEND, 2); /* counter wraps to 0: owner 0 again */
	CU_ASSERT_EQUAL(f.poll(4, wc), 3);
	CU_ASSERT_EQUAL(f.cq->cons_index, 1);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 1);
}

void test_lookup_v1_by_uidx(void)
{
	Fixture f(1);
	struct ibv_wc wc[2];

	/* v1: the user index decides; the QPN in the CQE is only reported */
	f.put(0, MLX5_CQE_REQ, MLX5_OPCODE_SEND, 0x777777, kUidx, 5);
	CU_ASSERT_EQUAL(f.poll(2, wc), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase + 5);
	CU_ASSERT_EQUAL(wc[0].qp_num, 0x777777);
	/* right QPN, wrong user index: unknown */
	f.put(1, MLX5_CQE_REQ, MLX5_OPCODE_SEND, kQpn, kUidx + 1, 5);
	CU_ASSERT_EQUAL(f.poll(2, wc), -2);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
}

void test_lookup_v0_by_qpn(void)
{
	Fixture f(0);
	struct ibv_wc wc[2];

	f.put(0, MLX5_CQE_REQ, MLX5_OPCODE_SEND, kQpn, 0x999, 6);
	CU_ASSERT_EQUAL(f.poll(2, wc), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase + 6);
	f.put(1, MLX5_CQE_REQ, MLX5_OPCODE_SEND, kQpn + 1, kUidx, 6);
	CU_ASSERT_EQUAL(f.poll(2, wc), -2);
}

void test_unknown_qp(void)
{
	Fixture f(1, 8, 64, 0);
	struct ibv_wc wc[4];
	struct ibv_poll_cq_attr attr = {};

	f.req(0, MLX5_OPCODE_SEND, 0);
	f.put(1, MLX5_CQE_REQ, MLX5_OPCODE_SEND, kQpn, 0x424242, 1);
	f.req(2, MLX5_OPCODE_SEND, 2);
	wc[1] = marked_wc();
	/* the good one is written, then -2; the bad CQE is consumed */
	CU_ASSERT_EQUAL(f.poll(4, wc), -2);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase);
	CU_ASSERT_EQUAL(wc[1].qp_num, kQpn);
	CU_ASSERT_EQUAL(wc[1].wc_flags, 0);
	CU_ASSERT_EQUAL(wc[1].wr_id, 0xa5a5a5a5a5a5a5a5ull);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 2);
	CU_ASSERT_EQUAL(f.poll(4, wc), 1);
	/* extended: -2 from start_poll too */
	f.put(3, MLX5_CQE_REQ_ERR, MLX5_OPCODE_SEND, kQpn, 0x424242, 1);
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), -2);
	CU_ASSERT_EQUAL(f.cq->cons_index, 4);
}

void test_error_statuses(void)
{
	static const struct {
		uint8_t syndrome;
		enum ibv_wc_status status;
	} table[] = {
		{0x01, IBV_WC_LOC_LEN_ERR},    {0x02, IBV_WC_LOC_QP_OP_ERR},
		{0x04, IBV_WC_LOC_PROT_ERR},   {0x05, IBV_WC_WR_FLUSH_ERR},
		{0x06, IBV_WC_MW_BIND_ERR},    {0x10, IBV_WC_BAD_RESP_ERR},
		{0x11, IBV_WC_LOC_ACCESS_ERR}, {0x12, IBV_WC_REM_INV_REQ_ERR},
		{0x13, IBV_WC_REM_ACCESS_ERR}, {0x14, IBV_WC_REM_OP_ERR},
		{0x15, IBV_WC_RETRY_EXC_ERR},  {0x16, IBV_WC_RNR_RETRY_EXC_ERR},
		{0x22, IBV_WC_REM_ABORT_ERR},  {0x00, IBV_WC_GENERAL_ERR},
		{0x03, IBV_WC_GENERAL_ERR},    {0x23, IBV_WC_GENERAL_ERR},
		{0xff, IBV_WC_GENERAL_ERR},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		Fixture f(1);
		struct ibv_wc wc = marked_wc();
		struct ibv_poll_cq_attr attr = {};

		f.err(0, table[i].syndrome, (uint8_t)(0x30 + i), 3);
		CU_ASSERT_EQUAL(f.poll(1, &wc), 1);
		CU_ASSERT_EQUAL(wc.status, table[i].status);
		CU_ASSERT_EQUAL(wc.vendor_err, 0x30 + i);
		CU_ASSERT_EQUAL(wc.wr_id, kWrIdBase + 3);
		CU_ASSERT_EQUAL(raw32(&wc.opcode), kMark32); /* not written */
		CU_ASSERT_EQUAL(wc.byte_len, kMark32);       /* not written */
		CU_ASSERT_EQUAL(wc.qp_num, kQpn);
		CU_ASSERT_EQUAL(f.qp->sq.tail, 104);

		/* extended: same status, read_opcode 0 */
		f.err(1, table[i].syndrome, 0x77, 4);
		CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
		CU_ASSERT_EQUAL(f.cq->cqx.status, table[i].status);
		CU_ASSERT_EQUAL(f.cq->cqx.wr_id, kWrIdBase + 4);
		CU_ASSERT_EQUAL(ibv_wc_read_opcode(&f.cq->cqx), 0);
		CU_ASSERT_EQUAL(ibv_wc_read_vendor_err(&f.cq->cqx), 0x77);
		ibv_end_poll(&f.cq->cqx);
	}
}

void test_opcode_mapping_legacy(void)
{
	static const struct {
		uint8_t wqe_opcode;
		uint32_t wr_data;
		uint32_t opcode;   /* kMark32: not written */
		uint32_t byte_len; /* kMark32: not written */
		unsigned int flags;
	} table[] = {
		{MLX5_OPCODE_RDMA_WRITE, 0, IBV_WC_RDMA_WRITE, kMark32, 0},
		{MLX5_OPCODE_RDMA_WRITE_IMM, 0, IBV_WC_RDMA_WRITE, kMark32, IBV_WC_WITH_IMM},
		{MLX5_OPCODE_SEND, 0, IBV_WC_SEND, kMark32, 0},
		{MLX5_OPCODE_SEND_IMM, 0, IBV_WC_SEND, kMark32, IBV_WC_WITH_IMM},
		{MLX5_OPCODE_SEND_INVAL, 0, IBV_WC_SEND, kMark32, 0},
		{MLX5_OPCODE_RDMA_READ, 0, IBV_WC_RDMA_READ, 0x1234, 0},
		{MLX5_OPCODE_ATOMIC_CS, 0, IBV_WC_COMP_SWAP, 8, 0},
		{MLX5_OPCODE_ATOMIC_FA, 0, IBV_WC_FETCH_ADD, 8, 0},
		{MLX5_OPCODE_MMO, IBV_WC_DRIVER3, IBV_WC_DRIVER3, kMark32, 0},
		{MLX5_OPCODE_UMR, IBV_WC_DRIVER1, IBV_WC_DRIVER1, kMark32, 0},
		{MLX5_OPCODE_SET_PSV, IBV_WC_DRIVER1, IBV_WC_DRIVER1, kMark32, 0},
		{MLX5_OPCODE_UMR, IBV_WC_LOCAL_INV, IBV_WC_LOCAL_INV, kMark32, 0},
		{MLX5_OPCODE_NOP, IBV_WC_RDMA_READ, IBV_WC_RDMA_READ, kMark32, 0},
		{MLX5_OPCODE_TSO, 0, IBV_WC_TSO, kMark32, 0},
		{MLX5_OPCODE_CONFIG_CMD, 0, kMark32, kMark32, 0}, /* unmapped */
		{MLX5_OPCODE_CONFIG_CMD, IBV_WC_DRIVER2, IBV_WC_DRIVER2, kMark32, 0},
		{MLX5_OPCODE_SEND, IBV_WC_DRIVER2, IBV_WC_DRIVER2, kMark32, 0}, /* raw WQE */
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		Fixture f(1);
		struct ibv_wc wc = marked_wc();

		f.wr_data[2] = table[i].wr_data;
		f.req(0, table[i].wqe_opcode, 2, 0x1234);
		CU_ASSERT_EQUAL(f.poll(1, &wc), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(raw32(&wc.opcode), table[i].opcode);
		CU_ASSERT_EQUAL(wc.byte_len, table[i].byte_len);
		CU_ASSERT_EQUAL(wc.wc_flags, table[i].flags);
		CU_ASSERT_EQUAL(wc.vendor_err, kMark32);
		CU_ASSERT_EQUAL(wc.wr_id, kWrIdBase + 2);
	}
}

void test_opcode_mapping_extended(void)
{
	static const struct {
		uint8_t wqe_opcode;
		uint32_t wr_data;
		uint32_t opcode;
	} table[] = {
		{MLX5_OPCODE_RDMA_WRITE_IMM, 0, IBV_WC_RDMA_WRITE},
		{MLX5_OPCODE_SEND_IMM, 0, IBV_WC_SEND},
		{MLX5_OPCODE_RDMA_READ, 0, IBV_WC_RDMA_READ},
		{MLX5_OPCODE_ATOMIC_FA, 0, IBV_WC_FETCH_ADD},
		{MLX5_OPCODE_MMO, IBV_WC_DRIVER3, IBV_WC_DRIVER3},
		{MLX5_OPCODE_SET_PSV, IBV_WC_DRIVER1, IBV_WC_DRIVER1},
		{MLX5_OPCODE_TSO, 0, IBV_WC_TSO},
		{MLX5_OPCODE_CONFIG_CMD, 0, 0},
		{MLX5_OPCODE_SEND, IBV_WC_DRIVER2, IBV_WC_DRIVER2},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		Fixture f(1);
		struct ibv_poll_cq_attr attr = {};

		f.wr_data[1] = table[i].wr_data;
		f.req(0, table[i].wqe_opcode, 1, 0x4321);
		CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
		CU_ASSERT_EQUAL((uint32_t)ibv_wc_read_opcode(&f.cq->cqx), table[i].opcode);
		/* extended: byte_len is always the CQE's, WITH_IMM never for requesters */
		CU_ASSERT_EQUAL(ibv_wc_read_byte_len(&f.cq->cqx), 0x4321);
		CU_ASSERT_EQUAL(ibv_wc_read_wc_flags(&f.cq->cqx), 0);
		CU_ASSERT_EQUAL(ibv_wc_read_qp_num(&f.cq->cqx), kQpn);
		CU_ASSERT_EQUAL(f.cq->cqx.wr_id, kWrIdBase + 1);
		CU_ASSERT_EQUAL(f.qp->sq.tail, 102);
		ibv_end_poll(&f.cq->cqx);
	}
}

void test_extended_dbrec_at_end_only(void)
{
	Fixture f(1, 8, 64, 0);
	struct ibv_poll_cq_attr attr = {};

	f.dbrec[0] = 0;
	f.req(0, MLX5_OPCODE_SEND, 0);
	f.req(1, MLX5_OPCODE_SEND, 1);
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
	CU_ASSERT_EQUAL(ibv_next_poll(&f.cq->cqx), 0);
	CU_ASSERT_EQUAL(f.cq->cqx.wr_id, kWrIdBase + 1);
	CU_ASSERT_EQUAL(ibv_next_poll(&f.cq->cqx), ENOENT);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 0);
	ibv_end_poll(&f.cq->cqx);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 2);
}

void test_cqe128_second_half(void)
{
	Fixture f(1, 4, 128, 0);
	struct ibv_wc wc[4];

	f.req(0, MLX5_OPCODE_RDMA_READ, 7, 99);
	f.req(1, MLX5_OPCODE_SEND, 0);
	/* first halves look like valid CQEs of an unknown QP: they must be ignored */
	for (uint32_t i = 0; i < 4; i++) {
		memset(&f.ring[i * 128], 0x11, 64);
		f.ring[i * 128 + 63] = 0x00;
	}
	CU_ASSERT_EQUAL(f.poll(1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase + 7);
	CU_ASSERT_EQUAL(wc[0].byte_len, 99);
	CU_ASSERT_EQUAL(f.poll(4, wc), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, kWrIdBase + 0);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
	/* entries 2, 3 still invalid in their second half: empty */
	CU_ASSERT_EQUAL(f.poll(4, wc), 0);
	f.req(2, MLX5_OPCODE_SEND, 2);
	f.req(3, MLX5_OPCODE_SEND, 3);
	f.req(4, MLX5_OPCODE_SEND, 4); /* entry 0 again, owner 1 */
	CU_ASSERT_EQUAL(f.poll(4, wc), 3);
	CU_ASSERT_EQUAL(wc[2].wr_id, kWrIdBase + 4);
	CU_ASSERT_EQUAL(f.cq->cons_index, 5);
	/* entry 1 still holds its first-pass CQE (owner 0): hardware-owned now */
	CU_ASSERT_EQUAL(f.poll(4, wc), 0);
}

void test_unsignaled_coalesce(void)
{
	Fixture f(1);
	struct ibv_wc wc;

	/* WR sequence numbers 100..107 in slots 0..7; a CQE for slot 5 retires 0..5 */
	f.qp->sq.tail = 100;
	f.req(0, MLX5_OPCODE_SEND, 0xfffd); /* 16-bit counter, masked to the ring */
	CU_ASSERT_EQUAL(f.poll(1, &wc), 1);
	CU_ASSERT_EQUAL(wc.wr_id, kWrIdBase + 5);
	CU_ASSERT_EQUAL(f.qp->sq.tail, 106);
}

void test_resize_cqe(void)
{
	Fixture f(1);
	struct ibv_wc wc[2];
	struct ibv_poll_cq_attr attr = {};

	wc[0] = marked_wc();
	f.put(0, MLX5_CQE_RESIZE_CQ, 0, 0x00abcd, 0, 0);
	f.req(1, MLX5_OPCODE_SEND, 3);
	CU_ASSERT_EQUAL(f.poll(2, wc), 2);
	CU_ASSERT_EQUAL(wc[0].qp_num, 0x00abcd);
	CU_ASSERT_EQUAL(wc[0].wc_flags, 0);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0xa5a5a5a5a5a5a5a5ull);
	CU_ASSERT_EQUAL(raw32(&wc[0].status), kMark32);
	CU_ASSERT_EQUAL(raw32(&wc[0].opcode), kMark32);
	CU_ASSERT_EQUAL(wc[1].wr_id, kWrIdBase + 3);
	/* extended: reported, wr_id/status untouched, opcode 0 */
	f.put(2, MLX5_CQE_RESIZE_CQ, 0, 0x00abcd, 0, 0);
	f.cq->cqx.wr_id = 77;
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
	CU_ASSERT_EQUAL(f.cq->cqx.wr_id, 77);
	CU_ASSERT_EQUAL(ibv_wc_read_opcode(&f.cq->cqx), 0);
	ibv_end_poll(&f.cq->cqx);
}

void test_responder(void)
{
	Fixture f(1, 8, 64, 0,
		  IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
			  IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			  IBV_WC_EX_WITH_DLID_PATH_BITS);
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[4];
	uint8_t *c;

	f.qp->rq.tail = 3;
	c = f.put(0, MLX5_CQE_RESP_SEND_IMM, 0, kQpn, kUidx, 0x55, 512);
	mlx5_hw_st_be32(c + 36, 0xdeadbeef);             /* imm, raw */
	mlx5_hw_st_be32(c + 24, 0x25000000u | 0x654321); /* GRH, sl 5, src_qp */
	mlx5_hw_st_be16(c + 22, 0x77);                   /* slid */
	c[17] = 0x83;                                    /* ml_path */
	c = f.put(1, MLX5_CQE_RESP_SEND_INV, 0, kQpn, kUidx, 0, 0);
	mlx5_hw_st_be32(c + 36, 0x11223344);
	f.put(2, MLX5_CQE_RESP_WR_IMM, 0, kQpn, kUidx, 0, 8);
	f.put(3, MLX5_CQE_RESP_SEND, 0, kQpn, kUidx, 0, 16);
	CU_ASSERT_EQUAL(f.poll(2, wc), 2);
	/* v44: plain RQ wr_id from rq.tail, not from the CQE's counter */
	CU_ASSERT_EQUAL(wc[0].wr_id, kRqWrIdBase + 3);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RECV);
	CU_ASSERT_EQUAL(wc[0].byte_len, 512);
	CU_ASSERT_EQUAL(wc[0].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CU_ASSERT_EQUAL(wc[0].imm_data, htobe32(0xdeadbeef));
	CU_ASSERT_EQUAL(wc[0].src_qp, 0x654321);
	CU_ASSERT_EQUAL(wc[0].sl, 5);
	CU_ASSERT_EQUAL(wc[0].slid, 0x77);
	CU_ASSERT_EQUAL(wc[0].dlid_path_bits, 0x03);
	CU_ASSERT_EQUAL(wc[1].wr_id, kRqWrIdBase + 0); /* tail 4 wraps to slot 0 */
	CU_ASSERT_EQUAL(wc[1].wc_flags, IBV_WC_WITH_INV);
	CU_ASSERT_EQUAL(wc[1].invalidated_rkey, 0x11223344);
	CU_ASSERT_EQUAL(f.qp->rq.tail, 5);
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
	CU_ASSERT_EQUAL(f.cq->cqx.wr_id, kRqWrIdBase + 1);
	CU_ASSERT_EQUAL(ibv_wc_read_opcode(&f.cq->cqx), IBV_WC_RECV_RDMA_WITH_IMM);
	CU_ASSERT_EQUAL(ibv_wc_read_wc_flags(&f.cq->cqx), IBV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(ibv_wc_read_byte_len(&f.cq->cqx), 8);
	CU_ASSERT_EQUAL(ibv_next_poll(&f.cq->cqx), 0);
	CU_ASSERT_EQUAL(ibv_wc_read_opcode(&f.cq->cqx), IBV_WC_RECV);
	CU_ASSERT_EQUAL(ibv_wc_read_src_qp(&f.cq->cqx), 0);
	ibv_end_poll(&f.cq->cqx);
	CU_ASSERT_EQUAL(f.qp->rq.tail, 7);
	/* the extended read of SEND_INV gives the rkey in host order */
	c = f.put(4, MLX5_CQE_RESP_SEND_INV, 0, kQpn, kUidx, 0, 0);
	mlx5_hw_st_be32(c + 36, 0x11223344);
	mlx5_hw_st_be32(c + 24, 0x0a000000);
	CU_ASSERT_EQUAL(ibv_start_poll(&f.cq->cqx, &attr), 0);
	CU_ASSERT_EQUAL(ibv_wc_read_invalidated_rkey(&f.cq->cqx), 0x11223344);
	CU_ASSERT_EQUAL(ibv_wc_read_wc_flags(&f.cq->cqx), IBV_WC_WITH_INV);
	CU_ASSERT_EQUAL(ibv_wc_read_sl(&f.cq->cqx), 0xa);
	ibv_end_poll(&f.cq->cqx);
	/* a responder error takes the next RQ wr_id */
	f.put(5, MLX5_CQE_RESP_ERR, 0, kQpn, kUidx, 0, 0)[55] = 0x05;
	CU_ASSERT_EQUAL(f.poll(1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, kRqWrIdBase + 0); /* tail 8 */
	CU_ASSERT_EQUAL(f.qp->rq.tail, 9);
}

void test_sigerr_and_no_packet(void)
{
	Fixture f(1);
	struct ibv_wc wc[2];

	/* SIG_ERR naming an unknown mkey: consumed, -2, as libmlx5 (test_prov_sig: the rest) */
	f.put(0, MLX5_CQE_SIG_ERR, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(f.poll(2, wc), -2);
	CU_ASSERT_EQUAL(f.cq->cons_index, 1);
	f.put(1, MLX5_CQE_NO_PACKET, 0, kQpn, kUidx, 0);
	CU_ASSERT_EQUAL(f.poll(2, wc), -2);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
}

void test_read_ops_per_wc_flags(void)
{
	Fixture none(1, 8, 64, 0, 0);
	Fixture all(1, 8, 64, 0,
		    IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
			    IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			    IBV_WC_EX_WITH_DLID_PATH_BITS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	struct ibv_cq_ex *n = &none.cq->cqx, *a = &all.cq->cqx;
	struct ibv_poll_cq_attr attr = {};

	CU_ASSERT_PTR_NOT_NULL(n->start_poll);
	CU_ASSERT_PTR_NOT_NULL(n->read_opcode);
	CU_ASSERT_PTR_NOT_NULL(n->read_vendor_err);
	CU_ASSERT_PTR_NOT_NULL(n->read_wc_flags);
	CU_ASSERT_PTR_NULL(n->read_byte_len);
	CU_ASSERT_PTR_NULL(n->read_imm_data);
	CU_ASSERT_PTR_NULL(n->read_qp_num);
	CU_ASSERT_PTR_NULL(n->read_src_qp);
	CU_ASSERT_PTR_NULL(n->read_slid);
	CU_ASSERT_PTR_NULL(n->read_sl);
	CU_ASSERT_PTR_NULL(n->read_dlid_path_bits);
	CU_ASSERT_PTR_NULL(n->read_completion_ts);
	CU_ASSERT_PTR_NOT_NULL(a->read_byte_len);
	CU_ASSERT_PTR_NOT_NULL(a->read_imm_data);
	CU_ASSERT_PTR_NOT_NULL(a->read_qp_num);
	CU_ASSERT_PTR_NOT_NULL(a->read_src_qp);
	CU_ASSERT_PTR_NOT_NULL(a->read_slid);
	CU_ASSERT_PTR_NOT_NULL(a->read_sl);
	CU_ASSERT_PTR_NOT_NULL(a->read_dlid_path_bits);
	CU_ASSERT_PTR_NOT_NULL(a->read_completion_ts);
	mlx5_hw_st_be64(all.req(0, MLX5_OPCODE_SEND, 0) + 48, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(ibv_start_poll(a, &attr), 0);
	CU_ASSERT_EQUAL(ibv_wc_read_completion_ts(a), 0x0102030405060708ull);
	ibv_end_poll(a);
}

void test_req_notify(void)
{
	Fixture f(1, 8, 64, 0x1234567);
	struct ibv_cq *cq = ibv_cq_ex_to_cq(&f.cq->cqx);

	f.cq->arm_sn = 6;
	CU_ASSERT_EQUAL(sim_req_notify_cq(cq, 0), 0);
	CU_ASSERT_EQUAL(be32toh(f.dbrec[1]), 2u << 28 | 0x234567);
	CU_ASSERT_EQUAL(sim_req_notify_cq(cq, 1), 0);
	CU_ASSERT_EQUAL(be32toh(f.dbrec[1]), 2u << 28 | 1u << 24 | 0x234567);
	CU_ASSERT_EQUAL(f.cq->cons_index, 0x1234567); /* arming consumes nothing */
}

void test_cq_clean(void)
{
	Fixture f(1, 8, 64, 6);
	struct ibv_wc wc[8];
	SimQp other{};
	uint64_t owrid[kWqeCnt] = {0x9000, 0x9001, 0x9002};
	uint32_t ohead[kWqeCnt] = {};
	uint32_t odata[kWqeCnt] = {};

	other.ctx = f.ctx.get();
	other.uidx = 0x5555;
	other.sq.wqe_cnt = kWqeCnt;
	other.sq.wrid = owrid;
	other.sq.wqe_head = ohead;
	other.sq.wr_data = odata;
	f.ctx->qp_by_uidx.insert(other.uidx, &other);
	/* positions 6..10: mine, other, mine, other, mine (wrapping the ring) */
	f.req(6, MLX5_OPCODE_SEND, 0);
	f.put(7, MLX5_CQE_REQ, MLX5_OPCODE_SEND, 0x1, other.uidx, 1);
	f.req(8, MLX5_OPCODE_SEND, 2);
	f.put(9, MLX5_CQE_REQ, MLX5_OPCODE_SEND, 0x1, other.uidx, 2);
	f.req(10, MLX5_OPCODE_SEND, 3);
	sim_cq_clean(f.cq.get(), kUidx);
	CU_ASSERT_EQUAL(f.cq->cons_index, 9);
	CU_ASSERT_EQUAL(f.dbrec_ci(), 9);
	CU_ASSERT_EQUAL(f.poll(8, wc), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0x9001);
	CU_ASSERT_EQUAL(wc[1].wr_id, 0x9002);
	CU_ASSERT_EQUAL(f.poll(8, wc), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"empty CQ", test_empty},
		{"ownership and wrap", test_ownership_wrap},
		{"32-bit consumer counter wrap", test_consumer_counter_wrap},
		{"CQE v1: lookup by user index", test_lookup_v1_by_uidx},
		{"CQE v0: lookup by QPN", test_lookup_v0_by_qpn},
		{"unknown QP", test_unknown_qp},
		{"error syndromes", test_error_statuses},
		{"legacy opcode mapping", test_opcode_mapping_legacy},
		{"extended opcode mapping", test_opcode_mapping_extended},
		{"extended: SET_CI at end_poll", test_extended_dbrec_at_end_only},
		{"128-byte CQEs", test_cqe128_second_half},
		{"unsignaled coalescing", test_unsignaled_coalesce},
		{"resize CQE", test_resize_cqe},
		{"responder CQEs", test_responder},
		{"SIG_ERR and NO_PACKET", test_sigerr_and_no_packet},
		{"read ops per wc_flags", test_read_ops_per_wc_flags},
		{"req_notify_cq", test_req_notify},
		{"cq clean", test_cq_clean},
	};

	return CUNIT_RUN_SUITE("cq_poll", tests);
}
