/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dmadev engine's UMR path on dma_mlx5: a gather is a list mkey over each side that
 * has several pieces (a UMR op each) and one copy through them; a header-data split is an
 * interleaved mkey with a repeat count per stream of records and one copy each. The PMD
 * API is looked up with dlsym so that the library runs without the PMD. mkeys come from
 * a per-engine pool taken in FIFO order and given back when the op that last used them
 * completes (a vchan completes in order): no create/destroy per gather.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "reasm_engine_dma.h"
#include "reasm_log.h"

namespace reasm_dma {

namespace {

template <typename F>
bool lookup(void *handle, F *f, const char *name)
{
	*f = (F)dlsym(handle, name);
	return *f != nullptr;
}

bool lookup_in(void *h, struct umr_api *a)
{
	return lookup(h, &a->get_caps, "rte_pmd_dma_mlx5_get_caps") &&
	       lookup(h, &a->limits, "rte_pmd_dma_mlx5_mkey_limits") &&
	       lookup(h, &a->create, "rte_pmd_dma_mlx5_mkey_create") &&
	       lookup(h, &a->destroy, "rte_pmd_dma_mlx5_mkey_destroy") &&
	       lookup(h, &a->set_list, "rte_pmd_dma_mlx5_mkey_set_list") &&
	       lookup(h, &a->set_interleaved, "rte_pmd_dma_mlx5_mkey_set_interleaved") &&
	       lookup(h, &a->copy, "rte_pmd_dma_mlx5_copy");
}

/* A loaded shared dma_mlx5 (EAL loads PMD plugins without RTLD_GLOBAL). */
int find_pmd(struct dl_phdr_info *info, size_t size, void *arg)
{
	RTE_SET_USED(size);
	if (!strstr(info->dlpi_name, "librte_dma_mlx5.so"))
		return 0;
	*(void **)arg = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
	return *(void **)arg != nullptr;
}

/* The PMD linked in or loaded globally, else a PMD plugin EAL loaded (kept open). */
bool lookup_api(struct umr_api *a)
{
	void *h = nullptr;

	if (lookup_in(RTLD_DEFAULT, a))
		return true;
	dl_iterate_phdr(find_pmd, &h);
	return h && lookup_in(h, a);
}

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
uint32_t plan_strided(const struct reasm_strided *s, bool two, struct strided_move *mv)
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

} // namespace

int dma_engine::umr_setup(const char *name, bool required)
{
	struct rte_pmd_dma_mlx5_caps caps;
	const char *why = NULL;
	uint32_t made = 0;

	if (strncmp(name, "dma_mlx5", 8) != 0)
		why = "not a dma_mlx5 device";
	else if (!lookup_api(&api))
		why = "dma_mlx5's mkey API (rte_pmd_dma_mlx5_*) is not in the process";
	else if (api.get_caps(dev, &caps) != 0)
		why = "not a dma_mlx5 device";
	else if (api.limits(dev, vchan, &lim) != 0 || lim.max_list_entries < 2)
		why = "no indirect mkeys of 2 entries or more";
	for (; !why && made < mkey_pool; made++)
		if (api.create(dev, vchan, lim.max_list_entries, &mk[made]) != 0)
			why = "mkey creation failed";
	if (why) {
		while (made > 1)
			api.destroy(dev, vchan, mk[--made - 1]);
		if (required)
			REASM_LOG(ERR, "dmadev %s: UMR mode: %s", name, why);
		else
			REASM_LOG(DEBUG, "dmadev %s: no UMR path: %s", name, why);
		return -ENOTSUP;
	}
	umr = true;
	return 0;
}

dma_engine::~dma_engine()
{
	if (!umr)
		return;
	/* rte_reasm_free() waited for the gathers: no mkey is under the device */
	for (uint32_t i = 0; i < mkey_pool; i++)
		api.destroy(dev, vchan, mk[i]);
}

struct rte_pmd_dma_mlx5_mkey *dma_engine::mkey_take()
{
	if (mk_head - mk_tail == mkey_pool)
		return NULL;
	return mk[mk_head++ % mkey_pool];
}

void dma_engine::mkeys_complete(uint16_t idx)
{
	while (mk_tail != mk_head && mk_release[mk_tail % mkey_pool] == idx)
		mk_tail++;
}

/*
 * The end of a UMR gather whose ops so far end at @p last (-1: none) and whose mkeys
 * were taken from @p mkeys_from: they come back when @p last completes. A gather refused
 * half-way leaves its queued ops behind an orphan marker (their status is no one's).
 */
int dma_engine::umr_finish(int last, uint32_t mkeys_from, int rc, uint32_t cookie)
{
	if (rc == 0) {
		cookies[last] = cookie;
	} else if (last >= 0) {
		cookies[last] = cookie_orphan;
	} else {
		mk_head = mkeys_from;
		return rc == -ENOSPC || rc == -EBUSY ? rc : -ENOTSUP;
	}
	for (uint32_t j = mkeys_from; j != mk_head; j++)
		mk_release[j % mkey_pool] = (uint16_t)last;
	if (rc == 0)
		return REASM_GATHER_QUEUED;
	/* a device refusal (unregistered memory, halted vchan): the plain path decides */
	return rc == -ENOSPC ? rc : -ENOTSUP;
}

int dma_engine::layout_list(const struct reasm_sge *l, uint16_t n, struct rte_pmd_dma_mlx5_addr *a,
			    int *last)
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
	idx = api.set_list(dev, vchan, m, src, n, 0);
	if (idx < 0)
		return idx;
	cookies[idx] = no_cookie;
	*last = idx;
	*a = {m, 0};
	return 0;
}

int dma_engine::layout_strided(const struct rte_pmd_dma_mlx5_interleaved *ent, uint16_t n,
			       uint32_t repeat, struct rte_pmd_dma_mlx5_addr *a, int *last)
{
	struct rte_pmd_dma_mlx5_mkey *m = mkey_take();
	int idx;

	if (!m)
		return -EBUSY;
	idx = api.set_interleaved(dev, vchan, m, ent, n, repeat, 0);
	if (idx < 0)
		return idx;
	cookies[idx] = no_cookie;
	*last = idx;
	*a = {m, 0};
	return 0;
}

int dma_engine::copy_op(const struct rte_pmd_dma_mlx5_addr *s,
			const struct rte_pmd_dma_mlx5_addr *d, uint32_t len, int *last)
{
	int idx = api.copy(dev, vchan, s, d, len, 0);

	if (idx < 0)
		return idx;
	cookies[idx] = no_cookie;
	*last = idx;
	return 0;
}

int dma_engine::gather_umr_mkey(const struct reasm_gather *g, uint32_t cookie)
{
	struct rte_pmd_dma_mlx5_addr s, d;
	uint32_t len = 0, first = mk_head, nmk;
	int last = -1, rc;

	if (!umr || (g->nb_src < 2 && g->nb_dst < 2) || g->nb_src > lim.max_list_entries ||
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
	rc = layout_list(g->src, g->nb_src, &s, &last);
	if (rc == 0)
		rc = layout_list(g->dst, g->nb_dst, &d, &last);
	if (rc == 0)
		rc = copy_op(&s, &d, len, &last);
	return umr_finish(last, first, rc, cookie);
}

int dma_engine::gather_strided(const struct reasm_strided *s, uint32_t cookie)
{
	struct strided_move mv[2];
	uint32_t n, first = mk_head;
	int last = -1, rc = 0;

	if (!umr || s->hdr_len == 0 || s->nrec == 0 || lim.max_interleaved_entries == 0)
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

		rc = copy_op(&a, &b, s->offset, &last);
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		struct rte_pmd_dma_mlx5_addr mkey_side, plain = {NULL, mv[i].plain};

		rc = layout_strided(mv[i].ent, mv[i].nent, s->nrec, &mkey_side, &last);
		if (rc == 0)
			rc = mv[i].ent_is_src ? copy_op(&mkey_side, &plain, mv[i].len, &last)
					      : copy_op(&plain, &mkey_side, mv[i].len, &last);
	}
	return umr_finish(last, first, rc, cookie);
}

} // namespace reasm_dma
