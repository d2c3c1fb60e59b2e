/* onepath — canonical digests (supplement §5): XXH3-64 over explicit little-endian
 * serializations, identical on big- and little-endian hosts (docs/formats.md). */
#ifndef ONEPATH_DIGEST_H
#define ONEPATH_DIGEST_H

#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* XXH3-64 (seed 0) of len bytes. */
uint64_t op_digest_bytes(const void *data, size_t len);

/* Cells, spans, mutual links and areas: "OPCHFD1\0", u32 width, depth, span_count;
 * per cell u32 first, u32 count; per span u16 y, u16 h, u8 area, u8 mutual & 0xf, then
 * 4 × u32 link[d] when mutual bit d is set, else 0xffffffff. */
uint64_t op_digest_chf(const op_chf *chf);

/* XXH3-64 of the exact OPDST1 / OPREG1 byte streams (onepath/dumps.h). */
uint64_t op_digest_distance(const uint32_t *dist, uint32_t n);
uint64_t op_digest_regions(const uint32_t *region, uint32_t n, uint32_t region_count);

/* 16 lowercase hex digits and a NUL. */
void op_digest_hex(uint64_t digest, char out[17]);

/* Streaming little-endian serializer for other stages' digests (e.g. contours): an
 * opaque XXH3 state plus a staging buffer. */
typedef struct op_digest_stream {
    void *state; /* XXH3_state_t*, heap */
    unsigned char buf[1024];
    size_t used;
    int failed;  /* allocation failed: op_digest_end returns 0 */
} op_digest_stream;

void op_digest_begin(op_digest_stream *s);
void op_digest_put(op_digest_stream *s, const void *bytes, size_t n);
void op_digest_u8(op_digest_stream *s, uint8_t v);
void op_digest_u16(op_digest_stream *s, uint16_t v);
void op_digest_u32(op_digest_stream *s, uint32_t v);
void op_digest_u64(op_digest_stream *s, uint64_t v);
void op_digest_i32(op_digest_stream *s, int32_t v);
uint64_t op_digest_end(op_digest_stream *s); /* also frees the state */

#ifdef __cplusplus
}
#endif
#endif
