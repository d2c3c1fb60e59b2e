/* Eight triangles' vertices in lanes (the rasterizer's per-triangle kernels,
 * raster_rows.c and raster_walkable.c): vertex q of triangles t[0..23] (three indices
 * each) as x, y, z vectors, lane l = triangle l. Each vertex is one 128-bit load of four
 * floats (its x, y, z and the next one's x), so every index must be at most nv - 2 (the
 * callers check, and hand the step to the scalar twin otherwise); vertices l and l + 4
 * share a 256-bit register, then a 4 x 4 transpose in each half. Include after
 * simd/simd_width.h with OP_VEC_BITS >= 256. */
#ifndef OP_SIMD_RASTER_VERTS8_H
#define OP_SIMD_RASTER_VERTS8_H

#include <simde/x86/avx2.h>

/* Nonzero when every one of the 24 indices at t is at most nv - 2 (nv >= 2). */
OP_VINLINE int rv_indices_ok(const uint32_t *t, uint32_t nv)
{
    const simde__m256i last = simde_mm256_set1_epi32((int32_t)(nv - 2));
    const simde__m256i i0 = simde_mm256_loadu_si256((const void *)t);
    const simde__m256i i1 = simde_mm256_loadu_si256((const void *)(t + 8));
    const simde__m256i i2 = simde_mm256_loadu_si256((const void *)(t + 16));
    const simde__m256i imax = simde_mm256_max_epu32(simde_mm256_max_epu32(i0, i1), i2);
    const simde__m256i in = simde_mm256_cmpeq_epi32(simde_mm256_max_epu32(imax, last), last);
    return (uint32_t)simde_mm256_movemask_epi8(in) == 0xffffffffu;
}

OP_VINLINE void rv_vertex(const float *verts, const uint32_t *t, int q, simde__m256 *x,
                          simde__m256 *y, simde__m256 *z)
{
#define RV_PAIR(l)                                                                         \
    simde_mm256_loadu2_m128(verts + 3 * (size_t)t[3 * ((l) + 4) + q],                       \
                            verts + 3 * (size_t)t[3 * (l) + q])
    const simde__m256 r0 = RV_PAIR(0), r1 = RV_PAIR(1), r2 = RV_PAIR(2), r3 = RV_PAIR(3);
#undef RV_PAIR
    const simde__m256 t0 = simde_mm256_unpacklo_ps(r0, r1); /* x0 x1 y0 y1 */
    const simde__m256 t1 = simde_mm256_unpacklo_ps(r2, r3); /* x2 x3 y2 y3 */
    const simde__m256 t2 = simde_mm256_unpackhi_ps(r0, r1); /* z0 z1 .. */
    const simde__m256 t3 = simde_mm256_unpackhi_ps(r2, r3); /* z2 z3 .. */
    *x = simde_mm256_shuffle_ps(t0, t1, 0x44);
    *y = simde_mm256_shuffle_ps(t0, t1, 0xee);
    *z = simde_mm256_shuffle_ps(t2, t3, 0x44);
}

#endif
