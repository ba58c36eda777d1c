/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sva=1: one implicit on-demand MR instead of per-segment registrations. Any mapped
 * process address works (RTE_DMA_CAPA_SVA); an unmapped one completes with an error
 * status (the device's page fault), never a crash.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_log.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/** An address range that is mapped by nobody (mapped, then unmapped). */
uint8_t *t_hole(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, len);
	return (uint8_t *)p;
}

void test_sva_any_address(void)
{
	T_FOREACH_MODE (m) {
		int id = t_open("dma_mlx5_sva", t_args(m, "sva=1"), 1, 64);
		uint8_t *src = (uint8_t *)malloc(8192), *dst = (uint8_t *)malloc(8192);
		void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
		struct rte_pmd_dma_mlx5_caps caps;
		struct rte_dma_info info;
		enum rte_dma_status_code st[3];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst && gone != MAP_FAILED);
		munmap(gone, 4096); /* a hole in the address space */
		CU_ASSERT_EQUAL(rte_dma_info_get(id, &info), 0);
		CU_ASSERT_TRUE(info.dev_capa & RTE_DMA_CAPA_SVA);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), 0);
		CU_ASSERT_EQUAL(caps.sva, 1);
		t_fill(src, 8192, 21);
		memset(dst, 0, 8192);
		/* malloc()'d memory, never registered with DPDK */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst), 8192, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(gone), t_iova(dst), 64, 0), 1);
		CU_ASSERT_EQUAL(
			rte_dma_copy(id, 0, t_iova(src), t_iova(dst), 4096, RTE_DMA_OP_FLAG_SUBMIT),
			2);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 3, st, &last), 3);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_NOT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(t_check(dst, 8192, 21));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sva"), 0);
		free(src);
		free(dst);
	}
}

/*
 * sva=1 copies through the whole-memory key (no lookup per op): bursts of 64-byte
 * copies between buffers DPDK never registered land byte for byte, with a fence, at
 * every length class the fast path takes; lengths it must not post (0: 2 GiB in a
 * WQE, above the device's limit) still fail before the device sees them.
 */
void test_sva_whole_key_copies(void)
{
	T_FOREACH_MODE (m) {
		const size_t sz = 32 * 64;
		int id = t_open("dma_mlx5_svak", t_args(m, "sva=1"), 1, 128);
		uint8_t *src = (uint8_t *)malloc(3 * sz), *dst = (uint8_t *)malloc(3 * sz);
		struct rte_pmd_dma_mlx5_caps caps;
		enum rte_dma_status_code st[40];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), 0);
		CU_ASSERT_EQUAL(caps.whole_key, 1);
		t_fill(src, 3 * sz, 44);
		memset(dst, 0, 3 * sz);
		for (int b = 0; b < 3; b++) {
			for (int i = 0; i < 32; i++) {
				size_t off = b * sz + i * 64;
				uint64_t fl = i == 7 ? RTE_DMA_OP_FLAG_FENCE : 0;

				CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src + off),
							     t_iova(dst + off), 64, fl),
						b * 32 + i);
			}
			CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 32, st, &last), 32);
			for (int i = 0; i < 32; i++)
				CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
		}
		CU_ASSERT_TRUE(t_check(dst, 3 * sz, 44));
		/* odd lengths and offsets */
		memset(dst, 0, 3 * sz);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src + 1), t_iova(dst + 1), 1, 0), 96);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src + 2), t_iova(dst + 2), 4093,
					     RTE_DMA_OP_FLAG_SUBMIT),
				97);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
		CU_ASSERT_TRUE(st[0] == RTE_DMA_STATUS_SUCCESSFUL &&
			       st[1] == RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(dst[0] == 0 && dst[1] == t_pat(44, 1));
		CU_ASSERT_EQUAL(memcmp(dst + 2, src + 2, 4093), 0);
		CU_ASSERT_EQUAL(dst[4095], 0);
		/* no lookup, but the length is still checked: 0 would copy 2 GiB */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst), 0, 0), 98);
		CU_ASSERT_TRUE_FATAL(caps.max_wr_memcpy_length < UINT32_MAX);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst),
					     (uint32_t)caps.max_wr_memcpy_length + 1,
					     RTE_DMA_OP_FLAG_SUBMIT),
				99);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_svak"), 0);
		free(src);
		free(dst);
	}
}

/*
 * A bad address on the whole-key path is the device's to find: the op ends with the
 * ODP fault's status (INVALID_ADDR), the ops around it land, and the vchan takes the
 * next burst as the checked path does after its own (INVALID_SRC_ADDR, found before
 * posting): idle again, one error counted, every later op successful.
 */
void test_sva_bad_address_recovers(void)
{
	static const struct {
		const char *extra;
		enum rte_dma_status_code bad_src, bad_dst;
	} kinds[] = {
		{"sva=1", RTE_DMA_STATUS_INVALID_ADDR, RTE_DMA_STATUS_INVALID_ADDR},
		{NULL, RTE_DMA_STATUS_INVALID_SRC_ADDR, RTE_DMA_STATUS_INVALID_DST_ADDR},
	};

	T_FOREACH_MODE (m) {
		for (const auto &k : kinds) {
			const size_t sz = 8 * 64;
			int id = t_open("dma_mlx5_svae", t_args(m, k.extra), 1, 64);
			/* malloc()'d: unregistered, so the checked path refuses it too */
			uint8_t *bad = t_hole(4096), *foreign = (uint8_t *)malloc(64);
			t_bufs b(sz);
			enum rte_dma_status_code st[8];
			enum rte_dma_vchan_status vs;
			struct rte_dma_stats stats;
			uint16_t last;

			CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && bad && foreign);
			t_fill(b.src, sz, 61);
			for (int i = 0; i < 8; i++) {
				rte_iova_t s = t_iova(b.src + i * 64), d = t_iova(b.dst + i * 64);

				if (i == 3)
					s = t_iova(k.extra ? bad : foreign);
				if (i == 5)
					d = t_iova(k.extra ? bad + 64 : foreign);
				CU_ASSERT_EQUAL(rte_dma_copy(id, 0, s, d, 64, 0), i);
			}
			CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
			CU_ASSERT_EQUAL(last, 7);
			for (int i = 0; i < 8; i++)
				CU_ASSERT_EQUAL(st[i], i == 3   ? k.bad_src
						       : i == 5 ? k.bad_dst
								: RTE_DMA_STATUS_SUCCESSFUL);
			for (int i = 0; i < 8; i++)
				if (i != 3 && i != 5)
					CU_ASSERT_EQUAL(memcmp(b.dst + i * 64, b.src + i * 64, 64),
							0);
			/* the vchan goes on: a full burst, all of it successful */
			memset(b.dst, 0, sz);
			for (int i = 0; i < 8; i++)
				CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * 64),
							     t_iova(b.dst + i * 64), 64,
							     i == 7 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
						8 + i);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
			CU_ASSERT_EQUAL(last, 15);
			for (int i = 0; i < 8; i++)
				CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_TRUE(t_check(b.dst, sz, 61));
			CU_ASSERT_EQUAL(rte_dma_vchan_status(id, 0, &vs), 0);
			CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE);
			CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
			CU_ASSERT_EQUAL(stats.errors, 2);
			CU_ASSERT_EQUAL(stats.completed, 16);
			CU_ASSERT_EQUAL(t_close("dma_mlx5_svae"), 0);
			free(foreign);
		}
	}
}

/*
 * sva=1 names every address with one key, but grants only what the process may do:
 * a destination that is mapped read-only (wholly, or from its middle on) and a
 * source with no access at all end as the device's error status, and not a byte
 * of the read-only page changes; the writable half of a straddling op is not
 * required to stay unwritten, the read-only half is.
 */
void test_sva_read_only_dst(void)
{
	T_FOREACH_MODE (m) {
		int id = t_open("dma_mlx5_svaro", t_args(m, "sva=1"), 1, 64);
		uint8_t *map = (uint8_t *)mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t_bufs b(4096);
		enum rte_dma_status_code st[4];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && map != MAP_FAILED && b.ok());
		t_fill(b.src, 4096, 17);
		memset(map, 0x11, 3 * 4096);
		/* page 1 read-only, page 2 no access */
		CU_ASSERT_EQUAL_FATAL(mprotect(map + 4096, 4096, PROT_READ), 0);
		CU_ASSERT_EQUAL_FATAL(mprotect(map + 8192, 4096, PROT_NONE), 0);
		rte_iova_t ro = t_iova(map + 4096);

		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), ro + 128, 256, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(map + 4096 - 64), 128, 0),
				1);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(map + 8192), t_iova(b.dst), 64, 0), 2);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64,
					     RTE_DMA_OP_FLAG_SUBMIT),
				3);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(st[3], RTE_DMA_STATUS_SUCCESSFUL);
		bool ro_intact = true;
		for (int i = 0; i < 4096; i++)
			ro_intact &= map[4096 + i] == 0x11;
		CU_ASSERT_TRUE(ro_intact);
		CU_ASSERT_EQUAL(memcmp(b.dst, b.src, 64), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_svaro"), 0);
		munmap(map, 3 * 4096);
	}
}

/* What probe logged for @p args, at INFO for the driver. */
bool probe_log_has(const char *args, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *old = rte_log_get_stream();
	int lvl = rte_log_get_level(rte_log_register("pmd.dma.mlx5"));
	bool found;
	int id;

	if (!f)
		return false;
	rte_openlog_stream(f);
	rte_log_set_level_pattern("pmd.dma.mlx5", RTE_LOG_INFO);
	id = t_probe("dma_mlx5_svalog", args);
	rte_log_set_level_pattern("pmd.dma.mlx5", (uint32_t)lvl);
	rte_openlog_stream(old);
	fclose(f);
	found = id >= 0 && buf && strstr(buf, what);
	if (id >= 0)
		t_remove("dma_mlx5_svalog");
	free(buf);
	return found;
}

/* Which copy path a device takes is logged once at probe, and shown by the dump. */
void test_sva_probe_names_path(void)
{
	char args[128];
	char *buf = NULL;
	size_t len = 0;

	snprintf(args, sizeof(args), "dev=%s,sim_exec=inline,sva=1", T_SIM_INLINE);
	CU_ASSERT_TRUE(probe_log_has(args, "copies through the whole-memory key"));
	snprintf(args, sizeof(args), "dev=%s,sim_exec=inline", T_SIM_INLINE);
	CU_ASSERT_TRUE(probe_log_has(args, "copies through checked keys"));

	int id = t_open("dma_mlx5_svad", t_args(&t_modes[0], "sva=1"), 1, 32);
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_TRUE_FATAL(id >= 0 && f);
	rte_dma_dump(id, f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "copy keys whole-memory"));
	free(buf);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_svad"), 0);
}

const struct cunit_test tests[] = {
	{"sva_any_address", test_sva_any_address},
	{"sva_whole_key_copies", test_sva_whole_key_copies},
	{"sva_bad_address_recovers", test_sva_bad_address_recovers},
	{"sva_probe_names_path", test_sva_probe_names_path},
	{"sva_read_only_dst", test_sva_read_only_dst},
};

} // namespace

const struct cunit_suite t_suite_sva = CUNIT_SUITE("sva", tests);
