/* Compact heightfield storage and the link rule (supplement §1.5). */
#include "onepath/chf.h"
#include "core/kernels.h"

#include <stdlib.h>
#include <string.h>

void op_chf_free(op_chf *chf)
{
    free(chf->cell_first);
    free(chf->cell_count);
    free(chf->y);
    free(chf->h);
    free(chf->area);
    for (int d = 0; d < 4; d++)
        free(chf->link[d]);
    free(chf->mutual);
    memset(chf, 0, sizeof *chf);
}

op_status op_chf_alloc(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                       uint32_t span_count)
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
    chf->width = width;
    chf->depth = depth;
    chf->span_count = span_count;
    chf->cell_first = calloc(cells ? cells : 1, sizeof(uint32_t));
    chf->cell_count = calloc(cells ? cells : 1, sizeof(uint32_t));
    chf->y = calloc(n, sizeof(uint16_t));
    chf->h = calloc(n, sizeof(uint16_t));
    chf->area = calloc(n, 1);
    chf->mutual = calloc(n, 1);
    int ok = chf->cell_first && chf->cell_count && chf->y && chf->h && chf->area && chf->mutual;
    for (int d = 0; d < 4; d++) {
        chf->link[d] = malloc(n * sizeof(uint32_t));
        if (chf->link[d])
            memset(chf->link[d], 0xff, n * sizeof(uint32_t));
        else
            ok = 0;
    }
    if (!ok) {
        op_chf_free(chf);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory allocating %u x %u cells, %u spans",
                       width, depth, span_count);
    }
    return OP_OK;
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
    memcpy(dst->cell_first, src->cell_first, cells * sizeof(uint32_t));
    memcpy(dst->cell_count, src->cell_count, cells * sizeof(uint32_t));
    memcpy(dst->y, src->y, n * sizeof(uint16_t));
    memcpy(dst->h, src->h, n * sizeof(uint16_t));
    memcpy(dst->area, src->area, n);
    memcpy(dst->mutual, src->mutual, n);
    for (int d = 0; d < 4; d++)
        memcpy(dst->link[d], src->link[d], n * sizeof(uint32_t));
    return OP_OK;
}

/* supplement §1.5: the lowest span of the neighbour cell that leaves walkable_height of
 * clearance in the overlap and is within walkable_climb. The four neighbour cells' span
 * ranges are looked up once per cell (most cells hold one span); the test per pair is
 * the rule's, in the same bottom-up order, so the first match is the same span. */
op_status op_chf_build_links(op_ctx *ctx, op_chf *chf)
{
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    const uint32_t w = chf->width, dpt = chf->depth;
    const uint32_t *cf = chf->cell_first, *cc = chf->cell_count;
    const uint16_t *Y = chf->y, *H = chf->h;
    uint32_t *const link[4] = {chf->link[0], chf->link[1], chf->link[2], chf->link[3]};
    for (uint32_t z = 0; z < dpt; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const size_t c = (size_t)x + (size_t)z * w;
            const uint32_t s0 = cf[c], s1 = s0 + cc[c];
            if (s0 == s1)
                continue;
            /* Span ranges of the neighbour cells in directions 0 = -x, 1 = +z, 2 = +x,
             * 3 = -z (op_dir_dx/op_dir_dz); empty off the grid. */
            uint32_t t0[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0};
            if (x > 0) {
                t0[0] = cf[c - 1];
                t1[0] = t0[0] + cc[c - 1];
            }
            if (z + 1 < dpt) {
                t0[1] = cf[c + w];
                t1[1] = t0[1] + cc[c + w];
            }
            if (x + 1 < w) {
                t0[2] = cf[c + 1];
                t1[2] = t0[2] + cc[c + 1];
            }
            if (z > 0) {
                t0[3] = cf[c - w];
                t1[3] = t0[3] + cc[c - w];
            }
            for (uint32_t s = s0; s < s1; s++) {
                const int32_t sy = Y[s], stop = sy + (int32_t)H[s];
                for (int d = 0; d < 4; d++) {
                    uint32_t found = OP_NO_LINK;
                    for (uint32_t t = t0[d]; t < t1[d]; t++) {
                        const int32_t ty = Y[t], ttop = ty + (int32_t)H[t];
                        const int32_t top = stop < ttop ? stop : ttop;
                        const int32_t bot = sy > ty ? sy : ty;
                        const int32_t dy = ty - sy;
                        if (top - bot >= wh && dy <= wc && -dy <= wc) {
                            found = t;
                            break;
                        }
                    }
                    link[d][s] = found;
                }
            }
        }
    }
    op_chf_build_mutual(ctx, chf);
    return OP_OK;
}

void op_chf_build_mutual(op_ctx *ctx, op_chf *chf)
{
    const op_kernels *k = ctx ? ctx->k : op_kernels_for(OP_ISA_SCALAR);
    k->mutual_links(chf, chf->mutual, 0, chf->span_count);
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
    uint32_t n = 0;
    for (uint32_t s = 0; s < chf->span_count; s++)
        n += chf->area[s] != 0;
    return n;
}
