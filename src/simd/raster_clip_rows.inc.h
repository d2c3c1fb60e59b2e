/* op_clip_rows on RC_LANES lanes (supplement §1.3): the one body of the SIMD triangle
 * clip, included by src/simd/raster_clip.c (see its top for the method and why each
 * vertex is bit-identical to the scalar twin's) after the lane primitives of the
 * variant's width: 4 lanes there, 8 lanes in raster_clip8.h. A width supplies
 *   RC_LANES, RC_LIMIT (2^120), rc_v (one coordinate of up to RC_LANES vertices),
 *   RC_MM              the prefix of rc_v's intrinsics (simde_mm, simde_mm256),
 *   rc_rotate(v, n)    lane k takes lane k − 1, lane 0 takes lane n − 1 (edge b -> a),
 *   rc_ge0, rc_gt0     lane bitmask of v >= 0, v > 0,
 *   rc_spread_of(m)    bit k of m at bit 2k (a vertex mask to a candidate mask),
 *   rc_ord, rc_order(cm), rc_compress(c, a, ord)
 *                      the candidates of mask cm (bit 2k: crossing point k, bit 2k+1:
 *                      vertex k) in order, from crossing points c and vertices a,
 *   rc_lanes_of(m)     all ones in the lanes of mask m, rc_select(mask, v, fill),
 *   rc_hmin, rc_hmax   over all lanes,
 *   RC_COLUMN_HAND_OVER_BEFORE
 *                      the hand-over of a column split (below),
 *   RC_PIECES_IN_LANES 1: the column pieces' spans are computed RC_LANES at a time
 *                      (rc_pending, rc_pieces_flush; pieces written in the same order),
 *                      0: one piece at a time (two horizontal reductions each).
 *
 * The hand-over to the scalar twin, which continues from the exact state reached:
 *  - rows: a split that would give more than RC_LANES vertices, either side, hands the
 *    polygon before it (the scalar twin then fails exactly where it would);
 *  - columns, RC_COLUMN_HAND_OVER_BEFORE 1 (8 lanes): likewise, a split that would give
 *    more than RC_LANES vertices, either side, hands the polygon before it, from this
 *    column;
 *  - columns, RC_COLUMN_HAND_OVER_BEFORE 0 (4 lanes): the piece of this column comes
 *    from the lanes' crossing points and vertices whatever its count; a remainder of
 *    more than RC_LANES vertices is handed over, from the next column. */

#define RC_CAT2(a, b) a##b
#define RC_CAT(a, b) RC_CAT2(a, b)
#define RC_OP(name) RC_CAT(RC_MM, name)

OP_VINLINE rc_v rc_loadu(const float *p) { return RC_OP(_loadu_ps)(p); }
OP_VINLINE void rc_storeu(float *p, rc_v v) { RC_OP(_storeu_ps)(p, v); }
OP_VINLINE rc_v rc_set1(float x) { return RC_OP(_set1_ps)(x); }
OP_VINLINE rc_v rc_add(rc_v a, rc_v b) { return RC_OP(_add_ps)(a, b); }
OP_VINLINE rc_v rc_sub(rc_v a, rc_v b) { return RC_OP(_sub_ps)(a, b); }
OP_VINLINE rc_v rc_mul(rc_v a, rc_v b) { return RC_OP(_mul_ps)(a, b); }
OP_VINLINE rc_v rc_div(rc_v a, rc_v b) { return RC_OP(_div_ps)(a, b); }
OP_VINLINE rc_v rc_min(rc_v a, rc_v b) { return RC_OP(_min_ps)(a, b); }
OP_VINLINE rc_v rc_max(rc_v a, rc_v b) { return RC_OP(_max_ps)(a, b); }

static int rc_in_range(const float *v, int n)
{
    for (int i = 0; i < 3 * n; i++)
        if (!(v[i] <= RC_LIMIT && v[i] >= -RC_LIMIT))
            return 0;
    return 1;
}

/* The polygon of the vectors back into the state. */
static void rc_store(op_clip_state *st, rc_v X, rc_v Y, rc_v Z, int n)
{
    float lx[RC_LANES], ly[RC_LANES], lz[RC_LANES];
    rc_storeu(lx, X);
    rc_storeu(ly, Y);
    rc_storeu(lz, Z);
    for (int i = 0; i < n; i++) {
        st->v[3 * i] = lx[i];
        st->v[3 * i + 1] = ly[i];
        st->v[3 * i + 2] = lz[i];
    }
    st->n = n;
}

/* The scalar twin goes on with columns from .. x1 of row z, the polygon being the
 * candidates of mask cm in order (crossing points cx, cy; vertices ax, ay; z = 0:
 * columns never read it). Returns its count of pieces, or -1 with *fail. */
static int rc_columns_scalar(const op_clip_grid *g, unsigned cm, rc_v cx, rc_v cy, rc_v ax,
                             rc_v ay, int from, int x1, int z, int x_lo, op_piece *out,
                             op_clip_fail *fail)
{
    float fcx[RC_LANES], fcy[RC_LANES], fax[RC_LANES], fay[RC_LANES];
    rc_storeu(fcx, cx);
    rc_storeu(fcy, cy);
    rc_storeu(fax, ax);
    rc_storeu(fay, ay);
    float rem[OP_CLIP_MAX_VERTS * 3];
    int m = 0;
    for (int q = 0; q < 2 * RC_LANES; q++) {
        if (!(cm >> q & 1))
            continue;
        rem[3 * m] = q & 1 ? fax[q / 2] : fcx[q / 2];
        rem[3 * m + 1] = q & 1 ? fay[q / 2] : fcy[q / 2];
        rem[3 * m + 2] = 0.0f;
        m++;
    }
    return op_clip_columns_scalar(g, rem, m, from, x1, z, x_lo, out, fail);
}

/* The masks of one split of a polygon of n lanes at δ = off − axis: cross: edge b -> a
 * crosses (δ >= 0 differs); m1 / m2: vertex a goes to out1 / out2; s: δb / (δb − δa)
 * per edge. */
typedef struct rc_split {
    unsigned cross, m1, m2;
    rc_v s;
} rc_split;

OP_VINLINE rc_split rc_classify(rc_v axis, float off, int n)
{
    rc_split r;
    const rc_v d = rc_sub(rc_set1(off), axis);
    const rc_v db = rc_rotate(d, n);
    const unsigned valid = (1u << n) - 1u;
    const unsigned ge = rc_ge0(d);
    const unsigned geb = rc_ge0(db);
    const unsigned gt = rc_gt0(d);
    r.cross = (ge ^ geb) & valid;
    /* Without NaN, δ < 0 is !(δ >= 0) and δ <= 0 is !(δ > 0). */
    r.m1 = ((r.cross & gt) | (~r.cross & ge)) & valid;
    r.m2 = ((r.cross & ~ge) | (~r.cross & ~gt)) & valid;
    r.s = rc_div(db, rc_sub(db, d));
    return r;
}

/* The candidates of one side of a split (m: m1 or m2) as a candidate mask. */
OP_VINLINE unsigned rc_side(unsigned cross, unsigned m)
{
    return rc_spread_of(cross) | rc_spread_of(m) << 1;
}

/* b + (a − b)·s for every edge (lane k: b = vertex k − 1, a = vertex k). */
OP_VINLINE rc_v rc_cross(rc_v a, int n, rc_v s)
{
    const rc_v b = rc_rotate(a, n);
    return rc_add(b, rc_mul(rc_sub(a, b), s));
}

#if RC_PIECES_IN_LANES
#if !RC_COLUMN_HAND_OVER_BEFORE
#error "the column steps below hand a split over before it"
#endif
/* ---- A row piece's columns, two rows at a time -----------------------------------
 * Each column split waits for the one before it (the remainder it cuts), and the chain
 * (δ, the masks through scalar code, the order, the compaction) is long against the
 * work in it; the columns of two rows are independent, so two row pieces are cut in
 * one loop, one column of each per turn, and the core overlaps the two chains. The
 * splits are the same operations on the same operands as one row at a time; only the
 * second row's pieces wait (in order) until the first row is done. */

/* A row piece being cut into columns: remainder RX, RY of nr vertices, next column x,
 * last column x1, row z. */
typedef struct rc_row {
    rc_v RX, RY;
    int nr, x, x1, z;
} rc_row;

/* One column split of r at r->x. Returns 0: go on (r advanced to the next column);
 * 1: the row is done; 2: the split would give more than RC_LANES vertices (r
 * unchanged: rc_row_finish hands it to the scalar twin). *has: a piece, y range lo, hi. */
OP_VINLINE int rc_column_step(const op_clip_grid *g, rc_row *r, int x_lo, rc_v *lo, rc_v *hi,
                              int *has)
{
    const rc_v inf = rc_set1(INFINITY), ninf = rc_set1(-INFINITY);
    const int x = r->x, nr = r->nr;
    const float cell_x = g->bmin[0] + (float)x * g->cs;
    const rc_split c = rc_classify(r->RX, cell_x + g->cs, nr);
    const rc_v CX2 = rc_cross(r->RX, nr, c.s), CY2 = rc_cross(r->RY, nr, c.s);
    const int c1 = __builtin_popcount(c.cross) + __builtin_popcount(c.m1);
    const unsigned J2 = rc_side(c.cross, c.m2);
    const int c2 = __builtin_popcount(J2);
    if (c1 > RC_LANES || c2 > RC_LANES)
        return 2;
    *has = c1 >= 3 && x >= x_lo && x >= 0;
    if (*has) {
        const rc_v mc = rc_lanes_of(c.cross), ma = rc_lanes_of(c.m1);
        *lo = rc_min(rc_select(mc, CY2, inf), rc_select(ma, r->RY, inf));
        *hi = rc_max(rc_select(mc, CY2, ninf), rc_select(ma, r->RY, ninf));
    }
    if (x == r->x1 || c2 <= 1)
        return 1; /* the remainder is not needed, or nothing more can come of it */
    const rc_ord oc = rc_order(J2);
    r->RX = rc_compress(CX2, r->RX, oc);
    r->RY = rc_compress(CY2, r->RY, oc);
    r->nr = c2;
    r->x = x + 1;
    return 0;
}

/* Piece (lo, hi) of column x, row z to the pending ones (written out when eight wait). */
OP_VINLINE void rc_pend(const op_clip_grid *g, rc_pending *pd, rc_v lo, rc_v hi, int x, int z,
                        op_piece *out, int *np)
{
    pd->lo[pd->n] = lo;
    pd->hi[pd->n] = hi;
    pd->x[pd->n] = x;
    pd->z[pd->n] = z;
    if (++pd->n == RC_LANES)
        *np += rc_pieces_flush(g, pd, out + *np);
}

/* The columns of r from r->x on, alone; a split that needs it goes to the scalar twin
 * (the pending pieces written first). 0, or -1 with *fail. */
static int rc_row_finish(const op_clip_grid *g, rc_row *r, int x_lo, rc_pending *pd,
                         op_piece *out, int *np, op_clip_fail *fail)
{
    for (;;) {
        rc_v lo, hi;
        int has;
        const int x = r->x;
        const int s = rc_column_step(g, r, x_lo, &lo, &hi, &has);
        if (s == 2) {
            /* The scalar twin goes on from the polygon before this column's split
             * (where it may also fail, as it would have). */
            if (pd->n)
                *np += rc_pieces_flush(g, pd, out + *np);
            const int k = rc_columns_scalar(g, rc_spread_of((1u << r->nr) - 1u) << 1, r->RX, r->RY,
                                            r->RX, r->RY, r->x, r->x1, r->z, x_lo, out + *np, fail);
            if (k < 0)
                return -1;
            *np += k;
            return 0;
        }
        if (has)
            rc_pend(g, pd, lo, hi, x, r->z, out, np);
        if (s)
            return 0;
    }
}

#define RC_PAIR_WAIT 32 /* pieces of the second row that may wait */

/* The columns of row a, then those of row b (a's pieces first), cut in one loop while
 * both go on. 0, or -1 with *fail. */
static int rc_row_pair(const op_clip_grid *g, rc_row *a, rc_row *b, int x_lo, rc_pending *pd,
                       op_piece *out, int *np, op_clip_fail *fail)
{
    rc_v wlo[RC_PAIR_WAIT], whi[RC_PAIR_WAIT];
    int wx[RC_PAIR_WAIT];
    int nw = 0, sa = 0, sb = 0;
    while (nw < RC_PAIR_WAIT) {
        rc_v alo, ahi, blo, bhi;
        int ha, hb;
        const int xa = a->x, xb = b->x;
        sa = rc_column_step(g, a, x_lo, &alo, &ahi, &ha);
        sb = rc_column_step(g, b, x_lo, &blo, &bhi, &hb);
        if (sa != 2 && ha)
            rc_pend(g, pd, alo, ahi, xa, a->z, out, np);
        if (sb != 2 && hb) {
            wlo[nw] = blo;
            whi[nw] = bhi;
            wx[nw] = xb;
            nw++;
        }
        if (sa | sb)
            break;
    }
    if (sa != 1 && rc_row_finish(g, a, x_lo, pd, out, np, fail) < 0)
        return -1;
    for (int i = 0; i < nw; i++)
        rc_pend(g, pd, wlo[i], whi[i], wx[i], b->z, out, np);
    if (sb != 1 && rc_row_finish(g, b, x_lo, pd, out, np, fail) < 0)
        return -1;
    return 0;
}
#endif

OP_CLIP_ROWS_FN(OP_FN(op_clip_rows))
{
    const float lim = RC_LIMIT;
    const int zs = st->z1 < z_stop ? st->z1 : z_stop;
    if (st->n > RC_LANES || !rc_in_range(st->v, st->n) ||
        !(g->bmin[0] <= lim && g->bmin[0] >= -lim) || !(g->bmin[2] <= lim && g->bmin[2] >= -lim) ||
        !((float)g->w * g->cs <= lim) || !((float)g->h * g->cs <= lim))
        return op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out, fail);
    float lx[RC_LANES] = {0}, ly[RC_LANES] = {0}, lz[RC_LANES] = {0};
    for (int i = 0; i < st->n; i++) {
        lx[i] = st->v[3 * i];
        ly[i] = st->v[3 * i + 1];
        lz[i] = st->v[3 * i + 2];
    }
    rc_v X = rc_loadu(lx), Y = rc_loadu(ly), Z = rc_loadu(lz);
    int n = st->n;
    const rc_v inf = rc_set1(INFINITY), ninf = rc_set1(-INFINITY);
    int np = 0;
#if RC_PIECES_IN_LANES
    /* Pieces waiting for their spans; written out (in order) before anything else is. */
    rc_pending pd;
    pd.n = 0;
    /* A row piece waiting to be cut together with the next row's (rc_row_pair). */
    rc_row held;
    int holding = 0;
#define RC_FLUSH() (pd.n ? (void)(np += rc_pieces_flush(g, &pd, out + np)) : (void)0)
#else
#define RC_FLUSH() ((void)0)
#endif
    int z = st->z;
    for (; z <= zs; z++) {
        if (n <= 1) {
            /* Nothing more can come of it (see raster_clip.c): every row is consumed. */
            z = st->z1 + 1;
            break;
        }
        const float cell_z = g->bmin[2] + (float)z * g->cs;
        const rc_split r = rc_classify(Z, cell_z + g->cs, n);
        const unsigned I1 = rc_side(r.cross, r.m1), I2 = rc_side(r.cross, r.m2);
        const int n1 = __builtin_popcount(I1), n2 = __builtin_popcount(I2);
        if (n1 > RC_LANES || n2 > RC_LANES) {
            /* The scalar twin goes on from the polygon before this row's split. */
#if RC_PIECES_IN_LANES
            if (holding && rc_row_finish(g, &held, x_lo, &pd, out, &np, fail) < 0)
                return -1;
#endif
            RC_FLUSH();
            rc_store(st, X, Y, Z, n);
            st->z = z;
            const int k = op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out + np, fail);
            return k < 0 ? -1 : np + k;
        }
        const rc_v CX = rc_cross(X, n, r.s), CY = rc_cross(Y, n, r.s), CZ = rc_cross(Z, n, r.s);
        const rc_ord o1 = rc_order(I1), o2 = rc_order(I2);
        rc_v RX = rc_compress(CX, X, o1), RY = rc_compress(CY, Y, o1);
        X = rc_compress(CX, X, o2);
        Y = rc_compress(CY, Y, o2);
        Z = rc_compress(CZ, Z, o2);
        n = n2;
        if (n1 < 3 || z < z_emit || z < 0)
            continue; /* rows z < 0, and rows before the window, only consume */
        const rc_v vm = rc_lanes_of((1u << n1) - 1u);
        const float minx = rc_hmin(rc_select(vm, RX, inf));
        const float maxx = rc_hmax(rc_select(vm, RX, ninf));
        int x0, x1;
        if (!op_clip_row_columns(g, minx, maxx, x_hi, &x0, &x1))
            continue;
#if RC_PIECES_IN_LANES
        if (x0 > x1)
            continue; /* every column past the window's last */
        if (!holding) {
            held = (rc_row){RX, RY, n1, x0, x1, z};
            holding = 1;
            continue;
        }
        rc_row cur = {RX, RY, n1, x0, x1, z};
        holding = 0;
        if (rc_row_pair(g, &held, &cur, x_lo, &pd, out, &np, fail) < 0)
            return -1;
#else
        int nr = n1;
        for (int x = x0; x <= x1; x++) {
            const float cell_x = g->bmin[0] + (float)x * g->cs;
            const rc_split c = rc_classify(RX, cell_x + g->cs, nr);
            const rc_v CX2 = rc_cross(RX, nr, c.s), CY2 = rc_cross(RY, nr, c.s);
            const int c1 = __builtin_popcount(c.cross) + __builtin_popcount(c.m1);
#if RC_COLUMN_HAND_OVER_BEFORE
            const unsigned J2 = rc_side(c.cross, c.m2);
            const int c2 = __builtin_popcount(J2);
            if (c1 > RC_LANES || c2 > RC_LANES) {
                /* The scalar twin goes on from the polygon before this column's split
                 * (where it may also fail, as it would have). */
                RC_FLUSH();
                const int k = rc_columns_scalar(g, rc_spread_of((1u << nr) - 1u) << 1, RX, RY, RX,
                                                RY, x, x1, z, x_lo, out + np, fail);
                if (k < 0)
                    return -1;
                np += k;
                break;
            }
#endif
            if (c1 >= 3 && x >= x_lo && x >= 0) {
                const rc_v mc = rc_lanes_of(c.cross), ma = rc_lanes_of(c.m1);
                const rc_v lo = rc_min(rc_select(mc, CY2, inf), rc_select(ma, RY, inf));
                const rc_v hi = rc_max(rc_select(mc, CY2, ninf), rc_select(ma, RY, ninf));
                op_piece p = {x, z, 0, 0};
                if (op_clip_piece_span(g, rc_hmin(lo), rc_hmax(hi), &p))
                    out[np++] = p;
            }
            if (x == x1)
                break; /* the remainder is not needed */
#if !RC_COLUMN_HAND_OVER_BEFORE
            const unsigned J2 = rc_side(c.cross, c.m2);
            const int c2 = __builtin_popcount(J2);
            if (c2 > RC_LANES) {
                /* The scalar twin goes on with the remainder after this column. */
                RC_FLUSH();
                const int k = rc_columns_scalar(g, J2, CX2, CY2, RX, RY, x + 1, x1, z, x_lo,
                                                out + np, fail);
                if (k < 0)
                    return -1;
                np += k;
                break;
            }
#endif
            if (c2 <= 1)
                break; /* nothing more can come of it */
            const rc_ord oc = rc_order(J2);
            RX = rc_compress(CX2, RX, oc);
            RY = rc_compress(CY2, RY, oc);
            nr = c2;
        }
#endif
    }
#if RC_PIECES_IN_LANES
    if (holding && rc_row_finish(g, &held, x_lo, &pd, out, &np, fail) < 0)
        return -1;
#endif
    RC_FLUSH();
#undef RC_FLUSH
    /* The state for a later band: the polygon left and the next row. */
    rc_store(st, X, Y, Z, n);
    st->z = z;
    return np;
}
