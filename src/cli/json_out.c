/* JSON for failures the CLI reports before any run (cli.h). */
#include <stdio.h>

#include "cli.h"

void cli_json_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p < 0x20 || *p == 0x7F) printf("\\u%04x", *p);
    else putchar(*p);
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
