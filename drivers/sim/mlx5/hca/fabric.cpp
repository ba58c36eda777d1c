/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The simulated fabric of one process: instances created with caps.fabric are
 * hosts with a port LID; an address vector (RC path or DC WQE) naming another
 * host's LID reaches that host's QPs and DCTs, whose memory is checked against
 * that host's MR table by that host's objects. Fabric hosts share one device lock,
 * so an engine pass may touch the responder host's objects as the responder's own
 * engine would (no lock order to keep, no deadlock between two hosts' engines).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <map>

#include "fabric.h"
#include "fabric_port.h"
#include "host.h"
#include "qp_table.h"
#include "queue_objs.h"

namespace mlx5sim {

namespace {

/**
 * The hosts, guarded by the fabric's device lock. Intentionally leaked: instances
 * held by static shared_ptrs may be destroyed among the static destructors.
 */
struct Fabric {
	std::shared_ptr<DevMutex> mu = std::make_shared<DevMutex>();
	std::map<uint16_t, Host *> hosts;
};

Fabric *g_fabric;

/*
 * fork(): the child's copy lists the parent's hosts, whose engines are not in
 * the child, and its lock may be held by a thread of the parent. The child
 * starts with none (the copy is left alone: the parent's objects are not ours).
 */
void fabric_fork_child()
{
	g_fabric = new Fabric;
}

Fabric &fabric()
{
	static bool once = (g_fabric = new Fabric,
			    pthread_atfork(nullptr, nullptr, fabric_fork_child), true);
	(void)once;
	return *g_fabric;
}

/** @p r answers requests (RTR, RTS, SQD, SQE). */
bool responder_alive(const QpObj *r)
{
	return r && (r->state == IBV_QPS_RTR || r->state == IBV_QPS_RTS ||
		     r->state == IBV_QPS_SQD || r->state == IBV_QPS_SQE);
}

} // namespace

DevMutex &fabric_lock()
{
	return *fabric().mu;
}

Host *fabric_host(uint16_t lid)
{
	auto it = fabric().hosts.find(lid);
	return it == fabric().hosts.end() ? nullptr : it->second;
}

std::shared_ptr<DevMutex> hca_device_lock(const HcaCaps &caps)
{
	return caps.fabric ? fabric().mu : std::make_shared<DevMutex>();
}

Host *FabricPort::host_of(uint16_t lid)
{
	if (lid == 0 || lid == caps_.lid)
		return &host_;
	if (!caps_.fabric)
		return nullptr;
	Host *h = fabric_host(lid);
	/* hosts of the process's fabric and of a machine-wide one do not meet */
	return h && strcmp(h->caps.fabric_name, caps_.fabric_name) == 0 ? h : nullptr;
}

QpObj *FabricPort::qp_at(uint16_t lid, uint32_t qpn, Host **host)
{
	*host = host_of(lid);
	return *host ? (*host)->qps.find(qpn) : nullptr;
}

int FabricPort::join()
{
	if (!caps_.fabric)
		return 0;
	DevLock lk(mu_);
	if (caps_.lid == 0 || !fabric().hosts.emplace(caps_.lid, &host_).second)
		return -EEXIST;
	if (xport_fd < 0)
		return 0;
	int ret = xfabric_port_add(xport_fd, caps_.lid);
	if (ret) {
		fabric().hosts.erase(caps_.lid);
		return ret;
	}
	return 0;
}

void FabricPort::leave()
{
	if (!caps_.fabric)
		return;
	DevLock lk(mu_);
	auto it = fabric().hosts.find(caps_.lid);
	if (it != fabric().hosts.end() && it->second == &host_)
		fabric().hosts.erase(it);
	if (xport_fd >= 0) {
		/* gone from the machine-wide fabric: its LID is free again */
		xfabric_port_remove(xport_fd);
		xport_fd = -1;
	}
	/* sends of the other hosts stalled on this one: TRANSPORT_RETRY_EXC now */
	for (auto &h : fabric().hosts)
		h.second->responder_changed();
}

int FabricPort::set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us)
{
	if (loss_ppm > 1000000 || delay_us > 10000000)
		return -EINVAL;
	DevLock lk(mu_);
	link_down_ = down;
	link_delay_us_ = delay_us;
	loss_ppm_ = loss_ppm;
	loss_rng_ = seed ? seed : 1; /* xorshift never leaves 0 */
	/* sends stalled on a host that just went away: TRANSPORT_RETRY_EXC now */
	if (down)
		responders_changed_everywhere();
	return 0;
}

uint32_t FabricPort::link_delay(const Host *host) const
{
	/* inline mode holds no CQE back: nothing would release it while the app polls */
	if (host == &host_ || mode_ == ExecMode::Inline)
		return 0;
	return link_delay_us_ + host->port.link_delay_us_;
}

bool FabricPort::request_reaches(const QpObj *qp, Host *host)
{
	if (host == &host_)
		return true; /* loopback never leaves the HCA */
	if (link_down_ || host->port.link_down_)
		return false;
	return host->port.request_survives(qp->retry_cnt);
}

bool FabricPort::rc_accepts(const QpObj *resp, uint16_t slid, uint32_t sqpn) const
{
	if (!responder_alive(resp) || resp->cfg.dc != DcRole::None)
		return false;
	uint16_t peer = resp->dest_lid ? resp->dest_lid : caps_.lid;
	return resp->dest_qpn == sqpn && peer == slid;
}

bool FabricPort::request_survives(uint8_t retry_cnt)
{
	if (loss_ppm_ == 0)
		return true;
	for (uint32_t attempt = 0; attempt <= retry_cnt; attempt++) {
		/* xorshift64: a reproducible sequence per seed */
		uint64_t x = loss_rng_;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		loss_rng_ = x;
		if (x % 1000000 >= loss_ppm_)
			return true;
	}
	return false;
}

void FabricPort::responders_changed_everywhere()
{
	if (!caps_.fabric) {
		host_.responder_changed();
		return;
	}
	for (auto &h : fabric().hosts)
		h.second->responder_changed();
}

} // namespace mlx5sim
