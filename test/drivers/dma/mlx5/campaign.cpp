/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * test_pmd_campaign: a fault campaign through the public rte_dma API. Per mode
 * (software HCA inline/thread x posting path direct/verbs): ops of random sizes
 * (1 B .. 64 KiB, log-uniform) between random offsets of a registered pool -- copies,
 * scatter-gather copies (both sides cut into up to 8 random segments: a chain of
 * WQEs) and fills (one of 12 patterns: the vchan's 8 pattern slots churn) -- source
 * pattern-filled, destination marked before each op, with about 1 % of the ops
 * accompanied by an injected fault of every kind the software HCA offers
 * (mlx5_sim.h): FAIL_WQE with every CQE syndrome (aimed at one op), QP_FATAL (ops in
 * flight), DELAY_COMPLETIONS (thread mode; inline mode only releases held CQEs on
 * quiesce, which nothing calls) and CQ_OVERRUN (the CQ goes into error and its
 * CQEs are lost: the PMD notices through the device's async events when the vchan
 * stalls, gives it a new CQ and QP and posts again what was not known complete;
 * --no-overrun leaves it out).
 *
 * Contract checked (doc/guides/dmadevs/mlx5.rst "Errors and recovery"):
 *  - every op is reported exactly once, in ring-index order (lost, duplicated);
 *  - the op a FAIL_WQE hit is reported with the status of its syndrome, every other
 *    op (flushed and re-posted by the PMD's recovery) SUCCESSFUL; a FAIL_WQE with
 *    the WR_FLUSH syndrome looks like a fatal flush: re-posted, SUCCESSFUL;
 *  - every successful op's destination equals its source; a failed op's destination
 *    is untouched or fully written (a failed WQE may have moved its data); the byte
 *    after every destination untouched;
 *  - per fault: the recoveries of the vchan (rte_dma_dump) grow by one (zero for
 *    DELAY_COMPLETIONS), rte_dma_stats errors count exactly the failed ops.
 * A mode stalls when nothing completes for 5 s: its ops in flight count as lost and
 * the device is reopened.
 * --umr-entries N opens the devices with umr_entries=N: long SG lists take the UMR
 * path (list mkeys), so faults also hit its UMR WQEs and MMOs through mkeys.
 *   test_pmd_campaign [--ops N] [--seed S] [--no-overrun] [--umr-entries N]
 *                     [--mode inline-direct,...]
 * Prints a table per mode and ends with "N passed, N failed" (one check per mode).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include <infiniband/mlx5dv.h>
#include <rte_eal.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr uint32_t kMaxLen = 65536;
constexpr uint32_t kSlots = 64;             /**< destination slots: ops in flight at most */
constexpr size_t kSlotLen = 2 * kMaxLen;    /**< a destination lies inside its slot */
constexpr size_t kSrcLen = 8 * 1024 * 1024; /**< source pool */
constexpr uint16_t kNbDesc = 128;
constexpr uint8_t kMark = 0xd7; /**< destination bytes before the op */
const char *const kDev = "dma_mlx5_campaign";
unsigned g_umr_entries; /**< --umr-entries: devarg umr_entries= (0: not given) */
bool g_sig;             /**< --sig: sig=1, and 1 op in 10 a signature strip (direct path) */
constexpr uint32_t kSigBlocks = 64; /**< CRC32C-protected 512-byte blocks of the sig pool */
constexpr uint32_t kSigBlk = 512 + 4;

const uint8_t kSyndromes[] = {
	MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
	MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
	MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
	MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
	MLX5_CQE_SYNDROME_MW_BIND_ERR,
	MLX5_CQE_SYNDROME_BAD_RESP_ERR,
	MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR,
	MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
	MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
	MLX5_CQE_SYNDROME_REMOTE_OP_ERR,
	MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
	MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
	MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR,
};

/* The driver guide's table; WR_FLUSH: re-posted like a fatal flush. */
enum rte_dma_status_code expected_status(uint8_t synd)
{
	switch (synd) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return RTE_DMA_STATUS_INVALID_LENGTH;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return RTE_DMA_STATUS_INVALID_OPCODE;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return RTE_DMA_STATUS_INVALID_ADDR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return RTE_DMA_STATUS_SUCCESSFUL;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return RTE_DMA_STATUS_BUS_ERROR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return RTE_DMA_STATUS_DEV_LINK_ERROR;
	default:
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	}
}

enum FaultKind {
	F_FAIL,
	F_FATAL,
	F_DELAY,
	F_OVERRUN,
	F_NUM
};
const char *const kFaultName[F_NUM] = {"fail_wqe", "qp_fatal", "delay", "cq_overrun"};

enum OpKind {
	K_COPY,
	K_SG,
	K_FILL,
	K_SIG /**< strip CRC32C from 1..8 blocks of the protected pool (--sig) */
};

struct Op {
	uint16_t idx;
	uint32_t slot;
	uint32_t len;
	size_t soff, doff;
	enum rte_dma_status_code expect;
	OpKind kind;
	uint64_t pattern; /**< K_FILL */
};

/* Cut [addr, addr + len) into @p n segments of random lengths (some may be empty). */
void cut(uint64_t addr, uint32_t len, uint16_t n, std::mt19937_64 &rng, struct rte_dma_sge *sge)
{
	uint32_t at = 0;

	for (uint16_t k = 0; k < n; k++) {
		uint32_t piece = k + 1 == n ? len - at : (uint32_t)(rng() % (len - at + 1));

		sge[k] = {addr + at, piece};
		at += piece;
	}
}

struct Mode {
	const char *name, *sim, *path;
	bool thread;
};
const Mode kModes[] = {
	{"inline-direct", T_SIM_INLINE, "direct", false},
	{"inline-verbs", T_SIM_INLINE, "verbs", false},
	{"thread-direct", T_SIM_THREAD, "direct", true},
	{"thread-verbs", T_SIM_THREAD, "verbs", true},
};

struct Counts {
	uint64_t ops = 0, completed = 0, lost = 0, dup = 0, wrong = 0, corrupt = 0;
	uint64_t injected[F_NUM] = {}, accounted[F_NUM] = {};
	uint64_t failed_ops = 0, stats_mismatch = 0, stalls = 0;
};

uint64_t recoveries_of(int16_t id)
{
	char *buf = nullptr;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t total = 0;

	if (!f)
		return 0;
	rte_dma_dump(id, f);
	fclose(f);
	for (const char *p = buf; p && (p = strstr(p, "recoveries ")); p++)
		total += strtoull(p + strlen("recoveries "), nullptr, 10);
	free(buf);
	return total;
}

class Campaign {
public:
	Campaign(const Mode &m, uint64_t nops, uint32_t seed, bool overrun)
		: m_(m), nops_(nops), rng_(seed), overrun_(overrun), bufs_(kSrcLen),
		  dst_(kSlots * kSlotLen), prot_(kSigBlocks * kSigBlk)
	{
	}

	bool run(Counts *c)
	{
		c_ = c;
		if (!bufs_.ok() || !dst_.ok() || !prot_.ok())
			return false;
		t_fill(bufs_.src, kSrcLen, 0x5eed); /* before open(): the signature pool */
		if (open())
			return false;
		memset(dst_.dst, kMark, kSlots * kSlotLen);
		uint64_t since_fault = 0;
		while (issued_ < nops_) {
			/* a burst averages 8.5 ops: about one op in 100 meets a fault */
			bool fault = since_fault >= 8 && rng_() % 10 == 0;
			if (fault) {
				inject();
				since_fault = 0;
			}
			uint32_t burst = 1 + rng_() % 16;
			for (uint32_t k = 0; k < burst && issued_ < nops_; k++) {
				while (inflight_.size() >= kSlots - 1 ||
				       rte_dma_burst_capacity(id_, 0) == 0) {
					if (!poll())
						break;
				}
				enqueue(k == burst - 1);
				since_fault++;
			}
			if (rng_() % 2)
				poll();
		}
		rte_dma_submit(id_, 0);
		drain();
		close_episode();
		check_stats();
		t_close(kDev);
		t_sim_ctx_close(ctx_);
		return true;
	}

private:
	int open()
	{
		char args[256];
		int n = snprintf(args, sizeof(args), "dev=%s,sim_exec=%s,path=%s", m_.sim,
				 m_.thread ? "thread" : "inline", m_.path);
		if (g_umr_entries)
			n += snprintf(args + n, sizeof(args) - n, ",umr_entries=%u", g_umr_entries);
		if (g_sig)
			snprintf(args + n, sizeof(args) - n, ",sig=1");
		int id = t_open(kDev, args, 1, kNbDesc);
		if (id < 0) {
			fprintf(stderr, "campaign %s: cannot open %s: %d\n", m_.name, args, id);
			return -1;
		}
		id_ = (int16_t)id;
		if (!ctx_)
			ctx_ = t_sim_ctx_open(m_.sim);
		if (!ctx_ || rte_pmd_dma_mlx5_vchan_info(id_, 0, &vi_))
			return -1;
		if (g_sig && protect())
			return -1;
		base_recoveries_ = recoveries_of(id_);
		ep_recoveries_ = base_recoveries_;
		reported_ok_ = sig_on_ ? 1 : 0; /* protect()'s op */
		reported_err_ = 0;
		return 0;
	}

	/*
	 * The signature pool: the first kSigBlocks * 512 source bytes given CRC32C PI by
	 * the device (prot_.src), and a copy with every third block's CRC spoiled
	 * (prot_.dst). Only where the vchan takes signature ops (path=direct).
	 */
	int protect()
	{
		struct rte_pmd_dma_mlx5_sig_caps caps;
		struct rte_pmd_dma_mlx5_sig_xfer x = {};
		enum rte_dma_status_code st;
		uint16_t last;

		sig_on_ = rte_pmd_dma_mlx5_sig_caps(id_, &caps) == 0 && caps.enabled;
		if (!sig_on_)
			return 0;
		struct rte_dma_sge s = {t_iova(bufs_.src), kSigBlocks * 512};
		struct rte_dma_sge d = {t_iova(prot_.src), kSigBlocks * kSigBlk};
		x.src = &s;
		x.dst = &d;
		x.nb_src = x.nb_dst = 1;
		x.dst_dom.type = RTE_PMD_DMA_MLX5_SIG_CRC32C;
		x.dst_dom.block_size = 512;
		if (rte_pmd_dma_mlx5_sig_copy(id_, 0, &x, RTE_DMA_OP_FLAG_SUBMIT) != 0 ||
		    t_wait_status(id_, 0, 1, &st, &last) != 1 || st != RTE_DMA_STATUS_SUCCESSFUL)
			return -1;
		memcpy(prot_.dst, prot_.src, kSigBlocks * kSigBlk);
		for (uint32_t b = 0; b < kSigBlocks; b += 3)
			prot_.dst[b * kSigBlk + 512] ^= 0x81;
		next_idx_ = 1;
		return 0;
	}

	uint32_t rand_len()
	{
		uint32_t bits = rng_() % 17; /* log-uniform: 1 B .. 64 KiB */
		return 1 + (uint32_t)(rng_() % (1u << bits));
	}

	void enqueue(bool submit)
	{
		Op op;
		op.len = rand_len();
		op.slot = next_slot_++ % kSlots;
		op.soff = rng_() % (kSrcLen - op.len + 1);
		op.doff = (size_t)op.slot * kSlotLen + rng_() % (kSlotLen - op.len);
		op.expect = RTE_DMA_STATUS_SUCCESSFUL;
		if (aim_next_) {
			op.expect = aim_status_;
			aim_next_ = false;
		}
		uint8_t *d = dst_.dst + op.doff;
		uint64_t fl = submit ? RTE_DMA_OP_FLAG_SUBMIT : 0;
		uint32_t dice = rng_() % 10;
		struct rte_dma_sge s[8], dd[8];
		uint16_t ns = 1 + rng_() % 8, nd = 1 + rng_() % 8;
		int r;

		op.kind = dice < 6               ? K_COPY
			  : dice < 8             ? K_SG
			  : dice < 9 || !sig_on_ ? K_FILL
						 : K_SIG;
		struct rte_pmd_dma_mlx5_sig_xfer x = {};
		if (op.kind == K_SIG) {
			/* blocks b0.. of the pool, good or with spoiled CRCs */
			uint32_t nb = 1 + rng_() % 8, b0 = rng_() % (kSigBlocks - nb + 1);
			bool spoiled = rng_() % 4 == 0;

			op.len = nb * 512;
			op.soff = b0 * 512;
			op.doff = (size_t)op.slot * kSlotLen;
			d = dst_.dst + op.doff;
			if (spoiled && op.expect == RTE_DMA_STATUS_SUCCESSFUL &&
			    (b0 + 2) / 3 * 3 < b0 + nb)
				op.expect = RTE_DMA_STATUS_DATA_POISION;
			s[0] = {t_iova((spoiled ? prot_.dst : prot_.src) + b0 * kSigBlk),
				nb * kSigBlk};
			dd[0] = {t_iova(d), op.len};
			x.src = s;
			x.dst = dd;
			x.nb_src = x.nb_dst = 1;
			x.src_dom.type = RTE_PMD_DMA_MLX5_SIG_CRC32C;
			x.src_dom.block_size = 512;
		}
		op.pattern = 0x0123456789abcdefull * (1 + rng_() % 12);
		memset(d, kMark, op.len + 1);
		if (op.kind == K_SG) {
			cut(t_iova(bufs_.src + op.soff), op.len, ns, rng_, s);
			cut(t_iova(d), op.len, nd, rng_, dd);
		}
		for (;;) {
			if (op.kind == K_COPY)
				r = rte_dma_copy(id_, 0, t_iova(bufs_.src + op.soff), t_iova(d),
						 op.len, fl);
			else if (op.kind == K_SG)
				r = rte_dma_copy_sg(id_, 0, s, dd, ns, nd, fl);
			else if (op.kind == K_SIG)
				r = rte_pmd_dma_mlx5_sig_copy(id_, 0, &x, fl);
			else
				r = rte_dma_fill(id_, 0, op.pattern, t_iova(d), op.len, fl);
			/* a chain longer than the free SQ, or every pattern slot busy */
			if (r != -ENOSPC || !poll())
				break;
		}
		if (r < 0) {
			fprintf(stderr, "campaign %s: enqueue of kind %d: %d\n", m_.name, op.kind,
				r);
			c_->wrong++;
			return;
		}
		op.idx = (uint16_t)r;
		if (op.idx != next_idx_) {
			fprintf(stderr, "campaign %s: ring index %u, expected %u\n", m_.name,
				op.idx, next_idx_);
			c_->wrong++;
		}
		next_idx_ = (uint16_t)(op.idx + 1);
		inflight_.push_back(op);
		issued_++;
		c_->ops++;
	}

	/* One completion call; @return false when nothing came back for 5 s. */
	bool poll()
	{
		enum rte_dma_status_code st[32];
		uint16_t last = 0, n;
		bool err = false;

		rte_dma_submit(id_, 0);
		if (rng_() % 2) {
			n = rte_dma_completed(id_, 0, 32, &last, &err);
			for (uint16_t i = 0; i < n; i++)
				st[i] = RTE_DMA_STATUS_SUCCESSFUL;
			if (n == 0 && err)
				n = rte_dma_completed_status(id_, 0, 32, &last, st);
		} else {
			n = rte_dma_completed_status(id_, 0, 32, &last, st);
		}
		if (n == 0) {
			if (inflight_.empty())
				return true;
			if (!stall_since_)
				stall_since_ = t_now_ms();
			else if (t_now_ms() - stall_since_ > 5000)
				return stalled(), false;
			return true;
		}
		stall_since_ = 0;
		for (uint16_t i = 0; i < n; i++) {
			uint16_t idx = (uint16_t)(last - (n - 1 - i));
			if (inflight_.empty()) {
				c_->dup++;
				continue;
			}
			Op op = inflight_.front();
			if (idx != op.idx) {
				/* an op skipped (lost) or reported again (duplicated) */
				if ((int16_t)(idx - op.idx) < 0) {
					c_->dup++;
					continue;
				}
				while (!inflight_.empty() && inflight_.front().idx != idx) {
					c_->lost++;
					inflight_.pop_front();
				}
				if (inflight_.empty())
					continue;
				op = inflight_.front();
			}
			inflight_.pop_front();
			c_->completed++;
			verify(op, st[i]);
		}
		return true;
	}

	void verify(const Op &op, enum rte_dma_status_code st)
	{
		const uint8_t *d = dst_.dst + op.doff;
		const uint8_t *s = bufs_.src + op.soff;
		std::vector<uint8_t> pat;

		if (op.kind == K_FILL) {
			pat.resize(op.len);
			for (uint32_t i = 0; i < op.len; i++)
				pat[i] = ((const uint8_t *)&op.pattern)[i % 8];
			s = pat.data();
		}

		if (st != op.expect) {
			if (c_->wrong < 10)
				fprintf(stderr,
					"campaign %s: op %u (kind %d) status %d, expected %d\n",
					m_.name, op.idx, op.kind, st, op.expect);
			c_->wrong++;
		}
		if (st == RTE_DMA_STATUS_SUCCESSFUL) {
			reported_ok_++;
			if (memcmp(d, s, op.len) != 0)
				c_->corrupt++;
		} else {
			reported_err_++;
			c_->failed_ops++;
			bool untouched = true;
			for (uint32_t i = 0; i < op.len && untouched; i++)
				untouched = d[i] == kMark;
			if (!untouched && memcmp(d, s, op.len) != 0)
				c_->corrupt++;
		}
		if (d[op.len] != kMark)
			c_->corrupt++;
	}

	void drain()
	{
		rte_dma_submit(id_, 0);
		while (!inflight_.empty())
			if (!poll())
				break;
	}

	void stalled()
	{
		fprintf(stderr,
			"campaign %s: nothing completed for 5 s with %zu ops in flight "
			"(last fault %s): counted lost, device reopened\n",
			m_.name, inflight_.size(), kFaultName[ep_kind_]);
		c_->lost += inflight_.size();
		c_->stalls++;
		inflight_.clear();
		t_close(kDev);
		next_idx_ = 0;
		ep_open_ = false;
		if (open())
			abort();
	}

	/* The fault of the episode that just ended is accounted for? */
	void close_episode()
	{
		uint64_t rec = recoveries_of(id_);
		if (ep_open_) {
			uint64_t want = ep_kind_ == F_DELAY ? 0 : 1;
			if (rec - ep_recoveries_ == want && !ep_status_missed())
				c_->accounted[ep_kind_]++;
			else if (c_->wrong < 10)
				fprintf(stderr,
					"campaign %s: %s fault: %" PRIu64
					" recoveries, expected %" PRIu64 "\n",
					m_.name, kFaultName[ep_kind_], rec - ep_recoveries_, want);
		}
		if (ep_open_ && ep_kind_ == F_DELAY) {
			struct mlx5_sim_fault f = {};
			f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
			f.qpn = vi_.qpn;
			f.delay_us = 0; /* the delay stays until cleared */
			mlx5_sim_inject_fault(ctx_, &f);
		}
		ep_open_ = false;
		ep_recoveries_ = rec;
	}
	bool ep_status_missed() const { return c_->wrong != ep_wrong_; }

	void inject()
	{
		/* one fault at a time: its episode ends with every op reported */
		drain();
		close_episode();
		if (!inflight_.empty())
			return;
		int kinds = m_.thread ? 3 : 2;
		FaultKind k = (FaultKind)(rng_() % (kinds + (overrun_ ? 1 : 0)));
		if (k == kinds)
			k = F_OVERRUN;
		struct mlx5_sim_fault f = {};
		uint16_t wqe;
		uint32_t cqn;

		if (test_hook_next_wqe(id_, 0, &wqe, &cqn) ||
		    rte_pmd_dma_mlx5_vchan_info(id_, 0, &vi_))
			abort();
		f.qpn = vi_.qpn; /* a lost CQ gives the vchan a new QP */
		f.cqn = cqn;
		switch (k) {
		case F_FAIL:
			f.kind = MLX5_SIM_FAULT_FAIL_WQE;
			/* nothing is in flight: "the next WQE" is the one of that index */
			if (rng_() & 1)
				f.flags = MLX5_SIM_FAULT_F_NEXT_WQE;
			else
				f.wqe_index = wqe;
			f.syndrome = kSyndromes[synd_turn_++ % RTE_DIM(kSyndromes)];
			f.vendor_syndrome = 0x5a;
			aim_next_ = true;
			aim_status_ = expected_status(f.syndrome);
			break;
		case F_FATAL:
			f.kind = MLX5_SIM_FAULT_QP_FATAL;
			break;
		case F_DELAY:
			f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
			f.delay_us = 200 + rng_() % 2000;
			break;
		default:
			f.kind = MLX5_SIM_FAULT_CQ_OVERRUN;
			/* the CQ by its number, or as the QP's send CQ */
			if (rng_() & 1) {
				f.flags = MLX5_SIM_FAULT_F_QP_SEND_CQ;
				f.cqn = 0;
			}
			break;
		}
		if (mlx5_sim_inject_fault(ctx_, &f)) {
			fprintf(stderr, "campaign %s: inject %s failed\n", m_.name, kFaultName[k]);
			aim_next_ = false;
			return;
		}
		c_->injected[k]++;
		ep_open_ = true;
		ep_kind_ = k;
		ep_wrong_ = c_->wrong;
	}

	void check_stats()
	{
		struct rte_dma_stats s;
		if (rte_dma_stats_get(id_, 0, &s)) {
			c_->stats_mismatch++;
			return;
		}
		if (s.completed != reported_ok_ + reported_err_ || s.errors != reported_err_) {
			fprintf(stderr,
				"campaign %s: stats completed %" PRIu64 " errors %" PRIu64
				", reported %" PRIu64 " / %" PRIu64 " failed\n",
				m_.name, s.completed, s.errors, reported_ok_ + reported_err_,
				reported_err_);
			c_->stats_mismatch++;
		}
	}

	const Mode &m_;
	uint64_t nops_, issued_ = 0;
	std::mt19937_64 rng_;
	bool overrun_;
	t_bufs bufs_, dst_;
	Counts *c_ = nullptr;
	int16_t id_ = -1;
	struct ibv_context *ctx_ = nullptr;
	struct rte_pmd_dma_mlx5_vchan_info vi_ = {};
	std::deque<Op> inflight_;
	uint32_t next_slot_ = 0;
	uint16_t next_idx_ = 0;
	uint64_t stall_since_ = 0;
	bool aim_next_ = false;
	enum rte_dma_status_code aim_status_ = RTE_DMA_STATUS_SUCCESSFUL;
	unsigned synd_turn_ = 0;
	bool ep_open_ = false;
	FaultKind ep_kind_ = F_FAIL;
	t_bufs prot_;         /**< signature pool: good (src) and spoiled (dst) PI */
	bool sig_on_ = false; /**< the vchan takes signature ops */
	uint64_t ep_wrong_ = 0, ep_recoveries_ = 0, base_recoveries_ = 0;
	uint64_t reported_ok_ = 0, reported_err_ = 0;
};

int add_sims(void)
{
	for (const char *n : {T_SIM_INLINE, T_SIM_THREAD}) {
		struct mlx5_sim_device_attr attr;

		t_sim_attr(n, &attr);
		if (mlx5_sim_device_add(n, &attr))
			return -1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	uint64_t nops = 20000;
	uint32_t seed = 1;
	bool overrun = true;
	std::string only;
	static const struct option opts[] = {{"ops", required_argument, nullptr, 'n'},
					     {"seed", required_argument, nullptr, 's'},
					     {"mode", required_argument, nullptr, 'm'},
					     {"no-overrun", no_argument, nullptr, 'o'},
					     {"umr-entries", required_argument, nullptr, 'u'},
					     {"sig", no_argument, nullptr, 'g'},
					     {nullptr, 0, nullptr, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, nullptr)) != -1) {
		switch (c) {
		case 'n':
			nops = strtoull(optarg, nullptr, 0);
			break;
		case 's':
			seed = (uint32_t)strtoul(optarg, nullptr, 0);
			break;
		case 'm':
			only = optarg;
			break;
		case 'o':
			overrun = false;
			break;
		case 'u':
			g_umr_entries = (unsigned)strtoul(optarg, nullptr, 0);
			break;
		case 'g':
			g_sig = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [--ops N] [--seed S] [--mode a,b] [--no-overrun] "
				"[--umr-entries N] [--sig]\n",
				argv[0]);
			return 2;
		}
	}
	char *eal_argv[] = {argv[0],
			    (char *)"--no-huge",
			    (char *)"-m",
			    (char *)"1024",
			    (char *)"--no-pci",
			    (char *)"--no-shconf",
			    (char *)"--log-level=pmd.dma.mlx5:error",
			    nullptr};
	if (rte_eal_init(7, eal_argv) < 0 || add_sims()) {
		fprintf(stderr, "campaign: EAL or software HCA setup failed\n");
		return 1;
	}
	int passed = 0, failed = 0;
	printf("%-14s %9s %5s %5s %6s %7s %6s  faults injected/accounted\n", "mode", "ops", "lost",
	       "dup", "wrong", "corrupt", "failed");
	for (const Mode &m : kModes) {
		if (!only.empty() &&
		    ("," + only + ",").find("," + std::string(m.name) + ",") == std::string::npos)
			continue;
		Counts k;
		uint64_t t0 = t_now_ms();
		Campaign camp(m, nops, seed, overrun);
		bool ran = camp.run(&k);
		bool ok = ran && k.lost == 0 && k.dup == 0 && k.wrong == 0 && k.corrupt == 0 &&
			  k.stats_mismatch == 0 && k.completed == k.ops;
		std::string faults;
		for (int f = 0; f < F_NUM; f++) {
			char b[64];
			snprintf(b, sizeof(b), "%s%s %" PRIu64 "/%" PRIu64, f ? ", " : "",
				 kFaultName[f], k.injected[f], k.accounted[f]);
			faults += b;
			ok = ok && k.injected[f] == k.accounted[f];
		}
		printf("%-14s %9" PRIu64 " %5" PRIu64 " %5" PRIu64 " %6" PRIu64 " %7" PRIu64
		       " %6" PRIu64 "  %s  (%.1f s)%s\n",
		       m.name, k.ops, k.lost, k.dup, k.wrong, k.corrupt, k.failed_ops,
		       faults.c_str(), (t_now_ms() - t0) / 1000.0, ok ? "" : "  FAILED");
		fflush(stdout);
		ok ? passed++ : failed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
