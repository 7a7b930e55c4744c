/* Unit tests: the pieces of the CLI's host callbacks that are pure
 * functions (src/host/net.c, process.c, host.c): the HTTP address
 * policy against the reference's allow/deny examples, URL splitting as
 * Python's urlsplit does it, the redirect same-origin rule, shlex.split,
 * and CPython's UTF-8 error texts and repr. */
#include "unit.h"

#include <arpa/inet.h>

#include "host/host.h"
#include "host/net.h"

static bool public_text(const char *text) {
  unsigned char a[16];
  if (inet_pton(AF_INET, text, a) == 1) return host_http_address_public(a, 4);
  if (inet_pton(AF_INET6, text, a) == 1) return host_http_address_public(a, 16);
  fail_msg("bad address literal %s", text);
  return false;
}

static void addresses_public_allowed(void **state) {
  (void)state;
  const char *ok[] = {"8.8.8.8", "1.1.1.1", "93.184.216.34", "2001:4860:4860::8888", "64:ff9b::808:808",
                      "2002:0808:0808::", "::ffff:0:8.8.8.8", "::ffff:8.8.8.8", "2606:4700::1111"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (!public_text(ok[i])) fail_msg("%s should be public", ok[i]);
}

static void addresses_non_public_denied(void **state) {
  (void)state;
  const char *bad[] = {
      "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
      "100.64.0.1", "192.0.0.8", "192.0.2.1", "198.18.0.1", "198.51.100.7", "203.0.113.9", "224.0.0.1",
      "239.255.255.250", "240.0.0.1", "255.255.255.255", "0.0.0.0", "0.1.2.3", "192.88.99.1",
      /* IPv6 native special space */
      "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "fec0::1", "2001:db8::1", "100::1", "3fff::1",
      "5f00::1", "2001:20::1",
      /* IPv4 carried inside IPv6 */
      "::ffff:127.0.0.1", "::ffff:100.64.0.1", "::ffff:0:169.254.169.254", "::127.0.0.1", "64:ff9b::127.0.0.1",
      "64:ff9b:1::1", "2002:7f00:1::", "2002:c0a8:0101::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2" /* Teredo */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (public_text(bad[i])) fail_msg("%s should be denied", bad[i]);
  unsigned char odd[5] = {0};
  assert_false(host_http_address_public(odd, 5)); /* neither IPv4 nor IPv6 */
  /* 172.32.0.1 is just past 172.16.0.0/12; 100.128.0.1 past 100.64.0.0/10 */
  assert_true(public_text("172.32.0.1"));
  assert_true(public_text("100.128.0.1"));
  assert_true(public_text("198.20.0.1"));
}

static void urls_split_like_urlsplit(void **state) {
  (void)state;
  HostUrl u;
  HostStr why = {0};
  assert_true(host_url_parse("HTTPS://User:pw@Example.COM:8443/a?b#c", &u, &why));
  assert_string_equal(u.scheme, "https");
  assert_string_equal(u.host, "example.com");
  assert_int_equal(u.port, 8443);
  host_url_free(&u);
  assert_true(host_url_parse("http://[::1]:80/x", &u, &why));
  assert_string_equal(u.host, "::1");
  assert_int_equal(host_url_effective_port(&u), 80);
  host_url_free(&u);
  assert_true(host_url_parse("no-scheme.example/path", &u, &why));
  assert_string_equal(u.scheme, "");
  assert_null(u.host);
  host_url_free(&u);
  assert_true(host_url_parse("http:///only-path", &u, &why));
  assert_null(u.host);
  host_url_free(&u);
  assert_true(host_url_parse("  \thttp://h\n.example/", &u, &why)); /* controls dropped as urlsplit does */
  assert_string_equal(u.host, "h.example");
  host_url_free(&u);
  assert_false(host_url_parse("http://h:12ab/", &u, &why));
  assert_string_equal(why.s, "Port could not be cast to integer value as '12ab'");
  host_url_free(&u);
  host_str_free(&why);
  assert_false(host_url_parse("http://h:70000/", &u, &why));
  assert_string_equal(why.s, "Port out of range 0-65535");
  host_url_free(&u);
  host_str_free(&why);
}

static void redirect_origins(void **state) {
  (void)state;
  assert_true(host_url_same_origin("https://EXAMPLE.test/a", "https://example.test:443/b"));
  assert_true(host_url_same_origin("http://a.test./x", "http://a.test/y"));
  assert_false(host_url_same_origin("https://example.test/", "http://example.test/")); /* downgrade */
  assert_false(host_url_same_origin("http://a.test/", "http://b.test/"));
  assert_false(host_url_same_origin("http://a.test/", "http://a.test:8080/"));
  assert_false(host_url_same_origin("http://127.0.0.1:5/", "http://localhost:5/"));
}

static void check_split(const char *in, size_t n, const char *const *want, size_t nwant) {
  size_t count = 0;
  char *err = NULL;
  char **v = host_shlex_split(in, n, &count, &err);
  if (!v) fail_msg("split of [%s] failed: %s", in, err ? err : "oom");
  if (count != nwant) fail_msg("[%s]: %zu words, want %zu", in, count, nwant);
  for (size_t i = 0; i < nwant; i++)
    if (strcmp(v[i], want[i]) != 0) fail_msg("[%s] word %zu: [%s], want [%s]", in, i, v[i], want[i]);
  assert_null(v[count]);
  host_strv_free(v);
}

#define SPLIT(in, ...)                                                   \
  do {                                                                   \
    const char *const w_[] = {__VA_ARGS__};                              \
    check_split(in, strlen(in), w_, sizeof w_ / sizeof *w_);             \
  } while (0)

static void shlex_posix_rules(void **state) {
  (void)state;
  /* each expectation is what Python 3.11's shlex.split returns */
  SPLIT("a b", "a", "b");
  SPLIT("  a   b  ", "a", "b");
  SPLIT("'a b' c", "a b", "c");
  SPLIT("\"a\\\"b\" c", "a\"b", "c");
  SPLIT("a\\ b", "a b");
  SPLIT("\"a\\nb\"", "a\\nb");
  SPLIT("''", "");
  SPLIT("a\"\"b", "ab");
  SPLIT("a'b'c", "abc");
  SPLIT("\\\\", "\\");
  SPLIT("\"\\\\\"", "\\");
  SPLIT("x#y", "x#y");
  SPLIT("a;b|c $(d) `e`", "a;b|c", "$(d)", "`e`");
  SPLIT("\xc3\xa9 \xc3\xbc", "\xc3\xa9", "\xc3\xbc");
  size_t count = 99;
  char *err = NULL;
  char **v = host_shlex_split("   ", 3, &count, &err);
  assert_non_null(v);
  assert_int_equal(count, 0);
  host_strv_free(v);
  const char *bad[] = {"'open", "\"open", "trail\\", "\"esc\\"};
  const char *msg[] = {"No closing quotation", "No closing quotation", "No escaped character", "No escaped character"};
  for (size_t i = 0; i < 4; i++) {
    err = NULL;
    assert_null(host_shlex_split(bad[i], strlen(bad[i]), &count, &err));
    assert_non_null(err);
    assert_string_equal(err, msg[i]);
    free(err);
  }
}

static void utf8_errors_like_cpython(void **state) {
  (void)state;
  struct {
    const char *bytes;
    size_t n;
    const char *want;
  } cases[] = {
      {"\xff", 1, "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"},
      {"\xc0\xaf", 2, "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte"},
      {"\xed\xa0\x80", 3, "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
      {"\xe0\x80\x80", 3, "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte"},
      {"\xf0\x90\x41", 3, "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"},
      {"\xe4\xb8", 2, "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"},
      {"\xf4\x90\x80\x80", 4, "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    size_t bad = 0;
    const char *why = NULL;
    const unsigned char *s = (const unsigned char *)cases[i].bytes;
    assert_int_equal(host_utf8_seq(s, cases[i].n, true, &bad, &why), 0);
    HostStr b = {0};
    host_utf8_error(&b, s, 0, bad, why);
    assert_string_equal(b.s, cases[i].want);
    host_str_free(&b);
  }
  size_t bad;
  const char *why;
  assert_int_equal(host_utf8_seq((const unsigned char *)"\xe4\xb8", 2, false, &bad, &why), -1); /* wait for more */
  /* errors="replace": one U+FFFD per maximal invalid piece */
  HostStr out = {0};
  size_t ncp = 0;
  host_utf8_replace(&out, (const unsigned char *)"a\xf0\x90\x41\xff", 5, &ncp);
  assert_string_equal(out.s, "a\xef\xbf\xbd" "A\xef\xbf\xbd");
  assert_int_equal(ncp, 4);
  host_str_free(&out);
}

static void python_repr(void **state) {
  (void)state;
  struct {
    const char *in;
    const char *want;
  } cases[] = {
      {"/a b", "'/a b'"},
      {"it's", "\"it's\""},
      {"both'\"", "'both\\'\"'"},
      {"tab\tnl\n\\", "'tab\\tnl\\n\\\\'"},
      {"\x01\x7f", "'\\x01\\x7f'"},
      {"caf\xc3\xa9", "'caf\xc3\xa9'"},
      {"nb\xc2\xa0sp", "'nb\\xa0sp'"},
      {"zw\xe2\x80\x8b", "'zw\\u200b'"},
      {"raw\xff", "'raw\\udcff'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    HostStr b = {0};
    host_py_repr(&b, cases[i].in, strlen(cases[i].in));
    assert_string_equal(b.s, cases[i].want);
    host_str_free(&b);
  }
}

static void limited_decoding(void **state) {
  (void)state;
  /* the reference counts in 8 KiB reads: past the limit it reports the
   * total after the read that crossed it */
  size_t n = 20000;
  unsigned char *buf = malloc(n);
  assert_non_null(buf);
  memset(buf, 'a', n);
  HostStr out = {0};
  uint64_t report = 0;
  assert_false(host_decode_limited(&out, buf, n, 100, &report));
  assert_int_equal(report, 8192);
  host_str_free(&out);
  assert_false(host_decode_limited(&out, buf, 8300, 8200, &report));
  assert_int_equal(report, 8300);
  host_str_free(&out);
  assert_true(host_decode_limited(&out, buf, n, 20000, &report));
  assert_int_equal(out.len, n);
  host_str_free(&out);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addresses_public_allowed),  cmocka_unit_test(addresses_non_public_denied),
      cmocka_unit_test(urls_split_like_urlsplit),  cmocka_unit_test(redirect_origins),
      cmocka_unit_test(shlex_posix_rules),         cmocka_unit_test(utf8_errors_like_cpython),
      cmocka_unit_test(python_repr),               cmocka_unit_test(limited_decoding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
