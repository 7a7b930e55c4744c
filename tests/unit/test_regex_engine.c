/* Unit tests: the regex engine (lib/regex_engine.c): the safe-pattern
 * validator's every rule, Python-worded compile errors, finditer's
 * empty-match rule, replacement expansion and the size limit. Expected
 * values were taken from the reference (geno-lang 0.4.3) on the same
 * inputs; a differential run over 200,000 random patterns agreed too. */
#include "unit.h"

#include "base/buf.h"
#include "lib/regex_engine.h"

static char *rep(const char *s, int n) {
  size_t len = strlen(s);
  char *p = malloc(len * (size_t)n + 1);
  for (int i = 0; i < n; i++) memcpy(p + len * (size_t)i, s, len);
  p[len * (size_t)n] = '\0';
  return p;
}

/* n nested groups around "a": "((a))". */
static char *nest(int n) {
  char *p = malloc(2 * (size_t)n + 2);
  memset(p, '(', (size_t)n);
  p[n] = 'a';
  memset(p + n + 1, ')', (size_t)n);
  p[2 * n + 1] = '\0';
  return p;
}

typedef struct Case {
  const char *pattern, *text, *replacement;
  const char *error; /* compile/validation error (as regex_match), or NULL */
  const char *first; /* regex_match's match, NULL for None */
  const char *all;   /* regex_find_all joined by '|', "(none)" for [] */
  const char *replaced; /* regex_replace's result, or "ERR:" + its error */
} Case;

/* Built at run time because some inputs are long. */
static Case *cases(size_t *n) {
  static Case table[] = {
    {"a+b", "xaabyab", "[\\0]", NULL, "aab", "aab|ab", "x[\\0]y[\\0]"},
    {"a*", "baaa", "-", NULL, "", "|aaa|", "-b--"},
    {"", "ab", "-", NULL, "", "||", "-a-b-"},
    {"x*", "abc", "-", NULL, "", "|||", "-a-b-c-"},
    {"(a)(b)", "abab", "\\2\\1", NULL, "ab", "ab|ab", "baba"},
    {"(a)|b", "ab", "[\\1]", NULL, "a", "a|b", "[a][]"},
    {"a^b", "a^b", "x", NULL, NULL, "(none)", "a^b"},
    {"^a", "aa", "X", NULL, "a", "a", "Xa"},
    {"[a-c]+", "xabcabd", "<\\\\1>", NULL, "abcab", "abcab", "ERR:regex_replace: invalid replacement group reference"},
    {"[^a]", "ab\xc3\xa9""", ".", NULL, "b", "b|\xc3\xa9""", "a.."},
    {"\xc3\xa9""+", "\xc3\xa9""\xc3\xa9"" \xc3\xa9""", "E", NULL, "\xc3\xa9""\xc3\xa9""", "\xc3\xa9""\xc3\xa9""|\xc3\xa9""", "E E"},
    {"a{2,3}", "aaaaaaa", "#", NULL, "aaa", "aaa|aaa", "##a"},
    {"a{2,3}?", "aaaaaaa", "#", NULL, "aa", "aa|aa|aa", "###a"},
    {"a+?", "aaa", "#", NULL, "a", "a|a|a", "###"},
    {"(a)", "aa", "\\10", NULL, "a", "a|a", "ERR:regex_replace: invalid replacement group reference"},
    {"(a)", "aa", "\\1\\1x$1\\0\\n", NULL, "a", "a|a", "aax$1\\0\\naax$1\\0\\n"},
    {"((((((((((a))))))))))", "a", "\\10", NULL, "a", "a", "a"},
    {"((((((((((a))))))))))", "a", "\\11", NULL, "a", "a", "ERR:regex_replace: invalid replacement group reference"},
    {"[z-a]", "a", "", "regex_match: invalid pattern: bad character range z-a at position 1", NULL, NULL, NULL},
    {"(", "a", "", "regex_match: invalid pattern: missing ), unterminated subpattern at position 0", NULL, NULL, NULL},
    {"a)", "a", "", "regex_match: invalid pattern: unbalanced parenthesis at position 1", NULL, NULL, NULL},
    {"*a", "a", "", "regex_match: invalid pattern: nothing to repeat at position 0", NULL, NULL, NULL},
    {"a{2}{3}", "a", "", "regex_match: invalid pattern: multiple repeat at position 4", NULL, NULL, NULL},
    {"(*a)", "a", "", "regex_match: invalid pattern: nothing to repeat at position 1", NULL, NULL, NULL},
    {"\\1", "a", "", "regex_match: backreferences are not supported for safety", NULL, NULL, NULL},
    {"(?P=n)", "a", "", "regex_match: backreferences are not supported for safety", NULL, NULL, NULL},
    {"(?:a)", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"(a+)+", "a", "", "regex_match: nested quantifiers are not supported for safety", NULL, NULL, NULL},
    {"(a|b)*", "a", "", "regex_match: overlapping alternation branches are not supported for safety", NULL, NULL, NULL},
    {"a+a", "a", "", "regex_match: adjacent repeated atoms are not supported for safety", NULL, NULL, NULL},
    {"[a-z]+[0-9]", "a", "", "regex_match: adjacent repeated atoms are not supported for safety", NULL, NULL, NULL},
    {"a*b*", "a", "", "regex_match: multiple variable quantifiers are not supported for safety", NULL, NULL, NULL},
    {"(a|b)c|d", "a", "", "regex_match: multiple alternation sites are not supported for safety", NULL, NULL, NULL},
    {"\\d", "1", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a.b", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a$", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"[]a]", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a|", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"^a|b", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a{1,2}|b", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a++", "a", "", "regex_match: multiple variable quantifiers are not supported for safety", NULL, NULL, NULL},
    {"a{10001}", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a{3,2}", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"[a", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"a}", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {"\\", "a", "", "regex_match: advanced or encoded regex constructs are not supported for safety", NULL, NULL, NULL},
    {NULL, "a", "", "regex_match: pattern too long (max 1000 chars)", NULL, NULL, NULL},
    {NULL, "a", "", "regex_match: group nesting too deep (max 128)", NULL, NULL, NULL},
    {NULL, "a", "<\\1>", NULL, "a", "a", "<a>"},
    {"[[:a]", "[:a", "+", NULL, "[", "[|:|a", "+++"},
    {"[.,.]", ".,", "+", NULL, ".", ".|,", "++"},
    {"\\(\\)", "()", "P", NULL, "()", "()", "P"},
    {"[\\]\\-]", "]-", "Q", NULL, "]", "]|-", "QQ"},
    {"a", NULL, "", "regex_match: text too long (max 10000 chars)", NULL, NULL, NULL},
    {"a", "b", NULL, NULL, NULL, "(none)", "ERR:regex_replace: replacement too long (max 10000 chars)"},
  };
  *n = sizeof table / sizeof *table;
  /* Fill in the long inputs (marked NULL above). */
  for (size_t i = 0; i < *n; i++) {
    Case *c = &table[i];
    if (!c->pattern) {
      if (c->error && strstr(c->error, "too long")) c->pattern = rep("a", 1001);
      else c->pattern = nest(c->error ? 129 : 128);
    }
    if (!c->text) c->text = rep("a", 10001);
    if (!c->replacement) c->replacement = rep("x", 10001);
  }
  return table;
}

static char *join_all(LibRegex *re, const char *text) {
  Buf b = BUF_INIT, err = BUF_INIT;
  LibRegexIter it = {0, false, false};
  size_t s, e;
  int count = 0;
  while (lib_regex_next(re, "regex_find_all", text, strlen(text), &it, &s, &e, &err) == 1) {
    if (count++) buf_putc(&b, '|');
    buf_append(&b, text + s, e - s);
  }
  buf_free(&err);
  if (!count) buf_puts(&b, "(none)");
  if (!b.data) buf_puts(&b, "");
  return buf_take(&b);
}

static void reference_cases(void **state) {
  (void)state;
  size_t n;
  Case *t = cases(&n);
  for (size_t i = 0; i < n; i++) {
    const Case *c = &t[i];
    Buf err = BUF_INIT;
    LibRegex *re = NULL;
    /* As regex_match does it: the pattern, then the text. */
    re = lib_regex_compile("regex_match", c->pattern, strlen(c->pattern), &err);
    if (re && !lib_regex_check_arg("regex_match", "text", c->text, strlen(c->text), &err)) {
      lib_regex_free(re);
      re = NULL;
    }
    if (c->error) {
      if (re) fail_msg("case %zu (%.40s): compiled, expected: %s", i, c->pattern, c->error);
      if (strcmp(err.data, c->error)) fail_msg("case %zu: got '%s', expected '%s'", i, err.data, c->error);
      buf_free(&err);
      continue;
    }
    if (!re) fail_msg("case %zu (%.40s): %s", i, c->pattern, err.data);
    LibRegexIter it = {0, false, false};
    size_t s, e;
    int found = lib_regex_next(re, "regex_match", c->text, strlen(c->text), &it, &s, &e, &err);
    if (c->first) {
      assert_int_equal(found, 1);
      if (e - s != strlen(c->first) || memcmp(c->text + s, c->first, e - s))
        fail_msg("case %zu: first match '%.*s', expected '%s'", i, (int)(e - s), c->text + s, c->first);
    } else {
      assert_int_equal(found, 0);
    }
    char *all = join_all(re, c->text);
    if (strcmp(all, c->all)) fail_msg("case %zu (%s): find_all '%s', expected '%s'", i, c->pattern, all, c->all);
    free(all);
    Buf out = BUF_INIT;
    buf_clear(&err);
    size_t size = 0;
    LibRegexStatus st = LIB_RE_ERROR;
    if (lib_regex_check_arg("regex_replace", "replacement", c->replacement, strlen(c->replacement), &err))
      st = lib_regex_replace(re, c->replacement, strlen(c->replacement), c->text, strlen(c->text), 10000000, &out,
                             &size, &err);
    if (strncmp(c->replaced, "ERR:", 4) == 0) {
      assert_int_not_equal(st, LIB_RE_OK);
      if (strcmp(err.data, c->replaced + 4)) fail_msg("case %zu: error '%s', expected '%s'", i, err.data, c->replaced + 4);
    } else {
      if (st != LIB_RE_OK) fail_msg("case %zu: replace failed: %s", i, err.data);
      if (strcmp(out.data ? out.data : "", c->replaced))
        fail_msg("case %zu (%s): replace gave '%s', expected '%s'", i, c->pattern, out.data, c->replaced);
    }
    buf_free(&out);
    buf_free(&err);
    lib_regex_free(re);
  }
}

/* The result is checked against the size limit while it grows: a pattern
 * matching everywhere with a long replacement is refused, not built. */
static void replacement_growth_is_bounded(void **state) {
  (void)state;
  Buf err = BUF_INIT, out = BUF_INIT;
  LibRegex *re = lib_regex_compile("regex_replace", "", 0, &err);
  assert_non_null(re);
  char *text = rep("ab", 5000), *r = rep("xyz", 3000);
  size_t size = 0;
  LibRegexStatus st = lib_regex_replace(re, r, strlen(r), text, strlen(text), 1000000, &out, &size, &err);
  assert_int_equal(st, LIB_RE_TOO_BIG);
  assert_true(size > 1000000);
  assert_true(strncmp(err.data, "regex_replace: String size exceeds limit (", 42) == 0);
  assert_true(out.len <= 1000000 + 9000); /* stopped at the limit, not at the end */
  buf_clear(&out);
  buf_clear(&err);
  st = lib_regex_replace(re, "-", 1, "abc", 3, 6, &out, &size, &err); /* "-a-b-c-" is 7 > 6 */
  assert_int_equal(st, LIB_RE_TOO_BIG);
  assert_int_equal(size, 7);
  assert_string_equal(err.data, "regex_replace: String size exceeds limit (7 > 6)");
  buf_clear(&out);
  buf_clear(&err);
  st = lib_regex_replace(re, "-", 1, "abc", 3, 7, &out, &size, &err);
  assert_int_equal(st, LIB_RE_OK);
  assert_string_equal(out.data, "-a-b-c-");
  free(text);
  free(r);
  buf_free(&out);
  buf_free(&err);
  lib_regex_free(re);
}

/* Groups: spans, unmatched groups, the count. */
static void groups(void **state) {
  (void)state;
  Buf err = BUF_INIT;
  LibRegex *re = lib_regex_compile("regex_match", "(a)|(b)", 7, &err);
  assert_int_equal(lib_regex_group_count(re), 2);
  LibRegexIter it = {0, false, false};
  size_t s, e;
  assert_int_equal(lib_regex_next(re, "regex_match", "xb", 2, &it, &s, &e, &err), 1);
  assert_int_equal(s, 1);
  assert_false(lib_regex_group(re, 1, &s, &e));
  assert_true(lib_regex_group(re, 2, &s, &e));
  assert_int_equal(e, 2);
  assert_false(lib_regex_group(re, 3, &s, &e));
  assert_int_equal(lib_regex_next(re, "regex_match", "xb", 2, &it, &s, &e, &err), 0);
  assert_false(lib_regex_group(re, 0, &s, &e)); /* no current match */
  lib_regex_free(re);
  buf_free(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_cases),
      cmocka_unit_test(replacement_growth_is_bounded),
      cmocka_unit_test(groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
