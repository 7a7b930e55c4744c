/* host_net.h -- URL pieces and address checks for the CLI's HTTP
 * callbacks (host_net.c), shared with host_http.c and the unit tests. */
#ifndef GENO_HOST_NET_H
#define GENO_HOST_NET_H

#include <stdbool.h>

#include "host.h"

/* What Python's urlsplit finds in a URL. */
typedef struct HostUrl {
  char *scheme; /* lowercased; "" when there is none */
  char *host;   /* lowercased hostname without brackets; NULL when there is none */
  int port;     /* -1 when absent */
} HostUrl;

/* Split `url` as urlsplit does. False with Python's message in *why for a
 * malformed port ("Port could not be cast to integer value as 'x'"). Free
 * with host_url_free in every case. */
bool host_url_parse(const char *url, HostUrl *u, HostStr *why);
void host_url_free(HostUrl *u);
/* The port, or the scheme's default (80, 443), or -1. */
int host_url_effective_port(const HostUrl *u);
/* The reference's same-origin test for redirects: scheme, hostname
 * (case and a trailing dot ignored) and effective port all equal. */
bool host_url_same_origin(const char *a, const char *b);

#endif
