/* outname.h -- output names with substitutions, so one command line serves
 * every process of a job started by a launcher memheat does not control
 * (`srun memheat run -o p_%h_%r -- ./app`, torchrun, mpirun). */
#ifndef MH_UTIL_OUTNAME_H
#define MH_UTIL_OUTNAME_H

#include <stddef.h>

#include "memheat/err.h"

/* The rank variables, first set wins (RANK: torchrun, OMPI_COMM_WORLD_RANK:
 * Open MPI, PMI_RANK: MPICH/Intel MPI, SLURM_PROCID: srun). */
extern const char *const mh_outname_rank_vars[4];

/* Expands tmpl into out (cap bytes):
 *   %p  process id            %h  host name (up to the first '.')
 *   %r  rank: the first set of mh_outname_rank_vars, "0" when none is set
 *       (a job of one process is rank 0)
 *   %q{VAR}  the value of environment variable VAR (unset: an error)
 *   %%  a percent sign
 * Any other '%' sequence, an unterminated %q{, or a result that does not fit
 * is an MH_ERR_ARG naming the template. */
int mh_outname_expand(const char *tmpl, char *out, size_t cap, mh_err *err);
/* The rank text of %r into out ("0" when unset). */
void mh_outname_rank(char *out, size_t cap);

#endif
