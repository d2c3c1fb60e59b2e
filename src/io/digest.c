/* Canonical digests (supplement §5): XXH3-64 over explicit little-endian byte streams,
 * fed through a staging buffer so no host layout (struct padding, endianness) leaks
 * in. The serializations are documented in docs/formats.md (contours:
 * docs/formats-contours.md). The XXH3 state lives in the stream on the caller's stack:
 * no digest allocates, so none can fail. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "onepath/contours.h"
#include "onepath/digest.h"
#include "core/le.h"

#include <string.h>

_Static_assert(sizeof(XXH3_state_t) <= OP_DIGEST_STATE_SIZE,
               "op_digest_stream.state is too small for this xxHash's XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "op_digest_stream.state is not aligned enough");

static XXH3_state_t *xxh(op_digest_stream *s) { return (XXH3_state_t *)(void *)s->state; }

uint64_t op_digest_bytes(const void *data, size_t len)
{
    return (uint64_t)XXH3_64bits(len ? data : "", len);
}

void op_digest_begin(op_digest_stream *s)
{
    s->used = 0;
#ifdef XXH3_INITSTATE
    XXH3_INITSTATE(xxh(s));
#endif
    XXH3_64bits_reset(xxh(s));
}

static void flush(op_digest_stream *s)
{
    if (s->used)
        XXH3_64bits_update(xxh(s), s->buf, s->used);
    s->used = 0;
}

void op_digest_put(op_digest_stream *s, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    if (n >= sizeof s->buf) { /* long runs straight to XXH3 (the digest is the same) */
        flush(s);
        XXH3_64bits_update(xxh(s), p, n);
        return;
    }
    while (n) {
        if (s->used == sizeof s->buf)
            flush(s);
        size_t k = sizeof s->buf - s->used;
        if (k > n)
            k = n;
        memcpy(s->buf + s->used, p, k);
        s->used += k;
        p += k;
        n -= k;
    }
}

void op_digest_u8(op_digest_stream *s, uint8_t v)
{
    if (s->used == sizeof s->buf)
        flush(s);
    s->buf[s->used++] = v;
}

void op_digest_u16(op_digest_stream *s, uint16_t v)
{
    unsigned char b[2];
    op_le_put16(b, v);
    op_digest_put(s, b, 2);
}

void op_digest_u32(op_digest_stream *s, uint32_t v)
{
    unsigned char b[4];
    op_le_put32(b, v);
    op_digest_put(s, b, 4);
}

void op_digest_u64(op_digest_stream *s, uint64_t v)
{
    op_digest_u32(s, (uint32_t)v);
    op_digest_u32(s, (uint32_t)(v >> 32));
}

void op_digest_i32(op_digest_stream *s, int32_t v) { op_digest_u32(s, (uint32_t)v); }

uint64_t op_digest_end(op_digest_stream *s)
{
    flush(s);
    return (uint64_t)XXH3_64bits_digest(xxh(s));
}

/* Record writers for the bulk serializations below: room for a whole record is made
 * once, then its bytes are stored little-endian straight into the staging buffer (the
 * per-value calls above cost more than the hashing itself on multi-million-span
 * fields). The bytes are exactly those of the op_digest_u* calls. k <= sizeof buf. */
static inline unsigned char *reserve(op_digest_stream *s, size_t k)
{
    if (sizeof s->buf - s->used < k)
        flush(s);
    unsigned char *p = s->buf + s->used;
    s->used += k;
    return p;
}

/* n u32 values, in records of up to 64. */
void op_digest_u32s(op_digest_stream *s, const uint32_t *v, size_t n)
{
    while (n) {
        const size_t k = n < 64 ? n : 64;
        unsigned char *p = reserve(s, 4 * k);
        for (size_t i = 0; i < k; i++)
            op_le_put32(p + 4 * i, v[i]);
        v += k;
        n -= k;
    }
}

/* Little-endian stores for the bulk records: one memcpy on a little-endian host (the
 * bytes of core/le.h's stores), byte by byte elsewhere. */
static inline void le16(unsigned char *p, uint16_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 2);
#else
    op_le_put16(p, v);
#endif
}
static inline void le32(unsigned char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    op_le_put32(p, v);
#endif
}

/* docs/formats.md "OPCHFD1": cells, spans, mutual links, areas. Only mutual links are
 * hashed, because every stage after the spans stage reads only those
 * (regions-contours, introduction). */
uint64_t op_digest_chf(const op_chf *chf)
{
    static const unsigned char magic[8] = {'O', 'P', 'C', 'H', 'F', 'D', '1', 0};
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, magic, 8);
    op_digest_u32(&s, chf->width);
    op_digest_u32(&s, chf->depth);
    op_digest_u32(&s, chf->span_count);
    /* Whole blocks of records at a time, from local pointers (the byte stores could alias
     * the field's arrays otherwise): the tile cache hashes every window it rebuilds. */
    const size_t cells = (size_t)chf->width * chf->depth;
    const uint32_t *cf = chf->cell_first, *cc = chf->cell_count;
    for (size_t c = 0; c < cells;) {
        const size_t k = cells - c < sizeof s.buf / 8 ? cells - c : sizeof s.buf / 8;
        unsigned char *p = reserve(&s, 8 * k);
        for (size_t i = 0; i < k; i++, c++) {
            le32(p + 8 * i, cf[c]);
            le32(p + 8 * i + 4, cc[c]);
        }
    }
    const uint16_t *y = chf->y, *h = chf->h;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint32_t *l0 = chf->link[0], *l1 = chf->link[1], *l2 = chf->link[2], *l3 = chf->link[3];
    const uint32_t n = chf->span_count;
    for (uint32_t i = 0; i < n;) {
        const uint32_t k = n - i < sizeof s.buf / 22 ? n - i : (uint32_t)(sizeof s.buf / 22);
        unsigned char *p = reserve(&s, 22 * (size_t)k);
        for (uint32_t j = 0; j < k; j++, i++, p += 22) {
            const uint32_t m = mutual[i] & 0xf;
            le16(p, y[i]);
            le16(p + 2, h[i]);
            p[4] = area[i];
            p[5] = (unsigned char)m;
            /* A link that is not mutual is written as OP_NO_LINK (all ones). */
            le32(p + 6, l0[i] | ((m & 1u) - 1u));
            le32(p + 10, l1[i] | ((m >> 1 & 1u) - 1u));
            le32(p + 14, l2[i] | ((m >> 2 & 1u) - 1u));
            le32(p + 18, l3[i] | ((m >> 3 & 1u) - 1u));
        }
    }
    return op_digest_end(&s);
}

uint64_t op_digest_distance(const uint32_t *dist, uint32_t n)
{
    static const unsigned char magic[8] = {'O', 'P', 'D', 'S', 'T', '1', 0, 0};
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, magic, 8);
    op_digest_u32(&s, n);
    op_digest_u32s(&s, dist, n);
    return op_digest_end(&s);
}

uint64_t op_digest_regions(const uint32_t *region, uint32_t n, uint32_t region_count)
{
    static const unsigned char magic[8] = {'O', 'P', 'R', 'E', 'G', '1', 0, 0};
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, magic, 8);
    op_digest_u32(&s, n);
    op_digest_u32(&s, region_count);
    op_digest_u32s(&s, region, n);
    return op_digest_end(&s);
}

/* docs/formats-contours.md: u32 count, raw_fallbacks, dropped_holes; per contour u32
 * region, u8 area, u32 vert_count, then per vertex u32 x, y, z, neighbour. */
uint64_t op_digest_contours(const op_contour_set *set)
{
    op_digest_stream s;
    op_digest_begin(&s);
    unsigned char *p = reserve(&s, 12);
    op_le_put32(p, set->count);
    op_le_put32(p + 4, set->raw_fallbacks);
    op_le_put32(p + 8, set->dropped_holes);
    for (uint32_t i = 0; i < set->count; i++) {
        const op_contour *c = &set->contours[i];
        p = reserve(&s, 9);
        op_le_put32(p, c->region);
        p[4] = c->area;
        op_le_put32(p + 5, c->vert_count);
        for (uint32_t j = 0; j < c->vert_count; j++) {
            const op_contour_vert *v = &c->verts[j];
            p = reserve(&s, 16);
            op_le_put32(p, (uint32_t)v->x);
            op_le_put32(p + 4, (uint32_t)v->y);
            op_le_put32(p + 8, (uint32_t)v->z);
            op_le_put32(p + 12, v->neighbour);
        }
    }
    return op_digest_end(&s);
}

void op_digest_hex(uint64_t digest, char out[17])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        out[i] = hex[(digest >> (60 - 4 * i)) & 0xf];
    out[16] = 0;
}
