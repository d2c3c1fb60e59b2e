/* onepath — OPCHF1, the compact heightfield exchange format (supplement §4).
 *
 * Little-endian: 8-byte magic "OPCHF1\0\0"; u32 width, depth, span_count; f32 bmin[3],
 * bmax[3], cs, ch; i32 walkable_height, walkable_climb, border_size (64 bytes); then
 * width*depth cells of (u32 first_span, u32 count) — an empty cell written (0, 0), read
 * with any first_span; then span_count spans of (u16 y, u16 h, u8 area, u8 reserved = 0,
 * i8 link[4]) with link[d] the index within the neighbour cell's list, or -1.
 * All links are stored (one-way ones too); mutual[] is recomputed on import. */
#ifndef ONEPATH_OPCHF_H
#define ONEPATH_OPCHF_H

#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OP_OPCHF_HEADER_SIZE 64u
#define OP_OPCHF_CELL_SIZE 8u
#define OP_OPCHF_SPAN_SIZE 10u

/* Serialises chf into a buffer from ctx's allocator (*buf, *len; op_free(ctx, buf) it). A link to a span at
 * index >= 128 of its cell is OP_UNSUPPORTED (never truncated); a field that breaks the
 * compact heightfield invariants the reader checks (cells not a prefix sum, a link
 * outside its neighbour cell, floors not increasing in a cell, h > 255) is
 * OP_INVALID_ARGUMENT. */
op_status op_opchf_encode(op_ctx *ctx, const op_chf *chf, unsigned char **buf, size_t *len);
op_status op_opchf_write(op_ctx *ctx, const op_chf *chf, const char *path);

/* Parses and validates len bytes (never reads past them) into out (allocated here,
 * op_chf_free it; left zeroed on failure). Links become global span indices, empty
 * cells get the prefix-sum first_span, mutual[] is rebuilt. Every malformed input is
 * OP_BAD_INPUT with "offset N: reason". Besides the format rules the reader requires:
 * width, depth >= 1 and width*depth <= OP_MAX_GRID_CELLS; finite bounds with
 * bmin <= bmax; finite cs, ch > 0; walkable_height >= 1; walkable_climb, border_size
 * >= 0; h <= 255; floors strictly increasing within a cell; link index -1 or inside
 * the neighbour cell, and -1 towards off-grid. */
op_status op_opchf_decode(op_ctx *ctx, const unsigned char *buf, size_t len, op_chf *out);
op_status op_opchf_read(op_ctx *ctx, const char *path, op_chf *out);

#ifdef __cplusplus
}
#endif
#endif
