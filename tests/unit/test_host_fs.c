/* Unit tests: the CLI's filesystem callbacks (src/host/fs.c) at the C
 * level: path resolution as Python's os.path.realpath does it (links,
 * `..` after links, loops, missing components), the root check, opening
 * without following links on kernels with and without openat2, and the
 * set of callbacks installed per capability (fail closed). */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"

static char tmp[256]; /* real path of this test's scratch directory */

static int setup(void **state) {
  (void)state;
  char templ[] = "/tmp/geno-host-fs-XXXXXX";
  if (!mkdtemp(templ)) return -1;
  char *real = realpath(templ, NULL);
  snprintf(tmp, sizeof tmp, "%s", real);
  free(real);
  char p[512], q[512];
  snprintf(p, sizeof p, "%s/d", tmp);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/d/f", tmp);
  FILE *f = fopen(p, "w");
  fputs("x", f);
  fclose(f);
  const char *links[][2] = {{"link_abs", "/etc"}, {"link_rel", "d/f"}, {"loop", "loop"}, {"a", "b"},
                            {"b", "a"},           {"chain", "link_rel"}, {"up", ".."},   {"dir_link", "d"},
                            {"dangling", "missing/x"}};
  for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
    snprintf(q, sizeof q, "%s/%s", tmp, links[i][0]);
    if (symlink(links[i][1], q) != 0) return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  return system(cmd) == 0 ? 0 : -1;
}

/* realpath of tmp/rel; "T" in want stands for tmp, "P" for its parent. */
static void check_real(const char *rel, const char *want) {
  char in[512], expect[512];
  snprintf(in, sizeof in, "%s/%s", tmp, rel);
  if (want[0] == 'T') snprintf(expect, sizeof expect, "%s%s", tmp, want + 1);
  else if (want[0] == 'P') snprintf(expect, sizeof expect, "%.*s%s", (int)(strrchr(tmp, '/') - tmp), tmp, want + 1);
  else snprintf(expect, sizeof expect, "%s", want);
  bool nul;
  char *got = host_fs_realpath(in, strlen(in), &nul);
  assert_non_null(got);
  if (strcmp(got, expect) != 0) fail_msg("realpath(%s) = %s, want %s", rel, got, expect);
  free(got);
}

static void realpath_like_python(void **state) {
  (void)state;
  /* each expectation is what Python 3.11's os.path.realpath returned for
   * the same tree */
  check_real("d/./f/../f", "T/d/f");
  check_real("link_rel", "T/d/f");
  check_real("dir_link/f", "T/d/f");
  check_real("dir_link/../x", "T/x");
  check_real("missing/../d", "T/d");
  check_real("loop/x", "T/loop/x");
  check_real("a", "T/a");
  check_real("a/x", "T/a/x");
  check_real("chain", "T/d/f");
  check_real("up/", "P");
  check_real("dangling", "T/missing/x");
  check_real("dangling/../y", "T/missing/y");
  check_real("link_abs/passwd", "/etc/passwd");
  check_real("/d//f/", "T/d/f");
  check_real("d/f/..", "T/d");
  check_real("loop/../../escape", "P/escape"); /* a loop is left unresolved, then normalized */
  bool nul = false;
  assert_null(host_fs_realpath("/a\0b", 4, &nul));
  assert_true(nul);
}

static void roots_are_prefixes_of_whole_components(void **state) {
  (void)state;
  assert_true(host_fs_under_root("/srv/app", "/srv/app"));
  assert_true(host_fs_under_root("/srv/app/x/y", "/srv/app"));
  assert_false(host_fs_under_root("/srv/application", "/srv/app"));
  assert_false(host_fs_under_root("/srv", "/srv/app"));
  assert_true(host_fs_under_root("/anything", "/"));
}

/* Run `source` in-process with the host's callbacks; returns the result. */
static geno_result *run_with_host(const char *source, unsigned caps, Host *h) {
  HostOptions o = {.caps = caps, .timeout_s = 5, .max_collection = 10000000, .program_path = "prog.geno"};
  char *err = NULL;
  if (!host_init(h, &o, &err)) fail_msg("host: %s", err);
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = caps;
  cfg.callbacks = h->callbacks;
  cfg.ncallbacks = h->ncallbacks;
  host_start_clock(h);
  geno_result *r = geno_run(source, strlen(source), "prog.geno", &cfg);
  assert_non_null(r);
  return r;
}

/* A path whose resolution stops at a symlink loop and is then normalized
 * lexically can name a link the check never saw (loop/../link_abs is
 * "inside"); opening must still refuse to follow it, with and without
 * openat2. */
static void opening_never_follows_a_link(void **state) {
  (void)state;
  char cwd[512];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(tmp), 0);
  const char *src =
      "func main() -> String with fs\n"
      "    try\n"
      "        return fs_read_text(\"loop/../link_abs/passwd\")\n"
      "    catch e: String\n"
      "        return e\n"
      "    end try\n"
      "end func\n";
  for (int walk = 0; walk < 2; walk++) {
    host_fs_no_openat2 = walk;
    Host h;
    geno_result *r = run_with_host(src, GENO_CAP_FS, &h);
    const char *v = geno_result_value_text(r);
    assert_non_null(v);
    if (!strstr(v, "[Errno 40] Too many levels of symbolic links"))
      fail_msg("%s: read through a link: %s", walk ? "walk" : "openat2", v);
    geno_result_free(r);
    host_free(&h);
  }
  host_fs_no_openat2 = false;
  assert_int_equal(chdir(cwd), 0);
}

static void reads_inside_work_in_both_openers(void **state) {
  (void)state;
  char cwd[512];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(tmp), 0);
  const char *src = "func main() -> String with fs\n    return fs_read_text(\"chain\") + fs_read_text(\"" "d/f\")\nend func\n";
  for (int walk = 0; walk < 2; walk++) {
    host_fs_no_openat2 = walk;
    Host h;
    geno_result *r = run_with_host(src, GENO_CAP_FS, &h);
    if (!geno_result_ok(r)) fail_msg("%s", unit_message(r));
    assert_string_equal(geno_result_value_text(r), "\"xx\"");
    geno_result_free(r);
    host_free(&h);
  }
  host_fs_no_openat2 = false;
  assert_int_equal(chdir(cwd), 0);
}

static size_t count_prefix(const Host *h, const char *prefix) {
  size_t n = 0;
  for (size_t i = 0; i < h->ncallbacks; i++) n += strncmp(h->callbacks[i].name, prefix, strlen(prefix)) == 0;
  return n;
}

static void callbacks_only_for_granted_capabilities(void **state) {
  (void)state;
  char *err = NULL;
  Host h;
  HostOptions o = {.caps = 0, .program_path = "x.geno"};
  assert_true(host_init(&h, &o, &err));
  assert_int_equal(h.ncallbacks, 0); /* nothing granted, nothing installed */
  host_free(&h);
  o.caps = GENO_CAP_PRINT | GENO_CAP_RANDOM | GENO_CAP_REGEX | GENO_CAP_ENV;
  assert_true(host_init(&h, &o, &err));
  assert_int_equal(h.ncallbacks, 0); /* none of these needs the host */
  host_free(&h);
  o.caps = GENO_CAP_SERVE; /* http_respond only builds a value */
  assert_true(host_init(&h, &o, &err));
  assert_int_equal(h.ncallbacks, 2);
  assert_string_equal(h.callbacks[0].name, "http_route");
  assert_string_equal(h.callbacks[1].name, "http_listen");
  host_free(&h);
  o.caps = GENO_CAP_FS;
  assert_true(host_init(&h, &o, &err));
  assert_int_equal(h.ncallbacks, 7);
  assert_int_equal(count_prefix(&h, "fs_"), 7);
  host_free(&h);
  o.caps = ~0u;
  assert_true(host_init(&h, &o, &err));
  assert_int_equal(h.ncallbacks, 18);
  for (size_t i = 0; i < h.ncallbacks; i++) assert_true(geno_callback_name_valid(h.callbacks[i].name));
  assert_int_equal(count_prefix(&h, "http_"), 5);
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.callbacks = h.callbacks;
  cfg.ncallbacks = h.ncallbacks;
  char *bad = geno_config_validate(&cfg);
  if (bad) fail_msg("%s", bad);
  host_free(&h);
}

/* A granted builtin whose callback the CLI does not provide still fails
 * closed (E413), and an ungranted one is E412 even with callbacks around. */
static void ungranted_stays_denied(void **state) {
  (void)state;
  Host h;
  const char *src = "func main() -> Bool with fs\n    return fs_exists(\"x\")\nend func\n";
  geno_result *r = run_with_host(src, GENO_CAP_PROCESS | GENO_CAP_HTTP, &h);
  assert_false(geno_result_ok(r));
  assert_true(unit_has_code(r, 412));
  geno_result_free(r);
  host_free(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(realpath_like_python),
      cmocka_unit_test(roots_are_prefixes_of_whole_components),
      cmocka_unit_test(opening_never_follows_a_link),
      cmocka_unit_test(reads_inside_work_in_both_openers),
      cmocka_unit_test(callbacks_only_for_granted_capabilities),
      cmocka_unit_test(ungranted_stays_denied),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
