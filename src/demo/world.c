/* The built-in procedural demo world (supplement §1.2): terrain and driver.
 *
 * Terrain: integer value noise (hash lattice, smoothstep in 16.16 fixed point) sampled
 * at every second cell corner, so one quad covers 2 x 2 cells (two triangles): the
 * 8192² world has 33.6M terrain triangles. Layers, all in millimetres:
 *   hills    128-cell lattice, 0..7 m      rolling ground
 *   roll      32-cell lattice, 0..1.5 m
 *   bumps      8-cell lattice, 0..0.25 m
 *   terraces 128-cell lattice, 3 levels of 2.4 m: a 2.4 m rise over one 0.6 m quad is
 *            a cliff (76°), so the level boundaries are ledges
 *   mountains 64-cell lattice above a threshold, squared, up to 20 m: steep slopes
 * With villages, each 256-cell block fully inside the world is flattened to a plateau
 * (blend over cells 8..32 from the block edge) and gets a pond carved in.
 * Everything is integer until the final int→float conversion (demo_internal.h). */
#include "demo/demo_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Seeds of the noise layers. */
enum {
    SEED_HILLS = 0x68696c6cu,
    SEED_ROLL = 0x726f6c6cu,
    SEED_BUMP = 0x62756d70u,
    SEED_TERRACE = 0x74657272u,
    SEED_MOUNT = 0x6d6f756eu
};

#define MOUNT_THRESHOLD 46000u
#define MOUNT_HEIGHT_MM 20000u
#define TERRACE_STEP_MM 2400

uint32_t op_demo_hash(uint32_t x, uint32_t z, uint32_t seed)
{
    uint32_t h = x * 0x8da6b343u ^ z * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* cos(2π·i/64)·65536 for i = 0..16; the other quadrants by symmetry. */
static const int32_t cos_quarter[17] = {65536, 65220, 64277, 62714, 60547, 57798,
                                        54491, 50660, 46341, 41576, 36410, 30893,
                                        25080, 19024, 12785, 6424,  0};

int32_t op_demo_cos_q16(uint32_t i)
{
    i &= 63u;
    if (i <= 16)
        return cos_quarter[i];
    if (i <= 32)
        return -cos_quarter[32 - i];
    if (i <= 48)
        return -cos_quarter[i - 32];
    return cos_quarter[64 - i];
}

/* 3t² − 2t³ for t in [0, 65536] (16.16), result in [0, 65536]. */
static uint32_t smooth16(uint32_t t)
{
    const uint64_t tt = (uint64_t)t * t;
    return (uint32_t)((tt * (uint64_t)(3u * 65536u - 2u * t)) >> 32);
}

/* Value noise in [0, 65535] on a lattice of 2^shift cells (shift <= 15). */
static uint32_t value_noise(uint32_t x, uint32_t z, unsigned shift, uint32_t seed)
{
    const uint32_t mask = (1u << shift) - 1u;
    const uint32_t xi = x >> shift, zi = z >> shift;
    const uint64_t tx = smooth16(((x & mask) << 16) >> shift);
    const uint64_t tz = smooth16(((z & mask) << 16) >> shift);
    const uint64_t a = op_demo_hash(xi, zi, seed) >> 16, b = op_demo_hash(xi + 1, zi, seed) >> 16;
    const uint64_t c = op_demo_hash(xi, zi + 1, seed) >> 16, d = op_demo_hash(xi + 1, zi + 1, seed) >> 16;
    const uint64_t ab = (a * (65536u - tx) + b * tx) >> 16;
    const uint64_t cd = (c * (65536u - tx) + d * tx) >> 16;
    return (uint32_t)((ab * (65536u - tz) + cd * tz) >> 16);
}

static int32_t hills_mm(uint32_t x, uint32_t z)
{
    return (int32_t)(((uint64_t)value_noise(x, z, 7, SEED_HILLS) * 7000u) >> 16);
}

/* The terrain alone at cell corner (x, z) [mm]. */
static int32_t terrain_mm(uint32_t x, uint32_t z)
{
    int32_t h = hills_mm(x, z);
    h += (int32_t)(((uint64_t)value_noise(x, z, 5, SEED_ROLL) * 1500u) >> 16);
    h += (int32_t)(((uint64_t)value_noise(x, z, 3, SEED_BUMP) * 250u) >> 16);
    h += (int32_t)(((uint64_t)value_noise(x, z, 7, SEED_TERRACE) * 3u) >> 16) * TERRACE_STEP_MM;
    const uint32_t m = value_noise(x, z, 6, SEED_MOUNT);
    if (m > MOUNT_THRESHOLD) {
        const uint64_t d = m - MOUNT_THRESHOLD, r = 65535u - MOUNT_THRESHOLD;
        h += (int32_t)(d * d * MOUNT_HEIGHT_MM / (r * r));
    }
    return h;
}

/* Plateau height of village block (bx, bz): the hills at its centre, to 0.1 m. */
static int32_t village_base_mm(uint32_t bx, uint32_t bz)
{
    const uint32_t c = OP_DEMO_BLOCK / 2;
    return (hills_mm(bx * OP_DEMO_BLOCK + c, bz * OP_DEMO_BLOCK + c) + 750) / 100 * 100;
}

/* Height at cell corner (x, z) with villages on blocks < nb in both axes. */
static int32_t world_mm(uint32_t x, uint32_t z, uint32_t nb)
{
    int32_t h = terrain_mm(x, z);
    const uint32_t bx = x / OP_DEMO_BLOCK, bz = z / OP_DEMO_BLOCK;
    if (bx >= nb || bz >= nb)
        return h;
    const int32_t u = (int32_t)(x % OP_DEMO_BLOCK), v = (int32_t)(z % OP_DEMO_BLOCK);
    const int32_t n = (int32_t)OP_DEMO_BLOCK;
    int32_t e = u < v ? u : v;
    if (n - u < e)
        e = n - u;
    if (n - v < e)
        e = n - v;
    if (e <= DEMO_BLEND_LO)
        return h;
    const int64_t w = e >= DEMO_CORE_LO ? 65536
                                        : (int64_t)(e - DEMO_BLEND_LO) * 65536 /
                                              (DEMO_CORE_LO - DEMO_BLEND_LO);
    const int64_t base = village_base_mm(bx, bz);
    h = (int32_t)(((int64_t)h * (65536 - w) + base * w) / 65536);
    /* The pond: a paraboloid bowl, water volume in op_demo_village.c. */
    const int64_t du = u - DEMO_POND_U, dv = v - DEMO_POND_V;
    const int64_t d2 = du * du + dv * dv, r2 = (int64_t)DEMO_POND_R * DEMO_POND_R;
    if (d2 < r2)
        h -= (int32_t)(DEMO_POND_DEPTH_MM * (r2 - d2) / r2);
    return h;
}

op_status op_demo_tri(demo_builder *b, demo_pt p0, demo_pt p1, demo_pt p2, int want)
{
    if (want) {
        /* y of (p1 − p0) × (p2 − p0): > 0 is up-facing (Recast's normal). */
        const int64_t cy = (int64_t)(p1.z - p0.z) * (p2.x - p0.x) -
                           (int64_t)(p1.x - p0.x) * (p2.z - p0.z);
        if ((want > 0 && cy < 0) || (want < 0 && cy > 0)) {
            const demo_pt t = p1;
            p1 = p2;
            p2 = t;
        }
    }
    op_mesh *m = &b->scene->mesh;
    const uint32_t first = m->vert_count;
    const demo_pt *p[3] = {&p0, &p1, &p2};
    for (int i = 0; i < 3; i++) {
        op_status st = op_mesh_add_vertex(b->ctx, m, (float)p[i]->x * b->qs,
                                          (float)p[i]->y * b->ms, (float)p[i]->z * b->qs);
        if (st != OP_OK)
            return st;
    }
    return op_mesh_add_triangle(b->ctx, m, first, first + 1, first + 2);
}

/* Grows the mesh arrays to exactly the given capacities (no doubling past them). */
static op_status reserve(op_ctx *ctx, op_mesh *m, uint64_t verts, uint64_t tris)
{
    if (verts > 0xfffffffeull || tris > 0xfffffffeull)
        return op_fail(ctx, OP_NO_MEMORY, "demo world: %llu vertices / %llu triangles do not fit",
                       (unsigned long long)verts, (unsigned long long)tris);
    return op_mesh_reserve(ctx, m, (uint32_t)verts, (uint32_t)tris);
}

/* Vertex column ix → cell corner: every second corner, plus the far edge of an odd size. */
static uint32_t corner(uint32_t i, uint32_t size) { return 2 * i < size ? 2 * i : size; }

static op_status build_terrain(demo_builder *b, uint32_t size, uint32_t nb)
{
    op_mesh *m = &b->scene->mesh;
    const uint32_t nv = (size + 1) / 2 + 1; /* corners per row */
    const uint32_t v0 = m->vert_count;
    for (uint32_t iz = 0; iz < nv; iz++) {
        const uint32_t z = corner(iz, size);
        const float fz = (float)(int32_t)(4 * z) * b->qs;
        for (uint32_t ix = 0; ix < nv; ix++) {
            const uint32_t x = corner(ix, size);
            op_status st = op_mesh_add_vertex(b->ctx, m, (float)(int32_t)(4 * x) * b->qs,
                                              (float)world_mm(x, z, nb) * b->ms, fz);
            if (st != OP_OK)
                return st;
        }
        if ((iz & 63) == 0)
            op_progress(b->ctx, "demo", 0.5 * (double)iz / (double)nv);
    }
    for (uint32_t iz = 0; iz + 1 < nv; iz++) {
        for (uint32_t ix = 0; ix + 1 < nv; ix++) {
            /* a = (x, z), bq = (x+1, z), c = (x+1, z+1), d = (x, z+1); (a, d, bq) and
             * (bq, d, c) are counter-clockwise seen from above (up-facing). */
            const uint32_t a = v0 + iz * nv + ix, bq = a + 1, d = a + nv, c = d + 1;
            op_status st = op_mesh_add_triangle(b->ctx, m, a, d, bq);
            if (st == OP_OK)
                st = op_mesh_add_triangle(b->ctx, m, bq, d, c);
            if (st != OP_OK)
                return st;
        }
    }
    return OP_OK;
}

/* Bounds: x and z from 0 to the largest binary32 edge whose grid (supplement §1.1,
 * computed as op_config_grid_size does) is exactly size cells; y from the mesh. */
static op_status set_bounds(op_ctx *ctx, op_config *cfg, const op_mesh *m, uint32_t size,
                            float qs)
{
    float lo[3], hi[3];
    op_mesh_bounds(m, lo, hi);
    cfg->has_bounds = 1;
    cfg->bmin[0] = cfg->bmin[2] = 0.0f;
    cfg->bmin[1] = lo[1];
    cfg->bmax[1] = hi[1] > lo[1] ? hi[1] : lo[1] + cfg->ch;
    float e = (float)(int32_t)(4 * size) * qs;
    for (int iter = 0; iter < 64; iter++) {
        cfg->bmax[0] = cfg->bmax[2] = e;
        uint32_t w = 0, d = 0;
        op_status st = op_config_grid_size(ctx, cfg, &w, &d);
        if (st != OP_OK)
            return st;
        if (w == size)
            return OP_OK;
        e = nextafterf(e, w > size ? 0.0f : INFINITY);
    }
    return op_fail(ctx, OP_INTERNAL, "demo world: no binary32 bound gives %u cells", size);
}

static op_status demo_build(op_ctx *ctx, uint32_t size, op_scene *out, op_config *cfg,
                            int villages)
{
    if (!out || !cfg)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "demo world: scene and config are required");
    if (size < OP_DEMO_MIN_SIZE || size > OP_DEMO_MAX_SIZE)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "demo world size %u cells is outside [%u, %u]", size, OP_DEMO_MIN_SIZE,
                       OP_DEMO_MAX_SIZE);
    op_scene_init(out);
    op_config_defaults(cfg);
    demo_builder b = {ctx, out, cfg->cs * 0.25f, 0.001f};
    const uint32_t nb = villages ? size / OP_DEMO_BLOCK : 0;
    op_status st = OP_OK;

    /* Village geometry is the same in every block up to heights: count one (a dry run
     * into a scratch scene) so the arrays are reserved once, not doubled. */
    uint64_t vv = 0, vt = 0, vvol = 0;
    if (nb) {
        op_scene probe;
        op_scene_init(&probe);
        demo_builder pb = b;
        pb.scene = &probe;
        st = op_demo_village(&pb, 0, 0, 0);
        vv = probe.mesh.vert_count;
        vt = probe.mesh.tri_count;
        vvol = probe.volume_count;
        op_scene_free(&probe);
        if (st != OP_OK)
            return st;
    }
    const uint64_t nv = (size + 1) / 2 + 1, nq = nv - 1;
    const uint64_t nvil = (uint64_t)nb * nb;
    st = reserve(ctx, &out->mesh, nv * nv + nvil * vv, 2 * nq * nq + nvil * vt);
    if (st == OP_OK && nvil * vvol > 0xfffffffeull)
        st = op_fail(ctx, OP_NO_MEMORY, "demo world: %llu volumes do not fit",
                     (unsigned long long)(nvil * vvol));
    if (st == OP_OK && nvil)
        st = op_scene_reserve_volumes(ctx, out, (uint32_t)(nvil * vvol));
    if (st == OP_OK)
        st = build_terrain(&b, size, nb);
    for (uint32_t bz = 0; st == OP_OK && bz < nb; bz++) {
        for (uint32_t bx = 0; st == OP_OK && bx < nb; bx++)
            st = op_demo_village(&b, bx, bz, village_base_mm(bx, bz));
        op_progress(ctx, "demo", 0.5 + 0.5 * (double)(bz + 1) / (double)nb);
    }
    if (st == OP_OK)
        st = set_bounds(ctx, cfg, &out->mesh, size, b.qs);
    if (st != OP_OK) {
        op_scene_free(out);
        return st;
    }
    op_progress(ctx, "demo", 1.0);
    return OP_OK;
}

op_status op_demo_world(op_ctx *ctx, uint32_t size_cells, op_scene *out, op_config *cfg)
{
    return demo_build(ctx, size_cells, out, cfg, 1);
}

op_status op_demo_terrain(op_ctx *ctx, uint32_t size_cells, op_scene *out, op_config *cfg)
{
    return demo_build(ctx, size_cells, out, cfg, 0);
}
