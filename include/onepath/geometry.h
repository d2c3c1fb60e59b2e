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
    op_allocator alloc;  /* the arrays' allocator: taken from the ctx of the first
                            call that allocates, kept until op_mesh_free */
} op_mesh;

/* Zeroes m. A zeroed mesh holds nothing and frees harmlessly. */
void op_mesh_init(op_mesh *m);
/* Frees with the mesh's own allocator and zeroes m. */
void op_mesh_free(op_mesh *m);
/* Appends; OP_NO_MEMORY or OP_INVALID_ARGUMENT (non-finite coordinate, index out of
 * range, more than 2^32-2 elements) with a message. A mesh that holds no arrays yet
 * takes ctx's allocator; one that does grows with its own. */
op_status op_mesh_add_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z);
op_status op_mesh_add_triangle(op_ctx *ctx, op_mesh *m, uint32_t a, uint32_t b, uint32_t c);
/* Room for at least vert_cap vertices and tri_cap triangles, exactly (no doubling), so
 * a caller that knows the size allocates once. Same allocator rule as above. */
op_status op_mesh_reserve(op_ctx *ctx, op_mesh *m, uint32_t vert_cap, uint32_t tri_cap);
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
    op_allocator alloc; /* the volumes' allocator (the mesh keeps its own), as op_mesh */
} op_scene;

void op_scene_init(op_scene *s);
void op_scene_free(op_scene *s);
/* Appends a volume (OP_INVALID_ARGUMENT for a bad prism or y range). Allocator rule as
 * op_mesh_add_vertex. */
op_status op_scene_add_volume(op_ctx *ctx, op_scene *s, const op_volume *v);
/* Room for at least volume_cap volumes, exactly. */
op_status op_scene_reserve_volumes(op_ctx *ctx, op_scene *s, uint32_t volume_cap);

#ifdef __cplusplus
}
#endif
#endif
