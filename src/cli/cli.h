/* cli.h -- what every `memheat <command>` shares: the command table entry,
 * exit codes, error printing and option-value parsing. Commands live one per
 * file (cmd_<name>.c) and expose `int mh_cmd_<name>(int argc, char **argv)`,
 * where argv[0] is the command name. Exit codes are documented in docs/cli.md. */
#ifndef MH_CLI_H
#define MH_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "memheat/err.h"

enum mh_exit {
    MH_EXIT_OK = 0,
    MH_EXIT_ERROR = 1,   /* bad input, I/O, internal error */
    MH_EXIT_USAGE = 2,   /* bad command line */
    MH_EXIT_CHILD = 3,   /* the profiled program failed; what was collected is kept */
    MH_EXIT_PARTIAL = 4  /* input incomplete (cut, no end record, bad records skipped, interrupted profile) */
};

typedef struct mh_cli_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} mh_cli_cmd;

/* "memheat <cmd>: error: <msg>" on stderr; returns code. */
int mh_cli_fail(const char *cmd, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A bad command line as one line, "memheat CMD: error: WHAT (see memheat CMD
 * --help)"; returns MH_EXIT_USAGE. cmd "" is memheat itself. */
int mh_cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* What getopt_long stopped at (its return c, '?' or ':'), as mh_cli_usage:
 * an unknown option or one without its value, named as written. Commands
 * set opterr = 0 and start their optstring with ':' (after '+' if any), so
 * that getopt prints nothing of its own. */
int mh_cli_bad_option(const char *cmd, char *const *argv, int c);
/* Prints err's message; maps its status to an exit code. */
int mh_cli_fail_err(const char *cmd, const mh_err *err);
/* Exit code for an mh_status. */
int mh_cli_exit_code(int status);
/* Parses an unsigned decimal option value; prints a usage error if bad. */
int mh_cli_u64(const char *cmd, const char *opt, const char *val, uint64_t max, uint64_t *out);
/* Directory that holds the running memheat executable. */
int mh_cli_self_dir(char *out, size_t cap);
/* Where device models (camping) live: $MEMHEAT_MODEL_DIR, else memheat's data
 * folder (util/datadir.h). */
int mh_cli_model_dir(char *out, size_t cap);
/* 1 if the stream is a terminal and NO_COLOR is unset. */
int mh_cli_color(FILE *f);
/* Progress callback (mh_pass_opts.progress, mh_db_import_opts.progress): one
 * line on stderr, rewritten in place; a newline after the last. Callers
 * install it only when stderr is a terminal and -q was not given. */
void mh_cli_progress(void *ctx, const char *line, int done);

#endif
