/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5-vector-replay: replays libmlx5 v44.0 golden vectors (FORMAT.md) against the
 * software HCA's provider.
 *
 *   mlx5-vector-replay [--prefix P]... [--groups g1,g2,...] FILE...
 *
 * Prints one line per failing case (and per skipped case of a selected group), then
 * "N passed, N failed[, N skipped]". Exit status 1 if anything failed.
 */
#include <stdio.h>
#include <string.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "replay.h"

namespace replay {

namespace {

/** Groups whose features are later issues: skipped unless named in --groups. */
const std::set<std::string> kLaterGroups = {}; /* none at present */

struct Options {
	std::vector<std::string> prefixes;
	std::set<std::string> groups; /* empty: all */
	std::vector<std::string> files;
};

struct Totals {
	unsigned passed = 0, failed = 0, skipped = 0;
	std::map<std::string, unsigned> later; /* skipped records per later group */
};

void usage()
{
	fprintf(stderr, "usage: mlx5-vector-replay [--prefix P]... [--groups g1,g2,...] FILE...\n");
}

bool parse_args(int argc, char **argv, Options *o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if ((a == "--prefix" || a == "--groups") && i + 1 < argc) {
			std::string v = argv[++i];

			if (a == "--prefix") {
				o->prefixes.push_back(v);
				continue;
			}
			std::stringstream ss(v);
			std::string g;

			while (std::getline(ss, g, ','))
				if (!g.empty())
					o->groups.insert(g);
		} else if (a.rfind("--", 0) == 0) {
			return false;
		} else {
			o->files.push_back(a);
		}
	}
	return !o->files.empty();
}

bool selected_by_prefix(const Options &o, const std::string &name)
{
	if (o.prefixes.empty())
		return true;
	for (const auto &p : o.prefixes)
		if (name.compare(0, p.size(), p) == 0)
			return true;
	return false;
}

void run_record(const Options &o, const Json &rec, Totals *t)
{
	const std::string &name = rec["name"].str();
	const std::string &feature = rec["feature"].str();
	const std::string &kind = rec["kind"].str();
	bool explicit_group = o.groups.count(feature) != 0;
	Checker chk;

	if (!o.groups.empty() && !explicit_group) {
		t->skipped++;
		return;
	}
	if (!explicit_group && kLaterGroups.count(feature)) {
		t->skipped++;
		t->later[feature]++;
		return;
	}
	if (rec["format"].str() != "libmlx5-v44-golden/1")
		chk.fail("unknown format " + rec["format"].str());
	else if (kind == "sizing")
		run_sizing(rec, chk);
	else if (kind == "send")
		run_send(rec, chk);
	else if (kind == "poll")
		run_poll(rec, chk);
	else if (kind == "cancel")
		run_cancel(rec, chk);
	else
		chk.fail("kind '" + kind + "' is not implemented yet");
	if (!chk.ok()) {
		t->failed++;
		printf("FAIL %s: %s\n", name.c_str(), chk.summary().c_str());
	} else if (!chk.skip_reason.empty()) {
		if (kLaterGroups.count(feature)) {
			/* the user asked for a later group explicitly */
			t->failed++;
			printf("FAIL %s: %s\n", name.c_str(), chk.skip_reason.c_str());
		} else {
			t->skipped++;
			printf("SKIP %s: %s\n", name.c_str(), chk.skip_reason.c_str());
		}
	} else {
		t->passed++;
	}
}

bool run_file(const Options &o, const std::string &path, Totals *t)
{
	std::ifstream in(path);
	std::string line;
	unsigned lineno = 0;

	if (!in) {
		fprintf(stderr, "mlx5-vector-replay: cannot open %s\n", path.c_str());
		return false;
	}
	while (std::getline(in, line)) {
		Json rec;
		std::string err;

		lineno++;
		if (line.empty())
			continue;
		if (!Json::parse(line, &rec, &err) || !rec.is_object()) {
			printf("FAIL %s:%u: bad JSON: %s\n", path.c_str(), lineno, err.c_str());
			t->failed++;
			continue;
		}
		if (selected_by_prefix(o, rec["name"].str()))
			run_record(o, rec, t);
	}
	return true;
}

} // namespace

void run_sizing(const Json &rec, Checker &chk)
{
	const Json &q = rec["qps"][0], &c = q["create"], &e = rec["expect"];
	const Json &dev = rec["device"];
	std::unique_ptr<SimContext> ctx(new SimContext());
	bool dci = q["type"].str() == "DCI";
	struct ibv_qp_cap cap = {};
	SqGeometry g;

	ctx->max_sq_desc_sz = (uint32_t)dev["max_sq_desc_sz"].u64();
	ctx->max_send_wqebb = (uint32_t)dev["max_send_wqebb"].u64();
	cap.max_send_wr = (uint32_t)c["max_send_wr"].u64();
	cap.max_send_sge = (uint32_t)c["max_send_sge"].u64();
	cap.max_inline_data = (uint32_t)c["max_inline_data"].u64();
	g = sim_sq_size(
		*ctx, dci ? IBV_QPT_DRIVER : IBV_QPT_RC, dci, cap, !c["send_ops_flags"].is_null(),
		send_ops_from_vector(c["send_ops_flags"].u64()), c["dv_send_ops_flags"].u64());
	chk.eq("sizing_ret", (uint64_t)e["sizing_ret"].i64(), (uint64_t)(int64_t)g.sizing_ret);
	/* wqe_size is given whenever the per-WR computation succeeded */
	chk.eq("wqe_size", e.has("wqe_size") ? (uint64_t)e["wqe_size"].i64() : (uint64_t)-1,
	       (uint64_t)(int64_t)g.wqe_size);
	if (e["sizing_ret"].i64() <= 0)
		return;
	chk.eq("wqe_cnt", e["wqe_cnt"].u64(), g.wqe_cnt);
	chk.eq("max_post", e["max_post"].u64(), g.max_post);
	chk.eq("max_send_sge", e["max_send_sge"].u64(), g.max_send_sge);
	chk.eq("max_inline_data", (uint64_t)e["max_inline_data"].i64(),
	       (uint64_t)(int64_t)g.max_inline_data);
}

} // namespace replay

int main(int argc, char **argv)
{
	replay::Options o;
	replay::Totals t;
	bool io_ok = true;

	if (!replay::parse_args(argc, argv, &o)) {
		replay::usage();
		return 2;
	}
	for (const auto &f : o.files)
		io_ok &= replay::run_file(o, f, &t);
	for (const auto &g : t.later)
		printf("SKIP group %s: %u records (not implemented yet)\n", g.first.c_str(),
		       g.second);
	if (t.skipped)
		printf("%u passed, %u failed, %u skipped\n", t.passed, t.failed, t.skipped);
	else
		printf("%u passed, %u failed\n", t.passed, t.failed);
	return (t.failed || !io_ok) ? 1 : 0;
}
