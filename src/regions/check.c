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

typedef struct checker {
    op_region_report *rep;
    uint32_t shown;
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
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const int layers = s->partition == OP_PARTITION_LAYERS;
    checker c = {rep, 0};
    if (n == 0)
        goto done;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)k + 1;
    uint8_t *band = op_scratch(ctx, n, 1);
    uint32_t *size = op_scratch(ctx, nr, sizeof *size);
    uint32_t *first = op_scratch(ctx, nr, sizeof *first); /* first span of each id */
    uint8_t *rarea = op_scratch(ctx, nr, 1);
    uint32_t *comp = op_scratch(ctx, n, sizeof *comp);
    uint32_t *queue = op_scratch(ctx, n, sizeof *queue);
    uint32_t *mark32 = op_scratch(ctx, nr, sizeof *mark32);
    if (!band || !size || !first || !rarea || !comp || !queue || !mark32) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    op_regions_band(chf, band);
    memset(size, 0, nr * sizeof *size);
    for (size_t r = 0; r < nr; r++)
        first[r] = OP_NO_LINK;
    int values_ok = 1;

    /* values, area, size, first span */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t r = region[i];
        if (area[i] == 0) {
            if (r != 0) {
                fail(&c, i, r, "values", "area-0 span has a region");
                values_ok = 0;
            }
            continue;
        }
        if (band[i] != (r == OP_BORDER_REGION)) {
            fail(&c, i, r, "values", band[i] ? "band span without OP_BORDER_REGION"
                                              : "OP_BORDER_REGION outside the band");
            values_ok = 0;
            continue;
        }
        if (r == OP_BORDER_REGION)
            continue;
        if (r > k) {
            fail(&c, i, r, "values", "id above the region count %u", k);
            values_ok = 0;
            continue;
        }
        if (r == 0)
            continue;
        if (size[r]++ == 0) {
            first[r] = i;
            rarea[r] = area[i];
        } else if (rarea[r] != area[i]) {
            fail(&c, i, r, "area", "area %u, region's first span has %u", area[i], rarea[r]);
        }
    }
    if (!values_ok)
        goto out; /* later rules index by region id */
    for (uint32_t r = 1; r <= k; r++)
        if (size[r] == 0)
            fail(&c, OP_NO_LINK, r, "compact", "id not used");
    if (filtered)
        for (uint32_t r = 2; r <= k; r++)
            if (size[r] && size[r - 1] && first[r] < first[r - 1])
                fail(&c, first[r], r, "numbering", "first span before region %u's (%u)", r - 1,
                     first[r - 1]);

    /* connected: one BFS component per region (mutual links, same region). */
    memset(comp, 0, (size_t)n * sizeof *comp);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t r = region[i];
        if (r == 0 || r == OP_BORDER_REGION || comp[i])
            continue;
        if (i != first[r]) {
            fail(&c, i, r, "connected", "not connected to the region's first span %u", first[r]);
            continue;
        }
        uint32_t head = 0, tail = 0;
        comp[i] = 1;
        queue[tail++] = i;
        while (head < tail) {
            const uint32_t u = queue[head++];
            for (int d = 0; d < 4; d++) {
                if (!(mutual[u] >> d & 1))
                    continue;
                const uint32_t t = chf->link[d][u];
                if (!comp[t] && region[t] == r) {
                    comp[t] = 1;
                    queue[tail++] = t;
                }
            }
        }
    }

    /* merge */
    if (filtered && !layers && s->merge_region_area > 0) {
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t r = region[i];
            if (r == 0 || r == OP_BORDER_REGION || size[r] >= s->merge_region_area)
                continue;
            for (int d = 0; d < 4; d++) {
                if (!(mutual[i] >> d & 1))
                    continue;
                const uint32_t t = chf->link[d][i], q = region[t];
                if (q && q != OP_BORDER_REGION && q != r && area[t] == area[i]) {
                    fail(&c, i, r, "merge", "%u spans < %u, same-area neighbour region %u",
                         size[r], s->merge_region_area, q);
                    break;
                }
            }
        }
    }

    /* unassigned / island */
    memset(comp, 0, (size_t)n * sizeof *comp);
    for (uint32_t i = 0; i < n; i++) {
        if (area[i] == 0 || region[i] != 0)
            continue;
        if (!filtered) {
            fail(&c, i, 0, "unassigned", "walkable span without a region");
            continue;
        }
        for (int d = 0; d < 4; d++) {
            if ((mutual[i] >> d & 1) && region[chf->link[d][i]] != 0) {
                fail(&c, i, 0, "island", "region-0 span linked to region %u",
                     region[chf->link[d][i]]);
                break;
            }
        }
        if (comp[i])
            continue;
        uint32_t head = 0, tail = 0;
        comp[i] = 1;
        queue[tail++] = i;
        while (head < tail) {
            const uint32_t u = queue[head++];
            for (int d = 0; d < 4; d++) {
                if (!(mutual[u] >> d & 1))
                    continue;
                const uint32_t t = chf->link[d][u];
                if (!comp[t] && region[t] == 0 && area[t] == area[u]) {
                    comp[t] = 1;
                    queue[tail++] = t;
                }
            }
        }
        if (tail >= s->min_region_area)
            fail(&c, i, 0, "island", "region-0 component of %u spans, not below %u", tail,
                 s->min_region_area);
    }

    /* layer */
    if (layers) {
        const uint32_t cells = chf->width * chf->depth;
        size_t np = 0;
        for (int fill = 0; fill < 2; fill++) {
            uint64_t *pairs = fill ? (uint64_t *)(void *)queue : NULL;
            size_t w = 0;
            for (uint32_t cc = 0; cc < cells; cc++) {
                const uint32_t f = chf->cell_first[cc], e = f + chf->cell_count[cc];
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
                                fail(&c, j, ri, "layer", "two spans of one layer in a column");
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
                if (np * 2 > n) {
                    uint32_t *q2 = op_scratch(ctx, np ? np : 1, sizeof(uint64_t));
                    if (!q2) {
                        op_arena_release(&ctx->arena, mark);
                        return OP_NO_MEMORY;
                    }
                    queue = q2;
                }
            } else {
                qsort(pairs, w, sizeof *pairs, cmp_u64);
            }
        }
        const uint64_t *pairs = (const uint64_t *)(const void *)queue;
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t r = region[i];
            if (r == 0 || r == OP_BORDER_REGION)
                continue;
            for (int d = 0; d < 4; d++) {
                if (!(mutual[i] >> d & 1))
                    continue;
                const uint32_t t = chf->link[d][i], q = region[t];
                if (q == 0 || q == OP_BORDER_REGION || q <= r || area[t] != area[i])
                    continue;
                if (!has_pair(pairs, np, (uint64_t)r << 32 | q)) {
                    fail(&c, i, r, "layer", "adjacent same-area region %u does not overlap", q);
                    break;
                }
            }
        }
    }

    /* run */
    if (!filtered && s->partition == OP_PARTITION_MONOTONE) {
        memset(mark32, 0, nr * sizeof *mark32);
        for (uint32_t z = 0; z < chf->depth; z++) {
            for (uint32_t x = 0; x < chf->width; x++) {
                const uint32_t cc = x + z * chf->width;
                const uint32_t f = chf->cell_first[cc], e = f + chf->cell_count[cc];
                for (uint32_t i = f; i < e; i++) {
                    const uint32_t r = region[i];
                    if (r == 0 || r == OP_BORDER_REGION)
                        continue;
                    if ((mutual[i] & 1) && region[chf->link[0][i]] == r)
                        continue; /* continues a run */
                    if (mark32[r] == z + 1)
                        fail(&c, i, r, "run", "second run in row %u", z);
                    mark32[r] = z + 1;
                }
            }
        }
    }
out:
    op_arena_release(&ctx->arena, mark);
done:
    if (rep->failures)
        return op_fail(ctx, OP_INTERNAL, "region check (%s%s): %u failures: %s",
                       op_partition_name(s->partition), filtered ? ", filtered" : "",
                       rep->failures, rep->first);
    return OP_OK;
}
