/* Shared helpers for the cmocka unit tests (tests/unit/test_*.c). */
#ifndef GENO_TESTS_UNIT_H
#define GENO_TESTS_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <geno.h>

/* Number of open descriptors of this process (for leak checks). */
static inline int unit_open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n - 1; /* the directory's own descriptor */
}

/* True when this process has no child processes at all, reaped or not
 * (so no zombie was left behind). */
static inline bool unit_no_children(void) {
  return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

/* The diagnostic codes of a result joined by spaces (static buffer, for
 * assertion messages). */
static inline const char *unit_codes(const geno_result *r) {
  static char buf[256];
  buf[0] = '\0';
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", d->code);
  }
  return buf;
}

/* True if r has a diagnostic with this code number. */
static inline bool unit_has_code(const geno_result *r, int code) {
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++)
    if (geno_result_diagnostic(r, i)->code_number == code) return true;
  return false;
}

/* The first diagnostic's message, or "". */
static inline const char *unit_message(const geno_result *r) {
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  return d ? d->message : "";
}

#endif
