/* Exact distance field, SIMD twin of src/scalar/distance_field.c (supplement §1.6,
 * regions-contours §1). A different algorithm with the same bytes: the shortest-path
 * distances are the unique fixpoint of the relaxation
 *   dist[s] = min(dist[s], dist[n] + 2 (mutual neighbour n), dist[c] + 3 (diagonal c))
 * started from 0 on boundary spans and "unreached" (UINT32_MAX) elsewhere, and any
 * order of relaxations reaches it (Bellman-Ford). So:
 *   1. seeding (vector): boundary spans get 0, others UINT32_MAX; per span a byte dm
 *      of the diagonal ways that exist (bit 2d: d then d+1, bit 2d+1: d+1 then d, set
 *      only when it reaches a different span than way 2d);
 *   2. forward and backward sweeps in span order, relaxing VW spans at once from
 *      gathered neighbour distances (plain loads where the neighbours are contiguous),
 *      plus an in-register prefix scan along the -x (+x) chain inside the vector, so a
 *      single-floor row propagates across the whole vector in one sweep;
 *   3. stop after the first sweep that changes nothing: every relaxation then holds,
 *      which is the fixpoint, equal to the scalar twin's Dial result byte for byte.
 *      A block whose inputs did not change since it was last relaxed is skipped
 *      (block_needed), which makes the last, confirming sweep cheap.
 * Unreached spans keep UINT32_MAX, as in the scalar twin (saturating additions). */
#include "simd/simd_width.h"

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch);

#define INF UINT32_MAX

static inline uint32_t sat_add(uint32_t x, uint32_t c) { return x > INF - c ? INF : x + c; }

/* The diagonal-way byte of one span (scalar form of the vector seeding). */
static uint8_t diag_ways(const op_chf *chf, uint32_t s)
{
    const uint8_t mu = chf->mutual[s];
    uint8_t dm = 0;
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3;
        uint32_t c0 = OP_NO_LINK, c1 = OP_NO_LINK;
        if (mu >> d & 1) {
            const uint32_t a = chf->link[d][s];
            if (chf->mutual[a] >> d1 & 1)
                c0 = chf->link[d1][a];
        }
        if (mu >> d1 & 1) {
            const uint32_t a = chf->link[d1][s];
            if (chf->mutual[a] >> d & 1)
                c1 = chf->link[d][a];
        }
        if (c0 != OP_NO_LINK)
            dm |= (uint8_t)(1u << (2 * d));
        if (c1 != OP_NO_LINK && c1 != c0)
            dm |= (uint8_t)(1u << (2 * d + 1));
    }
    return dm;
}

static void seed_one(const op_chf *chf, const uint8_t *area, uint32_t *dist, uint8_t *dm,
                     uint32_t s)
{
    int boundary = area[s] == 0 || chf->mutual[s] != 0xf;
    for (int d = 0; d < 4 && !boundary; d++)
        boundary = area[chf->link[d][s]] == 0;
    dist[s] = boundary ? 0 : INF;
    dm[s] = diag_ways(chf, s);
}

/* One relaxation of span s (the scalar tail of both sweeps); returns 1 on change. */
static int relax_one(const op_chf *chf, uint32_t *dist, const uint8_t *dm, uint32_t s)
{
    const uint8_t mu = chf->mutual[s], w = dm[s];
    uint32_t best = dist[s];
    for (int d = 0; d < 4; d++) {
        if (mu >> d & 1) {
            const uint32_t c = sat_add(dist[chf->link[d][s]], 2);
            best = c < best ? c : best;
        }
    }
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3;
        if (w >> (2 * d) & 1) {
            const uint32_t c = sat_add(dist[chf->link[d1][chf->link[d][s]]], 3);
            best = c < best ? c : best;
        }
        if (w >> (2 * d + 1) & 1) {
            const uint32_t c = sat_add(dist[chf->link[d][chf->link[d1][s]]], 3);
            best = c < best ? c : best;
        }
    }
    if (best == dist[s])
        return 0;
    dist[s] = best;
    return 1;
}

/* Per vector block, the first span of each neighbour set when the whole set is a
 * contiguous run of existing neighbours (then the sweep loads instead of gathering):
 * [d] = orthogonal neighbours in d, [4 + d] = diagonal way "d then d+1"; OP_NO_LINK
 * when not contiguous. Single-floor rows without gaps have all eight. [8] = irregular:
 * some set is not such a run or a lane has a second diagonal way, so the block's
 * neighbour blocks are not known from [0..7] (see block_needed). */
#define BLOCK_INFO 9

static void seed_block(const op_chf *chf, const uint8_t *area, uint32_t *dist, uint8_t *dm,
                       uint32_t *info, uint32_t s, uint32_t n)
{
    const vu32 zero = v_set1(0), ones = v_set1(~0u);
    const vu32 mu = v_load_u8(chf->mutual + s);
    vu32 lk[4], linked[4];
    for (int d = 0; d < 4; d++) {
        linked[d] = v_test(mu, 1u << d);
        lk[d] = v_load(chf->link[d] + s);
        const uint32_t first = v_lane0(lk[d]);
        info[d] = v_nz(linked[d]) == V_ALL && v_contiguous(lk[d], first, n) ? first
                                                                            : OP_NO_LINK;
    }
    vu32 boundary = v_or(v_eq(v_load_u8(area + s), zero), v_andnot(v_eq(mu, v_set1(0xf)), ones));
    vu32 mn[4];
    for (int d = 0; d < 4; d++) {
        boundary = v_or(boundary,
                        v_and(linked[d], v_eq(v_gather_u8(area, lk[d], linked[d], n), zero)));
        mn[d] = v_gather_u8(chf->mutual, lk[d], linked[d], n);
    }
    v_store(dist + s, v_andnot(boundary, v_set1(INF)));
    vu32 w = zero;
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3;
        const vu32 w0 = v_and(linked[d], v_test(mn[d], 1u << d1));
        const vu32 w1 = v_and(linked[d1], v_test(mn[d1], 1u << d));
        const vu32 c0 = v_gather(chf->link[d1], lk[d], w0, n);
        const vu32 c1 = v_gather(chf->link[d], lk[d1], w1, n);
        const vu32 w1u = v_andnot(v_and(w0, v_eq(c0, c1)), w1);
        w = v_or(w, v_or(v_and(w0, v_set1(1u << (2 * d))), v_and(w1u, v_set1(2u << (2 * d)))));
        const uint32_t first = v_lane0(c0);
        info[4 + d] = v_nz(w0) == V_ALL && v_contiguous(c0, first, n) ? first : OP_NO_LINK;
    }
    v_store_u8(dm + s, w);
    uint32_t irregular = v_nz(v_and(w, v_set1(0xaa))) != 0;
    for (int k = 0; k < 8; k++)
        irregular |= info[k] == OP_NO_LINK;
    info[8] = irregular;
}

/* Whether block b (info) can change in this sweep: only if it or a block holding one of
 * its neighbours changed at or after the sweep in which b was last relaxed (changed_at
 * is per block, the scalar tail is block nb). Otherwise b's relaxation already holds:
 * its inputs are the same. Irregular blocks are always relaxed. */
static inline int block_needed(const uint32_t *info, const uint32_t *changed_at, uint32_t since,
                               uint32_t b)
{
    if (info[8] || changed_at[b] >= since)
        return 1;
    for (int k = 0; k < 8; k++)
        if (changed_at[info[k] / VW] >= since || changed_at[(info[k] + VW - 1) / VW] >= since)
            return 1;
    return 0;
}

typedef struct scan_perms {
    vu32 up[8], down[8]; /* lane i <- lane max(i-k,0) / min(i+k,VW-1), k = 1,2,4,.. */
    vu32 not_first, not_last;
    int steps;
} scan_perms;

static void scan_perms_init(scan_perms *p)
{
    uint32_t a[VW], b[VW];
    p->steps = 0;
    for (uint32_t k = 1; k < VW; k <<= 1) {
        for (uint32_t i = 0; i < VW; i++) {
            a[i] = i >= k ? i - k : 0;
            b[i] = i + k < VW ? i + k : VW - 1;
        }
        p->up[p->steps] = v_load(a);
        p->down[p->steps] = v_load(b);
        p->steps++;
    }
    for (uint32_t i = 0; i < VW; i++) {
        a[i] = i == 0 ? 0 : ~0u;
        b[i] = i == VW - 1 ? 0 : ~0u;
    }
    p->not_first = v_load(a);
    p->not_last = v_load(b);
}

/* Candidate distances g + c on the lanes of valid, "unreached" elsewhere. */
static inline vu32 cand(vu32 g, vu32 valid, uint32_t c)
{
    return v_sat_add(v_select(valid, v_set1(INF), g), c);
}

/* Relaxes the VW spans at s; returns nonzero when a distance changed. */
static uint32_t relax_block(const op_chf *chf, uint32_t *dist, const uint8_t *dm,
                            const uint32_t *info, uint32_t s, uint32_t n, const scan_perms *p,
                            int forward)
{
    const vu32 cur = v_load(dist + s);
    if (!v_nz(cur))
        return 0; /* all boundary (0): nothing can lower them */
    const vu32 ones = v_set1(~0u);
    const vu32 self = v_add(v_set1(s), v_iota());
    const vu32 mu = v_load_u8(chf->mutual + s);
    vu32 best = cur, lk[4], linked[4];
    /* Orthogonal neighbours: one load for a contiguous run (info), else runs/gather. */
    for (int d = 0; d < 4; d++) {
        if (info[d] != OP_NO_LINK) {
            lk[d] = v_add(v_set1(info[d]), v_iota());
            linked[d] = ones;
            best = v_min(best, v_sat_add(v_load(dist + info[d]), 2));
        } else {
            lk[d] = v_load(chf->link[d] + s);
            linked[d] = v_test(mu, 1u << d);
            best = v_min(best, cand(v_gather(dist, lk[d], linked[d], n), linked[d], 2));
        }
    }
    const vu32 w = v_load_u8(dm + s);
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3;
        const uint32_t b0 = 1u << (2 * d), b1 = 2u << (2 * d);
        if (info[4 + d] != OP_NO_LINK) {
            best = v_min(best, v_sat_add(v_load(dist + info[4 + d]), 3));
        } else if (v_nz(v_and(w, v_set1(b0)))) {
            const vu32 way = v_test(w, b0);
            const vu32 c = v_gather(chf->link[d1], lk[d], way, n);
            best = v_min(best, cand(v_gather(dist, c, way, n), way, 3));
        }
        /* The other way round, where it reaches a different span (multi-floor). */
        if (v_nz(v_and(w, v_set1(b1)))) {
            const vu32 way = v_test(w, b1);
            const vu32 c = v_gather(chf->link[d], lk[d1], way, n);
            best = v_min(best, cand(v_gather(dist, c, way, n), way, 3));
        }
    }
    /* Prefix scan along the x chain inside the vector (Hillis-Steele, min-plus):
     * lane i takes lane i-k + 2k when all links between them are mutual -x links to
     * the previous span (forward) or +x links to the next span (backward). */
    vu32 conn;
    if (forward)
        conn = info[0] == s - 1
                   ? p->not_first
                   : v_and(p->not_first, v_and(linked[0], v_eq(lk[0], v_add(self, ones))));
    else
        conn = info[2] == s + 1
                   ? p->not_last
                   : v_and(p->not_last, v_and(linked[2], v_eq(lk[2], v_add(self, v_set1(1)))));
    if (v_nz(conn)) {
        for (int i = 0; i < p->steps; i++) {
            const vu32 perm = forward ? p->up[i] : p->down[i];
            const vu32 cand = v_sat_add(v_perm(best, perm), 2u << i);
            best = v_select(conn, best, v_min(best, cand));
            conn = v_and(conn, v_perm(conn, perm));
        }
    }
    v_store(dist + s, best);
    return v_nz(v_andnot(v_eq(best, cur), v_set1(~0u)));
}

/* Whether sweeps pay off: on a sample of blocks (one in 8), at least half of the
 * orthogonal neighbour sets are one contiguous run of the linked lanes (single-floor
 * rows: loads instead of lane-by-lane gathers). Multi-floor fields need lane-by-lane
 * gathers and more sweeps; there the scalar twin's Dial is faster and is used. */
static int mostly_regular(const op_chf *chf, uint32_t full, uint32_t n)
{
    uint32_t regular = 0, total = 0;
    for (uint32_t s = 0; s < full; s += 8 * VW) {
        const vu32 mu = v_load_u8(chf->mutual + s);
        for (int d = 0; d < 4; d++) {
            uint32_t b0, b1;
            vu32 m0;
            regular += v_runs(v_load(chf->link[d] + s), v_test(mu, 1u << d), n, &b0, &b1, &m0) == 1;
            total++;
        }
    }
    return total > 0 && regular * 2 >= total;
}

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch)
{
    const uint32_t n = chf->span_count;
    if (n == 0)
        return 0;
    const uint32_t full = n - n % VW; /* spans [0, full) in vector blocks, the rest scalar */
    if (n > OP_SIMD_MAX_SPANS || (!op_simd_force_sweeps && !mostly_regular(chf, full, n)))
        return op_distance_field_scalar(chf, area, dist, scratch);
    op_arena_mark mark = op_arena_get_mark(scratch);
    uint8_t *dm = op_arena_alloc(scratch, n);
    const uint32_t nb = full / VW; /* blocks; index nb stands for the scalar tail */
    uint32_t *info = op_arena_alloc(scratch, ((size_t)nb + 1) * BLOCK_INFO * 4);
    uint32_t *changed_at = op_arena_alloc(scratch, ((size_t)nb + 1) * 4);
    uint32_t *relaxed_at = op_arena_alloc(scratch, ((size_t)nb + 1) * 4);
    if (!dm || !info || !changed_at || !relaxed_at) {
        op_arena_release(scratch, mark);
        return 1;
    }
    memset(changed_at, 0, ((size_t)nb + 1) * 4);
    memset(relaxed_at, 0, ((size_t)nb + 1) * 4);
    for (uint32_t s = 0; s < full; s += VW)
        seed_block(chf, area, dist, dm, info + (size_t)(s / VW) * BLOCK_INFO, s, n);
    for (uint32_t s = full; s < n; s++)
        seed_one(chf, area, dist, dm, s);
    scan_perms p;
    scan_perms_init(&p);
    /* Sweep k = 1, 2, ...: changed_at[b] = last sweep that lowered a distance in block b
     * (0 = seeding), relaxed_at[b] = last sweep that relaxed b. */
    for (uint32_t k = 1, forward = 1;; k++, forward = !forward) {
        uint32_t changed = 0;
        if (forward) {
            for (uint32_t b = 0; b < nb; b++) {
                const uint32_t *bi = info + (size_t)b * BLOCK_INFO;
                if (!block_needed(bi, changed_at, relaxed_at[b], b))
                    continue;
                relaxed_at[b] = k;
                if (relax_block(chf, dist, dm, bi, b * VW, n, &p, 1)) {
                    changed_at[b] = k;
                    changed = 1;
                }
            }
            for (uint32_t s = full; s < n; s++)
                if (relax_one(chf, dist, dm, s))
                    changed_at[nb] = k, changed = 1;
        } else {
            for (uint32_t s = n; s-- > full;)
                if (relax_one(chf, dist, dm, s))
                    changed_at[nb] = k, changed = 1;
            for (uint32_t b = nb; b-- > 0;) {
                const uint32_t *bi = info + (size_t)b * BLOCK_INFO;
                if (!block_needed(bi, changed_at, relaxed_at[b], b))
                    continue;
                relaxed_at[b] = k;
                if (relax_block(chf, dist, dm, bi, b * VW, n, &p, 0)) {
                    changed_at[b] = k;
                    changed = 1;
                }
            }
        }
        if (!changed)
            break;
    }
    op_arena_release(scratch, mark);
    return 0;
}
