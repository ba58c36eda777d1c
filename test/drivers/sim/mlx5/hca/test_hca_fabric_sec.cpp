/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Who may use a host of the machine-wide fabric (xfabric.cpp), tried as an
 * attacker would: raw requests on the host's abstract socket from another uid
 * (root only: a forked child drops to an unused uid; skipped otherwise) and
 * from this uid with the wrong source LID / QPN; a LID squatted by another uid;
 * chunks whose range lies outside their message; an RC QP answering a QP it is
 * not connected to in one process; QPNs and keys that differ per instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <set>

#include "cunit_run.h"
#include "fabric_wire.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

constexpr uint32_t kOtherUid = 65534; /* nobody: never the test's own uid as root */
constexpr uint16_t kPeerLid = 700;    /* the RC QP's connected peer, no host of ours */
constexpr uint32_t kPeerQpn = 0x4321;
constexpr uint64_t kDcKey = 0x5eed;
constexpr size_t kLen = 4096;
constexpr char kSecret[] = "PRIVATE-DPDK-BUFFER";

char g_fabric[32];

/** Connect to @p lid of the test's fabric: an fd, or -1. */
int raw_connect(uint16_t lid)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_un a;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "mlx5-sim-fabric/%s/%u", g_fabric,
			 (unsigned)lid);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	if (connect(fd, reinterpret_cast<struct sockaddr *>(&a), len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/** What came back for one request. */
struct Answer {
	int got;   /**< 1: a reply; 0: the connection closed; -1: nothing within 2 s */
	XfRep rep; /**< the reply's header */
	uint8_t data[XF_CHUNK];
};

/** Send @p rq (+ @p data) on @p fd and wait for the answer. Async-signal-safe enough for a child.
 */
void ask(int fd, const XfReq &rq, const void *data, Answer *ans)
{
	static uint8_t msg[sizeof(XfReq) + XF_CHUNK + sizeof(XfRep)];
	size_t dl = rq.opcode == MLX5_OPCODE_RDMA_READ ? 0 : rq.len;
	memcpy(msg, &rq, sizeof(rq));
	if (dl)
		memcpy(msg + sizeof(rq), data, dl);
	ans->got = 0;
	memset(&ans->rep, 0, sizeof(ans->rep));
	if (send(fd, msg, sizeof(rq) + dl, MSG_NOSIGNAL) < 0)
		return;
	struct pollfd p = {fd, POLLIN, 0};
	if (poll(&p, 1, 2000) <= 0) {
		ans->got = -1;
		return;
	}
	ssize_t n = recv(fd, msg, sizeof(msg), 0);
	if (n < (ssize_t)sizeof(XfRep))
		return;
	memcpy(&ans->rep, msg, sizeof(XfRep));
	size_t dlen = (size_t)n - sizeof(XfRep);
	memcpy(ans->data, msg + sizeof(XfRep), dlen < XF_CHUNK ? dlen : XF_CHUNK);
	ans->got = 1;
}

XfReq request(uint8_t op, uint16_t dlid, uint32_t dqpn, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	XfReq rq{};
	rq.magic = XF_MAGIC;
	rq.opcode = op;
	rq.flags = XF_REQ_LAST;
	rq.seq = 1;
	rq.dlid = dlid;
	rq.slid = kPeerLid;
	rq.dqpn = dqpn;
	rq.sqpn = kPeerQpn;
	rq.raddr = raddr;
	rq.rkey = rkey;
	rq.len = len;
	rq.total = len;
	return rq;
}

/** A fabric host with an RC QP in RTS (connected to kPeerLid / kPeerQpn), a DCT and an MR. */
struct Target {
	std::shared_ptr<Hca> hca;
	uint32_t pdn = 0, cqn = 0, srqn = 0, rc = 0, dct = 0, key = 0;
	uint16_t lid = 0;
	uint32_t dbrec[2] = {};
	uint32_t srq_db[1] = {};
	std::unique_ptr<TestCq> cq; /* freed after the device (members outlive ~Target's body) */
	uint8_t *sq = nullptr, *srq_buf = nullptr;
	uint8_t *buf = nullptr;

	explicit Target(const char *name, uint32_t admit_uid = UINT32_MAX)
	{
		HcaCaps caps;
		caps.fabric = true;
		snprintf(caps.fabric_name, sizeof(caps.fabric_name), "%s", g_fabric);
		if (admit_uid != UINT32_MAX) {
			caps.fabric_uids[0] = admit_uid;
			caps.n_fabric_uids = 1;
		}
		hca = Hca::create(name, caps, ExecMode::Inline);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
		lid = hca->caps().lid;
		Hca &h = *hca;
		CU_ASSERT_EQUAL_FATAL(h.alloc_pd(&pdn), 0);
		cq.reset(new TestCq(h, 64));
		cqn = cq->cqn;
		buf = static_cast<uint8_t *>(page_alloc(kLen));
		memset(buf, 0, kLen);
		memcpy(buf, kSecret, sizeof(kSecret));
		CU_ASSERT_EQUAL_FATAL(h.reg_mr(pdn, (uintptr_t)buf, kLen, kAllAccess, &key), 0);
		/* the RC QP: RTS, connected to kPeerQpn at kPeerLid, remote read/write */
		sq = static_cast<uint8_t *>(page_alloc(16 * 64));
		QpConfig qc{};
		qc.type = IBV_QPT_RC;
		qc.pdn = pdn;
		qc.sq_buf = sq;
		qc.sq_wqe_cnt = 16;
		qc.dbrec = dbrec;
		qc.send_cqn = qc.recv_cqn = cqn;
		CU_ASSERT_EQUAL_FATAL(h.create_qp(qc, &rc), 0);
		CU_ASSERT_EQUAL_FATAL(connect_qp(h, rc, kPeerQpn, kAllAccess, 7, 12, kPeerLid), 0);
		/* the DCT: RTR with key kDcKey, remote read/write */
		srq_buf = static_cast<uint8_t *>(page_alloc(16 * 64));
		memset(srq_buf, 0, 16 * 64);
		CU_ASSERT_EQUAL_FATAL(h.create_srq(SrqConfig{pdn, srq_buf, 16, 6, srq_db}, &srqn),
				      0);
		QpConfig dc{};
		dc.type = IBV_QPT_DRIVER;
		dc.dc = DcRole::Dct;
		dc.pdn = pdn;
		dc.dbrec = dbrec + 1;
		dc.send_cqn = dc.recv_cqn = cqn;
		dc.srqn = srqn;
		dc.dct_key = kDcKey;
		CU_ASSERT_EQUAL_FATAL(h.create_qp(dc, &dct), 0);
		CU_ASSERT_EQUAL_FATAL(connect_dct(h, dct, kAllAccess), 0);
	}
	~Target()
	{
		Hca &h = *hca;
		CU_ASSERT_EQUAL(h.destroy_qp(rc), 0);
		CU_ASSERT_EQUAL(h.destroy_qp(dct), 0);
		CU_ASSERT_EQUAL(h.destroy_srq(srqn), 0);
		CU_ASSERT_EQUAL(h.dereg_mr(key), 0);
		hca.reset();
		free(sq);
		free(srq_buf);
		free(buf);
	}
	/*
	 * Take the device lock the listener thread moved the bytes under (any command
	 * takes it), so that reading them here is ordered after its writes (ThreadSanitizer
	 * cannot see the order a peer process's reply gives).
	 */
	void sync() const
	{
		QpInfo info{};
		CU_ASSERT_EQUAL(hca->query_qp(rc, &info), 0);
	}
	bool untouched() const
	{
		sync();
		if (memcmp(buf, kSecret, sizeof(kSecret)) != 0)
			return false;
		for (size_t i = sizeof(kSecret); i < kLen; i++)
			if (buf[i])
				return false;
		return true;
	}
	enum ibv_qp_state state(uint32_t qpn) const
	{
		QpInfo info{};
		CU_ASSERT_EQUAL(hca->query_qp(qpn, &info), 0);
		return info.state;
	}
};

/** Bits of a child's exit status: what it got. */
enum : int {
	kServedRcWrite = 1,
	kServedRcRead = 2,
	kServedDcWrite = 4,
	kNoConnect = 8,
	kNoSetuid = 16,
	kServedDcRead = 32,
};

/** Drop to @p uid (group nogroup too), or false. */
bool drop_to(uint32_t uid)
{
	return setgroups(0, nullptr) == 0 && setgid(65534) == 0 && setuid(uid) == 0 &&
	       geteuid() == uid;
}

/**
 * In a child of uid @p uid: an RC write, an RC read (from the connected peer's
 * LID and QPN) and a DC write and read with the right key to @p t. Its exit
 * status says which were served.
 */
int other_uid_attack(const Target &t, uint32_t uid)
{
	pid_t pid = fork();
	if (pid == 0) {
		static Answer ans;
		static uint8_t junk[64];
		int bits = 0;
		memset(junk, 'X', sizeof(junk));
		if (!drop_to(uid))
			_exit(kNoSetuid);
		int fd = raw_connect(t.lid);
		if (fd < 0)
			_exit(kNoConnect);
		XfReq w = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
		ask(fd, w, junk, &ans);
		if (ans.got == 1 && ans.rep.syndrome == 0)
			bits |= kServedRcWrite;
		close(fd);
		fd = raw_connect(t.lid);
		XfReq r = request(MLX5_OPCODE_RDMA_READ, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
		ask(fd, r, nullptr, &ans);
		if (ans.got == 1 && ans.rep.syndrome == 0 && ans.rep.len == 64)
			bits |= kServedRcRead;
		close(fd);
		fd = raw_connect(t.lid);
		XfReq d = w;
		d.flags |= XF_REQ_DC;
		d.dqpn = t.dct;
		d.dc_key = kDcKey;
		ask(fd, d, junk, &ans);
		if (ans.got == 1 && ans.rep.syndrome == 0)
			bits |= kServedDcWrite;
		close(fd);
		fd = raw_connect(t.lid);
		XfReq dr = r;
		dr.flags |= XF_REQ_DC;
		dr.dqpn = t.dct;
		dr.dc_key = kDcKey;
		ask(fd, dr, nullptr, &ans);
		if (ans.got == 1 && ans.rep.syndrome == 0 && ans.rep.len == 64)
			bits |= kServedDcRead;
		close(fd);
		_exit(bits);
	}
	CU_ASSERT_FATAL(pid > 0);
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_FATAL(WIFEXITED(st));
	return WEXITSTATUS(st);
}

bool skip_unless_root(void)
{
	if (geteuid() == 0)
		return false;
	printf("\n    SKIPPED: not root, no second uid to try (run as root to cover it) ");
	return true;
}

/* another uid: RC and DC requests with valid QPN, rkey and DC key are refused unserved */
void test_other_uid_refused(void)
{
	if (skip_unless_root())
		return;
	Target t("fsec1");
	int bits = other_uid_attack(t, kOtherUid);
	CU_ASSERT_EQUAL(bits & (kNoSetuid | kNoConnect), 0);
	CU_ASSERT_EQUAL(bits & kServedRcWrite, 0);
	CU_ASSERT_EQUAL(bits & kServedRcRead, 0);
	CU_ASSERT_EQUAL(bits & kServedDcWrite, 0);
	CU_ASSERT_EQUAL(bits & kServedDcRead, 0);
	CU_ASSERT_TRUE(t.untouched());
	CU_ASSERT_EQUAL(t.state(t.rc), IBV_QPS_RTS); /* nothing of it was even looked at */
	CU_ASSERT_EQUAL(t.state(t.dct), IBV_QPS_RTR);
}

/* the same uid, admitted by the host's option (sim_fabric_uids): served */
void test_other_uid_admitted(void)
{
	if (skip_unless_root())
		return;
	Target t("fsec2", kOtherUid);
	int bits = other_uid_attack(t, kOtherUid);
	CU_ASSERT_EQUAL(bits & (kNoSetuid | kNoConnect), 0);
	CU_ASSERT_NOT_EQUAL(bits & kServedRcWrite, 0);
	CU_ASSERT_NOT_EQUAL(bits & kServedRcRead, 0);
	CU_ASSERT_NOT_EQUAL(bits & kServedDcWrite, 0);
	CU_ASSERT_NOT_EQUAL(bits & kServedDcRead, 0);
	t.sync();
	CU_ASSERT_EQUAL(t.buf[0], 'X'); /* the writes landed */
}

/*
 * A LID squatted by another uid: our RC QP connected to it sends nothing there
 * (RETRY_EXC); the squatter receives no byte of our message.
 */
void test_squatted_lid(void)
{
	if (skip_unless_root())
		return;
	const uint16_t squat = 0xb00;
	int pfd[2];
	CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (!drop_to(kOtherUid))
			_exit(kNoSetuid);
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		struct sockaddr_un a;
		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "mlx5-sim-fabric/%s/%u",
				 g_fabric, (unsigned)squat);
		socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
		if (bind(fd, reinterpret_cast<struct sockaddr *>(&a), len) || listen(fd, 4))
			_exit(kNoConnect);
		(void)!write(pfd[1], "r", 1); /* listening */
		int got = 0;
		struct pollfd p = {fd, POLLIN, 0};
		/* what a connection brings within 3 s */
		if (poll(&p, 1, 3000) > 0) {
			int c = accept(fd, nullptr, nullptr);
			static uint8_t m[sizeof(XfReq) + XF_CHUNK];
			struct pollfd q = {c, POLLIN, 0};
			if (c >= 0 && poll(&q, 1, 1000) > 0 && recv(c, m, sizeof(m), 0) > 0)
				got = 1;
		}
		_exit(got ? kServedRcWrite : 0);
	}
	close(pfd[1]);
	char r;
	CU_ASSERT_EQUAL_FATAL(read(pfd[0], &r, 1), 1);
	close(pfd[0]);

	Target t("fsec3");
	Hca &h = *t.hca;
	TestCq cq(h, 16);
	TestQp q(h, t.pdn, cq.cqn, cq.cqn, 16);
	/* to QPN 0x100 at the squatted LID, no transport retry */
	CU_ASSERT_EQUAL(connect_qp(h, q.qpn, 0x100, kAllAccess, 7, 12, squat, 0), 0);
	Wqe w(q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(reinterpret_cast<void *>(0x1000), 0x1234);
	w.data(64, t.key, t.buf);
	w.post(q);
	q.ring(h);
	struct mlx5_cqe64 c;
	CU_ASSERT_FATAL(cq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0); /* nothing reached the squatter */
	CU_ASSERT_EQUAL(h.destroy_qp(q.qpn), 0);
}

/*
 * The same uid, but not the RC QP's connected peer: a wrong source LID or QPN,
 * an RC request to a DCT, a DC request to an RC QP are dropped (RETRY_EXC, the
 * QP unaffected); only the peer is served. A LID of the target's own process
 * or a second LID on one connection closes the connection.
 */
void test_rc_peer_only(void)
{
	Target t("fsec4");
	static Answer ans;
	uint8_t junk[64];
	memset(junk, 'Y', sizeof(junk));
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	XfReq w = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
	XfReq rq = w;
	rq.sqpn = kPeerQpn + 1; /* another QP of the peer's host */
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 1);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(ans.rep.len, 0u);
	/* RC to the DCT's number (no key), DC flag to the RC QP */
	rq = w;
	rq.dqpn = t.dct;
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	rq = w;
	rq.flags |= XF_REQ_DC;
	rq.dc_key = kDcKey;
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	CU_ASSERT_TRUE(t.untouched());
	CU_ASSERT_EQUAL(t.state(t.rc), IBV_QPS_RTS);
	/* a read of the connected peer: served (the harness reaches the host) */
	XfReq r = request(MLX5_OPCODE_RDMA_READ, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
	ask(fd, r, nullptr, &ans);
	CU_ASSERT_EQUAL(ans.got, 1);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	CU_ASSERT_EQUAL(ans.rep.len, 64u);
	CU_ASSERT_EQUAL(memcmp(ans.data, kSecret, sizeof(kSecret)), 0);
	/* this connection speaks for kPeerLid now: another LID closes it */
	rq = w;
	rq.slid = kPeerLid + 1;
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 0);
	close(fd);
	/* a wrong source LID on a fresh connection: dropped */
	fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	rq = w;
	rq.slid = kPeerLid + 1;
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 1);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	close(fd);
	/* the target's own LID as source (its QP's loopback peer): the connection closes */
	fd = raw_connect(t.lid);
	rq = w;
	rq.slid = t.lid;
	ask(fd, rq, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 0);
	close(fd);
	CU_ASSERT_TRUE(t.untouched());
	CU_ASSERT_EQUAL(t.state(t.rc), IBV_QPS_RTS);
}

/*
 * A LID shared with fork children (xfabric.cpp, "A shared LID"): a request naming
 * the target's own LID as its source is served only from a process that holds
 * the LID's socket. A fork child that keeps its fds is a member (its DC write
 * lands); one that closed them first is not (the connection closes, nothing
 * lands), though it has the right DCT number and key.
 */
int member_attack(const Target &t, bool keep_fds)
{
	pid_t pid = fork();
	if (pid == 0) {
		static Answer ans;
		static uint8_t junk[64];
		memset(junk, 'M', sizeof(junk));
		if (!keep_fds)
			for (int fd = 3; fd < 1024; fd++)
				close(fd); /* the LID's socket with them: no member */
		int fd = raw_connect(t.lid);
		if (fd < 0)
			_exit(kNoConnect);
		XfReq d = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.dct, (uintptr_t)t.buf, t.key,
				  64);
		d.flags |= XF_REQ_DC;
		d.dc_key = kDcKey;
		d.slid = t.lid; /* speaking for the target's own LID */
		ask(fd, d, junk, &ans);
		_exit(ans.got == 1 && ans.rep.syndrome == 0 ? kServedDcWrite : 0);
	}
	CU_ASSERT_FATAL(pid > 0);
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_FATAL(WIFEXITED(st));
	return WEXITSTATUS(st);
}

void test_shared_lid_members_only(void)
{
	Target t("fsec-member");
	CU_ASSERT_EQUAL(member_attack(t, false), 0);
	CU_ASSERT_TRUE(t.untouched());
	CU_ASSERT_EQUAL(member_attack(t, true), kServedDcWrite);
	t.sync();
	CU_ASSERT_EQUAL(t.buf[0], 'M'); /* the member's write landed */
}

/** A child of pid @p want (clone3's set_tid: root only), or -1. Runs no fork handler. */
pid_t fork_as(pid_t want)
{
	struct clone_args a;
	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	a.set_tid = (uint64_t)(uintptr_t)&want;
	a.set_tid_size = 1;
	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

/*
 * The pid a member check reads is the connector's (SO_PEERCRED), fixed at
 * connect(): a process that is no member connects, hands the connection to its
 * child and exits, and its pid goes to a member of the LID (a fork child of the
 * target, as a server forking per client makes them). The child, still no
 * member, then names the target's LID as its source: refused, nothing lands.
 * Root only (clone3 with set_tid picks the pid the member gets).
 */
void test_shared_lid_pid_reuse(void)
{
	if (skip_unless_root())
		return;
	Target t("fsec-reuse");
	int go[2], res[2];
	CU_ASSERT_FATAL(pipe(go) == 0 && pipe(res) == 0);
	pid_t x = fork();
	if (x == 0) {
		/* no member: nothing of the target's but the pipes */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != go[0] && fd != res[1])
				close(fd);
		int fd = raw_connect(t.lid);
		if (fd < 0)
			_exit(kNoConnect);
		if (fork() == 0) {
			static Answer ans;
			static uint8_t junk[64];
			char c;
			memset(junk, 'P', sizeof(junk));
			if (read(go[0], &c, 1) != 1)
				_exit(0);
			XfReq d = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.dct, (uintptr_t)t.buf,
					  t.key, 64);
			d.flags |= XF_REQ_DC;
			d.dc_key = kDcKey;
			d.slid = t.lid;
			ask(fd, d, junk, &ans);
			c = ans.got == 1 && ans.rep.syndrome == 0 ? 'S' : 'r';
			(void)!write(res[1], &c, 1);
			_exit(0);
		}
		_exit(0);
	}
	CU_ASSERT_FATAL(x > 0);
	int st = 0;
	CU_ASSERT_EQUAL_FATAL(waitpid(x, &st, 0), x);
	CU_ASSERT_EQUAL_FATAL(WEXITSTATUS(st), 0);
	close(go[0]);
	close(res[1]);
	/* the member: a copy of this process with all its fds, the LID's socket too */
	int hold[2];
	CU_ASSERT_FATAL(pipe(hold) == 0);
	pid_t m = fork_as(x);
	if (m == 0) {
		char c;
		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	if (m != x) {
		printf("\n    SKIPPED: pid %d not reusable (%s) ", (int)x, strerror(errno));
		close(hold[1]);
		if (m > 0)
			waitpid(m, &st, 0);
		close(go[1]);
		close(res[0]);
		return;
	}
	char c = 0;
	CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
	struct pollfd p = {res[0], POLLIN, 0};
	CU_ASSERT_EQUAL(poll(&p, 1, 5000), 1);
	CU_ASSERT_EQUAL(read(res[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'r'); /* 'S': served as the member whose pid it got */
	close(hold[1]);
	CU_ASSERT_EQUAL(waitpid(m, &st, 0), m);
	close(go[1]);
	close(res[0]);
	CU_ASSERT_TRUE(t.untouched());
}

/*
 * UD datagrams from another process (XF_REQ_UD): only a UD QP with that Q_Key
 * takes one, into a receive its owner posted, after the 40 bytes of GRH space
 * and never past its end; anything else is dropped, the sender told nothing.
 */
void test_ud_datagrams(void)
{
	Target t("fsec9");
	Hca &h = *t.hca;
	TestCq rcq(h, 16);
	TestQp ud(h, t.pdn, t.cqn, rcq.cqn, 8, 8, 6, 0x55, IBV_QPT_UD);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x77;
	CU_ASSERT_EQUAL_FATAL(
		h.modify_qp(ud.qpn, a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
		0);
	CU_ASSERT_EQUAL_FATAL(set_state(h, ud.qpn, IBV_QPS_RTR), 0);
	Buf dst(256, 0xaa);
	uint32_t dk = 0;
	CU_ASSERT_EQUAL_FATAL(h.reg_mr(t.pdn, (uintptr_t)dst.p(), 256, IBV_ACCESS_LOCAL_WRITE, &dk),
			      0);
	ud.post_recv(h, {dseg(140, dk, dst.p())});
	static Answer ans;
	static uint8_t junk[5000]; /* the longest request below carries 5000 bytes */
	memset(junk, 'U', sizeof(junk));
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	XfReq d = request(MLX5_OPCODE_SEND, t.lid, ud.qpn, 0, 0, 100);
	d.flags |= XF_REQ_UD;
	d.dc_key = 0x77;
	d.rsvd = 4; /* SL */
	/* wrong Q_Key, not a UD request, longer than the MTU, a partial chunk: dropped */
	XfReq bad[4] = {d, d, d, d};
	bad[0].dc_key = 0x78;
	bad[1].flags &= (uint8_t)~XF_REQ_UD;
	bad[2].total = 5000;
	bad[2].len = 5000 > XF_CHUNK ? XF_CHUNK : 5000;
	bad[3].total = 200;
	bad[3].flags &= (uint8_t)~XF_REQ_LAST;
	for (const XfReq &b : bad) {
		ask(fd, b, junk, &ans);
		CU_ASSERT_EQUAL(ans.got, 1);
		CU_ASSERT_EQUAL(ans.rep.len, 0u);
	}
	t.sync();
	CU_ASSERT_EQUAL(rcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[40], 0xaa);
	/* the right one: after the GRH space, the CQE names the sender */
	ask(fd, d, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 1);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	t.sync();
	struct mlx5_cqe64 c = {};
	CU_ASSERT_TRUE_FATAL(rcq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_bytes(c), 140u);
	CU_ASSERT_EQUAL(be32toh(c.flags_rqpn), 4u << 24 | kPeerQpn);
	CU_ASSERT_EQUAL(be16toh(c.slid), kPeerLid);
	CU_ASSERT_EQUAL(dst.p()[39], 0xaa);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 40, junk, 100), 0);
	CU_ASSERT_EQUAL(dst.p()[140], 0xaa);
	/* no receive left: dropped; then one too small: its LOC_LENGTH, nothing written */
	ask(fd, d, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	memset(dst.p(), 0xaa, 256);
	ud.post_recv(h, {dseg(139, dk, dst.p())});
	ask(fd, d, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	t.sync();
	CU_ASSERT_TRUE_FATAL(rcq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CU_ASSERT_EQUAL(rcq.drain(), 0);
	for (int i = 0; i < 256; i++)
		CU_ASSERT_EQUAL(dst.p()[i], 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact());
	CU_ASSERT_EQUAL(t.state(ud.qpn), IBV_QPS_RTR);
	close(fd);
	CU_ASSERT_EQUAL(h.destroy_qp(ud.qpn), 0);
	CU_ASSERT_EQUAL(h.dereg_mr(dk), 0);
	CU_ASSERT_TRUE(t.untouched());
}

/*
 * A UC write of several chunks from another process whose first chunk never
 * arrived (lost on the link, or a peer that sends only the rest): its later
 * chunks are dropped too, as a UC responder drops the packets of a message it
 * did not see begin, and its WRITE_IMM takes no receive. A message that arrives
 * whole after it lands.
 */
void test_uc_missing_first_chunk(void)
{
	Target t("fsec10");
	Hca &h = *t.hca;
	TestCq rcq(h, 16);
	TestQp uc(h, t.pdn, t.cqn, rcq.cqn, 8, 8, 6, 0x56, IBV_QPT_UC);
	CU_ASSERT_EQUAL_FATAL(qp_to_init(h, uc.qpn, kAllAccess), 0);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = kPeerQpn;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = kPeerLid;
	CU_ASSERT_EQUAL_FATAL(h.modify_qp(uc.qpn, a,
					  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN),
			      0);
	uc.post_recv(h, {});
	static Answer ans;
	uint8_t junk[128];
	memset(junk, 'W', sizeof(junk));
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *dst = t.buf + 1024;
	XfReq w = request(MLX5_OPCODE_RDMA_WRITE_IMM, t.lid, uc.qpn, (uintptr_t)dst, t.key, 64);
	w.flags = XF_REQ_UC | XF_REQ_LAST;
	w.total = 128;
	w.off = 64; /* the second and last chunk of 128 bytes; the first never came */
	ask(fd, w, junk, &ans);
	CU_ASSERT_EQUAL(ans.got, 1);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0); /* UC: the sender learns nothing */
	/* the middle of a three-chunk message after its first: dropped, and its last */
	XfReq m = w;
	m.total = 192;
	m.off = 0;
	m.flags = XF_REQ_UC;
	ask(fd, m, junk, &ans); /* first: lands */
	m.off = 128;
	m.flags = XF_REQ_UC | XF_REQ_LAST; /* the middle one was lost */
	ask(fd, m, junk, &ans);
	t.sync();
	CU_ASSERT_EQUAL(rcq.drain(), 0); /* no WRITE_IMM completed */
	CU_ASSERT_EQUAL(dst[64], 0);
	CU_ASSERT_EQUAL(dst[128], 0);
	CU_ASSERT_EQUAL(dst[0], 'W'); /* what a first chunk carried is there (no undo) */
	/* a whole message: both chunks in order, its receive consumed */
	w.off = 0;
	w.flags = XF_REQ_UC;
	ask(fd, w, junk, &ans);
	w.off = 64;
	w.flags = XF_REQ_UC | XF_REQ_LAST;
	ask(fd, w, junk + 64, &ans);
	t.sync();
	struct mlx5_cqe64 c = {};
	CU_ASSERT_TRUE_FATAL(rcq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_WR_IMM);
	CU_ASSERT_EQUAL(cqe_bytes(c), 128u);
	CU_ASSERT_EQUAL(dst[127], 'W');
	close(fd);
	CU_ASSERT_EQUAL(t.state(uc.qpn), IBV_QPS_RTR);
	CU_ASSERT_EQUAL(h.destroy_qp(uc.qpn), 0);
}

/*
 * Seeded random UC and UD chunks from a peer (offsets, lengths, totals, opcodes,
 * keys and addresses near the target's MR, flags): no crash, no sanitizer report,
 * nothing written outside the MR the key names, the QPs keep their state.
 */
void test_random_uc_ud_chunks(void)
{
	Target t("fsec11");
	Hca &h = *t.hca;
	TestCq rcq(h, 256);
	TestQp uc(h, t.pdn, t.cqn, rcq.cqn, 8, 16, 6, 0x57, IBV_QPT_UC);
	TestQp ud(h, t.pdn, t.cqn, rcq.cqn, 8, 16, 6, 0x58, IBV_QPT_UD);
	CU_ASSERT_EQUAL_FATAL(qp_to_init(h, uc.qpn, kAllAccess), 0);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = kPeerQpn;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = kPeerLid;
	CU_ASSERT_EQUAL_FATAL(h.modify_qp(uc.qpn, a,
					  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN),
			      0);
	a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x77;
	CU_ASSERT_EQUAL_FATAL(
		h.modify_qp(ud.qpn, a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
		0);
	CU_ASSERT_EQUAL_FATAL(set_state(h, ud.qpn, IBV_QPS_RTR), 0);
	Buf dst(512, 0xaa);
	uint32_t dk = 0;
	CU_ASSERT_EQUAL_FATAL(h.reg_mr(t.pdn, (uintptr_t)dst.p(), 512, IBV_ACCESS_LOCAL_WRITE, &dk),
			      0);
	static Answer ans;
	static uint8_t junk[8192];
	memset(junk, 'R', sizeof(junk));
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	static const uint8_t ops[] = {MLX5_OPCODE_SEND,       MLX5_OPCODE_SEND_IMM,
				      MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM,
				      MLX5_OPCODE_RDMA_READ,  MLX5_OPCODE_ATOMIC_FA};
	uint64_t x = 0x5eedf00d;
	auto rnd = [&x]() {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	int served = 0, cqes = 0;
	for (int i = 0; i < 3000; i++) {
		if (i % 8 == 0) { /* receives to take, some too short for the GRH */
			uc.post_recv(h, {dseg((uint32_t)(rnd() % 300), dk, dst.p() + rnd() % 200)});
			ud.post_recv(h, {dseg((uint32_t)(rnd() % 300), dk, dst.p() + rnd() % 200)});
		}
		bool is_ud = rnd() & 1;
		uint32_t len = (uint32_t)(rnd() % 6000);
		XfReq r = request(ops[rnd() % sizeof(ops)], t.lid, is_ud ? ud.qpn : uc.qpn,
				  (uintptr_t)t.buf + (int64_t)(rnd() % 8192) - 2048,
				  rnd() % 4 ? t.key : (uint32_t)rnd(), len);
		r.flags = (uint8_t)((is_ud ? XF_REQ_UD : XF_REQ_UC) | (rnd() & 7));
		r.dc_key = rnd() % 4 ? 0x77 : rnd();
		r.rsvd = (uint8_t)rnd();
		r.total = len + (rnd() % 3 ? 0 : rnd() % 8192);
		r.off = rnd() % 2 ? 0 : rnd() % (r.total + 1);
		r.sqpn = rnd() % 4 ? kPeerQpn : (uint32_t)rnd();
		ask(fd, r, junk, &ans);
		if (ans.got == 0) { /* a request the connection may not carry: a new one */
			close(fd);
			fd = raw_connect(t.lid);
			CU_ASSERT_FATAL(fd >= 0);
		}
		served += ans.got == 1;
		cqes += rcq.drain();
	}
	printf("\n    %d of 3000 answered, %d receive CQEs ", served, cqes);
	t.sync();
	CU_ASSERT(served > 0);
	CU_ASSERT_TRUE(dst.guards_intact());
	/* the key covers t.buf's 4096 bytes only: everything written lies in it */
	CU_ASSERT_EQUAL(t.state(uc.qpn), IBV_QPS_RTR);
	CU_ASSERT_EQUAL(t.state(ud.qpn), IBV_QPS_RTR);
	close(fd);
	CU_ASSERT_EQUAL(h.destroy_qp(uc.qpn), 0);
	CU_ASSERT_EQUAL(h.destroy_qp(ud.qpn), 0);
	CU_ASSERT_EQUAL(h.dereg_mr(dk), 0);
}

/*
 * Chunks outside their message: an offset at or past the total, a chunk that
 * runs past it, one longer than a message carries, an empty chunk of a
 * non-empty message: REM_INV_REQ with no data, never bytes of an earlier reply.
 */
void test_chunk_range(void)
{
	Target t("fsec5");
	static Answer ans;
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	/* a good read first: the reply buffer holds the secret now */
	XfReq r = request(MLX5_OPCODE_RDMA_READ, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
	ask(fd, r, nullptr, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	CU_ASSERT_EQUAL(ans.rep.len, 64u);
	struct Case {
		uint64_t total, off;
		uint32_t len;
		bool last;
	} cases[] = {
		{64, 64, 64, true},              /* offset == total */
		{64, 1000, 64, true},            /* offset past total */
		{64, 32, 64, true},              /* runs past the end */
		{64, 0, 0, true},                /* empty chunk of 64 bytes */
		{64, 0, 64, false},              /* the last chunk not marked last */
		{64, 0, XF_CHUNK + 1, true},     /* longer than a message carries */
		{1ull << 40, 0, 64, false},      /* a message longer than 2 GiB */
		{64, UINT64_MAX - 10, 64, true}, /* offset + len wraps */
	};
	for (const Case &c : cases) {
		XfReq b = r;
		b.total = c.total;
		b.off = c.off;
		b.len = c.len;
		b.flags = c.last ? XF_REQ_LAST : 0;
		memset(ans.data, 0, 64);
		ask(fd, b, nullptr, &ans);
		CU_ASSERT_EQUAL(ans.got, 1);
		CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		CU_ASSERT_EQUAL(ans.rep.len, 0u);
		CU_ASSERT_NOT_EQUAL(memcmp(ans.data, kSecret, sizeof(kSecret)), 0);
	}
	/* writes of the same shapes land nothing */
	uint8_t junk[64];
	memset(junk, 'Z', sizeof(junk));
	XfReq w = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.rc, (uintptr_t)t.buf, t.key, 64);
	w.off = 64;
	ask(fd, w, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	w.off = 0;
	w.total = 32;
	ask(fd, w, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	CU_ASSERT_TRUE(t.untouched());
	/* an atomic chunk carries no data and is 8 bytes */
	XfReq at = request(MLX5_OPCODE_ATOMIC_FA, t.lid, t.rc, (uintptr_t)t.buf + 64, t.key, 0);
	at.total = 16;
	ask(fd, at, nullptr, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	CU_ASSERT_TRUE(t.untouched());
	close(fd);
}

/*
 * Memory unmapped while a key still covers it (ASSUMPTIONS.md 31): a peer's write or
 * read of it fails with REMOTE_ACCESS_ERR and does not crash the target process.
 */
void test_unmapped_under_key(void)
{
	Target t("fsec8");
	static Answer ans;
	const size_t page = 4096;
	uint8_t *m = static_cast<uint8_t *>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_FATAL(m != MAP_FAILED);
	uint32_t key = 0;
	CU_ASSERT_EQUAL_FATAL(t.hca->reg_mr(t.pdn, (uintptr_t)m, 2 * page, kAllAccess, &key), 0);
	CU_ASSERT_EQUAL_FATAL(munmap(m + page, page), 0); /* the user's bug: key still live */
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t junk[64];
	memset(junk, 'Z', sizeof(junk));
	for (int read = 0; read < 2; read++) {
		XfReq r = request(read ? MLX5_OPCODE_RDMA_READ : MLX5_OPCODE_RDMA_WRITE, t.lid,
				  t.dct, (uintptr_t)(m + page), key, 64);
		r.flags |= XF_REQ_DC;
		r.dc_key = kDcKey;
		ask(fd, r, junk, &ans);
		CU_ASSERT_EQUAL(ans.got, 1);
		CU_ASSERT_EQUAL(ans.rep.syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		CU_ASSERT_EQUAL(ans.rep.len, 0u);
	}
	/* the mapped page still works through the same key */
	XfReq w = request(MLX5_OPCODE_RDMA_WRITE, t.lid, t.dct, (uintptr_t)m, key, 64);
	w.flags |= XF_REQ_DC;
	w.dc_key = kDcKey;
	ask(fd, w, junk, &ans);
	CU_ASSERT_EQUAL(ans.rep.syndrome, 0);
	t.sync();
	CU_ASSERT_EQUAL(memcmp(m, junk, sizeof(junk)), 0);
	close(fd);
	CU_ASSERT_EQUAL(t.hca->dereg_mr(key), 0);
	munmap(m, page);
}

/* in one process: an RC QP answers only the QP it is connected to */
void test_rc_peer_in_process(void)
{
	Env env;
	Hca &h = env.h();
	TestCq cq(h, 64);
	TestQp a(h, env.pdn, cq.cqn, cq.cqn, 16), b(h, env.pdn, cq.cqn, cq.cqn, 16),
		c(h, env.pdn, cq.cqn, cq.cqn, 16);
	Buf src(64, 0x11), dst(64, 0x22);
	uint32_t sk = reg(h, env.pdn, src.p(), 64, kAllAccess);
	uint32_t dk = reg(h, env.pdn, dst.p(), 64, kAllAccess);
	/* a -> b, but b is connected to c */
	CU_ASSERT_EQUAL(connect_qp(h, a.qpn, b.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL(connect_qp(h, b.qpn, c.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL(connect_qp(h, c.qpn, b.qpn, kAllAccess), 0);
	Wqe w(a, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(dst.p(), dk);
	w.data(64, sk, src.p());
	w.post(a);
	a.ring(h);
	struct mlx5_cqe64 e;
	CU_ASSERT_FATAL(cq.poll(&e));
	CU_ASSERT_EQUAL(cqe_opcode(e), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(e), MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(dst.p()[0], 0x22);
	CU_ASSERT_EQUAL(qp_state(h, b.qpn), IBV_QPS_RTS); /* b is unaffected */
	/* c, b's peer, is served */
	Wqe w2(c, MLX5_OPCODE_RDMA_WRITE);
	w2.raddr(dst.p(), dk);
	w2.data(64, sk, src.p());
	w2.post(c);
	c.ring(h);
	CU_ASSERT_FATAL(cq.poll(&e));
	CU_ASSERT_EQUAL(cqe_opcode(e), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(dst.p()[0], 0x11);
	for (uint32_t q : {a.qpn, b.qpn, c.qpn})
		CU_ASSERT_EQUAL(h.destroy_qp(q), 0);
}

/*
 * QPNs and keys differ from instance to instance (getrandom), keeping the key
 * layout: index << 8 | variant, variant never 0, a re-used index another variant.
 */
void test_ids_not_predictable(void)
{
	std::set<uint32_t> keys, qpns;
	const int n = 8;
	for (int i = 0; i < n; i++) {
		Env env;
		Hca &h = env.h();
		TestCq cq(h, 16);
		TestQp q(h, env.pdn, cq.cqn, cq.cqn, 16);
		Buf b(64);
		uint32_t k = reg(h, env.pdn, b.p(), 64, kAllAccess);
		CU_ASSERT_EQUAL(k >> 8, 1u); /* the first index */
		CU_ASSERT_NOT_EQUAL(k & 0xff, 0u);
		CU_ASSERT_EQUAL(h.dereg_mr(k), 0);
		uint32_t k2 = reg(h, env.pdn, b.p(), 64, kAllAccess);
		CU_ASSERT_EQUAL(k2 >> 8, 1u);
		CU_ASSERT_NOT_EQUAL(k2, k);
		CU_ASSERT_NOT_EQUAL(k2 & 0xff, 0u);
		CU_ASSERT_EQUAL(h.dereg_mr(k2), 0);
		CU_ASSERT(q.qpn >= 0x100 && q.qpn < 0x100 + h.caps().max_qp);
		keys.insert(k);
		qpns.insert(q.qpn);
		CU_ASSERT_EQUAL(h.destroy_qp(q.qpn), 0);
	}
	/* all the same by chance: about 255^-7 for keys, 4096^-7 for QPNs */
	CU_ASSERT(keys.size() > 1);
	CU_ASSERT(qpns.size() > 1);
	printf("\n    %zu different first keys, %zu different first QPNs of %d instances ",
	       keys.size(), qpns.size(), n);
}

/*
 * A message's reply (its ACK) leaves before the responder's CQE can be seen
 * (serve_one): a program that exits as soon as its last receive completes must
 * not leave that message unacknowledged, or its peer's send ends in RETRY_EXC
 * (ibv_srq_pingpong's server did, now and then). Each time the CQE shows up,
 * the reply must already be in the requester's socket.
 */
void test_reply_before_cqe(void)
{
	Target t("fsec5");
	const uint32_t n = 1000;
	/* the SRQ's receives: a ring of 16 linked WQEs, 64 bytes each into buf + 1 KiB */
	for (uint32_t i = 0; i < 16; i++) {
		uint8_t *w = t.srq_buf + (size_t)i * 64;
		mlx5_hw_st_be16(w + 2, (uint16_t)((i + 1) & 15));
		mlx5_hw_st_be32(w + 16, 64);
		mlx5_hw_st_be32(w + 20, t.key);
		mlx5_hw_st_be64(w + 24, (uintptr_t)(t.buf + 1024 + (i & 15) * 64));
		mlx5_hw_st_be32(w + 36, MLX5_INVALID_LKEY); /* the list's end */
	}
	int fd = raw_connect(t.lid);
	CU_ASSERT_FATAL(fd >= 0);
	static uint8_t msg[sizeof(XfReq) + 64];
	XfReq s = request(MLX5_OPCODE_SEND, t.lid, t.dct, 0, 0, 64);
	s.flags |= XF_REQ_DC;
	s.dc_key = kDcKey;
	uint32_t early = 0, done = 0;
	for (uint32_t i = 0; i < n; i++) {
		__atomic_store_n(&t.srq_db[0], htobe32(i + 1), __ATOMIC_RELEASE);
		s.seq = i + 1;
		memcpy(msg, &s, sizeof(s));
		memset(msg + sizeof(s), (int)i, 64);
		if (send(fd, msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg))
			break;
		struct mlx5_cqe64 c;
		uint64_t spins = 0;
		while (!t.cq->poll(&c) && ++spins < (1ull << 32))
			;
		if (spins >= (1ull << 32))
			break;
		XfRep rep;
		if (recv(fd, &rep, sizeof(rep), MSG_DONTWAIT | MSG_PEEK) != (ssize_t)sizeof(rep))
			early++;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 2000) != 1 ||
		    recv(fd, &rep, sizeof(rep), 0) != (ssize_t)sizeof(rep))
			break;
		if (rep.syndrome != 0 || cqe_opcode(c) != MLX5_CQE_RESP_SEND) {
			printf("\n    message %u: reply syndrome 0x%x, CQE opcode 0x%x syndrome "
			       "0x%x ",
			       i, rep.syndrome, cqe_opcode(c), cqe_syndrome(c));
			break;
		}
		done++;
	}
	close(fd);
	CU_ASSERT_EQUAL(done, n);
	CU_ASSERT_EQUAL(early, 0u);
	printf("\n    %u messages, %u CQEs seen before their reply ", done, early);
}

/*
 * An RC request to a LID nobody holds (a peer process that exited) is lost like
 * a packet: RETRY_EXC after the QP's retries, 250 ms x (1 + retry_cnt) here, not
 * at once. A program whose peer exits with messages in flight (ibv_srq_pingpong's
 * surplus sends) has left its loop by then, as with a device.
 */
void test_gone_host_waits_retries(void)
{
	Target t("fsec6");
	Hca &h = *t.hca;
	TestCq cq(h, 16);
	TestQp q(h, t.pdn, cq.cqn, cq.cqn, 16);
	/* to QPN 0x100 at LID 0xb07, which nobody holds; one transport retry */
	CU_ASSERT_EQUAL(connect_qp(h, q.qpn, 0x100, kAllAccess, 7, 12, 0xb07, 1), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	Wqe w(q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(reinterpret_cast<void *>(0x1000), 0x1234);
	w.data(64, t.key, t.buf);
	w.post(q);
	q.ring(h);
	struct mlx5_cqe64 c;
	CU_ASSERT_FATAL(cq.poll(&c));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	CU_ASSERT(ms >= 480);
	printf("\n    RETRY_EXC after %ld ms (retry_cnt 1) ", ms);
	CU_ASSERT_EQUAL(h.destroy_qp(q.qpn), 0);
}

} // namespace

int main(void)
{
	snprintf(g_fabric, sizeof(g_fabric), "fsec%d", (int)getpid());
	static const struct cunit_test tests[] = {
		{"another uid is refused", test_other_uid_refused},
		{"another uid admitted by the option", test_other_uid_admitted},
		{"a LID squatted by another uid", test_squatted_lid},
		{"RC answers its connected peer only", test_rc_peer_only},
		{"a shared LID speaks for its members only", test_shared_lid_members_only},
		{"a member's reused pid speaks for no one else", test_shared_lid_pid_reuse},
		{"chunk ranges inside their message", test_chunk_range},
		{"the reply leaves before the responder's CQE", test_reply_before_cqe},
		{"a LID nobody holds: RETRY_EXC after the retries", test_gone_host_waits_retries},
		{"UD datagrams: Q_Key, drops, GRH space, too long", test_ud_datagrams},
		{"UC write whose first chunk is missing: lost", test_uc_missing_first_chunk},
		{"seeded random UC and UD chunks", test_random_uc_ud_chunks},
		{"RC peer in one process", test_rc_peer_in_process},
		{"QPNs and keys not predictable", test_ids_not_predictable},
		{"memory unmapped under a live key", test_unmapped_under_key},
	};
	return CUNIT_RUN_SUITE("hca_fabric_sec", tests);
}
