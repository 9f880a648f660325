/* fixes_print.h -- the ranked fixes of a profile (src/report/fixes.h) in the
 * terminal: `memheat run`'s closing summary and `memheat analyze`'s first
 * section. The selection and the ranking are fixes.c's; this only prints, so
 * that a common finding renderer can take it over. */
#ifndef MEMHEAT_CLI_FIXES_PRINT_H
#define MEMHEAT_CLI_FIXES_PRINT_H

#include <stdio.h>

#include "report/fixes.h"

/* The first `max` fixes (0 = all), each with its cause, kernel, object,
 * estimated saving and fix; `brief`: three lines each (the run summary). */
void mh_cli_fixes_print(FILE *f, const mh_fixes *fx, size_t max, int brief);
/* The profile at path, read and ranked, its first `max` fixes printed;
 * nothing printed (and MH_OK) when it has none. */
int mh_cli_fixes_of_profile(const char *path, FILE *f, size_t max, int brief, mh_err *err);

#endif
