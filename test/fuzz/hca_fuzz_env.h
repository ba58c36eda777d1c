/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The device-side fuzz target's input format and environment, shared by the target
 * (fuzz_hca_sq.cpp) and the seed generator (gen_hca_corpus.cpp).
 *
 * Input: a HcaFuzzHdr, then the SQ ring bytes (up to sq_wqe_cnt * 64, from ring
 * offset 0), then the RQ ring bytes (up to 4 * 64). Before the batch, the device
 * executes @c start unsignaled NOPs, so the batch starts at WQEBB @c start.
 * A fresh software HCA (inline mode) per input, one PD for
 * the QP and one other, up to four MRs, each in its own 16 KiB slot between PROT_NONE
 * pages at a fixed address (so seeds can name real addresses), some registered in the
 * other PD, some deregistered again (stale keys), two indirect mkeys of the QP's PD
 * (free until a UMR WQE of the batch fills them; the first a signature mkey with a
 * BSF, PSVs 1 and 2 of the same PD for its domains; the second with remote
 * invalidation), and a CQ and SQ between PROT_NONE pages too. Keys are
 * deterministic: a fresh instance hands them out in order.
 */
#ifndef HCA_FUZZ_ENV_H
#define HCA_FUZZ_ENV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <memory>
#include <string>

#include <infiniband/mlx5dv.h>

#include "hca.h"
#include "mlx5_hw.h"

namespace hcafuzz {

using namespace mlx5sim;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kSlot = 16384; /**< bytes per MR slot */
constexpr int kSlots = 4;         /**< MRs at most */
constexpr uint32_t kNcqe = 512;   /**< CQ entries: above every SQ + RQ */
constexpr uint32_t kRqCnt = 4;    /**< receive WQEs, 64-byte stride */
constexpr uint32_t kMaxLogSq = 7; /**< SQ of 2 .. 128 WQEBBs */
/** Base of the MR area: fixed, inside user space and outside ASan's shadow. */
constexpr uintptr_t kPoolBase = 0x300000000000ull;
constexpr uint8_t kFill = 0xa5;   /**< every slot byte before the doorbell */
constexpr int kMkeys = 2;         /**< indirect mkeys of every environment */
constexpr uint32_t kMkeyDesc = 8; /**< their translation octowords */

struct HcaFuzzMr {
	uint16_t off;   /**< offset in the slot (mod kSlot) */
	uint16_t len;   /**< 1 + len mod (kSlot - off) */
	uint8_t access; /**< IBV_ACCESS_* (low 4 bits) */
	uint8_t pd;     /**< bit 0: registered in the other PD */
	uint8_t stale;  /**< bit 0: deregistered after registration */
	uint8_t pad;
};

struct HcaFuzzHdr {
	uint8_t log_sq;    /**< sq_wqe_cnt = 2 << (log_sq mod kMaxLogSq) */
	uint8_t n_mr;      /**< mod (kSlots + 1) */
	uint8_t qp_access; /**< the QP's IBV_ACCESS_* (low 4 bits) */
	uint8_t flags;     /**< bit 0: ring the doorbell twice; bits 1-3: receive WQEs posted */
	uint16_t pi;       /**< WQEBBs of the batch: the doorbell record is start + pi */
	uint16_t start;    /**< NOPs executed first (mod sq_wqe_cnt), so batches wrap */
	uint64_t ctrl8;    /**< the doorbell's 8 bytes (first 8 of the last WQE) */
	HcaFuzzMr mr[kSlots];
};
static_assert(sizeof(HcaFuzzHdr) == 48, "input header layout");

constexpr int kMrAccessMask = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

static inline uint8_t *slot(int i)
{
	return reinterpret_cast<uint8_t *>(kPoolBase + kPage + (uint64_t)i * (kSlot + kPage));
}
constexpr size_t kPoolLen = kPage + kSlots * (kSlot + kPage);

/** An anonymous mapping of @p len bytes (a page multiple) between PROT_NONE pages. */
struct Guarded {
	uint8_t *map = nullptr;
	uint8_t *p = nullptr;
	size_t len = 0;
	explicit Guarded(size_t n) : len(n)
	{
		map = static_cast<uint8_t *>(mmap(nullptr, n + 2 * kPage, PROT_NONE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		if (map == MAP_FAILED)
			abort();
		p = map + kPage;
		if (mprotect(p, n, PROT_READ | PROT_WRITE))
			abort();
	}
	~Guarded() { munmap(map, len + 2 * kPage); }
	Guarded(const Guarded &) = delete;
	Guarded &operator=(const Guarded &) = delete;
};

/** The MR pool: mapped once, slots between PROT_NONE pages. */
static inline void pool_map(void)
{
	static bool done;
	if (done)
		return;
	void *m = mmap(reinterpret_cast<void *>(kPoolBase), kPoolLen, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != reinterpret_cast<void *>(kPoolBase)) {
		fprintf(stderr, "hcafuzz: cannot map the MR pool at %#lx\n", kPoolBase);
		abort();
	}
	for (int i = 0; i < kSlots; i++)
		if (mprotect(slot(i), kSlot, PROT_READ | PROT_WRITE))
			abort();
	done = true;
}

/** One input's device: PDs, MRs, CQ, QP in RTS (connected to itself). */
struct Env {
	std::shared_ptr<Hca> hca;
	uint32_t pdn = 0, other_pdn = 0;
	uint32_t cqn = 0, qpn = 0;
	uint32_t sq_cnt = 0;
	uint32_t key[kSlots] = {}; /**< 0: registration refused */
	uint32_t mkey[kMkeys] = {};
	uint32_t psv[2] = {};   /**< memory and wire PSV of mkey 0 */
	bool live[kSlots] = {}; /**< registered and not deregistered */
	uint8_t *mr_addr[kSlots] = {};
	uint32_t mr_len[kSlots] = {};
	int mr_access[kSlots] = {};
	bool mr_own_pd[kSlots] = {};
	uint32_t dbrec_sq[2] = {0, 0};
	uint32_t dbrec_cq[2] = {0, 0};
	std::unique_ptr<Guarded> cq, sq, rq;
	int n_mr = 0;

	/** @return 0, or -1 when the environment could not be built (a harness bug). */
	int setup(const HcaFuzzHdr &h)
	{
		static unsigned seq;
		pool_map();
		for (int i = 0; i < kSlots; i++)
			memset(slot(i), kFill, kSlot);
		hca = Hca::create("hcafuzz" + std::to_string(seq++), HcaCaps(), ExecMode::Inline);
		if (!hca || hca->alloc_pd(&pdn) || hca->alloc_pd(&other_pdn))
			return -1;
		n_mr = h.n_mr % (kSlots + 1);
		for (int i = 0; i < n_mr; i++) {
			const HcaFuzzMr &m = h.mr[i];
			uint32_t off = m.off % kSlot;
			mr_addr[i] = slot(i) + off;
			mr_len[i] = 1 + m.len % (uint32_t)(kSlot - off);
			mr_access[i] = m.access & kMrAccessMask;
			mr_own_pd[i] = !(m.pd & 1);
			if (hca->reg_mr(mr_own_pd[i] ? pdn : other_pdn, (uintptr_t)mr_addr[i],
					mr_len[i], mr_access[i], &key[i]))
				key[i] = 0;
			live[i] = key[i] != 0;
			if (key[i] && (m.stale & 1)) {
				if (hca->dereg_mr(key[i]))
					return -1;
				live[i] = false;
			}
		}
		for (int i = 0; i < kMkeys; i++)
			if (hca->create_mkey(pdn, kMkeyDesc,
					     i ? HCA_MKEY_REMOTE_INVALIDATE : HCA_MKEY_BSF,
					     &mkey[i]))
				return -1;
		if (hca->create_psv(pdn, &psv[0]) || hca->create_psv(pdn, &psv[1]))
			return -1;
		cq = std::make_unique<Guarded>(kNcqe * 64);
		for (uint32_t i = 0; i < kNcqe; i++)
			cq->p[i * 64 + 63] = MLX5_CQE_INVALID << 4;
		CqConfig cc{cq->p, kNcqe, 64, dbrec_cq};
		if (hca->create_cq(cc, &cqn))
			return -1;
		sq_cnt = 2u << (h.log_sq % kMaxLogSq);
		sq = std::make_unique<Guarded>((sq_cnt * 64 + kPage - 1) & ~(kPage - 1));
		/* the ring ends at the guard page */
		sq->p += sq->len - sq_cnt * 64;
		rq = std::make_unique<Guarded>(kPage);
		rq->p += kPage - kRqCnt * 64;
		QpConfig qc{};
		qc.type = IBV_QPT_RC;
		qc.pdn = pdn;
		qc.uidx = 0x55;
		qc.sq_buf = sq->p;
		qc.sq_wqe_cnt = sq_cnt;
		qc.rq_buf = rq->p;
		qc.rq_wqe_cnt = kRqCnt;
		qc.rq_wqe_shift = 6;
		qc.dbrec = dbrec_sq;
		qc.send_cqn = cqn;
		qc.recv_cqn = cqn;
		if (hca->create_qp(qc, &qpn))
			return -1;
		return connect(h.qp_access & kMrAccessMask);
	}

	int connect(int access)
	{
		struct ibv_qp_attr a = {};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = access;
		if (hca->modify_qp(qpn, a,
				   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS))
			return -1;
		a = {};
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qpn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.port_num = 1;
		if (hca->modify_qp(qpn, a,
				   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER))
			return -1;
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		return hca->modify_qp(qpn, a,
				      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					      IBV_QP_MAX_QP_RD_ATOMIC)
			       ? -1
			       : 0;
	}

	/** Publish @p pi in the doorbell record and ring the doorbell with @p ctrl8. */
	void ring(uint16_t pi, uint64_t ctrl8)
	{
		__atomic_store_n(&dbrec_sq[MLX5_SND_DBR], htobe32(pi), __ATOMIC_RELEASE);
		hca->sq_doorbell(qpn, ctrl8);
	}
	/** Execute @p n unsignaled one-WQEBB NOPs from WQEBB 0: the SQ is then at @p n. */
	int pre_nops(uint16_t n)
	{
		if (!n)
			return 0;
		for (uint16_t i = 0; i < n; i++)
			mlx5dv_set_ctrl_seg(reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(
						    sq->p + (size_t)i * 64),
					    i, MLX5_OPCODE_NOP, 0, qpn, 0, 1, 0, 0);
		uint64_t ctrl8;
		memcpy(&ctrl8, sq->p + (size_t)(n - 1) * 64, 8);
		ring(n, ctrl8);
		QpInfo info{};
		return hca->query_qp(qpn, &info) || info.hw_sq_wqebb_counter != n ? -1 : 0;
	}
	/** Post @p n receive WQEs (already in the RQ ring). */
	void post_recv(uint32_t n)
	{
		__atomic_store_n(&dbrec_sq[MLX5_RCV_DBR], htobe32(n), __ATOMIC_RELEASE);
		hca->rq_notify(qpn);
	}
};

} // namespace hcafuzz

#endif /* HCA_FUZZ_ENV_H */
