/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5-dma-shell driven as a user drives it: through a pseudo-terminal (prompt, tab
 * completion, history, help, a session with workloads on two devices, a fault and
 * the recovery in the stats, quit) and in batch mode (a script, its exit status, one
 * error line for each bad command of every kind). The binary's path is argv[1].
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cunit_run.h"

namespace {

const char *g_shell;
const char *g_pcapgen; /* reasm-pcapgen: the pcap of the reassembly test */
constexpr int kWaitMs = 20000;

/** The EAL arguments: two software HCAs (thread and inline), two worker lcores. */
std::vector<std::string> eal_args(const char *prefix)
{
	return {"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		std::string("--file-prefix=") + prefix,
		"--lcores=0,1@(0-1),2@(0-1)",
		"--log-level=pmd.dma.mlx5:warning",
		"--vdev",
		"dma_mlx5_a,dev=sim70,sim_exec=thread",
		"--vdev",
		"dma_mlx5_b,dev=sim71,sim_exec=inline"};
}

std::vector<char *> argv_of(std::vector<std::string> &v)
{
	std::vector<char *> a;
	a.push_back(const_cast<char *>(g_shell));
	for (std::string &s : v)
		a.push_back(&s[0]);
	a.push_back(nullptr);
	return a;
}

uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/** The shell on a pseudo-terminal: what it printed so far, and what is sent to it. */
struct Pty {
	pid_t pid = -1;
	int fd = -1;
	std::string out; /**< everything read */
	size_t seen = 0; /**< out[0, seen) was matched already */

	bool start(std::vector<std::string> args)
	{
		std::vector<char *> argv = argv_of(args);
		pid = forkpty(&fd, nullptr, nullptr, nullptr);
		if (pid == 0) {
			execv(g_shell, argv.data());
			_exit(127);
		}
		return pid > 0;
	}

	void send(const std::string &s)
	{
		CU_ASSERT_EQUAL((size_t)write(fd, s.data(), s.size()), s.size());
	}

	/** Read until @p what appears after what was matched before; false on timeout. */
	bool expect(const std::string &what, int ms = kWaitMs)
	{
		uint64_t deadline = now_ms() + (uint64_t)ms;
		for (;;) {
			size_t at = out.find(what, seen);
			if (at != std::string::npos) {
				seen = at + what.size();
				return true;
			}
			int64_t left = (int64_t)(deadline - now_ms());
			if (left <= 0)
				break;
			struct pollfd p = {fd, POLLIN, 0};
			if (poll(&p, 1, (int)left) <= 0)
				continue;
			char buf[4096];
			ssize_t n = read(fd, buf, sizeof(buf));
			if (n <= 0)
				break; /* the shell is gone */
			out.append(buf, (size_t)n);
		}
		printf("\n    expected \"%s\"; the shell printed: [%s] ", what.c_str(),
		       out.substr(seen).c_str());
		return false;
	}

	/** Wait for its exit: the status, or -1 after @p ms. */
	int wait_exit(int ms = kWaitMs)
	{
		uint64_t deadline = now_ms() + (uint64_t)ms;
		int st;
		while (now_ms() < deadline) {
			char buf[4096];
			struct pollfd p = {fd, POLLIN, 0};
			if (poll(&p, 1, 50) > 0 && read(fd, buf, sizeof(buf)) > 0)
				continue;
			if (waitpid(pid, &st, WNOHANG) == pid) {
				pid = -1;
				close(fd);
				return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
			}
		}
		return -1;
	}

	~Pty()
	{
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
		if (fd >= 0)
			close(fd);
	}
};

const char kPrompt[] = "mlx5-dma> ";

/** What @p out says from @p what on, up to the next prompt ("" when absent). */
std::string block(const std::string &out, const std::string &what)
{
	size_t at = out.find(what);
	if (at == std::string::npos)
		return "";
	size_t end = out.find(kPrompt, at);
	return out.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

bool has(const std::string &s, const char *what)
{
	return s.find(what) != std::string::npos;
}

/*
 * A PI workload with bad blocks (its final stats @p b): some ops failed, every failure
 * a PI error where the bad block was (none corrupt), and no cross-check failed.
 */
bool pi_bad_blocks_caught(const std::string &b)
{
	size_t f = b.find("failed ");
	unsigned long failed = f == std::string::npos ? 0 : strtoul(&b[f + 7], NULL, 10);
	char want[64];

	snprintf(want, sizeof(want), "failed %lu (PI %lu), corrupt 0", failed, failed);
	return failed > 0 && has(b, want) && has(b, " run, 0 failed");
}

/* Prompt, help, tab completion (a word and its choices), history, unknown commands. */
void test_interactive_basics(void)
{
	Pty p;
	auto args = eal_args("shell_basic");
	CU_ASSERT_FATAL(p.start(args));
	CU_ASSERT_FATAL(p.expect(kPrompt));
	/* "hel" + TAB completes the word; Enter runs it */
	p.send("hel\t");
	CU_ASSERT(p.expect("help"));
	p.send("\r");
	CU_ASSERT(p.expect("help workloads"));
	CU_ASSERT(p.expect(kPrompt));
	p.send("help workloads\r");
	CU_ASSERT(p.expect("start copy|fill <dev> <vchan> <size> <burst> <lcore>"));
	CU_ASSERT(p.expect(kPrompt));
	/* "show dev" + TAB twice completes the common part and lists both choices */
	p.send("show dev\t\t");
	CU_ASSERT(p.expect("show devices"));
	CU_ASSERT(p.expect("show device <dev>"));
	CU_ASSERT(p.expect("show device"));
	p.send("s\r"); /* the line reads "show device": one more letter */
	CU_ASSERT(p.expect("dmadev 0: dma_mlx5_a"));
	CU_ASSERT(p.expect("dmadev 1: dma_mlx5_b"));
	CU_ASSERT(p.expect(kPrompt));
	/* up-arrow brings the last command back */
	p.send("\x1b[A\r");
	CU_ASSERT(p.expect("dmadev 0: dma_mlx5_a"));
	CU_ASSERT(p.expect(kPrompt));
	p.send("frobnicate 3\r");
	CU_ASSERT(p.expect("Command not found"));
	p.send("setup 0 0 1024\r");
	CU_ASSERT(p.expect("error: vchans 0 out of range: device 0 takes 1.."));
	p.send("quit\r");
	CU_ASSERT_EQUAL(p.wait_exit(), 0);
}

/*
 * A session: two devices set up, a copy workload on one and a fill on the other,
 * on two lcores; the stats move; a QP fatal error on the copy vchan is recovered
 * (no op failed, the recovery counted); a failed WQE is one op's INVALID_ADDR; an
 * overrun CQ is replaced; periodic stats; stop; quit with status 0.
 */
void test_interactive_session(void)
{
	Pty p;
	auto args = eal_args("shell_session");
	CU_ASSERT_FATAL(p.start(args));
	CU_ASSERT_FATAL(p.expect(kPrompt));
	auto run = [&](const char *cmd, const char *want) {
		p.send(std::string(cmd) + "\r");
		CU_ASSERT(p.expect(want));
		CU_ASSERT(p.expect(kPrompt));
	};
	run("setup 0 1 512", "device 0: 1 vchans of 512 descriptors, started");
	run("setup 1 1 512", "device 1: 1 vchans of 512 descriptors, started");
	run("start copy 0 0 4096 16 1", "workload 0: copy of 4096 B on device 0 vchan 0, lcore 1");
	run("start fill 1 0 1000 8 2", "workload 1: fill of 1000 B on device 1 vchan 0, lcore 2");
	run("start copy 0 0 64 8 2",
	    "error: lcore 2 is not a free worker lcore: workload 1 runs on it");
	run("sleep 300", "");
	run("show stats", "workload 1: fill of 1000 B");
	run("fault 0 0 qp-fatal", "fault qp-fatal injected into device 0 vchan 0");
	run("sleep 300", "");
	run("show vchan 0 0", "1 recoveries");
	/* the next WQE fails: one op reported INVALID_ADDR, the workload goes on */
	run("fault 0 0 fail remote-access", "fault fail injected into device 0 vchan 0");
	run("sleep 300", "");
	run("show stats 0", "failed 1 (INVALID_ADDR 1), corrupt 0");
	run("show vchan 0 0", "last error: op");
	/* lost CQEs: the driver gives the vchan a new CQ and QP */
	run("fault 0 0 cq-overrun", "fault cq-overrun injected");
	run("sleep 1500", "");
	run("show vchan 0 0", "3 recoveries");
	run("watch 100 2", "--- 200 ms");
	p.send("stop all\r");
	CU_ASSERT(p.expect("workload 0 stopped"));
	CU_ASSERT(p.expect("failed 1 (INVALID_ADDR 1), corrupt 0"));
	CU_ASSERT(p.expect("workload 1 stopped"));
	CU_ASSERT(p.expect("failed 0, corrupt 0"));
	CU_ASSERT(p.expect(kPrompt));
	/* both moved: neither workload's completed count is 0 */
	size_t a = p.out.find("workload 0: copy"), b = p.out.find("workload 1: fill", a);
	CU_ASSERT(a != std::string::npos && b != std::string::npos);
	CU_ASSERT(p.out.find("completed 0 of", a) == std::string::npos);
	p.send("quit\r");
	CU_ASSERT_EQUAL(p.wait_exit(), 0);
}

/** Run the shell in batch mode with @p script on stdin; its output and exit status. */
int run_batch(const std::string &script, std::string *out, const char *prefix)
{
	char path[] = "/tmp/mlx5-dma-shell-test-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	CU_ASSERT_EQUAL((size_t)write(fd, script.data(), script.size()), script.size());
	close(fd);
	auto args = eal_args(prefix);
	args.push_back("--");
	args.push_back("--batch");
	std::vector<char *> argv = argv_of(args);
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		int in = open(path, O_RDONLY);
		dup2(in, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(g_shell, argv.data());
		_exit(127);
	}
	close(pipefd[1]);
	char buf[4096];
	ssize_t n;
	uint64_t deadline = now_ms() + 60000;
	while (now_ms() < deadline) {
		struct pollfd p = {pipefd[0], POLLIN, 0};
		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((n = read(pipefd[0], buf, sizeof(buf))) <= 0)
			break;
		out->append(buf, (size_t)n);
	}
	close(pipefd[0]);
	unlink(path);
	int st;
	if (now_ms() >= deadline)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A good script exits 0, with every command echoed and its output in order. */
void test_batch_good(void)
{
	std::string out;
	int st = run_batch("# a comment, then commands\n"
			   "setup 0 1 256\n"
			   "start copy 0 0 512 8 1\n"
			   "sleep 200\n"
			   "stop 0\n"
			   "show stats 0\n"
			   "clear stats\n"
			   "set verify off\n"
			   "setup 1 1 256\n"
			   "start sg 1 0 3000 5 8 2\n"
			   "sleep 200\n"
			   "stop all\n"
			   "set rate 50\n"
			   "start fill 0 0 256 4 1\n"
			   "watch 100 2\n"
			   "stop all\n"
			   "set rate 0\n"
			   "set verify on\n"
			   /* PI ops through librte_blkint; a corrupted signature is caught */
			   "attach dma_mlx5_s,dev=sim78,sig=1,sim_exec=inline\n"
			   "setup 2 2 256\n"
			   "start pi insert crc32c 2 0 8 8 1\n"
			   "start pi verify t10dif 2 1 4 8 2\n"
			   "sleep 200\n"
			   "fault 2 0 corrupt-sig\n"
			   "sleep 200\n"
			   "stop all\n"
			   /* strip and convert, a bad block in some ops: each caught where it is */
			   "start pi strip t10dif 2 0 4 8 1 bad 100\n"
			   "start pi convert crc64 2 1 3 8 2 bad 50\n"
			   "sleep 200\n"
			   "stop all\n"
			   /* verify-then-respond pairs, 1 write in 10 bad */
			   "start respond 2 0 4 100 8 1\n"
			   "sleep 300\n"
			   "stop all\n"
			   /* remote writes between two fabric hosts; the target's link goes down */
			   "attach dma_mlx5_r0,dev=sim76,sim_fabric=1\n"
			   "attach dma_mlx5_r1,dev=sim77,sim_fabric=1,sim_exec=thread\n"
			   "start remote 3 4 4096 16 1\n"
			   "sleep 200\n"
			   "link sim77 down\n"
			   "sleep 600\n"
			   "link sim77 up\n"
			   "sleep 300\n"
			   "stop all\n"
			   "detach 4\n"
			   "detach 3\n"
			   "show device 1\n"
			   "quit\n"
			   "show devices\n", /* after quit: not run */
			   &out, "shell_batch_good");
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT(out.find("mlx5-dma> setup 0 1 256\ndevice 0: 1 vchans of 256") !=
		  std::string::npos);
	CU_ASSERT(out.find("workload 0 stopped") != std::string::npos);
	CU_ASSERT(out.find("stats cleared") != std::string::npos);
	CU_ASSERT(out.find("at most 50 kops/s") != std::string::npos);
	/* each workload's final stats: the block its "stopped" line starts */
	std::string sg = block(out, "workload 1: SG copy (5 pieces) of 3000 B in bursts of 8, "
				    "device 1 vchan 0, lcore 2, stopped");
	CU_ASSERT(has(sg, "failed 0, corrupt 0"));
	std::string fill = block(out, "fill of 256 B in bursts of 4, device 0 vchan 0, lcore 1, "
				      "stopped, at most 50 kops/s");
	CU_ASSERT(has(fill, "failed 0, corrupt 0"));
	std::string pi = block(out, "crc32c insert (8 blocks) of 4096 B in bursts of 8, device 2 "
				    "vchan 0, lcore 1, stopped");
	CU_ASSERT(has(pi, "failed 1 (XCHECK 1), corrupt 1"));
	CU_ASSERT(has(pi, " run, 1 failed"));
	std::string pv = block(out, "t10dif verify (4 blocks) of 2048 B in bursts of 8, device 2 "
				    "vchan 1, lcore 2, stopped");
	CU_ASSERT(has(pv, "failed 0, corrupt 0"));
	CU_ASSERT(has(pv, " run, 0 failed"));
	for (const char *what :
	     {"t10dif strip (4 blocks, 100 per mille bad) of 2048 B in bursts of "
	      "8, device 2 vchan 0, lcore 1, stopped",
	      "crc64 convert (3 blocks, 50 per mille bad) of 1536 B in bursts of "
	      "8, device 2 vchan 1, lcore 2, stopped"}) {
		CU_ASSERT(pi_bad_blocks_caught(block(out, what)));
	}
	std::string vr = block(out, "verify+respond (4 blocks, 100 per mille bad) of 2048 B in "
				    "bursts of 8, device 2 vchan 0, lcore 1, stopped");
	CU_ASSERT(has(vr, "(DATA_POISION "));
	CU_ASSERT(has(vr, "), corrupt 0,"));
	std::string rw = block(out, "remote write to device 4 of 4096 B in bursts of 16, device 3 "
				    "remote channel, lcore 1, stopped");
	CU_ASSERT(has(rw, "DEV_LINK_ERROR"));
	CU_ASSERT(has(rw, "), corrupt 0,"));
	/*
	 * the rate limit held: at most 50 kops/s submitted; a show's window may also
	 * complete a backlog of the one before, so each shows under 0.1 Mops
	 */
	size_t at = 0;
	while ((at = out.find("at most 50 kops/s\n  completed", at)) != std::string::npos) {
		size_t m = out.find(" submitted, ", at);
		double mops = m == std::string::npos ? 1 : atof(out.c_str() + m + 12);
		CU_ASSERT(mops < 0.1);
		if (mops >= 0.1)
			printf("\n    rate-limited show: %.60s ", out.c_str() + at);
		at++;
	}
	CU_ASSERT(out.find("dma_mlx5_r1 detached") != std::string::npos);
	CU_ASSERT(out.find("--- 200 ms") != std::string::npos);
	CU_ASSERT(out.find("dmadev 1: dma_mlx5_b") != std::string::npos);
	CU_ASSERT(out.find("mlx5-dma> show devices") == std::string::npos);
	CU_ASSERT(out.find("mlx5-dma-shell: 0 failed commands") != std::string::npos);
	if (st != 0)
		printf("\n    output: [%s] ", out.c_str());
}

/*
 * Reassembly workloads: generated fragments checked byte for byte, and a pcap with
 * duplicates, overlaps and lost fragments checked against the CPU engine's output.
 * Then signature workloads on a device whose engine is a thread (the good script's run
 * inline): strip with bad blocks, and verify-then-respond pairs.
 */
void test_batch_reasm(void)
{
	char pcap[32], label[64]; /* a short name: the stats show 20 characters of it */
	snprintf(pcap, sizeof(pcap), "/tmp/ra%d.pcap", (int)getpid());
	snprintf(label, sizeof(label), "reasm %s (", pcap + 5);
	std::string cmd = std::string(g_pcapgen) + " gen 11 " + pcap + " " + pcap + ".exp";
	CU_ASSERT_EQUAL_FATAL(system((cmd + " > /dev/null").c_str()), 0);
	std::string out;
	int st = run_batch(std::string("setup 0 1 256\n"
				       "setup 1 1 256\n"
				       "start reasm 0 0 3000 4 8 1\n"
				       "start reasm pcap ") +
				   pcap +
				   " 1 0 32 2\n"
				   "sleep 400\n"
				   "stop all\n"
				   "attach dma_mlx5_st,dev=sim84,sig=1,sim_exec=thread\n"
				   "setup 2 2 256\n"
				   "start pi strip crc32c 2 0 4 8 1 bad 100\n"
				   "start respond 2 1 4 100 8 2\n"
				   "sleep 400\n"
				   "stop all\n"
				   "quit\n",
			   &out, "shell_batch_reasm");
	unlink(pcap);
	unlink((std::string(pcap) + ".exp").c_str());
	CU_ASSERT_EQUAL(st, 0);
	std::string gen = block(out, "reassembly (4 fragments, dma-umr) of 3000 B in bursts of 8, "
				     "device 0 vchan 0, lcore 1, stopped, verified");
	CU_ASSERT(has(gen, "failed 0, corrupt 0"));
	CU_ASSERT(!has(gen, "completed 0 of"));
	std::string pc = block(out, label);
	CU_ASSERT(has(pc, "device 1 vchan 0, lcore 2, stopped, verified"));
	CU_ASSERT(!has(pc, "completed 0 of"));
	/* what the pcap holds: overlapping and lost fragments, each datagram dropped */
	CU_ASSERT(has(pc, "timeout ") && has(pc, "overlap "));
	CU_ASSERT(has(pc, "), corrupt 0,"));
	bool ps = pi_bad_blocks_caught(block(out, "crc32c strip (4 blocks, 100 per mille bad) of "
						  "2048 B in bursts of 8, device 2 vchan 0, "
						  "lcore 1, stopped"));
	CU_ASSERT(ps);
	std::string vr = block(out, "verify+respond (4 blocks, 100 per mille bad) of 2048 B in "
				    "bursts of 8, device 2 vchan 1, lcore 2, stopped");
	CU_ASSERT(has(vr, "(DATA_POISION "));
	CU_ASSERT(has(vr, "), corrupt 0,"));
	if (st != 0 || !has(pc, "), corrupt 0,") || !ps)
		printf("\n    output: [%s] ", out.c_str());
}

/*
 * Remote reads and fills, each workload with several peers in turn; one peer's link
 * goes down: its ops fail, the others' go on, nothing is corrupt. A target in use
 * cannot be detached.
 */
void test_batch_remote_peers(void)
{
	std::string out;
	int st = run_batch("attach dma_mlx5_p0,dev=sim81,sim_fabric=1\n"
			   "attach dma_mlx5_p1,dev=sim82,sim_fabric=1,sim_exec=thread\n"
			   "attach dma_mlx5_p2,dev=sim83,sim_fabric=1\n"
			   "start remote read 2 3,4 4096 16 1\n"
			   "start remote fill 4 2,3 1000 16 2\n"
			   "sleep 200\n"
			   "link sim82 down\n"
			   "sleep 500\n"
			   "link sim82 up\n"
			   "sleep 200\n"
			   "stop all\n"
			   "start remote write 2 3,4 512 8 1\n"
			   "sleep 200\n"
			   "stop all\n"
			   "quit\n",
			   &out, "shell_batch_remote");
	CU_ASSERT_EQUAL(st, 0);
	std::string rd = block(out, "remote read from devices 3,4 of 4096 B in bursts of 16, "
				    "device 2 remote channel, lcore 1, stopped, verified");
	CU_ASSERT(has(rd, "DEV_LINK_ERROR"));
	CU_ASSERT(has(rd, "), corrupt 0,"));
	CU_ASSERT(!has(rd, "completed 0 of"));
	std::string fl = block(out, "remote fill of devices 2,3 of 1000 B in bursts of 16, "
				    "device 4 remote channel, lcore 2, stopped, verified");
	CU_ASSERT(has(fl, "DEV_LINK_ERROR"));
	CU_ASSERT(has(fl, "), corrupt 0,"));
	CU_ASSERT(!has(fl, "completed 0 of"));
	std::string wr = block(out, "remote write to devices 3,4 of 512 B in bursts of 8, "
				    "device 2 remote channel, lcore 1, stopped, verified");
	CU_ASSERT(has(wr, "failed 0, corrupt 0"));
	CU_ASSERT(!has(wr, "completed 0 of"));
	if (st != 0 || !has(rd, "), corrupt 0,") || !has(fl, "), corrupt 0,"))
		printf("\n    output: [%s] ", out.c_str());
}

/* Bad input of every command: one error line each, the shell goes on, exit status 1. */
void test_batch_bad_input(void)
{
	static const char *const bad[] = {
		"bogus",
		"show",
		"show device 9",
		"show device x",
		"show vchan 0 7",
		"show vchan 9 0",
		"show stats 5",
		"attach",
		"attach no_such_driver_0",
		"attach ,dev=sim0",
		"detach 9",
		"setup 9 1 256",
		"setup 0 0 256",
		"setup 0 1 3",
		"setup 0 1 70000",
		"dump 9",
		"start copy 9 0 64 8 1",
		"start copy 0 5 64 8 1",
		"start copy 0 0 0 8 1",
		"start copy 0 0 64 0 1",
		"start copy 0 0 64 8 0",
		"start copy 0 0 64 8 77",
		"start move 0 0 64 8 1",
		"start copy 0 0 64",
		"start sg 0 0 100 99 8 1",
		"start sg 0 0 5 9 8 1",
		"start sg 0 0 100 0 8 1",
		"start sg 0 0 100 4 8",
		"start remote 0 0 64 8 1",
		"start remote 0 9 64 8 1",
		"start remote 0 1 64 0 1",
		"start remote read 0 1,1 64 8 1",
		"start remote read 0 1,x 64 8 1",
		"start remote fill 0 1,2,3,4,5,6,7,8,9 64 8 1",
		"start remote write 0 9 64 8 1",
		"start remote move 0 1 64 8 1",
		"start pi insert crc32c 0 0 8 8 1", /* device 0 has no signature offload */
		"start pi insert crc16 0 0 8 8 1",
		"start pi scramble crc32 0 0 8 8 1",
		"start pi verify crc32",
		"start pi strip crc32 0 0 8 8 1 bad",
		"start pi insert crc32 0 0 8 8 1 bad 5",
		"fault 0 0 corrupt",
		"start respond 0 0 8 100 8 1", /* no signature offload */
		"start respond 0 0 8",
		"start reasm 0 0 1000 64 8 1", /* pieces of 16 B: 63 of them hold it all */
		"start reasm 0 0 100 1 8 1",
		"start reasm 0 0 70000 8 8 1",
		"start reasm 0 5 1000 4 8 1",
		"start reasm pcap /nonexistent.pcap 0 0 8 1",
		"start reasm pcap /etc/hostname 0 0 8 1",
		"start reasm pcap",
		"stop 3",
		"stop everything",
		"set verify maybe",
		"fault 0 3 qp-fatal",
		"fault 0 0 explode",
		"fault 0 0 delay",
		"fault 1 0 delay 100", /* device 1 executes inline: no engine threads */
		"fault 0 0 fail nonsense",
		"fault 0 0 fail",
		"fault 0 9 cq-overrun",
		"watch 5 1",
		"watch 100 0",
		"set rate 200000",
		"set rate fast",
		"link nosuchsim up",
		"link sim70 sideways",
		"load /nonexistent/script",
		"load /tmp",                          /* a directory */
		"load /dev/zero",                     /* not a regular file */
		"load /tmp/mlx5-dma-shell-test.nul",  /* 100 KB of NUL bytes, no newline */
		"load /tmp/mlx5-dma-shell-test.fifo", /* a FIFO with no writer: no hang */
		"start reasm pcap /tmp/mlx5-dma-shell-test.fifo 0 0 8 1",
		"sleep 700000",
		"sleep -1",
	};
	mkfifo("/tmp/mlx5-dma-shell-test.fifo", 0600); /* EEXIST: as good */
	FILE *nul = fopen("/tmp/mlx5-dma-shell-test.nul", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(nul);
	static const char zeros[100000] = {};
	CU_ASSERT_EQUAL(fwrite(zeros, 1, sizeof(zeros), nul), sizeof(zeros));
	fclose(nul);
	std::string script = "setup 0 1 256\nsetup 1 1 256\n";
	for (const char *b : bad)
		script += std::string(b) + "\n";
	script += "show devices\nquit\n";
	std::string out;
	int st = run_batch(script, &out, "shell_batch_bad");
	CU_ASSERT_EQUAL(st, 1);
	/* every bad line has its error right after its echo */
	for (const char *b : bad) {
		std::string echo = std::string(kPrompt) + b + "\n";
		size_t at = out.find(echo);
		CU_ASSERT(at != std::string::npos);
		if (at == std::string::npos)
			continue;
		size_t err = out.find("error: ", at + echo.size());
		size_t next = out.find(kPrompt, at + echo.size());
		CU_ASSERT(err != std::string::npos && err < next);
		if (err == std::string::npos || err >= next)
			printf("\n    no error line for \"%s\" ", b);
	}
	/* and it went on to the end */
	CU_ASSERT(out.find("dmadev 0: dma_mlx5_a") != std::string::npos);
	char want[64];
	snprintf(want, sizeof(want), "mlx5-dma-shell: %zu failed commands", CUNIT_NELEM(bad));
	CU_ASSERT(out.find(want) != std::string::npos);
}

/*
 * Terminal control sequences in a batch file (the echo of each line, the error messages
 * quoting it, a PMD's log line quoting a devarg): printed escaped, never raw.
 */
void test_batch_escapes(void)
{
	static const char *const lines[] = {
		"bogus\x1b[2J\x1b]0;owned\x07\x1b[31mred\rcr\x7f\x9b"
		"6n\ttab\\",
		"show device \x1b[5m7",
		"load /tmp/no-such-\x1b[1;1H\x07"
		"file",
		"attach dma_mlx5_esc,dev=sim\x1b[8m9",
		"link sim70\x1b[H up",
	};
	std::string script = "setup 0 1 256\n", out;

	for (const char *l : lines)
		script += std::string(l) + "\n";
	script += "quit\n";
	CU_ASSERT_EQUAL(run_batch(script, &out, "shell_batch_esc"), 1);
	/* no control byte but the line feeds, nothing beyond ASCII */
	size_t raw = std::string::npos;
	for (size_t i = 0; i < out.size() && raw == std::string::npos; i++) {
		unsigned char c = (unsigned char)out[i];

		if ((c < 0x20 && c != '\n') || c >= 0x7f)
			raw = i;
	}
	CU_ASSERT_EQUAL(raw, std::string::npos);
	if (raw != std::string::npos)
		printf("\n    raw byte %#x at %zu: [%s] ", (unsigned char)out[raw], raw,
		       out.substr(raw < 40 ? 0 : raw - 40, 80).c_str());
	/* each line's echo and its error, escaped */
	CU_ASSERT(has(out, "mlx5-dma> bogus\\x1b[2J\\x1b]0;owned\\x07\\x1b[31mred\\x0dcr"
			   "\\x7f\\x9b6n\\x09tab\\\\\n"));
	CU_ASSERT(has(out, "error: unknown command \"bogus\\x1b[2J"));
	CU_ASSERT(has(out, "mlx5-dma> show device \\x1b[5m7\n"));
	CU_ASSERT(has(out, "cannot read \"/tmp/no-such-\\x1b[1;1H\\x07file\""));
	CU_ASSERT(has(out, "mlx5-dma> attach dma_mlx5_esc,dev=sim\\x1b[8m9\n"));
	CU_ASSERT(has(out, "mlx5-dma> link sim70\\x1b[H up\n"));
}

/*
 * Ctrl-C ends a watch and a sleep (and only them): the prompt comes back at once, and
 * a Ctrl-C at the prompt leaves the shell as it was.
 */
void test_interactive_interrupt(void)
{
	Pty p;
	auto args = eal_args("shell_intr");
	CU_ASSERT_FATAL(p.start(args));
	CU_ASSERT_FATAL(p.expect(kPrompt));
	p.send("watch 500 1000\r");
	CU_ASSERT(p.expect("--- 500 ms"));
	p.send("\x03");
	CU_ASSERT(p.expect("interrupted (Ctrl-C)", 3000));
	CU_ASSERT(p.expect(kPrompt, 3000));
	p.send("sleep 600000\r");
	CU_ASSERT(p.expect("sleep 600000"));
	usleep(300000);
	p.send("\x03");
	CU_ASSERT(p.expect("interrupted (Ctrl-C)", 3000));
	CU_ASSERT(p.expect(kPrompt, 3000));
	p.send("\x03");
	p.send("\rshow devices\r");
	CU_ASSERT(p.expect("dmadev 1: dma_mlx5_b"));
	CU_ASSERT(p.expect(kPrompt));
	p.send("quit\r");
	CU_ASSERT_EQUAL(p.wait_exit(), 0);
}

/** The numbers after @p what in @p s (the first occurrence after @p from). */
unsigned long number_after(const std::string &s, const char *what, size_t from = 0)
{
	size_t at = s.find(what, from);
	return at == std::string::npos ? 0 : strtoul(s.c_str() + at + strlen(what), NULL, 10);
}

/*
 * What a new user met: the lcore a workload holds named; corrupt-sig refused where no
 * running workload generates PI (it used to fire on a later one); clear stats with ops
 * in flight keeps completed <= submitted; signature caps by name; help by sections;
 * out-of-range values named; no "already stopped" from detach or at exit.
 */
void test_batch_rough_edges(void)
{
	std::string out;
	std::string script = "setup 0 1 1024\n"
			     "start copy 0 0 4096 256 1\n"
			     "setup 1 1 256\n"
			     "start copy 1 0 64 8 1\n" /* lcore 1 is workload 0's */
			     "start copy 1 0 64 300 2\n"
			     "start copy 1 0 0 8 2\n"
			     "watch 5 1\n"
			     "watch 100 0\n";
	for (int i = 0; i < 3; i++)
		script += "clear stats\nsleep 50\nshow vchan 0 0\nshow stats 0\n";
	script += "stop all\n"
		  "attach dma_mlx5_e,dev=sim79,sig=1,sim_exec=inline\n"
		  "setup 2 2 256\n"
		  "show device 2\n"
		  "fault 2 1 corrupt-sig\n" /* nothing runs there */
		  "start pi verify t10dif 2 1 4 8 1\n"
		  "fault 2 1 corrupt-sig\n" /* a verify generates no PI */
		  "sleep 100\n"
		  "stop all\n"
		  "start pi insert crc32c 2 1 4 8 1\n" /* the refused faults never fire */
		  "sleep 200\n"
		  "stop all\n"
		  "help\n"
		  "help control\n"
		  "help faults\n"
		  "detach 2\n"
		  "quit\n";
	int st = run_batch(script, &out, "shell_batch_edges");
	CU_ASSERT_EQUAL(st, 1); /* the refused commands */
	CU_ASSERT(has(out, "error: lcore 1 is not a free worker lcore: workload 0 runs on it"));
	CU_ASSERT(has(out, "-l 0-3"));
	CU_ASSERT(has(out, "error: burst 300 out of range: 1..256"));
	CU_ASSERT(has(out, "error: size 0 out of range: 1..1048576"));
	CU_ASSERT(has(out, "error: watch interval 5 ms out of range: 10..60000"));
	CU_ASSERT(has(out, "error: watch count 0 out of range: 1..1000"));
	/* after every clear, with ops in flight: never more completed than submitted */
	size_t at = 0;
	int shows = 0;
	while ((at = out.find("mlx5-dma> show vchan 0 0\n", at)) != std::string::npos) {
		unsigned long sub = number_after(out, "  submitted ", at);
		unsigned long done = number_after(out, ", completed ", at);
		CU_ASSERT(done <= sub);
		if (done > sub)
			printf("\n    vchan: completed %lu > submitted %lu ", done, sub);
		size_t w = out.find("  completed ", out.find("mlx5-dma> show stats 0", at));
		unsigned long wdone = number_after(out, "  completed ", w);
		unsigned long wsub = number_after(out, " of ", w);
		CU_ASSERT(wdone <= wsub);
		if (wdone > wsub)
			printf("\n    workload: completed %lu > submitted %lu ", wdone, wsub);
		at++;
		shows++;
	}
	CU_ASSERT_EQUAL(shows, 3);
	std::string dev = block(out, "dmadev 2: dma_mlx5_e");
	CU_ASSERT(has(dev, "signature: PI types t10dif-crc"));
	CU_ASSERT(has(dev, "crc32c"));
	CU_ASSERT(has(dev, "blocks of 512"));
	CU_ASSERT(!has(dev, "types 0x"));
	CU_ASSERT(has(out, "error: corrupt-sig on device 2 vchan 1: no workload runs there"));
	CU_ASSERT(has(out, "generates no PI (only pi insert and convert do"));
	std::string ins = block(out, "crc32c insert (4 blocks) of 2048 B in bursts of 8, "
				     "device 2 vchan 1, lcore 1, stopped");
	CU_ASSERT(has(ins, "failed 0, corrupt 0"));
	CU_ASSERT(has(out, "help workloads"));
	CU_ASSERT(has(out, "attach <devargs>"));
	CU_ASSERT(has(out, "corrupt-sig   the next PI"));
	CU_ASSERT(!has(out, "Command not found"));
	CU_ASSERT(has(out, "dma_mlx5_e detached"));
	CU_ASSERT(!has(out, "already stopped"));
	CU_ASSERT(has(out, "mlx5-dma-shell: 7 failed commands"));
	if (st != 1 || has(out, "already stopped") || !has(ins, "failed 0, corrupt 0"))
		printf("\n    output: [%s] ", out.c_str());
}

/*
 * Two shells started alike, without --file-prefix (the README's line): each takes a
 * runtime directory of its own, both run.
 */
void test_two_shells(void)
{
	std::vector<std::string> args = {"--no-huge",
					 "-m",
					 "256",
					 "--no-pci",
					 "-l",
					 "0-1",
					 "--log-level=pmd.dma.mlx5:warning",
					 "--vdev",
					 "dma_mlx5,dev=sim0,sim_exec=inline",
					 "--",
					 "--batch"};
	std::vector<char *> argv = argv_of(args);
	pid_t pid[2];
	int out[2];

	for (int i = 0; i < 2; i++) {
		int fds[2];
		CU_ASSERT_FATAL(pipe(fds) == 0);
		pid[i] = fork();
		if (pid[i] == 0) {
			int in[2];
			if (pipe(in) != 0)
				_exit(126);
			/* both hold their EAL while the other starts */
			const char cmds[] = "setup 0 1 64\nsleep 1500\nshow devices\nquit\n";
			if (write(in[1], cmds, sizeof(cmds) - 1) != (ssize_t)sizeof(cmds) - 1)
				_exit(126);
			close(in[1]);
			dup2(in[0], 0);
			dup2(fds[1], 1);
			dup2(fds[1], 2);
			close(fds[0]);
			execv(g_shell, argv.data());
			_exit(127);
		}
		close(fds[1]);
		out[i] = fds[0];
	}
	for (int i = 0; i < 2; i++) {
		std::string o;
		char buf[4096];
		ssize_t n;
		while ((n = read(out[i], buf, sizeof(buf))) > 0)
			o.append(buf, (size_t)n);
		close(out[i]);
		int st = -1;
		waitpid(pid[i], &st, 0);
		CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CU_ASSERT(has(o, "dmadev 0: dma_mlx5"));
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !has(o, "dmadev 0: dma_mlx5"))
			printf("\n    shell %d: [%s] ", i, o.c_str());
	}
}

const struct cunit_test tests[] = {
	{"prompt, help, completion, history", test_interactive_basics},
	{"session: two devices, workloads, a fault", test_interactive_session},
	{"batch: a good script", test_batch_good},
	{"batch: reassembly; signature ops on an engine thread", test_batch_reasm},
	{"batch: remote reads, writes and fills to several peers", test_batch_remote_peers},
	{"batch: bad input of every command", test_batch_bad_input},
	{"batch: control sequences printed escaped", test_batch_escapes},
	{"Ctrl-C ends watch and sleep", test_interactive_interrupt},
	{"batch: the rough edges a new user met", test_batch_rough_edges},
	{"two shells without --file-prefix", test_two_shells},
};

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_app_mlx5_dma_shell <path of mlx5-dma-shell> "
				"<path of reasm-pcapgen>\n");
		return 2;
	}
	g_shell = argv[1];
	g_pcapgen = argv[2];
	return CUNIT_RUN_SUITE("mlx5-dma-shell", tests);
}
