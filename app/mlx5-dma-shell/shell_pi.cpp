/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PI workloads of mlx5-dma-shell: librte_blkint ops (insert, verify, strip or convert)
 * of N blocks of 512 bytes on a dma_mlx5 device with signature offload, the vchan
 * handed to the library. With verification on, every device op is recomputed on the
 * CPU with ISA-L (cross-check rate 1), else one op in 64, the library's usual sampling:
 * a signature the device corrupted (fault ... corrupt-sig) shows as a cross-check
 * failure; a strip's data is also compared with what was protected.
 *
 * A bad-block rate (verify, strip, convert) flips a data byte of one block of a share
 * of the ops, the block moving with the op (first, middle, last...): such an op must
 * end RTE_BLKINT_ERR_PI naming that block, every other op RTE_BLKINT_OK; anything else
 * counts as corrupt.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rte_blkint.h"
#include "shell.h"

namespace {

constexpr uint32_t kBlock = 512;
/* status[k] of a PI workload: enum rte_blkint_status */
const char *const kPiStatus[SHELL_STATUS_KINDS] = {
	"OK",      "PI",      "XCHECK",  "ENGINE",  "(other)", "(other)", "(other)", "(other)",
	"(other)", "(other)", "(other)", "(other)", "(other)", "(other)", "(other)", "(other)",
};
unsigned int g_seq;
/* enum rte_blkint_op_type */
const char *const kOpNames[RTE_BLKINT_OP_MAX] = {"insert", "verify", "strip", "convert"};

bool format_of(const char *type, struct rte_blkint_format *f)
{
	memset(f, 0, sizeof(*f));
	f->block_size = kBlock;
	if (strcmp(type, "t10dif") == 0) {
		f->type = RTE_BLKINT_PI_T10DIF;
		f->guard = RTE_BLKINT_GUARD_CRC16;
		f->flags = RTE_BLKINT_F_REF_INC;
		f->app_tag = 0x5e11;
	} else if (strcmp(type, "crc32c") == 0) {
		f->type = RTE_BLKINT_PI_CRC32C;
		f->crc_seed = UINT32_MAX;
	} else if (strcmp(type, "crc32") == 0) {
		f->type = RTE_BLKINT_PI_CRC32;
		f->crc_seed = UINT32_MAX;
	} else if (strcmp(type, "crc64") == 0) {
		f->type = RTE_BLKINT_PI_CRC64;
	} else {
		return false;
	}
	return true;
}

/** Run @p op now on a CPU context (preparing a verify workload's protected source). */
int cpu_run(struct rte_blkint_ctx *cpu, struct rte_blkint_op *op)
{
	struct rte_blkint_result res;

	if (rte_blkint_enqueue(cpu, op, 1) != 1)
		return -EIO;
	for (int i = 0; i < 1000000; i++)
		if (rte_blkint_dequeue(cpu, &res, 1) == 1)
			return res.status == RTE_BLKINT_OK ? 0 : -EIO;
	return -ETIMEDOUT;
}

} // namespace

int shell_pi_protect(unsigned int id, const struct rte_blkint_format *fmt, uint32_t blocks,
		     uint8_t *buf, size_t stride, uint32_t nslots)
{
	struct rte_blkint_conf cc = {};
	char name[48];
	auto *plain = (uint8_t *)rte_malloc(NULL, (size_t)blocks * fmt->block_size, 64);

	snprintf(name, sizeof(name), "shell-pi-cpu-%u-%u", id, g_seq++);
	cc.name = name;
	cc.dev_id = -1;
	struct rte_blkint_ctx *cpu = plain ? rte_blkint_create(&cc) : NULL;
	int ret = cpu ? 0 : -ENOMEM;
	for (uint32_t i = 0; ret == 0 && i < blocks * fmt->block_size; i++)
		plain[i] = shell_pi_data_byte(i);
	for (uint32_t s = 0; ret == 0 && s < nslots; s++) {
		struct rte_blkint_op op = {};
		op.type = RTE_BLKINT_OP_INSERT;
		op.nb_blocks = blocks;
		op.src = plain;
		op.dst = buf + (size_t)s * stride;
		op.dst_fmt = fmt;
		op.dst_ref_tag = s * blocks;
		ret = cpu_run(cpu, &op);
	}
	rte_blkint_free(cpu);
	rte_free(plain);
	return ret;
}

namespace {

int op_of(const char *op)
{
	for (int i = 0; i < RTE_BLKINT_OP_MAX; i++)
		if (strcmp(op, kOpNames[i]) == 0)
			return i;
	return -1;
}

/** The block of op @p seq whose data byte a bad op flips. */
uint32_t bad_block(uint64_t seq, uint32_t blocks)
{
	return (uint32_t)(seq % blocks);
}

/** Offset in a protected slot of the byte a bad op flips. */
size_t bad_byte(const struct rte_blkint_format *fmt, uint64_t seq, uint32_t blocks)
{
	return rte_blkint_buf_len(fmt, bad_block(seq, blocks)) + 100;
}

} // namespace

int shell_workload_start_pi(const char *op, const char *type, int16_t dev, uint16_t vchan,
			    uint32_t blocks, uint32_t bad_permille, uint16_t batch,
			    unsigned int lcore)
{
	int op_type = op_of(op);

	struct rte_pmd_dma_mlx5_sig_caps caps;
	struct rte_dma_info info;
	struct rte_blkint_format fmt;
	struct rte_blkint_conf conf = {};
	char name[48];

	if (rte_pmd_dma_mlx5_sig_caps(dev, &caps) != 0 || !caps.enabled) {
		shell_fail("device %d: no dma_mlx5 signature offload (probe it with sig=1)", dev);
		return -1;
	}
	if (rte_dma_info_get(dev, &info) != 0 || vchan >= info.nb_vchans) {
		shell_fail("device %d has no vchan %u set up", dev, vchan);
		return -1;
	}
	if (blocks == 0 || blocks > 64) {
		shell_fail("blocks %u out of range: 1..64", blocks);
		return -1;
	}
	if (!format_of(type, &fmt) || op_type < 0) {
		shell_fail("op \"%s\" or PI type \"%s\" not taken", op, type);
		return -1;
	}
	if (bad_permille > 1000) {
		shell_fail("bad %u per mille out of range: 0..1000", bad_permille);
		return -1;
	}
	if (bad_permille && op_type == RTE_BLKINT_OP_INSERT) {
		shell_fail("bad %u per mille: only for ops that verify (not insert)", bad_permille);
		return -1;
	}
	if (shell_workload_check(dev, vchan, blocks * kBlock, batch, lcore))
		return -1;
	/* the context first: a refusal then leaves no trace */
	snprintf(name, sizeof(name), "shell-pi-%u", g_seq++);
	conf.name = name;
	conf.dev_id = dev;
	conf.vchan = vchan;
	conf.xcheck_rate = shell_verify ? 1.0 : 1.0 / 64;
	conf.max_inflight = rte_align32pow2(RTE_MAX(256u, 2 * shell_workload_slots(batch)));
	struct rte_blkint_ctx *ctx = rte_blkint_create(&conf);
	if (!ctx) {
		shell_fail("blkint context on device %d: %s", dev, rte_strerror(rte_errno));
		return -1;
	}
	if (!rte_blkint_on_device(ctx)) {
		rte_blkint_free(ctx);
		shell_fail("device %d takes no %s ops (signature caps)", dev, type);
		return -1;
	}
	shell_workload *w = shell_workload_prepare(SHELL_OP_PI, dev, vchan, blocks * kBlock, batch,
						   lcore);
	if (!w) {
		rte_blkint_free(ctx);
		return -1;
	}
	w->pi_ctx = ctx;
	w->pi_op = op_type;
	w->pi_type = fmt.type;
	w->bad_permille = bad_permille;
	w->status_names = kPiStatus;
	if (bad_permille)
		snprintf(w->label, sizeof(w->label), "%s %s (%u blocks, %u per mille bad)", type,
			 op, blocks, bad_permille);
	else
		snprintf(w->label, sizeof(w->label), "%s %s (%u blocks)", type, op, blocks);
	int id = shell_workload_launch(w, shell_pi_worker);
	if (id < 0)
		shell_pi_release(w);
	return id;
}

int shell_pi_worker(void *arg)
{
	auto *w = (shell_workload *)arg;
	struct rte_blkint_format fmt;
	static const char *const kTypes[] = {"", "t10dif", "crc32", "crc32c", "crc64"};
	const auto type = (enum rte_blkint_op_type)w->pi_op;
	/* every op but insert reads a protected source; verify writes nothing */
	bool prot_src = type != RTE_BLKINT_OP_INSERT;
	uint32_t blocks = w->size / kBlock, mask = w->nslots - 1;

	format_of(kTypes[w->pi_type], &fmt);
	size_t prot = rte_blkint_buf_len(&fmt, blocks);
	size_t src_sz = prot_src ? prot : w->size;
	size_t dst_sz = type == RTE_BLKINT_OP_VERIFY  ? 0
			: type == RTE_BLKINT_OP_STRIP ? w->size
						      : prot;
	auto *src = (uint8_t *)rte_malloc(NULL, (size_t)w->nslots * src_sz, 64);
	auto *dst = dst_sz ? (uint8_t *)rte_zmalloc(NULL, (size_t)w->nslots * dst_sz, 64) : nullptr;
	auto *plain = (uint8_t *)rte_malloc(NULL, w->size, 64);
	int ret = src && plain && (!dst_sz || dst) ? 0 : -ENOMEM;
	auto give_up = [&](int err) {
		rte_free(src);
		rte_free(dst);
		rte_free(plain);
		shell_workload_ready(w, err);
		return err;
	};

	for (uint32_t i = 0; ret == 0 && i < w->size; i++)
		plain[i] = shell_pi_data_byte(i);
	if (ret == 0 && prot_src) {
		/* every slot's source: the data with its PI, ref tags from slot * blocks */
		ret = shell_pi_protect(w->id, &fmt, blocks, src, src_sz, mask + 1);
	} else if (ret == 0) {
		for (uint32_t s = 0; s <= mask; s++)
			memcpy(src + (size_t)s * src_sz, plain, w->size);
	}
	if (ret)
		return give_up(ret);
	shell_workload_ready(w, 0);
	uint64_t seq = 0, inflight = 0;
	struct rte_blkint_op ops[256];
	struct rte_blkint_result res[64];
	/* flip (or repair) the byte bad op @p s flips in its source */
	auto flip = [&](uint64_t s) {
		src[(size_t)(s & mask) * src_sz + bad_byte(&fmt, s, blocks)] ^= 0x5a;
	};
	auto reap = [&]() {
		uint16_t n = rte_blkint_dequeue(w->pi_ctx, res, RTE_DIM(res));
		uint64_t ok = 0, bad = 0, wrong = 0;
		for (uint16_t i = 0; i < n; i++) {
			const struct rte_blkint_result &r = res[i];
			uint64_t s = r.user_data;
			bool bad_op = shell_bad_op(s, w->bad_permille);
			unsigned int k = (unsigned int)r.status < SHELL_STATUS_KINDS ? r.status : 0;
			w->c.status[k].fetch_add(1, std::memory_order_relaxed);
			bool right = bad_op ? r.status == RTE_BLKINT_ERR_PI &&
						      r.error.block == bad_block(s, blocks)
					    : r.status == RTE_BLKINT_OK;
			if (right && !bad_op && w->verify && type == RTE_BLKINT_OP_STRIP)
				right = memcmp(dst + (size_t)(s & mask) * dst_sz, plain, w->size) ==
					0;
			if (bad_op) /* repaired for the slot's next use */
				flip(s);
			ok += r.status == RTE_BLKINT_OK;
			bad += r.status != RTE_BLKINT_OK;
			wrong += !right;
		}
		inflight -= n;
		w->c.completed.fetch_add(ok, std::memory_order_relaxed);
		w->c.bytes.fetch_add(ok * w->size, std::memory_order_relaxed);
		w->c.failed.fetch_add(bad, std::memory_order_relaxed);
		w->c.corrupt.fetch_add(wrong, std::memory_order_relaxed);
	};
	uint64_t t0 = rte_get_timer_cycles();
	while (!w->stop.load(std::memory_order_relaxed)) {
		uint16_t n = 0, room = shell_rate_room(w, &t0, seq, w->batch);
		while (n < room && inflight + n < mask) {
			uint64_t s = seq + n;
			uint32_t slot = (uint32_t)(s & mask);
			struct rte_blkint_op &op = ops[n];
			op = {};
			op.type = type;
			op.nb_blocks = blocks;
			op.src = src + (size_t)slot * src_sz;
			op.dst = dst_sz ? dst + (size_t)slot * dst_sz : nullptr;
			op.user_data = s;
			if (prot_src) {
				op.src_fmt = &fmt;
				op.src_ref_tag = slot * blocks;
			}
			/* insert and convert: ref tags that go on counting across ops */
			if (type == RTE_BLKINT_OP_INSERT || type == RTE_BLKINT_OP_CONVERT) {
				op.dst_fmt = &fmt;
				op.dst_ref_tag = (uint32_t)(s * blocks);
			}
			if (shell_bad_op(s, w->bad_permille))
				flip(s);
			n++;
		}
		if (n) {
			uint16_t k = rte_blkint_enqueue(w->pi_ctx, ops, n);
			if (k < n)
				w->c.busy.fetch_add(1, std::memory_order_relaxed);
			for (uint16_t i = k; i < n; i++) /* not taken: the source as it was */
				if (shell_bad_op(seq + i, w->bad_permille))
					flip(seq + i);
			seq += k;
			inflight += k;
			w->c.submitted.fetch_add(k, std::memory_order_relaxed);
		}
		reap();
	}
	if (!shell_drain(inflight, reap))
		return -ETIMEDOUT; /* the buffers stay: the device may still write there */
	rte_free(src);
	rte_free(dst);
	rte_free(plain);
	return ret;
}

void shell_pi_release(struct shell_workload *w)
{
	/* stale: ops in flight, and freeing would wait for them however long */
	if (!w->pi_ctx || w->stale)
		return;
	struct rte_blkint_stats st = {};
	rte_blkint_stats_get(w->pi_ctx, &st);
	const struct rte_blkint_engine_stats &dev = st.engine[RTE_BLKINT_ENGINE_DEV];
	w->c.xcheck_run = dev.xcheck_run;
	w->c.xcheck_failed = dev.xcheck_failed;
	rte_blkint_free(w->pi_ctx); /* waits for what the device still owes */
	w->pi_ctx = NULL;
}

namespace {

/** The cross-checks of @p w so far: from its context, or as saved when it went. */
void xchecks(const struct shell_workload *w, uint64_t *run, uint64_t *failed)
{
	struct rte_blkint_stats st = {};

	*run = w->c.xcheck_run;
	*failed = w->c.xcheck_failed;
	if (w->pi_ctx && rte_blkint_stats_get(w->pi_ctx, &st) == 0) {
		*run = st.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run;
		*failed = st.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed;
	}
}

} // namespace

void shell_pi_show(struct shell_workload *w)
{
	uint64_t run, failed;

	xchecks(w, &run, &failed);
	shell_printf("  %s, ISA-L cross-checks: %" PRIu64 " run, %" PRIu64 " failed\n",
		     kOpNames[w->pi_op], run - w->c.xcheck_run_base,
		     failed - w->c.xcheck_failed_base);
}

void shell_pi_clear(struct shell_workload *w)
{
	xchecks(w, &w->c.xcheck_run_base, &w->c.xcheck_failed_base);
}

int shell_pi_generator(int16_t dev, uint16_t vchan)
{
	const shell_workload *w = shell_workload_running(dev, vchan);

	/*
	 * The software HCA flips the next PI the vchan's QP generates; armed with nothing
	 * generating PI there, it would hit whatever runs on the vchan later.
	 */
	if (!w) {
		shell_fail("corrupt-sig on device %d vchan %u: no workload runs there (start a pi "
			   "insert or convert workload first)",
			   dev, vchan);
		return -1;
	}
	if (w->op != SHELL_OP_PI ||
	    (w->pi_op != RTE_BLKINT_OP_INSERT && w->pi_op != RTE_BLKINT_OP_CONVERT)) {
		shell_fail("corrupt-sig on device %d vchan %u: workload %u generates no PI (only "
			   "pi insert and convert do; a verify checks PI, it writes none)",
			   dev, vchan, w->id);
		return -1;
	}
	return (int)w->id;
}
