/* The previous solid heightfield and rasterizer (a495c93 .. the banded rasterizer):
 * per column a linked list in a pool, every triangle clipped and merged in input order
 * through ref_heightfield_add_span. The tests compare the banded rasterizer with it span
 * for span; it is not part of the library. */
#ifndef ONEPATH_TEST_REF_RASTER_H
#define ONEPATH_TEST_REF_RASTER_H

#include "onepath/onepath.h"

#define REF_HF_NONE 0xffffffffu

typedef struct ref_heightfield {
    uint32_t width, depth;
    float bmin[3], bmax[3];
    float cs, ch;
    int32_t origin_x, origin_z;
    uint32_t world_width, world_depth;
    uint32_t *head;
    uint16_t *smin, *smax;
    uint8_t *area;
    uint32_t *next;
    uint32_t pool_used, pool_cap, free_head;
    uint64_t span_count;
} ref_heightfield;

op_status ref_heightfield_init(op_ctx *ctx, ref_heightfield *hf, uint32_t width, uint32_t depth,
                               const float bmin[3], const float bmax[3], float cs, float ch);
void ref_heightfield_free(ref_heightfield *hf);
op_status ref_heightfield_set_window(op_ctx *ctx, ref_heightfield *hf, int32_t origin_x,
                                     int32_t origin_z, uint32_t world_width,
                                     uint32_t world_depth);
op_status ref_heightfield_add_span(op_ctx *ctx, ref_heightfield *hf, uint32_t x, uint32_t z,
                                   uint16_t smin, uint16_t smax, uint8_t area,
                                   int walkable_climb);
uint64_t ref_heightfield_span_count(const ref_heightfield *hf);
uint32_t ref_heightfield_column_count(const ref_heightfield *hf, uint32_t x, uint32_t z);
op_status ref_rasterize_triangles(op_ctx *ctx, ref_heightfield *hf, const op_mesh *mesh,
                                  const uint8_t *tri_areas, int walkable_climb);
op_status ref_rasterize_triangle_list(op_ctx *ctx, ref_heightfield *hf, const op_mesh *mesh,
                                      const uint8_t *tri_areas, const uint32_t *list,
                                      uint32_t count, int walkable_climb);

#endif
