/* Triangle clip, many small triangles at once (supplement §1.3; spans/raster_clip.h,
 * OP_CLIP_BATCH_FN). Scalar twin: op_clip_batch_scalar (src/scalar/raster_clip.c), which
 * runs op_clip_rows_scalar, Recast's rasterizeTri/dividePoly, per lane.
 *
 * Lane l of every vector is triangle (or carried polygon) h + l of the batch (h = 0 on
 * avx512, whose vectors hold all 16; 0 and 8 on avx2, which runs two halves): a polygon
 * is OP_CLIP_BATCH_VERTS vertex slots, each slot one vector per coordinate (structure of arrays), with a
 * vertex count per lane. A split of dividePoly is, slot by slot, the scalar twin's
 * operations on the scalar twin's operands in every lane: δ = plane − v, the edge
 * b -> a from the previous slot (slot 0: the lane's last vertex), the crossing point
 * b + (a − b)·(δb / (δb − δa)); then the candidates c0 a0 c1 a1 .. (crossing point, then
 * vertex) are compacted in order, each to the slot its lane's running count names.
 * Each lane's kept candidates are a bit mask (its signature); lanes of one signature
 * are compacted together (the same slots in each, plain moves for the first group of
 * lanes, blends for the others), so no lane waits for another and a batch of one shape
 * class usually needs no blends. So every vertex is bit-identical to the scalar
 * twin's. All lanes walk rows z0 + r and, in each row piece, columns x0 + c in step;
 * a lane past its own last row or column is masked.
 *
 * Differences in organisation, none in the pieces:
 *  - min and max over a row piece's x and a column piece's y are taken in any order;
 *    the order matters only for NaN and for the sign of a zero, which lands in the same
 *    cell and span. NaN cannot arise while every coordinate is within 2^120 (checked
 *    per lane; the grid's own numbers are checked by the caller as for op_clip_rows).
 *  - a column piece is never built (only its vertex count and y range are needed), nor
 *    the z of row pieces and column remainders (never read), nor the remainder after a
 *    row's last column. The polygon left after the last row is (rest: the next band's
 *    state).
 *  - a lane whose polygon would outgrow the slots, or that has more rows or columns than
 *    the batch holds, is returned to the caller, which clips that triangle alone. */
#include "simd/simd_width.h"
#include "spans/raster_clip.h"

OP_CLIP_BATCH_FN(OP_FN(op_clip_batch));

#if OP_VEC_BITS < 256
/* Variants of 128-bit vectors have no batch kernel (emulated, its lanes would cost
 * more than they save, and compile slowly): the init ladder leaves the scalar twin in
 * the slot, and the rasterizer then clips every triangle alone. */
OP_CLIP_BATCH_FN(OP_FN(op_clip_batch))
{
    return op_clip_batch_scalar(g, b, lanes, z_emit, x_lo, x_hi);
}
#else
/* cmake/simd.cmake silences GCC's note on the passing ABI of 256-bit vectors. */

#define K OP_CLIP_BATCH_VERTS
#define RB_LIMIT 1.329228e36f /* 2^120 */

/* The lane primitives: RB_W lanes of 32 bits; lane masks (vm) are mask registers on
 * avx512 and all-ones lanes on avx2. avx512 runs a batch's 16 lanes in one 512-bit
 * vector: Zen 4 executes a 512-bit operation as two 256-bit halves, so the arithmetic
 * per lane costs the same, but the scalar bookkeeping of every split (its signature
 * groups, branches and movemasks) and the chain of masks are paid once for sixteen
 * triangles instead of eight. avx2 runs the batch as two halves of 8 (rb_clip twice). */
#if OP_VEC_BITS >= 512 && defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
typedef __m512 vf;
typedef __m512i vi;
#define RB_W 16
#define RV(name) _mm512_##name
typedef __mmask16 vm; /* lane masks in mask registers */
OP_VINLINE vf rb_sel(vf a, vf b, vm m) { return _mm512_mask_blend_ps(m, a, b); }
OP_VINLINE vi rb_seli(vi a, vi b, vm m) { return _mm512_mask_blend_epi32(m, a, b); }
OP_VINLINE vm rb_ge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
OP_VINLINE vm rb_gt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
OP_VINLINE vm rb_lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
OP_VINLINE vm rb_le(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
OP_VINLINE vm rb_eq(vi a, vi b) { return _mm512_cmpeq_epi32_mask(a, b); }
OP_VINLINE vm rb_gti(vi a, vi b) { return _mm512_cmpgt_epi32_mask(a, b); }
OP_VINLINE vm m_and(vm a, vm b) { return (vm)(a & b); }
OP_VINLINE vm m_or(vm a, vm b) { return (vm)(a | b); }
OP_VINLINE vm m_andnot(vm a, vm b) { return (vm)(~a & b); } /* ~a & b */
OP_VINLINE vm m_xor(vm a, vm b) { return (vm)(a ^ b); }
OP_VINLINE vm m_not(vm a) { return (vm)~a; }
OP_VINLINE vm m_none(void) { return 0; }
OP_VINLINE unsigned rb_movemask(vm m) { return (unsigned)m; }
OP_VINLINE int m_any(vm m) { return m != 0; }
OP_VINLINE vi m_keep(vm m, vi x) { return _mm512_maskz_mov_epi32(m, x); } /* m ? x : 0 */
OP_VINLINE vf m_keepf(vm m, vf x) { return _mm512_maskz_mov_ps(m, x); }
OP_VINLINE vi m_clear(vm m, vi x) { return _mm512_maskz_mov_epi32((vm)~m, x); } /* m ? 0 : x */
OP_VINLINE vi m_inc(vi c, vm m) { return _mm512_mask_add_epi32(c, m, c, _mm512_set1_epi32(1)); }
OP_VINLINE int rb_hmax(vi v) { return _mm512_reduce_max_epi32(v); }
OP_VINLINE vi rb_iota(void)
{
    return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
OP_VINLINE vf rb_floor(vf a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
OP_VINLINE vf rb_ceil(vf a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
#define rv_or_si _mm512_or_si512
#define rv_setzero_si _mm512_setzero_si512
#define rv_loadu_si _mm512_loadu_si512
#define rv_storeu_si _mm512_storeu_si512
#else
#include <simde/x86/avx2.h>
typedef simde__m256 vf;
typedef simde__m256i vi;
#define RB_W 8
#define RV(name) simde_mm256_##name
OP_VINLINE vf rb_sel(vf a, vf b, vi m) { return simde_mm256_blendv_ps(a, b, simde_mm256_castsi256_ps(m)); }
OP_VINLINE vi rb_seli(vi a, vi b, vi m)
{
    return simde_mm256_castps_si256(simde_mm256_blendv_ps(
        simde_mm256_castsi256_ps(a), simde_mm256_castsi256_ps(b), simde_mm256_castsi256_ps(m)));
}
typedef vi vm; /* lane masks as all-ones lanes */
OP_VINLINE vi rb_ge(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ)); }
OP_VINLINE vi rb_gt(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ)); }
OP_VINLINE vi rb_lt(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ)); }
OP_VINLINE vi rb_le(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ)); }
OP_VINLINE vi rb_eq(vi a, vi b) { return simde_mm256_cmpeq_epi32(a, b); }
OP_VINLINE vi rb_gti(vi a, vi b) { return simde_mm256_cmpgt_epi32(a, b); }
OP_VINLINE unsigned rb_movemask(vi m) { return (unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(m)); }
OP_VINLINE vm m_and(vm a, vm b) { return simde_mm256_and_si256(a, b); }
OP_VINLINE vm m_or(vm a, vm b) { return simde_mm256_or_si256(a, b); }
OP_VINLINE vm m_andnot(vm a, vm b) { return simde_mm256_andnot_si256(a, b); } /* ~a & b */
OP_VINLINE vm m_xor(vm a, vm b) { return simde_mm256_xor_si256(a, b); }
OP_VINLINE vm m_not(vm a) { return simde_mm256_andnot_si256(a, simde_mm256_set1_epi32(-1)); }
OP_VINLINE vm m_none(void) { return simde_mm256_setzero_si256(); }
OP_VINLINE int m_any(vm m) { return !simde_mm256_testz_si256(m, m); }
OP_VINLINE vi m_keep(vm m, vi x) { return simde_mm256_and_si256(m, x); } /* m ? x : 0 */
OP_VINLINE vf m_keepf(vm m, vf x) { return simde_mm256_and_ps(x, simde_mm256_castsi256_ps(m)); }
OP_VINLINE vi m_clear(vm m, vi x) { return simde_mm256_andnot_si256(m, x); } /* m ? 0 : x */
OP_VINLINE vi m_inc(vi c, vm m) { return simde_mm256_sub_epi32(c, m); }
OP_VINLINE int rb_hmax(vi v)
{
    simde__m128i m = simde_mm_max_epi32(simde_mm256_castsi256_si128(v),
                                        simde_mm256_extracti128_si256(v, 1));
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_cvtsi128_si32(m);
}
OP_VINLINE vi rb_iota(void) { return simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
OP_VINLINE vf rb_floor(vf a) { return simde_mm256_floor_ps(a); }
OP_VINLINE vf rb_ceil(vf a) { return simde_mm256_ceil_ps(a); }
#define rv_or_si simde_mm256_or_si256
#define rv_setzero_si simde_mm256_setzero_si256
#define rv_loadu_si simde_mm256_loadu_si256
#define rv_storeu_si simde_mm256_storeu_si256
#endif
#define rv_add_epi32 RV(add_epi32)
#define rv_sub_epi32 RV(sub_epi32)
#define rv_max_epi32 RV(max_epi32)
#define rv_min_epi32 RV(min_epi32)
#define rv_add_ps RV(add_ps)
#define rv_sub_ps RV(sub_ps)
#define rv_mul_ps RV(mul_ps)
#define rv_div_ps RV(div_ps)
#define rv_min_ps RV(min_ps)
#define rv_max_ps RV(max_ps)
#define rv_andnot_ps RV(andnot_ps)
#define rv_cvtepi32_ps RV(cvtepi32_ps)
#define rv_cvttps_epi32 RV(cvttps_epi32)
#define rv_set1_epi32 RV(set1_epi32)
#define rv_set1_ps RV(set1_ps)
#define rv_setzero_ps RV(setzero_ps)
#define rv_loadu_ps RV(loadu_ps)
#define rv_storeu_ps RV(storeu_ps)

OP_VINLINE vi rb_or(vi a, vi b) { return rv_or_si(a, b); }
OP_VINLINE vi rb_set(int x) { return rv_set1_epi32(x); }
OP_VINLINE vf rb_setf(float x) { return rv_set1_ps(x); }

/* A polygon per lane: slots [0, n) of c[coordinate]. */
typedef struct rb_poly {
    vf c[3][K];
    vi n;
    int top; /* no lane has more than top vertices */
} rb_poly;

/* (int)f clamped to [lo, hi] as op_clip_trunc_clamp (no NaN here). */
OP_VINLINE vi rb_trunc_clamp(vf f, int lo, int hi)
{
    vi r = rv_cvttps_epi32(f);
    r = rb_seli(r, rb_set(hi), m_not(rb_lt(f, rb_setf((float)hi))));
    r = rb_seli(r, rb_set(lo), m_not(rb_gt(f, rb_setf((float)lo))));
    return r;
}

/* One split of a polygon at a plane along one coordinate (supplement §1.3, dividePoly):
 * per slot, whether the edge into it crosses and whether side 1 (δ >= 0, out1) keeps
 * its vertex, the crossing points, and per lane and side (1, or 2: δ <= 0, out2) the
 * signature of the candidates that side keeps. */
typedef struct rb_edges {
    vm cross[K], keep1[K]; /* keep1: the vertex is a candidate of side 1 */
    vi sig[2]; /* per lane and side, bit j: candidate j (c0 a0 c1 a1 ..) is kept */
    vf cp[3][K]; /* crossing point of edge (slot - 1) -> slot */
} rb_edges;

/* Side 1 keeps a vertex with δ > 0 after a crossing, δ >= 0 otherwise; side 2 δ < 0,
 * δ <= 0 (without NaN, δ < 0 is !(δ >= 0) and δ <= 0 is !(δ > 0)). Lanes outside act are
 * never read (their edges may be skipped). */
OP_VINLINE void rb_edges_of(const rb_poly *p, int axis, vf plane, int nc, rb_edges *e, vm act)
{
    const int top = p->top;
    vf lastc[3];
    /* The last vertex of each lane of act. */
    const unsigned am = (unsigned)rb_movemask(act);
    const unsigned full = (unsigned)rb_movemask(rb_eq(p->n, rb_set(top)));
    if (top > 0 && (full & am) == am) {
        for (int c = 0; c < nc; c++)
            lastc[c] = p->c[c][top - 1];
    } else {
        const vi last_i = rv_sub_epi32(p->n, rb_set(1));
        for (int c = 0; c < nc; c++)
            lastc[c] = p->c[c][0];
        for (int i = 1; i < top; i++) {
            const vm m = rb_eq(last_i, rb_set(i));
            for (int c = 0; c < nc; c++)
                lastc[c] = rb_sel(lastc[c], p->c[c][i], m);
        }
    }
    const vf zero = rv_setzero_ps();
    vf db = rv_sub_ps(plane, lastc[axis]);
    vm geb = rb_ge(db, zero);
    e->sig[0] = e->sig[1] = rv_setzero_si();
    for (int i = 0; i < top; i++) {
        const vf d = rv_sub_ps(plane, p->c[axis][i]);
        const vm ge = rb_ge(d, zero), gt = rb_gt(d, zero);
        const vm valid = rb_gti(p->n, rb_set(i));
        const vm cross = m_and(valid, m_xor(ge, geb));
        e->cross[i] = cross;
        /* Side 1: cross ? gt : ge, side 2: !(cross ? ge : gt); gt implies ge. */
        const vm keep1 = m_and(valid, m_or(gt, m_andnot(cross, ge)));
        const vm keep2 = m_andnot(m_and(ge, m_or(gt, cross)), valid);
        e->keep1[i] = keep1;
        geb = ge;
        const vi cb = m_keep(cross, rb_set(1 << 2 * i)), kb = rb_set(2 << 2 * i);
        e->sig[0] = rb_or(e->sig[0], rb_or(cb, m_keep(keep1, kb)));
        e->sig[1] = rb_or(e->sig[1], rb_or(cb, m_keep(keep2, kb)));
        if (m_any(m_and(cross, act))) {
            const vf s = rv_div_ps(db, rv_sub_ps(db, d));
            for (int c = 0; c < nc; c++) {
                const vf b = i ? p->c[c][i - 1] : lastc[c];
                const vf a = p->c[c][i];
                e->cp[c][i] = rv_add_ps(b, rv_mul_ps(rv_sub_ps(a, b), s));
            }
        } else {
            for (int c = 0; c < nc; c++)
                e->cp[c][i] = zero;
        }
        db = d;
    }
}

/* The side's candidates compacted in order into o (coordinates [0, nc)), count into
 * o->n; lanes of act whose count exceeds K set *over. Lanes are taken in groups of one
 * signature (the candidates they keep): a group's candidates go to the same slots in
 * each of its lanes, the first group's by plain moves, a later group's by blends where
 * an earlier group wrote the slot. The rasterizer batches triangles of like shape, so
 * most compactions have one group (and lanes whose side keeps nothing, count 0).
 * Lanes outside act get slots that are never read. */
OP_VINLINE void rb_compact(const rb_poly *p, const rb_edges *e, int side, int nc, rb_poly *o,
                           vm *over, vm act)
{
    const unsigned am = (unsigned)rb_movemask(act);
    const vi sig = e->sig[side - 1];
    int32_t sg[RB_W];
    rv_storeu_si((void *)sg, sig);
    const unsigned zm = (unsigned)rb_movemask(rb_eq(sig, rv_setzero_si()));
    unsigned left = am & ~zm; /* lanes of act with candidates, not yet written */
    vi n = rv_setzero_si();
    int filled = 0, top = 0; /* slots [0, filled) written */
    while (left) {
        const int32_t s0 = sg[__builtin_ctz(left)];
        const vm g = rb_eq(sig, rb_set(s0));
        left &= ~(unsigned)rb_movemask(g);
        int m = 0;
        for (unsigned bits = (unsigned)s0; bits; bits &= bits - 1) {
            const int j = __builtin_ctz(bits), i = j >> 1;
            if (m == K) {
                m = K + 1; /* the group's lanes are over */
                break;
            }
            if (m >= filled) {
                for (int c = 0; c < nc; c++)
                    o->c[c][m] = j & 1 ? p->c[c][i] : e->cp[c][i];
            } else {
                for (int c = 0; c < nc; c++)
                    o->c[c][m] = rb_sel(o->c[c][m], j & 1 ? p->c[c][i] : e->cp[c][i], g);
            }
            m++;
        }
        n = rb_seli(n, rb_set(m), g);
        if (m > top)
            top = m;
        filled = top < K ? top : K;
    }
    *over = m_or(*over, m_and(act, rb_gti(n, rb_set(K))));
    o->n = n;
    o->top = top < K ? top : K;
}

/* Lanes [h, h + RB_W) of b, of which the first `lanes` are in use; returns those the
 * caller must clip alone (bit l for lane h + l). */
static unsigned OP_FN(rb_clip)(const op_clip_grid *g, op_clip_batch *b, int h, int lanes, int z_emit,
                        int x_lo, int x_hi)
{
    const vm lane_ok = rb_gti(rb_set(lanes), rb_iota());
    vm over = m_not(lane_ok); /* lanes past `lanes`: not ours */
    rb_poly P;
    P.n = rv_loadu_si((const void *)(b->n + h));
    over = m_or(over, m_or(rb_gti(P.n, rb_set(K)), rb_gti(rb_set(0), P.n)));
    for (int k = 0; k < K; k++) {
        const vm valid = rb_gti(P.n, rb_set(k));
        for (int c = 0; c < 3; c++) {
            /* Slots past a lane's count read as 0. */
            P.c[c][k] = m_keepf(valid, rv_loadu_ps(b->v[3 * k + c] + h));
            const vf a = rv_andnot_ps(rb_setf(-0.0f), P.c[c][k]);
            over = m_or(over, m_not(rb_le(a, rb_setf(RB_LIMIT))));
        }
    }
    P.top = rb_hmax(m_clear(over, P.n));
    const vi z0 = rv_loadu_si((const void *)(b->z0 + h));
    const vi nrows = rv_sub_epi32(rv_loadu_si((const void *)(b->z1 + h)), z0);
    over = m_or(over, rb_gti(nrows, rb_set(OP_CLIP_BATCH_ROWS - 1)));
    over = m_or(over, rb_gti(rb_set(0), nrows));
    vi pm = rv_setzero_si(); /* piece bits */
    const int rows = rb_hmax(m_clear(over, nrows)) + 1;
    const vf cs = rb_setf(g->cs), bx = rb_setf(g->bmin[0]), bz = rb_setf(g->bmin[2]);
    const vf ics = rb_setf(g->ics), ich = rb_setf(g->ich), by = rb_setf(g->bmin[1]);
    const vf top_y = rb_setf(g->by), zero = rv_setzero_ps();
    const vf inf = rb_setf(INFINITY), ninf = rb_setf(-INFINITY);
    const int xl = x_lo > 0 ? x_lo : 0;
    rb_poly PB, QA, QB; /* P's other buffer; a row piece and its column remainder */
    rb_poly *pp = &P, *pr = &PB;
    for (int r = 0; r < rows; r++) {
        const vm act = m_andnot(over, rb_gti(rv_add_epi32(nrows, rb_set(1)), rb_set(r)));
        if (!m_any(act))
            break;
        const vi z = rv_add_epi32(z0, rb_set(r));
        const vf plane = rv_add_ps(
            rv_add_ps(bz, rv_mul_ps(rv_cvtepi32_ps(z), cs)), cs);
        rb_edges e;
        rb_edges_of(pp, 2, plane, 3, &e, act);
        rb_poly *Q = &QA;
        vm ov = m_none();
        rb_compact(pp, &e, 1, 2, Q, &ov, act);
        rb_compact(pp, &e, 2, 3, pr, &ov, act);
        over = m_or(over, m_and(act, ov));
        /* The rest goes on in the lanes of this row. When those are all the lanes still
         * ours (a batch of one shape class has the same rows in every lane), the rest is
         * the polygon: the buffers swap (a lane that left is never read again). */
        const vm ract = m_andnot(over, act);
        if (!m_any(m_andnot(ract, m_not(over)))) {
            rb_poly *t = pp;
            pp = pr;
            pr = t;
        } else {
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < pr->top; k++)
                    pp->c[c][k] = rb_sel(pp->c[c][k], pr->c[c][k], ract);
            pp->n = rb_seli(pp->n, pr->n, ract);
            const int t = rb_hmax(m_clear(over, pp->n));
            pp->top = t > pr->top ? t : pr->top;
        }
        /* Row pieces of 3+ vertices in rows >= z_emit, >= 0. */
        vm rowact = m_and(ract, rb_gti(Q->n, rb_set(2)));
        rowact = m_and(rowact, rb_gti(z, rb_set((z_emit > 0 ? z_emit : 0) - 1)));
        if (!m_any(rowact))
            continue;
        vf mnx = inf, mxx = ninf;
        for (int k = 0; k < Q->top; k++) {
            const vm m = rb_gti(Q->n, rb_set(k));
            mnx = rv_min_ps(mnx, rb_sel(inf, Q->c[0][k], m));
            mxx = rv_max_ps(mxx, rb_sel(ninf, Q->c[0][k], m));
        }
        /* op_clip_row_columns. */
        vi xa = rb_trunc_clamp(rv_mul_ps(rv_sub_ps(mnx, bx), ics), -2, g->w);
        vi xb = rb_trunc_clamp(rv_mul_ps(rv_sub_ps(mxx, bx), ics), -2, g->w);
        rowact = m_andnot(m_or(rb_gti(rb_set(0), xb), rb_gti(xa, rb_set(g->w - 1))), rowact);
        xa = rv_max_epi32(xa, rb_set(-1));
        xb = rv_min_epi32(xb, rb_set(g->w - 1));
        xb = rv_min_epi32(xb, rb_set(x_hi));
        const vi ncols = rv_sub_epi32(xb, xa); /* columns - 1 */
        over = m_or(over, m_and(rowact, rb_gti(ncols, rb_set(OP_CLIP_BATCH_COLS - 1))));
        rowact = m_andnot(over, rowact);
        rowact = m_and(rowact, rb_gti(ncols, rb_set(-1)));
        if (!m_any(rowact))
            continue;
        rv_storeu_si((void *)(b->x0[r] + h), xa);
        const int cols = rb_hmax(m_keep(rowact, ncols)) + 1;
        for (int c = 0; c < cols; c++) {
            const vm cact = m_and(rowact, rb_gti(ncols, rb_set(c - 1)));
            const vi x = rv_add_epi32(xa, rb_set(c));
            const vf xp = rv_add_ps(
                rv_add_ps(bx, rv_mul_ps(rv_cvtepi32_ps(x), cs)), cs);
            rb_edges ce;
            rb_edges_of(Q, 0, xp, 2, &ce, cact);
            /* The column piece: its vertex count and y range. */
            vi cnt = rv_setzero_si();
            vf lo = inf, hi = ninf;
            for (int k = 0; k < Q->top; k++) {
                const vm kc = ce.cross[k], ka = ce.keep1[k];
                cnt = m_inc(m_inc(cnt, kc), ka);
                lo = rv_min_ps(lo, rb_sel(inf, ce.cp[1][k], kc));
                hi = rv_max_ps(hi, rb_sel(ninf, ce.cp[1][k], kc));
                lo = rv_min_ps(lo, rb_sel(inf, Q->c[1][k], ka));
                hi = rv_max_ps(hi, rb_sel(ninf, Q->c[1][k], ka));
            }
            vm emit = m_and(cact, rb_gti(cnt, rb_set(2)));
            emit = m_and(emit, rb_gti(x, rb_set(xl - 1)));
            /* op_clip_piece_span. */
            vf ymin = rv_sub_ps(lo, by), ymax = rv_sub_ps(hi, by);
            emit = m_andnot(m_or(rb_lt(ymax, zero), rb_gt(ymin, top_y)), emit);
            ymin = rb_sel(ymin, zero, rb_lt(ymin, zero));
            ymax = rb_sel(ymax, top_y, rb_gt(ymax, top_y));
            const vf fl = rb_floor(rv_mul_ps(ymin, ich));
            const vf ce_ = rb_ceil(rv_mul_ps(ymax, ich));
            const vi smin = rb_trunc_clamp(fl, 0, 0xffff - 1);
            vi smax = rb_trunc_clamp(ce_, 0, 0xffff);
            smax = rv_max_epi32(smax, rv_add_epi32(smin, rb_set(1)));
            const int slot = r * OP_CLIP_BATCH_COLS + c;
            rv_storeu_si((void *)(b->smin[slot] + h), smin);
            rv_storeu_si((void *)(b->smax[slot] + h), smax);
            pm = rb_or(pm, m_keep(emit, rb_set(1 << slot)));
            if (c + 1 == cols)
                break; /* the remainder is not needed */
            /* The remainder goes on in the lanes that have more columns; the others
             * never read the row piece again, so the buffers swap. */
            rb_poly *Q2 = Q == &QA ? &QB : &QA;
            vm ov2 = m_none();
            const vm more = m_and(cact, rb_gti(ncols, rb_set(c)));
            rb_compact(Q, &ce, 2, 2, Q2, &ov2, more);
            over = m_or(over, m_and(more, ov2));
            Q = Q2;
            rowact = m_andnot(over, rowact);
        }
    }
    rv_storeu_si((void *)(b->mask + h), pm);
    /* Slots past a lane's count are not part of its rest. */
    for (int k = 0; k < pp->top; k++)
        for (int c = 0; c < 3; c++)
            rv_storeu_ps(b->rest[3 * k + c] + h, pp->c[c][k]);
    rv_storeu_si((void *)(b->rest_n + h), pp->n);
    const unsigned left = rb_movemask(over);
    return lanes >= RB_W ? left : left & ((1u << lanes) - 1u);
}

OP_CLIP_BATCH_FN(OP_FN(op_clip_batch))
{
    unsigned left = 0;
    for (int h = 0; h < lanes; h += RB_W)
        left |= OP_FN(rb_clip)(g, b, h, lanes - h, z_emit, x_lo, x_hi) << h;
    return left;
}
#endif
