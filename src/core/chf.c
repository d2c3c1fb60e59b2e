/* Compact heightfield storage (supplement §1.5); the link rule is spans/links.c. */
#include "onepath/chf.h"
#include "core/kernels.h"

#include "core/alloc.h"
#include "core/links16.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void op_chf_free(op_chf *chf)
{
    const op_allocator a = chf->alloc;
    op_mem_free(&a, chf->cell_first);
    op_mem_free(&a, chf->y);
    op_mem_free(&a, chf->h);
    op_mem_free(&a, chf->area);
    for (int d = 0; d < 4; d++) {
        op_mem_free(&a, chf->dlink[d]);
        op_link_far_free(&a, &chf->far[d]);
    }
    op_mem_free(&a, chf->mutual);
    memset(chf, 0, sizeof *chf);
}

/* The arrays for the given sizes; zeroed and links OP_NO_LINK (OP_DLINK_NONE, 0x8000
 * in every u16) when clear; the far tables empty. */
static op_status chf_alloc(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                           uint32_t span_count, int clear)
{
    memset(chf, 0, sizeof *chf);
    if ((uint64_t)width * depth > 0x7fffffffull)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "grid of %u x %u cells exceeds the 32-bit cell index", width, depth);
    if (span_count > OP_MAX_SPANS)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%u spans exceed the 32-bit span index",
                       span_count);
    size_t cells = (size_t)width * depth;
    size_t n = span_count ? span_count : 1;
    if (ctx) {
        chf->alloc = ctx->alloc;
        chf->links_decode = ctx->k->links.decode;
    }
    const op_allocator *a = &chf->alloc;
    chf->width = width;
    chf->depth = depth;
    chf->span_count = span_count;
    void *(*get)(const op_allocator *, size_t, size_t) = clear ? op_mem_calloc : op_mem_array;
    chf->cell_first = get(a, cells + 1, sizeof(uint32_t)); /* the prefix sum's end too */
    chf->y = get(a, n, sizeof(uint16_t));
    chf->h = get(a, n, 1);
    chf->area = get(a, n, 1);
    chf->mutual = get(a, n, 1);
    int ok = chf->cell_first && chf->y && chf->h && chf->area && chf->mutual;
    for (int d = 0; d < 4; d++) {
        chf->dlink[d] = op_mem_array(a, n, sizeof(int16_t));
        if (chf->dlink[d] && clear) {
            for (size_t i = 0; i < n; i++)
                chf->dlink[d][i] = (int16_t)OP_DLINK_NONE;
        } else if (!chf->dlink[d]) {
            ok = 0;
        }
    }
    if (chf->cell_first)
        chf->cell_first[cells] = span_count;
    if (!ok) {
        op_chf_free(chf);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory allocating %u x %u cells, %u spans",
                       width, depth, span_count);
    }
    return OP_OK;
}

op_status op_chf_alloc(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                       uint32_t span_count)
{
    return chf_alloc(ctx, chf, width, depth, span_count, 1);
}

op_status op_chf_alloc_uninit(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                              uint32_t span_count)
{
    return chf_alloc(ctx, chf, width, depth, span_count, 0);
}

op_status op_chf_copy(op_ctx *ctx, op_chf *dst, const op_chf *src)
{
    op_status st = op_chf_alloc(ctx, dst, src->width, src->depth, src->span_count);
    if (st != OP_OK)
        return st;
    size_t cells = (size_t)src->width * src->depth, n = src->span_count;
    memcpy(dst->bmin, src->bmin, sizeof dst->bmin);
    memcpy(dst->bmax, src->bmax, sizeof dst->bmax);
    dst->cs = src->cs;
    dst->ch = src->ch;
    dst->walkable_height = src->walkable_height;
    dst->walkable_climb = src->walkable_climb;
    dst->border_size = src->border_size;
    memcpy(dst->cell_first, src->cell_first, (cells + 1) * sizeof(uint32_t));
    memcpy(dst->y, src->y, n * sizeof(uint16_t));
    memcpy(dst->h, src->h, n);
    memcpy(dst->area, src->area, n);
    memcpy(dst->mutual, src->mutual, n);
    for (int d = 0; d < 4; d++) {
        if (n)
            memcpy(dst->dlink[d], src->dlink[d], n * sizeof(int16_t));
        const uint32_t m = src->far[d].count;
        if (!m)
            continue;
        op_link_far *f = &dst->far[d];
        f->span = op_mem_array(&dst->alloc, m, sizeof(uint32_t));
        f->target = op_mem_array(&dst->alloc, m, sizeof(uint32_t));
        if (!f->span || !f->target) {
            op_chf_free(dst);
            return op_fail(ctx, OP_NO_MEMORY, "out of memory copying %u far links", m);
        }
        memcpy(f->span, src->far[d].span, m * sizeof(uint32_t));
        memcpy(f->target, src->far[d].target, m * sizeof(uint32_t));
        f->count = f->cap = m;
    }
    return OP_OK;
}

void op_chf_links_get(const op_chf *chf, int d, uint32_t s0, uint32_t n, uint32_t *out)
{
    op_dlinks_decode(chf->links_decode ? chf->links_decode : op_links_decode_scalar,
                     chf->dlink[d] + s0, &chf->far[d], s0, n, out);
}

op_status op_chf_set_link(op_ctx *ctx, op_chf *chf, int d, uint32_t s, uint32_t t)
{
    if (d < 0 || d > 3 || s >= chf->span_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "link %d of span %u: out of range (%u spans)", d,
                       s, chf->span_count);
    op_link_far *far = &chf->far[d];
    const int16_t old = chf->dlink[d][s], v = op_dlink_encode(s, t);
    /* The far entry of s, or where it goes. */
    const uint32_t lo =
        old == OP_DLINK_FAR || v == OP_DLINK_FAR ? op_link_far_lower_bound(far, s) : 0;
    if (v == OP_DLINK_FAR && old != OP_DLINK_FAR) {
        if (op_link_far_insert(&chf->alloc, far, lo, s, t) != 0)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for a far link of span %u", s);
    } else if (v == OP_DLINK_FAR) {
        far->target[lo] = t;
    } else if (old == OP_DLINK_FAR) {
        memmove(far->span + lo, far->span + lo + 1, (far->count - lo - 1) * sizeof(uint32_t));
        memmove(far->target + lo, far->target + lo + 1,
                (far->count - lo - 1) * sizeof(uint32_t));
        far->count--;
    }
    chf->dlink[d][s] = v;
    return OP_OK;
}

uint32_t op_chf_span_cell(const op_chf *chf, uint32_t s)
{
    /* cell_first is a prefix sum (empty cells hold the next span's index), so the
     * owner is the last cell whose first span is <= s. */
    size_t lo = 0, hi = (size_t)chf->width * chf->depth;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (chf->cell_first[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

uint32_t op_chf_walkable_count(const op_chf *chf)
{
    const uint8_t *area = chf->area;
    const uint32_t n = chf->span_count;
    uint32_t zero = 0, s = 0;
#if defined(__SSE2__)
    /* The spans of area 0, 16 at a time: a compare gives -1 per zero byte, summed into
     * byte lanes for at most 255 rounds, then added up by _mm_sad_epu8. GCC -O2 does
     * not vectorize the plain loop below: 1.2-1.6 ms of every demo-1936 bake against
     * ~0.25 (bake-speed.md round 10). Tested against it in test_core_chf_count. */
    const __m128i z = _mm_setzero_si128();
    while (n - s >= 16) {
        __m128i lanes = z;
        for (uint32_t r = 0; r < 255 && n - s >= 16; r++, s += 16)
            lanes = _mm_sub_epi8(
                lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(area + s)), z));
        const __m128i sum = _mm_sad_epu8(lanes, z);
        zero += (uint32_t)_mm_cvtsi128_si32(sum) + (uint32_t)_mm_extract_epi16(sum, 4);
    }
#endif
    for (; s < n; s++)
        zero += area[s] == 0;
    return n - zero;
}
