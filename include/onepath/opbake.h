/* onepath — OPBAKE1, the bake file (supplement §4 "Bake output"): the assembled result of
 * a tiled bake, versioned, little-endian, checksummed per section (docs/formats.md).
 *
 * A file is a 16-byte header (magic "OPBAKE1\0", u32 version, u32 0) and sections
 * (u32 tag, u32 0, u64 length, payload, u64 XXH3-64 of tag..payload): one WRLD (the
 * world, the tile grid, the settings that shape the output, the flags and the
 * build3d/tiles digest), one TILE per tile in (tz, tx) order (coordinates, counts, the
 * stage digests, contours in world cells, raw loops and per-span region ids when
 * asked), and ENDS (tile count and digest again). The reader trusts nothing: every
 * length, count and id is checked against the bytes that are there, every checksum and
 * every digest is recomputed, and a failure names the offset and the reason. */
#ifndef ONEPATH_OPBAKE_H
#define ONEPATH_OPBAKE_H

#include "onepath/tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OP_OPBAKE_VERSION 1u
/* What a file holds besides the contours (WRLD flags). */
#define OP_OPBAKE_REGIONS 0x1u /* per tile: the window's cell counts and region ids */
#define OP_OPBAKE_RAW 0x2u     /* per contour: raw outline and raw holes */

/* Serialises r into a buffer from ctx's allocator (op_free(ctx, *buf)). flags:
 * OP_OPBAKE_*; REGIONS needs tiles baked with keep_regions (and until >= regions), RAW
 * contours built with keep_raw: OP_INVALID_ARGUMENT otherwise. */
op_status op_opbake_encode(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                           unsigned char **buf, size_t *len);
/* The same, written to path section by section (one tile's bytes in memory at a time). */
op_status op_opbake_write(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                          const char *path);

/* Parses and checks len bytes (never reads past them) into out (op_tiled_result_free;
 * zeroed on failure): the world description, every tile's counts, digests and contours,
 * and the region ids and cell counts when the file has them. The tile digests stored in
 * the file are checked against the contours and region ids it holds, and the
 * build3d/tiles digest is recomputed and must equal the stored one. flags (may be NULL)
 * receives the file's OP_OPBAKE_* flags. OP_BAD_INPUT "offset N: reason" for a
 * truncated, corrupted or inconsistent file; OP_UNSUPPORTED for another version. */
op_status op_opbake_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                           op_tiled_result *out, unsigned *flags);
op_status op_opbake_read(op_ctx *ctx, const char *path, op_tiled_result *out, unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif
