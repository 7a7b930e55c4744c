/* geno_compile_js / geno_compile_html / geno_html_page: the front end and
 * the checker for a JavaScript target, then the back end (src/js). */
#include <stdlib.h>
#include <string.h>

#include <geno.h>

#include "../check/check.h"
#include "../lib/builtins.h"
#include "../js/js.h"
#include "config.h"
#include "frontend.h"
#include "result.h"

static void limits(JsOptions *o, const geno_config *cfg) {
  js_options_init(o);
  o->max_steps = cfg->max_steps;
  o->max_recursion_depth = cfg->max_recursion_depth ? (int)cfg->max_recursion_depth : 10000;
  o->max_output_length = cfg->max_output_length;
  o->max_collection_size = cfg->max_collection_size;
  o->max_integer_bits = (int)cfg->max_integer_bits;
  o->check_examples = cfg->check_examples;
  o->timeout_s = cfg->timeout_s;
}

/* The caller's config is adopted and validated first, as geno_check does
 * (E204 for a config it cannot read or refuses); then the limits of the
 * adopted config are compiled in, with `flavor`. */
static geno_result *compile(const char *source, size_t len, const char *filename, const geno_config *cfg,
                            ChkTarget target, JsFlavor flavor, Buf *out) {
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  double t0 = rt_now_ms();
  geno_config adopted; /* the caller's config in this library's layout */
  const char *unreadable = NULL;
  if (!(cfg = rt_config_adopt(cfg, &adopted, &unreadable))) {
    rt_result_add(r, E_PROJECT, NULL, unreadable);
    return r;
  }
  char *bad = rt_config_problem(cfg, source, len);
  if (bad) {
    rt_result_add(r, E_PROJECT, NULL, bad);
    free(bad);
    return r;
  }
  JsOptions o;
  limits(&o, cfg);
  o.flavor = flavor;
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, true);
  if (fe.ok) {
    ChkOptions opts;
    chk_options_init(&opts);
    opts.target = target;
    opts.own_backend = true;
    if (chk_program(&fe.prog, lib_builtin_table(), &fe.diags, &opts)) js_compile(&fe.prog, &o, out, &fe.diags);
  }
  rt_result_add_diags(r, &fe.diags);
  rt_frontend_free(&fe);
  r->timing.total_ms = rt_now_ms() - t0;
  return r;
}

static void hand_over(geno_result *r, Buf *b, char **text, size_t *text_len) {
  *text = NULL;
  if (text_len) *text_len = 0;
  if (!r || !geno_result_ok(r) || b->failed) {
    buf_free(b);
    return;
  }
  if (text_len) *text_len = b->len;
  *text = buf_take(b);
}

geno_result *geno_compile_js(const char *source, size_t len, const char *filename, const geno_config *cfg,
                             unsigned flags, char **js, size_t *js_len) {
  Buf b = BUF_INIT;
  geno_result *r = compile(source, len, filename, cfg, CHK_TARGET_NODE_CLI, flags & GENO_JS_ESM ? JS_ESM : JS_NODE, &b);
  hand_over(r, &b, js, js_len);
  return r;
}

geno_result *geno_compile_html(const char *source, size_t len, const char *filename, const geno_config *cfg,
                               const char *title, int width, int height, bool script_only, char **html,
                               size_t *html_len) {
  Buf script = BUF_INIT;
  geno_result *r = compile(source, len, filename, cfg, CHK_TARGET_BROWSER, JS_BROWSER, &script);
  if (r && geno_result_ok(r) && !script_only) {
    Buf page = BUF_INIT;
    js_html_page(&page, title, width, height, script.data ? script.data : "", script.len);
    buf_free(&script);
    script = page;
  }
  hand_over(r, &script, html, html_len);
  return r;
}

char *geno_html_page(const char *title, int width, int height) {
  Buf b = BUF_INIT;
  js_html_page(&b, title, width, height, NULL, 0);
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}
