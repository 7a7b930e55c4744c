/* httpd.h -- pieces of HTTP serving on libmicrohttpd shared by the hosted
 * service (src/server) and the programs that serve (serve.c, http_listen):
 * reading a request's headers and judging its Content-Length. */
#ifndef GENO_HOST_HTTPD_H
#define GENO_HOST_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

/* One request header, looked up by name (any case): how many times it was
 * sent, the first value, and (when `join` is set before the lookup) every
 * value joined with "," into `joined` (malloc'd; the caller frees it). */
typedef struct HostHeader {
  const char *name;
  unsigned count;
  const char *first; /* borrowed from the connection; NULL when count is 0 */
  char *joined;
  bool join;
} HostHeader;

/* The header `name` of the request on connection c. */
HostHeader host_httpd_header(struct MHD_Connection *c, const char *name);
/* The same, filling h (its name and join set by the caller). */
void host_httpd_header_into(struct MHD_Connection *c, HostHeader *h);

/* How a request's Content-Length reads, by the reference's rules (both of
 * its servers): spaces and tabs around the value are ignored; one digit
 * string without a leading zero (or "0") is a length. */
typedef enum HostContentLength {
  HOST_CL_NONE,      /* no Content-Length header */
  HOST_CL_OK,        /* *len holds the length, at most max */
  HOST_CL_AMBIGUOUS, /* sent twice, or a list ("5, 5") */
  HOST_CL_NEGATIVE,  /* starts with '-' */
  HOST_CL_INVALID,   /* empty, a leading zero, or not digits */
  HOST_CL_TOO_LARGE, /* more than max */
} HostContentLength;

HostContentLength host_httpd_content_length(struct MHD_Connection *c, uint64_t max, size_t *len);
/* The same rules on a header already looked up: sent `count` times, the
 * first value `first` (NULL when count is 0). */
HostContentLength host_content_length_of(unsigned count, const char *first, uint64_t max, size_t *len);

#endif
