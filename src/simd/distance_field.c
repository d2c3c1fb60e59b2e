/* Exact distance field, SIMD twin of src/scalar/distance_field.c (supplement §1.6,
 * regions-contours §1). A different algorithm with the same bytes.
 *
 * The shortest-path distances are the unique fixpoint of the relaxation
 *   dist[s] = min(dist[s], dist[n] + 2 (mutual neighbour n), dist[c] + 3 (diagonal c))
 * started from 0 on boundary spans and "unreached" (UINT32_MAX) elsewhere; any order
 * of relaxations reaches it (Bellman-Ford), so sweeps in span order (the chamfer
 * forward / backward passes, generalised to the span graph) until nothing changes give
 * exactly the scalar twin's Dial result. On the demo world two sweeps already give the
 * final values; a third confirms them, and only where something changed.
 *
 * 1. Seeding: boundary spans (area 0, fewer than four mutual links, or a mutual link to
 *    an area-0 span) get 0, the others UINT32_MAX. From then on "dist != 0" is exactly
 *    "not a boundary span": boundary spans stay 0, the others are at least 2.
 * 2. Blocks of VW spans are classified once. A lane is *regular* when it is not a
 *    boundary span and its links sit where a single-floor grid puts them: -x at s-1, +x
 *    at s+1, -z at s+offN, +z at s+offS with offN / offS common to the block, and every
 *    diagonal way through a non-boundary intermediate span reaches the predicted span
 *    (s-1+offS, ...). Then all eight candidates of the regular lanes are plain unaligned
 *    loads (no gathers, no link reads during the sweeps). A diagonal way through a
 *    boundary intermediate is not checked: such a lane has an orthogonal neighbour at 0,
 *    so its distance is 2, and an extra candidate (any value + 3) cannot undercut it.
 *    Other non-boundary lanes are *irregular* and relaxed one by one with the links.
 * 3. Sweeps alternate forward (span order, an in-register min-plus prefix scan along the
 *    -x chain) and backward (+x chain). A block is relaxed only when marked dirty: all
 *    blocks with a non-boundary lane at the start, then the blocks holding the spans
 *    that read a span whose distance just dropped (its orthogonal neighbours and
 *    diagonal targets: the relation is symmetric over mutual links). When no block is
 *    dirty every relaxation holds, which is the fixpoint.
 * Unreached spans keep UINT32_MAX, as in the scalar twin (saturating additions). */
#include "simd/simd_width.h"

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch);

#define INF UINT32_MAX

static inline uint32_t sat_add(uint32_t x, uint32_t c) { return x > INF - c ? INF : x + c; }

static int is_boundary(const op_chf *chf, const uint8_t *area, uint32_t s)
{
    if (area[s] == 0 || chf->mutual[s] != 0xf)
        return 1;
    for (int d = 0; d < 4; d++)
        if (area[chf->link[d][s]] == 0)
            return 1;
    return 0;
}

/* Seeding of VW spans at s. */
static void seed_block(const op_chf *chf, const uint8_t *area, uint32_t *dist, uint32_t s,
                       uint32_t n)
{
    const vu32 zero = v_set1(0);
    const vu32 full = v_eq(v_load_u8(chf->mutual + s), v_set1(0xf));
    vu32 boundary = v_or(v_eq(v_load_u8(area + s), zero), v_andnot(full, v_set1(~0u)));
    for (int d = 0; d < 4 && v_nz(boundary) != V_ALL; d++) {
        const vu32 a = v_gather_u8(area, v_load(chf->link[d] + s), full, n);
        boundary = v_or(boundary, v_and(full, v_eq(a, zero)));
    }
    v_store(dist + s, v_andnot(boundary, v_set1(INF)));
}

/* Per block: the span offsets of the -z and +z rows and the lane masks. */
typedef struct block_info {
    uint32_t north, south; /* first span of the -z / +z neighbours of lane 0 */
    uint32_t reg, irr;     /* regular / irregular non-boundary lanes */
    uint32_t ibase;        /* candidate row of the first irregular lane */
} block_info;

static void classify_block(const op_chf *chf, const uint32_t *dist, uint32_t s, uint32_t n,
                           block_info *bi)
{
    const vu32 cur = v_load(dist + s);
    const uint32_t nonb = v_nz(cur);
    bi->reg = 0;
    bi->irr = nonb;
    bi->north = bi->south = 0;
    if (!nonb)
        return;
    const uint32_t i0 = (uint32_t)__builtin_ctz(nonb), s0 = s + i0;
    const int64_t north = (int64_t)chf->link[3][s0] - i0, south = (int64_t)chf->link[1][s0] - i0;
    /* Every load of the regular relaxation must stay inside [0, n). */
    if (s < 1 || (uint64_t)s + VW + 1 > n || north < 1 || north + VW + 1 > (int64_t)n ||
        south < 1 || south + VW + 1 > (int64_t)n)
        return;
    const uint32_t N = (uint32_t)north, S = (uint32_t)south;
    const vu32 one = v_set1(1), zero = v_set1(0), ones = v_set1(~0u);
    const vu32 self = v_add(v_set1(s), v_iota());
    const vu32 sn = v_add(v_set1(N), v_iota()), ss = v_add(v_set1(S), v_iota());
    vu32 ok = v_and(v_eq(v_load(chf->link[0] + s), v_sub(self, one)),
                    v_eq(v_load(chf->link[2] + s), v_add(self, one)));
    ok = v_and(ok, v_and(v_eq(v_load(chf->link[3] + s), sn), v_eq(v_load(chf->link[1] + s), ss)));
    /* Diagonal ways through the x neighbours (then -z / +z) ... */
    for (int k = -1; k <= 1; k += 2) {
        const uint32_t a = s + (uint32_t)k;
        const vu32 kk = v_set1((uint32_t)k);
        const vu32 nb = v_andnot(v_eq(v_load(dist + a), zero), ones);
        const vu32 hit = v_and(v_eq(v_load(chf->link[3] + a), v_add(sn, kk)),
                               v_eq(v_load(chf->link[1] + a), v_add(ss, kk)));
        ok = v_and(ok, v_or(v_andnot(nb, ones), hit));
    }
    /* ... and through the z neighbours (then -x / +x). */
    for (int k = 0; k < 2; k++) {
        const uint32_t b = k ? S : N;
        const vu32 sb = k ? ss : sn;
        const vu32 nb = v_andnot(v_eq(v_load(dist + b), zero), ones);
        const vu32 hit = v_and(v_eq(v_load(chf->link[0] + b), v_sub(sb, one)),
                               v_eq(v_load(chf->link[2] + b), v_add(sb, one)));
        ok = v_and(ok, v_or(v_andnot(nb, ones), hit));
    }
    bi->reg = v_nz(ok) & nonb;
    bi->irr = nonb & ~bi->reg;
    bi->north = N;
    bi->south = S;
}

typedef struct scan_perms {
    vu32 up[8], down[8]; /* lane i <- lane max(i-k,0) / min(i+k,VW-1), k = 1,2,4,.. */
    vu32 not_first, not_last;
    vu32 bits; /* lane i holds 1 << i */
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
    for (uint32_t i = 0; i < VW; i++)
        a[i] = 1u << i;
    p->bits = v_load(a);
}

typedef struct dirty_set {
    uint8_t *flag; /* per block (index nb: the scalar tail) */
    size_t pending;
} dirty_set;

static inline void mark(dirty_set *ds, uint32_t b)
{
    if (!ds->flag[b]) {
        ds->flag[b] = 1;
        ds->pending++;
    }
}

/* Lanes where a < b (unsigned). */
static inline vu32 v_less(vu32 a, vu32 b) { return v_andnot(v_eq(v_min(a, b), b), v_set1(~0u)); }

/* Marks the blocks of a -z or +z row (first span r) when a lane there would drop: lane
 * i of the row reads lane i of the block (step 2) and lanes i-1, i+1 (step 3); the spans
 * just outside, r-1 and r+VW, read the first / last lane diagonally. */
static void mark_row(dirty_set *ds, const uint32_t *dist, uint32_t r, vu32 orth, vu32 diag,
                     uint32_t first3, uint32_t last3)
{
    if (v_nz(v_less(v_min(orth, diag), v_load(dist + r))) || first3 < dist[r - 1] ||
        last3 < dist[r + VW])
        for (uint32_t x = (r - 1) / VW; x <= (r + VW) / VW; x++)
            mark(ds, x);
}

/* Relaxes the regular lanes of block b from plain loads (the other lanes keep their
 * value), then marks the blocks whose spans the lowered distances would lower. */
static void relax_regular(uint32_t *dist, dirty_set *ds, const block_info *bi, uint32_t b,
                          const scan_perms *p, int forward)
{
    const uint32_t s = b * VW;
    const vu32 cur = v_load(dist + s), ones = v_set1(~0u), inf = v_set1(INF);
    const uint32_t N = bi->north, S = bi->south;
    const vu32 orth = v_min(v_min(v_load(dist + s - 1), v_load(dist + s + 1)),
                            v_min(v_load(dist + N), v_load(dist + S)));
    const vu32 diag = v_min(v_min(v_load(dist + N - 1), v_load(dist + N + 1)),
                            v_min(v_load(dist + S - 1), v_load(dist + S + 1)));
    vu32 best = v_min(cur, v_min(v_sat_add(orth, 2), v_sat_add(diag, 3)));
    /* Lane i is regular when bit i of reg is set. */
    const vu32 reg = v_eq(v_and(v_set1(bi->reg), p->bits), p->bits);
    best = v_select(reg, cur, best);
    /* Prefix scan along the x chain inside the vector (Hillis-Steele, min-plus): a
     * regular lane's -x (+x) neighbour is the previous (next) lane. */
    vu32 conn = v_and(reg, forward ? p->not_first : p->not_last);
    for (int i = 0; i < p->steps && v_nz(conn); i++) {
        const vu32 perm = forward ? p->up[i] : p->down[i];
        const vu32 c = v_sat_add(v_perm(best, perm), 2u << i);
        best = v_select(conn, best, v_min(best, c));
        conn = v_and(conn, v_perm(conn, perm));
    }
    const vu32 changed = v_andnot(v_eq(best, cur), ones);
    if (!v_nz(changed))
        return;
    v_store(dist + s, best);
    /* Readers of the changed lanes (their orthogonal neighbours and diagonal targets, at
     * the predicted places); only those that would drop are marked. */
    const vu32 nv = v_select(changed, inf, best);
    const vu32 prev = v_select(p->not_first, inf, v_perm(nv, p->up[0]));
    const vu32 next = v_select(p->not_last, inf, v_perm(nv, p->down[0]));
    const vu32 o2 = v_sat_add(nv, 2), d3 = v_sat_add(v_min(prev, next), 3);
    const uint32_t first3 = sat_add(v_lane0(nv), 3), last3 = sat_add(v_lane_last(nv), 3);
    mark_row(ds, dist, N, o2, d3, first3, last3);
    mark_row(ds, dist, S, o2, d3, first3, last3);
    if (sat_add(v_lane0(nv), 2) < dist[s - 1])
        mark(ds, b - 1);
    if (sat_add(v_lane_last(nv), 2) < dist[s + VW])
        mark(ds, b + 1);
    /* Inside the block the scan ran one way; a lane whose other x neighbour dropped is
     * relaxed again in a later sweep. */
    const vu32 other = forward ? v_select(p->not_last, inf, v_perm(best, p->down[0]))
                               : v_select(p->not_first, inf, v_perm(best, p->up[0]));
    if (v_nz(v_and(reg, v_less(v_sat_add(other, 2), best))))
        mark(ds, b);
}

/* Candidates of an irregular span, gathered once from its links: the mutual
 * neighbours (step 2) and the diagonal targets (step 3, both ways round, which reach
 * different spans only on multi-floor ground). Unused slots hold the span itself, whose
 * own distance plus a step never lowers it. */
#define ORTH 4
#define DIAG 8
#define CANDS (ORTH + DIAG)

static void gather_candidates(const op_chf *chf, uint32_t s, uint32_t *c)
{
    const uint8_t *mutual = chf->mutual;
    const uint8_t ms = mutual[s];
    for (int k = 0; k < CANDS; k++)
        c[k] = s;
    for (int d = 0; d < 4; d++) {
        if (!(ms >> d & 1))
            continue;
        const uint32_t a = chf->link[d][s];
        c[d] = a;
        const int d1 = (d + 1) & 3, d3 = (d + 3) & 3;
        if (mutual[a] >> d1 & 1)
            c[ORTH + 2 * d] = chf->link[d1][a];
        if (mutual[a] >> d3 & 1)
            c[ORTH + 2 * d + 1] = chf->link[d3][a];
    }
}

/* Relaxes span s from its candidate row c; when it drops, marks the blocks of the spans
 * that read it, which are its candidates again (the relation is symmetric). */
static void relax_irregular(uint32_t *dist, dirty_set *ds, uint32_t s, const uint32_t *c)
{
    uint32_t o = dist[c[0]], g = dist[c[ORTH]];
    for (int k = 1; k < ORTH; k++)
        o = dist[c[k]] < o ? dist[c[k]] : o;
    for (int k = ORTH + 1; k < CANDS; k++)
        g = dist[c[k]] < g ? dist[c[k]] : g;
    const uint32_t o2 = sat_add(o, 2), g3 = sat_add(g, 3);
    uint32_t best = o2 < g3 ? o2 : g3;
    if (best >= dist[s])
        return;
    dist[s] = best;
    const uint32_t b2 = sat_add(best, 2), b3 = sat_add(best, 3);
    for (int k = 0; k < CANDS; k++)
        if ((k < ORTH ? b2 : b3) < dist[c[k]])
            mark(ds, c[k] / VW);
}

static void relax_block(uint32_t *dist, dirty_set *ds, const block_info *bi, const uint32_t *cand,
                        uint32_t b, const scan_perms *p, int forward)
{
    const uint32_t s = b * VW;
    if (bi->reg)
        relax_regular(dist, ds, bi, b, p, forward);
    uint32_t lanes = bi->irr;
    if (!lanes)
        return;
    const uint32_t *c = cand + (size_t)bi->ibase * CANDS;
    if (forward) {
        for (uint32_t r = 0; lanes; r++) {
            const int i = __builtin_ctz(lanes);
            lanes &= lanes - 1;
            relax_irregular(dist, ds, s + (uint32_t)i, c + (size_t)r * CANDS);
        }
    } else {
        for (uint32_t r = (uint32_t)__builtin_popcount(lanes); lanes;) {
            const int i = 31 - __builtin_clz(lanes);
            lanes &= ~(1u << i);
            r--;
            relax_irregular(dist, ds, s + (uint32_t)i, c + (size_t)r * CANDS);
        }
    }
}

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch)
{
    const uint32_t n = chf->span_count;
    if (n == 0)
        return 0;
    if (n > OP_SIMD_MAX_SPANS - 2 * VW)
        return op_distance_field_scalar(chf, area, dist, scratch);
    const uint32_t full = n - n % VW; /* spans [0, full) in vector blocks, the rest scalar */
    const uint32_t nb = full / VW;    /* blocks; index nb stands for the scalar tail */
    op_arena_mark am = op_arena_get_mark(scratch);
    block_info *info = op_arena_alloc(scratch, ((size_t)nb + 1) * sizeof(block_info));
    /* (the tail is shorter than VW <= 16 lanes, so its lane mask fits in irr) */
    /* Every mark lands in [0, nb]: a regular block has s >= 1 and all its loads in
     * [0, n) (classify_block), and span readers are spans. */
    uint8_t *flags = op_arena_alloc(scratch, (size_t)nb + 1);
    if (!info || !flags) {
        op_arena_release(scratch, am);
        return 1;
    }
    for (uint32_t s = 0; s < full; s += VW)
        seed_block(chf, area, dist, s, n);
    for (uint32_t s = full; s < n; s++)
        dist[s] = is_boundary(chf, area, s) ? 0 : INF;
    dirty_set ds = {flags, 0};
    memset(flags, 0, (size_t)nb + 1);
    uint64_t irregular = 0;
    for (uint32_t b = 0; b < nb; b++) {
        classify_block(chf, dist, b * VW, n, &info[b]);
        info[b].ibase = (uint32_t)irregular;
        irregular += (uint32_t)__builtin_popcount(info[b].irr);
        if (info[b].reg | info[b].irr)
            mark(&ds, b);
    }
    /* The tail [full, n) is block nb, all irregular. */
    uint32_t tail = 0;
    for (uint32_t s = full; s < n; s++)
        tail |= (dist[s] != 0) << (s - full);
    info[nb] = (block_info){0, 0, 0, tail, (uint32_t)irregular};
    irregular += (uint32_t)__builtin_popcount(tail);
    mark(&ds, nb);
    uint32_t *cand = op_arena_alloc(scratch, ((size_t)irregular + 1) * CANDS * sizeof(uint32_t));
    if (!cand) {
        op_arena_release(scratch, am);
        return 1;
    }
    for (uint32_t b = 0; b <= nb; b++) {
        uint32_t *c = cand + (size_t)info[b].ibase * CANDS;
        for (uint32_t lanes = info[b].irr; lanes; lanes &= lanes - 1, c += CANDS)
            gather_candidates(chf, b * VW + (uint32_t)__builtin_ctz(lanes), c);
    }
    scan_perms p;
    scan_perms_init(&p);
    for (int forward = 1; ds.pending; forward = !forward) {
        for (uint32_t i = 0; i <= nb; i++) {
            const uint32_t b = forward ? i : nb - i;
            if (!ds.flag[b])
                continue;
            ds.flag[b] = 0;
            ds.pending--;
            relax_block(dist, &ds, &info[b], cand, b, &p, forward);
        }
    }
    op_arena_release(scratch, am);
    return 0;
}
