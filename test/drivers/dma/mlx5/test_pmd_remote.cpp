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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include <vector>

#include <CUnit/Basic.h>

#include <rte_dev.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "cunit_run.h"
#include "mlx5_qp_state.h"
#include "mlx5_sim.h"
#include "spawn_self.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/* software HCAs: requesters, targets (one thread mode), no streams, no DC */
/* --kernel: mlx5_0, mlx5_1, mlx5_2 of Debian's libmlx5 (devtools/sim-rdma -n 3) */
const char *S_REQ = "sim81";
const char *S_T1 = "sim82";
const char *S_T2 = "sim83";
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

/* ---- remote keys: exactly their range and rights, until released ---- */

constexpr size_t kExpose = 1u << 20; /* the exposed buffer, as the example's */
constexpr size_t kGuard = 2u << 20;  /* pattern on either side: more than 1 MiB + an op */
constexpr uint32_t kRw = RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ | RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE;

/** A channel of d_req with one peer: a new DC target of @p dev, reached with @p rkey. */
struct rte_pmd_dma_mlx5_remote *channel_to(int16_t dev, uint32_t rkey)
{
	struct rte_pmd_dma_mlx5_remote_peer peer = {};

	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_target_create(dev, 0x5ec, &peer.target), 0);
	peer.rkey = rkey;
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(d_req, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &peer), 0);
	return ch;
}

/** One op of @p ch to its peer 0, waited for: its status; @p idx: its ring index, advanced. */
enum rte_dma_status_code one_op(struct rte_pmd_dma_mlx5_remote *ch, uint16_t *idx, char op,
				uint64_t raddr, uint8_t *local, uint32_t len)
{
	std::vector<enum rte_dma_status_code> st;
	int r = op == 'r'   ? rte_pmd_dma_mlx5_remote_read(ch, 0, raddr, t_iova(local), len,
							   RTE_DMA_OP_FLAG_SUBMIT)
		: op == 'w' ? rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(local), raddr, len,
							    RTE_DMA_OP_FLAG_SUBMIT)
			    : rte_pmd_dma_mlx5_remote_fill(ch, 0, 0x5a5a5a5a5a5a5a5aull, raddr, len,
							   RTE_DMA_OP_FLAG_SUBMIT);

	CU_ASSERT_EQUAL_FATAL(r, (int)*idx);
	wait_all(ch, *idx, 1, &st);
	(*idx)++;
	return st[0];
}

/** Whether @p p holds t_pat(@p seed) everywhere but [from, to) (offsets). */
bool holds_but(const uint8_t *p, size_t len, uint32_t seed, size_t from, size_t to)
{
	for (size_t i = 0; i < len; i++)
		if ((i < from || i >= to) && p[i] != t_pat(seed, i))
			return false;
	return true;
}

/**
 * Through @p rkey of target @p dev, exposing [@p buf, @p buf + kExpose) inside
 * [@p lo, @p lo + @p span): reads and writes 1 byte before, 4 KiB before, 1 byte
 * after, 1 MiB after the buffer, straddling either end, and the whole buffer plus one
 * byte, each ending INVALID_ADDR with no byte of the span changed and nothing read
 * back; then the first, the last and every byte in range, which succeed and change
 * nothing outside. @p extra_off: one more offset to try (a guard page), 0: none.
 */
void check_key_bounds(int16_t dev, uint32_t rkey, uint8_t *buf, uint8_t *lo, size_t span,
		      int64_t extra_off)
{
	const struct {
		int64_t off;
		uint32_t len;
	} bad[] = {
		{-1, 1},
		{-1, 16},
		{-4096, 64},
		{-4096, 4096},
		{(int64_t)kExpose, 1},
		{(int64_t)kExpose - 8, 16},
		{(int64_t)kExpose + (1 << 20), 64},
		{0, (uint32_t)kExpose + 1},
		{extra_off, 64},
	};
	const size_t at = (size_t)(buf - lo);
	uint8_t *local = (uint8_t *)rte_malloc(NULL, kExpose + 1, 64);
	std::vector<uint8_t> want(kExpose + 1, 0xa5);
	struct rte_pmd_dma_mlx5_remote *ch = channel_to(dev, rkey);
	uint16_t idx = 0;
	uint32_t refused = 0, tried = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	t_fill(lo, span, 21);
	for (const auto &c : bad) {
		if (c.off == 0 && c.len == 64)
			continue; /* no extra offset */
		for (char op : {'r', 'w', 'f'}) {
			if (op == 'r')
				memset(local, 0xa5, c.len);
			else
				t_fill(local, c.len, 22);
			enum rte_dma_status_code st = one_op(ch, &idx, op, (uintptr_t)buf + c.off,
							     local, c.len);
			tried++;
			refused += st == RTE_DMA_STATUS_INVALID_ADDR;
			if (st != RTE_DMA_STATUS_INVALID_ADDR)
				printf("\n    %c at buffer %+" PRId64 " + %u: status %d ", op,
				       c.off, c.len, (int)st);
			if (op == 'r')
				CU_ASSERT_EQUAL(memcmp(local, want.data(), c.len), 0);
		}
	}
	CU_ASSERT_EQUAL(refused, tried);
	CU_ASSERT_TRUE(holds_but(lo, span, 21, 0, 0));
	/* in range: the first byte, the last byte, all of it; nothing outside moves */
	const struct {
		size_t off;
		uint32_t len;
	} good[] = {{0, 1}, {kExpose - 1, 1}, {0, (uint32_t)kExpose}};
	for (const auto &c : good) {
		t_fill(local, c.len, 23 + (uint32_t)c.off);
		CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)buf + c.off, local, c.len),
				RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(buf + c.off, local, c.len), 0);
		memset(local, 0, c.len);
		CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)buf + c.off, local, c.len),
				RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(buf + c.off, local, c.len), 0);
	}
	CU_ASSERT_TRUE(holds_but(lo, span, 21, at, at + kExpose));
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(local);
}

/*
 * The case: 1 MiB of DPDK memory exposed with the default key, guards of DPDK
 * memory around it; on the inline and the thread target.
 */
void test_key_bounds_dpdk(void)
{
	for (int16_t dev : {d_t1, d_t2}) {
		size_t span = 2 * kGuard + kExpose;
		uint8_t *lo = (uint8_t *)rte_malloc(NULL, span, 4096);
		uint32_t rkey;

		CU_ASSERT_PTR_NOT_NULL_FATAL(lo);
		uint8_t *buf = lo + kGuard;
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey(dev, buf, kExpose, &rkey), 0);
		check_key_bounds(dev, rkey, buf, lo, span, 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(dev, rkey), 0);
		rte_free(lo);
	}
}

/*
 * The test's own mapping, registered with the device as external memory
 * (rte_dev_dma_map()), PROT_NONE pages at both ends, the buffer at an odd address:
 * the same refusals, and one into the guard page beyond the pattern.
 */
void test_key_bounds_mmap(void)
{
	const size_t pg = 4096, mid = 2 * kGuard + kExpose, total = mid + 2 * pg;
	uint8_t *m = (uint8_t *)mmap(NULL, total, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rte_device *rdev = t_find_vdev("dma_mlx5_r82");
	uint32_t rkey;

	CU_ASSERT_FATAL(m != MAP_FAILED && rdev);
	CU_ASSERT_EQUAL_FATAL(mprotect(m, pg, PROT_NONE), 0);
	CU_ASSERT_EQUAL_FATAL(mprotect(m + total - pg, pg, PROT_NONE), 0);
	uint8_t *lo = m + pg;
	uint8_t *buf = lo + kGuard + 3;
	CU_ASSERT_EQUAL_FATAL(rte_extmem_register(lo, mid, NULL, 0, pg), 0);
	CU_ASSERT_EQUAL_FATAL(rte_dev_dma_map(rdev, lo, t_iova(lo), mid), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey_access(d_t1, buf, kExpose, kRw, &rkey),
			      0);
	/* offset of the guard page past the pattern */
	check_key_bounds(d_t1, rkey, buf, lo, mid, (int64_t)(lo + mid - buf));
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, rkey), 0);
	CU_ASSERT_EQUAL(rte_dev_dma_unmap(rdev, lo, t_iova(lo), mid), 0);
	CU_ASSERT_EQUAL(rte_extmem_unregister(lo, mid), 0);
	munmap(m, total);
}

/* a read-only key refuses writes and fills, a write-only key reads; both leave the rest */
void test_key_rights(void)
{
	uint8_t *buf = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint8_t *local = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint32_t ro, wo;
	uint16_t idx = 0;

	CU_ASSERT_FATAL(buf && local);
	t_fill(buf, 4096, 31);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey_access(
				      d_t2, buf, 4096, RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ, &ro),
			      0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey_access(
				      d_t2, buf, 4096, RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE, &wo),
			      0);
	CU_ASSERT_NOT_EQUAL(ro, wo);
	struct rte_pmd_dma_mlx5_remote *ch = channel_to(d_t2, ro);
	t_fill(local, 4096, 32);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)buf, local, 4096),
			RTE_DMA_STATUS_INVALID_ADDR);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'f', (uintptr_t)buf + 8, local, 64),
			RTE_DMA_STATUS_INVALID_ADDR);
	CU_ASSERT_TRUE(t_check(buf, 4096, 31));
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)buf, local, 4096),
			RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_TRUE(t_check(local, 4096, 31));
	rte_pmd_dma_mlx5_remote_free(ch);

	ch = channel_to(d_t2, wo);
	idx = 0;
	memset(local, 0xa5, 4096);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)buf, local, 4096),
			RTE_DMA_STATUS_INVALID_ADDR);
	CU_ASSERT_EQUAL(local[0], 0xa5);
	CU_ASSERT_EQUAL(local[4095], 0xa5);
	t_fill(local, 4096, 33);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)buf, local, 4096),
			RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_TRUE(t_check(buf, 4096, 33));
	rte_pmd_dma_mlx5_remote_free(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t2, ro), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t2, wo), 0);
	rte_free(buf);
	rte_free(local);
}

/*
 * A released key refuses reads and writes (also after a new key took its place), a
 * second release and an unknown key are -ENOENT; bad arguments are -EINVAL and
 * unmapped memory -EFAULT; keys still held are released at device close.
 */
void test_key_release(void)
{
	uint8_t *buf = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint8_t *local = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint32_t rkey, again, k;
	uint16_t idx = 0;

	CU_ASSERT_FATAL(buf && local);
	t_fill(buf, 4096, 41);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, buf, 4096, &rkey), 0);
	struct rte_pmd_dma_mlx5_remote *ch = channel_to(d_t1, rkey);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)buf, local, 4096),
			RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, rkey), 0);
	for (int round = 0; round < 2; round++) {
		memset(local, 0xa5, 4096);
		CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)buf, local, 4096),
				RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(local[0], 0xa5);
		t_fill(local, 4096, 42);
		CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)buf, local, 4096),
				RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_TRUE(t_check(buf, 4096, 41));
		/* a new key of the same memory, perhaps in the released key's slot */
		if (round == 0)
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, buf, 4096, &again), 0);
	}
	CU_ASSERT_NOT_EQUAL(again, rkey);
	rte_pmd_dma_mlx5_remote_free(ch);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, rkey), -ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, again), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, 0x12345678), -ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(-1, rkey), -EINVAL);

	/* bad arguments: nothing created */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(-1, buf, 64, &k), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, NULL, 64, &k), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, buf, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, buf, 64, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_access(d_t1, buf, 64, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_access(d_t1, buf, 64, 1u << 7, &k), -EINVAL);
	CU_ASSERT_EQUAL(
		rte_pmd_dma_mlx5_remote_rkey_access(d_t1, (void *)(UINTPTR_MAX - 10), 64, kRw, &k),
		-EINVAL);
	/* memory of the process that is not DPDK's: a key too; unmapped memory: none */
	uint8_t *plain = (uint8_t *)malloc(4096);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, plain, 64, &k), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, k), 0);
	free(plain);
	uint8_t *m = (uint8_t *)mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(m != MAP_FAILED);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, m, 64, &k), -EFAULT);
	CU_ASSERT_EQUAL(mprotect(m, 8192, PROT_READ), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(d_t1, m, 64, &k), -EFAULT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_access(
				d_t1, m, 64, RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ, &k),
			0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(d_t1, k), 0);
	munmap(m, 8192);

	/* keys held at close are released: the software HCA closes only an empty context */
	CU_ASSERT_EQUAL_FATAL(add("sim89", MLX5_SIM_EXEC_INLINE, 1, 3), 0);
	int16_t dev = probe("dma_mlx5_r89", "sim89");
	CU_ASSERT_FATAL(dev >= 0);
	for (uint32_t i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey(dev, buf + i * 64, 64, &k), 0);
	CU_ASSERT_EQUAL(t_remove("dma_mlx5_r89"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim89"), 0);
	rte_free(buf);
	rte_free(local);
}

/** An RC QP of an attacker's own, on another host of the fabric, aimed at a QPN. */
struct RcAttacker {
	const struct mlx5_glue *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	uint8_t *buf;
};

bool rc_modify(RcAttacker &a, enum ibv_qp_state state, int mask, struct ibv_qp_attr attr)
{
	attr.qp_state = state;
	return a.g->modify_qp(a.qp, &attr, mask | IBV_QP_STATE) == 0;
}

/** (Re)connect the attacker's QP to QP @p qpn at LID @p lid, in RTS. */
bool rc_aim(RcAttacker &a, uint32_t qpn, uint16_t lid)
{
	struct ibv_qp_attr attr = {};

	if (!rc_modify(a, IBV_QPS_RESET, 0, attr))
		return false;
	attr.port_num = 1;
	if (!rc_modify(a, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		       attr))
		return false;
	attr.path_mtu = IBV_MTU_4096;
	attr.dest_qp_num = qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 1;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.dlid = lid;
	if (!rc_modify(a, IBV_QPS_RTR,
		       IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		       attr))
		return false;
	attr.timeout = 10;
	attr.retry_cnt = 1;
	attr.rnr_retry = 1;
	attr.max_rd_atomic = 1;
	return rc_modify(a, IBV_QPS_RTS,
			 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				 IBV_QP_MAX_QP_RD_ATOMIC,
			 attr);
}

bool rc_attacker_open(RcAttacker &a, const char *sim)
{
	struct ibv_device *device;
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	a = RcAttacker{};
	if (mlx5_glue_find_device(sim, &a.g, &device))
		return false;
	a.ctx = a.g->open_device(device);
	mlx5_glue_put_device(a.g, device);
	a.pd = a.ctx ? a.g->alloc_pd(a.ctx) : NULL;
	ca.cqe = 16;
	a.cq = a.pd ? a.g->create_cq_ex(a.ctx, &ca) : NULL;
	a.buf = (uint8_t *)aligned_alloc(4096, 4096);
	a.mr = a.cq && a.buf ? a.g->reg_mr(a.pd, a.buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!a.mr)
		return false;
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(a.cq);
	qa.cap.max_send_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = a.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ;
	a.qp = a.g->dv_create_qp(a.ctx, &qa, &dv);
	a.qpx = a.qp ? a.g->qp_to_qp_ex(a.qp) : NULL;
	return a.qpx != NULL;
}

void rc_attacker_close(RcAttacker &a)
{
	if (a.qp)
		a.g->destroy_qp(a.qp);
	if (a.mr)
		a.g->dereg_mr(a.mr);
	if (a.cq)
		a.g->destroy_cq(ibv_cq_ex_to_cq(a.cq));
	if (a.pd)
		a.g->dealloc_pd(a.pd);
	if (a.ctx)
		a.g->close_device(a.ctx);
	free(a.buf);
}

/** One RDMA read or write of 64 bytes at @p raddr with @p rkey: its completion status. */
enum ibv_wc_status rc_attack(RcAttacker &a, bool read, uint32_t rkey, uint64_t raddr)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t deadline = t_now_ms() + kTimeoutMs;

	ibv_wr_start(a.qpx);
	a.qpx->wr_id = 1;
	a.qpx->wr_flags = IBV_SEND_SIGNALED;
	if (read)
		ibv_wr_rdma_read(a.qpx, rkey, raddr);
	else
		ibv_wr_rdma_write(a.qpx, rkey, raddr);
	ibv_wr_set_sge(a.qpx, a.mr->lkey, (uintptr_t)a.buf, 64);
	if (ibv_wr_complete(a.qpx))
		return IBV_WC_GENERAL_ERR;
	while (ibv_start_poll(a.cq, &pa) != 0)
		if (t_now_ms() > deadline)
			return IBV_WC_GENERAL_ERR;
	enum ibv_wc_status st = a.cq->status;
	ibv_end_poll(a.cq);
	return st;
}

/*
 * A peer aims at what it may learn or guess: a vchan's QP number (RC) with the key
 * the device uses for DPDK memory in its WQEs, or with a key the target did expose;
 * the device's DC target with that local key. Every request is refused; the DPDK
 * memory holds its bytes and the peer learns none of them.
 */
void test_vchan_and_local_key_refused(void)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	struct rte_pmd_dma_mlx5_remote_target tgt;
	uint32_t lkey, exposed;
	RcAttacker a;

	CU_ASSERT_EQUAL_FATAL(add("sim80", MLX5_SIM_EXEC_INLINE, 1, 3), 0);
	int dev = t_open("dma_mlx5_r80", "dev=sim80", 1, 64);
	CU_ASSERT_FATAL(dev >= 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_vchan_info((int16_t)dev, 0, &info), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_target_create((int16_t)dev, 0x5ec, &tgt), 0);
	uint8_t *secret = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint8_t *other = (uint8_t *)rte_malloc(NULL, 4096, 64);
	CU_ASSERT_FATAL(secret && other);
	t_fill(secret, 4096, 51);
	CU_ASSERT_EQUAL_FATAL(test_hook_local_key((int16_t)dev, secret, 4096, &lkey), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_rkey((int16_t)dev, other, 4096, &exposed), 0);

	/* RC, from another host, to the vchan's QP */
	CU_ASSERT_FATAL(rc_attacker_open(a, S_REQ));
	const struct {
		uint32_t rkey;
		uint8_t *at;
	} tries[] = {{exposed, other}, {lkey, secret}};
	for (const auto &t : tries)
		for (bool read : {true, false}) {
			t_fill(other, 4096, 52);
			memset(a.buf, read ? 0 : 0xee, 4096);
			/* a refused request puts the responder QP in error: a fresh one each */
			CU_ASSERT_EQUAL(rte_dma_stop((int16_t)dev), 0);
			CU_ASSERT_EQUAL(rte_dma_start((int16_t)dev), 0);
			CU_ASSERT_FATAL(rc_aim(a, info.qpn, tgt.lid));
			enum ibv_wc_status st = rc_attack(a, read, t.rkey, (uintptr_t)t.at);
			CU_ASSERT_NOT_EQUAL(st, IBV_WC_SUCCESS);
			if (read)
				CU_ASSERT_EQUAL(a.buf[0] | a.buf[63], 0);
			CU_ASSERT_TRUE(t_check(secret, 4096, 51));
			CU_ASSERT_TRUE(t_check(other, 4096, 52));
		}
	rc_attacker_close(a);

	/* DC, through the device's target, with the local key */
	struct rte_pmd_dma_mlx5_remote *ch = channel_to((int16_t)dev, lkey);
	uint8_t *local = (uint8_t *)rte_malloc(NULL, 4096, 64);
	uint16_t idx = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	memset(local, 0, 4096);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'r', (uintptr_t)secret, local, 4096),
			RTE_DMA_STATUS_INVALID_ADDR);
	CU_ASSERT_EQUAL(local[0] | local[4095], 0);
	t_fill(local, 4096, 53);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)secret, local, 4096),
			RTE_DMA_STATUS_INVALID_ADDR);
	CU_ASSERT_TRUE(t_check(secret, 4096, 51));
	rte_pmd_dma_mlx5_remote_free(ch);

	/* the vchan still copies (its own keys are local) */
	CU_ASSERT_EQUAL(rte_dma_stop((int16_t)dev), 0);
	CU_ASSERT_EQUAL(rte_dma_start((int16_t)dev), 0);
	CU_ASSERT_EQUAL(rte_dma_copy((int16_t)dev, 0, t_iova(secret), t_iova(local), 4096,
				     RTE_DMA_OP_FLAG_SUBMIT),
			0);
	enum rte_dma_status_code st;
	uint16_t last;
	CU_ASSERT_EQUAL(t_wait_status((int16_t)dev, 0, 1, &st, &last), 1);
	CU_ASSERT_EQUAL(st, RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_TRUE(t_check(local, 4096, 51));
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release((int16_t)dev, exposed), 0);
	rte_free(local);
	rte_free(secret);
	rte_free(other);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_r80"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim80"), 0);
}

/*
 * rte_dma_stop() and remote channels (guide, "Stopping a device"): a stopped device's
 * channels refuse new ops with -EPERM until it starts again; its DC targets keep
 * serving peers that hold a key.
 */
void test_stopped_device_remote(void)
{
	CU_ASSERT_EQUAL_FATAL(add("sim79", MLX5_SIM_EXEC_INLINE, 1, 3), 0);
	int dev = t_open("dma_mlx5_r79", "dev=sim79", 1, 64);
	CU_ASSERT_FATAL(dev >= 0);
	Target far, near;
	target_make(far, d_t1, 0x5e1, 4);
	target_make(near, (int16_t)dev, 0x5e2, 4);
	uint8_t *local = (uint8_t *)rte_malloc(NULL, kSlot, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	t_fill(local, kSlot, 61);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create((int16_t)dev, 32);
	struct rte_pmd_dma_mlx5_remote *in = rte_pmd_dma_mlx5_remote_create(d_req, 32);
	CU_ASSERT_FATAL(ch && in);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(ch, &far.peer), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_remote_peer_add(in, &near.peer), 0);
	uint16_t idx = 0, in_idx = 0;
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)far.buf, local, kSlot),
			RTE_DMA_STATUS_SUCCESSFUL);

	CU_ASSERT_EQUAL(rte_dma_stop((int16_t)dev), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_write(ch, 0, t_iova(local),
						      (uintptr_t)far.buf + kSlot, kSlot,
						      RTE_DMA_OP_FLAG_SUBMIT),
			-EPERM);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_read(ch, 0, (uintptr_t)far.buf, t_iova(local),
						     kSlot, RTE_DMA_OP_FLAG_SUBMIT),
			-EPERM);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_fill(ch, 0, 1, (uintptr_t)far.buf + kSlot, kSlot,
						     RTE_DMA_OP_FLAG_SUBMIT),
			-EPERM);
	CU_ASSERT_EQUAL(far.buf[kSlot] | far.buf[2 * kSlot - 1], 0);
	/* the stopped device's target still serves a key holder */
	CU_ASSERT_EQUAL(one_op(in, &in_idx, 'w', (uintptr_t)near.buf, local, kSlot),
			RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_TRUE(t_check(near.buf, kSlot, 61));

	CU_ASSERT_EQUAL(rte_dma_start((int16_t)dev), 0);
	CU_ASSERT_EQUAL(one_op(ch, &idx, 'w', (uintptr_t)far.buf + kSlot, local, kSlot),
			RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_TRUE(t_check(far.buf + kSlot, kSlot, 61));

	rte_pmd_dma_mlx5_remote_free(ch);
	rte_pmd_dma_mlx5_remote_free(in);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(far.dev, far.peer.rkey), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_remote_rkey_release(near.dev, near.peer.rkey), 0);
	rte_free(far.buf);
	rte_free(near.buf);
	rte_free(local);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_r79"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim79"), 0);
}

/* ---- targets in another process (the software HCA's machine-wide fabric) ---- */

constexpr uint32_t kXPeers = 8;
constexpr uint32_t kXOps = 2000;
constexpr uint32_t kXOtherPd = 5;
/* pattern on either side of each target's buffer: past 1 MiB after it and an op */
constexpr size_t kXPad = (1u << 20) + 8192;

/**
 * The other process (this binary with --targets <fabric>): kXPeers dma_mlx5 devices
 * on the machine-wide fabric, a DC target and a zeroed buffer of kXOps slots each.
 * Target kXOtherPd exposes its memory through an MR of another PD (a wrong rkey for
 * its DC target). One line per target on fd 3 (lid dctn key rkey address); then,
 * per command line on stdin: "dump <p>" answers one character per slot of target p
 * ('1': the bytes op i leaves in slot i, '0': untouched, 'x': anything else),
 * "set <p> <seed>" fills target p's buffer, "pat <p> <off> <len> <pattern>" answers
 * 1 when those bytes repeat the 64-bit pattern, "guards <p>" answers 1 when the
 * kXPad bytes on either side of target p's buffer (outside its key) still hold
 * t_pat(60 + p), "quit" ends. No CUnit here: the parent judges.
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

/** Whether the pads around @p buf hold their pattern (volatile loads: see slot_state()). */
__attribute__((no_sanitize_thread)) bool pads_hold(const uint8_t *buf, size_t len, uint32_t seed)
{
	volatile const uint8_t *base = buf - kXPad;
	for (size_t i = 0; i < kXPad; i++)
		if (base[i] != t_pat(seed, i) ||
		    base[kXPad + len + i] != t_pat(seed, kXPad + len + i))
			return false;
	return true;
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
		uint8_t *base = (uint8_t *)rte_malloc(NULL, len + 2 * kXPad, 64);
		bufs[p] = base ? base + kXPad : NULL;
		if (base) {
			t_fill(base, len + 2 * kXPad, 60 + p);
			memset(bufs[p], 0, len);
		}
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
		} else if (sscanf(line, "guards %u", &p) == 1 && p < kXPeers) {
			fprintf(out, "%d\n", pads_hold(bufs[p], len, 60 + p));
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
 * fill of several fabric messages; reads and writes just outside a key's range over
 * there, refused with the memory around unchanged; then the other process is killed
 * (peer down): every later op reported, none succeeds, nothing hangs.
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

	/* through peer 1's key, just outside its buffer over there: refused, nothing moves */
	const struct {
		int64_t off;
		uint32_t len;
	} outside[] = {{-1, 1},
		       {-1, 16},
		       {-4096, 64},
		       {(int64_t)len, 1},
		       {(int64_t)len - 8, 16},
		       {(int64_t)len + (1 << 20), 64}};
	uint32_t nout = 0;
	for (const auto &o : outside)
		for (bool read : {true, false}) {
			uint16_t at = (uint16_t)(first + 1 + nout++);
			memset(back, 0xa5, o.len);
			int idx = read ? rte_pmd_dma_mlx5_remote_read(ch, 1, addr[1] + o.off,
								      t_iova(back), o.len,
								      RTE_DMA_OP_FLAG_SUBMIT)
				       : rte_pmd_dma_mlx5_remote_write(ch, 1, t_iova(src),
								       addr[1] + o.off, o.len,
								       RTE_DMA_OP_FLAG_SUBMIT);
			CU_ASSERT_EQUAL(idx, (int)at);
			wait_all(ch, at, 1, &st);
			CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_ADDR);
			CU_ASSERT_EQUAL(back[0] & back[o.len - 1], 0xa5);
		}
	fputs("guards 1\n", to);
	fflush(to);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof(line), from));
	CU_ASSERT_EQUAL(atoi(line), 1);
	first = (uint16_t)(first + nout);

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
	CU_ASSERT_EQUAL(s.completed, kXOps + 256u + 1u + nout + 64u);
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
	{"a key reaches exactly its DPDK buffer", test_key_bounds_dpdk},
	{"a key reaches exactly its buffer, guard pages around", test_key_bounds_mmap},
	{"read-only and write-only keys", test_key_rights},
	{"released keys, bad input, keys at close", test_key_release},
	{"vchan QP and local key refused to a peer", test_vchan_and_local_key_refused},
	{"a stopped device's remote channels and targets", test_stopped_device_remote},
};

/* What --kernel leaves out, and why (the others run on mlx5_0..2). */
const char *const kInstances = "needs imitation instances of other caps or a fresh one "
			       "(no DC, no DCI streams, data in order, small rings)";
const struct {
	const char *test;
	const char *why;
} kKernelSkips[] = {
	{"bad input", kInstances},
	{"64 peers, a host down", "takes a host's link down through the imitation's "
				  "mlx5_sim_device_set_link"},
	{"no DCI streams", kInstances},
	{"8 targets in another process, one dies",
	 "its peer process runs the imitation (test_spawn_self), not sim-rdma"},
	{"poll-on-data with the data-in-order query", kInstances},
	{"released keys, bad input, keys at close", kInstances},
	{"vchan QP and local key refused to a peer", kInstances},
	{"a stopped device's remote channels and targets", kInstances},
};

int run_kernel(const char *const devs[3])
{
	std::vector<struct cunit_test> kept;
	int ret;

	S_REQ = devs[0];
	S_T1 = devs[1];
	S_T2 = devs[2];
	d_req = probe("dma_mlx5_r81", S_REQ);
	d_t1 = probe("dma_mlx5_r82", S_T1);
	d_t2 = probe("dma_mlx5_r83", S_T2);
	d_nostream = d_nodc = d_inorder = -1;
	if (d_req < 0 || d_t1 < 0 || d_t2 < 0) {
		fprintf(stderr,
			"cannot probe dma_mlx5 on %s, %s, %s (devtools/sim-rdma -n 3 "
			"-a sim_fabric=1)\n",
			S_REQ, S_T1, S_T2);
		return 1;
	}
	for (const auto &t : tests) {
		const char *why = NULL;

		for (const auto &k : kKernelSkips)
			if (!strcmp(k.test, t.name))
				why = k.why;
		if (why)
			printf("skipped on %s: remote/%s: %s\n", S_REQ, t.name, why);
		else
			kept.push_back(t);
	}
	struct cunit_suite suite = {"remote", kept.data(), kept.size(), NULL, NULL};

	ret = cunit_run_suites(&suite, 1);
	for (const char *n : {"dma_mlx5_r81", "dma_mlx5_r82", "dma_mlx5_r83"})
		t_remove(n);
	return ret;
}

} // namespace

/*
 * With --kernel DEV0 DEV1 DEV2 (under devtools/sim-rdma -n 3 -a sim_fabric=1): the
 * requester on DEV0, targets on DEV1 and DEV2, devices of Debian's libmlx5; the cases
 * that need the imitation's own API are printed with their reason.
 */
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
	if (argc == 5 && strcmp(argv[1], "--kernel") == 0) {
		t_kernel_dev = argv[2];
		ret = run_kernel(argv + 2);
		rte_eal_cleanup();
		return ret;
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
