/* Filtering and numbering (regions-contours §5, supplement §9.5, §2).
 *
 * Band spans (OP_BORDER_REGION) are never removed, merged or numbered; for the island
 * test a link to a band span counts as a neighbouring region (the text: "a span with a
 * different, non-zero region"), but a band span is never a merge target (it belongs to
 * no partition region). See docs/decisions/regions.md. */
#include "regions/region_graph.h"
#include "core/alloc.h"

#include <string.h>

static uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* §5.2 on the region graph (§9.5): passes in increasing id; a region's links to q are
 * counted once per (span, direction) mutual link from the region's spans to a span of
 * q with the area of the region's first span (the region's area); most shared links
 * wins, smallest id on ties; each merge takes effect at once (union-find: the target
 * keeps its id, the small region's members and links join it, its size grows). The
 * links of the merged regions are exactly those of their spans, so the counts are the
 * ones a pass over the spans would find. parent[] maps every raw id to its region. */
static op_status merge_small(op_ctx *ctx, const op_regions_graph *g, uint32_t merge_area,
                             uint32_t *size, uint32_t *parent)
{
    const uint32_t maxid = g->maxid;
    const uint8_t *rarea = g->rarea;
    const size_t nr = (size_t)maxid + 1;
    const size_t nl = g->nlink;
    /* CSR of the link ends by their region, in scan order (a link is listed once: its
     * end at r, then its end at q). */
    uint32_t *first = op_scratch(ctx, nr + 1, sizeof *first);
    uint32_t *q = op_scratch(ctx, nl ? 2 * nl : 1, sizeof *q);
    uint32_t *cntl = op_scratch(ctx, nl ? 2 * nl : 1, sizeof *cntl);
    uint8_t *la = op_scratch(ctx, nl ? 2 * nl : 1, 1);
    uint32_t *next = op_scratch(ctx, nr, sizeof *next); /* member lists of regions */
    uint32_t *tail = op_scratch(ctx, nr, sizeof *tail);
    uint32_t *cnt = op_scratch(ctx, nr, sizeof *cnt);
    uint32_t *touched = op_scratch(ctx, nr, sizeof *touched);
    if (!first || !q || !cntl || !la || !next || !tail || !cnt || !touched)
        return OP_NO_MEMORY;
    memset(first, 0, (nr + 1) * sizeof *first);
    for (size_t i = 0; i < nl; i++) {
        first[g->link[i].r + 1]++;
        first[g->link[i].q + 1]++;
    }
    for (size_t r = 1; r <= nr; r++)
        first[r] += first[r - 1];
    for (size_t i = 0; i < nl; i++) {
        const op_regions_link *e = &g->link[i];
        const uint32_t k = first[e->r]++;
        q[k] = e->q;
        cntl[k] = e->n;
        la[k] = e->a;
        const uint32_t j = first[e->q]++;
        q[j] = e->r;
        cntl[j] = e->n;
        la[j] = e->b;
    }
    /* first[r] is now the end of r's links, i.e. the start of r + 1's. */
    for (size_t r = 0; r < nr; r++) {
        next[r] = OP_NO_LINK;
        tail[r] = (uint32_t)r;
        cnt[r] = 0;
    }
    for (int merged = 1; merged;) {
        merged = 0;
        for (uint32_t r = 1; r <= maxid; r++) {
            if (size[r] == 0 || size[r] >= merge_area)
                continue;
            const uint8_t ra = rarea[r];
            uint32_t nt = 0;
            for (uint32_t m = r; m != OP_NO_LINK; m = next[m]) {
                for (uint32_t k = m ? first[m - 1] : 0, e = first[m]; k < e; k++) {
                    if (la[k] != ra)
                        continue;
                    const uint32_t t = find_root(parent, q[k]);
                    if (t == r || t == 0) /* 0: an island (only with one-way mutual bits) */
                        continue;
                    if (cnt[t] == 0)
                        touched[nt++] = t;
                    cnt[t] += cntl[k];
                }
            }
            uint32_t best = 0, bestc = 0;
            for (uint32_t i = 0; i < nt; i++) {
                const uint32_t t = touched[i];
                if (cnt[t] > bestc || (cnt[t] == bestc && t < best)) {
                    best = t;
                    bestc = cnt[t];
                }
                cnt[t] = 0;
            }
            if (!best)
                continue;
            parent[r] = best;
            next[tail[best]] = r;
            tail[best] = tail[r];
            size[best] += size[r];
            size[r] = 0;
            merged = 1;
        }
    }
    return OP_OK;
}

op_status op_regions_filter_graph(op_ctx *ctx, const op_chf *chf, const op_regions_graph *g,
                                  uint32_t min_area, uint32_t merge_area, int merge,
                                  uint32_t *region, uint32_t *region_count)
{
    const uint32_t n = chf->span_count, maxid = g->maxid;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)maxid + 1;
    uint32_t *size = op_scratch(ctx, nr, sizeof *size);
    uint32_t *parent = op_scratch(ctx, nr, sizeof *parent);
    uint32_t *map = op_scratch(ctx, nr, sizeof *map);
    if (!size || !parent || !map) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memcpy(size, g->size, nr * sizeof *size);
    /* §5.1 islands, decided once on the unfiltered regions (§9.5). An island links to no
     * other non-zero region, so no link of the graph touches it: it is marked
     * (parent = 0, size 0) and its spans are cleared by the numbering below. */
    for (uint32_t r = 0; r <= maxid; r++) {
        parent[r] = r;
        if (r && size[r] && size[r] < min_area && !g->flag[r]) {
            parent[r] = 0;
            size[r] = 0;
        }
    }
    if (merge && merge_area > 0) {
        op_status st = merge_small(ctx, g, merge_area, size, parent);
        if (st != OP_OK) {
            op_arena_release(&ctx->arena, mark);
            return st;
        }
    }

    /* §5.3 numbering by first span, through each raw id's final region. */
    for (uint32_t r = 1; r <= maxid; r++)
        parent[r] = parent[r] ? find_root(parent, r) : 0;
    memset(map, 0, nr * sizeof *map);
    const uint32_t *fin = parent;
    uint32_t top = maxid;
    if (g->sweep_id) { /* region[] holds the row pass's sweep numbers */
        parent[0] = 0;
        if (!(fin = op_regions_compose_sweeps(ctx, g, parent))) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        }
        top = g->nsweep;
    }
    const uint32_t k = op_regions_number(ctx->k->regions.change_bits, region, n, fin, top, map);
    *region_count = k;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

op_status op_regions_filter_impl(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count)
{
    return op_regions_filter_lent(ctx, chf, min_area, merge_area, merge, region, region_count,
                                  NULL, 0);
}

op_status op_regions_filter_lent(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count, void *mem, size_t bytes)
{
    const uint32_t maxid = *region_count;
    if (maxid > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "filter regions: region count %u exceeds %u",
                       maxid, OP_MAX_REGION_ID);
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    op_regions_graph g;
    op_status st = op_regions_graph_init(ctx, &g, maxid, merge && merge_area > 0, 0);
    if (st == OP_OK && g.want_links)
        op_regions_graph_lend_links(&g, mem, bytes);
    if (st == OP_OK)
        st = op_regions_graph_scan(ctx, chf, region, &g);
    if (st == OP_OK)
        st = op_regions_filter_graph(ctx, chf, &g, min_area, merge_area, merge, region,
                                     region_count);
    op_regions_graph_free(ctx, &g);
    op_arena_release(&ctx->arena, mark);
    return st;
}

op_status op_filter_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                            int merge, uint32_t *region, uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "filter regions");
    if (st != OP_OK)
        return st;
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    return op_regions_filter_impl(ctx, chf, s->min_region_area, s->merge_region_area, merge,
                                  region, region_count);
}
