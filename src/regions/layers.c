/* Layer partition (regions-contours §4, supplement §9.4), then §5.1 islands and §5.3
 * numbering.
 *
 * General path: the unfiltered monotone regions, then the merge loop on the region
 * graph. One pass over the columns lists region sizes, areas, band contacts and the
 * adjacency (mutual links, each once, from its -x or -z end) and overlap (columns)
 * pairs; they become per-region lists of raw ids. Merged ids are mapped through a
 * union-find whose root is always the surviving (smaller) id. A visit maps its lists,
 * drops self and duplicates with stamps (no sorting: the first adjacent b in increasing
 * id with the same area that does not overlap a is the smallest such b), and a merge
 * appends the smaller lists to the larger one's storage, so a pass is linear in the
 * list entries. Islands and numbering then follow from the graph and one last pass over
 * the spans (sizes, contacts and adjacency are the merged regions').
 *
 * Shortcut: when no column holds two walkable spans, the partition is the components of
 * "linked and same area" (the labelling kernel); when one is below MinRegionArea, the
 * whole field takes the general path (§9.4). */
#include "regions/region_graph.h"
#include "core/kernels.h"
#include "core/alloc.h"

#include <string.h>

typedef struct vec {
    uint32_t *p;
    uint32_t n, cap;
} vec;

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* dst ∪= src by appending; the larger storage is kept. Returns 0 on no memory. */
static int vec_union(op_arena *a, vec *dst, vec *src)
{
    if (src->n > dst->n) {
        vec t = *dst;
        *dst = *src;
        *src = t;
    }
    if (src->n == 0)
        return 1;
    if ((uint64_t)dst->n + src->n > dst->cap) {
        uint64_t cap = (uint64_t)dst->cap * 2;
        if (cap < (uint64_t)dst->n + src->n)
            cap = (uint64_t)dst->n + src->n;
        if (cap > 0xffffffffu)
            return 0;
        uint32_t *p = op_arena_alloc(a, (size_t)cap * sizeof *p);
        if (!p)
            return 0;
        if (dst->n)
            memcpy(p, dst->p, (size_t)dst->n * sizeof *p);
        dst->p = p;
        dst->cap = (uint32_t)cap;
    }
    memcpy(dst->p + dst->n, src->p, (size_t)src->n * sizeof *src->p);
    dst->n += src->n;
    src->n = 0;
    return 1;
}

/* Per region r of 1..m: the q of every pair (r, q), as vecs into one pool. The pairs
 * are (r[i * stride], q[i * stride]). */
static int lists_from_pairs(op_ctx *ctx, const uint32_t *r, const uint32_t *q, size_t count,
                            size_t stride, uint32_t m, vec *v)
{
    uint32_t *pool = op_scratch(ctx, count ? count : 1, sizeof *pool);
    if (!pool)
        return 0;
    for (uint32_t i = 0; i <= m; i++)
        v[i].n = v[i].cap = 0;
    for (size_t i = 0; i < count; i++)
        v[r[i * stride]].cap++;
    size_t at = 0;
    for (uint32_t i = 0; i <= m; i++) {
        v[i].p = pool + at;
        at += v[i].cap;
    }
    for (size_t i = 0; i < count; i++) {
        vec *d = &v[r[i * stride]];
        d->p[d->n++] = q[i * stride];
    }
    return 1;
}

typedef struct layer_graph {
    uint32_t *parent, *size, *ostamp, *astamp;
    uint8_t *rarea, *band; /* band: a mutual link to a band span */
    vec *adj, *ovl;
} layer_graph;

/* §4 with §9.4: for each alive a in increasing id, the first adjacent b (increasing
 * id) with the same area that does not overlap a merges (larger id into smaller); then
 * the next a. Passes repeat until one merges nothing. */
static op_status merge_passes(op_ctx *ctx, layer_graph *g, uint32_t m)
{
    uint32_t stamp = 0;
    for (int merged = 1; merged;) {
        merged = 0;
        for (uint32_t a = 1; a <= m; a++) {
            if (g->parent[a] != a)
                continue;
            if (++stamp == 0) { /* wrapped: clear the stamps */
                memset(g->ostamp, 0, ((size_t)m + 1) * sizeof *g->ostamp);
                memset(g->astamp, 0, ((size_t)m + 1) * sizeof *g->astamp);
                stamp = 1;
            }
            /* a's overlap set: mapped, self and duplicates dropped, marked. */
            vec *o = &g->ovl[a];
            uint32_t k = 0;
            for (uint32_t i = 0; i < o->n; i++) {
                const uint32_t r = find(g->parent, o->p[i]);
                if (r == a || g->ostamp[r] == stamp)
                    continue;
                g->ostamp[r] = stamp;
                o->p[k++] = r;
            }
            o->n = k;
            /* a's adjacency, the same way; the smallest b that may merge. */
            vec *v = &g->adj[a];
            const uint8_t ra = g->rarea[a];
            uint32_t best = 0;
            k = 0;
            for (uint32_t i = 0; i < v->n; i++) {
                const uint32_t r = find(g->parent, v->p[i]);
                if (r == a || g->astamp[r] == stamp)
                    continue;
                g->astamp[r] = stamp;
                v->p[k++] = r;
                if (g->rarea[r] == ra && g->ostamp[r] != stamp && (best == 0 || r < best))
                    best = r;
            }
            v->n = k;
            if (!best)
                continue;
            const uint32_t keep = a < best ? a : best, gone = a < best ? best : a;
            g->parent[gone] = keep;
            g->size[keep] += g->size[gone];
            g->band[keep] |= g->band[gone];
            if (!vec_union(&ctx->arena, &g->adj[keep], &g->adj[gone]) ||
                !vec_union(&ctx->arena, &g->ovl[keep], &g->ovl[gone]))
                return op_fail(ctx, OP_NO_MEMORY,
                               "layers: out of scratch memory merging regions %u and %u", keep,
                               gone);
            merged = 1;
        }
    }
    return OP_OK;
}

/* The general path: monotone, merge, then §5.1 islands (MinRegionArea, no merging) and
 * §5.3 numbering, written to region[]. The merged regions' sizes, band contacts and
 * adjacency (any area) are the graph's, so an island is a root below min_area with no
 * band contact and no adjacent root. */
static op_status layers_general(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                uint32_t *region, uint32_t *region_count)
{
    const uint32_t n = chf->span_count;
    uint32_t m = 0;
    op_regions_graph gr;
    op_status st = op_regions_monotone_graph(ctx, chf, region, &m, &gr, 1);
    if (st != OP_OK || m == 0) {
        op_regions_graph_free(ctx, &gr);
        return st;
    }
    const size_t nr = (size_t)m + 1;
    layer_graph g;
    g.parent = op_scratch(ctx, nr, sizeof *g.parent);
    g.size = op_scratch(ctx, nr, sizeof *g.size);
    g.ostamp = op_scratch(ctx, nr, sizeof *g.ostamp);
    g.astamp = op_scratch(ctx, nr, sizeof *g.astamp);
    g.rarea = op_scratch(ctx, nr, 1);
    g.band = op_scratch(ctx, nr, 1);
    g.adj = op_scratch(ctx, nr, sizeof *g.adj);
    g.ovl = op_scratch(ctx, nr, sizeof *g.ovl);
    if (!g.parent || !g.size || !g.ostamp || !g.astamp || !g.rarea || !g.band || !g.adj ||
        !g.ovl) {
        op_regions_graph_free(ctx, &gr);
        return op_fail(ctx, OP_NO_MEMORY, "layers: out of scratch memory (%u regions)", m);
    }
    for (size_t r = 0; r < nr; r++)
        g.parent[r] = (uint32_t)r;
    memcpy(g.size, gr.size, nr * sizeof *g.size);
    memcpy(g.rarea, gr.rarea, nr);
    memcpy(g.band, gr.band, nr);
    memset(g.ostamp, 0, nr * sizeof *g.ostamp);
    memset(g.astamp, 0, nr * sizeof *g.astamp);
    /* Adjacency: every link end (r, q), whatever the areas; overlaps: the pairs. */
    int ok = 1;
    if (gr.nlink) {
        /* both ends (r, q) and (q, r) of each link, in list order */
        uint32_t *ends = op_scratch(ctx, 4 * gr.nlink, sizeof *ends);
        ok = ends != NULL;
        for (size_t i = 0; ok && i < gr.nlink; i++) {
            ends[4 * i] = ends[4 * i + 3] = gr.link[i].r;
            ends[4 * i + 1] = ends[4 * i + 2] = gr.link[i].q;
        }
        ok = ok && lists_from_pairs(ctx, ends, ends + 1, 2 * gr.nlink, 2, m, g.adj);
    } else {
        ok = lists_from_pairs(ctx, NULL, NULL, 0, 2, m, g.adj);
    }
    ok = ok && lists_from_pairs(ctx, gr.ovl, gr.ovl ? gr.ovl + 1 : NULL, gr.novl, 2, m, g.ovl);
    /* The row pass's sweep numbers (region[]) and their ids, kept for the numbering. */
    op_regions_graph sw;
    memset(&sw, 0, sizeof sw);
    sw.sweep_id = gr.sweep_id;
    sw.nsweep = gr.nsweep;
    gr.sweep_id = NULL;
    op_regions_graph_free(ctx, &gr);
    if (!ok) {
        op_regions_graph_free(ctx, &sw);
        return op_fail(ctx, OP_NO_MEMORY, "layers: out of memory listing the links of %u regions", m);
    }
    if ((st = merge_passes(ctx, &g, m)) != OP_OK) {
        op_regions_graph_free(ctx, &sw);
        return st;
    }

    /* §5.1 on the merged regions: fin[r] = the root of raw id r, or 0 for an island. */
    uint32_t *fin = g.ostamp, *map = g.astamp;
    for (uint32_t r = 1; r <= m; r++) {
        if (g.parent[r] != r)
            continue;
        int alone = !g.band[r];
        for (uint32_t i = 0; i < g.adj[r].n && alone; i++)
            alone = find(g.parent, g.adj[r].p[i]) == r;
        g.size[r] = g.size[r] < min_area && alone; /* now: 1 = island */
    }
    for (uint32_t r = 1; r <= m; r++) {
        const uint32_t root = find(g.parent, r);
        fin[r] = g.size[root] ? 0 : root;
    }
    /* §5.3 numbering by first span. */
    memset(map, 0, nr * sizeof *map);
    fin[0] = 0;
    const uint32_t *f = fin;
    uint32_t top = m;
    if (sw.sweep_id) {
        f = op_regions_compose_sweeps(ctx, &sw, fin);
        top = sw.nsweep;
    }
    const uint32_t k = f ? op_regions_number(ctx->k->regions.change_bits, region, n, f, top, map) : 0;
    op_regions_graph_free(ctx, &sw);
    if (!f)
        return op_fail(ctx, OP_NO_MEMORY, "layers: out of scratch memory (%u sweeps)", top);
    *region_count = k;
    return OP_OK;
}

/* Shortcut applies: no column holds two walkable non-band spans (region: the band as
 * op_regions_init_band sets it; NULL when the field has none). Columns of one span are
 * skipped eight at a time. */
static int single_floor(const op_chf *chf, const uint32_t *region)
{
    const uint32_t cells = chf->width * chf->depth;
    const uint32_t *cf = chf->cell_first;
    for (uint32_t c = 0; c < cells; c++) {
        if (c + 8 <= cells && op_eight_cells_single(cf + c)) {
            c += 7;
            continue;
        }
        const uint32_t f = cf[c], e = cf[c + 1];
        uint32_t k = 0;
        for (uint32_t s = f; s < e; s++)
            k += chf->area[s] != 0 && (!region || region[s] != OP_BORDER_REGION);
        if (k > 1)
            return 0;
    }
    return 1;
}

/* The labelling kernel with band spans hidden (area 0 in a copy), band restored. */
static op_status label_masked(op_ctx *ctx, const op_chf *chf, const uint32_t *layer,
                              uint32_t *region, uint32_t *count)
{
    const uint32_t n = chf->span_count;
    const uint32_t band = op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;
    if (band) {
        uint8_t *a = op_scratch(ctx, n, 1);
        if (!a)
            return OP_NO_MEMORY;
        for (uint32_t s = 0; s < n; s++)
            a[s] = region[s] == OP_BORDER_REGION ? 0 : chf->area[s];
        area = a;
    }
    const op_label_view graph = op_label_view_of(chf, area, layer);
    if (ctx->k->label.components(&graph, region, count, &ctx->arena))
        return op_fail(ctx, OP_NO_MEMORY, "labelling: out of scratch memory");
    if (*count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_UNSUPPORTED, "labelling: more than %u regions", OP_MAX_REGION_ID);
    if (band) {
        for (uint32_t s = 0; s < n; s++)
            if (chf->area[s] != 0 && area[s] == 0)
                region[s] = OP_BORDER_REGION;
    }
    return OP_OK;
}

op_status op_build_regions_layers_ex(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                     int allow_shortcut, uint32_t *region,
                                     uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "layers");
    if (st != OP_OK)
        return st;
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    const uint32_t n = chf->span_count, min_area = s->min_region_area;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    if (allow_shortcut) {
        const int band = chf->border_size > 0;
        if (band)
            op_regions_init_band(chf, region);
        if (single_floor(chf, band ? region : NULL)) {
            uint32_t count = 0;
            st = label_masked(ctx, chf, NULL, region, &count);
            if (st != OP_OK) {
                op_arena_release(&ctx->arena, mark);
                return st;
            }
            int small = 0;
            if (min_area > 1) {
                uint32_t *size = op_scratch(ctx, (size_t)count + 1, sizeof *size);
                if (!size) {
                    op_arena_release(&ctx->arena, mark);
                    return OP_NO_MEMORY;
                }
                memset(size, 0, ((size_t)count + 1) * sizeof *size);
                for (uint32_t i = 0; i < n; i++)
                    if (region[i] && region[i] != OP_BORDER_REGION)
                        size[region[i]]++;
                for (uint32_t r = 1; r <= count && !small; r++)
                    small = size[r] < min_area;
            }
            op_arena_release(&ctx->arena, mark);
            if (!small) {
                /* Only the island removal of §5, then §5.3 numbering (§9.4). */
                *region_count = count;
                return op_regions_filter_impl(ctx, chf, min_area, 0, 0, region, region_count);
            }
        }
    }
    st = layers_general(ctx, chf, min_area, region, region_count);
    op_arena_release(&ctx->arena, mark);
    return st;
}

op_status op_build_regions_layers(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                  uint32_t *region, uint32_t *region_count)
{
    return op_build_regions_layers_ex(ctx, chf, s, 1, region, region_count);
}

/* §4 "Layer-first partition" (supplement §3): components of linked + same layer + same
 * area (first-span order), then §5.1 islands and §5.3 numbering. */
op_status op_build_regions_layer_first(op_ctx *ctx, const op_chf *chf, const uint32_t *span_layer,
                                       const op_region_settings *s, uint32_t *region,
                                       uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "layer-first");
    if (st != OP_OK)
        return st;
    if (!span_layer)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "layer-first: NULL span layers");
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    *region_count = 0;
    if (chf->span_count == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t count = 0;
    st = label_masked(ctx, chf, span_layer, region, &count);
    op_arena_release(&ctx->arena, mark);
    if (st != OP_OK)
        return st;
    *region_count = count;
    return op_regions_filter_impl(ctx, chf, s->min_region_area, 0, 0, region, region_count);
}
