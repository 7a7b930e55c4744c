/* Unit test of the builtin table (the rows at the bottom of the src/lib
 * family files, registry.c, gated.c): every builtin of Geno 0.4 is present exactly once, every signature parses
 * with the checker's signature parser, and the capability, effect and flag
 * columns agree with each other. Guards src/lib/registry.c, the family
 * tables and src/check/sig.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <geno.h>

#include "check/sig.h"
#include "lib/builtins.h"

/* The 231 builtin names of Geno 0.4 (the reference's manifest). */
static const char *const expected_names[] = {
    "abs", "add", "all", "append", "array_copy", "array_fill", "array_from_list", "array_get",
    "array_length", "array_new", "array_set", "array_to_list", "bit_or", "ceil", "char_code",
    "clamp", "clear_screen", "clear_text_input", "cli_args", "clock_elapsed", "clock_format",
    "clock_now", "clock_parse", "concat", "contains", "contains_substring", "csv_parse",
    "csv_parse_with_headers", "datetime_elapsed", "datetime_format", "datetime_now",
    "datetime_parse", "divide", "draw_circle", "draw_line", "draw_rect", "draw_rect_outline",
    "draw_text", "ends_with", "enumerate", "env_get", "env_get_or", "exec", "exec_with_input",
    "filter", "flat_map", "float_to_int", "floor", "fold", "format", "from_char_code",
    "fs_canonicalize", "fs_exists", "fs_list_dir", "fs_metadata", "fs_read_text",
    "fs_symlink_metadata", "fs_write_text", "get_text_input", "head", "http_fetch", "http_listen",
    "http_post", "http_request", "http_respond", "http_route", "int_to_float", "is_key_down",
    "is_key_pressed", "is_mouse_clicked", "is_mouse_down", "is_none", "is_numeric_string",
    "is_permutation", "is_positive", "is_some", "is_sorted", "join", "json_parse", "json_stringify",
    "json_stringify_pretty", "json_to_string", "length", "list_all", "list_any", "list_chunk",
    "list_drop", "list_enumerate", "list_filter", "list_find", "list_find_index", "list_flatten",
    "list_fold_right", "list_group_by", "list_intersperse", "list_length", "list_map", "list_take",
    "list_zip", "map", "map_entries", "map_filter_map", "map_from_entries", "map_from_list",
    "map_get", "map_insert", "map_map_values", "map_merge", "math_abs", "math_ceil", "math_clamp",
    "math_cos", "math_e", "math_floor", "math_log", "math_max", "math_min", "math_pi",
    "math_random_float", "math_random_int", "math_round", "math_sin", "math_sqrt", "max", "mouse_x",
    "mouse_y", "multiply", "mutable_map_contains", "mutable_map_delete", "mutable_map_get",
    "mutable_map_keys", "mutable_map_new", "mutable_map_set", "mutable_map_size", "option_and_then",
    "option_flatten", "option_is_none", "option_is_some", "option_map", "option_to_result",
    "option_unwrap_or", "parse_float", "parse_int", "path_extension", "path_filename",
    "path_is_absolute", "path_join", "path_parent", "print", "random_float", "random_int", "range",
    "regex_find_all", "regex_match", "regex_replace", "repeat_string", "replace", "result_and_then",
    "result_is_err", "result_is_ok", "result_map", "result_map_err", "result_to_option",
    "result_unwrap_or", "reverse", "round", "screen_height", "screen_width", "set_add", "set_at",
    "set_contains", "set_from_list", "set_intersection", "set_new", "set_remove", "set_size",
    "set_to_list", "set_union", "sleep_ms", "slice", "sort", "sort_by", "sort_strings", "spawn",
    "spawn_with_input", "split", "split_once", "sqrt", "square", "starts_with", "stdin_read_all",
    "string_char_at", "string_contains", "string_ends_with", "string_index_of", "string_join",
    "string_last_index_of", "string_pad_left", "string_pad_right", "string_repeat",
    "string_replace", "string_split", "string_split_once", "string_starts_with", "string_substring",
    "string_to_lower", "string_to_upper", "string_trim", "string_trim_end", "string_trim_start",
    "substring", "subtract", "tail", "take_while", "to_chars", "to_lower", "to_string", "to_upper",
    "toml_parse", "trim", "unwrap", "unwrap_or", "vec_from_list", "vec_get", "vec_length",
    "vec_new", "vec_pop", "vec_push", "vec_set", "vec_to_list", "zip",
};

static void test_every_name_once(void **state) {
  (void)state;
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  assert_int_equal(n, ARRAY_LEN(expected_names));
  assert_int_equal(n, 231);
  for (size_t i = 0; i < ARRAY_LEN(expected_names); i++) {
    const BuiltinDef *b = lib_builtin_find(expected_names[i]);
    if (!b) fail_msg("builtin '%s' is missing from the table", expected_names[i]);
    assert_string_equal(b->name, expected_names[i]);
  }
  /* Sorted and unique, so lookups by binary search are exact. */
  for (size_t i = 1; i < n; i++) assert_true(strcmp(rows[i - 1].name, rows[i].name) < 0);
  assert_null(lib_builtin_find("no_such_builtin"));
  assert_null(lib_builtin_find(""));
  assert_null(lib_builtin_find(NULL));
}

static void test_signatures_parse(void **state) {
  (void)state;
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  Program prog;
  ast_program_init(&prog, 0);
  for (size_t i = 0; i < n; i++) {
    ChkSig sig;
    if (!chk_sig_parse(&prog, rows[i].sig, &sig))
      fail_msg("signature of '%s' does not parse: %s", rows[i].name, rows[i].sig);
    assert_non_null(sig.ret);
    for (int k = 0; k < sig.nparams; k++) {
      assert_non_null(sig.types[k]);
      /* Parameter names are unique within a signature (named arguments). */
      for (int j = 0; j < k; j++) assert_ptr_not_equal(sig.names[j], sig.names[k]);
    }
  }
  /* Spot checks of the parsed shape. */
  ChkSig sig;
  assert_true(chk_sig_parse(&prog, lib_builtin_find("fold")->sig, &sig));
  assert_int_equal(sig.nparams, 3);
  assert_string_equal(sig.names[2], "reducer");
  assert_int_equal(sig.types[2]->kind, TE_FUNC);
  assert_true(chk_sig_parse(&prog, lib_builtin_find("range")->sig, &sig));
  assert_int_equal(sig.nparams, 3);
  assert_false(sig.optional[1]);
  assert_true(sig.optional[2]);
  assert_true(chk_sig_parse(&prog, lib_builtin_find("http_route")->sig, &sig));
  assert_int_equal(sig.types[2]->neffects, 1);
  assert_false(chk_sig_parse(&prog, "(x Int) -> Int", &sig));
  assert_false(chk_sig_parse(&prog, "(x: Int)", &sig));
  assert_false(chk_sig_parse(&prog, "(x: Int) -> [", &sig));
  ast_program_free(&prog);
}

static void test_columns_agree(void **state) {
  (void)state;
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  Program prog;
  ast_program_init(&prog, 0);
  int gated = 0, callbacks = 0, stubs = 0;
  for (size_t i = 0; i < n; i++) {
    const BuiltinDef *b = &rows[i];
    if (b->cap) {
      gated++;
      assert_non_null(b->effect);
      assert_true(geno_callback_name_valid(b->name));
    } else {
      assert_null(b->effect);
      assert_false(geno_callback_name_valid(b->name));
    }
    if (b->flags & BF_CALLBACK) {
      callbacks++;
      assert_true(b->cap != 0);
    }
    if (b->flags & BF_APP_STUB) {
      stubs++;
      assert_int_equal(b->cap, 0);
    }
    /* Higher-order exactly when a parameter has a function type. */
    ChkSig sig;
    assert_true(chk_sig_parse(&prog, b->sig, &sig));
    bool fn_param = false;
    for (int k = 0; k < sig.nparams; k++) fn_param |= sig.types[k]->kind == TE_FUNC;
    assert_int_equal(fn_param, (b->flags & BF_HIGHER_ORDER) != 0);
  }
  assert_int_equal(gated, 38);
  assert_int_equal(callbacks, 18); /* sleep_ms, 7 fs, 5 http, 4 process, stdin */
  assert_int_equal(stubs, 16);
  assert_int_equal(lib_builtin_find("print")->cap, GENO_CAP_PRINT);
  assert_string_equal(lib_builtin_find("print")->effect, "io");
  assert_int_equal(lib_builtin_find("http_respond")->cap, GENO_CAP_SERVE);
  assert_string_equal(lib_builtin_find("http_respond")->effect, "http");
  assert_false(lib_builtin_find("http_respond")->flags & BF_CALLBACK);
  assert_true(lib_builtin_find("vec_push")->flags & BF_MUTATES);
  assert_true(lib_builtin_find("length")->flags & BF_SPECIAL_TYPING);
  assert_false(geno_callback_name_valid("no_such_builtin"));
  assert_false(geno_callback_name_valid(NULL));
  ast_program_free(&prog);
}

/* The Array/Vec twins share one implementation, which reads its own row
 * (vm_builtin_self): the name its messages give, BF_VEC for the kind it
 * builds. Each pair's rows hold the same function; run, each row still
 * names itself and builds its own kind. */
static const char *twin_run(const char *src) {
  static char text[256];
  geno_config cfg;
  geno_config_init(&cfg);
  geno_result *r = geno_run(src, strlen(src), "twins.geno", &cfg);
  assert_non_null(r);
  const char *t = geno_result_ok(r) ? geno_result_value_text(r)
                                    : geno_result_diagnostic(r, 0)->message;
  snprintf(text, sizeof text, "%s", t ? t : "");
  geno_result_free(r);
  return text;
}

static void test_twins_share_one_implementation(void **state) {
  (void)state;
  static const char *const pairs[][2] = {{"array_get", "vec_get"}, {"array_set", "vec_set"},
                                         {"array_length", "vec_length"}, {"array_to_list", "vec_to_list"},
                                         {"array_from_list", "vec_from_list"}, {"array_copy", "vec_from_list"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const BuiltinDef *a = lib_builtin_find(pairs[i][0]), *v = lib_builtin_find(pairs[i][1]);
    assert_non_null(a);
    assert_non_null(v);
    assert_ptr_equal((void *)a->fn, (void *)v->fn);
    assert_false(a->flags & BF_VEC);
    assert_true(v->flags & BF_VEC);
  }
  assert_string_equal(twin_run("func main() -> Int\n    let v: Vec[Int] = vec_new()\n    return vec_get(v, 2)\nend func\n"),
                      "vec_get index 2 out of bounds (length 0)");
  assert_string_equal(twin_run("func main() -> Int\n    return array_get(array_new(1, 0), 2)\nend func\n"),
                      "array_get index 2 out of bounds (length 1)");
  assert_string_equal(
      twin_run("func main() -> Unit with mutation\n    let v: Vec[Int] = vec_new()\n    vec_set(vec: v, index: 0, value: 1)\nend func\n"),
      "vec_set index 0 out of bounds (length 0)");
  assert_string_equal(twin_run("func main() -> Vec[Int]\n    return vec_from_list([1, 2])\nend func\n"),
                      "Vec([1, 2])");
  assert_string_equal(twin_run("func main() -> Array[Int]\n    return array_from_list([1, 2])\nend func\n"),
                      "Array([1, 2])");
  assert_string_equal(
      twin_run("func main() -> Array[Int]\n    return array_copy(array_from_list([3]))\nend func\n"),
      "Array([3])");
  /* a twin called back from a higher-order builtin still knows its row */
  assert_string_equal(
      twin_run("func main() -> List[Int]\n    let v = vec_from_list([5, 6])\n"
               "    return list_map([0, 1], fn(i: Int) -> vec_get(v, i))\nend func\n"),
      "[5, 6]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_twins_share_one_implementation),
      cmocka_unit_test(test_every_name_once),
      cmocka_unit_test(test_signatures_parse),
      cmocka_unit_test(test_columns_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
