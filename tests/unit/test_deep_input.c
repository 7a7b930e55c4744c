/* Hostile nesting on a small thread stack: every recursive walk in a parser
 * or builtin (toml_parse, json_parse, the JSON writers, results and host
 * callback values) is bounded by its own depth limit and by the thread's
 * stack, so a program run by geno_run on a 256 KiB thread (a server's
 * worker, a Python thread) ends with the builtin's error or E502, never a
 * crash, in-process and isolated. Also: the TOML parser is linear in the
 * length of dotted keys and charges its tree to memory_bytes. */
#include "unit.h"

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

typedef struct Case {
  const char *name;
  const char *body;   /* main's body: builds `text` and prints a result */
  const char *expect; /* a code every run must end with, "ok" for success, or "ok|E502" */
} Case;

/* Every program prints "start" first so a crash is told apart from an
 * error before the interesting call. */
static const Case cases[] = {
    {"toml dotted header",
     "    print(\"start\")\n"
     "    print(to_string(toml_parse(\"[\" + repeat_string(\"a.\", 60000) + \"b]\")))\n",
     "E499|E502"},
    {"toml dotted array-of-tables header",
     "    print(\"start\")\n"
     "    print(to_string(toml_parse(\"[[\" + repeat_string(\"a.\", 60000) + \"b]]\")))\n",
     "E499|E502"},
    {"toml dotted key in an inline table",
     "    print(\"start\")\n"
     "    print(to_string(toml_parse(\"x = {\" + repeat_string(\"a.\", 60000) + \"b = 1}\")))\n",
     "E499|E502"},
    {"toml dotted key",
     "    print(\"start\")\n"
     "    print(to_string(toml_parse(repeat_string(\"a.\", 60000) + \"b = 1\")))\n",
     "E499|E502"},
    {"toml 1000 nested inline tables",
     "    print(\"start\")\n"
     "    let r = toml_parse(\"a = \" + repeat_string(\"{b = \", 1000) + \"1\" + repeat_string(\"}\", 1000))\n"
     "    print(\"parsed\")\n",
     "ok|E502"},
    {"toml 1000 nested arrays",
     "    print(\"start\")\n"
     "    let r = toml_parse(\"a = \" + repeat_string(\"[\", 1000) + repeat_string(\"]\", 1000))\n"
     "    print(\"parsed\")\n",
     "ok|E502"},
    {"toml 999 tables by dotted key",
     "    print(\"start\")\n"
     "    let r = toml_parse(repeat_string(\"a.\", 998) + \"b = 1\")\n"
     "    print(\"parsed\")\n",
     "ok|E502"},
    {"json_to_string of a 1000-deep JsonArray",
     "    print(\"start\")\n"
     "    var j: JsonValue = JsonNull\n"
     "    var i: Int = 0\n"
     "    while i < 999 do\n"
     "        j = JsonArray([j])\n"
     "        i = i + 1\n"
     "    end while\n"
     "    print(length(json_to_string(j)))\n",
     "ok|E502"},
    {"json_to_string of a 5000-deep JsonArray",
     "    print(\"start\")\n"
     "    var j: JsonValue = JsonNull\n"
     "    var i: Int = 0\n"
     "    while i < 5000 do\n"
     "        j = JsonArray([j])\n"
     "        i = i + 1\n"
     "    end while\n"
     "    print(length(json_to_string(j)))\n",
     "E499|E502"},
    {"json_parse at its nesting bound",
     "    print(\"start\")\n"
     "    print(to_string(json_parse(repeat_string(\"[\", 128) + repeat_string(\"]\", 128))) != \"\")\n",
     "ok|E502"},
};

static const char *code_of(const geno_result *r) {
  if (geno_result_ok(r)) return "ok";
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  return d ? d->code : "none";
}

static bool code_allowed(const char *code, const char *expect) {
  size_t n = strlen(code);
  for (const char *p = expect; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && strncmp(p, code, n) == 0) return true;
    p += len + (bar ? 1 : 0);
  }
  return false;
}

typedef struct Job {
  const char *src;
  bool isolated;
  geno_result *r;
} Job;

static void *run_job(void *arg) {
  Job *j = arg;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  cfg.timeout_s = 20;
  j->r = j->isolated ? geno_run_isolated(j->src, strlen(j->src), "deep.geno", &cfg)
                     : geno_run(j->src, strlen(j->src), "deep.geno", &cfg);
  return NULL;
}

static geno_result *run_on_thread(const char *src, bool isolated, size_t stack) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  assert_int_equal(pthread_attr_setstacksize(&attr, stack), 0);
  pthread_t t;
  Job j = {src, isolated, NULL};
  assert_int_equal(pthread_create(&t, &attr, run_job, &j), 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&attr);
  assert_non_null(j.r);
  return j.r;
}

static void test_small_stack_cases(void **state) {
  (void)state;
  static const size_t stacks[] = {256u << 10, 8u << 20};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char src[4096];
    snprintf(src, sizeof src, "func main() -> Unit\n%send func\n", cases[c].body);
    for (size_t s = 0; s < sizeof stacks / sizeof stacks[0]; s++)
      for (int iso = 0; iso < 2; iso++) {
        geno_result *r = run_on_thread(src, iso, stacks[s]);
        const char *code = code_of(r);
        if (!code_allowed(code, cases[c].expect) || strncmp(geno_result_output(r, NULL), "start\n", 6) != 0)
          fail_msg("%s (%s, %zu KiB stack): %s, wanted %s: %s", cases[c].name, iso ? "isolated" : "in-process",
                   stacks[s] >> 10, code, cases[c].expect, unit_message(r));
        /* an 8 MiB stack holds every walk the depth bounds allow */
        if (stacks[s] > (1u << 20) && strcmp(code, "E502") == 0)
          fail_msg("%s (%s, 8 MiB stack): E502 where the depth bound should decide: %s", cases[c].name,
                   iso ? "isolated" : "in-process", unit_message(r));
        geno_result_free(r);
      }
  }
}

/* CPU time of this process: unlike the wall clock, it does not grow when
 * a loaded machine takes the processor away from the test. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* tomllib's redefinition rules asked for every prefix of a dotted key
 * were quadratic in the key (20 KB of text took 784 MB and seconds); a
 * long header followed by many lines, the product of the two. Both are
 * now linear: a 200 KB document parses well inside a small memory budget. */
static void test_toml_dotted_keys_linear(void **state) {
  (void)state;
  static const char *bodies[] = {
      /* 990 parts (inside the nesting bound), 100 lines of them */
      "    var doc: String = \"\"\n"
      "    var i: Int = 0\n"
      "    while i < 100 do\n"
      "        doc = doc + repeat_string(\"a.\", 989) + \"k\" + to_string(i) + \" = 1\\n\"\n"
      "        i = i + 1\n"
      "    end while\n"
      "    match toml_parse(doc) with\n"
      "        | Ok(v) -> print(\"ok\")\n"
      "        | Err(e) -> print(e)\n"
      "    end match\n",
      /* a 990-part header, then 20,000 lines below it */
      "    var lines: List[String] = []\n"
      "    var i: Int = 0\n"
      "    while i < 20000 do\n"
      "        lines = append(lines, \"k\" + to_string(i) + \" = 1\")\n"
      "        i = i + 1\n"
      "    end while\n"
      "    let doc = \"[\" + repeat_string(\"a.\", 989) + \"b]\\n\" + join(lines, \"\\n\")\n"
      "    match toml_parse(doc) with\n"
      "        | Ok(v) -> print(\"ok\")\n"
      "        | Err(e) -> print(e)\n"
      "    end match\n",
      /* 100,000 parts: parsed in linear time, refused at the bound */
      "    match toml_parse(repeat_string(\"a.\", 100000) + \"b = 1\") with\n"
      "        | Ok(v) -> print(\"ok\")\n"
      "        | Err(e) -> print(e)\n"
      "    end match\n",
  };
  for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
    char src[4096];
    snprintf(src, sizeof src, "func main() -> Unit\n%send func\n", bodies[b]);
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_PRINT;
    cfg.memory_bytes = 64u << 20;
    cfg.timeout_s = 20;
    double t0 = cpu_s();
    geno_result *r = geno_run(src, strlen(src), "keys.geno", &cfg);
    double dt = cpu_s() - t0;
    if (b < 2) {
      if (!geno_result_ok(r) || strcmp(geno_result_output(r, NULL), "ok\n") != 0)
        fail_msg("document %zu: %s %s", b, unit_codes(r), unit_message(r));
    } else {
      assert_int_equal(geno_result_diagnostic(r, 0)->code_number, 499);
      assert_non_null(strstr(unit_message(r), "nested too deeply"));
    }
    /* quadratic took tens of seconds of CPU here (minutes under the
     * sanitizers); linear takes well under two (under ten with them) */
    if (dt > 15.0) fail_msg("document %zu took %.1f s of CPU", b, dt);
    geno_result_free(r);
  }
}

/* The parse tree counts against memory_bytes: a document whose tree needs
 * more than the budget ends with E504, which try/catch cannot swallow. */
static void test_toml_memory_charged(void **state) {
  (void)state;
  const char *src =
      "func main() -> Unit\n"
      "    let doc = repeat_string(\"[1,2,3,4,5,6,7,8,9,0],\", 200000)\n"
      "    var caught: Int = 0\n"
      "    try\n"
      "        let r = toml_parse(\"a = [\" + doc + \"1]\")\n"
      "    catch e: String\n"
      "        caught = caught + 1\n"
      "    end try\n"
      "    print(caught)\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_PRINT;
    cfg.memory_bytes = 48u << 20;
    cfg.timeout_s = 120; /* the memory limit, not the clock, must end it */
    geno_result *r = iso ? geno_run_isolated(src, strlen(src), "mem.geno", &cfg) : geno_run(src, strlen(src), "mem.geno", &cfg);
    if (geno_result_ok(r) || geno_result_diagnostic(r, 0)->code_number != 504)
      fail_msg("%s: %s %s (output %s)", iso ? "isolated" : "in-process", unit_codes(r), unit_message(r),
               geno_result_output(r, NULL));
    geno_result_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_stack_cases),
      cmocka_unit_test(test_toml_dotted_keys_linear),
      cmocka_unit_test(test_toml_memory_charged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
