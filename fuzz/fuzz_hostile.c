/* libFuzzer target: one builtin of the table called on hostile values
 * (fuzz/hostile.c: values built by sharing with 2^80 paths, values nested
 * past the comparison bound, a 1M-character String, lists of 65,536
 * references to one value, extreme Ints, lambdas returning them). The
 * first two input bytes pick the builtin, the rest are the generator's
 * choices (argument values, type variables, list sizes). Runs through the
 * shared harness (harness.c: every property of fuzz_run, the run within
 * twice its timeout, the heap within its budget) with the budget of the
 * generated adversarial test (tests/unit/test_adversarial.c): 1,000,000
 * steps, 1 s, 64 MiB. FUZZ_GEN_PRINT=1 prints the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "harness.h"
#include "hostile.h"
#include "lib/builtins.h"

static Sig *sigs;
static size_t nsigs;

static void load_sigs(void) {
  size_t nb;
  const BuiltinDef *b = lib_builtins(&nb);
  sigs = calloc(nb ? nb : 1, sizeof *sigs);
  if (!sigs) abort();
  for (size_t i = 0; i < nb; i++) {
    if (!b[i].sig || (!b[i].fn && !(b[i].flags & BF_CALLBACK)) || (b[i].flags & BF_APP_STUB)) continue;
    if (gt_sig_parse(&sigs[nsigs], b[i].name, b[i].sig)) nsigs++;
  }
}

typedef struct Input {
  const uint8_t *data;
  size_t size, at;
} Input;

static uint32_t input_choose(void *ctx, uint32_t n) {
  Input *in = ctx;
  uint32_t v = 0;
  for (int k = 0; k < 2; k++) v = v << 8 | (in->at < in->size ? in->data[in->at++] : 0);
  return v % n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_init();
  load_sigs();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char src[1 << 17];
  if (size < 2 || nsigs == 0) return 0;
  Input in = {data, size, 2};
  const Sig *s = &sigs[((size_t)data[0] << 8 | data[1]) % nsigs];
  if (!hostile_program(s, input_choose, &in, src, sizeof src)) return 0;
  if (getenv("FUZZ_GEN_PRINT")) printf("%s", src);
  FzOptions opt = {
      .run_tests = false,
      .check_examples = false,
      .expect_clean = true,
      .max_steps = 1000000,
      .max_collection = 10000000,
  };
  fz_run_checked(src, strlen(src), &opt);
  return 0;
}
