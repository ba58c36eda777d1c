/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Shared helpers of the dma_mlx5 CUnit suite (test_pmd_dma_mlx5): devices probed
 * through the vdev bus, DPDK buffers, completion waits, heap accounting, the
 * software HCA instances the tests run on, and the one test-only look at the
 * PMD's private state (test_hook_*).
 */
#ifndef TEST_DMA_MLX5_H
#define TEST_DMA_MLX5_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/Basic.h>

#include <rte_dev.h>
#include <rte_dmadev.h>

#include "cunit_run.h"
#include "mlx5_glue.h"
#include "mlx5_sim.h"

/** Software HCA instances created by main() before any test. */
#define T_SIM_INLINE "sim1"       /**< inline mode, default caps */
#define T_SIM_THREAD "sim2"       /**< thread mode, default caps */
#define T_SIM_SMALL_INLINE "sim3" /**< inline, max_wr_memcpy_length 4096 */
#define T_SIM_SMALL_THREAD "sim4" /**< thread, max_wr_memcpy_length 4096 */
#define T_SMALL_MAX_LEN 4096u

/** One point of the test matrix: software HCA execution mode x posting path. */
struct t_mode {
	const char *sim;  /**< T_SIM_INLINE or T_SIM_THREAD */
	const char *path; /**< "direct" or "verbs" */
	bool thread;
};

/** inline-direct, inline-verbs, thread-direct, thread-verbs. */
extern const struct t_mode t_modes[4];
/** The modes T_FOREACH_MODE runs: t_modes, or with --kernel DEV only DEV's verbs path. */
extern const struct t_mode *t_modes_first, *t_modes_end;
/** --kernel DEV: DEV (a device of Debian's libmlx5, under devtools/sim-rdma), or NULL. */
extern const char *t_kernel_dev;
/** --kernel DEV: DEV's direct and verbs paths (what T_FOREACH_MODE runs then). */
extern struct t_mode t_kernel_modes[2];
/**
 * The tests that compare the two posting paths: the direct (@p verbs false) or verbs
 * mode of the inline (@p thread false) or thread instance; with --kernel, DEV's.
 */
const struct t_mode *t_path_mode(bool thread, bool verbs);
/** The execution modes those tests run: 2, or 1 with --kernel (the kernel side has one). */
int t_exec_modes(void);
#define T_FOREACH_MODE(m) for (const struct t_mode *m = t_modes_first; m != t_modes_end; m++)

/** Milliseconds of the monotonic clock. */
uint64_t t_now_ms(void);

/**
 * Probe "@p name,@p args" through rte_dev_probe() (the hotplug path).
 * @return the dmadev id, or a negative errno.
 */
int t_probe(const char *name, const char *args);

/** The rte_device of vdev @p name, or NULL. */
struct rte_device *t_find_vdev(const char *name);

/** rte_dev_remove() of vdev @p name: 0 or a negative errno. */
int t_remove(const char *name);

/**
 * Probe, configure @p nb_vchans vchans of @p nb_desc each, start.
 * @return the dmadev id, or a negative errno (nothing left behind then).
 */
int t_open(const char *name, const char *args, uint16_t nb_vchans, uint16_t nb_desc);

/** Stop and remove a device opened with t_open(); 0 on success. */
int t_close(const char *name);

/** devargs for @p m with @p extra appended ("dev=..,sim_exec=..,path=..[,extra]"). */
const char *t_args(const struct t_mode *m, const char *extra);

/** DPDK heap bytes in use, over every socket. */
size_t t_heap_used(void);

/**
 * Remove software HCA @p name (which fails while any context is open on it, so a
 * 0 proves every context was closed) and add it again with @p attr.
 */
int t_sim_recycle(const char *name, const struct mlx5_sim_device_attr *attr);

/** Attributes of the instance behind @p name as main() created it. */
void t_sim_attr(const char *name, struct mlx5_sim_device_attr *attr);

/**
 * Collect exactly @p n completions of @p vchan with completed_status(), waiting
 * up to 5 s. @return how many were collected; @p last_idx of the last call.
 */
uint16_t t_wait_status(int16_t id, uint16_t vchan, uint16_t n, enum rte_dma_status_code *status,
		       uint16_t *last_idx);

/**
 * Collect @p n completions with completed(), expecting no error, waiting up to
 * 5 s. @return how many were collected (stops early on has_error).
 */
uint16_t t_wait_done(int16_t id, uint16_t vchan, uint16_t n, uint16_t *last_idx, bool *has_error);

/** Pattern byte of buffer @p seed at offset @p i. */
static inline uint8_t t_pat(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/** A DPDK source buffer and a zeroed DPDK destination buffer of @p n bytes each. */
struct t_bufs {
	uint8_t *src;
	uint8_t *dst;
	size_t len;

	explicit t_bufs(size_t n);
	~t_bufs();
	t_bufs(const t_bufs &) = delete;
	t_bufs &operator=(const t_bufs &) = delete;
	bool ok() const { return src && dst; }
};

/** Fill @p p with t_pat(@p seed). */
void t_fill(void *p, size_t len, uint32_t seed);

/** true when @p p holds t_pat(@p seed). */
bool t_check(const void *p, size_t len, uint32_t seed);

/** IOVA of a DPDK buffer (IOVA as VA). */
static inline rte_iova_t t_iova(const void *p)
{
	return (rte_iova_t)(uintptr_t)p;
}

/** A context of our own on software HCA @p name (shares the instance with the PMD). */
struct ibv_context *t_sim_ctx_open(const char *name);
void t_sim_ctx_close(struct ibv_context *ctx);

/**
 * TEST-ONLY HOOK: the SQ ring of a configured dma_mlx5 vchan, read from the PMD's
 * private state (the test links the PMD statically). The public API has no way to
 * read the ring; see the report for the proposed rte_pmd_dma_mlx5 accessor.
 * @return 0, or -EINVAL when @p dev_id / @p vchan is not a set-up dma_mlx5 vchan.
 */
int test_hook_sq_ring(int16_t dev_id, uint16_t vchan, const uint8_t **ring, uint32_t *wqebbs);

/**
 * TEST-ONLY HOOK: move an idle vchan's 32-bit WQEBB counters to @p pi (a multiple of
 * 2^16, so the device's 16-bit WQE counter still agrees), to reach the 32-bit wrap
 * without executing 2^32 WQEs. @return 0, -EINVAL or -EBUSY (vchan not idle).
 */
int test_hook_preset_pi(int16_t dev_id, uint16_t vchan, uint32_t pi);

/**
 * TEST-ONLY HOOK: the WQE index (low 16 bits of the WQEBB producer counter) the next
 * op of @p vchan will take, and the number of the vchan's CQ, for aiming injected
 * faults (mlx5_sim_inject_fault) at one op. @return 0, -EINVAL or -EIO.
 */
int test_hook_next_wqe(int16_t dev_id, uint16_t vchan, uint16_t *wqe_index, uint32_t *cqn);

/**
 * TEST-ONLY HOOK: @p iters random signature layouts (every domain type, block size,
 * flag, check mask, 1..max entries) on random pool mkeys of a sig=1 vchan: the UMR +
 * SET_PSV bytes the direct path writes against those libmlx5's builders write on the
 * pad. @return the layouts whose bytes differ (the first described in @p why),
 * -EINVAL, or -ENOTSUP (no signature pool).
 */
int test_hook_sig_umr_compare(int16_t dev_id, uint16_t vchan, uint32_t seed, uint32_t iters,
			      char *why, size_t why_len);

/**
 * TEST-ONLY HOOK: the key of the device's own registration (its MR registry) that
 * covers [@p addr, @p addr + @p len): the lkey the PMD puts in its WQEs, which an
 * attacker who reads them (or guesses) could try as an rkey.
 * @return 0, -EINVAL (not a dma_mlx5 device) or -ENOENT (not registered).
 */
int test_hook_local_key(int16_t dev_id, const void *addr, uint32_t len, uint32_t *lkey);

/**
 * TEST-ONLY HOOK: while @p on, the device's port queries report LID 0, as a RoCE
 * port's do (the device's glue table is swapped for a copy; the software HCA has
 * no RoCE port). Single-threaded use only. @return 0, or -EINVAL (not a dma_mlx5
 * device, or already in that state).
 */
int test_hook_port_lid_zero(int16_t dev_id, int on);

/** The suites, one per file, run in this order by main(). */
extern const struct cunit_suite t_suite_probe;
extern const struct cunit_suite t_suite_ring;
extern const struct cunit_suite t_suite_errors;
extern const struct cunit_suite t_suite_raw;
extern const struct cunit_suite t_suite_wqe_bytes;
extern const struct cunit_suite t_suite_status;
extern const struct cunit_suite t_suite_quirks;
extern const struct cunit_suite t_suite_sva;
extern const struct cunit_suite t_suite_tiny;
extern const struct cunit_suite t_suite_sg;
extern const struct cunit_suite t_suite_fill;
extern const struct cunit_suite t_suite_mkey;
extern const struct cunit_suite t_suite_stop;

#endif /* TEST_DMA_MLX5_H */
