/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Replay of the mkey side of `send` records (FORMAT.md §4, §5.1): loads `mkeys`,
 * performs the UMR calls (registration, mkey configure and its setters) through
 * the rdma-core inline API, and compares `expect.mkeys`.
 */
#include "provider/sim_mkey.h"
#include "replay.h"

namespace replay {

namespace {

using Args = const Json &;

SigState parse_state(const std::string &s, bool *ok)
{
	*ok = true;
	if (s == "INIT")
		return SigState::INIT;
	if (s == "RESET")
		return SigState::RESET;
	if (s == "SET")
		return SigState::SET;
	if (s == "UPDATED")
		return SigState::UPDATED;
	*ok = false;
	return SigState::INIT;
}

const char *state_name(SigState s)
{
	static const char *const names[] = {"INIT", "RESET", "SET", "UPDATED"};

	return names[(unsigned)s & 3];
}

void load_domain(Args d, SimSigDomain *out)
{
	*out = SimSigDomain();
	if (d.is_null())
		return;
	out->present = true;
	out->sig_type = (uint32_t)d["sig_type"].u64();
	out->block_size = (uint32_t)d["block_size"].u64();
	out->comp_mask = d["comp_mask"].u64();
	if (d.has("t10dif")) {
		Args t = d["t10dif"];

		out->t10dif.bg_type = (enum mlx5dv_sig_t10dif_bg_type)t["bg_type"].u64();
		out->t10dif.bg = (uint16_t)t["bg"].u64();
		out->t10dif.app_tag = (uint16_t)t["app_tag"].u64();
		out->t10dif.ref_tag = (uint32_t)t["ref_tag"].u64();
		out->t10dif.flags = (uint16_t)t["flags"].u64();
	}
	if (d.has("crc")) {
		out->crc.type = (enum mlx5dv_sig_crc_type)d["crc"]["type"].u64();
		out->crc.seed = d["crc"]["seed"].u64();
	}
}

bool load_sig(Args s, SimMkey *mk, Checker &chk)
{
	SimMkeySig &sig = mk->sig;
	bool ok;

	mk->has_sig = true;
	mk->create_flags |= MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	sig.mem_psv_index = (uint32_t)s["mem_psv_index"].u64();
	sig.wire_psv_index = (uint32_t)s["wire_psv_index"].u64();
	sig.state = parse_state(s["state"].str(), &ok);
	if (!ok) {
		chk.fail("bad mkey signature state " + s["state"].str());
		return false;
	}
	sig.err_count = (uint32_t)s["err_count"].u64();
	sig.err_count_updated = s["err_count_updated"].boolean();
	sig.err_exists = s["err_exists"].boolean();
	load_domain(s["mem"], &sig.mem);
	load_domain(s["wire"], &sig.wire);
	sig.flags = (uint32_t)s["flags"].u64();
	sig.check_mask = (uint8_t)s["check_mask"].u64();
	sig.copy_mask = (uint8_t)s["copy_mask"].u64();
	sig.has_last_error = s.has("last_error") && !s["last_error"].is_null();
	if (sig.has_last_error) {
		Args e = s["last_error"];

		sig.last_error.syndrome = (uint16_t)e["syndrome"].u64();
		sig.last_error.expected = e["expected"].u64();
		sig.last_error.actual = e["actual"].u64();
		sig.last_error.offset = e["offset"].u64();
		sig.last_error.sig_type = (uint8_t)e["sig_type"].u64();
		sig.last_error.domain = (uint8_t)e["domain"].u64();
	}
	return true;
}

void sge_list(Args list, std::vector<struct ibv_sge> *out)
{
	for (const Json &s : list.items())
		out->push_back(
			{s["addr"].u64(), (uint32_t)s["length"].u64(), (uint32_t)s["lkey"].u64()});
}

void interleaved_list(Args list, std::vector<struct mlx5dv_mr_interleaved> *out)
{
	for (const Json &d : list.items())
		out->push_back({d["addr"].u64(), (uint32_t)d["bytes_count"].u64(),
				(uint32_t)d["bytes_skip"].u64(), (uint32_t)d["lkey"].u64()});
	/* the library never reads past num_interleaved; keep a valid pointer */
	out->reserve(1);
}

/** A signature-domain object of the vectors (FORMAT.md §5.3) with its storage. */
struct DomainBox {
	struct mlx5dv_sig_block_domain d = {};
	struct mlx5dv_sig_t10dif dif = {};
	struct mlx5dv_sig_crc crc = {};
	uint8_t zero[16] = {}; /* what an invalid sig_type points to */
};

/** mlx5dv_sig_block_attr with the domains it points to. */
struct SigAttrBox {
	struct mlx5dv_sig_block_attr attr = {};
	DomainBox mem, wire;
};

/** Fill @p b from @p j; NULL (no signature in that domain) when @p j is null. */
const struct mlx5dv_sig_block_domain *sig_domain(Args j, DomainBox *b)
{
	if (j.is_null())
		return nullptr;
	b->d.sig_type = (enum mlx5dv_sig_type)j["sig_type"].u64();
	b->d.block_size = (enum mlx5dv_block_size)j["block_size"].u64();
	b->d.comp_mask = j["comp_mask"].u64();
	if (j.has("t10dif")) {
		Args t = j["t10dif"];

		b->dif.bg_type = (enum mlx5dv_sig_t10dif_bg_type)t["bg_type"].u64();
		b->dif.bg = (uint16_t)t["bg"].u64();
		b->dif.app_tag = (uint16_t)t["app_tag"].u64();
		b->dif.ref_tag = (uint32_t)t["ref_tag"].u64();
		b->dif.flags = (uint16_t)t["flags"].u64();
		b->d.sig.dif = &b->dif;
	} else if (j.has("crc")) {
		b->crc.type = (enum mlx5dv_sig_crc_type)j["crc"]["type"].u64();
		b->crc.seed = j["crc"]["seed"].u64();
		b->d.sig.crc = &b->crc;
	} else {
		b->d.sig.dif = reinterpret_cast<struct mlx5dv_sig_t10dif *>(b->zero);
	}
	return &b->d;
}

void sig_attr(Args j, SigAttrBox *a)
{
	a->attr.mem = sig_domain(j["mem"], &a->mem);
	a->attr.wire = sig_domain(j["wire"], &a->wire);
	a->attr.flags = (uint32_t)j["flags"].u64();
	a->attr.check_mask = (uint8_t)j["check_mask"].u64();
	a->attr.copy_mask = (uint8_t)j["copy_mask"].u64();
	a->attr.comp_mask = j["comp_mask"].u64();
}

/** Stored domain attributes against the record (FORMAT.md §5.3 encoding). */
void check_domain(const std::string &w, Args e, const SimSigDomain &d, Checker &chk)
{
	chk.eq(w + " present", !e.is_null(), d.present);
	if (e.is_null() || !d.present)
		return;
	chk.eq(w + " sig_type", e["sig_type"].u64(), d.sig_type);
	chk.eq(w + " block_size", e["block_size"].u64(), d.block_size);
	if (e.has("t10dif")) {
		Args t = e["t10dif"];

		chk.eq(w + " bg_type", t["bg_type"].u64(), (uint64_t)d.t10dif.bg_type);
		chk.eq(w + " bg", t["bg"].u64(), d.t10dif.bg);
		chk.eq(w + " app_tag", t["app_tag"].u64(), d.t10dif.app_tag);
		chk.eq(w + " ref_tag", t["ref_tag"].u64(), d.t10dif.ref_tag, true);
		chk.eq(w + " t10 flags", t["flags"].u64(), d.t10dif.flags);
	}
	if (e.has("crc")) {
		chk.eq(w + " crc type", e["crc"]["type"].u64(), (uint64_t)d.crc.type);
		chk.eq(w + " crc seed", e["crc"]["seed"].u64(), d.crc.seed, true);
	}
}

struct mlx5dv_mkey *mkey_arg(Env &env, Args c, Checker &chk)
{
	SimMkey *mk = env_mkey(env, (int)c["mkey"].u64());

	if (!mk)
		chk.fail("call names an unknown mkey handle");
	return mk ? &mk->dv : nullptr;
}

} // namespace

SimMkey *env_mkey(Env &env, int handle)
{
	for (size_t i = 0; i < env.mkeys.size(); i++)
		if (env.mkey_handles[i] == handle)
			return env.mkeys[i].get();
	return nullptr;
}

bool env_load_mkeys(const Json &rec, Env &env, Checker &chk)
{
	for (const Json &m : rec["mkeys"].items()) {
		std::unique_ptr<SimMkey> mk(new SimMkey());

		mk->dv.lkey = mk->dv.rkey = (uint32_t)m["lkey"].u64();
		mk->num_desc = (uint16_t)m["num_desc"].u64();
		mk->length = m["layout_length"].u64();
		mk->create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
		if (!m["signature"].is_null() && !load_sig(m["signature"], mk.get(), chk))
			return false;
		env.mkey_handles.push_back((int)m["handle"].u64());
		env.mkeys.push_back(std::move(mk));
	}
	return true;
}

void env_check_mkeys(const Json &rec, Env &env, Checker &chk)
{
	chk.where("final mkeys");
	for (const Json &e : rec["expect"]["mkeys"].items()) {
		SimMkey *mk = env_mkey(env, (int)e["handle"].u64());
		std::string w = "mkey " + std::to_string(e["handle"].u64());

		if (!mk) {
			chk.fail("expect names an unknown mkey handle");
			continue;
		}
		chk.eq(w + " layout_length", e["layout_length"].u64(), mk->length, true);
		if (e["signature"].is_null() || !e.has("signature"))
			continue;
		if (!mk->has_sig) {
			chk.fail(w + " expected a signature context");
			continue;
		}
		Args s = e["signature"];
		const SimMkeySig &sig = mk->sig;

		if (s["state"].str() != state_name(sig.state))
			chk.fail(w + " state expected " + s["state"].str() + " got " +
				 state_name(sig.state));
		chk.eq(w + " err_count", s["err_count"].u64(), sig.err_count);
		chk.eq(w + " err_count_updated", s["err_count_updated"].boolean(),
		       sig.err_count_updated);
		chk.eq(w + " err_exists", s["err_exists"].boolean(), sig.err_exists);
		check_domain(w + " mem", s["mem"], sig.mem, chk);
		check_domain(w + " wire", s["wire"], sig.wire, chk);
		chk.eq(w + " flags", s["flags"].u64(), sig.flags);
		chk.eq(w + " check_mask", s["check_mask"].u64(), sig.check_mask);
		chk.eq(w + " copy_mask", s["copy_mask"].u64(), sig.copy_mask);
		if (s.has("last_error") && !s["last_error"].is_null()) {
			Args le = s["last_error"];
			const SimSigError &ge = sig.last_error;

			chk.eq(w + " has last_error", 1, sig.has_last_error);
			chk.eq(w + " syndrome", le["syndrome"].u64(), ge.syndrome, true);
			chk.eq(w + " expected", le["expected"].u64(), ge.expected, true);
			chk.eq(w + " actual", le["actual"].u64(), ge.actual, true);
			chk.eq(w + " offset", le["offset"].u64(), ge.offset, true);
			chk.eq(w + " err sig_type", le["sig_type"].u64(), ge.sig_type);
			chk.eq(w + " err domain", le["domain"].u64(), ge.domain);
		}
	}
	chk.where("");
}

const void *umr_call_target(SimQp *qp, const std::string &op)
{
	struct mlx5dv_qp_ex *dv = &qp->dv;

	if (op == "mlx5dv_wr_mr_list")
		return (const void *)dv->wr_mr_list;
	if (op == "mlx5dv_wr_mr_interleaved")
		return (const void *)dv->wr_mr_interleaved;
	if (op == "mlx5dv_wr_mkey_configure")
		return (const void *)dv->wr_mkey_configure;
	if (op == "mlx5dv_wr_set_mkey_access_flags")
		return (const void *)dv->wr_set_mkey_access_flags;
	if (op == "mlx5dv_wr_set_mkey_layout_list")
		return (const void *)dv->wr_set_mkey_layout_list;
	if (op == "mlx5dv_wr_set_mkey_layout_interleaved")
		return (const void *)dv->wr_set_mkey_layout_interleaved;
	if (op == "mlx5dv_wr_set_mkey_sig_block")
		return (const void *)dv->wr_set_mkey_sig_block;
	return nullptr;
}

bool do_umr_call(QpBox &box, Env &env, const Json &c, Checker &chk)
{
	struct mlx5dv_qp_ex *dv = &box.qp->dv;
	const std::string &op = c["op"].str();

	if (op == "mlx5dv_wr_mr_list") {
		std::vector<struct ibv_sge> sg;
		struct mlx5dv_mkey *mk = mkey_arg(env, c, chk);

		sge_list(c["sge"], &sg);
		sg.reserve(1);
		if (mk)
			mlx5dv_wr_mr_list(dv, mk, (uint32_t)c["access_flags"].u64(),
					  (uint16_t)c["num_sges"].u64(), sg.data());
	} else if (op == "mlx5dv_wr_mr_interleaved") {
		std::vector<struct mlx5dv_mr_interleaved> d;
		struct mlx5dv_mkey *mk = mkey_arg(env, c, chk);

		interleaved_list(c["data"], &d);
		if (mk)
			mlx5dv_wr_mr_interleaved(dv, mk, (uint32_t)c["access_flags"].u64(),
						 (uint32_t)c["repeat_count"].u64(),
						 (uint16_t)c["num_interleaved"].u64(), d.data());
	} else if (op == "mlx5dv_wr_mkey_configure") {
		struct mlx5dv_mkey_conf_attr attr = {};
		struct mlx5dv_mkey *mk = mkey_arg(env, c, chk);

		attr.conf_flags = (uint32_t)c["conf_attr"]["conf_flags"].u64();
		attr.comp_mask = c["conf_attr"]["comp_mask"].u64();
		if (mk)
			mlx5dv_wr_mkey_configure(dv, mk, (uint8_t)c["num_setters"].u64(), &attr);
	} else if (op == "mlx5dv_wr_set_mkey_access_flags") {
		mlx5dv_wr_set_mkey_access_flags(dv, (uint32_t)c["access_flags"].u64());
	} else if (op == "mlx5dv_wr_set_mkey_layout_list") {
		std::vector<struct ibv_sge> sg;

		sge_list(c["sge"], &sg);
		sg.reserve(1);
		mlx5dv_wr_set_mkey_layout_list(dv, (uint16_t)c["num_sges"].u64(), sg.data());
	} else if (op == "mlx5dv_wr_set_mkey_layout_interleaved") {
		std::vector<struct mlx5dv_mr_interleaved> d;

		interleaved_list(c["data"], &d);
		mlx5dv_wr_set_mkey_layout_interleaved(dv, (uint32_t)c["repeat_count"].u64(),
						      (uint16_t)c["num_interleaved"].u64(),
						      d.data());
	} else if (op == "mlx5dv_wr_set_mkey_sig_block") {
		SigAttrBox a;

		sig_attr(c["attr"], &a);
		mlx5dv_wr_set_mkey_sig_block(dv, &a.attr);
	} else {
		return false;
	}
	return true;
}

} // namespace replay
