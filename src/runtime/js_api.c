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
 * adopted config are compiled in, with `flavor`. A source map goes to map
 * when it is non-NULL (its "file": map_name), the .d.ts to dts when it is
 * non-NULL. */
static geno_result *compile(const char *source, size_t len, const char *filename, const geno_config *cfg,
                            ChkTarget target, JsFlavor flavor, Buf *out, Buf *map, const char *map_name, Buf *dts) {
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
  o.source_map = map;
  o.source_name = map_name;
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, true);
  if (fe.ok) {
    ChkOptions opts;
    chk_options_init(&opts);
    opts.target = target;
    opts.own_backend = true;
    if (chk_program(&fe.prog, lib_builtin_table(), &fe.diags, &opts) && js_compile(&fe.prog, &o, out, &fe.diags) &&
        dts)
      js_dts(&fe.prog, dts);
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

geno_result *geno_compile_js_ex(const char *source, size_t len, const char *filename, const geno_config *cfg,
                                unsigned flags, const char *js_name, geno_js_output *out) {
  Buf b = BUF_INIT, map = BUF_INIT, dts = BUF_INIT;
  geno_result *r = compile(source, len, filename, cfg, CHK_TARGET_NODE_CLI, flags & GENO_JS_ESM ? JS_ESM : JS_NODE, &b,
                           (flags & GENO_JS_SOURCE_MAP) ? &map : NULL, js_name ? js_name : "",
                           (flags & GENO_JS_DTS) ? &dts : NULL);
  hand_over(r, &b, &out->js, &out->js_len);
  out->source_map = out->dts = NULL;
  out->source_map_len = out->dts_len = 0;
  if (flags & GENO_JS_SOURCE_MAP) hand_over(r, &map, &out->source_map, &out->source_map_len);
  if (flags & GENO_JS_DTS) hand_over(r, &dts, &out->dts, &out->dts_len);
  buf_free(&map);
  buf_free(&dts);
  return r;
}

geno_result *geno_compile_js(const char *source, size_t len, const char *filename, const geno_config *cfg,
                             unsigned flags, char **js, size_t *js_len) {
  geno_js_output out;
  geno_result *r = geno_compile_js_ex(source, len, filename, cfg, flags & GENO_JS_ESM, NULL, &out);
  *js = out.js;
  if (js_len) *js_len = out.js_len;
  return r;
}

/* RFC 4648 base64 of n bytes, appended to out. */
static void base64(Buf *out, const char *s, size_t n) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned char)s[i] << 16;
    if (i + 1 < n) v |= (unsigned char)s[i + 1] << 8;
    if (i + 2 < n) v |= (unsigned char)s[i + 2];
    char q[4] = {digits[v >> 18], digits[(v >> 12) & 63], i + 1 < n ? digits[(v >> 6) & 63] : '=',
                 i + 2 < n ? digits[v & 63] : '='};
    buf_append(out, q, 4);
  }
}

geno_result *geno_compile_html_ex(const char *source, size_t len, const char *filename, const geno_config *cfg,
                                  const char *title, int width, int height, bool script_only, unsigned flags,
                                  const char *js_name, geno_js_output *out) {
  bool want_map = flags & GENO_JS_SOURCE_MAP;
  Buf script = BUF_INIT, map = BUF_INIT;
  /* In a page the script starts after "<script>\n": its first line is
   * that empty one, which the map counts when it starts the script here
   * (and the page is given the script without it). */
  bool inline_map = want_map && !script_only;
  if (inline_map) buf_putc(&script, '\n');
  geno_result *r = compile(source, len, filename, cfg, CHK_TARGET_BROWSER, JS_BROWSER, &script, want_map ? &map : NULL,
                           js_name ? js_name : "app.js", NULL);
  if (r && geno_result_ok(r) && !script_only) {
    if (inline_map) {
      buf_puts(&script, "//# sourceMappingURL=data:application/json;charset=utf-8;base64,");
      base64(&script, map.data ? map.data : "", map.len);
      buf_putc(&script, '\n');
    }
    Buf page = BUF_INIT;
    size_t skip = inline_map ? 1 : 0;
    js_html_page(&page, title, width, height, script.data ? script.data + skip : "", script.len - skip);
    buf_free(&script);
    script = page;
  }
  hand_over(r, &script, &out->js, &out->js_len);
  out->source_map = out->dts = NULL;
  out->source_map_len = out->dts_len = 0;
  if (want_map) hand_over(r, &map, &out->source_map, &out->source_map_len);
  buf_free(&map);
  return r;
}

geno_result *geno_compile_html(const char *source, size_t len, const char *filename, const geno_config *cfg,
                               const char *title, int width, int height, bool script_only, char **html,
                               size_t *html_len) {
  geno_js_output out;
  geno_result *r = geno_compile_html_ex(source, len, filename, cfg, title, width, height, script_only, 0, NULL, &out);
  *html = out.js;
  if (html_len) *html_len = out.js_len;
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
