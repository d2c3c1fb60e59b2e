/* The flood of one chunk: region labels in flood order, region summaries and boundary
 * exits (topology.md "Behavior"; supplement §10.2-10.5, §10.11).
 *
 * Supplement §10.2: tiles are scanned by increasing local index; an unlabelled passable
 * tile seeds the next id; the flood is a LIFO stack and a tile is labelled when pushed;
 * a popped tile is counted, grows the bounds, records its exits, then pushes its
 * unlabelled passable in-chunk neighbours in the order +x, -x, +y, -y, +z, -z (hex: +x,
 * -x, +y, -y, (+1,-1), (-1,+1)). §10.3 / §10.4 give the exits of a popped tile.
 *
 * The flood runs on a padded copy of the chunk's passability (one impassable tile around
 * it), so a neighbour step is one add and never a bounds test; clearing a tile's byte
 * when it is pushed is the "labelled when pushed" of §10.2. The label is written when the
 * tile is popped: every pushed tile is popped before the region ends, so the labels are
 * the same. flood_region has a branchy loop for open ground and a branch-free one for
 * broken ground (docs/decisions/topology.md). */

/* The row loops here (byte compares, sums, widening copies) are written to vectorize;
 * GCC vectorizes at -O2 only from version 12 and only cheaply, so ask for it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif
#include "topology/topology_internal.h"

/* ---- per-thread storage -------------------------------------------------------------------- */

void op_topo_flood_free(op_topo_flood *f)
{
    op_mem_free(&f->alloc, f->st);
    op_mem_free(&f->alloc, f->stack);
    op_mem_free(&f->alloc, f->stack16);
    op_mem_free(&f->alloc, f->lab16);
    op_mem_free(&f->alloc, f->mask);
    op_mem_free(&f->alloc, f->gl_scratch);
    op_mem_free(&f->alloc, f->row);
    op_mem_free(&f->alloc, f->eval.stack);
    op_allocator a = f->alloc;
    memset(f, 0, sizeof *f);
    f->alloc = a;
}

int op_topo_flood_reserve(op_topo_flood *f, const op_topo_plan *p, const op_movement_class *c,
                          const op_allocator *a)
{
    if (a)
        f->alloc = *a;
    if (f->padded_cap < p->padded || (p->compact && !f->lab16) || f->mask_cap < p->tiles) {
        op_mem_free(&f->alloc, f->st);
        op_mem_free(&f->alloc, f->stack);
        op_mem_free(&f->alloc, f->stack16);
        op_mem_free(&f->alloc, f->lab16);
        op_mem_free(&f->alloc, f->mask);
        op_mem_free(&f->alloc, f->gl_scratch);
        f->stack16 = f->lab16 = NULL;
        f->mask = NULL;
        f->gl_scratch = NULL;
        f->st = op_mem_alloc(&f->alloc, p->padded);
        f->stack = op_mem_array(&f->alloc, (size_t)p->padded + 8, sizeof *f->stack);
        if (p->compact) {
            f->stack16 = op_mem_array(&f->alloc, (size_t)p->padded + 8, sizeof *f->stack16);
            f->lab16 = op_mem_array(&f->alloc, p->padded, sizeof *f->lab16);
        }
        f->mask = op_mem_alloc(&f->alloc, p->tiles);
        f->gl_scratch = op_mem_alloc(&f->alloc, op_grid_label_scratch_size(p->c[0], p->c[1], p->c[2]));
        if (!f->st || !f->stack || (p->compact && (!f->stack16 || !f->lab16)) || !f->mask ||
            !f->gl_scratch) {
            f->padded_cap = 0;
            return -1;
        }
        f->padded_cap = p->padded;
        f->mask_cap = p->tiles;
    }
    uint32_t depth = op_topo_pass_depth(c);
    if (depth < 1)
        depth = 1;
    if (f->row_cap < p->c[0] || f->eval.depth < depth) {
        op_mem_free(&f->alloc, f->row);
        op_mem_free(&f->alloc, f->eval.stack);
        f->row = op_mem_alloc(&f->alloc, p->c[0]);
        f->eval.stack = op_mem_array(&f->alloc, depth, p->c[0]);
        if (!f->row || !f->eval.stack) {
            f->row_cap = 0;
            f->eval.depth = 0;
            return -1;
        }
        f->row_cap = p->c[0];
        f->eval.depth = depth;
        f->eval.row_cap = p->c[0];
    }
    return 0;
}

/* Hex steps in the order of supplement §10.4 with their faces. */

/* ---- the flood ------------------------------------------------------------------------------ */

static void emit_exits(const op_topo_chunk *cc, uint32_t id, uint32_t q)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    uint32_t lx = p->x[q], ly = p->y[q], lz = p->z[q];
    op_coord3 at = {cc->o[0] + (int32_t)lx, cc->o[1] + (int32_t)ly, cc->o[2] + (int32_t)lz};
    op_local_region *r = &t->regions[id - 1];
    if (!p->hex) {
        uint32_t bits = p->face[q] & cc->fm;
        for (int f = 0; f < 6; f++)
            if (bits >> f & 1) {
                op_boundary_exit *e = &t->exits[t->exit_count++];
                e->region = id;
                e->local_tile = p->loc[q];
                e->coord = at;
                e->target_chunk = (op_chunk_key)((int64_t)cc->key + cc->dkey[f]);
                e->face = (uint8_t)f;
                r->exit_count++;
            }
        return;
    }
    const op_world_shape *sh = &p->shape;
    for (int s = 0; s < 6; s++) {
        int64_t tx = (int64_t)at.x + op_topo_hex_step[s][0], ty = (int64_t)at.y + op_topo_hex_step[s][1];
        if (tx < 0 || ty < 0 || tx >= sh->size[0] || ty >= sh->size[1])
            continue; /* §10.4: only in-world steps */
        uint32_t kx = (uint32_t)tx / sh->chunk[0], ky = (uint32_t)ty / sh->chunk[1];
        if (kx == cc->k[0] && ky == cc->k[1])
            continue;
        op_boundary_exit *e = &t->exits[t->exit_count++];
        e->region = id;
        e->local_tile = p->loc[q];
        e->coord = at;
        e->target_chunk = op_topo_key(p->grid, kx, ky, 0);
        e->face = op_topo_hex_face[s];
        r->exit_count++;
    }
}

/* One region from seed q0 (supplement §10.2); returns its tile count. stack[0] is a
 * sentinel: the stack is empty when sp is back to 1. Two loops with the same result:
 * branchy pushes for open ground, and a branch-free one for broken ground, where the
 * tile popped after q is picked from q's push bytes (the last candidate pushed, else the
 * stack top from before) without a round trip through the stack. */
static inline __attribute__((always_inline)) uint32_t
flood_region(const op_topo_chunk *cc, uint8_t *restrict st, uint32_t *restrict stack, uint32_t q0,
             uint32_t id, uint32_t *restrict labels, const int kind, const int branchy, uint32_t bmin[3],
             uint32_t bmax[3])
{
    /* kind: 0 = 2D orthogonal, 1 = 2D axial hex, 2 = 3D orthogonal. The steps come from
     * px (and px·py); one table load gives the local index, x and face bits of a tile. */
    const op_topo_plan *p = cc->p;
    const uint64_t *restrict info = p->info;
    const uint32_t fm = p->hex ? (uint32_t)(cc->fm & 0x0f) : cc->fm;
    const uint32_t px = p->px, pxy = p->px * p->py;
    uint32_t minx = UINT32_MAX, maxx = 0, miny = UINT32_MAX, maxy = 0;
    /* The seed is the region's least padded index: every tile before it in scan order
     * is labelled already or impassable; rows (and layers) are monotone in it. */
    uint32_t maxq = q0;
    uint32_t count = 0, sp = 1, q = q0;
    stack[0] = q0;
    st[q0] = 0;
    for (;;) {
        const uint64_t in = info[q];
        labels[in & 0xffffff] = id;
        count++;
        const uint32_t x = (uint32_t)(in >> 24) & 0xffffff;
        minx = x < minx ? x : minx;
        maxx = x > maxx ? x : maxx;
        maxq = q > maxq ? q : maxq;
        if (kind == 2) {
            const uint32_t y = p->y[q];
            miny = y < miny ? y : miny;
            maxy = y > maxy ? y : maxy;
        }
        if (__builtin_expect(((uint32_t)(in >> 48) & fm) != 0, 0))
            emit_exits(cc, id, q);
        if (branchy) {
            /* Mostly open chunks: predictable branches, push and pop as written. */
#define OP_TRY(n)                                                                              \
    if (st[n]) {                                                                               \
        st[n] = 0;                                                                             \
        stack[sp++] = (n);                                                               \
    }
            OP_TRY(q + 1)
            OP_TRY(q - 1)
            OP_TRY(q + px)
            OP_TRY(q - px)
            if (kind == 1) {
                OP_TRY(q + 1 - px)
                OP_TRY(q - 1 + px)
            } else if (kind == 2) {
                OP_TRY(q + pxy)
                OP_TRY(q - pxy)
            }
#undef OP_TRY
            if (sp == 1)
                break;
            q = stack[--sp];
            continue;
        }
        /* Broken ground: no data-dependent branch. Every candidate is written at the
         * prefix-sum position of the pushes before it and the stack grows by the bytes;
         * the next tile is the last candidate pushed (a select on the bytes), else the
         * stack top read before the pushes. */
        const uint32_t cand = stack[sp - 1];
        const uint32_t n0 = q + 1, n1 = q - 1, n2 = q + px, n3 = q - px;
        const uint32_t b0 = st[n0], b1 = st[n1], b2 = st[n2], b3 = st[n3];
        st[n0] = 0;
        st[n1] = 0;
        st[n2] = 0;
        st[n3] = 0;
        const uint32_t p1 = sp + b0, p2 = p1 + b1, p3 = p2 + b2;
        stack[sp] = n0;
        stack[p1] = n1;
        stack[p2] = n2;
        stack[p3] = n3;
        uint32_t pushed = (b0 + b1) + (b2 + b3);
        uint32_t lo = b1 ? n1 : n0, hi = b3 ? n3 : n2, sel = (b2 | b3) ? hi : lo;
        if (kind != 0) {
            const uint32_t n4 = kind == 1 ? q + 1 - px : q + pxy;
            const uint32_t n5 = kind == 1 ? q - 1 + px : q - pxy;
            const uint32_t b4 = st[n4], b5 = st[n5];
            st[n4] = 0;
            st[n5] = 0;
            const uint32_t p4 = p3 + b3;
            stack[p4] = n4;
            stack[p4 + b4] = n5;
            pushed += b4 + b5;
            sel = b5 ? n5 : b4 ? n4 : sel;
        }
        sp += pushed;
        if (__builtin_expect(sp == 1, 0))
            break;
        q = pushed ? sel : cand;
        sp--;
    }
    uint32_t minz = 0, maxz = 0;
    if (kind != 2) {
        miny = p->y[q0];
        maxy = p->y[maxq];
    } else {
        minz = p->z[q0];
        maxz = p->z[maxq];
    }
    bmin[0] = minx;
    bmin[1] = miny;
    bmin[2] = minz;
    bmax[0] = maxx;
    bmax[1] = maxy;
    bmax[2] = maxz;
    return count;
}

/* The same flood for plans of at most 65535 padded tiles, with 16-bit stack and padded
 * labels so the working set (passability, stack, labels, faces) stays in L1; labels are
 * widened into the chunk's u32 labels afterwards. x is the padded column less one, by an
 * exact reciprocal multiply (q·px < 2^32). */
static inline __attribute__((always_inline)) uint32_t
flood_region16(const op_topo_chunk *cc, uint8_t *restrict st, uint16_t *restrict stack, uint32_t q0,
               uint32_t id, uint16_t *restrict lab, const int kind, const int branchy, uint32_t bmin[3],
               uint32_t bmax[3])
{
    const op_topo_plan *p = cc->p;
    const uint8_t *restrict face = p->face;
    const uint32_t fm = p->hex ? (uint32_t)(cc->fm & 0x0f) : cc->fm;
    const uint32_t px = p->px, pxy = p->px * p->py;
    const uint64_t mx = p->px_magic, my = p->py_magic;
    uint32_t minc = UINT32_MAX, maxc = 0, miny = UINT32_MAX, maxy = 0;
    uint32_t maxq = q0;
    uint32_t count = 0, sp = 1, q = q0;
    stack[0] = (uint16_t)q0;
    st[q0] = 0;
    for (;;) {
        lab[q] = (uint16_t)id;
        count++;
        const uint32_t row = (uint32_t)(((uint64_t)q * mx) >> 32);
        const uint32_t col = q - row * px;
        minc = col < minc ? col : minc;
        maxc = col > maxc ? col : maxc;
        maxq = q > maxq ? q : maxq;
        if (kind == 2) {
            const uint32_t layer = (uint32_t)(((uint64_t)row * my) >> 32);
            const uint32_t y = row - layer * p->py - 1;
            miny = y < miny ? y : miny;
            maxy = y > maxy ? y : maxy;
        }
        if (__builtin_expect((face[q] & fm) != 0, 0))
            emit_exits(cc, id, q);
        if (branchy) {
            /* Mostly open chunks: predictable branches, push and pop as written. */
#define OP_TRY(n)                                                                              \
    if (st[n]) {                                                                               \
        st[n] = 0;                                                                             \
        stack[sp++] = (uint16_t)(n);                                                               \
    }
            OP_TRY(q + 1)
            OP_TRY(q - 1)
            OP_TRY(q + px)
            OP_TRY(q - px)
            if (kind == 1) {
                OP_TRY(q + 1 - px)
                OP_TRY(q - 1 + px)
            } else if (kind == 2) {
                OP_TRY(q + pxy)
                OP_TRY(q - pxy)
            }
#undef OP_TRY
            if (sp == 1)
                break;
            q = stack[--sp];
            continue;
        }
        /* Broken ground: no data-dependent branch. Every candidate is written at the
         * prefix-sum position of the pushes before it and the stack grows by the bytes;
         * the next tile is the last candidate pushed (a select on the bytes), else the
         * stack top read before the pushes. */
        const uint32_t cand = stack[sp - 1];
        const uint32_t n0 = q + 1, n1 = q - 1, n2 = q + px, n3 = q - px;
        const uint32_t b0 = st[n0], b1 = st[n1], b2 = st[n2], b3 = st[n3];
        st[n0] = 0;
        st[n1] = 0;
        st[n2] = 0;
        st[n3] = 0;
        const uint32_t p1 = sp + b0, p2 = p1 + b1, p3 = p2 + b2;
        stack[sp] = (uint16_t)n0;
        stack[p1] = (uint16_t)n1;
        stack[p2] = (uint16_t)n2;
        stack[p3] = (uint16_t)n3;
        uint32_t pushed = (b0 + b1) + (b2 + b3);
        uint32_t lo = b1 ? n1 : n0, hi = b3 ? n3 : n2, sel = (b2 | b3) ? hi : lo;
        if (kind != 0) {
            const uint32_t n4 = kind == 1 ? q + 1 - px : q + pxy;
            const uint32_t n5 = kind == 1 ? q - 1 + px : q - pxy;
            const uint32_t b4 = st[n4], b5 = st[n5];
            st[n4] = 0;
            st[n5] = 0;
            const uint32_t p4 = p3 + b3;
            stack[p4] = (uint16_t)n4;
            stack[p4 + b4] = (uint16_t)n5;
            pushed += b4 + b5;
            sel = b5 ? n5 : b4 ? n4 : sel;
        }
        sp += pushed;
        if (__builtin_expect(sp == 1, 0))
            break;
        q = pushed ? sel : cand;
        sp--;
    }
    uint32_t minz = 0, maxz = 0;
    if (kind != 2) {
        miny = p->y[q0];
        maxy = p->y[maxq];
    } else {
        minz = p->z[q0];
        maxz = p->z[maxq];
    }
    bmin[0] = minc - 1;
    bmin[1] = miny;
    bmin[2] = minz;
    bmax[0] = maxc - 1;
    bmax[1] = maxy;
    bmax[2] = maxz;
    return count;
}

static inline __attribute__((always_inline)) int flood_all(const op_topo_chunk *cc, op_topo_flood *f,
                                                           uint32_t *restrict labels, const int kind,
                                                           const int branchy, const int compact)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    uint8_t *restrict st = f->st;
    const uint32_t cx = p->c[0], cy = p->c[1], cz = p->c[2], px = p->px, pxy = p->px * p->py;
    const uint32_t zoff = p->pz > 1 ? 1 : 0;
    for (uint32_t lz = 0; lz < cz; lz++)
        for (uint32_t ly = 0; ly < cy; ly++) {
            const uint32_t q0 = (lz + zoff) * pxy + (ly + 1) * px + 1;
            for (uint32_t lx = 0; lx < cx; lx++) {
                /* Seeds are rare once the first regions are flooded: skip eight clear
                 * bytes at a time. */
                if (lx + 8 <= cx) {
                    uint64_t eight;
                    memcpy(&eight, st + q0 + lx, 8);
                    if (!eight) {
                        lx += 7;
                        continue;
                    }
                }
                if (!st[q0 + lx])
                    continue;
                uint32_t id = t->region_count + 1;
                if (op_topo_local_reserve_regions(t, id))
                    return -1;
                op_local_region *r = &t->regions[id - 1];
                r->id = id;
                r->exit_count = 0;
                r->first_exit = t->exit_count;
                t->region_count = id;
                uint32_t bmin[3], bmax[3];
                uint32_t n = compact ? flood_region16(cc, st, f->stack16, q0 + lx, id, f->lab16, kind,
                                                      branchy, bmin, bmax)
                                     : flood_region(cc, st, f->stack, q0 + lx, id, labels, kind,
                                                    branchy, bmin, bmax);
                r = &t->regions[id - 1];
                r->tile_count = n;
                for (int a = 0; a < 3; a++) {
                    (&r->bounds.min.x)[a] = cc->o[a] + (int32_t)bmin[a];
                    (&r->bounds.max.x)[a] = cc->o[a] + (int32_t)bmax[a] + 1;
                }
            }
        }
    if (compact) {
        const uint16_t *restrict lab = f->lab16;
        for (uint32_t lz = 0; lz < cz; lz++)
            for (uint32_t ly = 0; ly < cy; ly++) {
                const uint16_t *restrict src = lab + (lz + zoff) * pxy + (ly + 1) * px + 1;
                uint32_t *restrict dst = labels + ly * cx + lz * cx * cy;
                for (uint32_t lx = 0; lx < cx; lx++)
                    dst[lx] = src[lx];
            }
    }
    return 0;
}

/* One function per loop shape, so each gets its own register allocation (inlined
 * together into one function, the twelve loops spilled their counters). */
#define OP_FLOOD_SHAPE(name, kind, branchy, compact)                                           \
    static __attribute__((noinline)) int name(const op_topo_chunk *cc, op_topo_flood *f,           \
                                              uint32_t *labels)                                \
    {                                                                                          \
        return flood_all(cc, f, labels, kind, branchy, compact);                               \
    }
OP_FLOOD_SHAPE(flood_2d_open, 0, 1, 0)
OP_FLOOD_SHAPE(flood_2d_broken, 0, 0, 0)
OP_FLOOD_SHAPE(flood_hex_open, 1, 1, 0)
OP_FLOOD_SHAPE(flood_hex_broken, 1, 0, 0)
OP_FLOOD_SHAPE(flood_3d_open, 2, 1, 0)
OP_FLOOD_SHAPE(flood_3d_broken, 2, 0, 0)
OP_FLOOD_SHAPE(flood16_2d_open, 0, 1, 1)
OP_FLOOD_SHAPE(flood16_2d_broken, 0, 0, 1)
OP_FLOOD_SHAPE(flood16_hex_open, 1, 1, 1)
OP_FLOOD_SHAPE(flood16_hex_broken, 1, 0, 1)
OP_FLOOD_SHAPE(flood16_3d_open, 2, 1, 1)
OP_FLOOD_SHAPE(flood16_3d_broken, 2, 0, 1)
#undef OP_FLOOD_SHAPE

typedef int (*flood_shape_fn)(const op_topo_chunk *, op_topo_flood *, uint32_t *);
/* [compact][kind][open] */
static const flood_shape_fn flood_shapes[2][3][2] = {
    {{flood_2d_broken, flood_2d_open}, {flood_hex_broken, flood_hex_open}, {flood_3d_broken, flood_3d_open}},
    {{flood16_2d_broken, flood16_2d_open},
     {flood16_hex_broken, flood16_hex_open},
     {flood16_3d_broken, flood16_3d_open}}};

int op_topo_flood_chunk(const op_topo_chunk *cc, op_topo_flood *f, uint32_t *labels, int open)
{
    const op_topo_plan *p = cc->p;
    const int kind = p->hex ? 1 : p->pz > 1 ? 2 : 0;
    return flood_shapes[p->compact != 0][kind][open != 0](cc, f, labels);
}
