/* The CLI's HTTP client callbacks (capability http): http_fetch, http_post
 * and http_request, on libcurl, under the reference CLI's policy.
 *
 * - Only http and https URLs with a hostname.
 * - Every address the hostname resolves to must be public (host_net.c),
 *   unless GENO_HTTP_ALLOW_PRIVATE=1. The check is made twice: on the
 *   resolved addresses, which are then pinned for the transfer
 *   (CURLOPT_RESOLVE, so libcurl does not look the name up again), and on
 *   the address each socket is actually opened for
 *   (CURLOPT_OPENSOCKETFUNCTION). A name that resolves to a public address
 *   first and to 127.0.0.1 a moment later (DNS rebinding) is refused.
 * - Redirects are followed here, not by libcurl: at most 10, each target
 *   checked like the first URL, 303 (and 301/302 after a POST) turning
 *   into GET, and the caller's headers dropped when the origin changes.
 * - No proxies (a proxy would make the address check meaningless), no
 *   decompression, at most 30 seconds per request and never past the
 *   run's deadline.
 * - The body is decoded as UTF-8 with replacement and bounded by the
 *   collection limit while it arrives.
 * Error shapes: http_fetch and http_post fail the call
 * ("http_fetch: <reason>"); http_request returns Err(reason). A body over
 * the collection limit fails the call in all three. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host.h"
#include "curl.h"
#include "net.h"

/* The reference's limits: redirects followed, seconds per request. */
#define HTTP_MAX_REDIRECTS 10
#define HTTP_TIMEOUT_S 30.0
/* Response headers kept; Python's http.client refuses more than 100. */
#define HTTP_MAX_HEADERS 100
/* Addresses pinned for one hostname. getaddrinfo rarely returns more than
 * a handful; the rest are dropped (still checked, never connected to). */
#define HTTP_MAX_PINNED 16

/* ---- requests and responses ---------------------------------------------------------- */

typedef struct Header {
  char *key;   /* Python's str.capitalize() of the name: what makes two headers "the same" */
  char *line;  /* "Name: value" as sent (Name title-cased as urllib sends it) */
} Header;

typedef struct Request {
  const char *fn;     /* builtin name, for messages */
  char *method;       /* upper case */
  char *url;
  Header *headers;    /* the caller's, in order, later ones replacing earlier */
  size_t nheaders;
  const char *body;   /* NULL: no body */
  size_t body_len;
} Request;

typedef struct Response {
  long status;
  HostStr body;
  bool too_much;      /* the body outgrew byte_cap: the transfer was stopped */
  size_t byte_cap;
  char *names[HTTP_MAX_HEADERS], *values[HTTP_MAX_HEADERS];
  size_t nheaders;
  bool too_many_headers;
  bool denied;        /* a socket was refused by the address policy */
  bool allow_private;
} Response;

/* How a step failed. */
enum { FAIL_NONE, FAIL_POLICY, FAIL_TRANSPORT, FAIL_DEADLINE, FAIL_SIZE, FAIL_OOM };

static void response_reset_headers(Response *r) {
  for (size_t i = 0; i < r->nheaders; i++) {
    free(r->names[i]);
    free(r->values[i]);
  }
  r->nheaders = 0;
  r->too_many_headers = false;
}

static void response_free(Response *r) {
  response_reset_headers(r);
  host_str_free(&r->body);
}

static void request_free(Request *r) {
  for (size_t i = 0; i < r->nheaders; i++) {
    free(r->headers[i].key);
    free(r->headers[i].line);
  }
  free(r->headers);
  free(r->method);
  free(r->url);
}

/* ---- libcurl callbacks ------------------------------------------------------------------ */

static size_t on_body(char *data, size_t size, size_t n, void *ud) {
  Response *r = ud;
  size_t len = size * n;
  if (r->body.len + len > r->byte_cap) {
    host_str_add(&r->body, data, r->byte_cap - r->body.len);
    r->too_much = true;
    return 0; /* stops the transfer */
  }
  host_str_add(&r->body, data, len);
  return r->body.oom ? 0 : len;
}

/* Header bytes are Latin-1 to Python; make them UTF-8. */
static char *latin1(const char *s, size_t n) {
  HostStr b = {0};
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) host_str_add(&b, s + i, 1);
    else {
      char u[2] = {(char)(0xC0 | (c >> 6)), (char)(0x80 | (c & 0x3F))};
      host_str_add(&b, u, 2);
    }
  }
  host_str_add(&b, "", 0);
  return host_str_take(&b);
}

static size_t on_header(char *data, size_t size, size_t n, void *ud) {
  Response *r = ud;
  size_t len = size * n;
  if (len >= 5 && memcmp(data, "HTTP/", 5) == 0) { /* a new response (after 100 Continue) */
    response_reset_headers(r);
    return len;
  }
  while (len && (data[len - 1] == '\n' || data[len - 1] == '\r')) len--;
  if (len == 0) return size * n;
  if (data[0] == ' ' || data[0] == '\t') { /* a folded line continues the last value */
    if (r->nheaders) {
      char *more = latin1(data, len);
      HostStr v = {0};
      host_str_puts(&v, r->values[r->nheaders - 1]);
      host_str_puts(&v, " ");
      if (more) host_str_puts(&v, more + strspn(more, " \t"));
      free(more);
      char *nv = host_str_take(&v);
      if (nv) {
        free(r->values[r->nheaders - 1]);
        r->values[r->nheaders - 1] = nv;
      }
    }
    return size * n;
  }
  const char *colon = memchr(data, ':', len);
  if (!colon) return size * n;
  if (r->nheaders >= HTTP_MAX_HEADERS) {
    r->too_many_headers = true;
    return 0;
  }
  const char *v = colon + 1, *end = data + len;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
  r->names[r->nheaders] = latin1(data, (size_t)(colon - data));
  r->values[r->nheaders] = latin1(v, (size_t)(end - v));
  r->nheaders++;
  return size * n;
}

/* Every socket libcurl opens goes through here: the address it is for is
 * the one that counts, whatever DNS said before. */
static curl_socket_t on_open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a) {
  Response *r = ud;
  if (!r->allow_private) {
    bool ok = false;
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in))
      ok = host_http_address_policy((const unsigned char *)&((struct sockaddr_in *)&a->addr)->sin_addr, 4);
    else if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6))
      ok = host_http_address_policy((const unsigned char *)&((struct sockaddr_in6 *)&a->addr)->sin6_addr, 16);
    if (!ok) {
      r->denied = true;
      return CURL_SOCKET_BAD;
    }
  }
  return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* ---- policy ----------------------------------------------------------------------------- */

/* Check url for fn; on success *pin is the CURLOPT_RESOLVE entry to use
 * (NULL: none needed). On failure the reference's message is in *why. */
static int check_target(Host *h, const char *fn, const char *url, char **pin, HostStr *why) {
  *pin = NULL;
  HostUrl u;
  HostStr bad = {0};
  if (!host_url_parse(url, &u, &bad)) {
    host_url_free(&u);
    host_str_add(why, bad.s ? bad.s : "", bad.len);
    host_str_free(&bad);
    return FAIL_POLICY;
  }
  int rc = FAIL_NONE;
  if (strcmp(u.scheme, "http") != 0 && strcmp(u.scheme, "https") != 0) {
    host_str_printf(why, "%s: scheme '%s' is not allowed, only http and https", fn, u.scheme);
    rc = FAIL_POLICY;
  } else if (!u.host) {
    host_str_printf(why, "%s: URL must include a hostname", fn);
    rc = FAIL_POLICY;
  } else { /* resolved even when private targets are allowed: the reference's message for a bad name */
    int port = host_url_effective_port(&u);
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(u.host, service, &hints, &res) != 0 || !res) {
      host_str_printf(why, "%s: cannot resolve host ", fn);
      host_py_repr(why, u.host, strlen(u.host));
      rc = FAIL_POLICY;
    } else {
      HostStr entry = {0};
      bool literal = strchr(u.host, ':') || inet_addr(u.host) != INADDR_NONE;
      host_str_printf(&entry, "%s:%d:", u.host, port);
      int pinned = 0;
      for (struct addrinfo *a = res; a && rc == FAIL_NONE; a = a->ai_next) {
        char text[INET6_ADDRSTRLEN + 2];
        bool ok = false;
        if (a->ai_family == AF_INET) {
          const struct in_addr *ia = &((struct sockaddr_in *)a->ai_addr)->sin_addr;
          ok = h->http_allow_private || host_http_address_policy((const unsigned char *)ia, 4);
          inet_ntop(AF_INET, ia, text, sizeof text);
        } else if (a->ai_family == AF_INET6) {
          const struct in6_addr *ia = &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
          ok = h->http_allow_private || host_http_address_policy((const unsigned char *)ia, 16);
          text[0] = '[';
          inet_ntop(AF_INET6, ia, text + 1, sizeof text - 2);
          strcat(text, "]");
        }
        if (!ok) {
          host_str_printf(why, "%s: non-public network targets are not allowed", fn);
          rc = FAIL_POLICY;
        } else if (pinned < HTTP_MAX_PINNED) {
          host_str_printf(&entry, "%s%s", pinned ? "," : "", text);
          pinned++;
        }
      }
      freeaddrinfo(res);
      if (rc == FAIL_NONE && !literal) *pin = host_str_take(&entry);
      host_str_free(&entry);
      if (entry.oom) rc = FAIL_OOM;
    }
  }
  host_url_free(&u);
  return rc;
}

/* ---- one transfer -------------------------------------------------------------------------- */

/* Python's repr of bytes: b'...' */
static void bytes_repr(HostStr *b, const char *s, size_t n) {
  bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
  char q = sq && !dq ? '"' : '\'';
  host_str_printf(b, "b%c", q);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\' || c == (unsigned char)q) host_str_printf(b, "\\%c", c);
    else if (c == '\t') host_str_puts(b, "\\t");
    else if (c == '\n') host_str_puts(b, "\\n");
    else if (c == '\r') host_str_puts(b, "\\r");
    else if (c < 0x20 || c >= 0x7f) host_str_printf(b, "\\x%02x", c);
    else host_str_add(b, (const char *)&c, 1);
  }
  host_str_add(b, &q, 1);
}

static int perform(Host *h, const Request *rq, const char *pin, Response *rs, HostStr *why) {
  double left = host_remaining(h);
  if (left == 0) return FAIL_DEADLINE;
  bool by_deadline = left >= 0 && left < HTTP_TIMEOUT_S;
  long timeout_ms = (long)((by_deadline ? left : HTTP_TIMEOUT_S) * 1000) + 1;
  CURL *c = curl_easy_init();
  if (!c) return FAIL_OOM;
  struct curl_slist *hdrs = NULL, *resolve = NULL;
  char errbuf[CURL_ERROR_SIZE] = "";
  bool has_accept = false;
  for (size_t i = 0; i < rq->nheaders; i++) {
    if (strcmp(rq->headers[i].key, "Accept") == 0) has_accept = true;
    struct curl_slist *t = curl_slist_append(hdrs, rq->headers[i].line);
    if (!t) goto oom;
    hdrs = t;
  }
  /* libcurl's own defaults that urllib does not send */
  static const char *const off[] = {"Expect:", "Accept:"};
  for (size_t i = 0; i < (has_accept ? 1u : 2u); i++) {
    struct curl_slist *t = curl_slist_append(hdrs, off[i]);
    if (!t) goto oom;
    hdrs = t;
  }
  if (pin && !(resolve = curl_slist_append(NULL, pin))) goto oom;
  curl_easy_setopt(c, CURLOPT_URL, rq->url);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "geno-c/" GENO_VERSION);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
  if (resolve) curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, rs);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, rs);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, rs);
  if (strcmp(rq->method, "HEAD") == 0) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (rq->body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
  }
  if (strcmp(rq->method, rq->body ? "POST" : "GET") != 0 && strcmp(rq->method, "HEAD") != 0)
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rs->status);
  long os_errno = 0;
  curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
  int fail = FAIL_NONE;
  if (rs->too_much) fail = FAIL_SIZE;
  else if (rs->body.oom) fail = FAIL_OOM;
  else if (rs->denied) {
    host_str_printf(why, "%s: non-public network targets are not allowed", rq->fn);
    fail = FAIL_POLICY;
  } else if (rs->too_many_headers) {
    host_str_printf(why, "got more than %d headers", HTTP_MAX_HEADERS);
    fail = FAIL_TRANSPORT;
  } else if (rc == CURLE_OPERATION_TIMEDOUT && by_deadline) fail = FAIL_DEADLINE;
  else if (rc != CURLE_OK) {
    if (rc == CURLE_OPERATION_TIMEDOUT) host_str_puts(why, "<urlopen error timed out>");
    else if (os_errno) host_str_printf(why, "<urlopen error [Errno %ld] %s>", os_errno, strerror((int)os_errno));
    else host_str_printf(why, "<urlopen error %s>", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    fail = FAIL_TRANSPORT;
  }
  curl_slist_free_all(hdrs);
  curl_slist_free_all(resolve);
  curl_easy_cleanup(c);
  return fail;
oom:
  curl_slist_free_all(hdrs);
  curl_slist_free_all(resolve);
  curl_easy_cleanup(c);
  return FAIL_OOM;
}

/* ---- building requests --------------------------------------------------------------------- */

/* Python's "'latin-1' codec can't encode character '\u20ac' in position
 * 0: ordinal not in range(256)" for the first code point of s past `max`. */
static bool encode_check(const char *s, size_t n, unsigned max, const char *codec, HostStr *out, HostStr *why) {
  size_t i = 0, pos = 0;
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    unsigned cp = c;
    size_t k = 1;
    if (c >= 0xF0) cp = c & 0x07, k = 4;
    else if (c >= 0xE0) cp = c & 0x0F, k = 3;
    else if (c >= 0xC0) cp = c & 0x1F, k = 2;
    for (size_t j = 1; j < k && i + j < n; j++) cp = (cp << 6) | ((unsigned char)s[i + j] & 0x3F);
    if (cp > max) {
      size_t first = pos, last = pos, at = i + k;
      while (at < n) { /* Python reports the whole run of unencodable characters */
        unsigned char d = (unsigned char)s[at];
        unsigned dcp = d;
        size_t dk = d >= 0xF0 ? 4 : d >= 0xE0 ? 3 : d >= 0xC0 ? 2 : 1;
        if (dk > 1) {
          dcp = d & (0x7F >> dk);
          for (size_t j = 1; j < dk && at + j < n; j++) dcp = (dcp << 6) | ((unsigned char)s[at + j] & 0x3F);
        }
        if (dcp <= max) break;
        last++;
        at += dk;
      }
      if (first == last) {
        host_str_printf(why, "'%s' codec can't encode character '", codec);
        if (cp < 0x100) host_str_printf(why, "\\x%02x", cp);
        else if (cp < 0x10000) host_str_printf(why, "\\u%04x", cp);
        else host_str_printf(why, "\\U%08x", cp);
        host_str_printf(why, "' in position %zu: ordinal not in range(%u)", first, max + 1);
      } else
        host_str_printf(why, "'%s' codec can't encode characters in position %zu-%zu: ordinal not in range(%u)", codec,
                       first, last, max + 1);
      return false;
    }
    char byte = (char)cp;
    host_str_add(out, &byte, 1);
    i += k;
    pos++;
  }
  host_str_add(out, "", 0);
  return true;
}

/* Add one caller header as urllib's add_header does (the name
 * capitalized; a later header with the same name replaces the earlier),
 * after http.client's checks of what may be sent. */
static int add_header(Request *rq, const char *name, size_t nlen, const char *value, size_t vlen, HostStr *why) {
  HostStr n = {0}, v = {0};
  int rc = FAIL_NONE;
  if (!encode_check(name, nlen, 0x7F, "ascii", &n, why) || !encode_check(value, vlen, 0xFF, "latin-1", &v, why)) {
    rc = FAIL_TRANSPORT;
    goto done;
  }
  /* name: [^:\s][^:\r\n]*   value: no NUL, no CR or LF except a folded line */
  bool name_ok = n.len > 0 && n.s[0] != ':' && !strchr(" \t\r\n\f\v", n.s[0]) && memchr(n.s, ':', n.len) == NULL &&
                 memchr(n.s, '\r', n.len) == NULL && memchr(n.s, '\n', n.len) == NULL && strlen(n.s) == n.len;
  bool value_ok = strlen(v.s) == v.len;
  for (size_t i = 0; value_ok && i < v.len; i++) {
    char nx = i + 1 < v.len ? v.s[i + 1] : '\0';
    if (v.s[i] == '\n' && nx != ' ' && nx != '\t') value_ok = false;
    if (v.s[i] == '\r' && nx != ' ' && nx != '\t' && nx != '\n') value_ok = false;
  }
  if (!name_ok || !value_ok) {
    host_str_puts(why, name_ok ? "Invalid header value " : "Invalid header name ");
    if (name_ok) bytes_repr(why, v.s, v.len);
    else bytes_repr(why, n.s, n.len);
    rc = FAIL_TRANSPORT;
    goto done;
  }
  HostStr key = {0}, line = {0};
  for (size_t i = 0; i < n.len; i++) { /* capitalize(): first upper, rest lower */
    char c = n.s[i];
    c = (char)(i == 0 ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
    host_str_add(&key, &c, 1);
  }
  bool start = true;
  for (size_t i = 0; i < n.len; i++) { /* title(): each alphanumeric run capitalized */
    char c = n.s[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) c = (char)(start ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
    start = !alnum;
    host_str_add(&line, &c, 1);
  }
  /* libcurl sends "Name;" as an empty header ("Name:" would remove it) */
  if (v.len) {
    host_str_puts(&line, ": ");
    host_str_add(&line, v.s, v.len);
  } else host_str_puts(&line, ";");
  char *k = host_str_take(&key), *l = host_str_take(&line);
  if (!k || !l) {
    free(k);
    free(l);
    rc = FAIL_OOM;
    goto done;
  }
  /* libcurl computes Content-Length itself from the body it sends */
  if (strcmp(k, "Content-length") == 0) {
    free(k);
    free(l);
    goto done;
  }
  for (size_t i = 0; i < rq->nheaders; i++)
    if (strcmp(rq->headers[i].key, k) == 0) {
      free(k);
      free(rq->headers[i].line);
      rq->headers[i].line = l;
      goto done;
    }
  Header *t = realloc(rq->headers, (rq->nheaders + 1) * sizeof *t);
  if (!t) {
    free(k);
    free(l);
    rc = FAIL_OOM;
    goto done;
  }
  rq->headers = t;
  rq->headers[rq->nheaders++] = (Header){k, l};
done:
  host_str_free(&n);
  host_str_free(&v);
  return rc;
}

/* ---- the request loop ------------------------------------------------------------------------ */

static bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* Drop headers whose key is one of `keys` (NULL-terminated); all if NULL. */
static void drop_headers(Request *rq, const char *const *keys) {
  size_t w = 0;
  for (size_t i = 0; i < rq->nheaders; i++) {
    bool drop = !keys;
    for (const char *const *k = keys; k && *k; k++) drop |= strcmp(rq->headers[i].key, *k) == 0;
    if (drop) {
      free(rq->headers[i].key);
      free(rq->headers[i].line);
    } else rq->headers[w++] = rq->headers[i];
  }
  rq->nheaders = w;
}

/* Carry out rq (following redirects) into rs. The first URL has been
 * checked already; pin0 is its CURLOPT_RESOLVE entry (taken over). */
static int do_request(Host *h, Request *rq, char *pin0, Response *rs, HostStr *why) {
  for (int hops = 0;; hops++) {
    char *pin = pin0;
    pin0 = NULL;
    int fail = hops ? check_target(h, rq->fn, rq->url, &pin, why) : FAIL_NONE;
    if (fail) return fail;
    response_free(rs);
    memset(rs, 0, sizeof *rs);
    rs->allow_private = h->http_allow_private;
    rs->byte_cap = h->max_collection > (SIZE_MAX - 2 * HOST_READ_CHUNK) / 4
                       ? SIZE_MAX / 2
                       : (size_t)h->max_collection * 4 + 2 * HOST_READ_CHUNK;
    fail = perform(h, rq, pin, rs, why);
    free(pin);
    if (fail) return fail;
    /* urllib takes the first Location header, else the first URI one */
    const char *location = NULL, *uri = NULL;
    for (size_t i = 0; i < rs->nheaders; i++) {
      if (!location && strcasecmp(rs->names[i], "location") == 0) location = rs->values[i];
      if (!uri && strcasecmp(rs->names[i], "uri") == 0) uri = rs->values[i];
    }
    if (!location) location = uri;
    if (!is_redirect(rs->status) || !location) return FAIL_NONE;
    /* urllib leaves a redirect to anything but http, https, ftp or a
     * relative reference unfollowed: the 3xx is the answer (ftp goes on
     * to the scheme check below and is refused there) */
    HostUrl loc;
    HostStr ignore = {0};
    host_url_parse(location, &loc, &ignore);
    bool followable = loc.scheme && (!*loc.scheme || strcmp(loc.scheme, "http") == 0 ||
                                     strcmp(loc.scheme, "https") == 0 || strcmp(loc.scheme, "ftp") == 0);
    host_url_free(&loc);
    host_str_free(&ignore);
    if (!followable) return FAIL_NONE;
    if (hops >= HTTP_MAX_REDIRECTS) {
      host_str_printf(why, "%s: too many redirects", rq->fn);
      return FAIL_POLICY;
    }
    /* the target, resolved against this URL */
    CURLU *u = curl_url();
    char *target = NULL;
    if (!u || curl_url_set(u, CURLUPART_URL, rq->url, 0) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_URL, location, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_URL, &target, 0) != CURLUE_OK) {
      curl_url_cleanup(u);
      host_str_printf(why, "<urlopen error invalid redirect location %s>", location);
      return FAIL_TRANSPORT;
    }
    curl_url_cleanup(u);
    const char *method = rq->method;
    bool to_get = (rs->status == 303 && strcmp(method, "HEAD") != 0) ||
                  ((rs->status == 301 || rs->status == 302) && strcmp(method, "POST") == 0);
    bool changed = to_get && strcmp(method, "GET") != 0;
    if (!host_url_same_origin(rq->url, target)) drop_headers(rq, NULL);
    else if (changed) {
      static const char *const body_headers[] = {"Content-length", "Content-type", "Transfer-encoding", NULL};
      drop_headers(rq, body_headers);
    }
    if (changed) {
      free(rq->method);
      rq->method = strdup("GET");
    }
    if (changed || ((strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0) && rq->body_len == 0))
      rq->body = NULL, rq->body_len = 0;
    free(rq->url);
    rq->url = strdup(target);
    curl_free(target);
    if (!rq->url || !rq->method) return FAIL_OOM;
  }
}

/* The body as a String value; FAIL_SIZE past the collection limit. */
static int body_text(Host *h, Response *rs, HostStr *text, uint64_t *report) {
  if (!host_decode_limited(text, (const unsigned char *)(rs->body.s ? rs->body.s : ""), rs->body.len,
                          h->max_collection, report))
    return FAIL_SIZE;
  return text->oom ? FAIL_OOM : FAIL_NONE;
}

/* Turn a failure into what the builtin does with it: fetch and post fail
 * the call with "fn: reason", http_request returns Err(reason); the size
 * limit and the deadline always fail the call. */
static geno_value *failure(Host *h, const Request *rq, Response *rs, int fail, HostStr *why, bool as_err,
                           char **error) {
  if (fail == FAIL_OOM) return host_fail(error, "out of memory");
  if (fail == FAIL_DEADLINE) return host_fail(error, "%s: " GENO_DEADLINE_PASSED " during the request", rq->fn);
  if (fail == FAIL_SIZE) {
    HostStr t = {0};
    uint64_t report = h->max_collection + 1;
    if (body_text(h, rs, &t, &report) != FAIL_SIZE) report = h->max_collection + 1;
    host_str_free(&t);
    return host_size_error(error, "String", report, h->max_collection);
  }
  if (as_err) return host_err_str(error, why);
  HostStr m = {0};
  if (fail == FAIL_TRANSPORT) host_str_printf(&m, "%s: ", rq->fn);
  host_str_add(&m, why->s ? why->s : "", why->len);
  host_str_free(why);
  return host_fail_str(error, &m);
}

static geno_value *simple(Host *h, const char *fn, const geno_value *const *args, size_t nargs, bool post,
                          char **error) {
  const char *no_curl;
  if (!host_curl_load(&no_curl)) return host_fail(error, "%s: %s", fn, no_curl);
  size_t ulen, blen = 0;
  const char *url = host_arg_str(args, nargs, 0, &ulen);
  const char *body = post ? host_arg_str(args, nargs, 1, &blen) : NULL;
  if (!url || (post && !body)) return host_fail(error, "%s: arguments must be String", fn);
  Request rq = {.fn = fn, .method = strdup(post ? "POST" : "GET"), .url = strndup(url, ulen), .body = body,
                .body_len = blen};
  Response rs = {0};
  HostStr why = {0};
  geno_value *result = NULL;
  int fail = !rq.method || !rq.url ? FAIL_OOM : FAIL_NONE;
  if (!fail && memchr(url, '\0', ulen)) {
    host_str_puts(&why, "<urlopen error URL can't contain control characters>");
    fail = FAIL_TRANSPORT;
  }
  char *pin = NULL;
  if (!fail) fail = check_target(h, fn, rq.url, &pin, &why);
  if (!fail && post) fail = add_header(&rq, "Content-Type", 12, "application/json", 16, &why);
  if (!fail) fail = do_request(h, &rq, pin, &rs, &why);
  else free(pin);
  if (fail) result = failure(h, &rq, &rs, fail, &why, false, error);
  else {
    HostStr text = {0};
    uint64_t report = 0;
    fail = body_text(h, &rs, &text, &report);
    if (fail == FAIL_SIZE) result = host_size_error(error, "String", report, h->max_collection);
    else if (fail) result = host_fail(error, "out of memory");
    else result = host_value(error, geno_value_new_string(text.s ? text.s : "", text.len));
    host_str_free(&text);
  }
  host_str_free(&why);
  response_free(&rs);
  request_free(&rq);
  return result;
}

static geno_value *http_fetch(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                              char **error) {
  return simple(ud, "http_fetch", args, nargs, false, error);
}

static geno_value *http_post(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                             char **error) {
  return simple(ud, "http_post", args, nargs, true, error);
}

/* Ok(HttpResponse(status, body, headers)) */
static geno_value *response_value(Host *h, Response *rs, char **error) {
  HostStr text = {0};
  uint64_t report = 0;
  int fail = body_text(h, rs, &text, &report);
  if (fail == FAIL_SIZE) {
    host_str_free(&text);
    return host_size_error(error, "String", report, h->max_collection);
  }
  geno_value **pairs = calloc(rs->nheaders ? rs->nheaders : 1, sizeof *pairs);
  bool ok = !fail && pairs;
  for (size_t i = 0; ok && i < rs->nheaders; i++) {
    geno_value *kv[2] = {geno_value_new_string(rs->names[i] ? rs->names[i] : "", rs->names[i] ? strlen(rs->names[i]) : 0),
                         geno_value_new_string(rs->values[i] ? rs->values[i] : "", rs->values[i] ? strlen(rs->values[i]) : 0)};
    if (!kv[0] || !kv[1]) {
      geno_value_free(kv[0]);
      geno_value_free(kv[1]);
      ok = false;
      break;
    }
    ok = (pairs[i] = geno_value_new_tuple(kv, 2)) != NULL;
  }
  geno_value *result = NULL;
  if (ok) {
    static const char *const names[] = {"status", "body", "headers"};
    geno_value *f[3] = {geno_value_new_int(rs->status), geno_value_new_string(text.s ? text.s : "", text.len),
                        geno_value_new_list(pairs, rs->nheaders)};
    free(pairs); /* the list took the items, even on failure; the array is ours */
    pairs = NULL;
    if (f[0] && f[1] && f[2]) {
      geno_value *resp = geno_value_new_ctor("HttpResponse", names, f, 3);
      result = host_value(error, resp ? geno_value_new_ok(resp) : NULL);
    } else {
      for (int k = 0; k < 3; k++) geno_value_free(f[k]);
      result = host_fail(error, "out of memory");
    }
  } else {
    for (size_t i = 0; pairs && i < rs->nheaders; i++) geno_value_free(pairs[i]);
    result = host_fail(error, "out of memory");
  }
  free(pairs);
  host_str_free(&text);
  return result;
}

static geno_value *http_request(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                char **error) {
  Host *h = ud;
  const char *no_curl;
  if (!host_curl_load(&no_curl)) return host_fail(error, "http_request: %s", no_curl);
  size_t mlen, ulen, blen;
  const char *method = host_arg_str(args, nargs, 0, &mlen);
  const char *url = host_arg_str(args, nargs, 1, &ulen);
  const char *body = host_arg_str(args, nargs, 3, &blen);
  const geno_value *headers = nargs > 2 ? args[2] : NULL;
  if (!method || !url || !body || geno_value_type(headers) != GENO_LIST)
    return host_err(error, "http_request: invalid arguments");
  Request rq = {.fn = "http_request", .url = strndup(url, ulen), .body = body, .body_len = blen};
  Response rs = {0};
  HostStr why = {0};
  int fail = FAIL_NONE;
  HostStr m = {0};
  for (size_t i = 0; i < mlen; i++) { /* str.upper() of the ASCII letters; others are refused below */
    char c = method[i];
    if (c >= 'a' && c <= 'z') c = (char)(c - 32);
    host_str_add(&m, &c, 1);
  }
  host_str_add(&m, "", 0);
  rq.method = host_str_take(&m);
  /* the policy first, as the reference checks the URL before building
   * the request */
  char *pin = NULL;
  if (!rq.method || !rq.url) fail = FAIL_OOM;
  else fail = check_target(h, "http_request", rq.url, &pin, &why);
  size_t bad = mlen;
  for (size_t i = 0; !fail && i < mlen && bad == mlen; i++)
    if ((unsigned char)rq.method[i] < 0x20) bad = i;
  if (!fail && bad < mlen) { /* http.client's check: a control character could split the request line */
    host_str_puts(&why, "method can't contain control characters. ");
    host_py_repr(&why, rq.method, mlen);
    if (bad < mlen) {
      host_str_puts(&why, " (found at least ");
      host_py_repr(&why, rq.method + bad, 1);
      host_str_puts(&why, ")");
    }
    fail = FAIL_TRANSPORT;
  } else if (!fail && memchr(url, '\0', ulen)) {
    host_str_puts(&why, "<urlopen error URL can't contain control characters>");
    fail = FAIL_TRANSPORT;
  }
  if (!fail && (strcmp(rq.method, "GET") == 0 || strcmp(rq.method, "HEAD") == 0) && blen == 0) rq.body = NULL;
  if (!fail && mlen == 0) { /* urllib's default: POST, since there is a body (even "") */
    free(rq.method);
    if (!(rq.method = strdup("POST"))) fail = FAIL_OOM;
  }
  for (size_t i = 0; !fail && i < geno_value_count(headers); i++) {
    const geno_value *pair = geno_value_item(headers, i);
    size_t nl, vl;
    const char *n = geno_value_string(geno_value_item(pair, 0), &nl);
    const char *v = geno_value_string(geno_value_item(pair, 1), &vl);
    if (!n || !v) {
      host_str_puts(&why, "http_request: headers must be (String, String) pairs");
      fail = FAIL_TRANSPORT;
      break;
    }
    fail = add_header(&rq, n, nl, v, vl, &why);
  }
  if (!fail) fail = do_request(h, &rq, pin, &rs, &why);
  else free(pin);
  geno_value *result = fail ? failure(h, &rq, &rs, fail, &why, true, error) : response_value(h, &rs, error);
  host_str_free(&why);
  response_free(&rs);
  request_free(&rq);
  return result;
}

bool host_http_install(Host *h, const HostOptions *o, char **err) {
  h->http_allow_private = o->http_allow_private;
  h->http_ready = true; /* libcurl itself is loaded by the first request (host_curl.h) */
  return host_add(h, "http_fetch", http_fetch) && host_add(h, "http_post", http_post) &&
         host_add(h, "http_request", http_request);
}

void host_http_free(Host *h) {
  if (h->http_ready) host_curl_unload();
  h->http_ready = false;
}
