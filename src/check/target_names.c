/* Target data (spec 4.2, the reference's targets.toml): which builtins each
 * target provides, which names each backend's runtime reserves, and the
 * host languages' keywords. Pure data and lookups; target.c applies them. */
#include <stdlib.h>

#include "checker.h"

/* ---- builtin availability ------------------------------------------------------- */

/* Target bits, 1 << ChkTarget. */
#define TB(t) (1u << (t))
#define NOT_BROWSER TB(CHK_TARGET_BROWSER)
#define PYTHON_CLI_ONLY (TB(CHK_TARGET_NODE_CLI) | TB(CHK_TARGET_BROWSER) | TB(CHK_TARGET_PYTHON_HOSTED))
#define NO_JS (TB(CHK_TARGET_NODE_CLI) | TB(CHK_TARGET_BROWSER))
/* A CLI host, Python or Node (geno-c's JavaScript prelude sleeps on
 * Node; the reference's has no sleep_ms). */
#define CLI_ONLY (TB(CHK_TARGET_BROWSER) | TB(CHK_TARGET_PYTHON_HOSTED))
#define BROWSER_ONLY (TB(CHK_TARGET_PYTHON_CLI) | TB(CHK_TARGET_NODE_CLI) | TB(CHK_TARGET_PYTHON_HOSTED))

typedef struct Unavailable {
  const char *name;
  unsigned targets; /* TB() of the targets that lack it */
} Unavailable;

/* Every builtin missing from some target; the rest exist everywhere.
 * Sorted by name. Five groups: processes and stdin need the Python CLI
 * host; sleeping needs a CLI host (Python or Node); the HTTP server needs
 * a Python host; the file system, environment and arguments are not
 * reachable from a browser; canvas drawing and input exist only in the
 * browser. */
static const Unavailable unavailable[] = {
    {"clear_screen", BROWSER_ONLY},      {"clear_text_input", BROWSER_ONLY},
    {"cli_args", NOT_BROWSER},           {"draw_circle", BROWSER_ONLY},
    {"draw_line", BROWSER_ONLY},         {"draw_rect", BROWSER_ONLY},
    {"draw_rect_outline", BROWSER_ONLY}, {"draw_text", BROWSER_ONLY},
    {"env_get", NOT_BROWSER},            {"env_get_or", NOT_BROWSER},
    {"exec", PYTHON_CLI_ONLY},           {"exec_with_input", PYTHON_CLI_ONLY},
    {"fs_canonicalize", NOT_BROWSER},    {"fs_exists", NOT_BROWSER},
    {"fs_list_dir", NOT_BROWSER},        {"fs_metadata", NOT_BROWSER},
    {"fs_read_text", NOT_BROWSER},       {"fs_symlink_metadata", NOT_BROWSER},
    {"fs_write_text", NOT_BROWSER},      {"get_text_input", BROWSER_ONLY},
    {"http_listen", NO_JS},              {"http_respond", NO_JS},
    {"http_route", NO_JS},               {"is_key_down", BROWSER_ONLY},
    {"is_key_pressed", BROWSER_ONLY},    {"is_mouse_clicked", BROWSER_ONLY},
    {"is_mouse_down", BROWSER_ONLY},     {"mouse_x", BROWSER_ONLY},
    {"mouse_y", BROWSER_ONLY},           {"screen_height", BROWSER_ONLY},
    {"screen_width", BROWSER_ONLY},      {"sleep_ms", CLI_ONLY},
    {"spawn", PYTHON_CLI_ONLY},          {"spawn_with_input", PYTHON_CLI_ONLY},
    {"stdin_read_all", PYTHON_CLI_ONLY},
};

static int cmp_unavailable(const void *key, const void *row) {
  return strcmp(key, ((const Unavailable *)row)->name);
}

static unsigned missing_on(const char *name) {
  const Unavailable *u =
      bsearch(name, unavailable, ARRAY_LEN(unavailable), sizeof unavailable[0], cmp_unavailable);
  return u ? u->targets : 0;
}

bool chk_target_has_builtin(ChkTarget t, const char *name) {
  return t == CHK_TARGET_NONE || !(missing_on(name) & TB(t));
}

/* Targets in alphabetical order, for "available on" lists. */
static const ChkTarget by_name[] = {CHK_TARGET_BROWSER, CHK_TARGET_NODE_CLI, CHK_TARGET_PYTHON_CLI,
                                    CHK_TARGET_PYTHON_HOSTED};

void chk_target_alternatives(ChkTarget t, const char *name, Buf *out) {
  unsigned miss = missing_on(name);
  bool first = true;
  for (size_t i = 0; i < ARRAY_LEN(by_name); i++) {
    if (by_name[i] == t || (miss & TB(by_name[i]))) continue;
    buf_printf(out, "%s%s", first ? "" : ", ", chk_target_name(by_name[i]));
    first = false;
  }
}

/* ---- target names ----------------------------------------------------------------- */

static const char *const target_names[CHK_TARGET__COUNT] = {
    [CHK_TARGET_PYTHON_CLI] = "python-cli",
    [CHK_TARGET_NODE_CLI] = "node-cli",
    [CHK_TARGET_BROWSER] = "browser",
    [CHK_TARGET_PYTHON_HOSTED] = "python-hosted",
};

ChkTarget chk_target_from_name(const char *name) {
  if (!name) return CHK_TARGET_NONE;
  for (int t = 1; t < CHK_TARGET__COUNT; t++)
    if (strcmp(target_names[t], name) == 0) return (ChkTarget)t;
  return CHK_TARGET_NONE;
}

const char *chk_target_name(ChkTarget t) {
  return t > CHK_TARGET_NONE && t < CHK_TARGET__COUNT ? target_names[t] : NULL;
}

/* ---- reserved runtime names ----------------------------------------------------------- */

/* Each backend emits a runtime prelude (helpers, core types, the host
 * language's builtins it relies on) into the same namespace as the
 * program, so a program name that coincides with one would replace it.
 * The table says, per name, where each backend refuses it (RN_* in
 * checker.h). It is data measured on the reference, not a rule: see
 * scripts/derive_target_names.py. */
typedef struct ReservedName {
  const char *name;
  unsigned flags;
} ReservedName;

static const ReservedName reserved[] = {
#include "target_names.inc"
};

static int cmp_reserved(const void *key, const void *row) {
  return strcmp(key, ((const ReservedName *)row)->name);
}

unsigned chk_reserved_flags(const char *name) {
  const ReservedName *r = bsearch(name, reserved, ARRAY_LEN(reserved), sizeof reserved[0], cmp_reserved);
  return r ? r->flags : 0;
}

/* ---- host-language keywords ---------------------------------------------------------- */

/* Python 3.11's keywords and soft keywords (keyword.kwlist, softkwlist). */
static const char *const python_keywords[] = {
    "False", "None",   "True",     "_",      "and",   "as",     "assert", "async", "await", "break",
    "case",  "class",  "continue", "def",    "del",   "elif",   "else",   "except", "finally", "for",
    "from",  "global", "if",       "import", "in",    "is",     "lambda", "match", "nonlocal", "not",
    "or",    "pass",   "raise",    "return", "try",   "while",  "with",   "yield",
};

/* ECMAScript reserved words, including the strict-mode and future ones. */
static const char *const js_keywords[] = {
    "async",    "await",   "break",  "case",   "catch",     "class",  "const",      "continue",
    "debugger", "default", "delete", "do",     "else",      "enum",   "export",     "extends",
    "finally",  "for",     "function", "if",   "implements", "import", "in",        "instanceof",
    "interface", "let",    "new",    "package", "private",  "protected", "public",  "return",
    "static",   "super",   "switch", "this",   "throw",     "try",    "typeof",     "var",
    "void",     "while",   "with",   "yield",
};

static int cmp_str(const void *key, const void *row) { return strcmp(key, *(const char *const *)row); }

bool chk_python_keyword(const char *name) {
  return bsearch(name, python_keywords, ARRAY_LEN(python_keywords), sizeof(char *), cmp_str) != NULL;
}

bool chk_js_keyword(const char *name) {
  return bsearch(name, js_keywords, ARRAY_LEN(js_keywords), sizeof(char *), cmp_str) != NULL;
}

/* The tables are searched with bsearch: a unit test keeps them sorted. */
bool chk_target_tables_sorted(void) {
  for (size_t i = 1; i < ARRAY_LEN(unavailable); i++)
    if (strcmp(unavailable[i - 1].name, unavailable[i].name) >= 0) return false;
  for (size_t i = 1; i < ARRAY_LEN(reserved); i++)
    if (strcmp(reserved[i - 1].name, reserved[i].name) >= 0) return false;
  for (size_t i = 1; i < ARRAY_LEN(python_keywords); i++)
    if (strcmp(python_keywords[i - 1], python_keywords[i]) >= 0) return false;
  for (size_t i = 1; i < ARRAY_LEN(js_keywords); i++)
    if (strcmp(js_keywords[i - 1], js_keywords[i]) >= 0) return false;
  return true;
}
