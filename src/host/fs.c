/* The CLI's filesystem callbacks (capability fs): fs_read_text,
 * fs_write_text, fs_list_dir, fs_exists, fs_metadata, fs_symlink_metadata,
 * fs_canonicalize, under the reference CLI's root policy.
 *
 * Roots: the real paths of the current directory, the program's
 * directory, the project root (the nearest geno.toml above it) and, for
 * each program argument that looks like a path (absolute, or containing a
 * '/'), that directory or the directory holding that file. The user chose
 * those on the command line; the program chooses nothing.
 *
 * A path is resolved the way Python's os.path.realpath does it (every
 * symbolic link followed, `..` applied to the resolved parent), relative
 * paths against each root in turn, and the result must lie inside a root:
 * otherwise "<fn>: path escapes configured filesystem roots". Because the
 * check is made on the fully resolved path, neither `..` nor a link can
 * lead out. The file is then opened by that resolved path with
 * openat2(RESOLVE_NO_SYMLINKS), so a link swapped in between the check and
 * the open makes the open fail instead of being followed.
 *
 * Nothing here blocks on a FIFO or device (O_NONBLOCK), and what is read
 * is bounded by the collection limit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host.h"

/* Longest path argument accepted, in bytes. The kernel refuses anything
 * past 4,096 anyway; this only keeps a hostile 10 MB path from costing
 * millions of lstat calls before that refusal. */
#define FS_MAX_PATH_ARG 65536
/* Symbolic links followed while resolving one path. The kernel gives up
 * after 40; past this the path is left unresolved (as Python does for a
 * loop) and opening it fails. */
#define FS_MAX_LINKS 64
/* Bytes read per chunk: Python's text files decode 8 KiB at a time, and
 * its UnicodeDecodeError positions and size-limit counts are relative to
 * those chunks, so reading the same way gives the same messages. */
#define FS_CHUNK 8192
/* Largest integer a FileMetadata field may hold (2^53 - 1): the reference
 * keeps values exact in JavaScript too. */
#define FS_MAX_SAFE_INT 9007199254740991LL

/* ---- resolution ------------------------------------------------------------------ */

typedef struct Seen {
  char *link;     /* a link met during this resolution */
  char *resolved; /* what it resolved to; NULL while being resolved (a loop) */
} Seen;

typedef struct Resolver {
  Seen seen[FS_MAX_LINKS];
  int nseen;
} Resolver;

/* path := dirname(path) for a normalized absolute path. */
static void str_dirname(HostStr *p) {
  char *slash = strrchr(p->s, '/');
  p->len = slash == p->s ? 1 : (size_t)(slash - p->s);
  p->s[p->len] = '\0';
}

static void str_join(HostStr *p, const char *name, size_t n) {
  if (p->len == 0 || p->s[p->len - 1] != '/') host_str_add(p, "/", 1);
  host_str_add(p, name, n);
}

static void str_set(HostStr *p, const char *s, size_t n) {
  p->len = 0;
  host_str_add(p, s, n);
}

/* The target of a link (malloc'd), or "" when it cannot be read (it
 * vanished meanwhile: then it counts as a plain name); NULL when out of
 * memory. Linux keeps targets below PATH_MAX, but the buffer grows rather
 * than assume it. */
static char *read_link(const char *path, size_t *len) {
  for (size_t cap = 256;; cap *= 2) {
    char *buf = malloc(cap);
    if (!buf) return NULL;
    ssize_t m = readlink(path, buf, cap);
    if (m < 0) m = 0;
    if ((size_t)m < cap) {
      buf[m] = '\0';
      *len = (size_t)m;
      return buf;
    }
    free(buf);
    if (cap > FS_MAX_PATH_ARG) return NULL;
  }
}

/* Python's posixpath._joinrealpath: resolve `rest` on top of the resolved
 * absolute `path`. Returns 1 when resolved, 0 for a loop (path is then the
 * part resolved so far joined with the rest, unresolved). */
static int join_real(Resolver *r, HostStr *path, const char *rest, size_t n) {
  size_t i = 0;
  if (n && rest[0] == '/') str_set(path, "/", 1);
  while (i < n && !path->oom) {
    size_t j = i;
    while (j < n && rest[j] != '/') j++;
    const char *name = rest + i;
    size_t len = j - i;
    i = j < n ? j + 1 : j;
    if (len == 0 || (len == 1 && name[0] == '.')) continue;
    if (len == 2 && name[0] == '.' && name[1] == '.') {
      str_dirname(path);
      continue;
    }
    size_t before = path->len;
    str_join(path, name, len);
    if (path->oom) return 1;
    struct stat st;
    if (lstat(path->s, &st) != 0 || !S_ISLNK(st.st_mode)) continue;
    int k = 0;
    while (k < r->nseen && strcmp(r->seen[k].link, path->s) != 0) k++;
    if (k < r->nseen && r->seen[k].resolved) {
      str_set(path, r->seen[k].resolved, strlen(r->seen[k].resolved));
      continue;
    }
    if (k < r->nseen || r->nseen >= FS_MAX_LINKS) { /* a loop, or too many links */
      if (i < n) str_join(path, rest + i, n - i);
      return 0;
    }
    char *link = strdup(path->s);
    size_t tlen;
    char *target = link ? read_link(link, &tlen) : NULL;
    if (!target) {
      free(link);
      path->oom = true;
      return 1;
    }
    r->seen[r->nseen++] = (Seen){link, NULL};
    path->len = before; /* the directory holding the link */
    path->s[before] = '\0';
    int ok = join_real(r, path, target, tlen);
    free(target);
    if (!ok) {
      if (i < n) str_join(path, rest + i, n - i);
      return 0;
    }
    r->seen[k].resolved = strdup(path->s);
    if (!r->seen[k].resolved) path->oom = true;
  }
  return 1;
}

static void resolver_free(Resolver *r) {
  for (int i = 0; i < r->nseen; i++) {
    free(r->seen[i].link);
    free(r->seen[i].resolved);
  }
  r->nseen = 0;
}

/* Python's normpath of an absolute path: `.`, `..` and repeated slashes
 * removed lexically. Only a symlink loop leaves anything to remove, and
 * Python's realpath ends with it too. */
static void normpath(HostStr *p) {
  HostStr out = {0};
  str_set(&out, "/", 1);
  size_t i = 0, n = p->len;
  while (i < n) {
    size_t j = i;
    while (j < n && p->s[j] != '/') j++;
    size_t len = j - i;
    if (len == 2 && p->s[i] == '.' && p->s[i + 1] == '.') str_dirname(&out);
    else if (len && !(len == 1 && p->s[i] == '.')) str_join(&out, p->s + i, len);
    i = j + 1;
  }
  if (out.oom) p->oom = true;
  else str_set(p, out.s, out.len);
  host_str_free(&out);
}

char *host_fs_realpath(const char *path, size_t len, bool *nul) {
  *nul = memchr(path, '\0', len) != NULL;
  if (*nul) return NULL;
  Resolver r = {0};
  HostStr p = {0};
  str_set(&p, "/", 1);
  if (!join_real(&r, &p, path, len)) normpath(&p);
  resolver_free(&r);
  return host_str_take(&p);
}

bool host_fs_under_root(const char *path, const char *root) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return path[0] == '/';
  return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The reference's resolve_parent: each component resolved on its own, so
 * `..` applies to the resolved directory. */
static void resolve_parent(HostStr *cur, const char *p, size_t n) {
  str_set(cur, "/", 1);
  size_t i = 0;
  while (i < n && !cur->oom) {
    size_t j = i;
    while (j < n && p[j] != '/') j++;
    const char *name = p + i;
    size_t len = j - i;
    i = j + 1;
    if (len == 0 || (len == 1 && name[0] == '.')) continue;
    if (len == 2 && name[0] == '.' && name[1] == '.') {
      str_dirname(cur);
      continue;
    }
    Resolver r = {0};
    if (!join_real(&r, cur, name, len)) normpath(cur);
    resolver_free(&r);
  }
}

/* The path to check for fs_symlink_metadata: parents resolved, the last
 * name kept as it is (so a final link is reported, not followed). */
static char *lstat_candidate(const char *c, size_t n) {
  HostStr out = {0};
  size_t cut = n;
  while (cut > 0 && c[cut - 1] != '/') cut--;
  const char *name = c + cut;
  size_t nlen = n - cut;
  if (nlen == 0) {
    resolve_parent(&out, c, n);
    return host_str_take(&out);
  }
  resolve_parent(&out, c, cut);
  if (nlen == 2 && name[0] == '.' && name[1] == '.') str_dirname(&out);
  else if (!(nlen == 1 && name[0] == '.')) str_join(&out, name, nlen);
  return host_str_take(&out);
}

/* Resolve the program's path for builtin `fn` and check it against the
 * roots. Returns the malloc'd resolved path, or NULL with the reason in
 * *why (the reference's text); *why stays empty when out of memory. */
static char *scope(Host *h, const char *fn, const char *path, size_t len, bool keep_last, HostStr *why) {
  if (memchr(path, '\0', len)) {
    host_str_puts(why, "embedded null byte");
    return NULL;
  }
  if (len > FS_MAX_PATH_ARG) {
    host_str_printf(why, "%s: path is too long (%zu bytes; at most %d)", fn, len, FS_MAX_PATH_ARG);
    return NULL;
  }
  bool absolute = len && path[0] == '/';
  for (size_t i = 0; i < (absolute ? 1 : h->nroots); i++) {
    HostStr cand = {0};
    if (!absolute) {
      host_str_puts(&cand, h->roots[i]);
      if (len) str_join(&cand, path, len);
    } else host_str_add(&cand, path, len);
    char *resolved = NULL;
    if (!cand.oom) {
      if (keep_last) resolved = lstat_candidate(cand.s, cand.len);
      else {
        bool nul;
        resolved = host_fs_realpath(cand.s, cand.len, &nul);
      }
    }
    host_str_free(&cand);
    if (!resolved) return NULL;
    for (size_t k = 0; k < h->nroots; k++) {
      if ((absolute || k == i) && host_fs_under_root(resolved, h->roots[k])) return resolved;
    }
    free(resolved);
  }
  host_str_printf(why, "%s: path escapes configured filesystem roots", fn);
  return NULL;
}

/* ---- opening without following links ---------------------------------------------- */

bool host_fs_no_openat2 = false;

/* Without openat2 (Linux before 5.6): walk the path a component at a
 * time, each opened with O_NOFOLLOW relative to its parent, which is what
 * RESOLVE_NO_SYMLINKS does in the kernel. The path is absolute and
 * normalized (no `.` or `..`). */
static int open_walk(const char *path, int flags, mode_t mode) {
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char *p = path;
  while (dir >= 0) {
    while (*p == '/') p++;
    const char *end = strchr(p, '/');
    if (!*p) { /* the path was "/" */
      int fd = openat(dir, ".", flags | O_CLOEXEC, mode);
      close(dir);
      return fd;
    }
    char *name = strndup(p, end ? (size_t)(end - p) : strlen(p));
    if (!name) {
      close(dir);
      errno = ENOMEM;
      return -1;
    }
    bool last = !end || end[strspn(end, "/")] == '\0';
    int fd = last ? openat(dir, name, flags | O_CLOEXEC | O_NOFOLLOW, mode)
                  : openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    struct stat st;
    if (fd < 0 && e == ENOTDIR && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      e = ELOOP; /* what openat2 says for a link on the way */
    free(name);
    close(dir);
    errno = e;
    if (last || fd < 0) return fd;
    dir = fd;
    p = end;
  }
  return -1;
}

/* Open a resolved path so that a symbolic link anywhere in it (one swapped
 * in since it was resolved, or one a loop left unresolved) is refused
 * (ELOOP) rather than followed. */
static int open_nofollow(const char *path, int flags, mode_t mode) {
  if (!host_fs_no_openat2) {
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC), .mode = mode, .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS) return fd;
  }
  return open_walk(path, flags, mode);
}

/* "[Errno 2] No such file or directory: '/abs/path'" */
static void os_error(HostStr *b, int err, const char *path) {
  host_str_printf(b, "[Errno %d] %s", err, strerror(err));
  if (path) {
    host_str_puts(b, ": ");
    host_py_repr(b, path, strlen(path));
  }
}

static int stat_nofollow(const char *path, struct stat *st) {
  int fd = open_nofollow(path, O_PATH, 0);
  if (fd < 0) return -1;
  int rc = fstat(fd, st);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

/* lstat of the last component, its parent opened without following links. */
static int lstat_nofollow(const char *path, struct stat *st) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash[1] == '\0') return stat_nofollow(path, st);
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *dir = strndup(path, n);
  if (!dir) {
    errno = ENOMEM;
    return -1;
  }
  int fd = open_nofollow(dir, O_PATH | O_DIRECTORY, 0);
  free(dir);
  if (fd < 0) return -1;
  int rc = fstatat(fd, slash + 1, st, AT_SYMLINK_NOFOLLOW);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

/* ---- the callbacks ------------------------------------------------------------------- */

#define HOST(ud) ((Host *)(ud))

static geno_value *fs_read_text(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                char **error) {
  Host *h = HOST(ud);
  size_t plen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  if (!p) return host_fail(error, "fs_read_text: path must be String");
  HostStr why = {0};
  char *path = scope(h, "fs_read_text", p, plen, false, &why);
  if (!path) return why.len ? host_fail_str(error, &why) : host_fail(error, "out of memory");
  int fd = open_nofollow(path, O_RDONLY | O_NONBLOCK, 0);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    fd = -1;
    errno = EISDIR;
  }
  if (fd < 0) {
    os_error(&why, errno, path);
    free(path);
    return host_fail_str(error, &why);
  }
  free(path);
  /* Decode as Python's text mode does: strict UTF-8, universal newlines,
   * 8 KiB chunks; a sequence cut by a chunk boundary waits in `buf`. */
  unsigned char buf[FS_CHUNK + 4];
  size_t pending = 0;
  uint64_t count = 0, limit = h->max_collection;
  /* Python counts its 8192-character reads; the first total past the
   * limit it reports is a multiple of 8192 or the whole file. */
  uint64_t report_at = (limit / FS_CHUNK + 1) * FS_CHUNK;
  bool prev_cr = false, over = false;
  HostStr out = {0};
  geno_value *result = NULL;
  for (;;) {
    ssize_t n = read(fd, buf + pending, FS_CHUNK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      os_error(&why, errno, NULL);
      result = host_fail_str(error, &why);
      goto done;
    }
    bool final = n == 0;
    size_t m = pending + (size_t)n, i = 0;
    while (i < m) {
      size_t bad;
      const char *reason;
      int k = host_utf8_seq(buf + i, m - i, final, &bad, &reason);
      if (k < 0) break;
      if (k == 0) {
        /* before the 8192nd character the reference's read is still
         * decoding: the error comes before the size check */
        host_utf8_error(&why, buf + i, i, bad, reason);
        result = host_fail_str(error, &why);
        goto done;
      }
      unsigned char c = buf[i];
      if (c == '\n' && prev_cr) { /* the \n of \r\n: already written */
        prev_cr = false;
        i++;
        continue;
      }
      prev_cr = c == '\r';
      count++;
      if (count > limit) over = true;
      if (!over) {
        if (c == '\r') host_str_add(&out, "\n", 1);
        else host_str_add(&out, (const char *)buf + i, (size_t)k);
      } else if (count >= report_at) goto too_big;
      i += (size_t)k;
    }
    pending = m - i;
    memmove(buf, buf + i, pending);
    if (final) break;
  }
  if (over) goto too_big;
  if (out.oom) result = host_fail(error, "out of memory");
  else result = host_value(error, geno_value_new_string(out.s ? out.s : "", out.len));
  goto done;
too_big:
  result = host_size_error(error, "String", count < report_at ? count : report_at, limit);
done:
  host_str_free(&out);
  host_str_free(&why);
  close(fd);
  return result;
}

static geno_value *fs_write_text(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                 char **error) {
  Host *h = HOST(ud);
  size_t plen, clen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  const char *content = host_arg_str(args, nargs, 1, &clen);
  if (!p || !content) return host_fail(error, "fs_write_text: path and content must be String");
  if (h->fs_read_only)
    return host_fail(error, "fs_write_text: filesystem writes are not allowed");
  if (h->max_file_bytes && clen > h->max_file_bytes) {
    return host_fail(error, "fs_write_text: %zu bytes exceed the file size limit of %llu bytes (--max-file-size-bytes)",
                     clen, (unsigned long long)h->max_file_bytes);
  }
  HostStr why = {0};
  char *path = scope(h, "fs_write_text", p, plen, false, &why);
  if (!path) return why.len ? host_fail_str(error, &why) : host_fail(error, "out of memory");
  int fd = open_nofollow(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0666);
  if (fd < 0) {
    os_error(&why, errno, path);
    free(path);
    return host_fail_str(error, &why);
  }
  free(path);
  size_t done = 0;
  while (done < clen) {
    ssize_t n = write(fd, content + done, clen - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      os_error(&why, errno, NULL);
      close(fd);
      return host_fail_str(error, &why);
    }
    done += (size_t)n;
  }
  if (close(fd) != 0 && errno != EINTR) {
    os_error(&why, errno, NULL);
    return host_fail_str(error, &why);
  }
  return host_value(error, geno_value_new_unit());
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static geno_value *fs_list_dir(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                               char **error) {
  Host *h = HOST(ud);
  size_t plen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  if (!p) return host_err(error, "fs_list_dir: path must be String");
  if (memchr(p, '\0', plen)) return host_fail(error, "embedded null byte"); /* a ValueError: raised */
  HostStr why = {0};
  char *path = scope(h, "fs_list_dir", p, plen, false, &why);
  if (!path) return why.len ? host_err_str(error, &why) : host_fail(error, "out of memory");
  int fd = open_nofollow(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK, 0);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int e = errno;
    if (fd >= 0) close(fd);
    os_error(&why, e, path);
    free(path);
    return host_err_str(error, &why);
  }
  free(path);
  char **names = NULL;
  size_t n = 0, cap = 0;
  bool oom = false, over = false;
  struct dirent *e;
  while (!oom && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (n + 1 > h->max_collection) { /* count on without keeping */
      over = true;
      n++;
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      char **t = realloc(names, cap * sizeof *names);
      if (!t) {
        oom = true;
        break;
      }
      names = t;
    }
    HostStr s = {0};
    host_utf8_replace(&s, (const unsigned char *)e->d_name, strlen(e->d_name), NULL);
    names[n] = host_str_take(&s);
    if (!names[n]) oom = true;
    else n++;
  }
  closedir(d);
  size_t kept = over ? (size_t)h->max_collection : n;
  geno_value *result = NULL;
  if (oom) result = host_fail(error, "out of memory");
  else if (over) result = host_size_error(error, "List", n, h->max_collection);
  else {
    if (kept) qsort(names, kept, sizeof *names, cmp_names); /* UTF-8 byte order is code-point order */
    geno_value **items = calloc(kept ? kept : 1, sizeof *items);
    bool ok = items != NULL;
    for (size_t i = 0; ok && i < kept; i++) ok = (items[i] = geno_value_new_string(names[i], strlen(names[i]))) != NULL;
    if (ok) {
      geno_value *list = geno_value_new_list(items, kept);
      result = host_value(error, list ? geno_value_new_ok(list) : NULL);
    } else {
      for (size_t i = 0; items && i < kept; i++) geno_value_free(items[i]);
      result = host_fail(error, "out of memory");
    }
    free(items);
  }
  for (size_t i = 0; i < kept; i++) free(names[i]);
  free(names);
  return result;
}

static geno_value *fs_exists(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                             char **error) {
  Host *h = HOST(ud);
  size_t plen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  if (!p) return host_fail(error, "fs_exists: path must be String");
  HostStr why = {0};
  char *path = scope(h, "fs_exists", p, plen, false, &why);
  if (!path) return why.len ? host_fail_str(error, &why) : host_fail(error, "out of memory");
  struct stat st;
  bool exists = stat_nofollow(path, &st) == 0;
  free(path);
  return host_value(error, geno_value_new_bool(exists));
}

/* Ok(FileMetadata(kind, size, modified_ms)) */
static geno_value *metadata_value(const struct stat *st, const char *fn, char **error) {
  const char *kind = S_ISREG(st->st_mode)   ? "FileKindFile"
                     : S_ISDIR(st->st_mode) ? "FileKindDirectory"
                     : S_ISLNK(st->st_mode) ? "FileKindSymlink"
                                            : "FileKindOther";
  long long size = (long long)st->st_size;
  /* st_mtime_ns // 1_000_000, rounded down (tv_nsec is never negative) */
  long long ms = (long long)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
  if (size > FS_MAX_SAFE_INT || size < -FS_MAX_SAFE_INT)
    return host_fail(error, "%s size exceeds JavaScript safe integer range", fn);
  if (ms > FS_MAX_SAFE_INT || ms < -FS_MAX_SAFE_INT)
    return host_fail(error, "%s modified_ms exceeds JavaScript safe integer range", fn);
  static const char *const fields[] = {"kind", "size", "modified_ms"};
  geno_value *vals[3] = {geno_value_new_ctor(kind, NULL, NULL, 0), geno_value_new_int(size), geno_value_new_int(ms)};
  if (!vals[0] || !vals[1] || !vals[2]) {
    for (int i = 0; i < 3; i++) geno_value_free(vals[i]);
    return host_fail(error, "out of memory");
  }
  geno_value *md = geno_value_new_ctor("FileMetadata", fields, vals, 3);
  return host_value(error, md ? geno_value_new_ok(md) : NULL);
}

static geno_value *metadata(Host *h, const char *fn, bool follow, const geno_value *const *args, size_t nargs,
                            char **error) {
  size_t plen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  if (!p) return host_err(error, "path must be String");
  HostStr why = {0};
  char *path = scope(h, fn, p, plen, !follow, &why);
  if (!path) return why.len ? host_err_str(error, &why) : host_fail(error, "out of memory");
  struct stat st;
  int rc = follow ? stat_nofollow(path, &st) : lstat_nofollow(path, &st);
  if (rc != 0) {
    os_error(&why, errno, path);
    free(path);
    return host_err_str(error, &why);
  }
  free(path);
  return metadata_value(&st, fn, error);
}

static geno_value *fs_metadata(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                               char **error) {
  return metadata(HOST(ud), "fs_metadata", true, args, nargs, error);
}

static geno_value *fs_symlink_metadata(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                       char **error) {
  return metadata(HOST(ud), "fs_symlink_metadata", false, args, nargs, error);
}

static geno_value *fs_canonicalize(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                   char **error) {
  Host *h = HOST(ud);
  size_t plen;
  const char *p = host_arg_str(args, nargs, 0, &plen);
  if (!p) return host_err(error, "path must be String");
  HostStr why = {0};
  char *path = scope(h, "fs_canonicalize", p, plen, false, &why);
  if (!path) return why.len ? host_err_str(error, &why) : host_fail(error, "out of memory");
  struct stat st;
  if (stat_nofollow(path, &st) != 0) {
    free(path);
    host_str_puts(&why, "fs_canonicalize: path does not exist: ");
    host_str_add(&why, p, plen);
    return host_err_str(error, &why);
  }
  HostStr s = {0};
  host_utf8_replace(&s, (const unsigned char *)path, strlen(path), NULL);
  free(path);
  geno_value *r = s.oom ? NULL : host_ok_string(error, s.s, s.len);
  if (s.oom) r = host_fail(error, "out of memory");
  host_str_free(&s);
  return r;
}

/* ---- roots ---------------------------------------------------------------------------- */

static bool add_root(Host *h, const char *dir) {
  bool nul;
  char *real = host_fs_realpath(dir, strlen(dir), &nul);
  if (!real) return false;
  for (size_t i = 0; i < h->nroots; i++)
    if (strcmp(h->roots[i], real) == 0) {
      free(real);
      return true;
    }
  char **r = realloc(h->roots, (h->nroots + 1) * sizeof *r);
  if (!r) {
    free(real);
    return false;
  }
  h->roots = r;
  h->roots[h->nroots++] = real;
  return true;
}

/* An absolute form of `p` (relative to the current directory). */
static char *absolute(const char *p, const char *cwd) {
  HostStr s = {0};
  if (p[0] != '/') host_str_puts(&s, cwd);
  if (p[0] != '/') host_str_puts(&s, "/");
  host_str_puts(&s, p);
  return host_str_take(&s);
}

static bool add_parent_root(Host *h, const char *abs_path) {
  bool nul;
  char *real = host_fs_realpath(abs_path, strlen(abs_path), &nul);
  if (!real) return false;
  struct stat st;
  if (!(stat(real, &st) == 0 && S_ISDIR(st.st_mode))) { /* a file: the directory holding it */
    char *slash = strrchr(real, '/');
    if (slash == real) slash[1] = '\0';
    else *slash = '\0';
  }
  bool ok = add_root(h, real);
  free(real);
  return ok;
}

/* The roots of an explicit list (HostOptions.fs_roots). */
static bool add_listed_roots(Host *h, const char *list, char **err) {
  for (const char *p = list;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len) {
      char *dir = strndup(p, len);
      if (!dir) return false;
      if (!add_root(h, dir)) {
        HostStr m = {0};
        host_str_printf(&m, "fs root '%s' cannot be resolved", dir);
        *err = host_str_take(&m);
        free(dir);
        return false;
      }
      free(dir);
    }
    if (!end) break;
    p = end + 1;
  }
  if (h->nroots == 0) {
    *err = strdup("no fs root is configured");
    return false;
  }
  return true;
}

static bool install_fs_callbacks(Host *h) {
  static const struct {
    const char *name;
    geno_callback_fn fn;
  } fns[] = {
      {"fs_read_text", fs_read_text},       {"fs_write_text", fs_write_text}, {"fs_list_dir", fs_list_dir},
      {"fs_exists", fs_exists},             {"fs_metadata", fs_metadata},     {"fs_symlink_metadata", fs_symlink_metadata},
      {"fs_canonicalize", fs_canonicalize},
  };
  bool ok = true;
  for (size_t i = 0; ok && i < sizeof fns / sizeof *fns; i++) ok = host_add(h, fns[i].name, fns[i].fn);
  return ok;
}

bool host_fs_install(Host *h, const HostOptions *o, char **err) {
  if (o->fs_roots) return add_listed_roots(h, o->fs_roots, err) && install_fs_callbacks(h);
  char *cwd = getcwd(NULL, 0);
  if (!cwd) {
    *err = strdup("cannot determine the current directory for the fs roots");
    return false;
  }
  bool ok = add_root(h, cwd);
  /* the program's directory */
  char *prog = absolute(o->program_path, cwd);
  if (ok) ok = prog != NULL;
  if (ok) {
    char *slash = strrchr(prog, '/');
    if (slash == prog) slash[1] = '\0';
    else *slash = '\0';
    ok = add_root(h, prog);
  }
  free(prog);
  /* the project root */
  char *manifest = ok ? host_find_manifest(o->program_path) : NULL;
  if (manifest) {
    char *slash = strrchr(manifest, '/');
    if (slash == manifest) slash[1] = '\0';
    else *slash = '\0';
    ok = add_root(h, manifest);
    free(manifest);
  }
  /* path-like program arguments */
  for (size_t i = 0; ok && i < o->nargs; i++) {
    const char *a = o->args[i];
    if (a[0] != '/' && !strchr(a, '/')) continue;
    char *abs = absolute(a, cwd);
    ok = abs && add_parent_root(h, abs);
    free(abs);
  }
  free(cwd);
  return ok && install_fs_callbacks(h);
}

void host_fs_free(Host *h) {
  for (size_t i = 0; i < h->nroots; i++) free(h->roots[i]);
  free(h->roots);
  h->roots = NULL;
  h->nroots = 0;
}
