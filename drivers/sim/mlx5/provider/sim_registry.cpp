/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Named software HCA instances (mlx5_sim.h) and the device list of the sim
 * backend.
 *
 * The registry is a process-wide singleton that is never destroyed, so engine
 * threads of live instances never race with static destructors at exit.
 * Device lists hold references: a removed instance stays valid for lists
 * obtained before, but cannot be opened any more.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <map>
#include <vector>

#include "sim_internal.h"
#include "sim_options.h"

namespace mlx5sim {

namespace {

struct Registry {
	std::mutex lock;
	std::map<uint32_t, std::shared_ptr<SimDevice>> devs; /**< by N of "simN" */
	std::map<struct ibv_device **, std::vector<std::shared_ptr<SimDevice>>> lists;
};

/* The process's CPU affinity when the library was loaded: before rte_eal_init()
 * pins the main thread (a plugin's constructors run before EAL sets affinities;
 * a linked-in library's before main()). */
cpu_set_t g_load_cpus;
bool g_load_cpus_valid;

__attribute__((constructor)) void capture_load_cpus()
{
	g_load_cpus_valid = sched_getaffinity(0, sizeof(g_load_cpus), &g_load_cpus) == 0 &&
			    CPU_COUNT(&g_load_cpus) > 0;
}

Registry &registry()
{
	static Registry *r = new Registry(); /* intentionally never freed */
	return *r;
}

/** "sim" + decimal number without leading zeros, N < 10^9. */
bool parse_name(const char *name, uint32_t *number)
{
	size_t len;
	uint32_t n = 0;

	if (!name || strncmp(name, "sim", 3))
		return false;
	len = strlen(name + 3);
	if (len == 0 || len > 9 || (len > 1 && name[3] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[3 + i];

		if (c < '0' || c > '9')
			return false;
		n = n * 10 + (uint32_t)(c - '0');
	}
	*number = n;
	return true;
}

} // namespace

namespace {

int insert_locked(Registry &r, const char *name, uint32_t number,
		  const std::shared_ptr<SimDevice> &dev);

/** Create and register instance N. Caller holds the registry lock. */
int add_locked(Registry &r, const char *name, uint32_t number,
	       const struct mlx5_sim_device_attr &attr)
{
	std::shared_ptr<SimDevice> dev;
	cpu_set_t cpus;
	HcaCaps caps;
	ExecMode mode;

	if (!sim_attr_to_caps(attr, &caps, &mode))
		return -EINVAL;
	/* the port's LID, as query_port reports it: a unicast LID for fabric hosts */
	caps.lid = (uint16_t)(number + 1); /* machine-wide fabric: the preferred LID */
	if (caps.fabric && number + 1 > 0xbfff)
		return -EINVAL;
	if (r.devs.count(number))
		return -EEXIST;
	dev = std::shared_ptr<SimDevice>(new (std::nothrow) SimDevice());
	if (!dev)
		return -ENOMEM;
	if (attr.engine_cpus_set)
		cpus = attr.engine_cpus;
	else
		mlx5_sim_default_engine_cpus(&cpus);
	/* sim_core: one engine thread per CPU named; the default set: one thread */
	dev->hca = Hca::create(name, caps, mode, &cpus, nullptr, attr.engine_cpus_set != 0);
	if (!dev->hca)
		return -ENOMEM;
	return insert_locked(r, name, number, dev);
}

/** Name @p dev (its hca set) instance N and register it. Caller holds the registry lock. */
int insert_locked(Registry &r, const char *name, uint32_t number,
		  const std::shared_ptr<SimDevice> &dev)
{
	dev->number = number;
	dev->ibdev.node_type = IBV_NODE_CA;
	dev->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "%s", name);
	snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "%s", name);
	snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path), "/sim/%s", name);
	snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path), "/sim/%s", name);
	try {
		r.devs.emplace(number, dev);
	} catch (...) {
		return -ENOMEM;
	}
	return 0;
}

} // namespace

struct ibv_device **sim_get_device_list(int *num_devices)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> g(r.lock);
	std::vector<std::shared_ptr<SimDevice>> refs;
	struct ibv_device **list = nullptr;
	size_t i = 0;
	int ret;

	if (r.devs.empty()) {
		struct mlx5_sim_device_attr attr;

		mlx5_sim_device_attr_init(&attr);
		ret = add_locked(r, "sim0", 0, attr);
		if (ret) {
			errno = -ret;
			return nullptr;
		}
	}
	list = static_cast<struct ibv_device **>(calloc(r.devs.size() + 1, sizeof(*list)));
	if (!list)
		goto nomem;
	try {
		for (auto &kv : r.devs) {
			refs.push_back(kv.second);
			list[i++] = &kv.second->ibdev;
		}
		r.lists.emplace(list, std::move(refs));
	} catch (...) {
		goto nomem;
	}
	if (num_devices)
		*num_devices = (int)i;
	return list;
nomem:
	free(list);
	errno = ENOMEM;
	return nullptr;
}

void sim_free_device_list(struct ibv_device **list)
{
	Registry &r = registry();
	std::vector<std::shared_ptr<SimDevice>> refs; /* released after the lock */

	if (!list)
		return;
	{
		std::lock_guard<std::mutex> g(r.lock);
		auto it = r.lists.find(list);

		if (it == r.lists.end())
			return; /* not ours: leave it alone */
		refs.swap(it->second);
		r.lists.erase(it);
	}
	free(list);
}

const char *sim_get_device_name(struct ibv_device *device)
{
	return device ? device->name : nullptr;
}

std::shared_ptr<SimDevice> sim_device_open(struct ibv_device *device)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> g(r.lock);

	for (auto &kv : r.devs) {
		if (&kv.second->ibdev == device) {
			kv.second->open_count++;
			return kv.second;
		}
	}
	errno = ENODEV;
	return nullptr;
}

void sim_device_close(SimDevice *dev)
{
	Registry &r = registry();
	std::lock_guard<std::mutex> g(r.lock);

	dev->open_count--;
}

int sim_device_add_hca(const char *name, std::shared_ptr<Hca> hca)
{
	Registry &r = registry();
	std::shared_ptr<SimDevice> dev;
	uint32_t number;

	if (!parse_name(name, &number) || !hca)
		return -EINVAL;
	dev = std::shared_ptr<SimDevice>(new (std::nothrow) SimDevice());
	if (!dev)
		return -ENOMEM;
	dev->hca = std::move(hca);
	std::lock_guard<std::mutex> g(r.lock);
	if (r.devs.count(number))
		return -EEXIST;
	return insert_locked(r, name, number, dev);
}

} // namespace mlx5sim

using namespace mlx5sim;

extern "C" void mlx5_sim_default_engine_cpus(cpu_set_t *cpus)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (!cpus)
		return;
	if (g_load_cpus_valid) {
		*cpus = g_load_cpus;
		return;
	}
	CPU_ZERO(cpus);
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET((int)i, cpus);
}

extern "C" int mlx5_sim_device_add(const char *name, const struct mlx5_sim_device_attr *attr)
{
	Registry &r = registry();
	struct mlx5_sim_device_attr defaults;
	uint32_t number;

	if (!parse_name(name, &number))
		return -EINVAL;
	if (!attr) {
		mlx5_sim_device_attr_init(&defaults);
		attr = &defaults;
	}
	std::lock_guard<std::mutex> g(r.lock);
	return add_locked(r, name, number, *attr);
}

namespace {

/** The instance called @p name in r.devs (caller holds r.lock); -ENODEV when unknown. */
int find_locked(Registry &r, const char *name, decltype(r.devs)::iterator *it)
{
	uint32_t number;

	if (!parse_name(name, &number))
		return -ENODEV;
	*it = r.devs.find(number);
	return *it == r.devs.end() ? -ENODEV : 0;
}

} // namespace

extern "C" int mlx5_sim_device_set_link(const char *name, const struct mlx5_sim_link *link)
{
	Registry &r = registry();
	std::shared_ptr<SimDevice> dev;
	decltype(r.devs)::iterator it;

	if (!name || !link)
		return -EINVAL;
	{
		std::lock_guard<std::mutex> g(r.lock);
		int ret = find_locked(r, name, &it);
		if (ret)
			return ret;
		dev = it->second;
	}
	return dev->hca->set_link(link->down != 0, link->loss_ppm, link->seed, link->delay_us);
}

extern "C" int mlx5_sim_device_remove(const char *name)
{
	Registry &r = registry();
	std::shared_ptr<SimDevice> dev; /* last reference dropped after the lock */
	decltype(r.devs)::iterator it;

	if (!name)
		return -EINVAL;
	std::lock_guard<std::mutex> g(r.lock);
	int ret = find_locked(r, name, &it);
	if (ret)
		return ret;
	if (it->second->open_count)
		return -EBUSY;
	dev = it->second;
	r.devs.erase(it);
	return 0;
}
