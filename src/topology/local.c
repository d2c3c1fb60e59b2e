/* Local topology of one chunk: region labels in flood order, region summaries and
 * boundary exits (topology.md "Behavior"; supplement §10.2-10.5, §10.11).
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

#include <stdlib.h>

/* ---- local topology arrays -------------------------------------------------------------- */

int op_topo_local_reserve_regions(op_local_topology *t, uint32_t n)
{
    if (n <= t->region_cap)
        return 0;
    uint64_t cap = t->region_cap ? (uint64_t)t->region_cap * 2 : 16;
    if (cap < n)
        cap = n;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    op_local_region *r = op_mem_realloc(&t->alloc, t->regions, (size_t)cap * sizeof *r);
    if (!r)
        return -1;
    t->regions = r;
    t->region_cap = (uint32_t)cap;
    return 0;
}

int op_topo_local_reserve_exits(op_local_topology *t, uint32_t n)
{
    if (n <= t->exit_cap)
        return 0;
    uint64_t cap = t->exit_cap ? (uint64_t)t->exit_cap * 2 : 64;
    if (cap < n)
        cap = n;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    op_boundary_exit *e = op_mem_realloc(&t->alloc, t->exits, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    t->exits = e;
    t->exit_cap = (uint32_t)cap;
    return 0;
}

const op_local_region *op_local_topology_region(const op_local_topology *t, uint32_t id)
{
    /* topology.md "Public Surface": the checked accessor of the 1-based convention. */
    if (!t || id == OP_INVALID_LOCAL_REGION || id > t->region_count)
        return NULL;
    return &t->regions[id - 1];
}

void op_local_topology_init(op_ctx *ctx, op_local_topology *t)
{
    memset(t, 0, sizeof *t);
    t->chunk = OP_INVALID_CHUNK;
    t->alloc = ctx ? ctx->alloc : (op_allocator){0};
}

void op_local_topology_free(op_local_topology *t)
{
    if (!t)
        return;
    if (t->owns_labels)
        op_mem_free(&t->alloc, t->labels);
    op_mem_free(&t->alloc, t->regions);
    op_mem_free(&t->alloc, t->exits);
    op_allocator a = t->alloc;
    memset(t, 0, sizeof *t);
    t->chunk = OP_INVALID_CHUNK;
    t->alloc = a;
}

/* ---- the plan of a chunk shape ----------------------------------------------------------- */

void op_topo_plan_free(op_topo_plan *p)
{
    op_mem_free(&p->alloc, p->loc);
    op_mem_free(&p->alloc, p->x);
    op_mem_free(&p->alloc, p->y);
    op_mem_free(&p->alloc, p->z);
    op_mem_free(&p->alloc, p->face);
    op_mem_free(&p->alloc, p->info);
    op_mem_free(&p->alloc, p->open_exits);
    op_allocator a = p->alloc;
    memset(p, 0, sizeof *p);
    p->alloc = a;
}

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
static const int8_t hex_step[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
static const uint8_t hex_face[6] = {OP_FACE_POS_X,       OP_FACE_NEG_X, OP_FACE_POS_Y,
                                    OP_FACE_NEG_Y,       OP_FACE_POS_X_NEG_Y,
                                    OP_FACE_NEG_X_POS_Y};
/* Orthogonal faces in exit order (supplement §10.3): -x, +x, -y, +y, -z, +z. */
static const int8_t face_dir[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                      {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};

static void flood_open_template(op_topo_plan *p, uint8_t *st, uint32_t *stack);

int op_topo_plan_make(op_topo_plan *p, const op_world_shape *shape, const op_allocator *a)
{
    op_topo_plan_free(p);
    if (a)
        p->alloc = *a;
    p->shape = *shape;
    op_topo_chunk_grid(shape, p->grid);
    for (int i = 0; i < 3; i++)
        p->c[i] = shape->chunk[i];
    p->hex = shape->lattice == OP_LATTICE_AXIAL_HEX;
    p->px = p->c[0] + 2;
    p->py = p->c[1] + 2;
    p->pz = p->c[2] > 1 ? p->c[2] + 2 : 1;
    p->padded = p->px * p->py * p->pz; /* < 2^32: chunks hold at most 2^24 tiles */
    p->tiles = p->c[0] * p->c[1] * p->c[2];
    p->compact = p->padded <= 0xffff;
    {
        const uint32_t len[3] = {p->c[1] * p->c[2], p->c[0] * p->c[2], p->c[0] * p->c[1]};
        uint32_t at = 0;
        for (int f = 0; f < 6; f++) {
            p->face_off[f] = at;
            p->face_len[f] = p->grid[f >> 1] > 1 ? len[f >> 1] : 0;
            at += p->face_len[f];
        }
        p->face_total = at;
    }
    p->px_magic = (0x100000000ull / p->px) + 1;
    p->py_magic = (0x100000000ull / p->py) + 1;
    int32_t px = (int32_t)p->px, pxy = (int32_t)(p->px * p->py);
    /* Push order (supplement §10.2). */
    p->step[0] = 1;
    p->step[1] = -1;
    p->step[2] = px;
    p->step[3] = -px;
    if (p->hex) {
        p->nn = 6;
        p->step[4] = 1 - px;
        p->step[5] = -1 + px;
    } else if (p->pz > 1) {
        p->nn = 6;
        p->step[4] = pxy;
        p->step[5] = -pxy;
    } else {
        p->nn = 4;
    }
    p->loc = op_mem_array(&p->alloc, p->padded, sizeof *p->loc);
    p->x = op_mem_array(&p->alloc, p->padded, sizeof *p->x);
    p->y = op_mem_array(&p->alloc, p->padded, sizeof *p->y);
    p->z = op_mem_array(&p->alloc, p->padded, sizeof *p->z);
    p->face = op_mem_calloc(&p->alloc, p->padded, 1);
    p->info = op_mem_calloc(&p->alloc, p->padded, sizeof *p->info);
    if (!p->loc || !p->x || !p->y || !p->z || !p->face || !p->info) {
        op_topo_plan_free(p);
        return -1;
    }
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    for (uint32_t q = 0; q < p->padded; q++) {
        p->loc[q] = UINT32_MAX;
        p->x[q] = p->y[q] = p->z[q] = 0;
    }
    for (uint32_t lz = 0; lz < p->c[2]; lz++)
        for (uint32_t ly = 0; ly < p->c[1]; ly++)
            for (uint32_t lx = 0; lx < p->c[0]; lx++) {
                uint32_t q = (lz + zoff) * p->px * p->py + (ly + 1) * p->px + lx + 1;
                p->loc[q] = lx + ly * p->c[0] + lz * p->c[0] * p->c[1];
                p->x[q] = lx;
                p->y[q] = ly;
                p->z[q] = lz;
                uint8_t f = 0;
                f |= (uint8_t)((lx == 0) << OP_FACE_NEG_X);
                f |= (uint8_t)((lx + 1 == p->c[0]) << OP_FACE_POS_X);
                f |= (uint8_t)((ly == 0) << OP_FACE_NEG_Y);
                f |= (uint8_t)((ly + 1 == p->c[1]) << OP_FACE_POS_Y);
                f |= (uint8_t)((lz == 0) << OP_FACE_NEG_Z);
                f |= (uint8_t)((lz + 1 == p->c[2]) << OP_FACE_POS_Z);
                p->face[q] = f;
                p->info[q] = p->loc[q] | (uint64_t)lx << 24 | (uint64_t)f << 48;
                uint32_t n = 0;
                if (p->hex) {
                    for (int d = 0; d < 6; d++) {
                        int64_t tx = (int64_t)lx + hex_step[d][0], ty = (int64_t)ly + hex_step[d][1];
                        n += tx < 0 || ty < 0 || tx >= p->c[0] || ty >= p->c[1];
                    }
                } else {
                    for (int fc = 0; fc < 6; fc++)
                        n += (f >> fc & 1) && p->grid[fc >> 1] > 1;
                }
                p->max_exits += n;
            }
    /* The open template: the flood of an all-passable chunk, exits recorded as if every
     * neighbour chunk existed. */
    uint8_t *st = op_mem_alloc(&p->alloc, p->padded);
    uint32_t *stack = op_mem_array(&p->alloc, (size_t)p->padded + 8, sizeof *stack);
    uint64_t max_exits = (uint64_t)p->tiles * 6;
    p->open_exits = op_mem_array(&p->alloc, (size_t)(max_exits ? max_exits : 1), sizeof *p->open_exits);
    if (!st || !stack || !p->open_exits) {
        op_mem_free(&p->alloc, st);
        op_mem_free(&p->alloc, stack);
        op_topo_plan_free(p);
        return -1;
    }
    flood_open_template(p, st, stack);
    op_mem_free(&p->alloc, st);
    op_mem_free(&p->alloc, stack);
    return 0;
}

static uint32_t padded_of(const op_topo_plan *p, uint32_t lx, uint32_t ly, uint32_t lz)
{
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    return (lz + zoff) * p->px * p->py + (ly + 1) * p->px + lx + 1;
}

static void flood_open_template(op_topo_plan *p, uint8_t *st, uint32_t *stack)
{
    memset(st, 0, p->padded);
    for (uint32_t q = 0; q < p->padded; q++)
        st[q] = p->loc[q] != UINT32_MAX;
    uint32_t n = 0;
    /* One region: the seed is local tile 0. */
    uint32_t sp = 0, seed = padded_of(p, 0, 0, 0);
    st[seed] = 0;
    stack[sp++] = seed;
    while (sp) {
        uint32_t q = stack[--sp];
        uint32_t lx = p->x[q], ly = p->y[q], lz = p->z[q];
        if (p->hex) {
            for (int s = 0; s < 6; s++) {
                int64_t tx = (int64_t)lx + hex_step[s][0], ty = (int64_t)ly + hex_step[s][1];
                int8_t dx = (int8_t)(tx < 0 ? -1 : tx >= p->c[0] ? 1 : 0);
                int8_t dy = (int8_t)(ty < 0 ? -1 : ty >= p->c[1] ? 1 : 0);
                if (dx || dy)
                    p->open_exits[n++] = (op_topo_open_exit){p->loc[q], hex_face[s], {dx, dy, 0}};
            }
        } else {
            /* Faces along an axis with one chunk never have a neighbour: left out. */
            for (int f = 0; f < 6; f++)
                if ((p->face[q] >> f & 1) && p->grid[f >> 1] > 1)
                    p->open_exits[n++] = (op_topo_open_exit){
                        p->loc[q], (uint8_t)f, {face_dir[f][0], face_dir[f][1], face_dir[f][2]}};
        }
        (void)lz;
        for (int s = 0; s < p->nn; s++) {
            uint32_t m = (uint32_t)((int64_t)q + p->step[s]);
            if (st[m]) {
                st[m] = 0;
                stack[sp++] = m;
            }
        }
    }
    p->open_exit_count = n;
}

void op_topo_face_strips(const op_topo_plan *p, const uint32_t *labels, uint32_t *out)
{
    const uint32_t cx = p->c[0], cy = p->c[1], cz = p->c[2], cxy = cx * cy;
    for (int f = 0; f < 6; f++) {
        if (!p->face_len[f])
            continue;
        uint32_t *o = out + p->face_off[f];
        const int a = f >> 1, hi = f & 1;
        if (a == 0) {
            const uint32_t lx = hi ? cx - 1 : 0;
            for (uint32_t lz = 0; lz < cz; lz++)
                for (uint32_t ly = 0; ly < cy; ly++)
                    *o++ = labels[lx + ly * cx + lz * cxy];
        } else if (a == 1) {
            const uint32_t ly = hi ? cy - 1 : 0;
            for (uint32_t lz = 0; lz < cz; lz++)
                memcpy(o + lz * cx, labels + ly * cx + lz * cxy, cx * sizeof *o);
        } else {
            memcpy(o, labels + (hi ? (cz - 1) * cxy : 0), cxy * sizeof *o);
        }
    }
}

/* ---- labelling ---------------------------------------------------------------------------- */

typedef struct chunk_ctx {
    const op_topo_plan *p;
    const op_world *w;
    op_local_topology *t;
    op_chunk_key key;
    uint32_t k[3];   /* chunk coordinate */
    int32_t o[3];    /* world origin */
    uint8_t fm;      /* faces whose neighbour chunk exists */
    int64_t dkey[6]; /* key delta per orthogonal face */
} chunk_ctx;

/* Exits of a popped boundary tile (supplement §10.3, §10.4). The chunk's exit array was
 * reserved for plan->max_exits before the flood. */
static void emit_exits(const chunk_ctx *cc, uint32_t id, uint32_t q)
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
        int64_t tx = (int64_t)at.x + hex_step[s][0], ty = (int64_t)at.y + hex_step[s][1];
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
        e->face = hex_face[s];
        r->exit_count++;
    }
}

/* One region from seed q0 (supplement §10.2); returns its tile count. stack[0] is a
 * sentinel: the stack is empty when sp is back to 1. Two loops with the same result:
 * branchy pushes for open ground, and a branch-free one for broken ground, where the
 * tile popped after q is picked from q's push bytes (the last candidate pushed, else the
 * stack top from before) without a round trip through the stack. */
static inline __attribute__((always_inline)) uint32_t
flood_region(const chunk_ctx *cc, uint8_t *restrict st, uint32_t *restrict stack, uint32_t q0,
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
flood_region16(const chunk_ctx *cc, uint8_t *restrict st, uint16_t *restrict stack, uint32_t q0,
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

static inline __attribute__((always_inline)) int flood_all(const chunk_ctx *cc, op_topo_flood *f,
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
    static __attribute__((noinline)) int name(const chunk_ctx *cc, op_topo_flood *f,           \
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

typedef int (*flood_shape_fn)(const chunk_ctx *, op_topo_flood *, uint32_t *);
/* [compact][kind][open] */
static const flood_shape_fn flood_shapes[2][3][2] = {
    {{flood_2d_broken, flood_2d_open}, {flood_hex_broken, flood_hex_open}, {flood_3d_broken, flood_3d_open}},
    {{flood16_2d_broken, flood16_2d_open},
     {flood16_hex_broken, flood16_hex_open},
     {flood16_3d_broken, flood16_3d_open}}};

/* Every tile passable: the template's exits, filtered by the neighbour chunks present. */
static int copy_template(const chunk_ctx *cc, uint32_t *labels)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    for (uint32_t i = 0; i < p->tiles; i++)
        labels[i] = 1;
    if (op_topo_local_reserve_regions(t, 1) || op_topo_local_reserve_exits(t, p->open_exit_count))
        return -1;
    op_local_region *r = &t->regions[0];
    r->id = 1;
    r->tile_count = p->tiles;
    r->first_exit = 0;
    for (int a = 0; a < 3; a++) {
        (&r->bounds.min.x)[a] = cc->o[a];
        (&r->bounds.max.x)[a] = cc->o[a] + (int32_t)p->c[a];
    }
    t->region_count = 1;
    uint32_t n = 0;
    const uint32_t c0 = p->c[0], c01 = p->c[0] * p->c[1];
    for (uint32_t i = 0; i < p->open_exit_count; i++) {
        const op_topo_open_exit *x = &p->open_exits[i];
        int64_t k[3];
        int ok = 1;
        for (int a = 0; a < 3; a++) {
            k[a] = (int64_t)cc->k[a] + x->d[a];
            ok &= k[a] >= 0 && k[a] < p->grid[a];
        }
        if (!ok)
            continue;
        op_boundary_exit *e = &t->exits[n++];
        uint32_t lz = x->local / c01, rem = x->local - lz * c01, ly = rem / c0, lx = rem - ly * c0;
        e->region = 1;
        e->local_tile = x->local;
        e->coord = (op_coord3){cc->o[0] + (int32_t)lx, cc->o[1] + (int32_t)ly, cc->o[2] + (int32_t)lz};
        e->target_chunk = op_topo_key(p->grid, (uint32_t)k[0], (uint32_t)k[1], (uint32_t)k[2]);
        e->face = x->face;
    }
    t->exit_count = n;
    r->exit_count = n;
    return 0;
}

/* A chunk with no neighbour chunk has no exits, so nothing depends on the flood's pop
 * order: the grid-labelling kernel gives the labels (§10.2's ids), and the summaries are
 * order-free. */
static int label_with_kernel(const chunk_ctx *cc, op_topo_flood *f, op_grid_label_fn gl,
                             uint32_t *labels)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    const uint32_t cx = p->c[0], cy = p->c[1], cz = p->c[2];
    const uint32_t zoff = p->pz > 1 ? 1 : 0;
    for (uint32_t lz = 0; lz < cz; lz++)
        for (uint32_t ly = 0; ly < cy; ly++)
            memcpy(f->mask + ly * cx + lz * cx * cy, f->st + (lz + zoff) * p->px * p->py + (ly + 1) * p->px + 1, cx);
    const uint32_t n = gl(f->mask, cx, cy, cz, p->hex, labels, f->gl_scratch);
    if (op_topo_local_reserve_regions(t, n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        op_local_region *r = &t->regions[i];
        r->id = i + 1;
        r->tile_count = 0;
        r->exit_count = 0;
        r->first_exit = 0;
        r->bounds.min = (op_coord3){INT32_MAX, INT32_MAX, INT32_MAX};
        r->bounds.max = (op_coord3){INT32_MIN, INT32_MIN, INT32_MIN};
    }
    t->region_count = n;
    const uint32_t *l = labels;
    for (uint32_t lz = 0; lz < cz; lz++)
        for (uint32_t ly = 0; ly < cy; ly++)
            for (uint32_t lx = 0; lx < cx; lx++) {
                const uint32_t id = *l++;
                if (!id)
                    continue;
                op_local_region *r = &t->regions[id - 1];
                const int32_t x = cc->o[0] + (int32_t)lx, y = cc->o[1] + (int32_t)ly,
                              z = cc->o[2] + (int32_t)lz;
                r->tile_count++;
                r->bounds.min.x = x < r->bounds.min.x ? x : r->bounds.min.x;
                r->bounds.min.y = y < r->bounds.min.y ? y : r->bounds.min.y;
                r->bounds.min.z = z < r->bounds.min.z ? z : r->bounds.min.z;
                r->bounds.max.x = x + 1 > r->bounds.max.x ? x + 1 : r->bounds.max.x;
                r->bounds.max.y = y + 1 > r->bounds.max.y ? y + 1 : r->bounds.max.y;
                r->bounds.max.z = z + 1 > r->bounds.max.z ? z + 1 : r->bounds.max.z;
            }
    return 0;
}

int op_topo_label_chunk(const op_world *w, const op_movement_class *c, const op_topo_plan *p,
                        op_topo_flood *f, op_chunk_key key, int use_template, op_grid_label_fn gl,
                        op_local_topology *t)
{
    chunk_ctx cc;
    cc.p = p;
    cc.w = w;
    cc.t = t;
    cc.key = key;
    op_topo_key_coord(p->grid, key, cc.k);
    for (int a = 0; a < 3; a++)
        cc.o[a] = (int32_t)(cc.k[a] * p->c[a]);
    cc.fm = 0;
    for (int fc = 0; fc < 6; fc++) {
        int a = fc >> 1;
        int ok = (fc & 1) ? cc.k[a] + 1 < p->grid[a] : cc.k[a] > 0;
        cc.fm |= (uint8_t)(ok << fc);
    }
    cc.dkey[0] = -1;
    cc.dkey[1] = 1;
    cc.dkey[2] = -(int64_t)p->grid[0];
    cc.dkey[3] = (int64_t)p->grid[0];
    cc.dkey[4] = -(int64_t)p->grid[0] * p->grid[1];
    cc.dkey[5] = (int64_t)p->grid[0] * p->grid[1];

    t->chunk = key;
    for (int a = 0; a < 3; a++)
        t->chunk_coord[a] = cc.k[a];
    t->topology_version = w->topology_version[key];
    t->tile_count = p->tiles;
    t->region_count = 0;
    t->exit_count = 0;

    /* Passability into the padded grid; tiles outside the world stay impassable
     * (supplement §10.11). */
    memset(f->st, 0, p->padded);
    uint32_t in[3];
    for (int a = 0; a < 3; a++) {
        uint64_t end = (uint64_t)cc.o[a] + p->c[a];
        in[a] = end <= p->shape.size[a] ? p->c[a] : p->shape.size[a] - (uint32_t)cc.o[a];
    }
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    uint64_t passable = 0;
    for (uint32_t lz = 0; lz < in[2]; lz++)
        for (uint32_t ly = 0; ly < in[1]; ly++) {
            uint8_t *row = f->st + (lz + zoff) * p->px * p->py + (ly + 1) * p->px + 1;
            op_topo_pass_row(w, c, key, ly * p->c[0] + lz * p->c[0] * p->c[1], in[0], row, &f->eval);
            for (uint32_t i = 0; i < in[0]; i++)
                passable += row[i];
        }
    uint32_t *labels = t->labels;
    if (use_template && passable == p->tiles && p->open_exits)
        return copy_template(&cc, labels);
    if (passable == 0) {
        memset(labels, 0, (size_t)p->tiles * sizeof *labels);
        return 0;
    }
    if (p->compact)
        memset(f->lab16, 0, (size_t)p->padded * sizeof *f->lab16);
    else
        memset(labels, 0, (size_t)p->tiles * sizeof *labels);
    if (gl && cc.fm == 0)
        return label_with_kernel(&cc, f, gl, labels);
    if (op_topo_local_reserve_exits(t, p->max_exits))
        return -1;
    /* Both loops give the same bytes; the branchy one wins where the ground is open
     * (supplement §10.2 either way; docs/decisions/topology.md). */
    const int open = passable * 20 >= (uint64_t)p->tiles * 19;
    const int kind = p->hex ? 1 : p->pz > 1 ? 2 : 0;
    return flood_shapes[p->compact != 0][kind][open](&cc, f, labels);
}

/* ---- build_local_chunk_topology ----------------------------------------------------------- */

typedef struct local_scratch {
    op_topo_plan plan;
    int have_plan;
    op_topo_flood flood;
} local_scratch;

void op_local_topology_scratch_init(op_ctx *ctx, op_local_topology_scratch *s)
{
    s->impl = NULL;
    s->alloc = ctx ? ctx->alloc : (op_allocator){0};
}

void op_local_topology_scratch_free(op_local_topology_scratch *s)
{
    if (!s || !s->impl)
        return;
    local_scratch *ls = s->impl;
    op_topo_plan_free(&ls->plan);
    op_topo_flood_free(&ls->flood);
    op_mem_free(&s->alloc, ls);
    s->impl = NULL;
}

static int same_shape(const op_world_shape *a, const op_world_shape *b)
{
    for (int i = 0; i < 3; i++)
        if (a->size[i] != b->size[i] || a->chunk[i] != b->chunk[i])
            return 0;
    return a->lattice == b->lattice;
}

op_status op_local_topology_build(op_ctx *ctx, const op_world *w, const op_movement_class *c,
                                  op_chunk_key chunk, op_local_topology_scratch *scratch,
                                  op_local_topology *out, op_topology_build_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    if (!scratch || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_local_topology_build: NULL argument");
    op_status st = op_movement_class_validate(ctx, w, c);
    if (st != OP_OK)
        return st;
    /* The topology is emptied first, whatever happens next. */
    out->region_count = out->exit_count = 0;
    out->chunk = OP_INVALID_CHUNK;
    out->topology_version = 0;
    if (chunk >= w->chunk_count) {
        /* TopologyStatus::InvalidChunk: an empty topology, not an error. */
        if (result)
            result->status = OP_TOPOLOGY_INVALID_CHUNK;
        return OP_OK;
    }
    if (!scratch->impl) {
        scratch->impl = op_mem_calloc(&scratch->alloc, 1, sizeof(local_scratch));
        if (!scratch->impl)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood scratch");
        local_scratch *ls = scratch->impl;
        ls->plan.alloc = scratch->alloc;
        ls->flood.alloc = scratch->alloc;
    }
    local_scratch *ls = scratch->impl;
    if (!ls->have_plan || !same_shape(&ls->plan.shape, &w->shape)) {
        ls->have_plan = 0;
        if (op_topo_plan_make(&ls->plan, &w->shape, &scratch->alloc))
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood plan");
        ls->have_plan = 1;
    }
    if (op_topo_flood_reserve(&ls->flood, &ls->plan, c, &scratch->alloc))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood scratch");
    if (!out->owns_labels || !out->labels || out->tile_count != w->chunk_tiles) {
        if (out->owns_labels)
            op_mem_free(&out->alloc, out->labels);
        out->labels = op_mem_array(&out->alloc, w->chunk_tiles, sizeof *out->labels);
        out->owns_labels = out->labels != NULL;
        out->tile_count = out->labels ? w->chunk_tiles : 0;
        if (!out->labels)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u chunk labels", w->chunk_tiles);
    }
    op_grid_label_fn gl = op_topo_grid_label_for(ctx ? ctx->isa : OP_ISA_SCALAR);
    if (op_topo_label_chunk(w, c, &ls->plan, &ls->flood, chunk, 1, gl ? gl : op_grid_label_scalar,
                            out)) {
        out->region_count = out->exit_count = 0;
        out->chunk = OP_INVALID_CHUNK;
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the regions and exits of chunk %u",
                       chunk);
    }
    if (result) {
        result->status = OP_TOPOLOGY_BUILT;
        result->region_count = out->region_count;
        for (uint32_t i = 0; i < out->region_count; i++)
            result->passable_tile_count += out->regions[i].tile_count;
        result->boundary_exit_count = out->exit_count;
        result->topology_version_sum = out->topology_version;
    }
    return OP_OK;
}
