/* libcurl loaded on first use (see host_curl.h for why). */
#include "curl.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

HostCurl host_curl;

/* The soname of libcurl's current ABI (version 4 since 2006). */
#ifndef HOST_CURL_SONAME
#define HOST_CURL_SONAME "libcurl.so.4"
#endif

static enum { CURL_UNTRIED, CURL_READY, CURL_FAILED } state;
static const char *failure;

/* Each table slot and the symbol that fills it. */
static const struct {
  size_t offset;
  const char *symbol;
} slots[] = {
    {offsetof(HostCurl, global_init), "curl_global_init"},
    {offsetof(HostCurl, global_cleanup), "curl_global_cleanup"},
    {offsetof(HostCurl, easy_init), "curl_easy_init"},
    {offsetof(HostCurl, easy_setopt), "curl_easy_setopt"},
    {offsetof(HostCurl, easy_perform), "curl_easy_perform"},
    {offsetof(HostCurl, easy_getinfo), "curl_easy_getinfo"},
    {offsetof(HostCurl, easy_cleanup), "curl_easy_cleanup"},
    {offsetof(HostCurl, easy_strerror), "curl_easy_strerror"},
    {offsetof(HostCurl, slist_append), "curl_slist_append"},
    {offsetof(HostCurl, slist_free_all), "curl_slist_free_all"},
    {offsetof(HostCurl, url), "curl_url"},
    {offsetof(HostCurl, url_set), "curl_url_set"},
    {offsetof(HostCurl, url_get), "curl_url_get"},
    {offsetof(HostCurl, url_cleanup), "curl_url_cleanup"},
    {offsetof(HostCurl, free), "curl_free"},
};

bool host_curl_load(const char **why) {
  if (state == CURL_UNTRIED) {
    state = CURL_FAILED;
    void *lib = dlopen(HOST_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) failure = "HTTP needs libcurl (" HOST_CURL_SONAME "), which is not installed";
    for (size_t i = 0; lib && i < sizeof slots / sizeof slots[0]; i++) {
      void *p = dlsym(lib, slots[i].symbol);
      if (!p) {
        failure = "the installed libcurl is too old (curl_url needs 7.62 or later)";
        lib = NULL;
        break;
      }
      /* POSIX guarantees a function pointer survives the round trip
       * through void * that dlsym imposes */
      memcpy((char *)&host_curl + slots[i].offset, &p, sizeof p);
    }
    if (lib && host_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) failure = "cannot initialise libcurl";
    else if (lib) state = CURL_READY;
  }
  if (state != CURL_READY && why) *why = failure;
  return state == CURL_READY;
}

void host_curl_unload(void) {
  if (state == CURL_READY) host_curl.global_cleanup();
  state = CURL_UNTRIED;
}
