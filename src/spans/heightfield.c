/* The solid heightfield: per column, spans bottom-up in an index-based pool with a free
 * list (supplement §1.3). No per-column limit; allocation order depends only on the
 * calls made, so the field is deterministic. */
#include "onepath/spans.h"
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
    hf->head = op_mem_array(&hf->alloc, cells, sizeof(uint32_t));
    if (!hf->head)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory allocating %u x %u columns", width,
                       depth);
    memset(hf->head, 0xff, cells * sizeof(uint32_t)); /* OP_HF_NONE */
    hf->width = width;
    hf->depth = depth;
    hf->world_width = width;
    hf->world_depth = depth;
    memcpy(hf->bmin, bmin, sizeof hf->bmin);
    memcpy(hf->bmax, bmax, sizeof hf->bmax);
    hf->cs = cs;
    hf->ch = ch;
    hf->free_head = OP_HF_NONE;
    return OP_OK;
}

void op_heightfield_free(op_heightfield *hf)
{
    const op_allocator a = hf->alloc;
    op_mem_free(&a, hf->head);
    op_mem_free(&a, hf->smin);
    op_mem_free(&a, hf->smax);
    op_mem_free(&a, hf->area);
    op_mem_free(&a, hf->next);
    memset(hf, 0, sizeof *hf);
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

/* Grows the pool's four arrays together; 0 on failure (the pool stays valid). */
static int pool_grow(op_heightfield *hf)
{
    uint64_t ncap = hf->pool_cap ? (uint64_t)hf->pool_cap * 2 : 1024;
    if (ncap > OP_HF_NONE - 1ull)
        ncap = OP_HF_NONE - 1ull;
    if (ncap <= hf->pool_cap)
        return 0;
    /* Each array is resized in turn; one that fails leaves the others larger, which
     * is harmless (pool_cap still describes the smallest). */
    void **arrays[4] = {(void **)&hf->smin, (void **)&hf->smax, (void **)&hf->area,
                        (void **)&hf->next};
    static const size_t elem[4] = {sizeof(uint16_t), sizeof(uint16_t), 1, sizeof(uint32_t)};
    for (int i = 0; i < 4; i++) {
        if ((uint64_t)SIZE_MAX / elem[i] < ncap)
            return 0;
        void *a = op_mem_realloc(&hf->alloc, *arrays[i], (size_t)ncap * elem[i]);
        if (!a)
            return 0;
        *arrays[i] = a;
    }
    hf->pool_cap = (uint32_t)ncap;
    return 1;
}

static uint32_t span_alloc(op_heightfield *hf)
{
    if (hf->free_head != OP_HF_NONE) {
        uint32_t s = hf->free_head;
        hf->free_head = hf->next[s];
        return s;
    }
    if (hf->pool_used == hf->pool_cap && !pool_grow(hf))
        return OP_HF_NONE;
    return hf->pool_used++;
}

static void span_release(op_heightfield *hf, uint32_t s)
{
    hf->next[s] = hf->free_head;
    hf->free_head = s;
}

/* supplement §1.3 merge rule (Recast's addSpan, without its 13-bit height limit). */
op_status op_heightfield_add_span(op_ctx *ctx, op_heightfield *hf, uint32_t x, uint32_t z,
                                  uint16_t smin, uint16_t smax, uint8_t area,
                                  int walkable_climb)
{
    if (x >= hf->width || z >= hf->depth)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span at column (%u, %u) outside %u x %u", x,
                       z, hf->width, hf->depth);
    if (smin > smax)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span [%u, %u] has smin > smax", smin, smax);
    /* Take the new span first so an allocation failure leaves the column untouched. */
    const uint32_t ns = span_alloc(hf);
    if (ns == OP_HF_NONE)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory growing the span pool past %u spans",
                       hf->pool_cap);
    uint32_t *head = &hf->head[(size_t)x + (size_t)z * hf->width];
    int32_t nmin = smin, nmax = smax;
    uint8_t narea = area;
    uint32_t prev = OP_HF_NONE, cur = *head;
    while (cur != OP_HF_NONE) {
        if ((int32_t)hf->smin[cur] > nmax)
            break; /* strictly above: the new span goes below it */
        if ((int32_t)hf->smax[cur] < nmin) {
            prev = cur; /* strictly below */
            cur = hf->next[cur];
            continue;
        }
        /* Overlapping or touching: absorb cur. */
        if (hf->smin[cur] < nmin)
            nmin = hf->smin[cur];
        if (hf->smax[cur] > nmax)
            nmax = hf->smax[cur];
        const int32_t dy = nmax - (int32_t)hf->smax[cur];
        if (dy <= walkable_climb && -dy <= walkable_climb && hf->area[cur] > narea)
            narea = hf->area[cur];
        const uint32_t nxt = hf->next[cur];
        span_release(hf, cur);
        hf->span_count--;
        if (prev == OP_HF_NONE)
            *head = nxt;
        else
            hf->next[prev] = nxt;
        cur = nxt;
    }
    hf->smin[ns] = (uint16_t)nmin;
    hf->smax[ns] = (uint16_t)nmax;
    hf->area[ns] = narea;
    hf->next[ns] = cur;
    if (prev == OP_HF_NONE)
        *head = ns;
    else
        hf->next[prev] = ns;
    hf->span_count++;
    return OP_OK;
}

uint64_t op_heightfield_span_count(const op_heightfield *hf) { return hf->span_count; }

uint32_t op_heightfield_column_count(const op_heightfield *hf, uint32_t x, uint32_t z)
{
    uint32_t n = 0;
    for (uint32_t s = op_heightfield_first(hf, x, z); s != OP_HF_NONE; s = hf->next[s])
        n++;
    return n;
}
