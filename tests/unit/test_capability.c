/* Unit tests: capability names, "did you mean" suggestions, and which
 * builtin names a host callback may implement (config.c, lib/gated.c,
 * and the sandbox broker's capability table, which must agree). */
#include "unit.h"

#include "sandbox/sandbox.h"

static const struct {
  const char *name;
  unsigned bit;
} caps[] = {
    {"print", GENO_CAP_PRINT}, {"clock", GENO_CAP_CLOCK}, {"random", GENO_CAP_RANDOM},
    {"fs", GENO_CAP_FS},       {"http", GENO_CAP_HTTP},   {"regex", GENO_CAP_REGEX},
    {"env", GENO_CAP_ENV},     {"process", GENO_CAP_PROCESS}, {"stdin", GENO_CAP_STDIN},
    {"serve", GENO_CAP_SERVE},
};

static void the_ten_names_round_trip(void **state) {
  (void)state;
  assert_int_equal(sizeof caps / sizeof *caps, GENO_CAP_COUNT);
  unsigned all = 0;
  for (size_t i = 0; i < GENO_CAP_COUNT; i++) {
    assert_int_equal(geno_capability_from_name(caps[i].name), caps[i].bit);
    assert_string_equal(geno_capability_name(caps[i].bit), caps[i].name);
    all |= caps[i].bit;
  }
  assert_int_equal(all, (1u << GENO_CAP_COUNT) - 1);
}

static void unknown_names_and_bits_give_nothing(void **state) {
  (void)state;
  const char *bad[] = {"", "Print", "PRINT", "prnt", "print ", " print", "network", "files", "all", "*"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(geno_capability_from_name(bad[i]), 0);
  assert_int_equal(geno_capability_from_name(NULL), 0);
  assert_null(geno_capability_name(0));
  assert_null(geno_capability_name(GENO_CAP_PRINT | GENO_CAP_FS)); /* not a single bit */
  assert_null(geno_capability_name(1u << GENO_CAP_COUNT));
}

static void suggestions_find_near_misses_only(void **state) {
  (void)state;
  assert_string_equal(geno_capability_suggest("prnt"), "print");
  assert_string_equal(geno_capability_suggest("pritn"), "print");
  assert_string_equal(geno_capability_suggest("htp"), "http");
  assert_string_equal(geno_capability_suggest("regx"), "regex");
  assert_string_equal(geno_capability_suggest("proces"), "process");
  assert_string_equal(geno_capability_suggest("serv"), "serve");
  assert_string_equal(geno_capability_suggest("print"), "print");
  assert_null(geno_capability_suggest("bogus"));
  assert_null(geno_capability_suggest("network"));
  assert_null(geno_capability_suggest(NULL));
  char longname[200];
  memset(longname, 'p', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  assert_null(geno_capability_suggest(longname));
}

/* Every gated builtin, with the capability the reference's manifest gives
 * it. */
static const struct {
  const char *name;
  unsigned cap;
} gated[] = {
    {"print", GENO_CAP_PRINT},          {"clock_now", GENO_CAP_CLOCK},
    {"clock_format", GENO_CAP_CLOCK},   {"clock_parse", GENO_CAP_CLOCK},
    {"clock_elapsed", GENO_CAP_CLOCK},  {"datetime_now", GENO_CAP_CLOCK},
    {"datetime_format", GENO_CAP_CLOCK}, {"datetime_parse", GENO_CAP_CLOCK},
    {"datetime_elapsed", GENO_CAP_CLOCK}, {"sleep_ms", GENO_CAP_CLOCK},
    {"random_int", GENO_CAP_RANDOM},    {"random_float", GENO_CAP_RANDOM},
    {"math_random_int", GENO_CAP_RANDOM}, {"math_random_float", GENO_CAP_RANDOM},
    {"fs_read_text", GENO_CAP_FS},      {"fs_write_text", GENO_CAP_FS},
    {"fs_list_dir", GENO_CAP_FS},       {"fs_exists", GENO_CAP_FS},
    {"fs_metadata", GENO_CAP_FS},       {"fs_symlink_metadata", GENO_CAP_FS},
    {"fs_canonicalize", GENO_CAP_FS},   {"http_fetch", GENO_CAP_HTTP},
    {"http_post", GENO_CAP_HTTP},       {"http_request", GENO_CAP_HTTP},
    {"http_listen", GENO_CAP_SERVE},    {"http_route", GENO_CAP_SERVE},
    {"http_respond", GENO_CAP_SERVE},   {"regex_match", GENO_CAP_REGEX},
    {"regex_find_all", GENO_CAP_REGEX}, {"regex_replace", GENO_CAP_REGEX},
    {"env_get", GENO_CAP_ENV},          {"env_get_or", GENO_CAP_ENV},
    {"cli_args", GENO_CAP_ENV},         {"exec", GENO_CAP_PROCESS},
    {"exec_with_input", GENO_CAP_PROCESS}, {"spawn", GENO_CAP_PROCESS},
    {"spawn_with_input", GENO_CAP_PROCESS}, {"stdin_read_all", GENO_CAP_STDIN},
};

static void callback_names_are_the_gated_builtins(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof gated / sizeof *gated; i++) {
    if (!geno_callback_name_valid(gated[i].name)) fail_msg("%s should take a callback", gated[i].name);
    /* The broker re-checks capabilities itself; its table must agree. */
    if (sbx_callback_capability(gated[i].name) != gated[i].cap)
      fail_msg("broker gives %s capability %u, expected %u", gated[i].name,
               sbx_callback_capability(gated[i].name), gated[i].cap);
  }
  const char *pure[] = {"length", "map", "to_string", "json_parse", "format", "main", "", "fs_read"};
  for (size_t i = 0; i < sizeof pure / sizeof *pure; i++) {
    assert_false(geno_callback_name_valid(pure[i]));
    assert_int_equal(sbx_callback_capability(pure[i]), 0);
  }
  assert_false(geno_callback_name_valid(NULL));
  assert_int_equal(sbx_callback_capability(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_ten_names_round_trip),
      cmocka_unit_test(unknown_names_and_bits_give_nothing),
      cmocka_unit_test(suggestions_find_near_misses_only),
      cmocka_unit_test(callback_names_are_the_gated_builtins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
