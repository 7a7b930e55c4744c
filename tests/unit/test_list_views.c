/* Lists that share their storage (src/vm/object.c obj_list_slice, value.h):
 * the rest of a list pattern, tail, list_drop, slice, list_take and
 * take_while are views, so a recursive walk is linear in memory; a small
 * view never pins a much larger list; and every reader of list storage
 * (equality, hashing, rendering, JSON, host values, the sandbox wire) sees
 * exactly the view's elements.
 *
 * The memory tests run under a heap limit that a linear walk fits in many
 * times over and a quadratic one (each tail a copy) exceeds many times
 * over, so they fail on a quadratic implementation however fast the
 * machine is. */
#include "unit.h"

static geno_result *run_limited(const char *src, uint64_t memory_bytes, int isolated) {
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  c.max_steps = 0;
  c.max_recursion_depth = 10000;
  c.memory_bytes = memory_bytes;
  c.timeout_s = 60;
  geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "t.geno", &c) : geno_run(src, strlen(src), "t.geno", &c);
  assert_non_null(r);
  return r;
}

static void expect_output(geno_result *r, const char *want) {
  if (!geno_result_ok(r)) fail_msg("run failed: [%s] %s", unit_codes(r), unit_message(r));
  assert_string_equal(geno_result_output(r, NULL), want);
}

/* 8,000 elements walked four ways by recursion. Copying each tail would
 * keep 8000 * 8000 / 2 elements of 16 bytes alive at the deepest call
 * (512 MB); the views need one header per call. The heap limit of 8 MiB
 * is 64 times smaller than the quadratic need. */
static const char walks[] =
    "func by_rest(xs: List[Int]) -> Int\n"
    "    example ([1, 2, 3]) -> 6\n"
    "    match xs with\n"
    "    | [] -> return 0\n"
    "    | [h, ...t] -> return h + by_rest(t)\n"
    "    end match\n"
    "end func\n"
    "func by_ends(xs: List[Int]) -> Int\n"
    "    example ([1, 2, 3]) -> 6\n"
    "    match xs with\n"
    "    | [] -> return 0\n"
    "    | [x] -> return x\n"
    "    | [a, ...mid, z] -> return a + z + by_ends(mid)\n"
    "    end match\n"
    "end func\n"
    "func by_tail(xs: List[Int]) -> Int\n"
    "    example ([1, 2, 3]) -> 6\n"
    "    if length(xs) == 0 then\n"
    "        return 0\n"
    "    end if\n"
    "    return head(xs) + by_tail(tail(xs))\n"
    "end func\n"
    "func by_drop(xs: List[Int]) -> Int\n"
    "    example ([1, 2, 3]) -> 6\n"
    "    if length(xs) == 0 then\n"
    "        return 0\n"
    "    end if\n"
    "    return xs[0] + by_drop(list_drop(xs, 1))\n"
    "end func\n"
    "func by_slice(xs: List[Int]) -> Int\n"
    "    example ([1, 2, 3]) -> 6\n"
    "    if length(xs) == 0 then\n"
    "        return 0\n"
    "    end if\n"
    "    return xs[length(xs) - 1] + by_slice(slice(list: xs, start: 0, stop: length(xs) - 1))\n"
    "end func\n"
    "func main() -> Unit\n"
    "    let xs = range(0, 8000)\n"
    "    print(by_rest(xs))\n"
    "    print(by_ends(xs))\n"
    "    print(by_tail(xs))\n"
    "    print(by_drop(xs))\n"
    "    print(by_slice(xs))\n"
    "    var built: List[Int] = []\n"
    "    for i: Int in range(0, 8000) do\n"
    "        built = append(built, i)\n"
    "    end for\n"
    "    print(by_rest(built))\n"
    "end func\n";

static void rest_walks_are_linear_in_memory(void **state) {
  (void)state;
  /* In a child process the limit also bounds the address space, which
   * needs room for the process itself: 64 MiB there, still 8 times less
   * than the quadratic need. */
  for (int isolated = 0; isolated < 2; isolated++) {
    geno_result *r = run_limited(walks, isolated ? 64u << 20 : 8u << 20, isolated);
    expect_output(r, "31996000\n31996000\n31996000\n31996000\n31996000\n31996000\n");
    geno_result_free(r);
  }
}

/* A short piece of a long list is copied, not a view: keeping ten elements
 * of each of eight 1,000,000-element lists (16 MB each) must not keep the
 * lists. With pinning views this needs 128 MB; the limit is 48 MiB. */
static const char pieces[] =
    "func main() -> Unit\n"
    "    var kept: List[List[Int]] = []\n"
    "    for k: Int in range(0, 8) do\n"
    "        let big = range(k, k + 1000000)\n"
    "        kept = append(kept, slice(list: big, start: 5, stop: 15))\n"
    "        kept = append(kept, list_take(list_drop(big, 999990), 3))\n"
    "        match big with\n"
    "        | [a, b, c, ...rest] -> kept = append(kept, list_take(rest, 2))\n"
    "        | _ -> print(\"short\")\n"
    "        end match\n"
    "    end for\n"
    "    print(length(kept))\n"
    "    print(kept[21])\n"
    "    print(kept[22])\n"
    "    print(kept[23])\n"
    "end func\n";

static void small_views_do_not_pin_large_lists(void **state) {
  (void)state;
  geno_result *r = run_limited(pieces, 48u << 20, 0);
  expect_output(r, "24\n[12, 13, 14, 15, 16, 17, 18, 19, 20, 21]\n[999997, 999998, 999999]\n[10, 11]\n");
  geno_result_free(r);
}

/* Views compared, hashed, printed, returned and converted: each shows only
 * its own elements, never its neighbours in the shared storage, and two
 * equal lists are equal whatever their storage. */
static const char readers[] =
    "func main() -> List[List[Int]]\n"
    "    let xs = [1, 2, 3, 4, 5, 6]\n"
    "    let t = tail(xs)\n"
    "    let mid = slice(list: xs, start: 1, stop: 5)\n"
    "    print(t)\n"
    "    print(mid)\n"
    "    print(t == [2, 3, 4, 5, 6])\n"
    "    print(mid == slice(list: t, start: 0, stop: 4))\n"
    "    print(mid == t)\n"
    "    print(contains([t, list_take(t, 4)], mid))\n"
    "    print(contains([t, list_drop(mid, 1)], [2, 3, 4, 5]))\n"
    "    print(json_to_string(mid))\n"
    "    print(f\"{mid}\")\n"
    "    let grown = append(mid, 99)\n"
    "    print(grown)\n"
    "    print(xs)\n"
    "    print(mid)\n"
    "    var acc = list_drop(xs, 3)\n"
    "    acc = append(acc, 7)\n"
    "    let other = append(list_drop(xs, 3), 8)\n"
    "    print(acc)\n"
    "    print(other)\n"
    "    return [mid, t, list_drop(xs, 6)]\n"
    "end func\n";

static void views_read_only_their_elements(void **state) {
  (void)state;
  for (int isolated = 0; isolated < 2; isolated++) {
    geno_result *r = run_limited(readers, 64u << 20, isolated);
    expect_output(r,
                  "[2, 3, 4, 5, 6]\n[2, 3, 4, 5]\ntrue\ntrue\nfalse\ntrue\nfalse\n[2,3,4,5]\n[2, 3, 4, 5]\n"
                  "[2, 3, 4, 5, 99]\n[1, 2, 3, 4, 5, 6]\n[2, 3, 4, 5]\n[4, 5, 6, 7]\n[4, 5, 6, 8]\n");
    assert_string_equal(geno_result_value_json(r), "[[2, 3, 4, 5], [2, 3, 4, 5, 6], []]");
    const geno_value *v = geno_result_value(r);
    assert_int_equal(geno_value_count(v), 3);
    const geno_value *mid = geno_value_item(v, 0);
    assert_int_equal(geno_value_count(mid), 4);
    int64_t x = 0;
    assert_true(geno_value_int(geno_value_item(mid, 0), &x));
    assert_int_equal(x, 2);
    assert_true(geno_value_int(geno_value_item(mid, 3), &x));
    assert_int_equal(x, 5);
    geno_result_free(r);
  }
}

/* The collector keeps a view's storage alive while only the view holds
 * it: many collections run while the tails are the only references. */
static const char survive[] =
    "func keep_tails(n: Int) -> List[List[String]]\n"
    "    example (1) -> [[\"b0\", \"c0\", \"d0\"]]\n"
    "    var out: List[List[String]] = []\n"
    "    for i: Int in range(0, n) do\n"
    "        let xs = [f\"a{i}\", f\"b{i}\", f\"c{i}\", f\"d{i}\"]\n"
    "        match xs with\n"
    "        | [_, ...rest] -> out = append(out, rest)\n"
    "        | _ -> out = out\n"
    "        end match\n"
    "    end for\n"
    "    return out\n"
    "end func\n"
    "func main() -> Unit\n"
    "    let tails = keep_tails(200000)\n"
    "    var garbage = 0\n"
    "    for i: Int in range(0, 300000) do\n"
    "        garbage = garbage + length([i, i, i, i])\n"
    "    end for\n"
    "    print(tails[0])\n"
    "    print(tails[199999])\n"
    "    print(garbage)\n"
    "end func\n";

static void views_keep_their_storage_alive(void **state) {
  (void)state;
  geno_result *r = run_limited(survive, 256u << 20, 0);
  expect_output(r, "[\"b0\", \"c0\", \"d0\"]\n[\"b199999\", \"c199999\", \"d199999\"]\n1200000\n");
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rest_walks_are_linear_in_memory),
      cmocka_unit_test(small_views_do_not_pin_large_lists),
      cmocka_unit_test(views_read_only_their_elements),
      cmocka_unit_test(views_keep_their_storage_alive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
