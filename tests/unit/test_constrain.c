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

/* Fails the test where the mask of session s differs from feeding each
 * token to a copy of it; returns how many tokens keep the text valid. */
static size_t check_mask(geno_constrain *s, const geno_constrain_vocab *v, const char *const *toks, const size_t *lens,
                         size_t nv, uint64_t *bits, const char *what, size_t cut) {
  size_t count = geno_constrain_mask(s, v, bits), want = 0;
  for (size_t i = 0; i < nv; i++) {
    geno_constrain *c = geno_constrain_clone(s);
    bool ok = geno_constrain_feed(c, toks[i], lens[i]);
    geno_constrain_free(c);
    bool got = (bits[i / 64] >> (i % 64)) & 1;
    if (got != ok) {
      char shown[64];
      size_t k = 0;
      for (size_t j = 0; j < lens[i] && k + 5 < sizeof shown; j++) {
        unsigned char b = (unsigned char)toks[i][j];
        k += (size_t)snprintf(shown + k, sizeof shown - k, b >= 0x20 && b < 0x7f && b != '\\' ? "%c" : "\\x%02x", b);
      }
      fail_msg("%s at byte %zu: token %zu \"%s\" is %s the mask but %s", what, cut, i, shown, got ? "in" : "not in",
               ok ? "keeps the text valid" : "makes it invalid");
    }
    want += ok;
  }
  assert_int_equal(count, want);
  return want;
}

/* After a `/` (division or the start of a comment), a token `*` then a
 * non-ASCII character opens a comment: it was left out of the mask (taken
 * for a token that fails from code, as `xé` does). */
static void mask_after_a_slash(void **state) {
  (void)state;
  const char *toks[] = {"*\xc3\xa9", "*a\xc3\xa9", "*\xe2\x82\xac", "*\xf0\x9f\x98\x80", "*\xc3\xa9*/ 2", "*a", "*\n",
                        "*\"\xc3\xa9", "\xc3\xa9", "x\xc3\xa9", " \xc3\xa9", "/\xc3\xa9", "**\xc3\xa9", "*=\xc3\xa9"};
  size_t nv = sizeof toks / sizeof *toks, lens[sizeof toks / sizeof *toks];
  for (size_t i = 0; i < nv; i++) lens[i] = strlen(toks[i]);
  geno_constrain_vocab *v = geno_constrain_vocab_new(toks, lens, nv);
  assert_non_null(v);
  uint64_t bits[1];
  struct {
    const char *prefix;
    uint64_t want; /* the tokens that keep the text valid */
  } cases[] = {
      /* all that begin with `*` (a block comment) or `/` (a line comment) */
      {"func f() -> Int\n    return 10 /", 0x38FF},
      {"/", 0x38EF}, /* token 4 leaves its 2 at the top level */
      {"func main() -> Unit\n    print(10 /", 0x38EF}, /* and in a call */
      {"func f() -> String\n    return f\"{10 /", 0x386F}, /* no quote in an interpolation, even in a comment */
      {"/*", 0x3FEF}, /* in a comment: all but token 4 (its 2 again) */
      {"func f() -> Int\n    return 10 ", 0x00E0}, /* a product: not with a non-ASCII byte next */
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    geno_constrain *s = geno_constrain_new();
    assert_true(geno_constrain_feed(s, cases[k].prefix, strlen(cases[k].prefix)));
    check_mask(s, v, toks, lens, nv, bits, cases[k].prefix, strlen(cases[k].prefix));
    if (bits[0] != cases[k].want) fail_msg("after \"%s\": mask %#llx, want %#llx", cases[k].prefix,
                                           (unsigned long long)bits[0], (unsigned long long)cases[k].want);
    geno_constrain_free(s);
  }
  /* the program the trial wrote with it parses */
  const char *prog = "func f() -> Int\n    return 10 /*\xc3\xa9 */ 2\nend func\n";
  assert_true(parses(prog, strlen(prog)));
  assert_int_equal(status_of(prog, strlen(prog)), GENO_CONSTRAIN_COMPLETE);
  geno_constrain_vocab_free(v);
}

/* Masks against feeding every token, at every byte of programs that pass
 * through each lexer state a mask treats apart (after `/`, in a block
 * comment and at a `*` in it, in a line comment, in strings, triple-quoted strings and f-strings and
 * their interpolations, after `\`, inside a UTF-8 character, after a CR),
 * over a vocabulary of ASCII pieces that end or begin a comment or string
 * and of UTF-8 (whole characters, and their leading and continuation
 * bytes alone): every single piece, every pair, and every piece between
 * two of the ASCII pieces that end or begin a comment, string or name. */
static void mask_is_exact_in_every_lexer_state(void **state) {
  (void)state;
  static const char *const ascii[] = {"*",  "/", "*/", "/*", "//", "\"", "\"\"\"", "\\", "\\\"", "{",  "}",  "\n",
                                      "\r", " ", "a",  "x",  "1",  "=",  "-",      "f\"", "end", " func", ")", "2"};
  static const char *const wide[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xa9",
                                     "\x82\xac", "\xe2\x82",     "\x9f\x98\x80",     "\xf0\x9f"};
  static const char *const edge[] = {"*", "*/", "\"", "\\", "}", "\n", "/", "a", " ", "{"};
  enum { NA = sizeof ascii / sizeof *ascii, NW = sizeof wide / sizeof *wide, NE = sizeof edge / sizeof *edge };
  const char *pieces[NA + NW];
  for (size_t i = 0; i < NA; i++) pieces[i] = ascii[i];
  for (size_t i = 0; i < NW; i++) pieces[NA + i] = wide[i];
  size_t np = NA + NW, cap = np + np * np + NE * np * NE, nv = 0;
  char **toks = calloc(cap, sizeof *toks);
  size_t *lens = calloc(cap, sizeof *lens);
  assert_true(toks && lens);
  char buf[32];
  for (size_t i = 0; i < np; i++) toks[nv++] = strdup(pieces[i]);
  for (size_t i = 0; i < np; i++)
    for (size_t j = 0; j < np; j++) {
      snprintf(buf, sizeof buf, "%s%s", pieces[i], pieces[j]);
      toks[nv++] = strdup(buf);
    }
  for (size_t i = 0; i < NE; i++)
    for (size_t j = 0; j < np; j++)
      for (size_t k = 0; k < NE; k++) {
        snprintf(buf, sizeof buf, "%s%s%s", edge[i], pieces[j], edge[k]);
        toks[nv++] = strdup(buf);
      }
  assert_int_equal(nv, cap);
  for (size_t i = 0; i < nv; i++) {
    assert_non_null(toks[i]);
    lens[i] = strlen(toks[i]);
  }
  geno_constrain_vocab *v = geno_constrain_vocab_new((const char *const *)toks, lens, nv);
  assert_non_null(v);
  uint64_t *bits = calloc((nv + 63) / 64, sizeof *bits);
  assert_non_null(bits);
  const char *progs[] = {
      "/* \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 * / **/\nfunc f() -> Int\n    return 10 / 2 /*\xc3\xa9*/ // "
      "c\xf0\x9f\x98\x80\r\nend func\n",
      "func g(s: String) -> String\n    let t = \"a\\\"\xc3\xa9\\\\\xe2\x82\xac\"\n    return f\"x{s /* \xc3\xa9 */}"
      "\xc3\xa9{1 / 2}\" + \"\"\"\xc3\xa9\n\"\xf0\x9f\x98\x80\"\"\"\nend func\n",
  };
  size_t valid_somewhere = 0;
  for (size_t p = 0; p < sizeof progs / sizeof *progs; p++) {
    size_t n = strlen(progs[p]);
    assert_true(parses(progs[p], n));
    char what[32];
    snprintf(what, sizeof what, "program %zu", p);
    for (size_t cut = 0; cut <= n; cut++) {
      geno_constrain *s = geno_constrain_new();
      assert_true(geno_constrain_feed(s, progs[p], cut));
      valid_somewhere += check_mask(s, v, (const char *const *)toks, lens, nv, bits, what, cut);
      assert_true(geno_constrain_feed(s, progs[p] + cut, n - cut)); /* the mask left the session as it was */
      assert_int_equal(geno_constrain_state(s), GENO_CONSTRAIN_COMPLETE);
      geno_constrain_free(s);
    }
  }
  assert_true(valid_somewhere > 0);
  geno_constrain_vocab_free(v);
  for (size_t i = 0; i < nv; i++) free(toks[i]);
  free(toks);
  free(lens);
  free(bits);
}

/* text[0, valid_len) is a valid prefix and one byte more is not, with
 * that error. */
static void assert_prefix_ends(const char *text, size_t valid_len, const char *error) {
  geno_constraint_result r;
  assert_true(geno_constrain_prefix(text, valid_len, &r));
  assert_true(r.valid);
  geno_constraint_result_free(&r);
  assert_true(geno_constrain_prefix(text, valid_len + 1, &r));
  assert_false(r.valid);
  assert_string_equal(r.error, error);
  geno_constraint_result_free(&r);
}

/* A session refused past the depth limit says so, as geno_constrain_prefix
 * does, at the same byte, also where the refused byte only begins a token
 * (`-` may become `->`). */
static void nesting_message_of_a_session(void **state) {
  (void)state;
  struct {
    const char *head, *op;
  } cases[] = {
      {"func f() -> Int\n    return 1 ", "- "},     {"func f() -> Int\n    return ", "-"},
      {"func f() -> Bool\n    return ", "not "},     {"func f() -> Int\n    return ", "("},
      {"func f() -> Int\n    return ", "[- "},      {"func f() -> String\n    return f\"{", "- "},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s", cases[k].head);
    for (int i = 0; i < 60; i++) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s", cases[k].op);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "1\nend func\n");
    geno_constrain *s = geno_constrain_new();
    size_t at = 0;
    while (at < (size_t)n && geno_constrain_feed(s, buf + at, 1)) at++;
    assert_true(at < (size_t)n);
    if (strcmp(geno_constrain_error(s), "nesting too deep (more than 50 levels)") != 0)
      fail_msg("case %zu: \"%s\" at byte %zu", k, geno_constrain_error(s), at);
    geno_constrain_free(s);
    assert_prefix_ends(buf, at, "nesting too deep (more than 50 levels)");
    assert_false(parses(buf, (size_t)n));
  }
  /* other refused lexemes keep their message */
  const char *bad = "func f() -> Int\n    return 1 -=";
  geno_constrain *s = geno_constrain_new();
  assert_false(geno_constrain_feed(s, bad, strlen(bad)));
  assert_string_equal(geno_constrain_error(s), "no token that can come here starts like this");
  geno_constrain_free(s);
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
  assert_prefix_ends(text, cap, "Prefix is 1048577 bytes; the limit is 1048576 bytes");
  geno_constraint_result r;
  assert_true(geno_constrain_prefix(text, cap + 1, &r));
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
      cmocka_unit_test(mask_after_a_slash),
      cmocka_unit_test(mask_is_exact_in_every_lexer_state),
      cmocka_unit_test(nesting_message_of_a_session),
      cmocka_unit_test(reference_report),
      cmocka_unit_test(text_over_the_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
