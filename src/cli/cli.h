/* Shared pieces of the `geno` command: file and module loading, diagnostic
 * printing, argument helpers. The CLI is a client of include/geno.h only. */
#ifndef GENO_CLI_H
#define GENO_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include <geno.h>

/* Exit statuses of every command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* A program loaded from disk: the entry file and the modules it imports
 * (transitively), found as <Name>.geno beside the entry file. */
typedef struct CliProgram {
  char *path;           /* entry path as given */
  char *source;         /* entry source (malloc'd) */
  size_t length;
  char *dir;            /* the entry file's directory (malloc'd) */
  geno_module *modules; /* the modules read so far by cli_module_loader,
                           each named by its path (malloc'd array; names
                           and sources malloc'd); only for showing their
                           source in diagnostics */
  size_t nmodules;
} CliProgram;

/* How a failure before any run is reported on stdout besides stderr. */
typedef enum { CLI_JSON_NONE, CLI_JSON_RUN, CLI_JSON_CHECK } CliJsonShape;

/* Read the entry file (its imports are read on demand by
 * cli_module_loader, with the program as userdata). On failure prints an error on
 * stderr (and, unless json is CLI_JSON_NONE, an E204 diagnostic as JSON on
 * stdout) and returns false (nothing to free). */
bool cli_load_program(const char *path, CliProgram *prog, CliJsonShape json);
void cli_free_program(CliProgram *prog);
/* geno_module_loader_fn for a CliProgram (userdata): reads <Name>.geno
 * beside the entry file (diagnostics show that path) and keeps a copy in
 * the program's modules. */
bool cli_module_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                       char **error);
/* Read a whole file; NULL with errno set on failure. */
char *cli_read_file(const char *path, size_t *len);

/* The nearest geno.toml at or above FILE's directory (malloc'd path), or
 * NULL; its directory is the project root. */
char *cli_find_manifest(const char *file);

/* The execution targets declared by the project manifest (the nearest
 * geno.toml at or above FILE's directory, key `targets`). On success
 * returns true with *targets (malloc'd strings, possibly none) and
 * *manifest (the manifest's path, or NULL when it declares none); free
 * each string, the array and the path with free(). On a manifest that cannot be read or
 * that is not valid TOML or whose `targets` is malformed, returns false with a malloc'd *err. */
bool cli_manifest_targets(const char *file, char ***targets, size_t *ntargets, char **manifest, char **err);
/* The nearest geno.toml at or above FILE's directory, if any, is valid
 * TOML with a well-formed `targets`; false with a malloc'd *err naming
 * the manifest otherwise. */
bool cli_manifest_check(const char *file, char **err);
/* Print a run or check failure that has no location (file not found, bad
 * manifest) as JSON on stdout: the RunResult shape when run_result, else
 * {"ok": false, "diagnostics": [...]}. msg is escaped. */
void cli_json_failure(bool run_result, const char *code, const char *msg);
/* Write s (NUL-terminated) to stdout as a JSON string literal; bytes that
 * are not UTF-8 become \ufffd. */
void cli_json_string(const char *s);
/* Length (1-4) of the well-formed UTF-8 sequence at p, looking at most
 * `avail` bytes, and its code point in *cp (when cp is not NULL); 0 when
 * the bytes there are not UTF-8. */
int cli_utf8_char(const unsigned char *p, size_t avail, uint32_t *cp);


/* Print every diagnostic of r in human form to `out`:
 * file:line:col: error[E201]: message / source line / caret. `sources`
 * supplies the text for snippets. */
void cli_print_diagnostics(FILE *out, const geno_result *r, const CliProgram *prog);

/* Usage error helper: prints "geno <cmd>: error: <msg>" and a hint. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_compile(int argc, char **argv); /* cmd_compile.c */
int cmd_build(int argc, char **argv);   /* cmd_compile.c */

#endif
