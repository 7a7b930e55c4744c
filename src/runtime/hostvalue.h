/* geno_value: the VM-independent value representation of the public API
 * (results, host-callback arguments and results). See include/geno.h. */
#ifndef GENO_RUNTIME_HOSTVALUE_H
#define GENO_RUNTIME_HOSTVALUE_H

#include <geno.h>

struct geno_value {
  geno_value_kind kind;
  const char *container;   /* static: "List", "Array", "Vec", "Map", "MutableMap" or NULL */
  bool b;
  double f;
  int64_t i;               /* GENO_INT when it fits */
  char *text;              /* GENO_INT decimal text (always); GENO_STRING bytes */
  size_t len;              /* GENO_STRING bytes */
  char *name;              /* GENO_CTOR / GENO_FUNCTION name */
  geno_value **items;      /* elements, map values, ctor fields */
  geno_value **keys;       /* GENO_MAP keys */
  char **field_names;      /* GENO_CTOR */
  size_t count;
  unsigned depth;          /* levels: 1 for a leaf, 1 + the deepest item */
  bool owned;              /* held by a parent value, or lent by the library
                              (a result's value, a callback's arguments):
                              not the host's to free or to put in another
                              value (geno.h, "Ownership") */
};

/* Mark v and everything in it as lent to the host: geno_value_free
 * ignores them, constructors refuse them, and a callback returning one
 * (or part of one) has its result read, not taken. */
void rt_hv_lend(geno_value *v);
/* Free a value whatever its owner flag (the library's own lent values). */
void rt_hv_free(geno_value *v);

/* Set v->depth from its items and keys (already built). False when that
 * is more than GENO_VALUE_MAX_DEPTH. */
bool rt_hv_set_depth(geno_value *v);

/* [m] Allocate a value of a kind with `count` zeroed item slots. */
geno_value *rt_hv_alloc(geno_value_kind kind, size_t count);

#endif
