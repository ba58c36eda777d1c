/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DC peers named by address (rte_pmd_dma_mlx5_remote_listen(),
 * rte_pmd_dma_mlx5_remote_peer_add_addr()) between two processes of one named
 * fabric, each on either backend:
 *  - "kernel": dev=mlx5_0, the rdma-core backend through the glue library, Debian's
 *    libibverbs/libmlx5 and librdmacm (dlopen()ed by the glue library), the software
 *    HCA's kernel side serving both character devices (run under devtools/sim-rdma);
 *  - "embedded": dev=simN,sim_fabric=<fabric>, the software HCA in the process and
 *    its own connection manager on the fabric's CM sockets.
 * The other process is this binary again (--target): it publishes a DC target and a
 * key at an address, and three fake publishers (raw CM records, hca/cm_wire.h) answer
 * with short, with foreign private data and with another port's LID. Checked: copies
 * to and from the peer found by address, byte for byte on both sides; bad addresses,
 * nobody listening, garbled answers, an answer naming another LID, a foreign request
 * refused by the listener; raw connections that send nothing, or confirm and never
 * disconnect, let go by the listener, unfinished ones capped; the listener's own bad
 * input (a port with LID 0 too); the peer killed: its ops fail, a new lookup fails,
 * nothing hangs.
 *   test_pmd_remote_cm <kernel|embedded (this process)> <kernel|embedded (the peer)> <fabric>
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <initializer_list>
#include <thread>

#include <CUnit/Basic.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "cm_wire.h"
#include "cunit_run.h"
#include "rte_pmd_dma_mlx5.h"
#include "spawn_self.h"
#include "test_dma_mlx5.h"

namespace {

constexpr uint32_t kLen = 64 * 1024; /* the target's exposed memory */
constexpr uint64_t kKey = 0xdc0ffee5eedull;
constexpr uint32_t kChunk = 4096;
constexpr int kTimeoutMs = 30000;
/* the CM timeout of both connection managers in this test (MLX5_SIM_RDMA_CM_TIMEOUT_MS) */
constexpr int kCmTimeoutMs = 3000;
/* connections a listener keeps at most (sim_cm.cpp, mlx5_glue_rdma_cm.cpp) */
constexpr int kMaxConns = 64;

/* the other process */
pid_t target_pid = -1;
FILE *to_target, *from_target;
char target_ip[INET_ADDRSTRLEN];
unsigned int port; /* the PMD listener; +1 short, +2 foreign, +3 another LID's answer */
int16_t dev = -1;
uint16_t target_lid;
const char *fabric;

/* dma_mlx5's devargs for a process on backend @p kind ("kernel" or "embedded") */
const char *devargs(const char *kind, const char *sim)
{
	static char a[96];
	if (strcmp(kind, "kernel") == 0)
		return "dev=mlx5_0";
	snprintf(a, sizeof(a), "dev=%s,sim_fabric=%s", sim, fabric);
	return a;
}

using mlx5sim::cm::Msg;

/* ---- the other process ---- */

/* A listener on the fabric's CM socket answering every request with @p len bytes of @p pd. */
void fake_publisher(uint16_t lid, unsigned int p, const void *pd, uint8_t len)
{
	struct sockaddr_un a;
	socklen_t alen = mlx5sim::cm::sock_addr(fabric, lid, (uint16_t)p, &a);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, alen) || listen(fd, 4)) {
		perror("fake publisher");
		exit(3);
	}
	std::thread([fd, lid, pd, len] {
		int c;
		while ((c = accept(fd, NULL, NULL)) >= 0) {
			Msg m;
			if (recv(c, &m, sizeof(m), 0) == (ssize_t)sizeof(m) &&
			    m.type == mlx5sim::cm::MSG_REQ) {
				Msg r = {};
				r.magic = mlx5sim::cm::kMsgMagic;
				r.type = mlx5sim::cm::MSG_REP;
				r.pd_len = len;
				memcpy(r.pd, pd, len);
				r.qpn = 0x4242;
				r.slid = lid;
				send(c, &r, sizeof(r), MSG_NOSIGNAL);
				while (recv(c, &m, sizeof(m), 0) > 0) /* RTU/REJ/DREQ, then close */
					;
			}
			close(c);
		}
	}).detach();
}

int target_main(const char *kind, const char *port_arg)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=cmt%d", (int)getpid());
	char *eal_argv[] = {(char *)"test_pmd_remote_cm_target",
			    (char *)"--no-huge",
			    (char *)"-m",
			    (char *)"256",
			    (char *)"--no-pci",
			    (char *)"--no-shconf",
			    prefix,
			    NULL};
	FILE *out = fdopen(3, "w");
	unsigned int p = (unsigned int)atoi(port_arg);

	if (!out || rte_eal_init(7, eal_argv) < 0)
		return 2;
	int16_t d = (int16_t)t_probe("dma_mlx5_cmt", devargs(kind, "sim61"));
	uint8_t *buf = (uint8_t *)rte_zmalloc(NULL, kLen, 64);
	struct rte_pmd_dma_mlx5_remote_target tgt;
	struct rte_pmd_dma_mlx5_remote_listener *l = NULL;
	uint32_t rkey;
	char addr[32];

	snprintf(addr, sizeof(addr), "0.0.0.0:%u", p);
	if (d < 0 || !buf || rte_pmd_dma_mlx5_remote_target_create(d, kKey, &tgt) ||
	    rte_pmd_dma_mlx5_remote_rkey(d, buf, kLen, &rkey) ||
	    rte_pmd_dma_mlx5_remote_listen(d, &tgt, rkey, addr, &l))
		return 4;
	/* the answers a peer must refuse: too short, and someone else's 48 bytes */
	static uint8_t short_pd[8] = {'D', 'M', 'X', '5', 0, 1, 0, 0};
	static uint8_t foreign_pd[48];
	memset(foreign_pd, 0x5a, sizeof(foreign_pd));
	fake_publisher(tgt.lid, p + 1, short_pd, sizeof(short_pd));
	fake_publisher(tgt.lid, p + 2, foreign_pd, sizeof(foreign_pd));
	/* a well-formed answer naming a target of another port than the one answering */
	static uint8_t other_lid_pd[48];
	const uint8_t hdr[] = {'D', 'M', 'X', '5', 0, 1};
	const uint16_t other = (uint16_t)(tgt.lid + 1);
	memcpy(other_lid_pd, hdr, sizeof(hdr));
	other_lid_pd[6] = (uint8_t)(other >> 8);
	other_lid_pd[7] = (uint8_t)other;
	for (int i = 0; i < 4; i++) {
		other_lid_pd[8 + i] = (uint8_t)(tgt.dctn >> (24 - 8 * i));
		other_lid_pd[12 + i] = (uint8_t)(rkey >> (24 - 8 * i));
	}
	for (int i = 0; i < 8; i++) {
		other_lid_pd[16 + i] = (uint8_t)(tgt.dc_key >> (56 - 8 * i));
		other_lid_pd[24 + i] = (uint8_t)((uint64_t)(uintptr_t)buf >> (56 - 8 * i));
		other_lid_pd[32 + i] = (uint8_t)((uint64_t)kLen >> (56 - 8 * i));
	}
	fake_publisher(tgt.lid, p + 3, other_lid_pd, sizeof(other_lid_pd));
	fprintf(out, "ready %u %" PRIu64 "\n", tgt.lid, (uint64_t)(uintptr_t)buf);
	fflush(out);

	char line[128];
	unsigned int seed, off, n;
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "check %u %u %u", &seed, &off, &n) == 3 && off <= kLen &&
		    n <= kLen - off) {
			fprintf(out, "%d\n", t_check(buf + off, n, seed) ? 1 : 0);
		} else if (sscanf(line, "fill %u", &seed) == 1) {
			t_fill(buf, kLen, seed);
			fprintf(out, "ok\n");
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			fprintf(out, "?\n");
		}
		fflush(out);
	}
	rte_pmd_dma_mlx5_remote_listen_close(l);
	int ret = rte_pmd_dma_mlx5_remote_rkey_release(d, rkey) ? 5 : 0;
	rte_free(buf);
	return ret;
}

/* ---- this process ---- */

char *target_addr(unsigned int p)
{
	static char a[32];
	snprintf(a, sizeof(a), "%s:%u", target_ip, p);
	return a;
}

bool ask(const char *cmd, const char *want)
{
	char line[64];

	fprintf(to_target, "%s\n", cmd);
	fflush(to_target);
	if (!fgets(line, sizeof(line), from_target))
		return false;
	line[strcspn(line, "\n")] = '\0';
	return strcmp(line, want) == 0;
}

/* Wait for @p n ops; the statuses in @p st. Returns how many were reported. */
uint32_t wait_ops(struct rte_pmd_dma_mlx5_remote *ch, uint32_t n, enum rte_dma_status_code *st)
{
	uint32_t done = 0;
	uint64_t deadline = t_now_ms() + kTimeoutMs;
	uint16_t last;

	while (done < n && t_now_ms() < deadline) {
		uint16_t k = rte_pmd_dma_mlx5_remote_completed(ch, (uint16_t)RTE_MIN(n - done, 64u),
							       &last, st + done);
		done += k;
		if (!k)
			usleep(100);
	}
	return done;
}

/* The peer found by address takes writes and gives reads, byte for byte. */
void test_copy_by_address(void)
{
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 64);
	struct rte_pmd_dma_mlx5_remote_published pub;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	int id = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), &pub);
	CU_ASSERT_EQUAL_FATAL(id, 0);
	CU_ASSERT_EQUAL(pub.len, kLen);
	CU_ASSERT_EQUAL(pub.peer.target.dc_key, kKey);
	CU_ASSERT_NOT_EQUAL(pub.peer.target.lid, 0);

	uint8_t *src = (uint8_t *)rte_malloc(NULL, kLen, 64);
	uint8_t *back = (uint8_t *)rte_zmalloc(NULL, kLen, 64);
	CU_ASSERT_FATAL(src && back);
	t_fill(src, kLen, 31);
	enum rte_dma_status_code st[kLen / kChunk];
	for (uint32_t i = 0; i < kLen / kChunk; i++)
		CU_ASSERT(rte_pmd_dma_mlx5_remote_write(ch, (uint16_t)id, t_iova(src) + i * kChunk,
							pub.addr + i * kChunk, kChunk,
							RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	CU_ASSERT_EQUAL_FATAL(wait_ops(ch, kLen / kChunk, st), kLen / kChunk);
	for (uint32_t i = 0; i < kLen / kChunk; i++)
		CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
	/* the other process sees exactly the bytes written */
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "check 31 0 %u", kLen);
	CU_ASSERT(ask(cmd, "1"));
	/* and its own bytes come back by reads */
	CU_ASSERT(ask("fill 77", "ok"));
	for (uint32_t i = 0; i < kLen / kChunk; i++)
		CU_ASSERT(rte_pmd_dma_mlx5_remote_read(ch, (uint16_t)id, pub.addr + i * kChunk,
						       t_iova(back) + i * kChunk, kChunk,
						       RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	CU_ASSERT_EQUAL_FATAL(wait_ops(ch, kLen / kChunk, st), kLen / kChunk);
	CU_ASSERT(t_check(back, kLen, 77));
	/* a second lookup of the same address is a second peer of the same target */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), NULL), 1);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	rte_free(back);
}

/* Bad addresses, nobody there, garbled answers: refused, nothing added. */
void test_refusals(void)
{
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 32);
	struct rte_pmd_dma_mlx5_remote_published pub;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);

	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(NULL, target_addr(port), &pub),
			-EINVAL);
	for (const char *bad :
	     {"", "garbage", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", ":7000",
	      "127.0.0.1:7x", "1.2.3:7000", "[::1]:7000"})
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, bad, &pub), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, NULL, &pub), -EINVAL);
	/* a port of the peer nobody listens on: the CM's "no listener" reject */
	uint64_t t0 = t_now_ms();
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port + 9), &pub),
			-ECONNREFUSED);
	/* no port of the fabric has that address */
	int ret = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, "10.1.2.3:7000", &pub);
	CU_ASSERT(ret == -ENODEV || ret == -EHOSTUNREACH || ret == -EADDRNOTAVAIL);
	/* answers that are not a target's: too short, someone else's bytes */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port + 1), &pub),
			-EPROTO);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port + 2), &pub),
			-EPROTO);
	CU_ASSERT(t_now_ms() - t0 < 10000); /* refusals are immediate, not timeouts */
	/* nothing was added: the first good one is peer 0 */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), &pub), 0);
	rte_pmd_dma_mlx5_remote_free(ch);
}

/*
 * A well-formed answer whose LID is not the port that answered: refused, as a
 * publisher could otherwise send the requester to another port's target.
 */
void test_answer_of_another_lid(void)
{
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 32);
	struct rte_pmd_dma_mlx5_remote_published pub;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port + 3), &pub),
			-EPROTO);
	/* nothing was added: the first good one is peer 0 */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), &pub), 0);
	rte_pmd_dma_mlx5_remote_free(ch);
}

/* A raw connection to the target's listener (the fabric's CM socket): its fd. */
int raw_connect(void)
{
	struct sockaddr_un a;
	socklen_t alen = mlx5sim::cm::sock_addr(fabric, target_lid, (uint16_t)port, &a);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, alen)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A REQ with @p len bytes of private data @p pd on raw connection @p fd: whether it went. */
bool raw_send_pd(int fd, uint16_t sport, uint32_t qpn, const void *pd, uint8_t len)
{
	Msg m = {};
	m.magic = mlx5sim::cm::kMsgMagic;
	m.type = mlx5sim::cm::MSG_REQ;
	m.pd_len = len;
	memcpy(m.pd, pd, len);
	m.qpn = qpn;
	m.slid = 0x77;
	m.sip = htonl(0x7f000077);
	m.sport = htons(sport);
	m.resp_res = m.init_depth = 1;
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m);
}

/* A dma_mlx5 peer's REQ (tag and version) on raw connection @p fd: whether it went. */
bool raw_send_req(int fd, uint16_t sport)
{
	static const uint8_t req[8] = {'D', 'M', 'X', '5', 0, 1, 0, 0};
	return raw_send_pd(fd, sport, 0x4244, req, sizeof(req));
}

/*
 * Whether the listener lets raw connection @p fd go within @p ms: it closes it, or
 * sends a DREQ (librdmacm's disconnect). Other records are read over.
 */
bool let_go_within(int fd, int ms)
{
	uint64_t end = t_now_ms() + (uint64_t)ms;
	Msg m;

	for (;;) {
		uint64_t now = t_now_ms();
		struct pollfd pfd = {fd, POLLIN, 0};
		if (now >= end || poll(&pfd, 1, (int)(end - now)) != 1)
			return false;
		ssize_t n = recv(fd, &m, sizeof(m), MSG_DONTWAIT);
		if (n <= 0 || (n == (ssize_t)sizeof(m) && m.type == mlx5sim::cm::MSG_DREQ))
			return true;
	}
}

/* A connection that sends nothing is closed at the CM timeout, not kept for good. */
void test_silent_connection_closed(void)
{
	int fd = raw_connect();
	CU_ASSERT_FATAL(fd >= 0);
	uint64_t t0 = t_now_ms();
	CU_ASSERT(let_go_within(fd, kCmTimeoutMs + 5000));
	printf("\n  silent connection let go after %" PRIu64 " ms\n", t_now_ms() - t0);
	close(fd);
}

/*
 * A peer that takes the answer, confirms (RTU) and never disconnects: the listener
 * lets it go (librdmacm: at once, the reply was delivered; embedded: at the CM
 * timeout) instead of keeping it until the peer's DREQ.
 */
void test_established_let_go(void)
{
	int fd = raw_connect();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(raw_send_req(fd, 40001));
	struct pollfd pfd = {fd, POLLIN, 0};
	Msg m;
	CU_ASSERT_EQUAL_FATAL(poll(&pfd, 1, 5000), 1);
	CU_ASSERT_EQUAL_FATAL(recv(fd, &m, sizeof(m), 0), (ssize_t)sizeof(m));
	CU_ASSERT_EQUAL_FATAL(m.type, mlx5sim::cm::MSG_REP);
	Msg rtu = {};
	rtu.magic = mlx5sim::cm::kMsgMagic;
	rtu.type = mlx5sim::cm::MSG_RTU;
	CU_ASSERT_EQUAL(send(fd, &rtu, sizeof(rtu), MSG_NOSIGNAL), (ssize_t)sizeof(rtu));
	uint64_t t0 = t_now_ms();
	CU_ASSERT(let_go_within(fd, kCmTimeoutMs + 5000));
	printf("\n  established connection let go after %" PRIu64 " ms\n", t_now_ms() - t0);
	close(fd);
}

/*
 * Peers that ask and never finish: the listener keeps kMaxConns of them at most and
 * refuses (REJ) or closes the next; once they are gone it answers again.
 */
void test_unfinished_capped(void)
{
	int fds[kMaxConns + 1];
	int n = 0;

	for (; n < kMaxConns; n++) {
		fds[n] = raw_connect();
		if (fds[n] < 0 || !raw_send_req(fds[n], (uint16_t)(41000 + n)))
			break;
		struct pollfd pfd = {fds[n], POLLIN, 0};
		Msg m;
		if (poll(&pfd, 1, 5000) != 1 ||
		    recv(fds[n], &m, sizeof(m), 0) != (ssize_t)sizeof(m) ||
		    m.type != mlx5sim::cm::MSG_REP)
			break;
	}
	CU_ASSERT_EQUAL(n, kMaxConns);
	if (n == kMaxConns) {
		/* one more: embedded closes it at accept, librdmacm rejects its REQ */
		int fd = raw_connect();
		bool refused = fd < 0;
		if (fd >= 0) {
			raw_send_req(fd, 42000);
			struct pollfd pfd = {fd, POLLIN, 0};
			Msg m;
			if (poll(&pfd, 1, 5000) == 1) {
				ssize_t got = recv(fd, &m, sizeof(m), 0);
				refused = got <= 0 || (got == (ssize_t)sizeof(m) &&
						       m.type == mlx5sim::cm::MSG_REJ);
			}
			close(fd);
		}
		CU_ASSERT(refused);
	} else {
		n++; /* fds[n] is open or -1 */
	}
	for (int i = 0; i < n && i <= kMaxConns; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* gone (closed, or at the CM timeout at the latest): answers again */
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	int ret = -1;
	for (uint64_t end = t_now_ms() + kCmTimeoutMs + 5000; ret < 0 && t_now_ms() < end;)
		if ((ret = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), NULL)) < 0)
			usleep(200 * 1000);
	CU_ASSERT_EQUAL(ret, 0);
	rte_pmd_dma_mlx5_remote_free(ch);
}

/* Sends a request without a dma_mlx5 peer's private data to @p lid:@p p; the answer's type. */
int send_foreign_request(uint16_t lid, unsigned int p, uint32_t *reason)
{
	static const char junk[] = "not a dma_mlx5 peer";
	struct sockaddr_un a;
	socklen_t alen = mlx5sim::cm::sock_addr(fabric, lid, (uint16_t)p, &a);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct pollfd pfd = {fd, POLLIN, 0};
	int type = -1;
	Msg m;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, alen) == 0 &&
	    raw_send_pd(fd, 40000, 0x4243, junk, sizeof(junk)) && poll(&pfd, 1, 5000) == 1 &&
	    recv(fd, &m, sizeof(m), 0) == (ssize_t)sizeof(m)) {
		type = m.type;
		*reason = m.reason;
	}
	close(fd);
	return type;
}

/* A request without a dma_mlx5 peer's private data is rejected by the listener. */
void test_listener_refuses_foreign_request(void)
{
	uint32_t reason = 0;

	CU_ASSERT_EQUAL(send_foreign_request(target_lid, port, &reason), mlx5sim::cm::MSG_REJ);
	CU_ASSERT_EQUAL(reason, 28u); /* the consumer's reject */
}

/*
 * What peers make a listener say is rate-limited: a flood of foreign requests, each
 * refused, gives at most 10 lines, and one more counting what was left out.
 */
void test_listener_log_bounded(void)
{
	constexpr int kFlood = 40;
	struct rte_pmd_dma_mlx5_remote_target tgt;
	struct rte_pmd_dma_mlx5_remote_listener *l = NULL;
	uint8_t *buf = (uint8_t *)rte_zmalloc(NULL, kChunk, 64);
	char addr[32], *log = NULL;
	size_t log_len = 0;
	uint32_t rkey, reason;
	int rejected = 0;

	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_target_create(dev, 7, &tgt), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey(dev, buf, kChunk, &rkey), 0);
	snprintf(addr, sizeof(addr), "0.0.0.0:%u", port + 21);
	FILE *f = open_memstream(&log, &log_len);
	CU_ASSERT_FATAL(f != NULL);
	rte_openlog_stream(f);
	int ret = rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, addr, &l);
	for (int i = 0; ret == 0 && i < kFlood; i++)
		rejected += send_foreign_request(tgt.lid, port + 21, &reason) ==
			    mlx5sim::cm::MSG_REJ;
	rte_pmd_dma_mlx5_remote_listen_close(l);
	rte_openlog_stream(NULL);
	fclose(f);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(rejected, kFlood);
	int lines = 0;
	unsigned int suppressed = 0;
	for (char *p = log; p && (p = strstr(p, "remote listener ")) != NULL; p++) {
		const char *more = strstr(p, "more lines suppressed");
		const char *eol = strchr(p, '\n');
		lines++;
		if (more && (!eol || more < eol)) { /* "...: <N> more lines suppressed" */
			const char *n = more - 1;
			while (n > p && n[-1] >= '0' && n[-1] <= '9')
				n--;
			suppressed = (unsigned int)strtoul(n, NULL, 10);
		}
	}
	printf("\n  %d refused requests: %d log lines, %u lines suppressed\n", rejected, lines,
	       suppressed);
	CU_ASSERT_EQUAL(lines, 11);
	CU_ASSERT(suppressed >= (unsigned int)(kFlood - 10));
	free(log);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(dev, rkey), 0);
	rte_free(buf);
}

/* The listener's own bad input, a port taken twice, a key published can't go. */
void test_listen_bad_input(void)
{
	struct rte_pmd_dma_mlx5_remote_target tgt, other;
	struct rte_pmd_dma_mlx5_remote_listener *l = NULL, *l2 = NULL;
	uint8_t *buf = (uint8_t *)rte_zmalloc(NULL, kChunk, 64);
	uint32_t rkey;
	char addr[32];

	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_target_create(dev, 7, &tgt), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey(dev, buf, kChunk, &rkey), 0);
	snprintf(addr, sizeof(addr), "0.0.0.0:%u", port + 20);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(-1, &tgt, rkey, addr, &l), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, NULL, rkey, addr, &l), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, addr, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, "0.0.0.0", &l), -EINVAL);
	other = tgt;
	other.dctn ^= 0x400000; /* no target of this device */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &other, rkey, addr, &l), -ENOENT);
	other = tgt;
	other.dc_key ^= 1;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &other, rkey, addr, &l), -ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey ^ 0x100, addr, &l), -ENOENT);
	/* a port without a LID (RoCE): nothing a peer could reach the target by */
	CU_ASSERT_EQUAL_FATAL(test_hook_port_lid_zero(dev, 1), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, addr, &l), -ENOTSUP);
	CU_ASSERT_EQUAL_FATAL(test_hook_port_lid_zero(dev, 0), 0);
	CU_ASSERT_PTR_NULL(l);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, addr, &l), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_listen(dev, &tgt, rkey, addr, &l2), -EADDRINUSE);
	/* published: the key stays until the listener is closed */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(dev, rkey), -EBUSY);
	/* this process finds its own listener too (its own port, by the any-address) */
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 32);
	struct rte_pmd_dma_mlx5_remote_published pub;
	struct rte_pmd_dma_mlx5_remote_target mine;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	mine = tgt;
	snprintf(addr, sizeof(addr), "127.0.%u.%u:%u", mine.lid >> 8, mine.lid & 0xff, port + 20);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, addr, &pub), 0);
	CU_ASSERT_EQUAL(pub.peer.target.dctn, tgt.dctn);
	CU_ASSERT_EQUAL(pub.peer.rkey, rkey);
	CU_ASSERT_EQUAL(pub.addr, (uint64_t)(uintptr_t)buf);
	CU_ASSERT_EQUAL(pub.len, kChunk);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_pmd_dma_mlx5_remote_listen_close(l);
	rte_pmd_dma_mlx5_remote_listen_close(NULL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(dev, rkey), 0);
	/* closed: the port is free again, and nobody answers there */
	ch = rte_pmd_dma_mlx5_remote_create(dev, 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add_addr(ch, addr, &pub), -ECONNREFUSED);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(buf);
}

/* The peer's process dies: its ops fail, a new lookup is refused, nothing hangs. */
void test_peer_dies(void)
{
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 64);
	struct rte_pmd_dma_mlx5_remote_published pub;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	int id = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), &pub);
	CU_ASSERT_EQUAL_FATAL(id, 0);
	uint8_t *src = (uint8_t *)rte_malloc(NULL, kChunk, 64);
	CU_ASSERT_FATAL(src != NULL);

	kill(target_pid, SIGKILL);
	int wst;
	CU_ASSERT_EQUAL(waitpid(target_pid, &wst, 0), target_pid);
	target_pid = -1;
	uint64_t t0 = t_now_ms();
	enum rte_dma_status_code st[8];
	for (int i = 0; i < 8; i++)
		CU_ASSERT(rte_pmd_dma_mlx5_remote_write(ch, (uint16_t)id, t_iova(src), pub.addr,
							kChunk, RTE_DMA_OP_FLAG_SUBMIT) >= 0);
	CU_ASSERT_EQUAL_FATAL(wait_ops(ch, 8, st), 8u);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_NOT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
	int ret = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, target_addr(port), &pub);
	CU_ASSERT(ret == -ECONNREFUSED || ret == -ETIMEDOUT);
	printf("\n  peer killed: 8 ops failed (first status %d), lookup again: %s, in %" PRIu64
	       " ms\n",
	       (int)st[0], strerror(-ret), t_now_ms() - t0);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
}

const struct cunit_test tests[] = {
	{"copies to a peer named by address", test_copy_by_address},
	{"bad addresses, nobody there, garbled answers", test_refusals},
	{"an answer naming another port's LID", test_answer_of_another_lid},
	{"a foreign request refused by the listener", test_listener_refuses_foreign_request},
	{"a listener's log lines are rate-limited", test_listener_log_bounded},
	{"a connection that sends nothing is closed", test_silent_connection_closed},
	{"an established connection is let go", test_established_let_go},
	{"unfinished connections are capped", test_unfinished_capped},
	{"the listener's bad input, its port, its key", test_listen_bad_input},
	{"the peer's process dies", test_peer_dies},
};

} // namespace

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--target") == 0) {
		fabric = argv[3];
		return target_main(argv[2], argv[4]);
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s <kernel|embedded> <kernel|embedded> <fabric>\n",
			argv[0]);
		return 2;
	}
	const char *self = argv[1];
	fabric = argv[3];
	/* both connection managers (and the other process) give up on a silent peer soon */
	char cm_ms[16];
	snprintf(cm_ms, sizeof(cm_ms), "%d", kCmTimeoutMs);
	setenv("MLX5_SIM_RDMA_CM_TIMEOUT_MS", cm_ms, 0);

	/* a port per run: two runs on one machine never meet */
	port = 20000 + (unsigned int)getpid() % 20000;
	char port_arg[16];
	snprintf(port_arg, sizeof(port_arg), "%u", port);
	char flag[] = "--target";
	char *sargv[] = {nullptr, flag, argv[2], argv[3], port_arg, nullptr};
	if (test_spawn_self(sargv, 3, &target_pid, &to_target, &from_target) != 0) {
		fprintf(stderr, "cannot start the other process\n");
		return 1;
	}
	char line[128];
	unsigned int lid;
	uint64_t addr;
	if (!fgets(line, sizeof(line), from_target) ||
	    sscanf(line, "ready %u %" SCNu64, &lid, &addr) != 2) {
		fprintf(stderr, "the other process did not get ready\n");
		return 1;
	}
	target_lid = (uint16_t)lid;
	snprintf(target_ip, sizeof(target_ip), "127.0.%u.%u", (lid >> 8) & 0xff, lid & 0xff);
	printf("this process: %s; the other process (%s) publishes at %s:%u\n", self, argv[2],
	       target_ip, port);

	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=cmc%d", (int)getpid());
	char *eal_argv[] = {
		(char *)"test_pmd_remote_cm", (char *)"--no-huge",   (char *)"-m", (char *)"256",
		(char *)"--no-pci",           (char *)"--no-shconf", prefix,       NULL};
	if (rte_eal_init(7, eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	dev = (int16_t)t_probe("dma_mlx5_cmc", devargs(self, "sim60"));
	if (dev < 0) {
		fprintf(stderr, "cannot probe dma_mlx5 (%s)\n", devargs(self, "sim60"));
		return 1;
	}
	int ret = CUNIT_RUN_SUITE("remote_cm", tests);
	if (target_pid > 0) {
		fprintf(to_target, "quit\n");
		fflush(to_target);
		int wst;
		waitpid(target_pid, &wst, 0);
	}
	t_remove("dma_mlx5_cmc");
	rte_eal_cleanup();
	return ret;
}
