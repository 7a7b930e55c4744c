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
struct CliProject;
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
  const struct CliProject *project; /* when set, imports are looked up in its
                                modules first (borrowed) */
  geno_module *bundled; /* a bundle's other modules, by module name (malloc'd
                           array, names and sources malloc'd): imports are
                           looked up here only (cli_load_bundle) */
  size_t nbundled;
} CliProgram;

/* How a failure before any run is reported on stdout besides stderr. */
typedef enum { CLI_JSON_NONE, CLI_JSON_RUN, CLI_JSON_CHECK } CliJsonShape;

/* Read the entry file (its imports are read on demand by
 * cli_module_loader, with the program as userdata). On failure prints an error on
 * stderr (and, unless json is CLI_JSON_NONE, an E204 diagnostic as JSON on
 * stdout) and returns false (nothing to free). */
bool cli_load_program(const char *path, CliProgram *prog, CliJsonShape json);
void cli_free_program(CliProgram *prog);
/* Read a bundle (`geno bundle`'s JSON artifact: {"version": "1",
 * "entrypoint": NAME, "modules": {NAME: SOURCE, ...}}) from path (a file
 * or a pipe) as a program: its entry module, shown as NAME.geno, with its
 * other modules served from memory by cli_module_loader. Errors as
 * cli_load_program's. */
bool cli_load_bundle(const char *path, CliProgram *prog, CliJsonShape json);
struct CliProject;
/* cli_load_program for a path that may also be a project directory (its
 * geno.toml's entry module; imports are found among its files), as `geno
 * run DIR` reads it. proj is filled when path is a directory; release both
 * with cli_close_program. Errors are printed ("Error: ..."); false then. */
bool cli_open_program(const char *path, CliProgram *prog, struct CliProject *proj);
void cli_close_program(CliProgram *prog, struct CliProject *proj);
/* geno_module_loader_fn for a CliProgram (userdata): reads <Name>.geno
 * beside the entry file (diagnostics show that path) and keeps a copy in
 * the program's modules. */
bool cli_module_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                       char **error);
/* Read a whole file; NULL with errno set on failure. */
char *cli_read_file(const char *path, size_t *len);

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
 * file:line:col: error[E201]: message / source line / caret. `prog`
 * supplies the text for snippets; NULL: none, one line per diagnostic. */
void cli_print_diagnostics(FILE *out, const geno_result *r, const CliProgram *prog);
/* Write text a program controls (a thrown message, a name) to a terminal:
 * what would act on the terminal or reorder the line (control characters
 * including ESC, BEL and line breaks, C1 controls, bidirectional controls,
 * bytes that are not UTF-8) shows as '?', as in source snippets, so a
 * program cannot forge diagnostic lines or retitle the terminal. */
void cli_put_clean(FILE *out, const char *s);
/* cli_put_clean of the len bytes at s (NULs included, shown as '?');
 * with keep_newlines, '\n' is written as itself (for text made of lines,
 * such as a diff). */
void cli_put_clean_n(FILE *out, const char *s, size_t len, bool keep_newlines);
/* printf to out, the whole formatted text written as cli_put_clean_n with
 * its line breaks kept: for messages that echo a path, a name or other
 * input. */
void cli_printf_clean(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The source excerpt of a diagnostic: line `line` (1-based) of the len
 * bytes at src, cut to a window of code points around column `col`, with
 * a caret under col (tabs kept so it lines up); hidden characters and
 * bytes that are not UTF-8 show as '?'. Nothing when the line is not
 * there. */
void cli_print_snippet(FILE *out, const char *src, size_t len, int line, int col);

/* Usage error helper: prints "geno <cmd>: error: <msg>" and a hint. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The output path of compile, build, doc and bundle (given with option
 * opt): EXIT_OK, or, when it ends in ".geno", a usage error (printed,
 * EXIT_USAGE returned), so that `-o prog.geno` cannot replace a program
 * with its own output. */
int cli_check_output_name(const char *cmd, const char *opt, const char *path);

/* What geno.toml says (the keys the CLI uses). */
typedef struct CliManifest {
  char *path;           /* the manifest's path */
  char **targets;       /* `targets` (or none) */
  size_t ntargets;
  char **files;         /* `files`: the project's sources, relative to its
                           root (none: every *.geno in the root) */
  size_t nfiles;
  char *entrypoint;     /* `entrypoint` module name, or NULL */
} CliManifest;
/* Read and validate the manifest at `path` (valid TOML; `targets` and
 * `files` arrays of strings, `entrypoint` a string). False with a
 * malloc'd *err naming the manifest otherwise. Free with
 * cli_manifest_free. */
bool cli_manifest_read(const char *path, CliManifest *m, char **err);
void cli_manifest_free(CliManifest *m);

/* A project: a directory of modules (geno.toml's `files`, or every *.geno
 * in it), ordered so that a module comes after the modules it imports
 * (ties by name, as the reference orders them). */
typedef struct CliProjectFile {
  char *module;         /* module name (the file's stem) */
  char *path;           /* path as shown (root joined with the entry) */
} CliProjectFile;
typedef struct CliProject {
  char *root;           /* the directory */
  CliManifest manifest; /* manifest.path NULL when there is none */
  CliProjectFile *files;
  size_t nfiles;
  size_t entry;         /* index of the entry module: geno.toml's
                           `entrypoint`, else the last in the order */
} CliProject;
/* Resolve directory `dir` as a project. False with a malloc'd *err
 * ("No .geno files found in DIR", a manifest error, a declared file that
 * is missing or escapes the root, an unknown entrypoint). */
bool cli_project_open(const char *dir, CliProject *p, char **err);
void cli_project_free(CliProject *p);
/* The path of module `name` in project p, or NULL. */
const char *cli_project_module_path(const CliProject *p, const char *name);
/* Whether path names a directory. */
bool cli_is_dir(const char *path);

/* Every *.geno file under dir, recursively, in name order (symbolic links
 * to directories are not followed; at most 64 levels). On success *paths
 * is a malloc'd array of *n malloc'd paths (possibly none); false on out
 * of memory. */
bool cli_find_sources(const char *dir, char ***paths, size_t *n);
/* Whether the resolved path `real` lies under the resolved folder `root`
 * (both from realpath). */
bool cli_path_under(const char *real, const char *root);

int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_constrain(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_repl(int argc, char **argv);
int cmd_doc(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_compile(int argc, char **argv); /* cmd_compile.c */
int cmd_build(int argc, char **argv);   /* cmd_compile.c */

#endif
