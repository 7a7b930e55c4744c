/* geno_format (`geno fmt`): the canonical layout on chosen cases, and two
 * properties over every .geno file under tests/: formatting is idempotent,
 * and it never changes what a program means (the same tokens on the same
 * lines, and every `else` / `if` pair decides the parser's else-if rule
 * the same way, which is the one place where Geno's layout matters). */
#include "unit.h"

#include <dirent.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/intern.h"
#include "syntax/lexer.h"

/* Format src; NULL when it was refused (the result not ok). */
static char *fmt(const char *src) {
  char *out = NULL;
  geno_result *r = geno_format(src, strlen(src), "t.geno", &out, NULL);
  assert_non_null(r);
  if (!geno_result_ok(r)) assert_null(out);
  geno_result_free(r);
  return out;
}

static void expect_fmt(const char *src, const char *want) {
  char *got = fmt(src);
  assert_non_null(got);
  assert_string_equal(got, want);
  /* the canonical layout is a fixed point */
  char *again = fmt(got);
  assert_string_equal(again, got);
  geno_free(again);
  geno_free(got);
}

static void test_blocks_and_ends(void **state) {
  (void)state;
  expect_fmt("func f(x: Int) -> Int\n"
             "example 1 -> 1\n"
             "      if x > 0 then\n"
             "  return x\n"
             "       else\n"
             "return 0 - x   \n"
             "end if\n"
             "  end func\n\n\n\n",
             "func f(x: Int) -> Int\n"
             "    example 1 -> 1\n"
             "    if x > 0 then\n"
             "        return x\n"
             "    else\n"
             "        return 0 - x\n"
             "    end if\n"
             "end func\n");
}

static void test_else_if_chain_kept(void **state) {
  (void)state;
  /* an `if` on the line after `else`, not indented past it: the chain
   * shares one `end if`; it stays at the else's level */
  expect_fmt("func f(x: Int) -> Int\n"
             "    example 1 -> 1\n"
             "    if x > 1 then\n"
             "        return 2\n"
             "    else\n"
             "    if x > 0 then\n"
             "        return 1\n"
             "    end if\n"
             "    return 0\n"
             "end func\n",
             "func f(x: Int) -> Int\n"
             "    example 1 -> 1\n"
             "    if x > 1 then\n"
             "        return 2\n"
             "    else\n"
             "    if x > 0 then\n"
             "        return 1\n"
             "    end if\n"
             "    return 0\n"
             "end func\n");
  /* indented past the else: a nested statement with its own end */
  expect_fmt("func f(x: Int) -> Int\n"
             "example 1 -> 1\n"
             "if x > 1 then\n"
             "return 2\n"
             "else\n"
             "  if x > 0 then\n"
             "return 1\n"
             "end if\n"
             "end if\n"
             "return 0\n"
             "end func\n",
             "func f(x: Int) -> Int\n"
             "    example 1 -> 1\n"
             "    if x > 1 then\n"
             "        return 2\n"
             "    else\n"
             "        if x > 0 then\n"
             "            return 1\n"
             "        end if\n"
             "    end if\n"
             "    return 0\n"
             "end func\n");
}

static void test_keywords_that_open_nothing(void **state) {
  (void)state;
  /* a comprehension's `for` starting a line, `impl T for U`, trait method
   * signatures, an expression lambda, a one-line if */
  expect_fmt("trait Show\n"
             "func show(self: Self) -> String\n"
             "end trait\n"
             "type P = P(x: Int)\n"
             "impl Show for P\n"
             "func show(self: P) -> String\n"
             "return \"p\"\n"
             "end func\n"
             "end impl\n"
             "func main() -> List[Int]\n"
             "if true then print(\"x\") end if\n"
             "let g = fn(a: Int) -> a + 1\n"
             "return [g(x)\n"
             "for x: Int in range(1, 3)]\n"
             "end func\n",
             "trait Show\n"
             "    func show(self: Self) -> String\n"
             "end trait\n"
             "type P = P(x: Int)\n"
             "impl Show for P\n"
             "    func show(self: P) -> String\n"
             "        return \"p\"\n"
             "    end func\n"
             "end impl\n"
             "func main() -> List[Int]\n"
             "    if true then print(\"x\") end if\n"
             "    let g = fn(a: Int) -> a + 1\n"
             "    return [g(x)\n"
             "    for x: Int in range(1, 3)]\n"
             "end func\n");
}

static void test_match_lambda_try_variants(void **state) {
  (void)state;
  expect_fmt("type Shape = Circle(r: Float)\n"
             "  | Square(s: Float)\n"
             "func area(s: Shape) -> Float\n"
             "example Circle(1.0) -> 3.0\n"
             "return match s with\n"
             "| Circle(r) -> 3.0 * r * r\n"
             "| Square(x) -> x * x\n"
             "end match\n"
             "end func\n"
             "func main() -> Unit\n"
             "let xs: List[Int] = map([1], fn(v: Int) do\n"
             "return v\n"
             "end fn)\n"
             "try\n"
             "// a comment in the body\n"
             "throw \"e\"\n"
             "catch e: String\n"
             "print(e)\n"
             "end try\n"
             "end func\n",
             "type Shape = Circle(r: Float)\n"
             "    | Square(s: Float)\n"
             "func area(s: Shape) -> Float\n"
             "    example Circle(1.0) -> 3.0\n"
             "    return match s with\n"
             "        | Circle(r) -> 3.0 * r * r\n"
             "        | Square(x) -> x * x\n"
             "    end match\n"
             "end func\n"
             "func main() -> Unit\n"
             "    let xs: List[Int] = map([1], fn(v: Int) do\n"
             "        return v\n"
             "    end fn)\n"
             "    try\n"
             "        // a comment in the body\n"
             "        throw \"e\"\n"
             "    catch e: String\n"
             "        print(e)\n"
             "    end try\n"
             "end func\n");
}

static void test_strings_and_line_ends(void **state) {
  (void)state;
  /* a line that starts inside a multi-line string is kept byte for byte
   * (its spaces are part of the string); `end` inside a string opens or
   * closes nothing; CR LF becomes LF */
  expect_fmt("func main() -> String\r\n"
             "let s = \"\"\"first\r\n"
             "   indented  \r\n"
             "end func\"\"\"\r\n"
             "return s\r\n"
             "end func\r\n",
             "func main() -> String\n"
             "    let s = \"\"\"first\n"
             "   indented  \n"
             "end func\"\"\"\n"
             "    return s\n"
             "end func\n");
  expect_fmt("", "\n");
  expect_fmt("\n\n  \n", "\n");
}

static void test_refuses_what_does_not_parse(void **state) {
  (void)state;
  char *out = (char *)"unchanged";
  geno_result *r = geno_format("func main() -> Unit\n    let x = (1 +\nend func\n", 44, "bad.geno", &out, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  assert_null(out);
  assert_true(geno_result_diagnostic_count(r) >= 1);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_true(d->code_number >= 200 && d->code_number < 300);
  assert_string_equal(d->filename, "bad.geno");
  geno_result_free(r);
  r = geno_format("let s = \"open\n", 14, NULL, &out, NULL);
  assert_false(geno_result_ok(r));
  assert_true(geno_result_diagnostic(r, 0)->code_number >= 100 && geno_result_diagnostic(r, 0)->code_number < 200);
  geno_result_free(r);
  /* a NULL output pointer is refused, not written through */
  r = geno_format("x", 1, NULL, NULL, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
}

static void test_outline_api(void **state) {
  (void)state;
  const char *src = "/// Twice x.\nexport func twice(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n";
  char *json = NULL;
  geno_result *r = geno_outline(src, strlen(src), "o.geno", &json);
  assert_true(geno_result_ok(r));
  assert_non_null(json);
  assert_non_null(strstr(json, "\"kind\": \"func\", \"name\": \"twice\", \"line\": 2, \"exported\": true"));
  assert_non_null(strstr(json, "\"doc\": \"Twice x.\""));
  assert_non_null(strstr(json, "\"examples\": [\"2 -> 4\"]"));
  geno_free(json);
  geno_result_free(r);
  /* refused, never crashing: NULL output, NULL source with a length */
  r = geno_outline(src, strlen(src), NULL, NULL);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
  r = geno_outline(NULL, 5, NULL, &json);
  assert_false(geno_result_ok(r));
  assert_null(json);
  geno_result_free(r);
  /* geno_check reports the modules it parsed and their definitions */
  geno_config cfg;
  geno_config_init(&cfg);
  r = geno_check(src, strlen(src), "o.geno", &cfg);
  size_t defs = 0;
  assert_string_equal(geno_result_module(r, 0, &defs), "o.geno");
  assert_int_equal(defs, 1);
  assert_null(geno_result_module(r, 1, NULL));
  geno_result_free(r);
  assert_null(geno_result_module(NULL, 0, &defs));
}

/* ---- properties over the corpus ---------------------------------------- */

typedef struct Toks {
  Token *t;
  int n;
  Arena arena;
  Interner names;
} Toks;

static bool lex_all(const char *src, Toks *k) {
  memset(k, 0, sizeof *k);
  arena_init(&k->arena, 0);
  intern_init(&k->names, &k->arena);
  Lexer lx;
  lex_init(&lx, src, strlen(src), "t", 1, 1, &k->arena, &k->names);
  if (!lex_start(&lx, NULL)) return false;
  int cap = 0;
  for (;;) {
    if (k->n == cap) {
      cap = cap ? cap * 2 : 256;
      k->t = realloc(k->t, (size_t)cap * sizeof *k->t);
      assert_non_null(k->t);
    }
    lex_next(&lx, &k->t[k->n]);
    if (k->t[k->n].kind == TOK_EOF) break;
    k->n++;
  }
  return lex_finish(&lx, NULL);
}

static void toks_free(Toks *k) {
  free(k->t);
  arena_free(&k->arena);
}

/* Line ends as the parser sees them (CR LF and lone CR are LF). */
static char *lf(const char *s) {
  char *o = malloc(strlen(s) + 1);
  size_t n = 0;
  for (size_t i = 0; s[i]; i++) {
    if (s[i] == '\r') {
      o[n++] = '\n';
      if (s[i + 1] == '\n') i++;
    } else {
      o[n++] = s[i];
    }
  }
  o[n] = '\0';
  return o;
}

static int nfiles, nformatted, nchanged;

static void check_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return;
  static char buf[1 << 20];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  if (len == sizeof buf - 1 || memchr(buf, '\0', len)) return; /* huge or binary inputs of other tests */
  buf[len] = '\0';
  nfiles++;
  char *out = NULL;
  geno_result *r = geno_format(buf, len, path, &out, NULL);
  assert_non_null(r);
  bool ok = geno_result_ok(r);
  geno_result_free(r);
  if (!ok) return; /* programs that do not parse are tests of errors */
  nformatted++;
  if (strcmp(out, buf) != 0) nchanged++;
  /* idempotent */
  char *again = fmt(out);
  if (!again || strcmp(again, out) != 0) fail_msg("%s: formatting the formatted text changed it", path);
  geno_free(again);
  /* same tokens, on the same lines */
  char *src = lf(buf);
  Toks a, b;
  bool la = lex_all(src, &a), lb = lex_all(out, &b);
  if (!la || !lb || a.n != b.n) fail_msg("%s: token count %d -> %d", path, a.n, b.n);
  for (int i = 0; i < a.n; i++) {
    const Token *x = &a.t[i], *y = &b.t[i];
    if (x->kind != y->kind || x->line != y->line || x->len != y->len ||
        (x->len && memcmp(x->text, y->text, x->len) != 0) || (x->kind == TOK_FSTRING && x->nparts != y->nparts) ||
        (x->kind == TOK_FLOAT && x->fval != y->fval))
      fail_msg("%s:%d: token %d differs after formatting (kind %d/%d line %d/%d len %zu/%zu parts %d/%d)", path, x->line, i, x->kind, y->kind, x->line, y->line, x->len, y->len, x->nparts, y->nparts);
    /* the else-if rule reads the same */
    if (x->kind == TOK_IF && i > 0 && a.t[i - 1].kind == TOK_ELSE) {
      bool chain_a = a.t[i - 1].line == x->line || x->col <= a.t[i - 1].col;
      bool chain_b = b.t[i - 1].line == y->line || y->col <= b.t[i - 1].col;
      if (chain_a != chain_b) fail_msg("%s:%d: an else-if changed its meaning", path, x->line);
    }
  }
  toks_free(&a);
  toks_free(&b);
  free(src);
  geno_free(out);
}

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) != 0) continue;
    size_t n = strlen(e->d_name);
    if (S_ISDIR(st.st_mode)) walk(path);
    else if (S_ISREG(st.st_mode) && n > 5 && strcmp(e->d_name + n - 5, ".geno") == 0) check_file(path);
  }
  closedir(d);
}

static void test_corpus_idempotent_and_meaning_preserving(void **state) {
  (void)state;
  walk(GENO_TESTS_DIR);
  print_message("fmt corpus: %d files, %d formatted (%d changed)\n", nfiles, nformatted, nchanged);
  assert_true(nformatted > 500);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blocks_and_ends),
      cmocka_unit_test(test_else_if_chain_kept),
      cmocka_unit_test(test_keywords_that_open_nothing),
      cmocka_unit_test(test_match_lambda_try_variants),
      cmocka_unit_test(test_strings_and_line_ends),
      cmocka_unit_test(test_refuses_what_does_not_parse),
      cmocka_unit_test(test_outline_api),
      cmocka_unit_test(test_corpus_idempotent_and_meaning_preserving),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
