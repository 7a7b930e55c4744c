/* geno-spawner: the separate spawner executable (geno_spawner_exec).
 *
 * The server starts one per CPU; each forks one sandboxed child per run
 * request it is sent, exactly as a spawner forked from the server does
 * (src/sandbox/spawner.c), but its address space holds only libgeno's core
 * and the libraries a child needs (GMP, utf8proc, PCRE2, libseccomp), and
 * it is linked statically, so forking it copies a handful of mappings
 * instead of the server's 126. Not meant to be run by hand: descriptor 3
 * must be its control socket and argv its host's pid and its CPU. */
#include "../sandbox/sandbox.h"
#include "hugetext.h"

int main(int argc, char **argv) {
  /* first, while nothing else runs: code and constants in huge pages, so
   * that each child finds them mapped instead of faulting them in */
  (void)spawner_huge_text();
  return sbx_spawner_exec_main(argc, argv);
}
