/* Hole joining (regions-contours §6 Holes; supplement §9.12): the bridge search by
 * increasing squared distance, open cones on the region's side, and the segment-touch
 * rule, all in exact 64-bit orientation. */
#include "contours/contours_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

uint32_t op__leftmost(const op_contour_vert *v, uint32_t n)
{
    uint32_t b = 0;
    for (uint32_t i = 1; i < n; i++)
        if (v[i].x < v[b].x || (v[i].x == v[b].x && v[i].z < v[b].z))
            b = i;
    return b;
}

static int sgn(int64_t v) { return (v > 0) - (v < 0); }

/* c on the closed segment a b, given orient(a, b, c) == 0. */
static int within(const op_contour_vert *a, const op_contour_vert *b, const op_contour_vert *c)
{
    const int32_t x0 = a->x < b->x ? a->x : b->x, x1 = a->x < b->x ? b->x : a->x;
    const int32_t z0 = a->z < b->z ? a->z : b->z, z1 = a->z < b->z ? b->z : a->z;
    return c->x >= x0 && c->x <= x1 && c->z >= z0 && c->z <= z1;
}

int op__point_in_loop(const op_contour_vert *t, const op_contour_vert *v, uint32_t n)
{
    int64_t wn = 0;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
        const op_contour_vert *a = &v[j], *b = &v[i];
        const int64_t o = op__orient(a, b, t);
        if (o == 0 && within(a, b, t))
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
static int in_cone(const op_contour_vert *a, const op_contour_vert *v,
                   const op_contour_vert *b, const op_contour_vert *t)
{
    if (op__orient(a, v, b) >= 0)
        return op__orient(a, v, t) > 0 && op__orient(v, b, t) > 0;
    return op__orient(a, v, t) > 0 || op__orient(v, b, t) > 0;
}

/* Closed segments p q and u w have a common point. */
static int touch(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *u,
                 const op_contour_vert *w)
{
    const int o1 = sgn(op__orient(p, q, u)), o2 = sgn(op__orient(p, q, w));
    const int o3 = sgn(op__orient(u, w, p)), o4 = sgn(op__orient(u, w, q));
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return 1;
    return (o1 == 0 && within(p, q, u)) || (o2 == 0 && within(p, q, w)) ||
           (o3 == 0 && within(u, w, p)) || (o4 == 0 && within(u, w, q));
}

/* The segment p q touches an edge of the loop that has no endpoint at p's or q's
 * position. A bounding-box test rejects far edges first. */
static int blocked(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *v,
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
        if (touch(p, q, u, w))
            return 1;
    }
    return 0;
}

typedef struct op_cand {
    int64_t d2;
    uint32_t i;
} op_cand;

static int cand_less(const op_cand *a, const op_cand *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && a->i < b->i);
}

/* A binary min-heap: candidates are popped by (squared distance, index); usually the
 * first one is accepted, so a full sort would be wasted. */
static void sift_down(op_cand *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && cand_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && cand_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        const op_cand t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

typedef struct op_bbox {
    int32_t x0, z0, x1, z1;
} op_bbox;

op_status op__contour_join(op_ctx *ctx, const op_contour_vert *outline, uint32_t on,
                           const op_contour_vert *const *holes, const uint32_t *hn,
                           uint32_t hcount, uint32_t region, op_contour_vert *out,
                           uint32_t *out_n, uint8_t *joined)
{
    size_t cap = on;
    for (uint32_t h = 0; h < hcount; h++)
        cap += (size_t)hn[h] + 2;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    op_cand *cand = op_scratch(ctx, cap, sizeof *cand);
    op_bbox *hb = op_scratch(ctx, hcount ? hcount : 1, sizeof *hb);
    if (!cand || !hb) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    for (uint32_t h = 0; h < hcount; h++) {
        op_bbox b = {INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
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
        const uint32_t ip = op__leftmost(H, k);
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
                        sift_down(cand, m, i);
                    heap = 2;
                }
                iq = cand[0].i;
                cand[0] = cand[--left];
                sift_down(cand, left, 0);
                if (iq == best)
                    continue;
            }
            const op_contour_vert *q = &out[iq];
            if (!in_cone(pa, p, pb, q) || !in_cone(&out[(iq + m - 1) % m], q, &out[(iq + 1) % m], p))
                continue;
            int bad = blocked(p, q, out, m) || blocked(p, q, H, k);
            const int32_t x0 = p->x < q->x ? p->x : q->x, x1 = p->x < q->x ? q->x : p->x;
            const int32_t z0 = p->z < q->z ? p->z : q->z, z1 = p->z < q->z ? q->z : p->z;
            for (uint32_t g = h + 1; g < hcount && !bad; g++)
                if (!(hb[g].x1 < x0 || hb[g].x0 > x1 || hb[g].z1 < z0 || hb[g].z0 > z1))
                    bad = blocked(p, q, holes[g], hn[g]);
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
