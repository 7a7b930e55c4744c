/* Unit tests: the CLI's process callbacks (src/host/process.c) at the
 * C level: no descriptor or child left behind after many runs, a command
 * that leaves a background child is killed with its whole process group
 * at the deadline, and input a child never reads cannot block or kill
 * the host (SIGPIPE). */
#include "unit.h"

#include <signal.h>
#include <unistd.h>

#include "host/host.h"

static geno_result *run_mode(const char *source, double timeout, Host *h, bool isolated) {
  HostOptions o = {.caps = GENO_CAP_PROCESS | GENO_CAP_PRINT, .timeout_s = timeout, .max_collection = 1000000,
                      .program_path = "p.geno"};
  char *err = NULL;
  if (!host_init(h, &o, &err)) fail_msg("%s", err);
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.timeout_s = timeout;
  cfg.capabilities_set = true;
  cfg.capabilities = o.caps;
  cfg.callbacks = h->callbacks;
  cfg.ncallbacks = h->ncallbacks;
  host_start_clock(h);
  geno_result *r = isolated ? geno_run_isolated(source, strlen(source), "p.geno", &cfg)
                            : geno_run(source, strlen(source), "p.geno", &cfg);
  assert_non_null(r);
  return r;
}

static geno_result *run(const char *source, double timeout, Host *h) { return run_mode(source, timeout, h, false); }

static void nothing_left_behind(void **state) {
  (void)state;
  int fds = unit_open_fds();
  const char *src =
      "func main() -> Int with process, mutation\n"
      "    var n = 0\n"
      "    for i: Int in range(0, 40) do\n"
      "        match spawn_with_input(program: \"/bin/cat\", args: [], stdin: \"x\") with\n"
      "        | Ok(r) -> n = n + length(r.stdout)\n"
      "        | Err(e) -> n = n - 1000\n"
      "        end match\n"
      "        match exec(\"/nonexistent/x\") with\n"
      "        | Ok(r) -> n = n - 1000\n"
      "        | Err(e) -> n = n + 1\n"
      "        end match\n"
      "    end for\n"
      "    return n\n"
      "end func\n";
  Host h;
  geno_result *r = run(src, 30, &h);
  if (!geno_result_ok(r)) fail_msg("%s", unit_message(r));
  assert_string_equal(geno_result_value_text(r), "80");
  geno_result_free(r);
  host_free(&h);
  assert_int_equal(unit_open_fds(), fds);
  assert_true(unit_no_children());
}

static void process_group_killed_at_deadline(void **state) {
  (void)state;
  char pidfile[] = "/tmp/geno-host-proc-XXXXXX";
  int fd = mkstemp(pidfile);
  assert_true(fd >= 0);
  close(fd);
  char src[1024];
  snprintf(src, sizeof src,
           "func main() -> Unit with process\n"
           "    let r = spawn(\"/bin/sh\", [\"-c\", \"echo $$ > %s; sleep 30 & sleep 30\"])\n"
           "end func\n",
           pidfile);
  Host h;
  double t0 = host_now();
  geno_result *r = run(src, 1, &h);
  double took = host_now() - t0;
  assert_true(unit_has_code(r, 501));
  assert_true(took < 5); /* not the 30 s the children wanted */
  geno_result_free(r);
  host_free(&h);
  FILE *f = fopen(pidfile, "r");
  assert_non_null(f);
  int pgid = 0;
  assert_int_equal(fscanf(f, "%d", &pgid), 1);
  fclose(f);
  unlink(pidfile);
  /* the shell led its group; its background sleep must be gone too
   * (killed; init reaps it shortly after) */
  bool gone = false;
  for (int i = 0; i < 100 && !gone; i++) {
    gone = kill(-pgid, 0) != 0 && errno == ESRCH;
    if (!gone) usleep(20000);
  }
  assert_true(gone);
  assert_true(unit_no_children());
}

/* The pid a grandchild wrote to `path`, or 0 when it wrote none. */
static pid_t pid_in(const char *path) {
  FILE *f = fopen(path, "r");
  int pid = 0;
  if (f) {
    if (fscanf(f, "%d", &pid) != 1) pid = 0;
    fclose(f);
  }
  return (pid_t)pid;
}

/* True when pid is gone within about 2 s: reaped by the keeper, or (if
 * it got away) nowhere to be found. A process that got away is killed
 * here so that a failing test leaves nothing running. */
static bool gone_soon(pid_t pid) {
  for (int i = 0; i < 100; i++) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    usleep(20000);
  }
  kill(pid, SIGKILL);
  return false;
}

/* Run `program` (a printf format whose two %s are a pid file the
 * grandchild writes its pid to) in both modes, then check the run ended
 * as `want_code` says (0: ok with value "0") and the grandchild is gone. */
static void grandchild_is_swept(const char *program, double timeout, int want_code) {
  for (int isolated = 0; isolated < 2; isolated++) {
    char pidfile[] = "/tmp/geno-host-setsid-XXXXXX";
    int fd = mkstemp(pidfile);
    assert_true(fd >= 0);
    close(fd);
    char src[1024];
    snprintf(src, sizeof src, program, pidfile, pidfile);
    Host h;
    geno_result *r = run_mode(src, timeout, &h, isolated);
    if (want_code) assert_true(unit_has_code(r, want_code));
    else if (!geno_result_ok(r)) fail_msg("%s", unit_message(r));
    else assert_string_equal(geno_result_value_text(r), "0");
    geno_result_free(r);
    host_free(&h);
    pid_t grandchild = pid_in(pidfile);
    unlink(pidfile);
    assert_true(grandchild > 0);
    if (!gone_soon(grandchild))
      fail_msg("the setsid grandchild %d outlived its run (isolated: %d)", (int)grandchild, isolated);
    assert_true(unit_no_children());
  }
}

/* A process a program starts may leave a descendant in a new session
 * (setsid), out of the child's process group and holding none of its
 * pipes: the process call returns at once, and before the keeper (a
 * child subreaper that sweeps after the child) that grandchild ran on
 * after the run, a daemon of the program's making. Now it dies with the
 * call, in-process and isolated alike (the process callbacks run in the
 * host in both). The child waits until the grandchild wrote its pid. */
static void setsid_grandchild_dies_with_its_call(void **state) {
  (void)state;
  grandchild_is_swept("func main() -> Int with process\n"
                      "    match spawn(\"/bin/sh\", [\"-c\", \"setsid /bin/sh -c 'echo $$ > %s; exec sleep 300' "
                      "</dev/null >/dev/null 2>&1 & while [ ! -s %s ]; do sleep 0.01; done\"]) with\n"
                      "    | Ok(r) -> return r.exit_code\n"
                      "    | Err(e) -> return -1\n"
                      "    end match\n"
                      "end func\n",
                      20, 0);
}

/* At the run's deadline the child's group is killed; a descendant in
 * another session, holding the child's stdout open, is swept too. (The
 * second %s is in a comment of the shell command.) */
static void setsid_grandchild_dies_at_the_deadline(void **state) {
  (void)state;
  grandchild_is_swept("func main() -> Unit with process\n"
                      "    let r = spawn(\"/bin/sh\", [\"-c\", \"setsid /bin/sh -c 'echo $$ > %s; exec sleep 300' & "
                      "sleep 300 # %s\"])\n"
                      "end func\n",
                      1, 501);
}

static void unread_input_is_harmless(void **state) {
  (void)state;
  /* 5 MB of input to a program that exits at once: the write fails with
   * EPIPE, the host neither dies of SIGPIPE nor blocks */
  const char *src =
      "func main() -> Int with process\n"
      "    let big = string_repeat(\"x\", 5000000)\n"
      "    match spawn_with_input(program: \"/bin/true\", args: [], stdin: big) with\n"
      "    | Ok(r) -> return r.exit_code\n"
      "    | Err(e) -> return -1\n"
      "    end match\n"
      "end func\n";
  Host h;
  geno_result *r = run(src, 20, &h);
  if (!geno_result_ok(r)) fail_msg("%s", unit_message(r));
  assert_string_equal(geno_result_value_text(r), "0");
  geno_result_free(r);
  host_free(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nothing_left_behind),
      cmocka_unit_test(process_group_killed_at_deadline),
      cmocka_unit_test(setsid_grandchild_dies_with_its_call),
      cmocka_unit_test(setsid_grandchild_dies_at_the_deadline),
      cmocka_unit_test(unread_input_is_harmless),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
