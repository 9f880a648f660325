/* source.h -- the source lines a report shows beside a finding
 * (mh_report_source_): the file:line the trace gives, read where the report
 * is written, else found in the directories the user names (`memheat report
 * --source DIR`): a moved CUDA build tree by the file's base name, and
 * Oclgrind's "input.cl" (its name for a program built from a source string)
 * as the .cl file that defines the finding's kernel. */
#ifndef MH_REPORT_SOURCE_H
#define MH_REPORT_SOURCE_H

#include <stddef.h>

struct json_t;

/* Adds "snippet" ([[line, text], ...]: the lines around the finding's line)
 * to each finding of the summary whose source is found, and "source_file"
 * (the path read) where it is not the file the trace names. dirs may be NULL. */
void mh_report_source_annotate(struct json_t *summary, const char *const *dirs, size_t ndirs);

#endif
