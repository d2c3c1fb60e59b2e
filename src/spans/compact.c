/* Compact heightfield from the solid heightfield (supplement §1.5), streamed by rows:
 * row z + 1's cells and spans are written, then row z's links (they read rows z - 1 ..
 * z + 1), then row z - 1's mutual links (they read the links of rows z - 2 .. z), so
 * each row is touched while it is in cache. */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "core/alloc.h"
#include "core/kernels.h"

#include <string.h>

/* Cells and spans of row z; idx: the first span index of the row. Returns the next. */
static uint32_t fill_row(const op_heightfield *hf, op_chf *out, uint32_t z, uint32_t idx)
{
    const uint32_t w = hf->width;
    const size_t c0 = (size_t)z * w;
    for (size_t c = c0; c < c0 + w; c++) {
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
    return idx;
}

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
    uint64_t count = 0;
    const uint8_t *area = hf->area;
    if (hf->packed) {
        for (uint32_t s = 0; s < hf->span_used; s++)
            count += area[s] != OP_NULL_AREA;
    } else {
        const size_t cells = (size_t)hf->width * hf->depth;
        for (size_t c = 0; c < cells; c++) {
            const uint32_t s0 = hf->first[c], s1 = s0 + hf->count[c];
            for (uint32_t s = s0; s < s1; s++)
                count += area[s] != OP_NULL_AREA;
        }
    }
    if (count > OP_MAX_SPANS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "%llu walkable spans exceed the 32-bit span index",
                       (unsigned long long)count);
    /* Every array is written below: no clearing first. */
    op_status st = op_chf_alloc_uninit(ctx, out, hf->width, hf->depth, (uint32_t)count);
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
     * empty cell holds the index of the next span. row_first[k]: first span of row k,
     * kept for the two rows behind. */
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    const uint32_t dpt = hf->depth;
    uint32_t row_first[4] = {0, 0, 0, 0}; /* first span of row r at [r % 4] */
    uint32_t idx = fill_row(hf, out, 0, 0);
    row_first[1] = idx;
    for (uint32_t z = 0; z < dpt; z++) {
        if (z + 1 < dpt) {
            idx = fill_row(hf, out, z + 1, idx);
            row_first[(z + 2) % 4] = idx;
        }
        op_chf_link_rows(k, out, z, z + 1);
        if (z >= 1)
            k->links.mutual(out, out->mutual, row_first[(z - 1) % 4], row_first[z % 4]);
    }
    /* The last row's mutual links. */
    k->links.mutual(out, out->mutual, row_first[(dpt - 1) % 4], out->span_count);
    return OP_OK;
}
