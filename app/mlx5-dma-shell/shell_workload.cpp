/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workloads of mlx5-dma-shell: copies or fills of one size on one vchan, in bursts of
 * one doorbell, run by a worker lcore until stopped (one vchan, one lcore, as rte_dma
 * wants). Each op owns a slot of source and destination memory while in flight; with
 * verification on, each op's bytes carry its sequence number and are checked when it
 * completes successfully. The lcore counts; the shell reads the counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <algorithm>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "shell.h"

bool shell_verify = true;
uint32_t shell_rate_kops;

namespace {

shell_workload g_wl[SHELL_MAX_WORKLOADS];

const char *const kStatusNames[SHELL_STATUS_KINDS] = {
	"SUCCESSFUL",       "USER_ABORT",      "NOT_ATTEMPTED",  "INVALID_SRC_ADDR",
	"INVALID_DST_ADDR", "INVALID_ADDR",    "INVALID_LENGTH", "INVALID_OPCODE",
	"BUS_READ_ERROR",   "BUS_WRITE_ERROR", "BUS_ERROR",      "DATA_POISION",
	"PAGE_FAULT",       "DEV_LINK_ERROR",  "ERROR_UNKNOWN",  "(other)",
};

/** What a workload's lcore works with. */
struct run_state {
	shell_workload *w;
	uint8_t *src;
	uint8_t *dst;
	uint32_t nslots; /* a power of two: slot = ring index & (nslots - 1) */
	uint64_t seq;    /* ops enqueued so far: op seq uses slot seq & (nslots - 1) */
	/* by ring index & (nslots - 1): the op's sequence number and slot */
	uint64_t *op_seq;
	uint32_t *op_slot;
	uint32_t inflight;
	uint64_t t0; /* TSC at start (rate limit) */
};

/*
 * The fill pattern of op @p seq: one per group of nslots / 8 ops (at least 4), so
 * that the ops in flight use at most 8 patterns (dma_mlx5 keeps 8 per vchan) and a
 * slot's next op writes another pattern than its last one did.
 */
uint64_t pattern_of(const run_state &r, uint64_t seq)
{
	/* a window of nslots - 1 ops spans at most (nslots - 2) / g + 2 <= 8 groups */
	return (seq / RTE_MAX(4u, r.nslots / 6 + 1)) * 0x9e3779b97f4a7c15ull | 1;
}

/*
 * SG ops: piece i of a slot is [i * size / segs, (i + 1) * size / segs); the source
 * list takes the pieces in order, the destination list in reverse order, so the
 * bytes land permuted: piece i of the source goes where the destination list's
 * i-th entry points.
 */
inline uint32_t piece_off(const shell_workload *w, uint32_t i)
{
	return (uint32_t)((uint64_t)i * w->size / w->segs);
}

/** Slot @p slot of local memory @p base (NULL when the workload has none). */
inline uint8_t *slot_of(const run_state &r, uint8_t *base, uint32_t slot)
{
	return base ? base + (size_t)slot * r.w->size : NULL;
}

/** Peer of a remote workload's op @p seq. */
inline uint16_t peer_of(const shell_workload *w, uint64_t seq)
{
	return (uint16_t)(seq % w->npeers);
}

/** The bytes op @p seq leaves at @p d are right. */
bool verify_op(const run_state &r, const uint8_t *d, uint64_t seq, const uint8_t *s)
{
	const shell_workload *w = r.w;

	if (w->op == SHELL_OP_COPY ||
	    (w->op == SHELL_OP_REMOTE && w->remote_op != SHELL_REMOTE_FILL))
		return memcmp(d, s, w->size) == 0;
	if (w->op == SHELL_OP_SG) {
		/* the lists' concatenations are equal: the two walks meet piece by piece */
		uint32_t soff = 0;
		for (uint32_t k = 0; k < w->segs; k++) {
			uint32_t j = w->segs - 1 - k; /* dst entry k is piece j */
			uint32_t dlen = piece_off(w, j + 1) - piece_off(w, j);
			const uint8_t *dp = d + piece_off(w, j);
			for (uint32_t done = 0; done < dlen;) {
				uint32_t i = 0;
				while (piece_off(w, i + 1) <= soff)
					i++;
				uint32_t n = RTE_MIN(dlen - done, piece_off(w, i + 1) - soff);
				if (memcmp(dp + done, s + soff, n))
					return false;
				done += n;
				soff += n;
			}
		}
		return true;
	}
	uint64_t pat = pattern_of(r, seq);
	const uint8_t *b = (const uint8_t *)&pat;
	for (uint32_t i = 0; i < r.w->size; i++)
		if (d[i] != b[i % 8])
			return false;
	return true;
}

/** Enqueue op r.seq of a remote workload (its peer's slot, source @p s, local @p d). */
int enqueue_remote(run_state &r, uint32_t slot, uint8_t *s, uint8_t *d)
{
	const shell_workload *w = r.w;
	uint16_t p = peer_of(w, r.seq);
	uint8_t *pm = w->peer_mem[p] + (size_t)slot * w->size;

	/* the source stamped with the op's number: stale bytes show */
	if (w->verify && w->remote_op != SHELL_REMOTE_FILL)
		memcpy(w->remote_op == SHELL_REMOTE_READ ? pm : s, &r.seq,
		       RTE_MIN(w->size, (uint32_t)sizeof(r.seq)));
	if (w->remote_op == SHELL_REMOTE_WRITE)
		return rte_pmd_dma_mlx5_remote_write(w->ch, p,
						     rte_malloc_virt2iova(r.src) + (s - r.src),
						     (uintptr_t)pm, w->size, 0);
	if (w->remote_op == SHELL_REMOTE_READ)
		return rte_pmd_dma_mlx5_remote_read(w->ch, p, (uintptr_t)pm,
						    rte_malloc_virt2iova(r.dst) + (d - r.dst),
						    w->size, 0);
	return rte_pmd_dma_mlx5_remote_fill(w->ch, p, pattern_of(r, r.seq), (uintptr_t)pm, w->size,
					    0);
}

/** Enqueue up to a burst; submit it. */
void enqueue_burst(run_state &r)
{
	shell_workload *w = r.w;
	uint16_t n = 0;

	uint16_t room = shell_rate_room(w, &r.t0, r.seq, w->batch);
	while (n < room && r.inflight < r.nslots - 1) {
		/* free: fewer than nslots ops are in flight, completing in order */
		uint32_t slot = (uint32_t)(r.seq & (r.nslots - 1));
		uint8_t *s = slot_of(r, r.src, slot), *d = slot_of(r, r.dst, slot);
		int idx;

		if (w->verify && w->op != SHELL_OP_FILL && w->op != SHELL_OP_REMOTE)
			memcpy(s, &r.seq, RTE_MIN(w->size, (uint32_t)sizeof(r.seq)));
		if (w->op == SHELL_OP_REMOTE) {
			idx = enqueue_remote(r, slot, s, d);
		} else if (w->op == SHELL_OP_SG) {
			struct rte_dma_sge src[SHELL_MAX_SEGS], dst[SHELL_MAX_SEGS];
			rte_iova_t si = rte_malloc_virt2iova(r.src) + (s - r.src);
			rte_iova_t di = rte_malloc_virt2iova(r.dst) + (d - r.dst);
			for (uint32_t i = 0; i < w->segs; i++) {
				uint32_t j = w->segs - 1 - i;
				src[i].addr = si + piece_off(w, i);
				src[i].length = piece_off(w, i + 1) - piece_off(w, i);
				dst[i].addr = di + piece_off(w, j);
				dst[i].length = piece_off(w, j + 1) - piece_off(w, j);
			}
			idx = rte_dma_copy_sg(w->dev, w->vchan, src, dst, w->segs, w->segs, 0);
		} else if (w->op == SHELL_OP_COPY)
			idx = rte_dma_copy(w->dev, w->vchan,
					   rte_malloc_virt2iova(r.src) + (s - r.src),
					   rte_malloc_virt2iova(r.dst) + (d - r.dst), w->size, 0);
		else
			idx = rte_dma_fill(w->dev, w->vchan, pattern_of(r, r.seq),
					   rte_malloc_virt2iova(r.dst) + (d - r.dst), w->size, 0);
		if (idx < 0) {
			w->c.busy.fetch_add(1, std::memory_order_relaxed);
			break;
		}
		r.op_seq[idx & (r.nslots - 1)] = r.seq;
		r.op_slot[idx & (r.nslots - 1)] = slot;
		r.seq++;
		r.inflight++;
		n++;
	}
	if (n) {
		if (w->op == SHELL_OP_REMOTE)
			rte_pmd_dma_mlx5_remote_submit(w->ch);
		else
			rte_dma_submit(w->dev, w->vchan);
		w->c.submitted.fetch_add(n, std::memory_order_relaxed);
	}
}

/** Take completions; count and verify them. */
void reap(run_state &r)
{
	shell_workload *w = r.w;
	enum rte_dma_status_code st[256];
	uint16_t last = 0;
	uint16_t n = w->op == SHELL_OP_REMOTE
			     ? rte_pmd_dma_mlx5_remote_completed(w->ch, RTE_DIM(st), &last, st)
			     : rte_dma_completed_status(w->dev, w->vchan, RTE_DIM(st), &last, st);
	uint64_t ok = 0, bad = 0, wrong = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint16_t idx = (uint16_t)(last - (n - 1) + i);
		uint32_t slot = r.op_slot[idx & (r.nslots - 1)];
		unsigned int k = st[i] < SHELL_STATUS_KINDS - 1 ? st[i] : SHELL_STATUS_KINDS - 1;

		w->c.status[k].fetch_add(1, std::memory_order_relaxed);
		if (st[i] != RTE_DMA_STATUS_SUCCESSFUL) {
			bad++;
			continue;
		}
		ok++;
		uint64_t seq = r.op_seq[idx & (r.nslots - 1)];
		uint8_t *src = slot_of(r, r.src, slot), *dst = slot_of(r, r.dst, slot);
		if (w->op == SHELL_OP_REMOTE) { /* the peer's memory: a read's source */
			uint8_t *pm = w->peer_mem[peer_of(w, seq)] + (size_t)slot * w->size;
			*(w->remote_op == SHELL_REMOTE_READ ? &src : &dst) = pm;
		}
		if (w->verify && !verify_op(r, dst, seq, src))
			wrong++;
	}
	r.inflight -= n;
	if (n) {
		w->c.completed.fetch_add(ok, std::memory_order_relaxed);
		w->c.bytes.fetch_add(ok * w->size, std::memory_order_relaxed);
		w->c.failed.fetch_add(bad, std::memory_order_relaxed);
		w->c.corrupt.fetch_add(wrong, std::memory_order_relaxed);
	}
}

void free_state(run_state &r)
{
	rte_free(r.src);
	rte_free(r.dst);
	rte_free(r.op_seq);
	rte_free(r.op_slot);
}

int worker(void *arg)
{
	run_state r = {};
	shell_workload *w = (shell_workload *)arg;

	r.w = w;
	r.t0 = rte_get_timer_cycles();
	r.nslots = w->nslots;
	/* local memory only where the ops read or write it: a source for copies and
	 * remote writes, a destination for local ops and remote reads */
	bool remote = w->op == SHELL_OP_REMOTE;
	bool need_src = remote ? w->remote_op == SHELL_REMOTE_WRITE : w->op != SHELL_OP_FILL;
	bool need_dst = !remote || w->remote_op == SHELL_REMOTE_READ;
	size_t bytes = (size_t)r.nslots * w->size;
	r.src = need_src ? (uint8_t *)rte_malloc(NULL, bytes, 64) : NULL;
	r.dst = need_dst ? (uint8_t *)rte_zmalloc(NULL, bytes, 64) : NULL;
	r.op_seq = (uint64_t *)rte_zmalloc(NULL, r.nslots * sizeof(uint64_t), 0);
	r.op_slot = (uint32_t *)rte_zmalloc(NULL, r.nslots * sizeof(uint32_t), 0);
	if ((need_src && !r.src) || (need_dst && !r.dst) || !r.op_seq || !r.op_slot) {
		free_state(r);
		shell_workload_ready(w, -ENOMEM);
		return -ENOMEM;
	}
	for (size_t i = 0; need_src && i < bytes; i++)
		r.src[i] = (uint8_t)(i * 7 + 3);
	shell_workload_ready(w, 0);
	while (!w->stop.load(std::memory_order_relaxed)) {
		enqueue_burst(r);
		reap(r);
	}
	/* what is in flight still completes into this memory: wait for it */
	shell_drain(r.inflight, [&r]() { reap(r); });
	int ret = r.inflight ? -ETIMEDOUT : 0;
	if (!r.inflight)
		free_state(r); /* else kept on purpose: the device may still write there */
	return ret;
}

/** The worker lcores EAL enabled, "1,2,3" ("none" when it has none). */
void worker_lcores(char *buf, size_t len)
{
	unsigned int lc;
	size_t off = 0;

	buf[0] = '\0';
	RTE_LCORE_FOREACH_WORKER (lc)
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off ? "," : "", lc);
	if (!off)
		snprintf(buf, len, "none");
}

/** Whether @p lcore can run a new workload; if not, one error line saying why. */
bool lcore_free(unsigned int lcore)
{
	char workers[128];

	worker_lcores(workers, sizeof(workers));
	if (lcore == rte_get_main_lcore() || !rte_lcore_is_enabled(lcore)) {
		shell_fail("lcore %u is not a free worker lcore: %s (worker lcores: %s; more "
			   "with EAL's -l, e.g. -l 0-3)",
			   lcore,
			   lcore == rte_get_main_lcore() ? "it runs the shell"
							 : "EAL did not enable it",
			   workers);
		return false;
	}
	for (const shell_workload &w : g_wl)
		if (w.used && w.running && w.lcore == lcore) {
			shell_fail("lcore %u is not a free worker lcore: workload %u runs on it "
				   "(stop %u, take another of lcores %s, or start the shell with "
				   "more: -l 0-3)",
				   lcore, w.id, w.id, workers);
			return false;
		}
	if (rte_eal_get_lcore_state(lcore) != WAIT) {
		shell_fail("lcore %u is not a free worker lcore: still busy", lcore);
		return false;
	}
	return true;
}

/** "remote write to device 4", "remote read from devices 4,5" */
void remote_what(const shell_workload &w, char *buf, size_t len)
{
	static const char *const kWhat[] = {"write to", "read from", "fill of"};
	int off = snprintf(buf, len, "remote %s device%s ", kWhat[w.remote_op],
			   w.npeers > 1 ? "s" : "");
	for (uint16_t p = 0; p < w.npeers && off > 0 && (size_t)off < len; p++)
		off += snprintf(buf + off, len - (size_t)off, "%s%d", p ? "," : "", w.targets[p]);
}

void show_one(shell_workload &w)
{
	uint64_t now = rte_get_timer_cycles(), hz = rte_get_timer_hz();
	uint64_t done = w.c.completed.load(), bytes = w.c.bytes.load();
	uint64_t since = w.shown_tsc ? w.shown_tsc : w.start_tsc;
	double secs = (double)(now - since) / (double)hz;
	double mops = secs > 0 ? (double)(done - w.shown_completed) / secs / 1e6 : 0;
	double gbps = secs > 0 ? (double)(bytes - w.shown_bytes) * 8 / secs / 1e9 : 0;
	char errs[512] = "";
	size_t off = 0;

	for (unsigned int k = 1; k < SHELL_STATUS_KINDS; k++) {
		uint64_t v = w.c.status[k].load();
		if (v && off < sizeof(errs))
			off += (size_t)snprintf(
				errs + off, sizeof(errs) - off, "%s%s %" PRIu64, off ? ", " : "",
				w.status_names ? w.status_names[k] : kStatusNames[k], v);
	}
	char rate[48] = "";
	if (w.rate_kops)
		snprintf(rate, sizeof(rate), ", at most %u kops/s", w.rate_kops);
	static const char *const kOps[] = {"copy", "fill",           "SG copy",   "remote write",
					   "PI",   "verify+respond", "reassembly"};
	char what[48];
	if (w.label[0])
		snprintf(what, sizeof(what), "%s", w.label);
	else if (w.op == SHELL_OP_SG)
		snprintf(what, sizeof(what), "SG copy (%u pieces)", w.segs);
	else if (w.op == SHELL_OP_REMOTE)
		remote_what(w, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%s", kOps[w.op]);
	char where[48];
	if (w.op == SHELL_OP_REMOTE)
		snprintf(where, sizeof(where), "device %d remote channel", w.dev);
	else
		snprintf(where, sizeof(where), "device %d vchan %u", w.dev, w.vchan);
	shell_printf("workload %u: %s of %u B in bursts of %u, %s, lcore %u, %s%s%s\n", w.id, what,
		     w.size, w.batch, where, w.lcore, w.running ? "running" : "stopped",
		     w.verify ? ", verified" : "", rate);
	shell_printf("  completed %" PRIu64 " of %" PRIu64 " submitted, %.3f Mops, %.3f Gbps "
		     "(since the last show)\n",
		     done, w.c.submitted.load(), mops, gbps);
	shell_printf("  failed %" PRIu64 "%s%s%s, corrupt %" PRIu64 ", busy (ENOSPC) %" PRIu64 "\n",
		     w.c.failed.load(), off ? " (" : "", errs, off ? ")" : "", w.c.corrupt.load(),
		     w.c.busy.load());
	if (w.op == SHELL_OP_PI)
		shell_pi_show(&w);
	w.shown_tsc = now;
	w.shown_completed = done;
	w.shown_bytes = bytes;
}

} // namespace

const char *shell_status_name(unsigned int st)
{
	return kStatusNames[st < SHELL_STATUS_KINDS - 1 ? st : SHELL_STATUS_KINDS - 1];
}

bool shell_workload_on(int16_t dev)
{
	for (const shell_workload &w : g_wl)
		if (w.used && w.running &&
		    (w.dev == dev || std::count(w.targets, w.targets + w.npeers, dev)))
			return true;
	return false;
}

namespace {

/** Marks a workload that owns no vchan (a remote channel of its own). */
constexpr uint16_t kNoVchan = UINT16_MAX;

} // namespace

namespace {

/** The slot a new workload takes: a never used one first (stopped ones keep their stats). */
shell_workload *free_slot(void)
{
	for (shell_workload &x : g_wl)
		if (!x.used)
			return &x;
	for (shell_workload &x : g_wl)
		if (!x.running && !x.stale)
			return &x;
	return NULL;
}

} // namespace

uint32_t shell_workload_slots(uint16_t batch)
{
	return rte_align32pow2(RTE_MAX(2u * batch, 4u));
}

int shell_workload_check(int16_t dev, uint16_t vchan, uint32_t size, uint16_t batch,
			 unsigned int lcore)
{
	if (size == 0 || size > (1u << 20)) {
		shell_fail("size %u out of range: 1..1048576 bytes", size);
		return -1;
	}
	if (batch == 0 || batch > 256) {
		shell_fail("burst %u out of range: 1..256 ops", batch);
		return -1;
	}
	if (!lcore_free(lcore))
		return -1;
	for (shell_workload &x : g_wl) {
		if (vchan == kNoVchan || !x.used || x.dev != dev || x.vchan != vchan)
			continue;
		if (x.running) {
			shell_fail("workload %u runs on device %d vchan %u: one lcore per vchan",
				   x.id, dev, vchan);
			return -1;
		}
		if (x.stale) {
			shell_fail("device %d vchan %u still has ops of stopped workload %u in "
				   "flight: set the device up again",
				   dev, vchan, x.id);
			return -1;
		}
	}
	if (!free_slot()) {
		shell_fail("%d workloads run already", SHELL_MAX_WORKLOADS);
		return -1;
	}
	return 0;
}

shell_workload *shell_workload_prepare(enum shell_op op, int16_t dev, uint16_t vchan, uint32_t size,
				       uint16_t batch, unsigned int lcore)
{
	if (shell_workload_check(dev, vchan, size, batch, lcore))
		return NULL;
	shell_workload *w = free_slot();
	w->id = (unsigned int)(w - g_wl);
	w->op = op;
	w->dev = dev;
	w->vchan = vchan;
	w->size = size;
	w->batch = batch;
	w->segs = 1;
	w->nslots = shell_workload_slots(batch);
	w->ch = NULL;
	w->npeers = 0;
	w->remote_op = SHELL_REMOTE_WRITE;
	w->pi_ctx = NULL;
	w->bad_permille = 0;
	w->reasm = NULL;
	w->status_names = NULL;
	w->label[0] = '\0';
	w->lcore = lcore;
	w->verify = shell_verify;
	w->rate_kops = shell_rate_kops;
	w->stop = false;
	w->ready = 0;
	w->stale = false;
	w->exit_code = 0;
	w->shown_tsc = 0;
	w->shown_completed = w->shown_bytes = 0;
	w->c.submitted = w->c.completed = w->c.bytes = w->c.failed = 0;
	w->c.corrupt = w->c.busy = 0;
	w->c.xcheck_run = w->c.xcheck_failed = 0;
	w->c.xcheck_run_base = w->c.xcheck_failed_base = 0;
	for (auto &st : w->c.status)
		st = 0;
	return w;
}

int shell_workload_launch(shell_workload *w, int (*fn)(void *))
{
	w->used = true;
	w->start_tsc = rte_get_timer_cycles();
	if (rte_eal_remote_launch(fn, w, w->lcore) != 0) {
		shell_fail("lcore %u cannot be launched", w->lcore);
		return -1;
	}
	w->running = true;
	/* its memory and state are the lcore's to set up: wait for the verdict */
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * 10;
	while (w->ready.load() == 0 && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	if (w->ready.load() > 0)
		return (int)w->id;
	w->stop = true;
	int ret = rte_eal_wait_lcore(w->lcore);
	w->running = false;
	w->used = false; /* nothing ran: no stats to keep */
	shell_fail("workload %u could not start: %s", w->id,
		   strerror(ret < 0 ? -ret
			    : ret   ? ret
				    : ETIMEDOUT));
	return -1;
}

void shell_workload_ready(shell_workload *w, int err)
{
	w->ready = err < 0 ? err : 1;
}

uint16_t shell_rate_room(const shell_workload *w, uint64_t *t0, uint64_t done, uint16_t room)
{
	if (!w->rate_kops)
		return room;
	/* ops the rate allows since t0, in double: no overflow however long it runs */
	double hz = (double)rte_get_timer_hz(), per_sec = w->rate_kops * 1000.0;
	double allowed = (double)(rte_get_timer_cycles() - *t0) / hz * per_sec;
	/*
	 * at most 10 ms (or a burst) of credit: a worker that was held up (descheduled,
	 * a full ring) goes on at the rate instead of catching up at full speed
	 */
	double credit = RTE_MAX((double)room, per_sec / 100);
	if (allowed - (double)done > credit) {
		*t0 += (uint64_t)((allowed - (double)done - credit) / per_sec * hz);
		allowed = (double)done + credit;
	}
	if (allowed <= (double)done)
		return 0;
	return (uint16_t)RTE_MIN((double)room, allowed - (double)done);
}

void shell_workload_reset(int16_t dev)
{
	for (shell_workload &w : g_wl)
		if (w.used && w.dev == dev)
			w.stale = false;
}

namespace {

/* The DC target of each device, made the first time a remote workload needs it. */
struct rte_pmd_dma_mlx5_remote_target g_target[RTE_DMADEV_DEFAULT_MAX];
bool g_has_target[RTE_DMADEV_DEFAULT_MAX];
constexpr uint64_t kDcKey = 0x5e11;

} // namespace

int shell_workload_start(enum shell_op op, int16_t dev, uint16_t vchan, uint32_t size,
			 uint16_t segs, uint16_t batch, unsigned int lcore)
{
	struct rte_dma_info info;

	if (rte_dma_info_get(dev, &info) != 0) {
		shell_fail("no dmadev %d", dev);
		return -1;
	}
	if (vchan >= info.nb_vchans) {
		shell_fail("device %d has %u vchans set up: no vchan %u (setup first)", dev,
			   info.nb_vchans, vchan);
		return -1;
	}
	if (op == SHELL_OP_FILL && !(info.dev_capa & RTE_DMA_CAPA_OPS_FILL)) {
		shell_fail("device %d has no fill", dev);
		return -1;
	}
	if (op == SHELL_OP_SG && (!(info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG) || segs < 1 ||
				  segs > info.max_sges || segs > SHELL_MAX_SEGS || segs > size)) {
		shell_fail("segments %u out of range: device %d takes 1..%u (and no more than the "
			   "bytes)",
			   segs, dev,
			   (info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG) ? info.max_sges : 0);
		return -1;
	}
	shell_workload *w = shell_workload_prepare(op, dev, vchan, size, batch, lcore);
	if (!w)
		return -1;
	if (op == SHELL_OP_SG)
		w->segs = segs;
	return shell_workload_launch(w, worker);
}

namespace {

/** A remote workload's channel, and its peers' memory if @p free_mem (the device is done). */
void remote_release(shell_workload *w, bool free_mem)
{
	rte_pmd_dma_mlx5_remote_free(w->ch); /* waits for what the device still owes */
	w->ch = NULL;
	for (uint16_t p = 0; p < w->npeers; p++) {
		/* revoked in any case: memory kept for a late write stays out of reach */
		rte_pmd_dma_mlx5_remote_rkey_release(w->targets[p], w->peer_rkey[p]);
		if (free_mem)
			rte_free(w->peer_mem[p]);
		w->peer_mem[p] = NULL;
	}
}

/** The DC target of device @p dev, made the first time; 0 or -1 (printed). */
int target_of(int16_t dev)
{
	if (g_has_target[dev])
		return 0;
	int ret = rte_pmd_dma_mlx5_remote_target_create(dev, kDcKey, &g_target[dev]);
	if (ret) {
		shell_fail("no DC target on device %d: %s", dev, strerror(-ret));
		return -1;
	}
	g_has_target[dev] = true;
	return 0;
}

} // namespace

int shell_workload_start_remote(enum shell_remote_op op, int16_t dev, const int16_t *targets,
				uint16_t npeers, uint32_t size, uint16_t batch, unsigned int lcore)
{
	struct rte_pmd_dma_mlx5_caps caps;

	if (rte_pmd_dma_mlx5_get_caps(dev, &caps) != 0) {
		shell_fail("device %d: not a dma_mlx5 device", dev);
		return -1;
	}
	if (npeers == 0 || npeers > SHELL_MAX_PEERS) {
		shell_fail("%u targets: 1..%u wanted", npeers, SHELL_MAX_PEERS);
		return -1;
	}
	for (uint16_t p = 0; p < npeers; p++) {
		int16_t t = targets[p];
		if (t == dev || rte_pmd_dma_mlx5_get_caps(t, &caps) != 0 ||
		    std::count(targets, targets + p, t)) {
			shell_fail("target device %d: a dma_mlx5 device other than %d and the "
				   "other targets wanted",
				   t, dev);
			return -1;
		}
	}
	if (shell_workload_check(dev, kNoVchan, size, batch, lcore))
		return -1;
	/* everything the workload needs first: a refusal then leaves no trace */
	for (uint16_t p = 0; p < npeers; p++)
		if (target_of(targets[p]))
			return -1;
	uint32_t nslots = shell_workload_slots(batch);
	size_t len = (size_t)nslots * size;
	uint8_t *mem[SHELL_MAX_PEERS] = {};
	uint32_t rkey[SHELL_MAX_PEERS] = {};
	uint16_t keys = 0; /* targets 0 .. keys - 1 made theirs */
	struct rte_pmd_dma_mlx5_remote *ch =
		rte_pmd_dma_mlx5_remote_create(dev, (uint16_t)RTE_MAX(32u, 2 * nslots));
	int ret = ch ? 0 : -rte_errno, bad = targets[0];
	for (uint16_t p = 0; ret == 0 && p < npeers; p++) {
		struct rte_pmd_dma_mlx5_remote_peer peer = {};
		bad = targets[p];
		mem[p] = (uint8_t *)rte_zmalloc(NULL, len, 64);
		peer.target = g_target[targets[p]];
		ret = mem[p] ? rte_pmd_dma_mlx5_remote_rkey(targets[p], mem[p], (uint32_t)len,
							    &rkey[p])
			     : -ENOMEM;
		if (ret == 0) {
			keys = (uint16_t)(p + 1);
			peer.rkey = rkey[p];
			ret = rte_pmd_dma_mlx5_remote_peer_add(ch, &peer);
			ret = ret < 0 ? ret : 0;
		}
	}
	shell_workload *w = ret < 0 ? NULL
				    : shell_workload_prepare(SHELL_OP_REMOTE, dev, kNoVchan, size,
							     batch, lcore);
	if (!w) {
		if (ret < 0)
			shell_fail("remote channel from device %d to device %d: %s (both on one "
				   "fabric: sim_fabric=1)",
				   dev, bad, strerror(-ret));
		rte_pmd_dma_mlx5_remote_free(ch);
		for (uint16_t p = 0; p < keys; p++)
			rte_pmd_dma_mlx5_remote_rkey_release(targets[p], rkey[p]);
		for (uint8_t *m : mem)
			rte_free(m);
		return -1;
	}
	w->ch = ch;
	w->remote_op = op;
	w->npeers = npeers;
	for (uint16_t p = 0; p < npeers; p++) {
		w->targets[p] = targets[p];
		w->peer_mem[p] = mem[p];
		w->peer_rkey[p] = rkey[p];
	}
	int id = shell_workload_launch(w, worker);
	if (id < 0 && !w->stale)
		remote_release(w, true);
	return id;
}

void shell_workload_forget(int16_t dev)
{
	if (dev >= 0 && dev < RTE_DMADEV_DEFAULT_MAX)
		g_has_target[dev] = false;
	shell_workload_reset(dev);
}

int shell_workload_stop(int id)
{
	int found = 0;

	for (shell_workload &w : g_wl) {
		if (!w.used || !w.running || (id >= 0 && (int)w.id != id))
			continue;
		w.stop = true;
		w.exit_code = rte_eal_wait_lcore(w.lcore);
		w.running = false;
		w.stale = w.exit_code == -ETIMEDOUT;
		if (w.op == SHELL_OP_REMOTE) {
			/* waits for what the device still owes; the memory only if it paid */
			remote_release(&w, w.exit_code == 0);
		}
		if (w.op == SHELL_OP_PI)
			shell_pi_release(&w);
		if (w.op == SHELL_OP_REASM)
			shell_reasm_release(&w);
		found++;
		shell_printf("workload %u stopped%s\n", w.id,
			     w.exit_code == -ETIMEDOUT ? ": ops still in flight after 2 s" : "");
		show_one(w);
	}
	return found || id < 0 ? 0 : -1;
}

shell_workload *shell_workload_running(int16_t dev, uint16_t vchan)
{
	for (shell_workload &w : g_wl)
		if (w.used && w.running && w.op != SHELL_OP_REMOTE && w.dev == dev &&
		    w.vchan == vchan)
			return &w;
	return NULL;
}

int shell_workload_show(int id)
{
	int found = 0;

	for (shell_workload &w : g_wl)
		if (w.used && (id < 0 || (int)w.id == id)) {
			show_one(w);
			found++;
		}
	if (!found && id < 0)
		shell_printf("no workloads\n");
	return found || id < 0 ? 0 : -1;
}

namespace {

/** Zero @p c without losing what its lcore adds meanwhile; what it held. */
uint64_t take(std::atomic<uint64_t> &c)
{
	uint64_t v = c.load();

	c.fetch_sub(v);
	return v;
}

} // namespace

void shell_workload_clear(void)
{
	for (shell_workload &w : g_wl) {
		/*
		 * The ops in flight stay submitted (they complete after the clear): submitted
		 * loses only what completed or failed. Taken while the lcore counts on, as
		 * it counts submitted before those ops complete.
		 */
		uint64_t done = take(w.c.completed) + take(w.c.failed);
		w.c.submitted.fetch_sub(RTE_MIN(done, w.c.submitted.load()));
		take(w.c.bytes);
		take(w.c.corrupt);
		take(w.c.busy);
		for (auto &s : w.c.status)
			take(s);
		if (w.used && w.op == SHELL_OP_PI)
			shell_pi_clear(&w);
		w.shown_tsc = rte_get_timer_cycles();
		w.shown_completed = w.shown_bytes = 0;
	}
}
