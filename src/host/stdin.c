/* The CLI's stdin_read_all callback (capability stdin): everything left on
 * the CLI's standard input, as Ok(text), or Err when it is not UTF-8.
 *
 * Bounded twice: only max_collection_size code points are kept (past that
 * the input is still read, up to 4 times the limit, to count it and to
 * report a decoding error first, as the reference does, but not stored),
 * and reading and waiting stop at the run's deadline, so a terminal nobody types into cannot hold the CLI past
 * its timeout (in isolated mode the parent cannot supervise the child
 * while it waits here). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* Bytes read per system call. */
#define STDIN_CHUNK 65536

static geno_value *stdin_read_all(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                  char **error) {
  Host *h = ud;
  HostStr out = {0}, msg = {0};
  unsigned char buf[STDIN_CHUNK + 4];
  size_t pending = 0;
  uint64_t count = 0, pos = 0; /* code points seen; stream offset of buf[0] */
  geno_value *result = NULL;
  for (;;) {
    double left = host_remaining(h);
    /* Checked before every read, not only when poll times out: input that
     * is always readable (/dev/zero, a huge file) never lets it. */
    if (left == 0) {
      result = host_fail(error, "stdin_read_all: " GENO_DEADLINE_PASSED " while reading input");
      goto done;
    }
    struct pollfd p = {.fd = 0, .events = POLLIN};
    /* wait in slices of at most a minute (poll takes an int of ms) */
    int ms = left < 0 ? -1 : left > 60 ? 60000 : (int)(left * 1000) + 1;
    int rc = poll(&p, 1, ms);
    if (rc == 0 && left > 60) continue;
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) { /* the deadline: the runtime reports E501 when this returns */
      result = host_fail(error, "stdin_read_all: " GENO_DEADLINE_PASSED " while waiting for input");
      goto done;
    }
    ssize_t n = rc < 0 ? -1 : read(0, buf + pending, STDIN_CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      host_str_printf(&msg, "[Errno %d] %s", errno, strerror(errno));
      result = host_err_str(error, &msg);
      goto done;
    }
    bool final = n == 0;
    size_t m = pending + (size_t)n, i = 0, run = 0;
    while (i < m) {
      size_t bad;
      const char *reason;
      int k = host_utf8_seq(buf + i, m - i, final, &bad, &reason);
      if (k < 0) break;
      if (k == 0) {
        host_str_puts(&msg, "stdin is not valid UTF-8: ");
        host_utf8_error(&msg, buf + i, (size_t)pos + i, bad, reason);
        result = host_err_str(error, &msg);
        goto done;
      }
      if (++count <= h->max_collection) run = i + (size_t)k;
      i += (size_t)k;
    }
    host_str_add(&out, (const char *)buf, run);
    pending = m - i;
    memmove(buf, buf + i, pending);
    pos += i;
    if (final) break;
    /* Past the limit the input is read on to count it and find a decoding
     * error (as the reference does), but only up to 4 times the limit:
     * endless input must not keep the run reading until its deadline. */
    if (count > h->max_collection && count / 4 >= h->max_collection + 1) break;
  }
  if (count > h->max_collection) result = host_size_error(error, "String", count, h->max_collection);
  else if (out.oom) result = host_fail(error, "out of memory");
  else result = host_ok_string(error, out.s ? out.s : "", out.len);
done:
  host_str_free(&out);
  host_str_free(&msg);
  return result;
}

bool host_stdin_install(Host *h, char **err) { return host_add(h, "stdin_read_all", stdin_read_all); }
