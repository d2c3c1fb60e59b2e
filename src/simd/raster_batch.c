/* Triangle clip, many small triangles at once (supplement §1.3; spans/raster_clip.h,
 * OP_CLIP_BATCH_FN). Scalar twin: op_clip_batch_scalar (src/scalar/raster_clip.c), which
 * runs op_clip_rows_scalar, Recast's rasterizeTri/dividePoly, per lane.
 *
 * Lane l of every vector is triangle (or carried polygon) l of the batch: a polygon is OP_CLIP_BATCH_VERTS
 * vertex slots, each slot one vector per coordinate (structure of arrays), with a
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
/* Variants of 128-bit vectors have no batch kernel (emulated, its 8 lanes would cost
 * more than they save, and compile slowly): the init ladder leaves the scalar twin in
 * the slot, and the rasterizer then clips every triangle alone. */
OP_CLIP_BATCH_FN(OP_FN(op_clip_batch))
{
    return op_clip_batch_scalar(g, b, lanes, z_emit, x_lo, x_hi);
}
#else
/* cmake/simd.cmake silences GCC's note on the passing ABI of 256-bit vectors. */
#include <simde/x86/avx2.h>

typedef simde__m256 vf;
typedef simde__m256i vi;

#define K OP_CLIP_BATCH_VERTS
#define RB_LIMIT 1.329228e36f /* 2^120 */

OP_VINLINE vf rb_sel(vf a, vf b, vi m) { return simde_mm256_blendv_ps(a, b, simde_mm256_castsi256_ps(m)); }
OP_VINLINE vi rb_seli(vi a, vi b, vi m)
{
    return simde_mm256_castps_si256(simde_mm256_blendv_ps(
        simde_mm256_castsi256_ps(a), simde_mm256_castsi256_ps(b), simde_mm256_castsi256_ps(m)));
}
OP_VINLINE vi rb_ge(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ)); }
OP_VINLINE vi rb_gt(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ)); }
OP_VINLINE vi rb_lt(vf a, vf b) { return simde_mm256_castps_si256(simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ)); }
OP_VINLINE vi rb_and(vi a, vi b) { return simde_mm256_and_si256(a, b); }
OP_VINLINE vi rb_or(vi a, vi b) { return simde_mm256_or_si256(a, b); }
OP_VINLINE vi rb_andnot(vi a, vi b) { return simde_mm256_andnot_si256(a, b); } /* ~a & b */
OP_VINLINE vi rb_xor(vi a, vi b) { return simde_mm256_xor_si256(a, b); }
OP_VINLINE vi rb_eq(vi a, vi b) { return simde_mm256_cmpeq_epi32(a, b); }
OP_VINLINE vi rb_gti(vi a, vi b) { return simde_mm256_cmpgt_epi32(a, b); }
OP_VINLINE vi rb_set(int x) { return simde_mm256_set1_epi32(x); }
OP_VINLINE vf rb_setf(float x) { return simde_mm256_set1_ps(x); }
OP_VINLINE int rb_any(vi m) { return !simde_mm256_testz_si256(m, m); }

/* A polygon per lane: slots [0, n) of c[coordinate]. */
typedef struct rb_poly {
    vf c[3][K];
    vi n;
    int top; /* no lane has more than top vertices */
} rb_poly;

OP_VINLINE int rb_hmax(vi v)
{
    simde__m128i m = simde_mm_max_epi32(simde_mm256_castsi256_si128(v),
                                        simde_mm256_extracti128_si256(v, 1));
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_cvtsi128_si32(m);
}

/* (int)f clamped to [lo, hi] as op_clip_trunc_clamp (no NaN here). */
OP_VINLINE vi rb_trunc_clamp(vf f, int lo, int hi)
{
    vi r = simde_mm256_cvttps_epi32(f);
    r = rb_seli(r, rb_set(hi), rb_andnot(rb_lt(f, rb_setf((float)hi)), rb_set(-1)));
    r = rb_seli(r, rb_set(lo), rb_andnot(rb_gt(f, rb_setf((float)lo)), rb_set(-1)));
    return r;
}

/* One split of a polygon at a plane along one coordinate (supplement §1.3, dividePoly):
 * per slot, whether the edge into it crosses and whether side 1 (δ >= 0, out1) keeps
 * its vertex, the crossing points, and per lane and side (1, or 2: δ <= 0, out2) the
 * signature of the candidates that side keeps. */
typedef struct rb_edges {
    vi cross[K], keep1[K]; /* keep1: the vertex is a candidate of side 1 */
    vi sig[2]; /* per lane and side, bit j: candidate j (c0 a0 c1 a1 ..) is kept */
    vf cp[3][K]; /* crossing point of edge (slot - 1) -> slot */
} rb_edges;

/* Side 1 keeps a vertex with δ > 0 after a crossing, δ >= 0 otherwise; side 2 δ < 0,
 * δ <= 0 (without NaN, δ < 0 is !(δ >= 0) and δ <= 0 is !(δ > 0)). Lanes outside act are
 * never read (their edges may be skipped). */
OP_VINLINE void rb_edges_of(const rb_poly *p, int axis, vf plane, int nc, rb_edges *e, vi act)
{
    const int top = p->top;
    vf lastc[3];
    /* The last vertex of each lane of act. */
    const unsigned am = (unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(act));
    const unsigned full = (unsigned)simde_mm256_movemask_ps(
        simde_mm256_castsi256_ps(rb_eq(p->n, rb_set(top))));
    if (top > 0 && (full & am) == am) {
        for (int c = 0; c < nc; c++)
            lastc[c] = p->c[c][top - 1];
    } else {
        const vi last_i = simde_mm256_sub_epi32(p->n, rb_set(1));
        for (int c = 0; c < nc; c++)
            lastc[c] = p->c[c][0];
        for (int i = 1; i < top; i++) {
            const vi m = rb_eq(last_i, rb_set(i));
            for (int c = 0; c < nc; c++)
                lastc[c] = rb_sel(lastc[c], p->c[c][i], m);
        }
    }
    const vf zero = simde_mm256_setzero_ps();
    vf db = simde_mm256_sub_ps(plane, lastc[axis]);
    vi geb = rb_ge(db, zero);
    e->sig[0] = e->sig[1] = simde_mm256_setzero_si256();
    for (int i = 0; i < top; i++) {
        const vf d = simde_mm256_sub_ps(plane, p->c[axis][i]);
        const vi ge = rb_ge(d, zero), gt = rb_gt(d, zero);
        const vi valid = rb_gti(p->n, rb_set(i));
        const vi cross = rb_and(valid, rb_xor(ge, geb));
        e->cross[i] = cross;
        /* Side 1: cross ? gt : ge, side 2: !(cross ? ge : gt); gt implies ge. */
        const vi keep1 = rb_and(valid, rb_or(gt, rb_andnot(cross, ge)));
        const vi keep2 = rb_andnot(rb_and(ge, rb_or(gt, cross)), valid);
        e->keep1[i] = keep1;
        geb = ge;
        const vi cb = rb_and(cross, rb_set(1 << 2 * i)), kb = rb_set(2 << 2 * i);
        e->sig[0] = rb_or(e->sig[0], rb_or(cb, rb_and(keep1, kb)));
        e->sig[1] = rb_or(e->sig[1], rb_or(cb, rb_and(keep2, kb)));
        if (rb_any(rb_and(cross, act))) {
            const vf s = simde_mm256_div_ps(db, simde_mm256_sub_ps(db, d));
            for (int c = 0; c < nc; c++) {
                const vf b = i ? p->c[c][i - 1] : lastc[c];
                const vf a = p->c[c][i];
                e->cp[c][i] = simde_mm256_add_ps(b, simde_mm256_mul_ps(simde_mm256_sub_ps(a, b), s));
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
                           vi *over, vi act)
{
    const unsigned am = (unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(act));
    const vi sig = e->sig[side - 1];
    int32_t sg[OP_CLIP_BATCH];
    simde_mm256_storeu_si256((void *)sg, sig);
    const unsigned zm = (unsigned)simde_mm256_movemask_ps(
        simde_mm256_castsi256_ps(rb_eq(sig, simde_mm256_setzero_si256())));
    unsigned left = am & ~zm; /* lanes of act with candidates, not yet written */
    vi n = simde_mm256_setzero_si256();
    int filled = 0, top = 0; /* slots [0, filled) written */
    while (left) {
        const int32_t s0 = sg[__builtin_ctz(left)];
        const vi g = rb_eq(sig, rb_set(s0));
        left &= ~(unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(g));
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
    *over = rb_or(*over, rb_and(act, rb_gti(n, rb_set(K))));
    o->n = n;
    o->top = top < K ? top : K;
}

OP_CLIP_BATCH_FN(OP_FN(op_clip_batch))
{
    const vi lane_ok = rb_gti(rb_set(lanes), simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    vi over = rb_andnot(lane_ok, rb_set(-1)); /* lanes past `lanes`: not ours */
    rb_poly P;
    P.n = simde_mm256_loadu_si256((const void *)b->n);
    over = rb_or(over, rb_or(rb_gti(P.n, rb_set(K)), rb_gti(rb_set(0), P.n)));
    for (int k = 0; k < K; k++) {
        const vi valid = rb_gti(P.n, rb_set(k));
        for (int c = 0; c < 3; c++) {
            /* Slots past a lane's count read as 0. */
            P.c[c][k] = simde_mm256_and_ps(simde_mm256_loadu_ps(b->v[3 * k + c]),
                                           simde_mm256_castsi256_ps(valid));
            const vf a = simde_mm256_andnot_ps(rb_setf(-0.0f), P.c[c][k]);
            over = rb_or(over, rb_andnot(simde_mm256_castps_si256(simde_mm256_cmp_ps(a, rb_setf(RB_LIMIT), SIMDE_CMP_LE_OQ)), rb_set(-1)));
        }
    }
    P.top = rb_hmax(rb_andnot(over, P.n));
    const vi z0 = simde_mm256_loadu_si256((const void *)b->z0);
    const vi nrows = simde_mm256_sub_epi32(simde_mm256_loadu_si256((const void *)b->z1), z0);
    over = rb_or(over, rb_gti(nrows, rb_set(OP_CLIP_BATCH_ROWS - 1)));
    over = rb_or(over, rb_gti(rb_set(0), nrows));
    vi pm = simde_mm256_setzero_si256(); /* piece bits */
    const int rows = rb_hmax(rb_andnot(over, nrows)) + 1;
    const vf cs = rb_setf(g->cs), bx = rb_setf(g->bmin[0]), bz = rb_setf(g->bmin[2]);
    const vf ics = rb_setf(g->ics), ich = rb_setf(g->ich), by = rb_setf(g->bmin[1]);
    const vf top_y = rb_setf(g->by), zero = simde_mm256_setzero_ps();
    const vf inf = rb_setf(INFINITY), ninf = rb_setf(-INFINITY);
    const int xl = x_lo > 0 ? x_lo : 0;
    rb_poly PB, QA, QB; /* P's other buffer; a row piece and its column remainder */
    rb_poly *pp = &P, *pr = &PB;
    for (int r = 0; r < rows; r++) {
        const vi act = rb_andnot(over, rb_gti(simde_mm256_add_epi32(nrows, rb_set(1)), rb_set(r)));
        if (!rb_any(act))
            break;
        const vi z = simde_mm256_add_epi32(z0, rb_set(r));
        const vf plane = simde_mm256_add_ps(
            simde_mm256_add_ps(bz, simde_mm256_mul_ps(simde_mm256_cvtepi32_ps(z), cs)), cs);
        rb_edges e;
        rb_edges_of(pp, 2, plane, 3, &e, act);
        rb_poly *Q = &QA;
        vi ov = simde_mm256_setzero_si256();
        rb_compact(pp, &e, 1, 2, Q, &ov, act);
        rb_compact(pp, &e, 2, 3, pr, &ov, act);
        over = rb_or(over, rb_and(act, ov));
        /* The rest goes on in the lanes of this row. When those are all the lanes still
         * ours (a batch of one shape class has the same rows in every lane), the rest is
         * the polygon: the buffers swap (a lane that left is never read again). */
        const vi ract = rb_andnot(over, act);
        if (!rb_any(rb_andnot(ract, rb_andnot(over, rb_set(-1))))) {
            rb_poly *t = pp;
            pp = pr;
            pr = t;
        } else {
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < pr->top; k++)
                    pp->c[c][k] = rb_sel(pp->c[c][k], pr->c[c][k], ract);
            pp->n = rb_seli(pp->n, pr->n, ract);
            const int t = rb_hmax(rb_andnot(over, pp->n));
            pp->top = t > pr->top ? t : pr->top;
        }
        /* Row pieces of 3+ vertices in rows >= z_emit, >= 0. */
        vi rowact = rb_and(ract, rb_gti(Q->n, rb_set(2)));
        rowact = rb_and(rowact, rb_gti(z, rb_set((z_emit > 0 ? z_emit : 0) - 1)));
        if (!rb_any(rowact))
            continue;
        vf mnx = inf, mxx = ninf;
        for (int k = 0; k < Q->top; k++) {
            const vi m = rb_gti(Q->n, rb_set(k));
            mnx = simde_mm256_min_ps(mnx, rb_sel(inf, Q->c[0][k], m));
            mxx = simde_mm256_max_ps(mxx, rb_sel(ninf, Q->c[0][k], m));
        }
        /* op_clip_row_columns. */
        vi xa = rb_trunc_clamp(simde_mm256_mul_ps(simde_mm256_sub_ps(mnx, bx), ics), -2, g->w);
        vi xb = rb_trunc_clamp(simde_mm256_mul_ps(simde_mm256_sub_ps(mxx, bx), ics), -2, g->w);
        rowact = rb_andnot(rb_or(rb_gti(rb_set(0), xb), rb_gti(xa, rb_set(g->w - 1))), rowact);
        xa = simde_mm256_max_epi32(xa, rb_set(-1));
        xb = simde_mm256_min_epi32(xb, rb_set(g->w - 1));
        xb = simde_mm256_min_epi32(xb, rb_set(x_hi));
        const vi ncols = simde_mm256_sub_epi32(xb, xa); /* columns - 1 */
        over = rb_or(over, rb_and(rowact, rb_gti(ncols, rb_set(OP_CLIP_BATCH_COLS - 1))));
        rowact = rb_andnot(over, rowact);
        rowact = rb_and(rowact, rb_gti(ncols, rb_set(-1)));
        if (!rb_any(rowact))
            continue;
        simde_mm256_storeu_si256((void *)b->x0[r], xa);
        const int cols = rb_hmax(rb_and(rowact, ncols)) + 1;
        for (int c = 0; c < cols; c++) {
            const vi cact = rb_and(rowact, rb_gti(ncols, rb_set(c - 1)));
            const vi x = simde_mm256_add_epi32(xa, rb_set(c));
            const vf xp = simde_mm256_add_ps(
                simde_mm256_add_ps(bx, simde_mm256_mul_ps(simde_mm256_cvtepi32_ps(x), cs)), cs);
            rb_edges ce;
            rb_edges_of(Q, 0, xp, 2, &ce, cact);
            /* The column piece: its vertex count and y range. */
            vi cnt = simde_mm256_setzero_si256();
            vf lo = inf, hi = ninf;
            for (int k = 0; k < Q->top; k++) {
                const vi kc = ce.cross[k], ka = ce.keep1[k];
                cnt = simde_mm256_sub_epi32(simde_mm256_sub_epi32(cnt, kc), ka);
                lo = simde_mm256_min_ps(lo, rb_sel(inf, ce.cp[1][k], kc));
                hi = simde_mm256_max_ps(hi, rb_sel(ninf, ce.cp[1][k], kc));
                lo = simde_mm256_min_ps(lo, rb_sel(inf, Q->c[1][k], ka));
                hi = simde_mm256_max_ps(hi, rb_sel(ninf, Q->c[1][k], ka));
            }
            vi emit = rb_and(cact, rb_gti(cnt, rb_set(2)));
            emit = rb_and(emit, rb_gti(x, rb_set(xl - 1)));
            /* op_clip_piece_span. */
            vf ymin = simde_mm256_sub_ps(lo, by), ymax = simde_mm256_sub_ps(hi, by);
            emit = rb_andnot(rb_or(rb_lt(ymax, zero), rb_gt(ymin, top_y)), emit);
            ymin = rb_sel(ymin, zero, rb_lt(ymin, zero));
            ymax = rb_sel(ymax, top_y, rb_gt(ymax, top_y));
            const vf fl = simde_mm256_floor_ps(simde_mm256_mul_ps(ymin, ich));
            const vf ce_ = simde_mm256_ceil_ps(simde_mm256_mul_ps(ymax, ich));
            const vi smin = rb_trunc_clamp(fl, 0, 0xffff - 1);
            vi smax = rb_trunc_clamp(ce_, 0, 0xffff);
            smax = simde_mm256_max_epi32(smax, simde_mm256_add_epi32(smin, rb_set(1)));
            const int slot = r * OP_CLIP_BATCH_COLS + c;
            simde_mm256_storeu_si256((void *)b->smin[slot], smin);
            simde_mm256_storeu_si256((void *)b->smax[slot], smax);
            pm = rb_or(pm, rb_and(emit, rb_set(1 << slot)));
            if (c + 1 == cols)
                break; /* the remainder is not needed */
            /* The remainder goes on in the lanes that have more columns; the others
             * never read the row piece again, so the buffers swap. */
            rb_poly *Q2 = Q == &QA ? &QB : &QA;
            vi ov2 = simde_mm256_setzero_si256();
            const vi more = rb_and(cact, rb_gti(ncols, rb_set(c)));
            rb_compact(Q, &ce, 2, 2, Q2, &ov2, more);
            over = rb_or(over, rb_and(more, ov2));
            Q = Q2;
            rowact = rb_andnot(over, rowact);
        }
    }
    simde_mm256_storeu_si256((void *)b->mask, pm);
    /* Slots past a lane's count are not part of its rest. */
    for (int k = 0; k < pp->top; k++)
        for (int c = 0; c < 3; c++)
            simde_mm256_storeu_ps(b->rest[3 * k + c], pp->c[c][k]);
    simde_mm256_storeu_si256((void *)b->rest_n, pp->n);
    const unsigned left = (unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(over));
    return left & ((1u << lanes) - 1u);
}
#endif
