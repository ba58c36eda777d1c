/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The signature engine: data through a signature mkey, block by block. Byte
 * counts are wire-domain bytes; each side of the mkey lays its blocks out as
 * data followed by the domain's protection information (none, 8 bytes T10-DIF
 * guard|app tag|ref tag, 4 bytes CRC32/CRC32C, 8 bytes CRC64, big-endian).
 *
 * Reading through the mkey (gather) takes each memory block, verifies its
 * protection (check_byte_mask) when it has some, and produces the wire block:
 * data plus wire protection, generated or copied per copy_byte_mask. Writing
 * (scatter) verifies the wire protection of each complete block and writes data
 * plus memory protection. Insert, strip, verify, convert and pass-through all
 * follow from which domains carry protection (ASSUMPTIONS.md 60-65). Guards
 * come from the model's own reference (sig_crc.h). Only spans checked at plan
 * time are touched; blocks pass through fixed buffers, nothing is allocated.
 * The device side (SigEngine, sig_engine.h) ends the file: SIG_ERR completion
 * and SET_PSV.
 */
#include <string.h>

#include "cq_table.h"
#include "psv_table.h"
#include "sig_engine.h"
#include "span_cursor.h"
#include "wqe_special.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kMaxBlk = 4160 + 8; /* largest block plus protection */
constexpr uint32_t kChunk = 4096;

/** Read or write @p n bytes at memory offset @p moff of the transfer; 0 or the fault side. */
int mem_io(const SigXfer &x, uint64_t moff, uint8_t *buf, uint64_t n, bool write, bool safe)
{
	Cursor c = {x.mem, x.nmem, 0, 0};
	while (c.i < c.n && moff >= span_len(c.s[c.i])) {
		moff -= span_len(c.s[c.i]);
		c.i++;
	}
	c.off = moff;
	while (n && c.i < c.n) {
		uint64_t avail;
		uint8_t *p = piece(c, &avail);
		uint64_t k = avail < n ? avail : n;
		if (k == 0 || (write ? move(p, buf, k, safe) : move(buf, p, k, safe)))
			return write ? 2 : 1;
		advance(&c, k);
		buf += k;
		n -= k;
	}
	return n ? (write ? 2 : 1) : 0;
}

uint32_t ref_of(const SigDomain &d, uint64_t b)
{
	return d.inc_ref ? d.ref_tag + (uint32_t)b : d.ref_tag;
}

/** The protection information of block @p b with data @p data. */
void make_pi(const SigDomain &d, const uint8_t *data, uint64_t b, uint8_t *pi)
{
	uint64_t g = guard_compute(d.guard, d.seed_ones, data, d.bs);
	if (d.kind == SigDomain::T10DIF) {
		mlx5_hw_st_be16(pi, (uint16_t)g);
		mlx5_hw_st_be16(pi + 2, d.app_tag);
		mlx5_hw_st_be32(pi + 4, ref_of(d, b));
	} else if (d.pi == 4) {
		mlx5_hw_st_be32(pi, (uint32_t)g);
	} else {
		mlx5_hw_st_be64(pi, g);
	}
}

/**
 * Verify @p pi of block @p b against its data under @p mask (bit 7 - i checks
 * byte i). The first failing field in T10 order (guard, app tag, ref tag) is
 * the one reported; escapes skip the block. True if it passes.
 */
bool check_pi(const SigDomain &d, uint8_t mask, const uint8_t *data, const uint8_t *pi, uint64_t b,
	      SigFail *f)
{
	uint8_t exp[8];
	make_pi(d, data, b, exp);
	if (d.kind == SigDomain::T10DIF) {
		uint16_t app = mlx5_hw_ld_be16(pi + 2);
		uint32_t ref = mlx5_hw_ld_be32(pi + 4);
		if (app == 0xffff && (d.app_escape || (d.appref_escape && ref == 0xffffffff)))
			return true;
	}
	uint16_t syn = 0;
	for (uint32_t i = 0; i < d.pi && !syn; i++)
		if (((mask >> (7 - i)) & 1) && exp[i] != pi[i])
			syn = d.kind != SigDomain::T10DIF ? MLX5_HW_SIGERR_GUARD
			      : i < 2                     ? MLX5_HW_SIGERR_GUARD
			      : i < 4                     ? MLX5_HW_SIGERR_APPTAG
							  : MLX5_HW_SIGERR_REFTAG;
	if (!syn)
		return true;
	f->syndrome = syn;
	if (d.pi == 4) {
		f->expected_sig = mlx5_hw_ld_be32(exp);
		f->actual_sig = mlx5_hw_ld_be32(pi);
		f->expected_ref = f->actual_ref = 0;
	} else {
		/* T10-DIF: guard<<16 | app tag, then the ref tag; CRC64: high, low half */
		f->expected_sig = mlx5_hw_ld_be32(exp);
		f->actual_sig = mlx5_hw_ld_be32(pi);
		f->expected_ref = mlx5_hw_ld_be32(exp + 4);
		f->actual_ref = mlx5_hw_ld_be32(pi + 4);
	}
	return false;
}

/** Record the first signature error of a transfer. */
void fail(SigXfer &x, const SigFail &f, uint8_t domain, uint64_t offset)
{
	if (x.failed)
		return;
	x.failed = true;
	x.fail = f;
	x.fail.domain = domain;
	x.fail.offset = offset;
}

/** Wire bytes of one block produced from memory (gather side). */
struct Gen {
	const SigXfer *x = nullptr;
	uint64_t blk = 0;
	uint8_t wbuf[kMaxBlk];
};

/** Memory block @p b through the engine into g->wbuf; 0 or 1 (source fault). */
int gen_block(SigXfer &x, uint64_t b, Gen *g, bool safe)
{
	const SigCfg &c = x.cfg;
	uint32_t bs = c.mem.bs, mblk = bs + c.mem.pi;
	uint64_t rel = (b - x.first_block) * mblk;
	uint64_t need = x.mlen - rel < mblk ? x.mlen - rel : mblk;
	uint8_t mbuf[kMaxBlk];
	if (mem_io(x, rel, mbuf, need, false, safe))
		return 1;
	memcpy(g->wbuf, mbuf, need < bs ? need : bs);
	bool mpi = c.mem.pi && need == mblk;
	SigFail f;
	if (mpi && !check_pi(c.mem, c.check_mask, mbuf, mbuf + bs, b, &f))
		fail(x, f, MLX5_HW_SIGERR_DOMAIN_MEMORY, b * mblk);
	if (need >= bs && c.wire.pi) {
		make_pi(c.wire, mbuf, b, g->wbuf + bs);
		for (uint32_t i = 0; c.sbs && mpi && i < c.wire.pi; i++)
			if ((c.copy_mask >> (7 - i)) & 1)
				g->wbuf[bs + i] = mbuf[bs + i];
		if (x.corrupt) { /* CorruptSig fault */
			g->wbuf[bs + c.wire.pi - 1] ^= 1;
			x.corrupt = false;
		}
	}
	g->x = &x;
	g->blk = b;
	return 0;
}

/** @p n wire bytes of @p x from wire offset @p pos into @p out; 0 or 1. */
int sig_read(SigXfer &x, Gen *g, uint64_t pos, uint8_t *out, uint64_t n, bool safe)
{
	uint64_t wblk = x.cfg.wire.bs + x.cfg.wire.pi;
	while (n) {
		uint64_t b = pos / wblk, in = pos - b * wblk;
		if (g->x != &x || g->blk != b) {
			if (gen_block(x, b, g, safe))
				return 1;
		}
		uint64_t k = wblk - in < n ? wblk - in : n;
		memcpy(out, g->wbuf + in, k);
		out += k;
		pos += k;
		n -= k;
	}
	return 0;
}

/** Wire bytes of one block collected before they go to memory (scatter side). */
struct Acc {
	SigXfer *x = nullptr;
	uint64_t blk = 0;
	uint32_t lo = 0, hi = 0; /**< wire bytes of the block received */
	uint8_t wbuf[kMaxBlk];
};

/** Write the collected block to memory; 0 or 2 (destination fault). */
int flush_block(Acc *a, bool safe)
{
	if (!a->x)
		return 0;
	SigXfer &x = *a->x;
	a->x = nullptr;
	const SigCfg &c = x.cfg;
	uint32_t bs = c.wire.bs, wblk = bs + c.wire.pi, mblk = bs + c.mem.pi;
	uint64_t b = a->blk, rel = (b - x.first_block) * mblk;
	uint32_t data_hi = a->hi < bs ? a->hi : bs;
	if (data_hi > a->lo && mem_io(x, rel + a->lo, a->wbuf + a->lo, data_hi - a->lo, true, safe))
		return 2;
	bool data_full = a->lo == 0 && a->hi >= bs;
	bool wpi = c.wire.pi && a->lo == 0 && a->hi == wblk;
	SigFail f;
	if (wpi && !check_pi(c.wire, c.check_mask, a->wbuf, a->wbuf + bs, b, &f))
		fail(x, f, MLX5_HW_SIGERR_DOMAIN_WIRE, b * wblk);
	if (c.mem.pi && data_full && rel + mblk <= x.mlen) {
		uint8_t pi[8];
		make_pi(c.mem, a->wbuf, b, pi);
		for (uint32_t i = 0; c.sbs && wpi && i < c.mem.pi; i++)
			if ((c.copy_mask >> (7 - i)) & 1)
				pi[i] = a->wbuf[bs + i];
		if (x.corrupt) { /* CorruptSig fault */
			pi[c.mem.pi - 1] ^= 1;
			x.corrupt = false;
		}
		if (mem_io(x, rel + bs, pi, c.mem.pi, true, safe))
			return 2;
	}
	return 0;
}

/** @p n wire bytes into @p x at wire offset @p pos; 0 or 2. */
int sig_write(SigXfer &x, Acc *a, uint64_t pos, const uint8_t *in, uint64_t n, bool safe)
{
	uint32_t wblk = x.cfg.wire.bs + x.cfg.wire.pi;
	while (n) {
		uint64_t b = pos / wblk;
		uint32_t at = (uint32_t)(pos - b * wblk);
		if (a->x && (a->x != &x || a->blk != b || a->hi != at)) {
			if (flush_block(a, safe))
				return 2;
		}
		if (!a->x) {
			a->x = &x;
			a->blk = b;
			a->lo = a->hi = at;
		}
		uint32_t k = wblk - at < n ? wblk - at : (uint32_t)n;
		memcpy(a->wbuf + at, in, k);
		a->hi = at + k;
		if (a->hi == wblk && flush_block(a, safe))
			return 2;
		in += k;
		pos += k;
		n -= k;
	}
	return 0;
}

inline bool is_sig(const Span &s)
{
	return s.len & HCA_SPAN_SIG;
}

inline SigXfer &xfer_of(const Span &s)
{
	return *reinterpret_cast<SigXfer *>(s.p);
}

/** Plain or repeat-block bytes at the cursor, @p n of them (within the span). */
int plain_io(const Cursor &at, uint8_t *buf, uint64_t n, bool write, bool safe)
{
	Cursor t = at;
	while (n) {
		uint64_t avail;
		uint8_t *p = piece(t, &avail);
		uint64_t k = avail < n ? avail : n;
		if (k == 0 || (write ? move(p, buf, k, safe) : move(buf, p, k, safe)))
			return write ? 2 : 1;
		t.off += k;
		buf += k;
		n -= k;
	}
	return 0;
}

} // namespace

uint64_t exec_sig(Plan *pl)
{
	Gen gen;
	Acc acc;
	uint8_t chunk[kChunk];
	uint64_t total = pl->total;
	Cursor s = {pl->src, pl->nsrc & ~HCA_NSRC_SPECIAL, 0, 0};
	Cursor d = {pl->dst, pl->ndst, 0, 0};
	int fault = 0;
	while (total && s.i < s.n && d.i < d.n && !fault) {
		uint64_t want = total < kChunk ? total : kChunk, got = 0;
		while (got < want && s.i < s.n && !fault) {
			const Span &ss = s.s[s.i];
			uint64_t k = span_len(ss) - s.off;
			if (want - got < k)
				k = want - got;
			fault = is_sig(ss) ? sig_read(xfer_of(ss), &gen, xfer_of(ss).woff + s.off,
						      chunk + got, k, pl->safe)
					   : plain_io(s, chunk + got, k, false, pl->safe);
			advance(&s, k);
			got += k;
		}
		uint64_t put = 0;
		while (put < got && d.i < d.n && !fault) {
			const Span &ds = d.s[d.i];
			uint64_t k = span_len(ds) - d.off;
			if (got - put < k)
				k = got - put;
			fault = is_sig(ds) ? sig_write(xfer_of(ds), &acc, xfer_of(ds).woff + d.off,
						       chunk + put, k, pl->safe)
					   : plain_io(d, chunk + put, k, true, pl->safe);
			advance(&d, k);
			put += k;
		}
		total -= got;
	}
	if (!fault)
		fault = flush_block(&acc, pl->safe);
	pl->fault = (uint8_t)fault;
	if ((pl->xflags & XF_INVAL) && !fault)
		pl->target_mk->free = true;
	return pl->total;
}

bool SigEngine::complete(QpObj *qp, const Plan *pl)
{
	bool any = false;
	for (uint32_t i = 0; i < pl->nsig; i++) {
		const SigXfer &x = pl->sigs[i];
		if (!x.failed)
			continue;
		any |= !x.resp; /* the requester's own mkey: its SQ may have to stop */
		/* the mkey and the failing domain's PSV stay in error until re-armed */
		x.mk->sig_err = true;
		const SigDomain &dom = x.fail.domain == MLX5_HW_SIGERR_DOMAIN_MEMORY ? x.cfg.mem
										     : x.cfg.wire;
		if (PsvEntry *psv = psvs_.find(dom.psv))
			psv->error = true;
		QpObj *owner = qp;
		CqObj *cq = qp->scq;
		if (x.resp) {
			owner = pl->peer;
			if (!owner)
				continue;
			cq = owner->rcq;
		}
		struct mlx5_hw_sigerr_cqe c;
		memset(&c, 0, sizeof(c));
		c.expected_trans_sig = htobe32(x.fail.expected_sig);
		c.actual_trans_sig = htobe32(x.fail.actual_sig);
		c.expected_ref_tag = htobe32(x.fail.expected_ref);
		c.actual_ref_tag = htobe32(x.fail.actual_ref);
		c.syndrome = htobe16(x.fail.syndrome);
		c.sig_type = MLX5_HW_SIGERR_SIG_TYPE_BLOCK;
		c.domain = x.fail.domain;
		c.mkey = htobe32(x.key);
		c.sig_err_offset = htobe64(x.fail.offset);
		c.op_own = MLX5_CQE_SIG_ERR << MLX5_HW_CQE_OPCODE_SHIFT;
		cqs_.put_cqe(cq, owner, reinterpret_cast<const uint8_t *>(&c));
	}
	return any;
}

/** SET_PSV (opcode 0x20): arms a domain's PSV. */
Verdict SigEngine::plan_set_psv(const QpObj *qp, Plan *pl, uint32_t ds)
{
	if (ds < 2)
		return Verdict{MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
	struct mlx5_hw_set_psv_seg seg;
	memcpy(&seg, pl->wqe + sizeof(struct mlx5_wqe_ctrl_seg), sizeof(seg));
	uint32_t idx = be32toh(seg.psv_index);
	PsvEntry *psv = idx ? psvs_.find(idx) : nullptr;
	if (!psv || psv->pdn != qp->cfg.pdn)
		return Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0};
	pl->psv = idx;
	pl->psv_ts = be64toh(seg.transient_signature);
	pl->psv_ent = psv;
	pl->xflags |= XF_PSV;
	return Verdict{0, 0};
}

} // namespace mlx5sim
