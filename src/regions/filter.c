/* Filtering and numbering (regions-contours §5, supplement §9.5, §2).
 *
 * Band spans (OP_BORDER_REGION) are never removed, merged or numbered; for the island
 * test a link to a band span counts as a neighbouring region (the text: "a span with a
 * different, non-zero region"), but a band span is never a merge target (it belongs to
 * no partition region). See docs/decisions/regions.md. */
#include "regions/regions_internal.h"

#include <string.h>

op_status op_regions_filter_impl(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count)
{
    const uint32_t n = chf->span_count;
    const uint32_t maxid = *region_count;
    const uint8_t *area = chf->area;
    const uint8_t *mutual = chf->mutual;
    if (maxid > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "filter regions: region count %u exceeds %u",
                       maxid, OP_MAX_REGION_ID);
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r != OP_BORDER_REGION && r > maxid)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "filter regions: span %u has region %u above the count %u", s, r,
                           maxid);
        if (r && area[s] == 0)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "filter regions: span %u has area 0 but region %u", s, r);
    }
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    const size_t nr = (size_t)maxid + 1;
    uint32_t *size = op_scratch(ctx, nr, sizeof *size);
    uint8_t *flag = op_scratch(ctx, nr, 1);
    if (!size || !flag) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(size, 0, nr * sizeof *size);
    memset(flag, 0, nr);

    /* §5.1 islands, decided once on the unfiltered regions (§9.5). */
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r == OP_BORDER_REGION)
            continue;
        size[r]++;
        const uint8_t ms = mutual[s];
        for (int d = 0; d < 4; d++) {
            if (!(ms >> d & 1))
                continue;
            const uint32_t t = region[chf->link[d][s]];
            if (t != 0 && t != r)
                flag[r] = 1;
        }
    }
    int any_island = 0;
    for (uint32_t r = 1; r <= maxid; r++) {
        if (size[r] && size[r] < min_area && !flag[r]) {
            flag[r] = 2;
            any_island = 1;
        }
    }
    if (any_island) {
        for (uint32_t s = 0; s < n; s++) {
            const uint32_t r = region[s];
            if (r && r != OP_BORDER_REGION && flag[r] == 2) {
                region[s] = 0;
                size[r] = 0;
            }
        }
    }

    /* §5.2 merging (§9.5): passes in increasing id; links counted once per (span,
     * direction); most shared links wins, smallest id on ties; each merge takes effect at
     * once (spans relabelled, the target's size grows). Span lists per region make a visit
     * cost O(size of the small region). */
    if (merge && merge_area > 0) {
        uint32_t *next = op_scratch(ctx, n, sizeof *next);
        uint32_t *head = op_scratch(ctx, nr, sizeof *head);
        uint32_t *tail = op_scratch(ctx, nr, sizeof *tail);
        uint32_t *cnt = op_scratch(ctx, nr, sizeof *cnt);
        uint32_t *touched = op_scratch(ctx, nr, sizeof *touched);
        if (!next || !head || !tail || !cnt || !touched) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        }
        for (size_t r = 0; r < nr; r++) {
            head[r] = tail[r] = OP_NO_LINK;
            cnt[r] = 0;
        }
        for (uint32_t s = 0; s < n; s++) {
            const uint32_t r = region[s];
            next[s] = OP_NO_LINK;
            if (r == 0 || r == OP_BORDER_REGION)
                continue;
            if (head[r] == OP_NO_LINK)
                head[r] = s;
            else
                next[tail[r]] = s;
            tail[r] = s;
        }
        for (int merged = 1; merged;) {
            merged = 0;
            for (uint32_t r = 1; r <= maxid; r++) {
                if (size[r] == 0 || size[r] >= merge_area)
                    continue;
                const uint8_t ra = area[head[r]];
                uint32_t nt = 0;
                for (uint32_t s = head[r]; s != OP_NO_LINK; s = next[s]) {
                    const uint8_t ms = mutual[s];
                    for (int d = 0; d < 4; d++) {
                        if (!(ms >> d & 1))
                            continue;
                        const uint32_t t = chf->link[d][s];
                        const uint32_t q = region[t];
                        if (q == 0 || q == OP_BORDER_REGION || q == r || area[t] != ra)
                            continue;
                        if (cnt[q]++ == 0)
                            touched[nt++] = q;
                    }
                }
                uint32_t best = 0, bestc = 0;
                for (uint32_t i = 0; i < nt; i++) {
                    const uint32_t q = touched[i];
                    if (cnt[q] > bestc || (cnt[q] == bestc && q < best)) {
                        best = q;
                        bestc = cnt[q];
                    }
                    cnt[q] = 0;
                }
                if (!best)
                    continue;
                for (uint32_t s = head[r]; s != OP_NO_LINK; s = next[s])
                    region[s] = best;
                next[tail[best]] = head[r];
                tail[best] = tail[r];
                head[r] = tail[r] = OP_NO_LINK;
                size[best] += size[r];
                size[r] = 0;
                merged = 1;
            }
        }
    }

    /* §5.3 numbering by first span. */
    uint32_t *map = op_scratch(ctx, nr, sizeof *map);
    if (!map) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(map, 0, nr * sizeof *map);
    uint32_t k = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r == OP_BORDER_REGION)
            continue;
        if (!map[r])
            map[r] = ++k;
        region[s] = map[r];
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
