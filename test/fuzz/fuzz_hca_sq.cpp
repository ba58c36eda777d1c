/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libFuzzer target of the software HCA's device side: SQ ring bytes, a doorbell
 * record value and an MR layout (hca_fuzz_env.h) executed in inline mode.
 *
 * Oracle, besides ASan/UBSan and the PROT_NONE pages around every MR slot, the SQ
 * and the CQ: the device consumes every WQEBB up to the producer counter (executed
 * or flushed), writes well-formed CQEs in order and never more than one requester
 * error CQE that is not a flush, and writes no byte of a slot that no live MR with local
 * write access covers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_fuzz_env.h"

using namespace hcafuzz;

namespace {

[[noreturn]] void fail(const char *what, unsigned a = 0, unsigned b = 0)
{
	fprintf(stderr, "hca_sq oracle: %s (%u, %u)\n", what, a, b);
	abort();
}

/* Consume the CQ; check every CQE. @return the number of CQEs. */
uint32_t drain(Env &e, bool sane, uint32_t *ci, uint32_t *err_cqes, uint16_t *last_sq_ctr,
	       bool *have_sq)
{
	uint32_t n = 0;
	for (;;) {
		const uint8_t *c = e.cq->p + (size_t)(*ci & (kNcqe - 1)) * 64;
		uint8_t op_own = c[63];
		if ((op_own >> 4) == MLX5_CQE_INVALID ||
		    (op_own & MLX5_CQE_OWNER_MASK) != ((*ci & kNcqe) ? 1 : 0))
			break;
		struct mlx5_cqe64 cqe;
		memcpy(&cqe, c, sizeof(cqe));
		uint8_t op = op_own >> 4;
		uint32_t qpn = be32toh(cqe.sop_drop_qpn) & 0xffffff;
		if (op == MLX5_CQE_SIG_ERR) {
			/* names the signature mkey, not the QP */
			auto *sc = reinterpret_cast<const struct mlx5_hw_sigerr_cqe *>(&cqe);
			if (be32toh(sc->mkey) >> 8 != e.mkey[0] >> 8)
				fail("SIG_ERR CQE of another mkey", be32toh(sc->mkey));
			(*ci)++;
			e.dbrec_cq[0] = htobe32(*ci & 0xffffff);
			n++;
			continue;
		}
		if (qpn != e.qpn)
			fail("CQE of another QP", qpn, e.qpn);
		if (op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR) {
			auto *ec = reinterpret_cast<const struct mlx5_err_cqe *>(&cqe);
			if (ec->syndrome == 0)
				fail("error CQE without a syndrome");
			if (op == MLX5_CQE_REQ_ERR &&
			    ec->syndrome != MLX5_CQE_SYNDROME_WR_FLUSH_ERR)
				(*err_cqes)++;
		} else if (op != MLX5_CQE_REQ && op != MLX5_CQE_RESP_WR_IMM &&
			   op != MLX5_CQE_RESP_SEND && op != MLX5_CQE_RESP_SEND_IMM &&
			   op != MLX5_CQE_RESP_SEND_INV) {
			fail("unexpected CQE opcode", op);
		}
		if (op == MLX5_CQE_REQ || op == MLX5_CQE_REQ_ERR) {
			uint16_t ctr = be16toh(cqe.wqe_counter);
			if (sane && *have_sq && (int16_t)(ctr - *last_sq_ctr) <= 0)
				fail("requester CQEs out of order", *last_sq_ctr, ctr);
			*last_sq_ctr = ctr;
			*have_sq = true;
		}
		(*ci)++;
		e.dbrec_cq[0] = htobe32(*ci & 0xffffff);
		n++;
	}
	return n;
}

/* No byte of a slot outside every live, locally writable MR of the QP's PD changed. */
void check_unwritten(const Env &e)
{
	for (int s = 0; s < kSlots; s++) {
		const uint8_t *p = slot(s);
		uint32_t lo = 0, hi = 0; /* the writable range of this slot, if any */
		if (s < e.n_mr && e.live[s] && e.mr_own_pd[s] &&
		    (e.mr_access[s] & IBV_ACCESS_LOCAL_WRITE)) {
			lo = (uint32_t)(e.mr_addr[s] - p);
			hi = lo + e.mr_len[s];
		}
		for (uint32_t i = 0; i < kSlot; i++)
			if ((i < lo || i >= hi) && p[i] != kFill)
				fail("byte written outside every writable MR", s, i);
	}
}

/* The WQE at the device's counter consumes a receive WQE (RNR wait in RTS is legal). */
bool waits_for_receive(const Env &e, const QpInfo &info)
{
	if (info.state != IBV_QPS_RTS)
		return false;
	const uint8_t *c = e.sq->p + (size_t)(info.hw_sq_wqebb_counter & (e.sq_cnt - 1)) * 64;
	uint8_t op = c[3];
	return op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
	       op == MLX5_OPCODE_SEND_INVAL || op == MLX5_OPCODE_RDMA_WRITE_IMM;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < sizeof(HcaFuzzHdr))
		return -1;
	HcaFuzzHdr h;
	memcpy(&h, data, sizeof(h));
	data += sizeof(h);
	size -= sizeof(h);

	Env e;
	if (e.setup(h))
		fail("environment setup");
	uint16_t start = (uint16_t)(h.start % e.sq_cnt);
	if (e.pre_nops(start))
		fail("NOPs before the batch not executed", start);
	uint16_t pi = (uint16_t)(start + h.pi);
	size_t sq_bytes = (size_t)e.sq_cnt * 64;
	size_t n = size < sq_bytes ? size : sq_bytes;
	memcpy(e.sq->p, data, n);
	memset(e.sq->p + n, 0, sq_bytes - n);
	data += n;
	size -= n;
	size_t rq_bytes = kRqCnt * 64;
	n = size < rq_bytes ? size : rq_bytes;
	memcpy(e.rq->p, data, n);
	memset(e.rq->p + n, 0, rq_bytes - n);

	uint32_t nrecv = (h.flags >> 1) & 7;
	if (nrecv > kRqCnt)
		nrecv = kRqCnt;
	if (nrecv)
		e.post_recv(nrecv);
	e.ring(pi, h.ctrl8);
	if (h.flags & 1)
		e.ring(pi, h.ctrl8);

	/*
	 * A producer more than a ring ahead is a software bug: the CQ may overrun, so only
	 * survival, the guard pages and the unwritable bytes are checked then.
	 */
	bool sane = h.pi <= e.sq_cnt;
	uint32_t ci = 0, err_cqes = 0;
	uint16_t last = 0;
	bool have_sq = false;
	uint32_t ncqe = drain(e, sane, &ci, &err_cqes, &last, &have_sq);

	QpInfo info{};
	if (e.hca->query_qp(e.qpn, &info))
		fail("query_qp");
	if (sane) {
		if (info.hw_sq_wqebb_counter != pi && !waits_for_receive(e, info))
			fail("WQEBBs left unconsumed (counter, producer)", info.hw_sq_wqebb_counter,
			     pi);
		if (err_cqes > 1)
			fail("more than one requester error CQE", err_cqes);
		/* one per WQEBB at most, one per receive, one responder error */
		if (ncqe > h.pi + nrecv + 1u)
			fail("more CQEs than WQEBBs and receives", ncqe, h.pi + nrecv);
		if (err_cqes && info.state != IBV_QPS_ERR)
			fail("an error CQE but the QP is not in ERR", info.state);
	}
	/* moved to ERR, the device flushes whatever is left */
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_ERR;
	if (e.hca->modify_qp(e.qpn, a, IBV_QP_STATE) || e.hca->query_qp(e.qpn, &info))
		fail("modify_qp to ERR");
	ncqe += drain(e, sane, &ci, &err_cqes, &last, &have_sq);
	if (sane && info.hw_sq_wqebb_counter != pi)
		fail("WQEBBs left unflushed in ERR (counter, producer)", info.hw_sq_wqebb_counter,
		     pi);
	check_unwritten(e);
	/* tear down in order: the QP, then what it used */
	if (e.hca->destroy_qp(e.qpn) || e.hca->destroy_cq(e.cqn))
		fail("teardown");
	for (int i = 0; i < e.n_mr; i++)
		if (e.live[i] && e.hca->dereg_mr(e.key[i]))
			fail("dereg_mr", i);
	/* a UMR may have changed an mkey's tag: destroy goes by index */
	for (int i = 0; i < kMkeys; i++)
		if (e.hca->destroy_mkey(e.mkey[i]))
			fail("destroy_mkey", i);
	for (uint32_t psv : e.psv)
		if (e.hca->destroy_psv(psv))
			fail("destroy_psv", psv);
	if (e.hca->dealloc_pd(e.pdn) || e.hca->dealloc_pd(e.other_pdn))
		fail("dealloc_pd");
	return 0;
}
