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
 * refuses a piece the run ends with E505. `exiting`: the caller ends its
 * process right after sending the result (a sandbox child), so the VM,
 * the compiled program and the front end's trees are left to the kernel
 * instead of freed (the VM's stack unmapped, every object freed: work
 * and page faults a process about to exit need not pay); false frees
 * everything, as geno_run does. The result is the same either way. */
geno_result *rt_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                    const VmOutput *output, bool exiting);

/* Build now every process-wide table that a run otherwise builds on its
 * first use (the builtin index), so that processes forked afterwards (a
 * spawner's children) only read those pages: no copy-on-write fault, no
 * sort, no lock in each. Thread-safe; cheap after the first call. */
void rt_prepare_fork(void);

#endif
