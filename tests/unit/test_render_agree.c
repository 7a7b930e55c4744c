/* Unit tests: VM values and host values (geno_value) print the same.
 *
 * A host sees a run's value twice: as text the VM rendered
 * (to_string in the program, geno_result_value_json) and as a geno_value
 * it renders itself (geno_value_to_string, geno_value_to_json). Both go
 * through the one renderer of src/vm/render.c; this corpus holds them to
 * the same text for every kind of value: scalars, strings needing
 * escapes, nested containers, records and ADTs, Maps keyed by values
 * whose str() differs from their canonical text, Sets (sorted), the
 * mutable containers, Unit in both shapes, functions. */
#include "unit.h"

/* Values of many kinds, with their types. */
static const struct { const char *type, *expr; } corpus[] = {
    {"Int", "0"},
    {"Int", "-9223372036854775807 - 1"},
    {"Int", "123456789012345678901234567890"},
    {"Float", "0.1 + 0.2"},
    {"Float", "10000000000000000.0 * 10.0"},
    {"Float", "0.0 - 0.0"},
    {"Bool", "true"},
    {"String", "\"plain\""},
    {"String", "\"quote \\\" backslash \\\\ tab \\t newline \\n\""},
    {"String", "\"caf\u00e9 \u2603 \U0001F600\""},
    {"List[Int]", "[1, 2, 3]"},
    {"List[List[Int]]", "[[1], [], [2, 3]]"},
    {"List[String]", "[\"a\", \"b\"]"},
    {"(Int, String, Float)", "(1, \"x\", 2.5)"},
    {"Unit", "()"},
    {"List[Unit]", "[(), ()]"},
    {"Option[Int]", "Some(3)"},
    {"Option[Int]", "None"},
    {"Result[String, Int]", "Ok(\"fine\")"},
    {"Result[Int, List[Int]]", "Err([1, 2])"},
    {"P", "P(x: 1, y: \"two\")"},
    {"Shape", "Circle(2.0)"},
    {"Shape", "Dot"},
    {"List[Shape]", "[Dot, Circle(1.5)]"},
    {"Map[String, Int]", "map_from_list([(\"b\", 1), (\"a\", 2)])"},
    {"Map[Int, String]", "map_from_list([(2, \"two\"), (1, \"one\")])"},
    {"Map[(Int, String), Bool]", "map_from_list([((1, \"k\"), true), ((0, \"j\"), false)])"},
    {"Map[Bool, Int]", "map_from_list([(true, 1), (false, 0)])"},
    {"Map[Float, String]", "map_from_list([(1.5, \"x\")])"},
    {"Map[Option[String], Int]", "map_from_list([(Some(\"s\"), 1)])"},
    {"Map[String, Map[String, List[Int]]]", "map_from_list([(\"k\", map_from_list([(\"inner\", [1])]))])"},
    {"Set[Int]", "set_from_list([3, 1, 2])"},
    {"Set[String]", "set_from_list([\"b\", \"a\", \"c\"])"},
    {"Set[(Int, String)]", "set_from_list([(2, \"b\"), (1, \"z\"), (1, \"a\")])"},
    {"Set[Int]", "set_from_list([10, 9, 100])"},
    {"List[Set[Int]]", "[set_from_list([2, 1])]"},
    {"Array[Int]", "array_from_list([1, 2])"},
    {"Vec[String]", "vec_from_list([\"v\"])"},
    {"MutableMap[String, Int]", "filled()"},
    {"List[Array[Vec[Int]]]", "[array_from_list([vec_from_list([1])])]"},
    {"(Int, Unit)", "(1, ())"},
    {"Option[(Int, Unit)]", "Some((1, ()))"},
    {"Map[String, String]", "map_from_list([(\"k\\n\\\"q\", \"v\\t\")])"},
    {"Map[(String, Int), Int]", "map_from_list([((\"it's\", 1), 2), ((\"say \\\"hi\\\"\", 0), 3)])"},
    {"Set[Float]", "set_from_list([2.5, 0.1 + 0.2, 1.0])"},
    {"List[Option[String]]", "[Some(\"it's\"), None]"},
    {"Map[Int, List[(Int, Unit)]]", "map_from_list([(1, [(2, ())])])"},
    {"(Int) -> Int", "add_one"},
    {"List[(Int) -> Int]", "[add_one]"},
};

static const char prelude[] =
    "type P = P(x: Int, y: String)\n"
    "type Shape = Circle(r: Float) | Dot\n"
    "@untested(\"builds a mutable map\")\n"
    "func filled() -> MutableMap[String, Int] with mutation\n"
    "    let m: MutableMap[String, Int] = mutable_map_new()\n"
    "    mutable_map_set(map: m, key: \"m\", value: 1)\n"
    "    mutable_map_set(map: m, key: \"a\", value: 2)\n"
    "    return m\n"
    "end func\n"
    "func add_one(n: Int) -> Int\n"
    "    example 1 -> 2\n"
    "    return n + 1\n"
    "end func\n";

static void vm_and_host_render_alike(void **state) {
  (void)state;
  int bad = 0;
  for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src,
             "%sfunc main() -> %s with io, mutation\n"
             "    let v: %s = %s\n"
             "    print(to_string(v) + \"<|>\")\n"
             "    print(to_string([v]) + \"<|>\")\n"
             "    return v\n"
             "end func\n",
             prelude, corpus[i].type, corpus[i].type, corpus[i].expr);
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_PRINT;
    cfg.check_examples = false;
    geno_result *r = geno_run(src, strlen(src), "agree.geno", &cfg);
    assert_non_null(r);
    if (!geno_result_ok(r)) fail_msg("corpus %zu (%s): %s %s", i, corpus[i].expr, unit_codes(r), unit_message(r));
    const geno_value *v = geno_result_value(r);
    size_t n;
    const char *out = geno_result_output(r, &n);
    /* the VM's to_string of v, then of [v], each ended by "<|>\n" */
    const char *sep = strstr(out, "<|>\n");
    assert_non_null(sep);
    char *vm_text = strndup(out, (size_t)(sep - out));
    const char *second = sep + 4;
    const char *sep2 = strstr(second, "<|>\n");
    assert_non_null(sep2);
    char *vm_list_text = strndup(second, (size_t)(sep2 - second));
    (void)n;
    bool unit = geno_value_type(v) == GENO_UNIT;
    if (!unit) {
      char *host_text = geno_value_to_string(v);
      assert_non_null(host_text);
      if (strcmp(host_text, vm_text) != 0)
        { bad++; print_message("corpus %zu (%s): VM text %s, host text %s\n", i, corpus[i].expr, vm_text, host_text); }
      geno_free(host_text);
      /* nested: a String inside is quoted, a Unit inside is () */
      geno_value *copy = geno_value_copy(v);
      geno_value *items[1] = {copy};
      geno_value *list = geno_value_new_list(items, 1);
      assert_non_null(list);
      host_text = geno_value_to_string(list);
      if (strcmp(host_text, vm_list_text) != 0)
        { bad++; print_message("corpus %zu (%s): VM text %s, host text %s\n", i, corpus[i].expr, vm_list_text, host_text); }
      geno_free(host_text);
      geno_value_free(list);
    }
    /* JSON: the RunResult's value against the host's encoding of it */
    char *host_json = geno_value_to_json(v);
    const char *vm_json = geno_result_value_json(r);
    if (v && (!host_json || strcmp(host_json, vm_json) != 0))
      { bad++; print_message("corpus %zu (%s): VM JSON %s, host JSON %s\n", i, corpus[i].expr, vm_json, host_json ? host_json : "(null)"); }
    geno_free(host_json);
    free(vm_text);
    free(vm_list_text);
    geno_result_free(r);
  }
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vm_and_host_render_alike),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
