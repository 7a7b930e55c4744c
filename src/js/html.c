/* The HTML page of `geno build` (see js.h). */
#include <string.h>

#include "js.h"

/* Text for an HTML element body: & < > " ' become character references. */
static void html_escape(Buf *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '&': buf_puts(out, "&amp;"); break;
      case '<': buf_puts(out, "&lt;"); break;
      case '>': buf_puts(out, "&gt;"); break;
      case '"': buf_puts(out, "&quot;"); break;
      case '\'': buf_puts(out, "&#39;"); break;
      default: buf_putc(out, *s);
    }
  }
}

/* The script is either inline or app.js beside the page. Nothing else is
 * loaded: the Content-Security-Policy allows only the page's own script
 * (inline: 'unsafe-inline' is needed for the one inline element, which
 * holds only generated code; no eval either way), no network, no frames,
 * and the page works from file:// since nothing is fetched at run time. */
void js_html_page(Buf *out, const char *title, int width, int height, const char *script, size_t script_len) {
  buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  buf_printf(out,
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src %s; "
             "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n",
             script ? "'unsafe-inline'" : "'self'");
  buf_puts(out, "<title>");
  html_escape(out, title ? title : "Geno App");
  buf_puts(out, "</title>\n<style>html,body{margin:0;height:100%;background:#111}"
                "body{display:flex;align-items:center;justify-content:center}"
                "canvas{border:1px solid #333;outline:none}</style>\n</head>\n<body>\n");
  buf_printf(out, "<canvas id=\"geno-canvas\" width=\"%d\" height=\"%d\" tabindex=\"0\"></canvas>\n", width, height);
  if (script) {
    buf_puts(out, "<script>\n");
    buf_append(out, script, script_len);
    buf_puts(out, "</script>\n");
  } else {
    buf_puts(out, "<script src=\"app.js\"></script>\n");
  }
  buf_puts(out, "</body>\n</html>\n");
}
