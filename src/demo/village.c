/* The demo world's village (supplement §1.2, demo.h): one per 256-cell block, on the
 * flat plateau the terrain blends into (demo_world.c). Layout in cells local to the
 * block (u = x, v = z), heights in mm above the plateau:
 *
 *   building   [40,84) x [36,80): walls to 10 m (1 m parapet), door in the south wall,
 *              slabs at 3 m and 6 m, roof at 9 m, two straight stairs (0.25 m rise,
 *              1.5-cell tread) through holes in the slabs, a mezzanine at 1.6–1.8 m
 *              (too low above and below) and a beam at 2.3 m (just enough headroom)
 *   obstacle   volume area 0, box [100,124) x [40,60)
 *   spiral     centre (170, 66), radii 12..28 cells, two turns of 3.2 m rise on a
 *              64-step integer circle (7° at the inner rim), 0.3 m thick: seen from
 *              above it overlaps itself (ground, turn 1, turn 2 in one column) with
 *              2.9 m clearance between turns; a pillar in the middle (an island)
 *   pillars    seven tops of 6..10 cells square, 1.5..3 m high: small islands
 *   road       v in [116,140) across the block, volume area 2 (box)
 *   bridge     u in [204,220): 0.3 m deck at 5 m over the road v in [108,148), ramps
 *              at 6° .. 19° down to v = 60 and v = 196 (two floors in one column)
 *   courtyard  walls 2.5 m around [40,92) x [160,212) with a gate in the north wall
 *              and a well (1 m) in the middle: a walkable region with a hole
 *   grass      volume area 3, cylinder at (120, 186), radius 14 cells
 *   pond       carved by demo_world.c at (164, 186), water volume area 1 (octagon prism)
 *
 * Box edges sit a quarter cell inside cell boundaries so no face lies on a column
 * boundary (where clipping would give a zero-width piece to the next column). */
#include "demo/demo_internal.h"

#include <string.h>

typedef struct village {
    demo_builder *b;
    int32_t ox, oz; /* block origin [q] */
    int32_t base;   /* plateau [mm] */
} village;

/* Four-cornered slab: corners xz (in order around the footprint) with top and bottom
 * heights per corner. Top up-facing, bottom (when asked) down-facing, side i between
 * corners i and i+1 when bit i of sides is set. */
static op_status slab4(const village *vl, const int32_t xz[4][2], const int32_t top[4],
                       const int32_t bot[4], unsigned sides, int bottom)
{
    demo_pt t[4], w[4];
    for (int i = 0; i < 4; i++) {
        t[i] = (demo_pt){xz[i][0], vl->base + top[i], xz[i][1]};
        w[i] = (demo_pt){xz[i][0], vl->base + bot[i], xz[i][1]};
    }
    demo_builder *b = vl->b;
    op_status st = op_demo_tri(b, t[0], t[1], t[2], 1);
    if (st == OP_OK)
        st = op_demo_tri(b, t[0], t[2], t[3], 1);
    if (st == OP_OK && bottom)
        st = op_demo_tri(b, w[0], w[1], w[2], -1);
    if (st == OP_OK && bottom)
        st = op_demo_tri(b, w[0], w[2], w[3], -1);
    for (int i = 0; i < 4 && st == OP_OK; i++) {
        if (!(sides >> i & 1))
            continue;
        const int j = (i + 1) & 3;
        st = op_demo_tri(b, t[i], t[j], w[j], 0);
        if (st == OP_OK)
            st = op_demo_tri(b, t[i], w[j], w[i], 0);
    }
    return st;
}

/* Box over quarter-cell range [x0, x1] x [z0, z1] (block-local q), y0..y1 mm. */
static op_status box_q(const village *vl, int32_t x0, int32_t z0, int32_t x1, int32_t z1,
                       int32_t y0, int32_t y1)
{
    const int32_t xz[4][2] = {{vl->ox + x0, vl->oz + z0},
                              {vl->ox + x1, vl->oz + z0},
                              {vl->ox + x1, vl->oz + z1},
                              {vl->ox + x0, vl->oz + z1}};
    const int32_t top[4] = {y1, y1, y1, y1}, bot[4] = {y0, y0, y0, y0};
    return slab4(vl, xz, top, bot, 0xf, 1);
}

/* Box covering exactly the cells [u0, u1) x [v0, v1). */
static op_status box(const village *vl, int32_t u0, int32_t v0, int32_t u1, int32_t v1,
                     int32_t y0, int32_t y1)
{
    return box_q(vl, 4 * u0 + 1, 4 * v0 + 1, 4 * u1 - 1, 4 * v1 - 1, y0, y1);
}

/* A straight slab along v over cells [u0, u1) x [v0, v1), top from ya (at v0) to yb
 * (at v1), thickness th. */
static op_status ramp_v(const village *vl, int32_t u0, int32_t v0, int32_t u1, int32_t v1,
                        int32_t ya, int32_t yb, int32_t th)
{
    const int32_t x0 = vl->ox + 4 * u0 + 1, x1 = vl->ox + 4 * u1 - 1;
    const int32_t z0 = vl->oz + 4 * v0 + 1, z1 = vl->oz + 4 * v1 - 1;
    const int32_t xz[4][2] = {{x0, z0}, {x1, z0}, {x1, z1}, {x0, z1}};
    const int32_t top[4] = {ya, ya, yb, yb};
    const int32_t bot[4] = {ya - th, ya - th, yb - th, yb - th};
    return slab4(vl, xz, top, bot, 0xf, 1);
}

static op_status building(const village *vl)
{
    op_status st = OP_OK;
    const int32_t wall_lo = -200, wall_hi = 10000;
    /* Walls, 1 cell thick; the door is [58, 66) in the south wall, 2.4 m high. */
    if (st == OP_OK) st = box(vl, 40, 36, 84, 37, wall_lo, wall_hi);
    if (st == OP_OK) st = box(vl, 40, 79, 58, 80, wall_lo, wall_hi);
    if (st == OP_OK) st = box(vl, 66, 79, 84, 80, wall_lo, wall_hi);
    if (st == OP_OK) st = box(vl, 58, 79, 66, 80, 2400, wall_hi);
    if (st == OP_OK) st = box(vl, 40, 37, 41, 79, wall_lo, wall_hi);
    if (st == OP_OK) st = box(vl, 83, 37, 84, 79, wall_lo, wall_hi);
    /* Slab 1 (2.8..3.0 m), hole [41, 62) x [37, 45) over stair 1. */
    if (st == OP_OK) st = box(vl, 62, 37, 83, 45, 2800, 3000);
    if (st == OP_OK) st = box(vl, 41, 45, 83, 79, 2800, 3000);
    /* Slab 2 (5.8..6.0 m), hole [62, 83) x [45, 53) over stair 2. */
    if (st == OP_OK) st = box(vl, 41, 37, 83, 45, 5800, 6000);
    if (st == OP_OK) st = box(vl, 41, 45, 62, 53, 5800, 6000);
    if (st == OP_OK) st = box(vl, 41, 53, 83, 79, 5800, 6000);
    /* Roof (8.8..9.0 m) inside the parapet. */
    if (st == OP_OK) st = box(vl, 41, 37, 83, 79, 8800, 9000);
    /* Stair 1: ground → 3 m, rising along +u from u = 44.25, v in [38, 44). Treads are
     * 6 q (1.5 cells) and start at odd q, never on a cell boundary. */
    for (int32_t k = 0; k < 12 && st == OP_OK; k++) {
        const int32_t x0 = 4 * 44 + 1 + 6 * k;
        st = box_q(vl, x0, 4 * 38 + 1, x0 + 6, 4 * 44 - 1, wall_lo, 250 * (k + 1));
    }
    /* Stair 2: slab 1 → 6 m, rising along −u from u = 79.75, v in [46, 52). */
    for (int32_t k = 0; k < 12 && st == OP_OK; k++) {
        const int32_t x1 = 4 * 80 - 1 - 6 * k;
        st = box_q(vl, x1 - 6, 4 * 46 + 1, x1, 4 * 52 - 1, 2800, 3000 + 250 * (k + 1));
    }
    /* Low ceilings: a mezzanine with 1.6 m below and 1.0 m above it, and a beam with
     * 2.3 m headroom: walkable_height is 2.0 m, and 2.3 m leaves at least 10 cells
     * whatever the plateau's offset from the ch grid. */
    if (st == OP_OK) st = box(vl, 70, 64, 83, 79, 1600, 1800);
    if (st == OP_OK) st = box(vl, 41, 66, 55, 79, 2300, 2800);
    return st;
}

static op_status spiral(const village *vl)
{
    const int32_t cx = vl->ox + 4 * 170, cz = vl->oz + 4 * 66;
    const int32_t r_in = 4 * 12, r_out = 4 * 28;
    const int32_t steps = 128, rise = 50, th = 300; /* 64 steps per turn, 3.2 m a turn */
    op_status st = OP_OK;
    for (int32_t k = 0; k < steps && st == OP_OK; k++) {
        const uint32_t a0 = (uint32_t)k, a1 = (uint32_t)k + 1;
        const int32_t c0 = op_demo_cos_q16(a0), s0 = demo_sin_q16(a0);
        const int32_t c1 = op_demo_cos_q16(a1), s1 = demo_sin_q16(a1);
        const int32_t xz[4][2] = {
            {cx + demo_round_q16((int64_t)r_in * c0), cz + demo_round_q16((int64_t)r_in * s0)},
            {cx + demo_round_q16((int64_t)r_out * c0), cz + demo_round_q16((int64_t)r_out * s0)},
            {cx + demo_round_q16((int64_t)r_out * c1), cz + demo_round_q16((int64_t)r_out * s1)},
            {cx + demo_round_q16((int64_t)r_in * c1), cz + demo_round_q16((int64_t)r_in * s1)}};
        const int32_t y0 = rise * k, y1 = rise * (k + 1);
        const int32_t top[4] = {y0, y0, y1, y1};
        const int32_t bot[4] = {y0 - th, y0 - th, y1 - th, y1 - th};
        /* Rims (sides 1 and 3) always; the end faces only at the two ends. */
        const unsigned sides = 0xau | (k == 0 ? 1u : 0u) | (k == steps - 1 ? 4u : 0u);
        st = slab4(vl, xz, top, bot, sides, 1);
    }
    if (st == OP_OK)
        st = box(vl, 166, 62, 174, 70, -200, steps * rise + 1600);
    return st;
}

static op_status bridge(const village *vl)
{
    op_status st = box(vl, 204, 108, 220, 148, 4700, 5000);
    if (st == OP_OK)
        st = ramp_v(vl, 204, 60, 220, 108, 0, 5000, 300);
    if (st == OP_OK)
        st = ramp_v(vl, 204, 148, 220, 196, 5000, 0, 300);
    return st;
}

static op_status courtyard(const village *vl)
{
    const int32_t lo = -200, hi = 2500;
    op_status st = box(vl, 40, 160, 60, 161, lo, hi); /* gate [60, 72) */
    if (st == OP_OK) st = box(vl, 72, 160, 92, 161, lo, hi);
    if (st == OP_OK) st = box(vl, 40, 211, 92, 212, lo, hi);
    if (st == OP_OK) st = box(vl, 40, 161, 41, 211, lo, hi);
    if (st == OP_OK) st = box(vl, 91, 161, 92, 211, lo, hi);
    if (st == OP_OK) st = box(vl, 62, 182, 70, 190, lo, 1000); /* the well */
    return st;
}

static op_status pillars(const village *vl, uint32_t bx, uint32_t bz)
{
    op_status st = OP_OK;
    for (int32_t i = 0; i < 7 && st == OP_OK; i++) {
        const int32_t size = 6 + i % 5, u0 = 96 + 14 * i, v0 = 96;
        const int32_t h = 1500 + (int32_t)(op_demo_hash(bx, bz, 0x70696c6cu + (uint32_t)i) % 16u) * 100;
        st = box(vl, u0, v0, u0 + size, v0 + size, -200, h);
    }
    return st;
}

static float wx(const village *vl, int32_t q) { return (float)(vl->ox + q) * vl->b->qs; }
static float wz(const village *vl, int32_t q) { return (float)(vl->oz + q) * vl->b->qs; }
static float wy(const village *vl, int32_t mm) { return (float)(vl->base + mm) * vl->b->ms; }

static op_status volumes(const village *vl)
{
    op_ctx *ctx = vl->b->ctx;
    op_scene *s = vl->b->scene;
    op_volume v;
    /* Water (area 1): an octagon around the pond, 1 cell wider than its rim, covering
     * floors from 2.5 m below the plateau to 0.15 m below it. */
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_PRISM;
    v.area = OP_DEMO_AREA_WATER;
    v.ymin = wy(vl, -2500);
    v.ymax = wy(vl, -150);
    v.vert_count = 8;
    for (uint32_t i = 0; i < 8; i++) {
        const int64_t r = 4 * (DEMO_POND_R + 1);
        v.verts[2 * i] = wx(vl, 4 * DEMO_POND_U + demo_round_q16(r * op_demo_cos_q16(8 * i)));
        v.verts[2 * i + 1] = wz(vl, 4 * DEMO_POND_V + demo_round_q16(r * demo_sin_q16(8 * i)));
    }
    op_status st = op_scene_add_volume(ctx, s, &v);
    /* Road (area 2) across the plateau, ground level only (the deck stays 63). */
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.area = OP_DEMO_AREA_ROAD;
    v.ymin = wy(vl, -1000);
    v.ymax = wy(vl, 1000);
    v.box_min[0] = wx(vl, 4 * DEMO_CORE_LO);
    v.box_min[1] = wz(vl, 4 * 116);
    v.box_max[0] = wx(vl, 4 * DEMO_CORE_HI);
    v.box_max[1] = wz(vl, 4 * 140);
    if (st == OP_OK)
        st = op_scene_add_volume(ctx, s, &v);
    /* Grass (area 3). */
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_CYLINDER;
    v.area = OP_DEMO_AREA_GRASS;
    v.ymin = wy(vl, -1000);
    v.ymax = wy(vl, 1000);
    v.center[0] = wx(vl, 4 * 120);
    v.center[1] = wz(vl, 4 * 186);
    v.radius = (float)(4 * 14) * vl->b->qs;
    if (st == OP_OK)
        st = op_scene_add_volume(ctx, s, &v);
    /* Obstacle (area 0), e.g. a fenced-off site. */
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.area = 0;
    v.ymin = wy(vl, -1000);
    v.ymax = wy(vl, 3000);
    v.box_min[0] = wx(vl, 4 * 100);
    v.box_min[1] = wz(vl, 4 * 40);
    v.box_max[0] = wx(vl, 4 * 124);
    v.box_max[1] = wz(vl, 4 * 60);
    if (st == OP_OK)
        st = op_scene_add_volume(ctx, s, &v);
    return st;
}

op_status op_demo_village(demo_builder *b, uint32_t bx, uint32_t bz, int32_t base_mm)
{
    const village vl = {b, (int32_t)(4 * OP_DEMO_BLOCK * bx), (int32_t)(4 * OP_DEMO_BLOCK * bz),
                        base_mm};
    op_status st = building(&vl);
    if (st == OP_OK)
        st = spiral(&vl);
    if (st == OP_OK)
        st = bridge(&vl);
    if (st == OP_OK)
        st = courtyard(&vl);
    if (st == OP_OK)
        st = pillars(&vl, bx, bz);
    if (st == OP_OK)
        st = volumes(&vl);
    return st;
}
