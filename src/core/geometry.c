/* Triangle soups and volumes (supplement §1.2, §1.7). */
#include "onepath/geometry.h"

#include "core/alloc.h"
#include "core/array.h"

#include <math.h>
#include <string.h>

/* Largest element count of the u32-indexed arrays. */
#define OP_GEOM_MAX 0xfffffffeu

void op_mesh_init(op_mesh *m) { memset(m, 0, sizeof *m); }

void op_mesh_free(op_mesh *m)
{
    op_mem_free(&m->alloc, m->verts);
    op_mem_free(&m->alloc, m->tris);
    memset(m, 0, sizeof *m);
}

/* The allocator a mesh grows with: its own, or ctx's while it holds nothing. */
static const op_allocator *mesh_alloc(op_ctx *ctx, op_mesh *m)
{
    if (!m->verts && !m->tris) {
        memset(&m->alloc, 0, sizeof m->alloc);
        if (ctx)
            m->alloc = ctx->alloc;
    }
    return &m->alloc;
}

op_status op_mesh_reserve(op_ctx *ctx, op_mesh *m, uint32_t vert_cap, uint32_t tri_cap)
{
    const op_allocator *a = mesh_alloc(ctx, m);
    if (vert_cap > OP_GEOM_MAX || tri_cap > OP_GEOM_MAX)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "mesh of %u vertices / %u triangles: at most "
                       "2^32-2 each", vert_cap, tri_cap);
    size_t cap = m->vert_cap;
    void *p = m->verts;
    if (op_array_reserve(a, &p, &cap, vert_cap, 3 * sizeof(float)) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u vertices", vert_cap);
    m->verts = p;
    m->vert_cap = (uint32_t)cap;
    cap = m->tri_cap;
    p = m->tris;
    if (op_array_reserve(a, &p, &cap, tri_cap, 3 * sizeof(uint32_t)) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u triangles", tri_cap);
    m->tris = p;
    m->tri_cap = (uint32_t)cap;
    return OP_OK;
}

op_status op_mesh_add_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(z))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "vertex %u has a non-finite coordinate",
                       m->vert_count + 1);
    if (m->vert_count >= 0xfffffffeu)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "more than 2^32-2 vertices");
    void *p = m->verts;
    if (op_array_grow32(mesh_alloc(ctx, m), &p, &m->vert_cap, m->vert_count + 1ull,
                        3 * sizeof(float), OP_GEOM_MAX) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory at vertex %u", m->vert_count + 1);
    m->verts = p;
    float *v = m->verts + 3 * (size_t)m->vert_count++;
    v[0] = x;
    v[1] = y;
    v[2] = z;
    return OP_OK;
}

op_status op_mesh_add_triangle(op_ctx *ctx, op_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (a >= m->vert_count || b >= m->vert_count || c >= m->vert_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "triangle %u refers to vertex %u but there are %u vertices",
                       m->tri_count + 1, (a >= m->vert_count ? a : b >= m->vert_count ? b : c) + 1,
                       m->vert_count);
    if (m->tri_count >= 0xfffffffeu)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "more than 2^32-2 triangles");
    void *p = m->tris;
    if (op_array_grow32(mesh_alloc(ctx, m), &p, &m->tri_cap, m->tri_count + 1ull,
                        3 * sizeof(uint32_t), OP_GEOM_MAX) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory at triangle %u", m->tri_count + 1);
    m->tris = p;
    uint32_t *t = m->tris + 3 * (size_t)m->tri_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
    return OP_OK;
}

void op_mesh_bounds(const op_mesh *m, float bmin[3], float bmax[3])
{
    for (int i = 0; i < 3; i++)
        bmin[i] = bmax[i] = 0.0f;
    for (uint32_t v = 0; v < m->vert_count; v++) {
        const float *p = m->verts + 3 * (size_t)v;
        for (int i = 0; i < 3; i++) {
            if (v == 0 || p[i] < bmin[i])
                bmin[i] = p[i];
            if (v == 0 || p[i] > bmax[i])
                bmax[i] = p[i];
        }
    }
}

void op_scene_init(op_scene *s) { memset(s, 0, sizeof *s); }

void op_scene_free(op_scene *s)
{
    op_mesh_free(&s->mesh);
    op_mem_free(&s->alloc, s->volumes);
    memset(s, 0, sizeof *s);
}

static const op_allocator *scene_alloc(op_ctx *ctx, op_scene *s)
{
    if (!s->volumes) {
        memset(&s->alloc, 0, sizeof s->alloc);
        if (ctx)
            s->alloc = ctx->alloc;
    }
    return &s->alloc;
}

op_status op_scene_reserve_volumes(op_ctx *ctx, op_scene *s, uint32_t volume_cap)
{
    const op_allocator *a = scene_alloc(ctx, s);
    if (volume_cap > OP_GEOM_MAX)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%u volumes: at most 2^32-2", volume_cap);
    size_t cap = s->volume_cap;
    void *p = s->volumes;
    if (op_array_reserve(a, &p, &cap, volume_cap, sizeof(op_volume)) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u volumes", volume_cap);
    s->volumes = p;
    s->volume_cap = (uint32_t)cap;
    return OP_OK;
}

op_status op_scene_add_volume(op_ctx *ctx, op_scene *s, const op_volume *v)
{
    if (v->kind == OP_VOLUME_PRISM && (v->vert_count < 3 || v->vert_count > OP_VOLUME_MAX_VERTS))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: a prism needs 3..%d vertices (got %u)",
                       s->volume_count, OP_VOLUME_MAX_VERTS, v->vert_count);
    if (!(v->ymin <= v->ymax))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: ymin > ymax or not a number",
                       s->volume_count);
    if (s->volume_count >= OP_GEOM_MAX)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "more than 2^32-2 volumes");
    void *p = s->volumes;
    if (op_array_grow32(scene_alloc(ctx, s), &p, &s->volume_cap, s->volume_count + 1ull,
                        sizeof(op_volume), OP_GEOM_MAX) != OP_OK)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory adding a volume");
    s->volumes = p;
    s->volumes[s->volume_count++] = *v;
    return OP_OK;
}
