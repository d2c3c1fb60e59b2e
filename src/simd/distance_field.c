/* Exact distance field, SIMD twin of src/scalar/distance_field.c (supplement §1.6,
 * regions-contours §1). A different algorithm with the same bytes.
 *
 * The shortest-path distances are the unique fixpoint of the relaxation
 *   dist[s] = min(dist[s], dist[n] + 2 (mutual neighbour n), dist[c] + 3 (diagonal c))
 * started from 0 on boundary spans and "unreached" elsewhere; any order of relaxations
 * reaches it (Bellman-Ford), so sweeps in span order (the chamfer forward / backward
 * passes, generalised to the span graph) until nothing changes give exactly the scalar
 * twin's Dial result. On the demo world two sweeps give nearly every final value.
 *
 * 0. Distances are worked on as u16 (HW = 2 * VW lanes a vector: twice the spans per
 *    instruction of u32 lanes), in the upper half of the caller's u32 output, and
 *    widened at the end (0xffff "unreached" becoming UINT32_MAX). Additions saturate
 *    at 0xffff, so every stored value is the length of some path or 0xffff, and every
 *    relaxation whose result lies below 0xffff - 2 HW is exact (the scan's bias,
 *    scan_x). At the fixpoint every true distance up to BIG16 + 2 is therefore exact
 *    (induction along a shortest path). A reachable span at 0xffff or more has a span
 *    whose true distance lies in [BIG16, BIG16 + 2] on its shortest path (steps are 2
 *    and 3), which then shows as a finite value at or above BIG16: when none does,
 *    every true distance is below BIG16, all exact, and every 0xffff is a span no
 *    boundary reaches. Otherwise the scalar twin's Dial computes the field (real
 *    fields stay far below: their distances are about the width of open ground).
 * 1. Seeding, per block of HW spans: a span is a boundary span (0) when its area is 0,
 *    it has fewer than four mutual links, or a mutual link leads to an area-0 span; the
 *    others start unreached. The block's orthogonal offsets orth[d] (-1, +rowS, +1,
 *    -rowN on a single-floor row; +-2 on a two-floor strip) are learnt from one lane's
 *    links, and the lanes whose four links sit there are found with plain compares; their
 *    neighbours' areas are then plain loads too (other lanes: one by one).
 * 2. Classification, per block, in the first sweep: a non-boundary lane is *regular*
 *    when its links sit at orth[] and either an orthogonal neighbour is a boundary span
 *    (its distance is then 2, which no diagonal candidate, at least 3, can undercut, so
 *    its diagonals do not matter), or both diagonal ways round through each of its four
 *    neighbours (all non-boundary, with four mutual links) reach the span at the
 *    block's diag[] offset. Its eight candidates are then plain loads. The other
 *    non-boundary lanes are *irregular*: a row of 12 candidate indices gathered once.
 *    diag[] is first guessed as the sum of two orthogonal steps, and learnt from a lane
 *    that failed when the guess leaves lanes irregular.
 * 3. Sweeps alternate forward (span order, an in-register min-plus prefix scan along the
 *    -x chain) and backward (+x chain). One forward pass seeds just ahead of its reads,
 *    classifies, gathers the candidate rows and relaxes every block (sweep 1). From
 *    sweep 2 on, a block is relaxed only when marked dirty, and a block is marked when a
 *    span whose distance just dropped would lower one of its spans (readers are the
 *    span's orthogonal neighbours and diagonal targets: the relation is symmetric over
 *    mutual links; a regular lane next to a boundary span never drops after sweep 1).
 *    In sweep 2 every block below the current one is still dirty, so readers there
 *    are not tested. A block that marks itself is relaxed once more at once (its
 *    irregular lanes, relaxed after the regular ones, dropped below what those read).
 *    When no block is dirty every relaxation holds: the fixpoint.
 * 4. Span order that runs against every path (e.g. shuffled indices) would need a sweep
 *    per distance step; past three full sweeps' worth of relaxations the scalar twin's
 *    Dial finishes instead. */
/* The AVX-512 variant works on 256-bit vectors (HW = 16, as AVX2), with AVX-512VL/BW
 * mask registers for the lane masks (simd_u16.h): on AMD Zen 4, which runs a 512-bit
 * operation as two 256-bit halves, 32-lane blocks were slower than the AVX2 kernel's
 * 16-lane ones (more irregular lanes per block, one more scan step, cross-lane
 * permutes for the shifts); see docs/decisions/distance-speed.md, round 6. */
#if OP_VEC_BITS == 512
#undef OP_VEC_BITS
#define OP_VEC_BITS 256
#endif
#include "simd/simd_u16.h"
#include "simd/links_at.h"
#include "core/links16.h"
#include "core/prefault.h"

#define INF16 0xffffu
/* Finite u16 distances from here on may hide clipped ones: Dial instead. */
#define BIG16 0xf000u

/* [s + off, s + off + HW) lies inside [0, n). */
static inline int inside(uint32_t s, int32_t off, uint32_t n)
{
    const int64_t lo = (int64_t)s + off;
    return lo >= 0 && lo + HW <= (int64_t)n;
}

/* The regular-lane tests on the stored 16-bit links (memory.md round 11): *acc keeps the
 * lanes i of the block at dl whose stored delta dl[i] is x (u16 lanes, one vector); the
 * caller tests once that every x is a near delta (dl_near4; else no lane is regular: a
 * far link's lane is irregular, and read through op_chf_link). */
static inline void dl_and(vh *acc, const int16_t *dl, int32_t x)
{
    *acc = v_and(*acc, h_eq(h_load((const uint16_t *)(const void *)dl), h_set1((uint16_t)x)));
}

/* Every x[0 .. 4) a near delta (one test for the four: min4 / max4). */
static inline int dl_near4(const int32_t *x);

/* Per block: where the neighbours of its regular lanes sit, as offsets from the lane's
 * own index (orth[d] for direction d, diag[d] for the diagonal between directions d and
 * d + 1), and the lane masks. Seeding fills orth[], reg (lanes whose four links sit at
 * orth[], non-boundary) and irr (non-boundary lanes); the classification turns reg / irr
 * into the regular / irregular lanes and fills diag[] and ibase. */
typedef struct block_info {
    int32_t orth[4], diag[4];
    uint32_t reg, irr;
    uint32_t ibase; /* candidate row of the first irregular lane */
} block_info;

/* ---- 1. Seeding ------------------------------------------------------------------- */

typedef struct seeder {
    const op_chf *chf;
    const uint8_t *area;
    uint16_t *d;
    block_info *info;
    uint32_t n, full, seeded; /* spans [0, seeded) are seeded */
    int32_t last[4];          /* the offsets last learnt (a row's blocks mostly share them) */
    int32_t last_lo, last_hi; /* their least and greatest */
} seeder;

static inline int32_t max4(const int32_t *v)
{
    const int32_t a = v[0] > v[1] ? v[0] : v[1], b = v[2] > v[3] ? v[2] : v[3];
    return a > b ? a : b;
}

static inline int32_t min4(const int32_t *v)
{
    const int32_t a = v[0] < v[1] ? v[0] : v[1], b = v[2] < v[3] ? v[2] : v[3];
    return a < b ? a : b;
}

static inline int dl_near4(const int32_t *x)
{
    return min4(x) >= OP_DLINK_MIN && max4(x) <= OP_DLINK_MAX;
}

/* Block loads at every offset of v lie inside [0, n). */
static inline int inside4(uint32_t s, const int32_t *v, uint32_t n)
{
    return inside(s, min4(v), n) && inside(s, max4(v), n);
}

/* Lane t's link offsets from t into o; 0 when a block load at one would leave [0, n). */
static inline int learn_orth(const op_chf *chf, uint32_t s, uint32_t t, uint32_t n, int32_t *o)
{
    for (int d = 0; d < 4; d++)
        o[d] = (int32_t)(op_chf_link(chf, d, t) - t);
    return inside4(s, o, n);
}

/* The lanes of [s, s + HW) whose four links sit at s + i + o[d]: the stored deltas equal
 * to o[d] (dl_and, no decode; a far link's lane is irregular). */
static inline uint32_t orth_lanes(const op_chf *chf, uint32_t s, const int32_t *o)
{
    if (!dl_near4(o))
        return 0;
    vh acc = h_set1(0xffffu);
    for (int d = 0; d < 4; d++)
        dl_and(&acc, chf->dlink[d] + s, o[d]);
    return h_eqmask(acc, h_set1(0xffffu));
}

/* Keeps the offsets o2 (valid: their loads lie inside) when they fit more lanes. */
static inline void try_orth(const op_chf *chf, uint32_t s, uint32_t cand, const int32_t *o2,
                            int valid, int32_t *o, uint32_t *reg)
{
    if (!valid)
        return;
    const uint32_t reg2 = orth_lanes(chf, s, o2) & cand;
    if (__builtin_popcount(reg2) > __builtin_popcount(*reg)) {
        *reg = reg2;
        memcpy(o, o2, 4 * sizeof *o);
    }
}

static void seed_block(seeder *sd, uint32_t b)
{
    const op_chf *chf = sd->chf;
    const uint8_t *area = sd->area;
    const uint32_t s = b * HW, n = sd->n;
    block_info *bi = &sd->info[b];
    /* candidates: four mutual links, area != 0 */
    const uint32_t cand = h_u8eqmask(chf->mutual + s, 0xf) & ~h_u8eqmask(area + s, 0);
    uint32_t reg = 0;
    int32_t o[4] = {0, 0, 0, 0};
    if (cand) {
        /* The offsets last learnt first (a row's blocks mostly share them), then those
         * of the first and the last lane left over. */
        const int64_t lo = (int64_t)s + sd->last_lo, hi = (int64_t)s + sd->last_hi + HW;
        try_orth(chf, s, cand, sd->last, lo >= 0 && hi <= (int64_t)n, o, &reg);
        int32_t o2[4];
        int learnt = 0;
        for (int k = 0; k < 2 && reg != cand; k++) {
            const uint32_t left = cand & ~reg;
            const uint32_t i = k ? 31u - (uint32_t)__builtin_clz(left) : (uint32_t)__builtin_ctz(left);
            const uint32_t before = reg;
            try_orth(chf, s, cand, o2, learn_orth(chf, s, s + i, n, o2), o, &reg);
            learnt |= reg != before;
        }
        if (learnt) {
            memcpy(sd->last, o, sizeof o);
            sd->last_lo = min4(o);
            sd->last_hi = max4(o);
        }
    }
    uint32_t bnd = ~cand & H_ALL;
    if (reg)
        for (int d = 0; d < 4; d++)
            bnd |= h_u8eqmask(area + s + o[d], 0) & reg;
    for (uint32_t lanes = cand & ~reg; lanes; lanes &= lanes - 1) {
        const uint32_t i = (uint32_t)__builtin_ctz(lanes), t = s + i;
        for (int d = 0; d < 4; d++)
            if (area[op_chf_link_or_self(chf, d, t, 1)] == 0) { /* cand: mutual links */
                bnd |= 1u << i;
                break;
            }
    }
    const uint32_t nonb = H_ALL & ~bnd;
    h_store(sd->d + s, h_from_mask(nonb)); /* 0xffff: unreached */
    memcpy(bi->orth, o, sizeof o);
    bi->reg = reg & nonb;
    bi->irr = nonb;
}

/* Seeding runs ahead of the classification and the first sweep, just far enough for
 * every distance they read (so the links are read while they are still in cache). The
 * scalar tail [full, n) is block full / HW, all of it irregular. */
static void seed_more(seeder *sd, uint64_t limit)
{
    if (limit > sd->n)
        limit = sd->n;
    while (sd->seeded < limit) {
        if (sd->seeded < sd->full) {
            seed_block(sd, sd->seeded / HW);
            sd->seeded += HW;
            continue;
        }
        uint32_t tail = 0;
        for (uint32_t s = sd->full; s < sd->n; s++) {
            const int bnd = op_distance_is_boundary(sd->chf, sd->area, s);
            sd->d[s] = bnd ? 0 : INF16;
            tail |= (uint32_t)!bnd << (s - sd->full);
        }
        sd->info[sd->full / HW] = (block_info){.reg = 0, .irr = tail};
        sd->seeded = sd->n;
    }
}

/* Seeds [0, limit) at least. When it seeds, it goes SEED_AHEAD spans further: loads
 * of freshly stored distances (unaligned, across two blocks' stores) would wait for
 * the stores. */
#define SEED_AHEAD (4 * HW)

static inline void seed_to(seeder *sd, uint64_t limit)
{
    if (limit > sd->seeded)
        seed_more(sd, limit + SEED_AHEAD);
}

/* ---- 2. Classification ------------------------------------------------------------ */

/* Lanes whose diagonal ways all reach s + i + g[]: through the neighbour in direction d
 * (at orth[d]) both ways round, to the diagonals between d and d + 1 (g[d]) and
 * between d - 1 and d (g[d - 1]). */
static inline uint32_t diag_lanes(const op_chf *chf, uint32_t s, const int32_t *o, const int32_t *g)
{
    /* Lane i's neighbour s1 + i links to s + i + g: a stored delta of g - o[d]
     * (INT32_MIN, no near delta, where that leaves int32). */
    int32_t x1[4], x3[4];
    for (int d = 0; d < 4; d++) {
        const int64_t a = (int64_t)g[d] - o[d], b = (int64_t)g[(d + 3) & 3] - o[d];
        x1[d] = a < INT32_MIN || a > INT32_MAX ? INT32_MIN : (int32_t)a;
        x3[d] = b < INT32_MIN || b > INT32_MAX ? INT32_MIN : (int32_t)b;
    }
    if (!dl_near4(x1) || !dl_near4(x3))
        return 0;
    vh acc = h_set1(0xffffu);
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3, d3 = (d + 3) & 3;
        const uint32_t s1 = s + (uint32_t)o[d];
        dl_and(&acc, chf->dlink[d1] + s1, x1[d]);
        dl_and(&acc, chf->dlink[d3] + s1, x3[d]);
    }
    return h_eqmask(acc, h_set1(0xffffu));
}

/* Diagonal offsets from lane t, whose four neighbours are non-boundary (so both ways
 * round exist): 0 when the two ways disagree or a block load would leave the field. */
static int learn_diag(const op_chf *chf, uint32_t s, uint32_t t, uint32_t n, const int32_t *o,
                      int32_t *g)
{
    for (int d = 0; d < 4; d++) {
        const int d1 = (d + 1) & 3;
        const uint32_t a = t + (uint32_t)o[d], c = t + (uint32_t)o[d1];
        g[d] = (int32_t)(op_chf_link(chf, d1, a) - t);
        if ((int32_t)(op_chf_link(chf, d, c) - t) != g[d] || !inside(s, g[d], n))
            return 0;
    }
    return 1;
}

/* Also seeds every distance the block's first relaxation reads through its offsets. */
static void classify_block(seeder *sd, uint32_t b)
{
    const op_chf *chf = sd->chf;
    block_info *bi = &sd->info[b];
    const uint32_t s = b * HW, n = sd->n, nonb = bi->irr, orth = bi->reg;
    memset(bi->diag, 0, sizeof bi->diag); /* 0: the lane itself, a harmless candidate */
    bi->reg = 0;
    if (!orth)
        return;
    const int32_t *o = bi->orth;
    const int32_t omin = min4(o), omax = max4(o);
    seed_to(sd, (uint64_t)((int64_t)s + omax + HW)); /* the neighbours' boundary flags */
    const uint16_t *d = sd->d + s;
    const vh m = h_min(h_min(h_load(d + o[0]), h_load(d + o[1])),
                       h_min(h_load(d + o[2]), h_load(d + o[3])));
    const uint32_t near = h_eqmask(m, h_set1(0)) & orth; /* a neighbour is a boundary span */
    int32_t g[4];
    for (int k = 0; k < 4; k++)
        g[k] = (int32_t)((uint32_t)o[k] + (uint32_t)o[(k + 1) & 3]); /* wraps: only a guess */
    /* each g[k] lies in [2 omin, 2 omax] */
    const int64_t glo = (int64_t)s + 2 * (int64_t)omin, ghi = (int64_t)s + 2 * (int64_t)omax + HW;
    int guess = glo >= 0 && ghi <= (int64_t)n ? 1 : inside4(s, g, n);
    uint32_t reg = orth & (near | (guess && (orth & ~near) ? diag_lanes(chf, s, o, g) : 0));
    if (reg != orth) {
        int32_t g2[4];
        const uint32_t t = s + (uint32_t)__builtin_ctz(orth & ~reg);
        if (learn_diag(chf, s, t, n, o, g2)) {
            const uint32_t reg2 = orth & (near | diag_lanes(chf, s, o, g2));
            if (__builtin_popcount(reg2) > __builtin_popcount(reg) || !guess) {
                reg = reg2;
                memcpy(g, g2, sizeof g);
                guess = 1;
            }
        }
    }
    if (guess) {
        memcpy(bi->diag, g, sizeof g);
        const int32_t gmax = max4(g);
        seed_to(sd, (uint64_t)((int64_t)s + (gmax > omax ? gmax : omax) + HW));
    }
    bi->reg = reg;
    bi->irr = nonb & ~reg;
}

/* ---- 3. Sweeps -------------------------------------------------------------------- */

/* Scan constants: bias[f][i] = 2 (HW - 1 - i) (forward) or 2 i (backward); fill[f][m]:
 * all-ones in the lanes a shift by m empties. */
typedef struct scan_consts {
    vh bias[2];
    vh fill[2][HW];
} scan_consts;

static void scan_consts_init(scan_consts *k)
{
    uint16_t f[HW], b[HW];
    for (uint32_t i = 0; i < HW; i++) {
        f[i] = (uint16_t)(2 * (HW - 1 - i));
        b[i] = (uint16_t)(2 * i);
    }
    k->bias[1] = h_load(f);
    k->bias[0] = h_load(b);
    for (uint32_t m = 1; m < HW; m++) {
        k->fill[1][m] = h_from_mask((1u << m) - 1);
        k->fill[0][m] = h_from_mask(H_ALL & ~(H_ALL >> m));
    }
}

/* Min-plus prefix scan along the x chain inside the vector, when a regular lane's -x
 * (forward) or +x (backward) neighbour is the lane k before / after it. With k = 1 (a
 * single floor) a prefix minimum of best[j] + 2 (HW - 1 - j) (forward; 2 j backward),
 * less the same bias, is lane i's best over its chain (exact below 0xffff - 2 HW;
 * above, the result stays unreached, which only the BIG16 check can see): over the
 * whole vector when every lane is regular, else segmented (Hillis-Steele: lane i takes
 * lane i -+ m where the lanes between are all regular). Shifts by constants (their
 * instructions take immediates). Other k: Hillis-Steele on the values. */
OP_VINLINE vh scan_x(vh best, uint32_t reg, uint32_t k, const scan_consts *sc, int forward)
{
    if (k == 1) {
        const vh bias = sc->bias[forward];
        vh p = h_adds(best, bias);
        if (reg == H_ALL) {
#ifdef H_MASKREGS
#define OP_SCAN_STEP(m)                                                                    \
    if ((m) < HW)                                                                          \
        p = forward ? h_min_mask(p, H_ALL << ((m) % HW) & H_ALL, h_shift_up(p, m))        \
                    : h_min_mask(p, H_ALL >> ((m) % HW), h_shift_down(p, m));
#else
#define OP_SCAN_STEP(m)                                                                    \
    if ((m) < HW)                                                                          \
        p = h_min(p, v_or(forward ? h_shift_up(p, m) : h_shift_down(p, m), sc->fill[forward][(m) % HW]));
#endif
            OP_SCAN_STEP(1)
            OP_SCAN_STEP(2)
            OP_SCAN_STEP(4)
            OP_SCAN_STEP(8)
            OP_SCAN_STEP(16)
#undef OP_SCAN_STEP
        } else {
            /* conn: lanes whose m lanes before (after) are all regular, the lane m
             * away included as a source; off: all-ones outside conn */
            uint32_t conn = reg & (forward ? H_ALL << 1 : H_ALL >> 1) & H_ALL;
#ifdef H_MASKREGS
#define OP_SEG_STEP(m)                                                                     \
    if ((m) < HW && conn) {                                                                \
        p = h_min_mask(p, conn, forward ? h_shift_up(p, m) : h_shift_down(p, m));          \
        conn &= forward ? conn << ((m) % HW) : conn >> ((m) % HW);                         \
    }
#else
#define OP_SEG_STEP(m)                                                                     \
    if ((m) < HW && conn) {                                                                \
        const vh off = h_from_mask(~conn & H_ALL);                                         \
        p = h_min(p, v_or(forward ? h_shift_up(p, m) : h_shift_down(p, m), off));          \
        conn &= forward ? conn << ((m) % HW) : conn >> ((m) % HW);                         \
    }
#endif
            OP_SEG_STEP(1)
            OP_SEG_STEP(2)
            OP_SEG_STEP(4)
            OP_SEG_STEP(8)
            OP_SEG_STEP(16)
#undef OP_SEG_STEP
        }
        /* p >= bias: the subtraction is exact (saturating only so that no lane wraps) */
        const vh r = v_or(h_subs(p, bias), h_eq(p, h_set1(INF16)));
        return h_min(best, r);
    }
    uint32_t conn = reg & (forward ? H_ALL << k : H_ALL >> k) & H_ALL;
    for (uint32_t m = k, c = 2; m < HW && conn; m <<= 1, c <<= 1) {
        const vh sh = forward ? h_shift_up(best, m) : h_shift_down(best, m);
        best = h_blend(conn, best, h_min(best, h_adds(sh, h_set1((uint16_t)c))));
        conn &= forward ? conn << m : conn >> m;
    }
    return best;
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

/* Marks the blocks holding [s + off, s + off + HW) when a span there would drop: the
 * span at s + i + off reads lane i of the block with a step of c (readers are
 * symmetric). src: the lowered lanes, 0xffff elsewhere. */
static inline void mark_readers(dirty_set *ds, const uint16_t *dist, uint32_t s, int32_t off,
                                vh src, uint16_t c, vh best)
{
    const uint32_t r = s + (uint32_t)off, b = r / HW, q = r % HW;
    /* Blocks already marked need no test (in sweep 2, every block not yet reached). */
    if (ds->flag[b] && (q == 0 || ds->flag[b + 1]))
        return;
#ifdef H_CHAIN
    /* off = -+1: the range overlaps the block just stored (best), whose store a load
     * would wait for; its one other lane is a plain load */
    const vh now = off == -1  ? h_chain_up(best, h_set1(dist[s - 1]))
                   : off == 1 ? h_chain_down(best, h_set1(dist[s + HW]))
                              : h_load(dist + r);
#else
    (void)best;
    const vh now = h_load(dist + r);
#endif
    const uint32_t drop = h_lessbits(h_adds(src, h_set1(c)), now);
    if (!drop)
        return;
    /* Lanes [0, HW - q) of the range are in block b, the rest in block b + 1. Each
     * block is marked only for its own lanes (marking both would send the block just
     * relaxed into the next sweep whenever the chain goes on into its neighbour). */
    if (drop & (uint32_t)((1ull << ((HW - q) * H_LB)) - 1))
        mark(ds, b);
    if (q && drop >> ((HW - q) * H_LB))
        mark(ds, b + 1);
}

/* The last block relaxed and its value (b = UINT32_MAX: none known). A block's -x
 * (forward) or +x (backward) neighbours at s -+ 1 overlap the block relaxed just before,
 * whose store is still in flight: loading them would wait for it (the store cannot be
 * forwarded to a load that only partly overlaps it). With H_CHAIN they come from the
 * registers instead. Irregular lanes are written one by one, so a block with any
 * leaves none. */
typedef struct chain {
    uint32_t b;
    vh v;
} chain;

/* Relaxes the regular lanes of block b from plain loads (the other lanes keep their
 * value), then marks the blocks whose spans the lowered distances would lower (none
 * when ds is NULL: the first sweep, after which every block is relaxed again). */
OP_VINLINE void relax_regular(uint16_t *dist, dirty_set *ds, const block_info *bi, uint32_t b,
                          const scan_consts *sc, int forward, int below, chain *ch)
{
    const uint32_t s = b * HW;
    const vh cur = h_load(dist + s);
    const int32_t *o = bi->orth, *g = bi->diag;
#ifdef H_CHAIN
    const vh o0 = forward && o[0] == -1 && ch->b + 1 == b ? h_chain_up(cur, ch->v) : h_load(dist + s + o[0]);
    const vh o2 = !forward && o[2] == 1 && ch->b == b + 1 ? h_chain_down(cur, ch->v) : h_load(dist + s + o[2]);
#else
    (void)ch;
    const vh o0 = h_load(dist + s + o[0]), o2 = h_load(dist + s + o[2]);
#endif
    const vh orth = h_min(h_min(o0, h_load(dist + s + o[1])), h_min(o2, h_load(dist + s + o[3])));
    const vh diag = h_min(h_min(h_load(dist + s + g[0]), h_load(dist + s + g[1])),
                          h_min(h_load(dist + s + g[2]), h_load(dist + s + g[3])));
    vh best = h_min(cur, h_min(h_adds(orth, h_set1(2)), h_adds(diag, h_set1(3))));
    const uint32_t reg = bi->reg;
    if (reg != H_ALL)
        best = h_blend(reg, cur, best);
    const int32_t k = forward ? -o[0] : o[2];
    if (k >= 1 && k < HW)
        best = scan_x(best, reg, (uint32_t)k, sc, forward);
    ch->b = b;
    ch->v = best;
    const vh same = h_eq(best, cur);
    if (h_bits(same) == H_ALLBITS)
        return;
    h_store(dist + s, best);
    if (!ds)
        return;
    const vh src = v_or(best, same); /* unchanged lanes: 0xffff, which lowers nothing */
    for (int d = 0; d < 4; d++) {
        if (!(below && o[d] <= -(int32_t)HW))
            mark_readers(ds, dist, s, o[d], src, 2, best);
        if (!(below && g[d] <= -(int32_t)HW))
            mark_readers(ds, dist, s, g[d], src, 3, best);
    }
}

/* Candidates of an irregular span, gathered once from its links: the mutual
 * neighbours (step 2) and the diagonal targets (step 3, both ways round, which reach
 * different spans only on multi-floor ground). Unused slots hold the span itself, whose
 * own distance plus a step never lowers it. */
#define ORTH 4
#define DIAG 8
#define CANDS (ORTH + DIAG)

/* Returns the largest candidate. */
static inline __attribute__((always_inline)) uint32_t
gather_candidates(const op_chf *chf, uint32_t s, uint32_t *c, int nofar)
{
    const uint8_t *mutual = chf->mutual;
    const uint8_t ms = mutual[s];
    uint32_t top = s;
    for (int k = 0; k < CANDS; k++)
        c[k] = s;
    for (int d = 0; d < 4; d++) {
        if (!(ms >> d & 1))
            continue;
        const uint32_t a = op_chf_link_or_self_nf(chf, d, s, 1, nofar); /* mutual links */
        c[d] = a;
        top = a > top ? a : top;
        const int d1 = (d + 1) & 3, d3 = (d + 3) & 3;
        if (mutual[a] >> d1 & 1) {
            const uint32_t t = op_chf_link_or_self_nf(chf, d1, a, 1, nofar);
            c[ORTH + 2 * d] = t;
            top = t > top ? t : top;
        }
        if (mutual[a] >> d3 & 1) {
            const uint32_t t = op_chf_link_or_self_nf(chf, d3, a, 1, nofar);
            c[ORTH + 2 * d + 1] = t;
            top = t > top ? t : top;
        }
    }
    return top;
}

/* Candidate rows, in chunks allocated as the classification finds irregular lanes
 * (their number is not known before). The rows of one block are contiguous; a row is
 * named by chunk * CHUNK_ROWS + row. */
#define CHUNK_ROWS 4096u

typedef struct cand_store {
    uint32_t **chunk;
    uint32_t nchunks, cap, rows; /* rows: used in the last chunk */
} cand_store;

/* k <= HW contiguous rows; UINT32_MAX when the arena is exhausted. */
static uint32_t cand_alloc(cand_store *cs, op_arena *a, uint32_t k)
{
    if (cs->nchunks == 0 || cs->rows + k > CHUNK_ROWS) {
        if (cs->nchunks == cs->cap)
            return UINT32_MAX;
        uint32_t *c = op_arena_alloc(a, (size_t)CHUNK_ROWS * CANDS * sizeof(uint32_t));
        if (!c)
            return UINT32_MAX;
        cs->chunk[cs->nchunks++] = c;
        cs->rows = 0;
    }
    const uint32_t r = (cs->nchunks - 1) * CHUNK_ROWS + cs->rows;
    cs->rows += k;
    return r;
}

static inline uint32_t *cand_row(const cand_store *cs, uint32_t r)
{
    return cs->chunk[r / CHUNK_ROWS] + (size_t)(r % CHUNK_ROWS) * CANDS;
}

static inline uint16_t sat_add16(uint16_t x, uint16_t c)
{
    return (uint16_t)(x > INF16 - c ? INF16 : x + c);
}

/* Relaxes span s from its candidate row c; when it drops, marks the blocks of the spans
 * that read it, which are its candidates again (the relation is symmetric). */
static void relax_irregular(uint16_t *dist, dirty_set *ds, uint32_t s, const uint32_t *c)
{
    uint16_t o = dist[c[0]], g = dist[c[ORTH]];
    for (int k = 1; k < ORTH; k++)
        o = dist[c[k]] < o ? dist[c[k]] : o;
    for (int k = ORTH + 1; k < CANDS; k++)
        g = dist[c[k]] < g ? dist[c[k]] : g;
    const uint16_t o2 = sat_add16(o, 2), g3 = sat_add16(g, 3);
    const uint16_t best = o2 < g3 ? o2 : g3;
    if (best >= dist[s])
        return;
    dist[s] = best;
    if (!ds)
        return;
    const uint16_t b2 = sat_add16(best, 2), b3 = sat_add16(best, 3);
    for (int k = 0; k < CANDS; k++)
        if ((k < ORTH ? b2 : b3) < dist[c[k]])
            mark(ds, c[k] / HW);
}

OP_VINLINE void relax_block(uint16_t *dist, dirty_set *ds, const block_info *bi, const cand_store *cs,
                        uint32_t b, const scan_consts *sc, int forward, int below, chain *ch)
{
    const uint32_t s = b * HW;
    if (bi->reg)
        relax_regular(dist, ds, bi, b, sc, forward, below, ch);
    else
        ch->b = UINT32_MAX;
    uint32_t lanes = bi->irr;
    if (!lanes)
        return;
    ch->b = UINT32_MAX;
    const uint32_t *c = cand_row(cs, bi->ibase);
    if (forward) {
        for (uint32_t r = 0; lanes; r++) {
            const uint32_t i = (uint32_t)__builtin_ctz(lanes);
            lanes &= lanes - 1;
            relax_irregular(dist, ds, s + i, c + (size_t)r * CANDS);
        }
    } else {
        for (uint32_t r = (uint32_t)__builtin_popcount(lanes); lanes;) {
            const uint32_t i = 31u - (uint32_t)__builtin_clz(lanes);
            lanes &= ~(1u << i);
            r--;
            relax_irregular(dist, ds, s + i, c + (size_t)r * CANDS);
        }
    }
}

/* The u16 field d (in the upper half of dist) into dist, 0xffff becoming UINT32_MAX.
 * Returns nonzero when a finite value reaches BIG16. Writing dist[s] never overwrites
 * a d[t] not yet read (t >= s lies at byte 2n + 2t >= 4s + 2). */
static int widen(uint32_t *dist, const uint16_t *d, uint32_t n)
{
    const vh below_big = h_set1(BIG16 - 1), inf16 = h_set1(INF16);
    const vu32 inf = v_set1(INF16);
    vh acc = h_set1(0); /* nonzero lanes: a value in [BIG16, INF16) seen */
    uint32_t s = 0;
    for (; s + HW <= n; s += HW) {
        const vh v = h_load(d + s);
        acc = v_or(acc, h_min(h_subs(v, below_big), h_subs(inf16, v)));
        const vu32 lo = h_widen_lo(v), hi = h_widen_hi(v);
        v_store(dist + s, v_or(lo, v_eq(lo, inf)));
        v_store(dist + s + VW, v_or(hi, v_eq(hi, inf)));
    }
    int clipped = h_eqmask(acc, h_set1(0)) != H_ALL;
    for (; s < n; s++) {
        const uint16_t x = d[s];
        clipped |= x >= BIG16 && x != INF16;
        dist[s] = x == INF16 ? UINT32_MAX : x;
    }
    return clipped;
}

static int distance_field_body(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                               op_arena *scratch)
{
    const uint32_t n = chf->span_count;
    if (n == 0)
        return 0;
    if (n > OP_SIMD_MAX_SPANS - 2 * HW)
        return op_distance_field_scalar(chf, area, dist, scratch);
    const int nofar = !op_chf_has_far(chf); /* gather_candidates without far lookups */
    uint16_t *d = (uint16_t *)(void *)dist + n; /* the u16 field: dist's upper half */
    const uint32_t full = n - n % HW; /* spans [0, full) in vector blocks, the rest scalar */
    const uint32_t nb = full / HW;    /* blocks; index nb stands for the scalar tail */
    op_arena_mark am = op_arena_get_mark(scratch);
    /* Every block's info is written (seeding, in block order): a fresh block's pages
     * mapped at once (docs/decisions/bake-speed.md, round 8). */
    block_info *info = op_arena_alloc_prefaulted(scratch, ((size_t)nb + 1) * sizeof(block_info));
    /* Every mark lands in [0, nb]: a regular block's loads all lie in [0, n), and span
     * readers are spans. */
    uint8_t *flags = op_arena_alloc(scratch, (size_t)nb + 9); /* whole 8-byte words */
    cand_store cs = {NULL, 0, n / (CHUNK_ROWS - HW) + 2, 0};
    cs.chunk = op_arena_alloc(scratch, (size_t)cs.cap * sizeof(uint32_t *));
    if (!info || !flags || !cs.chunk) {
        op_arena_release(scratch, am);
        return 1;
    }
    dirty_set ds = {flags, 0};
    memset(flags, 0, (size_t)nb + 9);
    info[nb] = (block_info){.reg = 0, .irr = 0}; /* the tail's, when there is none */
    seeder sd = {chf, area, d, info, n, full, 0, {0, 0, 0, 0}, 0, 0};
    scan_consts sc;
    scan_consts_init(&sc);
    chain ch = {UINT32_MAX, h_set1(0)};
    /* One forward pass seeds (just ahead), classifies, gathers the candidate rows and
     * relaxes every block (sweep 1, which marks nothing: nearly every block drops from
     * "unreached", so sweep 2 relaxes them all again and marks from then on). Every
     * distance a block reads is seeded first. */
    for (uint32_t b = 0; b <= nb; b++) {
        block_info *bi = &info[b];
        const uint32_t s = b * HW;
        if (b < nb) {
            seed_to(&sd, (uint64_t)s + HW);
            classify_block(&sd, b);
        } else {
            seed_to(&sd, n);
        }
        if (!(bi->reg | bi->irr))
            continue;
        mark(&ds, b);
        if (bi->irr) {
            bi->ibase = cand_alloc(&cs, scratch, (uint32_t)__builtin_popcount(bi->irr));
            if (bi->ibase == UINT32_MAX) {
                op_arena_release(scratch, am);
                return 1;
            }
            uint32_t *c = cand_row(&cs, bi->ibase), reach = 0;
            for (uint32_t lanes = bi->irr; lanes; lanes &= lanes - 1, c += CANDS) {
                const uint32_t t = s + (uint32_t)__builtin_ctz(lanes);
                const uint32_t top = nofar ? gather_candidates(chf, t, c, 1)
                                           : gather_candidates(chf, t, c, 0);
                reach = top > reach ? top : reach;
            }
            seed_to(&sd, (uint64_t)reach + 1);
        }
        relax_block(d, NULL, bi, &cs, b, &sc, 1, 0, &ch);
    }
    /* Late sweeps touch few blocks: the flags are skipped eight at a time. */
    const uint32_t words = (nb + 8) / 8;
    /* Sweeps converge in two or three on real ground (shortest paths to the boundary
     * are nearly straight), but span order can run against every path (e.g. a grid
     * whose span indices are shuffled needs about one sweep per step of distance).
     * Past three full sweeps' worth of block relaxations the scalar twin's Dial, whose
     * cost does not depend on the order, finishes instead (same bytes). */
    const uint64_t budget = 3 * (uint64_t)ds.pending + 64;
    uint64_t relaxed = 0;
    int below = 1; /* sweep 2: every block below the current one is still pending */
    for (int forward = 0; ds.pending; forward = !forward, below = 0) {
        ch.b = UINT32_MAX;
        if (relaxed > budget) {
            op_arena_release(scratch, am);
            return op_distance_field_scalar(chf, area, dist, scratch);
        }
        for (uint32_t w = 0; w < words; w++) {
            const uint32_t base = (forward ? w : words - 1 - w) * 8;
            uint64_t any;
            memcpy(&any, ds.flag + base, 8);
            if (!any)
                continue;
            for (uint32_t j = 0; j < 8; j++) {
                const uint32_t b = base + (forward ? j : 7 - j);
                /* A block that marked itself (its irregular lanes, relaxed after the
                 * regular ones, dropped below what those read; or a lane whose x
                 * neighbour lies against the sweep) is relaxed once more at once,
                 * while it is in cache, instead of in the next sweep. */
                for (int again = 0; again < 2 && ds.flag[b]; again++) {
                    ds.flag[b] = 0;
                    ds.pending--;
                    relaxed++;
                    if (below)
                        relax_block(d, &ds, &info[b], &cs, b, &sc, 0, 1, &ch);
                    else
                        relax_block(d, &ds, &info[b], &cs, b, &sc, forward, 0, &ch);
                }
            }
        }
    }
    op_arena_release(scratch, am);
    if (widen(dist, d, n))
        return op_distance_field_scalar(chf, area, dist, scratch);
    return 0;
}

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch)
{
    const int r = distance_field_body(chf, area, dist, scratch);
    op_simd_leave();
    return r;
}
