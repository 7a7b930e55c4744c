/* The sampler example of docs/constrain.md as a test: a toy "model" with
 * random logits over a small code vocabulary, decoded under the mask,
 * always ends with a program that parses. */
#include "unit.h"

static const char *const vocab_text[] = {
    "func", " main", " f", "()", "(", ")", " ->", " Int", "\n", "    ", " return", " 1", " +", " x", " end",
    " func", " if", " then", " else", " while", " do", " let", " =", " \"", "hi", "\"", " match", " with",
    "\n    |", " _", " x:", ":", ",", " *", " [", "]", " true", " and", " not", " //", " note",
    /* single letters, as every byte-level vocabulary has: any name can be spelled */
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u",
    "v", "w", "x", "y", "z", " ",
};
#define NV (sizeof vocab_text / sizeof *vocab_text)
#define EOS NV /* end of text: one more "token" of the model */

static uint64_t rng_state;
static double next_random(void) { /* xorshift64*, in [0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

/* After max_steps the toy model must finish. A real model is prompted or
 * biased to close what it opened; this toy one searches: the shortest
 * run of closing tokens (iterative deepening, each step only through
 * tokens the session accepts) that makes the text complete. */
static const char *const closers[] = {" end", " func", " if", " while", " match", ")", "]", "\"", " 1",
                                      " _", " ->", " then", " do", " with", "\n    |", "\n", " Int", ":", "()", " =", " x"};
#define NC (sizeof closers / sizeof *closers)

static bool finish(geno_constrain *s, int depth, char *text, size_t *len) {
  if (geno_constrain_state(s) == GENO_CONSTRAIN_COMPLETE) return true;
  if (depth == 0) return false;
  for (size_t i = 0; i < NC; i++) {
    geno_constrain *c = geno_constrain_clone(s);
    size_t n = strlen(closers[i]);
    bool ok = geno_constrain_feed(c, closers[i], n) && finish(c, depth - 1, text, len);
    geno_constrain_free(c);
    if (ok) {
      /* prepend: the deepest call finished first */
      memmove(text + n, text, *len);
      memcpy(text, closers[i], n);
      *len += n;
      return true;
    }
  }
  return false;
}

/* One decoding: at every step the model's logits (random here) are
 * masked -- tokens outside the mask get no chance, end of text only when
 * the text is complete -- and the best remaining choice is taken. */
static char *decode(const geno_constrain_vocab *v, const size_t *lens, int max_steps, size_t *out_len) {
  geno_constrain *s = geno_constrain_new();
  uint64_t mask[(NV + 63) / 64];
  char *text = malloc(1 << 16);
  size_t len = 0;
  for (int step = 0; step < max_steps; step++) {
    geno_constrain_mask(s, v, mask);
    bool eos_ok = geno_constrain_state(s) == GENO_CONSTRAIN_COMPLETE;
    int best = -1;
    double best_logit = -1e300;
    for (size_t i = 0; i <= NV; i++) {
      double logit = next_random();
      bool allowed = i == EOS ? eos_ok : (mask[i / 64] >> (i % 64)) & 1;
      if (allowed && logit > best_logit) best_logit = logit, best = (int)i;
    }
    if (best < 0) fail_msg("nothing allowed after: [%.*s]", (int)len, text);
    if (best == (int)EOS) break;
    memcpy(text + len, vocab_text[best], lens[best]);
    len += lens[best];
    assert_true(geno_constrain_feed(s, vocab_text[best], lens[best]));
  }
  char tail[4096];
  size_t tlen = 0;
  bool done = false;
  for (int depth = 0; depth <= 5 && !done; depth++) done = finish(s, depth, tail, &tlen);
  geno_constrain_free(s);
  if (!done) { /* the toy finisher's search is bounded: no program this time */
    free(text);
    return NULL;
  }
  memcpy(text + len, tail, tlen);
  len += tlen;
  *out_len = len;
  return text;
}

static void random_decoding_always_parses(void **state) {
  (void)state;
  size_t lens[NV];
  for (size_t i = 0; i < NV; i++) lens[i] = strlen(vocab_text[i]);
  geno_constrain_vocab *v = geno_constrain_vocab_new(vocab_text, lens, NV);
  assert_non_null(v);
  int nonempty = 0, finished = 0;
  for (uint64_t seed = 1; seed <= 16; seed++) {
    rng_state = seed * 0x9E3779B97F4A7C15ull;
    size_t len;
    char *text = decode(v, lens, 8, &len);
    if (!text) continue;
    finished++;
    geno_result *r = geno_parse(text, len, "sampled.geno", NULL);
    if (!geno_result_ok(r)) fail_msg("seed %llu: %.*s", (unsigned long long)seed, (int)len, text);
    nonempty += len > 0;
    geno_result_free(r);
    free(text);
  }
  /* most runs end (the others are cut short by the bounded finisher), and
   * they write programs, not just the empty text */
  if (finished < 8 || nonempty < 4) fail_msg("%d of 16 runs finished, %d non-empty", finished, nonempty);
  geno_constrain_vocab_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(random_decoding_always_parses)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
