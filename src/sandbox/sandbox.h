/* Process isolation: internal interface of src/sandbox.
 *
 * geno_run_isolated = sbx_run(..., a child body that calls geno_run).
 * sbx_run forks; the child installs the sandbox (sbx_child_setup), runs the
 * body, and reports back over one socket; the parent supervises it
 * (deadline, broker for host callbacks, reaping) and builds the
 * geno_result. The pieces:
 *   isolate.c  sbx_run and the parent's supervision loop
 *   child.c    the child's side: descriptors, limits, filter, body, result
 *   filter.c   the seccomp allow-list
 *   broker.c   host callbacks: the child's forwarders, the parent's handler
 *   wire.c     frames and the encodings of values and results
 *
 * Test builds reach sbx_run directly with their own child bodies (probes
 * that try to open files, create sockets, fork ...). That needs no hook in
 * the library: sbx_run is internal (hidden from libgeno.so, absent from
 * geno.h), so an embedder cannot run arbitrary C in a child through it. */
#ifndef GENO_SANDBOX_SANDBOX_H
#define GENO_SANDBOX_SANDBOX_H

#include <sys/types.h>

#include <geno.h>

#include "../base/buf.h"
#include "../vm/vm.h"

/* The descriptor number of the channel inside the child. */
#define SBX_CHILD_FD 3

/* Exit statuses of a child that could not report through the channel. */
enum { SBX_EXIT_SETUP = 120, SBX_EXIT_CHANNEL = 121 };

/* How long after the configured timeout the parent kills the child. The
 * child enforces the same timeout cooperatively and reports a located E501
 * on its own; its clock starts after parsing (as the reference's does),
 * and the kill only backstops code that does not poll (a long builtin, a
 * stuck or hostile child). Half a second covers parsing a maximal 8 MiB
 * program set without making the hard bound much looser. */
#define SBX_KILL_GRACE_S 0.5

/* The CPU-seconds limit (RLIMIT_CPU) for cfg, 0 for none: cpu_seconds
 * rounded up, or when 0, the wall-clock kill time rounded up plus one
 * second, so that with a deadline the wall-clock kill normally comes
 * first and the CPU limit only catches a run that has no deadline. */
uint64_t sbx_cpu_limit(const geno_config *cfg);

/* The work a child does once the sandbox is installed: return a result
 * (ownership passes to the caller) or NULL when out of memory. Output goes
 * to `output` as it is produced (the memory shared with the parent). */
typedef geno_result *(*SbxChildFn)(const char *source, size_t len, const char *filename,
                                   const geno_config *cfg, const VmOutput *output, void *arg);

/* Run `fn` in a sandboxed child under cfg's isolation limits and return
 * what it produced, or a diagnostic for how it ended (E501 deadline or CPU
 * limit, E504 memory, E500 crash, forbidden system call or protocol
 * violation). cfg must be non-NULL and valid. Never calls cfg->monitor.
 * Returns NULL only when the parent itself is out of memory. */
geno_result *sbx_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                     SbxChildFn fn, void *arg);

/* The number of a child body a separate spawner executable knows
 * (geno_run's and geno_check's), 0 for any other (which only a spawner
 * forked from the host itself can run); and the body of a number (NULL
 * when unknown). */
unsigned sbx_child_body_id(SbxChildFn fn);
SbxChildFn sbx_child_body(unsigned id);

/* The main function of the separate spawner executable (geno-spawner):
 * argv is {name, host pid, cpu or -1}; descriptor 3 is its control
 * socket (geno_spawner_exec). Returns only on bad arguments (status 2). */
int sbx_spawner_exec_main(int argc, char **argv);

/* Whether this process may have transparent huge pages for memory it
 * advises MADV_HUGEPAGE: not disabled for the process (PR_SET_THP_DISABLE)
 * and the system's setting not "never" (true when the setting cannot be
 * read: the caller's madvise then tells). Says nothing of whether one is
 * free. Thread-safe. */
bool sbx_thp_allowed(void);

struct SbxOutput;

/* Host side of the spawner (spawner.c): write the run into a new memfd
 * (output region first, then the request) and send the memfd and the
 * child's channel end to the spawner, which forks the child as our child;
 * the child writes its pid (u32) first into the channel. The host never
 * maps the memfd (it writes and reads it with pwrite/pread): mapping and
 * unmapping in a multi-threaded host costs a TLB shootdown of every CPU
 * running its threads, per request. On success returns 0 with *region the
 * memfd (the output region at offset 0: a SbxOutput header, then data;
 * close when done); otherwise -errno and nothing is left open. */
int sbx_spawner_launch(const geno_spawner *sp, int chan_child_end, const char *source, size_t len,
                       const char *filename, const geno_config *cfg, SbxChildFn fn, void *arg, size_t out_cap,
                       int *region);

/* ---- child side (child.c, filter.c, broker.c) ---- */

/* Everything the child needs, set up by the parent before fork. */
typedef struct SbxChildCtx {
  pid_t parent;               /* the supervising process */
  int chan;                   /* the child's end of the socket pair */
  struct SbxOutput *out;      /* shared output region */
  size_t out_cap;             /* its data capacity in bytes */
  const geno_config *cfg;
  const char *source;
  size_t len;
  const char *filename;
  SbxChildFn fn;
  void *arg;
  /* Done once by the spawner the child was forked from, so the child
   * skips it: signals at their defaults and none blocked, the timezone
   * and this thread's stack bounds learnt, and every step that leaves
   * the process without authority and that fork inherits (credentials:
   * nobody for a root host, no capability, the bounding set empty; not
   * dumpable; no_new_privs; RLIMIT_CORE and RLIMIT_FSIZE 0); see
   * sbx_prepare_spawner. */
  bool prepared;
  /* Address space mapped in the child as it starts (bytes), when the
   * spawner knows it; 0: the child reads it (sbx_mapped_bytes). */
  uint64_t mapped;
} SbxChildCtx;

/* Output shared with the parent (MAP_SHARED), so output printed before a
 * kill survives it without a system call per print. Only `len` and data
 * live here; the capacity is the parent's own copy, never read back. */
typedef struct SbxOutput {
  uint64_t len; /* bytes written (atomic: written after the data); 0 after a discard */
  char data[];
} SbxOutput;

/* In the spawner, once: what every child would otherwise do for itself
 * (see SbxChildCtx.prepared), the spawner itself left without authority
 * (it only receives descriptors and forks). False when a step failed; the
 * children then do all of it themselves (and fail closed if they cannot).
 * Changing credentials clears the parent-death signal: set it after. */
bool sbx_prepare_spawner(void);

/* Address space mapped right now (bytes), from /proc/self/statm; 0 when
 * unknown. */
uint64_t sbx_mapped_bytes(void);

/* Child entry after fork; never returns. */
GENO_NORETURN void sbx_child_main(const SbxChildCtx *ctx);

/* Parent, before forking: compile the seccomp filter once per process
 * (thread-safe). False with a message in err when it cannot be built; a
 * child forked anyway fails its setup (fail-closed). */
bool sbx_filter_prepare(char *err, size_t errlen);

/* Child: install the filter compiled by sbx_filter_prepare (see filter.c);
 * allocates nothing. The caller must have set PR_SET_NO_NEW_PRIVS first
 * (sbx_child_main does, and fails closed when it cannot). False with a message in err when it could not be
 * installed; the child must then not run anything. */
bool sbx_filter_install(char *err, size_t errlen);

/* Child: the forwarders' state: the channel, and the link to the child's
 * VM, learnt from the first function the program lends to a callback, by
 * which the parent's INVOKE requests are answered. */
typedef struct SbxForward {
  int fd;
  struct RtCallLink *link;
} SbxForward;

/* Child: a copy of cfg's callbacks whose functions forward each call to
 * the parent over fw->fd (same names, so the runtime's gate and E413
 * rules are untouched); while one waits for its reply it answers the
 * parent's INVOKE requests. NULL when out of memory; free with free(). */
geno_callback *sbx_forwarders(const geno_config *cfg, SbxForward *fw);

/* Parent: answer one CALL frame body with a REPLY frame in *reply (built,
 * header patched). Functions among the arguments that the child lent are
 * given `link` (the parent's way to call them in the child; NULL: they
 * are not callable). Returns false when the request is a violation (the
 * child must then be killed); *why says what was wrong. */
bool sbx_broker_handle(const geno_config *cfg, const void *body, size_t n, Buf *reply, const char **why,
                       struct RtCallLink *link);

/* The capability a gated builtin needs, from the builtin table (0 for a
 * pure builtin or an unknown name). */
unsigned sbx_callback_capability(const char *name);

#endif
