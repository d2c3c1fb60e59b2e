/* Invariant checker for region partitions: what regions-contours §2–§5 promise, as far
 * as it can be seen from the output alone (docs/decisions/regions.md, "checker").
 *
 * Rules, each reported with span, region and a name:
 *  values     area-0 spans have region 0; ids are 0, OP_BORDER_REGION or 1..count;
 *             OP_BORDER_REGION exactly on the walkable band spans (supplement §2).
 *  compact    every id 1..count is used.
 *  numbering  (filtered) ids appear in first-span order (§5.3).
 *  area       a region has one area id (introduction).
 *  connected  a region is connected through mutual links (introduction).
 *  merge      (filtered, not layers) no region smaller than MergeRegionArea has a
 *             same-area neighbouring region (§5.2).
 *  unassigned (not filtered) every walkable non-band span has a region.
 *  island     (filtered) a walkable span with region 0 has no mutual link to a span with
 *             a non-zero region (band included), and its same-area component of
 *             region-0 spans is smaller than MinRegionArea (§5: removed islands only).
 *  layer      (layers) no column holds two spans of one region; adjacent same-area
 *             regions overlap (§4).
 *  run        (monotone, not filtered) a region has one run along x per row (§3). */
#include "regions/regions_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One check: the inputs, the report, and what the rules share (per-id size, first
 * span and area; two span-sized work arrays). */
typedef struct checker {
    op_region_report *rep;
    uint32_t shown;
    const op_chf *chf;
    const op_region_settings *s;
    const uint32_t *region;
    uint32_t n, k; /* span count, region count */
    int filtered;
    uint32_t *size, *first; /* per id 0..k; first span of each id */
    uint8_t *rarea;         /* per id: the area of its first span */
    uint32_t *comp, *queue; /* per span: BFS marks and queue */
} checker;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void fail(checker *c, uint32_t span, uint32_t region, const char *rule, const char *fmt,
                 ...)
{
    op_region_report *rep = c->rep;
    if (rep->failures++ == 0) {
        rep->first_span = span;
        rep->first_region = region;
    }
    if (c->shown >= 4)
        return;
    c->shown++;
    size_t len = strlen(rep->first);
    if (len + 8 >= sizeof rep->first)
        return;
    int k = snprintf(rep->first + len, sizeof rep->first - len, "%s[%s] span %u region %u: ",
                     len ? "; " : "", rule, span, region);
    if (k < 0)
        return;
    len = strlen(rep->first);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->first + len, sizeof rep->first - len, fmt, ap);
    va_end(ap);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int has_pair(const uint64_t *p, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (p[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && p[lo] == key;
}

/* values and area (one pass that also sizes every region and finds its first span).
 * Returns 0 when an id is out of place: the later rules index by region id. */
static int check_values(checker *c, const uint8_t *band)
{
    const uint8_t *area = c->chf->area;
    const uint32_t *region = c->region;
    int values_ok = 1;
    for (uint32_t i = 0; i < c->n; i++) {
        const uint32_t r = region[i];
        if (area[i] == 0) {
            if (r != 0) {
                fail(c, i, r, "values", "area-0 span has a region");
                values_ok = 0;
            }
            continue;
        }
        if (band[i] != (r == OP_BORDER_REGION)) {
            fail(c, i, r, "values", band[i] ? "band span without OP_BORDER_REGION"
                                             : "OP_BORDER_REGION outside the band");
            values_ok = 0;
            continue;
        }
        if (r == OP_BORDER_REGION)
            continue;
        if (r > c->k) {
            fail(c, i, r, "values", "id above the region count %u", c->k);
            values_ok = 0;
            continue;
        }
        if (r == 0)
            continue;
        if (c->size[r]++ == 0) {
            c->first[r] = i;
            c->rarea[r] = area[i];
        } else if (c->rarea[r] != area[i]) {
            fail(c, i, r, "area", "area %u, region's first span has %u", area[i], c->rarea[r]);
        }
    }
    return values_ok;
}

/* compact, and (filtered) numbering in first-span order (§5.3). */
static void check_numbering(checker *c)
{
    for (uint32_t r = 1; r <= c->k; r++)
        if (c->size[r] == 0)
            fail(c, OP_NO_LINK, r, "compact", "id not used");
    if (c->filtered)
        for (uint32_t r = 2; r <= c->k; r++)
            if (c->size[r] && c->size[r - 1] && c->first[r] < c->first[r - 1])
                fail(c, c->first[r], r, "numbering", "first span before region %u's (%u)",
                     r - 1, c->first[r - 1]);
}

/* Marks in c->comp the spans reached from `from` through mutual links to spans of
 * region r, and (same_area) of from's area; returns how many. */
static uint32_t flood(checker *c, uint32_t from, uint32_t r, int same_area)
{
    const op_chf *chf = c->chf;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    uint32_t *comp = c->comp, *queue = c->queue;
    uint32_t head = 0, tail = 0;
    comp[from] = 1;
    queue[tail++] = from;
    while (head < tail) {
        const uint32_t u = queue[head++];
        for (int d = 0; d < 4; d++) {
            if (!(mutual[u] >> d & 1))
                continue;
            const uint32_t t = op_chf_link(chf, d, u);
            if (!comp[t] && c->region[t] == r && (!same_area || area[t] == area[u])) {
                comp[t] = 1;
                queue[tail++] = t;
            }
        }
    }
    return tail;
}

/* connected: one BFS component per region (mutual links, same region). */
static void check_connected(checker *c)
{
    memset(c->comp, 0, (size_t)c->n * sizeof *c->comp);
    for (uint32_t i = 0; i < c->n; i++) {
        const uint32_t r = c->region[i];
        if (r == 0 || r == OP_BORDER_REGION || c->comp[i])
            continue;
        if (i != c->first[r]) {
            fail(c, i, r, "connected", "not connected to the region's first span %u",
                 c->first[r]);
            continue;
        }
        flood(c, i, r, 0);
    }
}

/* merge (§5.2): no region below MergeRegionArea has a same-area neighbouring region. */
static void check_merge(checker *c)
{
    const op_chf *chf = c->chf;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    for (uint32_t i = 0; i < c->n; i++) {
        const uint32_t r = c->region[i];
        if (r == 0 || r == OP_BORDER_REGION || c->size[r] >= c->s->merge_region_area)
            continue;
        for (int d = 0; d < 4; d++) {
            if (!(mutual[i] >> d & 1))
                continue;
            const uint32_t t = op_chf_link(chf, d, i), q = c->region[t];
            if (q && q != OP_BORDER_REGION && q != r && area[t] == area[i]) {
                fail(c, i, r, "merge", "%u spans < %u, same-area neighbour region %u",
                     c->size[r], c->s->merge_region_area, q);
                break;
            }
        }
    }
}

/* unassigned (not filtered) / island (filtered, §5: removed islands only). */
static void check_islands(checker *c)
{
    const op_chf *chf = c->chf;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    memset(c->comp, 0, (size_t)c->n * sizeof *c->comp);
    for (uint32_t i = 0; i < c->n; i++) {
        if (area[i] == 0 || c->region[i] != 0)
            continue;
        if (!c->filtered) {
            fail(c, i, 0, "unassigned", "walkable span without a region");
            continue;
        }
        for (int d = 0; d < 4; d++) {
            if ((mutual[i] >> d & 1) && c->region[op_chf_link(chf, d, i)] != 0) {
                fail(c, i, 0, "island", "region-0 span linked to region %u",
                     c->region[op_chf_link(chf, d, i)]);
                break;
            }
        }
        if (c->comp[i])
            continue;
        const uint32_t spans = flood(c, i, 0, 1);
        if (spans >= c->s->min_region_area)
            fail(c, i, 0, "island", "region-0 component of %u spans, not below %u", spans,
                 c->s->min_region_area);
    }
}

/* The overlapping region pairs (a < b, as a << 32 | b) of the columns, sorted, into
 * *pairs / *np: c->queue when it is large enough, else more scratch. Also reports the
 * "layer" rule's column half: two spans of one region in a column. */
static op_status column_pairs(op_ctx *ctx, checker *c, const uint64_t **pairs_out,
                              size_t *np_out)
{
    const op_chf *chf = c->chf;
    const uint32_t *region = c->region;
    const uint32_t cells = chf->width * chf->depth;
    uint32_t *store = c->queue;
    size_t np = 0;
    for (int fill = 0; fill < 2; fill++) {
        uint64_t *pairs = fill ? (uint64_t *)(void *)store : NULL;
        size_t w = 0;
        for (uint32_t cc = 0; cc < cells; cc++) {
            const uint32_t f = chf->cell_first[cc], e = chf->cell_first[cc + 1];
            for (uint32_t i = f; i < e; i++) {
                const uint32_t ri = region[i];
                if (ri == 0 || ri == OP_BORDER_REGION)
                    continue;
                for (uint32_t j = i + 1; j < e; j++) {
                    const uint32_t rj = region[j];
                    if (rj == 0 || rj == OP_BORDER_REGION)
                        continue;
                    if (rj == ri) {
                        if (!fill)
                            fail(c, j, ri, "layer", "two spans of one layer in a column");
                        continue;
                    }
                    if (fill) {
                        const uint32_t a = ri < rj ? ri : rj, b = ri < rj ? rj : ri;
                        pairs[w++] = (uint64_t)a << 32 | b;
                    } else {
                        np++;
                    }
                }
            }
        }
        if (!fill) {
            /* reuse queue when it is large enough, else take more scratch */
            if (np * 2 > c->n) {
                uint32_t *q2 = op_scratch(ctx, np ? np : 1, sizeof(uint64_t));
                if (!q2)
                    return OP_NO_MEMORY;
                store = q2;
            }
        } else {
            qsort(pairs, w, sizeof *pairs, cmp_u64);
        }
    }
    *pairs_out = (const uint64_t *)(const void *)store;
    *np_out = np;
    return OP_OK;
}

/* layer (§4): no column holds two spans of one region; adjacent same-area regions
 * overlap. */
static op_status check_layers(op_ctx *ctx, checker *c)
{
    const op_chf *chf = c->chf;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint64_t *pairs;
    size_t np;
    op_status st = column_pairs(ctx, c, &pairs, &np);
    if (st != OP_OK)
        return st;
    for (uint32_t i = 0; i < c->n; i++) {
        const uint32_t r = c->region[i];
        if (r == 0 || r == OP_BORDER_REGION)
            continue;
        for (int d = 0; d < 4; d++) {
            if (!(mutual[i] >> d & 1))
                continue;
            const uint32_t t = op_chf_link(chf, d, i), q = c->region[t];
            if (q == 0 || q == OP_BORDER_REGION || q <= r || area[t] != area[i])
                continue;
            if (!has_pair(pairs, np, (uint64_t)r << 32 | q)) {
                fail(c, i, r, "layer", "adjacent same-area region %u does not overlap", q);
                break;
            }
        }
    }
    return OP_OK;
}

/* run (§3): a region has one run along x per row; row_of is per id 0..k. */
static void check_runs(checker *c, uint32_t *row_of)
{
    const op_chf *chf = c->chf;
    const uint8_t *mutual = chf->mutual;
    memset(row_of, 0, ((size_t)c->k + 1) * sizeof *row_of);
    for (uint32_t z = 0; z < chf->depth; z++) {
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t cc = x + z * chf->width;
            const uint32_t f = chf->cell_first[cc], e = chf->cell_first[cc + 1];
            for (uint32_t i = f; i < e; i++) {
                const uint32_t r = c->region[i];
                if (r == 0 || r == OP_BORDER_REGION)
                    continue;
                if ((mutual[i] & 1) && c->region[op_chf_link(chf, 0, i)] == r)
                    continue; /* continues a run */
                if (row_of[r] == z + 1)
                    fail(c, i, r, "run", "second run in row %u", z);
                row_of[r] = z + 1;
            }
        }
    }
}

op_status op_check_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                           const uint32_t *region, uint32_t region_count, int filtered,
                           op_region_report *rep)
{
    op_region_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->first_span = OP_NO_LINK;
    op_status st = op_regions_check_args(ctx, chf, region, region, "check regions");
    if (st != OP_OK)
        return st;
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    if (region_count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "check regions: region count %u exceeds %u",
                       region_count, OP_MAX_REGION_ID);
    const uint32_t n = chf->span_count, k = region_count;
    const int layers = s->partition == OP_PARTITION_LAYERS;
    checker c = {.rep = rep, .chf = chf, .s = s, .region = region, .n = n, .k = k,
                 .filtered = filtered};
    if (n == 0)
        goto done;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)k + 1;
    uint8_t *band = op_scratch(ctx, n, 1);
    c.size = op_scratch(ctx, nr, sizeof *c.size);
    c.first = op_scratch(ctx, nr, sizeof *c.first);
    c.rarea = op_scratch(ctx, nr, 1);
    c.comp = op_scratch(ctx, n, sizeof *c.comp);
    c.queue = op_scratch(ctx, n, sizeof *c.queue);
    uint32_t *row_of = op_scratch(ctx, nr, sizeof *row_of);
    if (!band || !c.size || !c.first || !c.rarea || !c.comp || !c.queue || !row_of) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    op_regions_band(chf, band, NULL);
    memset(c.size, 0, nr * sizeof *c.size);
    for (size_t r = 0; r < nr; r++)
        c.first[r] = OP_NO_LINK;

    if (check_values(&c, band)) { /* else later rules would index by a bad id */
        check_numbering(&c);
        check_connected(&c);
        if (filtered && !layers && s->merge_region_area > 0)
            check_merge(&c);
        check_islands(&c);
        if (layers && check_layers(ctx, &c) != OP_OK) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        }
        if (!filtered && s->partition == OP_PARTITION_MONOTONE)
            check_runs(&c, row_of);
    }
    op_arena_release(&ctx->arena, mark);
done:
    if (rep->failures)
        return op_fail(ctx, OP_INTERNAL, "region check (%s%s): %u failures: %s",
                       op_partition_name(s->partition), filtered ? ", filtered" : "",
                       rep->failures, rep->first);
    return OP_OK;
}
