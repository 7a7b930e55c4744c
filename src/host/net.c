/* Which network addresses a program's HTTP request may reach, and the URL
 * pieces the policy looks at, as the reference's CLI judges them.
 *
 * The policy denies every address that is not plainly public: loopback,
 * private, link-local, shared (CGNAT), documentation, benchmarking,
 * multicast, reserved and unspecified space, for IPv4 and IPv6, and IPv6
 * forms that carry such an IPv4 address inside them (IPv4-mapped and
 * -compatible, the NAT64 prefixes, 6to4, Teredo), so a cloud metadata
 * service or a database on the host's network cannot be reached by
 * spelling its address differently. The lists are the reference's, fixed
 * here rather than taken from a library so they do not drift with it. */
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "net.h"

typedef struct Net {
  unsigned char addr[16];
  int bits;
} Net;

/* IANA special-purpose IPv4 space the reference denies. */
static const Net v4_denied[] = {
    {{0, 0, 0, 0}, 8},       {{10, 0, 0, 0}, 8},     {{100, 64, 0, 0}, 10},  {{127, 0, 0, 0}, 8},
    {{169, 254, 0, 0}, 16},  {{172, 16, 0, 0}, 12},  {{192, 0, 0, 0}, 24},   {{192, 0, 2, 0}, 24},
    {{192, 88, 99, 0}, 24},  {{192, 168, 0, 0}, 16}, {{198, 18, 0, 0}, 15},  {{198, 51, 100, 0}, 24},
    {{203, 0, 113, 0}, 24},  {{224, 0, 0, 0}, 4},    {{240, 0, 0, 0}, 4},
};

/* Native IPv6 special-use space the reference denies. */
static const Net v6_denied[] = {
    {{0}, 128},                                 /* :: */
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128}, /* ::1 */
    {{0x01, 0x00}, 64},                         /* 100::/64 discard */
    {{0x5f, 0x00}, 16},                         /* 5f00::/16 */
    {{0x20, 0x01, 0x00, 0x00}, 23},             /* 2001::/23 IETF protocol assignments */
    {{0x20, 0x01, 0x00, 0x20}, 28},             /* 2001:20::/28 ORCHIDv2 */
    {{0x20, 0x01, 0x00, 0x30}, 28},             /* 2001:30::/28 */
    {{0x20, 0x01, 0x0d, 0xb8}, 32},             /* 2001:db8::/32 documentation */
    {{0x3f, 0xff, 0x00, 0x00}, 20},             /* 3fff::/20 documentation */
    {{0xfc, 0x00}, 7},                          /* fc00::/7 unique local */
    {{0xfe, 0x80}, 10},                         /* fe80::/10 link-local */
    {{0xfe, 0xc0}, 10},                         /* fec0::/10 site-local */
    {{0xff, 0x00}, 8},                          /* ff00::/8 multicast */
};

static bool in_net(const unsigned char *a, const Net *n) {
  int full = n->bits / 8, rest = n->bits % 8;
  if (memcmp(a, n->addr, (size_t)full) != 0) return false;
  if (!rest) return true;
  unsigned char mask = (unsigned char)(0xFF << (8 - rest));
  return (a[full] & mask) == (n->addr[full] & mask);
}

static bool v4_public(const unsigned char *a) {
  for (size_t i = 0; i < sizeof v4_denied / sizeof *v4_denied; i++)
    if (in_net(a, &v4_denied[i])) return false;
  return true;
}

static bool zero(const unsigned char *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i]) return false;
  return true;
}

bool host_http_address_public(const unsigned char *a, size_t len) {
  if (len == 4) return v4_public(a);
  if (len != 16) return false;
  static const unsigned char nat64_local[6] = {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}; /* 64:ff9b:1::/48 */
  static const unsigned char nat64[12] = {0x00, 0x64, 0xff, 0x9b};                  /* 64:ff9b::/96 */
  static const unsigned char teredo[4] = {0x20, 0x01, 0x00, 0x00};                  /* 2001::/32 */
  if (memcmp(a, nat64_local, 6) == 0 || memcmp(a, teredo, 4) == 0) return false;
  /* IPv4 addresses carried inside: each must be public */
  const unsigned char *embedded[4];
  int n = 0;
  if (zero(a, 10) && a[10] == 0xff && a[11] == 0xff) embedded[n++] = a + 12;  /* ::ffff:a.b.c.d mapped */
  if (zero(a, 12)) embedded[n++] = a + 12;                                     /* ::a.b.c.d compatible */
  if (a[0] == 0x20 && a[1] == 0x02) embedded[n++] = a + 2;                    /* 2002:AABB:CCDD:: 6to4 */
  if (memcmp(a, nat64, 12) == 0) embedded[n++] = a + 12;                       /* 64:ff9b::a.b.c.d */
  if (zero(a, 8) && a[8] == 0xff && a[9] == 0xff && a[10] == 0 && a[11] == 0) /* ::ffff:0:a.b.c.d translated */
    embedded[n++] = a + 12;
  if (n) {
    for (int i = 0; i < n; i++)
      if (!v4_public(embedded[i])) return false;
    return true;
  }
  for (size_t i = 0; i < sizeof v6_denied / sizeof *v6_denied; i++)
    if (in_net(a, &v6_denied[i])) return false;
  return true;
}

bool (*host_http_address_policy)(const unsigned char *addr, size_t len) = host_http_address_public;

/* ---- URLs the way Python's urlsplit reads them ------------------------------------ */

void host_url_free(HostUrl *u) {
  free(u->scheme);
  free(u->host);
  memset(u, 0, sizeof *u);
}

static bool scheme_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
         c == '.';
}

bool host_url_parse(const char *url, HostUrl *u, HostStr *why) {
  memset(u, 0, sizeof *u);
  u->port = -1;
  /* urlsplit drops leading C0 controls and spaces, and tabs and newlines anywhere */
  HostStr clean = {0};
  const char *p = url;
  while (*p && (unsigned char)*p <= ' ') p++;
  for (; *p; p++)
    if (*p != '\t' && *p != '\r' && *p != '\n') host_str_add(&clean, p, 1);
  const char *s = clean.s ? clean.s : "";
  const char *colon = strchr(s, ':');
  size_t rest = 0;
  HostStr scheme = {0};
  if (colon && colon > s && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) {
    bool ok = true;
    for (const char *q = s; q < colon; q++) ok &= scheme_char(*q);
    if (ok) {
      for (const char *q = s; q < colon; q++) {
        char c = (char)(*q >= 'A' && *q <= 'Z' ? *q + 32 : *q);
        host_str_add(&scheme, &c, 1);
      }
      rest = (size_t)(colon - s) + 1;
    }
  }
  host_str_add(&scheme, "", 0);
  u->scheme = host_str_take(&scheme);
  const char *n = s + rest;
  bool ok = u->scheme != NULL && !clean.oom;
  if (ok && n[0] == '/' && n[1] == '/') {
    const char *start = n + 2, *end = start + strcspn(start, "/?#");
    const char *at = NULL;
    for (const char *q = start; q < end; q++)
      if (*q == '@') at = q;
    const char *h = at ? at + 1 : start, *hend;
    const char *port = NULL;
    if (*h == '[') {
      const char *close = memchr(h, ']', (size_t)(end - h));
      hend = close ? close : end;
      h++;
      if (close && close + 1 < end && close[1] == ':') port = close + 2;
    } else {
      const char *c = memchr(h, ':', (size_t)(end - h));
      hend = c ? c : end;
      if (c) port = c + 1;
    }
    HostStr host = {0};
    for (const char *q = h; q < hend; q++) {
      char c = (char)(*q >= 'A' && *q <= 'Z' ? *q + 32 : *q);
      host_str_add(&host, &c, 1);
    }
    u->host = host.len ? host_str_take(&host) : NULL;
    if (host.len == 0) host_str_free(&host);
    if (port && port < end) { /* Python: digits only, 0..65535 */
      long v = 0;
      bool digits = true;
      for (const char *q = port; q < end; q++) {
        if (*q < '0' || *q > '9') digits = false;
        else if (v <= 65535) v = v * 10 + (*q - '0');
      }
      if (!digits) {
        host_str_puts(why, "Port could not be cast to integer value as ");
        host_py_repr(why, port, (size_t)(end - port));
        ok = false;
      } else if (v > 65535) {
        host_str_puts(why, "Port out of range 0-65535");
        ok = false;
      } else u->port = (int)v;
    }
  }
  host_str_free(&clean);
  if (!ok && !why->len) host_str_puts(why, "out of memory");
  return ok;
}

int host_url_effective_port(const HostUrl *u) {
  if (u->port > 0) return u->port;
  return strcmp(u->scheme, "https") == 0 ? 443 : strcmp(u->scheme, "http") == 0 ? 80 : -1;
}

bool host_url_same_origin(const char *a, const char *b) {
  HostUrl x = {0}, y = {0};
  HostStr w = {0};
  bool ok = host_url_parse(a, &x, &w) && host_url_parse(b, &y, &w);
  bool same = false;
  if (ok) {
    /* hostnames compare without a trailing dot */
    size_t lx = x.host ? strlen(x.host) : 0, ly = y.host ? strlen(y.host) : 0;
    while (lx && x.host[lx - 1] == '.') lx--;
    while (ly && y.host[ly - 1] == '.') ly--;
    same = strcmp(x.scheme, y.scheme) == 0 && lx == ly && (lx == 0 || memcmp(x.host, y.host, lx) == 0) &&
           host_url_effective_port(&x) == host_url_effective_port(&y);
  }
  host_url_free(&x);
  host_url_free(&y);
  host_str_free(&w);
  return same;
}
