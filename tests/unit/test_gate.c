/* Unit tests: the capability gate and host callbacks, in-process
 * (geno_run) and isolated (geno_run_isolated), checked the same way.
 *
 * Includes the reference's 2026-03 security review fixes restated for C:
 *   1. module proxy leaking host modules: Geno has no host objects to
 *      reach; shown instead as "no builtin reaches host state ungranted"
 *      (every gated builtin is E412, the environment stays unread, modules
 *      are never read from disk);
 *   2. ForwardRef reaching eval(): no builtin turns a string into code
 *      (format leaves `{0.__class__}` as text);
 *   3. fail-open capabilities when unset but callbacks given: unset means
 *      none, and the callback never runs;
 *   4. an empty capability set silently becoming the defaults: an empty
 *      set grants nothing (print, clock, random included);
 *   5. unescaped untrusted text in generated output: a program's strings
 *      cannot forge fields of the RunResult JSON.
 *
 * A test whose program uses a builtin not implemented yet skips. */
#include "unit.h"

#include <unistd.h>

#include "base/buf.h"
#include "lib/builtins.h"

/* The memory test needs allocation failure to return NULL under
 * AddressSanitizer too (its default aborts, and in a sandbox child the
 * abort path cannot even write its report). Unused otherwise. */
const char *__asan_default_options(void) __attribute__((visibility("default")));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* Skip a test whose program needs a builtin the library does not
 * implement yet (its table row has no function). */
#define NEED_BUILTIN(name)                                                     \
  do {                                                                         \
    if (!builtin_available(name)) skip();                                      \
  } while (0)

static bool builtin_available(const char *name) {
  const BuiltinDef *b = lib_builtin_find(name);
  return b && (b->fn || (b->flags & BF_CALLBACK));
}

typedef enum Mode { IN_PROCESS, ISOLATED } Mode;
static const char *const mode_names[] = {"in-process", "isolated"};

static geno_result *run_src(Mode mode, const char *src, const geno_config *cfg) {
  geno_result *r = mode == IN_PROCESS ? geno_run(src, strlen(src), "gate.geno", cfg)
                                      : geno_run_isolated(src, strlen(src), "gate.geno", cfg);
  assert_non_null(r);
  return r;
}

/* Every gated builtin: a call that typechecks, its capability, and
 * whether the host must supply it (BF_CALLBACK). */
static const struct {
  const char *name, *call;
  unsigned cap;
  bool callback;
} gated[] = {
    {"print", "print(\"x\")", GENO_CAP_PRINT, false},
    {"clock_now", "clock_now()", GENO_CAP_CLOCK, false},
    {"clock_format", "clock_format(timestamp: 0.0, fmt: \"%Y\")", GENO_CAP_CLOCK, false},
    {"clock_parse", "clock_parse(text: \"2024\", fmt: \"%Y\")", GENO_CAP_CLOCK, false},
    {"clock_elapsed", "clock_elapsed(start: 0.0, end_time: 1.0)", GENO_CAP_CLOCK, false},
    {"datetime_now", "datetime_now()", GENO_CAP_CLOCK, false},
    {"datetime_format", "datetime_format(timestamp: 0, fmt: \"%Y\")", GENO_CAP_CLOCK, false},
    {"datetime_parse", "datetime_parse(text: \"2024\", fmt: \"%Y\")", GENO_CAP_CLOCK, false},
    {"datetime_elapsed", "datetime_elapsed(start: 0, end_time: 1)", GENO_CAP_CLOCK, false},
    {"sleep_ms", "sleep_ms(ms: 1)", GENO_CAP_CLOCK, true},
    {"random_int", "random_int(min: 1, max: 2)", GENO_CAP_RANDOM, false},
    {"random_float", "random_float()", GENO_CAP_RANDOM, false},
    {"math_random_int", "math_random_int(lo: 1, hi: 2)", GENO_CAP_RANDOM, false},
    {"math_random_float", "math_random_float()", GENO_CAP_RANDOM, false},
    {"fs_read_text", "fs_read_text(path: \"/etc/passwd\")", GENO_CAP_FS, true},
    {"fs_write_text", "fs_write_text(path: \"/tmp/geno-gate\", content: \"y\")", GENO_CAP_FS, true},
    {"fs_list_dir", "fs_list_dir(path: \"/\")", GENO_CAP_FS, true},
    {"fs_exists", "fs_exists(path: \"/\")", GENO_CAP_FS, true},
    {"fs_metadata", "fs_metadata(path: \"/\")", GENO_CAP_FS, true},
    {"fs_symlink_metadata", "fs_symlink_metadata(path: \"/\")", GENO_CAP_FS, true},
    {"fs_canonicalize", "fs_canonicalize(path: \"/\")", GENO_CAP_FS, true},
    {"http_fetch", "http_fetch(url: \"http://example.com\")", GENO_CAP_HTTP, true},
    {"http_post", "http_post(url: \"http://example.com\", body: \"{}\")", GENO_CAP_HTTP, true},
    {"http_request", "http_request(method: \"GET\", url: \"http://example.com\", headers: [], body: \"\")",
     GENO_CAP_HTTP, true},
    {"http_listen", "http_listen(port: 8080)", GENO_CAP_SERVE, true},
    {"http_route",
     "http_route(method: \"GET\", path: \"/\", handler: fn(req: HttpRequest) -> http_respond(status: 200, "
     "headers: [], body: \"\"))",
     GENO_CAP_SERVE, true},
    {"http_respond", "http_respond(status: 200, headers: [], body: \"\")", GENO_CAP_SERVE, false},
    {"regex_match", "regex_match(pattern: \"a\", text: \"a\")", GENO_CAP_REGEX, false},
    {"regex_find_all", "regex_find_all(pattern: \"a\", text: \"a\")", GENO_CAP_REGEX, false},
    {"regex_replace", "regex_replace(pattern: \"a\", replacement: \"b\", text: \"a\")", GENO_CAP_REGEX, false},
    {"env_get", "env_get(name: \"HOME\")", GENO_CAP_ENV, false},
    {"env_get_or", "env_get_or(name: \"HOME\", default: \"x\")", GENO_CAP_ENV, false},
    {"cli_args", "cli_args()", GENO_CAP_ENV, false},
    {"exec", "exec(command: \"/bin/true\")", GENO_CAP_PROCESS, true},
    {"exec_with_input", "exec_with_input(command: \"/bin/cat\", stdin: \"x\")", GENO_CAP_PROCESS, true},
    {"spawn", "spawn(program: \"/bin/true\", args: [])", GENO_CAP_PROCESS, true},
    {"spawn_with_input", "spawn_with_input(program: \"/bin/cat\", args: [], stdin: \"x\")", GENO_CAP_PROCESS, true},
    {"stdin_read_all", "stdin_read_all()", GENO_CAP_STDIN, true},
};

static char *program_calling(const char *call) {
  Buf b = BUF_INIT;
  buf_printf(&b, "func main() -> Int\n    let r = %s\n    return 0\nend func\n", call);
  return buf_take(&b);
}

static void expect_code(const geno_result *r, int code, const char *name, Mode mode) {
  if (geno_result_ok(r) || !unit_has_code(r, code))
    fail_msg("%s (%s): wanted E%d, got [%s] %s", name, mode_names[mode], code, unit_codes(r), unit_message(r));
  if (!strstr(unit_message(r), name))
    fail_msg("%s (%s): message does not name the builtin: %s", name, mode_names[mode], unit_message(r));
}

/* E412 for every gated builtin, whether capabilities are unset or an
 * empty set (fixes 1 and 4: nothing gated is reachable ungranted). */
static void every_gated_builtin_is_denied_ungranted(void **state) {
  (void)state;
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++)
    for (int empty = 0; empty <= 1; empty++)
      for (size_t i = 0; i < sizeof gated / sizeof *gated; i++) {
        geno_config c;
        geno_config_init(&c);
        c.capabilities_set = empty;
        char *src = program_calling(gated[i].call);
        geno_result *r = run_src(mode, src, &c);
        expect_code(r, 412, gated[i].name, mode);
        assert_int_equal(geno_result_outcome(r), GENO_OUTCOME_CAPABILITY_DENIED);
        geno_result_free(r);
        free(src);
      }
}

/* Granted but no callback: E413, never a silent success. */
static void granted_without_callback_is_e413(void **state) {
  (void)state;
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++)
    for (size_t i = 0; i < sizeof gated / sizeof *gated; i++) {
      if (!gated[i].callback) continue;
      geno_config c;
      geno_config_init(&c);
      c.capabilities_set = true;
      c.capabilities = gated[i].cap;
      char *src = program_calling(gated[i].call);
      geno_result *r = run_src(mode, src, &c);
      expect_code(r, 413, gated[i].name, mode);
      assert_int_equal(geno_result_outcome(r), GENO_OUTCOME_HOST_CALLBACK_MISSING);
      geno_result_free(r);
      free(src);
    }
}

typedef struct Host {
  int calls;
  pid_t pid;
} Host;

static geno_value *host_read(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                             char **error) {
  Host *h = ud;
  h->calls++;
  h->pid = getpid();
  const char *path = nargs == 1 ? geno_value_string(args[0], NULL) : NULL;
  if (!path || strcmp(path, "/secret") == 0) {
    *error = strdup("host policy: /secret is not readable");
    return NULL;
  }
  char text[256];
  snprintf(text, sizeof text, "content:%s (%s)", path, name);
  return geno_value_new_string(text, strlen(text));
}

static const char read_prog[] = "func main() -> String\n    return fs_read_text(path: \"/test.txt\")\nend func\n";

/* Fix 3: a callback is installed only when its capability is granted. */
static void callbacks_only_for_granted_capabilities(void **state) {
  (void)state;
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    Host host = {0, 0};
    geno_callback cb = {"fs_read_text", host_read, &host};
    geno_config c;
    geno_config_init(&c);
    c.callbacks = &cb;
    c.ncallbacks = 1;
    geno_result *r = run_src(mode, read_prog, &c); /* capabilities unset */
    expect_code(r, 412, "fs_read_text", mode);
    geno_result_free(r);
    c.capabilities_set = true;
    c.capabilities = GENO_CAP_PRINT; /* granted, but not fs */
    r = run_src(mode, read_prog, &c);
    expect_code(r, 412, "fs_read_text", mode);
    geno_result_free(r);
    assert_int_equal(host.calls, 0);
    c.capabilities = GENO_CAP_FS;
    r = run_src(mode, read_prog, &c);
    if (!geno_result_ok(r)) fail_msg("%s: %s %s", mode_names[mode], unit_codes(r), unit_message(r));
    assert_string_equal(geno_value_string(geno_result_value(r), NULL), "content:/test.txt (fs_read_text)");
    assert_int_equal(host.calls, 1);
    assert_int_equal(host.pid, getpid()); /* the callback ran in this process, in both modes */
    geno_result_free(r);
  }
}

/* Fix 4: an empty set is empty, not the CLI's defaults. */
static void empty_set_never_means_defaults(void **state) {
  (void)state;
  const char *calls[] = {"print(\"x\")", "clock_now()", "random_int(min: 1, max: 2)"};
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++)
    for (size_t i = 0; i < 3; i++) {
      geno_config c;
      geno_config_init(&c);
      c.capabilities_set = true;
      c.capabilities = 0;
      char *src = program_calling(calls[i]);
      geno_result *r = run_src(mode, src, &c);
      assert_true(unit_has_code(r, 412));
      geno_result_free(r);
      free(src);
    }
}

/* A callback's error is a catchable runtime error (E499) with its text. */
static void callback_errors_are_runtime_errors(void **state) {
  (void)state;
  const char *uncaught = "func main() -> String\n    return fs_read_text(path: \"/secret\")\nend func\n";
  const char *caught = "func main() -> String\n    try\n        return fs_read_text(path: \"/secret\")\n"
                       "    catch e: String\n        return \"caught: \" + e\n    end try\nend func\n";
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    Host host = {0, 0};
    geno_callback cb = {"fs_read_text", host_read, &host};
    geno_config c;
    geno_config_init(&c);
    c.capabilities_set = true;
    c.capabilities = GENO_CAP_FS;
    c.callbacks = &cb;
    c.ncallbacks = 1;
    geno_result *r = run_src(mode, uncaught, &c);
    assert_true(unit_has_code(r, 499));
    assert_string_equal(unit_message(r), "host policy: /secret is not readable");
    geno_result_free(r);
    r = run_src(mode, caught, &c);
    assert_true(geno_result_ok(r));
    assert_string_equal(geno_value_string(geno_result_value(r), NULL), "caught: host policy: /secret is not readable");
    geno_result_free(r);
    assert_int_equal(host.calls, 2);
  }
}

/* Fix 1, restated: no host state is reachable without a grant. */
static void no_builtin_reaches_host_state_ungranted(void **state) {
  (void)state;
  setenv("GENO_GATE_SECRET", "hunter2", 1);
  char dir[] = "/tmp/geno-gate-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/Secret.geno", dir);
  FILE *f = fopen(path, "w");
  fputs("export func leaked() -> String\n    return \"read from disk\"\nend func\n", f);
  fclose(f);
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(dir), 0);
  const char *env_prog = "func main() -> String\n    return env_get_or(name: \"GENO_GATE_SECRET\", default: \"\")\n"
                         "end func\n";
  const char *module_prog = "import Secret\nfunc main() -> String\n    return leaked()\nend func\n";
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    geno_config c;
    geno_config_init(&c);
    c.capabilities_set = true;
    c.capabilities = (1u << GENO_CAP_COUNT) - 1 - GENO_CAP_ENV; /* everything but env */
    geno_result *r = run_src(mode, env_prog, &c);
    expect_code(r, 412, "env_get_or", mode);
    char *json = geno_result_to_json(r);
    assert_null(strstr(json, "hunter2"));
    geno_free(json);
    geno_result_free(r);
    r = run_src(mode, module_prog, &c); /* the library never reads files */
    assert_false(geno_result_ok(r));
    json = geno_result_to_json(r);
    assert_null(strstr(json, "read from disk"));
    geno_free(json);
    geno_result_free(r);
  }
  assert_int_equal(chdir(cwd), 0);
  unlink(path);
  rmdir(dir);
  unsetenv("GENO_GATE_SECRET");
}

/* Fix 2, restated: strings are data; nothing evaluates them. */
static void strings_are_never_code(void **state) {
  (void)state;
  NEED_BUILTIN("format");
  const char *prog = "func main() -> String\n    return format(\"{} {0.__class__} {}\", [\"a\", \"b\"])\nend func\n";
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    geno_config c;
    geno_config_init(&c);
    geno_result *r = run_src(mode, prog, &c);
    assert_true(geno_result_ok(r));
    assert_string_equal(geno_value_string(geno_result_value(r), NULL), "a {0.__class__} b");
    geno_result_free(r);
  }
}

/* Fix 5, restated: a program's text cannot forge RunResult fields. */
static void result_json_cannot_be_forged(void **state) {
  (void)state;
  const char *prog = "func main() -> String\n    print(\"\\\", \\\"ok\\\": true, \\\"x\\\": \\\"\")\n"
                     "    return [\"a\"][5]\nend func\n";
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    geno_config c;
    geno_config_init(&c);
    c.capabilities_set = true;
    c.capabilities = GENO_CAP_PRINT;
    geno_result *r = run_src(mode, prog, &c);
    assert_false(geno_result_ok(r));
    char *json = geno_result_to_json(r);
    assert_non_null(strstr(json, "\n  \"ok\": false,\n"));
    assert_null(strstr(json, "\n  \"ok\": true"));
    assert_non_null(strstr(json, "\"output\": \"\\\", \\\"ok\\\": true, \\\"x\\\": \\\"\\n\""));
    geno_free(json);
    geno_result_free(r);
  }
}

/* The same program gives the same result in both modes. */
static void isolated_matches_in_process(void **state) {
  (void)state;
  const char *prog = "func main() -> List[Int]\n    print(\"hi\")\n    return [1, 2, 3]\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  geno_result *a = run_src(IN_PROCESS, prog, &c);
  geno_result *b = run_src(ISOLATED, prog, &c);
  assert_true(geno_result_ok(a));
  assert_true(geno_result_ok(b));
  assert_string_equal(geno_result_value_json(a), geno_result_value_json(b));
  assert_string_equal(geno_result_value_text(a), geno_result_value_text(b));
  assert_string_equal(geno_result_output(a, NULL), geno_result_output(b, NULL));
  assert_int_equal(geno_result_steps(a), geno_result_steps(b));
  geno_result_free(a);
  geno_result_free(b);
}

/* Limits behave the same behind the process boundary: a memory bomb ends
 * with E504 (the child's allocation fails inside its address-space limit,
 * not the host's OOM killer), an endless loop with E501, and the output
 * printed before either is kept. */
static void limits_in_both_modes(void **state) {
  (void)state;
  const char *bomb = "func main() -> Int\n    print(\"start\")\n    var s = \"xy\"\n"
                     "    for i: Int in range(0, 20) do\n        s = s + s\n    end for\n"
                     "    var keep: List[String] = []\n    var n = 0\n    while true do\n"
                     "        keep = append(keep, s + to_string(n))\n        n = n + 1\n    end while\n"
                     "    return n\nend func\n";
  const char *loop = "func main() -> Int\n    print(\"tick\")\n    var n = 0\n    while true do\n"
                     "        n = n + 1\n    end while\n    return n\nend func\n";
  for (Mode mode = IN_PROCESS; mode <= ISOLATED; mode++) {
    geno_config c;
    geno_config_init(&c);
    c.capabilities_set = true;
    c.capabilities = GENO_CAP_PRINT;
    c.max_steps = 0; /* unlimited: only memory or time can stop these */
    c.memory_bytes = 64u << 20;
    c.timeout_s = 20;
    geno_result *r = run_src(mode, bomb, &c);
    if (!unit_has_code(r, 504)) fail_msg("%s: bomb gave [%s] %s", mode_names[mode], unit_codes(r), unit_message(r));
    assert_string_equal(geno_result_output(r, NULL), "start\n");
    geno_result_free(r);
    c.timeout_s = 0.3;
    r = run_src(mode, loop, &c);
    if (!unit_has_code(r, 501)) fail_msg("%s: loop gave [%s] %s", mode_names[mode], unit_codes(r), unit_message(r));
    assert_string_equal(geno_result_output(r, NULL), "tick\n");
    geno_result_free(r);
  }
  assert_true(unit_no_children());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_gated_builtin_is_denied_ungranted),
      cmocka_unit_test(granted_without_callback_is_e413),
      cmocka_unit_test(callbacks_only_for_granted_capabilities),
      cmocka_unit_test(empty_set_never_means_defaults),
      cmocka_unit_test(callback_errors_are_runtime_errors),
      cmocka_unit_test(no_builtin_reaches_host_state_ungranted),
      cmocka_unit_test(strings_are_never_code),
      cmocka_unit_test(result_json_cannot_be_forged),
      cmocka_unit_test(isolated_matches_in_process),
      cmocka_unit_test(limits_in_both_modes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
