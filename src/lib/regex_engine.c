/* The regex builtins' engine: safe-pattern validation, PCRE2 matching with
 * Python `re` semantics, replacement expansion (see regex_engine.h).
 *
 * The validator mirrors the reference's checks one by one, in its order,
 * over code points (its pattern is a Python str). Each check is a plain
 * scan; the only recursion (adjacent atoms, into group bodies) is bounded
 * by the group-depth check that runs first. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex_engine.h"

#include <pcre2.h>
#include <stdio.h>

#include "../base/utf8.h"

/* PCRE2's own budgets for one search. The validator keeps patterns from
 * backtracking exponentially, so these are a second line: ten million
 * backtracking points is well under a second, 100,000 nested backtracking
 * frames covers a quantifier over a whole 10,000-character subject, and
 * 20 MiB of backtracking memory bounds what one search may take. */
#define REGEX_MATCH_LIMIT 10000000u
#define REGEX_DEPTH_LIMIT 100000u
#define REGEX_HEAP_LIMIT_KIB 20480u

struct LibRegex {
  pcre2_code *code;
  pcre2_match_data *md;
  pcre2_match_context *mctx;
  int ngroups;
  bool matched; /* md holds a match */
};

/* ------------------------------------------------------------------------ */
/* Validation (the reference's _validate_regex_pattern, in its order)       */
/* ------------------------------------------------------------------------ */

typedef struct Pat {
  const int32_t *p; /* code points */
  size_t n;
} Pat;

static bool is_digit(int32_t c) { return c >= '0' && c <= '9'; }

static bool has_backreference(Pat s) {
  for (size_t i = 0; i + 1 < s.n; i++) {
    if (s.p[i] == '\\' && s.p[i + 1] >= '1' && s.p[i + 1] <= '9') return true;
    /* (?P=name) */
    if (s.p[i] == '(' && i + 4 < s.n && s.p[i + 1] == '?' && s.p[i + 2] == 'P' && s.p[i + 3] == '=') {
      size_t j = i + 4;
      int32_t c = s.p[j];
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')) continue;
      while (j < s.n && ((s.p[j] >= 'A' && s.p[j] <= 'Z') || (s.p[j] >= 'a' && s.p[j] <= 'z') ||
                         is_digit(s.p[j]) || s.p[j] == '_'))
        j++;
      if (j < s.n && s.p[j] == ')') return true;
    }
  }
  return false;
}

static bool group_depth_exceeds(Pat s) {
  int depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < s.n; i++) {
    int32_t c = s.p[i];
    if (c == '\\') {
      i++;
      continue;
    }
    if (c == '[' && !in_class) in_class = true;
    else if (c == ']' && in_class) in_class = false;
    else if (!in_class && c == '(' && ++depth > LIB_REGEX_MAX_GROUP_DEPTH) return true;
    else if (!in_class && c == ')' && depth) depth--;
  }
  return false;
}

/* A quantified group whose body holds a quantifier: (a+)+, ((a)*)?, (a{2})*. */
static bool has_nested_quantifier(Pat s) {
  for (size_t i = 0; i < s.n; i++) {
    if (s.p[i] == '\\') {
      i++;
      continue;
    }
    if (s.p[i] != ')') continue;
    size_t j = i + 1;
    while (j < s.n && (s.p[j] == ' ' || s.p[j] == '\t')) j++;
    if (j >= s.n || !(s.p[j] == '+' || s.p[j] == '*' || s.p[j] == '?' || s.p[j] == '{')) continue;
    /* Back to the matching '(' (parentheses not preceded by '\'). */
    long depth = 1, k = (long)i - 1;
    while (k >= 0 && depth > 0) {
      bool plain = k == 0 || s.p[k - 1] != '\\';
      if (s.p[k] == ')' && plain) depth++;
      else if (s.p[k] == '(' && plain) depth--;
      k--;
    }
    size_t body = (size_t)(k + 2);
    for (size_t m = body; m < i; m++) {
      int32_t c = s.p[m];
      if (c == '\\') {
        m++;
        continue;
      }
      if (c == '+' || c == '*') return true;
      if (c == '?' && m > body && s.p[m - 1] != '(') return true;
      if (c == '{' && m + 1 < i && is_digit(s.p[m + 1])) return true;
    }
  }
  return false;
}

/* A repeated group containing '|' anywhere inside: (a|ab)*. */
static bool has_overlapping_alternation(Pat s) {
  size_t i = 0;
  while (i < s.n) {
    if (s.p[i] == '\\') {
      i += 2;
      continue;
    }
    if (s.p[i] == '[') {
      for (i++; i < s.n; i++) {
        if (s.p[i] == '\\') {
          i++;
          continue;
        }
        if (s.p[i] == ']') {
          i++;
          break;
        }
      }
      continue;
    }
    if (s.p[i] != '(') {
      i++;
      continue;
    }
    size_t start = i, j = i + 1;
    int depth = 1;
    bool alternation = false, in_class = false;
    while (j < s.n && depth > 0) {
      int32_t c = s.p[j];
      if (c == '\\') {
        j += 2;
        continue;
      }
      if (in_class) {
        if (c == ']') in_class = false;
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        if (--depth == 0) break;
      } else if (c == '|') {
        alternation = true;
      }
      j++;
    }
    if (depth != 0) return false; /* unterminated: left to the compiler */
    size_t q = j + 1;
    while (q < s.n && (s.p[q] == ' ' || s.p[q] == '\t')) q++;
    if (alternation && q < s.n && (s.p[q] == '+' || s.p[q] == '*' || s.p[q] == '?' || s.p[q] == '{')) return true;
    i = start + 1; /* look inside too */
  }
  return false;
}

/* End (index of ']') of the class opening at start, within [start, hi). */
static bool class_end(Pat s, size_t start, size_t hi, size_t *end) {
  for (size_t i = start + 1; i < hi; i++) {
    if (s.p[i] == '\\') {
      i++;
      continue;
    }
    if (s.p[i] == ']') {
      *end = i;
      return true;
    }
  }
  return false;
}

static bool group_end(Pat s, size_t start, size_t hi, size_t *end) {
  int depth = 1;
  for (size_t i = start + 1; i < hi; i++) {
    if (s.p[i] == '\\') {
      i++;
      continue;
    }
    if (s.p[i] == '[') {
      size_t ce;
      if (!class_end(s, i, hi, &ce)) return false;
      i = ce;
      continue;
    }
    if (s.p[i] == '(') depth++;
    else if (s.p[i] == ')' && --depth == 0) {
      *end = i;
      return true;
    }
  }
  return false;
}

/* What an atom is, for the overlap test: its kind and its text. */
typedef enum { ATOM_LITERAL, ATOM_ESCAPE, ATOM_CLASS, ATOM_GROUP } AtomKind;
typedef struct Atom {
  AtomKind kind;
  size_t lo, hi; /* text span in the pattern */
} Atom;

static bool atom_is(Pat s, Atom a, AtomKind kind, int32_t c) {
  return a.kind == kind && a.hi - a.lo == 1 && s.p[a.lo] == c;
}

static bool atoms_overlap(Pat s, Atom a, Atom b) {
  if (a.kind == b.kind && a.hi - a.lo == b.hi - b.lo &&
      memcmp(s.p + a.lo, s.p + b.lo, (a.hi - a.lo) * sizeof *s.p) == 0)
    return true;
  if (atom_is(s, a, ATOM_LITERAL, '.') || atom_is(s, b, ATOM_LITERAL, '.')) return true;
  return a.kind != ATOM_LITERAL || b.kind != ATOM_LITERAL;
}

/* The quantifier at `at`, if any: its end and what it allows. */
static bool quantifier_at(Pat s, size_t at, size_t hi, size_t *end, bool *ambiguous, bool *consume, bool *required) {
  if (at >= hi) return false;
  int32_t c = s.p[at];
  if (c == '*' || c == '+' || c == '?') {
    *end = at + 1 < hi && s.p[at + 1] == '?' ? at + 2 : at + 1;
    *ambiguous = *consume = true;
    *required = c == '+';
    return true;
  }
  if (c != '{' || at + 1 >= hi) return false;
  size_t i = at + 1;
  bool min_nonzero = false;
  for (; i < hi && is_digit(s.p[i]); i++) min_nonzero = min_nonzero || s.p[i] != '0';
  bool comma = i < hi && s.p[i] == ',';
  if (comma)
    for (i++; i < hi && is_digit(s.p[i]); i++) {
    }
  if (i >= hi || s.p[i] != '}') return false;
  *end = i + 1 < hi && s.p[i + 1] == '?' ? i + 2 : i + 1;
  *ambiguous = comma;
  *required = min_nonzero;
  /* The reference compares the upper bound, stripped of leading zeros,
   * with "0", which never matches: any {m,...} may consume. */
  *consume = *required || comma;
  return true;
}

/* A variable repetition followed by an atom it could also match: a+a,
 * [a-z]+[0-9], x?(x). Recurses into group bodies (depth <= 128). */
static bool has_adjacent_atoms(Pat s, size_t lo, size_t hi) {
  bool pending = false;
  Atom prev = {ATOM_LITERAL, 0, 0};
  size_t i = lo;
  while (i < hi) {
    int32_t c = s.p[i];
    Atom a;
    size_t atom_end;
    if (c == '|') {
      pending = false;
      i++;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= hi) return false;
      a = (Atom){ATOM_ESCAPE, i + 1, i + 2};
      atom_end = i + 2;
    } else if (c == '[') {
      size_t ce;
      if (!class_end(s, i, hi, &ce)) return false;
      size_t len = ce - i - 1;
      if (len == 1) a = (Atom){ATOM_LITERAL, i + 1, i + 2};
      else if (len == 2 && s.p[i + 1] == '\\') a = (Atom){ATOM_LITERAL, i + 2, i + 3};
      else a = (Atom){ATOM_CLASS, i + 1, ce};
      atom_end = ce + 1;
    } else if (c == '(') {
      size_t ge;
      if (!group_end(s, i, hi, &ge)) return false;
      if (has_adjacent_atoms(s, i + 1, ge)) return true;
      a = (Atom){ATOM_GROUP, i + 1, ge};
      atom_end = ge + 1;
    } else if (c == ')' || c == '^' || c == '$') {
      i++;
      continue;
    } else {
      a = (Atom){ATOM_LITERAL, i, i + 1};
      atom_end = i + 1;
    }
    size_t end = atom_end;
    bool ambiguous = false, consume = true, required = true;
    quantifier_at(s, atom_end, hi, &end, &ambiguous, &consume, &required);
    if (pending && consume && atoms_overlap(s, prev, a)) return true;
    if (pending && required) pending = false;
    if (ambiguous && consume) {
      pending = true;
      prev = a;
    }
    i = end;
  }
  return false;
}

static int count_variable_quantifiers(Pat s) {
  int count = 0;
  for (size_t i = 0; i < s.n;) {
    int32_t c = s.p[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '[') {
      size_t ce;
      if (!class_end(s, i, s.n, &ce)) return count;
      i = ce + 1;
      continue;
    }
    if (c == '*' || c == '+' || c == '?') {
      count++;
      i++;
      if (i < s.n && s.p[i] == '?') i++;
      continue;
    }
    if (c == '{' && i + 1 < s.n && is_digit(s.p[i + 1])) {
      size_t e = i + 2;
      while (e < s.n && is_digit(s.p[e])) e++;
      if (e < s.n && s.p[e] == ',') {
        for (e++; e < s.n && is_digit(s.p[e]); e++) {
        }
        if (e < s.n && s.p[e] == '}') {
          count++;
          i = e + 1;
          if (i < s.n && s.p[i] == '?') i++;
          continue;
        }
      }
    }
    i++;
  }
  return count;
}

/* Distinct group levels holding a '|' (the top level is one). */
static int count_alternation_sites(Pat s) {
  /* Group ids are opened in order, so at most n + 1 of them; one byte each
   * marks a site. The stack of open ids is at most 129 deep after the
   * depth check, but unbalanced ')' must not pop the top level. */
  unsigned char *site = calloc(s.n + 2, 1);
  size_t *stack = malloc((s.n + 2) * sizeof *stack);
  int sites = 0;
  if (!site || !stack) {
    free(site);
    free(stack);
    return 0;
  }
  size_t top = 0, next = 1;
  stack[0] = 0;
  for (size_t i = 0; i < s.n; i++) {
    int32_t c = s.p[i];
    if (c == '\\') {
      i++;
      continue;
    }
    if (c == '[') {
      size_t ce;
      if (!class_end(s, i, s.n, &ce)) break;
      i = ce;
      continue;
    }
    if (c == '(') stack[++top] = next++;
    else if (c == ')' && top > 0) top--;
    else if (c == '|' && !site[stack[top]]) {
      site[stack[top]] = 1;
      sites++;
    }
  }
  free(site);
  free(stack);
  return sites;
}

/* {m}, {m,} or {m,n} with m <= n <= LIB_REGEX_MAX_REPEAT, plus a lazy '?':
 * the index after it, or 0 when it is not one. */
static size_t portable_quantifier_end(Pat s, size_t at) {
  size_t i = at + 1;
  unsigned long lo = 0, hi;
  size_t start = i;
  for (; i < s.n && is_digit(s.p[i]); i++) lo = lo > 100000 ? lo : lo * 10 + (unsigned long)(s.p[i] - '0');
  if (i == start) return 0;
  hi = lo;
  bool open = false;
  if (i < s.n && s.p[i] == ',') {
    size_t ustart = ++i;
    hi = 0;
    for (; i < s.n && is_digit(s.p[i]); i++) hi = hi > 100000 ? hi : hi * 10 + (unsigned long)(s.p[i] - '0');
    open = i == ustart;
  }
  if (i >= s.n || s.p[i] != '}') return 0;
  if (lo > LIB_REGEX_MAX_REPEAT || (!open && (hi > LIB_REGEX_MAX_REPEAT || lo > hi))) return 0;
  size_t end = i + 1;
  if (end < s.n && s.p[end] == '?') end++;
  return end;
}

static bool in_set(int32_t c, const char *set) { return c > 0 && c < 128 && strchr(set, (int)c) != NULL; }

/* Syntax outside the portable subset: other escapes, '.', '$', lookaround
 * and other (? forms, possessive quantifiers, malformed braces, empty
 * classes and branches, alternation combined with a quantifier or '^'. */
static bool has_unsupported_construct(Pat s) {
  bool in_class = false, alternation = false, quantifier = false, anchor = false;
  for (size_t i = 0; i < s.n;) {
    int32_t c = s.p[i];
    if (c == '\\') {
      if (i + 1 >= s.n) return true;
      if (!in_set(s.p[i + 1], in_class ? "\\^-]" : "\\.^$|?*+()[]{}")) return true;
      i += 2;
      continue;
    }
    if (c == '[' && !in_class) {
      size_t m = i + 1;
      if (m < s.n && s.p[m] == '^') m++;
      if (m < s.n && s.p[m] == ']') return true;
      in_class = true;
      i++;
      continue;
    }
    if (c == ']') {
      if (!in_class) return true;
      in_class = false;
      i++;
      continue;
    }
    if (!in_class) {
      if (c == '$' || c == '.' || c == '}') return true;
      if (c == '^') anchor = true;
      if (c == '|') {
        if (i == 0 || i + 1 == s.n) return true;
        if (in_set(s.p[i - 1], "(|") || in_set(s.p[i + 1], ")|")) return true;
        alternation = true;
      }
      if (c == '{') {
        size_t end = portable_quantifier_end(s, i);
        if (!end) return true;
        quantifier = true;
        i = end;
        continue;
      }
      if (c == '(' && i + 1 < s.n && (s.p[i + 1] == '?' || s.p[i + 1] == ')')) return true;
      if (c == '*' || c == '+' || c == '?') {
        quantifier = true;
        if (i + 1 < s.n && s.p[i + 1] == '+') return true;
      }
    }
    i++;
  }
  return in_class || (alternation && (quantifier || anchor));
}

/* The first rule the pattern breaks, as the reference words it, or NULL. */
static const char *validate(Pat s) {
  if (s.n > LIB_REGEX_MAX_PATTERN) return "pattern too long (max 1000 chars)";
  if (has_backreference(s)) return "backreferences are not supported for safety";
  if (group_depth_exceeds(s)) return "group nesting too deep (max 128)";
  if (has_nested_quantifier(s)) return "nested quantifiers are not supported for safety";
  if (has_overlapping_alternation(s)) return "overlapping alternation branches are not supported for safety";
  if (has_adjacent_atoms(s, 0, s.n)) return "adjacent repeated atoms are not supported for safety";
  if (count_variable_quantifiers(s) > 1) return "multiple variable quantifiers are not supported for safety";
  if (count_alternation_sites(s) > 1) return "multiple alternation sites are not supported for safety";
  if (has_unsupported_construct(s)) return "advanced or encoded regex constructs are not supported for safety";
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Compilation                                                              */
/* ------------------------------------------------------------------------ */

/* Decode UTF-8 into code points (caller frees); NULL when out of memory. */
static int32_t *decode(const char *s, size_t n, size_t *count) {
  int32_t *cps = calloc(n ? n : 1, sizeof *cps); /* zeroed: GCC 12 -O2 cannot see that only [0, k) is read */
  if (!cps) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    int32_t cp;
    int len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
    if (len <= 0) { /* not from a Geno string; take the byte as it is */
      cp = (unsigned char)s[i];
      len = 1;
    }
    cps[k++] = cp;
    i += (size_t)len;
  }
  *count = k;
  return cps;
}

/* The validated pattern in PCRE2 syntax. The subset means the same in
 * both engines except where PCRE2 gives a character a meaning Python does
 * not: "[:", "[." and "[=" (POSIX classes) inside or at the start of a
 * class, and a '*' right after '(' ("(*VERB)"). They get a '\' in front; for "(*",
 * which Python rejects, *star is set to the '*''s code-point index so the
 * caller reports Python's error. `ins` receives the translated byte
 * offsets of the inserted backslashes (at most n). */
static bool translate(const char *pat, size_t n, Buf *out, size_t *ins, size_t *nins, long *star) {
  bool in_class = false;
  size_t cp = 0;
  *nins = 0;
  *star = -1;
  for (size_t i = 0; i < n; i++, cp += ((unsigned char)pat[i - 1] & 0xC0) != 0x80) {
    char c = pat[i];
    if (c == '\\' && i + 1 < n) {
      buf_append(out, pat + i, 2);
      i++;
      cp++;
      continue;
    }
    /* A class opening "[:", "[.", "[=" (also after "[^") reads as a POSIX
     * class in PCRE2: escape that character too. */
    bool opens = in_class && (c == ':' || c == '.' || c == '=') &&
                 (pat[i - 1] == '[' || (pat[i - 1] == '^' && i >= 2 && pat[i - 2] == '['));
    bool escape = (c == '[' && in_class) || opens ||
                  (c == '*' && !in_class && i > 0 && pat[i - 1] == '(' && (i < 2 || pat[i - 2] != '\\'));
    if (escape) {
      if (c == '*' && *star < 0) *star = (long)cp;
      ins[(*nins)++] = out->len;
      buf_putc(out, '\\');
    }
    if (c == '[' && !in_class) in_class = true;
    else if (c == ']' && in_class) in_class = false;
    buf_putc(out, c);
  }
  return !out->failed;
}

/* The pattern offset of a translated offset. */
static size_t original_offset(const size_t *ins, size_t nins, size_t off) {
  size_t before = 0;
  while (before < nins && ins[before] < off) before++;
  return off - before;
}

/* Position (code points) of the innermost '(' left open at the end, for
 * Python's "missing ), unterminated subpattern at position N". */
static size_t unclosed_group(Pat s) {
  size_t *stack = malloc((s.n + 1) * sizeof *stack), top = 0, at = 0;
  if (!stack) return 0;
  bool in_class = false;
  for (size_t i = 0; i < s.n; i++) {
    int32_t c = s.p[i];
    if (c == '\\') {
      i++;
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      stack[top++] = i;
    } else if (c == ')' && top) {
      top--;
    }
  }
  if (top) at = stack[top - 1];
  free(stack);
  return at;
}

/* Python's wording for the compile errors the validator lets through. */
static void compile_error(Buf *err, const char *fn, Pat s, const char *pat, int code, size_t byte_off) {
  size_t at = utf8_length(pat, byte_off);
  switch (code) {
  case PCRE2_ERROR_MISSING_CLOSING_PARENTHESIS:
    buf_printf(err, "%s: invalid pattern: missing ), unterminated subpattern at position %zu", fn, unclosed_group(s));
    return;
  case PCRE2_ERROR_UNMATCHED_CLOSING_PARENTHESIS:
    buf_printf(err, "%s: invalid pattern: unbalanced parenthesis at position %zu", fn, at);
    return;
  case PCRE2_ERROR_QUANTIFIER_INVALID: {
    /* PCRE2 points at a '*', '+' or '?', but into or after a {m,n}; Python
     * at the quantifier's first character, and calls a quantifier on a
     * quantifier a "multiple repeat". */
    if (!(at < s.n && (s.p[at] == '*' || s.p[at] == '+' || s.p[at] == '?' || s.p[at] == '{')))
      while (at > 0 && (at >= s.n || s.p[at] != '{')) at--;
    bool multiple = at > 0 && (s.p[at - 1] == '*' || s.p[at - 1] == '+' || s.p[at - 1] == '?' ||
                               s.p[at - 1] == '}') &&
                    (at < 2 || s.p[at - 2] != '\\');
    buf_printf(err, "%s: invalid pattern: %s at position %zu", fn, multiple ? "multiple repeat" : "nothing to repeat",
               at);
    return;
  }
  case PCRE2_ERROR_CLASS_RANGE_ORDER: {
    /* PCRE2 points at (or just after) the range's last character; Python
     * names the range and points at its first. */
    for (size_t end = at + 1; end-- > 0 && end + 1 >= at;) {
      if (end >= 2 && end < s.n && s.p[end - 1] == '-') {
        char a[4], b[4];
        int la = utf8_encode(s.p[end - 2], a), lb = utf8_encode(s.p[end], b);
        buf_printf(err, "%s: invalid pattern: bad character range %.*s-%.*s at position %zu", fn, la, a, lb, b,
                   end - 2);
        return;
      }
    }
    break;
  }
  default: break;
  }
  PCRE2_UCHAR msg[256];
  if (pcre2_get_error_message(code, msg, sizeof msg) < 0) strcpy((char *)msg, "cannot compile");
  buf_printf(err, "%s: invalid pattern: %s at position %zu", fn, (const char *)msg, at);
}

LibRegex *lib_regex_compile(const char *fn, const char *pattern, size_t n, Buf *err) {
  Pat s;
  int32_t *cps = decode(pattern, n, &s.n);
  if (!cps) {
    buf_printf(err, "%s: out of memory", fn);
    return NULL;
  }
  s.p = cps;
  const char *bad = validate(s);
  if (bad) {
    buf_printf(err, "%s: %s", fn, bad);
    free(cps);
    return NULL;
  }
  LibRegex *re = calloc(1, sizeof *re);
  Buf pc = BUF_INIT;
  size_t *ins = malloc((n ? n : 1) * sizeof *ins), nins = 0;
  long star = -1;
  if (!re || !ins || !translate(pattern, n, &pc, ins, &nins, &star)) goto oom;
  int code;
  PCRE2_SIZE off;
  re->code = pcre2_compile((PCRE2_SPTR)(pc.data ? pc.data : ""), pc.len, PCRE2_UTF, &code, &off, NULL);
  size_t at = re->code ? n : original_offset(ins, nins, off);
  if (star >= 0 && (re->code || utf8_length(pattern, at) > (size_t)star)) {
    /* Python reports the "(*" first unless an error comes before it. */
    buf_printf(err, "%s: invalid pattern: nothing to repeat at position %ld", fn, star);
  } else if (!re->code) {
    compile_error(err, fn, s, pattern, code, at);
  }
  if (!re->code || star >= 0) {
    pcre2_code_free(re->code);
    buf_free(&pc);
    free(ins);
    free(cps);
    free(re);
    return NULL;
  }
  uint32_t groups = 0;
  pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &groups);
  re->ngroups = (int)groups;
  re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
  re->mctx = pcre2_match_context_create(NULL);
  if (!re->md || !re->mctx) goto oom;
  pcre2_set_match_limit(re->mctx, REGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(re->mctx, REGEX_DEPTH_LIMIT);
  pcre2_set_heap_limit(re->mctx, REGEX_HEAP_LIMIT_KIB);
  buf_free(&pc);
  free(ins);
  free(cps);
  return re;
oom:
  buf_free(&pc);
  free(ins);
  free(cps);
  lib_regex_free(re);
  buf_clear(err);
  buf_printf(err, "%s: out of memory", fn);
  return NULL;
}

void lib_regex_free(LibRegex *re) {
  if (!re) return;
  pcre2_match_data_free(re->md);
  pcre2_match_context_free(re->mctx);
  pcre2_code_free(re->code);
  free(re);
}

bool lib_regex_check_arg(const char *fn, const char *arg, const char *s, size_t n, Buf *err) {
  if (utf8_length(s, n) <= LIB_REGEX_MAX_TEXT) return true;
  buf_printf(err, "%s: %s too long (max %d chars)", fn, arg, LIB_REGEX_MAX_TEXT);
  return false;
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                 */
/* ------------------------------------------------------------------------ */

int lib_regex_next(LibRegex *re, const char *fn, const char *text, size_t n, LibRegexIter *it, size_t *start,
                   size_t *end, Buf *err) {
  re->matched = false;
  if (it->done || it->pos > n) return 0;
  /* Python's finditer: after an empty match at p, the next one may not be
   * empty at p (but may be non-empty there, or empty further on); that is
   * exactly PCRE2_NOTEMPTY_ATSTART. */
  uint32_t opts = it->not_empty_at ? PCRE2_NOTEMPTY_ATSTART : 0;
  int rc = pcre2_match(re->code, (PCRE2_SPTR)text, n, it->pos, opts, re->md, re->mctx);
  if (rc == PCRE2_ERROR_NOMATCH) {
    it->done = true;
    return 0;
  }
  if (rc < 0) {
    it->done = true;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
        rc == PCRE2_ERROR_NOMEMORY)
      buf_printf(err, "%s: the match needed too much backtracking (limit reached)", fn);
    else buf_printf(err, "%s: matching failed (PCRE2 error %d)", fn, rc);
    return -1;
  }
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
  *start = ov[0];
  *end = ov[1];
  re->matched = true;
  it->pos = ov[1];
  it->not_empty_at = ov[0] == ov[1];
  return 1;
}

int lib_regex_group_count(const LibRegex *re) { return re->ngroups; }

bool lib_regex_group(const LibRegex *re, int i, size_t *start, size_t *end) {
  if (!re->matched || i < 0 || i > re->ngroups) return false;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
  if (ov[2 * i] == PCRE2_UNSET) return false;
  *start = ov[2 * i];
  *end = ov[2 * i + 1];
  return true;
}

/* ------------------------------------------------------------------------ */
/* Replacement                                                              */
/* ------------------------------------------------------------------------ */

/* The result-size check; *size keeps the failing length for the caller. */
static bool size_ok(size_t total, size_t max_cp, size_t *size, Buf *err) {
  if (total <= max_cp) return true;
  *size = total;
  buf_printf(err, "regex_replace: String size exceeds limit (%zu > %zu)", total, max_cp);
  return false;
}

/* Is the decimal number in s[0..n) (no leading zero: it starts 1-9)
 * greater than `limit`? Compared as text, so huge numbers are fine. */
static bool decimal_above(const char *s, size_t n, int limit) {
  char lim[16];
  int ln = snprintf(lim, sizeof lim, "%d", limit);
  if (n != (size_t)ln) return n > (size_t)ln;
  return memcmp(s, lim, n) > 0;
}

/* Append the expansion of the replacement for the current match. *added
 * counts code points appended so far for this match; before is the
 * result's length before it. */
static LibRegexStatus expand(LibRegex *re, const char *rep, size_t rn, const char *text, size_t before,
                             size_t max_cp, size_t *added, Buf *out, size_t *size, Buf *err) {
  size_t lit = 0; /* start of the pending literal run */
  for (size_t i = 0; i <= rn; i++) {
    bool ref = i + 1 < rn && rep[i] == '\\' && rep[i + 1] >= '1' && rep[i + 1] <= '9';
    if (!ref && i < rn) continue;
    if (i > lit) { /* flush the literal run */
      size_t cp = utf8_length(rep + lit, i - lit);
      if (!size_ok(before + *added + cp, max_cp, size, err)) return LIB_RE_TOO_BIG;
      buf_append(out, rep + lit, i - lit);
      *added += cp;
    }
    if (i == rn) break;
    size_t d = i + 1;
    while (d < rn && is_digit((unsigned char)rep[d])) d++;
    if (decimal_above(rep + i + 1, d - i - 1, re->ngroups)) {
      buf_printf(err, "regex_replace: invalid replacement group reference");
      return LIB_RE_ERROR;
    }
    int group = atoi(rep + i + 1);
    size_t gs, ge;
    if (lib_regex_group(re, group, &gs, &ge)) { /* an unmatched group inserts nothing */
      size_t cp = utf8_length(text + gs, ge - gs);
      if (!size_ok(before + *added + cp, max_cp, size, err)) return LIB_RE_TOO_BIG;
      buf_append(out, text + gs, ge - gs);
      *added += cp;
    }
    i = d - 1;
    lit = d;
  }
  return LIB_RE_OK;
}

LibRegexStatus lib_regex_replace(LibRegex *re, const char *rep, size_t rn, const char *text, size_t tn,
                                 size_t max_cp, Buf *out, size_t *size, Buf *err) {
  LibRegexIter it = {0, false, false};
  size_t total = 0, last = 0, ms, me;
  int rc;
  while ((rc = lib_regex_next(re, "regex_replace", text, tn, &it, &ms, &me, err)) == 1) {
    size_t prefix = utf8_length(text + last, ms - last);
    if (!size_ok(total + prefix, max_cp, size, err)) return LIB_RE_TOO_BIG;
    buf_append(out, text + last, ms - last);
    size_t added = 0;
    LibRegexStatus st = expand(re, rep, rn, text, total + prefix, max_cp, &added, out, size, err);
    if (st != LIB_RE_OK) return st;
    total += prefix + added;
    last = me;
  }
  if (rc < 0) return LIB_RE_ERROR;
  size_t tail = utf8_length(text + last, tn - last);
  if (!size_ok(total + tail, max_cp, size, err)) return LIB_RE_TOO_BIG;
  buf_append(out, text + last, tn - last);
  if (out->failed) {
    buf_printf(err, "regex_replace: out of memory");
    return LIB_RE_ERROR;
  }
  return LIB_RE_OK;
}
