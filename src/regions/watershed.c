/* Watershed partition (regions-contours §2, supplement §9.2), then §5.
 *
 * Walkable non-band spans are ordered once by distance, descending, ties in span-index
 * order, so every level is a contiguous run of that order and the whole stage is
 * O(spans), however many levels. The levels are then worked on in that order's own
 * index space (a "position"): per position its four same-area mutual neighbours (as
 * positions) and its region. A level's spans are one contiguous block there and their
 * neighbours lie in the same or the few levels just above, so the rounds of §2.1 and the
 * floods of §2.2 stay in cache instead of striding over the span arrays once per level.
 * Region ids are written back to span order at the end. */
#include "regions/regions_internal.h"

#include <string.h>

/* Stable LSD radix sort of span indices by key[] (ascending), 16-bit digits. Used only
 * when the distances are too large for one counting pass. */
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

/* A region value no region has (ids stop at OP_MAX_REGION_ID): marks a span already
 * listed as a next-round candidate while that list is built. */
#define WS_LISTED 0xffffffffu

/* Counting sort needs maxd + 1 counters: used while that is at most this many. */
#define WS_MAX_BUCKETS (1u << 22)

/* Positions: pos[s] is span s's place in the order of S by distance, descending, ties
 * in span-index order (none outside S); level_end[k] is the end of the k-th level (an
 * empty level has the previous end). order and tmp are NULL for the counting sort
 * (small distances), whose cnt is level_end itself; else cnt is the radix counters. */
static void order_by_distance(const uint8_t *area, const uint32_t *region, const uint32_t *dist,
                              uint32_t n, uint32_t m, uint32_t maxd, uint32_t *pos,
                              uint32_t *cnt, uint32_t *order, uint32_t *tmp,
                              uint32_t *level_end)
{
    const uint32_t none = m;
    if (order == NULL) {
        /* Counting sort: bucket k holds distance maxd - k; a stable counting pass in span
         * order gives every span its position directly. cnt[k] ends as the start of
         * bucket k + 1. */
        const uint32_t nbuckets = maxd + 2;
        memset(cnt, 0, (size_t)nbuckets * sizeof *cnt);
        for (uint32_t s = 0; s < n; s++)
            if (area[s] != 0 && region[s] == 0)
                cnt[maxd - dist[s] + 1]++;
        for (uint32_t k = 1; k < nbuckets; k++)
            cnt[k] += cnt[k - 1];
        /* cnt[k] = start of bucket k; used as a running cursor below. */
        for (uint32_t s = 0; s < n; s++)
            pos[s] = area[s] != 0 && region[s] == 0 ? cnt[maxd - dist[s]]++ : none;
        /* Now cnt[k] = end of bucket k = start of bucket k + 1. */
    } else {
        uint32_t k = 0;
        for (uint32_t s = 0; s < n; s++)
            if (area[s] != 0 && region[s] == 0)
                order[k++] = s;
        sort_by_key(order, tmp, dist, cnt, m);
        for (uint32_t s = 0; s < n; s++)
            pos[s] = none;
        uint32_t levels = 0;
        for (uint32_t i = 0; i < m; i++) {
            pos[order[i]] = i;
            if (i + 1 == m || dist[order[i + 1]] != dist[order[i]])
                level_end[levels++] = i + 1;
        }
    }
}

/* Per-position neighbours, filled in span order: the mutual neighbours in S with the
 * same area; every other neighbour becomes none (reg[none] = 0, in no level).
 * Every test below asks for "same area" or is only helped by it:
 * - growth (§2.1) joins only regions of same-area neighbours; spans outside S have
 *   region 0 or OP_BORDER_REGION, which growth ignores too;
 * - basins (§2.2) flood same-area, same-level spans;
 * - the next round's candidates: §9.2 makes the result that of rounds over all
 *   unassigned level spans. A span that joins in round k + 1 has a same-area
 *   neighbour with a region; had it had one at the start of round k as a candidate,
 *   it would have joined then, so that neighbour joined in round k and the span is
 *   found from it (by induction from round 1, whose candidates are all level spans).
 *   Candidates that cannot join change nothing, so the other neighbours need not
 *   be visited. */
static void position_neighbours(const op_chf *chf, const uint32_t *pos, uint32_t none,
                                uint32_t *nb)
{
    const uint8_t *area = chf->area;
    const uint8_t *mutual = chf->mutual;
    for (uint32_t s = 0; s < chf->span_count; s++) {
        const uint32_t p = pos[s];
        if (p == none)
            continue;
        const uint8_t ms = mutual[s], as = area[s];
        for (int d = 0; d < 4; d++) {
            uint32_t q = none;
            if (ms >> d & 1) {
                const uint32_t t = chf->link[d][s];
                if (area[t] == as)
                    q = pos[t];
            }
            nb[(size_t)p * 4 + d] = q;
        }
    }
}

/* §2.1 growth of the level [lo, hi): synchronous rounds; joins decided from the state
 * at the start of the round. The first round's candidates are the level's spans; the
 * next round's are the unassigned level spans next to a span that just joined (its
 * same-area mutual neighbours: enough, see position_neighbours; §9.2 reads "next to" as
 * any mutual neighbour). Their order cannot change a synchronous round, so they are
 * kept in discovery order. A level span is a position in [lo, hi). bufa, bufb and
 * newreg hold one level. */
static void grow_level(const uint32_t *nb, uint32_t *reg, uint32_t lo, uint32_t hi,
                       uint32_t *bufa, uint32_t *bufb, uint32_t *newreg)
{
    uint32_t nc = hi - lo;
    const uint32_t *cand = NULL; /* NULL: the whole level, lo + i */
    uint32_t *nextbuf = bufa, *otherbuf = bufb;
    while (nc) {
        uint32_t joined = 0;
        for (uint32_t i = 0; i < nc; i++) {
            const uint32_t p = cand ? cand[i] : lo + i;
            uint32_t best = 0;
            if (reg[p] == 0) {
                const uint32_t *q = nb + (size_t)p * 4;
                for (int d = 0; d < 4; d++) {
                    const uint32_t r = reg[q[d]];
                    if (r && (best == 0 || r < best))
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
                reg[cand ? cand[i] : lo + i] = newreg[i];
        uint32_t nn = 0;
        for (uint32_t i = 0; i < nc; i++) {
            if (!newreg[i])
                continue;
            const uint32_t *q = nb + (size_t)(cand ? cand[i] : lo + i) * 4;
            for (int d = 0; d < 4; d++) {
                const uint32_t t = q[d];
                /* an unassigned span of this level (none is in no level), listed
                 * once: reg = WS_LISTED marks it until the list is complete */
                if (t - lo < hi - lo && reg[t] == 0) {
                    reg[t] = WS_LISTED;
                    nextbuf[nn++] = t;
                }
            }
        }
        for (uint32_t i = 0; i < nn; i++)
            reg[nextbuf[i]] = 0;
        cand = nextbuf;
        nc = nn;
        uint32_t *sw = nextbuf;
        nextbuf = otherbuf;
        otherbuf = sw;
    }
}

/* §2.2 basins of the level [lo, hi): each still-unassigned level span in span-index
 * order (= position order within the level) starts a new region and floods breadth
 * first through same-area, same-level spans. Returns nonzero when the ids run out. */
static int flood_basins(const uint32_t *nb, uint32_t *reg, uint32_t lo, uint32_t hi,
                        uint32_t *queue, uint32_t *next_id)
{
    for (uint32_t p0 = lo; p0 < hi; p0++) {
        if (reg[p0] != 0)
            continue;
        if (*next_id == OP_MAX_REGION_ID)
            return 1;
        const uint32_t id = ++*next_id;
        uint32_t head = 0, tail = 0;
        reg[p0] = id;
        queue[tail++] = p0;
        while (head < tail) {
            const uint32_t u = queue[head++];
            const uint32_t *q = nb + (size_t)u * 4;
            for (int d = 0; d < 4; d++) {
                const uint32_t t = q[d];
                if (t - lo < hi - lo && reg[t] == 0) {
                    reg[t] = id;
                    queue[tail++] = t;
                }
            }
        }
    }
    return 0;
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

    /* The set S of spans to partition: walkable, not band (region still 0). */
    uint32_t m = 0, maxd = 0;
    for (uint32_t s = 0; s < n; s++)
        if (area[s] != 0 && region[s] == 0) {
            m++;
            if (dist[s] > maxd)
                maxd = dist[s];
        }
    if (m == 0)
        return OP_OK;
    const uint32_t none = m; /* the position of every span outside S */

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    /* pos[s]: s's position, or none. */
    uint32_t *pos = op_scratch(ctx, n, sizeof *pos);
    uint32_t *nb = op_scratch(ctx, (size_t)m * 4, sizeof *nb);  /* 4 neighbours per pos */
    uint32_t *reg = op_scratch(ctx, (size_t)m + 1, sizeof *reg); /* region per pos */
    const int counting = maxd < WS_MAX_BUCKETS;
    const uint32_t nbuckets = counting ? maxd + 2 : 65536;
    uint32_t *cnt = op_scratch(ctx, nbuckets, sizeof *cnt);
    /* level_end[k]: the end of the k-th level in position order (levels by distance
     * descending); an empty level has the previous end. */
    uint32_t *order = counting ? NULL : op_scratch(ctx, m, sizeof *order);
    uint32_t *tmp = counting ? NULL : op_scratch(ctx, m, sizeof *tmp);
    uint32_t *level_end = counting ? cnt : op_scratch(ctx, m, sizeof *level_end);
    if (!pos || !nb || !reg || !cnt || (!counting && (!order || !tmp)) || !level_end) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    order_by_distance(area, region, dist, n, m, maxd, pos, cnt, order, tmp, level_end);
    position_neighbours(chf, pos, none, nb);
    memset(reg, 0, ((size_t)m + 1) * sizeof *reg);
    uint32_t next_id = 0;

    /* Candidate lists, joins of a round and the flood queue hold one level at most. */
    uint32_t maxlevel = 0;
    for (uint32_t k = 0, lo = 0; lo < m; k++) {
        const uint32_t len = level_end[k] - lo;
        maxlevel = len > maxlevel ? len : maxlevel;
        lo = level_end[k];
    }
    uint32_t *bufa = op_scratch(ctx, maxlevel, sizeof *bufa);
    uint32_t *bufb = op_scratch(ctx, maxlevel, sizeof *bufb);
    uint32_t *newreg = op_scratch(ctx, maxlevel, sizeof *newreg);
    if (!bufa || !bufb || !newreg) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }

    for (uint32_t k = 0, lo = 0; lo < m; k++) {
        const uint32_t hi = level_end[k];
        if (hi == lo)
            continue; /* no span at this distance */
        grow_level(nb, reg, lo, hi, bufa, bufb, newreg);
        if (flood_basins(nb, reg, lo, hi, bufa, &next_id)) {
            op_arena_release(&ctx->arena, mark);
            return op_fail(ctx, OP_UNSUPPORTED, "watershed: more than %u regions",
                           OP_MAX_REGION_ID);
        }
        lo = hi;
    }
    /* Back to span order. */
    for (uint32_t s = 0; s < n; s++)
        if (pos[s] != none)
            region[s] = reg[pos[s]];
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
