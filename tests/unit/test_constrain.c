/* Unit tests of constrained decoding (src/syntax/constrain.c): sessions,
 * their exactness against the parser (geno_parse), token masks against
 * feeding each token, and the reference-compatible report. */
#include "unit.h"

static bool parses(const char *src, size_t len) {
  geno_result *r = geno_parse(src, len, "t.geno", NULL);
  bool ok = r && geno_result_ok(r) && geno_result_diagnostic_count(r) == 0;
  geno_result_free(r);
  return ok;
}

static geno_constrain_status status_of(const char *src, size_t len) {
  geno_constrain *s = geno_constrain_new();
  assert_non_null(s);
  geno_constrain_feed(s, src, len);
  geno_constrain_status st = geno_constrain_state(s);
  geno_constrain_free(s);
  return st;
}
#define STATUS(lit) status_of(lit, sizeof lit - 1)

static void answers_on_small_prefixes(void **state) {
  (void)state;
  assert_int_equal(STATUS(""), GENO_CONSTRAIN_COMPLETE);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend func\n"), GENO_CONSTRAIN_COMPLETE);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend func"), GENO_CONSTRAIN_COMPLETE);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend fun"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend func mai"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend func maxx"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func main() -> Int\n  return 1\nend func main"), GENO_CONSTRAIN_COMPLETE);
  /* inside strings, f-strings, comments, names, numbers, operators */
  assert_int_equal(STATUS("func f() -> String\n  return \"a\\"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> String\n  return \"a\\q"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> String\n  return f\"x{y + "), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> String\n  return f\"x{y + }"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> String\n  return f\"x{\""), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> String\n  return f\"\"\""), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> String\n  return \"\"\"a\n\"\""), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("/* a * / b"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  return 1."), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  return 1.5x"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  return 1 !"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  return 1 !x"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  return 1 < 2 <"), GENO_CONSTRAIN_VALID); /* << */
  assert_int_equal(STATUS("func f() -> Int\n  return 1 < 2 < "), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  x + 1 ="), GENO_CONSTRAIN_VALID); /* == */
  assert_int_equal(STATUS("func f() -> Int\n  x + 1 = "), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  x.y = "), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  x[0] = "), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  x[0].y() = "), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("@untested(\"\")"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("@untested(\"\""), GENO_CONSTRAIN_VALID); /* may become """...""" */
  assert_int_equal(STATUS("@unt"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("@unto"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f(a: Int = 1, b: Int)"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  match x with\n  | [...a, ."), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  match x with\n  | y wh"), GENO_CONSTRAIN_VALID);
  assert_int_equal(STATUS("func f() -> Int\n  match x with\n  | y z"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("func f() -> Int\n  match x with\n  | y -> end"), GENO_CONSTRAIN_VALID); /* endx */
  assert_int_equal(STATUS("func f() -> Int\n  match x with\n  | y -> end "), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("1"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("\x80"), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("// \xc3"), GENO_CONSTRAIN_VALID); /* inside a UTF-8 sequence */
  assert_int_equal(STATUS("// \xc3("), GENO_CONSTRAIN_INVALID);
  assert_int_equal(STATUS("// \xed\xa0"), GENO_CONSTRAIN_INVALID); /* a surrogate */
  assert_int_equal(STATUS("func f() -> Int\r\n  return 1\rend func\r\n"), GENO_CONSTRAIN_COMPLETE);
  assert_int_equal(STATUS("func f() -> Int\n  return \"a\r"), GENO_CONSTRAIN_INVALID);
  const char nul[] = "// a\0b";
  assert_int_equal(status_of(nul, sizeof nul - 1), GENO_CONSTRAIN_INVALID);
}

/* Layout: a bare `return` and `else if` depend on lines and columns. */
static void layout_rules_follow_the_parser(void **state) {
  (void)state;
  const char *progs[] = {
      "func f() -> Unit\n  return\n  g()\nend func\n",
      "func f() -> Int\n  return\n  1\nend func\n",
      "func f() -> Int\n  if a then\n    return 1\n  else\n  if b then\n    return 2\n  end if\n  return 3\nend func\n",
      "func f() -> Int\n  if a then\n    return 1\n  else\n    if b then\n      return 2\n    end if\n  end if\n  return 3\nend func\n",
      "func f() -> Int\n  if a then\n    return 1\n  else if b then\n    return 2\n  end if\n  return 3\nend func\n",
      "func f() -> Int\n  if a then\n    return 1\n  else\n      if b then\n      return 2\n    end if\n  return 3\nend func\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    size_t n = strlen(progs[i]);
    bool ok = parses(progs[i], n);
    geno_constrain_status st = status_of(progs[i], n);
    assert_int_equal(ok, st == GENO_CONSTRAIN_COMPLETE);
  }
}

/* Nesting depth: as deep as the parser allows, and no deeper. */
static void nesting_limit_matches_the_parser(void **state) {
  (void)state;
  char buf[512];
  for (int k = 40; k <= 56; k++) {
    int n = snprintf(buf, sizeof buf, "func f() -> Int\n  return ");
    for (int i = 0; i < k; i++) buf[n++] = '(';
    buf[n++] = '1';
    size_t open_len = (size_t)n;
    for (int i = 0; i < k; i++) buf[n++] = ')';
    n += snprintf(buf + n, sizeof buf - (size_t)n, "\nend func\n");
    bool ok = parses(buf, (size_t)n);
    assert_int_equal(status_of(buf, (size_t)n) == GENO_CONSTRAIN_COMPLETE, ok);
    /* the open prefix is valid exactly when closing it parses */
    assert_int_equal(status_of(buf, open_len) != GENO_CONSTRAIN_INVALID, ok);
  }
}

static void feeding_in_pieces_and_cloning(void **state) {
  (void)state;
  const char *prog = "func main() -> String\n  let s = \"h\xc3\xa9llo\"\n  return f\"{s}!\"\nend func\n";
  size_t n = strlen(prog);
  for (size_t cut = 0; cut <= n; cut++) {
    geno_constrain *s = geno_constrain_new();
    assert_true(geno_constrain_feed(s, prog, cut));
    geno_constrain *c = geno_constrain_clone(s);
    assert_non_null(c);
    assert_true(geno_constrain_feed(c, prog + cut, n - cut));
    assert_int_equal(geno_constrain_state(c), GENO_CONSTRAIN_COMPLETE);
    assert_false(geno_constrain_feed(s, " )", 2) && geno_constrain_state(s) == GENO_CONSTRAIN_COMPLETE);
    assert_null(geno_constrain_error(c));
    geno_constrain_free(s);
    geno_constrain_free(c);
  }
  geno_constrain *s = geno_constrain_new();
  assert_false(geno_constrain_feed(s, "}", 1));
  assert_non_null(geno_constrain_error(s));
  assert_false(geno_constrain_feed(s, "func", 4)); /* stays invalid */
  assert_int_equal(geno_constrain_state(s), GENO_CONSTRAIN_INVALID);
  geno_constrain_free(s);
}

/* The mask is exactly the set of tokens whose bytes keep the text valid. */
static const char *const vocab_words[] = {
    "", " ", "  ", "    ", "\n", "\n    ", "\r\n", "\t", "f", "fu", "func", " func", "main", " main", "()",
    "(", ")", " ->", "->", "-", ">", " Int", "Int", "In", "I", "\n    return", " return", "return", "ret",
    " 1", "1", "12", "1.", ".5", ".", "x", " x", "_", "_x", "\"", " \"", "\")", "\"\"", "\"\"\"", "\\", "\\n",
    "é", "\xc3", "\xa9", "\xed", "{", "}", "f\"", " f\"{", "{x", "x}", "}\"", "end", " end", "end func",
    "\nend", " func\n", " if", " then", " else", " else if", " while", " do", " for", " in", " match",
    " with", " |", "|", "|>", " ==", "==", "=", " =", " <", "<=", "!", "!=", "//", "// c", "/*", "*/", "*",
    " */", "/", "let", " let", " var", " :", ":", ",", ", ", "[", "]", "[]", " [", "...", " and", " or",
    " not", " true", " false", " fn", "fn(", " String", " List", "[Int]", " @", "@untested", "(\"",
    "\n\n", "type", " type", " Tree", " =", " Leaf", " |", " Node", "(left", ": Tree", "trait", "impl",
    "test", " assert", "import", " as", "when", " when", "?", " ?", "try", " catch", "throw", " await",
    "\x00", "#", "$", "0x", "1e5", "return x", ")\n", "):", " }", "ab\"cd", "a\nb", " \xe2\x80\x94",
    /* heads and tails (a word after other bytes), blank runs, code-dead
     * words, text then a quote, a comment's or string's end */
    ".x", "-x", "(x", " (Int", ".5x", "1.x", " don't", " Esp\xc3\xad", "x\xc3\xa9", "\xc3\xa9\"", "\" else",
    "\" else\n    if", "ab\" else", "*/ else\nif", "\" + x", "a\")", "x\" then", " \n\n", "\t\t", "\r\n    ",
    "//x\ny", "// \xc3\xa9", "abc\n", "q", "Q", "7", " Q", " 07", " _", "_1", "f\"a", "f\"{x", "a}\"", "a{",
    "x*/", "**/", "\\\"", "n\"", "1234567890", "\"\"\"a", "a\"\"\"",
};

static void mask_is_exact(void **state) {
  (void)state;
  size_t nv = sizeof vocab_words / sizeof *vocab_words;
  size_t lens[sizeof vocab_words / sizeof *vocab_words];
  for (size_t i = 0; i < nv; i++) lens[i] = strlen(vocab_words[i]);
  for (size_t i = 0; i < nv; i++)
    if (i && !lens[i]) lens[i] = 1; /* the "\x00" token is one NUL byte (token 0 is empty) */
  geno_constrain_vocab *v = geno_constrain_vocab_new(vocab_words, lens, nv);
  assert_non_null(v);
  assert_int_equal(geno_constrain_vocab_size(v), nv);
  uint64_t bits[(sizeof vocab_words / sizeof *vocab_words + 63) / 64];
  const char *progs[] = {
      "func main() -> Int\n    return 1 + x\nend func\n",
      "type Tree = Leaf | Node(left: Tree, right: Tree)\n",
      "func f(a: Int) -> String\n    let s: String = f\"{a} \xc3\xa9\\n\"\n    /* c */ return s // x\nend func\n",
      "@untested(\"net\")\nfunc g() -> Unit\n    match x with\n    | [a, ...r] when a > 1 -> print(r)\n    | _ -> "
      "print(\"\"\"m\"\"\")\n    end match\nend func\n",
      "import Math as M\ntest \"t\"\n    assert 1 == 1\nend test\n",
  };
  for (size_t p = 0; p < sizeof progs / sizeof *progs; p++) {
    size_t n = strlen(progs[p]);
    for (size_t cut = 0; cut <= n; cut++) {
      geno_constrain *s = geno_constrain_new();
      assert_true(geno_constrain_feed(s, progs[p], cut));
      size_t count = geno_constrain_mask(s, v, bits);
      size_t want = 0;
      for (size_t i = 0; i < nv; i++) {
        geno_constrain *c = geno_constrain_clone(s);
        bool ok = geno_constrain_feed(c, vocab_words[i], lens[i]);
        geno_constrain_free(c);
        bool got = (bits[i / 64] >> (i % 64)) & 1;
        if (got != ok)
          fail_msg("program %zu at byte %zu: token %zu (%s) is %s in the mask but %s", p, cut, i, vocab_words[i],
                   got ? "in" : "not", ok ? "keeps the text valid" : "makes it invalid");
        want += ok;
      }
      assert_int_equal(count, want);
      /* the session itself is unchanged */
      assert_true(geno_constrain_feed(s, progs[p] + cut, n - cut));
      assert_int_equal(geno_constrain_state(s), GENO_CONSTRAIN_COMPLETE);
      geno_constrain_free(s);
    }
  }
  geno_constrain_vocab_free(v);
}

static void reference_report(void **state) {
  (void)state;
  geno_constraint_result r;
  assert_true(geno_constrain_prefix("func main() -> Int\n    if true then\n", 36, &r));
  assert_true(r.valid);
  assert_null(r.error);
  assert_int_equal(r.n_unclosed_blocks, 2);
  assert_string_equal(r.unclosed_blocks[0], "if");
  assert_string_equal(r.unclosed_blocks[1], "func");
  assert_int_equal(r.n_keywords, 39);
  char *j = geno_constraint_result_json(&r, 0);
  assert_non_null(j);
  assert_non_null(strstr(j, "{\"valid\":true,\"error\":null,\"unclosed_blocks\":[\"if\",\"func\"],\"allowed_next\":"
                            "{\"keywords\":[\"and\","));
  free(j);
  geno_constraint_result_free(&r);
  const char *bad = "func main() -> Int\nend while";
  assert_true(geno_constrain_prefix(bad, strlen(bad), &r));
  assert_false(r.valid);
  assert_string_equal(r.error, "mismatched end: expected 'end func', got 'end while'");
  char *t = geno_constraint_result_text(&r);
  assert_string_equal(t, "AllowedNext(need_to_close=['func'])");
  free(t);
  geno_constraint_result_free(&r);
}

/* The text's size limit (GENO_CONSTRAIN_MAX_BYTES, the default source
 * limit of run and check): a 10 MB prefix once took seconds to answer.
 * A prefix over it is refused unread; a session refuses the bytes that
 * would pass it, and its mask leaves out the tokens that would. */
static void text_over_the_limit(void **state) {
  (void)state;
  size_t cap = GENO_CONSTRAIN_MAX_BYTES;
  char *text = malloc(cap + 1);
  assert_non_null(text);
  memcpy(text, "// ", 3);
  memset(text + 3, 'a', cap + 1 - 3); /* a comment: valid at any length */
  geno_constraint_result r;
  assert_true(geno_constrain_prefix(text, cap, &r));
  assert_true(r.valid);
  geno_constraint_result_free(&r);
  assert_true(geno_constrain_prefix(text, cap + 1, &r));
  assert_false(r.valid);
  assert_string_equal(r.error, "Prefix is 1048577 bytes; the limit is 1048576 bytes");
  assert_int_equal(r.n_keywords, 0);
  assert_int_equal(r.n_unclosed_blocks, 0);
  geno_constraint_result_free(&r);

  geno_constrain *s = geno_constrain_new();
  assert_true(geno_constrain_feed(s, text, cap - 1));
  const char *words[] = {"a", "aa", "\n"};
  size_t lens[] = {1, 2, 1};
  geno_constrain_vocab *v = geno_constrain_vocab_new(words, lens, 3);
  uint64_t bits[1];
  assert_int_equal(geno_constrain_mask(s, v, bits), 2);
  assert_int_equal(bits[0], 0x5); /* "a" and the line end fit, "aa" does not */
  geno_constrain *c = geno_constrain_clone(s);
  assert_true(geno_constrain_feed(c, "a", 1));
  assert_int_equal(geno_constrain_state(c), GENO_CONSTRAIN_COMPLETE);
  assert_false(geno_constrain_feed(c, "a", 1));
  geno_constrain_free(c);
  assert_false(geno_constrain_feed(s, "aa", 2));
  assert_int_equal(geno_constrain_state(s), GENO_CONSTRAIN_INVALID);
  assert_string_equal(geno_constrain_error(s),
                      "the text would be 1048577 bytes; the limit of constrained decoding is 1048576 bytes");
  geno_constrain_vocab_free(v);
  geno_constrain_free(s);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_on_small_prefixes),
      cmocka_unit_test(layout_rules_follow_the_parser),
      cmocka_unit_test(nesting_limit_matches_the_parser),
      cmocka_unit_test(feeding_in_pieces_and_cloning),
      cmocka_unit_test(mask_is_exact),
      cmocka_unit_test(reference_report),
      cmocka_unit_test(text_over_the_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
