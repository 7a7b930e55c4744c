/* libFuzzer target for the whole pipeline: parse, check, compile, verify
 * examples and run main (or, for some inputs, the test mode) in-process
 * through geno_run, under the tight limits and fake host of harness.c.
 *
 * Besides crashes, leaks and sanitizer reports, harness.c checks every
 * result: ok or at least one diagnostic with a valid code; front-end
 * diagnostics located inside the source; output within
 * max_output_length; steps within max_steps plus one basic block; the
 * run within twice its timeout and its memory budget; every JSON form
 * parses. Seeds: tests/lang, tests/security and examples (fuzz/run.sh);
 * programs that typecheck are the valuable ones, they reach the VM. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The mode comes from the length, so a reproducer keeps it: a quarter
   * of the inputs run in test mode, an eighth skip example checking. */
  FzOptions opt = {
      .run_tests = size % 4 == 1,
      .check_examples = size % 8 != 3,
      .expect_clean = false,
  };
  fz_run_checked((const char *)data, size, &opt);
  return 0;
}
