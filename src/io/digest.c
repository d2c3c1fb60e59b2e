/* Canonical digests (supplement §5): XXH3-64 over explicit little-endian byte streams,
 * fed through a staging buffer so no host layout (struct padding, endianness) leaks
 * in. The serializations are documented in docs/formats.md (contours:
 * docs/formats-contours.md). The XXH3 state lives in the stream on the caller's stack:
 * no digest allocates, so none can fail. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "onepath/contours.h"
#include "onepath/digest.h"
#include "core/kernels.h"
#include "core/le.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

_Static_assert(sizeof(XXH3_state_t) <= OP_DIGEST_STATE_SIZE,
               "op_digest_stream.state is too small for this xxHash's XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "op_digest_stream.state is not aligned enough");

static XXH3_state_t *xxh(op_digest_stream *s) { return (XXH3_state_t *)(void *)s->state; }

/* Runs of at least this many bytes go through the kernel table's XXH3 update (the
 * widest this CPU runs: core/kernels.h OP_DIGEST_UPDATE_FN); shorter ones through
 * this file's own copy, where choosing would cost more than it saves. */
#define WIDE_MIN ((size_t)1 << 16)

/* The XXH3 update of the best variant (the digests take no context, so ONEPATH_ISA
 * alone narrows it, as for op_mark_walkable_triangles). Same state as XXH3's own
 * update: XXH3's value does not depend on the vector width. */
static op_digest_update_fn wide_update(void)
{
    const op_isa isa = op_isa_best();
    op_kernels k;
    op_kernels_init(&k, isa, op_isa_flags(isa));
    return k.digest.update;
}

static OP_DIGEST_UPDATE_FN(own_update)
{
    XXH3_64bits_update((XXH3_state_t *)xxh3_state, data, len);
}

/* The update for a stream of about len more bytes. */
static op_digest_update_fn pick_update(size_t len)
{
    return len >= WIDE_MIN ? wide_update() : own_update;
}

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
        pick_update(n)(xxh(s), p, n);
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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 64) { /* the array's bytes are the stream's: straight to XXH3 */
        op_digest_put(s, v, 4 * n);
        return;
    }
#endif
    while (n) {
        const size_t k = n < 64 ? n : 64;
        unsigned char *p = reserve(s, 4 * k);
        for (size_t i = 0; i < k; i++)
            op_le_put32(p + 4 * i, v[i]);
        v += k;
        n -= k;
    }
}

/* OPCHFD1's serialisation is staged in blocks of this many bytes (on the stack). */
#define CHF_BLOCK 16384

/* k cell records (u32 first, u32 count) at p. */
static void chf_cells(unsigned char *p, const uint32_t *cf, size_t k)
{
    /* Counts are the prefix sum's steps: cf[i + 1] - cf[i], cf[k] included. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= k; i += 4) {
        const __m128i f = _mm_loadu_si128((const __m128i *)(const void *)(cf + i)),
                      f1 = _mm_loadu_si128((const __m128i *)(const void *)(cf + i + 1)),
                      n = _mm_sub_epi32(f1, f);
        _mm_storeu_si128((__m128i *)(void *)(p + 8 * i), _mm_unpacklo_epi32(f, n));
        _mm_storeu_si128((__m128i *)(void *)(p + 8 * i + 16), _mm_unpackhi_epi32(f, n));
    }
#endif
    for (; i < k; i++) {
        const uint64_t w = (uint64_t)cf[i] | (uint64_t)(cf[i + 1] - cf[i]) << 32;
        memcpy(p + 8 * i, &w, 8);
    }
#else
    for (size_t i = 0; i < k; i++) {
        op_le_put32(p + 8 * i, cf[i]);
        op_le_put32(p + 8 * i + 4, cf[i + 1] - cf[i]);
    }
#endif
}

#if defined(__SSE2__)
/* Four links, all ones where the mutual bit is clear. */
static inline __m128i chf_link4(const uint32_t *l, __m128i mb, int bit)
{
    const __m128i off = _mm_cmpeq_epi32(_mm_and_si128(mb, _mm_set1_epi32(bit)),
                                        _mm_setzero_si128());
    return _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)l), off);
}
#endif

/* k span records of 22 bytes (u16 y, u16 h, u8 area, u8 mutual bits, u32 link per
 * direction; a link that is not mutual is written as OP_NO_LINK) of spans i.. at p. h is
 * u8 in the field and u16 in the record (widened here: the format predates the u8). */
static void chf_spans(unsigned char *p, const op_chf *chf, uint32_t i, uint32_t k)
{
    const uint16_t *y = chf->y + i;
    const uint8_t *h = chf->h + i;
    const uint8_t *area = chf->area + i, *mutual = chf->mutual + i;
    /* The block's links (op_chf_links_at: the field's own u32 arrays, or decoded here) */
    uint32_t lb[4][CHF_BLOCK / 22];
    const uint32_t *l0 = op_chf_links_at(chf, 0, i, k, lb[0]),
                   *l1 = op_chf_links_at(chf, 1, i, k, lb[1]),
                   *l2 = op_chf_links_at(chf, 2, i, k, lb[2]),
                   *l3 = op_chf_links_at(chf, 3, i, k, lb[3]);
    uint32_t j = 0;
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Four records at a time: the links transposed to one vector per span (stored at
     * byte 6), after the 8 bytes of y, h, area, mutual (and two bytes the links then
     * overwrite); each store ends inside its own record. */
    const __m128i zero = _mm_setzero_si128(), low4 = _mm_set1_epi32(0xf);
    /* Prefetch distance in spans: the walk reads eight arrays at once and is bound by
     * memory (demo-1936: 10.4 -> 9.8 ms with it, a plain read of the arrays 7.7 ms;
     * bake-speed.md round 10). */
    enum { AHEAD = 512 };
    const uint32_t ahead_end = chf->span_count - i > AHEAD ? chf->span_count - i - AHEAD : 0;
    for (; j + 4 <= k; j += 4, p += 88) {
#if defined(__GNUC__)
        if ((j & 15) == 0 && j < ahead_end) {
            /* the field's link storage ahead (not the block's buffer) */
            for (int d = 0; d < 4; d++)
                __builtin_prefetch(chf->dlink[d] + i + j + AHEAD);
            __builtin_prefetch(y + j + AHEAD);
            if ((j & 63) == 0) {
                __builtin_prefetch(h + j + AHEAD);
                __builtin_prefetch(area + j + AHEAD);
                __builtin_prefetch(mutual + j + AHEAD);
            }
        }
#endif
        uint32_t m4;
        memcpy(&m4, mutual + j, 4);
        const __m128i mb = _mm_and_si128(_mm_unpacklo_epi16(_mm_unpacklo_epi8(
                                             _mm_cvtsi32_si128((int)m4), zero), zero),
                                         low4);
        const __m128i L[4] = {chf_link4(l0 + j, mb, 1), chf_link4(l1 + j, mb, 2),
                              chf_link4(l2 + j, mb, 4), chf_link4(l3 + j, mb, 8)};
        const __m128i t0 = _mm_unpacklo_epi32(L[0], L[1]), t1 = _mm_unpacklo_epi32(L[2], L[3]),
                      t2 = _mm_unpackhi_epi32(L[0], L[1]), t3 = _mm_unpackhi_epi32(L[2], L[3]);
        const __m128i r0 = _mm_unpacklo_epi64(t0, t1), r1 = _mm_unpackhi_epi64(t0, t1),
                      r2 = _mm_unpacklo_epi64(t2, t3), r3 = _mm_unpackhi_epi64(t2, t3);
        uint32_t h4;
        memcpy(&h4, h + j, 4);
        const __m128i yh = _mm_unpacklo_epi16(
            _mm_loadl_epi64((const __m128i *)(const void *)(y + j)),
            _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)h4), zero));
        uint32_t a4;
        memcpy(&a4, area + j, 4);
        /* area | mutual << 8 per span, widened to 32 bits */
        const __m128i am = _mm_or_si128(
            _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)a4), zero), zero),
            _mm_slli_epi32(mb, 8));
        const __m128i h01 = _mm_unpacklo_epi32(yh, am), h23 = _mm_unpackhi_epi32(yh, am);
        _mm_storel_epi64((__m128i *)(void *)p, h01);
        _mm_storeu_si128((__m128i *)(void *)(p + 6), r0);
        _mm_storel_epi64((__m128i *)(void *)(p + 22), _mm_srli_si128(h01, 8));
        _mm_storeu_si128((__m128i *)(void *)(p + 28), r1);
        _mm_storel_epi64((__m128i *)(void *)(p + 44), h23);
        _mm_storeu_si128((__m128i *)(void *)(p + 50), r2);
        _mm_storel_epi64((__m128i *)(void *)(p + 66), _mm_srli_si128(h23, 8));
        _mm_storeu_si128((__m128i *)(void *)(p + 72), r3);
    }
#endif
    for (; j < k; j++, p += 22) {
        const uint32_t m = mutual[j] & 0xf;
        const uint32_t a = l0[j] | ((m & 1u) - 1u), b = l1[j] | ((m >> 1 & 1u) - 1u),
                       c = l2[j] | ((m >> 2 & 1u) - 1u), d = l3[j] | ((m >> 3 & 1u) - 1u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* bytes 0-7, 8-15 and 14-21 (overlapping by the two bytes of c both hold) */
        const uint64_t w0 = (uint64_t)y[j] | (uint64_t)h[j] << 16 | (uint64_t)area[j] << 32 |
                            (uint64_t)m << 40 | (uint64_t)(a & 0xffffu) << 48;
        const uint64_t w1 = (uint64_t)(a >> 16) | (uint64_t)b << 16 | (uint64_t)(c & 0xffffu) << 48;
        const uint64_t w2 = (uint64_t)c | (uint64_t)d << 32;
        memcpy(p, &w0, 8);
        memcpy(p + 8, &w1, 8);
        memcpy(p + 14, &w2, 8);
#else
        op_le_put16(p, y[j]);
        op_le_put16(p + 2, h[j]);
        p[4] = area[j];
        p[5] = (unsigned char)m;
        op_le_put32(p + 6, a);
        op_le_put32(p + 10, b);
        op_le_put32(p + 14, c);
        op_le_put32(p + 18, d);
#endif
    }
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
     * the field's arrays otherwise), staged in a block larger than the stream's buffer
     * and handed to XXH3 whole: the tile cache hashes every window it rebuilds, the bake
     * its whole field. */
    unsigned char blk[CHF_BLOCK];
    flush(&s);
    const size_t cells = (size_t)chf->width * chf->depth;
    const op_digest_update_fn update = pick_update(8 * cells + 22 * (size_t)chf->span_count);
    const uint32_t *cf = chf->cell_first;
    for (size_t c = 0; c < cells;) {
        const size_t k = cells - c < sizeof blk / 8 ? cells - c : sizeof blk / 8;
        chf_cells(blk, cf + c, k);
        update(xxh(&s), blk, 8 * k);
        c += k;
    }
    const uint32_t n = chf->span_count;
    for (uint32_t i = 0; i < n;) {
        const uint32_t k = n - i < sizeof blk / 22 ? n - i : (uint32_t)(sizeof blk / 22);
        chf_spans(blk, chf, i, k);
        update(xxh(&s), blk, 22 * (size_t)k);
        i += k;
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
