/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live contexts of an offload library by name, for its telemetry commands: one
 * registry per library, shared by the control path (create/free) and the telemetry
 * thread, hence the lock. Header-only and internal: never installed.
 */
#ifndef LIB_NAMED_REGISTRY_H
#define LIB_NAMED_REGISTRY_H

#include <errno.h>
#include <string.h>

#include <mutex>
#include <vector>

#include <rte_telemetry.h>

/**
 * Contexts of type @p Ctx named by @p NameOf, unique by name.
 * Slow path only: every call takes the lock.
 */
template <typename Ctx, const char *(*NameOf)(const Ctx *)>
class lib_named_registry {
public:
	/** Add @p c; -EEXIST if its name is taken, -ENOMEM if the list cannot grow. */
	int add(Ctx *c)
	{
		std::lock_guard<std::mutex> g(lock_);

		for (Ctx *o : live_)
			if (strcmp(NameOf(o), NameOf(c)) == 0)
				return -EEXIST;
		try {
			live_.push_back(c);
		} catch (...) {
			return -ENOMEM;
		}
		return 0;
	}

	/** Remove @p c; nothing if it is not there. */
	void del(const Ctx *c)
	{
		std::lock_guard<std::mutex> g(lock_);

		for (size_t i = 0; i < live_.size(); i++)
			if (live_[i] == c) {
				live_.erase(live_.begin() + (long)i);
				return;
			}
	}

	/** Telemetry reply of a "list" command: the names as an array of strings. */
	int tel_list(struct rte_tel_data *d)
	{
		std::lock_guard<std::mutex> g(lock_);

		rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
		for (Ctx *c : live_)
			rte_tel_data_add_array_string(d, NameOf(c));
		return 0;
	}

	/**
	 * Run @p fn(ctx) on the context named @p name with the lock held (so it cannot be
	 * freed meanwhile) and return what it returns; -EINVAL if no context has that name.
	 */
	template <typename Fn>
	int with_named(const char *name, Fn fn)
	{
		std::lock_guard<std::mutex> g(lock_);

		for (Ctx *c : live_)
			if (name && strcmp(name, NameOf(c)) == 0)
				return fn(c);
		return -EINVAL;
	}

private:
	std::mutex lock_;
	std::vector<Ctx *> live_;
};

#endif /* LIB_NAMED_REGISTRY_H */
