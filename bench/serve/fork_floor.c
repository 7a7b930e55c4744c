/* The floor under one sandboxed child per request: a process holding 1 MB
 * of touched memory forks, the child exits at once, the parent waits.
 * Prints the mean microseconds per fork+exit+wait over N rounds: wall
 * time, then CPU time (the parent's and its reaped children's, user and
 * system), the figure that does not depend on what else the machine runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
         (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) /
             1e6;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  size_t size = (size_t)1 << 20;
  char *mem = malloc(size);
  if (!mem || n <= 0) return 1;
  memset(mem, 1, size);
  struct timespec a, b;
  double c0 = cpu_seconds();
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; i++) {
    pid_t p = fork();
    if (p == 0) _exit(mem[i % size]);
    if (p < 0 || waitpid(p, NULL, 0) != p) return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / n;
  printf("%.1f %.1f\n", us, (cpu_seconds() - c0) * 1e6 / n);
  free(mem);
  return 0;
}
