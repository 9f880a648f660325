/* main.c -- `memheat <command> [options]`: the command table and dispatch.
 * Every command is in its own cmd_<name>.c; docs/cli.md lists them all. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/bigmem.h"

static const mh_cli_cmd commands[] = {
#define MH_CMD(name, summary) {#name, mh_cmd_##name, summary},
#include "cli/commands.def"
#undef MH_CMD
};

static void usage(FILE *f) {
    fputs("usage: memheat <command> [options]\n\n"
          "memheat finds out why a GPU kernel's memory traffic is slow.\n\ncommands:\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'memheat <command> --help' describes a command's options.\n"
          "exit codes: 0 ok, 1 error, 2 bad command line, 3 profiled program failed,\n"
          "            4 input incomplete (results cover what it held), 128+N stopped by signal N\n", f);
}

int main(int argc, char **argv) {
    mh_big_setup();
    if (argc < 2) return mh_cli_usage("", "no command given");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return MH_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("memheat " MEMHEAT_VERSION);
        return MH_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    return mh_cli_usage("", "unknown command '%s'", argv[1]);
}
