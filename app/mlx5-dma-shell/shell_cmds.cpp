/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The commands of mlx5-dma-shell (librte_cmdline instances, testpmd's style): devices,
 * vchans, workloads, stats and the software HCA's faults. Every handler either does
 * what it says or prints one "error: ..." line naming the bad value (shell_fail()),
 * and leaves the shell as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <signal.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_lcore.h>

#include "rte_pmd_dma_mlx5.h"
#include "shell.h"

/* A token in an instance's list (librte_cmdline takes them by their header). */
#define TOK(t) ((cmdline_parse_token_hdr_t *)&(t))

/*
 * A librte_cmdline instruction with room for its tokens. cmdline_parse_inst_t ends in a
 * flexible array, which C++ may not initialize (GCC allows it as an extension, clang
 * refuses): the same members with a sized array, handed to the library as what it is.
 */
struct shell_inst {
	void (*f)(void *, struct cmdline *, void *);
	void *data;
	const char *help_str;
	cmdline_parse_token_hdr_t *tokens[16]; /* NULL-terminated */
};
static_assert(offsetof(shell_inst, f) == offsetof(cmdline_parse_inst_t, f) &&
		      offsetof(shell_inst, data) == offsetof(cmdline_parse_inst_t, data) &&
		      offsetof(shell_inst, help_str) == offsetof(cmdline_parse_inst_t, help_str) &&
		      offsetof(shell_inst, tokens) == offsetof(cmdline_parse_inst_t, tokens),
	      "shell_inst is laid out as cmdline_parse_inst_t");
#define INST(i) (reinterpret_cast<cmdline_parse_inst_t *>(&(i)))

namespace {

/* Devices this shell started (rte_dma_stop() of another one only logs). */
bool g_started[RTE_DMADEV_DEFAULT_MAX];

void stop_dev(uint16_t dev)
{
	if (dev < RTE_DIM(g_started) && g_started[dev]) {
		rte_dma_stop((int16_t)dev);
		g_started[dev] = false;
	}
}

/*
 * "clear stats" of the dmadevs: a baseline per vchan that the shows subtract, instead of
 * rte_dma_stats_reset(), which the vchan's lcore would race (it counts on while the
 * shell writes) and which leaves the ops in flight to complete beyond a submitted
 * count of 0. The baseline counts them as submitted after the clear.
 */
constexpr uint16_t kMaxStatVchans = 64;
struct rte_dma_stats g_stats_base[RTE_DMADEV_DEFAULT_MAX][kMaxStatVchans];

/** Stats of @p vchan of @p dev since the last "clear stats"; 0 or a negative errno. */
int vchan_stats(uint16_t dev, uint16_t vchan, struct rte_dma_stats *st)
{
	int ret = rte_dma_stats_get((int16_t)dev, vchan, st);

	if (ret || dev >= RTE_DMADEV_DEFAULT_MAX || vchan >= kMaxStatVchans)
		return ret;
	const struct rte_dma_stats &b = g_stats_base[dev][vchan];
	if (st->completed < b.completed || st->errors < b.errors || st->submitted < b.submitted)
		return 0; /* zeroed since (the device was set up again) */
	st->submitted -= b.submitted;
	st->completed -= b.completed;
	st->errors -= b.errors;
	return 0;
}

/** Device @p dev set up, attached or gone: its counters start from 0. */
void forget_stats(uint16_t dev)
{
	if (dev < RTE_DMADEV_DEFAULT_MAX)
		memset(g_stats_base[dev], 0, sizeof(g_stats_base[dev]));
}

/** Whether @p dev is a dmadev (one error line otherwise). */
bool dev_ok(uint16_t dev, struct rte_dma_info *info)
{
	if (rte_dma_info_get((int16_t)dev, info) != 0) {
		shell_fail("no dmadev %u (show devices)", dev);
		return false;
	}
	return true;
}

struct bit_name {
	uint32_t bit;
	const char *name;
};

void print_capa(uint64_t capa)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {{RTE_DMA_CAPA_MEM_TO_MEM, "mem2mem"},  {RTE_DMA_CAPA_SVA, "sva"},
		     {RTE_DMA_CAPA_SILENT, "silent"},       {RTE_DMA_CAPA_OPS_COPY, "copy"},
		     {RTE_DMA_CAPA_OPS_COPY_SG, "copy_sg"}, {RTE_DMA_CAPA_OPS_FILL, "fill"}};
	char buf[128] = "";
	size_t off = 0;

	for (const auto &n : names)
		if ((capa & n.bit) && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
						off ? " " : "", n.name);
	shell_printf("  capabilities: %s\n", buf);
}

/** Append the names of the bits of @p mask set in @p names (others as a hex rest). */
template <size_t N>
void mask_names(uint32_t mask, const struct bit_name (&names)[N], char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const auto &n : names)
		if ((mask & n.bit) && off < len) {
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
						n.name);
			mask &= ~n.bit;
		}
	if (mask && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%#x", off ? " " : "", mask);
	if (!off)
		snprintf(buf, len, "none");
}

/* The signature caps by name: the PI types (enum rte_pmd_dma_mlx5_sig_type) and block sizes. */
void print_sig_caps(const struct rte_pmd_dma_mlx5_sig_caps &sig)
{
	static const struct bit_name types[] = {
		{1u << RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, "t10dif-crc"},
		{1u << RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM, "t10dif-csum"},
		{1u << RTE_PMD_DMA_MLX5_SIG_CRC32, "crc32"},
		{1u << RTE_PMD_DMA_MLX5_SIG_CRC32C, "crc32c"},
		{1u << RTE_PMD_DMA_MLX5_SIG_CRC64, "crc64"},
	};
	static const struct bit_name sizes[] = {
		{RTE_PMD_DMA_MLX5_SIG_BS_512, "512"},   {RTE_PMD_DMA_MLX5_SIG_BS_520, "520"},
		{RTE_PMD_DMA_MLX5_SIG_BS_4048, "4048"}, {RTE_PMD_DMA_MLX5_SIG_BS_4096, "4096"},
		{RTE_PMD_DMA_MLX5_SIG_BS_4160, "4160"},
	};
	char t[160], b[96];

	/* bit 0 (no PI) is the plain side of insert and strip: not a type of its own */
	mask_names(sig.types & ~(1u << RTE_PMD_DMA_MLX5_SIG_NONE), types, t, sizeof(t));
	mask_names(sig.block_sizes, sizes, b, sizeof(b));
	shell_printf("  signature: PI types %s; blocks of %s B; %u mkeys per vchan, pipelining "
		     "%s\n",
		     t, b, sig.mkeys, sig.pipelining ? "on" : "off");
}

/* ---- help, quit ---- */

struct res_word {
	cmdline_fixed_string_t w;
};

/* The sections of "help", as testpmd's: "help" lists them, "help <section>" shows one. */
const struct {
	const char *name;
	const char *alias; /* testpmd's name of the like section */
	const char *title;
	const char *text;
} kHelp[] = {
	{"devices", "control", "Devices",
	 "  show devices                      every dmadev, its vchans and capabilities\n"
	 "  show device <dev>                 one dmadev: info, mlx5 and signature caps, "
	 "stats\n"
	 "  attach <devargs>                  probe a device, e.g. attach dma_mlx5_1,dev=sim1\n"
	 "  detach <dev>                      stop, close and remove a device\n"
	 "  setup <dev> <vchans> <ring size>  configure, set up the vchans, start\n"
	 "  show vchan <dev> <vchan>          state, mlx5 QP, last error, stats\n"
	 "  dump <dev>                        rte_dma_dump()\n"},
	{"workloads", "start",
	 "Workloads (one per vchan, each on a worker lcore: as many at once as EAL's -l gives "
	 "workers)",
	 "  start copy|fill <dev> <vchan> <size> <burst> <lcore>\n"
	 "  start sg <dev> <vchan> <size> <segments> <burst> <lcore>\n"
	 "                                    rte_dma_copy_sg(): the pieces scattered in "
	 "reverse order\n"
	 "  start pi insert|verify|strip|convert crc32|crc32c|crc64|t10dif <dev> <vchan> "
	 "<blocks>\n"
	 "           <burst> <lcore> [bad <per mille>]\n"
	 "                                    librte_blkint ops on the device, ISA-L "
	 "cross-checks;\n"
	 "                                    some ops with a bad block (not insert)\n"
	 "  start respond <dev> <vchan> <blocks> <bad per mille> <burst> <lcore>\n"
	 "                                    verify-then-respond pairs (T10-DIF), some "
	 "writes bad\n"
	 "  start reasm <dev> <vchan> <datagram bytes> <fragments> <burst> <lcore>\n"
	 "                                    IPv4 reassembly (librte_reasm) of generated "
	 "fragments\n"
	 "  start reasm pcap <file> <dev> <vchan> <burst> <lcore>\n"
	 "                                    ... of a pcap's frames, over and over\n"
	 "  start remote write|read|fill <dev> <target dev>[,<target dev>...] <size> "
	 "<burst> <lcore>\n"
	 "                                    dma_mlx5 remote ops over DC, the targets in "
	 "turn\n"
	 "  start remote <dev> <target dev> <size> <burst> <lcore>\n"
	 "                                    dma_mlx5 remote writes over DC (devices with "
	 "sim_fabric=1)\n"
	 "  stop <workload> | stop all        stop, and print its stats\n"
	 "  set verify on|off                 check every op's bytes (new workloads)\n"
	 "  set rate <kops/s>                 rate limit of new workloads (0: none)\n"},
	{"stats", "display", "Stats",
	 "  show stats [<workload>]           ops, Mops and Gbps since the last show, "
	 "errors by status\n"
	 "  clear stats                       workloads' and vchans' counters from 0 (ops in "
	 "flight\n"
	 "                                    stay submitted)\n"
	 "  watch <ms> <count>                show stats every <ms>, <count> times (Ctrl-C "
	 "ends it)\n"},
	{"faults", "sim", "Faults (software HCA)",
	 "  fault <dev> <vchan> qp-fatal      the vchan's QP to ERR (the driver recovers it)\n"
	 "  fault <dev> <vchan> delay <us>    hold back the vchan's completions\n"
	 "  fault <dev> <vchan> fail <syndrome>  the next WQE fails with that CQE syndrome\n"
	 "  fault <dev> <vchan> cq-overrun    the vchan's CQ overruns (lost CQEs)\n"
	 "  fault <dev> <vchan> corrupt-sig   the next PI the vchan's running pi insert or\n"
	 "                                    convert workload generates is bad\n"
	 "  link <sim> up|down                a software HCA's port on its fabric\n"},
	{"other", "config", "Other",
	 "  load <file>                       run the commands of a file\n"
	 "  sleep <ms>                        wait (scripts; Ctrl-C ends it)\n"
	 "  help [<section>|all], quit\n"},
};

void cb_help(void *, struct cmdline *, void *)
{
	shell_printf("Help is in sections: help <section> shows one, help all every one.\n");
	for (const auto &h : kHelp)
		shell_printf("  help %-10s %s\n", h.name, h.title);
}

cmdline_parse_token_string_t t_help = TOKEN_STRING_INITIALIZER(struct res_word, w, "help");
struct shell_inst c_help = {.f = cb_help,
			    .data = NULL,
			    .help_str = "help: the sections of help",
			    .tokens = {TOK(t_help), NULL}};

struct res_help {
	cmdline_fixed_string_t help;
	cmdline_fixed_string_t section;
};

void cb_help_section(void *parsed, struct cmdline *, void *)
{
	const char *sec = ((struct res_help *)parsed)->section;
	bool all = strcmp(sec, "all") == 0;

	for (const auto &h : kHelp)
		if (all || strcmp(sec, h.name) == 0 || strcmp(sec, h.alias) == 0)
			shell_printf("%s:\n%s", h.title, h.text);
}

cmdline_parse_token_string_t t_help_h = TOKEN_STRING_INITIALIZER(struct res_help, help, "help");
cmdline_parse_token_string_t t_help_sec =
	TOKEN_STRING_INITIALIZER(struct res_help, section,
				 "devices#control#workloads#start#stats#display#faults#sim#other#"
				 "config#all");
struct shell_inst c_help_section = {
	.f = cb_help_section,
	.data = NULL,
	.help_str = "help devices|workloads|stats|faults|other|all (testpmd's names too: "
		    "control, display, config)",
	.tokens = {TOK(t_help_h), TOK(t_help_sec), NULL}};

void cb_quit(void *, struct cmdline *cl, void *)
{
	shell_workload_stop(-1);
	shell_quit_requested = true;
	cmdline_quit(cl);
}

cmdline_parse_token_string_t t_quit = TOKEN_STRING_INITIALIZER(struct res_word, w, "quit");
struct shell_inst c_quit = {.f = cb_quit,
			    .data = NULL,
			    .help_str = "quit: stop the workloads and leave",
			    .tokens = {TOK(t_quit), NULL}};

/* ---- show devices / device ---- */

struct res_show {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t what;
	uint16_t a;
	uint16_t b;
};

cmdline_parse_token_string_t t_show = TOKEN_STRING_INITIALIZER(struct res_show, show, "show");
cmdline_parse_token_string_t t_devices = TOKEN_STRING_INITIALIZER(struct res_show, what, "devices");
cmdline_parse_token_string_t t_device = TOKEN_STRING_INITIALIZER(struct res_show, what, "device");
cmdline_parse_token_string_t t_vchan = TOKEN_STRING_INITIALIZER(struct res_show, what, "vchan");
cmdline_parse_token_string_t t_stats = TOKEN_STRING_INITIALIZER(struct res_show, what, "stats");
cmdline_parse_token_num_t t_show_a = TOKEN_NUM_INITIALIZER(struct res_show, a, RTE_UINT16);
cmdline_parse_token_num_t t_show_b = TOKEN_NUM_INITIALIZER(struct res_show, b, RTE_UINT16);

void show_device(uint16_t dev, bool brief)
{
	struct rte_dma_info info;
	struct rte_pmd_dma_mlx5_caps caps;

	if (!dev_ok(dev, &info))
		return;
	shell_printf("dmadev %u: %s, %u of %u vchans set up, ring %u..%u, %u SG entries\n", dev,
		     info.dev_name, info.nb_vchans, info.max_vchans, info.min_desc, info.max_desc,
		     info.max_sges);
	print_capa(info.dev_capa);
	if (rte_pmd_dma_mlx5_get_caps((int16_t)dev, &caps) == 0)
		shell_printf("  mlx5: %s (%s backend), %s path, sva %s, memcpy up to %" PRIu64
			     " B\n",
			     caps.device, caps.backend, caps.direct_path ? "direct" : "verbs",
			     caps.sva ? "on" : "off", caps.max_wr_memcpy_length);
	if (brief)
		return;
	struct rte_pmd_dma_mlx5_sig_caps sig;
	if (rte_pmd_dma_mlx5_sig_caps((int16_t)dev, &sig) == 0 && sig.enabled)
		print_sig_caps(sig);
	for (uint16_t v = 0; v < info.nb_vchans; v++) {
		struct rte_dma_stats st;
		if (vchan_stats(dev, v, &st) == 0)
			shell_printf("  vchan %u: submitted %" PRIu64 ", completed %" PRIu64
				     ", errors %" PRIu64 "\n",
				     v, st.submitted, st.completed, st.errors);
	}
}

void cb_show_devices(void *, struct cmdline *, void *)
{
	int16_t dev = 0;
	unsigned int n = 0;

	while ((dev = rte_dma_next_dev(dev)) != -1) {
		show_device((uint16_t)dev, true);
		n++;
		dev++;
	}
	if (!n)
		shell_printf("no dmadevs (attach one)\n");
}

struct shell_inst c_show_devices = {.f = cb_show_devices,
				    .data = NULL,
				    .help_str = "show devices",
				    .tokens = {TOK(t_show), TOK(t_devices), NULL}};

void cb_show_device(void *parsed, struct cmdline *, void *)
{
	show_device(((struct res_show *)parsed)->a, false);
}

struct shell_inst c_show_device = {.f = cb_show_device,
				   .data = NULL,
				   .help_str = "show device <dev>",
				   .tokens = {TOK(t_show), TOK(t_device), TOK(t_show_a), NULL}};

void cb_show_vchan(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_show *)parsed;
	struct rte_dma_info info;
	enum rte_dma_vchan_status vs;
	struct rte_pmd_dma_mlx5_vchan_info vi;
	struct rte_pmd_dma_mlx5_error err;
	struct rte_dma_stats st;

	if (!dev_ok(r->a, &info))
		return;
	if (r->b >= info.nb_vchans) {
		shell_fail("device %u has %u vchans set up: no vchan %u", r->a, info.nb_vchans,
			   r->b);
		return;
	}
	int ret = rte_dma_vchan_status((int16_t)r->a, r->b, &vs);
	shell_printf("dmadev %u vchan %u: %s\n", r->a, r->b,
		     ret                          ? "state unknown"
		     : vs == RTE_DMA_VCHAN_IDLE   ? "idle"
		     : vs == RTE_DMA_VCHAN_ACTIVE ? "active"
						  : "halted (error)");
	if (vchan_stats(r->a, r->b, &st) == 0)
		shell_printf("  submitted %" PRIu64 ", completed %" PRIu64 ", errors %" PRIu64 "\n",
			     st.submitted, st.completed, st.errors);
	struct rte_pmd_dma_mlx5_vchan_stats vst;
	if (rte_pmd_dma_mlx5_vchan_info((int16_t)r->a, r->b, &vi) == 0 &&
	    rte_pmd_dma_mlx5_vchan_stats((int16_t)r->a, r->b, &vst) == 0)
		shell_printf("  mlx5 QP %#x, send queue of %u WQEBBs, %" PRIu64 " recoveries\n",
			     vi.qpn, vi.sq_wqebbs, vst.recoveries);
	ret = rte_pmd_dma_mlx5_last_error((int16_t)r->a, r->b, &err);
	if (ret == 0)
		shell_printf("  last error: op %u, syndrome %#x (vendor %#x), WQE opcode %#x\n",
			     err.ring_idx, err.syndrome, err.vendor_syndrome, err.wqe_opcode);
	else if (ret == -ENOENT)
		shell_printf("  no failed op since start\n");
}

struct shell_inst c_show_vchan = {
	.f = cb_show_vchan,
	.data = NULL,
	.help_str = "show vchan <dev> <vchan>",
	.tokens = {TOK(t_show), TOK(t_vchan), TOK(t_show_a), TOK(t_show_b), NULL}};

void cb_show_stats(void *, struct cmdline *, void *)
{
	shell_workload_show(-1);
}

struct shell_inst c_show_stats = {.f = cb_show_stats,
				  .data = NULL,
				  .help_str = "show stats: every workload",
				  .tokens = {TOK(t_show), TOK(t_stats), NULL}};

void cb_show_stats_one(void *parsed, struct cmdline *, void *)
{
	uint16_t id = ((struct res_show *)parsed)->a;

	if (shell_workload_show(id) < 0)
		shell_fail("no workload %u (show stats)", id);
}

struct shell_inst c_show_stats_one = {.f = cb_show_stats_one,
				      .data = NULL,
				      .help_str = "show stats <workload>",
				      .tokens = {TOK(t_show), TOK(t_stats), TOK(t_show_a), NULL}};

/* ---- clear stats ---- */

struct res_clear {
	cmdline_fixed_string_t clear;
	cmdline_fixed_string_t stats;
};

cmdline_parse_token_string_t t_clear = TOKEN_STRING_INITIALIZER(struct res_clear, clear, "clear");
cmdline_parse_token_string_t t_clear_stats = TOKEN_STRING_INITIALIZER(struct res_clear, stats,
								      "stats");

void cb_clear(void *, struct cmdline *, void *)
{
	shell_workload_clear();
	int16_t dev = 0;
	while ((dev = rte_dma_next_dev(dev)) != -1 && dev < RTE_DMADEV_DEFAULT_MAX) {
		struct rte_dma_info info;
		if (rte_dma_info_get(dev, &info) != 0)
			info.nb_vchans = 0;
		forget_stats((uint16_t)dev);
		for (uint16_t v = 0; v < info.nb_vchans && v < kMaxStatVchans; v++) {
			struct rte_dma_stats st;
			if (rte_dma_stats_get(dev, v, &st) != 0)
				continue;
			/* completed and errors first: what is in flight stays submitted */
			st.submitted = RTE_MIN(st.submitted, st.completed + st.errors);
			g_stats_base[dev][v] = st;
		}
		dev++;
	}
	shell_printf("stats cleared\n");
}

struct shell_inst c_clear = {.f = cb_clear,
			     .data = NULL,
			     .help_str = "clear stats",
			     .tokens = {TOK(t_clear), TOK(t_clear_stats), NULL}};

/* ---- attach / detach ---- */

struct res_arg {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t arg;
};

cmdline_parse_token_string_t t_attach = TOKEN_STRING_INITIALIZER(struct res_arg, cmd, "attach");
cmdline_parse_token_string_t t_any = TOKEN_STRING_INITIALIZER(struct res_arg, arg, NULL);

void cb_attach(void *parsed, struct cmdline *, void *)
{
	const char *args = ((struct res_arg *)parsed)->arg;
	char name[RTE_DEV_NAME_MAX_LEN];
	size_t n = strcspn(args, ",");

	if (n == 0 || n >= sizeof(name)) {
		shell_fail("bad devargs \"%s\"", args);
		return;
	}
	memcpy(name, args, n);
	name[n] = '\0';
	int ret = rte_dev_probe(args);
	if (ret) {
		shell_fail("probe of \"%s\": %s", args, strerror(-ret));
		return;
	}
	int id = rte_dma_get_dev_id_by_name(name);
	if (id < 0)
		shell_printf("%s attached (not a dmadev)\n", name);
	else {
		forget_stats((uint16_t)id);
		shell_printf("%s attached: dmadev %d\n", name, id);
	}
}

struct shell_inst c_attach = {.f = cb_attach,
			      .data = NULL,
			      .help_str = "attach <devargs>",
			      .tokens = {TOK(t_attach), TOK(t_any), NULL}};

struct res_dev {
	cmdline_fixed_string_t cmd;
	uint16_t dev;
};

cmdline_parse_token_string_t t_detach = TOKEN_STRING_INITIALIZER(struct res_dev, cmd, "detach");
cmdline_parse_token_num_t t_dev = TOKEN_NUM_INITIALIZER(struct res_dev, dev, RTE_UINT16);

/** The rte_device of dmadev @p info (a vdev), or NULL. */
struct rte_device *vdev_of(const struct rte_dma_info &info)
{
	struct rte_dev_iterator it;
	struct rte_device *d, *found = NULL;

	RTE_DEV_FOREACH (d, "bus=vdev", &it)
		if (!found && strcmp(rte_dev_name(d), info.dev_name) == 0)
			found = d;
	return found;
}

void cb_detach(void *parsed, struct cmdline *, void *)
{
	uint16_t dev = ((struct res_dev *)parsed)->dev;
	struct rte_dma_info info;

	if (!dev_ok(dev, &info))
		return;
	if (shell_workload_on((int16_t)dev)) {
		shell_fail("workloads run on device %u: stop them first", dev);
		return;
	}
	struct rte_device *d = vdev_of(info);
	if (!d) {
		shell_fail("device %u (%s) is not a vdev", dev, info.dev_name);
		return;
	}
	char name[RTE_DEV_NAME_MAX_LEN];
	snprintf(name, sizeof(name), "%s", info.dev_name);
	stop_dev(dev);
	int ret = rte_dev_remove(d);
	if (ret == 0)
		shell_workload_forget((int16_t)dev);
	if (ret == 0)
		forget_stats(dev);
	if (ret)
		shell_fail("remove of %s: %s", name, strerror(-ret));
	else
		shell_printf("%s detached\n", name);
}

struct shell_inst c_detach = {.f = cb_detach,
			      .data = NULL,
			      .help_str = "detach <dev>",
			      .tokens = {TOK(t_detach), TOK(t_dev), NULL}};

/* ---- setup, dump ---- */

struct res_setup {
	cmdline_fixed_string_t cmd;
	uint16_t dev;
	uint16_t vchans;
	uint16_t desc;
};

cmdline_parse_token_string_t t_setup = TOKEN_STRING_INITIALIZER(struct res_setup, cmd, "setup");
cmdline_parse_token_num_t t_setup_dev = TOKEN_NUM_INITIALIZER(struct res_setup, dev, RTE_UINT16);
cmdline_parse_token_num_t t_setup_vchans = TOKEN_NUM_INITIALIZER(struct res_setup, vchans,
								 RTE_UINT16);
cmdline_parse_token_num_t t_setup_desc = TOKEN_NUM_INITIALIZER(struct res_setup, desc, RTE_UINT16);

void cb_setup(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_setup *)parsed;
	struct rte_dma_info info;
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	int ret;

	if (!dev_ok(r->dev, &info))
		return;
	if (shell_workload_on((int16_t)r->dev)) {
		shell_fail("workloads run on device %u: stop them first", r->dev);
		return;
	}
	if (r->vchans == 0 || r->vchans > info.max_vchans) {
		shell_fail("vchans %u out of range: device %u takes 1..%u", r->vchans, r->dev,
			   info.max_vchans);
		return;
	}
	if (r->desc < info.min_desc || r->desc > info.max_desc) {
		shell_fail("ring size %u out of range: device %u takes %u..%u", r->desc, r->dev,
			   info.min_desc, info.max_desc);
		return;
	}
	stop_dev(r->dev);
	conf.nb_vchans = r->vchans;
	ret = rte_dma_configure((int16_t)r->dev, &conf);
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = r->desc;
	for (uint16_t v = 0; ret == 0 && v < r->vchans; v++)
		ret = rte_dma_vchan_setup((int16_t)r->dev, v, &vc);
	if (ret == 0)
		ret = rte_dma_start((int16_t)r->dev);
	if (ret == 0 && r->dev < RTE_DIM(g_started))
		g_started[r->dev] = true;
	if (ret == 0)
		shell_workload_reset((int16_t)r->dev); /* nothing of old workloads is left */
	if (ret == 0)
		forget_stats(r->dev); /* the restart zeroed the vchans' counters */
	if (ret)
		shell_fail("setup of device %u: %s", r->dev, strerror(-ret));
	else
		shell_printf("device %u: %u vchans of %u descriptors, started\n", r->dev, r->vchans,
			     r->desc);
}

struct shell_inst c_setup = {
	.f = cb_setup,
	.data = NULL,
	.help_str = "setup <dev> <vchans> <ring size>",
	.tokens = {TOK(t_setup), TOK(t_setup_dev), TOK(t_setup_vchans), TOK(t_setup_desc), NULL}};

cmdline_parse_token_string_t t_dump = TOKEN_STRING_INITIALIZER(struct res_dev, cmd, "dump");

void cb_dump(void *parsed, struct cmdline *, void *)
{
	uint16_t dev = ((struct res_dev *)parsed)->dev;
	struct rte_dma_info info;

	if (!dev_ok(dev, &info))
		return;
	fflush(stdout);
	if (rte_dma_dump((int16_t)dev, stdout) != 0)
		shell_fail("dump of device %u failed", dev);
	fflush(stdout);
}

struct shell_inst c_dump = {.f = cb_dump,
			    .data = NULL,
			    .help_str = "dump <dev>",
			    .tokens = {TOK(t_dump), TOK(t_dev), NULL}};

/* ---- start / stop ---- */

struct res_start {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t op;
	uint16_t dev;
	uint16_t vchan;
	uint32_t size;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_start = TOKEN_STRING_INITIALIZER(struct res_start, cmd, "start");
cmdline_parse_token_string_t t_start_op = TOKEN_STRING_INITIALIZER(struct res_start, op,
								   "copy#fill");
cmdline_parse_token_num_t t_start_dev = TOKEN_NUM_INITIALIZER(struct res_start, dev, RTE_UINT16);
cmdline_parse_token_num_t t_start_vchan = TOKEN_NUM_INITIALIZER(struct res_start, vchan,
								RTE_UINT16);
cmdline_parse_token_num_t t_start_size = TOKEN_NUM_INITIALIZER(struct res_start, size, RTE_UINT32);
cmdline_parse_token_num_t t_start_burst = TOKEN_NUM_INITIALIZER(struct res_start, burst,
								RTE_UINT16);
cmdline_parse_token_num_t t_start_lcore = TOKEN_NUM_INITIALIZER(struct res_start, lcore,
								RTE_UINT16);

void cb_start(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_start *)parsed;
	enum shell_op op = strcmp(r->op, "fill") == 0 ? SHELL_OP_FILL : SHELL_OP_COPY;
	int id = shell_workload_start(op, (int16_t)r->dev, r->vchan, r->size, 1, r->burst,
				      r->lcore);

	if (id >= 0)
		shell_printf("workload %d: %s of %u B on device %u vchan %u, lcore %u\n", id, r->op,
			     r->size, r->dev, r->vchan, r->lcore);
}

struct shell_inst c_start = {.f = cb_start,
			     .data = NULL,
			     .help_str = "start copy|fill <dev> <vchan> <size> <burst> <lcore>",
			     .tokens = {TOK(t_start), TOK(t_start_op), TOK(t_start_dev),
					TOK(t_start_vchan), TOK(t_start_size), TOK(t_start_burst),
					TOK(t_start_lcore), NULL}};

struct res_start_sg {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t op;
	uint16_t dev;
	uint16_t vchan;
	uint32_t size;
	uint16_t segs;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_sg = TOKEN_STRING_INITIALIZER(struct res_start_sg, cmd, "start");
cmdline_parse_token_string_t t_sg_op = TOKEN_STRING_INITIALIZER(struct res_start_sg, op, "sg");
cmdline_parse_token_num_t t_sg_dev = TOKEN_NUM_INITIALIZER(struct res_start_sg, dev, RTE_UINT16);
cmdline_parse_token_num_t t_sg_vchan = TOKEN_NUM_INITIALIZER(struct res_start_sg, vchan,
							     RTE_UINT16);
cmdline_parse_token_num_t t_sg_size = TOKEN_NUM_INITIALIZER(struct res_start_sg, size, RTE_UINT32);
cmdline_parse_token_num_t t_sg_segs = TOKEN_NUM_INITIALIZER(struct res_start_sg, segs, RTE_UINT16);
cmdline_parse_token_num_t t_sg_burst = TOKEN_NUM_INITIALIZER(struct res_start_sg, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_sg_lcore = TOKEN_NUM_INITIALIZER(struct res_start_sg, lcore,
							     RTE_UINT16);

void cb_start_sg(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_start_sg *)parsed;
	int id = shell_workload_start(SHELL_OP_SG, (int16_t)r->dev, r->vchan, r->size, r->segs,
				      r->burst, r->lcore);

	if (id >= 0)
		shell_printf("workload %d: SG copy of %u B in %u pieces on device %u vchan %u, "
			     "lcore %u\n",
			     id, r->size, r->segs, r->dev, r->vchan, r->lcore);
}

struct shell_inst c_start_sg = {
	.f = cb_start_sg,
	.data = NULL,
	.help_str = "start sg <dev> <vchan> <size> <segments> <burst> <lcore>",
	.tokens = {TOK(t_sg), TOK(t_sg_op), TOK(t_sg_dev), TOK(t_sg_vchan), TOK(t_sg_size),
		   TOK(t_sg_segs), TOK(t_sg_burst), TOK(t_sg_lcore), NULL}};

struct res_start_remote {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t op;
	uint16_t dev;
	uint16_t target;
	uint32_t size;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_rw = TOKEN_STRING_INITIALIZER(struct res_start_remote, cmd, "start");
cmdline_parse_token_string_t t_rw_op = TOKEN_STRING_INITIALIZER(struct res_start_remote, op,
								"remote");
cmdline_parse_token_num_t t_rw_dev = TOKEN_NUM_INITIALIZER(struct res_start_remote, dev,
							   RTE_UINT16);
cmdline_parse_token_num_t t_rw_target = TOKEN_NUM_INITIALIZER(struct res_start_remote, target,
							      RTE_UINT16);
cmdline_parse_token_num_t t_rw_size = TOKEN_NUM_INITIALIZER(struct res_start_remote, size,
							    RTE_UINT32);
cmdline_parse_token_num_t t_rw_burst = TOKEN_NUM_INITIALIZER(struct res_start_remote, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_rw_lcore = TOKEN_NUM_INITIALIZER(struct res_start_remote, lcore,
							     RTE_UINT16);

void cb_start_remote(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_start_remote *)parsed;
	int16_t target = (int16_t)r->target;
	int id = shell_workload_start_remote(SHELL_REMOTE_WRITE, (int16_t)r->dev, &target, 1,
					     r->size, r->burst, r->lcore);

	if (id >= 0)
		shell_printf("workload %d: remote writes of %u B from device %u to a DC target "
			     "on device %u, lcore %u\n",
			     id, r->size, r->dev, r->target, r->lcore);
}

struct shell_inst c_start_remote = {
	.f = cb_start_remote,
	.data = NULL,
	.help_str = "start remote <dev> <target dev> <size> <burst> <lcore>",
	.tokens = {TOK(t_rw), TOK(t_rw_op), TOK(t_rw_dev), TOK(t_rw_target), TOK(t_rw_size),
		   TOK(t_rw_burst), TOK(t_rw_lcore), NULL}};

struct res_start_remote_op {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t remote;
	cmdline_fixed_string_t op;
	uint16_t dev;
	cmdline_fixed_string_t targets;
	uint32_t size;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_ro = TOKEN_STRING_INITIALIZER(struct res_start_remote_op, cmd,
							     "start");
cmdline_parse_token_string_t t_ro_remote = TOKEN_STRING_INITIALIZER(struct res_start_remote_op,
								    remote, "remote");
cmdline_parse_token_string_t t_ro_op = TOKEN_STRING_INITIALIZER(struct res_start_remote_op, op,
								"write#read#fill");
cmdline_parse_token_num_t t_ro_dev = TOKEN_NUM_INITIALIZER(struct res_start_remote_op, dev,
							   RTE_UINT16);
cmdline_parse_token_string_t t_ro_targets = TOKEN_STRING_INITIALIZER(struct res_start_remote_op,
								     targets, NULL);
cmdline_parse_token_num_t t_ro_size = TOKEN_NUM_INITIALIZER(struct res_start_remote_op, size,
							    RTE_UINT32);
cmdline_parse_token_num_t t_ro_burst = TOKEN_NUM_INITIALIZER(struct res_start_remote_op, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_ro_lcore = TOKEN_NUM_INITIALIZER(struct res_start_remote_op, lcore,
							     RTE_UINT16);

/** "4" or "4,5,6": device ids; their number, or -1 for anything else. */
int parse_targets(const char *list, int16_t *out, int max)
{
	int n = 0;

	for (const char *p = list;; p++) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v >= RTE_DMADEV_DEFAULT_MAX || n == max)
			return -1;
		out[n++] = (int16_t)v;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -1;
		p = end;
	}
}

void cb_start_remote_op(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_start_remote_op *)parsed;
	int16_t targets[SHELL_MAX_PEERS];
	int n = parse_targets(r->targets, targets, SHELL_MAX_PEERS);
	enum shell_remote_op op = strcmp(r->op, "read") == 0   ? SHELL_REMOTE_READ
				  : strcmp(r->op, "fill") == 0 ? SHELL_REMOTE_FILL
							       : SHELL_REMOTE_WRITE;

	if (n < 0) {
		shell_fail("targets \"%s\": 1..%u device ids separated by commas", r->targets,
			   SHELL_MAX_PEERS);
		return;
	}
	int id = shell_workload_start_remote(op, (int16_t)r->dev, targets, (uint16_t)n, r->size,
					     r->burst, r->lcore);
	if (id >= 0)
		shell_printf("workload %d: remote %ss of %u B from device %u to DC targets on "
			     "devices %s, lcore %u\n",
			     id, r->op, r->size, r->dev, r->targets, r->lcore);
}

struct shell_inst c_start_remote_op = {
	.f = cb_start_remote_op,
	.data = NULL,
	.help_str = "start remote write|read|fill <dev> <target dev>[,<target dev>...] <size> "
		    "<burst> <lcore>",
	.tokens = {TOK(t_ro), TOK(t_ro_remote), TOK(t_ro_op), TOK(t_ro_dev), TOK(t_ro_targets),
		   TOK(t_ro_size), TOK(t_ro_burst), TOK(t_ro_lcore), NULL}};

struct res_start_pi {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t pi;
	cmdline_fixed_string_t op;
	cmdline_fixed_string_t type;
	uint16_t dev;
	uint16_t vchan;
	uint32_t blocks;
	uint16_t burst;
	uint16_t lcore;
	cmdline_fixed_string_t bad;
	uint32_t permille;
};

cmdline_parse_token_string_t t_pi = TOKEN_STRING_INITIALIZER(struct res_start_pi, cmd, "start");
cmdline_parse_token_string_t t_pi_pi = TOKEN_STRING_INITIALIZER(struct res_start_pi, pi, "pi");
cmdline_parse_token_string_t t_pi_op = TOKEN_STRING_INITIALIZER(struct res_start_pi, op,
								"insert#verify#strip#convert");
cmdline_parse_token_string_t t_pi_type = TOKEN_STRING_INITIALIZER(struct res_start_pi, type,
								  "crc32#crc32c#crc64#t10dif");
cmdline_parse_token_num_t t_pi_dev = TOKEN_NUM_INITIALIZER(struct res_start_pi, dev, RTE_UINT16);
cmdline_parse_token_num_t t_pi_vchan = TOKEN_NUM_INITIALIZER(struct res_start_pi, vchan,
							     RTE_UINT16);
cmdline_parse_token_num_t t_pi_blocks = TOKEN_NUM_INITIALIZER(struct res_start_pi, blocks,
							      RTE_UINT32);
cmdline_parse_token_num_t t_pi_burst = TOKEN_NUM_INITIALIZER(struct res_start_pi, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_pi_lcore = TOKEN_NUM_INITIALIZER(struct res_start_pi, lcore,
							     RTE_UINT16);
cmdline_parse_token_string_t t_pi_bad = TOKEN_STRING_INITIALIZER(struct res_start_pi, bad, "bad");
cmdline_parse_token_num_t t_pi_permille = TOKEN_NUM_INITIALIZER(struct res_start_pi, permille,
								RTE_UINT32);

/* data: (void *)1 for the form with a bad-block rate */
void cb_start_pi(void *parsed, struct cmdline *, void *data)
{
	auto *r = (struct res_start_pi *)parsed;
	uint32_t bad = data ? r->permille : 0;
	int id = shell_workload_start_pi(r->op, r->type, (int16_t)r->dev, r->vchan, r->blocks, bad,
					 r->burst, r->lcore);

	if (id >= 0)
		shell_printf("workload %d: %s %s of %u blocks of 512 B on device %u vchan %u, "
			     "lcore %u, %u per mille bad\n",
			     id, r->type, r->op, r->blocks, r->dev, r->vchan, r->lcore, bad);
}

struct shell_inst c_start_pi = {
	.f = cb_start_pi,
	.data = NULL,
	.help_str = "start pi insert|verify|strip|convert crc32|crc32c|crc64|t10dif <dev> <vchan> "
		    "<blocks> <burst> <lcore>",
	.tokens = {TOK(t_pi), TOK(t_pi_pi), TOK(t_pi_op), TOK(t_pi_type), TOK(t_pi_dev),
		   TOK(t_pi_vchan), TOK(t_pi_blocks), TOK(t_pi_burst), TOK(t_pi_lcore), NULL}};

struct shell_inst c_start_pi_bad = {
	.f = cb_start_pi,
	.data = (void *)1,
	.help_str = "start pi verify|strip|convert crc32|crc32c|crc64|t10dif <dev> <vchan> "
		    "<blocks> <burst> <lcore> bad <per mille>",
	.tokens = {TOK(t_pi), TOK(t_pi_pi), TOK(t_pi_op), TOK(t_pi_type), TOK(t_pi_dev),
		   TOK(t_pi_vchan), TOK(t_pi_blocks), TOK(t_pi_burst), TOK(t_pi_lcore),
		   TOK(t_pi_bad), TOK(t_pi_permille), NULL}};

struct res_start_reasm {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t op;
	cmdline_fixed_string_t pcap;
	cmdline_fixed_string_t file;
	uint16_t dev;
	uint16_t vchan;
	uint32_t size;
	uint32_t frags;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_ra = TOKEN_STRING_INITIALIZER(struct res_start_reasm, cmd, "start");
cmdline_parse_token_string_t t_ra_op = TOKEN_STRING_INITIALIZER(struct res_start_reasm, op,
								"reasm");
cmdline_parse_token_string_t t_ra_pcap = TOKEN_STRING_INITIALIZER(struct res_start_reasm, pcap,
								  "pcap");
cmdline_parse_token_string_t t_ra_file = TOKEN_STRING_INITIALIZER(struct res_start_reasm, file,
								  NULL);
cmdline_parse_token_num_t t_ra_dev = TOKEN_NUM_INITIALIZER(struct res_start_reasm, dev, RTE_UINT16);
cmdline_parse_token_num_t t_ra_vchan = TOKEN_NUM_INITIALIZER(struct res_start_reasm, vchan,
							     RTE_UINT16);
cmdline_parse_token_num_t t_ra_size = TOKEN_NUM_INITIALIZER(struct res_start_reasm, size,
							    RTE_UINT32);
cmdline_parse_token_num_t t_ra_frags = TOKEN_NUM_INITIALIZER(struct res_start_reasm, frags,
							     RTE_UINT32);
cmdline_parse_token_num_t t_ra_burst = TOKEN_NUM_INITIALIZER(struct res_start_reasm, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_ra_lcore = TOKEN_NUM_INITIALIZER(struct res_start_reasm, lcore,
							     RTE_UINT16);

/* data: (void *)1 for the pcap form */
void cb_start_reasm(void *parsed, struct cmdline *, void *data)
{
	auto *r = (struct res_start_reasm *)parsed;
	int id = shell_workload_start_reasm((int16_t)r->dev, r->vchan, data ? 0 : r->size,
					    data ? 0 : r->frags, data ? r->file : NULL, r->burst,
					    r->lcore);

	if (id >= 0 && data)
		shell_printf("workload %d: reassembly of %s on device %u vchan %u, lcore %u\n", id,
			     r->file, r->dev, r->vchan, r->lcore);
	else if (id >= 0)
		shell_printf("workload %d: reassembly of %u B datagrams in %u fragments on device "
			     "%u vchan %u, lcore %u\n",
			     id, r->size, r->frags, r->dev, r->vchan, r->lcore);
}

struct shell_inst c_start_reasm = {
	.f = cb_start_reasm,
	.data = NULL,
	.help_str = "start reasm <dev> <vchan> <datagram bytes> <fragments> <burst> <lcore>",
	.tokens = {TOK(t_ra), TOK(t_ra_op), TOK(t_ra_dev), TOK(t_ra_vchan), TOK(t_ra_size),
		   TOK(t_ra_frags), TOK(t_ra_burst), TOK(t_ra_lcore), NULL}};

struct shell_inst c_start_reasm_pcap = {
	.f = cb_start_reasm,
	.data = (void *)1,
	.help_str = "start reasm pcap <file> <dev> <vchan> <burst> <lcore>",
	.tokens = {TOK(t_ra), TOK(t_ra_op), TOK(t_ra_pcap), TOK(t_ra_file), TOK(t_ra_dev),
		   TOK(t_ra_vchan), TOK(t_ra_burst), TOK(t_ra_lcore), NULL}};

struct res_start_respond {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t op;
	uint16_t dev;
	uint16_t vchan;
	uint32_t blocks;
	uint32_t bad;
	uint16_t burst;
	uint16_t lcore;
};

cmdline_parse_token_string_t t_vr = TOKEN_STRING_INITIALIZER(struct res_start_respond, cmd,
							     "start");
cmdline_parse_token_string_t t_vr_op = TOKEN_STRING_INITIALIZER(struct res_start_respond, op,
								"respond");
cmdline_parse_token_num_t t_vr_dev = TOKEN_NUM_INITIALIZER(struct res_start_respond, dev,
							   RTE_UINT16);
cmdline_parse_token_num_t t_vr_vchan = TOKEN_NUM_INITIALIZER(struct res_start_respond, vchan,
							     RTE_UINT16);
cmdline_parse_token_num_t t_vr_blocks = TOKEN_NUM_INITIALIZER(struct res_start_respond, blocks,
							      RTE_UINT32);
cmdline_parse_token_num_t t_vr_bad = TOKEN_NUM_INITIALIZER(struct res_start_respond, bad,
							   RTE_UINT32);
cmdline_parse_token_num_t t_vr_burst = TOKEN_NUM_INITIALIZER(struct res_start_respond, burst,
							     RTE_UINT16);
cmdline_parse_token_num_t t_vr_lcore = TOKEN_NUM_INITIALIZER(struct res_start_respond, lcore,
							     RTE_UINT16);

void cb_start_respond(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_start_respond *)parsed;
	int id = shell_workload_start_respond((int16_t)r->dev, r->vchan, r->blocks, r->bad,
					      r->burst, r->lcore);

	if (id >= 0)
		shell_printf("workload %d: verify-then-respond pairs of %u blocks, %u per mille "
			     "bad, on device %u vchan %u, lcore %u\n",
			     id, r->blocks, r->bad, r->dev, r->vchan, r->lcore);
}

struct shell_inst c_start_respond = {
	.f = cb_start_respond,
	.data = NULL,
	.help_str = "start respond <dev> <vchan> <blocks> <bad per mille> <burst> <lcore>",
	.tokens = {TOK(t_vr), TOK(t_vr_op), TOK(t_vr_dev), TOK(t_vr_vchan), TOK(t_vr_blocks),
		   TOK(t_vr_bad), TOK(t_vr_burst), TOK(t_vr_lcore), NULL}};

struct res_stop {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t all;
	uint16_t id;
};

cmdline_parse_token_string_t t_stop = TOKEN_STRING_INITIALIZER(struct res_stop, cmd, "stop");
cmdline_parse_token_string_t t_stop_all = TOKEN_STRING_INITIALIZER(struct res_stop, all, "all");
cmdline_parse_token_num_t t_stop_id = TOKEN_NUM_INITIALIZER(struct res_stop, id, RTE_UINT16);

void cb_stop(void *parsed, struct cmdline *, void *data)
{
	int id = data ? -1 : ((struct res_stop *)parsed)->id;

	if (shell_workload_stop(id) < 0)
		shell_fail("no running workload %d (show stats)", id);
}

struct shell_inst c_stop = {.f = cb_stop,
			    .data = NULL,
			    .help_str = "stop <workload>",
			    .tokens = {TOK(t_stop), TOK(t_stop_id), NULL}};
struct shell_inst c_stop_all = {.f = cb_stop,
				.data = (void *)1,
				.help_str = "stop all",
				.tokens = {TOK(t_stop), TOK(t_stop_all), NULL}};

/* ---- set verify ---- */

struct res_set {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t onoff;
};

cmdline_parse_token_string_t t_set = TOKEN_STRING_INITIALIZER(struct res_set, cmd, "set");
cmdline_parse_token_string_t t_set_verify = TOKEN_STRING_INITIALIZER(struct res_set, what,
								     "verify");
cmdline_parse_token_string_t t_set_onoff = TOKEN_STRING_INITIALIZER(struct res_set, onoff,
								    "on#off");

void cb_set_verify(void *parsed, struct cmdline *, void *)
{
	shell_verify = strcmp(((struct res_set *)parsed)->onoff, "on") == 0;
	shell_printf("verification %s for the workloads started from now on\n",
		     shell_verify ? "on" : "off");
}

struct shell_inst c_set_verify = {
	.f = cb_set_verify,
	.data = NULL,
	.help_str = "set verify on|off",
	.tokens = {TOK(t_set), TOK(t_set_verify), TOK(t_set_onoff), NULL}};

/* ---- faults ---- */

struct res_fault {
	cmdline_fixed_string_t cmd;
	uint16_t dev;
	uint16_t vchan;
	cmdline_fixed_string_t kind;
	uint32_t us;
};

cmdline_parse_token_string_t t_fault = TOKEN_STRING_INITIALIZER(struct res_fault, cmd, "fault");
cmdline_parse_token_num_t t_fault_dev = TOKEN_NUM_INITIALIZER(struct res_fault, dev, RTE_UINT16);
cmdline_parse_token_num_t t_fault_vchan = TOKEN_NUM_INITIALIZER(struct res_fault, vchan,
								RTE_UINT16);
cmdline_parse_token_string_t t_fault_fatal = TOKEN_STRING_INITIALIZER(struct res_fault, kind,
								      "qp-fatal");
cmdline_parse_token_string_t t_fault_delay = TOKEN_STRING_INITIALIZER(struct res_fault, kind,
								      "delay");
cmdline_parse_token_num_t t_fault_us = TOKEN_NUM_INITIALIZER(struct res_fault, us, RTE_UINT32);
cmdline_parse_token_string_t t_fault_corrupt = TOKEN_STRING_INITIALIZER(struct res_fault, kind,
									"corrupt-sig");
cmdline_parse_token_string_t t_fault_overrun = TOKEN_STRING_INITIALIZER(struct res_fault, kind,
									"cq-overrun");

/* Its fields up to kind lie as in res_fault: cb_fault() reads both. */
struct res_fault_fail {
	cmdline_fixed_string_t cmd;
	uint16_t dev;
	uint16_t vchan;
	cmdline_fixed_string_t kind;
	cmdline_fixed_string_t syndrome;
};

cmdline_parse_token_string_t t_ff = TOKEN_STRING_INITIALIZER(struct res_fault_fail, cmd, "fault");
cmdline_parse_token_num_t t_ff_dev = TOKEN_NUM_INITIALIZER(struct res_fault_fail, dev, RTE_UINT16);
cmdline_parse_token_num_t t_ff_vchan = TOKEN_NUM_INITIALIZER(struct res_fault_fail, vchan,
							     RTE_UINT16);
cmdline_parse_token_string_t t_ff_kind = TOKEN_STRING_INITIALIZER(struct res_fault_fail, kind,
								  "fail");
cmdline_parse_token_string_t t_ff_synd = TOKEN_STRING_INITIALIZER(
	struct res_fault_fail, syndrome,
	"local-length#local-qp-op#local-protection#local-access#bad-response#"
	"remote-invalid-request#remote-access#remote-op#retry-exceeded#rnr-retry-exceeded");

void cb_fault(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_fault *)parsed;
	const char *syndrome = strcmp(r->kind, "fail") == 0
				       ? ((struct res_fault_fail *)parsed)->syndrome
				       : NULL;

	shell_sim_fault(r->dev, r->vchan, r->kind, syndrome, r->us);
}

struct shell_inst c_fault_fatal = {
	.f = cb_fault,
	.data = NULL,
	.help_str = "fault <dev> <vchan> qp-fatal",
	.tokens = {TOK(t_fault), TOK(t_fault_dev), TOK(t_fault_vchan), TOK(t_fault_fatal), NULL}};
struct shell_inst c_fault_corrupt = {
	.f = cb_fault,
	.data = NULL,
	.help_str = "fault <dev> <vchan> corrupt-sig: the next signature WQE writes a bad PI",
	.tokens = {TOK(t_fault), TOK(t_fault_dev), TOK(t_fault_vchan), TOK(t_fault_corrupt), NULL}};
struct shell_inst c_fault_overrun = {
	.f = cb_fault,
	.data = NULL,
	.help_str = "fault <dev> <vchan> cq-overrun",
	.tokens = {TOK(t_fault), TOK(t_fault_dev), TOK(t_fault_vchan), TOK(t_fault_overrun), NULL}};
struct shell_inst c_fault_fail = {
	.f = cb_fault,
	.data = NULL,
	.help_str = "fault <dev> <vchan> fail <syndrome>: the next WQE fails with it",
	.tokens = {TOK(t_ff), TOK(t_ff_dev), TOK(t_ff_vchan), TOK(t_ff_kind), TOK(t_ff_synd),
		   NULL}};
struct shell_inst c_fault_delay = {.f = cb_fault,
				   .data = NULL,
				   .help_str = "fault <dev> <vchan> delay <us>",
				   .tokens = {TOK(t_fault), TOK(t_fault_dev), TOK(t_fault_vchan),
					      TOK(t_fault_delay), TOK(t_fault_us), NULL}};

struct res_link {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t sim;
	cmdline_fixed_string_t state;
};

cmdline_parse_token_string_t t_link = TOKEN_STRING_INITIALIZER(struct res_link, cmd, "link");
cmdline_parse_token_string_t t_link_sim = TOKEN_STRING_INITIALIZER(struct res_link, sim, NULL);
cmdline_parse_token_string_t t_link_state = TOKEN_STRING_INITIALIZER(struct res_link, state,
								     "up#down");

void cb_link(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_link *)parsed;

	shell_sim_link(r->sim, strcmp(r->state, "down") == 0);
}

struct shell_inst c_link = {.f = cb_link,
			    .data = NULL,
			    .help_str = "link <sim> up|down",
			    .tokens = {TOK(t_link), TOK(t_link_sim), TOK(t_link_state), NULL}};

/* ---- sleep, watch: the two commands Ctrl-C ends ---- */

volatile sig_atomic_t g_interrupted;

void on_sigint(int)
{
	g_interrupted = 1;
}

/*
 * While a sleep or watch runs, SIGINT ends it (and only it): a handler of its own, and
 * on a terminal ISIG back on (librte_cmdline's prompt turns it off, so that Ctrl-C at
 * the prompt is a key of the line editor, and a Ctrl-C typed meanwhile would wait in
 * the input until the command ends). Everything is put back after.
 */
class interruptible {
public:
	interruptible()
	{
		struct sigaction sa = {};

		g_interrupted = 0;
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_sa_);
		tty_ = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old_t_) == 0;
		if (tty_ && !(old_t_.c_lflag & ISIG)) {
			struct termios t = old_t_;
			t.c_lflag |= ISIG;
			tcsetattr(STDIN_FILENO, TCSANOW, &t);
		}
	}
	~interruptible()
	{
		if (tty_)
			tcsetattr(STDIN_FILENO, TCSANOW, &old_t_);
		sigaction(SIGINT, &old_sa_, NULL);
	}
	/** Wait @p ms; false when Ctrl-C ended the wait (a line printed). */
	bool wait_ms(uint32_t ms)
	{
		uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

		for (uint64_t now; !g_interrupted && (now = rte_get_timer_cycles()) < end;)
			rte_delay_us_sleep((unsigned int)RTE_MIN(
				(end - now) * 1000000 / rte_get_timer_hz() + 1, (uint64_t)20000));
		if (g_interrupted)
			shell_printf("interrupted (Ctrl-C)\n");
		return !g_interrupted;
	}

private:
	struct sigaction old_sa_;
	struct termios old_t_;
	bool tty_;
};

struct res_sleep {
	cmdline_fixed_string_t cmd;
	uint32_t ms;
};

cmdline_parse_token_string_t t_sleep = TOKEN_STRING_INITIALIZER(struct res_sleep, cmd, "sleep");
cmdline_parse_token_num_t t_sleep_ms = TOKEN_NUM_INITIALIZER(struct res_sleep, ms, RTE_UINT32);

void cb_sleep(void *parsed, struct cmdline *, void *)
{
	uint32_t ms = ((struct res_sleep *)parsed)->ms;

	if (ms > 600000) {
		shell_fail("sleep %u ms out of range: 0..600000 ms", ms);
		return;
	}
	interruptible().wait_ms(ms);
}

struct shell_inst c_sleep = {.f = cb_sleep,
			     .data = NULL,
			     .help_str = "sleep <ms>: wait (scripts)",
			     .tokens = {TOK(t_sleep), TOK(t_sleep_ms), NULL}};

/* ---- watch: testpmd's periodic stats ---- */

struct res_watch {
	cmdline_fixed_string_t cmd;
	uint32_t ms;
	uint16_t count;
};

cmdline_parse_token_string_t t_watch = TOKEN_STRING_INITIALIZER(struct res_watch, cmd, "watch");
cmdline_parse_token_num_t t_watch_ms = TOKEN_NUM_INITIALIZER(struct res_watch, ms, RTE_UINT32);
cmdline_parse_token_num_t t_watch_count = TOKEN_NUM_INITIALIZER(struct res_watch, count,
								RTE_UINT16);

void cb_watch(void *parsed, struct cmdline *, void *)
{
	auto *r = (struct res_watch *)parsed;

	if (r->ms < 10 || r->ms > 60000) {
		shell_fail("watch interval %u ms out of range: 10..60000 ms", r->ms);
		return;
	}
	if (r->count == 0 || r->count > 1000) {
		shell_fail("watch count %u out of range: 1..1000 times", r->count);
		return;
	}
	interruptible intr;
	for (uint16_t i = 0; i < r->count; i++) {
		if (!intr.wait_ms(r->ms))
			return;
		shell_printf("--- %u ms\n", (i + 1) * r->ms);
		shell_workload_show(-1);
	}
}

struct shell_inst c_watch = {.f = cb_watch,
			     .data = NULL,
			     .help_str = "watch <ms> <count>: show stats every <ms>, <count> times",
			     .tokens = {TOK(t_watch), TOK(t_watch_ms), TOK(t_watch_count), NULL}};

/* ---- set rate ---- */

struct res_rate {
	cmdline_fixed_string_t cmd;
	cmdline_fixed_string_t what;
	uint32_t kops;
};

cmdline_parse_token_string_t t_rate_set = TOKEN_STRING_INITIALIZER(struct res_rate, cmd, "set");
cmdline_parse_token_string_t t_rate = TOKEN_STRING_INITIALIZER(struct res_rate, what, "rate");
cmdline_parse_token_num_t t_rate_kops = TOKEN_NUM_INITIALIZER(struct res_rate, kops, RTE_UINT32);

void cb_set_rate(void *parsed, struct cmdline *, void *)
{
	uint32_t kops = ((struct res_rate *)parsed)->kops;

	if (kops > 100000) {
		shell_fail("rate %u kops/s out of range: 0..100000 kops/s (0: as fast as it goes)",
			   kops);
		return;
	}
	shell_rate_kops = kops;
	if (kops)
		shell_printf("workloads started from now on: at most %u kops/s each\n", kops);
	else
		shell_printf("workloads started from now on: as fast as they go\n");
}

struct shell_inst c_set_rate = {
	.f = cb_set_rate,
	.data = NULL,
	.help_str = "set rate <kops/s>: rate limit of new workloads (0: none)",
	.tokens = {TOK(t_rate_set), TOK(t_rate), TOK(t_rate_kops), NULL}};

/* ---- load ---- */

cmdline_parse_token_string_t t_load = TOKEN_STRING_INITIALIZER(struct res_arg, cmd, "load");

void cb_load(void *parsed, struct cmdline *cl, void *)
{
	const char *path = ((struct res_arg *)parsed)->arg;
	static int depth;

	if (depth >= 4) {
		shell_fail("load of \"%s\": files load each other too deep", path);
		return;
	}
	depth++;
	shell_run_file(cl, path);
	depth--;
}

struct shell_inst c_load = {.f = cb_load,
			    .data = NULL,
			    .help_str = "load <file>",
			    .tokens = {TOK(t_load), TOK(t_any), NULL}};

} // namespace

/* One command per line. */
/* clang-format off */
cmdline_parse_ctx_t shell_ctx[] = {
	INST(c_help),
	INST(c_help_section),
	INST(c_quit),
	INST(c_show_devices),
	INST(c_show_device),
	INST(c_show_vchan),
	INST(c_show_stats),
	INST(c_show_stats_one),
	INST(c_clear),
	INST(c_attach),
	INST(c_detach),
	INST(c_setup),
	INST(c_dump),
	INST(c_start),
	INST(c_stop),
	INST(c_stop_all),
	INST(c_set_verify),
	INST(c_fault_fatal),
	INST(c_fault_delay),
	INST(c_link),
	INST(c_load),
	INST(c_sleep),
	INST(c_fault_overrun),
	INST(c_fault_fail),
	INST(c_watch),
	INST(c_set_rate),
	INST(c_start_sg),
	INST(c_start_remote),
	INST(c_start_remote_op),
	INST(c_start_pi),
	INST(c_start_pi_bad),
	INST(c_fault_corrupt),
	INST(c_start_respond),
	INST(c_start_reasm),
	INST(c_start_reasm_pcap),
	NULL,
};
/* clang-format on */
