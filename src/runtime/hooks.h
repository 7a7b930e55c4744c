/* Run hooks: how a run reports its output as it is produced, for process
 * isolation (src/sandbox) where the output of a child that is killed must
 * survive it.
 *
 * Contract for the VM (the one use-site, in the print builtin):
 *   after the output limit has accepted a piece of text and it has been
 *   appended to the run's output buffer, call rt_hook_output(text, len);
 *   when the run discards the output gathered so far (the output of example
 *   verification is dropped before main), call rt_hook_output_discard().
 * Both are a load and a branch when no hook is installed (always, outside a
 * sandbox child), so they cost nothing in-process.
 *
 * Hooks are per thread: installing one affects only runs on that thread,
 * so in-process runs on other threads never see a sandbox's hook. */
#ifndef GENO_RUNTIME_HOOKS_H
#define GENO_RUNTIME_HOOKS_H

#include <stddef.h>

typedef struct RtRunHooks {
  /* A piece of program output, exactly the bytes appended to the run's
   * output (valid UTF-8, never split inside a character). */
  void (*output)(void *ud, const char *text, size_t len);
  /* Everything reported through `output` so far was discarded. */
  void (*output_discard)(void *ud);
  void *ud;
} RtRunHooks;

/* Install hooks for runs on the calling thread (copied); NULL removes
 * them. */
void rt_hooks_install(const RtRunHooks *hooks);

/* Called by the runtime (see the contract above). */
void rt_hook_output(const char *text, size_t len);
void rt_hook_output_discard(void);

#endif
