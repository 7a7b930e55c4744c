/* Unit tests: the sandbox wire format (sandbox/wire.c). Round trips of
 * every value kind and of results, and decoding of hostile bytes: a child
 * controls everything its parent decodes, so every malformed input must be
 * rejected without a crash, a leak or an allocation sized by a lie. */
#include "unit.h"

#include <math.h>

#include "runtime/hostvalue.h"
#include "runtime/result.h"
#include "sandbox/wire.h"

/* Encode v as a bare value body. */
static Buf encode(const geno_value *v) {
  Buf b = BUF_INIT;
  assert_true(sbx_put_value(&b, v));
  assert_false(b.failed);
  return b;
}

static geno_value *decode(const Buf *b, bool *bad) {
  SbxReader r;
  sbx_reader_init(&r, b->data, b->len, 1u << 20);
  geno_value *v = sbx_get_value(&r);
  if (v && r.off != r.n) r.bad = true;
  *bad = r.bad;
  return v;
}

/* Structural equality through the public accessors. */
static bool same(const geno_value *a, const geno_value *b) {
  if (geno_value_type(a) != geno_value_type(b)) return false;
  size_t la, lb;
  switch (geno_value_type(a)) {
  case GENO_UNIT: return true;
  case GENO_BOOL: return geno_value_bool(a) == geno_value_bool(b);
  case GENO_INT: return strcmp(geno_value_int_text(a), geno_value_int_text(b)) == 0;
  case GENO_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0; /* bit-exact, NaN included */
  case GENO_STRING: {
    const char *sa = geno_value_string(a, &la), *sb = geno_value_string(b, &lb);
    return la == lb && memcmp(sa, sb, la) == 0;
  }
  case GENO_FUNCTION:
  case GENO_OTHER:
    if (!geno_value_name(a) || !geno_value_name(b)) return geno_value_name(a) == geno_value_name(b);
    return strcmp(geno_value_name(a), geno_value_name(b)) == 0;
  default: break;
  }
  if (geno_value_count(a) != geno_value_count(b)) return false;
  if ((geno_value_container(a) == NULL) != (geno_value_container(b) == NULL)) return false;
  if (geno_value_container(a) && strcmp(geno_value_container(a), geno_value_container(b))) return false;
  if (geno_value_type(a) == GENO_CTOR && strcmp(geno_value_name(a), geno_value_name(b))) return false;
  for (size_t i = 0; i < geno_value_count(a); i++) {
    if (!same(geno_value_item(a, i), geno_value_item(b, i))) return false;
    if (geno_value_type(a) == GENO_MAP && !same(geno_value_key(a, i), geno_value_key(b, i))) return false;
    if (geno_value_type(a) == GENO_CTOR && strcmp(geno_value_field_name(a, i), geno_value_field_name(b, i)))
      return false;
  }
  return true;
}

/* A value with every kind in it. */
static geno_value *sample(void) {
  geno_value *map = rt_hv_alloc(GENO_MAP, 2);
  map->container = "MutableMap";
  map->keys = calloc(2, sizeof *map->keys);
  map->keys[0] = geno_value_new_string("k1", 2);
  map->items[0] = geno_value_new_int(-7);
  map->keys[1] = geno_value_new_string("", 0);
  map->items[1] = geno_value_new_float(NAN);
  geno_value *set = rt_hv_alloc(GENO_SET, 1);
  set->items[0] = geno_value_new_bool(true);
  geno_value *fn = rt_hv_alloc(GENO_FUNCTION, 0);
  fn->name = strdup("inc");
  geno_value *other = rt_hv_alloc(GENO_OTHER, 0);
  geno_value *arr = rt_hv_alloc(GENO_LIST, 1);
  arr->container = "Vec";
  arr->items[0] = geno_value_new_int_text("123456789012345678901234567890");
  geno_value *tuple_items[2] = {geno_value_new_unit(), geno_value_new_string("\xe2\x82\xac", 3)};
  const char *names[1] = {"value"};
  geno_value *some_field[1] = {geno_value_new_tuple(tuple_items, 2)};
  geno_value *items[6] = {map, set, fn, other, arr, geno_value_new_ctor("Some", names, some_field, 1)};
  return geno_value_new_list(items, 6);
}

static void values_round_trip(void **state) {
  (void)state;
  geno_value *v = sample();
  Buf b = encode(v);
  bool bad;
  geno_value *back = decode(&b, &bad);
  assert_false(bad);
  assert_non_null(back);
  assert_true(same(v, back));
  assert_string_equal(geno_value_container(geno_value_item(back, 0)), "MutableMap");
  assert_string_equal(geno_value_container(geno_value_item(back, 4)), "Vec");
  geno_value_free(back);
  geno_value_free(v);
  buf_free(&b);
}

static geno_value *nest(int depth) {
  geno_value *v = geno_value_new_unit();
  for (int i = 1; i < depth; i++) v = geno_value_new_list(&v, 1);
  return v;
}

/* A function lent to the host crosses with its handle; the reader gives
 * it the reader's link (the parent's way to call it), and a reader
 * without one (results) leaves it uncallable. A flag other than 0 or 1 is
 * malformed. */
static void callable_functions(void **state) {
  (void)state;
  RtCallLink *child = rt_link_new(), *parent = rt_link_new();
  child->call = (geno_value * (*)(RtCallLink *, uint32_t, const geno_value *const *, size_t, char **))1;
  geno_value *fn = rt_hv_function("handler", child, 41);
  Buf b = BUF_INIT;
  assert_true(sbx_put_value(&b, fn));
  SbxReader r;
  sbx_reader_init(&r, b.data, b.len, 100);
  r.link = parent;
  geno_value *got = sbx_get_value(&r);
  assert_non_null(got);
  assert_ptr_equal(got->link, parent);
  assert_int_equal(got->handle, 41);
  assert_string_equal(geno_value_name(got), "handler");
  assert_int_equal(parent->refs, 2);
  geno_value_free(got);
  assert_int_equal(parent->refs, 1);
  sbx_reader_init(&r, b.data, b.len, 100);
  got = sbx_get_value(&r);
  assert_non_null(got);
  assert_null(got->link);
  geno_value_free(got);
  b.data[b.len - 5] = 2; /* the flag byte */
  sbx_reader_init(&r, b.data, b.len, 100);
  assert_null(sbx_get_value(&r));
  assert_true(r.bad);
  buf_free(&b);
  geno_value_free(fn);
  child->call = NULL;
  rt_link_release(child);
  rt_link_release(parent);
}

static void depth_is_bounded(void **state) {
  (void)state;
  geno_value *ok = nest(SBX_MAX_VALUE_DEPTH);
  Buf b = encode(ok);
  bool bad;
  geno_value *back = decode(&b, &bad);
  assert_non_null(back);
  geno_value_free(back);
  geno_value_free(ok);
  buf_free(&b);
  /* a deeper value cannot even be built (GENO_VALUE_MAX_DEPTH) */
  assert_int_equal(SBX_MAX_VALUE_DEPTH, GENO_VALUE_MAX_DEPTH);
  assert_null(nest(SBX_MAX_VALUE_DEPTH + 1));
  buf_free(&b);
  /* Hand-made: a million nested list headers must not recurse a million
   * times in the decoder. */
  for (int i = 0; i < 1000000; i++) {
    sbx_put_u8(&b, GENO_LIST);
    sbx_put_u8(&b, 1);
    sbx_put_u32(&b, 1);
  }
  sbx_put_u8(&b, GENO_UNIT);
  assert_null(decode(&b, &bad));
  assert_true(bad);
  buf_free(&b);
}

/* Every prefix of a valid encoding is rejected, and cleanly. */
static void truncation_is_rejected(void **state) {
  (void)state;
  geno_value *v = sample();
  Buf b = encode(v);
  for (size_t cut = 0; cut < b.len; cut++) {
    SbxReader r;
    sbx_reader_init(&r, b.data, cut, 1u << 20);
    geno_value *x = sbx_get_value(&r);
    if (x) fail_msg("prefix of %zu bytes decoded", cut);
    assert_true(r.bad);
  }
  geno_value_free(v);
  buf_free(&b);
}

static void check_rejected(const Buf *b, const char *what) {
  bool bad;
  geno_value *v = decode(b, &bad);
  if (v || !bad) fail_msg("accepted: %s", what);
}

static void lies_are_rejected(void **state) {
  (void)state;
  Buf b = BUF_INIT;
  /* A list claiming four billion elements in a 10-byte body: rejected
   * before any allocation proportional to the claim. */
  sbx_put_u8(&b, GENO_LIST);
  sbx_put_u8(&b, 1);
  sbx_put_u32(&b, 0xFFFFFFFFu);
  sbx_put_u8(&b, GENO_UNIT);
  check_rejected(&b, "huge count");
  buf_clear(&b);
  sbx_put_u8(&b, 200); /* no such kind */
  check_rejected(&b, "kind");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_STRING);
  sbx_put_bytes(&b, "\xff\xfe", 2);
  check_rejected(&b, "bad UTF-8");
  buf_clear(&b);
  /* A NUL is an ordinary character of a Geno string (from_char_code(0), a
   * file holding one): it crosses the wire intact. */
  sbx_put_u8(&b, GENO_STRING);
  sbx_put_bytes(&b, "a\0b", 3);
  {
    bool nul_bad;
    geno_value *nul = decode(&b, &nul_bad);
    size_t nul_len = 0;
    assert_non_null(nul);
    assert_false(nul_bad);
    assert_memory_equal(geno_value_string(nul, &nul_len), "a\0b", 3);
    assert_int_equal(nul_len, 3);
    geno_value_free(nul);
  }
  buf_clear(&b);
  sbx_put_u8(&b, GENO_INT);
  sbx_put_bytes(&b, "1\0", 2);
  check_rejected(&b, "NUL in an Int");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_STRING);
  sbx_put_u32(&b, 1000); /* length past the end */
  buf_append(&b, "abc", 3);
  check_rejected(&b, "string length");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_INT);
  sbx_put_bytes(&b, "12x", 3);
  check_rejected(&b, "int text");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_BOOL);
  sbx_put_u8(&b, 2);
  check_rejected(&b, "bool 2");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_LIST);
  sbx_put_u8(&b, 4); /* a Map container on a list */
  sbx_put_u32(&b, 0);
  check_rejected(&b, "container");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_CTOR);
  sbx_put_opt_str(&b, "lowercase");
  sbx_put_u32(&b, 0);
  check_rejected(&b, "ctor name");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_CTOR);
  sbx_put_opt_str(&b, "Some");
  sbx_put_u32(&b, 1);
  sbx_put_opt_str(&b, "bad name!");
  sbx_put_u8(&b, GENO_UNIT);
  check_rejected(&b, "field name");
  buf_clear(&b);
  sbx_put_u8(&b, GENO_FUNCTION);
  sbx_put_u8(&b, 0); /* a function must have a name */
  check_rejected(&b, "function name");
  buf_free(&b);
}

/* A one-byte Unit becomes a ~100-byte node: the budget stops a child from
 * making its parent allocate far more than the child itself could hold. */
static void node_budget_limits_amplification(void **state) {
  (void)state;
  Buf b = BUF_INIT;
  sbx_put_u8(&b, GENO_LIST);
  sbx_put_u8(&b, 1);
  sbx_put_u32(&b, 1000);
  for (int i = 0; i < 1000; i++) sbx_put_u8(&b, GENO_UNIT);
  SbxReader r;
  sbx_reader_init(&r, b.data, b.len, 500);
  assert_null(sbx_get_value(&r));
  assert_true(r.bad);
  sbx_reader_init(&r, b.data, b.len, 1001);
  geno_value *v = sbx_get_value(&r);
  assert_non_null(v);
  assert_int_equal(geno_value_count(v), 1000);
  geno_value_free(v);
  buf_free(&b);
  /* The budget follows the child's memory limit. */
  assert_true(sbx_node_budget(256u << 20, 10) < (256u << 20) / 64);
  assert_int_equal(sbx_node_budget(0, 10), 11);
}

static geno_result *sample_result(void) {
  geno_result *r = rt_result_new();
  r->ok = true;
  r->steps = 12345;
  r->timing.total_ms = 1.5;
  r->timing.run_ms = 0.25;
  rt_result_set_value_json(r, strdup("[1, {\"_tuple\": [true]}]"));
  r->value_text = strdup("[1, (true)]");
  r->value = geno_value_new_int(1);
  rt_result_set_output(r, "hello\n\xc3\xa9\n", 9);
  Span sp = {"m.geno", 2, 3, 2, 9};
  size_t before = r->ndiags;
  rt_result_add(r, 310, &sp, "a warning");
  r->diags[before].severity = "warning";
  r->ok = true;
  rt_result_add_trace(r, "main", "m.geno", 1, 1);
  rt_result_add_trace(r, "helper", NULL, 0, 0);
  return r;
}

static void results_round_trip(void **state) {
  (void)state;
  geno_result *r = sample_result();
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_RESULT);
  sbx_put_result(&b, r);
  assert_true(sbx_frame_end(&b));
  uint32_t type, len;
  sbx_frame_header(b.data, &type, &len);
  assert_int_equal(type, SBX_MSG_RESULT);
  assert_int_equal(len, b.len - SBX_FRAME_HEADER);
  SbxReader rd;
  sbx_reader_init(&rd, b.data + SBX_FRAME_HEADER, len, 1000);
  geno_result *back = sbx_get_result(&rd, 1000);
  assert_non_null(back);
  assert_true(geno_result_ok(back));
  assert_int_equal(geno_result_steps(back), 12345);
  assert_true(geno_result_timing(back).total_ms == 1.5);
  assert_true(geno_result_timing(back).run_ms == 0.25);
  assert_string_equal(geno_result_value_json(back), "[1, {\"_tuple\": [true]}]");
  assert_string_equal(geno_result_value_text(back), "[1, (true)]");
  assert_true(same(geno_result_value(back), r->value));
  size_t n;
  assert_memory_equal(geno_result_output(back, &n), "hello\n\xc3\xa9\n", 9);
  assert_int_equal(n, 9);
  assert_int_equal(geno_result_diagnostic_count(back), 1);
  const geno_diagnostic *d = geno_result_diagnostic(back, 0);
  assert_string_equal(d->code, "E310");
  assert_string_equal(d->severity, "warning");
  assert_string_equal(d->filename, "m.geno");
  assert_int_equal(d->end_column, 9);
  const char *file;
  int line, col;
  assert_string_equal(geno_result_trace(back, 0, &file, &line, &col), "main");
  assert_string_equal(file, "m.geno");
  assert_int_equal(line, 1);
  assert_string_equal(geno_result_trace(back, 1, &file, &line, &col), "helper");
  assert_null(file);
  assert_null(geno_result_trace(back, 2, NULL, NULL, NULL));
  /* Output over the cap is refused. */
  sbx_reader_init(&rd, b.data + SBX_FRAME_HEADER, len, 1000);
  assert_null(sbx_get_result(&rd, 8));
  assert_true(rd.bad);
  geno_result_free(back);
  geno_result_free(r);
  buf_free(&b);
}

/* value_json is spliced into the host's RunResult JSON verbatim, so the
 * parent accepts exactly one JSON value: a child cannot add fields. */
static void forged_value_json_is_rejected(void **state) {
  (void)state;
  const char *forged[] = {"1, \"ok\": true", "1}", "\"a\" \"b\"", "", "[1", "{\"a\":1,}", "nul"};
  for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
    geno_result *r = sample_result();
    rt_result_set_value_json(r, strdup(forged[i]));
    Buf b = BUF_INIT;
    sbx_put_result(&b, r);
    SbxReader rd;
    sbx_reader_init(&rd, b.data, b.len, 1000);
    geno_result *back = sbx_get_result(&rd, 1000);
    if (back) fail_msg("forged value_json accepted: %s", forged[i]);
    assert_true(rd.bad);
    geno_result_free(r);
    buf_free(&b);
  }
}

static void bad_diagnostics_are_rejected(void **state) {
  (void)state;
  int codes[] = {0, 99, 1000, -1};
  for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
    geno_result *r = rt_result_new();
    rt_result_add(r, 400, NULL, "x");
    r->diags[0].code_number = codes[i];
    Buf b = BUF_INIT;
    sbx_put_result(&b, r);
    SbxReader rd;
    sbx_reader_init(&rd, b.data, b.len, 1000);
    assert_null(sbx_get_result(&rd, 1000));
    assert_true(rd.bad);
    geno_result_free(r);
    buf_free(&b);
  }
  /* Trailing bytes after a valid result. */
  geno_result *r = sample_result();
  Buf b = BUF_INIT;
  sbx_put_result(&b, r);
  sbx_put_u8(&b, 0);
  SbxReader rd;
  sbx_reader_init(&rd, b.data, b.len, 1000);
  assert_null(sbx_get_result(&rd, 1000));
  geno_result_free(r);
  buf_free(&b);
}

/* Random bytes and random corruptions of a valid result never crash the
 * decoder (ASan builds check the memory side). */
static void random_bytes_never_crash(void **state) {
  (void)state;
  geno_result *r = sample_result();
  Buf good = BUF_INIT;
  sbx_put_result(&good, r);
  geno_result_free(r);
  unsigned seed = 12345;
  char junk[512];
  for (int iter = 0; iter < 20000; iter++) {
    seed = seed * 1103515245u + 12345u;
    size_t n = (seed >> 8) % sizeof junk;
    const char *p;
    if (iter % 2) {
      for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        junk[i] = (char)(seed >> 16);
      }
      p = junk;
    } else { /* flip one byte of the good encoding */
      n = good.len < sizeof junk ? good.len : sizeof junk;
      memcpy(junk, good.data, n);
      junk[(seed >> 4) % n] ^= (char)(1 + (seed >> 20) % 255);
      p = junk;
    }
    SbxReader rd;
    sbx_reader_init(&rd, p, n, 1000);
    geno_result_free(sbx_get_result(&rd, 1 << 20));
    sbx_reader_init(&rd, p, n, 1000);
    geno_value_free(sbx_get_value(&rd));
  }
  buf_free(&good);
}

static void json_validator(void **state) {
  (void)state;
  const char *good[] = {"null", "true", "false", "0", "-0", "12.5e-3", "1E+9", "\"\"", "\"a\\u00e9\\n\\\"\"",
                        "[]", "{}", " [1, 2.5, \"x\", {\"k\": [true, null]}] ", "{\"a\":{\"b\":[]}}",
                        "\"\xc3\xa9\""};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    if (!sbx_json_valid(good[i], strlen(good[i]))) fail_msg("rejected valid JSON: %s", good[i]);
  const char *bad[] = {"",      " ",       "[1,]",   "{\"a\"}", "01",     "1.",    ".5",    "+1",
                       "\"\\x\"", "[1] 2", "nul",    "\"a",     "{\"a\":1,}", "[",     "]",     "{1:2}",
                       "\"\x01\"", "truex", "1 2",    "[1 2]",   "\"\\u12\"", "-",     "{,}",   "[,1]"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (sbx_json_valid(bad[i], strlen(bad[i]))) fail_msg("accepted invalid JSON: %s", bad[i]);
  /* Deep nesting is checked without recursion. */
  size_t depth = 200000;
  char *deep = malloc(2 * depth + 1);
  memset(deep, '[', depth);
  memset(deep + depth, ']', depth);
  deep[2 * depth] = '\0';
  assert_true(sbx_json_valid(deep, 2 * depth));
  assert_false(sbx_json_valid(deep, 2 * depth - 1));
  free(deep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(values_round_trip),
      cmocka_unit_test(depth_is_bounded),
      cmocka_unit_test(callable_functions),
      cmocka_unit_test(truncation_is_rejected),
      cmocka_unit_test(lies_are_rejected),
      cmocka_unit_test(node_budget_limits_amplification),
      cmocka_unit_test(results_round_trip),
      cmocka_unit_test(forged_value_json_is_rejected),
      cmocka_unit_test(bad_diagnostics_are_rejected),
      cmocka_unit_test(random_bytes_never_crash),
      cmocka_unit_test(json_validator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
