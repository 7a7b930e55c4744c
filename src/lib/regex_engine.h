/* The regex builtins' engine, independent of the VM: the reference's
 * safe-pattern validator (a pattern subset chosen so that matching cannot
 * blow up and means the same in Python and JavaScript), PCRE2 matching with
 * Python `re` semantics for that subset (leftmost-first backtracking,
 * finditer's empty-match rule), and replacement expansion.
 *
 * Strings are UTF-8; offsets are bytes; every limit in the messages counts
 * code points, as the reference's do. Messages are complete ("regex_match:
 * pattern too long (max 1000 chars)"); the caller raises them as E499, or
 * as E504 when a status says the result is too large. */
#ifndef GENO_LIB_REGEX_ENGINE_H
#define GENO_LIB_REGEX_ENGINE_H

#include "../base/buf.h"

/* The reference's limits (its _MAX_REGEX_* constants): patterns of at most
 * 1000 characters; subjects and replacements of at most 10,000; counts in
 * {m,n} of at most 10,000 (no subject is longer, so a larger count only
 * costs compile time and memory); 128 nested groups, checked before the
 * recursive scans so that they cannot recurse deeper. */
enum {
  LIB_REGEX_MAX_PATTERN = 1000,
  LIB_REGEX_MAX_TEXT = 10000,
  LIB_REGEX_MAX_REPEAT = LIB_REGEX_MAX_TEXT,
  LIB_REGEX_MAX_GROUP_DEPTH = 128,
};

typedef enum LibRegexStatus {
  LIB_RE_OK,      /* done */
  LIB_RE_ERROR,   /* a runtime error (E499); message in err */
  LIB_RE_TOO_BIG, /* the result would pass the size limit (E504); message in err */
} LibRegexStatus;

typedef struct LibRegex LibRegex;

/* Validate `pattern` for builtin `fn` and compile it. NULL with the
 * message in err when it is rejected, does not compile, or memory ran out. */
LibRegex *lib_regex_compile(const char *fn, const char *pattern, size_t n, Buf *err);
void lib_regex_free(LibRegex *re);

/* The length check of a subject or replacement argument (`arg` is "text"
 * or "replacement"). */
bool lib_regex_check_arg(const char *fn, const char *arg, const char *s, size_t n, Buf *err);

/* Iteration over the matches of re in text, as Python's finditer: after an
 * empty match at p, the next match may not be empty at p. Start with
 * {0, false, false}. */
typedef struct LibRegexIter {
  size_t pos;        /* where the next search starts (bytes) */
  bool not_empty_at; /* the previous match was empty at pos */
  bool done;
} LibRegexIter;

/* The next match: 1 with its byte span in [*start, *end), 0 when there are
 * no more, -1 on an error (the match limit; message in err). Afterwards
 * lib_regex_group reads the match's groups. */
int lib_regex_next(LibRegex *re, const char *fn, const char *text, size_t n, LibRegexIter *it, size_t *start,
                   size_t *end, Buf *err);

/* Number of capturing groups in the pattern. */
int lib_regex_group_count(const LibRegex *re);
/* Byte span of group i (0 = the whole match) of the last match; false
 * when the group did not take part in it. */
bool lib_regex_group(const LibRegex *re, int i, size_t *start, size_t *end);

/* regex_replace: every match of re in text replaced by the expansion of
 * `replacement` (\N inserts group N; everything else is literal), the
 * result appended to out. The result is checked against max_cp code points
 * as it grows, as the reference checks it; on LIB_RE_TOO_BIG *size is the
 * length that passed the limit. */
LibRegexStatus lib_regex_replace(LibRegex *re, const char *replacement, size_t rn, const char *text, size_t tn,
                                 size_t max_cp, Buf *out, size_t *size, Buf *err);

#endif
