/* Unit tests: the CLI's HTTP callbacks (src/host/http.c) against the
 * local test server (tests/host_http_server.py, on 127.0.0.1), for the
 * policy paths a golden program cannot reach without the internet: the
 * server is made to count as "public" through the test hook
 * host_http_address_policy, so that
 *   - a redirect from it to a private address is refused,
 *   - a name that validated as public but connects elsewhere (DNS
 *     rebinding) is refused at connect time, before any byte is sent,
 *   - proxies from the environment are ignored (they would hide the real
 *     target from the check). */
#include "unit.h"

#include <signal.h>
#include <unistd.h>

#include "host/host.h"

static pid_t server_pid = -1;
static int server_stdin = -1, server_stdout = -1;
static int port;

static int start_server(void **state) {
  (void)state;
  int in[2], out[2];
  if (pipe(in) || pipe(out)) return -1;
  server_pid = fork();
  if (server_pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execlp("python3", "python3", GENO_TESTS_DIR "/host_http_server.py", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  server_stdin = in[1];
  /* the port, one line; the read end stays open until the end so the
   * server never writes into a closed pipe */
  char buf[32] = "";
  size_t n = 0;
  while (n < sizeof buf - 1 && !memchr(buf, '\n', n)) {
    ssize_t k = read(out[0], buf + n, sizeof buf - 1 - n);
    if (k <= 0) break;
    n += (size_t)k;
    buf[n] = '\0';
  }
  server_stdout = out[0];
  port = atoi(buf);
  return port > 0 ? 0 : -1;
}

static int stop_server(void **state) {
  (void)state;
  if (server_stdin >= 0) close(server_stdin); /* the server ends when its stdin closes */
  if (server_pid > 0) waitpid(server_pid, NULL, 0);
  if (server_stdout >= 0) close(server_stdout);
  return 0;
}

/* The test policy: the server's 127.0.0.1 counts as public; for
 * `allowances` calls after arming, then everything is judged normally. */
static int allowances = -1; /* -1: 127.0.0.1 always public */

static bool test_policy(const unsigned char *a, size_t len) {
  bool server = len == 4 && a[0] == 127 && a[1] == 0 && a[2] == 0 && a[3] == 1;
  if (server && allowances != 0) {
    if (allowances > 0) allowances--;
    return true;
  }
  return host_http_address_public(a, len);
}

/* Call the host's callback `name` directly. */
static geno_value *call(Host *h, const char *name, geno_value **args, size_t nargs, char **error) {
  for (size_t i = 0; i < h->ncallbacks; i++)
    if (strcmp(h->callbacks[i].name, name) == 0) {
      geno_value *r = h->callbacks[i].fn(name, (const geno_value *const *)args, nargs, h->callbacks[i].userdata, error);
      for (size_t k = 0; k < nargs; k++) geno_value_free(args[k]);
      return r;
    }
  fail_msg("no callback %s", name);
  return NULL;
}

static void host_up(Host *h) {
  HostOptions o = {.caps = GENO_CAP_HTTP, .timeout_s = 20, .max_collection = 1000000, .program_path = "p.geno"};
  char *err = NULL;
  if (!host_init(h, &o, &err)) fail_msg("%s", err);
  host_start_clock(h);
}

static geno_value *str(const char *s) { return geno_value_new_string(s, strlen(s)); }

/* http_request(GET, url) -> the rendered Result */
static char *get(Host *h, const char *url) {
  geno_value *args[4] = {str("GET"), str(url), geno_value_new_list(NULL, 0), str("")};
  char *error = NULL;
  geno_value *r = call(h, "http_request", args, 4, &error);
  if (!r) fail_msg("http_request failed: %s", error ? error : "?");
  char *text = geno_value_to_string(r);
  geno_value_free(r);
  return text;
}

static long hits(Host *h) {
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/hits", port);
  char *t = get(h, url);
  const char *body = strstr(t, "body: \"");
  long n = body ? atol(body + 7) : -1;
  free(t);
  return n;
}

static void redirect_to_private_address_refused(void **state) {
  (void)state;
  host_http_address_policy = test_policy;
  allowances = -1;
  Host h;
  host_up(&h);
  char url[256];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/hello", port);
  char *ok = get(&h, url);
  assert_non_null(strstr(ok, "body: \"hello\"")); /* the server itself is reachable */
  free(ok);
  const char *targets[] = {"http://127.0.0.2:%d/hello", "http://[::1]:%d/hello", "http://169.254.169.254/latest",
                           "http://10.0.0.1/", "http://[::ffff:192.168.0.1]/"};
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    char to[128];
    snprintf(to, sizeof to, targets[i], port);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/redirect?to=%s", port, to);
    long before = hits(&h);
    char *t = get(&h, url);
    if (!strstr(t, "Err(error: \"http_request: non-public network targets are not allowed\")"))
      fail_msg("redirect to %s: %s", to, t);
    free(t);
    assert_int_equal(hits(&h), before + 1); /* only the redirecting request arrived */
  }
  host_free(&h);
  host_http_address_policy = host_http_address_public;
}

static void connect_time_address_checked(void **state) {
  (void)state;
  host_http_address_policy = test_policy;
  allowances = -1;
  Host h;
  host_up(&h);
  long before = hits(&h);
  /* the name's addresses pass the first check; the connection then goes
   * to an address the policy refuses (as after a DNS rebinding) */
  allowances = 1;
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/hello", port);
  char *t = get(&h, url);
  allowances = -1;
  if (!strstr(t, "non-public network targets are not allowed")) fail_msg("%s", t);
  free(t);
  assert_int_equal(hits(&h), before); /* nothing reached the server */
  host_free(&h);
  host_http_address_policy = host_http_address_public;
}

static void environment_proxies_ignored(void **state) {
  (void)state;
  host_http_address_policy = test_policy;
  allowances = -1;
  setenv("http_proxy", "http://127.0.0.1:1", 1);
  setenv("HTTP_PROXY", "http://127.0.0.1:1", 1);
  setenv("ALL_PROXY", "http://127.0.0.1:1", 1);
  Host h;
  host_up(&h);
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/hello", port);
  char *t = get(&h, url);
  if (!strstr(t, "body: \"hello\"")) fail_msg("went through the proxy: %s", t);
  free(t);
  host_free(&h);
  unsetenv("http_proxy");
  unsetenv("HTTP_PROXY");
  unsetenv("ALL_PROXY");
  host_http_address_policy = host_http_address_public;
}

static void default_policy_refuses_loopback(void **state) {
  (void)state;
  Host h;
  host_up(&h);
  long before = -1;
  h.http_allow_private = true; /* only to read the counter */
  before = hits(&h);
  h.http_allow_private = false;
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/hello", port);
  geno_value *args[1] = {str(url)};
  char *error = NULL;
  assert_null(call(&h, "http_fetch", args, 1, &error));
  assert_non_null(error);
  assert_string_equal(error, "http_fetch: non-public network targets are not allowed");
  free(error);
  h.http_allow_private = true;
  assert_int_equal(hits(&h), before);
  host_free(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(redirect_to_private_address_refused),
      cmocka_unit_test(connect_time_address_checked),
      cmocka_unit_test(environment_proxies_ignored),
      cmocka_unit_test(default_policy_refuses_loopback),
  };
  return cmocka_run_group_tests(tests, start_server, stop_server);
}
