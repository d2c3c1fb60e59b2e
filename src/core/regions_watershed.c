/* Watershed partition (regions-contours §2, supplement §9.2), then §5.
 *
 * Walkable non-band spans are sorted once by distance, descending, ties in span-index
 * order (a stable two-pass radix sort on the complemented distance), so every level is a
 * contiguous run of that order and the whole stage is O(spans), however many levels. */
#include "core/regions_internal.h"

#include <string.h>

/* Stable LSD radix sort of span indices by key[] (ascending), 16-bit digits. */
static void sort_by_key(uint32_t *idx, uint32_t *tmp, const uint32_t *key, uint32_t *cnt,
                        uint32_t m)
{
    for (int pass = 0; pass < 2; pass++) {
        const int sh = pass * 16;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (uint32_t i = 0; i < m; i++)
            cnt[(~key[idx[i]] >> sh) & 0xffff]++;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < 65536; k++) {
            const uint32_t c = cnt[k];
            cnt[k] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < m; i++)
            tmp[cnt[(~key[idx[i]] >> sh) & 0xffff]++] = idx[i];
        memcpy(idx, tmp, (size_t)m * sizeof *idx);
    }
}

op_status op_build_regions_watershed_raw(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                         uint32_t *region, uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "watershed");
    if (st != OP_OK)
        return st;
    if (!dist)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "watershed: NULL distance field");
    const uint32_t n = chf->span_count;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;
    const uint8_t *mutual = chf->mutual;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t *order = op_scratch(ctx, n, sizeof *order);
    uint32_t *bufa = op_scratch(ctx, n, sizeof *bufa);
    uint32_t *bufb = op_scratch(ctx, n, sizeof *bufb);
    uint32_t *newreg = op_scratch(ctx, n, sizeof *newreg);
    uint32_t *stamp = op_scratch(ctx, n, sizeof *stamp);
    uint32_t *cnt = op_scratch(ctx, 65536, sizeof *cnt);
    if (!order || !bufa || !bufb || !newreg || !stamp || !cnt) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    uint32_t m = 0;
    for (uint32_t s = 0; s < n; s++)
        if (area[s] != 0 && region[s] == 0)
            order[m++] = s;
    sort_by_key(order, bufa, dist, cnt, m);
    memset(stamp, 0, (size_t)n * sizeof *stamp);
    uint32_t stampc = 0, next_id = 0;

    for (uint32_t lo = 0; lo < m;) {
        const uint32_t L = dist[order[lo]];
        uint32_t hi = lo + 1;
        while (hi < m && dist[order[hi]] == L)
            hi++;
        /* §2.1 growth: synchronous rounds; joins decided from the state at the start of
         * the round. The first round's candidates are the level's spans; the next
         * round's are the unassigned level spans next to a span that just joined
         * (§9.2: any mutual neighbour). Their order cannot change a synchronous round,
         * so they are kept in discovery order. */
        const uint32_t *cand = order + lo;
        uint32_t nc = hi - lo;
        uint32_t *nextbuf = bufa, *otherbuf = bufb;
        while (nc) {
            uint32_t joined = 0;
            for (uint32_t i = 0; i < nc; i++) {
                const uint32_t s = cand[i];
                uint32_t best = 0;
                if (region[s] == 0) {
                    const uint8_t ms = mutual[s];
                    for (int d = 0; d < 4; d++) {
                        if (!(ms >> d & 1))
                            continue;
                        const uint32_t t = chf->link[d][s];
                        const uint32_t r = region[t];
                        if (r && r != OP_BORDER_REGION && area[t] == area[s] &&
                            (best == 0 || r < best))
                            best = r;
                    }
                }
                newreg[i] = best;
                joined += best != 0;
            }
            if (!joined)
                break;
            for (uint32_t i = 0; i < nc; i++)
                if (newreg[i])
                    region[cand[i]] = newreg[i];
            if (++stampc == 0) {
                memset(stamp, 0, (size_t)n * sizeof *stamp);
                stampc = 1;
            }
            uint32_t nn = 0;
            for (uint32_t i = 0; i < nc; i++) {
                if (!newreg[i])
                    continue;
                const uint32_t s = cand[i];
                const uint8_t ms = mutual[s];
                for (int d = 0; d < 4; d++) {
                    if (!(ms >> d & 1))
                        continue;
                    const uint32_t t = chf->link[d][s];
                    /* region 0 excludes band spans; area != 0 and dist == L: a level span */
                    if (region[t] == 0 && area[t] != 0 && dist[t] == L && stamp[t] != stampc) {
                        stamp[t] = stampc;
                        nextbuf[nn++] = t;
                    }
                }
            }
            cand = nextbuf;
            nc = nn;
            uint32_t *sw = nextbuf;
            nextbuf = otherbuf;
            otherbuf = sw;
        }
        /* §2.2 basins: each still-unassigned level span in span-index order starts a new
         * region and floods breadth first through same-area, same-level spans. */
        uint32_t *queue = bufa;
        for (uint32_t i = lo; i < hi; i++) {
            const uint32_t s0 = order[i];
            if (region[s0] != 0)
                continue;
            if (next_id == OP_MAX_REGION_ID) {
                op_arena_release(&ctx->arena, mark);
                return op_fail(ctx, OP_UNSUPPORTED, "watershed: more than %u regions",
                               OP_MAX_REGION_ID);
            }
            const uint32_t id = ++next_id;
            uint32_t head = 0, tail = 0;
            region[s0] = id;
            queue[tail++] = s0;
            while (head < tail) {
                const uint32_t u = queue[head++];
                const uint8_t mu = mutual[u];
                for (int d = 0; d < 4; d++) {
                    if (!(mu >> d & 1))
                        continue;
                    const uint32_t t = chf->link[d][u];
                    if (region[t] == 0 && area[t] == area[u] && dist[t] == L) {
                        region[t] = id;
                        queue[tail++] = t;
                    }
                }
            }
        }
        lo = hi;
    }
    *region_count = next_id;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

op_status op_build_regions_watershed(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                     const op_region_settings *s, uint32_t *region,
                                     uint32_t *region_count)
{
    op_status st = op_region_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    if ((st = op_build_regions_watershed_raw(ctx, chf, dist, region, region_count)) != OP_OK)
        return st;
    return op_regions_filter_impl(ctx, chf, s->min_region_area, s->merge_region_area, 1, region,
                                  region_count);
}
