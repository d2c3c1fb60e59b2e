/* Triangle soups and volumes (supplement §1.2, §1.7). */
#include "onepath/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void op_mesh_init(op_mesh *m) { memset(m, 0, sizeof *m); }

void op_mesh_free(op_mesh *m)
{
    free(m->verts);
    free(m->tris);
    memset(m, 0, sizeof *m);
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > 0xfffffffeull)
        ncap = 0xfffffffeull;
    if ((uint64_t)SIZE_MAX / elem < ncap)
        return 0;
    void *n = realloc(*p, (size_t)ncap * elem);
    if (!n)
        return 0;
    *p = n;
    *cap = (uint32_t)ncap;
    return 1;
}

op_status op_mesh_add_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(z))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "vertex %u has a non-finite coordinate",
                       m->vert_count + 1);
    if (m->vert_count >= 0xfffffffeu)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "more than 2^32-2 vertices");
    void *p = m->verts;
    if (!grow(&p, &m->vert_cap, m->vert_count + 1, 3 * sizeof(float)))
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
    if (!grow(&p, &m->tri_cap, m->tri_count + 1, 3 * sizeof(uint32_t)))
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
    free(s->volumes);
    memset(s, 0, sizeof *s);
}

op_status op_scene_add_volume(op_ctx *ctx, op_scene *s, const op_volume *v)
{
    if (v->kind == OP_VOLUME_PRISM && (v->vert_count < 3 || v->vert_count > OP_VOLUME_MAX_VERTS))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: a prism needs 3..%d vertices (got %u)",
                       s->volume_count, OP_VOLUME_MAX_VERTS, v->vert_count);
    if (!(v->ymin <= v->ymax))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: ymin > ymax or not a number",
                       s->volume_count);
    void *p = s->volumes;
    if (!grow(&p, &s->volume_cap, s->volume_count + 1, sizeof(op_volume)))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory adding a volume");
    s->volumes = p;
    s->volumes[s->volume_count++] = *v;
    return OP_OK;
}
