/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Fast path for the WQE the DMA driver posts nearly always: a memcpy MMO of one
 * WQEBB (ds 4) whose three keys name plain (non on-demand) MRs of the QP's PD.
 *
 * It reads each WQE once, straight from the ring (a WQEBB never straddles the
 * ring end), and accepts only a WQE the general path (fetch_wqe + plan_wqe)
 * would accept with the very same plan. Anything else - a failed check, an armed
 * FailWqe, ODP, another opcode or size - stops the run without side effects and
 * the general path decides that WQE; so error CQEs have one source.
 * test_hca_fastpath pins the equivalence of both paths.
 */
#include <string.h>

#include "cq_table.h"
#include "dev_stats.h"
#include "sq_engine.h"
#include "wqe_exec.h"

namespace mlx5sim {

namespace {

/**
 * An MR a key of this run was checked against, with the access the role needs
 * (source: read, metadata and destination: LOCAL_WRITE). The MR table cannot
 * change during a run (mu_ is held, or an unlocked pass runs:
 * DevMutex::enter_unlocked()), so a later WQE with the same key only needs
 * the bounds test against the remembered MR. Empty: key 0 (never valid) and
 * len 0, which no span fits.
 */
struct KeyMemo {
	uint32_t key;
	uint64_t base;
	uint64_t len;
};

/** What every WQE of one run is checked against, loaded once per run. */
struct FastCtx {
	const MrEntry *mrs;
	size_t nmr; /**< MrTable::size() */
	uint32_t pdn;
	uint64_t ctrl0;   /**< ctrl word 0 of index 0 in ring byte order (want_ctrl_raw0) */
	uint64_t max_len; /**< caps.max_wr_memcpy_length */
	KeyMemo meta, src, dst;
	uint64_t meta_addr; /**< opaque address checked with meta.key */
};

/** The 32 bits of a big-endian 8-byte word that sit at its lower address. */
inline uint32_t hi32(uint64_t be_word)
{
	return (uint32_t)(be_word >> 32);
}

/** The 32 bits of a big-endian 8-byte word that sit at its higher address. */
inline uint32_t lo32(uint64_t be_word)
{
	return (uint32_t)be_word;
}

/** The 8 words of the WQEBB at @p slot as they lie in the ring, each loaded once. */
struct Wqebb {
	uint64_t raw[8];
	explicit Wqebb(const uint64_t *slot)
		: raw{ld(slot, 0), ld(slot, 1), ld(slot, 2), ld(slot, 3),
		      ld(slot, 4), ld(slot, 5), ld(slot, 6), ld(slot, 7)}
	{
	}
	static uint64_t ld(const uint64_t *slot, unsigned i)
	{
		return __atomic_load_n(&slot[i], __ATOMIC_RELAXED);
	}
	uint64_t be(unsigned i) const { return be64toh(raw[i]); } /**< word @p i, big-endian */
};

/**
 * Bounds test of check_local() for a non-ODP MR. reg_mr guarantees
 * base + len <= UINT64_MAX, so "len <= mr_len && addr - base <= mr_len - len"
 * (unsigned) rejects addr below base (the difference wraps above mr_len - len)
 * and implies that addr + len neither overflows nor passes the MR end.
 */
inline bool in_mr(const KeyMemo &m, uint64_t addr, uint64_t len)
{
	return len <= m.len && addr - m.base <= m.len - len;
}

/**
 * True only if MrTable::check_local() accepts the same span without probing
 * pages; remembers the MR in @p m for the next WQE of the run.
 */
inline bool key_ok(const FastCtx &c, KeyMemo *m, uint32_t key, uint64_t addr, uint64_t len,
		   bool write)
{
	if (key == m->key)
		return in_mr(*m, addr, len);
	uint32_t idx = key >> 8;
	if (idx - 1 >= c.nmr - 1) /* index 0 is never handed out */
		return false;
	const MrEntry &mr = c.mrs[idx];
	/* fast_key: the key while registered and not ODP, else 0 (never a key) */
	if (mr.fast_key != key || mr.pdn != c.pdn)
		return false;
	if (write && !(mr.access & IBV_ACCESS_LOCAL_WRITE))
		return false;
	*m = KeyMemo{key, mr.addr, mr.len};
	return in_mr(*m, addr, len);
}

/** The opaque metadata: the same key and address in every WQE, checked once. */
inline bool meta_ok(FastCtx *c, uint32_t key, uint64_t addr)
{
	if (key == c->meta.key && addr == c->meta_addr && key != 0)
		return true;
	if (!key_ok(*c, &c->meta, key, addr, MLX5_HW_OPAQUE_BUF_LEN, true))
		return false;
	c->meta_addr = addr;
	return true;
}

inline uint8_t *host_ptr(uint64_t addr)
{
	return reinterpret_cast<uint8_t *>((uintptr_t)addr);
}

/** ctrl byte 11 (fence mode, CQE request) of a WQE's second ring word, as it lies there. */
inline uint8_t fm_ce_se_of(uint64_t raw_w1)
{
	return (uint8_t)(raw_w1 >> 24);
}

/** Keep what the plan of an accepted WQE needs beyond what every such plan holds. */
inline void keep(FastPlan *fp, uint16_t idx, uint64_t raw_w1, uint64_t src, uint64_t dst,
		 uint64_t len)
{
	fp->src = host_ptr(src);
	fp->dst = host_ptr(dst);
	fp->len = len;
	fp->idx = idx;
	fp->fm_ce_se = fm_ce_se_of(raw_w1);
}

/**
 * The ctrl word 0 (opmod | index | opcode, qpn | ds) a WQE with index 0 carries, as it
 * lies in the ring (big-endian bytes in a host word).
 */
inline uint64_t want_ctrl_raw0(uint32_t qpn_ds)
{
	uint32_t op = (uint32_t)MLX5_HW_OPC_MOD_MMO_DMA << 24 | MLX5_OPCODE_MMO;
	return htobe64((uint64_t)op << 32 | qpn_ds);
}

/** The same for index @p idx: its two big-endian bytes are ring bytes 1 and 2. */
inline uint64_t want_ctrl_raw(uint64_t raw0, uint16_t idx)
{
	return raw0 | (uint64_t)htobe16(idx) << 8;
}

/**
 * Plan the WQE @p w (read once from the ring, so the values checked are the values
 * used even if software rewrites the ring meanwhile) with index @p idx if it is a
 * fast-path MMO.
 */
inline bool plan_one(FastCtx *c, const Wqebb &w, uint16_t idx, FastPlan *fp)
{
	/* ctrl: opmod | index | opcode and qpn | ds, one exact compare */
	if (w.raw[0] != want_ctrl_raw(c->ctrl0, idx))
		return false;
	/* words 2/3: opaque metadata; 4/5: source; 6/7: destination (bc|lkey, addr) */
	uint64_t src_bk = w.be(4), dst_bk = w.be(6);
	uint64_t len = hca_seg_len(hi32(src_bk));
	if (len != hca_seg_len(hi32(dst_bk)) || len > c->max_len)
		return false;
	uint64_t src = w.be(5), dst = w.be(7);
	if (!meta_ok(c, lo32(w.be(2)), w.be(3)) ||
	    !key_ok(*c, &c->src, lo32(src_bk), src, len, false) ||
	    !key_ok(*c, &c->dst, lo32(dst_bk), dst, len, true))
		return false;
	keep(fp, idx, w.raw[1], src, dst, len);
	return true;
}

/** After plan_one() accepted @p w: the words it checked, not the ring again. */
inline void remember(FastMemo *m, const FastCtx &c, const Wqebb &w, const FastPlan *fp)
{
	m->meta_key = w.raw[2];
	m->meta_addr = w.raw[3];
	m->src_bk = w.raw[4];
	m->dst_bk = w.raw[6];
	m->len = fp->len;
	m->src_base = c.src.base;
	m->src_room = c.src.len - fp->len;
	m->dst_base = c.dst.base;
	m->dst_room = c.dst.len - fp->len;
}

/**
 * The checks of plan_one() left for a WQE @p w whose segment words repeat those of
 * the WQE @p m was filled from (under the current MR table generation): the same
 * keys, byte counts and metadata passed every check but the two address bounds.
 */
inline bool repeats(const FastMemo &m, uint64_t ctrl0, const Wqebb &w, uint16_t idx)
{
	return w.raw[0] == want_ctrl_raw(ctrl0, idx) && w.raw[2] == m.meta_key &&
	       w.raw[3] == m.meta_addr && w.raw[4] == m.src_bk && w.raw[6] == m.dst_bk;
}

/** Both addresses of a repeating WQE inside the MRs @p m remembers. */
inline bool in_bounds(const FastMemo &m, uint64_t src, uint64_t dst)
{
	return src - m.src_base <= m.src_room && dst - m.dst_base <= m.dst_room;
}

/**
 * plan_one() for a WQE whose segment words repeat the last accepted WQE's (only after
 * plan_new() filled @p m): checks the ctrl word and both address bounds only. False:
 * plan_new() decides.
 */
inline bool plan_repeat(const FastCtx &c, const FastMemo &m, const Wqebb &w, uint16_t idx,
			FastPlan *fp)
{
	if (!repeats(m, c.ctrl0, w, idx))
		return false;
	uint64_t src = w.be(5), dst = w.be(7);
	if (!in_bounds(m, src, dst))
		return false;
	keep(fp, idx, w.raw[1], src, dst, m.len);
	return true;
}

/**
 * plan_one() and remember() for the WQE at ring slot @p slot when it does not repeat
 * the last one: out of line, so that the repeat loops keep their values in registers.
 * It reads the WQE once more; what it checks is what it plans, as plan_one() says.
 */
__attribute__((noinline)) bool plan_new(FastCtx *c, FastMemo *m, const uint64_t *slot, uint16_t idx,
					FastPlan *fp, uint64_t gen)
{
	const Wqebb w(slot);

	if (!plan_one(c, w, idx, fp))
		return false;
	remember(m, *c, w, fp);
	m->gen = gen;
	return true;
}

/** Why move_repeats() stopped. */
enum class RepeatEnd : uint8_t {
	Count, /**< it moved all it was given */
	Cqe,   /**< the last WQE it moved asks for a CQE */
	Other, /**< the WQE after the last one it moved is no repeat: the full checks decide */
};

/**
 * Check and move the WQEs from ring slot @p slot (index @p idx) on, at most @p k
 * (@p k > 0, none past the ring end), while each repeats the WQE @p m remembers and
 * lies inside its MRs (repeats(), in_bounds()); returns how many it moved. @p k64:
 * m.len is 64, the inlined move. Every word is read once, the ones checked are the
 * ones used.
 */
template <bool k64>
inline uint32_t move_repeats(const FastMemo &m, uint64_t ctrl0, const uint64_t *slot, uint32_t idx,
			     uint32_t k, RepeatEnd *why)
{
	const uint64_t *const first = slot;
	const uint64_t *const stop = slot + (size_t)k * (MLX5_SEND_WQE_BB / 8);
	/*
	 * The ctrl word as it lies in the ring: the index's low byte is ring byte 2
	 * (bits 16..23 of the host word). The low byte does not wrap among these WQEs
	 * (the caller stops them there): one add per WQE.
	 */
	uint64_t want = want_ctrl_raw(ctrl0, (uint16_t)idx);
	do {
		/*
		 * The WQE 8 slots on, written on the data path's CPU: its line comes from
		 * that CPU's cache, a miss the copy before it does not hide. A prefetch
		 * never faults, so past the ring end it is harmless; the address is added
		 * as an integer, not by pointer arithmetic beyond the ring.
		 */
		__builtin_prefetch(
			reinterpret_cast<const void *>((uintptr_t)slot + 8 * MLX5_SEND_WQE_BB));
		if (Wqebb::ld(slot, 0) != want || Wqebb::ld(slot, 2) != m.meta_key ||
		    Wqebb::ld(slot, 3) != m.meta_addr || Wqebb::ld(slot, 4) != m.src_bk ||
		    Wqebb::ld(slot, 6) != m.dst_bk) {
			*why = RepeatEnd::Other;
			break;
		}
		uint64_t src = be64toh(Wqebb::ld(slot, 5)), dst = be64toh(Wqebb::ld(slot, 7));
		if (!in_bounds(m, src, dst)) {
			*why = RepeatEnd::Other;
			break;
		}
		/* ctrl byte 11 (fence mode, CQE request) */
		uint8_t fm = __atomic_load_n(reinterpret_cast<const uint8_t *>(slot) + 11,
					     __ATOMIC_RELAXED);
		move_span(host_ptr(dst), host_ptr(src), k64 ? 64 : m.len);
		slot += MLX5_SEND_WQE_BB / 8;
		want += 1u << 16;
		if (__builtin_expect(fm & MLX5_WQE_CTRL_CQ_UPDATE, 0)) {
			*why = RepeatEnd::Cqe;
			break;
		}
		if (slot == stop) {
			*why = RepeatEnd::Count;
			break;
		}
	} while (true);
	return (uint32_t)(slot - first) / (MLX5_SEND_WQE_BB / 8);
}

} // namespace

uint32_t SqEngine::plan_fast_mmo(QpObj *qp, uint16_t pi, uint32_t n, uint32_t limit, bool *fence)
{
	const uint64_t *ring = static_cast<const uint64_t *>(qp->cfg.sq_buf);
	*fence = false;
	if (!fast_ok(qp))
		return n;
	FastCtx c = {mrt_.entries(),
		     mrt_.size(),
		     qp->cfg.pdn,
		     want_ctrl_raw0(qp->qpn << 8 | HCA_MMO_DS),
		     caps_.max_wr_memcpy_length,
		     {},
		     {},
		     {},
		     0};
	const uint64_t gen = mrt_.generation();
	const uint32_t mask = qp->cfg.sq_wqe_cnt - 1;
	const uint32_t first = n;
	FastMemo &memo = qp->fast;
	uint32_t ci = qp->sq_ci;

	/* the WQEs posted and the plan slots left bound the run: one counter */
	const uint32_t posted = (uint16_t)(pi - (uint16_t)ci);
	const uint32_t end = n + (posted < limit - n ? posted : limit - n);
	FastPlan *const plans = fast_plans_.get();
	static_assert(HCA_MAX_GROUP <= 32, "one bit of fast_signaled_ per plan");
	uint32_t signaled = first ? fast_signaled_ : 0;

	/* a WQE unlike the last one: plan_new(); then its repeats: plan_repeat() */
	while (n < end) {
		FastPlan *fp = &plans[n];
		const uint64_t *slot = ring + (size_t)(ci & mask) * (MLX5_SEND_WQE_BB / 8);
		/* what the QP remembers from an earlier run holds while the MRs are unchanged */
		if (memo.gen != gen || !plan_repeat(c, memo, Wqebb(slot), (uint16_t)ci, fp))
			if (!plan_new(&c, &memo, slot, (uint16_t)ci, fp, gen))
				break;
		for (;;) {
			/* the fence bits of the ctrl word the plan was made from; one test for
			 * them and the CQE request, which few WQEs carry */
			if (uint8_t fm = fp->fm_ce_se &
					 (MLX5_HW_FM_MASK | MLX5_WQE_CTRL_CQ_UPDATE)) {
				/* a fenced WQE is planned again as the head of the next group */
				if ((fm & MLX5_HW_FM_MASK) && n > 0) {
					*fence = true;
					goto out;
				}
				if (fm & MLX5_WQE_CTRL_CQ_UPDATE)
					signaled |= 1u << n;
			}
			ci++;
			n++;
			if (n == end)
				goto out;
			fp = &plans[n];
			slot = ring + (size_t)(ci & mask) * (MLX5_SEND_WQE_BB / 8);
			if (!plan_repeat(c, memo, Wqebb(slot), (uint16_t)ci, fp))
				break;
		}
	}
out:
	fast_signaled_ = signaled;
	if (n != first) {
		qp->sq_ci = ci;
		qp->stalled = false;
		st_.fast_wqes.add(n - first);
	}
	return n;
}

uint32_t SqEngine::run_fast_mmo(QpObj *qp, uint16_t pi, uint32_t limit, DevStats &st)
{
	if (!fast_ok(qp))
		return 0;
	const uint64_t *ring = static_cast<const uint64_t *>(qp->cfg.sq_buf);
	const uint64_t gen = mrt_.generation();
	const uint64_t ctrl0 = want_ctrl_raw0(qp->qpn << 8 | HCA_MMO_DS);
	const uint32_t mask = qp->cfg.sq_wqe_cnt - 1;
	FastMemo &m = qp->fast;
	const uint32_t first = qp->sq_ci;
	uint32_t ci = first;
	const uint32_t posted = (uint16_t)(pi - (uint16_t)ci);
	const uint32_t end = ci + (posted < limit ? posted : limit);
	uint32_t counted = ci; /* the WQEs before it are in st */
	uint64_t bytes = 0;
	FastCtx c;
	bool have_ctx = false; /* c is filled when the first WQE needs the full checks */

	/*
	 * Each WQE is read once (the values checked are the values used, whatever
	 * software writes to the ring meanwhile), checked, moved and, if it asks for a
	 * CQE, completed before the next is read: nothing waits for a fence here.
	 */
	while (ci != end) {
		const uint64_t *slot = ring + (size_t)(ci & mask) * (MLX5_SEND_WQE_BB / 8);
		RepeatEnd why = RepeatEnd::Other;
		if (m.gen == gen) {
			/* repeats of the remembered WQE, up to the ring end or a wrap of the
			 * index's low byte */
			uint32_t k = end - ci;
			uint32_t to_wrap = mask + 1 - (ci & mask);
			if (k > to_wrap)
				k = to_wrap;
			if (k > 0x100 - (ci & 0xff))
				k = 0x100 - (ci & 0xff);
			uint32_t done = m.len == 64
						? move_repeats<true>(m, ctrl0, slot, ci, k, &why)
						: move_repeats<false>(m, ctrl0, slot, ci, k, &why);
			bytes += done * m.len;
			ci += done;
			slot += (size_t)done * (MLX5_SEND_WQE_BB / 8);
		}
		if (why == RepeatEnd::Other) {
			/* unlike the remembered WQE (or nothing remembered): every check */
			if (!have_ctx) {
				c = FastCtx{mrt_.entries(),
					    mrt_.size(),
					    qp->cfg.pdn,
					    ctrl0,
					    caps_.max_wr_memcpy_length,
					    {},
					    {},
					    {},
					    0};
				have_ctx = true;
			}
			FastPlan fp;
			if (!plan_new(&c, &m, slot, (uint16_t)ci, &fp, gen))
				break;
			move_span(fp.dst, fp.src, fp.len);
			bytes += fp.len;
			ci++;
			if (fp.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)
				why = RepeatEnd::Cqe;
		}
		if (why == RepeatEnd::Cqe) {
			/* whoever polls the CQE finds its WQE counted */
			st.wqes.add(ci - counted);
			st.bytes.add(bytes);
			st.fast_wqes.add(ci - counted);
			counted = ci;
			bytes = 0;
			cqs_.write_req_cqe(qp, MLX5_OPCODE_MMO, (uint16_t)(ci - 1), (uint32_t)m.len,
					   0, st);
		}
	}
	if (ci == first)
		return 0;
	if (ci != counted) {
		st.wqes.add(ci - counted);
		st.bytes.add(bytes);
		st.fast_wqes.add(ci - counted);
	}
	qp->sq_ci = ci;
	qp->stalled = false;
	return ci - first;
}

uint32_t SqEngine::run_unlocked(QpObj *qp, uint32_t budget, DevStats &st, bool *locked, bool *more)
{
	*locked = false;
	*more = false;
	/* what process_sq() does besides run_fast_mmo() for an RTS QP: none of it here */
	if (qp->state != IBV_QPS_RTS || qp->cfg.sq_wqe_cnt == 0 || qp->stalled ||
	    qp->sig_draining || qp->sig_stop || qp->cfg.dc == DcRole::Dci || qp->delay_us ||
	    qp->deferred || (mode_ == ExecMode::Thread && caps_.reorder_unfenced) || !fast_ok(qp)) {
		*locked = true;
		return 0;
	}
	CqObj *cq = qp->scq;
	const uint16_t pi = qp->sq_producer();
	const uint32_t ncqe = cq->cfg.ncqe;
	uint32_t total = 0;

	for (uint32_t g = 0;; g++) {
		if (!(uint16_t)(pi - (uint16_t)qp->sq_ci))
			return total;
		if (g >= budget) {
			*more = true;
			return total;
		}
		/* store_cqe() must find room, no error and no arm: an event or an overrun
		 * is the locked path's (events_, overrun_qps_ are the device's) */
		if (cq->error || cq->overrun_fault || cq->armed) {
			*locked = true;
			return total;
		}
		uint32_t lim = HCA_MAX_GROUP;
		uint32_t used = (cq->pi - cq->ci_seen) & 0xffffff;
		if (used + lim > ncqe) {
			cq->ci_seen =
				be32toh(__atomic_load_n(&cq->cfg.dbrec[0], __ATOMIC_ACQUIRE)) &
				0xffffff;
			used = (cq->pi - cq->ci_seen) & 0xffffff;
			if (used >= ncqe) {
				*locked = true;
				return total;
			}
			if (lim > ncqe - used)
				lim = ncqe - used; /* at most one CQE per WQE */
		}
		uint32_t ran = run_fast_mmo(qp, pi, lim, st);
		total += ran;
		if (ran < lim && (uint16_t)(pi - (uint16_t)qp->sq_ci)) {
			*locked = true; /* it declined a WQE: the general path decides */
			return total;
		}
	}
}

void SqEngine::expand_fast(uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		const FastPlan *fp = &fast_plans_[i];
		Plan *pl = &plans_[i];
		/* what fetch_wqe + plan_wqe + plan_mmo fill in for an accepted WQE (imm_raw
		 * and the atomic/responder details are read only when atomic/resp_qp is set) */
		pl->idx = fp->idx;
		pl->opcode = MLX5_OPCODE_MMO;
		pl->signaled = fp->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE;
		pl->fenced = fp->fm_ce_se & MLX5_HW_FM_MASK;
		pl->atomic = false;
		pl->safe = false;
		pl->nsrc = 1;
		pl->ndst = 1;
		pl->byte_cnt = (uint32_t)fp->len; /* 2 GiB is 0x80000000 */
		pl->total = fp->len;
		pl->resp_qp = nullptr;
		pl->delay_us = 0; /* a general plan may have used this slot */
		pl->src[0] = Span{fp->src, fp->len};
		pl->dst[0] = Span{fp->dst, fp->len};
	}
}

} // namespace mlx5sim
