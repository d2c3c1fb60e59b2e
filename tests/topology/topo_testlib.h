/* Helpers for tests/topology/test_topology_*.c: worlds from character maps, random
 * worlds, and reference implementations written straight from the text (topology.md and
 * supplement §10) that share no code with src/topology: a per-tile flood with explicit
 * neighbour tests, exits from world coordinates, portals by scanning exits, traversals
 * that scan whole CSR buckets, and a plain flood fill over the whole grid. Header-only
 * (static) so no build change. */
#ifndef OP_TOPO_TESTLIB_H
#define OP_TOPO_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/topology.h"
#include "util/testutil.h"

enum { F_PASS = 7, F_COST = 11, F_BLOCK = 13, F_STAIR = 17 };

/* ---- the group's context --------------------------------------------------------------- */

/* Every topology test file runs its tests in one group with one context:
 *   return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
 * topo_setup_alloc opens it with an allocator (the fault tests' counting one). */
static op_ctx ctx __attribute__((unused));

static inline int topo_setup_alloc(void **state, const op_allocator *a)
{
    (void)state;
    return op_ctx_init_with_allocator(&ctx, OP_ISA_AUTO, a) == OP_OK ? 0 : -1;
}

static inline int topo_setup(void **state)
{
    return topo_setup_alloc(state, NULL);
}

static inline int topo_teardown(void **state)
{
    (void)state;
    op_ctx_free(&ctx);
    return 0;
}

static inline op_world_shape topo_shape(uint32_t sx, uint32_t sy, uint32_t sz, uint32_t cx,
                                        uint32_t cy, uint32_t cz, op_lattice lat)
{
    op_world_shape s = {{sx, sy, sz}, {cx, cy, cz}, lat};
    return s;
}

/* A world with a u8 F_PASS field. */
static inline void topo_world(op_ctx *ctx, op_world *w, op_world_shape s)
{
    assert_int_equal(op_world_init(ctx, w, &s), OP_OK);
    assert_int_equal(op_world_add_field(ctx, w, F_PASS, OP_FIELD_U8), OP_OK);
}

/* rows[y] is row y; '.' passable, '#' blocked; z = 0. */
static inline void topo_world_map(op_ctx *ctx, op_world *w, uint32_t cx, uint32_t cy,
                                  const char *const *rows, uint32_t ny)
{
    uint32_t nx = (uint32_t)strlen(rows[0]);
    topo_world(ctx, w, topo_shape(nx, ny, 1, cx, cy, 1, OP_LATTICE_ORTHOGONAL));
    for (uint32_t y = 0; y < ny; y++)
        for (uint32_t x = 0; x < nx; x++)
            assert_int_equal(op_world_set(ctx, w, F_PASS, (op_coord3){(int32_t)x, (int32_t)y, 0},
                                          rows[y][x] == '.'),
                             OP_OK);
}

/* Random passability with the given wall percentage. */
static inline void topo_fill_random(op_ctx *ctx, op_world *w, uint32_t field, op_rng *r,
                                    uint32_t wall_percent)
{
    const op_world_shape *s = &w->shape;
    for (uint32_t z = 0; z < s->size[2]; z++)
        for (uint32_t y = 0; y < s->size[1]; y++)
            for (uint32_t x = 0; x < s->size[0]; x++)
                assert_int_equal(op_world_set(ctx, w, field,
                                              (op_coord3){(int32_t)x, (int32_t)y, (int32_t)z},
                                              op_rng_below(r, 100) >= wall_percent),
                                 OP_OK);
}

/* Union-find root with path halving (ground truths). */
static inline uint32_t uf_find_root(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

static inline int topo_in(const op_world_shape *s, int64_t x, int64_t y, int64_t z)
{
    return x >= 0 && y >= 0 && z >= 0 && x < s->size[0] && y < s->size[1] && z < s->size[2];
}

/* ---- reference local topology (supplement §10.2-10.5, §10.11) ---------------------------- */

typedef struct ref_exit {
    uint32_t region, local;
    int32_t x, y, z;
    uint32_t face, target;
} ref_exit;

typedef struct ref_region {
    uint32_t count, exits;
    int32_t min[3], max[3];
} ref_region;

typedef struct ref_local {
    uint32_t *labels;
    uint32_t nregions, nexits;
    ref_region *regions;
    ref_exit *exits;
} ref_local;

static inline void ref_local_free(ref_local *r)
{
    free(r->labels);
    free(r->regions);
    free(r->exits);
    memset(r, 0, sizeof *r);
}

static inline uint32_t ref_key(const op_world *w, int64_t x, int64_t y, int64_t z)
{
    const op_world_shape *s = &w->shape;
    uint32_t kx = (uint32_t)(x / s->chunk[0]), ky = (uint32_t)(y / s->chunk[1]),
             kz = (uint32_t)(z / s->chunk[2]);
    return kx + ky * w->chunks[0] + kz * w->chunks[0] * w->chunks[1];
}

static inline void ref_label_chunk(const op_world *w, const op_movement_class *c, uint32_t key,
                                   ref_local *out)
{
    const op_world_shape *s = &w->shape;
    const uint32_t cx = s->chunk[0], cy = s->chunk[1], cz = s->chunk[2];
    const uint32_t tiles = cx * cy * cz;
    uint32_t k[3] = {key % w->chunks[0], key / w->chunks[0] % w->chunks[1],
                     key / w->chunks[0] / w->chunks[1]};
    int64_t o[3] = {(int64_t)k[0] * cx, (int64_t)k[1] * cy, (int64_t)k[2] * cz};
    const int hex = s->lattice == OP_LATTICE_AXIAL_HEX;
    memset(out, 0, sizeof *out);
    out->labels = calloc(tiles, sizeof *out->labels);
    out->regions = calloc(tiles + 1, sizeof *out->regions);
    out->exits = calloc((size_t)tiles * 6 + 1, sizeof *out->exits);
    uint8_t *pass = calloc(tiles, 1);
    uint32_t *stack = malloc((size_t)tiles * sizeof *stack + 4);
    assert_non_null(out->labels);
    assert_non_null(pass);
    for (uint32_t t = 0; t < tiles; t++) {
        int64_t x = o[0] + t % cx, y = o[1] + t / cx % cy, z = o[2] + t / cx / cy;
        pass[t] = topo_in(s, x, y, z) &&
                  op_movement_passable(w, c, (op_coord3){(int32_t)x, (int32_t)y, (int32_t)z});
    }
    static const int hx[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
    static const uint32_t hface[6] = {1, 0, 3, 2, 6, 7};
    static const int ox[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (uint32_t seed = 0; seed < tiles; seed++) {
        if (!pass[seed] || out->labels[seed])
            continue;
        uint32_t id = ++out->nregions;
        ref_region *rg = &out->regions[id - 1];
        rg->min[0] = rg->min[1] = rg->min[2] = INT32_MAX;
        rg->max[0] = rg->max[1] = rg->max[2] = INT32_MIN;
        uint32_t sp = 0;
        out->labels[seed] = id;
        stack[sp++] = seed;
        while (sp) {
            uint32_t t = stack[--sp];
            int64_t lx = t % cx, ly = t / cx % cy, lz = t / cx / cy;
            int64_t c3[3] = {o[0] + lx, o[1] + ly, o[2] + lz};
            rg->count++;
            for (int a = 0; a < 3; a++) {
                if (c3[a] < rg->min[a])
                    rg->min[a] = (int32_t)c3[a];
                if (c3[a] + 1 > rg->max[a])
                    rg->max[a] = (int32_t)c3[a] + 1;
            }
            /* exits */
            if (!hex) {
                int64_t l3[3] = {lx, ly, lz};
                for (int f = 0; f < 6; f++) {
                    int a = f / 2, pos = f & 1;
                    uint32_t ca = a == 0 ? cx : a == 1 ? cy : cz;
                    int edge = pos ? l3[a] == ca - 1 : l3[a] == 0;
                    int goes_on = pos ? k[a] + 1 < w->chunks[a] : k[a] > 0;
                    if (edge && goes_on) {
                        uint32_t tk[3] = {k[0], k[1], k[2]};
                        tk[a] = pos ? tk[a] + 1 : tk[a] - 1;
                        ref_exit *e = &out->exits[out->nexits++];
                        *e = (ref_exit){id, t, (int32_t)c3[0], (int32_t)c3[1], (int32_t)c3[2], (uint32_t)f,
                                        tk[0] + tk[1] * w->chunks[0] + tk[2] * w->chunks[0] * w->chunks[1]};
                        rg->exits++;
                    }
                }
            } else {
                for (int d = 0; d < 6; d++) {
                    int64_t tx = c3[0] + hx[d][0], ty = c3[1] + hx[d][1];
                    if (!topo_in(s, tx, ty, 0))
                        continue;
                    uint32_t tk = ref_key(w, tx, ty, 0);
                    if (tk == key)
                        continue;
                    ref_exit *e = &out->exits[out->nexits++];
                    *e = (ref_exit){id, t, (int32_t)c3[0], (int32_t)c3[1], 0, hface[d], tk};
                    rg->exits++;
                }
            }
            /* pushes: +x, -x, +y, -y, +z, -z (hex: +x, -x, +y, -y, (+1,-1), (-1,+1)) */
            for (int d = 0; d < 6; d++) {
                int64_t nx, ny, nz;
                if (hex) {
                    nx = lx + hx[d][0];
                    ny = ly + hx[d][1];
                    nz = lz;
                } else {
                    nx = lx + ox[d][0];
                    ny = ly + ox[d][1];
                    nz = lz + ox[d][2];
                }
                if (nx < 0 || ny < 0 || nz < 0 || nx >= cx || ny >= cy || nz >= cz)
                    continue;
                uint32_t n = (uint32_t)(nx + ny * cx + nz * cx * cy);
                if (pass[n] && !out->labels[n]) {
                    out->labels[n] = id;
                    stack[sp++] = n;
                }
            }
        }
    }
    free(pass);
    free(stack);
}

/* Compares a graph's (or a standalone) local topology with the reference. */
static inline void expect_local_equals_ref(const op_local_topology *t, const ref_local *r,
                                           uint32_t tiles)
{
    assert_int_equal(t->region_count, r->nregions);
    assert_int_equal(t->exit_count, r->nexits);
    for (uint32_t i = 0; i < tiles; i++)
        if (t->labels[i] != r->labels[i]) {
            fprintf(stderr, "chunk %u tile %u: label %u, reference %u\n", t->chunk, i, t->labels[i],
                    r->labels[i]);
            fail();
        }
    uint32_t first = 0;
    for (uint32_t i = 0; i < r->nregions; i++) {
        const op_local_region *lr = &t->regions[i];
        assert_int_equal(lr->id, i + 1);
        assert_int_equal(lr->tile_count, r->regions[i].count);
        assert_int_equal(lr->exit_count, r->regions[i].exits);
        assert_int_equal(lr->first_exit, first);
        first += lr->exit_count;
        assert_int_equal(lr->bounds.min.x, r->regions[i].min[0]);
        assert_int_equal(lr->bounds.min.y, r->regions[i].min[1]);
        assert_int_equal(lr->bounds.min.z, r->regions[i].min[2]);
        assert_int_equal(lr->bounds.max.x, r->regions[i].max[0]);
        assert_int_equal(lr->bounds.max.y, r->regions[i].max[1]);
        assert_int_equal(lr->bounds.max.z, r->regions[i].max[2]);
    }
    for (uint32_t i = 0; i < r->nexits; i++) {
        const op_boundary_exit *e = &t->exits[i];
        const ref_exit *x = &r->exits[i];
        if (e->region != x->region || e->local_tile != x->local || e->coord.x != x->x ||
            e->coord.y != x->y || e->coord.z != x->z || e->face != x->face ||
            e->target_chunk != x->target) {
            fprintf(stderr,
                    "chunk %u exit %u: (r%u t%u (%d,%d,%d) f%u ->%u), reference (r%u t%u "
                    "(%d,%d,%d) f%u ->%u)\n",
                    t->chunk, i, e->region, e->local_tile, e->coord.x, e->coord.y, e->coord.z,
                    e->face, e->target_chunk, x->region, x->local, x->x, x->y, x->z, x->face,
                    x->target);
            fail();
        }
    }
}

/* ---- reference portals (supplement §10.6; topology.md "Transition Providers") ---------- */

/* Slots are the resident chunks in ascending key order (every chunk of a dense world). */
typedef struct ref_graph {
    uint32_t chunks; /* slots */
    uint32_t *keys;
    ref_local *local;
    op_region_portal *portals;
    uint32_t nportals, pcap;
    uint32_t nregions;
    uint8_t *missing; /* per region index: reaches missing topology (sparse) */
} ref_graph;

static inline uint32_t ref_slot(const ref_graph *g, uint32_t key)
{
    for (uint32_t i = 0; i < g->chunks; i++)
        if (g->keys[i] == key)
            return i;
    return UINT32_MAX;
}

/* The label of a world tile, or 0 (outside, wall); *missing when its chunk has no slot. */
static inline uint32_t ref_label_at2(const op_world *w, const ref_graph *g, int64_t x, int64_t y,
                                     int64_t z, int *missing)
{
    const op_world_shape *s = &w->shape;
    *missing = 0;
    if (!topo_in(s, x, y, z))
        return 0;
    uint32_t key = ref_key(w, x, y, z);
    uint32_t slot = ref_slot(g, key);
    if (slot == UINT32_MAX) {
        *missing = 1;
        return 0;
    }
    uint32_t lx = (uint32_t)(x % s->chunk[0]), ly = (uint32_t)(y % s->chunk[1]),
             lz = (uint32_t)(z % s->chunk[2]);
    return g->local[slot].labels[lx + ly * s->chunk[0] + lz * s->chunk[0] * s->chunk[1]];
}

static inline uint32_t ref_label_at(const op_world *w, const ref_graph *g, int64_t x, int64_t y,
                                    int64_t z)
{
    int missing;
    return ref_label_at2(w, g, x, y, z, &missing);
}

static inline op_region_portal *ref_push_portal(ref_graph *g)
{
    if (g->nportals == g->pcap) {
        g->pcap = g->pcap ? g->pcap * 2 : 64;
        g->portals = realloc(g->portals, (size_t)g->pcap * sizeof *g->portals);
        assert_non_null(g->portals);
    }
    return &g->portals[g->nportals++];
}

/* A provider's transitions of one chunk, collected. */
typedef struct ref_edges {
    op_coord3 *from, *to;
    uint32_t n, cap;
} ref_edges;

static inline void ref_edges_sink(void *user, op_coord3 from, op_coord3 to)
{
    ref_edges *e = user;
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 16;
        e->from = realloc(e->from, e->cap * sizeof *e->from);
        e->to = realloc(e->to, e->cap * sizeof *e->to);
    }
    e->from[e->n] = from;
    e->to[e->n++] = to;
}

/* The chunk-grid coordinate of a world tile. */
static inline void ref_chunk3(const op_world *w, op_coord3 c, int64_t k[3])
{
    k[0] = c.x / (int64_t)w->shape.chunk[0];
    k[1] = c.y / (int64_t)w->shape.chunk[1];
    k[2] = c.z / (int64_t)w->shape.chunk[2];
}

/* Same chunk or a regular-step neighbour (orthogonal: one axis differs by one; hex:
 * also (+1,-1) and (-1,+1)). */
static inline int ref_near(const op_world *w, op_coord3 a, op_coord3 b)
{
    int64_t ka[3], kb[3];
    ref_chunk3(w, a, ka);
    ref_chunk3(w, b, kb);
    int64_t dx = kb[0] - ka[0], dy = kb[1] - ka[1], dz = kb[2] - ka[2];
    int64_t l1 = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) + (dz < 0 ? -dz : dz);
    if (l1 <= 1)
        return 1;
    return w->shape.lattice == OP_LATTICE_AXIAL_HEX && dz == 0 &&
           ((dx == 1 && dy == -1) || (dx == -1 && dy == 1));
}

/* Every chunk labelled the slow way, exit portals by scanning exits, then each chunk's
 * provider transitions filtered from the text; prov may be NULL. */
static inline void ref_graph_build_prov(const op_world *w, const op_movement_class *c,
                                        const op_transition_provider *prov, ref_graph *g)
{
    memset(g, 0, sizeof *g);
    g->keys = calloc(w->chunk_count + 1, sizeof *g->keys);
    for (uint32_t k = 0; k < w->chunk_count; k++)
        if (op_world_is_resident(w, k))
            g->keys[g->chunks++] = k;
    g->local = calloc(g->chunks + 1, sizeof *g->local);
    uint32_t *off = calloc(g->chunks + 1, sizeof *off);
    for (uint32_t i = 0; i < g->chunks; i++) {
        ref_label_chunk(w, c, g->keys[i], &g->local[i]);
        off[i] = g->nregions;
        g->nregions += g->local[i].nregions;
    }
    g->missing = calloc(g->nregions + 1, 1);
    static const int step[8][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0},
                                   {0, 0, -1}, {0, 0, 1}, {1, -1, 0}, {-1, 1, 0}};
    for (uint32_t i = 0; i < g->chunks; i++) {
        const uint32_t k = g->keys[i];
        for (uint32_t x = 0; x < g->local[i].nexits; x++) {
            const ref_exit *e = &g->local[i].exits[x];
            int64_t tx = e->x + step[e->face][0], ty = e->y + step[e->face][1],
                    tz = e->z + step[e->face][2];
            int missing;
            uint32_t to = ref_label_at2(w, g, tx, ty, tz, &missing);
            if (missing)
                g->missing[off[i] + e->region - 1] = 1;
            if (!to)
                continue;
            op_region_portal *p = ref_push_portal(g);
            p->from = (op_region_ref){k, e->region};
            p->to = (op_region_ref){ref_key(w, tx, ty, tz), to};
            p->from_coord = (op_coord3){e->x, e->y, e->z};
            p->to_coord = (op_coord3){(int32_t)tx, (int32_t)ty, (int32_t)tz};
            p->face = (uint8_t)e->face;
        }
        if (!prov || !prov->ops || !prov->ops->for_each_transition)
            continue;
        ref_edges es;
        memset(&es, 0, sizeof es);
        prov->ops->for_each_transition(prov, w, k, ref_edges_sink, &es);
        for (uint32_t t = 0; t < es.n; t++) {
            op_coord3 a = es.from[t], b = es.to[t];
            if (!topo_in(&w->shape, a.x, a.y, a.z) || !topo_in(&w->shape, b.x, b.y, b.z) ||
                ref_key(w, a.x, a.y, a.z) != k || !ref_near(w, a, b))
                continue;
            int missing;
            uint32_t fr = ref_label_at2(w, g, a.x, a.y, a.z, &missing);
            uint32_t tr = ref_label_at2(w, g, b.x, b.y, b.z, &missing);
            if (!fr)
                continue;
            if (missing) {
                g->missing[off[i] + fr - 1] = 1;
                continue;
            }
            if (!tr)
                continue;
            op_region_portal *p = ref_push_portal(g);
            p->from = (op_region_ref){k, fr};
            p->to = (op_region_ref){ref_key(w, b.x, b.y, b.z), tr};
            p->from_coord = a;
            p->to_coord = b;
            /* dominant axis, ties x, y, z */
            int64_t dx = (int64_t)b.x - a.x, dy = (int64_t)b.y - a.y, dz = (int64_t)b.z - a.z;
            int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, az = dz < 0 ? -dz : dz;
            p->face = (uint8_t)(ax >= ay && ax >= az ? (dx < 0 ? 0 : 1)
                                : ay >= az          ? (dy < 0 ? 2 : 3)
                                                    : (dz < 0 ? 4 : 5));
        }
        free(es.from);
        free(es.to);
    }
    free(off);
}

static inline void ref_graph_build(const op_world *w, const op_movement_class *c, ref_graph *g)
{
    ref_graph_build_prov(w, c, NULL, g);
}

static inline void ref_graph_free(ref_graph *g)
{
    for (uint32_t k = 0; k < g->chunks; k++)
        ref_local_free(&g->local[k]);
    free(g->local);
    free(g->keys);
    free(g->portals);
    free(g->missing);
    memset(g, 0, sizeof *g);
}

static inline void expect_portal_eq(const op_region_portal *a, const op_region_portal *b)
{
    assert_int_equal(a->from.chunk, b->from.chunk);
    assert_int_equal(a->from.region, b->from.region);
    assert_int_equal(a->to.chunk, b->to.chunk);
    assert_int_equal(a->to.region, b->to.region);
    assert_int_equal(a->from_coord.x, b->from_coord.x);
    assert_int_equal(a->from_coord.y, b->from_coord.y);
    assert_int_equal(a->from_coord.z, b->from_coord.z);
    assert_int_equal(a->to_coord.x, b->to_coord.x);
    assert_int_equal(a->to_coord.y, b->to_coord.y);
    assert_int_equal(a->to_coord.z, b->to_coord.z);
    assert_int_equal(a->face, b->face);
}

/* Everything a graph holds against the reference: slots, locals, portals, index, CSR,
 * and (sparse) the reaches-missing flags. */
static inline void expect_graph_equals_ref(const op_region_graph *g, const ref_graph *r)
{
    assert_int_equal(g->slot_count, r->chunks);
    uint32_t off = 0;
    for (uint32_t k = 0; k < r->chunks; k++) {
        if (g->residency == OP_RESIDENCY_SPARSE)
            assert_int_equal(g->sparse_keys[k], r->keys[k]);
        expect_local_equals_ref(&g->locals[k], &r->local[k], g->chunk_tiles);
        assert_int_equal(g->region_offsets[k], off);
        off += r->local[k].nregions;
    }
    assert_int_equal(g->region_count, off);
    if (g->residency == OP_RESIDENCY_SPARSE)
        for (uint32_t i = 0; i < off; i++)
            if (g->reaches_missing[i] != r->missing[i]) {
                fprintf(stderr, "region %u: reaches_missing %u, reference %u\n", i,
                        g->reaches_missing[i], r->missing[i]);
                fail();
            }
    assert_int_equal(g->portal_count, r->nportals);
    for (uint32_t i = 0; i < r->nportals; i++)
        expect_portal_eq(&g->portals[i], &r->portals[i]);
    /* CSR: stable counting sort by from-index (§10.7), written out the slow way. */
    uint32_t e = 0;
    for (uint32_t ri = 0; ri < g->region_count; ri++) {
        assert_int_equal(g->adj_start[ri], e);
        op_region_ref ref = op_region_graph_region_ref(g, ri);
        for (uint32_t i = 0; i < r->nportals; i++) {
            const op_region_portal *p = &r->portals[i];
            if (p->from.chunk != ref.chunk || p->from.region != ref.region)
                continue;
            assert_int_equal(g->adj_portal[e], i);
            assert_int_equal(g->adj_target[e], op_region_graph_region_index(g, p->to));
            e++;
        }
    }
    assert_int_equal(g->adj_start[g->region_count], e);
    assert_int_equal(e, r->nportals);
}

/* Two graphs hold the same thing: everything the digest covers, the first-occurrence
 * adjacency the queries read, the reaches-missing flags, the slot table and the captured
 * versions (an update against a fresh build of the same world). */
static inline void expect_graphs_equal(const op_region_graph *a, const op_region_graph *b)
{
    assert_int_equal(a->stamp.built, b->stamp.built);
    assert_int_equal(a->residency, b->residency);
    assert_int_equal(a->slot_count, b->slot_count);
    assert_int_equal(a->chunk_tiles, b->chunk_tiles);
    assert_int_equal(a->region_count, b->region_count);
    assert_int_equal(a->portal_count, b->portal_count);
    const size_t tiles = (size_t)a->slot_count * a->chunk_tiles;
    if (tiles && memcmp(a->labels, b->labels, tiles * sizeof *a->labels)) {
        size_t i = 0;
        while (a->labels[i] == b->labels[i])
            i++;
        fprintf(stderr, "labels differ at slot %zu tile %zu: %u vs %u\n", i / a->chunk_tiles,
                i % a->chunk_tiles, a->labels[i], b->labels[i]);
        fail();
    }
    for (uint32_t k = 0; k < a->slot_count; k++) {
        const op_local_topology *x = &a->locals[k], *y = &b->locals[k];
        assert_int_equal(x->chunk, y->chunk);
        assert_int_equal(x->topology_version, y->topology_version);
        assert_int_equal(x->region_count, y->region_count);
        assert_int_equal(x->exit_count, y->exit_count);
        assert_memory_equal(x->chunk_coord, y->chunk_coord, sizeof x->chunk_coord);
        if (x->region_count)
            assert_memory_equal(x->regions, y->regions, x->region_count * sizeof *x->regions);
        for (uint32_t i = 0; i < x->exit_count; i++) {
            const op_boundary_exit *e = &x->exits[i], *f = &y->exits[i];
            assert_true(e->region == f->region && e->local_tile == f->local_tile &&
                        e->target_chunk == f->target_chunk && e->face == f->face &&
                        e->coord.x == f->coord.x && e->coord.y == f->coord.y &&
                        e->coord.z == f->coord.z);
        }
        if (a->residency == OP_RESIDENCY_SPARSE) {
            assert_int_equal(a->sparse_keys[k], b->sparse_keys[k]);
            assert_int_equal(a->residency_generations[k], b->residency_generations[k]);
        }
    }
    assert_memory_equal(a->region_offsets, b->region_offsets, ((size_t)a->slot_count + 1) * 4);
    assert_memory_equal(a->portal_offsets, b->portal_offsets, ((size_t)a->slot_count + 1) * 4);
    for (uint32_t i = 0; i < a->portal_count; i++) {
        expect_portal_eq(&a->portals[i], &b->portals[i]);
        if (a->adj_target[i] != b->adj_target[i] || a->adj_portal[i] != b->adj_portal[i]) {
            fprintf(stderr, "CSR entry %u: (%u, %u) vs (%u, %u)\n", i, a->adj_target[i],
                    a->adj_portal[i], b->adj_target[i], b->adj_portal[i]);
            fail();
        }
    }
    for (uint32_t r = 0; r <= a->region_count; r++)
        assert_int_equal(a->adj_start[r], b->adj_start[r]);
    for (uint32_t r = 0; r < a->region_count; r++) {
        assert_int_equal(a->nb_range[2 * r], b->nb_range[2 * r]);
        assert_int_equal(a->nb_range[2 * r + 1], b->nb_range[2 * r + 1]);
        for (uint32_t e = a->nb_range[2 * r]; e < a->nb_range[2 * r + 1]; e++) {
            assert_int_equal(a->nb_target[e], b->nb_target[e]);
            assert_int_equal(a->nb_portal[e], b->nb_portal[e]);
        }
    }
    if (a->residency == OP_RESIDENCY_SPARSE && a->region_count)
        assert_memory_equal(a->reaches_missing, b->reaches_missing, a->region_count);
    uint64_t da, db;
    assert_int_equal(op_region_graph_digest(NULL, a, &da), OP_OK);
    assert_int_equal(op_region_graph_digest(NULL, b, &db), OP_OK);
    assert_int_equal(da, db);
}

/* ---- reference traversals over whole CSR buckets (§10.9, §10.10) -------------------------- */

static inline op_reach_result ref_reachable(const op_region_graph *g, op_path_request q)
{
    op_reach_result res = {OP_REACH_UNREACHABLE, 0};
    const op_world_shape *s = &g->stamp.shape;
    if (!topo_in(s, q.start.x, q.start.y, q.start.z)) {
        res.status = OP_REACH_INVALID_START;
        return res;
    }
    if (!topo_in(s, q.goal.x, q.goal.y, q.goal.z)) {
        res.status = OP_REACH_INVALID_GOAL;
        return res;
    }
    op_region_ref a = op_region_graph_region_of(g, q.start), b = op_region_graph_region_of(g, q.goal);
    if (!a.region) {
        res.status = OP_REACH_INVALID_START;
        return res;
    }
    if (!b.region) {
        res.status = OP_REACH_INVALID_GOAL;
        return res;
    }
    if (a.chunk == b.chunk && a.region == b.region) {
        res.status = OP_REACH_REACHABLE;
        res.visited = 1;
        return res;
    }
    uint32_t si = op_region_graph_region_index(g, a), gi = op_region_graph_region_index(g, b);
    uint8_t *mark = calloc(g->region_count, 1);
    uint32_t *stack = malloc((size_t)g->region_count * sizeof *stack + 4);
    uint32_t sp = 0, visited = 1;
    mark[si] = 1;
    stack[sp++] = si;
    while (sp) {
        uint32_t cur = stack[--sp];
        for (uint32_t e = g->adj_start[cur]; e < g->adj_start[cur + 1]; e++) {
            uint32_t t = g->adj_target[e];
            if (mark[t])
                continue;
            if (t == gi) {
                free(mark);
                free(stack);
                res.status = OP_REACH_REACHABLE;
                res.visited = visited + 1;
                return res;
            }
            mark[t] = 1;
            visited++;
            stack[sp++] = t;
        }
    }
    free(mark);
    free(stack);
    res.visited = visited;
    return res;
}

/* BFS over whole buckets; returns visited and fills path (region indices) and portal
 * indices when reachable. */
static inline uint32_t ref_coarse(const op_region_graph *g, uint32_t si, uint32_t gi,
                                  uint32_t *path, uint32_t *path_portals, uint32_t *len)
{
    uint8_t *mark = calloc(g->region_count, 1);
    uint32_t *queue = malloc((size_t)g->region_count * sizeof *queue + 4);
    uint32_t *par = malloc((size_t)g->region_count * sizeof *par + 4);
    uint32_t *pp = malloc((size_t)g->region_count * sizeof *pp + 4);
    uint32_t head = 0, tail = 0, visited = 1;
    mark[si] = 1;
    par[si] = si;
    queue[tail++] = si;
    int found = si == gi;
    while (head < tail && !found) {
        uint32_t cur = queue[head++];
        for (uint32_t e = g->adj_start[cur]; e < g->adj_start[cur + 1]; e++) {
            uint32_t t = g->adj_target[e];
            if (mark[t])
                continue;
            mark[t] = 1;
            par[t] = cur;
            pp[t] = g->adj_portal[e];
            queue[tail++] = t;
            visited++;
            if (t == gi) {
                found = 1;
                break;
            }
        }
    }
    *len = 0;
    if (found) {
        uint32_t n = 1;
        for (uint32_t r = gi; r != si; r = par[r])
            n++;
        *len = n;
        uint32_t i = n;
        for (uint32_t r = gi;; r = par[r]) {
            path[--i] = r;
            if (r == si)
                break;
            path_portals[i - 1] = pp[r];
        }
    }
    free(mark);
    free(queue);
    free(par);
    free(pp);
    return visited;
}

/* ---- ground truth: a plain flood fill over the whole grid ---------------------------------- */

/* comp[tile] = component id (0 = impassable) of the world's tiles in world order
 * x + y·X + z·X·Y, over the lattice's regular face steps. */
static inline uint32_t *grid_components(const op_world *w, const op_movement_class *c)
{
    const op_world_shape *s = &w->shape;
    const size_t n = (size_t)s->size[0] * s->size[1] * s->size[2];
    uint32_t *comp = calloc(n ? n : 1, sizeof *comp);
    uint8_t *pass = calloc(n ? n : 1, 1);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    const int hex = s->lattice == OP_LATTICE_AXIAL_HEX;
    for (size_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(i % s->size[0]), y = (int32_t)(i / s->size[0] % s->size[1]),
                z = (int32_t)(i / s->size[0] / s->size[1]);
        pass[i] = (uint8_t)op_movement_passable(w, c, (op_coord3){x, y, z});
    }
    static const int d6[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const int h6[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {1, -1, 0}, {-1, 1, 0}};
    uint32_t next = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pass[i] || comp[i])
            continue;
        comp[i] = ++next;
        size_t head = 0, tail = 0;
        queue[tail++] = i;
        while (head < tail) {
            size_t t = queue[head++];
            int64_t x = (int64_t)(t % s->size[0]), y = (int64_t)(t / s->size[0] % s->size[1]),
                    z = (int64_t)(t / s->size[0] / s->size[1]);
            for (int d = 0; d < 6; d++) {
                const int *st = hex ? h6[d] : d6[d];
                int64_t nx = x + st[0], ny = y + st[1], nz = z + st[2];
                if (!topo_in(s, nx, ny, nz))
                    continue;
                size_t m = (size_t)(nx + ny * s->size[0] + nz * (int64_t)s->size[0] * s->size[1]);
                if (pass[m] && !comp[m]) {
                    comp[m] = next;
                    queue[tail++] = m;
                }
            }
        }
    }
    free(pass);
    free(queue);
    return comp;
}

#endif
