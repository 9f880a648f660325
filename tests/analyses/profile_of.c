/* profile_of.c -- test helper: imports a trace into a profile through the
 * real pipeline (mh_db_import_trace), keeping the trace, so a test can run a
 * command on both and compare.
 *   profile_of TRACE OUT.mhdb */
#include <stdio.h>
#include <string.h>

#include "import/import.h"
#include "store/store.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: profile_of TRACE OUT.mhdb\n");
        return 2;
    }
    char *prog_argv[] = {(char *)"./synthetic", NULL};
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = argv[1];
    io.run.argv = prog_argv;
    io.run.backend = "synthetic";
    io.run.memheat_version = "test";
    io.run.exit_status = 0;
    mh_err err = {0};
    if (mh_db_import_trace(argv[2], 1, &io, &err) != MH_OK) {
        fprintf(stderr, "profile_of: %s\n", err.msg);
        return 1;
    }
    return 0;
}
