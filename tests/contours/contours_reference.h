/* The contour code as it was before the issue-12 speed work (commit 3e3ab5e, same bytes
 * as a495c93), kept as the reference the new trace, simplification and hole join are
 * compared with byte for byte (tests/contours/test_contours_speed.c): the §6 walk over the
 * field, the farthest-point search through op__seg_dist2, the crossing sweep over x, and
 * the quadratic join. Header only; every function static and prefixed ref_. */
#ifndef OP_TEST_CONTOURS_REFERENCE_H
#define OP_TEST_CONTOURS_REFERENCE_H

#include "contours/contours_internal.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* ---- src/contours/trace.c at 3e3ab5e ---- */
/* Contour tracing (regions-contours §6, Edges and Tracing; supplement §9.1, §9.6):
 * the boundary mask from the edge-classification kernel, then the (span, dir) state
 * machine from every unvisited boundary edge in span-index, then direction order. */


static void ref_trace_free(op_ctrace *t)
{
    op_mem_free(&t->alloc, t->verts);
    op_mem_free(&t->alloc, t->loops);
    memset(t, 0, sizeof *t);
}

static int64_t ref_loop_area2(const op_contour_vert *v, uint32_t n)
{
    int64_t a = 0;
    for (uint32_t i = 0, j = n ? n - 1 : 0; i < n; j = i++)
        a += (int64_t)v[j].x * v[i].z - (int64_t)v[i].x * v[j].z;
    return a;
}

/* Neighbour value (regions-contours §6 Edges, supplement §9.6): the mutual neighbour's
 * region; else 0 inside the grid, TileBorder outside. */
static uint32_t rt_neighbour_value(const op_chf *chf, const uint32_t *region, uint32_t s,
                                int32_t x, int32_t z, int d)
{
    if (chf->mutual[s] >> d & 1)
        return region[op_chf_link(chf, d, s)];
    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
    if (nx < 0 || nz < 0 || nx >= (int64_t)chf->width || nz >= (int64_t)chf->depth)
        return OP_TILE_BORDER;
    return 0;
}

/* Vertex Y (regions-contours §6, supplement §9.1): the highest floor among the span and
 * the spans around the edge's start corner, which is shared with directions d and
 * (d+1) mod 4; the diagonal is every span reached by either order of the two steps. */
static int32_t rt_corner_y(const op_chf *chf, uint32_t s, int d)
{
    const int e = (d + 1) & 3;
    uint32_t y = chf->y[s];
    const uint8_t mu = chf->mutual[s];
    if (mu >> d & 1) {
        const uint32_t a = op_chf_link(chf, d, s);
        if (chf->y[a] > y)
            y = chf->y[a];
        if (chf->mutual[a] >> e & 1) {
            const uint32_t c = op_chf_link(chf, e, a);
            if (chf->y[c] > y)
                y = chf->y[c];
        }
    }
    if (mu >> e & 1) {
        const uint32_t b = op_chf_link(chf, e, s);
        if (chf->y[b] > y)
            y = chf->y[b];
        if (chf->mutual[b] >> d & 1) {
            const uint32_t c = op_chf_link(chf, d, b);
            if (chf->y[c] > y)
                y = chf->y[c];
        }
    }
    return (int32_t)y;
}

static op_status ref_contour_trace(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t border_region, op_ctrace *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t n = chf->span_count;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint8_t *mask = op_scratch(ctx, n ? n : 1, 1);
    if (!mask)
        return OP_NO_MEMORY;
    op_edge_classify_scalar(chf, region, NULL, border_region, mask, 0, n);
    size_t edges = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint8_t m = mask[s];
        edges += (size_t)((m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1));
    }
    out->alloc = ctx->alloc;
    out->verts = op_mem_array(&out->alloc, edges ? edges : 1, sizeof *out->verts);
    if (!out->verts ||
        op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap, 64,
                      sizeof *out->loops, UINT32_MAX) != OP_OK) {
        ref_trace_free(out);
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu contour edges", edges);
    }
    /* Corner offsets of the start corner of the edge in direction d. */
    static const int cx[4] = {0, 1, 1, 0}, cz[4] = {1, 1, 0, 0};
    size_t nv = 0;
    for (uint32_t z = 0; z < chf->depth; z++) {
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            const uint32_t end = chf->cell_first[c + 1];
            for (uint32_t s0 = chf->cell_first[c]; s0 < end; s0++) {
                for (int d0 = 0; d0 < 4; d0++) {
                    if (!(mask[s0] >> d0 & 1))
                        continue; /* not a boundary edge, or visited (bit cleared) */
                    if (op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap,
                                      (size_t)out->loop_count + 1, sizeof *out->loops,
                                      UINT32_MAX) != OP_OK) {
                        ref_trace_free(out);
                        op_arena_release(&ctx->arena, mark);
                        return op_fail(ctx, OP_NO_MEMORY, "out of memory for loops");
                    }
                    op_cloop *L = &out->loops[out->loop_count++];
                    L->region = region[s0];
                    L->first = nv;
                    uint32_t s = s0;
                    int32_t sx = (int32_t)x, sz = (int32_t)z;
                    int d = d0;
                    /* The state map is a permutation, so the orbit returns to its first
                     * state; the guard only protects against a corrupt field. */
                    uint64_t guard = 4ull * n + 8;
                    do {
                        if (mask[s] >> d & 1) {
                            op_contour_vert *v = &out->verts[nv++];
                            v->x = sx + cx[d];
                            v->z = sz + cz[d];
                            v->y = rt_corner_y(chf, s, d);
                            v->neighbour = rt_neighbour_value(chf, region, s, sx, sz, d);
                            /* visited: boundary bit moves to the high nibble */
                            mask[s] = (uint8_t)((mask[s] & ~(1u << d)) | (0x10u << d));
                            d = (d + 3) & 3;
                        } else if (mask[s] >> (4 + d) & 1) {
                            /* A visited boundary edge of an earlier loop cannot lie on
                             * this orbit (orbits are disjoint). */
                            guard = 0;
                        } else {
                            s = op_chf_link(chf, d, s);
                            sx += op_dir_dx(d);
                            sz += op_dir_dz(d);
                            d = (d + 1) & 3;
                        }
                        if (guard-- == 0) {
                            ref_trace_free(out);
                            op_arena_release(&ctx->arena, mark);
                            return op_fail(ctx, OP_INTERNAL,
                                           "contour trace from span %u dir %d does not close",
                                           s0, d0);
                        }
                    } while (!(s == s0 && d == d0));
                    L->count = (uint32_t)(nv - L->first);
                    L->area2 = ref_loop_area2(out->verts + L->first, L->count);
                }
            }
        }
    }
    out->vert_count = nv;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

/* ---- src/contours/simplify.c at 3e3ab5e ---- */
/* Contour simplification of one loop (regions-contours §6 steps 1–3; supplement §9.7–
 * §9.11): portals, the Douglas–Peucker work stack with the tie rule, straight region
 * borders, the MaxEdgeLength split of walls, merging of duplicates, and the fallbacks
 * (MaxError 0, every stretch refined, raw). */


/* supplement §9.10: d² = cross² / len² (as doubles) when the foot falls inside the
 * segment, else the exact squared distance to the nearer end. cross² is formed exactly
 * (128-bit where available) and rounded once to double. */
static double ref_seg_dist2(const op_contour_vert *p, const op_contour_vert *a,
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
    const int64_t cross = px * dz - pz * dx;
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    const uint64_t ac = (uint64_t)(cross < 0 ? -cross : cross);
    const double c2 = (double)((u128)ac * ac);
#else
    const double c2 = (double)cross * (double)cross;
#endif
    return c2 / (double)len2;
}

typedef struct rs_op_xedge {
    int32_t minx, maxx;
    uint32_t i;
} rs_op_xedge;

static int rs_cmp_xedge(const void *pa, const void *pb)
{
    const rs_op_xedge *a = pa, *b = pb;
    if (a->minx != b->minx)
        return a->minx < b->minx ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

static int rs_sgn(int64_t v) { return (v > 0) - (v < 0); }

/* Proper (strict) crossing of the loop's edges, by a sweep over x. */
static int ref_loop_crosses(op_ctx *ctx, const op_contour_vert *v, uint32_t n, int *crosses)
{
    *crosses = 0;
    if (n < 4)
        return 0;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    rs_op_xedge *e = op_scratch(ctx, n, sizeof *e);
    if (!e)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const op_contour_vert *a = &v[i], *b = &v[(i + 1) % n];
        e[i].minx = a->x < b->x ? a->x : b->x;
        e[i].maxx = a->x < b->x ? b->x : a->x;
        e[i].i = i;
    }
    qsort(e, n, sizeof *e, rs_cmp_xedge);
    for (uint32_t k = 0; k < n && !*crosses; k++) {
        const op_contour_vert *a = &v[e[k].i], *b = &v[(e[k].i + 1) % n];
        const int32_t az0 = a->z < b->z ? a->z : b->z, az1 = a->z < b->z ? b->z : a->z;
        for (uint32_t l = k + 1; l < n && e[l].minx <= e[k].maxx; l++) {
            const op_contour_vert *c = &v[e[l].i], *d = &v[(e[l].i + 1) % n];
            const int32_t cz0 = c->z < d->z ? c->z : d->z, cz1 = c->z < d->z ? d->z : c->z;
            if (cz1 < az0 || cz0 > az1)
                continue;
            if (rs_sgn(op__orient(a, b, c)) * rs_sgn(op__orient(a, b, d)) < 0 &&
                rs_sgn(op__orient(c, d, a)) * rs_sgn(op__orient(c, d, b)) < 0) {
                *crosses = 1;
                break;
            }
        }
    }
    op_arena_release(&ctx->arena, mark);
    return 0;
}

/* §6: a stretch whose neighbour value is a region N > 0 that is not BorderRegion and
 * has the contour's area is left as one chord (when straight borders are in effect). */
static int ref_straight_stretch(const op_csimp *p, uint32_t nb)
{
    return nb != 0 && nb != OP_TILE_BORDER && nb != p->border_region &&
           nb <= p->region_count && p->region_area[nb] == p->area;
}

static int rs_lex_less(const op_contour_vert *a, const op_contour_vert *b)
{
    return a->x < b->x || (a->x == b->x && a->z < b->z);
}

static void rs_reverse(op_contour_vert *v, uint32_t b, uint32_t e)
{
    while (e > b + 1) {
        const op_contour_vert t = v[b];
        v[b++] = v[--e];
        v[e] = t;
    }
}

/* One simplification attempt (§6 steps 1–3, without the fallbacks). */
static void rs_simplify_once(const op_contour_vert *raw, uint32_t n, const op_csimp *p,
                          double max_error, int straight, uint8_t *keep, size_t *stack,
                          op_contour_vert *out, uint32_t *out_n, uint32_t *kidx)
{
    /* 1. Portals: a vertex whose neighbour differs from its predecessor's. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        keep[i] = raw[i].neighbour != raw[(i + n - 1) % n].neighbour;
        kept += keep[i];
    }
    if (kept == 0) {
        uint32_t lo = 0, hi = 0;
        for (uint32_t i = 1; i < n; i++) {
            if (rs_lex_less(&raw[i], &raw[lo]))
                lo = i;
            if (rs_lex_less(&raw[hi], &raw[i]))
                hi = i;
        }
        keep[lo] = keep[hi] = 1;
    }
    /* 2. Refinement of each stretch between consecutive kept vertices. */
    uint32_t first = 0;
    while (!keep[first])
        first++;
    const double me2 = max_error * max_error;
    const int64_t mel2 = (int64_t)p->max_edge_len * p->max_edge_len;
    size_t sp = 0;
    for (uint32_t ia = first;;) {
        uint32_t ib = ia + 1;
        while (ib < first + n && !keep[ib % n])
            ib++;
        if (!(straight && ref_straight_stretch(p, raw[ia].neighbour))) {
            stack[sp++] = ia;
            stack[sp++] = ib;
        }
        if (ib >= first + n)
            break;
        ia = ib;
    }
    while (sp) {
        const size_t ib = stack[--sp], ia = stack[--sp];
        if (ib - ia < 2)
            continue;
        const op_contour_vert *a = &raw[ia % n], *b = &raw[ib % n];
        size_t best = 0;
        double bd = -1.0;
        for (size_t i = ia + 1; i < ib; i++) {
            const op_contour_vert *q = &raw[i % n];
            const double d2 = ref_seg_dist2(q, a, b);
            if (d2 > bd || (d2 == bd && rs_lex_less(q, &raw[best % n]))) {
                bd = d2;
                best = i;
            }
        }
        if (!(bd > me2)) {
            /* §6 + supplement §9.8: a wall stretch the error step kept nothing of is
             * split in the middle while its chord exceeds MaxEdgeLength. */
            const int64_t dx = (int64_t)b->x - a->x, dz = (int64_t)b->z - a->z;
            if (p->max_edge_len > 0 && a->neighbour == 0 && dx * dx + dz * dz > mel2)
                best = (ia + ib) / 2;
            else
                continue;
        }
        keep[best % n] = 1;
        stack[sp++] = ia;
        stack[sp++] = best;
        stack[sp++] = best;
        stack[sp++] = ib;
    }
    /* 3. Merge runs of kept vertices at the same (x, z), cyclically (supplement §9.9):
     * the first stays with its position and takes the neighbour of the run's last. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (keep[i])
            kidx[m++] = i;
    uint32_t start = 0;
    while (start < m && op__same_pos(&raw[kidx[start]], &raw[kidx[(start + m - 1) % m]]))
        start++;
    if (start == m) { /* every kept vertex at one position */
        *out_n = 1;
        out[0] = raw[kidx[0]];
        return;
    }
    uint32_t o = 0, best_o = 0, best_raw = UINT32_MAX;
    for (uint32_t k = 0; k < m;) {
        const uint32_t i0 = kidx[(start + k) % m];
        uint32_t last = i0;
        k++;
        while (k < m && op__same_pos(&raw[kidx[(start + k) % m]], &raw[i0])) {
            last = kidx[(start + k) % m];
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
    /* supplement §9.7: start at the kept vertex with the lowest raw index. */
    if (best_o) { /* rotate left by best_o: three reversals */
        rs_reverse(out, 0, best_o);
        rs_reverse(out, best_o, o);
        rs_reverse(out, 0, o);
    }
    *out_n = o;
}

static int rs_degenerate(const op_contour_vert *v, uint32_t m, int64_t raw_area2)
{
    if (m < 3)
        return 1;
    const int64_t a = ref_loop_area2(v, m);
    return a == 0 || (a > 0) != (raw_area2 > 0);
}

static op_status ref_contour_simplify(op_ctx *ctx, const op_contour_vert *raw, uint32_t n,
                               int64_t raw_area2, const op_csimp *p, op_contour_vert *out,
                               uint32_t *out_n, int *kind)
{
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint8_t *keep = op_scratch(ctx, n, 1);
    size_t *stack = op_scratch(ctx, 2 * (size_t)n + 4, sizeof *stack);
    uint32_t *kidx = op_scratch(ctx, n, sizeof *kidx);
    if (!keep || !stack || !kidx) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    /* supplement §9.11: straight borders are in effect only with MaxError > 0. */
    const int straight = p->straight && p->max_error > 0;
    rs_simplify_once(raw, n, p, p->max_error, straight, keep, stack, out, out_n, kidx);
    *kind = OP_SIMP_PLAIN;
    int crosses = 0;
    if (rs_degenerate(out, *out_n, raw_area2)) {
        rs_simplify_once(raw, n, p, 0.0, 0, keep, stack, out, out_n, kidx);
        *kind = OP_SIMP_RETRY0;
        if (rs_degenerate(out, *out_n, raw_area2))
            *kind = OP_SIMP_RAW;
        /* supplement §9.11: the MaxError 0 retry is crossing-checked whatever
         * StraightRegionBorders is (a loop pinched at a vertex loses the pinch). */
        else if (ref_loop_crosses(ctx, out, *out_n, &crosses)) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        } else if (crosses)
            *kind = OP_SIMP_RAW;
    } else if (straight) {
        if (ref_loop_crosses(ctx, out, *out_n, &crosses)) {
            op_arena_release(&ctx->arena, mark);
            return OP_NO_MEMORY;
        }
        if (crosses) {
            rs_simplify_once(raw, n, p, p->max_error, 0, keep, stack, out, out_n, kidx);
            *kind = OP_SIMP_REFINED;
            if (rs_degenerate(out, *out_n, raw_area2))
                *kind = OP_SIMP_RAW;
            else if (ref_loop_crosses(ctx, out, *out_n, &crosses)) {
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

/* ---- src/contours/holes.c at 3e3ab5e ---- */
/* Hole joining (regions-contours §6 Holes; supplement §9.12): the bridge search by
 * increasing squared distance, open cones on the region's side, and the segment-rh_touch
 * rule, all in exact 64-bit orientation. */


static uint32_t ref_leftmost(const op_contour_vert *v, uint32_t n)
{
    uint32_t b = 0;
    for (uint32_t i = 1; i < n; i++)
        if (v[i].x < v[b].x || (v[i].x == v[b].x && v[i].z < v[b].z))
            b = i;
    return b;
}

static int rh_sgn(int64_t v) { return (v > 0) - (v < 0); }

/* c on the closed segment a b, given orient(a, b, c) == 0. */
static int rh_within(const op_contour_vert *a, const op_contour_vert *b, const op_contour_vert *c)
{
    const int32_t x0 = a->x < b->x ? a->x : b->x, x1 = a->x < b->x ? b->x : a->x;
    const int32_t z0 = a->z < b->z ? a->z : b->z, z1 = a->z < b->z ? b->z : a->z;
    return c->x >= x0 && c->x <= x1 && c->z >= z0 && c->z <= z1;
}

static int ref_point_in_loop(const op_contour_vert *t, const op_contour_vert *v, uint32_t n)
{
    int64_t wn = 0;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
        const op_contour_vert *a = &v[j], *b = &v[i];
        const int64_t o = op__orient(a, b, t);
        if (o == 0 && rh_within(a, b, t))
            return 1; /* supplement §9.12: a point on an edge is inside */
        if (a->z <= t->z) {
            if (b->z > t->z && o > 0)
                wn++;
        } else if (b->z <= t->z && o < 0) {
            wn--;
        }
    }
    return wn != 0;
}

/* supplement §9.12: open cone on the region's side (left of the directed edges) at v
 * with predecessor a and successor b; collinear neighbours count as convex. */
static int rh_in_cone(const op_contour_vert *a, const op_contour_vert *v,
                   const op_contour_vert *b, const op_contour_vert *t)
{
    if (op__orient(a, v, b) >= 0)
        return op__orient(a, v, t) > 0 && op__orient(v, b, t) > 0;
    return op__orient(a, v, t) > 0 || op__orient(v, b, t) > 0;
}

/* Closed segments p q and u w have a common point. */
static int rh_touch(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *u,
                 const op_contour_vert *w)
{
    const int o1 = rh_sgn(op__orient(p, q, u)), o2 = rh_sgn(op__orient(p, q, w));
    const int o3 = rh_sgn(op__orient(u, w, p)), o4 = rh_sgn(op__orient(u, w, q));
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return 1;
    return (o1 == 0 && rh_within(p, q, u)) || (o2 == 0 && rh_within(p, q, w)) ||
           (o3 == 0 && rh_within(u, w, p)) || (o4 == 0 && rh_within(u, w, q));
}

/* The segment p q touches an edge of the loop that has no endpoint at p's or q's
 * position. A bounding-box test rejects far edges first. */
static int rh_blocked(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *v,
                   uint32_t n)
{
    const int32_t x0 = p->x < q->x ? p->x : q->x, x1 = p->x < q->x ? q->x : p->x;
    const int32_t z0 = p->z < q->z ? p->z : q->z, z1 = p->z < q->z ? q->z : p->z;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
        const op_contour_vert *u = &v[j], *w = &v[i];
        if ((u->x < x0 && w->x < x0) || (u->x > x1 && w->x > x1) || (u->z < z0 && w->z < z0) ||
            (u->z > z1 && w->z > z1))
            continue;
        if (op__same_pos(u, p) || op__same_pos(u, q) || op__same_pos(w, p) ||
            op__same_pos(w, q))
            continue;
        if (rh_touch(p, q, u, w))
            return 1;
    }
    return 0;
}

typedef struct rh_op_cand {
    int64_t d2;
    uint32_t i;
} rh_op_cand;

static int rh_cand_less(const rh_op_cand *a, const rh_op_cand *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && a->i < b->i);
}

/* A binary min-heap: candidates are popped by (squared distance, index); usually the
 * first one is accepted, so a full sort would be wasted. */
static void rh_sift_down(rh_op_cand *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && rh_cand_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && rh_cand_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        const rh_op_cand t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

typedef struct rh_op_bbox {
    int32_t x0, z0, x1, z1;
} rh_op_bbox;

static op_status ref_contour_join(op_ctx *ctx, const op_contour_vert *outline, uint32_t on,
                           const op_contour_vert *const *holes, const uint32_t *hn,
                           uint32_t hcount, uint32_t region, op_contour_vert *out,
                           uint32_t *out_n, uint8_t *joined)
{
    size_t cap = on;
    for (uint32_t h = 0; h < hcount; h++)
        cap += (size_t)hn[h] + 2;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    rh_op_cand *cand = op_scratch(ctx, cap, sizeof *cand);
    rh_op_bbox *hb = op_scratch(ctx, hcount ? hcount : 1, sizeof *hb);
    if (!cand || !hb) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    for (uint32_t h = 0; h < hcount; h++) {
        rh_op_bbox b = {INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
        for (uint32_t i = 0; i < hn[h]; i++) {
            const op_contour_vert *v = &holes[h][i];
            b.x0 = v->x < b.x0 ? v->x : b.x0;
            b.z0 = v->z < b.z0 ? v->z : b.z0;
            b.x1 = v->x > b.x1 ? v->x : b.x1;
            b.z1 = v->z > b.z1 ? v->z : b.z1;
        }
        hb[h] = b;
    }
    memcpy(out, outline, on * sizeof *out);
    uint32_t m = on;
    for (uint32_t h = 0; h < hcount; h++) {
        joined[h] = 0;
        const op_contour_vert *H = holes[h];
        const uint32_t k = hn[h];
        const uint32_t ip = ref_leftmost(H, k);
        const op_contour_vert *p = &H[ip], *pa = &H[(ip + k - 1) % k], *pb = &H[(ip + 1) % k];
        uint32_t best = 0;
        for (uint32_t i = 0; i < m; i++) {
            const int64_t dx = (int64_t)out[i].x - p->x, dz = (int64_t)out[i].z - p->z;
            cand[i].d2 = dx * dx + dz * dz;
            cand[i].i = i;
            if (cand[i].d2 < cand[best].d2)
                best = i;
        }
        /* The nearest candidate is tried first without building the heap; the heap
         * (with the nearest again, rejected at once) only when it fails. */
        int heap = 0;
        for (uint32_t left = m; left > 0;) {
            uint32_t iq;
            if (!heap) {
                iq = best;
                heap = 1;
            } else {
                if (heap == 1) {
                    for (uint32_t i = m / 2; i-- > 0;)
                        rh_sift_down(cand, m, i);
                    heap = 2;
                }
                iq = cand[0].i;
                cand[0] = cand[--left];
                rh_sift_down(cand, left, 0);
                if (iq == best)
                    continue;
            }
            const op_contour_vert *q = &out[iq];
            if (!rh_in_cone(pa, p, pb, q) || !rh_in_cone(&out[(iq + m - 1) % m], q, &out[(iq + 1) % m], p))
                continue;
            int bad = rh_blocked(p, q, out, m) || rh_blocked(p, q, H, k);
            const int32_t x0 = p->x < q->x ? p->x : q->x, x1 = p->x < q->x ? q->x : p->x;
            const int32_t z0 = p->z < q->z ? p->z : q->z, z1 = p->z < q->z ? q->z : p->z;
            for (uint32_t g = h + 1; g < hcount && !bad; g++)
                if (!(hb[g].x1 < x0 || hb[g].x0 > x1 || hb[g].z1 < z0 || hb[g].z0 > z1))
                    bad = rh_blocked(p, q, holes[g], hn[g]);
            if (bad)
                continue;
            /* Merged: outline up to and including q, the hole from p all round and back
             * to p, then q again and the rest. Bridge edges carry the region's own id. */
            memmove(out + iq + k + 2, out + iq, (m - iq) * sizeof *out);
            for (uint32_t j = 0; j < k; j++)
                out[iq + 1 + j] = H[(ip + j) % k];
            out[iq + 1 + k] = *p;
            out[iq + 1 + k].neighbour = region;
            out[iq].neighbour = region;
            m += k + 2;
            joined[h] = 1;
            break;
        }
    }
    *out_n = m;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

#endif
