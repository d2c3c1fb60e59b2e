/* Contour simplification of one loop (regions-contours §6 steps 1–3; supplement §9.7–
 * §9.11): portals, the Douglas–Peucker work stack with the tie rule, straight region
 * borders, the MaxEdgeLength split of walls, merging of duplicates, and the fallbacks
 * (MaxError 0, every stretch refined, raw). */
#include "contours/contours_internal.h"
#include "core/kernels.h"

#include <stdlib.h>
#include <string.h>

/* cross² as a double, formed exactly and rounded once (supplement §9.10). Below 2^31
 * the square fits an int64, whose conversion rounds the same integer the same way. */
static inline double cross2(int64_t cross)
{
    const uint64_t ac = (uint64_t)(cross < 0 ? -cross : cross);
    if (ac < (1ull << 31))
        return (double)(int64_t)(ac * ac);
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    return (double)((u128)ac * ac);
#else
    return (double)cross * (double)cross;
#endif
}

/* supplement §9.10: d² = cross² / len² (as doubles) when the foot falls inside the
 * segment, else the exact squared distance to the nearer end. cross² is formed exactly
 * (128-bit where available) and rounded once to double. */
double op__seg_dist2(const op_contour_vert *p, const op_contour_vert *a,
                     const op_contour_vert *b)
{
    const int64_t dx = (int64_t)b->x - a->x, dz = (int64_t)b->z - a->z;
    const int64_t px = (int64_t)p->x - a->x, pz = (int64_t)p->z - a->z;
    const int64_t len2 = dx * dx + dz * dz;
    const int64_t dot = px * dx + pz * dz;
    if (len2 == 0 || dot < 0)
        return (double)(px * px + pz * pz);
    if (dot > len2) {
        const int64_t qx = (int64_t)p->x - b->x, qz = (int64_t)p->z - b->z;
        return (double)(qx * qx + qz * qz);
    }
    return cross2(px * dz - pz * dx) / (double)len2;
}

static int sgn(int64_t v) { return (v > 0) - (v < 0); }

/* Edges i and j of the loop cross properly (strictly). */
static inline int cross_proper(const op_contour_vert *v, uint32_t n, uint32_t i, uint32_t j)
{
    const op_contour_vert *a = &v[i], *b = &v[i + 1 < n ? i + 1 : 0];
    const op_contour_vert *c = &v[j], *d = &v[j + 1 < n ? j + 1 : 0];
    if ((a->x < c->x && a->x < d->x && b->x < c->x && b->x < d->x) ||
        (a->x > c->x && a->x > d->x && b->x > c->x && b->x > d->x) ||
        (a->z < c->z && a->z < d->z && b->z < c->z && b->z < d->z) ||
        (a->z > c->z && a->z > d->z && b->z > c->z && b->z > d->z))
        return 0;
    return sgn(op__orient(a, b, c)) * sgn(op__orient(a, b, d)) < 0 &&
           sgn(op__orient(c, d, a)) * sgn(op__orient(c, d, b)) < 0;
}

/* Grid listing of the loop's edges: per cell, the edges that may touch it (CSR). */
typedef struct xgrid {
    uint32_t *first, *items;
    uint32_t edge;
    int fill;
} xgrid;

static int xg_cell(void *arg, size_t cell)
{
    xgrid *x = arg;
    if (x->fill)
        x->items[x->first[cell]++] = x->edge;
    else
        x->first[cell + 1]++;
    return 0;
}

typedef struct op_xedge {
    int32_t minx, maxx, minz, maxz;
    uint32_t i;
} op_xedge;

static int cmp_xedge(const void *pa, const void *pb)
{
    const op_xedge *a = pa, *b = pb;
    if (a->minx != b->minx)
        return a->minx < b->minx ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* Proper (strict) crossing of two of the loop's edges: a yes or no, the same whichever
 * pairs are looked at as long as every pair that may cross is. Small loops test every
 * pair; mid-sized ones the pairs whose x ranges overlap (a sweep over x); large ones
 * the pairs listed in a grid cell together (a crossing point lies in a cell both edges
 * are listed in: a sweep over x is quadratic when many edges span the loop's width). */
int op__loop_crosses(op_ctx *ctx, const op_contour_vert *v, uint32_t n, int *crosses)
{
    *crosses = 0;
    if (n < 4)
        return 0;
    if (n < 12) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (cross_proper(v, n, i, j)) {
                    *crosses = 1;
                    return 0;
                }
        return 0;
    }
    if (n < 512) {
        op_arena_mark mark = op_arena_get_mark(&ctx->arena);
        op_xedge *e = op_scratch(ctx, n, sizeof *e);
        if (!e)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            const op_contour_vert *a = &v[i], *b = &v[i + 1 < n ? i + 1 : 0];
            e[i].minx = a->x < b->x ? a->x : b->x;
            e[i].maxx = a->x < b->x ? b->x : a->x;
            e[i].minz = a->z < b->z ? a->z : b->z;
            e[i].maxz = a->z < b->z ? b->z : a->z;
            e[i].i = i;
        }
        qsort(e, n, sizeof *e, cmp_xedge);
        for (uint32_t k = 0; k < n && !*crosses; k++)
            for (uint32_t l = k + 1; l < n && e[l].minx <= e[k].maxx; l++)
                if (e[l].maxz >= e[k].minz && e[l].minz <= e[k].maxz &&
                    cross_proper(v, n, e[k].i, e[l].i)) {
                    *crosses = 1;
                    break;
                }
        op_arena_release(&ctx->arena, mark);
        return 0;
    }
    int64_t x0 = INT64_MAX, z0 = INT64_MAX, x1 = INT64_MIN, z1 = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        x0 = v[i].x < x0 ? v[i].x : x0;
        z0 = v[i].z < z0 ? v[i].z : z0;
        x1 = v[i].x > x1 ? v[i].x : x1;
        z1 = v[i].z > z1 ? v[i].z : z1;
    }
    op_cgrid g;
    op__cgrid_init(&g, x0, z0, x1, z1, n);
    const size_t cells = (size_t)(g.nx * g.nz);
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    xgrid x = {op_scratch(ctx, cells + 1, sizeof(uint32_t)), NULL, 0, 0};
    if (!x.first)
        return -1;
    memset(x.first, 0, (cells + 1) * sizeof *x.first);
    for (uint32_t i = 0; i < n; i++) { /* count */
        const op_contour_vert *a = &v[i], *b = &v[i + 1 < n ? i + 1 : 0];
        x.edge = i;
        op__cgrid_walk(&g, a->x, a->z, b->x, b->z, xg_cell, &x);
    }
    for (size_t c = 0; c < cells; c++)
        x.first[c + 1] += x.first[c];
    x.items = op_scratch(ctx, x.first[cells] ? x.first[cells] : 1, sizeof(uint32_t));
    if (!x.items) {
        op_arena_release(&ctx->arena, mark);
        return -1;
    }
    x.fill = 1;
    for (uint32_t i = 0; i < n; i++) { /* fill (first[c] moves to the end of cell c) */
        const op_contour_vert *a = &v[i], *b = &v[i + 1 < n ? i + 1 : 0];
        x.edge = i;
        op__cgrid_walk(&g, a->x, a->z, b->x, b->z, xg_cell, &x);
    }
    for (size_t c = 0; c < cells && !*crosses; c++) {
        const uint32_t lo = c ? x.first[c - 1] : 0, hi = x.first[c];
        for (uint32_t k = lo; k < hi && !*crosses; k++)
            for (uint32_t l = k + 1; l < hi; l++)
                if (cross_proper(v, n, x.items[k], x.items[l])) {
                    *crosses = 1;
                    break;
                }
    }
    op_arena_release(&ctx->arena, mark);
    return 0;
}

/* §6: a stretch whose neighbour value is a region N > 0 that is not BorderRegion and
 * has the contour's area is left as one chord (when straight borders are in effect). */
int op__straight_stretch(const op_csimp *p, uint32_t nb)
{
    return nb != 0 && nb != OP_TILE_BORDER && nb != p->border_region &&
           nb <= p->region_count && p->region_area[nb] == p->area;
}

static int lex_less(const op_contour_vert *a, const op_contour_vert *b)
{
    return a->x < b->x || (a->x == b->x && a->z < b->z);
}

static void reverse(op_contour_vert *v, uint32_t b, uint32_t e)
{
    while (e > b + 1) {
        const op_contour_vert t = v[b];
        v[b++] = v[--e];
        v[e] = t;
    }
}

/* Index i of a stretch (ia <= i <= ib < 2n) in the loop. */
static inline size_t wrap(size_t i, uint32_t n) { return i < n ? i : i - n; }

/* The raw vertex strictly inside the stretch ia → ib farthest from the segment a b
 * (supplement §9.10, op__seg_dist2 with the segment's terms hoisted): ties to the
 * smaller (x, z), then to the first met. *bd = its d², or -1 when there is none. */
static size_t farthest(const op_contour_vert *raw, uint32_t n, size_t ia, size_t ib,
                       double *bd_out)
{
    const op_contour_vert *a = &raw[wrap(ia, n)], *b = &raw[wrap(ib, n)];
    const int64_t ax = a->x, az = a->z, bx = b->x, bz = b->z;
    const int64_t dx = bx - ax, dz = bz - az;
    const int64_t len2 = dx * dx + dz * dz;
    const double dlen2 = (double)len2;
    size_t best = 0;
    double bd = -1.0;
    const op_contour_vert *bq = NULL;
    uint64_t c2max = 0; /* largest cross² of an inside point met, while below 2^50 */
    /* the stretch's raw vertices as at most two runs without wrapping */
    for (size_t lo = ia + 1; lo < ib;) {
        const size_t hi = lo < n && ib > n ? n : ib;
        const size_t off = lo < n ? 0 : n;
        for (size_t i = lo; i < hi; i++) {
            const op_contour_vert *q = &raw[i - off];
            const int64_t px = q->x - ax, pz = q->z - az;
            const int64_t dot = px * dx + pz * dz;
            double d2;
            if (len2 == 0 || dot < 0) {
                d2 = (double)(px * px + pz * pz);
            } else if (dot > len2) {
                const int64_t qx = q->x - bx, qz = q->z - bz;
                d2 = (double)(qx * qx + qz * qz);
            } else {
                const int64_t cr = px * dz - pz * dx;
                const uint64_t ac = (uint64_t)(cr < 0 ? -cr : cr);
                if (ac < (1ull << 25)) {
                    /* below 2^50, a smaller cross² than one already met gives a quotient
                     * more than an ulp smaller (they differ by >= 1/len2, four ulps of
                     * c2max/len2 at least): no win, no tie; no division needed */
                    const uint64_t c2 = ac * ac;
                    if (c2 < c2max)
                        continue;
                    c2max = c2;
                    d2 = (double)(int64_t)c2 / dlen2;
                } else {
                    d2 = cross2(cr) / dlen2;
                }
            }
            if (d2 > bd || (d2 == bd && lex_less(q, bq))) {
                bd = d2;
                best = i;
                bq = q;
            }
        }
        lo = hi;
    }
    *bd_out = bd;
    return best;
}

/* The loop's points as coordinate arrays for the farthest-point kernels, when every
 * coordinate difference in the loop is below 2^15 (fast; else farthest() alone). */
typedef struct simp_pts {
    const op_kernels *k;
    const int32_t *x, *z;
    int fast;
} simp_pts;

/* farthest() through the kernels: the largest key of each kind over the stretch's (at
 * most two) runs gives *bd_out, the same d² farthest() finds (within a kind d² grows
 * with the key; a kind-2 key below 2^25 has cross² below 2^50, where distinct keys give
 * distinct d², see farthest()). Only when bd > me2 is the point needed: the first, in
 * stretch order, among the smallest (x, z) of those whose kind reaches bd with its
 * largest key, which is farthest()'s rule. Returns 0 with *done = 0 when the kernel's
 * bounds do not hold (the caller runs farthest()). */
static size_t farthest_k(const op_contour_vert *raw, const simp_pts *pt, uint32_t n,
                         size_t ia, size_t ib, double me2, double *bd_out, int *done)
{
    const op_contour_vert *a = &raw[wrap(ia, n)], *b = &raw[wrap(ib, n)];
    const int32_t seg[4] = {a->x, a->z, b->x, b->z};
    /* the runs [lo[r], hi[r]) of raw indices, in stretch order, and their stretch index */
    size_t lo[2], hi[2], base[2];
    int runs = 0;
    for (size_t l = ia + 1; l < ib; runs++) {
        const size_t h = l < n && ib > n ? n : ib;
        const size_t off = l < n ? 0 : n;
        lo[runs] = l - off;
        hi[runs] = h - off;
        base[runs] = off;
        l = h;
    }
    int32_t keys[3] = {-1, -1, -1};
    for (int r = 0; r < runs; r++) {
        int32_t kr[3];
        pt->k->contour.farthest_keys(pt->x + lo[r], pt->z + lo[r], (uint32_t)(hi[r] - lo[r]),
                                     seg, kr);
        for (int k = 0; k < 3; k++)
            keys[k] = kr[k] > keys[k] ? kr[k] : keys[k];
    }
    if (keys[2] >= (1 << 25)) {
        *done = 0;
        return 0;
    }
    const int64_t dx = (int64_t)b->x - a->x, dz = (int64_t)b->z - a->z;
    double d[3];
    d[0] = keys[0] >= 0 ? (double)keys[0] : -1.0;
    d[1] = keys[1] >= 0 ? (double)keys[1] : -1.0;
    d[2] = keys[2] >= 0 ? cross2(keys[2]) / (double)(dx * dx + dz * dz) : -1.0;
    double bd = d[0] > d[1] ? d[0] : d[1];
    bd = d[2] > bd ? d[2] : bd;
    *bd_out = bd;
    *done = 1;
    if (!(bd > me2))
        return 0;
    const int32_t want[3] = {d[0] == bd ? keys[0] : -1, d[1] == bd ? keys[1] : -1,
                             d[2] == bd ? keys[2] : -1};
    size_t best = SIZE_MAX;
    for (int r = 0; r < runs; r++) {
        const uint32_t m = (uint32_t)(hi[r] - lo[r]);
        const uint32_t j = pt->k->contour.farthest_pick(pt->x + lo[r], pt->z + lo[r], m, seg,
                                                        want);
        if (j == m)
            continue;
        const size_t i = lo[r] + j;
        if (best == SIZE_MAX || lex_less(&raw[i], &raw[wrap(best, n)]))
            best = i + base[r];
    }
    if (best == SIZE_MAX)
        *done = 0; /* not reached: some point has d² = bd */
    return best;
}

/* One simplification attempt (§6 steps 1–3, without the fallbacks). */
static void simplify_once(const op_contour_vert *raw, uint32_t n, const op_csimp *p,
                          const simp_pts *pt, double max_error, int straight, uint8_t *keep,
                          size_t *stack, op_contour_vert *out, uint32_t *out_n, uint32_t *kidx)
{
    /* 1. Portals: a vertex whose neighbour differs from its predecessor's, listed in
     * kidx (stores without branches: a portal is unpredictable). */
    uint32_t kept = 0;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
        const uint8_t k = raw[i].neighbour != raw[j].neighbour;
        keep[i] = k;
        kidx[kept] = i;
        kept += k;
    }
    if (kept == 0) {
        uint32_t lo = 0, hi = 0;
        for (uint32_t i = 1; i < n; i++) {
            if (lex_less(&raw[i], &raw[lo]))
                lo = i;
            if (lex_less(&raw[hi], &raw[i]))
                hi = i;
        }
        keep[lo] = keep[hi] = 1;
        kidx[0] = lo < hi ? lo : hi;
        kidx[1] = lo < hi ? hi : lo;
        kept = lo == hi ? 1 : 2;
    }
    /* 2. Refinement of each stretch between consecutive kept vertices (the last one
     * wraps around to the first). */
    const double me2 = max_error * max_error;
    const int64_t mel2 = (int64_t)p->max_edge_len * p->max_edge_len;
    size_t sp = 0;
    for (uint32_t t = 0; t < kept; t++) {
        const uint32_t ia = kidx[t];
        const size_t ib = t + 1 < kept ? kidx[t + 1] : (size_t)kidx[0] + n;
        if (!(straight && op__straight_stretch(p, raw[ia].neighbour))) {
            stack[sp++] = ia;
            stack[sp++] = ib;
        }
    }
    while (sp) {
        const size_t ib = stack[--sp], ia = stack[--sp];
        if (ib - ia < 2)
            continue;
        const op_contour_vert *a = &raw[wrap(ia, n)], *b = &raw[wrap(ib, n)];
        double bd;
        int done = 0;
        size_t best = pt->fast ? farthest_k(raw, pt, n, ia, ib, me2, &bd, &done) : 0;
        if (!done)
            best = farthest(raw, n, ia, ib, &bd);
        if (!(bd > me2)) {
            /* §6 + supplement §9.8: a wall stretch the error step kept nothing of is
             * split in the middle while its chord exceeds MaxEdgeLength. */
            const int64_t dx = (int64_t)b->x - a->x, dz = (int64_t)b->z - a->z;
            if (p->max_edge_len > 0 && a->neighbour == 0 && dx * dx + dz * dz > mel2)
                best = (ia + ib) / 2;
            else
                continue;
        }
        keep[wrap(best, n)] = 1;
        stack[sp++] = ia;
        stack[sp++] = best;
        stack[sp++] = best;
        stack[sp++] = ib;
    }
    /* 3. Merge runs of kept vertices at the same (x, z), cyclically (supplement §9.9):
     * the first stays with its position and takes the neighbour of the run's last. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) { /* (without branches, as in step 1) */
        kidx[m] = i;
        m += keep[i];
    }
    uint32_t start = 0;
    while (start < m && op__same_pos(&raw[kidx[start]], &raw[kidx[start ? start - 1 : m - 1]]))
        start++;
    if (start == m) { /* every kept vertex at one position */
        *out_n = 1;
        out[0] = raw[kidx[0]];
        return;
    }
    uint32_t o = 0, best_o = 0, best_raw = UINT32_MAX;
    /* kept vertex k from start: kidx[at(k)] */
#define AT(k) ((start + (k)) < m ? (start + (k)) : (start + (k)) - m)
    for (uint32_t k = 0; k < m;) {
        const uint32_t i0 = kidx[AT(k)];
        uint32_t last = i0;
        k++;
        while (k < m && op__same_pos(&raw[kidx[AT(k)]], &raw[i0])) {
            last = kidx[AT(k)];
            k++;
        }
        out[o] = raw[i0];
        out[o].neighbour = raw[last].neighbour;
        if (i0 < best_raw) {
            best_raw = i0;
            best_o = o;
        }
        o++;
    }
#undef AT
    /* supplement §9.7: start at the kept vertex with the lowest raw index. */
    if (best_o) { /* rotate left by best_o: three reversals */
        reverse(out, 0, best_o);
        reverse(out, best_o, o);
        reverse(out, 0, o);
    }
    *out_n = o;
}

static int degenerate(const op_contour_vert *v, uint32_t m, int64_t raw_area2)
{
    if (m < 3)
        return 1;
    const int64_t a = op__loop_area2(v, m);
    return a == 0 || (a > 0) != (raw_area2 > 0);
}

op_status op__contour_simplify(op_ctx *ctx, const op_contour_vert *raw, uint32_t n,
                               int64_t raw_area2, const op_csimp *p, op_contour_vert *out,
                               uint32_t *out_n, int *kind)
{
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint8_t *keep = op_scratch(ctx, n, 1);
    size_t *stack = op_scratch(ctx, 2 * (size_t)n + 4, sizeof *stack);
    uint32_t *kidx = op_scratch(ctx, n, sizeof *kidx);
    /* (15 elements of padding: the kernels' vector steps may read them) */
    int32_t *px = op_scratch(ctx, (size_t)n + 15, sizeof *px),
            *pz = op_scratch(ctx, (size_t)n + 15, sizeof *pz);
    if (!keep || !stack || !kidx || !px || !pz) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    simp_pts pt = {ctx->k, px, pz, 0};
    int32_t x0 = raw[0].x, x1 = x0, z0 = raw[0].z, z1 = z0;
    for (uint32_t i = 0; i < n; i++) {
        px[i] = raw[i].x;
        pz[i] = raw[i].z;
        x0 = px[i] < x0 ? px[i] : x0;
        x1 = px[i] > x1 ? px[i] : x1;
        z0 = pz[i] < z0 ? pz[i] : z0;
        z1 = pz[i] > z1 ? pz[i] : z1;
    }
    for (uint32_t i = n; i < n + 15; i++) { /* padding inside the loop's bounds */
        px[i] = x0;
        pz[i] = z0;
    }
    pt.fast = (int64_t)x1 - x0 < 32768 && (int64_t)z1 - z0 < 32768;
    /* supplement §9.11: straight borders are in effect only with MaxError > 0. */
    const int straight = p->straight && p->max_error > 0;
    simplify_once(raw, n, p, &pt, p->max_error, straight, keep, stack, out, out_n, kidx);
    *kind = OP_SIMP_PLAIN;
    int crosses = 0;
    if (degenerate(out, *out_n, raw_area2)) {
        simplify_once(raw, n, p, &pt, 0.0, 0, keep, stack, out, out_n, kidx);
        *kind = OP_SIMP_RETRY0;
        if (degenerate(out, *out_n, raw_area2))
            *kind = OP_SIMP_RAW;
        /* supplement §9.11: the MaxError 0 retry is crossing-checked whatever
         * StraightRegionBorders is (a loop pinched at a vertex loses the pinch). */
        else if (op__loop_crosses(ctx, out, *out_n, &crosses)) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        } else if (crosses)
            *kind = OP_SIMP_RAW;
    } else if (straight) {
        if (op__loop_crosses(ctx, out, *out_n, &crosses)) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        }
        if (crosses) {
            simplify_once(raw, n, p, &pt, p->max_error, 0, keep, stack, out, out_n, kidx);
            *kind = OP_SIMP_REFINED;
            if (degenerate(out, *out_n, raw_area2))
                *kind = OP_SIMP_RAW;
            else if (op__loop_crosses(ctx, out, *out_n, &crosses)) {
                op_arena_release(&ctx->arena, mark);
                return OP_NO_MEMORY;
            } else if (crosses)
                *kind = OP_SIMP_RAW;
        }
    }
    if (*kind == OP_SIMP_RAW) {
        memcpy(out, raw, n * sizeof *out);
        *out_n = n;
    }
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}
