/* SPDX-License-Identifier: BSD-3-Clause */
/* Parser of dpdk-test-dma-perf's config.ini (both layouts), on rte_cfgfile. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <set>

#include <rte_cfgfile.h>

#include "perf_cfg.h"

namespace {

/* Upper bounds that keep every product in 64 bits and every run sane. */
constexpr uint32_t MAX_MEM_MB = 1u << 20;
constexpr uint32_t MAX_BUF_SIZE = 1u << 30;
constexpr uint32_t MAX_RING = 1u << 16;
constexpr uint32_t MAX_SECONDS = 3600;
constexpr uint32_t MAX_SGE = 1024;
constexpr unsigned int MAX_LCORE = 1024;
constexpr int MAX_NUMA = 64;
constexpr int MAX_CASES = 64;

const char *const key_names[PERF_KEY_NUM] = {
	"mem_size",
	"buf_size",
	"dma_ring_size",
	"kick_batch",
};

std::string trim(const std::string &s)
{
	size_t b = 0, e = s.size();

	while (b < e && isspace((unsigned char)s[b]))
		b++;
	while (e > b && isspace((unsigned char)s[e - 1]))
		e--;
	return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	size_t start = 0;

	for (;;) {
		size_t pos = s.find(sep, start);

		out.push_back(trim(s.substr(start, pos == std::string::npos ? pos : pos - start)));
		if (pos == std::string::npos)
			return out;
		start = pos + 1;
	}
}

/* Whitespace-separated words joined by single spaces: eal_args compare equal by value. */
std::string normalise_words(const std::string &s)
{
	std::string out, word;

	for (size_t i = 0; i <= s.size(); i++) {
		if (i == s.size() || isspace((unsigned char)s[i])) {
			if (!word.empty())
				out += (out.empty() ? "" : " ") + word;
			word.clear();
		} else {
			word += s[i];
		}
	}
	return out;
}

/* Decimal (or 0x hex) unsigned number, the whole string, at most @p max. */
bool parse_u32(const std::string &s, uint32_t max, uint32_t *v)
{
	std::string t = trim(s);
	char *end;
	unsigned long long x;

	if (t.empty() || !isdigit((unsigned char)t[0]))
		return false;
	errno = 0;
	x = strtoull(t.c_str(), &end, 0);
	if (errno || *end || x > max)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* Builds the one-line error: "[section] key=value: reason". */
struct ctx {
	const char *path;
	std::string *err;

	int fail(const std::string &sec, const std::string &key, const std::string &val,
		 const std::string &why)
	{
		*err = std::string(path) + ": [" + sec + "]";
		if (!key.empty())
			*err += " " + key + (val.empty() ? "" : "=" + val);
		*err += ": " + why;
		return -EINVAL;
	}
};

/* "lcore10@dma_skeleton, lcore11@0000:00:04.2" (23.07 to 24.07). */
int parse_workers_old(ctx &c, const perf_case &pc, const std::string &key, const std::string &val,
		      std::vector<perf_worker_cfg> *out)
{
	for (const std::string &item : split(val, ',')) {
		size_t at = item.find('@');
		uint32_t lc;

		if (item.compare(0, 5, "lcore") != 0 || at == std::string::npos ||
		    !parse_u32(item.substr(5, at - 5), MAX_LCORE - 1, &lc) ||
		    trim(item.substr(at + 1)).empty())
			return c.fail(
				pc.section, key, val,
				"expected lcore<id>@<dmadev>[, lcore<id>@<dmadev>...], got '" +
					item + "'");
		out->push_back({lc, trim(item.substr(at + 1))});
	}
	return 0;
}

/* "lcore=10,dev=dma_skeleton,dir=mem2mem" (24.11 and later). */
int parse_worker_new(ctx &c, const perf_case &pc, const std::string &key, const std::string &val,
		     std::vector<perf_worker_cfg> *out)
{
	perf_worker_cfg w{0, ""};
	bool have_lcore = false;

	for (const std::string &kv : split(val, ',')) {
		size_t eq = kv.find('=');
		std::string k = trim(kv.substr(0, eq));
		std::string v = eq == std::string::npos ? "" : trim(kv.substr(eq + 1));

		if (eq == std::string::npos)
			return c.fail(pc.section, key, val, "'" + kv + "' is not name=value");
		if (k == "lcore") {
			if (!parse_u32(v, MAX_LCORE - 1, &w.lcore))
				return c.fail(pc.section, key, val, "bad lcore '" + v + "'");
			have_lcore = true;
		} else if (k == "dev") {
			w.dev = v;
		} else if (k == "dir") {
			if (v != "mem2mem")
				return c.fail(pc.section, key, val,
					      "dir=" + v + " not supported (only mem2mem)");
		} else if (k == "raddr" || k == "coreid" || k == "pfid" || k == "vfid") {
			return c.fail(pc.section, key, val,
				      k + " is only for mem2dev/dev2mem, "
					  "which are not supported");
		} else {
			return c.fail(pc.section, key, val, "unknown field '" + k + "'");
		}
	}
	if (!have_lcore || w.dev.empty())
		return c.fail(pc.section, key, val, "needs lcore=<id>,dev=<dmadev>");
	out->push_back(w);
	return 0;
}

int parse_workers(ctx &c, const perf_case &pc, const std::string &key, const std::string &val,
		  std::vector<perf_worker_cfg> *out)
{
	if (val.find('@') != std::string::npos)
		return parse_workers_old(c, pc, key, val, out);
	return parse_worker_new(c, pc, key, val, out);
}

/* "lcore = 3, 4" of CPU_MEM_COPY. */
int parse_cpu_lcores(ctx &c, const perf_case &pc, const std::string &val,
		     std::vector<perf_worker_cfg> *out)
{
	for (const std::string &item : split(val, ',')) {
		uint32_t lc;

		if (!parse_u32(item, MAX_LCORE - 1, &lc))
			return c.fail(pc.section, "lcore", val, "bad lcore id '" + item + "'");
		out->push_back({lc, ""});
	}
	return 0;
}

/* Keys of a case section that are shared with [GLOBAL]. */
int parse_common_key(ctx &c, const std::string &sec, const std::string &k, const std::string &v,
		     std::string *eal, bool *flush, uint32_t *secs, bool *have_eal)
{
	uint32_t x;

	if (k == "eal_args") {
		*eal = normalise_words(v);
		*have_eal = true;
	} else if (k == "cache_flush") {
		if (!parse_u32(v, 1, &x))
			return c.fail(sec, k, v, "expected 0 or 1");
		*flush = x;
	} else if (k == "test_seconds") {
		if (!parse_u32(v, MAX_SECONDS, &x) || x == 0)
			return c.fail(sec, k, v, "expected 1.." + std::to_string(MAX_SECONDS));
		*secs = x;
	} else {
		return 1;
	}
	return 0;
}

int parse_numa(ctx &c, const std::string &sec, const std::string &k, const std::string &v,
	       int *node)
{
	uint32_t x;

	if (!parse_u32(v, MAX_NUMA - 1, &x))
		return c.fail(sec, k, v, "expected a NUMA node 0.." + std::to_string(MAX_NUMA - 1));
	*node = (int)x;
	return 0;
}

struct case_state {
	bool have_type = false;
	bool have_key[PERF_KEY_NUM] = {};
	bool have_eal = false;
	bool have_cpu_lcore = false;
	bool have_dma_lcore = false;
	bool have_src_sge = false;
	bool have_dst_sge = false;
};

int parse_case_key(ctx &c, perf_case &pc, case_state &st, const std::string &k,
		   const std::string &v)
{
	int ret = parse_common_key(c, pc.section, k, v, &pc.eal_args, &pc.cache_flush,
				   &pc.test_seconds, &st.have_eal);
	uint32_t x;

	if (ret <= 0)
		return ret;
	for (int i = 0; i < PERF_KEY_NUM; i++) {
		if (k != key_names[i])
			continue;
		std::string why;

		if (perf_range_parse(v.c_str(), &pc.key[i], &why))
			return c.fail(pc.section, k, v, why);
		st.have_key[i] = true;
		return 0;
	}
	if (k == "type") {
		pc.fill = v == "DMA_MEM_FILL" || v == "CPU_MEM_FILL";
		if (v == "DMA_MEM_COPY" || v == "DMA_MEM_FILL")
			pc.type = PERF_TYPE_DMA;
		else if (v == "CPU_MEM_COPY" || v == "CPU_MEM_FILL")
			pc.type = PERF_TYPE_CPU;
		else
			return c.fail(pc.section, k, v,
				      "expected DMA_MEM_COPY, CPU_MEM_COPY, DMA_MEM_FILL or "
				      "CPU_MEM_FILL");
		st.have_type = true;
	} else if (k == "main_lcore_worker") {
		if (!parse_u32(v, 1, &x))
			return c.fail(pc.section, k, v, "expected 0 or 1");
		pc.main_lcore_worker = x == 1;
	} else if (k == "skip") {
		if (!parse_u32(v, 1, &x))
			return c.fail(pc.section, k, v, "expected 0 or 1");
	} else if (k == "src_numa_node") {
		return parse_numa(c, pc.section, k, v, &pc.src_numa);
	} else if (k == "dst_numa_node") {
		return parse_numa(c, pc.section, k, v, &pc.dst_numa);
	} else if (k == "dma_src_sge" || k == "dma_dst_sge") {
		bool src = k == "dma_src_sge";

		if (!parse_u32(v, MAX_SGE, &x) || x == 0)
			return c.fail(pc.section, k, v, "expected 1.." + std::to_string(MAX_SGE));
		(src ? pc.src_sge : pc.dst_sge) = x;
		(src ? st.have_src_sge : st.have_dst_sge) = true;
	} else if (k == "use_enq_deq_ops") {
		if (!parse_u32(v, 1, &x))
			return c.fail(pc.section, k, v, "expected 0 or 1");
		if (x)
			return c.fail(pc.section, k, v,
				      "the enqueue/dequeue-ops API needs "
				      "DPDK 25.11; this build is on 22.11");
	} else if (k == "lcore") {
		st.have_cpu_lcore = true;
		return parse_cpu_lcores(c, pc, v, &pc.workers);
	} else if (k.compare(0, 9, "lcore_dma") == 0 &&
		   (k.size() == 9 || parse_u32(k.substr(9), 1023, &x))) {
		st.have_dma_lcore = true;
		return parse_workers(c, pc, k, v, &pc.workers);
	} else {
		return c.fail(pc.section, k, v, "unknown key");
	}
	return 0;
}

/* Cross-key checks once every key of a case is known. */
int check_case(ctx &c, perf_case &pc, const case_state &st)
{
	const bool dma = pc.type == PERF_TYPE_DMA;
	std::set<unsigned int> lcores;

	if (!st.have_type)
		return c.fail(pc.section, "type", "", "missing (DMA_MEM_COPY or CPU_MEM_COPY)");
	for (int i = 0; i < PERF_KEY_NUM; i++) {
		bool needed = i <= PERF_KEY_BUF_SIZE || dma;

		if (needed && !st.have_key[i])
			return c.fail(pc.section, key_names[i], "", "missing");
		if (!needed && !st.have_key[i])
			pc.key[i] = {1, 1, 0, false};
		if (pc.key[i].first != pc.key[i].last) {
			if (pc.var_key >= 0)
				return c.fail(pc.section, key_names[i], "",
					      std::string("only one variable key per case; ") +
						      key_names[pc.var_key] +
						      " is already a range");
			pc.var_key = i;
		}
	}
	if (dma && st.have_cpu_lcore)
		return c.fail(pc.section, "lcore", "",
			      "is for CPU_MEM_COPY; DMA_MEM_COPY uses "
			      "lcore_dma / lcore_dmaN");
	if (!dma && st.have_dma_lcore)
		return c.fail(pc.section, "lcore_dma", "",
			      "is for DMA_MEM_COPY; CPU_MEM_COPY "
			      "uses lcore");
	if (pc.workers.empty())
		return c.fail(pc.section, dma ? "lcore_dma" : "lcore", "", "missing");
	/* workers may share a dmadev: each drives a vchan of its own (perf_bench.cpp) */
	for (const perf_worker_cfg &w : pc.workers)
		if (!lcores.insert(w.lcore).second)
			return c.fail(pc.section, dma ? "lcore_dma" : "lcore",
				      std::to_string(w.lcore), "lcore used twice in one case");
	if (st.have_src_sge != st.have_dst_sge)
		return c.fail(pc.section, st.have_src_sge ? "dma_dst_sge" : "dma_src_sge", "",
			      "missing: dma_src_sge and dma_dst_sge go together");
	/* with CPU_MEM_COPY the same segments are gathered by rte_memcpy: the baseline */
	if (st.have_src_sge && pc.fill)
		return c.fail(pc.section, "dma_src_sge", std::to_string(pc.src_sge),
			      "scatter-gather is for copies, not fills");
	return 0;
}

/* Every scenario of a case must leave each worker at least one buffer, and SG segments
 * must not be empty. */
int check_scenarios(ctx &c, const perf_case &pc)
{
	std::vector<uint32_t> vals[PERF_KEY_NUM];

	for (int i = 0; i < PERF_KEY_NUM; i++) {
		const perf_range &r = pc.key[i];
		const uint32_t lo = 1;
		const uint32_t hi = i == PERF_KEY_MEM_SIZE   ? MAX_MEM_MB
				    : i == PERF_KEY_BUF_SIZE ? MAX_BUF_SIZE
							     : MAX_RING;
		std::string v = std::to_string(r.first);

		if (r.first != r.last)
			v += "," + std::to_string(r.last) + "," + std::to_string(r.incr) +
			     (r.mul ? ",MUL" : ",ADD");
		if (perf_range_values(&r, &vals[i]) < 0)
			return c.fail(pc.section, key_names[i], v, "bad range");
		for (uint32_t x : vals[i])
			if (x < lo || x > hi)
				return c.fail(pc.section, key_names[i], v,
					      "value " + std::to_string(x) + " outside " +
						      std::to_string(lo) + ".." +
						      std::to_string(hi));
	}
	for (uint32_t mem : vals[PERF_KEY_MEM_SIZE])
		for (uint32_t buf : vals[PERF_KEY_BUF_SIZE]) {
			if (perf_nr_buf(mem, buf, pc.workers.size()) == 0)
				return c.fail(pc.section, "mem_size", std::to_string(mem),
					      "too small: holds no src+dst pair of buf_size " +
						      std::to_string(buf) + " per worker");
			if (pc.src_sge && (buf < pc.src_sge || buf < pc.dst_sge))
				return c.fail(pc.section, "buf_size", std::to_string(buf),
					      "smaller than the number of SG segments");
		}
	return 0;
}

int parse_case(ctx &c, struct rte_cfgfile *f, const std::string &sec, const perf_case &defaults,
	       perf_case *out)
{
	int n = rte_cfgfile_section_num_entries(f, sec.c_str());
	std::vector<rte_cfgfile_entry> ent(n > 0 ? n : 1);
	perf_case pc = defaults;
	case_state st;
	int ret;

	n = rte_cfgfile_section_entries(f, sec.c_str(), ent.data(), (int)ent.size());
	for (int i = 0; i < n; i++) {
		uint32_t skip;

		if (!strcmp(ent[i].name, "skip") && parse_u32(ent[i].value, 1, &skip) && skip) {
			/* Like upstream, a skipped case is not looked at any further. */
			pc.skip = true;
			*out = pc;
			return 0;
		}
	}
	for (int i = 0; i < n; i++) {
		ret = parse_case_key(c, pc, st, ent[i].name, ent[i].value);
		if (ret)
			return ret;
	}
	ret = check_case(c, pc, st);
	if (!ret)
		ret = check_scenarios(c, pc);
	*out = pc;
	return ret;
}

int parse_global(ctx &c, struct rte_cfgfile *f, perf_case *defaults)
{
	int n = rte_cfgfile_section_num_entries(f, "GLOBAL");
	std::vector<rte_cfgfile_entry> ent(n > 0 ? n : 1);
	bool have_eal = false;

	n = rte_cfgfile_section_entries(f, "GLOBAL", ent.data(), (int)ent.size());
	for (int i = 0; i < n; i++) {
		int ret = parse_common_key(c, "GLOBAL", ent[i].name, ent[i].value,
					   &defaults->eal_args, &defaults->cache_flush,
					   &defaults->test_seconds, &have_eal);
		if (ret < 0)
			return ret;
		if (ret > 0)
			return c.fail("GLOBAL", ent[i].name, ent[i].value, "unknown key");
	}
	return 0;
}

/* All cases run in one EAL: their eal_args must agree. */
int check_eal(ctx &c, perf_config *cfg)
{
	const perf_case *first = nullptr;

	for (const perf_case &pc : cfg->cases) {
		if (pc.skip)
			continue;
		if (!first) {
			first = &pc;
			cfg->eal_args = pc.eal_args;
		} else if (pc.eal_args != first->eal_args) {
			return c.fail(pc.section, "eal_args", pc.eal_args,
				      "differs from [" + first->section +
					      "]: dma-perf runs EAL "
					      "once, so every case must use the same eal_args");
		}
	}
	if (!first)
		return c.fail("*", "", "", "no case to run (no [caseN] section, or all skipped)");
	return 0;
}

int parse_sections(ctx &c, struct rte_cfgfile *f, perf_config *cfg)
{
	int n = rte_cfgfile_num_sections(f, nullptr, 0);
	std::vector<std::vector<char>> buf(n > 0 ? n : 1, std::vector<char>(CFG_NAME_LEN));
	std::vector<char *> names;
	perf_case defaults{};
	std::set<unsigned int> ids;
	int ret;

	for (auto &b : buf)
		names.push_back(b.data());
	n = rte_cfgfile_sections(f, names.data(), (int)names.size());
	defaults.var_key = -1;
	defaults.test_seconds = 1;
	cfg->has_global = rte_cfgfile_has_section(f, "GLOBAL");
	if (cfg->has_global && (ret = parse_global(c, f, &defaults)))
		return ret;
	for (int i = 0; i < n; i++) {
		std::string sec = names[i];
		uint32_t id;
		perf_case pc;

		if (sec == "GLOBAL")
			continue;
		if (sec.compare(0, 4, "case") || !parse_u32(sec.substr(4), 1000000, &id) ||
		    !isdigit((unsigned char)sec[4]))
			return c.fail(sec, "", "",
				      "unknown section (expected [GLOBAL] or [caseN])");
		if (!ids.insert(id).second)
			return c.fail(sec, "", "", "case number used twice");
		if ((int)ids.size() > MAX_CASES)
			return c.fail(sec, "", "",
				      "more than " + std::to_string(MAX_CASES) + " cases");
		defaults.section = sec;
		defaults.id = id;
		if ((ret = parse_case(c, f, sec, defaults, &pc)))
			return ret;
		cfg->cases.push_back(pc);
	}
	std::sort(cfg->cases.begin(), cfg->cases.end(),
		  [](const perf_case &a, const perf_case &b) { return a.id < b.id; });
	return check_eal(c, cfg);
}

} /* namespace */

const char *perf_key_name(int key)
{
	return key >= 0 && key < PERF_KEY_NUM ? key_names[key] : "?";
}

uint64_t perf_nr_buf(uint32_t mem_mb, uint32_t buf_size, size_t nb_workers)
{
	if (!buf_size || !nb_workers)
		return 0;
	return ((uint64_t)mem_mb * 1024 * 1024 / 2 / buf_size) / nb_workers;
}

int perf_range_values(const struct perf_range *r, std::vector<uint32_t> *out)
{
	uint64_t v = r->first;

	out->clear();
	if (r->first == r->last) {
		out->push_back(r->first);
		return 1;
	}
	if (r->first > r->last || (r->mul ? r->incr < 2 : r->incr < 1) || r->first == 0)
		return -EINVAL;
	for (; v <= r->last; v = r->mul ? v * r->incr : v + r->incr) {
		if (out->size() == PERF_MAX_SCENARIOS) {
			out->clear();
			return -E2BIG;
		}
		out->push_back((uint32_t)v);
	}
	return (int)out->size();
}

int perf_range_parse(const char *s, struct perf_range *r, std::string *why)
{
	std::vector<std::string> f = split(s, ',');
	std::vector<uint32_t> vals;

	if (f.size() == 1) {
		if (!parse_u32(f[0], UINT32_MAX, &r->first)) {
			*why = "not a number";
			return -EINVAL;
		}
		*r = {r->first, r->first, 0, false};
		return 0;
	}
	if (f.size() != 4) {
		*why = "expected a number or first,last,incr,ADD|MUL";
		return -EINVAL;
	}
	if (!parse_u32(f[0], UINT32_MAX, &r->first) || !parse_u32(f[1], UINT32_MAX, &r->last) ||
	    !parse_u32(f[2], UINT32_MAX, &r->incr)) {
		*why = "range first,last,incr must be numbers";
		return -EINVAL;
	}
	if (f[3] != "ADD" && f[3] != "MUL") {
		*why = "range operator '" + f[3] + "' is not ADD or MUL";
		return -EINVAL;
	}
	r->mul = f[3] == "MUL";
	if (r->first > r->last) {
		*why = "range first is above last";
		return -EINVAL;
	}
	if (perf_range_values(r, &vals) == -E2BIG) {
		*why = "range has more than " + std::to_string(PERF_MAX_SCENARIOS) + " values";
		return -EINVAL;
	}
	if (vals.empty()) {
		*why = "range does not progress (ADD needs incr >= 1, MUL needs incr >= 2 "
		       "and first >= 1)";
		return -EINVAL;
	}
	return 0;
}

int perf_cfg_load(const char *path, struct perf_config *cfg, std::string *err)
{
	struct rte_cfgfile *f;
	ctx c{path, err};
	FILE *probe;
	int ret;

	/* rte_cfgfile_load gives no reason; say whether the file is missing or malformed. */
	probe = fopen(path, "r");
	if (!probe) {
		*err = std::string(path) + ": " + strerror(errno);
		return -ENOENT;
	}
	fclose(probe);
	f = rte_cfgfile_load(path, 0);
	if (!f) {
		*err = std::string(path) + ": not a valid .ini file (rte_cfgfile_load failed)";
		return -EINVAL;
	}
	*cfg = perf_config{};
	ret = parse_sections(c, f, cfg);
	rte_cfgfile_close(f);
	return ret;
}
