/* The solid heightfield: per column, spans bottom-up in one contiguous run of the span
 * arrays (supplement §1.3). The rasterizer writes whole fields packed in cell order
 * (spans/rasterize.c); op_heightfield_add_span edits one column at a time. */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "core/alloc.h"

#include <math.h>
#include <string.h>

op_status op_heightfield_init(op_ctx *ctx, op_heightfield *hf, uint32_t width, uint32_t depth,
                              const float bmin[3], const float bmax[3], float cs, float ch)
{
    memset(hf, 0, sizeof *hf);
    if (width == 0 || depth == 0 || (uint64_t)width * depth > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heightfield of %u x %u columns: need 1..%u columns in all", width,
                       depth, OP_MAX_GRID_CELLS);
    if (!isfinite(cs) || cs <= 0 || !isfinite(ch) || ch <= 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heightfield cell size %g and height %g must be finite and > 0", cs, ch);
    const size_t cells = (size_t)width * depth;
    if (ctx)
        hf->alloc = ctx->alloc;
    /* A prefix sum: one entry more, the end of the last column (the compact field built
     * in place keeps first as its cell_first, which ends in the sentinel span_count,
     * onepath/chf.h). All zero: every column empty. */
    hf->first = op_mem_calloc(&hf->alloc, cells + 1, sizeof(uint32_t));
    if (!hf->first) {
        op_heightfield_free(hf);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory allocating %u x %u columns", width,
                       depth);
    }
    hf->width = width;
    hf->depth = depth;
    hf->world_width = width;
    hf->world_depth = depth;
    memcpy(hf->bmin, bmin, sizeof hf->bmin);
    memcpy(hf->bmax, bmax, sizeof hf->bmax);
    hf->cs = cs;
    hf->ch = ch;
    hf->packed = 1;
    return OP_OK;
}

void op_heightfield_free(op_heightfield *hf)
{
    const op_allocator a = hf->alloc;
    op_mem_free(&a, hf->first);
    op_mem_free(&a, hf->end);
    op_hf_spans_free(hf);
    memset(hf, 0, sizeof *hf);
}

op_status op_heightfield_copy(op_ctx *ctx, op_heightfield *dst, const op_heightfield *src)
{
    memset(dst, 0, sizeof *dst);
    op_heightfield t = *src;
    t.alloc = ctx ? ctx->alloc : (op_allocator){0};
    const size_t cells = (size_t)src->width * src->depth;
    t.first = op_mem_array(&t.alloc, cells + 1, sizeof(uint32_t)); /* as op_heightfield_init */
    t.end = src->end ? op_mem_array(&t.alloc, cells ? cells : 1, sizeof(uint32_t)) : NULL;
    t.smin = t.smax = NULL;
    t.area = NULL;
    t.span_cap = 0;
    const uint32_t n = src->span_used;
    if (!t.first || (src->end && !t.end) || (n && !op_hf_spans_reserve(&t, n))) {
        op_heightfield_free(&t);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory copying a heightfield of %u spans", n);
    }
    memcpy(t.first, src->first, (cells + 1) * sizeof(uint32_t));
    if (src->end)
        memcpy(t.end, src->end, cells * sizeof(uint32_t));
    if (n) {
        memcpy(t.smin, src->smin, (size_t)n * sizeof(uint16_t));
        memcpy(t.smax, src->smax, (size_t)n * sizeof(uint16_t));
        memcpy(t.area, src->area, n);
    }
    *dst = t;
    return OP_OK;
}

void op_hf_spans_free(op_heightfield *hf)
{
    op_mem_free(&hf->alloc, hf->smin);
    op_mem_free(&hf->alloc, hf->smax);
    op_mem_free(&hf->alloc, hf->area);
    hf->smin = hf->smax = NULL;
    hf->area = NULL;
    hf->span_cap = hf->span_used = 0;
}

/* supplement §2 "Seam-exact tiles": the window only changes which world columns the
 * local columns are; the span storage is the same. */
op_status op_heightfield_set_window(op_ctx *ctx, op_heightfield *hf, int32_t origin_x,
                                    int32_t origin_z, uint32_t world_width,
                                    uint32_t world_depth)
{
    if (world_width == 0 || world_depth == 0 ||
        (uint64_t)world_width * world_depth > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "window: world of %u x %u columns: need 1..%u columns in all", world_width,
                       world_depth, OP_MAX_GRID_CELLS);
    /* In 64 bits: the window must overlap the world somewhere. */
    const int64_t x1 = (int64_t)origin_x + hf->width, z1 = (int64_t)origin_z + hf->depth;
    if (x1 <= 0 || z1 <= 0 || origin_x >= (int64_t)world_width ||
        origin_z >= (int64_t)world_depth)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "window of %u x %u columns at world column (%d, %d) does not overlap the "
                       "%u x %u world",
                       hf->width, hf->depth, origin_x, origin_z, world_width, world_depth);
    hf->origin_x = origin_x;
    hf->origin_z = origin_z;
    hf->world_width = world_width;
    hf->world_depth = world_depth;
    return OP_OK;
}

int op_hf_spans_reserve(op_heightfield *hf, uint64_t need)
{
    if (need <= hf->span_cap)
        return 1;
    if (need > OP_HF_MAX_SPANS)
        return 0;
    uint64_t ncap = hf->span_cap ? (uint64_t)hf->span_cap + hf->span_cap / 2 : 1024;
    if (ncap < need)
        ncap = need;
    if (ncap > OP_HF_MAX_SPANS)
        ncap = OP_HF_MAX_SPANS;
    /* Each array is resized in turn; one that fails leaves the others larger, which is
     * harmless (span_cap still describes the smallest). */
    void **arrays[3] = {(void **)&hf->smin, (void **)&hf->smax, (void **)&hf->area};
    static const size_t elem[3] = {sizeof(uint16_t), sizeof(uint16_t), 1};
    for (int i = 0; i < 3; i++) {
        void *a = op_mem_realloc(&hf->alloc, *arrays[i], (size_t)ncap * elem[i]);
        if (!a)
            return 0;
        *arrays[i] = a;
    }
    hf->span_cap = (uint32_t)ncap;
    return 1;
}

/* supplement §1.3 merge rule (Recast's addSpan, without its 13-bit height limit) on one
 * column held in arrays: spans strictly below stay, every span overlapping or touching
 * [smin, smax] is absorbed in bottom-up order, spans strictly above stay. */
op_status op_heightfield_add_span(op_ctx *ctx, op_heightfield *hf, uint32_t x, uint32_t z,
                                  uint16_t smin, uint16_t smax, uint8_t area,
                                  int walkable_climb)
{
    if (x >= hf->width || z >= hf->depth)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span at column (%u, %u) outside %u x %u", x,
                       z, hf->width, hf->depth);
    if (smin > smax)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span [%u, %u] has smin > smax", smin, smax);
    const size_t c = (size_t)x + (size_t)z * hf->width;
    if (!hf->end) {
        /* The first edit: the columns' ends from the prefix sum, kept from now on (a
         * column that moves leaves first unordered). */
        const size_t cells = (size_t)hf->width * hf->depth;
        hf->end = op_mem_array(&hf->alloc, cells, sizeof(uint32_t));
        if (!hf->end)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the ends of %u x %u columns",
                           hf->width, hf->depth);
        memcpy(hf->end, hf->first + 1, cells * sizeof(uint32_t));
    }
    const uint32_t s0 = hf->first[c], n = hf->end[c] - s0;
    uint32_t lo = 0; /* spans [s0, s0 + lo) lie strictly below */
    while (lo < n && (int32_t)hf->smax[s0 + lo] < (int32_t)smin)
        lo++;
    int32_t nmin = smin, nmax = smax;
    uint8_t narea = area;
    uint32_t hi = lo; /* spans [s0 + lo, s0 + hi) are absorbed */
    while (hi < n && (int32_t)hf->smin[s0 + hi] <= nmax) {
        const uint32_t cur = s0 + hi;
        if (hf->smin[cur] < nmin)
            nmin = hf->smin[cur];
        if (hf->smax[cur] > nmax)
            nmax = hf->smax[cur];
        const int32_t dy = nmax - (int32_t)hf->smax[cur];
        if (dy <= walkable_climb && -dy <= walkable_climb && hf->area[cur] > narea)
            narea = hf->area[cur];
        hi++;
    }
    uint32_t base = s0;
    if (hi == lo) {
        /* One more span: grow in place at the end of the arrays, or move the column there. */
        const int at_end = s0 + n == hf->span_used;
        const uint64_t need = (uint64_t)hf->span_used + (at_end ? 1 : n + 1);
        if (!op_hf_spans_reserve(hf, need))
            return op_fail(ctx, OP_NO_MEMORY,
                           "out of memory growing the span arrays past %u spans", hf->span_cap);
        if (!at_end) {
            base = hf->span_used;
            memcpy(hf->smin + base, hf->smin + s0, n * sizeof *hf->smin);
            memcpy(hf->smax + base, hf->smax + s0, n * sizeof *hf->smax);
            memcpy(hf->area + base, hf->area + s0, n);
            hf->first[c] = base;
        }
        /* Still packed: the column was the last one, or an empty one after it. A moved
         * column leaves a gap; an empty one before the last breaks the cell order. */
        if (n ? !at_end : hf->span_count && c < hf->tail_cell)
            hf->packed = 0;
        if (hf->packed)
            hf->tail_cell = (uint32_t)c;
        hf->span_used = (uint32_t)need;
        /* Open a slot at lo. */
        memmove(hf->smin + base + lo + 1, hf->smin + base + lo, (n - lo) * sizeof *hf->smin);
        memmove(hf->smax + base + lo + 1, hf->smax + base + lo, (n - lo) * sizeof *hf->smax);
        memmove(hf->area + base + lo + 1, hf->area + base + lo, n - lo);
        hf->end[c] = base + n + 1;
        hf->span_count++;
    } else {
        /* hi - lo spans become one: close the gap above. */
        const uint32_t gone = hi - lo - 1;
        memmove(hf->smin + base + lo + 1, hf->smin + base + hi, (n - hi) * sizeof *hf->smin);
        memmove(hf->smax + base + lo + 1, hf->smax + base + hi, (n - hi) * sizeof *hf->smax);
        memmove(hf->area + base + lo + 1, hf->area + base + hi, n - hi);
        hf->end[c] = base + n - gone;
        hf->span_count -= gone;
        if (gone && s0 + n == hf->span_used)
            hf->span_used -= gone; /* the last run just got shorter */
        else if (gone)
            hf->packed = 0;
    }
    hf->smin[base + lo] = (uint16_t)nmin;
    hf->smax[base + lo] = (uint16_t)nmax;
    hf->area[base + lo] = narea;
    return OP_OK;
}

uint64_t op_heightfield_span_count(const op_heightfield *hf) { return hf->span_count; }

uint32_t op_heightfield_column_count(const op_heightfield *hf, uint32_t x, uint32_t z)
{
    const size_t c = (size_t)x + (size_t)z * hf->width;
    return op_heightfield_ends(hf)[c] - hf->first[c];
}

op_status op_hf_pack(op_ctx *ctx, op_heightfield *hf)
{
    if (!hf->end)
        return OP_OK; /* first is the prefix sum already */
    const size_t cells = (size_t)hf->width * hf->depth;
    op_heightfield t = *hf;
    t.smin = t.smax = NULL;
    t.area = NULL;
    t.span_cap = t.span_used = 0;
    if (!op_hf_spans_reserve(&t, hf->span_count ? hf->span_count : 1))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory packing %llu spans",
                       (unsigned long long)hf->span_count);
    uint32_t w = 0;
    hf->tail_cell = 0;
    for (size_t c = 0; c < cells; c++) {
        const uint32_t s0 = hf->first[c], n = hf->end[c] - s0;
        memcpy(t.smin + w, hf->smin + s0, n * sizeof *t.smin);
        memcpy(t.smax + w, hf->smax + s0, n * sizeof *t.smax);
        memcpy(t.area + w, hf->area + s0, n);
        hf->first[c] = w;
        w += n;
        if (n)
            hf->tail_cell = (uint32_t)c;
    }
    hf->first[cells] = w;
    op_mem_free(&hf->alloc, hf->end);
    hf->end = NULL;
    op_hf_spans_free(hf);
    hf->smin = t.smin;
    hf->smax = t.smax;
    hf->area = t.area;
    hf->span_cap = t.span_cap;
    hf->span_used = w;
    hf->packed = 1;
    return OP_OK;
}
