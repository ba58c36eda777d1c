/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Test harness for the device side: rings, doorbell records and WQEs built by
 * hand (rdma-core's mlx5dv_set_ctrl_seg / mlx5dv_set_data_seg and mlx5_hw.h), a
 * CQ poller that follows the ownership rule. No provider code is used.
 */
#ifndef MLX5_SIM_HCA_TEST_UTIL_H
#define MLX5_SIM_HCA_TEST_UTIL_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <memory>
#include <string>
#include <vector>

#include <CUnit/Basic.h>
#include <infiniband/mlx5dv.h>

#include "hca.h"
#include "mlx5_hw.h"
#include "wqe_segs.h"

namespace hcatest {

using namespace mlx5sim;

/** Page-aligned allocation (aligned_alloc needs a multiple of the alignment). */
static inline void *page_alloc(size_t n)
{
	return aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
}

/** A CQ ring with its doorbell record, polled like libmlx5 does. */
struct TestCq {
	CqConfig cfg{};
	uint32_t cqn = 0;
	uint32_t ci = 0;
	uint32_t dbrec[2] = {0, 0};
	uint8_t *buf = nullptr;

	TestCq(Hca &hca, uint32_t ncqe, uint32_t cqe_size = 64)
	{
		buf = static_cast<uint8_t *>(page_alloc((size_t)ncqe * cqe_size));
		for (uint32_t i = 0; i < ncqe; i++) {
			memset(buf + (size_t)i * cqe_size, 0, cqe_size);
			buf[(size_t)i * cqe_size + cqe_size - 1] = MLX5_HW_CQE_INVALID_OP_OWN;
		}
		cfg = CqConfig{buf, ncqe, cqe_size, dbrec};
		CU_ASSERT_EQUAL_FATAL(hca.create_cq(cfg, &cqn), 0);
	}
	~TestCq() { free(buf); }

	/** Next CQE if software owns it. */
	bool poll(struct mlx5_cqe64 *out)
	{
		uint8_t *e = buf + (size_t)(ci & (cfg.ncqe - 1)) * cfg.cqe_size +
			     (cfg.cqe_size == 128 ? 64 : 0);
		uint8_t op_own = __atomic_load_n(e + 63, __ATOMIC_ACQUIRE);
		if ((op_own >> 4) == MLX5_CQE_INVALID ||
		    (op_own & MLX5_CQE_OWNER_MASK) != ((ci & cfg.ncqe) ? 1 : 0))
			return false;
		memcpy(out, e, sizeof(*out));
		ci++;
		/* the engine thread reads the record atomically: a plain store would race */
		__atomic_store_n(&dbrec[0], htobe32(ci & 0xffffff), __ATOMIC_RELEASE);
		return true;
	}
	int drain(std::vector<struct mlx5_cqe64> *v = nullptr)
	{
		struct mlx5_cqe64 c;
		int n = 0;
		while (poll(&c)) {
			if (v)
				v->push_back(c);
			n++;
		}
		return n;
	}
};

/** CQE field helpers. */
static inline uint8_t cqe_opcode(const struct mlx5_cqe64 &c)
{
	return c.op_own >> 4;
}
static inline uint8_t cqe_syndrome(const struct mlx5_cqe64 &c)
{
	return reinterpret_cast<const struct mlx5_err_cqe *>(&c)->syndrome;
}
static inline uint8_t cqe_vendor(const struct mlx5_cqe64 &c)
{
	return reinterpret_cast<const struct mlx5_err_cqe *>(&c)->vendor_err_synd;
}
static inline uint16_t cqe_counter(const struct mlx5_cqe64 &c)
{
	return be16toh(c.wqe_counter);
}
static inline uint32_t cqe_qpn(const struct mlx5_cqe64 &c)
{
	return be32toh(c.sop_drop_qpn) & 0xffffff;
}
static inline uint8_t cqe_wqe_op(const struct mlx5_cqe64 &c)
{
	return be32toh(c.sop_drop_qpn) >> 24;
}
static inline uint32_t cqe_bytes(const struct mlx5_cqe64 &c)
{
	return be32toh(c.byte_cnt);
}
static inline uint32_t cqe_uidx(const struct mlx5_cqe64 &c)
{
	return be32toh(c.srqn_uidx) & 0xffffff;
}

/** A QP's rings and doorbell record, posted to by hand. */
struct TestQp {
	QpConfig cfg{};
	uint32_t qpn = 0;
	uint32_t pi = 0; /**< WQEBB producer counter */
	uint32_t rq_pi = 0;
	uint32_t dbrec[2] = {0, 0};
	uint8_t *sq = nullptr;
	uint8_t *rq = nullptr;
	uint32_t last_ctrl_off = 0;

	TestQp(Hca &hca, uint32_t pdn, uint32_t scqn, uint32_t rcqn, uint32_t sq_cnt,
	       uint32_t rq_cnt = 16, uint32_t rq_shift = 6, uint32_t uidx = 0x77,
	       enum ibv_qp_type type = IBV_QPT_RC)
	{
		sq = static_cast<uint8_t *>(page_alloc((size_t)sq_cnt * 64));
		rq = static_cast<uint8_t *>(page_alloc(((size_t)rq_cnt << rq_shift) + 64));
		memset(sq, 0, (size_t)sq_cnt * 64);
		memset(rq, 0, (size_t)rq_cnt << rq_shift);
		cfg.type = type;
		cfg.pdn = pdn;
		cfg.uidx = uidx;
		cfg.sq_buf = sq;
		cfg.sq_wqe_cnt = sq_cnt;
		cfg.rq_buf = rq_cnt ? rq : nullptr;
		cfg.rq_wqe_cnt = rq_cnt;
		cfg.rq_wqe_shift = rq_shift;
		cfg.dbrec = dbrec;
		cfg.send_cqn = scqn;
		cfg.recv_cqn = rcqn;
		CU_ASSERT_EQUAL_FATAL(hca.create_qp(cfg, &qpn), 0);
	}
	~TestQp()
	{
		free(sq);
		free(rq);
	}

	/** Copy @p len bytes into the ring at pi (wrapping), then advance pi by @p wqebbs. */
	void post(const uint8_t *wqe, uint32_t len, uint32_t wqebbs)
	{
		uint32_t ring = cfg.sq_wqe_cnt * 64;
		uint32_t off = (pi & (cfg.sq_wqe_cnt - 1)) * 64;
		last_ctrl_off = off;
		for (uint32_t i = 0; i < len; i++)
			sq[(off + i) % ring] = wqe[i];
		pi += wqebbs;
	}
	/** Publish pi in the doorbell record and ring the doorbell. */
	void ring(Hca &hca)
	{
		__atomic_store_n(&dbrec[MLX5_SND_DBR], htobe32(pi & 0xffff), __ATOMIC_RELEASE);
		uint64_t ctrl8;
		memcpy(&ctrl8, sq + last_ctrl_off, 8);
		hca.sq_doorbell(qpn, ctrl8);
	}
	/** Post a receive WQE with the given segments (terminated if room remains). */
	void post_recv(Hca &hca, const std::vector<struct mlx5_wqe_data_seg> &segs)
	{
		uint32_t stride = 1u << cfg.rq_wqe_shift;
		uint8_t *w = rq + (size_t)(rq_pi & (cfg.rq_wqe_cnt - 1)) * stride;
		memset(w, 0, stride);
		uint32_t i = 0;
		for (; i < segs.size() && (i + 1) * 16 <= stride; i++)
			memcpy(w + i * 16, &segs[i], 16);
		if ((i + 1) * 16 <= stride) {
			struct mlx5_wqe_data_seg term;
			mlx5dv_set_data_seg(&term, 0, MLX5_INVALID_LKEY, 0);
			memcpy(w + i * 16, &term, 16);
		}
		rq_pi++;
		__atomic_store_n(&dbrec[MLX5_RCV_DBR], htobe32(rq_pi & 0xffff), __ATOMIC_RELEASE);
		hca.rq_notify(qpn);
	}
};

static inline struct mlx5_wqe_data_seg dseg(uint32_t len, uint32_t lkey, const void *addr)
{
	struct mlx5_wqe_data_seg d;
	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	return d;
}

/** Builds one WQE in a local buffer (wqe_segs.h) and posts it into a TestQp. */
struct Wqe : WqeSegs {
	Wqe(const TestQp &q, uint8_t opcode, uint8_t fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE,
	    uint8_t opmod = 0, uint32_t imm = 0)
	{
		ctrl(q.pi, opcode, opmod, q.qpn, fm_ce_se, imm);
	}
	/**
	 * Write ds into the ctrl segment and post into @p q. With @p ds_override the
	 * ctrl carries that ds (malformed WQEs); pi advances by what it names (1 if 0).
	 */
	void post(TestQp &q, int ds_override = -1)
	{
		uint32_t ds_val = ds_override >= 0 ? (uint32_t)ds_override : ds();
		auto *c = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(b);
		uint32_t w = be32toh(c->qpn_ds);
		c->qpn_ds = htobe32((w & ~0x3fu) | (ds_val & 0x3f));
		uint32_t adv = ds_val & 0x3f ? mlx5_hw_ds_to_wqebbs(ds_val & 0x3f) : 1;
		q.post(b, ds() * 16, adv);
	}
};

/** RESET to INIT on port 1 with @p access: the first step of every bring-up below. */
static inline int qp_to_init(Hca &hca, uint32_t qpn, int access)
{
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = access;
	return hca.modify_qp(qpn, a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/**
 * Bring @p q to RTS connected to @p dest_qpn with @p access; @p rnr_retry as
 * requester, @p min_rnr_timer (IB encoding, 12 = 0.64 ms) as responder; @p dlid:
 * the peer's port on a fabric (0: this instance); @p retry_cnt transport retries.
 */
static inline int connect_qp(Hca &hca, uint32_t qpn, uint32_t dest_qpn, int access,
			     uint8_t rnr_retry = 7, uint8_t min_rnr_timer = 12, uint16_t dlid = 0,
			     uint8_t retry_cnt = 7)
{
	int rc = qp_to_init(hca, qpn, access);
	if (rc)
		return rc;
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = min_rnr_timer;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = dlid;
	rc = hca.modify_qp(qpn, a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 1;
	return hca.modify_qp(qpn, a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/** Bring DCT @p qpn to RTR (where a DCT stays) with @p access. */
static inline int connect_dct(Hca &hca, uint32_t qpn, int access, uint8_t min_rnr_timer = 12)
{
	struct ibv_qp_attr rtr = {};
	rtr.qp_state = IBV_QPS_RTR;
	rtr.path_mtu = IBV_MTU_1024;
	rtr.min_rnr_timer = min_rnr_timer;
	int rc = qp_to_init(hca, qpn, access);
	return rc ? rc
		  : hca.modify_qp(qpn, rtr, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER);
}

static inline int set_state(Hca &hca, uint32_t qpn, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = {};
	a.qp_state = s;
	return hca.modify_qp(qpn, a, IBV_QP_STATE);
}

static inline enum ibv_qp_state qp_state(Hca &hca, uint32_t qpn)
{
	QpInfo info{};
	CU_ASSERT_EQUAL(hca.query_qp(qpn, &info), 0);
	return info.state;
}

constexpr int kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

/** A page-aligned buffer with guard bytes around the part that is registered. */
struct Buf {
	uint8_t *base = nullptr;
	size_t len = 0;
	static constexpr size_t kGuard = 64;
	explicit Buf(size_t n, uint8_t fill = 0)
	{
		len = n;
		base = static_cast<uint8_t *>(page_alloc(n + 2 * kGuard));
		memset(base, 0xee, n + 2 * kGuard);
		memset(base + kGuard, fill, n);
	}
	~Buf() { free(base); }
	uint8_t *p() { return base + kGuard; }
	bool guards_intact() const
	{
		for (size_t i = 0; i < kGuard; i++)
			if (base[i] != 0xee || base[kGuard + len + i] != 0xee)
				return false;
		return true;
	}
};

static inline uint32_t reg(Hca &hca, uint32_t pdn, void *p, size_t len, int access)
{
	uint32_t key = 0;
	CU_ASSERT_EQUAL(hca.reg_mr(pdn, (uintptr_t)p, len, access, &key), 0);
	return key;
}

/** A device with one PD. */
struct Env {
	std::shared_ptr<Hca> hca;
	uint32_t pdn = 0;
	explicit Env(ExecMode mode = ExecMode::Inline, const HcaCaps &caps = HcaCaps())
	{
		static int seq;
		hca = Hca::create("hcatest" + std::to_string(seq++), caps, mode);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
		CU_ASSERT_EQUAL_FATAL(hca->alloc_pd(&pdn), 0);
	}
	Hca &h() { return *hca; }
};

/** The first two CPUs this process may run on, for a device with two engine threads. */
inline bool two_cpus(cpu_set_t *set)
{
	cpu_set_t mine;
	unsigned n = 0;

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, set);
			n++;
		}
	return n == 2;
}

/**
 * A device in thread mode with one PD and an engine thread on each of this process's
 * first two CPUs. On a one-CPU machine it has no device and says the test is skipped;
 * the test then returns (if (!d) return;).
 */
struct TwoEngines {
	std::shared_ptr<Hca> hca;
	uint32_t pdn = 0;
	explicit TwoEngines(const char *name)
	{
		cpu_set_t cpus;

		if (!two_cpus(&cpus)) {
			printf("(one CPU: skipped) ");
			return;
		}
		hca = Hca::create(name, HcaCaps(), ExecMode::Thread, &cpus, nullptr, true);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
		CU_ASSERT_EQUAL_FATAL(hca->alloc_pd(&pdn), 0);
	}
	explicit operator bool() const { return hca != nullptr; }
	Hca &h() { return *hca; }
};

/** The engine thread QP @p qpn runs on (query_qp). */
inline unsigned engine_of(Hca &h, uint32_t qpn)
{
	QpInfo info{};
	CU_ASSERT_EQUAL(h.query_qp(qpn, &info), 0);
	return info.engine;
}

} // namespace hcatest

#endif /* MLX5_SIM_HCA_TEST_UTIL_H */
