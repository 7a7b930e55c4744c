/* Modules from the host's loader, gathered before an isolated run.
 *
 * A sandboxed child must not call host code, so geno_run_isolated asks the
 * host's module loader in the calling process for every module the
 * program imports (transitively; imports are found with
 * geno_source_imports), before the fork. The child's front end then loads
 * modules through rt_preloaded_loader, which serves the gathered sources
 * (and the host's explanations for missing ones) from memory it inherited:
 * no system call, no host code. */
#ifndef GENO_RUNTIME_PRELOAD_H
#define GENO_RUNTIME_PRELOAD_H

#include <geno.h>

#include "../base/common.h"

typedef struct RtPreloaded {
  char *name;    /* malloc'd */
  char *source;  /* malloc'd (from the loader); NULL: not supplied */
  size_t length;
  char *filename; /* the loader's name for diagnostics, or NULL */
  char *why;     /* the loader's explanation when not supplied, or NULL */
  bool listed;   /* in cfg->modules: the front end finds it there */
} RtPreloaded;

typedef struct RtPreload {
  RtPreloaded *items;
  size_t n, cap;
  bool timed_out; /* the loader was still being asked at cfg->timeout_s */
} RtPreload;

/* Gather, with cfg->module_loader, every module the program imports that
 * cfg->modules does not list. Nothing is gathered when cfg has no loader.
 * False when memory ran out (p is then empty). Free with rt_preload_free. */
bool rt_preload_modules(RtPreload *p, const char *source, size_t len, const geno_config *cfg);
/* A geno_module_loader_fn serving a RtPreload (userdata). */
bool rt_preloaded_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                         char **error);
void rt_preload_free(RtPreload *p);

#endif
