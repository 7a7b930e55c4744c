/* Run hooks: how a run reports its output as it is produced, for process
 * isolation (src/sandbox) where the output of a child that is killed must
 * survive it.
 *
 * Contract for the VM (the one use-site, vm_output):
 *   after the output limit has accepted a piece of text, call
 *   rt_hook_output(text, len). When it returns RT_HOOK_TAKEN the hook owns
 *   the output: the run keeps no copy of its own (a sandbox child would
 *   otherwise hold every byte twice, and then a third time to send it);
 *   RT_HOOK_NONE: no hook, append to the run's output buffer;
 *   RT_HOOK_FULL: the hook has no room left, the run ends with E505.
 *   When the run discards the output gathered so far, call
 *   rt_hook_output_discard().
 * Both are a load and a branch when no hook is installed (always, outside a
 * sandbox child), so they cost nothing in-process.
 *
 * Hooks are per thread: installing one affects only runs on that thread,
 * so in-process runs on other threads never see a sandbox's hook. */
#ifndef GENO_RUNTIME_HOOKS_H
#define GENO_RUNTIME_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct RtRunHooks {
  /* A piece of program output, exactly the bytes appended to the run's
   * output (valid UTF-8, never split inside a character). */
  /* Returns false when there is no room left for it (nothing taken). */
  bool (*output)(void *ud, const char *text, size_t len);
  /* Everything reported through `output` so far was discarded. */
  void (*output_discard)(void *ud);
  void *ud;
  size_t capacity; /* bytes of output the hook can take in all (for messages) */
} RtRunHooks;

/* Install hooks for runs on the calling thread (copied); NULL removes
 * them. */
void rt_hooks_install(const RtRunHooks *hooks);

typedef enum { RT_HOOK_NONE, RT_HOOK_TAKEN, RT_HOOK_FULL } RtHookOutput;

/* Called by the runtime (see the contract above). */
RtHookOutput rt_hook_output(const char *text, size_t len);
void rt_hook_output_discard(void);
/* The installed hook's capacity in bytes; 0 without a hook. */
size_t rt_hook_output_capacity(void);

#endif
