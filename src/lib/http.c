/* HTTP builtins: the client (capability http: http_fetch, http_post,
 * http_request) and the server (capability serve: http_listen, http_route,
 * http_respond). All but http_respond are host callbacks.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"
#include "../vm/vmapi.h"

/* http_respond(status, headers, body): only builds the value a route
 * handler returns. It is gated by serve although it touches nothing, as in
 * the reference; the server validates status and headers when it sends the
 * response, not here. The constructor's field order is status, body,
 * headers (the argument order differs). */
static bool lib_http_respond(VM *vm, Value *args, int nargs, Value *out) {
  Value fields[3] = {args[0], args[2], args[1]};
  return vm_ctor(vm, "HttpResponse", fields, 3, out);
}

const BuiltinDef lib_http_builtins[] = {
    {"http_fetch", "(url: String) -> String", GENO_CAP_HTTP, "http", BF_CALLBACK, NULL, "$b_http_fetch"},
    {"http_listen", "(port: Int) -> Unit", GENO_CAP_SERVE, "http", BF_CALLBACK, NULL, NULL},
    {"http_post", "(url: String, body: String) -> String", GENO_CAP_HTTP, "http", BF_CALLBACK, NULL, "$b_http_post"},
    {"http_request", "(method: String, url: String, headers: List[(String, String)], body: String) -> Result[HttpResponse, String]", GENO_CAP_HTTP, "http", BF_CALLBACK, NULL, "$b_http_request"},
    {"http_respond", "(status: Int, headers: List[(String, String)], body: String) -> HttpResponse", GENO_CAP_SERVE, "http", 0, lib_http_respond, NULL},
    {"http_route", "(method: String, path: String, handler: (HttpRequest) -> HttpResponse with http) -> Unit", GENO_CAP_SERVE, "http", BF_CALLBACK|BF_HIGHER_ORDER, NULL, NULL},
};
const size_t lib_http_builtin_count = ARRAY_LEN(lib_http_builtins);
