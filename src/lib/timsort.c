/* TimSort over index arrays, comparison for comparison like CPython 3.11's
 * list.sort (see timsort.h for why that matters).
 *
 * The algorithm, in CPython's terms (Objects/listsort.txt describes it):
 * - cut the input into natural runs (strictly descending runs are
 *   reversed), extending short ones to `minrun` by binary insertion;
 * - keep a stack of pending runs and merge by the powersort policy: a new
 *   run gets the "power" of the boundary before it, and runs with a larger
 *   power are merged first;
 * - merge two runs by first galloping to trim the parts already in place,
 *   then copying the shorter run aside and merging one element at a time,
 *   switching to galloping (exponential search) while one side keeps
 *   winning. The switch threshold min_gallop adapts across merges.
 * Every comparison is `less(x, y)` (Python's `x < y`); the order in which
 * they are made is what the reference's comparator callbacks observe. */
#include "timsort.h"

#include <stdlib.h>
#include <string.h>

/* CPython's MIN_GALLOP: one side must win this many times in a row before
 * a merge starts galloping. */
#define MIN_GALLOP 7
/* Pending-run stack depth. The powersort policy keeps it below
 * log2(n) + 1, so 85 covers any n that fits in 64 bits (CPython's
 * MAX_MERGE_PENDING). */
#define MAX_PENDING 85

typedef struct Run {
  size_t base; /* first index in a[] */
  size_t len;
  int power;   /* powersort power of the boundary after this run */
} Run;

typedef struct Sorter {
  VM *vm;
  size_t *a;         /* the indices being sorted */
  size_t n;          /* total length (powersort needs it) */
  LibLessFn less;
  void *ctx;
  size_t min_gallop; /* adaptive galloping threshold */
  size_t *tmp;       /* scratch for the shorter run of a merge */
  size_t tmpcap;
  Run run[MAX_PENDING];
  int nrun;
} Sorter;

/* 1 if x < y, 0 if not, -1 after an error. */
static int islt(Sorter *s, size_t x, size_t y) {
  bool lt;
  if (!s->less(s->vm, s->ctx, x, y, &lt)) return -1;
  return lt ? 1 : 0;
}

static bool reserve_tmp(Sorter *s, size_t need) {
  if (need <= s->tmpcap) return true;
  size_t *t = realloc(s->tmp, need * sizeof(size_t));
  if (!t) return vm_error(s->vm, E_RESOURCE, "sort: out of memory for %zu elements", s->n);
  s->tmp = t;
  s->tmpcap = need;
  return true;
}

/* Length of the run starting at lo (hi bounds it); *desc when it is
 * strictly descending. -1 after an error. */
static ptrdiff_t count_run(Sorter *s, size_t lo, size_t hi, bool *desc) {
  size_t *a = s->a;
  *desc = false;
  if (lo + 1 == hi) return 1;
  ptrdiff_t n = 2;
  int k = islt(s, a[lo + 1], a[lo]);
  if (k < 0) return -1;
  if (k) {
    *desc = true;
    for (size_t i = lo + 2; i < hi; i++, n++) {
      k = islt(s, a[i], a[i - 1]);
      if (k < 0) return -1;
      if (!k) break;
    }
  } else {
    for (size_t i = lo + 2; i < hi; i++, n++) {
      k = islt(s, a[i], a[i - 1]);
      if (k < 0) return -1;
      if (k) break;
    }
  }
  return n;
}

/* a[lo..start) is sorted; insert a[start..hi) one by one, finding each
 * place by binary search (stable: equal elements go to the right). */
static bool binary_insertion(Sorter *s, size_t lo, size_t hi, size_t start) {
  size_t *a = s->a;
  if (lo == start) start++;
  for (; start < hi; start++) {
    size_t l = lo, r = start, pivot = a[start];
    do {
      size_t p = l + ((r - l) >> 1);
      int k = islt(s, pivot, a[p]);
      if (k < 0) return false;
      if (k) r = p;
      else l = p + 1;
    } while (l < r);
    memmove(&a[l + 1], &a[l], (start - l) * sizeof(size_t));
    a[l] = pivot;
  }
  return true;
}

/* Leftmost position in base[0..n) where key can go: base[k-1] < key <=
 * base[k]. The search starts near `hint` and gallops outwards. */
static ptrdiff_t gallop_left(Sorter *s, size_t key, const size_t *base, ptrdiff_t n, ptrdiff_t hint) {
  const size_t *a = base + hint;
  ptrdiff_t lastofs = 0, ofs = 1;
  int k = islt(s, a[0], key);
  if (k < 0) return -1;
  if (k) {
    /* a[hint] < key: gallop right until a[hint+lastofs] < key <= a[hint+ofs] */
    ptrdiff_t maxofs = n - hint;
    while (ofs < maxofs) {
      k = islt(s, a[ofs], key);
      if (k < 0) return -1;
      if (!k) break;
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    lastofs += hint;
    ofs += hint;
  } else {
    /* key <= a[hint]: gallop left until a[hint-ofs] < key <= a[hint-lastofs] */
    ptrdiff_t maxofs = hint + 1;
    while (ofs < maxofs) {
      k = islt(s, a[-ofs], key);
      if (k < 0) return -1;
      if (k) break;
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    ptrdiff_t t = lastofs;
    lastofs = hint - ofs;
    ofs = hint - t;
  }
  /* Now base[lastofs] < key <= base[ofs]: binary search in between. */
  lastofs++;
  while (lastofs < ofs) {
    ptrdiff_t m = lastofs + ((ofs - lastofs) >> 1);
    k = islt(s, base[m], key);
    if (k < 0) return -1;
    if (k) lastofs = m + 1;
    else ofs = m;
  }
  return ofs;
}

/* Rightmost position: base[k-1] <= key < base[k]. */
static ptrdiff_t gallop_right(Sorter *s, size_t key, const size_t *base, ptrdiff_t n, ptrdiff_t hint) {
  const size_t *a = base + hint;
  ptrdiff_t lastofs = 0, ofs = 1;
  int k = islt(s, key, a[0]);
  if (k < 0) return -1;
  if (k) {
    /* key < a[hint]: gallop left until a[hint-ofs] <= key < a[hint-lastofs] */
    ptrdiff_t maxofs = hint + 1;
    while (ofs < maxofs) {
      k = islt(s, key, a[-ofs]);
      if (k < 0) return -1;
      if (!k) break;
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    ptrdiff_t t = lastofs;
    lastofs = hint - ofs;
    ofs = hint - t;
  } else {
    /* a[hint] <= key: gallop right until a[hint+lastofs] <= key < a[hint+ofs] */
    ptrdiff_t maxofs = n - hint;
    while (ofs < maxofs) {
      k = islt(s, key, a[ofs]);
      if (k < 0) return -1;
      if (k) break;
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    lastofs += hint;
    ofs += hint;
  }
  lastofs++;
  while (lastofs < ofs) {
    ptrdiff_t m = lastofs + ((ofs - lastofs) >> 1);
    k = islt(s, key, base[m]);
    if (k < 0) return -1;
    if (k) ofs = m;
    else lastofs = m + 1;
  }
  return ofs;
}

/* Merge the adjacent runs a[pa..pa+na) and a[pa+na..pa+na+nb) in place,
 * na <= nb: run A is copied aside and the merge fills from the left.
 * On entry a[pa] > b[0] (so b[0] goes first) and the last element of A
 * belongs at the very end. */
static bool merge_lo(Sorter *s, size_t pa, ptrdiff_t na, ptrdiff_t nb) {
  if (!reserve_tmp(s, (size_t)na)) return false;
  size_t *a = s->a, *t = s->tmp;
  memcpy(t, &a[pa], (size_t)na * sizeof(size_t));
  size_t dest = pa, ib = pa + (size_t)na, ia = 0;
  bool ok = true;
  size_t min_gallop = s->min_gallop;

  a[dest++] = a[ib++];
  nb--;
  if (nb == 0) goto done;
  if (na == 1) goto copy_b;

  for (;;) {
    ptrdiff_t acount = 0, bcount = 0;
    /* One at a time, until one side wins min_gallop times in a row. */
    for (;;) {
      int k = islt(s, a[ib], t[ia]);
      if (k < 0) goto fail;
      if (k) {
        a[dest++] = a[ib++];
        bcount++;
        acount = 0;
        if (--nb == 0) goto done;
        if ((size_t)bcount >= min_gallop) break;
      } else {
        a[dest++] = t[ia++];
        acount++;
        bcount = 0;
        if (--na == 1) goto copy_b;
        if ((size_t)acount >= min_gallop) break;
      }
    }
    /* Gallop while either side moves at least MIN_GALLOP at a time. */
    min_gallop++;
    do {
      min_gallop -= min_gallop > 1;
      s->min_gallop = min_gallop;
      ptrdiff_t k = gallop_right(s, a[ib], &t[ia], na, 0);
      if (k < 0) goto fail;
      acount = k;
      if (k) {
        memcpy(&a[dest], &t[ia], (size_t)k * sizeof(size_t));
        dest += (size_t)k;
        ia += (size_t)k;
        na -= k;
        if (na == 1) goto copy_b;
        if (na == 0) goto done; /* only with an inconsistent order */
      }
      a[dest++] = a[ib++];
      if (--nb == 0) goto done;

      k = gallop_left(s, t[ia], &a[ib], nb, 0);
      if (k < 0) goto fail;
      bcount = k;
      if (k) {
        memmove(&a[dest], &a[ib], (size_t)k * sizeof(size_t));
        dest += (size_t)k;
        ib += (size_t)k;
        nb -= k;
        if (nb == 0) goto done;
      }
      a[dest++] = t[ia++];
      if (--na == 1) goto copy_b;
    } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
    min_gallop++; /* penalise leaving galloping mode */
    s->min_gallop = min_gallop;
  }

fail:
  ok = false;
done:
  if (na) memcpy(&a[dest], &t[ia], (size_t)na * sizeof(size_t));
  return ok;
copy_b:
  /* The last element of A belongs after the rest of B. */
  memmove(&a[dest], &a[ib], (size_t)nb * sizeof(size_t));
  a[dest + (size_t)nb] = t[ia];
  return true;
}

/* Mirror image of merge_lo for na > nb: run B is copied aside and the
 * merge fills from the right. On entry the last element of A goes last
 * and b[0] belongs before everything left in A. */
static bool merge_hi(Sorter *s, size_t pa, ptrdiff_t na, ptrdiff_t nb) {
  if (!reserve_tmp(s, (size_t)nb)) return false;
  size_t *a = s->a, *t = s->tmp;
  size_t pb = pa + (size_t)na;
  memcpy(t, &a[pb], (size_t)nb * sizeof(size_t));
  /* Signed cursors: the A cursor may step to pa - 1, which is -1 at 0. */
  ptrdiff_t dest = (ptrdiff_t)pb + nb - 1, ia = (ptrdiff_t)pb - 1, ib = nb - 1;
  const ptrdiff_t basea = (ptrdiff_t)pa;
  bool ok = true;
  size_t min_gallop = s->min_gallop;

  a[dest--] = a[ia--];
  na--;
  if (na == 0) goto done;
  if (nb == 1) goto copy_a;

  for (;;) {
    ptrdiff_t acount = 0, bcount = 0;
    for (;;) {
      int k = islt(s, t[ib], a[ia]);
      if (k < 0) goto fail;
      if (k) {
        a[dest--] = a[ia--];
        acount++;
        bcount = 0;
        if (--na == 0) goto done;
        if ((size_t)acount >= min_gallop) break;
      } else {
        a[dest--] = t[ib--];
        bcount++;
        acount = 0;
        if (--nb == 1) goto copy_a;
        if ((size_t)bcount >= min_gallop) break;
      }
    }
    min_gallop++;
    do {
      min_gallop -= min_gallop > 1;
      s->min_gallop = min_gallop;
      ptrdiff_t k = gallop_right(s, t[ib], &a[basea], na, na - 1);
      if (k < 0) goto fail;
      k = na - k;
      acount = k;
      if (k) {
        dest -= k;
        ia -= k;
        memmove(&a[dest + 1], &a[ia + 1], (size_t)k * sizeof(size_t));
        na -= k;
        if (na == 0) goto done;
      }
      a[dest--] = t[ib--];
      if (--nb == 1) goto copy_a;

      k = gallop_left(s, a[ia], t, nb, nb - 1);
      if (k < 0) goto fail;
      k = nb - k;
      bcount = k;
      if (k) {
        dest -= k;
        ib -= k;
        memcpy(&a[dest + 1], &t[ib + 1], (size_t)k * sizeof(size_t));
        nb -= k;
        if (nb == 1) goto copy_a;
        if (nb == 0) goto done; /* only with an inconsistent order */
      }
      a[dest--] = a[ia--];
      if (--na == 0) goto done;
    } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
    min_gallop++;
    s->min_gallop = min_gallop;
  }

fail:
  ok = false;
done:
  if (nb) memcpy(&a[dest - (nb - 1)], t, (size_t)nb * sizeof(size_t));
  return ok;
copy_a:
  /* The first element of B belongs before the rest of A. */
  dest -= na;
  ia -= na;
  memmove(&a[dest + 1], &a[ia + 1], (size_t)na * sizeof(size_t));
  a[dest] = t[ib];
  return true;
}

/* Merge pending runs i and i+1 (i is the second or third from the top). */
static bool merge_at(Sorter *s, int i) {
  size_t *a = s->a;
  size_t pa = s->run[i].base, pb = s->run[i + 1].base;
  ptrdiff_t na = (ptrdiff_t)s->run[i].len, nb = (ptrdiff_t)s->run[i + 1].len;
  s->run[i].len = (size_t)(na + nb);
  if (i == s->nrun - 3) s->run[i + 1] = s->run[i + 2];
  s->nrun--;

  /* Elements of A not greater than b[0] are already in place. */
  ptrdiff_t k = gallop_right(s, a[pb], &a[pa], na, 0);
  if (k < 0) return false;
  pa += (size_t)k;
  na -= k;
  if (na == 0) return true;
  /* Elements of B not less than A's last are already in place. */
  nb = gallop_left(s, a[pa + (size_t)na - 1], &a[pb], nb, nb - 1);
  if (nb < 0) return false;
  if (nb == 0) return true;
  return na <= nb ? merge_lo(s, pa, na, nb) : merge_hi(s, pa, na, nb);
}

/* Powersort: the depth of the boundary between the run at s1 (length n1)
 * and the next one (length n2) in a perfectly balanced merge tree over
 * [0, n): the first bit where the binary expansions of the two runs'
 * midpoints, as fractions of n, differ. Computed with doubled midpoints
 * so everything stays integral. */
static int powerloop(size_t s1, size_t n1, size_t n2, size_t n) {
  int result = 0;
  size_t a = 2 * s1 + n1, b = a + n1 + n2;
  for (;;) {
    result++;
    if (a >= n) {
      a -= n;
      b -= n;
    } else if (b >= n) {
      break;
    }
    a <<= 1;
    b <<= 1;
  }
  return result;
}

/* A run of length n2 follows the top of the stack: merge the runs whose
 * boundary is deeper than the new one, then record its power. */
static bool found_new_run(Sorter *s, size_t n2) {
  if (s->nrun == 0) return true;
  Run *top = &s->run[s->nrun - 1];
  int power = powerloop(top->base, top->len, n2, s->n);
  while (s->nrun > 1 && s->run[s->nrun - 2].power > power)
    if (!merge_at(s, s->nrun - 2)) return false;
  s->run[s->nrun - 1].power = power;
  return true;
}

/* n itself when n < 64, else a value in [32, 64] such that n / minrun is
 * a power of two or a little less (CPython's merge_compute_minrun). */
static size_t compute_minrun(size_t n) {
  size_t r = 0;
  while (n >= 64) {
    r |= n & 1;
    n >>= 1;
  }
  return n + r;
}

static void reverse_range(size_t *a, size_t lo, size_t hi) {
  while (lo + 1 < hi) {
    size_t t = a[lo];
    a[lo++] = a[--hi];
    a[hi] = t;
  }
}

bool lib_timsort(VM *vm, size_t *idx, size_t n, LibLessFn less, void *ctx) {
  if (n < 2) return true;
  Sorter s;
  s.vm = vm;
  s.a = idx;
  s.n = n;
  s.less = less;
  s.ctx = ctx;
  s.min_gallop = MIN_GALLOP;
  s.tmp = NULL;
  s.tmpcap = 0;
  s.nrun = 0;
  bool ok = false;
  size_t minrun = compute_minrun(n), lo = 0, left = n;
  do {
    bool desc;
    ptrdiff_t r = count_run(&s, lo, lo + left, &desc);
    if (r < 0) goto out;
    size_t len = (size_t)r;
    if (desc) reverse_range(idx, lo, lo + len);
    if (len < minrun) {
      size_t force = left <= minrun ? left : minrun;
      if (!binary_insertion(&s, lo, lo + force, lo + len)) goto out;
      len = force;
    }
    if (!found_new_run(&s, len)) goto out;
    GENO_ASSERT(s.nrun < MAX_PENDING);
    s.run[s.nrun].base = lo;
    s.run[s.nrun].len = len;
    s.run[s.nrun].power = 0;
    s.nrun++;
    lo += len;
    left -= len;
  } while (left);
  /* Merge what is left, smaller neighbours first. */
  while (s.nrun > 1) {
    int k = s.nrun - 2;
    if (k > 0 && s.run[k - 1].len < s.run[k + 1].len) k--;
    if (!merge_at(&s, k)) goto out;
  }
  ok = true;
out:
  free(s.tmp);
  return ok;
}
