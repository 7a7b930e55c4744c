/* libcurl loaded on first use (see host_curl.h for why). */
#include "host_curl.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

CliCurl cli_curl;

/* The soname of libcurl's current ABI (version 4 since 2006). */
#ifndef CLI_CURL_SONAME
#define CLI_CURL_SONAME "libcurl.so.4"
#endif

static enum { CURL_UNTRIED, CURL_READY, CURL_FAILED } state;
static const char *failure;

/* Each table slot and the symbol that fills it. */
static const struct {
  size_t offset;
  const char *symbol;
} slots[] = {
    {offsetof(CliCurl, global_init), "curl_global_init"},
    {offsetof(CliCurl, global_cleanup), "curl_global_cleanup"},
    {offsetof(CliCurl, easy_init), "curl_easy_init"},
    {offsetof(CliCurl, easy_setopt), "curl_easy_setopt"},
    {offsetof(CliCurl, easy_perform), "curl_easy_perform"},
    {offsetof(CliCurl, easy_getinfo), "curl_easy_getinfo"},
    {offsetof(CliCurl, easy_cleanup), "curl_easy_cleanup"},
    {offsetof(CliCurl, easy_strerror), "curl_easy_strerror"},
    {offsetof(CliCurl, slist_append), "curl_slist_append"},
    {offsetof(CliCurl, slist_free_all), "curl_slist_free_all"},
    {offsetof(CliCurl, url), "curl_url"},
    {offsetof(CliCurl, url_set), "curl_url_set"},
    {offsetof(CliCurl, url_get), "curl_url_get"},
    {offsetof(CliCurl, url_cleanup), "curl_url_cleanup"},
    {offsetof(CliCurl, free), "curl_free"},
};

bool cli_curl_load(const char **why) {
  if (state == CURL_UNTRIED) {
    state = CURL_FAILED;
    void *lib = dlopen(CLI_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) failure = "HTTP needs libcurl (" CLI_CURL_SONAME "), which is not installed";
    for (size_t i = 0; lib && i < sizeof slots / sizeof slots[0]; i++) {
      void *p = dlsym(lib, slots[i].symbol);
      if (!p) {
        failure = "the installed libcurl is too old (curl_url needs 7.62 or later)";
        lib = NULL;
        break;
      }
      /* POSIX guarantees a function pointer survives the round trip
       * through void * that dlsym imposes */
      memcpy((char *)&cli_curl + slots[i].offset, &p, sizeof p);
    }
    if (lib && cli_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) failure = "cannot initialise libcurl";
    else if (lib) state = CURL_READY;
  }
  if (state != CURL_READY && why) *why = failure;
  return state == CURL_READY;
}

void cli_curl_unload(void) {
  if (state == CURL_READY) cli_curl.global_cleanup();
  state = CURL_UNTRIED;
}
