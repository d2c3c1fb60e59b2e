/* onepath — input geometry: triangle soups and area volumes (supplement §1.2, §1.7). */
#ifndef ONEPATH_GEOMETRY_H
#define ONEPATH_GEOMETRY_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct op_mesh {
    float *verts;        /* x, y, z per vertex, world units */
    uint32_t vert_count, vert_cap;
    uint32_t *tris;      /* three vertex indices per triangle, counter-clockwise seen from above = up-facing */
    uint32_t tri_count, tri_cap;
} op_mesh;

void op_mesh_init(op_mesh *m);
void op_mesh_free(op_mesh *m);
/* Appends; OP_NO_MEMORY or OP_INVALID_ARGUMENT (non-finite coordinate, index out of
 * range, more than 2^32-2 elements) with a message. */
op_status op_mesh_add_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z);
op_status op_mesh_add_triangle(op_ctx *ctx, op_mesh *m, uint32_t a, uint32_t b, uint32_t c);
/* Bounds of all vertices; zeros for an empty mesh. */
void op_mesh_bounds(const op_mesh *m, float bmin[3], float bmax[3]);

typedef enum op_volume_kind {
    OP_VOLUME_PRISM = 0,    /* convex polygon in xz, y in [ymin, ymax] */
    OP_VOLUME_BOX = 1,      /* axis-aligned box */
    OP_VOLUME_CYLINDER = 2  /* vertical cylinder */
} op_volume_kind;

#define OP_VOLUME_MAX_VERTS 32

/* An area volume (supplement §1.7), world units. area 0 marks an obstacle. */
typedef struct op_volume {
    op_volume_kind kind;
    uint8_t area;
    float ymin, ymax;
    uint32_t vert_count;                  /* prism */
    float verts[2 * OP_VOLUME_MAX_VERTS]; /* prism: x, z pairs, convex */
    float box_min[2], box_max[2];         /* box: x, z */
    float center[2], radius;              /* cylinder: x, z and radius */
} op_volume;

/* What the spans stage consumes: triangles plus volumes applied in order. */
typedef struct op_scene {
    op_mesh mesh;
    op_volume *volumes;
    uint32_t volume_count, volume_cap;
} op_scene;

void op_scene_init(op_scene *s);
void op_scene_free(op_scene *s);
op_status op_scene_add_volume(op_ctx *ctx, op_scene *s, const op_volume *v);

#ifdef __cplusplus
}
#endif
#endif
