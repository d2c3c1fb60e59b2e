/* Internal pieces of the demo world (include/onepath/demo.h), shared by demo_world.c
 * (terrain, driver) and op_demo_village.c (structures, volumes).
 *
 * Integer units throughout: x and z in quarter cells ("q", cs/4 = 0.075 wu at the
 * default cs), y in millimetres. A coordinate becomes binary32 by one int→float
 * conversion (exact, |value| < 2^24) and one multiplication, so every platform with
 * IEEE binary32 and no contraction gets the same bits (supplement §1.3, §5). */
#ifndef ONEPATH_DEMO_INTERNAL_H
#define ONEPATH_DEMO_INTERNAL_H

#include "onepath/demo.h"

typedef struct demo_builder {
    op_ctx *ctx;
    op_scene *scene;
    float qs; /* one quarter cell [wu] */
    float ms; /* one millimetre [wu] */
} demo_builder;

/* A point: x, z in quarter cells, y in millimetres. */
typedef struct demo_pt {
    int32_t x, y, z;
} demo_pt;

/* Village layout, in cells local to the 256-cell block. Structures stay inside the
 * flat core [DEMO_CORE_LO, DEMO_CORE_HI); the terrain blends into it over a band. */
#define DEMO_CORE_LO 32
#define DEMO_CORE_HI 224
#define DEMO_BLEND_LO 8 /* blend weight 0 up to this distance from the block edge */
#define DEMO_POND_U 164
#define DEMO_POND_V 186
#define DEMO_POND_R 24          /* cells */
#define DEMO_POND_DEPTH_MM 1500 /* paraboloid, 23° at the rim */

/* 32-bit integer hash (lowbias32 finaliser over a linear mix). */
uint32_t op_demo_hash(uint32_t x, uint32_t z, uint32_t seed);
/* cos(2π·i/64) · 65536, rounded, from a fixed table (no libm, supplement §5). */
int32_t op_demo_cos_q16(uint32_t i);
static inline int32_t demo_sin_q16(uint32_t i) { return op_demo_cos_q16(i + 48u); }
/* round(v / 65536), halves away from zero, without right-shifting a negative value. */
static inline int32_t demo_round_q16(int64_t v)
{
    return v >= 0 ? (int32_t)((v + 32768) >> 16) : -(int32_t)((-v + 32768) >> 16);
}

/* Appends one triangle with three fresh vertices. want > 0: oriented up-facing
 * (counter-clockwise seen from above, geometry.h), want < 0: down-facing, 0: as given
 * (vertical faces). The orientation test is exact integer arithmetic. */
op_status op_demo_tri(demo_builder *b, demo_pt p0, demo_pt p1, demo_pt p2, int want);

/* Appends the structures and volumes of block (bx, bz), whose plateau is at base_mm. */
op_status op_demo_village(demo_builder *b, uint32_t bx, uint32_t bz, int32_t base_mm);

#endif
