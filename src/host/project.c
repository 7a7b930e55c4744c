/* The project root: the directory of the nearest geno.toml at or above a
 * program's file. The fs roots start there, and the CLI's manifest checks
 * read that file. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* Directory holding the nearest geno.toml at or above `file`'s directory,
 * as a malloc'd path to the manifest, or NULL. */
char *host_find_manifest(const char *file) {
  char dir[PATH_MAX];
  const char *slash = strrchr(file, '/');
  if (!slash) {
    if (!getcwd(dir, sizeof dir)) return NULL;
  } else {
    char tmp[PATH_MAX];
    size_t n = slash == file ? 1 : (size_t)(slash - file);
    if (n >= sizeof tmp) return NULL;
    memcpy(tmp, file, n);
    tmp[n] = '\0';
    if (!realpath(tmp, dir)) return NULL;
  }
  for (;;) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/geno.toml", strcmp(dir, "/") == 0 ? "" : dir);
    if (access(path, F_OK) == 0) return strdup(path);
    char *up = strrchr(dir, '/');
    if (!up || strcmp(dir, "/") == 0) return NULL;
    if (up == dir) up[1] = '\0';
    else *up = '\0';
  }
}

