/* The CLI's sleep_ms callback (capability clock). The library implements
 * every other clock builtin itself; sleeping is left to the host because
 * it blocks the thread that runs the program.
 *
 * A sleep never outlasts the run: one longer than the time left ends at
 * the deadline (plus HOST_DEADLINE_SLACK_S), and the runtime, which
 * checks its deadline when a callback returns, then ends the run with
 * E501 as the reference does. In isolated mode this matters twice: the
 * parent cannot kill the child while it is busy in this callback. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

static geno_value *sleep_ms(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  Host *h = ud;
  if (nargs < 1 || geno_value_type(args[0]) != GENO_INT) return host_fail(error, "sleep_ms: ms must be Int");
  int64_t ms;
  double seconds;
  if (geno_value_int(args[0], &ms)) {
    if (ms < 0) return host_fail(error, "sleep_ms: negative duration not allowed (%lld)", (long long)ms);
    seconds = (double)ms / 1000.0;
  } else { /* beyond 64 bits */
    const char *text = geno_value_int_text(args[0]);
    if (text && text[0] == '-') return host_fail(error, "sleep_ms: negative duration not allowed (%s)", text);
    seconds = HUGE_VAL;
  }
  if (seconds == 0) return host_value(error, geno_value_new_unit());
  double left = host_remaining(h);
  /* cut at the deadline: then the run ends with E501 (GENO_DEADLINE_PASSED),
   * even where the VM's clock, started later in an isolated child, has
   * not run out yet */
  bool cut = left >= 0 && seconds > left;
  if (cut) seconds = left;
  double end = host_now() + seconds;
  for (;;) {
    double rest = end - host_now();
    if (rest <= 0) break;
    /* sleep in slices of at most a day, so a huge request needs no overflow care */
    if (rest > 86400) rest = 86400;
    struct timespec ts = {(time_t)rest, (long)((rest - floor(rest)) * 1e9)};
    if (nanosleep(&ts, NULL) != 0 && errno != EINTR) break;
  }
  if (cut) return host_fail(error, "sleep_ms: " GENO_DEADLINE_PASSED " during the sleep");
  return host_value(error, geno_value_new_unit());
}

bool host_clock_install(Host *h, char **err) { return host_add(h, "sleep_ms", sleep_ms); }
