/* Host callbacks in isolated runs: the child's forwarders and the parent's
 * broker.
 *
 * The child holds no authority, so a granted builtin that needs the host
 * (fs_read_text, http_fetch, exec, sleep_ms ...) cannot run there. The
 * child's configuration keeps the host's callback names but each function
 * is replaced by a forwarder that sends the call to the parent and waits
 * for the answer; the runtime's own rules (E412 when not granted, E413 when
 * no callback, the result's type check) are untouched because they never
 * see the difference. The parent runs the host's real callback, with the
 * host's userdata, on the thread that called geno_run_isolated.
 *
 * The parent trusts nothing in a request: the name must be a builtin whose
 * capability the host granted and for which it configured a callback (an
 * honest runtime never asks otherwise, so anything else is a violation
 * and ends the child), and the arguments go through the bounded decoder. */
#include "sandbox.h"

#include <stdio.h>

#include "../base/utf8.h"
#include "../lib/builtins.h"
#include "../runtime/hostconv.h"
#include "../runtime/hostvalue.h"
#include "wire.h"

/* The first byte of a REPLY frame: a value follows, or an error message
 * (REPLY_MEMORY: memory ran out carrying the value, or the value passes
 * a limit of the run, which ends the run with E504 like every memory
 * limit, where REPLY_ERROR is the callback's own, catchable error). */
enum { REPLY_ERROR = 0, REPLY_VALUE = 1, REPLY_MEMORY = 2 };

/* Most arguments a builtin takes (http_request has 4); more is a forgery. */
#define SBX_MAX_CALL_ARGS 16

/* Longest builtin name; the real ones are under 24 bytes. */
#define SBX_MAX_BUILTIN_NAME 64

unsigned sbx_callback_capability(const char *name) {
  const BuiltinDef *b = name ? lib_builtin_find(name) : NULL;
  return b ? b->cap : 0;
}

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

/* ---- child side ---- */

/* Answer an INVOKE from the parent: call the lent function through the
 * child's own link to its VM (hostcall.c) and send back its result or
 * its error. False when the request is malformed or cannot be answered
 * (the forwarder then gives up the callback in progress). */
static bool answer_invoke(SbxForward *fw, const Buf *body) {
  SbxReader r;
  sbx_reader_init(&r, body->data, body->len, sbx_node_budget(0, body->len));
  uint32_t handle = sbx_get_u32(&r), nargs = sbx_get_u32(&r);
  if (r.bad || nargs > SBX_MAX_CALL_ARGS) return false;
  geno_value *args[SBX_MAX_CALL_ARGS] = {0};
  bool ok = true;
  for (uint32_t i = 0; i < nargs && ok; i++) ok = (args[i] = sbx_get_value(&r)) != NULL;
  char *error = NULL;
  geno_value *result = NULL;
  if (!ok || r.off != r.n) error = dup_text("the host's call could not be decoded");
  else if (!fw->link) error = dup_text("no function was lent to the host");
  else result = geno_function_call(&(geno_value){.kind = GENO_FUNCTION, .link = fw->link, .handle = handle},
                                   (const geno_value *const *)args, nargs, &error);
  for (uint32_t i = 0; i < nargs; i++) rt_hv_free(args[i]);
  Buf reply = BUF_INIT;
  sbx_frame_begin(&reply, SBX_MSG_INVOKE_REPLY);
  sbx_put_u8(&reply, result ? REPLY_VALUE : REPLY_ERROR);
  bool encoded = result ? sbx_put_value(&reply, result) : (sbx_put_bytes(&reply, error ? error : "failed",
                                                                            strlen(error ? error : "failed")), true);
  if (!encoded || !sbx_frame_end(&reply)) {
    buf_free(&reply);
    sbx_frame_begin(&reply, SBX_MSG_INVOKE_REPLY);
    sbx_put_u8(&reply, REPLY_ERROR);
    static const char big[] = "the function's result is too large to pass to the host";
    sbx_put_bytes(&reply, big, sizeof big - 1);
    sbx_frame_end(&reply);
  }
  rt_hv_free(result);
  free(error);
  ok = !reply.failed && sbx_write_all(fw->fd, reply.data, reply.len);
  buf_free(&reply);
  return ok;
}

static geno_value *forward(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                           char **error) {
  SbxForward *fw = ud;
  int fd = fw->fd;
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_CALL);
  sbx_put_bytes(&b, name, strlen(name));
  sbx_put_u32(&b, (uint32_t)nargs);
  bool deep = false;
  for (size_t i = 0; i < nargs && !deep; i++) {
    deep = !sbx_put_value(&b, args[i]);
    /* the parent may call a lent function back: keep the way to the VM */
    if (!fw->link && args[i]->kind == GENO_FUNCTION && args[i]->link) {
      rt_link_retain(args[i]->link);
      fw->link = args[i]->link;
    }
  }
  if (deep || !sbx_frame_end(&b)) {
    buf_free(&b);
    *error = dup_text(deep ? "host callback argument is nested too deeply to pass to the host"
                           : "host callback arguments are too large to pass to the host");
    if (!deep) rt_host_error_is_memory();
    return NULL;
  }
  geno_value *result = NULL;
  uint32_t type = 0;
  bool got = sbx_write_all(fd, b.data, b.len);
  /* While the parent carries out the callback it may call functions the
   * program lent it (the routes of http_listen): answer each, then go on
   * waiting for the reply. */
  while (got && (got = sbx_read_frame(fd, &type, &b)) && type == SBX_MSG_INVOKE) got = answer_invoke(fw, &b);
  if (!got || type != SBX_MSG_REPLY) {
    *error = dup_text("the sandbox broker did not answer the host callback");
  } else {
    SbxReader r;
    sbx_reader_init(&r, b.data, b.len, b.len + 1);
    uint8_t status = sbx_get_u8(&r);
    if (status == REPLY_VALUE) {
      result = sbx_get_value(&r);
      if (!result && !r.bad) {
        /* well formed, but this child's memory cannot hold it */
        *error = dup_text("the host callback's result is too large for the program's memory limit");
        rt_host_error_is_memory();
      } else if (!result) {
        *error = dup_text("the host callback's result could not be decoded");
      }
    } else {
      *error = sbx_get_text(&r, SBX_MAX_FRAME);
      if (!*error) *error = dup_text("host callback failed");
      if (status == REPLY_MEMORY) rt_host_error_is_memory();
    }
  }
  buf_free(&b);
  return result;
}

geno_callback *sbx_forwarders(const geno_config *cfg, SbxForward *fw) {
  geno_callback *fwd = calloc(cfg->ncallbacks ? cfg->ncallbacks : 1, sizeof *fwd);
  if (!fwd) return NULL;
  for (size_t i = 0; i < cfg->ncallbacks; i++) {
    fwd[i].name = cfg->callbacks[i].name;
    fwd[i].fn = forward;
    fwd[i].userdata = fw;
  }
  return fwd;
}

/* ---- parent side ---- */

static void reply_error(Buf *reply, uint8_t status, const char *msg) {
  sbx_frame_begin(reply, SBX_MSG_REPLY);
  sbx_put_u8(reply, status);
  /* The child decodes strictly: pass on valid UTF-8, invalid bytes
   * replaced by U+FFFD as geno_run replaces them in-process. */
  size_t n;
  char *clean = utf8_sanitize(msg, strlen(msg), &n);
  if (clean) sbx_put_bytes(reply, clean, n);
  else sbx_put_bytes(reply, "out of memory", 13);
  free(clean);
  sbx_frame_end(reply);
}

/* ---- a callback's result against the run's limits ---- */

/* The walk over a callback's result before it is encoded (see
 * result_over_limits). */
typedef struct LimitWalk {
  const geno_config *cfg;
  const char *builtin; /* the callback's name, for the memory message */
  uint64_t bytes;      /* text bytes met so far */
  char *why;           /* the diagnostic's text, once a limit is passed */
  size_t whylen;
} LimitWalk;

static bool walk_collection(LimitWalk *w, const char *kind, size_t n) {
  if (n <= w->cfg->max_collection_size) return true;
  snprintf(w->why, w->whylen, "%s size exceeds limit (%zu > %llu)", kind, n,
           (unsigned long long)w->cfg->max_collection_size);
  return false;
}

static bool walk_bytes(LimitWalk *w, size_t n) {
  w->bytes += n;
  if (!w->cfg->memory_bytes || w->bytes <= w->cfg->memory_bytes) return true;
  snprintf(w->why, w->whylen,
           "Memory limit exceeded: the result of host callback '%s' holds more than %llu bytes of text; the budget "
           "(memory_bytes) is %llu bytes",
           w->builtin, (unsigned long long)w->bytes, (unsigned long long)w->cfg->memory_bytes);
  return false;
}

/* False (w->why set) at the first limit the value passes, in the order
 * the runtime converts it (hostconv.c from_host: a collection's size
 * before its elements, a Map's key before its value). Invalid text is
 * left to the runtime's own error. The value's depth is bounded
 * (GENO_VALUE_MAX_DEPTH), so the recursion is too. */
static bool walk_value(LimitWalk *w, const geno_value *v) {
  if (!v) return true;
  switch (v->kind) {
  case GENO_STRING: {
    const char *s = v->text ? v->text : "";
    if (!utf8_valid(s, v->len, NULL)) return true;
    return walk_collection(w, "String", utf8_length(s, v->len)) && walk_bytes(w, v->len);
  }
  case GENO_LIST: {
    const char *c = v->container ? v->container : "List";
    if (!walk_collection(w, strcmp(c, "Array") == 0 || strcmp(c, "Vec") == 0 ? c : "List", v->count)) return false;
    break;
  }
  case GENO_TUPLE:
    if (!walk_collection(w, "Tuple", v->count)) return false;
    break;
  default: break; /* a Map or Set counts distinct keys as they are added: left to the runtime */
  }
  for (size_t i = 0; i < v->count; i++) {
    if (v->kind == GENO_MAP && v->keys && !walk_value(w, v->keys[i])) return false;
    if (v->items && !walk_value(w, v->items[i])) return false;
  }
  return true;
}

/* Whether a callback's result passes a limit of the run (a String or
 * collection over max_collection_size, more text than memory_bytes):
 * the runtime would end the run with E504 as soon as it converts it, so
 * it is refused here, before tens of megabytes are encoded, sent and
 * decoded only to be refused there (a deadline could pass meanwhile and
 * turn E504 into E501). why receives the runtime's own message. A value
 * of the wrong type is left to the runtime's type check, which comes
 * first in-process too. */
static bool result_over_limits(const geno_config *cfg, const BuiltinDef *def, const geno_value *result, char *why,
                               size_t whylen) {
  char wrong[8];
  if (!def || !rt_host_result_conforms(def->sig, result, wrong, sizeof wrong)) return false;
  LimitWalk w = {cfg, def->name, 0, why, whylen};
  return !walk_value(&w, result);
}

bool sbx_broker_handle(const geno_config *cfg, const void *body, size_t n, Buf *reply, const char **why,
                       struct RtCallLink *link) {
  SbxReader r;
  sbx_reader_init(&r, body, n, sbx_node_budget(cfg->memory_bytes, n));
  r.link = link;
  char *name = sbx_get_text(&r, SBX_MAX_BUILTIN_NAME);
  if (!name) {
    *why = r.bad ? "malformed host callback request" : "out of memory reading a host callback request";
    return false;
  }
  const geno_callback *cb = NULL;
  unsigned cap = sbx_callback_capability(name);
  bool granted = cfg->capabilities_set && (cfg->capabilities & cap);
  /* The last entry of a name wins, as in the runtime's own lookup. */
  for (size_t i = 0; cap && granted && i < cfg->ncallbacks; i++)
    if (cfg->callbacks[i].name && strcmp(cfg->callbacks[i].name, name) == 0 && cfg->callbacks[i].fn)
      cb = &cfg->callbacks[i];
  free(name);
  if (!cap) {
    *why = "the child asked for a host callback that does not exist";
    return false;
  }
  if (!granted) {
    *why = "the child asked for a host callback whose capability was not granted";
    return false;
  }
  if (!cb || !cb->fn) {
    *why = "the child asked for a host callback the host did not configure";
    return false;
  }
  uint32_t nargs = sbx_get_u32(&r);
  if (r.bad || nargs > SBX_MAX_CALL_ARGS) {
    *why = "malformed host callback request";
    return false;
  }
  geno_value *args[SBX_MAX_CALL_ARGS] = {0};
  bool ok = true;
  for (uint32_t i = 0; i < nargs && ok; i++) ok = (args[i] = sbx_get_value(&r)) != NULL;
  if (!ok || r.off != r.n) {
    for (uint32_t i = 0; i < nargs; i++) geno_value_free(args[i]);
    if (r.bad || r.off != r.n) {
      *why = "malformed host callback arguments";
      return false;
    }
    reply_error(reply, REPLY_MEMORY, "out of memory passing arguments to the host callback");
    return true;
  }
  char *error = NULL;
  /* lent to the callback (see rt_hv_lend): freed after its result is
   * encoded, since the result may be one of them */
  for (uint32_t i = 0; i < nargs; i++) rt_hv_lend(args[i]);
  geno_value *result = cb->fn(cb->name, (const geno_value *const *)args, nargs, cb->userdata, &error);
  char limit[256];
  if (result && result_over_limits(cfg, lib_builtin_find(cb->name), result, limit, sizeof limit)) {
    reply_error(reply, REPLY_MEMORY, limit); /* a limit: E504, uncatchable, as in-process */
  } else if (result) {
    sbx_frame_begin(reply, SBX_MSG_REPLY);
    sbx_put_u8(reply, REPLY_VALUE);
    bool encoded = sbx_put_value(reply, result);
    if (!encoded || !sbx_frame_end(reply)) {
      if (encoded) reply_error(reply, REPLY_MEMORY, "the host callback's result is too large to pass to the program");
      else reply_error(reply, REPLY_ERROR, "the host callback's result is nested too deeply to pass to the program");
    }
  } else if (error) {
    reply_error(reply, REPLY_ERROR, error);
  } else {
    Buf msg = BUF_INIT;
    buf_printf(&msg, "host callback '%s' returned no value and no error", cb->name);
    reply_error(reply, REPLY_ERROR, msg.failed ? "host callback returned no value" : msg.data);
    buf_free(&msg);
  }
  geno_value_free(result); /* nothing when it is a lent argument */
  for (uint32_t i = 0; i < nargs; i++) rt_hv_free(args[i]);
  free(error);
  return true;
}
