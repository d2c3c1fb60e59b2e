/* Compact heightfield from the solid heightfield (supplement §1.5). */
#include "onepath/spans.h"

#include <string.h>

op_status op_build_compact_heightfield(op_ctx *ctx, const op_heightfield *hf,
                                       int walkable_height, int walkable_climb, op_chf *out)
{
    memset(out, 0, sizeof *out);
    if (walkable_height < 1 || walkable_height > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_height must be in [1, 65535] (got %d)",
                       walkable_height);
    if (walkable_climb < 0 || walkable_climb > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_climb must be in [0, 65535] (got %d)",
                       walkable_climb);
    const size_t cells = (size_t)hf->width * hf->depth;
    uint64_t count = 0;
    for (size_t c = 0; c < cells; c++) {
        const uint32_t s0 = hf->first[c], s1 = s0 + hf->count[c];
        for (uint32_t s = s0; s < s1; s++)
            count += hf->area[s] != OP_NULL_AREA;
    }
    if (count > OP_MAX_SPANS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "%llu walkable spans exceed the 32-bit span index",
                       (unsigned long long)count);
    op_status st = op_chf_alloc(ctx, out, hf->width, hf->depth, (uint32_t)count);
    if (st != OP_OK)
        return st;
    memcpy(out->bmin, hf->bmin, sizeof out->bmin);
    memcpy(out->bmax, hf->bmax, sizeof out->bmax);
    out->cs = hf->cs;
    out->ch = hf->ch;
    out->walkable_height = walkable_height;
    out->walkable_climb = walkable_climb;
    out->border_size = 0;

    /* Cells x + z*width, spans bottom-up; cell_first is the running prefix sum, so an
     * empty cell holds the index of the next span. */
    uint32_t idx = 0;
    for (size_t c = 0; c < cells; c++) {
        out->cell_first[c] = idx;
        const uint32_t s0 = hf->first[c], s1 = s0 + hf->count[c];
        for (uint32_t s = s0; s < s1; s++) {
            if (hf->area[s] == OP_NULL_AREA)
                continue;
            const int32_t y = hf->smax[s];
            int32_t h = 255;
            if (s + 1 < s1) {
                h = (int32_t)hf->smin[s + 1] - y;
                h = h < 0 ? 0 : (h > 255 ? 255 : h);
            }
            out->y[idx] = (uint16_t)y;
            out->h[idx] = (uint16_t)h;
            out->area[idx] = hf->area[s];
            idx++;
        }
        out->cell_count[c] = idx - out->cell_first[c];
    }
    st = op_chf_build_links(ctx, out);
    if (st != OP_OK)
        op_chf_free(out);
    return st;
}
