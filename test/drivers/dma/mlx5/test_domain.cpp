/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_domain: DPDK 25.11's inter-process domain on dma_mlx5 (mlx5_dma_domain.cpp;
 * built only against a DPDK that has it). This process creates an access pair group on
 * a machine-wide fabric; a second process (this binary again, --peer) joins it and
 * exposes a window of its memory. Plain rte_dma_copy() on a vchan whose domain names
 * the peer writes into that window and reads out of it; a copy past the window fails
 * alone (INVALID_ADDR). And the refusals: an unknown group, a domain that has not
 * joined, a wrong token, a process of another uid (the fabric admits only ours), bad
 * domain types and handlers, a creator that leaves, a group destroyed with members.
 * Through the public API only, the PMD and the software HCA loaded as plugins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <rte_bus_vdev.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_pmd_dma_mlx5.h>
#include <rte_uuid.h>

#include "cunit_run.h"
#include "spawn_self.h"

namespace {

constexpr const char *kName = "dma_mlx5_dom";
constexpr size_t kWin = 64 * 1024; /* the peer's window */
constexpr uint32_t kLen = 4096;
constexpr int kAnswerFd = 3;

std::vector<std::string> g_eal; /* this process's EAL arguments (the plugins), for peers */
char g_fabric[32];

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void uuid_of(rte_uuid_t u, uint8_t seed)
{
	for (int i = 0; i < 16; i++)
		u[i] = (uint8_t)(seed * 17 + i);
}

const rte_uuid_t &token(void)
{
	static rte_uuid_t t = {0x7a, 0x11, 0x3c, 0x9e, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	return t;
}

/* ---- the peer process: joins, exposes a window, answers commands ---- */

int peer_main(int argc, char **argv)
{
	/* --peer <fabric> <gid> <token seed> <uid or -1> <domain seed> EAL args... */
	FILE *ans = fdopen(kAnswerFd, "w");
	int16_t gid = (int16_t)atoi(argv[3]);
	int tseed = atoi(argv[4]);
	long uid = atol(argv[5]);
	rte_uuid_t dom, tok;
	char prefix[64], vdev[128], line[128];
	std::vector<char *> eal = {argv[0], prefix};

	if (!ans)
		return 1;
	setvbuf(ans, NULL, _IOLBF, 0);
	snprintf(prefix, sizeof(prefix), "--file-prefix=dom%d", (int)getpid());
	for (int i = 7; i < argc; i++)
		eal.push_back(argv[i]);
	if (rte_eal_init((int)eal.size(), eal.data()) < 0) {
		fprintf(ans, "eal %d\n", -1);
		return 1;
	}
	snprintf(vdev, sizeof(vdev), "dev=sim2,sim_exec=thread,sim_fabric=%s", argv[2]);
	int id = rte_vdev_init("dma_mlx5_peer", vdev) ? -1
						      : rte_dma_get_dev_id_by_name("dma_mlx5_peer");
	uuid_of(dom, (uint8_t)atoi(argv[6]));
	memcpy(tok, token(), sizeof(tok));
	tok[15] = (uint8_t)(tok[15] + tseed); /* seed 0: the right token */
	if (uid >= 0 && setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) {
		fprintf(ans, "setuid %d\n", -1);
		return 1;
	}
	int ret = id < 0 ? -ENODEV
			 : rte_dma_access_pair_group_join((int16_t)id, dom, tok, gid, NULL);
	uint8_t *win = (uint8_t *)rte_zmalloc(NULL, kWin, 64);
	if (ret == 0)
		ret = rte_pmd_dma_mlx5_group_expose((int16_t)id, gid, win, kWin,
						    RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ |
							    RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE);
	for (size_t i = 0; win && i < kWin / 2; i++) /* the second half is read back */
		win[kWin / 2 + i] = (uint8_t)(i * 13 + 5);
	fprintf(ans, "joined %d %p\n", ret, (void *)win);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned int off, len, seed;

		if (sscanf(line, "check %u %u %u", &off, &len, &seed) == 3) {
			bool ok = off + len <= kWin;
			for (unsigned int i = 0; ok && i < len; i++)
				ok = win[off + i] == (uint8_t)(seed + i * 7);
			fprintf(ans, "check %d\n", ok ? 0 : -1);
		} else if (strncmp(line, "leave", 5) == 0) {
			fprintf(ans, "leave %d\n",
				rte_dma_access_pair_group_leave((int16_t)id, gid));
		}
	}
	rte_free(win);
	if (id >= 0)
		rte_vdev_uninit("dma_mlx5_peer");
	rte_eal_cleanup();
	return 0;
}

/* ---- this process's side ---- */

struct peer {
	pid_t pid = -1;
	FILE *to = NULL;
	FILE *from = NULL;

	/* start a peer that joins @p gid; its "joined" status, and its window */
	int start(int16_t gid, int token_seed, long uid, int dom_seed, uint64_t *win)
	{
		std::vector<std::string> a = {"",
					      "--peer",
					      g_fabric,
					      std::to_string(gid),
					      std::to_string(token_seed),
					      std::to_string(uid),
					      std::to_string(dom_seed)};
		std::vector<char *> argv;
		char line[128];
		int ret = -1;
		void *w = NULL;

		a.insert(a.end(), g_eal.begin(), g_eal.end());
		for (auto &s : a)
			argv.push_back(&s[0]);
		argv.push_back(NULL);
		if (test_spawn_self(argv.data(), kAnswerFd, &pid, &to, &from) != 0)
			return -1000;
		setvbuf(to, NULL, _IOLBF, 0);
		if (!fgets(line, sizeof(line), from) || sscanf(line, "joined %d %p", &ret, &w) != 2)
			return -1001;
		if (win)
			*win = (uint64_t)(uintptr_t)w;
		return ret;
	}
	int ask(const char *cmd)
	{
		char line[128], word[16];
		int v = -1;

		fprintf(to, "%s\n", cmd);
		if (!fgets(line, sizeof(line), from) || sscanf(line, "%15s %d", word, &v) != 2)
			return -1002;
		return v;
	}
	void stop()
	{
		int st;

		if (to)
			fclose(to);
		if (from)
			fclose(from);
		to = from = NULL;
		if (pid > 0)
			waitpid(pid, &st, 0);
		pid = -1;
	}
	~peer() { stop(); }
};

int g_left; /* MEMBER_LEFT events seen */

void on_event(int16_t, int16_t, rte_uuid_t, enum rte_dma_access_pair_group_event_type ev)
{
	if (ev == RTE_DMA_GROUP_EVENT_MEMBER_LEFT)
		__atomic_fetch_add(&g_left, 1, __ATOMIC_SEQ_CST);
}

int open_dev(void)
{
	char args[128];

	snprintf(args, sizeof(args), "dev=sim1,sim_exec=inline,sim_fabric=%s", g_fabric);
	if (rte_vdev_init(kName, args))
		return -1;
	return rte_dma_get_dev_id_by_name(kName);
}

void close_dev(int id)
{
	rte_dma_stop((int16_t)id);
	rte_vdev_uninit(kName);
}

/* configure vchans with these domains (type, src, dst) and start */
int setup(int id, const std::vector<struct rte_dma_inter_domain_param> &doms)
{
	struct rte_dma_conf conf = {};

	conf.nb_vchans = (uint16_t)doms.size();
	if (rte_dma_configure((int16_t)id, &conf))
		return -1;
	for (uint16_t v = 0; v < doms.size(); v++) {
		struct rte_dma_vchan_conf vc = {};
		vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
		vc.nb_desc = 64;
		vc.domain = doms[v];
		int ret = rte_dma_vchan_setup((int16_t)id, v, &vc);
		if (ret)
			return ret;
	}
	return rte_dma_start((int16_t)id);
}

/* wait for @p n ops of vchan @p v; their statuses */
std::vector<int> wait_ops(int id, uint16_t v, uint16_t n)
{
	std::vector<int> out;
	enum rte_dma_status_code st[64];
	uint16_t last;

	for (uint64_t end = now_ms() + 5000; out.size() < n && now_ms() < end;) {
		uint16_t k = rte_dma_completed_status((int16_t)id, v, 64, &last, st);
		for (uint16_t i = 0; i < k; i++)
			out.push_back(st[i]);
	}
	return out;
}

void test_capability(void)
{
	struct rte_dma_info info;
	int id = open_dev();

	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_dma_info_get((int16_t)id, &info), 0);
	CU_ASSERT_TRUE((info.dev_capa & RTE_DMA_CAPA_INTER_PROCESS_DOMAIN) != 0);
	CU_ASSERT_TRUE((info.dev_capa & RTE_DMA_CAPA_INTER_OS_DOMAIN) == 0);
	close_dev(id);
}

void test_copy_into_peer(void)
{
	rte_uuid_t mine;
	int16_t gid = -1;
	uint16_t h_me, h_peer;
	uint64_t win = 0;
	peer pr;
	int id = open_dev();
	uint8_t *src = (uint8_t *)rte_malloc(NULL, kWin, 64);
	uint8_t *back = (uint8_t *)rte_zmalloc(NULL, kWin, 64);

	CU_ASSERT_FATAL(id >= 0 && src && back);
	uuid_of(mine, 1);
	CU_ASSERT_EQUAL_FATAL(rte_dma_access_pair_group_create((int16_t)id, mine,
							       const_cast<uint8_t *>(token()), &gid,
							       on_event),
			      0);
	CU_ASSERT_EQUAL_FATAL(pr.start(gid, 0, -1, 2, &win), 0);
	rte_uuid_t theirs;
	uuid_of(theirs, 2);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, gid, mine, &h_me), 0);
	CU_ASSERT_EQUAL_FATAL(
		rte_dma_access_pair_group_handler_get((int16_t)id, gid, theirs, &h_peer), 0);
	/* vchan 0 writes into the peer, 1 reads from it, 2 copies locally as ever */
	CU_ASSERT_EQUAL_FATAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_me, h_peer, {}},
					 {RTE_DMA_INTER_PROCESS_DOMAIN, h_peer, h_me, {}},
					 {RTE_DMA_INTER_DOMAIN_NONE, 0, 0, {}}}),
			      0);
	for (uint32_t i = 0; i < kWin / 2; i++)
		src[i] = (uint8_t)(9 + (i % kLen) * 7);
	for (uint32_t c = 0; c < kWin / 2 / kLen; c++)
		CU_ASSERT_TRUE(rte_dma_copy((int16_t)id, 0, (rte_iova_t)(uintptr_t)(src + c * kLen),
					    win + c * kLen, kLen, RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	std::vector<int> st = wait_ops(id, 0, kWin / 2 / kLen);
	CU_ASSERT_EQUAL(st.size(), kWin / 2 / kLen);
	for (int s : st)
		CU_ASSERT_EQUAL(s, RTE_DMA_STATUS_SUCCESSFUL);
	for (uint32_t c = 0; c < kWin / 2 / kLen; c++) {
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "check %u %u 9", c * kLen, kLen);
		CU_ASSERT_EQUAL(pr.ask(cmd), 0);
	}
	/* read the second half back (the peer filled it) */
	CU_ASSERT_TRUE(rte_dma_copy((int16_t)id, 1, win + kWin / 2, (rte_iova_t)(uintptr_t)back,
				    kWin / 2, RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	st = wait_ops(id, 1, 1);
	CU_ASSERT_TRUE(st.size() == 1 && st[0] == RTE_DMA_STATUS_SUCCESSFUL);
	bool same = true;
	for (size_t i = 0; i < kWin / 2; i++)
		same = same && back[i] == (uint8_t)(i * 13 + 5);
	CU_ASSERT_TRUE(same);
	/* past the window: that op fails alone, the next succeeds */
	CU_ASSERT_TRUE(rte_dma_copy((int16_t)id, 0, (rte_iova_t)(uintptr_t)src, win + kWin - 16, 64,
				    0) >= 0);
	CU_ASSERT_TRUE(rte_dma_copy((int16_t)id, 0, (rte_iova_t)(uintptr_t)src, win, 64,
				    RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	uint16_t last = 0;
	bool err = false;
	uint16_t n = 0;
	for (uint64_t end = now_ms() + 3000; !err && now_ms() < end;)
		n += rte_dma_completed((int16_t)id, 0, 8, &last, &err);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_TRUE(err);
	st = wait_ops(id, 0, 2);
	CU_ASSERT_TRUE(st.size() == 2 && st[0] == RTE_DMA_STATUS_INVALID_ADDR &&
		       st[1] == RTE_DMA_STATUS_SUCCESSFUL);
	/* a local vchan beside them */
	CU_ASSERT_TRUE(rte_dma_copy((int16_t)id, 2, (rte_iova_t)(uintptr_t)src,
				    (rte_iova_t)(uintptr_t)back, kLen,
				    RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	st = wait_ops(id, 2, 1);
	CU_ASSERT_TRUE(st.size() == 1 && st[0] == RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_EQUAL(memcmp(src, back, kLen), 0);
	/* a domain vchan's counters and status are its remote channel's */
	struct rte_dma_stats ds;
	enum rte_dma_vchan_status vs;
	CU_ASSERT_EQUAL(rte_dma_stats_get((int16_t)id, 0, &ds), 0);
	CU_ASSERT_TRUE(ds.submitted == kWin / 2 / kLen + 2 && ds.completed == ds.submitted &&
		       ds.errors == 1);
	CU_ASSERT_EQUAL(rte_dma_vchan_status((int16_t)id, 0, &vs), 0);
	CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE);
	/* members joined: not destroyed; the peer leaves: the creator hears it */
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_destroy((int16_t)id, gid), -EBUSY);
	int left = __atomic_load_n(&g_left, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(pr.ask("leave"), 0);
	for (uint64_t end = now_ms() + 3000;
	     __atomic_load_n(&g_left, __ATOMIC_SEQ_CST) == left && now_ms() < end;)
		usleep(1000);
	CU_ASSERT_EQUAL(__atomic_load_n(&g_left, __ATOMIC_SEQ_CST), left + 1);
	/* gone from the group: no handler for it now */
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, gid, theirs, &h_peer),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_destroy((int16_t)id, gid), 0);
	pr.stop();
	close_dev(id);
	rte_free(src);
	rte_free(back);
}

void test_refusals(void)
{
	rte_uuid_t mine, stranger;
	int16_t gid = -1;
	uint16_t h_me, h_peer, h;
	int id = open_dev();

	CU_ASSERT_FATAL(id >= 0);
	uuid_of(mine, 1);
	uuid_of(stranger, 99);
	CU_ASSERT_EQUAL_FATAL(rte_dma_access_pair_group_create((int16_t)id, mine,
							       const_cast<uint8_t *>(token()), &gid,
							       NULL),
			      0);
	/* unknown group */
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_join((int16_t)id, stranger,
						       const_cast<uint8_t *>(token()), 999, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, 777, mine, &h), -EINVAL);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_destroy((int16_t)id, 777), -EINVAL);
	/* a domain that has not joined */
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, gid, stranger, &h),
			-EINVAL);
	/* the creator does not leave its own group */
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_leave((int16_t)id, gid), -EINVAL);
	{ /* a wrong token */
		peer pr;
		CU_ASSERT_EQUAL(pr.start(gid, 1, -1, 3, NULL), -EACCES);
	}
	if (geteuid() == 0) { /* a process of another uid: the fabric admits only ours */
		peer pr;
		CU_ASSERT_EQUAL(pr.start(gid, 0, 65534, 4, NULL), -EACCES);
	} else {
		printf("  (another uid: not run, needs root to start a process of uid 65534)\n");
	}
	/* bad domains: type, handlers */
	peer pr;
	uint64_t win;
	rte_uuid_t theirs;
	uuid_of(theirs, 5);
	CU_ASSERT_EQUAL_FATAL(pr.start(gid, 0, -1, 5, &win), 0);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, gid, mine, &h_me), 0);
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_handler_get((int16_t)id, gid, theirs, &h_peer),
			0);
	struct rte_dma_inter_domain_param bad_type = {};
	bad_type.type = (enum rte_dma_inter_domain_type)7;
	bad_type.src_handler = h_me;
	bad_type.dst_handler = h_peer;
	CU_ASSERT_EQUAL(setup(id, {bad_type}), -EINVAL);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_OS_DOMAIN, h_me, h_peer, {}}}), -EINVAL);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_me, 0, {}}}), -EINVAL);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_me, 4000, {}}}), -EINVAL);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_me, h_me, {}}}), -EINVAL);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_peer, h_peer, {}}}), -ENOTSUP);
	CU_ASSERT_EQUAL(setup(id, {{RTE_DMA_INTER_PROCESS_DOMAIN, h_me, h_peer, {}}}), 0);
	/* a second window of this device to the group */
	static uint8_t buf[64];
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_group_expose((int16_t)id, gid, buf, sizeof(buf),
						      RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ),
			0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_group_expose((int16_t)id, gid, buf, sizeof(buf),
						      RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ),
			-EBUSY);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_group_expose((int16_t)id, 555, buf, sizeof(buf),
						      RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ),
			-EINVAL);
	CU_ASSERT_EQUAL(pr.ask("leave"), 0);
	pr.stop();
	CU_ASSERT_EQUAL(rte_dma_access_pair_group_destroy((int16_t)id, gid), 0);
	close_dev(id);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct cunit_test tests[] = {
		{"RTE_DMA_CAPA_INTER_PROCESS_DOMAIN advertised", test_capability},
		{"rte_dma_copy into and out of a peer process's window", test_copy_into_peer},
		{"refusals: group, member, token, uid, domain type, handlers", test_refusals},
	};
	int ret;

	if (argc >= 7 && strcmp(argv[1], "--peer") == 0)
		return peer_main(argc, argv);
	for (int i = 1; i < argc; i++)
		g_eal.push_back(argv[i]);
	snprintf(g_fabric, sizeof(g_fabric), "domtest%d", (int)getpid());
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	ret = CUNIT_RUN_SUITE("domain", tests);
	rte_eal_cleanup();
	return ret;
}
