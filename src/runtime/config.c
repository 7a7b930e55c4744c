/* Configuration defaults, capability names and validation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <geno.h>

#include "../base/buf.h"
#include "../base/caps.h"
#include "../base/common.h"
#include "../check/check.h"
#include "config.h"


void geno_config_init(geno_config *c) {
  if (!c) return;
  memset(c, 0, sizeof *c);
  c->struct_size = sizeof *c;
  c->timeout_s = 5.0;
  c->max_steps = 1000000;
  c->max_recursion_depth = 500;
  c->max_output_length = 100000;
  c->max_collection_size = 10000000;
  c->max_integer_bits = 33219;
  c->capabilities_set = false;
  c->capabilities = 0;
  c->check_examples = true;
  c->memory_bytes = (uint64_t)256 << 20;
  c->max_source_bytes = (uint64_t)1 << 20;
  c->max_total_source_bytes = (uint64_t)8 << 20;
}

unsigned geno_capability_from_name(const char *name) {
  if (!name) return 0;
  for (unsigned i = 0; i < GENO_CAP_COUNT; i++)
    if (strcmp(base_cap_names[i], name) == 0) return 1u << i;
  return 0;
}

const char *geno_capability_name(unsigned cap) { return base_cap_name(cap); }

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 32 || lb > 32) return 99;
  size_t d[33][33];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
      d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
  return d[la][lb];
}

const char *geno_capability_suggest(const char *name) {
  if (!name) return NULL;
  const char *best = NULL;
  size_t best_d = 3;
  for (unsigned i = 0; i < GENO_CAP_COUNT; i++) {
    size_t d = edit_distance(name, base_cap_names[i]);
    if (d < best_d) {
      best_d = d;
      best = base_cap_names[i];
    }
  }
  return best;
}

const char *rt_config_bad_target(const geno_config *c) {
  for (size_t i = 0; c->targets && i < c->ntargets; i++)
    if (chk_target_from_name(c->targets[i]) == CHK_TARGET_NONE) return c->targets[i] ? c->targets[i] : "(null)";
  return NULL;
}

/* Every module named, with its text, and each name once (a repeated name
 * was silently the first one's); the message goes to b. Sorting a copy of
 * the names keeps this O(n log n) for hosts with many modules. */
static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool modules_valid(const geno_config *c, Buf *b) {
  for (size_t i = 0; i < c->nmodules; i++) {
    if (!c->modules[i].name || !*c->modules[i].name) {
      buf_printf(b, "modules[%zu] has no name", i);
      return false;
    }
    if (!c->modules[i].source && c->modules[i].length) {
      buf_printf(b, "Module '%s' has a length but no source", c->modules[i].name);
      return false;
    }
  }
  if (c->nmodules < 2) return true;
  const char **names = malloc(c->nmodules * sizeof *names);
  if (!names) {
    buf_puts(b, "out of memory validating the configuration");
    return false;
  }
  for (size_t i = 0; i < c->nmodules; i++) names[i] = c->modules[i].name;
  qsort(names, c->nmodules, sizeof *names, cmp_names);
  bool ok = true;
  for (size_t i = 1; ok && i < c->nmodules; i++)
    if (strcmp(names[i - 1], names[i]) == 0) {
      buf_printf(b, "Module '%s' is given more than once in modules", names[i]);
      ok = false;
    }
  free(names);
  return ok;
}


void geno_free(void *p) { free(p); }

void *geno_alloc(size_t size) { return malloc(size ? size : 1); }

const geno_config *rt_config_adopt(const geno_config *cfg, geno_config *out, const char **why) {
  geno_config_init(out);
  if (!cfg) return out;
  size_t n = cfg->struct_size;
  if (n < GENO_CONFIG_MIN_SIZE) {
    *why = "geno_config.struct_size is not set (fill the config with geno_config_init)";
    return NULL;
  }
  if (n > sizeof *out) {
    /* a newer header: its extra fields must all hold their zero default */
    const unsigned char *tail = (const unsigned char *)cfg + sizeof *out;
    for (size_t i = 0; i < n - sizeof *out; i++)
      if (tail[i]) {
        *why = "geno_config sets fields this library does not know (built against a newer geno.h)";
        return NULL;
      }
    n = sizeof *out;
  }
  memcpy(out, cfg, n);
  out->struct_size = sizeof *out;
  return out;
}

char *geno_config_validate(const geno_config *given) {
  Buf b = BUF_INIT;
  if (!given) return NULL;
  geno_config local;
  const char *why = NULL;
  const geno_config *c = rt_config_adopt(given, &local, &why);
  if (!c)
    buf_puts(&b, why);
  else if (!isfinite(c->timeout_s) || c->timeout_s < 0)
    buf_puts(&b, "timeout_s must be a finite number of seconds >= 0");
  /* cpu_seconds becomes an rlim_t; beyond a billion seconds (32 years) is
   * a mistake, not a limit. Checked for every run (geno_run ignores it),
   * so a configuration is valid or not whichever way it is run. */
  else if (!isfinite(c->cpu_seconds) || c->cpu_seconds < 0 || c->cpu_seconds > 1e9)
    buf_puts(&b, "cpu_seconds must be a finite number of seconds between 0 and 1e9");
  else if (!isfinite(c->wall_clock_s) || c->wall_clock_s < 0 || c->wall_clock_s > 1e9)
    buf_puts(&b, "wall_clock_s must be a finite number of seconds between 0 and 1e9");
  else if (c->max_integer_bits == 0)
    buf_puts(&b, "max_integer_bits must be a positive number of bits");
  else if (c->capabilities & ~((1u << GENO_CAP_COUNT) - 1))
    buf_puts(&b, "capabilities contains an unknown capability bit");
  else if (c->ncallbacks && !c->callbacks)
    buf_puts(&b, "ncallbacks is set but callbacks is NULL");
  else if (c->nmodules && !c->modules)
    buf_puts(&b, "nmodules is set but modules is NULL");
  else if (c->ntargets && !c->targets)
    buf_puts(&b, "ntargets is set but targets is NULL");
  else if (rt_config_bad_target(c))
    buf_printf(&b, "Unknown target '%s'. Valid targets: %s", rt_config_bad_target(c), CHK_TARGET_NAMES);
  else if (!modules_valid(c, &b)) {
    /* the message is in b */
  } else {
    for (size_t i = 0; i < c->ncallbacks; i++) {
      if (!c->callbacks[i].name || !geno_callback_name_valid(c->callbacks[i].name)) {
        buf_printf(&b, "Unknown host callback '%s'", c->callbacks[i].name ? c->callbacks[i].name : "(null)");
        break;
      }
      if (!c->callbacks[i].fn) {
        buf_printf(&b, "Host callback '%s' has no function", c->callbacks[i].name);
        break;
      }
    }
  }
  if (b.len == 0) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

char *rt_config_problem(const geno_config *cfg, const char *source, size_t len) {
  if (!source && len) return strdup("source is NULL but its length is not 0");
  return geno_config_validate(cfg);
}
