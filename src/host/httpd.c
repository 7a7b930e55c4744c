/* Request headers and Content-Length on libmicrohttpd (httpd.h). */
#include "httpd.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  HostHeader *h = cls;
  if (strcasecmp(key, h->name) != 0) return MHD_YES;
  if (h->count++ == 0) h->first = value ? value : "";
  if (h->join) {
    size_t old = h->joined ? strlen(h->joined) : 0, add = value ? strlen(value) : 0;
    char *p = realloc(h->joined, old + add + 2);
    if (p) {
      if (old) p[old++] = ',';
      memcpy(p + old, value ? value : "", add);
      p[old + add] = '\0';
      h->joined = p;
    }
  }
  return MHD_YES;
}

void host_httpd_header_into(struct MHD_Connection *c, HostHeader *h) {
  MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, h);
}

HostHeader host_httpd_header(struct MHD_Connection *c, const char *name) {
  HostHeader h = {name, 0, NULL, NULL, false};
  host_httpd_header_into(c, &h);
  return h;
}

HostContentLength host_httpd_content_length(struct MHD_Connection *c, uint64_t max, size_t *len) {
  HostHeader cl = host_httpd_header(c, "Content-Length");
  return host_content_length_of(cl.count, cl.first, max, len);
}

HostContentLength host_content_length_of(unsigned count, const char *first, uint64_t max, size_t *len) {
  if (count == 0) return HOST_CL_NONE;
  if (count > 1 || strchr(first, ',')) return HOST_CL_AMBIGUOUS;
  const char *l = first;
  while (*l == ' ' || *l == '\t') l++;
  size_t n = strlen(l);
  while (n && (l[n - 1] == ' ' || l[n - 1] == '\t')) n--;
  if (n && l[0] == '-') return HOST_CL_NEGATIVE;
  if (n == 0 || (l[0] == '0' && n > 1)) return HOST_CL_INVALID;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (l[i] < '0' || l[i] > '9') return HOST_CL_INVALID;
    if (v > ((uint64_t)1 << 50)) v = (uint64_t)1 << 51; /* saturate: too large either way */
    else v = v * 10 + (uint64_t)(l[i] - '0');
  }
  if (v > max) return HOST_CL_TOO_LARGE;
  *len = (size_t)v;
  return HOST_CL_OK;
}
