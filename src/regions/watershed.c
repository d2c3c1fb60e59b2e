/* Watershed partition (regions-contours §2, supplement §9.2), then §5.
 *
 * Walkable non-band spans are ordered once by distance, descending, ties in span-index
 * order, so every level is a contiguous run of that order and the whole stage is
 * O(spans), however many levels. The levels are then worked on in that order's own
 * index space (a "position"): per position its four same-area mutual neighbours (as
 * positions) and its region. A level's spans are one contiguous block there and their
 * neighbours lie in the same or the few levels just above, so the rounds of §2.1 and the
 * floods of §2.2 stay in cache instead of striding over the span arrays once per level.
 * Region ids are written back to span order at the end; until then region[] holds the
 * positions (docs/decisions/memory.md: the output is the stage's largest scratch array),
 * and the regions per position lie in the neighbour entries of the levels already done
 * (grow_all). */
#include "regions/regions_internal.h"
#include "core/links16.h"
#include "core/prefault.h"

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

/* Histogram of distances taken in the first pass (count_set): WS_HIST counters as four
 * copies of WS_HIST_COPY. The last counter of a copy takes the spans outside S, the one
 * before it every distance from there up, so the histogram serves while that one stays
 * empty (maxd < WS_HIST_COPY - 2). */
#define WS_HIST 65536u
#define WS_HIST_COPY (WS_HIST / 4)

/* How many spans ahead the scattered writes and gathers of the per-level streams are
 * prefetched. */
#define WS_AHEAD 32

uint32_t op_watershed_narrow_limit = (1u << 24) - 1;

/* Neighbour entries: the four neighbour positions of a position. Narrow: 24 bits each,
 * 12 bytes per position (a u64 and a u32), while none + 1 = m + 1 fits (m <
 * op_watershed_narrow_limit); wide: four u32, 16 bytes. The entries are the stage's
 * largest array and it is the bake's peak (docs/decisions/memory.md, round 5). Both
 * ends use the same native loads and stores, so the byte order does not matter. */
#define WS_M24 0xffffffu

static inline __attribute__((always_inline)) void nb_load(const uint8_t *nb, int narrow,
                                                          uint32_t p, uint32_t q[4])
{
    if (narrow) {
        const uint8_t *e = nb + (size_t)p * 12;
        uint64_t a;
        uint32_t b;
        memcpy(&a, e, 8);
        memcpy(&b, e + 8, 4);
        q[0] = (uint32_t)a & WS_M24;
        q[1] = (uint32_t)(a >> 24) & WS_M24;
        q[2] = (uint32_t)(a >> 48) | (b & 0xffu) << 16;
        q[3] = b >> 8;
    } else {
        memcpy(q, nb + (size_t)p * 16, 16);
    }
}

static inline __attribute__((always_inline)) void nb_store(uint8_t *nb, int narrow, uint32_t p,
                                                           uint32_t q0, uint32_t q1,
                                                           uint32_t q2, uint32_t q3)
{
    if (narrow) {
        uint8_t *e = nb + (size_t)p * 12;
        const uint64_t a = (uint64_t)q0 | (uint64_t)q1 << 24 | (uint64_t)(q2 & 0xffffu) << 48;
        const uint32_t b = q2 >> 16 | q3 << 8;
        memcpy(e, &a, 8);
        memcpy(e + 8, &b, 4);
    } else {
        const uint32_t q[4] = {q0, q1, q2, q3};
        memcpy(nb + (size_t)p * 16, q, 16);
    }
}

static inline size_t nb_stride(int narrow)
{
    return narrow ? 12 : 16;
}

/* Whether span s is in S (walkable, not band): band spans hold OP_BORDER_REGION when
 * the field has a band; without one region[] is not read (nor yet written). */
static inline int in_set(const uint8_t *area, const uint32_t *region, int band, uint32_t s)
{
    return area[s] != 0 && (!band || region[s] == 0);
}

/* The position of a span outside S: none (= m), or none + 1 for a walkable band span
 * (OP_BORDER_REGION), read before pos[s] overwrites region[s] (they share memory). */
static inline uint32_t outside(const uint8_t *area, const uint32_t *region, int band,
                               uint32_t none, uint32_t s)
{
    return none + (uint32_t)(band && area[s] != 0 && region[s] == OP_BORDER_REGION);
}

/* The first pass: per span a counter of the histogram's copy s % 4 (WS_HIST_COPY), so
 * neighbouring spans of one distance (30 % of them at demo 1936) do not wait on each
 * other's increment, and no branch asks whether the distance changed (70 %). Eight
 * spans whose areas are all non-zero (one u64 test) skip the per-span test of S when
 * there is no band. band is a constant at each call: without a band region[] is not
 * read (nor yet written). |S| and the largest distance follow from the counts. */
static inline __attribute__((always_inline)) void
count_set(const uint8_t *area, const uint32_t *region, int band, const uint32_t *dist,
          uint32_t n, uint32_t *hist)
{
    const uint32_t big = WS_HIST_COPY - 2, out = WS_HIST_COPY - 1;
    uint32_t *const h0 = hist, *const h1 = hist + WS_HIST_COPY,
                    *const h2 = hist + 2 * WS_HIST_COPY, *const h3 = hist + 3 * WS_HIST_COPY;
#define WS_KEY_IN(s) (dist[s] < big ? dist[s] : big)
#define WS_KEY(s) (area[s] != 0 && (!band || region[s] == 0) ? WS_KEY_IN(s) : out)
    uint32_t s = 0;
    for (; s + 8 <= n; s += 8) {
        uint64_t a8;
        memcpy(&a8, area + s, 8);
        const uint64_t zero = (a8 - 0x0101010101010101ull) & ~a8 & 0x8080808080808080ull;
#define WS_COUNT8(key)                                                                         \
    do {                                                                                       \
        h0[key(s)]++, h1[key(s + 1)]++, h2[key(s + 2)]++, h3[key(s + 3)]++;                    \
        h0[key(s + 4)]++, h1[key(s + 5)]++, h2[key(s + 6)]++, h3[key(s + 7)]++;                \
    } while (0)
        if (!band && zero == 0)
            WS_COUNT8(WS_KEY_IN);
        else
            WS_COUNT8(WS_KEY);
    }
    for (; s < n; s++)
        h0[WS_KEY(s)]++;
#undef WS_COUNT8
#undef WS_KEY
#undef WS_KEY_IN
}

/* Positions: pos[s] is span s's place in the order of S by distance, descending, ties
 * in span-index order (outside() for spans outside S); level_end[k] is the end of the
 * k-th level (an empty level has the previous end). order and tmp are NULL for the
 * counting sort (small distances), whose cnt is level_end itself; else cnt is the radix
 * counters. hist (NULL when not taken) holds the count of every distance 0..maxd. pos
 * may be region itself: span s's region is read before its position is written. */
static void order_by_distance(const uint8_t *area, const uint32_t *region, int band,
                              const uint32_t *dist, uint32_t n, uint32_t m, uint32_t maxd,
                              const uint32_t *hist, uint32_t *pos, uint32_t *cnt,
                              uint32_t *order, uint32_t *tmp, uint32_t *level_end)
{
    const uint32_t none = m;
    if (order == NULL) {
        /* Counting sort: bucket k holds distance maxd - k; a stable counting pass in span
         * order gives every span its position directly. cnt[k] ends as the start of
         * bucket k + 1. */
        const uint32_t nbuckets = maxd + 2;
        if (hist) {
            cnt[0] = 0;
            for (uint32_t k = 0; k <= maxd; k++)
                cnt[k + 1] = hist[maxd - k];
        } else {
            memset(cnt, 0, (size_t)nbuckets * sizeof *cnt);
            for (uint32_t s = 0; s < n; s++)
                if (in_set(area, region, band, s))
                    cnt[maxd - dist[s] + 1]++;
        }
        for (uint32_t k = 1; k < nbuckets; k++)
            cnt[k] += cnt[k - 1];
        /* cnt[k] = start of bucket k; used as a running cursor below. */
        /* Neighbouring spans often share a distance: the cursor of the last bucket
         * stays in a register until the bucket changes. */
        uint32_t kb = 0, cur = cnt[0];
        for (uint32_t s = 0; s < n; s++) {
            if (!in_set(area, region, band, s)) {
                pos[s] = outside(area, region, band, none, s);
                continue;
            }
            const uint32_t k = maxd - dist[s];
            if (k != kb) {
                cnt[kb] = cur;
                kb = k;
                cur = cnt[k];
            }
            pos[s] = cur++;
        }
        cnt[kb] = cur;
        /* Now cnt[k] = end of bucket k = start of bucket k + 1. */
    } else {
        uint32_t k = 0;
        for (uint32_t s = 0; s < n; s++)
            if (in_set(area, region, band, s))
                order[k++] = s;
        sort_by_key(order, tmp, dist, cnt, m);
        for (uint32_t s = 0; s < n; s++)
            pos[s] = in_set(area, region, band, s) ? none : outside(area, region, band, none, s);
        uint32_t levels = 0;
        for (uint32_t i = 0; i < m; i++) {
            pos[order[i]] = i;
            if (i + 1 == m || dist[order[i + 1]] != dist[order[i]])
                level_end[levels++] = i + 1;
        }
    }
}

/* Per-position neighbours, filled in span order: the mutual neighbours in S with the
 * same area; every other neighbour becomes none (in no level, read as no region), or
 * none + 1 for a band span (in no level either until the write-back maps it to the
 * band's id, so the same as none).
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
static inline __attribute__((always_inline)) void
position_neighbours(const op_chf *chf, const uint32_t *pos, uint32_t none, uint8_t *nb, int narrow,
                    int nofar)
{
    const size_t stride = nb_stride(narrow);
    const uint8_t *area = chf->area;
    const uint8_t *mutual = chf->mutual;
    /* In locals: the entries' stores (bytes) may alias anything reached through chf. */
    const int16_t *const dl0 = chf->dlink[0], *const dl1 = chf->dlink[1],
                         *const dl2 = chf->dlink[2], *const dl3 = chf->dlink[3];
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++) {
        /* The writes go to as many streams as there are levels, more than a hardware
         * prefetcher follows: the line of a later span's entry is asked for early. */
        if (s + WS_AHEAD < n && pos[s + WS_AHEAD] < none) {
            /* a narrow entry can end in the next line */
            const uint8_t *e = nb + (size_t)pos[s + WS_AHEAD] * stride;
            __builtin_prefetch(e, 1);
            if (narrow)
                __builtin_prefetch(e + 11, 1);
        }
        const uint32_t p = pos[s];
        if (p >= none)
            continue;
        /* A missing link reads as the span itself (far links) or the stored value added
         * (no far link: not read, the mutual bit is tested first), then none. */
        const uint8_t ms = mutual[s], as = area[s];
        size_t t0, t1, t2, t3; /* as wide as an address: no zero extension per link */
        if (nofar) {
            t0 = (size_t)((int64_t)s + dl0[s]);
            t1 = (size_t)((int64_t)s + dl1[s]);
            t2 = (size_t)((int64_t)s + dl2[s]);
            t3 = (size_t)((int64_t)s + dl3[s]);
        } else {
            t0 = op_chf_link_or_self(chf, 0, s, ms & 1);
            t1 = op_chf_link_or_self(chf, 1, s, ms & 2);
            t2 = op_chf_link_or_self(chf, 2, s, ms & 4);
            t3 = op_chf_link_or_self(chf, 3, s, ms & 8);
        }
        nb_store(nb, narrow, p, ms & 1 && area[t0] == as ? pos[t0] : none,
                 ms & 2 && area[t1] == as ? pos[t1] : none,
                 ms & 4 && area[t2] == as ? pos[t2] : none,
                 ms & 8 && area[t3] == as ? pos[t3] : none);
    }
}

/* position_neighbours with narrow and nofar as constants, out of line: inlined into
 * watershed(), its loop had its pointers and loaded values spilled. */
static __attribute__((noinline)) void all_neighbours(const op_chf *chf, const uint32_t *pos,
                                                     uint32_t none, uint8_t *nb, int narrow)
{
    if (op_chf_has_far(chf)) {
        if (narrow)
            position_neighbours(chf, pos, none, nb, 1, 0);
        else
            position_neighbours(chf, pos, none, nb, 0, 0);
    } else if (narrow) {
        position_neighbours(chf, pos, none, nb, 1, 1);
    } else {
        position_neighbours(chf, pos, none, nb, 0, 1);
    }
}

/* §2.1 growth of the level [lo, hi): synchronous rounds; joins decided from the state
 * at the start of the round. Every span of the levels above has a region by now (each
 * level ends with all its spans assigned) and no span of this level or below has one,
 * so
 * - round 1 joins the level spans with a neighbour above (position < lo) to the
 *   smallest region among those, and reads nothing it writes: joins are written at
 *   once, and the spans left over are listed;
 * - round 2 is decided over that list (a leftover span has no neighbour above, so its
 *   regions are round 1's joins);
 * - from round 3 on, the candidates are the unassigned level spans next to a span that
 *   joined in the round before (its same-area mutual neighbours: enough, see
 *   position_neighbours; §9.2 reads "next to" as any mutual neighbour), kept in
 *   discovery order, which cannot change a synchronous round.
 * Regions: rp[q] for the levels above (q < lo), lvl[p - lo] for this level (round 1
 * writes every entry). A candidate of round 2 or later has no neighbour above (it would
 * have joined in round 1), so those rounds read this level's regions and 0 for every
 * other position. bufa, bufb and newreg hold one level. */
static inline __attribute__((always_inline)) void
grow_level(const uint8_t *nb, int narrow, const uint32_t *rp, uint32_t *lvl, uint32_t lo,
           uint32_t hi, uint32_t *bufa, uint32_t *bufb, uint32_t *newreg)
{
    const uint32_t len = hi - lo;
    uint32_t nc = 0;
    for (uint32_t p = lo; p < hi; p++) {
        /* Without branches per direction (every nb entry indexes rp[], none included):
         * a neighbour not above counts as UINT32_MAX. */
        uint32_t q[4];
        nb_load(nb, narrow, p, q);
        const uint32_t v0 = rp[q[0]], v1 = rp[q[1]], v2 = rp[q[2]], v3 = rp[q[3]];
        const uint32_t r0 = q[0] < lo ? v0 : UINT32_MAX, r1 = q[1] < lo ? v1 : UINT32_MAX;
        const uint32_t r2 = q[2] < lo ? v2 : UINT32_MAX, r3 = q[3] < lo ? v3 : UINT32_MAX;
        const uint32_t a = r0 < r1 ? r0 : r1, b = r2 < r3 ? r2 : r3;
        const uint32_t best = a < b ? a : b;
        if (best != UINT32_MAX) {
            lvl[p - lo] = best;
        } else {
            lvl[p - lo] = 0;
            bufa[nc++] = p;
        }
    }
    const uint32_t *cand = bufa; /* round 2: the leftovers */
    uint32_t *nextbuf = bufb, *otherbuf = bufa;
    for (int round = 2; nc; round++) {
        uint32_t joined = 0;
        for (uint32_t i = 0; i < nc; i++) {
            const uint32_t p = cand[i];
            uint32_t best = 0;
            if (lvl[p - lo] == 0) {
                uint32_t q[4];
                nb_load(nb, narrow, p, q);
                for (int d = 0; d < 4; d++) {
                    const uint32_t r = q[d] - lo < len ? lvl[q[d] - lo] : 0;
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
                lvl[cand[i] - lo] = newreg[i];
        uint32_t nn = 0;
        for (uint32_t i = 0; i < nc; i++) {
            if (!newreg[i])
                continue;
            uint32_t q[4];
            nb_load(nb, narrow, cand[i], q);
            for (int d = 0; d < 4; d++) {
                const uint32_t t = q[d];
                /* an unassigned span of this level (none is in no level), listed
                 * once: WS_LISTED marks it until the list is complete */
                if (t - lo < len && lvl[t - lo] == 0) {
                    lvl[t - lo] = WS_LISTED;
                    nextbuf[nn++] = t;
                }
            }
        }
        for (uint32_t i = 0; i < nn; i++)
            lvl[nextbuf[i] - lo] = 0;
        cand = nextbuf;
        nc = nn;
        uint32_t *sw = nextbuf;
        nextbuf = otherbuf;
        otherbuf = sw;
        (void)round;
    }
}

/* §2.2 basins of the level [lo, hi): each still-unassigned level span in span-index
 * order (= position order within the level) starts a new region and floods breadth
 * first through same-area, same-level spans. lvl[p - lo]: the level's regions. Returns
 * nonzero when the ids run out. */
static inline __attribute__((always_inline)) int
flood_basins(const uint8_t *nb, int narrow, uint32_t *lvl, uint32_t lo, uint32_t hi,
             uint32_t *queue, uint32_t *next_id)
{
    const uint32_t len = hi - lo;
    for (uint32_t p0 = lo; p0 < hi; p0++) {
        /* Growth leaves 4 % of the positions (demo 1936): eight assigned ones at a
         * time. */
        if (p0 + 8 <= hi) {
            uint32_t zero = 0;
            for (int j = 0; j < 8; j++)
                zero |= lvl[p0 - lo + (uint32_t)j] == 0;
            if (!zero) {
                p0 += 7;
                continue;
            }
        }
        if (lvl[p0 - lo] != 0)
            continue;
        if (*next_id == OP_MAX_REGION_ID)
            return 1;
        const uint32_t id = ++*next_id;
        uint32_t head = 0, tail = 0;
        lvl[p0 - lo] = id;
        queue[tail++] = p0;
        while (head < tail) {
            const uint32_t u = queue[head++];
            uint32_t q[4];
            nb_load(nb, narrow, u, q);
            for (int d = 0; d < 4; d++) {
                const uint32_t t = q[d];
                if (t - lo < len && lvl[t - lo] == 0) {
                    lvl[t - lo] = id;
                    queue[tail++] = t;
                }
            }
        }
    }
    return 0;
}

/* The neighbour entries, then every level in order: growth, then basins, in lvl (one
 * level), then the level's regions to rp[lo, hi). rp is the entries' own memory: 4 bytes
 * a position, so rp[0, hi) lies in the entries of positions below hi, which no later
 * level reads (a level reads only its own entries); rp[none] and rp[none + 1] are never
 * read as regions before the write-back (none is in no level). No array of m regions
 * beside the entries (docs/decisions/memory.md, round 5). Returns nonzero when the ids
 * run out. */
static inline __attribute__((always_inline)) int
grow_all(const op_chf *chf, const uint32_t *pos, uint32_t m, const uint32_t *level_end,
         uint8_t *nb, int narrow, uint32_t *lvl, uint32_t *bufa, uint32_t *bufb, uint32_t *newreg,
         uint32_t *next_id)
{
    uint32_t *rp = (uint32_t *)(void *)nb; /* arena memory: 64-byte aligned */
    all_neighbours(chf, pos, m, nb, narrow);
    for (uint32_t k = 0, lo = 0; lo < m; k++) {
        const uint32_t hi = level_end[k];
        if (hi == lo)
            continue; /* no span at this distance */
        grow_level(nb, narrow, rp, lvl, lo, hi, bufa, bufb, newreg);
        if (flood_basins(nb, narrow, lvl, lo, hi, bufa, next_id))
            return 1;
        memcpy(rp + lo, lvl, (size_t)(hi - lo) * sizeof *rp);
        lo = hi;
    }
    return 0;
}

static int grow_all_narrow(const op_chf *chf, const uint32_t *pos, uint32_t m,
                           const uint32_t *level_end, uint8_t *nb, uint32_t *lvl, uint32_t *bufa,
                           uint32_t *bufb, uint32_t *newreg, uint32_t *next_id)
{
    return grow_all(chf, pos, m, level_end, nb, 1, lvl, bufa, bufb, newreg, next_id);
}

static int grow_all_wide(const op_chf *chf, const uint32_t *pos, uint32_t m,
                         const uint32_t *level_end, uint8_t *nb, uint32_t *lvl, uint32_t *bufa,
                         uint32_t *bufb, uint32_t *newreg, uint32_t *next_id)
{
    return grow_all(chf, pos, m, level_end, nb, 0, lvl, bufa, bufb, newreg, next_id);
}

/* §2 into region[]. *entry_bytes: the bytes its neighbour entries took from the arena
 * (0: none), released with the rest of its scratch. rel (may be NULL) is called after
 * the last read of dist, before the entries are taken. */
static op_status watershed(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                           op_dist_release *rel, uint32_t *region, uint32_t *region_count,
                           size_t *entry_bytes)
{
    *entry_bytes = 0;
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "watershed");
    if (st != OP_OK)
        return st;
    if (!dist)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "watershed: NULL distance field");
    const uint32_t n = chf->span_count;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    const int band = chf->border_size > 0;
    if (band)
        op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    /* The set S of spans to partition: walkable, not band. Its size, the largest
     * distance and (while distances are small) their histogram in one pass. */
    uint32_t *hist = op_scratch(ctx, WS_HIST, sizeof *hist);
    if (!hist) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(hist, 0, WS_HIST * sizeof *hist);
    if (band)
        count_set(area, region, 1, dist, n, hist);
    else
        count_set(area, region, 0, dist, n, hist);
    for (uint32_t d = 0; d < WS_HIST_COPY; d++) /* the copies summed into the first */
        hist[d] += hist[WS_HIST_COPY + d] + hist[2 * WS_HIST_COPY + d] + hist[3 * WS_HIST_COPY + d];
    const uint32_t m = n - hist[WS_HIST_COPY - 1];
    const int hist_ok = hist[WS_HIST_COPY - 2] == 0;
    uint32_t maxd = 0;
    if (hist_ok) {
        for (uint32_t d = WS_HIST_COPY - 2; d-- > 0;)
            if (hist[d]) {
                maxd = d;
                break;
            }
    } else { /* a distance of WS_HIST_COPY - 2 or more: the largest from the spans */
        for (uint32_t s = 0; s < n; s++)
            if (in_set(area, region, band, s))
                maxd = dist[s] > maxd ? dist[s] : maxd;
    }
    if (m == 0) {
        if (!band)
            memset(region, 0, (size_t)n * sizeof *region);
        op_arena_release(&ctx->arena, mark);
        return OP_OK;
    }
    const uint32_t none = m; /* the position of every span outside S (+1: band) */

    /* pos[s]: s's position, or outside(); in region[] until the end. */
    uint32_t *pos = region;
    const int counting = maxd < WS_MAX_BUCKETS;
    const uint32_t nbuckets = counting ? maxd + 2 : 65536;
    uint32_t *cnt = op_scratch(ctx, nbuckets, sizeof *cnt);
    /* level_end[k]: the end of the k-th level in position order (levels by distance
     * descending); an empty level has the previous end. */
    uint32_t *order = counting ? NULL : op_scratch(ctx, m, sizeof *order);
    uint32_t *tmp = counting ? NULL : op_scratch(ctx, m, sizeof *tmp);
    uint32_t *level_end = counting ? cnt : op_scratch(ctx, m, sizeof *level_end);
    if (!cnt || (!counting && (!order || !tmp)) || !level_end) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    order_by_distance(area, region, band, dist, n, m, maxd, hist_ok ? hist : NULL, pos,
                      cnt, order, tmp, level_end);
    /* The last read of dist: a caller that does not keep it frees it here, so the
     * entries below (the bake's largest array) are not taken beside it
     * (docs/decisions/memory.md, round 7). */
    op_dist_release_now(rel);
    dist = NULL; /* a later read faults instead of reading freed memory */
    const int narrow = m < op_watershed_narrow_limit;
    /* 4 neighbours per position. position_neighbours writes every entry, scattered over
     * one stream per level: a fresh block's pages are mapped by one call instead of a
     * page fault each, ~3/4 of a bake's faults (docs/decisions/bake-speed.md, round 8). */
    uint8_t *nb = op_scratch_prefaulted(ctx, (size_t)m, nb_stride(narrow));
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
    uint32_t *lvl = op_scratch(ctx, maxlevel, sizeof *lvl); /* the level's regions */
    if (!nb || !bufa || !bufb || !newreg || !lvl) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }

    if (narrow ? grow_all_narrow(chf, pos, m, level_end, nb, lvl, bufa, bufb, newreg, &next_id)
               : grow_all_wide(chf, pos, m, level_end, nb, lvl, bufa, bufb, newreg, &next_id)) {
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_UNSUPPORTED, "watershed: more than %u regions", OP_MAX_REGION_ID);
    }
    /* Back to span order, in place (outside S: 0, or the band's id), from the regions
     * per position in the entries' memory (4 (m + 2) bytes of its 12 m or 16 m). */
    uint32_t *rp = (uint32_t *)(void *)nb;
    rp[none] = 0;
    rp[none + 1] = OP_BORDER_REGION;
    for (uint32_t s = 0; s < n; s++) {
        if (s + WS_AHEAD < n)
            __builtin_prefetch(rp + pos[s + WS_AHEAD]);
        region[s] = rp[pos[s]];
    }
    *region_count = next_id;
    *entry_bytes = (size_t)m * nb_stride(narrow);
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

op_status op_build_regions_watershed_raw(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                         uint32_t *region, uint32_t *region_count)
{
    size_t entry_bytes;
    return watershed(ctx, chf, dist, NULL, region, region_count, &entry_bytes);
}

op_status op_build_regions_watershed(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                     const op_region_settings *s, uint32_t *region,
                                     uint32_t *region_count)
{
    return op_build_regions_watershed_rel(ctx, chf, dist, s, NULL, region, region_count);
}

op_status op_build_regions_watershed_rel(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                         const op_region_settings *s, op_dist_release *rel,
                                         uint32_t *region, uint32_t *region_count)
{
    op_status st = op_region_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    size_t entry_bytes;
    if ((st = watershed(ctx, chf, dist, rel, region, region_count, &entry_bytes)) != OP_OK)
        return st;
    /* The filter's link list starts where the neighbour entries were: the arena keeps
     * their block, and a list grown by realloc beside it added to the bake's peak
     * (docs/decisions/memory.md, round 5). The same request is served by that block (any
     * other answer only costs memory); the filter's own scratch follows it. */
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    void *lent = entry_bytes ? op_arena_alloc(&ctx->arena, entry_bytes) : NULL;
    st = op_regions_filter_lent(ctx, chf, s->min_region_area, s->merge_region_area, 1, region,
                                region_count, lent, lent ? entry_bytes : 0);
    op_arena_release(&ctx->arena, mark);
    return st;
}
