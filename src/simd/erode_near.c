/* Erosion's distances below 4, SIMD twin of src/scalar/erode_near.c (supplement §1.6;
 * the reasoning is in src/spans/erode.c, the contract in core/kernels.h). The same
 * three passes and the same bytes, in blocks of BS = 16 spans.
 *
 * Pass 1 learns each block's orthogonal offsets o[d] (-1, +rowS, +1, -rowN on a
 * single-floor row) from one lane's links, as the distance field's seeding does, and
 * finds the lanes whose four links sit there with plain u32 compares: for those
 * (*regular* lanes) every later read of a neighbour is a plain 16-byte load at s + o[d]
 * (areas in pass 1, distances in pass 2, masks in pass 3), so the links are read once
 * instead of three times and no load waits for a link. Each pass computes all 16 lanes
 * with byte vectors and then redoes the block's *irregular* lanes (non-boundary lanes
 * whose links sit elsewhere) one by one from their links, as the scalar twin does.
 * Boundary lanes need no neighbour: they stay 0 with mask 0 in every pass. The spans
 * past the last whole block are done one by one too. */
#include "simd/simd_width.h"
#include "simd/links_at.h"

#define BS 16u
#define FAR 0xffu

typedef simde__m128i v8; /* 16 u8 lanes */

static inline v8 b_load(const uint8_t *p) { return simde_mm_loadu_si128((const void *)p); }
static inline void b_store(uint8_t *p, v8 v) { simde_mm_storeu_si128((void *)p, v); }
static inline v8 b_set1(uint8_t x) { return simde_mm_set1_epi8((int8_t)x); }
/* All-ones in the lanes that are 0. */
static inline v8 b_zero(v8 v) { return simde_mm_cmpeq_epi8(v, simde_mm_setzero_si128()); }
static inline uint32_t b_bits(v8 v) { return (uint32_t)simde_mm_movemask_epi8(v); }

/* Per block: the orthogonal offsets of its regular lanes and its irregular lanes. */
typedef struct near_block {
    int32_t o[4];
    uint32_t irr;
} near_block;

/* The four neighbours of each irregular lane, in block order, kept by pass 1: passes 2
 * and 3 then never touch the links (on the demo world 4 % of the non-boundary lanes
 * are irregular, in 13 % of the blocks; reading their links again cost each of those
 * blocks a trip to memory per pass, which prefetching did not hide). Rows live in
 * chunks taken from the arena as pass 1 finds them; row r is chunk r / CHUNK. */
#define CHUNK 4096u

typedef struct irr_rows {
    uint32_t (**chunk)[4];
    uint32_t count, cap; /* rows; chunk pointers */
} irr_rows;

static inline uint32_t *irr_row(const irr_rows *ir, uint32_t r)
{
    return ir->chunk[r / CHUNK][r % CHUNK];
}

/* Appends s's links; 0 when the arena is exhausted. */
static int irr_push(irr_rows *ir, op_arena *a, const op_chf *chf, uint32_t s)
{
    if (ir->count % CHUNK == 0) {
        const uint32_t c = ir->count / CHUNK;
        if (c == ir->cap || !(ir->chunk[c] = op_arena_alloc(a, (size_t)CHUNK * 4 * sizeof(uint32_t))))
            return 0;
    }
    uint32_t *row = irr_row(ir, ir->count++);
    for (int d = 0; d < 4; d++)
        row[d] = op_chf_link(chf, d, s);
    return 1;
}

/* One span, from its links (the scalar twin's passes; irregular lanes and the tail). */
static inline uint8_t boundary_one(const op_chf *chf, const uint8_t *area, uint32_t s)
{
    if (area[s] == 0 || chf->mutual[s] != 0xf)
        return 0;
    for (int d = 0; d < 4; d++)
        if (area[op_chf_link(chf, d, s)] == 0)
            return 0;
    return FAR;
}

/* A non-boundary span with neighbours nb[]: its mask of boundary neighbours. */
static inline uint8_t two_one(const uint8_t *d, const uint32_t *nb)
{
    return (uint8_t)((d[nb[0]] == 0) | (d[nb[1]] == 0) << 1 | (d[nb[2]] == 0) << 2 |
                     (d[nb[3]] == 0) << 3);
}

/* A non-boundary span at FAR with neighbours nb[]: whether a diagonal target is a
 * boundary span. */
static inline int three_one(const uint8_t *m, const uint32_t *nb)
{
    return ((m[nb[0]] | m[nb[2]]) & 0xa) || ((m[nb[1]] | m[nb[3]]) & 0x5);
}

/* The same for the spans past the last block, from their links. */
static inline void links_of(const op_chf *chf, uint32_t s, uint32_t *nb)
{
    for (int d = 0; d < 4; d++)
        nb[d] = op_chf_link(chf, d, s);
}

/* Lanes of [s, s + BS) whose four links sit at s + i + o[d]: the stored deltas equal to
 * o[d] (dl_acc; a far link's lane is irregular). */
static inline uint32_t orth_lanes(const op_chf *chf, uint32_t s, const int32_t *o)
{
    dl_acc m;
    dl_acc_init(&m, BS);
    for (int d = 0; d < 4; d++)
        dl_acc_and(&m, chf->dlink[d] + s, o[d], BS);
    return dl_acc_mask(&m, BS);
}

/* Offsets whose 16-byte loads lie inside [0, n). */
static inline int inside4(uint32_t s, const int32_t *o, uint32_t n)
{
    for (int d = 0; d < 4; d++) {
        const int64_t lo = (int64_t)s + o[d];
        if (lo < 0 || lo + BS > (int64_t)n)
            return 0;
    }
    return 1;
}

/* Lane t's link offsets into o2 and the lanes they fit (0 when a load would leave). */
static inline uint32_t learn(const op_chf *chf, uint32_t s, uint32_t t, uint32_t n, int32_t *o2)
{
    for (int d = 0; d < 4; d++)
        o2[d] = (int32_t)(op_chf_link(chf, d, t) - t);
    return inside4(s, o2, n) ? orth_lanes(chf, s, o2) : 0;
}

/* Pass 1 over block [s, s + BS): d, the block's offsets and irregular lanes. last: the
 * offsets last learnt (a row's blocks mostly share them). */
static int pass1_block(const op_chf *chf, const uint8_t *area, uint8_t *d, uint32_t s,
                       uint32_t n, int32_t *last, near_block *nb, irr_rows *ir, op_arena *a)
{
    const v8 ar = b_load(area + s);
    const v8 candv = simde_mm_andnot_si128(b_zero(ar), simde_mm_cmpeq_epi8(b_load(chf->mutual + s), b_set1(0xf)));
    const uint32_t cand = b_bits(candv);
    uint32_t reg = 0;
    int32_t o[4] = {0, 0, 0, 0};
    if (cand) {
        if (inside4(s, last, n)) {
            reg = orth_lanes(chf, s, last) & cand;
            memcpy(o, last, sizeof o);
        }
        for (int k = 0; k < 2 && reg != cand; k++) {
            const uint32_t left = cand & ~reg;
            const uint32_t i = k ? 31u - (uint32_t)__builtin_clz(left) : (uint32_t)__builtin_ctz(left);
            int32_t o2[4];
            const uint32_t reg2 = learn(chf, s, s + i, n, o2) & cand;
            if (__builtin_popcount(reg2) > __builtin_popcount(reg)) {
                reg = reg2;
                memcpy(o, o2, sizeof o);
                memcpy(last, o2, sizeof o);
            }
        }
    }
    v8 nonb = simde_mm_setzero_si128();
    if (reg) {
        const v8 z = simde_mm_or_si128(
            simde_mm_or_si128(b_zero(b_load(area + s + o[0])), b_zero(b_load(area + s + o[1]))),
            simde_mm_or_si128(b_zero(b_load(area + s + o[2])), b_zero(b_load(area + s + o[3]))));
        nonb = simde_mm_andnot_si128(z, candv);
    }
    b_store(d + s, nonb); /* FAR: non-boundary */
    uint32_t irr = 0;
    for (uint32_t lanes = cand & ~reg; lanes; lanes &= lanes - 1) {
        const uint32_t i = (uint32_t)__builtin_ctz(lanes);
        d[s + i] = boundary_one(chf, area, s + i);
        if (d[s + i]) {
            irr |= 1u << i;
            if (!irr_push(ir, a, chf, s + i))
                return 0;
        }
    }
    memcpy(nb->o, o, sizeof o);
    nb->irr = irr;
    return 1;
}

/* Pass 2 over block [s, s + BS). Writing 2 over FAR keeps every "is 0" that a later
 * load (this block's or the next one's) tests. */
/* Returns the next irregular row. */
static uint32_t pass2_block(uint8_t *d, uint8_t *m, uint32_t s, const near_block *nb,
                            const irr_rows *ir, uint32_t r)
{
    const int32_t *o = nb->o;
    const v8 cur = b_load(d + s);
    const v8 k = simde_mm_and_si128(
        simde_mm_or_si128(
            simde_mm_or_si128(simde_mm_and_si128(b_zero(b_load(d + s + o[0])), b_set1(1)),
                              simde_mm_and_si128(b_zero(b_load(d + s + o[1])), b_set1(2))),
            simde_mm_or_si128(simde_mm_and_si128(b_zero(b_load(d + s + o[2])), b_set1(4)),
                              simde_mm_and_si128(b_zero(b_load(d + s + o[3])), b_set1(8)))),
        simde_mm_andnot_si128(b_zero(cur), b_set1(0xf)));
    const v8 none = b_zero(k); /* no boundary neighbour (or a boundary lane) */
    b_store(m + s, k);
    b_store(d + s, simde_mm_or_si128(simde_mm_and_si128(none, cur), simde_mm_andnot_si128(none, b_set1(2))));
    for (uint32_t lanes = nb->irr; lanes; lanes &= lanes - 1) {
        const uint32_t t = s + (uint32_t)__builtin_ctz(lanes);
        const uint8_t kt = two_one(d, irr_row(ir, r++));
        m[t] = kt;
        d[t] = kt ? 2 : FAR;
    }
    return r;
}

/* Pass 3 over block [s, s + BS); limit 0: no erosion. */
static uint32_t pass3_block(uint8_t *area, uint8_t *d, const uint8_t *m, uint32_t s,
                            const near_block *nb, const irr_rows *ir, uint32_t r, uint32_t limit)
{
    const int32_t *o = nb->o;
    const v8 cur = b_load(d + s);
    const v8 q = simde_mm_or_si128(
        simde_mm_and_si128(simde_mm_or_si128(b_load(m + s + o[0]), b_load(m + s + o[2])), b_set1(0xa)),
        simde_mm_and_si128(simde_mm_or_si128(b_load(m + s + o[1]), b_load(m + s + o[3])), b_set1(0x5)));
    const v8 three = simde_mm_andnot_si128(b_zero(q), simde_mm_cmpeq_epi8(cur, b_set1(FAR)));
    const v8 dn = simde_mm_or_si128(simde_mm_andnot_si128(three, cur), simde_mm_and_si128(three, b_set1(3)));
    uint8_t keep_d[BS], keep_a[BS];
    const uint32_t irr = nb->irr;
    if (irr) {
        b_store(keep_d, cur);
        memcpy(keep_a, area + s, BS);
    }
    b_store(d + s, dn);
    if (limit) { /* lanes below limit: subs(limit, dn) != 0 */
        const v8 keep = b_zero(simde_mm_subs_epu8(b_set1((uint8_t)limit), dn));
        b_store(area + s, simde_mm_and_si128(keep, b_load(area + s)));
    }
    for (uint32_t lanes = irr; lanes; lanes &= lanes - 1) {
        const uint32_t i = (uint32_t)__builtin_ctz(lanes), t = s + i;
        uint8_t dt = keep_d[i];
        if (dt == FAR && three_one(m, irr_row(ir, r)))
            dt = 3;
        r++;
        d[t] = dt;
        area[t] = dt < limit ? OP_NULL_AREA : keep_a[i];
    }
    return r;
}

static int erode_near_body(const op_chf *chf, uint8_t *area, uint8_t *d, uint8_t *m,
                           uint32_t limit, op_arena *scratch)
{
    const uint32_t n = chf->span_count, full = n - n % BS, nblocks = full / BS;
    const op_arena_mark am = op_arena_get_mark(scratch);
    near_block *info = nblocks ? op_arena_alloc(scratch, (size_t)nblocks * sizeof *info) : NULL;
    if (nblocks && !info) /* the scalar twin needs no scratch */
        return op_erode_near_scalar(chf, area, d, m, limit, scratch);
    irr_rows ir = {NULL, 0, n / CHUNK + 1};
    ir.chunk = op_arena_alloc(scratch, (size_t)ir.cap * sizeof *ir.chunk);
    if (!ir.chunk) {
        op_arena_release(scratch, am);
        return op_erode_near_scalar(chf, area, d, m, limit, scratch);
    }
    int32_t last[4] = {0, 0, 0, 0};
    for (uint32_t b = 0; b < nblocks; b++)
        if (!pass1_block(chf, area, d, b * BS, n, last, &info[b], &ir, scratch)) {
            op_arena_release(scratch, am); /* nothing but d written yet */
            return op_erode_near_scalar(chf, area, d, m, limit, scratch);
        }
    for (uint32_t s = full; s < n; s++)
        d[s] = boundary_one(chf, area, s);
    if (limit <= 2) {
        if (limit)
            for (uint32_t s = 0; s < n; s++)
                area[s] = d[s] == 0 ? OP_NULL_AREA : area[s];
        op_arena_release(scratch, am);
        return 0;
    }
    for (uint32_t b = 0, r = 0; b < nblocks; b++)
        r = pass2_block(d, m, b * BS, &info[b], &ir, r);
    uint32_t nb[4];
    for (uint32_t s = full; s < n; s++) {
        links_of(chf, s, nb);
        const uint8_t k = d[s] ? two_one(d, nb) : 0;
        m[s] = k;
        d[s] = k ? 2 : d[s];
    }
    const uint32_t lim = limit <= 4 ? limit : 0;
    for (uint32_t b = 0, r = 0; b < nblocks; b++)
        r = pass3_block(area, d, m, b * BS, &info[b], &ir, r, lim);
    for (uint32_t s = full; s < n; s++) {
        links_of(chf, s, nb);
        if (d[s] == FAR && three_one(m, nb))
            d[s] = 3;
        if (d[s] < lim)
            area[s] = OP_NULL_AREA;
    }
    op_arena_release(scratch, am);
    return 0;
}

int OP_FN(op_erode_near)(const op_chf *chf, uint8_t *area, uint8_t *d, uint8_t *m,
                         uint32_t limit, op_arena *scratch)
{
    const int r = erode_near_body(chf, area, d, m, limit, scratch);
    op_simd_leave();
    return r;
}
