/* Unit tests of geno_source_imports (src/runtime/api.c): the modules a
 * source imports, found from its tokens. */
#include "unit.h"

static int imports(const char *src, char ***names) { return geno_source_imports(src, strlen(src), names); }

static void lists_imports_in_order(void **state) {
  (void)state;
  char **names;
  int n = imports("import Geom\n"
                  "import Math as M\n"
                  "// import Commented\n"
                  "func main() -> Int\n"
                  "    let s = \"import Quoted\"\n"
                  "    return 0\n"
                  "end func\n"
                  "import Late\n"
                  "import Geom\n",
                  &names);
  assert_int_equal(n, 4);
  assert_string_equal(names[0], "Geom");
  assert_string_equal(names[1], "Math");
  assert_string_equal(names[2], "Late");
  assert_string_equal(names[3], "Geom");
  geno_strings_free(names, (size_t)n);
}

static void none_and_empty(void **state) {
  (void)state;
  char **names = (char **)1;
  assert_int_equal(imports("func main() -> Int\n    return 0\nend func\n", &names), 0);
  geno_strings_free(names, 0);
  assert_int_equal(geno_source_imports(NULL, 0, &names), 0);
  geno_strings_free(names, 0);
}

/* A syntax error does not hide the imports (the check reports it later);
 * only a lexical error makes them unknown. */
static void syntax_errors_still_list(void **state) {
  (void)state;
  char **names;
  int n = imports("import Geom\nfunc main( -> Int\n", &names);
  assert_int_equal(n, 1);
  assert_string_equal(names[0], "Geom");
  geno_strings_free(names, (size_t)n);
  n = imports("import lower\nimport 3\nimport Std.Math\n", &names);
  assert_int_equal(n, 1); /* only a type name after `import` names a module */
  assert_string_equal(names[0], "Std");
  geno_strings_free(names, (size_t)n);
}

static void lexical_errors_fail(void **state) {
  (void)state;
  char **names = (char **)1;
  assert_int_equal(imports("import Geom\nlet x = `\n", &names), -1);
  assert_null(names);
  assert_int_equal(imports("import Geom\n/* unterminated", &names), -1);
  assert_int_equal(geno_source_imports("import Geom // \xff\n", 17, &names), -1);
  assert_int_equal(imports("import Geom\nlet s = \"open\n", &names), -1);
}

/* A lone CR ends a line, as the parser sees it (it normalises CR and
 * CR LF to LF): a `//` comment stops there (found by fuzz_frontend: the
 * parser reported a lexical error after the CR that the scan skipped). */
static void carriage_returns_end_lines(void **state) {
  (void)state;
  char **names = (char **)1;
  int n = imports("// header\rimport Geom\r\nimport Math // x\rimport Late\r", &names);
  assert_int_equal(n, 3);
  assert_string_equal(names[0], "Geom");
  assert_string_equal(names[1], "Math");
  assert_string_equal(names[2], "Late");
  geno_strings_free(names, (size_t)n);
  assert_int_equal(imports("// comment\rb#\nfunc main() -> Int\n", &names), -1);
  assert_null(names);
}

/* geno_source_imports does not lex (src/syntax/imports.c): what it skips
 * as literals and comments, and where it sees token boundaries, must be
 * the lexer's. */
static void literals_and_boundaries(void **state) {
  (void)state;
  char **names;
  int n = imports("let a = \"\"\"\nimport Raw\n\"\"\"\n"  /* triple-quoted: text */
                  "let b = f\"{x}import Fmt{y\ny}\"\n"        /* f-string text, and a line end inside {} */
                  "let c = \"\\\" import Esc\"\n"             /* an escaped quote stays inside */
                  "/* import Block\n */ importX ximport import_ Y\n" /* names are whole words */
                  "import /* c */ // d\n  A1\n"                /* trivia after the keyword */
                  "import\tF\"s\"\n"                           /* F is a name, then a string */
                  "import Last",                                 /* ends inside a name */
                  &names);
  assert_int_equal(n, 3);
  assert_string_equal(names[0], "A1");
  assert_string_equal(names[1], "F");
  assert_string_equal(names[2], "Last");
  geno_strings_free(names, (size_t)n);
  /* a number may touch a name right after `import` (the parser reports it) */
  n = imports("import 3D\nimport 1.5x\n", &names);
  assert_int_equal(n, 0);
  geno_strings_free(names, 0);
  n = imports("f\"\"\nimport Z\n", &names); /* f"" is an empty f-string */
  assert_int_equal(n, 1);
  assert_string_equal(names[0], "Z");
  geno_strings_free(names, (size_t)n);
}

/* Every kind of lexical error gives -1, wherever it is. */
static void every_lexical_error_fails(void **state) {
  (void)state;
  static const char *const bad[] = {
      "import A\nlet x = 3d\n",              /* a number touching a name */
      "import A\nlet x = 1.5e3\n",
      "import A\nlet s = \"a\\qb\"\n",      /* invalid escape */
      "import A\nlet s = \"a\\\nb\"\n",     /* backslash at the end of a line */
      "import A\nlet s = \"a\rb\"\n",        /* a lone CR ends the line */
      "import A\nlet s = f\"a\nb\"\n",       /* line end in f-string text */
      "import A\nlet s = f\"{a{b}}\"\n",      /* nested brace */
      "import A\nlet s = f\"{\"}\"\n",        /* string in an interpolation */
      "import A\nlet s = f\"\"\"x\"\"\"\n",    /* triple-quoted f-string */
      "import A\nlet s = f\"{x\n",             /* unterminated interpolation */
      "import A\nlet s = \"\"\"x\"\"\n",      /* unterminated triple-quoted string */
      "import A\nif a ! b then\n",            /* '!' alone */
      "import A\nlet c = 'x'\n",              /* no character literals */
      "import A\nlet t = \u00e9\n",           /* a letter outside ASCII */
      "import A\n/* a */ */ /*\n",            /* unterminated block comment */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char **names = (char **)1;
    assert_int_equal(imports(bad[i], &names), -1);
    assert_null(names);
  }
  char **names = (char **)1;
  assert_int_equal(geno_source_imports("import A\n// \0\n", 14, &names), -1); /* a NUL, even in a comment */
  /* integer literals: 1000 digits at most */
  char src[1100] = "import A\nlet x = ";
  size_t k = strlen(src);
  memset(src + k, '7', 1000);
  strcpy(src + k + 1000, "\n");
  assert_int_equal(imports(src, &names), 1);
  geno_strings_free(names, 1);
  memset(src + k, '7', 1001);
  strcpy(src + k + 1001, "\n");
  assert_int_equal(imports(src, &names), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lists_imports_in_order),
      cmocka_unit_test(none_and_empty),
      cmocka_unit_test(syntax_errors_still_list),
      cmocka_unit_test(lexical_errors_fail),
      cmocka_unit_test(carriage_returns_end_lines),
      cmocka_unit_test(literals_and_boundaries),
      cmocka_unit_test(every_lexical_error_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
