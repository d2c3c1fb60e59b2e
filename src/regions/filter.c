/* Filtering and numbering (regions-contours §5, supplement §9.5, §2).
 *
 * Band spans (OP_BORDER_REGION) are never removed, merged or numbered; for the island
 * test a link to a band span counts as a neighbouring region (the text: "a span with a
 * different, non-zero region"), but a band span is never a merge target (it belongs to
 * no partition region). See docs/decisions/regions.md. */
#include "regions/regions_internal.h"
#include "core/alloc.h"

#include <string.h>

/* One link from region r to region q (q != r, neither 0 nor the band) ending on a span
 * of area a, counted n times: consecutive spans of one border repeat the same link,
 * so each direction extends its last entry instead of adding one. */
typedef struct filter_link {
    uint32_t r, q, n;
    uint8_t a;
} filter_link;

typedef struct link_list {
    filter_link *p;
    size_t n, cap;
} link_list;

/* Both ends of one link: (r, q, area of q's span) and (q, r, area of r's span). */
static int link_push2(op_ctx *ctx, link_list *l, uint32_t r, uint32_t q, uint8_t aq, uint8_t ar)
{
    if (l->n + 2 > l->cap) {
        const size_t cap = l->cap ? l->cap * 2 : 4096;
        filter_link *p = op_mem_realloc(&ctx->alloc, l->p, cap * sizeof *p);
        if (!p)
            return 0;
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = (filter_link){r, q, 1, aq};
    l->p[l->n++] = (filter_link){q, r, 1, ar};
    return 1;
}

static uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Pass over the spans (§5.1 input, checked first): sizes, the area of each region's
 * first span, whether a region touches any other non-zero region (the band included),
 * and, when merging, the links between partition regions. A mutual link is seen from
 * both ends, so each is taken once, from the span whose -x or -z link it is, for both
 * regions. Nothing is written to region[], so a bad input is reported before anything
 * changes (an id not yet checked is passed over until its own span reports it). */
static op_status scan_regions(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                              uint32_t maxid, uint32_t *size, uint8_t *flag, uint8_t *rarea,
                              link_list *links)
{
    const uint32_t n = chf->span_count;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint32_t *l0 = chf->link[0], *l3 = chf->link[3];
    size_t last[2] = {SIZE_MAX, SIZE_MAX};
    uint32_t run = 0, run_n = 0; /* sizes counted per run of one region, added on change */
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0)
            continue;
        if (r != OP_BORDER_REGION && r > maxid)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "filter regions: span %u has region %u above the count %u", s, r,
                           maxid);
        const uint8_t as = area[s];
        if (as == 0)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "filter regions: span %u has area 0 but region %u", s, r);
        const int rb = r == OP_BORDER_REGION;
        if (!rb) {
            if (r != run) {
                size[run] += run_n;
                run = r;
                run_n = 0;
                if (size[r] == 0)
                    rarea[r] = as;
            }
            run_n++;
        }
        /* Most spans are inside their region: one test for both links (a missing
         * link reads the span itself). */
        const uint8_t ms = mutual[s];
        const uint32_t t0 = ms & 1 ? l0[s] : s, t3 = ms & 8 ? l3[s] : s;
        const uint32_t q0 = region[t0], q3 = region[t3];
        if ((q0 == r) & (q3 == r))
            continue;
        for (int k = 0; k < 2; k++) {
            const uint32_t t = k ? t3 : t0;
            const uint32_t q = k ? q3 : q0;
            if (q == r || q == 0 || (q > maxid && q != OP_BORDER_REGION))
                continue;
            if (rb) {
                flag[q] = 1;
                continue;
            }
            flag[r] = 1;
            if (q == OP_BORDER_REGION)
                continue;
            flag[q] = 1;
            if (!links)
                continue;
            const uint8_t at = area[t];
            if (last[k] != SIZE_MAX) {
                filter_link *e = &links->p[last[k]];
                if (e[0].r == r && e[0].q == q && e[0].a == at && e[1].a == as) {
                    e[0].n++;
                    e[1].n++;
                    continue;
                }
            }
            last[k] = links->n;
            if (!link_push2(ctx, links, r, q, at, as))
                return op_fail(ctx, OP_NO_MEMORY,
                               "filter regions: out of memory listing region links (%zu)",
                               links->n);
        }
    }
    size[run] += run_n;
    return OP_OK;
}

/* §5.2 on the region graph (§9.5): passes in increasing id; a region's links to q are
 * counted once per (span, direction) mutual link from the region's spans to a span of
 * q with the area of the region's first span (the region's area); most shared links
 * wins, smallest id on ties; each merge takes effect at once (union-find: the target
 * keeps its id, the small region's members and links join it, its size grows). The
 * links of the merged regions are exactly those of their spans, so the counts are the
 * ones a pass over the spans would find. parent[] maps every raw id to its region. */
static op_status merge_small(op_ctx *ctx, const link_list *links, uint32_t maxid,
                             uint32_t merge_area, uint32_t *size, const uint8_t *rarea,
                             uint32_t *parent)
{
    const size_t nr = (size_t)maxid + 1;
    /* CSR of the links by their region r, in scan order. */
    uint32_t *first = op_scratch(ctx, nr + 1, sizeof *first);
    uint32_t *q = op_scratch(ctx, links->n ? links->n : 1, sizeof *q);
    uint32_t *cntl = op_scratch(ctx, links->n ? links->n : 1, sizeof *cntl);
    uint8_t *la = op_scratch(ctx, links->n ? links->n : 1, 1);
    uint32_t *next = op_scratch(ctx, nr, sizeof *next); /* member lists of regions */
    uint32_t *tail = op_scratch(ctx, nr, sizeof *tail);
    uint32_t *cnt = op_scratch(ctx, nr, sizeof *cnt);
    uint32_t *touched = op_scratch(ctx, nr, sizeof *touched);
    if (!first || !q || !cntl || !la || !next || !tail || !cnt || !touched)
        return OP_NO_MEMORY;
    memset(first, 0, (nr + 1) * sizeof *first);
    for (size_t i = 0; i < links->n; i++)
        first[links->p[i].r + 1]++;
    for (size_t r = 1; r <= nr; r++)
        first[r] += first[r - 1];
    for (size_t i = 0; i < links->n; i++) {
        const filter_link *e = &links->p[i];
        const uint32_t k = first[e->r]++;
        q[k] = e->q;
        cntl[k] = e->n;
        la[k] = e->a;
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

op_status op_regions_filter_impl(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count)
{
    const uint32_t n = chf->span_count;
    const uint32_t maxid = *region_count;
    if (maxid > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "filter regions: region count %u exceeds %u",
                       maxid, OP_MAX_REGION_ID);
    const int merging = merge && merge_area > 0;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)maxid + 1;
    uint32_t *size = op_scratch(ctx, nr, sizeof *size);
    uint8_t *flag = op_scratch(ctx, nr, 1);
    uint8_t *rarea = op_scratch(ctx, nr, 1);
    uint32_t *parent = op_scratch(ctx, nr, sizeof *parent);
    if (!size || !flag || !rarea || !parent) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(size, 0, nr * sizeof *size);
    memset(flag, 0, nr);
    link_list links = {NULL, 0, 0};
    op_status st = scan_regions(ctx, chf, region, maxid, size, flag, rarea,
                                merging ? &links : NULL);
    if (st != OP_OK) {
        op_mem_free(&ctx->alloc, links.p);
        op_arena_release(&ctx->arena, mark);
        return st;
    }
    *region_count = 0;
    if (n == 0) {
        op_arena_release(&ctx->arena, mark);
        return OP_OK;
    }
    /* §5.1 islands, decided once on the unfiltered regions (§9.5). An island links to no
     * other non-zero region, so no link of the graph touches it: it is marked
     * (parent = 0, size 0) and its spans are cleared by the numbering below. */
    for (uint32_t r = 0; r <= maxid; r++) {
        parent[r] = r;
        if (r && size[r] && size[r] < min_area && !flag[r]) {
            parent[r] = 0;
            size[r] = 0;
        }
    }
    if (merging)
        st = merge_small(ctx, &links, maxid, merge_area, size, rarea, parent);
    op_mem_free(&ctx->alloc, links.p);
    if (st != OP_OK) {
        op_arena_release(&ctx->arena, mark);
        return st;
    }

    /* §5.3 numbering by first span, through each raw id's final region. */
    uint32_t *map = op_scratch(ctx, nr, sizeof *map);
    if (!map) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    for (uint32_t r = 1; r <= maxid; r++)
        parent[r] = parent[r] ? find_root(parent, r) : 0;
    memset(map, 0, nr * sizeof *map);
    uint32_t k = 0, pr = 0, pv = 0; /* the last raw id seen and its final id */
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r == OP_BORDER_REGION)
            continue;
        if (r != pr) {
            const uint32_t f = parent[r];
            if (f && !map[f])
                map[f] = ++k;
            pr = r;
            pv = f ? map[f] : 0;
        }
        region[s] = pv;
    }
    *region_count = k;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
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
