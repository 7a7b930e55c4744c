/* libFuzzer target for constrained decoding (src/syntax/constrain.c),
 * checked against the parser (geno_parse) as the oracle. A failed check is
 * __builtin_trap (libFuzzer keeps the input).
 * - Complete: the whole input is COMPLETE exactly when it parses.
 * - Pieces: feeding byte by byte and in one call agree.
 * - Invalid means no completion: at the first byte where the session turns
 *   invalid, no continuation from a list of closing and opening pieces (up
 *   to two of them) may make the text parse (a brute-force search).
 * - Valid means some completion: a breadth-first search over the same
 *   pieces, kept to continuations the session calls valid, looks for a
 *   COMPLETE text; when found, the parser must accept it.
 * - Masks: over the pieces as a vocabulary, the mask at the end of the
 *   valid part equals feeding each piece; and over a vocabulary cut from
 *   the input itself (its substrings of 1 to 12 bytes: any bytes, words
 *   after punctuation, text then a quote ...), the masks at a few points
 *   of the valid part equal feeding each of those tokens. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <geno.h>

#define CHECK(c) \
  do {           \
    if (!(c)) __builtin_trap(); \
  } while (0)

static const char *const pieces[] = {
    "\"", "\"\"\"", "*/", "\n", " ", "}", ")", "]", "0", "x", "X", "_", ".", ",", ":", "=", "-", ">", "|",
    " end func", " end if", " end while", " end for", " end match", " end try", " end trait", " end impl",
    " end test", " end fn", " then", " do", " with", " | _ -> 0", " -> 0", " -> Int", ": Int", " = 0", "(",
    " catch e: Int", " in [0]", "\"x\"", " else", " func f() -> Int\n", " when", " as Y", "untested(\"r\")",
    "[", "{x}", "/", "*", "e", "d", "n", "f", "i",
    "*\xc3\xa9", "\xc3\xa9", /* after a `/`, `*é` opens a comment */
};
#define NPIECES (sizeof pieces / sizeof *pieces)

static bool parses(const char *s, size_t n) {
  geno_result *r = geno_parse(s, n, "f.geno", NULL);
  bool ok = r && geno_result_ok(r) && geno_result_diagnostic_count(r) == 0;
  geno_result_free(r);
  return ok;
}

static geno_constrain_vocab *vocab;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  const char *src = (const char *)data;
  if (!vocab) {
    size_t lens[NPIECES];
    for (size_t i = 0; i < NPIECES; i++) lens[i] = strlen(pieces[i]);
    vocab = geno_constrain_vocab_new(pieces, lens, NPIECES);
    CHECK(vocab);
  }
  /* complete iff it parses; pieces agree */
  geno_constrain *s = geno_constrain_new();
  size_t k = 0;
  while (k < size && geno_constrain_feed(s, src + k, 1)) k++;
  geno_constrain_status st = geno_constrain_state(s);
  CHECK((st == GENO_CONSTRAIN_COMPLETE) == (k == size && parses(src, size)));
  geno_constrain *whole = geno_constrain_new();
  geno_constrain_feed(whole, src, size);
  CHECK(geno_constrain_state(whole) == st);
  geno_constrain_free(whole);
  geno_constrain_free(s);

  /* the valid part, and the mask there */
  s = geno_constrain_new();
  CHECK(geno_constrain_feed(s, src, k));
  uint64_t bits[(NPIECES + 63) / 64];
  geno_constrain_mask(s, vocab, bits);
  for (size_t i = 0; i < NPIECES; i++) {
    geno_constrain *c = geno_constrain_clone(s);
    bool ok = geno_constrain_feed(c, pieces[i], strlen(pieces[i]));
    CHECK(ok == (bool)((bits[i / 64] >> (i % 64)) & 1));
    geno_constrain_free(c);
  }

  /* a vocabulary of the input's own substrings */
  if (size >= 2) {
    enum { NT = 160 };
    const char *toks[NT];
    size_t tlens[NT], nt = 0;
    for (size_t at = 0; at < size && nt < NT; at++)
      for (size_t len = 1 + at % 5; len <= 12 && at + len <= size && nt < NT; len += 5) {
        toks[nt] = src + at;
        tlens[nt++] = len;
      }
    geno_constrain_vocab *v2 = geno_constrain_vocab_new(toks, tlens, nt);
    CHECK(v2);
    uint64_t b2[(NT + 63) / 64];
    for (size_t cut = k % 7; cut <= k; cut += 1 + k / 4) {
      geno_constrain *p = geno_constrain_new();
      CHECK(geno_constrain_feed(p, src, cut));
      size_t count = geno_constrain_mask(p, v2, b2), want = 0;
      for (size_t i = 0; i < nt; i++) {
        geno_constrain *c = geno_constrain_clone(p);
        bool ok = geno_constrain_feed(c, toks[i], tlens[i]);
        CHECK(ok == (bool)((b2[i / 64] >> (i % 64)) & 1));
        want += ok;
        geno_constrain_free(c);
      }
      CHECK(count == want);
      geno_constrain_free(p);
    }
    geno_constrain_vocab_free(v2);
  }

  size_t cap = k + 512;
  char *buf = malloc(cap);
  CHECK(buf);
  if (k < size && k <= 256) {
    /* invalid at byte k: no completion of src[0..k] from up to two pieces */
    memcpy(buf, src, k + 1);
    CHECK(!parses(buf, k + 1));
    for (size_t i = 0; i < NPIECES; i++) {
      size_t li = strlen(pieces[i]);
      memcpy(buf + k + 1, pieces[i], li);
      CHECK(!parses(buf, k + 1 + li));
      for (size_t j = 0; j < NPIECES; j += 3) {
        size_t lj = strlen(pieces[j]);
        memcpy(buf + k + 1 + li, pieces[j], lj);
        CHECK(!parses(buf, k + 1 + li + lj));
      }
    }
  }
  if (k <= 256) {
    /* valid up to k: look for a completion the session calls complete;
     * the parser must accept it */
    typedef struct {
      geno_constrain *s;
      char *text;
      size_t len;
    } Node;
    Node frontier[48];
    size_t nf = 1;
    frontier[0].s = geno_constrain_clone(s);
    frontier[0].text = malloc(k + 1);
    CHECK(frontier[0].s && frontier[0].text);
    memcpy(frontier[0].text, src, k);
    frontier[0].len = k;
    bool done = false;
    for (int depth = 0; depth < 4 && nf && !done; depth++) {
      Node next[48];
      size_t nn = 0;
      for (size_t f = 0; f < nf && !done; f++) {
        for (size_t i = 0; i < NPIECES && nn < 48 && !done; i++) {
          size_t li = strlen(pieces[i]);
          geno_constrain *c = geno_constrain_clone(frontier[f].s);
          if (!geno_constrain_feed(c, pieces[i], li)) {
            geno_constrain_free(c);
            continue;
          }
          char *t = malloc(frontier[f].len + li + 1);
          CHECK(t);
          memcpy(t, frontier[f].text, frontier[f].len);
          memcpy(t + frontier[f].len, pieces[i], li);
          if (geno_constrain_state(c) == GENO_CONSTRAIN_COMPLETE) {
            CHECK(parses(t, frontier[f].len + li));
            done = true;
          }
          next[nn].s = c;
          next[nn].text = t;
          next[nn].len = frontier[f].len + li;
          nn++;
        }
      }
      for (size_t f = 0; f < nf; f++) {
        geno_constrain_free(frontier[f].s);
        free(frontier[f].text);
      }
      memcpy(frontier, next, nn * sizeof *next);
      nf = nn;
    }
    for (size_t f = 0; f < nf; f++) {
      geno_constrain_free(frontier[f].s);
      free(frontier[f].text);
    }
  }
  free(buf);
  geno_constrain_free(s);
  return 0;
}
