/* JSON for failures the CLI reports before any run (cli.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../host/host.h"

int cli_utf8_char(const unsigned char *p, size_t avail, uint32_t *cp) {
  size_t bad;
  const char *reason;
  int n = avail ? host_utf8_seq(p, avail, true, &bad, &reason) : 0;
  if (n <= 0) return 0;
  uint32_t v = n == 1 ? p[0] : n == 2 ? p[0] & 0x1Fu : n == 3 ? p[0] & 0x0Fu : p[0] & 0x07u;
  for (int i = 1; i < n; i++) v = (v << 6) | (p[i] & 0x3Fu);
  if (cp) *cp = v;
  return n;
}

void cli_json_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      printf("\\%c", *p);
    } else if (*p < 0x20 || *p == 0x7F) {
      printf("\\u%04x", *p);
    } else if (*p < 0x80) {
      putchar(*p);
    } else {
      /* a path need not be UTF-8; JSON must be: invalid bytes become U+FFFD */
      int n = cli_utf8_char(p, strlen((const char *)p), NULL);
      if (n == 0) {
        fputs("\\ufffd", stdout);
      } else {
        fwrite(p, 1, (size_t)n, stdout);
        p += n - 1;
      }
    }
  }
  putchar('"');
}

void cli_json_failure(bool run_result, const char *code, const char *msg) {
  printf("{\n  \"ok\": false,\n");
  if (run_result) printf("  \"value\": null,\n  \"output\": \"\",\n");
  printf("  \"diagnostics\": [\n    {\n      \"code\": ");
  cli_json_string(code);
  printf(",\n      \"message\": ");
  cli_json_string(msg);
  /* no "location" key: the failure has none (as the reference writes it) */
  printf(",\n      \"severity\": \"error\"\n    }\n  ]");
  if (run_result)
    printf(",\n  \"timing\": {\"total_ms\": 0.0, \"lex_ms\": 0.0, \"parse_ms\": 0.0, \"typecheck_ms\": 0.0, "
           "\"run_ms\": 0.0},\n  \"steps_used\": 0");
  printf("\n}\n");
}
