/* Per-thread run hooks (see hooks.h). */
#include "hooks.h"

#include <stdbool.h>

/* Thread-local so that a hook never leaks into another thread's run; the
 * library keeps no process-wide mutable state. */
static _Thread_local RtRunHooks current;
static _Thread_local bool installed;

void rt_hooks_install(const RtRunHooks *hooks) {
  if (hooks) {
    current = *hooks;
    installed = true;
  } else {
    installed = false;
  }
}

RtHookOutput rt_hook_output(const char *text, size_t len) {
  if (!installed || !current.output) return RT_HOOK_NONE;
  if (len == 0) return RT_HOOK_TAKEN;
  return current.output(current.ud, text, len) ? RT_HOOK_TAKEN : RT_HOOK_FULL;
}

void rt_hook_output_discard(void) {
  if (installed && current.output_discard) current.output_discard(current.ud);
}

size_t rt_hook_output_capacity(void) { return installed ? current.capacity : 0; }
