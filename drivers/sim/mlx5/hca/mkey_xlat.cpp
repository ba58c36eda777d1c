/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Translation of a key + address range at plan time: a plain MR gives one span;
 * an indirect mkey is walked through its KLM list (recursively, up to
 * HCA_MKEY_DEPTH mkeys deep) or turned into one repeat-block span (a Pattern
 * snapshot of checked host pointers). Every byte the plan may touch is checked
 * here, so execution never consults the mutable mkey table.
 */
#include "mr_table.h"
#include "wqe_plan.h"

namespace mlx5sim {

namespace {

constexpr int kWrites = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

/** Where the pieces of one data segment go. */
struct Out {
	Plan *pl;
	Span *spans;
	uint32_t *n;
	Verdict bad; /**< LOC_PROT (local) or REM_ACCESS (remote) */
	bool resp;   /**< the responder's memory (a receive WQE or an rkey) */
};

bool push_span(const Out &o, uint8_t *p, uint64_t len)
{
	if (*o.n >= HCA_MAX_GATHER)
		return false; /* model limit: pieces per side of a WQE */
	o.spans[(*o.n)++] = Span{p, len};
	return true;
}

} // namespace

/**
 * The repeat block of @p mk accessed at [off, off + len): one Pattern. Each entry
 * must name an MR (not an mkey); its bytes in every repetition the access
 * touches, first to last, are checked as one range of that MR.
 */
static Verdict xlat_repeat(const MrTable *mt, uint32_t pdn, const MkeyObj &mk, uint64_t off,
			   uint64_t len, int need, const Out &o)
{
	Plan *pl = o.pl;
	uint64_t total;
	if (mk.rep_bytes == 0 || __builtin_mul_overflow(mk.rep_bytes, mk.repeat_count, &total) ||
	    off > total || len > total - off || pl->npat >= HCA_MAX_PATTERNS ||
	    mk.nent > HCA_MAX_PAT_ENT)
		return o.bad;
	Pattern &pt = pl->pats[pl->npat];
	uint64_t r0 = off / mk.rep_bytes, r1 = (off + len - 1) / mk.rep_bytes;
	pt.start = off - r0 * mk.rep_bytes;
	pt.rep_bytes = mk.rep_bytes;
	pt.nent = mk.nent;
	pt.periodic = true;
	for (uint32_t i = 0; i < mk.nent; i++) {
		const XlatEnt &e = mk.ent[i];
		PatEnt &pe = pt.ent[i];
		pe.bc = e.bc;
		pe.stride = e.stride;
		pe.p = nullptr;
		if (e.bc == 0)
			continue;
		pt.periodic &= e.stride == 0;
		uint64_t lo, hi;
		if (__builtin_add_overflow(e.va, r0 * e.stride, &lo) ||
		    __builtin_add_overflow(e.va, r1 * e.stride, &hi) ||
		    __builtin_add_overflow(hi, (uint64_t)e.bc, &hi))
			return o.bad;
		bool odp = false;
		Verdict v = mt->check_key(pdn, e.key, lo, hi - lo, need, o.bad, &pe.p, &odp);
		if (v.syndrome)
			return v;
		pl->safe |= odp;
	}
	if (!push_span(o, reinterpret_cast<uint8_t *>(&pt), len | HCA_SPAN_PATTERN))
		return o.bad;
	pl->npat++;
	pl->xflags |= XF_PATTERN;
	return Verdict{0, 0};
}

static Verdict xlat(const MrTable *mt, uint32_t pdn, uint32_t key, uint64_t addr, uint64_t len,
		    int need, const Out &o, uint32_t depth);

/** The layout of @p mk at [off, off + len) into o's spans (entries need @p inner). */
static Verdict xlat_layout(const MrTable *mt, uint32_t pdn, const MkeyObj &mk, uint64_t off,
			   uint64_t len, int inner, const Out &o, uint32_t depth)
{
	if (mk.repeat)
		return xlat_repeat(mt, pdn, mk, off, len, inner, o);
	uint64_t pos = 0; /* layout offset of entry i */
	for (uint32_t i = 0; i < mk.nent && len; i++) {
		const XlatEnt &e = mk.ent[i];
		if (off < pos + e.bc) {
			uint64_t in = off - pos;
			uint64_t n = e.bc - in < len ? e.bc - in : len;
			Verdict v = xlat(mt, pdn, e.key, e.va + in, n, inner, o, depth + 1);
			if (v.syndrome)
				return v;
			off += n;
			len -= n;
		}
		pos += e.bc;
	}
	return len ? o.bad : Verdict{0, 0}; /* beyond the layout */
}

/**
 * Data through a signature mkey: [off, off + len) counts wire-domain bytes. The
 * memory bytes of every block it touches (from the block's start; the protection
 * bytes of the last block only when its data is complete) must lie in the layout;
 * they are resolved into a SigXfer and one span stands for the wire bytes.
 */
static Verdict xlat_sig(const MrTable *mt, uint32_t pdn, uint32_t key, const MrEntry &mr,
			const MkeyObj &mk, uint64_t off, uint64_t len, int inner, const Out &o)
{
	Plan *pl = o.pl;
	const SigCfg &c = mk.sig;
	uint64_t wblk = c.wire.bs + c.wire.pi, mblk = c.mem.bs + c.mem.pi;
	if (pl->nsig >= HCA_MAX_SIG_XFER || len == 0)
		return o.bad;
	uint64_t last, mstart, mend;
	if (__builtin_add_overflow(off, len - 1, &last))
		return o.bad;
	uint64_t b0 = off / wblk, b1 = last / wblk;
	uint64_t e = last + 1 - b1 * wblk; /* wire bytes of the last block, 1..wblk */
	if (__builtin_mul_overflow(b1, mblk, &mend) ||
	    __builtin_add_overflow(mend, e >= c.wire.bs ? mblk : e, &mend))
		return o.bad;
	mstart = b0 * mblk;
	if (mend > mr.len)
		return o.bad; /* memory-domain bytes beyond the mkey's length */
	SigXfer &x = pl->sigs[pl->nsig];
	x.cfg = c;
	x.mk = const_cast<MkeyObj *>(&mk);
	x.key = key;
	x.scatter = o.spans == pl->dst;
	x.resp = o.resp;
	x.woff = off;
	x.wlen = len;
	x.first_block = b0;
	x.mlen = mend - mstart;
	x.nmem = 0;
	x.failed = false;
	x.corrupt = false;
	Out mo = {pl, x.mem, &x.nmem, o.bad, o.resp};
	Verdict v = xlat_layout(mt, pdn, mk, mstart, mend - mstart, inner, mo, 0);
	if (v.syndrome)
		return v;
	if (!push_span(o, reinterpret_cast<uint8_t *>(&x), len | HCA_SPAN_SIG))
		return o.bad;
	pl->nsig++;
	pl->xflags |= XF_SIG;
	return Verdict{0, 0};
}

/** Resolve [addr, addr + len) of @p key (PD @p pdn, rights @p need) into o's spans. */
static Verdict xlat(const MrTable *mt, uint32_t pdn, uint32_t key, uint64_t addr, uint64_t len,
		    int need, const Out &o, uint32_t depth)
{
	uint32_t idx = key >> 8;
	const MrEntry *mrp = mt->entry(idx);
	if (!mrp)
		return o.bad;
	const MrEntry &mr = *mrp;
	if (!mr.indirect) {
		uint8_t *p;
		bool odp = false;
		Verdict v = mt->check_key(pdn, key, addr, len, need, o.bad, &p, &odp);
		if (v.syndrome)
			return v;
		o.pl->safe |= odp;
		return push_span(o, p, len) ? Verdict{0, 0} : o.bad;
	}
	const MkeyObj &mk = *mt->mkey(idx);
	/* local read is always on: need 0 passes any access byte */
	if (!mr.used || mr.variant != (key & 0xff) || mr.pdn != pdn || mk.free ||
	    (mr.access & need) != need || depth >= HCA_MKEY_DEPTH)
		return o.bad;
	/* the entries are checked for the local right the access implies */
	int inner = need & kWrites ? IBV_ACCESS_LOCAL_WRITE : 0;
	if (mk.bsf_en && mk.sig.enabled) {
		/* named directly only; after a signature error, until a UMR re-arms it */
		if (depth > 0 || mk.sig_err || addr < mr.addr)
			return o.bad;
		return xlat_sig(mt, pdn, key, mr, mk, addr - mr.addr, len, inner, o);
	}
	if (addr < mr.addr || len > mr.len || addr - mr.addr > mr.len - len)
		return o.bad;
	return xlat_layout(mt, pdn, mk, addr - mr.addr, len, inner, o, depth);
}

Verdict MrTable::xlat_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len,
			    bool scatter, Plan *pl) const
{
	Out o = {pl, scatter ? pl->dst : pl->src, scatter ? &pl->ndst : &pl->nsrc,
		 Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0}, pl->resp_qp == qp};
	return xlat(this, qp->cfg.pdn, key, addr, len, scatter ? IBV_ACCESS_LOCAL_WRITE : 0, o, 0);
}

Verdict MrTable::xlat_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len,
			     int need, Plan *pl, bool dst) const
{
	Out o = {pl, dst ? pl->dst : pl->src, dst ? &pl->ndst : &pl->nsrc,
		 Verdict{MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0}, true};
	return xlat(this, resp->cfg.pdn, rkey, addr, len, need, o, 0);
}

} // namespace mlx5sim
