/* `geno run` and `geno test`: provisional until the VM lands (issue 4). */
#include "cli.h"

int cmd_run(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "geno run: the VM is not built yet\n");
  return EXIT_FAIL;
}

int cmd_test(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "geno test: the VM is not built yet\n");
  return EXIT_FAIL;
}
