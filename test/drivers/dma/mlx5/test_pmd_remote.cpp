/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma_mlx5 remote copies over DC (rte_pmd_dma_mlx5_remote_*) between dma_mlx5
 * devices on software HCAs of one simulated fabric: targets, rkeys, channels, writes
 * and reads checked byte for byte; many peers with bad ones among them (wrong key,
 * wrong rkey, a host whose link goes down) while the others run: every op reported
 * exactly once, in ring order, with its exact status, no healthy op lost, no bad op
 * writing; more bad peers at once than streams can hold, and a device without
 * streams (DCI recovery); bad input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include <vector>

#include <CUnit/Basic.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "cunit_run.h"
#include "mlx5_sim.h"
#include "spawn_self.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/* software HCAs: requesters, targets (one thread mode), no streams, no DC */
const char *const S_REQ = "sim81";
const char *const S_T1 = "sim82";
const char *const S_T2 = "sim83";
const char *const S_NOSTREAM = "sim84";
const char *const S_NODC = "sim85";
const char *const S_INORDER = "sim87"; /* a target that promises WHOLE_MSG */
int16_t d_req, d_t1, d_t2, d_nostream, d_nodc, d_inorder;

constexpr uint32_t kSlot = 64; /* bytes each op owns at the target */
constexpr int kTimeoutMs = 20000;

int add(const char *name, enum mlx5_sim_exec_mode mode, uint8_t dc, uint8_t log_errored)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.fabric = 1;
	attr.dc = dc;
	attr.dci_max_log_errored = log_errored;
	return mlx5_sim_device_add(name, &attr);
}

int16_t probe(const char *vdev, const char *sim)
{
	char args[64];

	snprintf(args, sizeof(args), "dev=%s", sim);
	return (int16_t)t_probe(vdev, args);
}

/** A peer on a target device: a DCT and a zeroed DPDK buffer of @p ops slots. */
struct Target {
	int16_t dev;
	uint8_t *buf;
	size_t len;
	struct rte_pmd_dma_mlx5_remote_peer peer;
};

void target_make(Target &t, int16_t dev, uint64_t key, uint32_t ops)
{
	t.dev = dev;
	t.len = (size_t)ops * kSlot;
	t.buf = (uint8_t *)rte_zmalloc(NULL, t.len, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.buf);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_target_create(dev, key, &t.peer.target), 0);
	CU_ASSERT_EQUAL_FATAL(
		rte_pmd_dma_mlx5_remote_rkey(dev, t.buf, (uint32_t)t.len, &t.peer.rkey), 0);
}

/**
 * Memory another application of a host registered: an MR in a PD of its own, which
 * the host's DC targets do not share (as after IBV_REREG_MR_CHANGE_PD moved it).
 */
struct ForeignMr {
	const struct mlx5_glue *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
};

/** Register @p buf in a new PD of a new context of @p sim (no CUnit: the child uses it). */
bool foreign_mr(ForeignMr &f, const char *sim, void *buf, size_t len)
{
	struct ibv_device *device;

	if (mlx5_glue_find_device(sim, &f.g, &device))
		return false;
	f.ctx = f.g->open_device(device);
	mlx5_glue_put_device(f.g, device); /* the context keeps the instance */
	f.pd = f.ctx ? f.g->alloc_pd(f.ctx) : NULL;
	f.mr = f.pd ? f.g->reg_mr(f.pd, buf, len,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ)
		    : NULL;
	return f.mr != NULL;
}

void foreign_mr_free(ForeignMr &f)
{
	CU_ASSERT_EQUAL(f.g->dereg_mr(f.mr), 0);
	CU_ASSERT_EQUAL(f.g->dealloc_pd(f.pd), 0);
	CU_ASSERT_EQUAL(f.g->close_device(f.ctx), 0);
}

/** The patterns of the fills among the ops (6: fewer than a channel keeps). */
uint64_t fill_pattern(uint32_t op)
{
	return 0x0807060504030201ull * (op % 6 + 1);
}

/** Op @p op of a mixed run is a fill (else a write). */
bool is_fill(uint32_t op)
{
	return op % 5 == 4;
}

/** The bytes op @p op leaves in its kSlot-byte slot: @p src's, or its fill pattern's. */
void op_bytes(uint32_t op, const uint8_t *src, uint8_t *out)
{
	if (!is_fill(op)) {
		memcpy(out, src + (size_t)op * kSlot, kSlot);
		return;
	}
	uint64_t pat = fill_pattern(op);
	for (uint32_t k = 0; k < kSlot; k += 8)
		memcpy(out + k, &pat, 8);
}

/** Op @p op of a mixed run, to @p raddr of @p peer: a fill, or a write from @p src's slot. */
int enqueue_mixed(struct rte_pmd_dma_mlx5_remote *ch, uint16_t peer, uint32_t op,
		  const uint8_t *src, uint64_t raddr)
{
	if (is_fill(op))
		return rte_pmd_dma_mlx5_remote_fill(ch, peer, fill_pattern(op), raddr, kSlot, 0);
	return rte_pmd_dma_mlx5_remote_write(ch, peer, t_iova(src + (size_t)op * kSlot), raddr,
					     kSlot, 0);
}

/** Wait until @p n ops were reported; statuses into @p st in ring order. */
void wait_all(struct rte_pmd_dma_mlx5_remote *ch, uint16_t first, uint32_t n,
	      std::vector<enum rte_dma_status_code> *st)
{
	uint64_t deadline = t_now_ms() + kTimeoutMs;
	enum rte_dma_status_code buf[64];
	uint16_t last = 0;

	st->clear();
	while (st->size() < n && t_now_ms() < deadline) {
		uint16_t k = rte_pmd_dma_mlx5_remote_completed(ch, 64, &last, buf);
		if (k) {
			/* ring order: the last index follows from what was reported */
			CU_ASSERT_EQUAL(last, (uint16_t)(first + st->size() + k - 1));
			st->insert(st->end(), buf, buf + k);
		}
	}
	CU_ASSERT_EQUAL_FATAL(st->size(), n);
}

/* ---- tests ---- */

void test_bad_input(void)
{
	Target t;
	uint32_t rkey;
	uint8_t *plain = (uint8_t *)malloc(4096);

	CU_ASSERT_PTR_NULL(rte_pmd_dma_mlx5_remote_create(d_req, 100));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(rte_pmd_dma_mlx5_remote_create(d_req, 16));
	CU_ASSERT_PTR_NULL(rte_pmd_dma_mlx5_remote_create(-1, 64));
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, plain, 64, &rkey), -ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, NULL, 64, &rkey), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_target_create(d_t1, 1, NULL), -EINVAL);
	/* a device without DC */
	struct rte_pmd_dma_mlx5_remote_target tg;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_target_create(d_nodc, 1, &tg), -ENOTSUP);
	CU_ASSERT_PTR_NULL(rte_pmd_dma_mlx5_remote_create(d_nodc, 64));
	CU_ASSERT_EQUAL(rte_errno, ENOTSUP);

	target_make(t, d_t1, 0x11, 4);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(d_req, 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add(ch, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add(NULL, &t.peer), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t.peer), 0);
	uint8_t *src = (uint8_t *)rte_zmalloc(NULL, 4096, 64);
	/* unknown peer, bad length, unregistered local memory: refused, nothing enqueued */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(ch, 1, t_iova(src), (uintptr_t)t.buf, 8, 0),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(src), (uintptr_t)t.buf, 0, 0),
			-EINVAL);
	CU_ASSERT_EQUAL(
		rte_pmd_dma_mlx5_remote_write(ch, 0, (uintptr_t)plain, (uintptr_t)t.buf, 8, 0),
		-EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(NULL, 0, t_iova(src), (uintptr_t)t.buf, 8, 0),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_submit(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 1, 7, (uintptr_t)t.buf, 8, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 0, 7, (uintptr_t)t.buf, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(NULL, 0, 7, (uintptr_t)t.buf, 8, 0), -EINVAL);
	/* the ring holds 32 ops not yet reported */
	for (int i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(src), (uintptr_t)t.buf, 8, 0),
			i);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(src), (uintptr_t)t.buf, 8, 0),
			-ENOSPC);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_submit(ch), 0);
	std::vector<enum rte_dma_status_code> st;
	wait_all(ch, 0, 32, &st);
	for (auto s : st)
		CU_ASSERT_EQUAL(s, RTE_DMA_STATUS_SUCCESSFUL);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	rte_free(t.buf);
	free(plain);

	/* a device without indirect mkeys (min_desc below a fill's WQEs): copies, no fills */
	CU_ASSERT_EQUAL_FATAL(add("sim88", MLX5_SIM_EXEC_INLINE, 1, 3), 0);
	int16_t nomkey = (int16_t)t_probe("dma_mlx5_r88", "dev=sim88,min_desc=4");
	CU_ASSERT_FATAL(nomkey >= 0);
	target_make(t, d_t1, 0x12, 4);
	ch = rte_pmd_dma_mlx5_remote_create(nomkey, 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t.peer), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 0, 7, (uintptr_t)t.buf, 8, 0), -ENOTSUP);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(t.buf);
	CU_ASSERT_EQUAL(t_remove("dma_mlx5_r88"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim88"), 0);
}

/**
 * Fills with more patterns than a channel keeps: 8 outstanding patterns, a ninth
 * refused (-ENOSPC, nothing enqueued); once reported, 64 new patterns in bursts of
 * 4 reuse the sources, each fill's bytes exact; lengths from 1 to 3 patterns long.
 */
void test_fill_patterns(void)
{
	constexpr uint32_t kFills = 64;
	std::vector<enum rte_dma_status_code> st;
	Target t;

	target_make(t, d_t2, 0xf111, 16 + kFills);
	uint8_t *area = t.buf + 16 * kSlot; /* the second part's, zero */
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(d_req, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t.peer), 0);
	auto pat = [](uint32_t i) { return 0x9e3779b97f4a7c15ull * (i + 1); };
	for (uint32_t i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(
					ch, 0, pat(i), (uintptr_t)t.buf + i * kSlot, kSlot, 0),
				(int)i);
	/* a pattern held costs no source; a ninth one does */
	CU_ASSERT_EQUAL(
		rte_pmd_dma_mlx5_remote_fill(ch, 0, pat(3), (uintptr_t)t.buf + 8 * kSlot, kSlot, 0),
		8);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 0, pat(100), (uintptr_t)t.buf, kSlot, 0),
			-ENOSPC);
	rte_pmd_dma_mlx5_remote_submit(ch);
	wait_all(ch, 0, 9, &st);
	uint16_t idx = 9;
	for (uint32_t i = 0; i < kFills; i += 4) {
		for (uint32_t k = i; k < i + 4; k++) {
			uint32_t len = 1 + (k * 29) % kSlot;
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 0, pat(1000 + k),
								     (uintptr_t)area + k * kSlot,
								     len, RTE_DMA_OP_FLAG_SUBMIT),
					(int)idx++);
		}
		wait_all(ch, (uint16_t)(idx - 4), 4, &st);
		for (auto x : st)
			CU_ASSERT_EQUAL(x, RTE_DMA_STATUS_SUCCESSFUL);
	}
	for (uint32_t k = 0; k < kFills; k++) {
		uint32_t len = 1 + (k * 29) % kSlot;
		uint64_t p = pat(1000 + k);
		const uint8_t *b = (const uint8_t *)&p;
		bool ok = true;
		for (uint32_t j = 0; j < kSlot; j++)
			ok &= area[k * kSlot + j] == (j < len ? b[j % 8] : 0);
		CU_ASSERT_TRUE(ok);
	}
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(t.buf);
}

/* writes then reads of random sizes to one peer, checked byte for byte */
void run_basic(int16_t target_dev)
{
	constexpr uint32_t kOps = 200;
	std::vector<enum rte_dma_status_code> st;
	Target t;

	target_make(t, target_dev, 0xbadc0de, kOps);
	uint8_t *src = (uint8_t *)rte_zmalloc(NULL, (size_t)kOps * kSlot, 64);
	uint8_t *back = (uint8_t *)rte_zmalloc(NULL, (size_t)kOps * kSlot, 64);
	CU_ASSERT_FATAL(src && back);
	t_fill(src, (size_t)kOps * kSlot, 5);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(d_req, 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t.peer), 0);
	for (uint32_t i = 0; i < kOps; i++) {
		uint32_t len = 1 + (i * 37) % kSlot;
		int idx = rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(src + i * kSlot),
							(uintptr_t)t.buf + i * kSlot, len,
							i % 16 == 15 ? RTE_DMA_OP_FLAG_SUBMIT : 0);
		CU_ASSERT_EQUAL(idx, (int)i);
	}
	rte_pmd_dma_mlx5_remote_submit(ch);
	wait_all(ch, 0, kOps, &st);
	for (uint32_t i = 0; i < kOps; i++) {
		uint32_t len = 1 + (i * 37) % kSlot;
		CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(t.buf + i * kSlot, src + i * kSlot, len), 0);
		CU_ASSERT_EQUAL(t.buf[i * kSlot + len % kSlot],
				len == kSlot ? t.buf[i * kSlot] : 0);
	}
	/* read it all back */
	for (uint32_t i = 0; i < kOps; i++)
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_read(ch, 0, (uintptr_t)t.buf + i * kSlot,
							     t_iova(back + i * kSlot), kSlot,
							     RTE_DMA_OP_FLAG_SUBMIT),
				(int)(uint16_t)(kOps + i));
	wait_all(ch, kOps, kOps, &st);
	CU_ASSERT_EQUAL(memcmp(back, t.buf, (size_t)kOps * kSlot), 0);
	struct rte_pmd_dma_mlx5_remote_stats s;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_stats_get(ch, &s), 0);
	CU_ASSERT_EQUAL(s.submitted, 2u * kOps);
	CU_ASSERT_EQUAL(s.completed, 2u * kOps);
	CU_ASSERT_EQUAL(s.errors, 0u);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	rte_free(back);
	rte_free(t.buf);
}

void test_basic_inline(void)
{
	run_basic(d_t1);
}

void test_basic_thread(void)
{
	run_basic(d_t2);
}

/** What a peer does wrong. */
enum Fault {
	GOOD,
	BAD_KEY,
	BAD_RKEY,
	OTHER_PD, /**< its memory's MR is in a PD the target does not share */
	DOWN
};

/** The status every op towards a peer with @p f ends with (or NOT_ATTEMPTED). */
enum rte_dma_status_code status_for(Fault f)
{
	return f == GOOD                        ? RTE_DMA_STATUS_SUCCESSFUL
	       : f == BAD_RKEY || f == OTHER_PD ? RTE_DMA_STATUS_INVALID_ADDR
						: RTE_DMA_STATUS_DEV_LINK_ERROR;
}

/**
 * @p npeers peers split over both target devices, @p faults[i] for peer i; @p ops
 * writes and fills (one in five) to random peers, each to a slot of its own. Every
 * op reported once with the status its peer implies; healthy bytes land, a bad op
 * writes nothing.
 */
void run_peers(int16_t req, const std::vector<Fault> &faults, uint32_t ops,
	       struct rte_pmd_dma_mlx5_remote_stats *out)
{
	const uint32_t npeers = (uint32_t)faults.size();
	std::vector<Target> t(npeers);
	std::vector<ForeignMr> foreign(npeers);
	std::vector<uint32_t> to(ops);
	std::vector<enum rte_dma_status_code> st;
	bool down = false;

	for (uint32_t p = 0; p < npeers; p++) {
		bool on_t2 = faults[p] == DOWN || p % 2;
		target_make(t[p], on_t2 ? d_t2 : d_t1, 0x1000 + p, ops);
		if (faults[p] == BAD_KEY)
			t[p].peer.target.dc_key ^= 1;
		if (faults[p] == BAD_RKEY)
			t[p].peer.rkey ^= 0x100; /* another key index: not this memory's MR */
		if (faults[p] == OTHER_PD) {
			CU_ASSERT_FATAL(foreign_mr(foreign[p], t[p].dev == d_t2 ? S_T2 : S_T1,
						   t[p].buf, t[p].len));
			t[p].peer.rkey = foreign[p].mr->rkey;
		}
		down |= faults[p] == DOWN;
	}
	/* a DOWN peer lives on S_T2, whose link is taken down: its other peers too */
	for (uint32_t p = 0; down && p < npeers; p++)
		if (t[p].dev == d_t2 && faults[p] == GOOD)
			CU_FAIL_FATAL("a GOOD peer on the host that goes down");
	uint8_t *src = (uint8_t *)rte_zmalloc(NULL, (size_t)ops * kSlot, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	t_fill(src, (size_t)ops * kSlot, 9);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(req, 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	for (uint32_t p = 0; p < npeers; p++)
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t[p].peer), (int)p);
	if (down) {
		struct mlx5_sim_link link = {1, 0, 0, 0};
		CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_set_link(S_T2, &link), 0);
	}
	uint32_t done = 0, posted = 0, seed = 12345;
	enum rte_dma_status_code buf[64];
	uint16_t last;
	uint64_t deadline = t_now_ms() + kTimeoutMs;
	while (done < ops && t_now_ms() < deadline) {
		/* keep up to 300 ops in flight, bursts of up to 24 */
		for (uint32_t b = 0; b < 24 && posted < ops && posted - done < 300; b++) {
			seed = seed * 1103515245 + 12345;
			uint32_t p = (seed >> 16) % npeers;
			to[posted] = p;
			int idx = enqueue_mixed(ch, (uint16_t)p, posted, src,
						(uintptr_t)t[p].buf + posted * kSlot);
			CU_ASSERT_EQUAL_FATAL(idx, (int)(uint16_t)posted);
			posted++;
		}
		rte_pmd_dma_mlx5_remote_submit(ch);
		uint16_t k = rte_pmd_dma_mlx5_remote_completed(ch, 64, &last, buf);
		for (uint16_t i = 0; i < k; i++)
			st.push_back(buf[i]);
		if (k)
			CU_ASSERT_EQUAL(last, (uint16_t)(done + k - 1));
		done += k;
	}
	CU_ASSERT_EQUAL_FATAL(done, ops);
	for (uint32_t i = 0; i < ops; i++) {
		uint32_t p = to[i];
		uint8_t want_bytes[kSlot];
		/* a failing peer's ops flushed twice by its failures end NOT_ATTEMPTED */
		CU_ASSERT(st[i] == status_for(faults[p]) ||
			  (faults[p] != GOOD && st[i] == RTE_DMA_STATUS_NOT_ATTEMPTED));
		op_bytes(i, src, want_bytes);
		bool landed = memcmp(t[p].buf + i * kSlot, want_bytes, kSlot) == 0;
		CU_ASSERT_EQUAL(landed, faults[p] == GOOD);
	}
	if (down) {
		struct mlx5_sim_link link = {0, 0, 0, 0};
		CU_ASSERT_EQUAL(mlx5_sim_device_set_link(S_T2, &link), 0);
	}
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_stats_get(ch, out), 0);
	CU_ASSERT_EQUAL(out->completed, ops);
	printf("\n    %u ops to %u peers: %" PRIu64 " not done, %" PRIu64 " posted again, %" PRIu64
	       " stream resets, %" PRIu64 " DCI recoveries ",
	       ops, npeers, out->errors, out->reposted, out->stream_resets, out->dci_recoveries);
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	for (uint32_t p = 0; p < npeers; p++) {
		if (faults[p] == OTHER_PD)
			foreign_mr_free(foreign[p]);
		rte_free(t[p].buf);
	}
}

/* 16 peers: a wrong key, a wrong rkey, memory in another PD; the others unharmed */
void test_one_bad_peer(void)
{
	std::vector<Fault> f(16, GOOD);
	struct rte_pmd_dma_mlx5_remote_stats s;

	f[3] = BAD_KEY; /* odd peers live on the thread host, even ones on the inline one */
	f[6] = BAD_RKEY;
	f[9] = OTHER_PD;
	run_peers(d_req, f, 3000, &s);
	CU_ASSERT(s.errors > 0);
	CU_ASSERT(s.stream_resets > 0);
	CU_ASSERT_EQUAL(s.dci_recoveries, 0u);
}

/* 64 peers: the thread host's link goes down; the inline host's peers unharmed */
void test_host_down(void)
{
	std::vector<Fault> f(64, GOOD);
	struct rte_pmd_dma_mlx5_remote_stats s;

	for (uint32_t p = 1; p < 64; p += 2)
		f[p] = DOWN;
	run_peers(d_req, f, 3000, &s);
	/* 32 streams fail at once, more than the 8 the device keeps: DCI recoveries */
	CU_ASSERT(s.dci_recoveries > 0);
	/* link up again: everybody reachable */
	std::vector<Fault> good(8, GOOD);
	run_peers(d_req, good, 500, &s);
	CU_ASSERT_EQUAL(s.errors, 0u);
}

/* a device without DCI streams: every failure resets the DCI; nothing lost */
void test_no_streams(void)
{
	std::vector<Fault> f(8, GOOD);
	struct rte_pmd_dma_mlx5_remote_stats s;

	f[2] = BAD_KEY;
	run_peers(d_nostream, f, 1500, &s);
	CU_ASSERT(s.dci_recoveries > 0);
	CU_ASSERT_EQUAL(s.stream_resets, 0u);
}

/**
 * The reader of poll-on-data: waits for message @p m's last byte to be @p mark, then
 * compares the message with @p src. It races with the device by design, as a CPU
 * reading a DMA target does, so ThreadSanitizer does not instrument it. Returns -1
 * (never arrived), 1 (torn: the last byte came before the rest) or 0.
 */
__attribute__((no_sanitize_thread)) int read_on_data(const uint8_t *m, const uint8_t *src,
						     uint32_t len, uint8_t mark)
{
	/* rte_pmd_dma_mlx5_remote_arrived() by hand: TSan instruments its atomic load */
	volatile const uint8_t *d = m;
	uint64_t deadline = t_now_ms() + kTimeoutMs;
	while (d[len - 1] != mark)
		if (t_now_ms() > deadline)
			return -1;
	std::atomic_thread_fence(std::memory_order_acquire);
	for (uint32_t i = 0; i < len; i++)
		if (d[i] != src[i])
			return 1;
	return 0;
}

/**
 * Poll-on-data: @p nmsg writes of kMsg bytes to @p target_dev, each ending with its
 * own mark, while a second thread waits for each message's last byte and then
 * compares the whole message. Returns the arrivals seen before the rest had landed.
 */
uint32_t poll_on_data(int16_t target_dev, uint32_t nmsg)
{
	/* long enough that a reader waiting at the message sees it land */
	constexpr uint32_t kMsg = 1u << 20;
	Target t;
	target_make(t, target_dev, 0xd10, nmsg * kMsg / kSlot);
	uint8_t *src = (uint8_t *)rte_zmalloc(NULL, (size_t)nmsg * kMsg, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	t_fill(src, (size_t)nmsg * kMsg, 3);
	for (uint32_t i = 0; i < nmsg; i++)
		src[(size_t)i * kMsg + kMsg - 1] =
			(uint8_t)(i % 255 + 1); /* never 0: the buffer's */
	std::atomic<uint32_t> torn{0}, seen{0};
	std::thread reader([&] {
		/* off the main lcore's CPU, where EAL pinned this thread's creator */
		cpu_set_t cpus;
		mlx5_sim_default_engine_cpus(&cpus);
		pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
		for (uint32_t i = 0; i < nmsg; i++) {
			int r = read_on_data(t.buf + (size_t)i * kMsg, src + (size_t)i * kMsg, kMsg,
					     (uint8_t)(i % 255 + 1));
			if (r < 0)
				return;
			torn += (uint32_t)r;
			seen++;
		}
	});
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(d_req, 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &t.peer), 0);
	std::vector<enum rte_dma_status_code> st;
	for (uint32_t i = 0; i < nmsg; i += 1) {
		uint32_t n = 1; /* one at a time, once the reader waits for it */
		uint64_t deadline = t_now_ms() + kTimeoutMs;
		while (seen.load() < i && t_now_ms() < deadline)
			;
		for (uint32_t k = 0; k < n; k++)
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(
						ch, 0, t_iova(src + (size_t)(i + k) * kMsg),
						(uintptr_t)t.buf + (size_t)(i + k) * kMsg, kMsg,
						RTE_DMA_OP_FLAG_SUBMIT),
					(int)(uint16_t)(i + k));
		wait_all(ch, (uint16_t)i, n, &st);
	}
	reader.join();
	CU_ASSERT_EQUAL(seen.load(), nmsg);
	/* the inline check itself, once every message is known complete */
	for (uint32_t i = 0; i < nmsg; i++)
		CU_ASSERT_TRUE(rte_pmd_dma_mlx5_remote_arrived(t.buf + (size_t)i * kMsg, kMsg,
							       (uint8_t)(i % 255 + 1)));
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	rte_free(t.buf);
	return torn.load();
}

/* the data-in-order query, and a reader polling the last byte of each write */
void test_poll_on_data(void)
{
	Target t;
	target_make(t, d_inorder, 0x77, 4);
	int flags = rte_pmd_dma_mlx5_remote_data_in_order(d_inorder, t.peer.target.dctn);
	CU_ASSERT_EQUAL(flags, (int)(RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_WHOLE_MSG |
				     RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_ALIGNED_128));
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_data_in_order(d_inorder, t.peer.target.dctn + 1),
			-ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_data_in_order(-1, t.peer.target.dctn), -EINVAL);
	rte_free(t.buf);
	Target n;
	target_make(n, d_t1, 0x78, 4);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_data_in_order(d_t1, n.peer.target.dctn), 0);
	rte_free(n.buf);
	CU_ASSERT_FALSE(rte_pmd_dma_mlx5_remote_arrived(n.buf, 0, 0)); /* no message, no byte */

	/* WHOLE_MSG: the last byte arrives last, every time */
	CU_ASSERT_EQUAL(poll_on_data(d_inorder, 32), 0u);
	/* no promise: the model lands the last block first, so a reader may be early */
	uint32_t early = poll_on_data(d_t1, 32);
	printf("\n    last byte seen before the rest: whole-message target 0 of 32, target "
	       "without the promise %u of 32 ",
	       early);
}

/* ---- targets in another process (the software HCA's machine-wide fabric) ---- */

constexpr uint32_t kXPeers = 8;
constexpr uint32_t kXOps = 2000;
constexpr uint32_t kXOtherPd = 5;

/**
 * The other process (this binary with --targets <fabric>): kXPeers dma_mlx5 devices
 * on the machine-wide fabric, a DC target and a zeroed buffer of kXOps slots each.
 * Target kXOtherPd exposes its memory through an MR of another PD (a wrong rkey for
 * its DC target). One line per target on fd 3 (lid dctn key rkey address); then,
 * per command line on stdin: "dump <p>" answers one character per slot of target p
 * ('1': the bytes op i leaves in slot i, '0': untouched, 'x': anything else),
 * "set <p> <seed>" fills target p's buffer, "pat <p> <off> <len> <pattern>" answers
 * 1 when those bytes repeat the 64-bit pattern, "quit" ends. No CUnit here: the
 * parent judges.
 */
/**
 * What slot @p slot holds: '1' the bytes of @p src, '0' zeros, 'x' anything else.
 * The other process's HCA wrote it, which ThreadSanitizer cannot see ordered (the
 * order comes through the other process), so it does not instrument this.
 */
__attribute__((no_sanitize_thread)) char slot_state(const uint8_t *slot, const uint8_t *src)
{
	volatile const uint8_t *d = slot;
	bool same = true, zero = true;
	for (uint32_t i = 0; i < kSlot; i++) {
		same &= d[i] == src[i];
		zero &= d[i] == 0;
	}
	return same ? '1' : zero ? '0' : 'x';
}

/** Whether @p len bytes at @p p repeat @p pattern (volatile loads: see slot_state()). */
__attribute__((no_sanitize_thread)) bool repeats(const uint8_t *p, size_t len, uint64_t pattern)
{
	volatile const uint8_t *d = p;
	uint8_t b[8];
	memcpy(b, &pattern, 8);
	for (size_t i = 0; i < len; i++)
		if (d[i] != b[i % 8])
			return false;
	return true;
}

/** t_fill() through volatile stores: memory the other process reads (see slot_state()). */
__attribute__((no_sanitize_thread)) void fill_quiet(uint8_t *p, size_t len, uint32_t seed)
{
	std::vector<uint8_t> v(len);
	t_fill(v.data(), len, seed);
	volatile uint8_t *d = p;
	for (size_t i = 0; i < len; i++)
		d[i] = v[i];
}

int targets_main(const char *fabric)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=rt%d", (int)getpid());
	char *eal_argv[] = {(char *)"test_pmd_remote_targets",
			    (char *)"--no-huge",
			    (char *)"-m",
			    (char *)"256",
			    (char *)"--no-pci",
			    (char *)"--no-shconf",
			    prefix,
			    NULL};
	FILE *out = fdopen(3, "w");
	if (!out || rte_eal_init(7, eal_argv) < 0)
		return 2;
	std::vector<uint8_t *> bufs(kXPeers);
	const size_t len = (size_t)kXOps * kSlot;
	ForeignMr foreign;
	for (uint32_t p = 0; p < kXPeers; p++) {
		struct mlx5_sim_device_attr attr;
		char sim[16], vdev[32], args[32];
		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = p % 2 ? MLX5_SIM_EXEC_THREAD : MLX5_SIM_EXEC_INLINE;
		attr.fabric = 1;
		snprintf(attr.fabric_name, sizeof(attr.fabric_name), "%s", fabric);
		snprintf(sim, sizeof(sim), "sim%u", 90 + p);
		snprintf(vdev, sizeof(vdev), "dma_mlx5_x%u", p);
		snprintf(args, sizeof(args), "dev=%s", sim);
		if (mlx5_sim_device_add(sim, &attr) != 0)
			return 3;
		int16_t dev = (int16_t)t_probe(vdev, args);
		struct rte_pmd_dma_mlx5_remote_target tgt;
		uint32_t rkey;
		bufs[p] = (uint8_t *)rte_zmalloc(NULL, len, 64);
		if (dev < 0 || !bufs[p] ||
		    rte_pmd_dma_mlx5_remote_target_create(dev, 0x2000 + p, &tgt) != 0 ||
		    rte_pmd_dma_mlx5_remote_rkey(dev, bufs[p], (uint32_t)len, &rkey) != 0)
			return 4;
		if (p == kXOtherPd) {
			/* kept until the process ends */
			if (!foreign_mr(foreign, sim, bufs[p], len))
				return 5;
			rkey = foreign.mr->rkey;
		}
		fprintf(out, "%u %u %" PRIu64 " %u %" PRIu64 "\n", tgt.lid, tgt.dctn, tgt.dc_key,
			rkey, (uint64_t)(uintptr_t)bufs[p]);
	}
	fflush(out);
	std::vector<uint8_t> src(len), slot(kSlot);
	t_fill(src.data(), len, 9); /* the requester's source bytes, as it made them */
	char line[128];
	unsigned p, seed, off, n;
	uint64_t pat;
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "dump %u", &p) == 1 && p < kXPeers) {
			std::string map(kXOps, '0');
			for (uint32_t i = 0; i < kXOps; i++) {
				op_bytes(i, src.data(), slot.data());
				map[i] = slot_state(bufs[p] + (size_t)i * kSlot, slot.data());
			}
			fprintf(out, "%s\n", map.c_str());
		} else if (sscanf(line, "pat %u %u %u %" SCNu64, &p, &off, &n, &pat) == 4 &&
			   p < kXPeers && off <= len && n <= len - off) {
			fprintf(out, "%d\n", repeats(bufs[p] + off, n, pat));
		} else if (sscanf(line, "set %u %u", &p, &seed) == 2 && p < kXPeers) {
			fill_quiet(bufs[p], len, seed);
			fprintf(out, "ok\n");
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			fprintf(out, "?\n");
		}
		fflush(out);
	}
	return 0;
}

/*
 * 8 targets in another process (half inline, half on engine threads), one with a
 * wrong key, one with a wrong rkey, one whose memory is in another PD: 2000 writes
 * and fills to random peers, every op reported once with its exact status, the
 * other process's memory holding exactly the healthy ops' bytes; reads back and a
 * fill of several fabric messages; then the other process is killed (peer down):
 * every later op reported, none succeeds, nothing hangs.
 */
void test_two_processes(void)
{
	char fabric[32], line[kXOps + 16];
	snprintf(fabric, sizeof(fabric), "r%d", (int)getpid());
	/* answers on fd 3: EAL logs on the other process's stdout */
	char flag[] = "--targets";
	char *argv[] = {nullptr, flag, fabric, nullptr};
	pid_t pid;
	FILE *to = nullptr, *from = nullptr;
	CU_ASSERT_EQUAL_FATAL(test_spawn_self(argv, 3, &pid, &to, &from), 0);

	/* this process's requester on the same fabric */
	struct mlx5_sim_device_attr attr;
	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = MLX5_SIM_EXEC_INLINE;
	attr.fabric = 1;
	snprintf(attr.fabric_name, sizeof(attr.fabric_name), "%s", fabric);
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim86", &attr), 0);
	int16_t req = probe("dma_mlx5_r86", "sim86");
	CU_ASSERT_FATAL(req >= 0);

	std::vector<struct rte_pmd_dma_mlx5_remote_peer> peers(kXPeers);
	std::vector<uint64_t> addr(kXPeers);
	for (uint32_t p = 0; p < kXPeers; p++) {
		unsigned lid, dctn, rkey;
		uint64_t key;
		CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), from));
		CU_ASSERT_EQUAL_FATAL(sscanf(line, "%u %u %" SCNu64 " %u %" SCNu64, &lid, &dctn,
					     &key, &rkey, &addr[p]),
				      5);
		peers[p].target.lid = (uint16_t)lid;
		peers[p].target.dctn = dctn;
		peers[p].target.dc_key = key;
		peers[p].rkey = rkey;
	}
	std::vector<Fault> faults(kXPeers, GOOD);
	faults[3] = BAD_KEY;
	peers[3].target.dc_key ^= 1;
	faults[6] = BAD_RKEY;
	peers[6].rkey ^= 0x100;
	faults[kXOtherPd] = OTHER_PD; /* the other process gave that MR's rkey */

	const size_t len = (size_t)kXOps * kSlot;
	uint8_t *src = (uint8_t *)rte_zmalloc(NULL, len, 64);
	uint8_t *back = (uint8_t *)rte_zmalloc(NULL, len, 64);
	CU_ASSERT_FATAL(src && back);
	t_fill(src, len, 9);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(req, 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	for (uint32_t p = 0; p < kXPeers; p++)
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &peers[p]), (int)p);

	std::vector<uint32_t> to_peer(kXOps);
	std::vector<enum rte_dma_status_code> st;
	enum rte_dma_status_code buf[64];
	uint32_t done = 0, posted = 0, seed = 777;
	uint16_t last;
	uint64_t deadline = t_now_ms() + kTimeoutMs;
	while (done < kXOps && t_now_ms() < deadline) {
		for (uint32_t b = 0; b < 24 && posted < kXOps && posted - done < 300; b++) {
			seed = seed * 1103515245 + 12345;
			uint32_t p = (seed >> 16) % kXPeers;
			to_peer[posted] = p;
			int idx = enqueue_mixed(ch, (uint16_t)p, posted, src,
						addr[p] + posted * kSlot);
			CU_ASSERT_EQUAL_FATAL(idx, (int)(uint16_t)posted);
			posted++;
		}
		rte_pmd_dma_mlx5_remote_submit(ch);
		uint16_t k = rte_pmd_dma_mlx5_remote_completed(ch, 64, &last, buf);
		st.insert(st.end(), buf, buf + k);
		done += k;
	}
	CU_ASSERT_EQUAL_FATAL(done, kXOps);
	uint32_t ok = 0;
	for (uint32_t i = 0; i < kXOps; i++) {
		Fault f = faults[to_peer[i]];
		CU_ASSERT(st[i] == status_for(f) ||
			  (f != GOOD && st[i] == RTE_DMA_STATUS_NOT_ATTEMPTED));
		ok += st[i] == RTE_DMA_STATUS_SUCCESSFUL;
	}
	/* the other process's memory: exactly the healthy ops' slots, nothing else */
	uint32_t landed = 0, stray = 0;
	for (uint32_t p = 0; p < kXPeers; p++) {
		fprintf(to, "dump %u\n", p);
		fflush(to);
		CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), from));
		for (uint32_t i = 0; i < kXOps; i++) {
			char want = to_peer[i] == p && faults[p] == GOOD ? '1' : '0';
			stray += line[i] != want;
			landed += line[i] == '1';
		}
	}
	CU_ASSERT_EQUAL(stray, 0u);
	CU_ASSERT_EQUAL(landed, ok);
	printf("\n    other process: %u of %u writes landed, %u stray slots ", landed, kXOps,
	       stray);

	/* reads: peer 1's buffer, refilled over there, comes back byte for byte */
	fprintf(to, "set 1 44\n");
	fflush(to);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), from));
	uint16_t first = (uint16_t)kXOps;
	for (uint32_t i = 0; i < 256; i++)
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_read(ch, 1, addr[1] + i * kSlot,
							     t_iova(back + i * kSlot), kSlot,
							     RTE_DMA_OP_FLAG_SUBMIT),
				(int)(uint16_t)(first + i));
	wait_all(ch, first, 256, &st);
	std::vector<uint8_t> want(len);
	t_fill(want.data(), len, 44);
	for (uint32_t i = 0; i < 256; i++)
		CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_EQUAL(memcmp(back, want.data(), 256 * kSlot), 0);

	/* a fill of 100000 bytes (two fabric messages) at an odd offset of peer 1 */
	first = (uint16_t)(first + 256);
	const uint64_t big_pat = 0x1122334455667788ull;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 1, big_pat, addr[1] + 3, 100000,
						     RTE_DMA_OP_FLAG_SUBMIT),
			(int)first);
	wait_all(ch, first, 1, &st);
	CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "pat 1 3 100000 %" PRIu64 "\n", big_pat);
	fputs(cmd, to);
	fflush(to);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), from));
	CU_ASSERT_EQUAL(atoi(line), 1);

	/* the other process dies: every op after reported, none successful, no hang */
	CU_ASSERT_EQUAL(kill(pid, SIGKILL), 0);
	int wst;
	CU_ASSERT_EQUAL(waitpid(pid, &wst, 0), pid);
	first = (uint16_t)(first + 1);
	for (uint32_t i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(ch, (uint16_t)(i % 3), t_iova(src),
							      addr[i % 3] + i * kSlot, kSlot,
							      RTE_DMA_OP_FLAG_SUBMIT),
				(int)(uint16_t)(first + i));
	wait_all(ch, first, 64, &st);
	for (uint32_t i = 0; i < 64; i++)
		CU_ASSERT(st[i] == RTE_DMA_STATUS_DEV_LINK_ERROR ||
			  st[i] == RTE_DMA_STATUS_NOT_ATTEMPTED);
	struct rte_pmd_dma_mlx5_remote_stats s;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_stats_get(ch, &s), 0);
	CU_ASSERT_EQUAL(s.completed, kXOps + 256u + 1u + 64u);
	rte_pmd_dma_mlx5_remote_free(ch);
	fclose(to);
	fclose(from);
	rte_free(src);
	rte_free(back);
	CU_ASSERT_EQUAL(t_remove("dma_mlx5_r86"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim86"), 0);
}

const struct cunit_test tests[] = {
	{"bad input", test_bad_input},
	{"writes and reads, inline target", test_basic_inline},
	{"writes and reads, thread target", test_basic_thread},
	{"fills with more patterns than sources", test_fill_patterns},
	{"16 peers, wrong key, wrong rkey, other PD among them", test_one_bad_peer},
	{"64 peers, a host down", test_host_down},
	{"no DCI streams", test_no_streams},
	{"8 targets in another process, one dies", test_two_processes},
	{"poll-on-data with the data-in-order query", test_poll_on_data},
};

} // namespace

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--targets") == 0)
		return targets_main(argv[2]);
	char *eal_argv[] = {
		(char *)"test_pmd_remote", (char *)"--no-huge",   (char *)"-m", (char *)"512",
		(char *)"--no-pci",        (char *)"--no-shconf", NULL};
	int ret;

	if (rte_eal_init(6, eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	if (add(S_REQ, MLX5_SIM_EXEC_INLINE, 1, 3) || add(S_T1, MLX5_SIM_EXEC_INLINE, 1, 3) ||
	    add(S_T2, MLX5_SIM_EXEC_THREAD, 1, 3) || add(S_NOSTREAM, MLX5_SIM_EXEC_INLINE, 1, 0) ||
	    add(S_NODC, MLX5_SIM_EXEC_INLINE, 0, 0)) {
		fprintf(stderr, "cannot add the software HCAs\n");
		return 1;
	}
	d_req = probe("dma_mlx5_r81", S_REQ);
	d_t1 = probe("dma_mlx5_r82", S_T1);
	d_t2 = probe("dma_mlx5_r83", S_T2);
	d_nostream = probe("dma_mlx5_r84", S_NOSTREAM);
	d_nodc = probe("dma_mlx5_r85", S_NODC);
	{
		struct mlx5_sim_device_attr attr;
		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = MLX5_SIM_EXEC_THREAD;
		attr.fabric = 1;
		attr.data_in_order = MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG;
		d_inorder = mlx5_sim_device_add(S_INORDER, &attr) == 0
				    ? probe("dma_mlx5_r87", S_INORDER)
				    : (int16_t)-1;
	}
	if (d_req < 0 || d_t1 < 0 || d_t2 < 0 || d_nostream < 0 || d_nodc < 0 || d_inorder < 0) {
		fprintf(stderr, "cannot probe the dma_mlx5 devices\n");
		return 1;
	}
	ret = CUNIT_RUN_SUITE("remote", tests);
	for (const char *n : {"dma_mlx5_r81", "dma_mlx5_r82", "dma_mlx5_r83", "dma_mlx5_r84",
			      "dma_mlx5_r85", "dma_mlx5_r87"})
		t_remove(n);
	rte_eal_cleanup();
	return ret;
}
