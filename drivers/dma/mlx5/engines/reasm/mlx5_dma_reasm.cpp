/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5's rte_reasm engine module (rte_reasm_driver.h), registered for the dma_mlx5
 * driver from a constructor: a gather is a list mkey over each side that has several
 * pieces (a UMR op each) and one copy through them; a header-data split is an
 * interleaved mkey with a repeat count per stream of records and one copy each. mkeys
 * come from a per-engine pool taken in FIFO order and given back when the op that last
 * used them completes (a vchan completes in order): no create/destroy per gather. Built
 * as its own plugin (librte_dma_mlx5_reasm.so, linking librte_reasm and the PMD); see
 * doc/guides/prog_guide/architecture.rst.
 */
#include <errno.h>
#include <string.h>

#include <new>

#include <rte_dmadev.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "rte_pmd_dma_mlx5.h"
#include "rte_reasm_driver.h"

RTE_LOG_REGISTER_DEFAULT(mlx5_dma_reasm_logtype, INFO);
#define MLX5_DMA_REASM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, mlx5_dma_reasm_logtype, "dma_mlx5 reasm: " fmt "\n", ##__VA_ARGS__)

namespace {

/* mkeys of a path: a gather holds one to three until its copy completes */
constexpr uint32_t mkey_pool = 256; /* RTE_REASM_DEFAULT_MAX_INFLIGHT gathers */

/* The UMR path of one engine (one vchan). */
struct umr_path {
	int16_t dev;
	uint16_t vchan;
	struct rte_pmd_dma_mlx5_mkey_limits lim;
	struct rte_pmd_dma_mlx5_mkey *mk[mkey_pool];
	uint16_t mk_release[mkey_pool]; /* ring index whose completion frees it */
	uint32_t mk_head = 0, mk_tail = 0;
	uint32_t nb_mk = 0; /* made: all of the pool once set up */
	struct rte_dma_sge src[RTE_REASM_MAX_SGES];

	~umr_path();
	int setup(const char *name, bool required);
	int gather(const struct rte_reasm_dev_gather *g, int *last);
	int gather_strided(const struct rte_reasm_dev_strided *s, int *last);
	void completed(uint16_t last, uint16_t n);

private:
	struct rte_pmd_dma_mlx5_mkey *mkey_take();
	int finish(int last, uint32_t mkeys_from, int rc);
	int layout_list(const struct rte_reasm_dev_sge *l, uint16_t n,
			struct rte_pmd_dma_mlx5_addr *a, int *last);
	int layout_strided(const struct rte_pmd_dma_mlx5_interleaved *ent, uint16_t n,
			   uint32_t repeat, struct rte_pmd_dma_mlx5_addr *a, int *last);
	int copy_op(const struct rte_pmd_dma_mlx5_addr *s, const struct rte_pmd_dma_mlx5_addr *d,
		    uint32_t len, int *last);
};

/* One copy of a split: each side an IOVA, or an interleaved layout repeated nrec times. */
struct strided_move {
	struct rte_pmd_dma_mlx5_interleaved ent[2];
	uint16_t nent;
	bool ent_is_src;
	rte_iova_t plain; /* the other side */
	uint32_t len;
};

/*
 * The copies of split @p s: one per stream, or one for both with two entries. The 16-bit
 * entry fields never truncate: rte_reasm_split_enqueue() refuses H + P over UINT16_MAX.
 */
uint32_t plan_strided(const struct rte_reasm_dev_strided *s, bool two, struct strided_move *mv)
{
	uint32_t n = s->nrec, h = s->hdr_len, p = s->pay_len, st = h + p, k = 0;
	rte_iova_t in = s->in.iova + s->offset, out = s->out.iova + s->offset;

	if (!s->reverse) {
		if (s->keep_headers && two) { /* records in, both halves out in one copy */
			mv[k++] = {{{out + (rte_iova_t)n * p, (uint16_t)h, (uint16_t)h},
				    {out, (uint16_t)p, (uint16_t)p}},
				   2,
				   false,
				   in,
				   n * st};
			return k;
		}
		mv[k++] = {{{in + h, (uint16_t)p, (uint16_t)st}}, 1, true, out, n * p};
		if (s->keep_headers)
			mv[k++] = {{{in, (uint16_t)h, (uint16_t)st}},
				   1,
				   true,
				   out + (rte_iova_t)n * p,
				   n * h};
		return k;
	}
	if (two) { /* payloads and headers in, records out in one copy */
		mv[k++] = {{{in + (rte_iova_t)n * p, (uint16_t)h, (uint16_t)h},
			    {in, (uint16_t)p, (uint16_t)p}},
			   2,
			   true,
			   out,
			   n * st};
		return k;
	}
	mv[k++] = {{{out + h, (uint16_t)p, (uint16_t)st}}, 1, false, in, n * p};
	mv[k++] = {{{out, (uint16_t)h, (uint16_t)st}}, 1, false, in + (rte_iova_t)n * p, n * h};
	return k;
}

int umr_path::setup(const char *name, bool required)
{
	struct rte_pmd_dma_mlx5_caps caps;
	const char *why = NULL;
	uint32_t made = 0;

	if (rte_pmd_dma_mlx5_get_caps(dev, &caps) != 0)
		why = "not a dma_mlx5 device";
	else if (rte_pmd_dma_mlx5_mkey_limits(dev, vchan, &lim) != 0 || lim.max_list_entries < 2)
		why = "no indirect mkeys of 2 entries or more";
	for (; !why && made < mkey_pool; made++)
		if (rte_pmd_dma_mlx5_mkey_create(dev, vchan, lim.max_list_entries, &mk[made]) != 0)
			why = "mkey creation failed";
	if (why) {
		while (made > 1)
			rte_pmd_dma_mlx5_mkey_destroy(dev, vchan, mk[--made - 1]);
		if (required)
			MLX5_DMA_REASM_LOG(ERR, "dmadev %s: UMR mode: %s", name, why);
		else
			MLX5_DMA_REASM_LOG(DEBUG, "dmadev %s: no UMR path: %s", name, why);
		return -ENOTSUP;
	}
	nb_mk = mkey_pool;
	return 0;
}

umr_path::~umr_path()
{
	/* the engine is freed once its gathers completed: no mkey is under the device */
	for (uint32_t i = 0; i < nb_mk; i++)
		rte_pmd_dma_mlx5_mkey_destroy(dev, vchan, mk[i]);
}

struct rte_pmd_dma_mlx5_mkey *umr_path::mkey_take()
{
	if (mk_head - mk_tail == mkey_pool)
		return NULL;
	return mk[mk_head++ % mkey_pool];
}

/* The n ops ending at @p last completed: the mkeys their gathers held come back. */
void umr_path::completed(uint16_t last, uint16_t n)
{
	while (mk_tail != mk_head && (uint16_t)(last - mk_release[mk_tail % mkey_pool]) < n)
		mk_tail++;
}
/*
 * The end of a gather whose ops so far end at @p last (-1: none) and whose mkeys were
 * taken from @p mkeys_from: they come back when @p last completes. The engine marks
 * the gather (rte_reasm_driver.h) from @p last and the return value.
 */
int umr_path::finish(int last, uint32_t mkeys_from, int rc)
{
	if (rc != 0 && last < 0) {
		mk_head = mkeys_from;
		return rc;
	}
	for (uint32_t j = mkeys_from; j != mk_head; j++)
		mk_release[j % mkey_pool] = (uint16_t)last;
	return rc;
}

int umr_path::layout_list(const struct rte_reasm_dev_sge *l, uint16_t n,
			  struct rte_pmd_dma_mlx5_addr *a, int *last)
{
	struct rte_pmd_dma_mlx5_mkey *m;
	int idx;

	if (n == 1) {
		*a = {NULL, l[0].iova};
		return 0;
	}
	m = mkey_take();
	if (!m)
		return -EBUSY;
	for (uint16_t i = 0; i < n; i++)
		src[i] = {l[i].iova, l[i].len};
	idx = rte_pmd_dma_mlx5_mkey_set_list(dev, vchan, m, src, n, 0);
	if (idx < 0)
		return idx;
	*last = idx;
	*a = {m, 0};
	return 0;
}

int umr_path::layout_strided(const struct rte_pmd_dma_mlx5_interleaved *ent, uint16_t n,
			     uint32_t repeat, struct rte_pmd_dma_mlx5_addr *a, int *last)
{
	struct rte_pmd_dma_mlx5_mkey *m = mkey_take();
	int idx;

	if (!m)
		return -EBUSY;
	idx = rte_pmd_dma_mlx5_mkey_set_interleaved(dev, vchan, m, ent, n, repeat, 0);
	if (idx < 0)
		return idx;
	*last = idx;
	*a = {m, 0};
	return 0;
}

int umr_path::copy_op(const struct rte_pmd_dma_mlx5_addr *s, const struct rte_pmd_dma_mlx5_addr *d,
		      uint32_t len, int *last)
{
	int idx = rte_pmd_dma_mlx5_copy(dev, vchan, s, d, len, 0);

	if (idx < 0)
		return idx;
	*last = idx;
	return 0;
}

int umr_path::gather(const struct rte_reasm_dev_gather *g, int *last)
{
	struct rte_pmd_dma_mlx5_addr s, d;
	uint32_t len = 0, first = mk_head, nmk;
	int rc;

	*last = -1;
	if ((g->nb_src < 2 && g->nb_dst < 2) || g->nb_src > lim.max_list_entries ||
	    g->nb_dst > lim.max_list_entries)
		return -ENOTSUP; /* one piece each: a plain copy; too many: COPY_SG parts */
	for (uint16_t i = 0; i < g->nb_src; i++)
		len += g->src[i].len;
	if (len > lim.max_copy_len)
		return -ENOTSUP;
	nmk = (g->nb_src > 1) + (g->nb_dst > 1);
	if (mkey_pool - (mk_head - mk_tail) < nmk)
		return -EBUSY;
	if (rte_dma_burst_capacity(dev, vchan) < nmk + 1)
		return -ENOSPC;
	rc = layout_list(g->src, g->nb_src, &s, last);
	if (rc == 0)
		rc = layout_list(g->dst, g->nb_dst, &d, last);
	if (rc == 0)
		rc = copy_op(&s, &d, len, last);
	return finish(*last, first, rc);
}

int umr_path::gather_strided(const struct rte_reasm_dev_strided *s, int *last)
{
	struct strided_move mv[2];
	uint32_t n, first = mk_head;
	int rc = 0;

	*last = -1;
	if (s->hdr_len == 0 || s->nrec == 0 || lim.max_interleaved_entries == 0)
		return -ENOTSUP; /* nothing interleaved: the pieces are few */
	n = plan_strided(s, lim.max_interleaved_entries >= 2, mv);
	for (uint32_t i = 0; i < n; i++)
		if (mv[i].len > lim.max_copy_len)
			return -ENOTSUP;
	if (s->offset > lim.max_copy_len)
		return -ENOTSUP;
	if (mkey_pool - (mk_head - mk_tail) < n)
		return -EBUSY;
	if (rte_dma_burst_capacity(dev, vchan) < 2 * n + (s->offset > 0))
		return -ENOSPC;
	if (s->offset) { /* the bytes before the records, as they are */
		struct rte_pmd_dma_mlx5_addr a = {NULL, s->in.iova}, b = {NULL, s->out.iova};

		rc = copy_op(&a, &b, s->offset, last);
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		struct rte_pmd_dma_mlx5_addr mkey_side, plain = {NULL, mv[i].plain};

		rc = layout_strided(mv[i].ent, mv[i].nent, s->nrec, &mkey_side, last);
		if (rc == 0)
			rc = mv[i].ent_is_src ? copy_op(&mkey_side, &plain, mv[i].len, last)
					      : copy_op(&plain, &mkey_side, mv[i].len, last);
	}
	return finish(*last, first, rc);
}

void *path_create(int16_t dev_id, uint16_t vchan, bool required)
{
	struct rte_dma_info info;
	umr_path *p;

	if (rte_dma_info_get(dev_id, &info) != 0) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	p = new (std::nothrow) umr_path();
	if (!p) {
		MLX5_DMA_REASM_LOG(ERR, "dmadev %s: no memory for the UMR path", info.dev_name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	p->dev = dev_id;
	p->vchan = vchan;
	if (p->setup(info.dev_name, required) != 0) {
		delete p;
		rte_errno = ENOTSUP;
		return NULL;
	}
	return p;
}

void path_destroy(void *p)
{
	delete (umr_path *)p;
}

int path_gather(void *p, const struct rte_reasm_dev_gather *g, int *last)
{
	return ((umr_path *)p)->gather(g, last);
}

int path_gather_strided(void *p, const struct rte_reasm_dev_strided *s, int *last)
{
	return ((umr_path *)p)->gather_strided(s, last);
}

void path_completed(void *p, uint16_t last, uint16_t n)
{
	((umr_path *)p)->completed(last, n);
}

/* Constant-initialised: the constructor below may run before any C++ initialiser. */
const struct rte_reasm_dev_driver mlx5_dma_reasm_driver = {
	"dma_mlx5",  "dma-umr",           path_create,    path_destroy,
	path_gather, path_gather_strided, path_completed,
};

} // namespace

RTE_INIT(mlx5_dma_reasm_register)
{
	int ret = rte_reasm_dev_driver_register(&mlx5_dma_reasm_driver);

	if (ret < 0)
		MLX5_DMA_REASM_LOG(ERR, "not registered with rte_reasm: %d", ret);
}

RTE_FINI(mlx5_dma_reasm_unregister)
{
	rte_reasm_dev_driver_unregister(&mlx5_dma_reasm_driver);
}
