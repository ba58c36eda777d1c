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
#include "hca_impl.h"

namespace mlx5sim {

namespace {

/**
 * An MR a key of this run was checked against, with the access the role needs
 * (source: read, metadata and destination: LOCAL_WRITE). The MR table cannot
 * change during a run (mu_ is held), so a later WQE with the same key only needs
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
	size_t nmr; /**< mrs_.size() */
	uint32_t pdn;
	uint32_t qpn_ds;  /**< qpn << 8 | HCA_MMO_DS, as the ctrl must carry it */
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
 * True only if HcaImpl::check_local() accepts the same span without probing
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

/**
 * What fetch_wqe + plan_wqe + plan_mmo fill in for an accepted WQE (imm_raw and the
 * atomic/responder details are read only when atomic/resp_qp is set).
 */
inline void fill_plan(Plan *pl, uint16_t idx, uint64_t ctrl_w1, uint64_t src, uint64_t dst,
		      uint64_t len)
{
	uint8_t fm_ce_se = (uint8_t)hi32(ctrl_w1);
	pl->idx = idx;
	pl->opcode = MLX5_OPCODE_MMO;
	pl->signaled = fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE;
	pl->fenced = fm_ce_se & MLX5_HW_FM_MASK;
	pl->atomic = false;
	pl->safe = false;
	pl->nsrc = 1;
	pl->ndst = 1;
	pl->byte_cnt = (uint32_t)len; /* 2 GiB is 0x80000000 */
	pl->total = len;
	pl->resp_qp = nullptr;
	pl->delay_us = 0; /* a general plan may have used this slot */
	pl->src[0] = Span{host_ptr(src), len};
	pl->dst[0] = Span{host_ptr(dst), len};
}

/** The ctrl word 0 (opmod | index | opcode, qpn | ds) a WQE with index @p idx carries. */
inline uint64_t want_ctrl(const FastCtx &c, uint16_t idx)
{
	uint32_t op = (uint32_t)MLX5_HW_OPC_MOD_MMO_DMA << 24 | (uint32_t)idx << 8 |
		      MLX5_OPCODE_MMO;
	return (uint64_t)op << 32 | c.qpn_ds;
}

/**
 * Plan the WQE @p w (read once from the ring, so the values checked are the values
 * used even if software rewrites the ring meanwhile) with index @p idx if it is a
 * fast-path MMO.
 */
inline bool plan_one(FastCtx *c, const Wqebb &w, uint16_t idx, Plan *pl)
{
	/* ctrl: opmod | index | opcode and qpn | ds, one exact compare */
	if (w.be(0) != want_ctrl(*c, idx))
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
	fill_plan(pl, idx, w.be(1), src, dst, len);
	return true;
}

/**
 * The segment words (metadata, source and destination byte count | key) of the last
 * WQE plan_one() accepted, as they lie in the ring, and the bounds that WQE's MRs
 * leave for its length. A WQE whose segment words are the very same passes every
 * check of plan_one() but the two address bounds: same keys (so the KeyMemos of the
 * run hit), same length (already within max_len and both MRs' lengths), same metadata.
 */
struct SegMemo {
	bool valid;
	uint64_t meta_key, meta_addr, src_bk, dst_bk; /**< ring words 2, 3, 4, 6 (raw) */
	uint64_t len;
	uint64_t src_base, src_room; /**< src - src_base <= src_room: in the source MR */
	uint64_t dst_base, dst_room;
};

/** After plan_one() accepted @p w: the words it checked, not the ring again. */
inline void remember(SegMemo *m, const FastCtx &c, const Wqebb &w, const Plan *pl)
{
	m->valid = true;
	m->meta_key = w.raw[2];
	m->meta_addr = w.raw[3];
	m->src_bk = w.raw[4];
	m->dst_bk = w.raw[6];
	m->len = pl->total;
	m->src_base = c.src.base;
	m->src_room = c.src.len - pl->total;
	m->dst_base = c.dst.base;
	m->dst_room = c.dst.len - pl->total;
}

/**
 * plan_one() for a WQE whose segment words repeat the last accepted WQE's: checks
 * the ctrl word and both address bounds only. False: plan_one() decides.
 */
inline bool plan_repeat(const FastCtx &c, const SegMemo &m, const Wqebb &w, uint16_t idx, Plan *pl)
{
	if (!m.valid || w.be(0) != want_ctrl(c, idx) || w.raw[2] != m.meta_key ||
	    w.raw[3] != m.meta_addr || w.raw[4] != m.src_bk || w.raw[6] != m.dst_bk)
		return false;
	uint64_t src = w.be(5), dst = w.be(7);
	if (src - m.src_base > m.src_room || dst - m.dst_base > m.dst_room)
		return false;
	fill_plan(pl, idx, w.be(1), src, dst, m.len);
	return true;
}

} // namespace

uint32_t HcaImpl::plan_fast_mmo(QpObj *qp, uint16_t pi, uint32_t n, uint32_t limit, bool *fence)
{
	const uint64_t *ring = static_cast<const uint64_t *>(qp->cfg.sq_buf);
	*fence = false;
	if (!fast_mmo_ || qp->fail_armed || qp->corrupt_sig_armed ||
	    caps_.max_wr_memcpy_length == 0 || ((uintptr_t)ring & 7))
		return n;
	FastCtx c = {mrs_.data(),
		     mrs_.size(),
		     qp->cfg.pdn,
		     qp->qpn << 8 | HCA_MMO_DS,
		     caps_.max_wr_memcpy_length,
		     {},
		     {},
		     {},
		     0};
	const uint32_t mask = qp->cfg.sq_wqe_cnt - 1;
	const uint32_t first = n;
	SegMemo memo{};
	uint32_t ci = qp->sq_ci;

	/* the WQEs posted and the plan slots left bound the run: one counter */
	const uint32_t posted = (uint16_t)(pi - (uint16_t)ci);
	const uint32_t end = n + (posted < limit - n ? posted : limit - n);
	Plan *const plans = plans_.get();

	while (n < end) {
		Plan *pl = &plans[n];
		const Wqebb w(ring + (size_t)(ci & mask) * (MLX5_SEND_WQE_BB / 8));
		if (!plan_repeat(c, memo, w, (uint16_t)ci, pl)) {
			if (!plan_one(&c, w, (uint16_t)ci, pl))
				break;
			remember(&memo, c, w, pl);
		}
		/* the fence bit as the ctrl word carries it, not read back from the plan */
		if ((hi32(w.be(1)) & MLX5_HW_FM_MASK) && n > 0) {
			*fence = true; /* planned again as the head of the next group */
			break;
		}
		ci++;
		n++;
	}
	if (n != first) {
		qp->sq_ci = ci;
		qp->stalled = false;
		fast_wqes_ += n - first;
	}
	return n;
}

} // namespace mlx5sim
