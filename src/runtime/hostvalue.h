/* geno_value: the VM-independent value representation of the public API
 * (results, host-callback arguments and results). See include/geno.h. */
#ifndef GENO_RUNTIME_HOSTVALUE_H
#define GENO_RUNTIME_HOSTVALUE_H

#include <geno.h>

/* The way back into a running program from a GENO_FUNCTION value lent to
 * a host (geno_function_call). In-process the link leads to the VM
 * (src/runtime/hostcall.c); in an isolated run's parent, to the sandbox
 * child, which runs the function (src/sandbox/isolate.c). Reference
 * counted: the run holds one reference, and so does every function value
 * that points at it; when the run ends it clears `call`, so values the
 * host kept longer fail cleanly instead of reaching a freed VM. */
typedef struct RtCallLink RtCallLink;
struct RtCallLink {
  int refs; /* atomic */
  /* Call lent function number `handle`; the result (caller owns) or NULL
   * with *error (malloc'd). NULL once the run has ended. */
  geno_value *(*call)(RtCallLink *link, uint32_t handle, const geno_value *const *args, size_t nargs,
                      char **error);
  bool (*alive)(RtCallLink *link); /* NULL: alive while `call` is set */
  void *ctx;
};
/* [m] A new link holding one reference (the run's). */
RtCallLink *rt_link_new(void);
void rt_link_retain(RtCallLink *l);
/* Drop a reference; the last one frees the link. NULL is fine. */
void rt_link_release(RtCallLink *l);
/* [m] A GENO_FUNCTION value named `name` that calls `handle` through
 * `link` (retained). */
geno_value *rt_hv_function(const char *name, RtCallLink *link, uint32_t handle);

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
  RtCallLink *link;        /* GENO_FUNCTION: how to call it, or NULL */
  uint32_t handle;         /* GENO_FUNCTION with a link: which function */
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
