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
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include <cmdline_socket.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "shell.h"

namespace {

const char kPrompt[] = "mlx5-dma> ";
/* Longest command line (librte_cmdline's line editor takes 512 bytes). */
constexpr size_t kMaxLine = 510;
/* A "line" this long without a newline: the input is no command file. */
constexpr size_t kGiveUp = 1u << 16;
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
/*
 * One line of @p in into @p buf (kMaxLine + 1 bytes), without its newline: 1, 0 at
 * the end, or -1 for a line that is no command: too long, or with a NUL byte (skipped,
 * up to kGiveUp bytes; beyond, the rest of the input is not read).
 */
int read_line(FILE *in, char *buf, bool *give_up)
{
	size_t n = 0, total = 0;
	bool bad = false;
	int ch;

	while ((ch = getc(in)) != EOF && ch != '\n') {
		if (++total > kGiveUp) {
			*give_up = true;
			return -1;
		}
		if (ch == '\0' || n >= kMaxLine)
			bad = true;
		else
			buf[n++] = (char)ch;
	}
	buf[n] = '\0';
	if (ch == EOF && total == 0)
		return 0;
	return bad ? -1 : 1;
}

unsigned int run_stream(struct cmdline *cl, FILE *in)
{
	unsigned int before = g_failures;
	char buf[kMaxLine + 1];
	bool give_up = false;
	int got;

	while (!shell_quit_requested && (got = read_line(in, buf, &give_up)) != 0) {
		if (got < 0) {
			shell_fail(give_up ? "no newline in %zu bytes: not a command file"
					   : "a line longer than %zu bytes or with a NUL byte",
				   give_up ? kGiveUp : kMaxLine);
			if (give_up)
				break;
			continue;
		}
		size_t n = strlen(buf);
		while (n && buf[n - 1] == '\r')
			buf[--n] = '\0';
		const char *p = buf + strspn(buf, " \t");
		if (*p == '\0' || *p == '#')
			continue;
		shell_printf("%s%s\n", kPrompt, p);
		char cmd[kMaxLine + 2];
		snprintf(cmd, sizeof(cmd), "%s\n", p);
		int ret = cmdline_parse(cl, cmd);
		if (ret == CMDLINE_PARSE_NOMATCH)
			shell_fail("unknown command \"%s\" (help)", p);
		else if (ret == CMDLINE_PARSE_BAD_ARGS)
			shell_fail("bad arguments in \"%s\" (help)", p);
		else if (ret == CMDLINE_PARSE_AMBIGUOUS)
			shell_fail("ambiguous command \"%s\"", p);
	}
	if (ferror(in))
		shell_fail("reading commands: %s", strerror(errno));
	return g_failures - before;
}

} // namespace

bool shell_quit_requested;

void shell_set_cmdline(struct cmdline *cl)
{
	g_cl = cl;
}

namespace {

/** One message to the shell's output: @p prefix, @p fmt formatted, @p suffix; escaped. */
void vout(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
	char buf[4096];
	std::string out;
	size_t n = (size_t)snprintf(buf, sizeof(buf) - 2, "%s", prefix);

	vsnprintf(buf + n, sizeof(buf) - 2 - n, fmt, ap);
	/* after what was written, truncated or not */
	snprintf(buf + strlen(buf), 2, "%s", suffix);
	shell_escape(buf, strlen(buf), &out);
	if (g_cl) {
		cmdline_printf(g_cl, "%s", out.c_str());
	} else {
		fputs(out.c_str(), stdout);
		fflush(stdout);
	}
}

/* DPDK's log lines (the PMDs', EAL's) escaped too: they quote devargs and file names. */
ssize_t log_write(void *, const char *buf, size_t len)
{
	std::string out;

	shell_escape(buf, len, &out);
	if (fwrite(out.data(), 1, out.size(), stderr) != out.size())
		return -1;
	fflush(stderr);
	return (ssize_t)len;
}

void escape_logs(void)
{
	cookie_io_functions_t io = {};
	FILE *f;

	io.write = log_write;
	f = fopencookie(NULL, "w", io);
	if (f) {
		setvbuf(f, NULL, _IOLBF, 0);
		rte_openlog_stream(f);
	}
}

} // namespace

void shell_escape(const char *in, size_t len, std::string *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '\\') {
			out->append("\\\\");
		} else if ((c >= 0x20 && c < 0x7f) || c == '\n') {
			out->push_back((char)c);
		} else {
			out->append("\\x");
			out->push_back(hex[c >> 4]);
			out->push_back(hex[c & 0xf]);
		}
	}
}

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

FILE *shell_open_file(const char *path)
{
	/* non-blocking open: a FIFO without a writer must not hang the shell */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int err = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	FILE *f = NULL;

	if (err == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
		f = fdopen(fd, "r");
	if (!f) {
		if (err == EINVAL)
			shell_fail("cannot read \"%s\": not a regular file", path);
		else
			shell_fail("cannot read \"%s\": %s", path, strerror(err ? err : errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

unsigned int shell_run_file(struct cmdline *cl, const char *path)
{
	FILE *f = shell_open_file(path);

	if (!f)
		return 1;
	unsigned int n = run_stream(cl, f);
	fclose(f);
	return n;
}

namespace {

/*
 * EAL's arguments with a --file-prefix of the shell's own when the user gave none (nor
 * a --proc-type, which must share the primary's): two shells started alike would
 * otherwise both take DPDK's default runtime directory, and the second fail there.
 */
std::vector<char *> eal_argv(int argc, char **argv, char *prefix, size_t len)
{
	std::vector<char *> v(argv, argv + argc);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], "--file-prefix", 13) == 0 ||
		    strncmp(argv[i], "--proc-type", 11) == 0)
			break;
	if (i == argc || strcmp(argv[i], "--") == 0) {
		snprintf(prefix, len, "--file-prefix=mlx5-dma-shell-%d", (int)getpid());
		v.insert(v.begin() + 1, prefix);
	}
	v.push_back(nullptr);
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	options o;
	char prefix[64];
	std::vector<char *> args = eal_argv(argc, argv, prefix, sizeof(prefix));
	argc = (int)args.size() - 1;
	argv = args.data();
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "mlx5-dma-shell: EAL initialisation failed\n");
		return 2;
	}
	escape_logs();
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
