/* onepath — Wavefront OBJ input (supplement §1.2). */
#ifndef ONEPATH_OBJ_H
#define ONEPATH_OBJ_H

#include "onepath/geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses OBJ text of len bytes (not NUL-terminated; never read past len).
 * Reads `v x y z [w ...]` and `f` with `i`, `i/t`, `i//n`, `i/t/n` vertex references,
 * 1-based or negative (relative to the vertices read so far); polygons are fan-
 * triangulated (v0, vi, vi+1) in file order. Other OBJ statements (vt, vn, o, g, s,
 * usemtl, mtllib, l, p, comments, ...) are ignored; CRLF is tolerated.
 * out is initialised here; on failure it is left empty. Every malformed input is
 * OP_BAD_INPUT with "NAME:LINE: reason" in ctx->err (name NULL → "<memory>"). */
op_status op_parse_obj(op_ctx *ctx, const char *text, size_t len, const char *name,
                       op_mesh *out);

/* Reads the whole file and parses it (OP_IO_ERROR when it cannot be read). */
op_status op_load_obj(op_ctx *ctx, const char *path, op_mesh *out);

#ifdef __cplusplus
}
#endif
#endif
