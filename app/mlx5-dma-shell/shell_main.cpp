/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5-dma-shell: an interactive shell for dmadevs in testpmd's style.
 *   mlx5-dma-shell <EAL args> [-- [--cmdline-file FILE] [--batch]]
 * Interactive by default (prompt, tab completion, history: librte_cmdline). With
 * --cmdline-file, the file's commands run first. With --batch there is no prompt:
 * the file's commands, then those of standard input, each echoed; the exit status
 * is 1 when any command failed (unknown, bad arguments, or refused), 0 otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmdline_socket.h>
#include <rte_common.h>
#include <rte_eal.h>

#include "shell.h"

namespace {

const char kPrompt[] = "mlx5-dma> ";
struct cmdline *g_cl;
unsigned int g_failures;

struct options {
	const char *file = nullptr;
	bool batch = false;
};

int parse(int argc, char **argv, options *o)
{
	static const struct option lo[] = {{"cmdline-file", required_argument, nullptr, 'f'},
					   {"batch", no_argument, nullptr, 'b'},
					   {nullptr, 0, nullptr, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, nullptr)) != -1) {
		if (c == 'f')
			o->file = optarg;
		else if (c == 'b')
			o->batch = true;
		else
			return -1;
	}
	return optind == argc ? 0 : -1;
}

/** Run the commands of @p in (echoed after the prompt); the failures among them. */
unsigned int run_stream(struct cmdline *cl, FILE *in)
{
	char line[CMDLINE_PARSE_RESULT_BUFSIZE];
	unsigned int before = g_failures;

	while (!shell_quit_requested && fgets(line, sizeof(line), in)) {
		size_t n = strlen(line);
		const char *p = line + strspn(line, " \t");

		if (n && line[n - 1] != '\n') {
			shell_fail("line longer than %zu bytes", sizeof(line) - 2);
			int ch;
			while ((ch = fgetc(in)) != EOF && ch != '\n')
				;
			continue;
		}
		if (*p == '\n' || *p == '#')
			continue;
		shell_printf("%s%s", kPrompt, p);
		int ret = cmdline_parse(cl, p);
		size_t len = strcspn(p, "\r\n");
		if (ret == CMDLINE_PARSE_NOMATCH)
			shell_fail("unknown command \"%.*s\" (help)", (int)len, p);
		else if (ret == CMDLINE_PARSE_BAD_ARGS)
			shell_fail("bad arguments in \"%.*s\" (help)", (int)len, p);
		else if (ret == CMDLINE_PARSE_AMBIGUOUS)
			shell_fail("ambiguous command \"%.*s\"", (int)len, p);
	}
	return g_failures - before;
}

} // namespace

bool shell_quit_requested;

void shell_set_cmdline(struct cmdline *cl)
{
	g_cl = cl;
}

namespace {

/** One message to the shell's output: @p prefix, @p fmt formatted, @p suffix. */
void vout(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
	char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf) - 2, "%s", prefix);

	n += (size_t)vsnprintf(buf + n, sizeof(buf) - 2 - n, fmt, ap);
	snprintf(buf + RTE_MIN(n, sizeof(buf) - 2), 2, "%s", suffix);
	if (g_cl) {
		cmdline_printf(g_cl, "%s", buf);
	} else {
		fputs(buf, stdout);
		fflush(stdout);
	}
}

} // namespace

void shell_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout("", "", fmt, ap);
	va_end(ap);
}

void shell_fail(const char *fmt, ...)
{
	va_list ap;

	g_failures++;
	va_start(ap, fmt);
	vout("error: ", "\n", fmt, ap);
	va_end(ap);
}

unsigned int shell_run_file(struct cmdline *cl, const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		shell_fail("cannot read \"%s\": %s", path, strerror(errno));
		return 1;
	}
	unsigned int n = run_stream(cl, f);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	options o;
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "mlx5-dma-shell: EAL initialisation failed\n");
		return 2;
	}
	argv[n] = argv[0];
	if (parse(argc - n, argv + n, &o) < 0) {
		fprintf(stderr, "usage: mlx5-dma-shell <EAL args> [-- [--cmdline-file FILE] "
				"[--batch]]\n");
		rte_eal_cleanup();
		return 2;
	}
	fflush(stdout);
	if (o.batch) {
		/* no prompt of its own: each command is echoed after kPrompt */
		struct cmdline *cl = cmdline_new(shell_ctx, "", STDIN_FILENO, STDOUT_FILENO);
		if (!cl)
			return 2;
		shell_set_cmdline(cl);
		if (o.file)
			shell_run_file(cl, o.file);
		run_stream(cl, stdin);
		shell_workload_stop(-1);
		shell_set_cmdline(nullptr);
		cmdline_free(cl);
	} else {
		struct cmdline *cl = cmdline_stdin_new(shell_ctx, kPrompt);
		if (!cl)
			return 2;
		shell_set_cmdline(cl);
		if (o.file)
			shell_run_file(cl, o.file);
		if (!shell_quit_requested)
			cmdline_interact(cl);
		shell_workload_stop(-1);
		shell_set_cmdline(nullptr);
		cmdline_stdin_exit(cl);
	}
	printf("mlx5-dma-shell: %u failed command%s\n", g_failures, g_failures == 1 ? "" : "s");
	rte_eal_cleanup();
	return o.batch && g_failures ? 1 : 0;
}
