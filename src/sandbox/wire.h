/* Wire format between a sandbox child and its parent: frames, and the
 * binary encodings of geno_value and geno_result carried in them.
 *
 * The child is hostile: everything the parent decodes is bounded (frame
 * size, nesting depth, number of values built, string validity), and a
 * decoder never trusts a count or a length before checking it against the
 * bytes actually present. The parent is trusted, but the child decodes its
 * replies with the same checks because it costs nothing.
 *
 * A frame is a header of two little-endian u32 (type, body length)
 * followed by the body. Inside a body: integers are little-endian, a
 * "bytes" item is a u32 length and that many bytes, an optional item is a
 * u8 presence flag and the item. */
#ifndef GENO_SANDBOX_WIRE_H
#define GENO_SANDBOX_WIRE_H

#include <geno.h>

#include "../base/buf.h"

typedef enum SbxMsgType {
  SBX_MSG_RESULT = 1,       /* child -> parent: the finished geno_result */
  SBX_MSG_CALL = 2,         /* child -> parent: name, args; run a host callback */
  SBX_MSG_REPLY = 3,        /* parent -> child: u8 ok, then value or error text */
  SBX_MSG_SETUP_FAILED = 4, /* child -> parent: text; the sandbox could not be installed */
  SBX_MSG_NO_MEMORY = 5,    /* child -> parent: empty body; the run ran out of memory */
  SBX_MSG_INVOKE = 6,       /* parent -> child, while the child waits for a REPLY: u32 handle,
                               u32 nargs, args; call a function lent to a callback */
  SBX_MSG_INVOKE_REPLY = 7, /* child -> parent: u8 ok, then the value or error text */
} SbxMsgType;

enum {
  SBX_FRAME_HEADER = 8, /* u32 type + u32 body length */
};

/* Largest frame body accepted in either direction. A result carries the
 * value three times (binary, JSON, text) plus the output; 256 MiB holds a
 * million-element list comfortably while keeping what a hostile child can
 * make its parent buffer well below typical host memory. */
#define SBX_MAX_FRAME ((size_t)256 << 20)

/* Deepest geno_value nesting carried across the boundary: the public
 * bound on host values, so isolated and in-process runs agree. Decoding
 * is recursive on the caller's stack (about 100 bytes a level: 100 KiB at
 * the bound). Deeper values still reach the parent as JSON and text. */
#define SBX_MAX_VALUE_DEPTH GENO_VALUE_MAX_DEPTH

/* Most diagnostics one result may carry: above the front end's own cap of
 * 1000 errors per run, with room for warnings. */
#define SBX_MAX_DIAGNOSTICS 4096

/* Most call-stack lines one result may carry: one per active call, and
 * the deepest recursion a configuration allows is 10,000 calls. */
#define SBX_MAX_TRACE 10001

/* Longest constructor, field or function name accepted: Geno identifiers
 * are far shorter; this only stops absurd allocations. */
#define SBX_MAX_NAME_BYTES 1024

/* ---- building frames ---- */

/* Start a frame of `type` in an empty buffer (reserves the header). */
void sbx_frame_begin(Buf *b, SbxMsgType type);
/* Patch the header; false if the buffer failed or the body is too big. */
bool sbx_frame_end(Buf *b);

void sbx_put_u8(Buf *b, uint8_t v);
void sbx_put_u32(Buf *b, uint32_t v);
void sbx_put_i32(Buf *b, int32_t v);
void sbx_put_u64(Buf *b, uint64_t v);
void sbx_put_f64(Buf *b, double v);
/* u32 length + bytes; a length over 4 GiB marks the buffer failed. */
void sbx_put_bytes(Buf *b, const char *s, size_t n);
/* Optional NUL-terminated string (NULL = absent). */
void sbx_put_opt_str(Buf *b, const char *s);
/* Encode a value; false if it nests deeper than SBX_MAX_VALUE_DEPTH (the
 * buffer then holds a partial encoding and must be discarded). */
bool sbx_put_value(Buf *b, const geno_value *v);
/* Encode a finished result (value included when it fits the depth limit;
 * else the value is left out and only its JSON and text travel). */
void sbx_put_result(Buf *b, const geno_result *r);

/* ---- reading frames ---- */

typedef struct SbxReader {
  const unsigned char *p; /* body (borrowed) */
  size_t n;               /* body length */
  size_t off;             /* read position */
  bool bad;               /* malformed input seen; every later read yields 0 */
  size_t budget;          /* geno_value nodes the decoder may still build */
  struct RtCallLink *link; /* given to callable functions decoded (NULL: none are) */
} SbxReader;

/* The most geno_value nodes to build from one message of body_len bytes
 * sent by a child limited to memory_bytes (0 = unlimited): no more than an
 * honest child could have held itself, so a hostile one cannot make its
 * parent allocate beyond the child's own limit (a one-byte Unit decodes to
 * a ~100-byte node). Without a memory limit, one node per byte. */
size_t sbx_node_budget(uint64_t memory_bytes, size_t body_len);

void sbx_reader_init(SbxReader *r, const void *body, size_t n, size_t node_budget);
uint8_t sbx_get_u8(SbxReader *r);
uint32_t sbx_get_u32(SbxReader *r);
int32_t sbx_get_i32(SbxReader *r);
uint64_t sbx_get_u64(SbxReader *r);
double sbx_get_f64(SbxReader *r);
/* A bytes item: pointer into the body (not NUL-terminated), or NULL. */
const char *sbx_get_bytes(SbxReader *r, size_t *len);
/* A bytes item that must be valid UTF-8 without NUL and at most max
 * bytes; returns a malloc'd NUL-terminated copy, or NULL (r->bad set). */
char *sbx_get_text(SbxReader *r, size_t max);
/* A value, or NULL (r->bad set) when malformed, too deep or over budget. */
geno_value *sbx_get_value(SbxReader *r);
/* A result, or NULL when malformed (r->bad set) or out of memory (r->bad
 * clear). output_cap bounds the output bytes accepted. */
geno_result *sbx_get_result(SbxReader *r, size_t output_cap);

/* True if s[0..n) is exactly one JSON value with optional surrounding
 * whitespace (RFC 8259 syntax; any nesting depth, checked iteratively). */
bool sbx_json_valid(const char *s, size_t n);

/* Read the header fields of a complete frame at p (at least 8 bytes). */
void sbx_frame_header(const void *p, uint32_t *type, uint32_t *len);

/* Blocking I/O on a descriptor (the child's side, and tests): write all
 * bytes, retrying on EINTR; read one whole frame into body (cleared
 * first). False on EOF, error, or a frame over SBX_MAX_FRAME. */
bool sbx_write_all(int fd, const void *data, size_t n);
bool sbx_read_frame(int fd, uint32_t *type, Buf *body);

#endif
