/* Random scenes for the spans-stage and tiled-bake tests (testscene.h). */
#include "util/testscene.h"
#include "util/testutil.h"

#include <math.h>
#include <string.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        if ((st = (call)) != OP_OK)                                                        \
            return st;                                                                     \
    } while (0)
#define TRI(a, b, c)                                                                       \
    do {                                                                                   \
        CHECK(st);                                                                         \
        CHECK(op_mesh_add_triangle(ctx, m, a, b, c));                                      \
    } while (0)

static float frand(op_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(op_rng_next(r) >> 40) / (float)(1u << 24);
}

/* Adds a vertex and returns its index; the first failure stays in *st. */
static uint32_t vtx_(op_ctx *ctx, op_mesh *m, op_status *st, float x, float y, float z)
{
    const op_status s = op_mesh_add_vertex(ctx, m, x, y, z);
    if (s != OP_OK && *st == OP_OK)
        *st = s;
    return m->vert_count - 1;
}
#define vtx(m, x, y, z) vtx_(ctx, m, &st, x, y, z)

op_status op_test_random_scene(op_ctx *ctx, op_scene *s, op_config *cfg, uint64_t seed,
                               uint32_t min_cells, uint32_t range)
{
    op_rng r = {seed};
    op_scene_init(s);
    op_status st = OP_OK;
    op_config_defaults(cfg);
    cfg->cs = 0.3f;
    cfg->ch = 0.2f;
    cfg->walkable_radius = 1 + (int)op_rng_below(&r, 2);
    const uint32_t W = min_cells + op_rng_below(&r, range), D = min_cells + op_rng_below(&r, range);
    const float ox = frand(&r, -500.0f, 500.0f), oz = frand(&r, -500.0f, 500.0f);
    cfg->has_bounds = 1;
    cfg->bmin[0] = ox;
    cfg->bmin[1] = -2.0f;
    cfg->bmin[2] = oz;
    cfg->bmax[0] = ox + (float)W * cfg->cs - 0.01f;
    cfg->bmax[1] = 12.0f;
    cfg->bmax[2] = oz + (float)D * cfg->cs - 0.01f;
    const float ex = (float)W * cfg->cs, ez = (float)D * cfg->cs;
    op_mesh *m = &s->mesh;

    /* Terrain past every edge of the world. */
    const float step = 0.37f + frand(&r, 0.0f, 0.3f);
    const int nx = (int)((ex + 2.0f) / step) + 2, nz = (int)((ez + 2.0f) / step) + 2;
    const uint32_t base = m->vert_count;
    for (int j = 0; j < nz; j++)
        for (int i = 0; i < nx; i++) {
            const float x = ox - 1.0f + (float)i * step, z = oz - 1.0f + (float)j * step;
            const float y = 1.0f + 0.8f * sinf(0.7f * (float)i) * cosf(0.5f * (float)j) +
                            frand(&r, 0.0f, 0.15f);
            vtx(m, x, y, z);
            CHECK(st);
        }
    for (int j = 0; j + 1 < nz; j++)
        for (int i = 0; i + 1 < nx; i++) {
            const uint32_t a = base + (uint32_t)(j * nx + i), b = a + (uint32_t)nx;
            TRI(a, b, b + 1);
            TRI(a, b + 1, a + 1);
        }
    /* Slabs and ramps (up-facing, some steep). */
    for (int k = 0; k < 25; k++) {
        const float x0 = ox + frand(&r, -1.0f, ex), z0 = oz + frand(&r, -1.0f, ez);
        const float sx = frand(&r, 0.5f, 6.0f), sz = frand(&r, 0.5f, 6.0f);
        const float y0 = frand(&r, 2.0f, 9.0f), rise = frand(&r, 0.0f, 4.0f);
        const uint32_t a = vtx(m, x0, y0, z0), b = vtx(m, x0, y0 + rise, z0 + sz),
                       c = vtx(m, x0 + sx, y0 + rise, z0 + sz), d = vtx(m, x0 + sx, y0, z0);
        TRI(a, b, c);
        TRI(a, c, d);
    }
    /* Big random triangles across many cells, either winding (coordinates drawn one
     * by one: the order of evaluation of arguments is unspecified). */
    for (int k = 0; k < 12; k++) {
        uint32_t v[3];
        for (int j = 0; j < 3; j++) {
            const float x = ox + frand(&r, -2, ex + 2);
            const float y = frand(&r, 0, 10);
            const float z = oz + frand(&r, -2, ez + 2);
            v[j] = vtx(m, x, y, z);
        }
        TRI(v[0], v[1], v[2]);
    }
    /* Small triangles with vertices exactly on cut planes (binary32 as the solo bake
     * computes them). */
    for (int k = 0; k < 40; k++) {
        const float cx = cfg->bmin[0] + (float)(int)op_rng_below(&r, W) * cfg->cs;
        const float cz = cfg->bmin[2] + (float)(int)op_rng_below(&r, D) * cfg->cs;
        const float y = frand(&r, 0.0f, 8.0f);
        const uint32_t a = vtx(m, cx, y, cz), b = vtx(m, cx, y, cz + 2 * cfg->cs),
                       c = vtx(m, cx + 3 * cfg->cs, y + 0.1f, cz + cfg->cs);
        TRI(a, b, c);
    }
    /* Volumes of every kind, some past the world's edges. */
    for (int k = 0; k < 6; k++) {
        op_volume v;
        memset(&v, 0, sizeof v);
        v.kind = (op_volume_kind)(k % 3);
        v.area = (uint8_t)(k == 5 ? 0 : 1 + k);
        v.ymin = -5.0f;
        v.ymax = frand(&r, 2.0f, 15.0f);
        const float cx = ox + frand(&r, -1, ex + 1), cz = oz + frand(&r, -1, ez + 1);
        if (v.kind == OP_VOLUME_PRISM) {
            v.vert_count = 4;
            const float h = frand(&r, 1, 4);
            const float p[8] = {cx - h, cz, cx, cz - h, cx + h, cz, cx, cz + h};
            memcpy(v.verts, p, sizeof p);
        } else if (v.kind == OP_VOLUME_BOX) {
            v.box_min[0] = cx;
            v.box_min[1] = cz;
            v.box_max[0] = cx + frand(&r, 0.5f, 5);
            v.box_max[1] = cz + frand(&r, 0.5f, 5);
        } else {
            v.center[0] = cx;
            v.center[1] = cz;
            v.radius = frand(&r, 0.3f, 3);
        }
        CHECK(op_scene_add_volume(ctx, s, &v));
    }
    return OP_OK;
}
