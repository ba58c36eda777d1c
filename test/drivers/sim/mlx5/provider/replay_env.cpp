/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Replay environment: builds the context, PD and QPs a record describes (FORMAT.md
 * §10 steps 1-2), and compares the per-QP expectations (step 7).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"

namespace replay {

namespace {

constexpr uint64_t kWridSentinel = 0x5a5a5a5a5a5a5a5aull;
constexpr uint32_t kU32Sentinel = 0xdeadbeefu;

std::string fmt(uint64_t v, bool hex)
{
	char b[32];

	snprintf(b, sizeof(b), hex ? "0x%llx" : "%llu", (unsigned long long)v);
	return b;
}

AlignedBuf alloc_aligned(size_t len)
{
	void *p = nullptr;

	if (posix_memalign(&p, 4096, len ? len : 64))
		return AlignedBuf();
	memset(p, 0, len ? len : 64);
	return AlignedBuf(static_cast<uint8_t *>(p));
}

bool load_ring(const Json &q, QpBox &box, Checker &chk)
{
	const Json &ini = q["initial"];
	const Json &fill = ini["sq_fill"];
	uint8_t *ring = box.ring.get();

	if (fill["kind"].str() == "ramp") {
		uint64_t seed = fill["seed"].u64();

		for (size_t o = 0; o < box.ring_len; o++)
			ring[o] = (uint8_t)(seed + o);
	}
	for (const Json &s : ini["sq_slots"].items()) {
		std::vector<uint8_t> b;
		uint64_t slot = s["slot"].u64();

		if (!hex_decode(s["bytes"].str(), &b) || b.size() != MLX5_SEND_WQE_BB ||
		    slot >= box.ring_len / MLX5_SEND_WQE_BB) {
			chk.fail("bad initial sq_slots entry");
			return false;
		}
		memcpy(ring + slot * MLX5_SEND_WQE_BB, b.data(), b.size());
	}
	box.ring_init.assign(ring, ring + box.ring_len);
	return true;
}

void load_bookkeeping(const Json &q, QpBox &box)
{
	const Json &bk = q["initial"]["bookkeeping"];
	size_t n = box.wrid.size();

	/* send records: the arrays do not matter; sentinels show what was written */
	std::fill(box.wrid.begin(), box.wrid.end(), kWridSentinel);
	std::fill(box.wqe_head.begin(), box.wqe_head.end(), kU32Sentinel);
	std::fill(box.wr_data.begin(), box.wr_data.end(), kU32Sentinel);
	for (size_t i = 0; i < n && i < bk["wr_id"].size(); i++)
		box.wrid[i] = bk["wr_id"][i].u64();
	for (size_t i = 0; i < n && i < bk["wqe_head"].size(); i++)
		box.wqe_head[i] = (uint32_t)bk["wqe_head"][i].u64();
	for (size_t i = 0; i < n && i < bk["wr_data"].size(); i++)
		box.wr_data[i] = (uint32_t)bk["wr_data"][i].u64();
	box.wrid_init = box.wrid;
	box.wqe_head_init = box.wqe_head;
	box.wr_data_init = box.wr_data;
}

/** Own sizing must reproduce the recorded `derived` geometry. */
void check_derived(const SimContext &ctx, const Json &q, Checker &chk)
{
	const Json &c = q["create"], &d = q["derived"];
	bool dci = q["type"].str() == "DCI";
	struct ibv_qp_cap cap = {};
	SqGeometry g;

	cap.max_send_wr = (uint32_t)c["max_send_wr"].u64();
	cap.max_send_sge = (uint32_t)c["max_send_sge"].u64();
	cap.max_inline_data = (uint32_t)c["max_inline_data"].u64();
	g = sim_sq_size(
		ctx, dci ? IBV_QPT_DRIVER : IBV_QPT_RC, dci, cap, !c["send_ops_flags"].is_null(),
		send_ops_from_vector(c["send_ops_flags"].u64()), c["dv_send_ops_flags"].u64());
	chk.eq("derived sizing_ret", (uint64_t)(int64_t)d["sizing_ret"].i64(),
	       (uint64_t)(int64_t)g.sizing_ret);
	chk.eq("derived wqe_cnt", d["wqe_cnt"].u64(), g.wqe_cnt);
	chk.eq("derived max_post", d["max_post"].u64(), g.max_post);
	chk.eq("derived max_send_sge", d["max_send_sge"].u64(), g.max_send_sge);
	chk.eq("derived max_inline_data", (uint64_t)d["max_inline_data"].i64(),
	       (uint64_t)(int64_t)g.max_inline_data);
	chk.eq("derived wqe_size", (uint64_t)d["wqe_size"].i64(), (uint64_t)(int64_t)g.wqe_size);
}

bool build_qp(const Json &q, Env &env, Checker &chk)
{
	auto box = std::make_unique<QpBox>();
	const Json &d = q["derived"], &ini = q["initial"], &c = q["create"];
	uint32_t wqe_cnt = (uint32_t)d["wqe_cnt"].u64();
	SimQp *qp;

	if (!wqe_cnt || (wqe_cnt & (wqe_cnt - 1))) {
		chk.fail("QP without a power-of-two SQ");
		return false;
	}
	box->handle = (int)q["handle"].u64();
	box->qp.reset(new SimQp());
	qp = box->qp.get();
	box->ring_len = (size_t)wqe_cnt * MLX5_SEND_WQE_BB;
	box->ring = alloc_aligned(box->ring_len);
	box->wrid.resize(wqe_cnt);
	box->wqe_head.resize(wqe_cnt);
	box->wr_data.resize(wqe_cnt);
	if (!box->ring || !load_ring(q, *box, chk))
		return false;
	load_bookkeeping(q, *box);
	check_derived(*env.ctx, q, chk);

	qp->ctx = env.ctx.get();
	qp->pd = env.pd.get();
	qp->qpn = (uint32_t)q["qpn"].u64();
	qp->uidx = (uint32_t)q["uidx"].u64();
	qp->is_dci = q["type"].str() == "DCI";
	qp->type = qp->is_dci ? IBV_QPT_DRIVER : IBV_QPT_RC;
	qp->send_ops_flags = send_ops_from_vector(c["send_ops_flags"].u64());
	qp->dv_send_ops_flags = c["dv_send_ops_flags"].u64();
	qp->operational = q["state"].str() == "RTS";
	qp->qpx.qp_base.context = &env.ctx->ibctx;
	qp->qpx.qp_base.qp_num = qp->qpn;
	qp->qpx.qp_base.qp_type = qp->type;
	qp->qpx.qp_base.state = qp->operational ? IBV_QPS_RTS : IBV_QPS_INIT;

	qp->sq.buf = box->ring.get();
	qp->sq.qend = qp->sq.buf + box->ring_len;
	qp->sq.wqe_cnt = wqe_cnt;
	qp->sq.max_post = (uint32_t)d["max_post"].u64();
	qp->sq.max_gs = (uint32_t)d["max_send_sge"].u64();
	qp->sq.max_inline_data = (uint32_t)d["max_inline_data"].i64();
	qp->sq.cur_post = (uint32_t)ini["cur_post"].u64();
	qp->sq.head = (uint32_t)ini["head"].u64();
	qp->sq.tail = (uint32_t)ini["tail"].u64();
	qp->sq.fm_cache = (uint8_t)ini["fm_cache"].u64();
	qp->sq.sq_signal_bits = c["sq_sig_all"].boolean() ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
	qp->sq.wrid = box->wrid.data();
	qp->sq.wqe_head = box->wqe_head.data();
	qp->sq.wr_data = box->wr_data.data();
	box->dbrec[MLX5_SND_DBR] = htobe32((uint32_t)ini["dbrec_sq"].u64());
	qp->dbrec = box->dbrec;
	qp->bf.uar = &env.uar;
	qp->bf.offset = (uint32_t)ini["bf_offset"].u64();
	qp->bf.buf_size = (uint32_t)ini["bf_buf_size"].u64();
	env.qps.push_back(std::move(box));
	return true;
}

/** Bytes of one slot as the record expects them. */
void check_slots(const Json &eq, QpBox &box, Checker &chk)
{
	size_t nslots = box.ring_len / MLX5_SEND_WQE_BB;
	std::vector<bool> listed(nslots, false);
	const uint8_t *ring = box.ring.get();

	for (const Json &s : eq["sq_slots"].items()) {
		uint64_t slot = s["slot"].u64();
		std::vector<uint8_t> b;

		if (slot >= nslots || !hex_decode(s["bytes"].str(), &b)) {
			chk.fail("bad expected slot entry");
			continue;
		}
		listed[slot] = true;
		chk.bytes("slot " + std::to_string(slot), b.data(), b.size(),
			  ring + slot * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	}
	for (size_t slot = 0; slot < nslots; slot++) {
		if (listed[slot])
			continue;
		chk.bytes("unlisted slot " + std::to_string(slot) + " changed",
			  box.ring_init.data() + slot * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB,
			  ring + slot * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	}
}

void check_bookkeeping(const Json &eq, QpBox &box, Checker &chk)
{
	std::vector<bool> listed(box.wrid.size(), false);

	for (const Json &b : eq["bookkeeping"].items()) {
		uint64_t slot = b["slot"].u64();
		std::string w = "bookkeeping slot " + std::to_string(slot);

		if (slot >= box.wrid.size()) {
			chk.fail("bad expected bookkeeping slot");
			continue;
		}
		listed[slot] = true;
		chk.eq(w + " wr_id", b["wr_id"].u64(), box.wrid[slot], true);
		chk.eq(w + " wqe_head", b["wqe_head"].u64(), box.wqe_head[slot]);
		chk.eq(w + " wr_data", b["wr_data"].u64(), box.wr_data[slot]);
	}
	for (size_t slot = 0; slot < box.wrid.size(); slot++) {
		std::string w = "unlisted bookkeeping slot " + std::to_string(slot);

		if (listed[slot])
			continue;
		chk.eq(w + " wr_id", box.wrid_init[slot], box.wrid[slot], true);
		chk.eq(w + " wqe_head", box.wqe_head_init[slot], box.wqe_head[slot]);
		chk.eq(w + " wr_data", box.wr_data_init[slot], box.wr_data[slot]);
	}
}

} // namespace

void Checker::fail(const std::string &msg)
{
	if (!count_)
		first_ = where_.empty() ? msg : where_ + ": " + msg;
	count_++;
}

void Checker::eq(const std::string &what, uint64_t exp, uint64_t got, bool hex)
{
	if (exp != got)
		fail(what + " expected " + fmt(exp, hex) + " got " + fmt(got, hex));
}

void Checker::bytes(const std::string &what, const uint8_t *exp, size_t exp_len, const uint8_t *got,
		    size_t got_len)
{
	size_t n = exp_len < got_len ? exp_len : got_len;
	char b[96];

	for (size_t i = 0; i < n; i++) {
		if (exp[i] != got[i]) {
			snprintf(b, sizeof(b), " differs at byte %zu: expected %02x got %02x", i,
				 exp[i], got[i]);
			fail(what + b);
			return;
		}
	}
	if (exp_len != got_len)
		fail(what + " length expected " + std::to_string(exp_len) + " got " +
		     std::to_string(got_len));
}

std::string Checker::summary() const
{
	if (count_ <= 1)
		return first_;
	return first_ + " (+" + std::to_string(count_ - 1) + " more differences)";
}

void RecordingUar::mmio64(SimQp *, uint32_t bf_offset, uint64_t value)
{
	const uint8_t *p = reinterpret_cast<const uint8_t *>(&value);

	events.push_back({false, bf_offset, std::vector<uint8_t>(p, p + sizeof(value))});
}

void RecordingUar::blueflame(SimQp *, uint32_t bf_offset, const void *data, size_t len)
{
	const uint8_t *p = static_cast<const uint8_t *>(data);

	events.push_back({true, bf_offset, std::vector<uint8_t>(p, p + len)});
}

uint64_t send_ops_from_vector(uint64_t v)
{
	/* the vectors number SEND/RDMA_WRITE/RDMA_WRITE_WITH_IMM 1/2/4; ibv uses 4/1/2 */
	uint64_t out = v & ~7ull;

	if (v & 1)
		out |= IBV_QP_EX_WITH_SEND;
	if (v & 2)
		out |= IBV_QP_EX_WITH_RDMA_WRITE;
	if (v & 4)
		out |= IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	return out;
}

bool env_build(const Json &rec, Env &env, Checker &chk)
{
	const Json &dev = rec["device"];

	env.ctx.reset(new SimContext());
	env.ctx->cqe_version = (uint8_t)dev["cqe_version"].u64();
	env.ctx->dma_mmo_max_size = dev["dma_mmo_max_size"].u64();
	env.ctx->max_sq_desc_sz = (uint32_t)dev["max_sq_desc_sz"].u64();
	env.ctx->max_send_wqebb = (uint32_t)dev["max_send_wqebb"].u64();
	env.ctx->mkey_update_tag_supported = dev["mkey_update_tag_supported"].boolean();
	if (rec.has("pd")) {
		env.pd.reset(new SimPd());
		/* the opaque buffer is only an address written into MMO WQEs */
		env.pd->opaque_buf =
			reinterpret_cast<void *>((uintptr_t)rec["pd"]["opaque_buf_addr"].u64());
		env.pd->opaque_lkey = (uint32_t)rec["pd"]["opaque_mr_lkey"].u64();
	}
	for (const Json &q : rec["qps"].items())
		if (!build_qp(q, env, chk))
			return false;
	if (rec.has("ahs")) {
		for (const Json &a : rec["ahs"].items()) {
			std::vector<uint8_t> av;
			std::unique_ptr<SimAh> ah(new SimAh());

			if (!hex_decode(a["av"].str(), &av) || av.size() != sizeof(ah->av)) {
				chk.fail("bad address vector");
				return false;
			}
			memcpy(&ah->av, av.data(), sizeof(ah->av));
			env.ahs[a["handle"].u64()] = std::move(ah);
		}
	}
	return !env.qps.empty() || (chk.fail("record without QPs"), false);
}

bool env_install_wr_ops(QpBox &box, Checker &chk)
{
	SimQp *qp = box.qp.get();
	int rc = sim_qp_install_wr_ops(qp);

	if (rc == -EOPNOTSUPP) {
		/*
		 * Flags whose builders are later issues: install the rest; a call that
		 * needs a missing builder makes the case a skip.
		 */
		qp->send_ops_flags &= qp->is_dci ? 0 : ~(uint64_t)IBV_QP_EX_WITH_BIND_MW;
		qp->dv_send_ops_flags &= MLX5DV_QP_EX_WITH_RAW_WQE | MLX5DV_QP_EX_WITH_MEMCPY |
					 MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
					 MLX5DV_QP_EX_WITH_MR_LIST |
					 MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
		rc = sim_qp_install_wr_ops(qp);
	}
	if (rc) {
		chk.fail("sim_qp_install_wr_ops returned " + std::to_string(rc));
		return false;
	}
	return true;
}

uint32_t env_dbrec_sq(const QpBox &box)
{
	return be32toh(box.dbrec[MLX5_SND_DBR]);
}

void env_check_qps(const Json &rec, Env &env, Checker &chk)
{
	chk.where("final");
	for (const Json &eq : rec["expect"]["qps"].items()) {
		QpBox *box = nullptr;

		for (auto &b : env.qps)
			if (b->handle == (int)eq["handle"].u64())
				box = b.get();
		if (!box) {
			chk.fail("expect names an unknown QP handle");
			continue;
		}
		const Json &f = eq["final"];
		SimQp *qp = box->qp.get();

		if (eq.has("sq_slots"))
			check_slots(eq, *box, chk);
		else
			chk.bytes("ring changed", box->ring_init.data(), box->ring_len,
				  box->ring.get(), box->ring_len);
		check_bookkeeping(eq, *box, chk);
		chk.eq("cur_post", f["cur_post"].u64(), qp->sq.cur_post);
		chk.eq("head", f["head"].u64(), qp->sq.head);
		chk.eq("tail", f["tail"].u64(), qp->sq.tail);
		chk.eq("fm_cache", f["fm_cache"].u64(), qp->sq.fm_cache);
		chk.eq("dbrec_sq", f["dbrec_sq"].u64(), env_dbrec_sq(*box));
	}
	chk.where("");
}

} // namespace replay
