/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The backend registry of the seam and device lookup across backends.
 *
 * A device name belongs to the backend that claims it (a software HCA claims
 * "simN" once its library is loaded); every other name goes to the hardware
 * backend, as an ibdev name ("mlx5_0") or a PCI address ("0000:08:00.0",
 * "08:00.0") resolved through sysfs. An ibv_device belongs to the device list it
 * came from, so the list is held until mlx5_glue_put_device().
 *
 * A backend that is not registered yet is loaded on demand, by its name alone: a
 * device name of letters and digits ("sim0": backend "sim") or an option key with a
 * prefix ("sim_exec": backend "sim") that no registered backend takes names backend
 * <word>, whose plugin is librte_<word>_mlx5.so.<ABI> (MLX5_GLUE_PLUGIN_SUFFIX) in the
 * directory of the shared seam, where the build tree and the plugin directory hold
 * every plugin. Its constructor registers it. So "-d librte_dma_mlx5.so" alone reaches
 * a software HCA, and code above the seam still names no backend. A seam linked into
 * the program statically has its backends linked in too, and loads nothing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"

namespace {

/* One device handed out by mlx5_glue_find_device(), with the list that owns it. */
struct held_device {
	const struct mlx5_glue *glue;
	struct ibv_device *device;
	struct ibv_device **list;
	struct held_device *next;
};

pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
held_device *held_head;

/* Registered backends, sorted by auto_order; the hardware backend is always in. */
pthread_mutex_t backends_lock = PTHREAD_MUTEX_INITIALIZER;
const struct mlx5_glue_backend *backends[MLX5_GLUE_MAX_BACKENDS];
unsigned int n_backends;

/* Caller holds backends_lock. */
int register_locked(const struct mlx5_glue_backend *b)
{
	unsigned int i;

	if (b == NULL || b->name == NULL || b->glue == NULL)
		return -EINVAL;
	for (i = 0; i < n_backends; i++)
		if (backends[i] == b || strcmp(backends[i]->name, b->name) == 0)
			return -EEXIST;
	if (n_backends == MLX5_GLUE_MAX_BACKENDS)
		return -ENOSPC;
	for (i = n_backends; i > 0 && backends[i - 1]->auto_order > b->auto_order; i--)
		backends[i] = backends[i - 1];
	backends[i] = b;
	n_backends++;
	return 0;
}

/* Caller holds backends_lock: the hardware backend first of all. */
void builtin_locked(void)
{
	static bool done;

	if (!done) {
		done = true;
		register_locked(mlx5_glue_rdma_core_backend());
	}
}

#ifndef MLX5_GLUE_PLUGIN_SUFFIX
#define MLX5_GLUE_PLUGIN_SUFFIX ".so"
#endif

/* Longest backend name a plugin is looked for by. */
#define PLUGIN_WORD_MAX 16

/* Backend names whose plugin was looked for already (found or not): once each. */
pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
char plugin_tried[MLX5_GLUE_MAX_BACKENDS * 2][PLUGIN_WORD_MAX];
unsigned int n_plugin_tried;

/*
 * The backend @p s names: its leading lowercase letters, when the rest is digits only
 * (a device name, @p option false) or starts with '_' (an option key). Only letters:
 * the word becomes part of a file name.
 */
bool plugin_word(const char *s, bool option, char *word)
{
	size_t n = 0, i;

	while (s[n] >= 'a' && s[n] <= 'z')
		n++;
	if (n == 0 || n >= PLUGIN_WORD_MAX)
		return false;
	if (option && s[n] != '_')
		return false;
	for (i = n; !option && s[i] != '\0'; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	memcpy(word, s, n);
	word[n] = '\0';
	return true;
}

bool backend_registered(const char *name)
{
	bool found = false;
	unsigned int i;

	pthread_mutex_lock(&backends_lock);
	for (i = 0; i < n_backends && !found; i++)
		found = strcmp(backends[i]->name, name) == 0;
	pthread_mutex_unlock(&backends_lock);
	return found;
}

/*
 * Load the plugin of backend @p word if it is not registered and the seam is shared:
 * from the seam's own directory only (no search path), once per name. Never unloaded:
 * the backend it registers stays for the process.
 */
void plugin_load(const char *word)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	bool shared = false;
	unsigned int i;

	pthread_mutex_lock(&plugin_lock);
	for (i = 0; i < n_plugin_tried; i++)
		if (strcmp(plugin_tried[i], word) == 0)
			break;
	if (i < n_plugin_tried || backend_registered(word)) {
		pthread_mutex_unlock(&plugin_lock);
		return;
	}
	if (n_plugin_tried < MLX5_GLUE_MAX_BACKENDS * 2)
		strcpy(plugin_tried[n_plugin_tried++], word);
	mlx5_glue_seam_dir(dir, sizeof(dir), &shared);
	if (shared && dir[0] != '\0') {
		snprintf(path, sizeof(path), "%s/librte_%s_mlx5%s", dir, word,
			 MLX5_GLUE_PLUGIN_SUFFIX);
		/* RTLD_LOCAL: the plugin's symbols stay its own, as EAL's -d loads them */
		if (access(path, F_OK) == 0 && dlopen(path, RTLD_NOW | RTLD_LOCAL) == NULL)
			fprintf(stderr, "mlx5 seam: backend plugin %s: %s\n", path, dlerror());
	}
	pthread_mutex_unlock(&plugin_lock);
}

/* What a device must satisfy: a name, or (if pci != NULL) a PCI function. */
struct device_match {
	const char *name;
	const struct mlx5_glue_pci_addr *pci;
	const char *sysfs_root;
};

bool device_matches(const struct mlx5_glue *glue, struct ibv_device *dev, const device_match *m)
{
	const char *dev_name = glue->get_device_name(dev);
	struct mlx5_glue_pci_addr addr;

	if (dev_name == NULL)
		return false;
	if (m->pci == NULL)
		return strcmp(dev_name, m->name) == 0;
	return mlx5_glue_ibdev_pci(m->sysfs_root, dev_name, &addr) == 0 &&
	       mlx5_glue_pci_equal(&addr, m->pci);
}

/* Remember (glue, device, list) for put_device. Takes ownership of list. */
int hold(const struct mlx5_glue *glue, struct ibv_device *device, struct ibv_device **list)
{
	held_device *h = static_cast<held_device *>(malloc(sizeof(*h)));

	if (h == NULL) {
		glue->free_device_list(list);
		return -ENOMEM;
	}
	h->glue = glue;
	h->device = device;
	h->list = list;
	pthread_mutex_lock(&held_lock);
	h->next = held_head;
	held_head = h;
	pthread_mutex_unlock(&held_lock);
	return 0;
}

} // namespace

int mlx5_glue_find_in(const struct mlx5_glue *glue, const char *name, struct ibv_device **device)
{
	struct mlx5_glue_pci_addr pci;
	device_match m = {};
	struct ibv_device **list;
	int num = 0; /* unused: the list is NULL-terminated */
	int i, ret;

	if (glue == NULL || name == NULL || name[0] == '\0' || device == NULL)
		return -EINVAL;
	m.name = name;
	if (mlx5_glue_pci_parse(name, &pci) == 0) {
		m.pci = &pci;
		m.sysfs_root = mlx5_glue_sysfs_root();
	}
	list = glue->get_device_list(&num);
	if (list == NULL)
		return -ENODEV;
	for (i = 0; list[i] != NULL; i++) {
		if (!device_matches(glue, list[i], &m))
			continue;
		ret = hold(glue, list[i], list);
		if (ret == 0)
			*device = list[i];
		return ret;
	}
	glue->free_device_list(list);
	return -ENODEV;
}

int mlx5_glue_backend_register(const struct mlx5_glue_backend *backend)
{
	int ret;

	pthread_mutex_lock(&backends_lock);
	builtin_locked();
	ret = register_locked(backend);
	pthread_mutex_unlock(&backends_lock);
	return ret;
}

void mlx5_glue_backend_unregister(const struct mlx5_glue_backend *backend)
{
	unsigned int i;

	pthread_mutex_lock(&backends_lock);
	for (i = 0; i < n_backends && backends[i] != backend; i++)
		;
	if (i < n_backends) {
		memmove(&backends[i], &backends[i + 1], (n_backends - i - 1) * sizeof(backends[0]));
		n_backends--;
	}
	pthread_mutex_unlock(&backends_lock);
}

unsigned int mlx5_glue_backends(const struct mlx5_glue_backend **out, unsigned int max)
{
	unsigned int i, n;

	pthread_mutex_lock(&backends_lock);
	builtin_locked();
	n = n_backends;
	for (i = 0; out != NULL && i < n && i < max; i++)
		out[i] = backends[i];
	pthread_mutex_unlock(&backends_lock);
	return n;
}

const struct mlx5_glue_backend *mlx5_glue_backend_of(const char *device_name)
{
	const struct mlx5_glue_backend *all[MLX5_GLUE_MAX_BACKENDS];
	const struct mlx5_glue_backend *catch_all = NULL;
	unsigned int i, n;

	char word[PLUGIN_WORD_MAX];

	if (device_name == NULL || device_name[0] == '\0')
		return NULL;
	if (plugin_word(device_name, false, word))
		plugin_load(word);
	n = mlx5_glue_backends(all, MLX5_GLUE_MAX_BACKENDS);
	for (i = 0; i < n; i++) {
		if (all[i]->claims == NULL) {
			if (catch_all == NULL)
				catch_all = all[i];
		} else if (all[i]->claims(device_name)) {
			return all[i];
		}
	}
	return catch_all;
}

namespace {

const struct mlx5_glue_backend *backend_of_option(const char *key)
{
	const struct mlx5_glue_backend *all[MLX5_GLUE_MAX_BACKENDS];
	unsigned int i, n;

	n = mlx5_glue_backends(all, MLX5_GLUE_MAX_BACKENDS);
	for (i = 0; i < n; i++) {
		const char *prefix = all[i]->option_prefix;

		if (prefix != NULL && prefix[0] != '\0' &&
		    strncmp(key, prefix, strlen(prefix)) == 0)
			return all[i];
	}
	return NULL;
}

} // namespace

const struct mlx5_glue_backend *mlx5_glue_backend_of_option(const char *key)
{
	const struct mlx5_glue_backend *b;
	char word[PLUGIN_WORD_MAX];

	if (key == NULL)
		return NULL;
	b = backend_of_option(key);
	if (b == NULL && plugin_word(key, true, word)) {
		plugin_load(word);
		b = backend_of_option(key);
	}
	return b;
}

const struct mlx5_glue_backend *mlx5_glue_backend_of_glue(const struct mlx5_glue *glue)
{
	const struct mlx5_glue_backend *all[MLX5_GLUE_MAX_BACKENDS];
	unsigned int i, n;

	n = mlx5_glue_backends(all, MLX5_GLUE_MAX_BACKENDS);
	for (i = 0; i < n; i++)
		if (all[i]->glue == glue)
			return all[i];
	return NULL;
}

int mlx5_glue_prepare_device(const char *name, const struct mlx5_glue_option *opts,
			     unsigned int n_opts, char *why, size_t why_len)
{
	const struct mlx5_glue_backend *b = mlx5_glue_backend_of(name);
	unsigned int i;

	if (why != NULL && why_len > 0)
		why[0] = '\0';
	if (b == NULL) {
		snprintf(why, why_len, "no backend knows device '%s'", name ? name : "");
		return -ENODEV;
	}
	for (i = 0; i < n_opts; i++) {
		const struct mlx5_glue_backend *owner = mlx5_glue_backend_of_option(opts[i].key);

		if (owner != b) {
			snprintf(why, why_len,
				 "option '%s' does not apply to device '%s' (%s backend)",
				 opts[i].key, name, b->name);
			return -EINVAL;
		}
	}
	if (b->prepare == NULL)
		return 0;
	if (b->canonical_name != NULL)
		name = b->canonical_name(name);
	return b->prepare(name, opts, n_opts, why, why_len);
}

int mlx5_glue_find_device(const char *name, const struct mlx5_glue **glue,
			  struct ibv_device **device)
{
	const struct mlx5_glue_backend *b;
	int ret;

	if (name == NULL || name[0] == '\0' || glue == NULL || device == NULL)
		return -EINVAL;
	b = mlx5_glue_backend_of(name);
	if (b == NULL)
		return -ENODEV;
	if (b->canonical_name != NULL)
		name = b->canonical_name(name);
	ret = mlx5_glue_find_in(b->glue, name, device);
	if (ret == 0)
		*glue = b->glue;
	return ret;
}

void mlx5_glue_put_device(const struct mlx5_glue *glue, struct ibv_device *device)
{
	held_device **pp, *h = NULL;

	if (glue == NULL || device == NULL)
		return;
	pthread_mutex_lock(&held_lock);
	for (pp = &held_head; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->glue == glue && (*pp)->device == device) {
			h = *pp;
			*pp = h->next;
			break;
		}
	}
	pthread_mutex_unlock(&held_lock);
	if (h == NULL)
		return; /* not ours: nothing to release */
	glue->free_device_list(h->list);
	free(h);
}
