/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5-dma-shell: the state its commands share, the workloads and the output helpers.
 */
#ifndef MLX5_DMA_SHELL_H
#define MLX5_DMA_SHELL_H

#include <stdint.h>
#include <stdio.h>

#include <atomic>
#include <string>

#include <cmdline.h>
#include <rte_cycles.h>
#include <rte_pmd_dma_mlx5.h>

struct rte_blkint_format;
#include <cmdline_parse.h>
#include <rte_dmadev.h>

/** Workloads at once (one per worker lcore). */
#define SHELL_MAX_WORKLOADS 16
/** Most pieces per side of an SG workload. */
#define SHELL_MAX_SEGS 64
/** Most DC targets of one remote workload. */
#define SHELL_MAX_PEERS 8
/** rte_dma status codes counted one by one (the rest go to the last). */
#define SHELL_STATUS_KINDS 16

/** What a workload enqueues. */
enum shell_op {
	SHELL_OP_COPY,
	SHELL_OP_FILL,
	SHELL_OP_SG,      /**< rte_dma_copy_sg(): the slot in pieces, scattered in reverse order */
	SHELL_OP_REMOTE,  /**< dma_mlx5 remote ops over DC to other devices' DC targets */
	SHELL_OP_PI,      /**< librte_blkint ops (shell_pi.cpp) */
	SHELL_OP_RESPOND, /**< "verify, then respond" pairs (shell_respond.cpp) */
	SHELL_OP_REASM,   /**< librte_reasm IP reassembly (shell_reasm.cpp) */
};

struct shell_reasm;

/** What a remote workload's ops do to its peers' memory. */
enum shell_remote_op {
	SHELL_REMOTE_WRITE,
	SHELL_REMOTE_READ,
	SHELL_REMOTE_FILL,
};

/** Counters of a workload: written by its lcore, read by the shell. */
struct shell_counters {
	std::atomic<uint64_t> submitted{0};
	std::atomic<uint64_t> completed{0};
	std::atomic<uint64_t> bytes{0};
	std::atomic<uint64_t> failed{0};
	std::atomic<uint64_t> corrupt{0}; /**< verified ops whose bytes were wrong */
	std::atomic<uint64_t> busy{0};    /**< enqueues refused with -ENOSPC */
	std::atomic<uint64_t> status[SHELL_STATUS_KINDS];
	/* PI workloads: the library's cross-checks, kept when the context goes, and
	 * their values at the last "clear stats" */
	uint64_t xcheck_run = 0;
	uint64_t xcheck_failed = 0;
	uint64_t xcheck_run_base = 0;
	uint64_t xcheck_failed_base = 0;
};

/** One workload: ops of one kind on one vchan, run by one worker lcore. */
struct shell_workload {
	bool used;
	unsigned int id;
	enum shell_op op;
	int16_t dev;
	uint16_t vchan;
	uint32_t size;
	uint16_t batch;
	uint16_t segs; /**< SHELL_OP_SG: pieces per side */
	/*
	 * SHELL_OP_REMOTE: the channel on dev, its peers (DC targets on other devices, op
	 * seq going to peer seq % npeers) and the memory each exposes (its slots), with
	 * a key of its own, released with the memory
	 */
	struct rte_pmd_dma_mlx5_remote *ch;
	enum shell_remote_op remote_op;
	uint16_t npeers;
	int16_t targets[SHELL_MAX_PEERS];
	uint8_t *peer_mem[SHELL_MAX_PEERS];
	/** the key each target made for its memory */
	uint32_t peer_rkey[SHELL_MAX_PEERS];
	uint32_t nslots; /**< slots of each side's memory (set at start) */
	/* SHELL_OP_PI (shell_pi.cpp): its context and what it runs */
	struct rte_blkint_ctx *pi_ctx;
	int pi_op;                 /**< enum rte_blkint_op_type */
	int pi_type;               /**< enum rte_blkint_pi_type */
	char label[48];            /**< what "show stats" calls the ops (empty: from op) */
	uint32_t bad_permille;     /**< RESPOND, PI: ops with a bad block, per mille */
	struct shell_reasm *reasm; /**< SHELL_OP_REASM: its context, engine and input */
	/** Names of status[1..] when not rte_dma's (NULL: rte_dma's). */
	const char *const *status_names;
	unsigned int lcore;
	bool verify;
	uint32_t rate_kops; /**< at most this many kops/s (0: no limit) */
	std::atomic<bool> stop{false};
	std::atomic<bool> running{false};
	/** Set by the lcore once set up: 1 running, or a negative errno (it returned). */
	std::atomic<int> ready{0};
	/** Stopped with ops still in flight on its vchan: no workload there until setup. */
	bool stale;
	int exit_code; /**< what the lcore function returned (after stop) */
	uint64_t start_tsc;
	struct shell_counters c;
	/* the last "show stats" (for the rates since then) */
	uint64_t shown_tsc;
	uint64_t shown_completed;
	uint64_t shown_bytes;
};

/**
 * Append @p len bytes of @p in to @p out as a terminal may show them: printable ASCII
 * (0x20..0x7e) and the line feed as they are, a backslash as two; every other byte
 * (ESC, BEL, CR, tab, DEL, 0x80..0xff) as "\xNN". Everything the shell prints goes
 * through it (shell_printf(), shell_fail(), the DPDK log stream), so that no batch
 * file, argument, file name or device name can send the terminal a control sequence.
 * Line feeds pass: input lines never hold one, and they only end a line.
 */
void shell_escape(const char *in, size_t len, std::string *out);

/** Print to the shell's output (the command line's, or stdout before there is one). */
void shell_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Print "error: ..." and count a failed command (the batch mode's exit status). */
void shell_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The command line the handlers print to (NULL: stdout). */
void shell_set_cmdline(struct cmdline *cl);

/** "quit" was given (the batch mode stops reading). */
extern bool shell_quit_requested;
/** Data verification of the workloads started from now on. */
extern bool shell_verify;
/** Rate limit of the workloads started from now on, kops/s (0: none). */
extern uint32_t shell_rate_kops;

/* shell_workload.cpp */
/** Start a workload; its id, or -1 (a message printed). */
int shell_workload_start(enum shell_op op, int16_t dev, uint16_t vchan, uint32_t size,
			 uint16_t segs, uint16_t batch, unsigned int lcore);
/**
 * The checks every workload start makes (sizes, lcore, vchan free and not stale, a free
 * slot); 0, or -1 with the message printed. Nothing changes.
 */
int shell_workload_check(int16_t dev, uint16_t vchan, uint32_t size, uint16_t batch,
			 unsigned int lcore);
/** Slots of memory a workload of @p batch ops per burst uses (a power of two). */
uint32_t shell_workload_slots(uint16_t batch);
/** Tell the shell the workload's lcore is set up (0) or gave up (a negative errno). */
void shell_workload_ready(struct shell_workload *w, int err);
/**
 * Ops the rate limit lets @p w enqueue now, at most @p room, when @p done were
 * enqueued since @p *t0 (TSC); @p room when it has no limit. Credit beyond 10 ms of
 * the rate is dropped (*t0 moves on).
 */
uint16_t shell_rate_room(const struct shell_workload *w, uint64_t *t0, uint64_t done,
			 uint16_t room);
/** Device @p dev was set up again: its vchans have nothing of old workloads left. */
void shell_workload_reset(int16_t dev);
/**
 * Start remote ops @p op from @p dev to DC targets on the @p npeers devices of
 * @p targets, in turn; its id, or -1.
 */
int shell_workload_start_remote(enum shell_remote_op op, int16_t dev, const int16_t *targets,
				uint16_t npeers, uint32_t size, uint16_t batch, unsigned int lcore);
/** The checks of every workload and a free slot for @p op (NULL: refused, printed). */
struct shell_workload *shell_workload_prepare(enum shell_op op, int16_t dev, uint16_t vchan,
					      uint32_t size, uint16_t batch, unsigned int lcore);
/** Run prepared workload @p w: @p fn on its lcore; its id, or -1. */
int shell_workload_launch(struct shell_workload *w, int (*fn)(void *));

/* shell_sim.cpp (software HCA) or shell_sim_none.cpp (a build without it) */
/**
 * Inject fault @p kind (qp-fatal, corrupt-sig, cq-overrun, fail with @p syndrome's
 * name, delay of @p us) into the software HCA behind vchan @p vchan of @p dev;
 * 0, or -1 (a message printed).
 */
int shell_sim_fault(uint16_t dev, uint16_t vchan, const char *kind, const char *syndrome,
		    uint32_t us);
/** Take the port of software HCA @p sim down or up; 0, or -1 (a message printed). */
int shell_sim_link(const char *sim, bool down);

/* shell_pi.cpp */
/**
 * Start librte_blkint ops: @p op insert, verify, strip or convert, @p type its PI,
 * @p bad_permille of the ops with a bad block (not for insert); id, or -1.
 */
int shell_workload_start_pi(const char *op, const char *type, int16_t dev, uint16_t vchan,
			    uint32_t blocks, uint32_t bad_permille, uint16_t batch,
			    unsigned int lcore);
/** Whether op @p seq of a workload carries a bad block (@p permille of them, spread). */
static inline bool shell_bad_op(uint64_t seq, uint32_t permille)
{
	return (seq * 7919 + 13) % 1000 < permille;
}
/**
 * Fill @p nslots slots of @p stride bytes at @p buf with @p blocks blocks of data each,
 * protected on the CPU in format @p fmt (ref tags from slot * blocks); 0 or -errno.
 */
int shell_pi_protect(unsigned int id, const struct rte_blkint_format *fmt, uint32_t blocks,
		     uint8_t *buf, size_t stride, uint32_t nslots);
/** Byte @p i of the data shell_pi_protect() protects. */
static inline uint8_t shell_pi_data_byte(uint32_t i)
{
	return (uint8_t)(i * 13 + 5);
}
/** The blkint worker of a PI workload (an lcore function). */
int shell_pi_worker(void *arg);
/* shell_respond.cpp */
/** Start "verify, then respond" pairs, @p bad_permille of the writes bad; id, or -1. */
int shell_workload_start_respond(int16_t dev, uint16_t vchan, uint32_t blocks,
				 uint32_t bad_permille, uint16_t batch, unsigned int lcore);
/** The worker of a respond workload (an lcore function). */
int shell_respond_worker(void *arg);
/** After the lcore returned: free the context. */
void shell_pi_release(struct shell_workload *w);
/* shell_reasm.cpp */
/**
 * Start IP reassembly on @p dev's vchan @p vchan: datagrams of @p size payload bytes
 * in @p frags fragments, or (@p pcap_path not NULL) the frames of a pcap file; @p batch
 * datagrams or frames per burst. Its id, or -1 (a message printed).
 */
int shell_workload_start_reasm(int16_t dev, uint16_t vchan, uint32_t size, uint32_t frags,
			       const char *pcap_path, uint16_t batch, unsigned int lcore);
/** After the lcore returned: free the context, its engine and its mbufs. */
void shell_reasm_release(struct shell_workload *w);
/** The cross-check counters of a PI workload (a line of "show stats"). */
void shell_pi_show(struct shell_workload *w);
/** "clear stats" of a PI workload: its cross-checks count from now on. */
void shell_pi_clear(struct shell_workload *w);

/**
 * After a workload's lcore stopped enqueueing: call @p reap until @p inflight (which
 * it lowers) is 0, 2 s at most. @return whether everything came back.
 */
template <typename Count, typename Reap>
bool shell_drain(const Count &inflight, Reap reap)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * 2;

	while (inflight && rte_get_timer_cycles() < deadline)
		reap();
	return !inflight;
}
/** The workload running on vchan @p vchan of @p dev, or NULL. */
struct shell_workload *shell_workload_running(int16_t dev, uint16_t vchan);
/**
 * The workload a corrupt-sig fault on vchan @p vchan of @p dev hits: a running PI
 * workload whose ops generate PI (insert, convert); its id, or -1 (a message printed
 * saying why none does).
 */
int shell_pi_generator(int16_t dev, uint16_t vchan);
/** Stop workload @p id (all with -1); 0, or -1 when there is none such. */
int shell_workload_stop(int id);
/** Print the stats of workload @p id (all with -1); 0, or -1 when there is none such. */
int shell_workload_show(int id);
/** Zero every workload's counters. */
void shell_workload_clear(void);
/** Device @p dev goes away: forget the DC target made on it. */
void shell_workload_forget(int16_t dev);
/** Whether a workload runs on device @p dev (or writes to it as a remote target). */
bool shell_workload_on(int16_t dev);
/** Name of an rte_dma status code. */
const char *shell_status_name(unsigned int st);

/* shell_cmds.cpp */
/** The commands (a NULL-terminated context for librte_cmdline). */
extern cmdline_parse_ctx_t shell_ctx[];
/** Open regular file @p path for reading; NULL (a message printed) for anything else. */
FILE *shell_open_file(const char *path);
/** Run the commands of @p path, one per line; the failures among them. */
unsigned int shell_run_file(struct cmdline *cl, const char *path);

#endif /* MLX5_DMA_SHELL_H */
