/* Layer assignment for layer-first tile partitions (supplement §3): regions of the §4
 * layer partition (every island kept) in increasing id take the smallest layer index not
 * used by an already-visited region that overlaps them (a span in a common column). */
#include "regions/regions_internal.h"

#include <string.h>

op_status op_assign_layers(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                           uint32_t region_count, uint32_t *layer_of_region,
                           uint32_t *layer_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, layer_of_region, "assign layers");
    if (st != OP_OK)
        return st;
    if (!layer_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "assign layers: NULL argument");
    if (region_count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "assign layers: region count %u exceeds %u",
                       region_count, OP_MAX_REGION_ID);
    const uint32_t n = chf->span_count, k = region_count;
    for (uint32_t s = 0; s < n; s++)
        if (region[s] != OP_BORDER_REGION && region[s] > k)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "assign layers: span %u has region %u above the count %u", s,
                           region[s], k);
    memset(layer_of_region, 0, ((size_t)k + 1) * sizeof *layer_of_region);
    *layer_count = 0;
    if (k == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)k + 1;
    uint32_t *first = op_scratch(ctx, nr + 1, sizeof *first);
    uint32_t *used = op_scratch(ctx, nr + 1, sizeof *used);
    if (!first || !used) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(first, 0, (nr + 1) * sizeof *first);
    /* Overlap lists, CSR: for r, the smaller ids that share a column with it. */
    const uint32_t cells = chf->width * chf->depth;
    uint32_t *list = NULL;
    for (int fill = 0; fill < 2; fill++) {
        for (uint32_t c = 0; c < cells; c++) {
            const uint32_t f = chf->cell_first[c], e = chf->cell_first[c + 1];
            for (uint32_t i = f; i < e; i++) {
                const uint32_t ri = region[i];
                if (ri == 0 || ri > k)
                    continue;
                for (uint32_t j = f; j < e; j++) {
                    const uint32_t rj = region[j];
                    if (rj == 0 || rj > k || rj >= ri)
                        continue;
                    if (fill)
                        list[first[ri]++] = rj;
                    else
                        first[ri + 1]++;
                }
            }
        }
        if (!fill) {
            for (size_t r = 1; r <= nr; r++)
                first[r] += first[r - 1];
            list = op_scratch(ctx, first[nr] ? first[nr] : 1, sizeof *list);
            if (!list) {
                op_arena_release(&ctx->arena, mark);
                return OP_NO_MEMORY;
            }
        }
    }
    /* After the fill, first[r] is the end of r's list, i.e. the start of r + 1's. */
    memset(used, 0, (nr + 1) * sizeof *used);
    uint32_t count = 0;
    for (uint32_t r = 1; r <= k; r++) {
        const uint32_t b = first[r - 1], e = first[r];
        for (uint32_t i = b; i < e; i++)
            used[layer_of_region[list[i]]] = r;
        uint32_t L = 0;
        while (used[L] == r)
            L++;
        layer_of_region[r] = L;
        if (L + 1 > count)
            count = L + 1;
    }
    *layer_count = count;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

op_status op_build_span_layers(op_ctx *ctx, const op_chf *chf, uint32_t *span_layer,
                               uint32_t *layer_count)
{
    op_status st = op_regions_check_args(ctx, chf, span_layer, layer_count, "span layers");
    if (st != OP_OK)
        return st;
    const uint32_t n = chf->span_count;
    *layer_count = 0;
    if (n == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t *region = op_scratch(ctx, n, sizeof *region);
    if (!region) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.partition = OP_PARTITION_LAYERS;
    s.min_region_area = 0; /* every island kept (supplement §3) */
    s.merge_region_area = 0;
    uint32_t k = 0;
    st = op_build_regions_layers(ctx, chf, &s, region, &k);
    uint32_t *lor = st == OP_OK ? op_scratch(ctx, (size_t)k + 1, sizeof *lor) : NULL;
    if (st == OP_OK && !lor)
        st = OP_NO_MEMORY;
    if (st == OP_OK)
        st = op_assign_layers(ctx, chf, region, k, lor, layer_count);
    if (st == OP_OK)
        for (uint32_t i = 0; i < n; i++)
            span_layer[i] = region[i] && region[i] != OP_BORDER_REGION ? lor[region[i]] : 0;
    op_arena_release(&ctx->arena, mark);
    return st;
}
