/* Module preloading for isolated runs (see preload.h). */
#include "preload.h"

#include <math.h>
#include <stdio.h>

#include "frontend.h"
#include "result.h"

static const geno_module *config_module(const geno_config *cfg, const char *name) {
  for (size_t i = 0; i < cfg->nmodules; i++)
    if (cfg->modules[i].name && cfg->modules[i].source && strcmp(cfg->modules[i].name, name) == 0)
      return &cfg->modules[i];
  return NULL;
}

static RtPreloaded *find(RtPreload *p, const char *name) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->items[i].name, name) == 0) return &p->items[i];
  return NULL;
}

/* Append an entry (name copied; source and why taken). False on no memory. */
static bool add(RtPreload *p, const char *name, char *source, size_t length, char *filename, char *why) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 8;
    RtPreloaded *grown = realloc(p->items, cap * sizeof *grown);
    if (!grown) return false;
    p->items = grown;
    p->cap = cap;
  }
  char *copy = strdup(name);
  if (!copy) return false;
  p->items[p->n++] = (RtPreloaded){.name = copy, .source = source, .length = length, .filename = filename, .why = why};
  return true;
}

/* Ask the loader for every module `source` imports that is not known yet,
 * then for theirs. Work list instead of recursion: a chain of imports is
 * as long as the host makes it. */
bool rt_preload_modules(RtPreload *p, const char *source, size_t len, const geno_config *cfg) {
  memset(p, 0, sizeof *p);
  if (!cfg->module_loader) return true;
  /* sources still to scan: the entry, then each module as it is found */
  const char **todo = malloc(sizeof *todo);
  size_t *todo_len = malloc(sizeof *todo_len);
  size_t ntodo = 0, captodo = 1;
  bool ok = todo && todo_len;
  if (ok) {
    todo[0] = source;
    todo_len[0] = len;
    ntodo = 1;
  }
  uint64_t total = len;
  double deadline = cfg->timeout_s > 0 && isfinite(cfg->timeout_s) ? rt_now_ms() + cfg->timeout_s * 1000.0 : 0;
  /* Stops at the module limit (the run then reports it, RT_MAX_MODULES)
   * and at the deadline (reported as E501 by the caller). */
  for (size_t t = 0; ok && t < ntodo && p->n <= RT_MAX_MODULES; t++) {
    if (deadline > 0 && rt_now_ms() > deadline) {
      p->timed_out = true;
      break;
    }
    char **names = NULL;
    int n = geno_source_imports(todo[t], todo_len[t], &names);
    for (int i = 0; ok && i < n; i++) {
      const char *name = names[i];
      const char *text = NULL;
      size_t text_len = 0;
      const geno_module *given = config_module(cfg, name);
      bool is_new = false;
      if (given) {
        /* a module the host listed may import one only the loader has;
         * each listed module is scanned once (it is marked as known with
         * a no-source entry that the loader below never serves) */
        if (!find(p, name)) {
          text = given->source;
          text_len = given->length;
          ok = add(p, name, NULL, 0, NULL, NULL);
          if (ok) p->items[p->n - 1].listed = true;
          is_new = ok;
        }
      } else if (!find(p, name)) {
        char *loaded = NULL, *why = NULL, *shown = NULL;
        size_t n_loaded = 0;
        if (cfg->module_loader(cfg->module_loader_userdata, name, &loaded, &n_loaded, &shown, &why) && loaded) {
          free(why);
          ok = add(p, name, loaded, n_loaded, shown, NULL);
          if (ok) {
            text = loaded;
            text_len = n_loaded;
            is_new = true;
          } else {
            free(loaded);
            free(shown);
          }
        } else {
          free(loaded);
          free(shown);
          ok = add(p, name, NULL, 0, NULL, why);
          if (!ok) free(why);
        }
      }
      /* Scan what was found, within the size limits (beyond them the run
       * itself reports the module as too large). */
      if (ok && is_new && text) {
        total += text_len;
        bool fits = (!cfg->max_source_bytes || text_len <= cfg->max_source_bytes) &&
                    (!cfg->max_total_source_bytes || total <= cfg->max_total_source_bytes);
        if (fits) {
          if (ntodo == captodo) {
            size_t cap = captodo * 2;
            const char **g1 = realloc(todo, cap * sizeof *g1);
            if (g1) todo = g1;
            size_t *g2 = g1 ? realloc(todo_len, cap * sizeof *g2) : NULL;
            if (g2) todo_len = g2;
            ok = g1 && g2;
            if (ok) captodo = cap;
          }
          if (ok) {
            todo[ntodo] = text;
            todo_len[ntodo++] = text_len;
          }
        }
      }
    }
    geno_strings_free(names, n > 0 ? (size_t)n : 0);
  }
  free(todo);
  free(todo_len);
  if (!ok) rt_preload_free(p);
  return ok;
}

bool rt_preloaded_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                         char **error) {
  RtPreload *p = userdata;
  RtPreloaded *e = find(p, name);
  if (!e || e->listed) return false;
  if (!e->source) {
    *error = e->why ? strdup(e->why) : NULL;
    return false;
  }
  *source = malloc(e->length ? e->length : 1);
  if (!*source) return false;
  if (e->length) memcpy(*source, e->source, e->length);
  *length = e->length;
  *filename = e->filename ? strdup(e->filename) : NULL; /* NULL: the default name */
  return true;
}

void rt_preload_free(RtPreload *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->items[i].name);
    free(p->items[i].source);
    free(p->items[i].filename);
    free(p->items[i].why);
  }
  free(p->items);
  memset(p, 0, sizeof *p);
}
