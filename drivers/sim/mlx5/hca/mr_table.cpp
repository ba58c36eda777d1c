/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Protection domains and the MR table: registration commands (MRs and indirect
 * mkeys share it) and the key checks every data segment goes through before a
 * byte moves (mkey_xlat.cpp walks indirect mkeys down to these checks).
 *
 * Key = index << 8 | variant. The variant byte changes each time an index is
 * re-used (never 0, so no key equals MLX5_INVALID_LKEY), hence a stale key of a
 * deregistered MR fails even when its index was handed out again. An index's
 * first variant is random per instance, so keys do not repeat from run to run.
 */
#include <errno.h>

#include <new>

#include "mem_probe.h"
#include "mr_table.h"
#include "queue_objs.h"

namespace mlx5sim {

namespace {

constexpr int kKnownAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			     IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND |
			     IBV_ACCESS_RELAXED_ORDERING;
constexpr int kWritable = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND;

/** [addr, addr + len) lies inside the MR, without overflow. */
bool in_bounds(const MrEntry &mr, uint64_t addr, uint64_t len)
{
	if (addr < mr.addr)
		return false;
	uint64_t off = addr - mr.addr;
	return len <= mr.len && off <= mr.len - len;
}

/** On-demand pages are probed at access time: a fault is reported, not taken. */
bool odp_ok(const MrEntry &mr, uint64_t addr, uint64_t len, bool read, bool write)
{
	if (!mr.odp)
		return true;
	if (write)
		return mem::range_writable(addr, len);
	return !read || mem::range_readable(addr, len);
}

} // namespace

MrTable::MrTable(uint32_t max_pd, uint32_t max_mr, bool odp_implicit)
	: max_pd_(max_pd), max_mr_(max_mr), odp_implicit_(odp_implicit)
{
	pds_.resize(1); /* pdn 0 is never handed out */
	mrs_.resize(1); /* key index 0 is never handed out */
	mkeys_.resize(1);
}

MrTable::~MrTable()
{
	for (MkeyObj *mk : mkeys_)
		delete mk;
}

uint8_t MrTable::random_byte()
{
	uint64_t x = rng_;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_ = x;
	return (uint8_t)(x >> 32);
}

int MrTable::alloc_pd(uint32_t *pdn)
{
	for (size_t i = 1; i < pds_.size(); i++) {
		if (!pds_[i].used) {
			pds_[i] = PdEntry{true, 0};
			*pdn = (uint32_t)i;
			return 0;
		}
	}
	if (pds_.size() - 1 >= max_pd_) /* slot 0 is never used */
		return -ENOMEM;
	pds_.push_back(PdEntry{true, 0});
	*pdn = (uint32_t)(pds_.size() - 1);
	return 0;
}

int MrTable::dealloc_pd(uint32_t pdn)
{
	if (pdn == 0 || pdn >= pds_.size() || !pds_[pdn].used)
		return -EINVAL;
	if (pds_[pdn].refs)
		return -EBUSY;
	pds_[pdn].used = false;
	return 0;
}

size_t MrTable::free_key_index(bool mkey)
{
	for (size_t idx = 1;; idx++) {
		if (idx == mrs_.size()) {
			if (idx > 0xffffff)
				return 0;
			/* a new index's first variant is random (the next one after this) */
			MrEntry e{};
			e.variant = random_byte();
			gen_++;
			mrs_.push_back(e);
			mkeys_.push_back(nullptr);
		}
		if (!mrs_[idx].used && !(mkey && idx == HCA_MKEY_RESERVED_IDX))
			return idx;
	}
}

MkeyObj *MrTable::new_mkey(uint32_t num_desc, uint32_t flags, int *rc)
{
	*rc = -EINVAL;
	if (num_desc > HCA_MAX_MKEY_DESC ||
	    (flags & ~(uint32_t)(HCA_MKEY_REMOTE_INVALIDATE | HCA_MKEY_BSF)))
		return nullptr;
	*rc = -ENOMEM;
	MkeyObj *mk = new (std::nothrow) MkeyObj{};
	if (!mk)
		return nullptr;
	try {
		mk->ent.resize(num_desc); /* the only allocation: UMRs fill it in place */
	} catch (const std::bad_alloc &) {
		delete mk;
		return nullptr;
	}
	mk->num_desc = num_desc;
	mk->rinval = flags & HCA_MKEY_REMOTE_INVALIDATE;
	mk->bsf_en = flags & HCA_MKEY_BSF;
	mk->free = true;
	mk->qpn = 0xffffff;
	*rc = 0;
	return mk;
}

int MrTable::add_mkey(uint32_t pdn, MkeyObj *mk, uint32_t *key)
{
	if (!pd_live(pdn)) {
		delete mk;
		return -EINVAL;
	}
	size_t idx = mr_count_ < max_mr_ ? free_key_index(true) : 0;
	if (idx == 0) {
		delete mk;
		return -ENOMEM;
	}
	MrEntry &mr = mrs_[idx];
	gen_++;
	mk->mr_variant = mr.variant;
	mkeys_[idx] = mk;
	/* zero-based, length 0 until a UMR sets it; local read is always on */
	mr = MrEntry{true, 0, false, true, pdn, 0, 0, 0, 0};
	pds_[pdn].refs++;
	mr_count_++;
	*key = (uint32_t)idx << 8;
	return 0;
}

int MrTable::destroy_mkey(uint32_t key)
{
	uint32_t idx = key >> 8;
	/* by index, like DESTROY_MKEY: a UMR may have changed the tag */
	if (idx == 0 || idx >= mrs_.size() || !mrs_[idx].used || !mrs_[idx].indirect)
		return -EINVAL;
	MrEntry &mr = mrs_[idx];
	gen_++;
	pds_[mr.pdn].refs--;
	/* the next MR here continues the MR variants: a stale MR key never comes back */
	mr.variant = mkeys_[idx]->mr_variant;
	mr.indirect = false;
	mr.used = false;
	delete mkeys_[idx];
	mkeys_[idx] = nullptr;
	mr_count_--;
	return 0;
}

int MrTable::reg_mr_check(uint64_t addr, uint64_t len, int access, uint32_t *key) const
{
	if (!key || (access & ~kKnownAccess) || len == 0)
		return -EINVAL;
	/* verbs: remote write/atomic require local write */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	bool implicit = addr == 0 && len == UINT64_MAX;
	if (implicit && !odp)
		return -EINVAL;
	if (odp && !odp_implicit_)
		return -EOPNOTSUPP;
	if (!implicit && len > UINT64_MAX - addr)
		return -EINVAL;
	/* pinning happens outside the lock: it reads /proc/self/maps, faults pages in */
	if (!odp && !mem::range_pinnable(addr, len, access & kWritable))
		return -EFAULT;
	return 0;
}

int MrTable::reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key)
{
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	if (!pd_live(pdn))
		return -EINVAL;
	if (mr_count_ >= max_mr_)
		return -ENOMEM;
	size_t idx = free_key_index(false);
	if (idx == 0)
		return -ENOMEM;
	MrEntry &mr = mrs_[idx];
	gen_++;
	uint8_t variant = (uint8_t)(mr.variant + 1);
	if (variant == 0)
		variant = 1;
	uint32_t k = (uint32_t)idx << 8 | variant;
	/* ODP MRs need page probes: the fast path never accepts them (fast_key 0) */
	mr = MrEntry{true, variant, odp, false, pdn, addr, len, access, odp ? 0 : k};
	pds_[pdn].refs++;
	mr_count_++;
	*key = k;
	return 0;
}

int MrTable::dereg_mr(uint32_t key)
{
	uint32_t idx = key >> 8;
	if (idx == 0 || idx >= mrs_.size() || !mrs_[idx].used ||
	    mrs_[idx].variant != (key & 0xff) || mrs_[idx].indirect)
		return -EINVAL;
	gen_++;
	pds_[mrs_[idx].pdn].refs--;
	mrs_[idx].used = false;
	mrs_[idx].fast_key = 0;
	mr_count_--;
	return 0;
}

int MrTable::rereg_mr(uint32_t key, uint32_t pdn, uint64_t addr, uint64_t len, int access)
{
	uint32_t idx = key >> 8;
	if (idx == 0 || idx >= mrs_.size() || !mrs_[idx].used ||
	    mrs_[idx].variant != (key & 0xff) || mrs_[idx].indirect || !pd_live(pdn))
		return -EINVAL;
	MrEntry &mr = mrs_[idx];
	gen_++;
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	pds_[mr.pdn].refs--;
	pds_[pdn].refs++;
	/* the key stays: WQEs already posted with it see the new MR (the kernel's UMR) */
	mr = MrEntry{true, mr.variant, odp, false, pdn, addr, len, access, odp ? 0 : key};
	return 0;
}

Verdict MrTable::check_key(uint32_t pdn, uint32_t key, uint64_t addr, uint64_t len, int need,
			   Verdict bad, uint8_t **out, bool *odp) const
{
	uint32_t idx = key >> 8;
	if (idx == 0 || idx >= mrs_.size())
		return bad;
	const MrEntry &mr = mrs_[idx];
	if (!mr.used || mr.indirect || mr.variant != (key & 0xff) || mr.pdn != pdn)
		return bad;
	if ((mr.access & need) != need)
		return bad;
	if (len > UINT64_MAX - addr || !in_bounds(mr, addr, len))
		return bad;
	bool write = need & kWritable;
	if (!odp_ok(mr, addr, len, true, write))
		return Verdict{bad.syndrome, MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
	*out = reinterpret_cast<uint8_t *>((uintptr_t)addr);
	if (odp)
		*odp = mr.odp;
	return Verdict{0, 0};
}

Verdict MrTable::check_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len, bool write,
			     uint8_t **out, bool *odp) const
{
	return check_key(qp->cfg.pdn, key, addr, len, write ? IBV_ACCESS_LOCAL_WRITE : 0,
			 Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0}, out, odp);
}

Verdict MrTable::check_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len,
			      int need, uint8_t **out, bool *odp) const
{
	return check_key(resp->cfg.pdn, rkey, addr, len, need,
			 Verdict{MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0}, out, odp);
}

} // namespace mlx5sim
