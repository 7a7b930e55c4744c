/* geno.h -- the public API of geno-c, an embeddable implementation of the
 * Geno 0.4 language. This is the only header an embedder includes.
 *
 * Ownership rule for the whole API: pointer arguments are borrowed (the
 * library copies what it keeps); every object a function returns is owned
 * by the caller and released with the matching geno_*_free. A `char *`
 * the library returns (JSON, text, messages) is released with geno_free.
 * Strings inside a result stay valid until that result is freed.
 *
 * Binary compatibility (for bindings built once and run against later
 * libraries, such as a Python wheel): the library never changes the
 * meaning or position of a field of geno_config; new fields are only
 * appended. geno_config starts with `struct_size`, which geno_config_init
 * sets to the size the caller was compiled with; the library reads only
 * that many bytes and gives every field past them its default. A config
 * larger than the library knows is accepted only when its unknown tail is
 * all zero bytes (zero means "default" for every appended field). So: always
 * fill a config with geno_config_init, never with memset or an
 * initializer list. Opaque objects (geno_result, geno_value, geno_metrics)
 * are only ever reached through functions. Memory crosses the boundary
 * in one direction each: what the library returns is freed with geno_free
 * or the matching geno_*_free, and what a host hands the library to keep
 * (a callback's *error, a module loader's buffers) comes from geno_alloc,
 * so both sides use the same allocator even when they link different C
 * runtimes.
 *
 * Ownership of geno_value, and what happens when it is broken:
 *  - A value the host builds (geno_value_new_*, geno_value_copy) is the
 *    host's until it passes it on: as an item of a constructor, or as a
 *    callback's result. Passed on, it belongs to its new owner.
 *  - A value the library lends (geno_result_value and everything inside
 *    it, a callback's arguments and everything inside them) stays the
 *    library's; it is valid while its result lives / during the call.
 *  - geno_value_free on a value with an owner (inside another value, or
 *    lent) does nothing. A constructor given such a value, or the same
 *    value twice, fails (returns NULL) and leaves that value to its owner
 *    (the other items are freed as usual). A callback that returns one of
 *    its arguments, or a part of one, has it read, not taken (as if it had
 *    returned a copy). So a mistake is an error, never a double free.
 *  - NULL where a pointer is required is refused: a constructor or a
 *    [m] function returns NULL / false, an [e] function returns a result
 *    with an error diagnostic (a NULL source with a non-zero length), an
 *    accessor returns its neutral value. A NULL geno_config means the
 *    defaults.
 *
 * Thread safety: no global mutable state. Independent calls on different
 * threads are safe as long as they do not share a geno_result or geno_value.
 * A geno_config is only read during a call and may be shared read-only.
 * Any thread stack of 256 KiB or more will do: a run learns the calling
 * thread's stack bounds and ends recursion that would overrun them (deep
 * values compared or printed, nested callbacks) with E502; larger stacks
 * only let deeper values through (up to 10,000 levels).
 *
 * Error classes (after Lua's manual): functions marked [-] never fail;
 * [m] can fail only for lack of memory (then return NULL / false);
 * [e] report errors as diagnostics inside the returned result.
 * Functions that can run Geno code say so ("runs user code"). */
#ifndef GENO_H
#define GENO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GENO_BUILDING_LIBRARY)
#define GENO_API __attribute__((visibility("default")))
#else
#define GENO_API
#endif

#define GENO_VERSION "0.1.0"        /* this library */
#define GENO_LANGUAGE_VERSION "0.4" /* the language it implements (geno-lang 0.4.3) */

/* ------------------------------------------------------------------------ */
/* Memory crossing the boundary                                              */
/* ------------------------------------------------------------------------ */

/* [-] Release a string (or other plain buffer) the library returned:
 * geno_result_to_json, geno_value_to_string, geno_value_to_json,
 * geno_config_validate, geno_metrics_snapshot_json,
 * geno_metrics_health_json, geno_metrics_prometheus. NULL is fine. */
GENO_API void geno_free(void *p);
/* [m] Allocate [size] bytes the library will later release itself: a host
 * callback's *error message, a module loader's *source, *filename and
 * *error. NULL when out of memory. (Today both are malloc and free; a
 * binding that may load a different C runtime than the library's must
 * still use these two.) */
GENO_API void *geno_alloc(size_t size);

/* ------------------------------------------------------------------------ */
/* Capabilities                                                              */
/* ------------------------------------------------------------------------ */

/* Runtime authority a host grants to a program. A gated builtin whose
 * capability is not granted fails with E412, whatever the program declares.
 * The ten names are the reference's. */
typedef enum geno_capability {
  GENO_CAP_PRINT = 1u << 0,   /* print */
  GENO_CAP_CLOCK = 1u << 1,   /* clock_now, sleep_ms, datetime_* ... */
  GENO_CAP_RANDOM = 1u << 2,  /* random_int, random_float, math_random_* */
  GENO_CAP_FS = 1u << 3,      /* fs_* (through host callbacks) */
  GENO_CAP_HTTP = 1u << 4,    /* http_fetch/post/request (host callbacks) */
  GENO_CAP_REGEX = 1u << 5,   /* regex_match/find_all/replace */
  GENO_CAP_ENV = 1u << 6,     /* env_get, env_get_or, cli_args */
  GENO_CAP_PROCESS = 1u << 7, /* exec, spawn (host callbacks) */
  GENO_CAP_STDIN = 1u << 8,   /* stdin_read_all (host callback) */
  GENO_CAP_SERVE = 1u << 9,   /* http_listen/route/respond (host callbacks) */
} geno_capability;

#define GENO_CAP_COUNT 10

/* [-] The capability bit for a name such as "print", or 0 if the name is
 * not one of the ten. */
GENO_API unsigned geno_capability_from_name(const char *name);
/* [-] The name of a single capability bit ("print"), or NULL. Static string. */
GENO_API const char *geno_capability_name(unsigned cap);
/* [-] The known capability name closest to `name` (edit distance <= 2), or
 * NULL. Static string. For "did you mean" messages. */
GENO_API const char *geno_capability_suggest(const char *name);

/* ------------------------------------------------------------------------ */
/* Values (results and host-callback arguments)                             */
/* ------------------------------------------------------------------------ */

/* An immutable, self-contained copy of a Geno value, independent of any VM.
 * Built by the library for results and callback arguments, and by hosts for
 * callback results. */
typedef struct geno_value geno_value;

/* Unit reaches hosts in the reference's two shapes: a `()` written in the
 * program (or a bare `return`) is an empty GENO_TUPLE, JSON
 * {"_tuple": []}; the Unit of a function that ends without a return (main
 * included) or of a builtin such as print is GENO_UNIT, JSON null. A host
 * may give either where a program expects Unit. */
typedef enum geno_value_kind {
  GENO_UNIT,     /* the Unit no `()` wrote (Python's None in the reference) */
  GENO_BOOL,
  GENO_INT,      /* arbitrary precision; geno_value_int fails if > 64 bits */
  GENO_FLOAT,
  GENO_STRING,   /* UTF-8 */
  GENO_LIST,     /* also Array and Vec contents (see geno_value_container) */
  GENO_TUPLE,    /* with no items: a written `()` (see above) */
  GENO_MAP,      /* Map and MutableMap: ordered key/value pairs */
  GENO_SET,
  GENO_CTOR,     /* a constructor value: Some(3), FileMetadata(...), Red */
  GENO_FUNCTION, /* opaque; only its name can be read */
  GENO_OTHER,    /* async handles and other opaque values */
} geno_value_kind;

/* [-] Inspection. Each accessor returns a neutral value (0, NULL, false)
 * when `v` is NULL or of another kind. Returned pointers live as long as
 * `v`'s owner (a result, or the value itself). */
GENO_API geno_value_kind geno_value_type(const geno_value *v);
GENO_API bool geno_value_bool(const geno_value *v);
/* Stores the Int in *out; false if it does not fit in int64_t. */
GENO_API bool geno_value_int(const geno_value *v, int64_t *out);
/* Decimal text of any Int (exact). */
GENO_API const char *geno_value_int_text(const geno_value *v);
GENO_API double geno_value_float(const geno_value *v);
GENO_API const char *geno_value_string(const geno_value *v, size_t *len_bytes);
/* Number of elements (LIST/TUPLE/SET), entries (MAP) or fields (CTOR). */
GENO_API size_t geno_value_count(const geno_value *v);
/* i-th element / field value (0-based), or NULL. */
GENO_API const geno_value *geno_value_item(const geno_value *v, size_t i);
/* MAP: i-th key. CTOR: not used (see geno_value_field_name). */
GENO_API const geno_value *geno_value_key(const geno_value *v, size_t i);
/* CTOR: constructor name ("Some"); FUNCTION: function name. */
GENO_API const char *geno_value_name(const geno_value *v);
/* CTOR: name of field i ("value"). */
GENO_API const char *geno_value_field_name(const geno_value *v, size_t i);
/* LIST: "List", "Array" or "Vec"; MAP: "Map" or "MutableMap"; else NULL. */
GENO_API const char *geno_value_container(const geno_value *v);

/* Values handed between host and program nest at most this many levels
 * (a list in a list is 2). A constructor below that would build a deeper
 * value returns NULL (its items freed); a program value deeper than this
 * cannot be passed to a host callback (the call fails with E502) and is
 * not given as main's inspectable value (geno_result_value is NULL; its
 * text and JSON are still there). The same in-process and isolated. */
#define GENO_VALUE_MAX_DEPTH 1000

/* main's value, as RunResult JSON (geno_result_value_json and the "value"
 * of geno_result_to_json), nests at most this many JSON arrays and objects
 * (a constructor or tuple is two: {"fields": {...}}). Deeper ends the run
 * with E502 (its output kept), in both modes, so that a host's JSON parser
 * that recurses (Python's json stops near 1,000) can read every RunResult
 * geno-c writes. */
#define GENO_RESULT_MAX_DEPTH 500

/* The words a host callback's error uses to say the run's deadline passed
 * while it waited (see geno_callback_fn): the run then ends with E501. */
#define GENO_DEADLINE_PASSED "the run's deadline passed"

/* [m] Construction, for host-callback results. Each returns a new value the
 * caller owns (free with geno_value_free unless ownership is passed on).
 * Functions that take `geno_value *` items take ownership of them, even on
 * failure. Strings are copied and must be valid UTF-8 (else NULL); they
 * may contain NUL, so read them back with their length. */
GENO_API geno_value *geno_value_new_unit(void);
GENO_API geno_value *geno_value_new_bool(bool b);
GENO_API geno_value *geno_value_new_int(int64_t i);
/* Decimal text, optional leading '-'; NULL if malformed. */
GENO_API geno_value *geno_value_new_int_text(const char *digits);
GENO_API geno_value *geno_value_new_float(double f);
GENO_API geno_value *geno_value_new_string(const char *s, size_t len_bytes);
GENO_API geno_value *geno_value_new_list(geno_value **items, size_t count);
GENO_API geno_value *geno_value_new_tuple(geno_value **items, size_t count);
/* A constructor value, e.g. ("Some", {"value"}, {v}, 1) or ("None", NULL,
 * NULL, 0). Built-in constructors (Some, None, Ok, Err, HttpResponse,
 * ProcessResult, FileMetadata, FileKind*, Json*) are checked against their
 * declared fields when the value enters a program. */
GENO_API geno_value *geno_value_new_ctor(const char *name, const char *const *field_names,
                                         geno_value **fields, size_t count);
/* Shorthands for Option/Result. */
GENO_API geno_value *geno_value_new_some(geno_value *v);
GENO_API geno_value *geno_value_new_none(void);
GENO_API geno_value *geno_value_new_ok(geno_value *v);
GENO_API geno_value *geno_value_new_err(geno_value *v);
/* [m] Deep copy. */
GENO_API geno_value *geno_value_copy(const geno_value *v);
/* [-] Release a value built by the host (never values inside a result). */
GENO_API void geno_value_free(geno_value *v);
/* [m] Canonical text, as `to_string` renders it (`[1, 2]`, `Some(value: 3)`).
 * Caller frees with geno_free. */
GENO_API char *geno_value_to_string(const geno_value *v);
/* [m] The reference's JSON encoding (tuples {"_tuple": [...]},
 * constructors {"_constructor": N, "fields": {...}}, maps as objects).
 * Caller frees with geno_free. */
GENO_API char *geno_value_to_json(const geno_value *v);

/* ------------------------------------------------------------------------ */
/* Host callbacks                                                            */
/* ------------------------------------------------------------------------ */

/* A host callback carries out a gated builtin for the program, e.g.
 * "fs_read_text". It runs on the thread that called geno_run, in the middle
 * of the run (it may block; the run's deadline keeps counting).
 *   [name]     the builtin's name (static string)
 *   [args]     the builtin's arguments (borrowed, valid during the call)
 *   [nargs]    their number
 *   [userdata] the pointer given in geno_callback
 *   [error]    on failure, set *error to a message from geno_alloc
 *              (malloc also works; the library frees it); the program sees a runtime error (E499) with that
 *              text, catchable as a String. Bytes that are not valid UTF-8
 *              become U+FFFD. A message containing " size exceeds limit ("
 *              (as in "String size exceeds limit (N > M)", the words the
 *              runtime uses) reports that the host stopped at the run's
 *              max_collection_size: the run ends with E504, uncatchable,
 *              like every limit. A message containing
 *              GENO_DEADLINE_PASSED ("the run's deadline passed", as in
 *              "sleep_ms: the run's deadline passed during the sleep")
 *              reports that the host stopped waiting because the run's
 *              time ran out: the run ends with E501, uncatchable, as if
 *              the VM's own clock had run out (an isolated child's clock
 *              starts after the host's, so it may not have yet).
 * Returns the builtin's result (ownership passes to the library), typed as
 * the builtin declares (e.g. String for fs_read_text; Result[...] where
 * the builtin returns one), or NULL with *error set. A result of the
 * wrong type ends in a runtime error (E499) naming the mismatch. */
typedef geno_value *(*geno_callback_fn)(const char *name, const geno_value *const *args,
                                        size_t nargs, void *userdata, char **error);

typedef struct geno_callback {
  const char *name;    /* builtin name, e.g. "fs_read_text" */
  geno_callback_fn fn;
  void *userdata;
} geno_callback;

/* [-] True if `name` is a builtin that a host callback can implement. */
GENO_API bool geno_callback_name_valid(const char *name);

/* Calling the program back. A function value passed to a higher-order
 * host callback (http_route's handler) reaches the host as a GENO_FUNCTION
 * value that can be called later in the same run, while the program waits
 * in one of its host callbacks (http_listen serving requests). The host
 * may keep a geno_value_copy of it; the copy stays callable until the run
 * ends, then every call fails cleanly.
 *
 * [e] geno_function_call: run `fn` with `args` (borrowed; each must have
 * the type the function's parameter declares, e.g. one HttpRequest for a
 * route handler, else the call fails) and return its result (owned by the
 * caller; geno_value_free), or NULL with *error set to a message the
 * caller frees with geno_free. Runs user code. Allowed only on the thread
 * that runs the run's callbacks, from inside one of them (in-process:
 * nested in the callback; isolated: in the calling process, and the call
 * travels to the sandboxed child, which runs the function).
 * Each call is charged as a fresh request, as the reference's http_listen
 * charges each route handler: steps count from 0 against max_steps, a new
 * timeout_s deadline starts, the output count starts at 0 and what the
 * function prints is discarded; memory_bytes and the recursion depth are
 * the run's. A runtime error or limit of the function fails the call with
 * "E400: Division by zero (at Main.geno:3:12)" (its code first) and the
 * run goes on. In an isolated run a function that has not answered
 * timeout_s + 0.5 s after the call ends the whole run: the child is killed
 * (the run reports E501) and the function, like every other, stops being
 * callable. Other failures: a value that is not such a function, a call
 * from outside the run's callbacks, an argument of the wrong type or
 * number, "the program's run has ended".
 * [-] geno_function_callable: whether fn can still be called (its run is
 * going on and, isolated, its child is alive). False for NULL, for other
 * kinds, and for functions in results. */
GENO_API geno_value *geno_function_call(const geno_value *fn, const geno_value *const *args, size_t nargs,
                                        char **error);
GENO_API bool geno_function_callable(const geno_value *fn);

/* ------------------------------------------------------------------------ */
/* Modules                                                                   */
/* ------------------------------------------------------------------------ */

/* Source of an importable module: `import Name` finds the entry whose name
 * is "Name". The library never reads files. Diagnostics inside it name
 * the file "<module:Name>", as the reference's run(modules=...) does. */
typedef struct geno_module {
  const char *name;   /* PascalCase module name */
  const char *source; /* UTF-8 text (copied during the call) */
  size_t length;      /* bytes */
} geno_module;

/* Module loader: how a host supplies modules on demand instead of (or
 * besides) listing them in geno_config.modules. The front end calls it
 * once per imported module name that the modules array does not hold,
 * when it meets the import (a module nobody imports is never asked for);
 * a name of a built-in std module (Math, List, ...) is asked for too, and
 * the built-in one is used only when the loader has none.
 *
 * Arguments: userdata as given in the config; name: the PascalCase module
 * name (valid during the call). On success set *source to the module's
 * UTF-8 text in a buffer from geno_alloc (or malloc; the library takes
 * it and frees it), *length to its size in bytes, optionally *filename to
 * such a buffer holding the name that diagnostics in the module show (such as the path the
 * host read, "lib/Util.geno"; the library frees it; left NULL:
 * "Name.geno"), and return true. Otherwise
 * return false; *error may then be set to such a buffer holding a message the library
 * appends to its E204 "Module 'Name' not found" diagnostic (for example
 * where the host looked) and frees. A source over max_source_bytes is
 * refused (E204) like any module.
 *
 * Threading: called on the thread that called geno_check / geno_parse /
 * geno_run, during that call. geno_run_isolated calls it in the calling
 * process before the sandboxed child starts, for every module the program
 * imports (transitively, found by geno_source_imports); the child never
 * calls host code. Must not call back into the library's run. */
typedef bool (*geno_module_loader_fn)(void *userdata, const char *name, char **source, size_t *length,
                                      char **filename, char **error);

/* ------------------------------------------------------------------------ */
/* Monitoring                                                                */
/* ------------------------------------------------------------------------ */

typedef struct geno_result geno_result;

/* Called once at the end of every geno_run / geno_run_isolated / geno_check
 * with the finished result (borrowed; valid during the call). Runs on the
 * calling thread; must not call back into the same run. */
typedef void (*geno_monitor_fn)(const geno_result *result, const char *operation,
                                void *userdata);

/* ------------------------------------------------------------------------ */
/* Configuration                                                             */
/* ------------------------------------------------------------------------ */

/* Run configuration; mirrors the reference's RunConfig field by field.
 * Always start from geno_config_init(), then change fields. */
typedef struct geno_config {
  size_t struct_size;            /* sizeof(geno_config) as the caller was
                                    compiled; set by geno_config_init (see
                                    "Binary compatibility" at the top). */
  double timeout_s;              /* wall-clock limit in seconds. Default 5.0.
                                    0 = no deadline. Exceeding it: E501. */
  uint64_t max_steps;            /* VM steps (instructions). Default
                                    1,000,000. 0 = unlimited. E503. */
  uint32_t max_recursion_depth;  /* nested Geno calls. Default 500. 0 =
                                    the hard cap (10,000). E502. */
  uint64_t max_output_length;    /* characters of program output. Default
                                    100,000. 0 = no output allowed. E505. */
  uint64_t max_collection_size;  /* elements in one collection or code points
                                    in one string. Default 10,000,000. E504.
                                    0 is taken at its word: only empty
                                    collections and strings. */
  uint32_t max_integer_bits;     /* bits of one Int (Python's bit_length of
                                    its magnitude). Default 33,219. E504.
                                    Must be at least 1: 0 is a configuration
                                    error (geno_config_validate), as in the
                                    reference. */
  bool capabilities_set;         /* false (default): no capability granted */
  unsigned capabilities;         /* bitwise OR of geno_capability; read only
                                    when capabilities_set. 0 = none. */
  const geno_callback *callbacks; /* host callbacks (borrowed) */
  size_t ncallbacks;
  const geno_module *modules;    /* importable modules (borrowed) */
  size_t nmodules;
  const char *const *cli_args;   /* what cli_args() returns (needs env) */
  size_t ncli_args;
  bool check_examples;           /* verify `example` clauses before main.
                                    Default true. */
  bool run_tests;                /* test mode: run every example (impl methods
                                    too) and test block instead of main.
                                    Default false. Each failure is one
                                    diagnostic; the result value (JSON) is
                                    the report {"total": N, "passed": N,
                                    "failed": N, "untested": [{"function",
                                    "reason"}...], "violations": [{"kind":
                                    "example"|"requires"|"ensures"|"test",
                                    "function", "message"}...]}, fields in
                                    that order; untested lists the entry
                                    file's @untested functions. */
  bool test_entry_only;          /* test mode only: run the examples and
                                    test blocks written in the entry source
                                    alone, not those of the modules it
                                    imports (a project's runner tests each
                                    module as its own entry, so each example
                                    is counted once). Default false. */
  const char *test_filter;       /* test mode only: an fnmatch(3) glob; only
                                    examples of functions whose name matches
                                    (the qualified name "Type.Trait.method",
                                    "Type.method" or the bare name) and test
                                    blocks whose name matches run (borrowed).
                                    NULL (default): all. */
  geno_monitor_fn monitor;       /* optional monitoring hook */
  void *monitor_userdata;
  /* Memory, and the isolation settings (the rest: geno_run_isolated only). */
  uint64_t memory_bytes;         /* bytes. Every run: the VM's heap budget
                                    (the bytes of the program's live values
                                    as the GC counts them, collected first;
                                    the interpreter's own fixed structures
                                    are not counted; a heap still within
                                    1/16 of the budget after a collection
                                    the budget forced counts as full, so a
                                    run at its limit ends promptly instead
                                    of collecting again and again). Isolated
                                    runs also:
                                    the address space the child may add to
                                    what it inherits at fork (RLIMIT_AS =
                                    inherited + 64 MiB for the interpreter's
                                    own structures + this), so even 1 byte
                                    ends a program that allocates with the
                                    VM's E504, as in-process. Default
                                    256 MiB.
                                    0 = no limit. Exceeding either: E504. */
  double cpu_seconds;            /* RLIMIT_CPU of the child, rounded up to
                                    whole seconds. Default 0 = derived from
                                    timeout_s (one second after the
                                    wall-clock kill; none when timeout_s is
                                    0). Exceeding it: E501. */
  uint64_t max_source_bytes;     /* per module. Default 1 MiB. E204 beyond. */
  uint64_t max_total_source_bytes; /* all modules. Default 8 MiB. */
  /* Target-aware checking (geno_check only; spec 4.2). Names of the
   * execution targets the program is meant for (borrowed): "python-cli",
   * "node-cli", "browser", "python-hosted". Each target withholds the
   * builtins it does not provide (process builtins exist only on
   * python-cli, the HTTP server only on the Python targets, files and the
   * environment not in the browser, canvas drawing and input only there)
   * and rejects names its backend cannot represent safely (record fields
   * that are Python or JavaScript keywords, names reserved by the emitted
   * runtime, ...); the browser also checks an app's init/update/render
   * lifecycle. Every target is checked; with more than one, each
   * diagnostic's message starts with "[target] ". Repeated names count
   * once. Default none (ntargets 0): no target rules. An unknown name is a
   * configuration error (geno_config_validate; geno_check reports E204). */
  const char *const *targets;
  size_t ntargets;
  /* Modules on demand (see geno_module_loader_fn). NULL (default): only
   * `modules` and the built-in std modules can be imported. */
  geno_module_loader_fn module_loader;
  void *module_loader_userdata;
  /* Isolated runs only: seconds after the start at which the child is
   * killed whatever it is doing (the hard wall-clock budget a hosted
   * service sets above the cooperative timeout_s). 0 (default) = timeout_s
   * + 0.5 s, or never when timeout_s is 0. A kill at this deadline reports
   * E501 and geno_result_isolation gives GENO_ISOLATION_DEADLINE. */
  double wall_clock_s;
  /* Isolated runs only: fork the sandboxed child from this spawner (see
   * geno_spawner_start) instead of from the calling process. NULL
   * (default): fork from the caller. Ignored when module_loader is set. */
  struct geno_spawner *spawner;
} geno_config;

/* The smallest struct_size this library accepts: the size of geno_config
 * when struct_size was introduced (library 0.1.0). A config claiming less
 * was not filled by geno_config_init. */
#define GENO_CONFIG_MIN_SIZE ((size_t)(offsetof(geno_config, module_loader_userdata) + sizeof(void *)))

/* [-] Fill `cfg` with the defaults documented above, struct_size included. */
GENO_API void geno_config_init(geno_config *cfg);
/* [m] Validate a configuration: NULL if valid (NULL is: the defaults),
 * else a message to release with geno_free (struct_size not from
 * geno_config_init or an unknown non-zero tail, unknown callback name,
 * non-finite or negative timeout_s, cpu_seconds NaN, infinite, negative or
 * above 1e9, a module without a name, a module name given twice; a
 * callback for an ungranted capability is allowed but unused). Every entry
 * point taking a config reports the same problems, with this message, as
 * its only diagnostic, before any work (nothing is parsed, nothing forks;
 * the monitor, if any, is called once): geno_run and geno_run_isolated as
 * E499; geno_parse, geno_check, geno_check_isolated, geno_compile_js and
 * geno_compile_html as E204. */
GENO_API char *geno_config_validate(const geno_config *cfg);

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct geno_diagnostic {
  const char *code;     /* "E201" */
  int code_number;      /* 201 */
  const char *message;
  const char *severity; /* "error" or "warning" */
  const char *filename; /* NULL when the diagnostic has no location */
  int line, column;     /* 1-based; 0 when no location */
  int end_line, end_column;
} geno_diagnostic;

typedef struct geno_timing {
  double total_ms, lex_ms, parse_ms, typecheck_ms, run_ms;
} geno_timing;

/* [-] Whether the check or run succeeded (no error diagnostics). */
GENO_API bool geno_result_ok(const geno_result *r);
GENO_API size_t geno_result_diagnostic_count(const geno_result *r);
/* [-] i-th diagnostic, or NULL when out of range. */
GENO_API const geno_diagnostic *geno_result_diagnostic(const geno_result *r, size_t i);
/* [-] Program output (UTF-8, possibly with NUL-free text); output produced
 * before a runtime error or limit is kept. */
GENO_API const char *geno_result_output(const geno_result *r, size_t *len_bytes);
/* [-] main's value as JSON text: "null" when main ends without a return
 * (or there is no value), {"_tuple": []} for a written `()` or a bare
 * `return` (see geno_value_kind). */
GENO_API const char *geno_result_value_json(const geno_result *r);
/* [-] main's value for inspection, or NULL (no main, or failure). */
GENO_API const geno_value *geno_result_value(const geno_result *r);
/* [-] main's value rendered canonically, NULL if none or Unit (either shape). */
GENO_API const char *geno_result_value_text(const geno_result *r);
GENO_API geno_timing geno_result_timing(const geno_result *r);
/* [-] The Geno call stack of a runtime error, outermost first: frame i's
 * function name, and where that function was entered (the outermost
 * frame: its definition). Stores the location in file, line and col (any may
 * be NULL). Returns NULL when i is past the last frame. */
GENO_API const char *geno_result_trace(const geno_result *r, size_t i, const char **file, int *line, int *col);
GENO_API uint64_t geno_result_steps(const geno_result *r);
/* [-] The modules of the program a geno_check parsed: the i-th module's
 * file name (as diagnostics show it; the entry is module 0, then every
 * module it imports; std modules are left out), with its number of
 * top-level definitions (functions, types, traits, impls, imports and test
 * blocks) in *definitions when that is not NULL. NULL past the last
 * module, when r is NULL, or when no program was parsed (a lexer or parser
 * error, or a result of another entry point). The string is owned by r.
 * Thread safety: reads r only. */
GENO_API const char *geno_result_module(const geno_result *r, size_t i, size_t *definitions);
/* [m] The whole result as the reference's RunResult JSON object
 * ({"ok", "value", "output", "diagnostics", "timing", "steps_used"}).
 * Caller frees with geno_free. */
GENO_API char *geno_result_to_json(const geno_result *r);
GENO_API void geno_result_free(geno_result *r);

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

/* [e] Lex and parse only: E100-E103 / E200-E203 diagnostics. Never runs
 * user code. cfg may be NULL (defaults); only modules and size limits are
 * read. Returns NULL only when out of memory. */
/* [e] Format Geno source text in the canonical layout of `geno fmt` (the
 * reference formatter's: four spaces per open block, `end`/`else`/`catch`
 * at their block's level, no trailing spaces, one final newline; comments
 * and blank lines kept, line ends become LF, lines inside a multi-line
 * string kept byte for byte). Only a source that parses is formatted:
 * otherwise the result is not ok, holds its lexer or parser diagnostics
 * (located in `filename`, which may be NULL) and *formatted is NULL.
 * Formatting never changes what the program means: the formatted text
 * lexes to the same tokens and parses to the same tree. On success
 * *formatted is the formatted text (NUL-terminated, *formatted_len bytes
 * when formatted_len is not NULL; caller frees with geno_free); it equals
 * the source when the source was already formatted. Imports are not read.
 * Returns NULL only when out of memory (then *formatted is NULL). Thread-
 * safe. */
/* [e] The outline of one source file, without checking it or reading its
 * imports: on success *json (caller frees with geno_free) is
 *   {"definitions": [{"kind": "func"|"type"|"alias"|"trait"|"impl"|
 *     "import"|"test", "name": N, "line": L, "exported": B,
 *     "signature": first source line of the declaration,
 *     "doc": its `///` comment lines (without the slashes), "examples":
 *     ["input -> output", ...], "untested": reason (when marked)}...]}
 * in source order (an impl's name is its trait's). A source that does not
 * parse gives a result that is not ok with its diagnostics, and *json
 * NULL. NULL only when out of memory. Thread-safe. */
GENO_API geno_result *geno_outline(const char *source, size_t len, const char *filename, char **json);

GENO_API geno_result *geno_format(const char *source, size_t len, const char *filename, char **formatted,
                                  size_t *formatted_len);

GENO_API geno_result *geno_parse(const char *source, size_t len, const char *filename,
                                 const geno_config *cfg);

/* [e] Parse and typecheck the program and its imports (cfg->modules).
 * Never runs user code. */
GENO_API geno_result *geno_check(const char *source, size_t len, const char *filename,
                                 const geno_config *cfg);

/* ------------------------------------------------------------------------ */
/* The JavaScript back end                                                    */
/* ------------------------------------------------------------------------ */

/* Flags of geno_compile_js and geno_compile_js_ex. */
enum {
  GENO_JS_ESM = 1 << 0,        /* an ES module that exports the entry module's
                                  functions (main runs when the file is node's
                                  entry script); default: a classic script */
  GENO_JS_SOURCE_MAP = 1 << 1, /* geno_compile_js_ex: also a source map */
  GENO_JS_DTS = 1 << 2,        /* geno_compile_js_ex: also TypeScript declarations */
};

/* The texts geno_compile_js_ex makes: each malloc'd and NUL-terminated
 * (free each with geno_free), or NULL (length 0) when not asked for or
 * when the compilation failed. */
typedef struct geno_js_output {
  char *js;               /* the script, as geno_compile_js gives it */
  size_t js_len;          /* bytes */
  char *source_map;       /* GENO_JS_SOURCE_MAP: Source Map V3 JSON of js: each
                             line where a statement or function starts maps to
                             its module (sources: the modules' file names, with
                             their text in sourcesContent), line and column */
  size_t source_map_len;
  char *dts;              /* GENO_JS_DTS: a .d.ts for the ES module (the entry
                             module's functions and types, for the values of the
                             generated code: Int is bigint, see docs/compatibility.md) */
  size_t dts_len;
} geno_js_output;

/* [e] Check the program for the node-cli target and compile it to one
 * JavaScript file (ES2020, strict mode) that runs under Node as
 * `node out.js [--cap NAME]... [-- args]`: capabilities fail closed (only
 * those given by --cap before any `--`, or listed in
 * globalThis.__GENO_CAPS), output on stdout, `=> value` for main's
 * result as `geno run` shows it, a runtime error as `error[CODE]: message`
 * on stderr with exit status 1. The limits of cfg (max_steps,
 * max_recursion_depth, max_output_length, max_collection_size,
 * max_integer_bits) and check_examples are compiled in; modules come from
 * cfg's modules and module_loader as for geno_check. cfg may be NULL
 * (defaults). On success *js receives a malloc'd NUL-terminated script
 * (the caller frees it) and *js_len its length in bytes; on failure *js
 * is NULL and the result holds the diagnostics. Returns NULL only when
 * out of memory. Thread-safe (shares nothing between calls). */
GENO_API geno_result *geno_compile_js(const char *source, size_t len, const char *filename,
                                      const geno_config *cfg, unsigned flags, char **js, size_t *js_len);

/* [e] geno_compile_js with the extra outputs of flags (GENO_JS_SOURCE_MAP,
 * GENO_JS_DTS) in *out (all fields are set; see geno_js_output).
 * js_name is the script's file name recorded in the source map ("file";
 * NULL: ""). Returns NULL only when out of memory. Thread-safe. */
GENO_API geno_result *geno_compile_js_ex(const char *source, size_t len, const char *filename,
                                         const geno_config *cfg, unsigned flags, const char *js_name,
                                         geno_js_output *out);

/* [e] As geno_compile_js for the browser target: a standalone HTML page
 * (UTF-8) holding the program's script inline, a canvas of width x height
 * pixels (1..16384) with id "geno-canvas" and `title` (escaped; NULL:
 * "Geno App"), with a Content-Security-Policy meta tag. An app (init,
 * update and render without main) draws on the canvas every animation
 * frame; a program with main runs once and prints to the console. The
 * page grants the capabilities listed in globalThis.__GENO_CAPS when the
 * embedding page sets it before the script, and none otherwise. If
 * `script_only` is true, *html receives just the script (the `app.js` of
 * `geno build`), for a page made with geno_html_page. */
GENO_API geno_result *geno_compile_html(const char *source, size_t len, const char *filename,
                                        const geno_config *cfg, const char *title, int width, int height,
                                        bool script_only, char **html, size_t *html_len);

/* [e] geno_compile_html with a source map: with GENO_JS_SOURCE_MAP in
 * flags (the only flag it reads), out->source_map receives the script's
 * Source Map V3 (as geno_compile_js_ex's; "file": js_name, NULL: "app.js").
 * A whole page (script_only false) also carries the map inline, as a
 * `//# sourceMappingURL=data:application/json;base64,...` line at the end
 * of its script, counting lines from the start of the <script> element;
 * with script_only the map is for the script as returned, and the caller
 * writes it beside the script and appends the sourceMappingURL line
 * (`geno build --source-map`). out->js receives the page or the script,
 * out->dts is always NULL. Free the texts with geno_free. Returns NULL only
 * when out of memory. Thread-safe. */
GENO_API geno_result *geno_compile_html_ex(const char *source, size_t len, const char *filename,
                                           const geno_config *cfg, const char *title, int width, int height,
                                           bool script_only, unsigned flags, const char *js_name,
                                           geno_js_output *out);

/* [m] The HTML page of `geno build` that loads `app.js` from beside it:
 * title (escaped; NULL: "Geno App"), canvas width x height. Returns a
 * malloc'd NUL-terminated string, or NULL when out of memory. */
GENO_API char *geno_html_page(const char *title, int width, int height);

/* [e] Check, verify examples (unless disabled), then run `main` in this
 * process under the cooperative limits of cfg. Runs user code. A limit or
 * runtime error ends the run with its diagnostic; output so far is kept. */
GENO_API geno_result *geno_run(const char *source, size_t len, const char *filename,
                               const geno_config *cfg);

/* [e] As geno_run, in a forked child process with hard limits (rlimits,
 * seccomp, SIGKILL at the deadline). Granted effects that need host
 * resources are carried out by the parent through cfg's callbacks. Runs user
 * code (in the child); host callbacks run in the calling process, on the
 * calling thread, while the child waits. See docs/SECURITY.md.
 * Besides geno_run's diagnostics, the way the child ended can give:
 *   E501 "Execution timed out after T seconds" (killed timeout_s + 0.5 s
 *        after the start, if its own cooperative timeout did not fire) or
 *        "CPU time limit exceeded (N seconds)";
 *   E504 memory exhausted (memory_bytes), or the result too large to return;
 *   E500 crashed (signal N), forbidden system call, protocol violation, or
 *        sandbox setup failure (fail-closed: nothing was run).
 * Output printed before the child ended is kept in every case.
 * The monitor (if any) is called once, in the calling process, with the
 * operation "run_isolated". Requires Linux with seccomp. The host must not
 * reap children it did not create (waitpid(-1), SIGCHLD set to SIG_IGN),
 * or the child's exit status is lost (its output and result are not). */
GENO_API geno_result *geno_run_isolated(const char *source, size_t len, const char *filename,
                                        const geno_config *cfg);

/* [e] As geno_check, in a sandboxed child as geno_run_isolated runs
 * programs (the checker sees hostile input; a crash of it costs only the
 * child). Never runs user code. The monitor (if any) is called once, in
 * the calling process, with the operation "check". */
GENO_API geno_result *geno_check_isolated(const char *source, size_t len, const char *filename,
                                          const geno_config *cfg);

/* How the sandboxed child of geno_run_isolated / geno_check_isolated
 * ended. A host that serves many requests tells the program's own
 * outcomes (a result, its limits) from failures of the machinery. */
typedef enum geno_isolation_end {
  GENO_ISOLATION_FINISHED = 0, /* the child delivered its result (also: any
                                  result not made by an isolated run) */
  GENO_ISOLATION_DEADLINE,     /* killed at the wall-clock deadline (E501) */
  GENO_ISOLATION_CPU_LIMIT,    /* stopped by RLIMIT_CPU (E501) */
  GENO_ISOLATION_MEMORY,       /* ran out of its memory budget (E504) */
  GENO_ISOLATION_VIOLATION,    /* forbidden system call, file write or
                                  protocol violation (E500) */
  GENO_ISOLATION_CRASHED,      /* ended by another signal (a crash, or a
                                  kill from outside) or exited without a
                                  result (E500 / E504) */
  GENO_ISOLATION_SETUP_FAILED, /* the sandbox could not be set up or the
                                  host ran out of memory: nothing (or not
                                  all) ran (E500 / E504) */
} geno_isolation_end;

/* A spawner: a small single-threaded process forked from the host once,
 * from which isolated runs fork their sandboxed children (set
 * geno_config.spawner). A host that runs many isolated runs from many
 * threads (a server) should use one: forking the host itself makes every
 * page the host writes while a child lives a copy-on-write fault that, in
 * a multi-threaded process, also flushes the other CPUs' TLBs; the
 * spawner writes almost nothing, and the host never shares a page with a
 * child. The child is still the caller's child (CLONE_PARENT): the caller
 * supervises, kills and reaps it as before, and results are identical.
 * The spawner holds a copy of the host as it was when started (start it
 * before creating threads, after loading what children should inherit)
 * and dies with the host. */
typedef struct geno_spawner geno_spawner;

/* [m] Fork a spawner now. NULL with errno set on failure. Thread-safe to
 * use from any number of threads once started; call from the main thread
 * before starting others. */
GENO_API geno_spawner *geno_spawner_start(void);
/* [m] Like geno_spawner_start, with the spawner and every child it forks
 * bound to CPU number `cpu` (sched_setaffinity; the number as the kernel
 * counts CPUs, see sched_getaffinity). A host with one spawner per CPU
 * keeps each child's fork, page faults and TLB flushes on one CPU instead
 * of spreading them over all of them. cpu < 0: not bound (as
 * geno_spawner_start). NULL with errno set on failure (EINVAL: no such
 * CPU, or not one this process may use). */
GENO_API geno_spawner *geno_spawner_start_on(int cpu);
/* [m] Like geno_spawner_start_on, but the spawner is a new process of the
 * executable at `path` (geno-spawner, built and installed next to geno)
 * rather than a fork of the host: a small, statically linked program
 * holding only this library's core, so each child it forks copies a few
 * mappings instead of all the host's libraries. It learns nothing of the
 * host but its environment (as it is at this call: what a run granted
 * the env capability reads) and what each run sends it as data (source,
 * modules, limits, capabilities), so it runs geno_run_isolated and geno_check_isolated
 * bodies only; other runs given it fork from the caller. The executable
 * must be built from the same sources as this library (the request's
 * layout is not versioned). Waits up to 10 s for it to start. NULL with
 * errno set on failure (EINVAL: bad cpu or path; ENOEXEC: it did not
 * start or could not set itself up); the caller may then fall back to
 * geno_spawner_start_on. Call before starting threads. */
GENO_API geno_spawner *geno_spawner_exec(const char *path, int cpu);
/* [-] Whether the spawner is still running. A spawner that died (killed
 * from outside; it never exits on its own while the host holds it) is
 * reaped here; runs given it fork from the caller instead, so a host with
 * several should route around it. Thread-safe; costs one system call. */
GENO_API bool geno_spawner_alive(geno_spawner *s);
/* [-] The spawner's process id (0 for NULL). */
GENO_API int geno_spawner_pid(const geno_spawner *s);
/* [-] Stop and reap the spawner (NULL is fine). No run may still use it. */
GENO_API void geno_spawner_free(geno_spawner *s);

/* [-] How the isolated child behind r ended (NULL: FINISHED). */
GENO_API geno_isolation_end geno_result_isolation(const geno_result *r);

/* [m] Names of the modules `source` imports, in order of appearance (a
 * repeated import is listed again), for hosts that load modules from
 * somewhere: the type name after each `import` keyword. Found by one pass
 * over the bytes that only tells where tokens start (no tokens, no parse:
 * a small fraction of geno_parse's cost), so a source with a syntax error
 * still lists its imports. *names is a malloc'd array of malloc'd strings;
 * free with geno_strings_free. Returns the count, or -1 exactly when the
 * source has a lexical error (E100-E103, as geno_parse would report; its
 * imports are then unknown), memory ran out, `names` is NULL, or `source`
 * is NULL with a non-zero length. */
GENO_API int geno_source_imports(const char *source, size_t len, char ***names);
GENO_API void geno_strings_free(char **strings, size_t count);

/* ------------------------------------------------------------------------ */
/* Outcomes and metrics                                                      */
/* ------------------------------------------------------------------------ */

/* How a run ended, classified as the reference's monitoring does (first
 * matching rule): ok -> SUCCESS; otherwise by the set of diagnostic codes:
 * E501 -> TIMEOUT; E412 -> CAPABILITY_DENIED; E413 -> HOST_CALLBACK_MISSING;
 * E500 -> SECURITY_VIOLATION; E502, E503 or E504 -> RESOURCE_LIMIT;
 * E100-E103 or E200-E203 -> SYNTAX_ERROR; E300-E309 -> TYPE_ERROR;
 * anything else (E204, E310-E312, E4xx, E499, E505) -> RUNTIME_ERROR. */
typedef enum geno_outcome {
  GENO_OUTCOME_SUCCESS,
  GENO_OUTCOME_SYNTAX_ERROR,
  GENO_OUTCOME_TYPE_ERROR,
  GENO_OUTCOME_RUNTIME_ERROR,
  GENO_OUTCOME_TIMEOUT,
  GENO_OUTCOME_CAPABILITY_DENIED,
  GENO_OUTCOME_HOST_CALLBACK_MISSING,
  GENO_OUTCOME_SECURITY_VIOLATION,
  GENO_OUTCOME_RESOURCE_LIMIT,
} geno_outcome;

#define GENO_OUTCOME_COUNT 9

/* [-] The outcome of a finished run (NULL counts as RUNTIME_ERROR). */
GENO_API geno_outcome geno_result_outcome(const geno_result *r);
/* [-] The same classification for a run known only by whether it
 * succeeded and its [ncodes] diagnostic [codes] ("E412"; others ignored),
 * for hosts that hold no geno_result. */
GENO_API geno_outcome geno_outcome_from_codes(bool ok, const char *const *codes, size_t ncodes);
/* [-] The reference's name of an outcome ("success", "syntax_error",
 * "capability_denied" ...), or NULL. Static string. */
GENO_API const char *geno_outcome_name(geno_outcome outcome);

/* A thread-safe collector of run metrics (the reference's
 * RuntimeMetricsCollector): counts of runs by outcome, wall time, steps,
 * phase times, output bytes and diagnostic codes, plus the counters the
 * hosted server feeds (HTTP requests, /constrain, benchmark validation).
 * It renders a JSON snapshot, a health report and Prometheus text with the
 * reference's metric names. Every function may be called from any thread;
 * a mutex serialises them. Label sets (endpoints, HTTP outcomes,
 * operations) keep at most 64 distinct values each; further values are
 * counted under "other", so hostile request paths cannot grow it. */
typedef struct geno_metrics geno_metrics;

/* [m] A new collector. [service] defaults to "geno-runtime" when NULL;
 * [revision] may be NULL. Both are copied. Free with geno_metrics_free. */
GENO_API geno_metrics *geno_metrics_new(const char *service, const char *revision);
/* [-] Release a collector (NULL is fine). No monitor may still use it. */
GENO_API void geno_metrics_free(geno_metrics *m);

/* [-] A geno_monitor_fn that records into the collector passed as
 * [userdata]: set cfg.monitor = geno_metrics_monitor and
 * cfg.monitor_userdata = the collector. */
GENO_API void geno_metrics_monitor(const geno_result *result, const char *operation, void *userdata);
/* [-] Record one finished operation. [operation] is what the library
 * passes to monitors ("parse", "check", "run", "run_isolated", "test");
 * "run", "run_isolated" and "test" count as runs (outcome, wall time =
 * timing.total_ms, steps, phase times, output bytes, diagnostic codes);
 * every operation is counted by name. NULL result or collector: ignored. */
GENO_API void geno_metrics_record(geno_metrics *m, const geno_result *result, const char *operation);
/* [-] Record one run from its summary alone, for hosts that hold no
 * geno_result (such as a metrics record built by hand, or received from
 * another process): the run counts toward [outcome] (SUCCESS counts as a
 * success), wall time [wall_ms], [steps], and each of the [ncodes]
 * diagnostic [codes] ("E412"; others ignored); the operation is "run".
 * Phase times and output bytes are not known and stay unchanged. An
 * outcome out of range is ignored. */
GENO_API void geno_metrics_record_run(geno_metrics *m, geno_outcome outcome, double wall_ms, uint64_t steps,
                                      const char *const *codes, size_t ncodes);
/* [-] Server side: one handled POST request to [endpoint] with HTTP
 * [status] (100-599) and the server's [outcome] label ("ok", "run_error",
 * "bad_request" ...). */
GENO_API void geno_metrics_record_http(geno_metrics *m, const char *endpoint, int status,
                                       const char *outcome);
/* [-] Server side: one /constrain evaluation; [valid] is 1 (a valid
 * prefix), 0 (invalid) or -1 (timed out before a result). */
GENO_API void geno_metrics_record_constrain(geno_metrics *m, int valid, double wall_ms);
/* [-] One benchmark validation: it succeeds when every one of [total]
 * problems passed canonically and none had issues. */
GENO_API void geno_metrics_record_benchmark(geno_metrics *m, uint64_t total, uint64_t canonical_passed,
                                            uint64_t problems_with_issues);
/* [m] Replace the startup errors shown by the health report (copied;
 * count 0 clears them). False when out of memory (nothing changes). */
GENO_API bool geno_metrics_set_startup_errors(geno_metrics *m, const char *const *errors, size_t count);

/* [m] The reference's snapshot as compact JSON (its keys in its order,
 * then this library's additions: phase_wall_time_ms, total_output_bytes,
 * diagnostic_codes, operations). Caller frees with geno_free. */
GENO_API char *geno_metrics_snapshot_json(geno_metrics *m);

/* One check of a health report. */
typedef struct geno_health_check {
  const char *name;
  const char *status; /* "pass", "warn" or "fail" */
  const char *detail;
} geno_health_check;

/* [m] The health report as compact JSON: {"status", "generated_at_unix",
 * "uptime_seconds", "build", "checks"}; status is "failed" if any check
 * fails, else "degraded" if any warns, else "ok". [extra] checks (may be
 * NULL) follow the built-in ones. Caller frees with geno_free. */
GENO_API char *geno_metrics_health_json(geno_metrics *m, const geno_health_check *extra, size_t nextra);

/* [m] Prometheus text exposition (format 0.0.4) with the reference's
 * metric names, HELP texts and order; lines end in "\n" except the last.
 * A fresh collector renders exactly the reference's 26 families; the
 * additions (geno_run_phase_wall_time_ms_total, geno_run_output_bytes_total,
 * geno_run_diagnostics_total, geno_operations_total) appear once something
 * was recorded. Caller frees with geno_free. */
GENO_API char *geno_metrics_prometheus(geno_metrics *m);

/* ------------------------------------------------------------------------ */
/* Constrained decoding                                                       */
/* ------------------------------------------------------------------------ */
/* A prefix of a program is *valid* when some continuation makes a program
 * that parses (the parser of geno_parse/geno_check defines parsing; the one
 * exception is the after-parse tree-depth bound of 1000, see
 * docs/constrain.md). A prefix may end anywhere: inside a string, f-string,
 * comment, name, number or operator, or inside a UTF-8 sequence.
 * Everything here is syntax only: no names or types are checked.
 * Threading: a session or vocabulary is used by one thread at a time;
 * distinct sessions are independent, and one vocabulary may be shared by
 * sessions on several threads as long as nobody frees it. */

/* Longest text constrained decoding reads: a prefix given to
 * geno_constrain_prefix, or all the bytes fed to one session. It is the
 * default per-module source limit of geno_run and geno_check
 * (max_source_bytes, 1 MiB): a longer program would not be run either,
 * and the recognizer's time is linear in the text (about 0.3-0.5 s a
 * megabyte), so this bounds the work one call can ask for. A longer
 * prefix is answered at once as not valid, its error "Prefix is N bytes;
 * the limit is 1048576 bytes" and allowed_next empty; a feed that would
 * take a session past it makes the session invalid (its error says so)
 * without reading the bytes, and a mask leaves out the tokens that would. */
#define GENO_CONSTRAIN_MAX_BYTES ((size_t)1 << 20)

/* The reference's report on a prefix (geno-lang's ConstraintResult, its
 * fields and JSON form; see docs/constrain.md). `valid` and `error` are
 * this library's exact answer; `allowed_next` is the reference's coarse
 * category guess (keywords, identifier, literals, punctuation, blocks to
 * close), computed from the complete tokens of the prefix. All strings are
 * owned by the result. */
typedef struct geno_constraint_result {
  bool valid;
  char *error;              /* NULL when valid */
  char **unclosed_blocks;   /* innermost first, e.g. "if", "func" */
  size_t n_unclosed_blocks;
  char **keywords;          /* allowed_next.keywords (sorted) */
  size_t n_keywords;
  bool allow_identifier, allow_type_identifier, allow_int, allow_float, allow_string, allow_bool;
  char **allow_punct;       /* sorted */
  size_t n_allow_punct;
  char **expected_end_stack; /* same as unclosed_blocks */
  size_t n_expected_end_stack;
} geno_constraint_result;

/* Analyse source[0..len) (UTF-8; need not be NUL-terminated) into *out,
 * which the caller frees with geno_constraint_result_free. Returns false
 * only when out of memory (then *out is empty). A source over
 * GENO_CONSTRAIN_MAX_BYTES is not valid (its error gives the size and the
 * limit) and is not read. */
GENO_API bool geno_constrain_prefix(const char *source, size_t len, geno_constraint_result *out);
GENO_API void geno_constraint_result_free(geno_constraint_result *r);
/* [m] The result as the reference's JSON object {"valid", "error",
 * "unclosed_blocks", "allowed_next": {...}}: indented by `indent` spaces
 * per level (0 = compact, as the server sends it). Caller frees. */
GENO_API char *geno_constraint_result_json(const geno_constraint_result *r, int indent);
/* [m] allowed_next as the reference prints it: "AllowedNext(IDENT,
 * need_to_close=['func'])". Caller frees. */
GENO_API char *geno_constraint_result_text(const geno_constraint_result *r);

/* An incremental session: text is appended with geno_constrain_feed and
 * the answer is read at any time. Feeding costs time proportional to the
 * bytes fed (the lexer and recognizer resume; nothing is re-read), plus
 * the recognizer work of the tokens they finish. */
typedef struct geno_constrain geno_constrain;
typedef enum geno_constrain_status {
  GENO_CONSTRAIN_INVALID = 0,  /* no continuation parses (stays so) */
  GENO_CONSTRAIN_VALID = 1,    /* some continuation parses */
  GENO_CONSTRAIN_COMPLETE = 2  /* valid, and the text as it is parses */
} geno_constrain_status;

/* [m] A session on the empty text; NULL when out of memory. Free with
 * geno_constrain_free (NULL is accepted). */
GENO_API geno_constrain *geno_constrain_new(void);
GENO_API void geno_constrain_free(geno_constrain *s);
/* [m] An independent copy (e.g. to try a continuation); NULL on OOM. */
GENO_API geno_constrain *geno_constrain_clone(const geno_constrain *s);
/* Append n bytes. Returns whether the text is still valid; once invalid
 * the session stays invalid and ignores further bytes. Bytes that would
 * make the text longer than GENO_CONSTRAIN_MAX_BYTES make it invalid
 * (geno_constrain_error gives the limit) and are not read. */
GENO_API bool geno_constrain_feed(geno_constrain *s, const char *bytes, size_t n);
/* The current answer (COMPLETE is found by trying the end of text). */
GENO_API geno_constrain_status geno_constrain_state(geno_constrain *s);
/* Why the text became invalid (borrowed, valid until the session is
 * freed), or NULL while it is valid. */
GENO_API const char *geno_constrain_error(const geno_constrain *s);

/* A model's vocabulary: token i is the byte string tokens[i] of lens[i]
 * bytes (any bytes; not NUL-terminated). Built once (a trie and per-mode
 * tables, a few seconds at most for 200,000 tokens), then shared. The
 * bytes are copied. NULL when out of memory. */
typedef struct geno_constrain_vocab geno_constrain_vocab;
GENO_API geno_constrain_vocab *geno_constrain_vocab_new(const char *const *tokens, const size_t *lens, size_t n);
GENO_API void geno_constrain_vocab_free(geno_constrain_vocab *v);
GENO_API size_t geno_constrain_vocab_size(const geno_constrain_vocab *v);
/* Fill bitset (ceil(n/64) words; bit i of word i/64 is token i) with
 * exactly the tokens whose bytes, appended to the session's text now,
 * leave it valid (so none that would pass GENO_CONSTRAIN_MAX_BYTES).
 * Returns how many are set (0 for an invalid session).
 * The session is not changed. End of text is allowed exactly when
 * geno_constrain_state(s) == GENO_CONSTRAIN_COMPLETE. */
GENO_API size_t geno_constrain_mask(geno_constrain *s, const geno_constrain_vocab *v, uint64_t *bitset);

#ifdef __cplusplus
}
#endif

#endif
