/* OPBAKE1's layout constants, shared by the writer, the reader and the merge
 * (docs/formats.md). */
#ifndef ONEPATH_IO_OPBAKE_INTERNAL_H
#define ONEPATH_IO_OPBAKE_INTERNAL_H

#include "onepath/opbake.h"
#include "io/section_reader.h" /* OP_SECTION_HEAD, OP_SECTION_TAIL */

#include <stdint.h>

#define OPBAKE_MAGIC "OPBAKE1" /* 8 bytes with its NUL */
#define OPBAKE_HEADER_SIZE 16u
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TAG_WRLD TAG('W', 'R', 'L', 'D')
#define TAG_PART TAG('P', 'A', 'R', 'T')
#define TAG_TILE TAG('T', 'I', 'L', 'E')
#define TAG_ENDS TAG('E', 'N', 'D', 'S')
#define WRLD_SIZE_V1 88u
#define WRLD_SIZE 104u /* version 2: + u64 world digest, u64 settings digest */
#define WRLD_DIGEST_AT 80u /* the build3d/tiles digest in the WRLD payload */
#define PART_FIXED 8u  /* u32 held count, u32 run count; then (u32 first, u32 count) runs */
/* Fixed part of a TILE payload, and of one contour with its vertex count. */
#define TILE_FIXED 80u
#define CONTOUR_FIXED 17u
#define VERT_SIZE 16u
#define ENDS_SIZE 12u
/* The flags a version 1 file may have. */
#define OPBAKE_V1_FLAGS (OP_OPBAKE_REGIONS | OP_OPBAKE_RAW)
#define OPBAKE_FILE_FLAGS (OP_OPBAKE_REGIONS | OP_OPBAKE_RAW | OP_OPBAKE_PART)

/* Decodes one TILE section (header, payload, checksum: exactly len bytes) of a file
 * described by world (its WRLD fields; tiles unused) with the file's flags, which must
 * be tile `index`, into t (op_tile_free with ctx's allocator; empty on failure).
 * OP_BAD_INPUT "offset N: reason", N from the start of buf. */
op_status op_opbake_decode_tile(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                                const unsigned char *buf, size_t len, uint32_t index,
                                op_tile *t);

#endif
