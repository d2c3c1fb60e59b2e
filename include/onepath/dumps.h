/* onepath — per-stage dumps (supplement §4), little-endian:
 *   OPDST1: "OPDST1\0\0", u32 span_count, span_count × u32 distance.
 *   OPREG1: "OPREG1\0\0", u32 span_count, u32 region_count, span_count × u32 region
 *           (0 = none, 1..region_count, or OP_BORDER_REGION as stored). */
#ifndef ONEPATH_DUMPS_H
#define ONEPATH_DUMPS_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encoders return a buffer and decoders an array (non-NULL even for 0 spans), both
 * allocated with ctx's allocator: free them with op_free(ctx, p). Decoders reject a bad
 * file with OP_BAD_INPUT and "offset N: reason"; they never read past len. */
op_status op_dump_distance_encode(op_ctx *ctx, const uint32_t *dist, uint32_t span_count,
                                  unsigned char **buf, size_t *len);
op_status op_dump_distance_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                                  uint32_t **dist, uint32_t *span_count);
op_status op_dump_distance_write(op_ctx *ctx, const uint32_t *dist, uint32_t span_count,
                                 const char *path);
op_status op_dump_distance_read(op_ctx *ctx, const char *path, uint32_t **dist,
                                uint32_t *span_count);

/* Region ids must be 0, 1..region_count or OP_BORDER_REGION, and region_count <=
 * OP_MAX_REGION_ID (encode: OP_INVALID_ARGUMENT, decode: OP_BAD_INPUT). */
op_status op_dump_regions_encode(op_ctx *ctx, const uint32_t *region, uint32_t span_count,
                                 uint32_t region_count, unsigned char **buf, size_t *len);
op_status op_dump_regions_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 uint32_t **region, uint32_t *span_count,
                                 uint32_t *region_count);
op_status op_dump_regions_write(op_ctx *ctx, const uint32_t *region, uint32_t span_count,
                                uint32_t region_count, const char *path);
op_status op_dump_regions_read(op_ctx *ctx, const char *path, uint32_t **region,
                               uint32_t *span_count, uint32_t *region_count);

#ifdef __cplusplus
}
#endif
#endif
