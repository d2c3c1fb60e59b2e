/* onepath — canonical digests (supplement §5): XXH3-64 over explicit little-endian
 * serializations, identical on big- and little-endian hosts (docs/formats.md). No
 * digest function allocates; none can fail. The contour set's digest,
 * op_digest_contours, is declared in onepath/contours.h. */
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

/* Streaming little-endian serializer for other stages' digests (e.g. the demo world's
 * in the tests): the XXH3 state and a staging buffer live in the struct itself, so a
 * digest never allocates and cannot fail. Keep a stream in one place from begin to end
 * (do not copy it in between). */
#define OP_DIGEST_STATE_SIZE 640 /* bytes for XXH3_state_t (checked where it is used) */
#if defined(__cplusplus)
#define OP_DIGEST_ALIGN alignas(64)
#else
#define OP_DIGEST_ALIGN _Alignas(64)
#endif

typedef struct op_digest_stream {
    OP_DIGEST_ALIGN unsigned char state[OP_DIGEST_STATE_SIZE]; /* XXH3_state_t, opaque */
    unsigned char buf[1024];
    size_t used;
} op_digest_stream;

void op_digest_begin(op_digest_stream *s);
void op_digest_put(op_digest_stream *s, const void *bytes, size_t n);
void op_digest_u8(op_digest_stream *s, uint8_t v);
void op_digest_u16(op_digest_stream *s, uint16_t v);
void op_digest_u32(op_digest_stream *s, uint32_t v);
void op_digest_u64(op_digest_stream *s, uint64_t v);
void op_digest_i32(op_digest_stream *s, int32_t v);
/* n u32 values, each as op_digest_u32 writes it (faster for long arrays). */
void op_digest_u32s(op_digest_stream *s, const uint32_t *v, size_t n);
uint64_t op_digest_end(op_digest_stream *s);

#ifdef __cplusplus
}
#endif
#endif
