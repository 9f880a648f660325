/* camp_names.c -- the partition-camping model's vocabulary: its word
 * sizes, regression forms, operations and layouts as the benchmark CSV and
 * the model file spell them (camp_shared.h). */
#include "analyses/camp_shared.h"

const int mh_camp_word_sizes[MH_CAMP_NWORD] = {2, 4, 8, 16};
const char *const mh_camp_form_names[MH_CAMP_NFORM] = {"paper", "linear", "hinge", "recip"};
const char *const mh_camp_op_names[2] = {"read", "write"};
const char *const mh_camp_layout_names[2] = {"spread", "camped"};

int mh_camp_word_index(int word_bytes) {
    for (int i = 0; i < MH_CAMP_NWORD; i++)
        if (mh_camp_word_sizes[i] == word_bytes) return i;
    return -1;
}
