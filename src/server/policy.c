/* Request policies that come before any work: which Host names the server
 * answers to, which Origins may POST, who the client is (the peer, or a
 * trusted proxy's X-Forwarded-For), credentials, and the per-client rate
 * limiter. */
#include <arpa/inet.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server.h"

/* An address literal (brackets allowed, spaces trimmed) in canonical text
 * form; false when it is not one. */
static bool ip_canonical(const char *s, size_t n, char *out, size_t outlen, unsigned char *bin, int *family) {
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  if (n >= 2 && s[0] == '[' && s[n - 1] == ']') s++, n -= 2;
  char buf[64];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  unsigned char tmp[16];
  unsigned char *b = bin ? bin : tmp;
  int fam = AF_INET;
  if (inet_pton(AF_INET, buf, b) != 1) {
    fam = AF_INET6;
    if (inet_pton(AF_INET6, buf, b) != 1) return false;
  }
  if (family) *family = fam;
  if (out && !inet_ntop(fam, b, out, (socklen_t)outlen)) return false;
  return true;
}

bool srv_is_loopback_name(const char *host) {
  char buf[256];
  size_t n = strlen(host);
  while (n && isspace((unsigned char)*host)) host++, n--;
  while (n && isspace((unsigned char)host[n - 1])) n--;
  if (n >= sizeof buf) return false;
  for (size_t i = 0; i < n; i++) buf[i] = (char)tolower((unsigned char)host[i]);
  buf[n] = '\0';
  if (strcmp(buf, "localhost") == 0) return true;
  unsigned char b[16];
  int fam;
  if (!ip_canonical(buf, n, NULL, 0, b, &fam)) return false;
  if (fam == AF_INET) return b[0] == 127;
  static const unsigned char one[16] = {[15] = 1};
  if (memcmp(b, one, 16) == 0) return true;
  /* IPv4-mapped loopback */
  static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return memcmp(b, mapped, 12) == 0 && b[12] == 127;
}

bool srv_parse_host_port(const char *text, char **host, int *port) {
  *host = NULL;
  *port = -1;
  size_t n = strlen(text);
  while (n && isspace((unsigned char)*text)) text++, n--;
  while (n && isspace((unsigned char)text[n - 1])) n--;
  if (n == 0 || n > 1024) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c <= ' ' || c == ',' || c == '/' || c == '?' || c == '#' || c == '@' || c == '\\' || c >= 0x7f)
      return false;
  }
  const char *h = text, *p = NULL;
  size_t hn;
  if (text[0] == '[') {
    const char *close = memchr(text, ']', n);
    if (!close) return false;
    h = text + 1;
    hn = (size_t)(close - h);
    const char *rest = close + 1;
    if (rest < text + n) {
      if (*rest != ':') return false;
      p = rest + 1;
    }
    char tmp[64];
    if (hn == 0 || hn >= sizeof tmp) return false;
    memcpy(tmp, h, hn);
    tmp[hn] = '\0';
    unsigned char b[16];
    if (inet_pton(AF_INET6, tmp, b) != 1) return false;
  } else {
    const char *colon = memchr(text, ':', n);
    if (colon && memchr(colon + 1, ':', (size_t)(text + n - colon - 1))) return false; /* bare IPv6 */
    hn = colon ? (size_t)(colon - text) : n;
    if (colon) p = colon + 1;
    if (hn == 0) return false;
    for (size_t i = 0; i < hn; i++)
      if (text[i] == '[' || text[i] == ']') return false;
  }
  if (p) {
    size_t pn = (size_t)(text + n - p);
    if (pn == 0) {
      *port = -1; /* "host:" has no port, as urlsplit reads it */
    } else {
      if (pn > 5) return false;
      int v = 0;
      for (size_t i = 0; i < pn; i++) {
        if (!isdigit((unsigned char)p[i])) return false;
        v = v * 10 + (p[i] - '0');
      }
      if (v > 65535) return false;
      *port = v;
    }
  }
  while (hn && h[hn - 1] == '.') hn--;
  if (hn == 0) return false;
  char *out = malloc(hn + 1);
  if (!out) return false;
  for (size_t i = 0; i < hn; i++) out[i] = (char)tolower((unsigned char)h[i]);
  out[hn] = '\0';
  *host = out;
  return true;
}

static bool is_unspecified(const char *bind) {
  unsigned char b[16];
  int fam;
  if (!ip_canonical(bind, strlen(bind), NULL, 0, b, &fam)) return false;
  static const unsigned char zero[16];
  return memcmp(b, zero, fam == AF_INET ? 4 : 16) == 0;
}

bool srv_host_allowed(const SrvConfig *cfg, const char *bind_host, int port, const char *host_header) {
  if (cfg->hosts_any) return true;
  char *h;
  int p;
  if (!srv_parse_host_port(host_header, &h, &p)) return false;
  bool ok = false;
  /* the bind's own name with the bound port */
  if (!is_unspecified(bind_host)) {
    char *bh;
    int bp;
    if (srv_parse_host_port(bind_host, &bh, &bp)) {
      if (strcmp(bh, h) == 0 && p == port) ok = true;
      free(bh);
    } else {
      /* a bare IPv6 bind address */
      char canon[64], hc[64];
      if (ip_canonical(bind_host, strlen(bind_host), canon, sizeof canon, NULL, NULL) &&
          ip_canonical(h, strlen(h), hc, sizeof hc, NULL, NULL) && strcmp(canon, hc) == 0 && p == port)
        ok = true;
    }
  }
  if (!ok && srv_is_loopback_name(bind_host) && p == port &&
      (strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0))
    ok = true;
  for (size_t i = 0; !ok && i < cfg->nallowed_hosts; i++) {
    const SrvHostPort *e = &cfg->allowed_hosts[i];
    if (strcmp(e->host, h) == 0 && (e->port == -1 || e->port == p)) ok = true;
  }
  free(h);
  return ok;
}

bool srv_origin_allowed(const SrvConfig *cfg, const char *origin, const char *scheme, const char *host_header) {
  if (!origin || !*origin) return true;
  for (size_t i = 0; i < cfg->cors_origins.count; i++)
    if (strcmp(cfg->cors_origins.items[i], origin) == 0) return true;
  const char *o_scheme;
  const char *rest;
  if (strncmp(origin, "http://", 7) == 0) o_scheme = "http", rest = origin + 7;
  else if (strncmp(origin, "https://", 8) == 0) o_scheme = "https", rest = origin + 8;
  else return false;
  size_t n = strlen(rest);
  if (n && rest[n - 1] == '/') n--; /* path "/" allowed */
  char hostpart[1100];
  if (n == 0 || n >= sizeof hostpart) return false;
  memcpy(hostpart, rest, n);
  hostpart[n] = '\0';
  char *oh;
  int op;
  if (!srv_parse_host_port(hostpart, &oh, &op)) return false; /* path, query, userinfo ... */
  if (op < 0) op = strcmp(o_scheme, "https") == 0 ? 443 : 80;
  char *rh;
  int rp;
  if (!host_header || !srv_parse_host_port(host_header, &rh, &rp)) {
    free(oh);
    return false;
  }
  if (rp < 0) rp = strcmp(scheme, "https") == 0 ? 443 : 80;
  bool ok = strcmp(o_scheme, scheme) == 0 && strcmp(oh, rh) == 0 && op == rp;
  free(oh);
  free(rh);
  return ok;
}

void srv_client_ip(const SrvConfig *cfg, const char *peer, const char *xff, char *out, size_t outlen) {
  snprintf(out, outlen, "%s", peer);
  if (!cfg->trusted_proxy || strcmp(cfg->trusted_proxy, peer) != 0 || !xff) return;
  char proxy[64];
  bool have_proxy = ip_canonical(cfg->trusted_proxy, strlen(cfg->trusted_proxy), proxy, sizeof proxy, NULL, NULL);
  const char *end = xff + strlen(xff);
  while (end > xff) {
    const char *start = end;
    while (start > xff && start[-1] != ',') start--;
    char canon[64];
    if (ip_canonical(start, (size_t)(end - start), canon, sizeof canon, NULL, NULL) &&
        !(have_proxy && strcmp(canon, proxy) == 0)) {
      snprintf(out, outlen, "%s", canon);
      return;
    }
    end = start > xff ? start - 1 : xff;
  }
}

bool srv_key_equal(const char *given, size_t given_len, const char *key) {
  size_t key_len = strlen(key);
  /* Compare every byte of the key whatever the given text is, so the time
   * taken says nothing about how much of it matched. */
  unsigned char diff = (unsigned char)(given_len != key_len);
  for (size_t i = 0; i < key_len; i++) {
    unsigned char g = i < given_len ? (unsigned char)given[i] : 0;
    diff |= (unsigned char)(g ^ (unsigned char)key[i]);
  }
  return diff == 0;
}

/* ---- rate limiter: a sliding window per client, LRU-evicted ---------- */

typedef struct Bucket {
  char *key;
  double *times;          /* ring of the last `limit` admitted requests */
  uint64_t head, count;
  struct Bucket *hnext;   /* hash chain */
  struct Bucket *prev, *next; /* LRU list, most recent first */
} Bucket;

struct SrvRateLimiter {
  pthread_mutex_t lock;
  uint64_t limit, max_buckets, nbuckets;
  double window;
  Bucket **table;
  size_t table_size;
  Bucket *lru_head, *lru_tail;
};

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t hash_key(const char *s) {
  size_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

SrvRateLimiter *srv_rate_new(uint64_t limit, double window_s, uint64_t max_buckets) {
  SrvRateLimiter *rl = calloc(1, sizeof *rl);
  if (!rl) return NULL;
  pthread_mutex_init(&rl->lock, NULL);
  rl->limit = limit;
  rl->window = window_s;
  rl->max_buckets = max_buckets;
  rl->table_size = 1024;
  rl->table = calloc(rl->table_size, sizeof *rl->table);
  if (!rl->table) {
    free(rl);
    return NULL;
  }
  return rl;
}

static void lru_unlink(SrvRateLimiter *rl, Bucket *b) {
  if (b->prev) b->prev->next = b->next;
  else rl->lru_head = b->next;
  if (b->next) b->next->prev = b->prev;
  else rl->lru_tail = b->prev;
  b->prev = b->next = NULL;
}

static void lru_push(SrvRateLimiter *rl, Bucket *b) {
  b->next = rl->lru_head;
  b->prev = NULL;
  if (rl->lru_head) rl->lru_head->prev = b;
  rl->lru_head = b;
  if (!rl->lru_tail) rl->lru_tail = b;
}

static void bucket_remove(SrvRateLimiter *rl, Bucket *b) {
  Bucket **pp = &rl->table[hash_key(b->key) % rl->table_size];
  while (*pp && *pp != b) pp = &(*pp)->hnext;
  if (*pp) *pp = b->hnext;
  lru_unlink(rl, b);
  free(b->key);
  free(b->times);
  free(b);
  rl->nbuckets--;
}

void srv_rate_free(SrvRateLimiter *rl) {
  if (!rl) return;
  while (rl->lru_head) bucket_remove(rl, rl->lru_head);
  free(rl->table);
  pthread_mutex_destroy(&rl->lock);
  free(rl);
}

bool srv_rate_allow(SrvRateLimiter *rl, const char *key) {
  if (!rl || rl->limit == 0) return true;
  double now = mono_s();
  pthread_mutex_lock(&rl->lock);
  size_t slot = hash_key(key) % rl->table_size;
  Bucket *b = rl->table[slot];
  while (b && strcmp(b->key, key) != 0) b = b->hnext;
  if (!b) {
    while (rl->nbuckets >= rl->max_buckets && rl->lru_tail) bucket_remove(rl, rl->lru_tail);
    b = calloc(1, sizeof *b);
    uint64_t ring = rl->limit > (1u << 20) ? (1u << 20) : rl->limit;
    if (b) b->times = malloc(ring * sizeof(double));
    if (b) b->key = strdup(key);
    if (!b || !b->times || !b->key) {
      if (b) free(b->times), free(b->key);
      free(b);
      pthread_mutex_unlock(&rl->lock);
      return false; /* fail closed */
    }
    b->hnext = rl->table[slot];
    rl->table[slot] = b;
    rl->nbuckets++;
  } else {
    lru_unlink(rl, b);
  }
  lru_push(rl, b);
  uint64_t ring = rl->limit > (1u << 20) ? (1u << 20) : rl->limit;
  /* drop the requests that left the window (oldest first) */
  while (b->count && b->times[b->head] <= now - rl->window) {
    b->head = (b->head + 1) % ring;
    b->count--;
  }
  bool ok = b->count < rl->limit && b->count < ring;
  if (ok) {
    b->times[(b->head + b->count) % ring] = now;
    b->count++;
  }
  pthread_mutex_unlock(&rl->lock);
  return ok;
}
