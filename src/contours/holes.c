/* Hole joining (regions-contours §6 Holes; supplement §9.12): the bridge search by
 * increasing squared distance, open cones on the region's side, and the segment-touch
 * rule, all in exact 64-bit orientation. */
#include "contours/contours_internal.h"
#include "core/alloc.h"
#include "core/array.h"

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

int op__touch(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *u,
              const op_contour_vert *w)
{
    const int o1 = sgn(op__orient(p, q, u)), o2 = sgn(op__orient(p, q, w));
    const int o3 = sgn(op__orient(u, w, p)), o4 = sgn(op__orient(u, w, q));
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return 1;
    return (o1 == 0 && within(p, q, u)) || (o2 == 0 && within(p, q, w)) ||
           (o3 == 0 && within(u, w, p)) || (o4 == 0 && within(u, w, q));
}

/* ---- The join (regions-contours §6 Holes) ---------------------------------------------
 *
 * The text tries, for each hole in order, every vertex of the loop joined so far by
 * increasing squared distance (lowest position on ties), and tests each bridge against
 * every edge: quadratic in the holes. The same bridges come from:
 *  - the joined loop as a linked list whose positions are kept as ordered 64-bit labels
 *    (an insertion takes labels between its neighbours'; all are relabelled when a gap
 *    is used up), so "lowest position" is "smallest label";
 *  - the candidates from a uniform grid of the loop's vertices, by rings around the
 *    hole's leftmost vertex: a vertex in ring r + 1 or further is farther than r·S, so the
 *    ones met up to ring r with d² <= (r·S + 1)² - 1 come first, in (d², label) order from
 *    a heap, exactly as in the text's order;
 *  - the segment test against the edges registered in the grid cells the bridge passes
 *    through (every cell a segment touches holds it): a yes or no, the same as over all
 *    edges. The edges tested are the text's: the outline's, the bridges', those of the
 *    holes joined so far, of the current hole and of the holes still to come; a hole that
 *    found no bridge leaves the set. */

typedef struct jnode {
    op_contour_vert v;
    uint32_t prev, next, gnext; /* loop order; next vertex in the same grid cell */
    uint64_t label;             /* position order */
} jnode;

typedef struct jedge {
    int32_t ax, az, bx, bz;
    uint32_t owner; /* hole index, or UINT32_MAX: outline or bridge */
} jedge;

typedef struct jref {
    uint32_t edge, next;
} jref;

typedef struct jcand {
    int64_t d2;
    uint64_t label;
    uint32_t node;
} jcand;

typedef struct jgrid {
    op_cgrid c;
    uint32_t *vhead; /* per cell: first node */
    uint32_t *ehead; /* per cell: first edge reference */
} jgrid;

typedef struct jstate {
    op_ctx *ctx;
    jgrid g;
    jnode *node;
    size_t nnode;
    jedge *edge;
    size_t nedge, edge_cap;
    jref *ref;
    size_t nref, ref_cap;
    const uint8_t *joined; /* per hole; the hole being joined is cur */
    uint32_t cur;
    uint64_t spacing;
    int nomem;
} jstate;

#define JNONE UINT32_MAX

typedef struct jadd {
    jstate *st;
    uint32_t e;
} jadd;

static int add_ref(void *arg, size_t cell)
{
    jstate *st = ((jadd *)arg)->st;
    const uint32_t e = ((jadd *)arg)->e;
    if (st->nref == st->ref_cap &&
        op_array_grow(&st->ctx->alloc, (void **)&st->ref, &st->ref_cap, st->nref + 1,
                      sizeof *st->ref, JNONE) != OP_OK) {
        st->nomem = 1;
        return 1;
    }
    st->ref[st->nref].edge = e;
    st->ref[st->nref].next = st->g.ehead[cell];
    st->g.ehead[cell] = (uint32_t)st->nref++;
    return 0;
}

static int add_edge(jstate *st, const op_contour_vert *a, const op_contour_vert *b,
                    uint32_t owner)
{
    if (st->nedge == st->edge_cap &&
        op_array_grow(&st->ctx->alloc, (void **)&st->edge, &st->edge_cap, st->nedge + 1,
                      sizeof *st->edge, JNONE) != OP_OK)
        return st->nomem = 1, -1;
    jadd ad = {st, (uint32_t)st->nedge++};
    st->edge[ad.e] = (jedge){a->x, a->z, b->x, b->z, owner};
    op__cgrid_walk(&st->g.c, a->x, a->z, b->x, b->z, add_ref, &ad);
    return st->nomem ? -1 : 0;
}

/* The bridge p q against the edges in one cell (the text's segment test). */
typedef struct jquery {
    jstate *st;
    const op_contour_vert *p, *q;
} jquery;

static int cell_blocks(void *arg, size_t cell)
{
    const jquery *qy = arg;
    jstate *st = qy->st;
    const op_contour_vert *p = qy->p, *q = qy->q;
    const int32_t x0 = p->x < q->x ? p->x : q->x, x1 = p->x < q->x ? q->x : p->x;
    const int32_t z0 = p->z < q->z ? p->z : q->z, z1 = p->z < q->z ? q->z : p->z;
    for (uint32_t r = st->g.ehead[cell]; r != JNONE; r = st->ref[r].next) {
        const jedge *e = &st->edge[st->ref[r].edge];
        if (e->owner != JNONE && e->owner < st->cur && !st->joined[e->owner])
            continue; /* a hole that found no bridge */
        if ((e->ax < x0 && e->bx < x0) || (e->ax > x1 && e->bx > x1) ||
            (e->az < z0 && e->bz < z0) || (e->az > z1 && e->bz > z1))
            continue;
        const op_contour_vert u = {e->ax, 0, e->az, 0}, w = {e->bx, 0, e->bz, 0};
        if (op__same_pos(&u, p) || op__same_pos(&u, q) || op__same_pos(&w, p) ||
            op__same_pos(&w, q))
            continue;
        if (op__touch(p, q, &u, &w))
            return 1;
    }
    return 0;
}

static inline int cand_less(const jcand *a, const jcand *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && a->label < b->label);
}

static void heap_push(jcand *h, size_t *n, jcand c)
{
    size_t i = (*n)++;
    while (i > 0) {
        const size_t up = (i - 1) / 2;
        if (!cand_less(&c, &h[up]))
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = c;
}

static jcand heap_pop(jcand *h, size_t *n)
{
    const jcand top = h[0];
    const jcand last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && cand_less(&h[c + 1], &h[c]))
            c++;
        if (!cand_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

static void grid_add_node(jstate *st, uint32_t k)
{
    const op_cgrid *g = &st->g.c;
    const size_t cell = (size_t)(op__cgrid_row(g, st->node[k].v.z) * g->nx +
                                 op__cgrid_col(g, st->node[k].v.x));
    st->node[k].gnext = st->g.vhead[cell];
    st->g.vhead[cell] = k;
}

/* Positions of the whole list again, evenly spaced from the head. */
static void relabel(jstate *st)
{
    uint64_t l = st->spacing;
    uint32_t k = 0;
    do {
        st->node[k].label = l;
        l += st->spacing;
        k = st->node[k].next;
    } while (k != 0);
}

op_status op__contour_join(op_ctx *ctx, const op_contour_vert *outline, uint32_t on,
                           const op_contour_vert *const *holes, const uint32_t *hn,
                           uint32_t hcount, uint32_t region, op_contour_vert *out,
                           uint32_t *out_n, uint8_t *joined)
{
    size_t cap = on;
    for (uint32_t h = 0; h < hcount; h++)
        cap += (size_t)hn[h] + 2;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    jstate st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.joined = joined;
    st.node = op_scratch(ctx, cap, sizeof *st.node);
    jcand *heap = op_scratch(ctx, cap, sizeof *heap);
    if (!st.node || !heap) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    /* The grid over every vertex the join can meet, about one vertex per cell. */
    int64_t x0 = INT64_MAX, z0 = INT64_MAX, x1 = INT64_MIN, z1 = INT64_MIN;
    for (uint32_t h = 0; h <= hcount; h++) {
        const op_contour_vert *v = h < hcount ? holes[h] : outline;
        const uint32_t n = h < hcount ? hn[h] : on;
        for (uint32_t i = 0; i < n; i++) {
            x0 = v[i].x < x0 ? v[i].x : x0;
            z0 = v[i].z < z0 ? v[i].z : z0;
            x1 = v[i].x > x1 ? v[i].x : x1;
            z1 = v[i].z > z1 ? v[i].z : z1;
        }
    }
    op__cgrid_init(&st.g.c, x0, z0, x1, z1, cap);
    const op_cgrid *gc = &st.g.c;
    const int64_t s = gc->s;
    const size_t cells = (size_t)(gc->nx * gc->nz);
    st.g.vhead = op_scratch(ctx, cells, sizeof *st.g.vhead);
    st.g.ehead = op_scratch(ctx, cells, sizeof *st.g.ehead);
    if (!st.g.vhead || !st.g.ehead) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(st.g.vhead, 0xff, cells * sizeof *st.g.vhead);
    memset(st.g.ehead, 0xff, cells * sizeof *st.g.ehead);
    st.spacing = UINT64_MAX / ((uint64_t)cap + 2);

    /* The outline: nodes, vertices and edges. */
    for (uint32_t i = 0; i < on; i++) {
        jnode *k = &st.node[i];
        k->v = outline[i];
        k->prev = i ? i - 1 : on - 1;
        k->next = i + 1 < on ? i + 1 : 0;
        k->label = st.spacing * (i + 1);
        grid_add_node(&st, i);
        add_edge(&st, &outline[i ? i - 1 : on - 1], &outline[i], JNONE);
    }
    st.nnode = on;
    for (uint32_t h = 0; h < hcount; h++)
        for (uint32_t i = 0; i < hn[h]; i++)
            add_edge(&st, &holes[h][i ? i - 1 : hn[h] - 1], &holes[h][i], h);

    op_status ret = OP_OK;
    for (uint32_t h = 0; h < hcount && !st.nomem; h++) {
        joined[h] = 0;
        st.cur = h;
        const op_contour_vert *H = holes[h];
        const uint32_t k = hn[h];
        const uint32_t ip = op__leftmost(H, k);
        const op_contour_vert *p = &H[ip], *pa = &H[(ip + k - 1) % k], *pb = &H[(ip + 1) % k];
        const int64_t pcx = op__cgrid_col(gc, p->x), pcz = op__cgrid_row(gc, p->z);
        const int64_t rmax = gc->nx > gc->nz ? gc->nx : gc->nz;
        size_t hnum = 0;
        uint32_t iq = JNONE;
        for (int64_t r = 0; r <= rmax && iq == JNONE; r++) {
            /* ring r: the cells at Chebyshev distance r from p's cell */
            for (int64_t cz = pcz - r; cz <= pcz + r; cz++) {
                if (cz < 0 || cz >= gc->nz)
                    continue;
                const int64_t step = (cz == pcz - r || cz == pcz + r) ? 1 : 2 * r;
                for (int64_t cx = pcx - r; cx <= pcx + r; cx += step ? step : 1) {
                    if (cx < 0 || cx >= gc->nx)
                        continue;
                    for (uint32_t n = st.g.vhead[cz * gc->nx + cx]; n != JNONE;
                         n = st.node[n].gnext) {
                        const int64_t dx = (int64_t)st.node[n].v.x - p->x,
                                      dz = (int64_t)st.node[n].v.z - p->z;
                        heap_push(heap, &hnum, (jcand){dx * dx + dz * dz, st.node[n].label, n});
                    }
                }
            }
            /* the vertices not met yet lie farther than r·s */
            const int64_t lim = r < rmax && r * s < 3000000000 ? (r * s + 1) * (r * s + 1) - 1
                                                               : INT64_MAX;
            while (hnum && heap[0].d2 <= lim) {
                const uint32_t n = heap_pop(heap, &hnum).node;
                const op_contour_vert *q = &st.node[n].v;
                if (!in_cone(pa, p, pb, q) ||
                    !in_cone(&st.node[st.node[n].prev].v, q, &st.node[st.node[n].next].v, p))
                    continue;
                jquery qy = {&st, p, q};
                if (op__cgrid_walk(gc, p->x, p->z, q->x, q->z, cell_blocks, &qy))
                    continue;
                iq = n;
                break;
            }
        }
        if (iq == JNONE)
            continue; /* dropped: its edges leave the set (owner < cur, not joined) */
        /* Merged: ..., q, the hole from p all round, p again, q again, the rest. The
         * bridge edges carry the region's own id. */
        const uint32_t after = st.node[iq].next;
        const uint32_t first = (uint32_t)st.nnode, count = k + 2;
        uint64_t lo = st.node[iq].label;
        uint64_t hi = after == 0 ? UINT64_MAX : st.node[after].label;
        if ((hi - lo) / (count + 1) == 0) {
            /* the gap is used up: insert, then relabel everything */
            lo = hi = 0;
        }
        for (uint32_t j = 0; j < count; j++) {
            jnode *nd = &st.node[first + j];
            if (j < k)
                nd->v = H[(ip + j) % k];
            else if (j == k) {
                nd->v = *p;
                nd->v.neighbour = region;
            } else {
                nd->v = st.node[iq].v; /* q again, with q's own neighbour */
            }
            nd->prev = j ? first + j - 1 : iq;
            nd->next = j + 1 < count ? first + j + 1 : after;
            nd->label = lo + (hi - lo) / (count + 1) * (j + 1);
        }
        st.node[iq].v.neighbour = region;
        st.node[iq].next = first;
        st.node[after].prev = first + count - 1;
        st.nnode += count;
        if (hi == 0)
            relabel(&st);
        for (uint32_t j = 0; j < count; j++)
            grid_add_node(&st, first + j);
        add_edge(&st, p, &st.node[iq].v, JNONE); /* the bridge (both ways, one segment) */
        joined[h] = 1;
    }
    if (st.nomem)
        ret = OP_NO_MEMORY;
    else {
        uint32_t m = 0, n = 0;
        do {
            out[m++] = st.node[n].v;
            n = st.node[n].next;
        } while (n != 0);
        *out_n = m;
    }
    op_mem_free(&ctx->alloc, st.edge);
    op_mem_free(&ctx->alloc, st.ref);
    op_arena_release(&ctx->arena, mark);
    return ret;
}
