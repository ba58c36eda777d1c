/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Tests that need a second process (a peer on the software HCA's machine-wide
 * fabric) start their own binary again with other arguments and talk to it by
 * lines: commands on its stdin, answers on one of its file descriptors.
 */
#ifndef TEST_SPAWN_SELF_H
#define TEST_SPAWN_SELF_H

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

extern char **environ;

/**
 * Run this binary again with @p argv (argv[0] is ignored: /proc/self/exe). Its
 * stdin is written through *to; what it writes to its descriptor @p answer_fd
 * (1 or any other) is read through *from.
 * @return 0, or a negative errno (nothing left behind then).
 */
static inline int test_spawn_self(char **argv, int answer_fd, pid_t *pid, FILE **to, FILE **from)
{
	static char self[] = "/proc/self/exe";
	posix_spawn_file_actions_t fa;
	int in[2], out[2], ret;

	if (pipe(in) != 0)
		return -errno;
	if (pipe(out) != 0) {
		ret = -errno;
		close(in[0]);
		close(in[1]);
		return ret;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], answer_fd);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	argv[0] = self;
	ret = -posix_spawn(pid, self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	if (ret == 0) {
		*to = fdopen(in[1], "w");
		*from = fdopen(out[0], "r");
		if (*to && *from)
			return 0;
		ret = -ENOMEM; /* the child sees EOF and ends */
	}
	if (*to)
		fclose(*to);
	else
		close(in[1]);
	close(out[0]);
	return ret;
}

#endif /* TEST_SPAWN_SELF_H */
