/* onepath — OPBAKE1, the bake file (supplement §4 "Bake output"): the assembled result of
 * a tiled bake, versioned, little-endian, checksummed per section (docs/formats.md).
 *
 * A file is a 16-byte header (magic "OPBAKE1\0", u32 version, u32 0) and sections
 * (u32 tag, u32 0, u64 length, payload, u64 XXH3-64 of tag..payload): one WRLD (the
 * world, the tile grid, the settings that shape the output, the flags, the
 * build3d/tiles digest and, since version 2, the world and settings digests), a PART
 * (the tiles it holds) in a partial file, one TILE per tile held in (tz, tx) order
 * (coordinates, counts, the stage digests, contours in world cells, raw loops and
 * per-span region ids when asked), and ENDS (tile count and digest again). The reader
 * trusts nothing: every length, count and id is checked against the bytes that are
 * there, every checksum and every digest is recomputed, and a failure names the offset
 * and the reason. Version 1 files (no world or settings digest, never partial) are
 * still read. Every file is written to a temporary next to it and renamed when complete,
 * so a killed writer never leaves a file that looks whole. */
#ifndef ONEPATH_OPBAKE_H
#define ONEPATH_OPBAKE_H

#include "onepath/tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OP_OPBAKE_VERSION 2u /* written; 1 and 2 are read */
/* What a file holds besides the contours (WRLD flags). */
#define OP_OPBAKE_REGIONS 0x1u /* per tile: the window's cell counts and region ids */
#define OP_OPBAKE_RAW 0x2u     /* per contour: raw outline and raw holes */
#define OP_OPBAKE_PART 0x4u    /* a partial file (a shard): the result's held tiles only;
                                  set by the encoder when result.held is, never asked for */
/* Reported by the decoder only: the file is version 1 (no world or settings digests). */
#define OP_OPBAKE_VERSION1 0x100u

/* Serialises r into a buffer from ctx's allocator (op_free(ctx, *buf)). flags:
 * OP_OPBAKE_REGIONS, RAW (PART may be given and must then match r->held); REGIONS needs
 * tiles baked with keep_regions (and until >= regions), RAW contours built with keep_raw:
 * OP_INVALID_ARGUMENT otherwise. A result with held set (a part) gives a partial file
 * holding those tiles. */
op_status op_opbake_encode(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                           unsigned char **buf, size_t *len);
/* The same, written to path section by section (one tile's bytes in memory at a time),
 * through a temporary file renamed to path at the end (nothing at path on failure). */
op_status op_opbake_write(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                          const char *path);

/* One tile's TILE section, exactly as a file of world r with these flags holds it
 * (r->tiles unused; t is the tile): what a distributed bake sends. */
op_status op_opbake_encode_tile(op_ctx *ctx, const op_tiled_result *r, const op_tile *t,
                                unsigned flags, unsigned char **buf, size_t *len);

/* A bake file written tile by tile in (tz, tx) order from tiles baked elsewhere (other
 * processes, other machines, part files). world describes it (its WRLD fields, digests
 * and, for a partial file, held; world->tiles is not read). path NULL checks and digests
 * the tiles without writing anything (then they may come in any order). */
typedef struct op_opbake_writer op_opbake_writer;
op_status op_opbake_writer_open(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                                const char *path, op_opbake_writer **w);
/* The next tile (encoded here). */
op_status op_opbake_writer_put_tile(op_opbake_writer *w, const op_tile *t);
/* The next tile as its TILE section bytes: decoded and checked like the reader does
 * (checksum, fields, contour and region digests; it must be the next tile), then written
 * as they are. OP_BAD_INPUT "tile section of N bytes: offset M: reason" otherwise. */
op_status op_opbake_writer_put_section(op_opbake_writer *w, const unsigned char *sec,
                                       size_t len);
/* Checks every tile came, writes ENDS and the build3d/tiles digest, and renames the
 * temporary to path. summary (may be NULL) receives the world description with every
 * tile's counts and digests (no contours) and the totals (op_tiled_result_free). The
 * writer is freed whatever the status; on failure no file is left at path. */
op_status op_opbake_writer_finish(op_opbake_writer *w, op_tiled_result *summary);
/* Drops the temporary and frees the writer (NULL is harmless). */
void op_opbake_writer_abort(op_opbake_writer *w);

/* What op_opbake_merge did. */
typedef struct op_opbake_merge_info {
    uint32_t parts, tiles;
    uint64_t digest; /* build3d/tiles of the merged file */
    uint64_t bytes;  /* of the merged file */
} op_opbake_merge_info;

/* Merges part files (partial bake files of one bake, or whole ones) into the bake file
 * a one-machine bake of the same world and settings writes, byte for byte. The parts
 * must share the world, the tile grid, the settings and the flags (world and settings
 * digests included), and hold every tile exactly once; otherwise OP_BAD_INPUT naming the
 * files and the tiles (missing, in two parts, or from another world). Every part is read
 * and checked in full; the output is written through a temporary, one tile in memory at
 * a time. info may be NULL. */
op_status op_opbake_merge(op_ctx *ctx, const char *const *parts, size_t part_count,
                          const char *path, op_opbake_merge_info *info);

/* Parses and checks len bytes (never reads past them) into out (op_tiled_result_free;
 * zeroed on failure): the world description, every tile's counts, digests and contours,
 * and the region ids and cell counts when the file has them. The tile digests stored in
 * the file are checked against the contours and region ids it holds, and the
 * build3d/tiles digest is recomputed and must equal the stored one. A partial file gives
 * a part (out->held). flags (may be NULL) receives the file's OP_OPBAKE_* flags (with
 * PART and VERSION1 as they apply). OP_BAD_INPUT "offset N: reason" for a truncated,
 * corrupted or inconsistent file; OP_UNSUPPORTED for another version. */
op_status op_opbake_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                           op_tiled_result *out, unsigned *flags);
op_status op_opbake_read(op_ctx *ctx, const char *path, op_tiled_result *out, unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif
