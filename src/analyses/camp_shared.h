/* camp_shared.h -- what the partition-camping model's files share: the
 * names of words, forms, operations and layouts as the CSV and the model
 * file spell them, and the regression forms' coefficient layout. Private to
 * src/analyses/camp*.c. */
#ifndef MH_ANALYSES_CAMP_SHARED_H
#define MH_ANALYSES_CAMP_SHARED_H

#include <math.h>

#include <jansson.h>

#include "analyses/camp.h"

extern const int mh_camp_word_sizes[MH_CAMP_NWORD];
extern const char *const mh_camp_form_names[MH_CAMP_NFORM];
extern const char *const mh_camp_op_names[2];
extern const char *const mh_camp_layout_names[2];

/* Number of coefficients of a regression form (-1: unknown form). */
int mh_camp_form_ncoef(int form);
/* Fills eq->names from eq->form. */
void mh_camp_form_names_fill(mh_camp_eq *eq);

/* A double as JSON; NaN and infinities as null. */
static inline json_t *mh_camp_num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

#endif
