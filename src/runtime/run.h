/* geno_run with its output sent somewhere else as it is produced: how a
 * sandbox child (src/sandbox/child.c) streams a program's output into
 * memory its parent reads, so that what was printed survives a kill. */
#ifndef GENO_RUNTIME_RUN_H
#define GENO_RUNTIME_RUN_H

#include <geno.h>

#include "../vm/vm.h"

/* geno_run, but output is handed to `output` (copied; NULL: kept in the
 * result like geno_run) and the result's output is then empty. Every
 * piece is whole UTF-8 characters within max_output_length; when output
 * refuses a piece the run ends with E505. */
geno_result *rt_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                    const VmOutput *output);

#endif
