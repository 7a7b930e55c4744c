/* JSON for failures the CLI reports before any run (cli.h). */
#include <stdio.h>

#include "cli.h"

/* Length of the well-formed UTF-8 sequence at p (1-4), or 0. */
static int utf8_seq(const unsigned char *p) {
  int n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
  if (p[0] > 0xF4) return 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  /* overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF */
  if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0;
  if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
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
      int n = utf8_seq(p);
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
