/* The compact field's 16-bit links (core/links16.h): encoding, the far tables, and the
 * block decode around the kernel (scalar|simd/links_decode.c). */
#include "core/links16.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int32_t op_dlink_near_limit = OP_DLINK_MAX;

uint32_t op_link_far_lower_bound(const op_link_far *far, uint32_t s)
{
    uint32_t lo = 0, hi = far->count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (far->span[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t op_link_far_find(const op_link_far *far, uint32_t s)
{
    const uint32_t i = op_link_far_lower_bound(far, s);
    return i < far->count && far->span[i] == s ? far->target[i] : OP_NO_LINK;
}

/* Room for one more entry (doubling; the table is normally empty). */
static int far_grow(const op_allocator *a, op_link_far *far)
{
    if (far->count < far->cap)
        return 0;
    const uint32_t cap = far->cap ? (far->cap > 0x7fffffffu ? 0xffffffffu : 2 * far->cap) : 16;
    if (cap <= far->count)
        return -1;
    uint32_t *span = op_mem_realloc(a, far->span, (size_t)cap * sizeof(uint32_t));
    if (!span)
        return -1;
    far->span = span;
    uint32_t *target = op_mem_realloc(a, far->target, (size_t)cap * sizeof(uint32_t));
    if (!target)
        return -1;
    far->target = target;
    far->cap = cap;
    return 0;
}

int op_link_far_insert(const op_allocator *a, op_link_far *far, uint32_t at, uint32_t s,
                       uint32_t t)
{
    if (far_grow(a, far) != 0)
        return -1;
    memmove(far->span + at + 1, far->span + at, (far->count - at) * sizeof(uint32_t));
    memmove(far->target + at + 1, far->target + at, (far->count - at) * sizeof(uint32_t));
    far->span[at] = s;
    far->target[at] = t;
    far->count++;
    return 0;
}

int op_link_far_append(const op_allocator *a, op_link_far *far, const op_link_far *src)
{
    for (uint32_t i = 0; i < src->count; i++) {
        if (far_grow(a, far) != 0)
            return -1;
        far->span[far->count] = src->span[i];
        far->target[far->count++] = src->target[i];
    }
    return 0;
}

/* dl[0 .. n) for the links t[0 .. n) of spans s0 .. s0 + n with deltas in [lo, hi]
 * (lo <= 0 <= hi) stored in place; returns whether any is OP_DLINK_FAR. A delta is taken
 * mod 2^32 and then checked against the true one: d = t - s (u32) lies in [lo, hi] mod 2^32,
 * and it is the true difference when d <= hi exactly when t >= s. */
static int encode_near(int16_t *dl, uint32_t s0, uint32_t n, const uint32_t *t, int32_t lo,
                       int32_t hi)
{
    uint32_t i = 0;
    int any = 0;
#if defined(__SSE2__)
    /* GCC -O2 does not vectorize the loop below (8 links a step here: ~0.3 ns a link
     * against ~1 for the loop, memory.md round 11). Tested against it through
     * test_kernels_links16 (every limit, s0 near 0 and near OP_MAX_SPANS). */
    const __m128i sign = _mm_set1_epi32(INT32_MIN), vlo = _mm_set1_epi32(lo);
    const __m128i width_x = _mm_set1_epi32((int32_t)(((uint32_t)hi - (uint32_t)lo) ^ 0x80000000u));
    const __m128i hi_x = _mm_set1_epi32((int32_t)((uint32_t)hi ^ 0x80000000u));
    const __m128i ones = _mm_set1_epi32(-1), four = _mm_set1_epi32(4);
    const __m128i vnone = _mm_set1_epi16((int16_t)OP_DLINK_NONE),
                  vfar = _mm_set1_epi16((int16_t)OP_DLINK_FAR);
    __m128i sv = _mm_add_epi32(_mm_set1_epi32((int32_t)s0), _mm_setr_epi32(0, 1, 2, 3));
    __m128i anyfar = _mm_setzero_si128();
    for (; n - i >= 8; i += 8) {
        __m128i d2[2], near2[2], none2[2];
        for (int h = 0; h < 2; h++) {
            const __m128i tv = _mm_loadu_si128((const __m128i *)(const void *)(t + i + 4 * h));
            const __m128i d = _mm_sub_epi32(tv, sv);
            const __m128i in = _mm_andnot_si128(
                _mm_cmpgt_epi32(_mm_xor_si128(_mm_sub_epi32(d, vlo), sign), width_x), ones);
            const __m128i gt_hi = _mm_cmpgt_epi32(_mm_xor_si128(d, sign), hi_x);
            const __m128i t_lt_s =
                _mm_cmpgt_epi32(_mm_xor_si128(sv, sign), _mm_xor_si128(tv, sign));
            const __m128i none = _mm_cmpeq_epi32(tv, ones);
            /* true delta: (d <= hi) == (t >= s), i.e. gt_hi == t_lt_s */
            near2[h] = _mm_andnot_si128(_mm_or_si128(none, _mm_xor_si128(gt_hi, t_lt_s)), in);
            d2[h] = d;
            none2[h] = none;
            sv = _mm_add_epi32(sv, four);
        }
        const __m128i near = _mm_packs_epi32(near2[0], near2[1]);
        const __m128i none = _mm_packs_epi32(none2[0], none2[1]);
        const __m128i other = _mm_or_si128(_mm_and_si128(none, vnone), _mm_andnot_si128(none, vfar));
        const __m128i v = _mm_or_si128(_mm_and_si128(near, _mm_packs_epi32(d2[0], d2[1])),
                                       _mm_andnot_si128(near, other));
        _mm_storeu_si128((__m128i *)(void *)(dl + i), v);
        anyfar = _mm_or_si128(anyfar, _mm_andnot_si128(_mm_or_si128(near, none), ones));
    }
    any = _mm_movemask_epi8(anyfar) != 0;
#endif
    for (; i < n; i++) {
        const uint32_t s = s0 + i, d = t[i] - s;
        const int near = t[i] != OP_NO_LINK && d - (uint32_t)lo <= (uint32_t)hi - (uint32_t)lo &&
                         (d <= (uint32_t)hi) == (t[i] >= s);
        dl[i] = near ? (int16_t)(int32_t)d
                     : (int16_t)(t[i] == OP_NO_LINK ? OP_DLINK_NONE : OP_DLINK_FAR);
        any |= dl[i] == OP_DLINK_FAR;
    }
    return any;
}

int op_dlinks_encode(const op_allocator *a, int16_t *dl, op_link_far *far, uint32_t s0,
                     uint32_t n, const uint32_t *t)
{
    const int32_t limit = op_dlink_near_limit;
    if (limit >= 0) {
        const int32_t hi = limit > OP_DLINK_MAX ? OP_DLINK_MAX : limit;
        if (!encode_near(dl, s0, n, t, hi > -OP_DLINK_MIN ? OP_DLINK_MIN : -hi, hi))
            return 0;
    } else {
        for (uint32_t i = 0; i < n; i++)
            dl[i] = op_dlink_encode(s0 + i, t[i]);
    }
    for (uint32_t i = 0; i < n; i++)
        if (dl[i] == OP_DLINK_FAR) {
            if (far_grow(a, far) != 0)
                return -1;
            far->span[far->count] = s0 + i;
            far->target[far->count++] = t[i];
        }
    return 0;
}

void op_dlinks_decode(op_links_decode_fn decode, const int16_t *dl, const op_link_far *far,
                      uint32_t s0, uint32_t n, uint32_t *out)
{
    uint32_t left = decode(dl, s0, n, out);
    if (!left)
        return;
    /* The far entries of the block, in span order from the first at or after s0. */
    uint32_t lo = 0, hi = far->count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (far->span[mid] < s0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; left && lo < far->count && far->span[lo] - s0 < n; lo++, left--)
        out[far->span[lo] - s0] = far->target[lo];
}

void op_link_far_free(const op_allocator *a, op_link_far *far)
{
    op_mem_free(a, far->span);
    op_mem_free(a, far->target);
    memset(far, 0, sizeof *far);
}
