/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device commands: PDs, MRs (keys, mapping checks, implicit ODP), CQs, QPs and
 * the full QP state-machine transition table.
 */
#include <errno.h>
#include <unistd.h>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

/* ---- PDs and MRs ---- */

static void test_mr_keys(void)
{
	Env e;
	Buf b(4096);
	uint32_t k1 = reg(e.h(), e.pdn, b.p(), 4096, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_NOT_EQUAL(k1, 0u);
	CU_ASSERT_NOT_EQUAL(k1, (uint32_t)MLX5_INVALID_LKEY);
	CU_ASSERT_EQUAL(e.h().dereg_mr(k1), 0);
	CU_ASSERT_EQUAL(e.h().dereg_mr(k1), -EINVAL); /* already gone */
	uint32_t k2 = reg(e.h(), e.pdn, b.p(), 4096, IBV_ACCESS_LOCAL_WRITE);
	/* same index re-used, other variant: the stale key stays invalid */
	CU_ASSERT_EQUAL(k2 >> 8, k1 >> 8);
	CU_ASSERT_NOT_EQUAL(k2, k1);
	CU_ASSERT_EQUAL(e.h().dereg_mr(k1), -EINVAL);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(e.pdn), -EBUSY);
	CU_ASSERT_EQUAL(e.h().dereg_mr(k2), 0);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(e.pdn), 0);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(e.pdn), -EINVAL);
}

static void test_mr_validation(void)
{
	Env e;
	Buf b(4096);
	uint32_t key;
	uint64_t a = (uintptr_t)b.p();
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, a, 0, 0, &key), -EINVAL);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn + 5, a, 64, 0, &key), -EINVAL);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, a, 64, IBV_ACCESS_ZERO_BASED, &key), -EINVAL);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, a, 64, IBV_ACCESS_REMOTE_WRITE, &key), -EINVAL);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, a, 64, IBV_ACCESS_REMOTE_ATOMIC, &key), -EINVAL);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, a, UINT64_MAX, 0, &key), -EINVAL);
	/* implicit form needs ON_DEMAND */
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, 0, UINT64_MAX, IBV_ACCESS_LOCAL_WRITE, &key), -EINVAL);
}

static void test_mr_mapping(void)
{
	Env e;
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = static_cast<uint8_t *>(
		mmap(nullptr, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_NOT_EQUAL_FATAL(m, MAP_FAILED);
	munmap(m + pg, pg); /* hole in the middle */
	uint32_t key;
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)m, 3 * pg, 0, &key), -EFAULT);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)m + pg, 16, 0, &key), -EFAULT);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)m, pg, 0, &key), 0);
	/* read-only pages: fine for read access, -EFAULT when writable access is asked */
	mprotect(m + 2 * pg, pg, PROT_READ);
	uint32_t k2;
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)m + 2 * pg, pg, IBV_ACCESS_REMOTE_READ, &k2),
			0);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)m + 2 * pg, pg, IBV_ACCESS_LOCAL_WRITE, &k2),
			-EFAULT);
	munmap(m, pg);
	munmap(m + 2 * pg, pg);
}

static void test_mr_implicit_odp(void)
{
	Env e;
	uint32_t key;
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, 0, UINT64_MAX,
				     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &key),
			0);
	HcaCaps c;
	c.odp_implicit = false;
	Env n(ExecMode::Inline, c);
	CU_ASSERT_EQUAL(n.h().reg_mr(n.pdn, 0, UINT64_MAX,
				     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &key),
			-EOPNOTSUPP);
}

static void test_mr_limit(void)
{
	HcaCaps c;
	c.max_mr = 2;
	c.max_pd = 1;
	Env e(ExecMode::Inline, c);
	uint32_t pd2;
	CU_ASSERT_EQUAL(e.h().alloc_pd(&pd2), -ENOMEM);
	Buf b(64);
	uint32_t k1, k2, k3;
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)b.p(), 64, 0, &k1), 0);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)b.p(), 64, 0, &k2), 0);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)b.p(), 64, 0, &k3), -ENOMEM);
	CU_ASSERT_EQUAL(e.h().dereg_mr(k1), 0);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)b.p(), 64, 0, &k3), 0);
}

/* ---- CQs and QPs ---- */

static void test_cq_commands(void)
{
	HcaCaps c;
	c.max_cq = 1;
	Env e(ExecMode::Inline, c);
	uint32_t dbrec[2] = {};
	uint8_t *buf = static_cast<uint8_t *>(aligned_alloc(4096, 8192));
	uint32_t cqn;
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{buf, 12, 64, dbrec}, &cqn), -EINVAL);
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{buf, 16, 96, dbrec}, &cqn), -EINVAL);
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{nullptr, 16, 64, dbrec}, &cqn), -EINVAL);
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{buf, 16, 64, nullptr}, &cqn), -EINVAL);
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{buf, 16, 64, dbrec}, &cqn), 0);
	uint32_t cqn2;
	CU_ASSERT_EQUAL(e.h().create_cq(CqConfig{buf, 16, 64, dbrec}, &cqn2), -ENOMEM);
	{
		TestQp q(e.h(), e.pdn, cqn, cqn, 4);
		CU_ASSERT_EQUAL(e.h().destroy_cq(cqn), -EBUSY);
		CU_ASSERT_EQUAL(e.h().destroy_qp(q.qpn), 0);
		CU_ASSERT_EQUAL(e.h().destroy_qp(q.qpn), -EINVAL);
	}
	CU_ASSERT_EQUAL(e.h().destroy_cq(cqn), 0);
	CU_ASSERT_EQUAL(e.h().destroy_cq(cqn), -EINVAL);
	free(buf);
}

static void test_qp_create_validation(void)
{
	HcaCaps c;
	c.max_qp = 1;
	c.max_send_wqebb = 64;
	Env e(ExecMode::Inline, c);
	TestCq cq(e.h(), 16);
	uint32_t dbrec[2] = {};
	static uint8_t ring[64 * 128] __attribute__((aligned(64)));
	QpConfig ok{IBV_QPT_RC, e.pdn, 1, ring, 8, ring, 4, 6, dbrec, cq.cqn, cq.cqn};
	uint32_t qpn;
	QpConfig q = ok;
	q.type = IBV_QPT_RAW_PACKET; /* not modelled */
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EOPNOTSUPP);
	q = ok;
	q.pdn = 99;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.send_cqn = 1234;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.sq_wqe_cnt = 6;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.sq_wqe_cnt = 128;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.rq_wqe_shift = 2;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.dbrec = nullptr;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	q = ok;
	q.uidx = 1u << 24;
	CU_ASSERT_EQUAL(e.h().create_qp(q, &qpn), -EINVAL);
	CU_ASSERT_EQUAL(e.h().create_qp(ok, &qpn), 0);
	uint32_t qpn2;
	CU_ASSERT_EQUAL(e.h().create_qp(ok, &qpn2), -ENOMEM);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(e.pdn), -EBUSY);
	CU_ASSERT_EQUAL(e.h().destroy_qp(qpn), 0);
}

/* ---- state machine ---- */

static const enum ibv_qp_state kStates[] = {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
					    IBV_QPS_SQD,   IBV_QPS_SQE,  IBV_QPS_ERR};

/** The verbs table for RC (SQE cannot be entered by modify on RC). */
static bool legal(enum ibv_qp_state f, enum ibv_qp_state t)
{
	if (t == IBV_QPS_RESET || t == IBV_QPS_ERR)
		return true;
	switch (f) {
	case IBV_QPS_RESET:
		return t == IBV_QPS_INIT;
	case IBV_QPS_INIT:
		return t == IBV_QPS_INIT || t == IBV_QPS_RTR;
	case IBV_QPS_RTR:
		return t == IBV_QPS_RTS;
	case IBV_QPS_RTS:
		return t == IBV_QPS_RTS || t == IBV_QPS_SQD;
	case IBV_QPS_SQD:
		return t == IBV_QPS_RTS || t == IBV_QPS_SQD;
	default:
		return false;
	}
}

/** Mask and attributes a caller would use to go to @p t from @p f. */
static int attempt_mask(enum ibv_qp_state f, enum ibv_qp_state t, struct ibv_qp_attr *a)
{
	*a = {};
	a->qp_state = t;
	a->port_num = 1;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = 0x123;
	a->min_rnr_timer = 1;
	a->max_dest_rd_atomic = 1;
	a->max_rd_atomic = 1;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->ah_attr.port_num = 1;
	int m = IBV_QP_STATE;
	if (t == IBV_QPS_INIT && f != IBV_QPS_INIT)
		m |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	if (t == IBV_QPS_RTR)
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (t == IBV_QPS_RTS && f != IBV_QPS_RTS && f != IBV_QPS_SQD)
		m |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		     IBV_QP_MAX_QP_RD_ATOMIC;
	return m;
}

/** Walk a QP to @p s along legal transitions. */
static void bring_to(Hca &h, uint32_t qpn, enum ibv_qp_state s)
{
	static const enum ibv_qp_state path[] = {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
						 IBV_QPS_SQD};
	CU_ASSERT_EQUAL_FATAL(set_state(h, qpn, IBV_QPS_RESET), 0);
	if (s == IBV_QPS_ERR) {
		CU_ASSERT_EQUAL_FATAL(set_state(h, qpn, IBV_QPS_ERR), 0);
		return;
	}
	enum ibv_qp_state cur = IBV_QPS_RESET;
	for (enum ibv_qp_state n : path) {
		if (cur == s)
			break;
		struct ibv_qp_attr a;
		int m = attempt_mask(cur, n, &a);
		CU_ASSERT_EQUAL_FATAL(h.modify_qp(qpn, a, m), 0);
		cur = n;
	}
	CU_ASSERT_EQUAL_FATAL(qp_state(h, qpn), s);
}

static void test_transition_table(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	int checked = 0;
	for (enum ibv_qp_state f : kStates) {
		if (f == IBV_QPS_SQE)
			continue; /* not reachable for RC */
		for (enum ibv_qp_state t : kStates) {
			bring_to(e.h(), q.qpn, f);
			QpInfo before{};
			e.h().query_qp(q.qpn, &before);
			struct ibv_qp_attr a;
			int m = attempt_mask(f, t, &a);
			int rc = e.h().modify_qp(q.qpn, a, m);
			if (legal(f, t)) {
				CU_ASSERT_EQUAL(rc, 0);
				CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), t);
			} else {
				CU_ASSERT_EQUAL(rc, -EINVAL);
				QpInfo after{};
				e.h().query_qp(q.qpn, &after);
				CU_ASSERT_EQUAL(after.state, f);
				CU_ASSERT_EQUAL(after.access_flags, before.access_flags);
				CU_ASSERT_EQUAL(after.dest_qpn, before.dest_qpn);
			}
			checked++;
		}
	}
	CU_ASSERT_EQUAL(checked, 42);
}

static void test_transition_masks(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	struct ibv_qp_attr a;
	int m = attempt_mask(IBV_QPS_RESET, IBV_QPS_INIT, &a);
	/* each required attribute is required */
	for (int bit : {IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_ACCESS_FLAGS}) {
		CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m & ~bit), -EINVAL);
		CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RESET);
	}
	/* an attribute the transition does not accept */
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m | IBV_QP_DEST_QPN), -EINVAL);
	/* bad values */
	a.port_num = 2;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m), -EINVAL);
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_ON_DEMAND;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m), -EINVAL);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RESET);
	/* current state checked when given */
	m = attempt_mask(IBV_QPS_RESET, IBV_QPS_INIT, &a);
	a.cur_qp_state = IBV_QPS_INIT;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m | IBV_QP_CUR_STATE), -EINVAL);
	a.cur_qp_state = IBV_QPS_RESET;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m | IBV_QP_CUR_STATE), 0);
	QpInfo info{};
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.access_flags,
			(uint32_t)(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE));
	m = attempt_mask(IBV_QPS_INIT, IBV_QPS_RTR, &a);
	for (int bit : {IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_DEST_QPN, IBV_QP_RQ_PSN,
			IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER})
		CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m & ~bit), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.dest_qpn, 0x123u);
	m = attempt_mask(IBV_QPS_RTR, IBV_QPS_RTS, &a);
	for (int bit : {IBV_QP_SQ_PSN, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY,
			IBV_QP_MAX_QP_RD_ATOMIC})
		CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m & ~bit), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, m), 0);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RTS);
	/* no IBV_QP_STATE: stays in RTS, optional attribute applied */
	a = {};
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.access_flags, (uint32_t)IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_DEST_QPN), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(0xdead, a, IBV_QP_STATE), -EINVAL);
}

/* INIT2INIT's qpc.drain_sigerr (the kernel side's DevX path): in INIT only */
static void test_set_drain_sigerr(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	QpInfo info{};
	CU_ASSERT_EQUAL(e.h().set_drain_sigerr(q.qpn), -EINVAL); /* RESET */
	CU_ASSERT_EQUAL(e.h().set_drain_sigerr(0xdead), -EINVAL);
	CU_ASSERT_EQUAL(qp_to_init(e.h(), q.qpn, 0), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_FALSE(info.drain_sigerr);
	CU_ASSERT_EQUAL(e.h().set_drain_sigerr(q.qpn), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_TRUE(info.drain_sigerr);
	CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	CU_ASSERT_EQUAL(e.h().set_drain_sigerr(q.qpn), -EINVAL); /* RTS */
}

static void test_reset_clears_counters(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	for (int i = 0; i < 3; i++) {
		Wqe w(q, MLX5_OPCODE_NOP);
		w.post(q);
	}
	q.ring(e.h());
	QpInfo info{};
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.hw_sq_wqebb_counter, 3);
	CU_ASSERT_EQUAL(cq.drain(), 3);
	CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RESET), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.hw_sq_wqebb_counter, 0);
	CU_ASSERT_EQUAL(info.dest_qpn, 0u);
	/* the provider zeroes its counters and dbrec on RESET; the index restarts at 0 */
	q.pi = 0;
	q.dbrec[0] = q.dbrec[1] = 0;
	CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	Wqe w(q, MLX5_OPCODE_NOP);
	w.post(q);
	q.ring(e.h());
	struct mlx5_cqe64 c;
	CU_ASSERT_TRUE_FATAL(cq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_counter(c), 0);
}

static void test_doorbell_before_rts_ignored(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	struct ibv_qp_attr a;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, attempt_mask(IBV_QPS_RESET, IBV_QPS_INIT, &a)),
			0);
	Wqe w(q, MLX5_OPCODE_NOP);
	w.post(q);
	q.ring(e.h());
	CU_ASSERT_EQUAL(cq.drain(), 0);
	QpInfo info{};
	e.h().query_qp(q.qpn, &info);
	CU_ASSERT_EQUAL(info.hw_sq_wqebb_counter, 0);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, attempt_mask(IBV_QPS_INIT, IBV_QPS_RTR, &a)), 0);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, attempt_mask(IBV_QPS_RTR, IBV_QPS_RTS, &a)), 0);
	CU_ASSERT_EQUAL(cq.drain(), 0); /* RTS alone fetches nothing */
	q.ring(e.h());                  /* the next doorbell fetches up to the record */
	CU_ASSERT_EQUAL(cq.drain(), 1);
	CU_ASSERT_EQUAL(e.h().stats().doorbells, 2u);
}

static void test_sqd_drained_event(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	AsyncEvent ev;
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CU_ASSERT_EQUAL_FATAL(e.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.type, IBV_EVENT_SQ_DRAINED);
	CU_ASSERT_EQUAL(ev.qpn, q.qpn);
	CU_ASSERT_EQUAL(e.h().get_async_event(&ev), -EAGAIN);
	/* in SQD nothing new is fetched; back in RTS the posted WQE runs */
	Wqe w(q, MLX5_OPCODE_NOP);
	w.post(q);
	q.ring(e.h());
	CU_ASSERT_EQUAL(cq.drain(), 0);
	CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RTS), 0);
	CU_ASSERT_EQUAL(cq.drain(), 1);
}

int main(void)
{
	static const struct cunit_test mr[] = {
		{"keys, variants, stale keys, busy PD", test_mr_keys},
		{"reg_mr argument validation", test_mr_validation},
		{"reg_mr mapping checks (-EFAULT)", test_mr_mapping},
		{"implicit on-demand MR", test_mr_implicit_odp},
		{"PD and MR limits (-ENOMEM)", test_mr_limit},
	};
	static const struct cunit_test obj[] = {
		{"CQ commands", test_cq_commands},
		{"QP create validation", test_qp_create_validation},
	};
	static const struct cunit_test sm[] = {
		{"full transition table", test_transition_table},
		{"required/optional masks, values, CUR_STATE", test_transition_masks},
		{"RESET clears device counters", test_reset_clears_counters},
		{"INIT2INIT drain_sigerr: INIT only", test_set_drain_sigerr},
		{"doorbells before RTS are ignored", test_doorbell_before_rts_ignored},
		{"SQD: no fetch, SQ_DRAINED event", test_sqd_drained_event},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("hca pd/mr", mr),
		CUNIT_SUITE("hca cq/qp commands", obj),
		CUNIT_SUITE("hca qp state machine", sm),
	};

	return CUNIT_RUN_SUITES(suites);
}
