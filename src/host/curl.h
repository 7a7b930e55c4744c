/* libcurl, loaded on first use: the HTTP callbacks (host_http.c) call
 * curl through this table, filled by dlopen("libcurl.so.4").
 *
 * Why: linking libcurl made the dynamic loader resolve it and its
 * dependencies (TLS, HTTP/2, LDAP, ...) on every start of `geno`, about
 * 14 million instructions, ten times the cost of checking a small file,
 * while few runs grant --cap http at all. The headers are still used, so
 * the types and constants are libcurl's own; only the calls are indirect.
 *
 * Include this after <curl/curl.h>: it redirects the curl_* names used
 * by host_http.c to the table (the GCC type-checking wrappers of
 * curl_easy_setopt/getinfo are dropped; the calls are unchanged). */
#ifndef GENO_HOST_CURL_H
#define GENO_HOST_CURL_H

#include <curl/curl.h>
#include <stdbool.h>

typedef struct HostCurl {
  CURLcode (*global_init)(long flags);
  void (*global_cleanup)(void);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
  CURLcode (*easy_perform)(CURL *c);
  CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
  void (*easy_cleanup)(CURL *c);
  const char *(*easy_strerror)(CURLcode rc);
  struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
  void (*slist_free_all)(struct curl_slist *l);
  CURLU *(*url)(void);
  CURLUcode (*url_set)(CURLU *u, CURLUPart part, const char *content, unsigned int flags);
  CURLUcode (*url_get)(const CURLU *u, CURLUPart part, char **content, unsigned int flags);
  void (*url_cleanup)(CURLU *u);
  void (*free)(void *p);
} HostCurl;

extern HostCurl host_curl;

/* Loads libcurl and runs curl_global_init once per process; true when the
 * table is usable. On failure *why is a static message naming the cause
 * (the library missing, a symbol missing, or the initialisation). */
bool host_curl_load(const char **why);
/* curl_global_cleanup if host_curl_load succeeded (the library stays mapped). */
void host_curl_unload(void);

#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init host_curl.global_init
#define curl_global_cleanup host_curl.global_cleanup
#define curl_easy_init host_curl.easy_init
#define curl_easy_setopt host_curl.easy_setopt
#define curl_easy_perform host_curl.easy_perform
#define curl_easy_getinfo host_curl.easy_getinfo
#define curl_easy_cleanup host_curl.easy_cleanup
#define curl_easy_strerror host_curl.easy_strerror
#define curl_slist_append host_curl.slist_append
#define curl_slist_free_all host_curl.slist_free_all
#define curl_url host_curl.url
#define curl_url_set host_curl.url_set
#define curl_url_get host_curl.url_get
#define curl_url_cleanup host_curl.url_cleanup
#define curl_free host_curl.free

#endif
