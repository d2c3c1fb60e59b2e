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
 *    boundary span and its links sit at offsets common to the block: orth[d] for the
 *    four directions (-1, +rowS, +1, -rowN on a single-floor row; +-2 on a two-floor
 *    strip) and diag[] for the four diagonal spans, reached both ways round through
 *    every non-boundary intermediate span. Its eight candidates are then plain
 *    unaligned loads (no gathers, no link reads during the sweeps). A diagonal way
 *    through a boundary intermediate is not checked: such a lane has an orthogonal
 *    neighbour at 0, so its distance is 2, and an extra candidate (any value + 3)
 *    cannot undercut it. Other non-boundary lanes are *irregular*: they get a row of 12
 *    candidate indices gathered once from the links.
 * 3. Sweeps alternate forward (span order, an in-register min-plus prefix scan along the
 *    -x chain) and backward (+x chain). One forward pass seeds just ahead of its reads,
 *    classifies, gathers the candidate rows and relaxes every block (sweep 1). From
 *    sweep 2 on, a block is relaxed only when marked dirty, and a block is marked when a
 *    span whose distance just dropped would lower one of its spans (readers are the
 *    span's orthogonal neighbours and diagonal targets: the relation is symmetric over
 *    mutual links). When no block is dirty every relaxation holds: the fixpoint.
 * 4. Span order that runs against every path (e.g. shuffled indices) would need a sweep
 *    per distance step; past three full sweeps' worth of relaxations the scalar twin's
 *    Dial finishes instead.
 * Unreached spans keep UINT32_MAX, as in the scalar twin (saturating additions). */
#include "simd/simd_width.h"

#define INF UINT32_MAX

static inline uint32_t sat_add(uint32_t x, uint32_t c) { return x > INF - c ? INF : x + c; }

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

/* Seeding runs ahead of the classification and the first sweep, just far enough for
 * every dist[] they read (so the links are read while they are still in cache). */
typedef struct seeder {
    const op_chf *chf;
    const uint8_t *area;
    uint32_t *dist;
    uint32_t n, full, seeded; /* spans [0, seeded) are seeded */
} seeder;

static void seed_to(seeder *sd, uint64_t limit)
{
    if (limit > sd->n)
        limit = sd->n;
    while (sd->seeded < limit) {
        if (sd->seeded < sd->full) {
            seed_block(sd->chf, sd->area, sd->dist, sd->seeded, sd->n);
            sd->seeded += VW;
        } else {
            for (uint32_t s = sd->full; s < sd->n; s++)
                sd->dist[s] = op_distance_is_boundary(sd->chf, sd->area, s) ? 0 : INF;
            sd->seeded = sd->n;
        }
    }
}

/* Per block: where the neighbours of its regular lanes sit, as offsets from the lane's
 * own index (orth[d] for direction d; diag[] for the diagonal targets, both ways round,
 * which on regular ground reach the same span), and the lane masks. A single-floor row
 * has orth = {-1, +rowS, +1, -rowN}; a two-floor strip, {-2, ..., +2, ...}. */
typedef struct block_info {
    int32_t orth[4], diag[4];
    uint32_t reg, irr; /* regular / irregular non-boundary lanes */
    uint32_t ibase;    /* candidate row of the first irregular lane */
} block_info;

/* Whether [s + off, s + off + VW) lies inside [0, n). */
static inline int inside(uint32_t s, int32_t off, uint32_t n)
{
    const int64_t lo = (int64_t)s + off;
    return lo >= 0 && lo + VW <= (int64_t)n;
}

/* The lanes whose links sit at the block's offsets (orthogonal links, and both
 * diagonal ways through every non-boundary intermediate span). */
static uint32_t matching_lanes(const op_chf *chf, const uint32_t *dist, uint32_t s,
                               const block_info *bi)
{
    const vu32 zero = v_set1(0), ones = v_set1(~0u);
    const vu32 self = v_add(v_set1(s), v_iota());
    vu32 ok = ones;
    for (int d = 0; d < 4; d++) {
        const uint32_t a = s + (uint32_t)bi->orth[d];
        ok = v_and(ok, v_eq(v_load(chf->link[d] + s), v_add(self, v_set1((uint32_t)bi->orth[d]))));
        const vu32 nb = v_andnot(v_eq(v_load(dist + a), zero), ones);
        const vu32 w1 = v_add(self, v_set1((uint32_t)bi->diag[d]));
        const vu32 w3 = v_add(self, v_set1((uint32_t)bi->diag[(d + 3) & 3]));
        const vu32 hit = v_and(v_eq(v_load(chf->link[(d + 1) & 3] + a), w1),
                               v_eq(v_load(chf->link[(d + 3) & 3] + a), w3));
        ok = v_and(ok, v_or(v_andnot(nb, ones), hit));
    }
    return v_nz(ok);
}

/* Diagonal offsets learnt from the links: from the first lane whose intermediate span
 * in a direction is not a boundary span (ways through boundary spans are not checked,
 * see the file comment). Returns 0 when the two ways round disagree or a load would
 * leave the field. */
static int learn_diagonals(const op_chf *chf, const uint32_t *dist, uint32_t s, uint32_t n,
                           uint32_t nonb, block_info *bi)
{
    int32_t way[8];
    int known[8] = {0}, nknown = 0;
    for (uint32_t lanes = nonb; lanes && nknown < 4; lanes &= lanes - 1) {
        const uint32_t t = s + (uint32_t)__builtin_ctz(lanes);
        for (int d = 0; d < 4; d++) {
            const uint32_t a = t + (uint32_t)bi->orth[d];
            if (dist[a] == 0 || known[2 * d])
                continue;
            way[2 * d] = (int32_t)(chf->link[(d + 1) & 3][a] - t);
            way[2 * d + 1] = (int32_t)(chf->link[(d + 3) & 3][a] - t);
            known[2 * d] = known[2 * d + 1] = 1;
            nknown++;
        }
    }
    /* Way (d, d+1) and way (d+1, d) reach the same diagonal span on regular ground. */
    for (int d = 0; d < 4; d++) {
        const int a = 2 * d, b = 2 * ((d + 1) & 3) + 1;
        if (known[a] && known[b] && way[a] != way[b])
            return 0;
        bi->diag[d] = known[a] ? way[a] : known[b] ? way[b] : 0; /* 0: the lane itself */
        if (!inside(s, bi->diag[d], n))
            return 0;
    }
    return 1;
}

static void classify_block(const op_chf *chf, seeder *sd, uint32_t s, uint32_t n,
                           block_info *bi)
{
    const uint32_t *dist = sd->dist;
    seed_to(sd, (uint64_t)s + VW);
    const uint32_t nonb = v_nz(v_load(dist + s));
    bi->reg = 0;
    bi->irr = nonb;
    if (!nonb)
        return;
    /* The orthogonal offsets come from the first non-boundary lane. */
    const uint32_t s0 = s + (uint32_t)__builtin_ctz(nonb);
    int64_t reach = s;
    for (int d = 0; d < 4; d++) {
        bi->orth[d] = (int32_t)(chf->link[d][s0] - s0);
        if (!inside(s, bi->orth[d], n))
            return;
        reach = reach > (int64_t)s + bi->orth[d] ? reach : (int64_t)s + bi->orth[d];
    }
    seed_to(sd, (uint64_t)reach + VW); /* the intermediate spans' boundary flags */
    /* First guess, right on regular ground: a diagonal is the sum of its two
     * orthogonal steps. */
    int guess = 1;
    for (int d = 0; d < 4; d++) {
        bi->diag[d] = bi->orth[d] + bi->orth[(d + 1) & 3];
        guess &= inside(s, bi->diag[d], n);
    }
    uint32_t reg = guess ? matching_lanes(chf, dist, s, bi) & nonb : 0;
    if (reg != nonb) {
        block_info learnt = *bi;
        if (learn_diagonals(chf, dist, s, n, nonb, &learnt)) {
            const uint32_t reg2 = matching_lanes(chf, dist, s, &learnt) & nonb;
            if (__builtin_popcount(reg2) > __builtin_popcount(reg)) {
                *bi = learnt;
                reg = reg2;
            }
        }
    }
    if (!guess && !reg)
        return;
    bi->reg = reg;
    bi->irr = nonb & ~reg;
}

/* Lane permutations for the in-register scans: shift[m] moves lane i - m to lane i
 * (up) or lane i + m to lane i (down), clamped at the ends; from[m] / to[m] are the
 * lanes that have a lane m before / after them. */
typedef struct scan_perms {
    vu32 up[VW], down[VW], from[VW], to[VW];
    vu32 bits; /* lane i holds 1 << i */
} scan_perms;

static void scan_perms_init(scan_perms *p)
{
    uint32_t a[VW], b[VW], f[VW], t[VW];
    for (uint32_t m = 1; m < VW; m++) {
        for (uint32_t i = 0; i < VW; i++) {
            a[i] = i >= m ? i - m : 0;
            b[i] = i + m < VW ? i + m : VW - 1;
            f[i] = i >= m ? ~0u : 0;
            t[i] = i + m < VW ? ~0u : 0;
        }
        p->up[m] = v_load(a);
        p->down[m] = v_load(b);
        p->from[m] = v_load(f);
        p->to[m] = v_load(t);
    }
    for (uint32_t i = 0; i < VW; i++)
        a[i] = 1u << i;
    p->bits = v_load(a);
}

/* Min-plus prefix scan along the x chain inside the vector (Hillis-Steele) when a
 * regular lane's -x (forward) or +x (backward) neighbour is the lane k before / after
 * it: lane i takes lane i -+ m + 2m/k where the chain between them is all regular. */
static vu32 scan_x(vu32 best, vu32 reg, uint32_t k, const scan_perms *p, int forward)
{
    vu32 conn = v_and(reg, forward ? p->from[k] : p->to[k]);
    for (uint32_t m = k, c = 2; m < VW && v_nz(conn); m <<= 1, c <<= 1) {
        const vu32 perm = forward ? p->up[m] : p->down[m];
        best = v_select(conn, best, v_min(best, v_sat_add(v_perm(best, perm), c)));
        conn = v_and(conn, v_perm(conn, perm));
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

/* Lanes where a < b (unsigned). */
static inline vu32 v_less(vu32 a, vu32 b) { return v_andnot(v_eq(v_min(a, b), b), v_set1(~0u)); }

/* Marks the blocks holding [s + off, s + off + VW) when a span there would drop: the
 * span at s + i + off reads lane i of the block with a step of c (readers are
 * symmetric: orthogonal neighbours and diagonal targets). src: the lowered lanes,
 * UINT32_MAX elsewhere. */
static inline void mark_readers(dirty_set *ds, const uint32_t *dist, uint32_t s, int32_t off,
                                vu32 src, uint32_t c)
{
    const uint32_t r = s + (uint32_t)off;
    /* Blocks already marked need no test (in sweep 2, every block not yet reached). */
    if (ds->flag[r / VW] && ds->flag[(r + VW - 1) / VW])
        return;
    const uint32_t drop = v_nz(v_less(v_sat_add(src, c), v_load(dist + r)));
    if (!drop)
        return;
    /* The range straddles two blocks unless aligned: mark each only for its own lanes
     * (marking both would send the block just relaxed into the next sweep whenever the
     * chain goes on into its neighbour). */
    const uint32_t first = VW - r % VW; /* lanes in block r / VW */
    if (drop & (uint32_t)((1ull << first) - 1))
        mark(ds, r / VW);
    if (first < VW && drop >> first)
        mark(ds, r / VW + 1);
}

/* Relaxes the regular lanes of block b from plain loads (the other lanes keep their
 * value), then marks the blocks whose spans the lowered distances would lower (none
 * when ds is NULL: the first sweep, after which every block is relaxed again). */
static void relax_regular(uint32_t *dist, dirty_set *ds, const block_info *bi, uint32_t b,
                          const scan_perms *p, int forward)
{
    const uint32_t s = b * VW;
    const vu32 cur = v_load(dist + s), ones = v_set1(~0u), inf = v_set1(INF);
    const int32_t *o = bi->orth, *g = bi->diag;
    const vu32 orth = v_min(v_min(v_load(dist + s + o[0]), v_load(dist + s + o[1])),
                            v_min(v_load(dist + s + o[2]), v_load(dist + s + o[3])));
    const vu32 diag = v_min(v_min(v_load(dist + s + g[0]), v_load(dist + s + g[1])),
                            v_min(v_load(dist + s + g[2]), v_load(dist + s + g[3])));
    vu32 best = v_min(cur, v_min(v_sat_add(orth, 2), v_sat_add(diag, 3)));
    /* Lane i is regular when bit i of reg is set. */
    const vu32 reg = v_eq(v_and(v_set1(bi->reg), p->bits), p->bits);
    best = v_select(reg, cur, best);
    const int32_t k = forward ? -o[0] : o[2];
    if (k >= 1 && k < VW)
        best = scan_x(best, reg, (uint32_t)k, p, forward);
    const vu32 changed = v_andnot(v_eq(best, cur), ones);
    if (!v_nz(changed))
        return;
    v_store(dist + s, best);
    if (!ds)
        return;
    const vu32 src = v_select(changed, inf, best);
    for (int d = 0; d < 4; d++) {
        mark_readers(ds, dist, s, o[d], src, 2);
        mark_readers(ds, dist, s, g[d], src, 3);
    }
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

/* Candidate rows, in chunks allocated as the classification finds irregular lanes
 * (their number is not known before). The rows of one block are contiguous; a row is
 * named by chunk * CHUNK_ROWS + row. */
#define CHUNK_ROWS 4096u

typedef struct cand_store {
    uint32_t **chunk;
    uint32_t nchunks, cap, rows; /* rows: used in the last chunk */
} cand_store;

/* k <= VW contiguous rows; UINT32_MAX when the arena is exhausted. */
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
    if (!ds)
        return;
    const uint32_t b2 = sat_add(best, 2), b3 = sat_add(best, 3);
    for (int k = 0; k < CANDS; k++)
        if ((k < ORTH ? b2 : b3) < dist[c[k]])
            mark(ds, c[k] / VW);
}

static void relax_block(uint32_t *dist, dirty_set *ds, const block_info *bi, const cand_store *cs,
                        uint32_t b, const scan_perms *p, int forward)
{
    const uint32_t s = b * VW;
    if (bi->reg)
        relax_regular(dist, ds, bi, b, p, forward);
    uint32_t lanes = bi->irr;
    if (!lanes)
        return;
    const uint32_t *c = cand_row(cs, bi->ibase);
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

static int distance_field_body(const op_chf *chf, const uint8_t *area, uint32_t *dist,
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
    uint8_t *flags = op_arena_alloc(scratch, (size_t)nb + 9); /* whole 8-byte words */
    if (!info || !flags) {
        op_arena_release(scratch, am);
        return 1;
    }
    cand_store cs = {NULL, 0, n / (CHUNK_ROWS - VW) + 2, 0};
    cs.chunk = op_arena_alloc(scratch, (size_t)cs.cap * sizeof(uint32_t *));
    if (!cs.chunk) {
        op_arena_release(scratch, am);
        return 1;
    }
    dirty_set ds = {flags, 0};
    memset(flags, 0, (size_t)nb + 9);
    seeder sd = {chf, area, dist, n, full, 0};
    scan_perms p;
    scan_perms_init(&p);
    /* One forward pass seeds (just ahead), classifies, gathers the candidate rows and
     * relaxes every block (sweep 1, which marks nothing: nearly every block drops from
     * "unreached", so sweep 2 relaxes them all again and marks from then on). Every
     * dist[] a block reads is seeded first. The tail [full, n) is block nb. */
    for (uint32_t b = 0; b <= nb; b++) {
        block_info *bi = &info[b];
        const uint32_t s = b * VW;
        if (b < nb) {
            classify_block(chf, &sd, s, n, bi);
        } else {
            seed_to(&sd, n);
            uint32_t tail = 0;
            for (uint32_t t = full; t < n; t++)
                tail |= (uint32_t)(dist[t] != 0) << (t - full);
            *bi = (block_info){.reg = 0, .irr = tail};
        }
        if (!(bi->reg | bi->irr))
            continue;
        mark(&ds, b);
        if (bi->reg) {
            int64_t reach = s;
            for (int d = 0; d < 4; d++) {
                reach = reach > (int64_t)s + bi->orth[d] ? reach : (int64_t)s + bi->orth[d];
                reach = reach > (int64_t)s + bi->diag[d] ? reach : (int64_t)s + bi->diag[d];
            }
            seed_to(&sd, (uint64_t)reach + VW);
        }
        if (bi->irr) {
            bi->ibase = cand_alloc(&cs, scratch, (uint32_t)__builtin_popcount(bi->irr));
            if (bi->ibase == UINT32_MAX) {
                op_arena_release(scratch, am);
                return 1;
            }
            uint32_t *c = cand_row(&cs, bi->ibase), reach = 0;
            for (uint32_t lanes = bi->irr; lanes; lanes &= lanes - 1, c += CANDS) {
                gather_candidates(chf, s + (uint32_t)__builtin_ctz(lanes), c);
                for (int k = 0; k < CANDS; k++)
                    reach = c[k] > reach ? c[k] : reach;
            }
            seed_to(&sd, (uint64_t)reach + 1);
        }
        relax_block(dist, NULL, bi, &cs, b, &p, 1);
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
    for (int forward = 0; ds.pending; forward = !forward) {
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
                if (!ds.flag[b])
                    continue;
                ds.flag[b] = 0;
                ds.pending--;
                relaxed++;
                relax_block(dist, &ds, &info[b], &cs, b, &p, forward);
            }
        }
    }
    op_arena_release(scratch, am);
    return 0;
}

int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch)
{
    const int r = distance_field_body(chf, area, dist, scratch);
    op_simd_leave();
    return r;
}
