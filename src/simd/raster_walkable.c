/* Walkable triangles (supplement §1.2), SIMD twin of src/scalar/raster_walkable.c: eight
 * triangles a step, one per lane, each lane the scalar twin's binary32 operations in its
 * order (the edges, the cross product, (n0² + n1²) + n2², the square root, 1 / len, the
 * product; sqrtps and divps round as sqrtf and the division do), so each lane's area is
 * the scalar twin's. A step with an index past nv − 2 goes to the scalar twin (the
 * vertex loads read four floats). Variants of 256-bit vectors and more only. */
#include "simd/simd_width.h"
#include "onepath/spans.h"

OP_MARK_WALKABLE_FN(OP_FN(op_mark_walkable));

#if OP_VEC_BITS >= 256

#include "simd/raster_verts8.h"

typedef simde__m256 vf;

OP_MARK_WALKABLE_FN(OP_FN(op_mark_walkable))
{
    uint32_t i = 0;
    if (nv >= 2) {
        const vf zero = simde_mm256_setzero_ps(), vthr = simde_mm256_set1_ps(thr);
        const vf one = simde_mm256_set1_ps(1.0f);
        const simde__m256i walk = simde_mm256_set1_epi32((int32_t)OP_WALKABLE_AREA);
        for (; i + 8 <= n; i += 8) {
            const uint32_t *t = tris + 3 * (size_t)i;
            if (!rv_indices_ok(t, nv)) {
                op_mark_walkable_scalar(verts, nv, t, 8, thr, areas + i);
                continue;
            }
            vf x0, y0, z0, x1, y1, z1, x2, y2, z2;
            rv_vertex(verts, t, 0, &x0, &y0, &z0);
            rv_vertex(verts, t, 1, &x1, &y1, &z1);
            rv_vertex(verts, t, 2, &x2, &y2, &z2);
            const vf e0x = simde_mm256_sub_ps(x1, x0), e0y = simde_mm256_sub_ps(y1, y0),
                     e0z = simde_mm256_sub_ps(z1, z0);
            const vf e1x = simde_mm256_sub_ps(x2, x0), e1y = simde_mm256_sub_ps(y2, y0),
                     e1z = simde_mm256_sub_ps(z2, z0);
            const vf n0 = simde_mm256_sub_ps(simde_mm256_mul_ps(e0y, e1z),
                                             simde_mm256_mul_ps(e0z, e1y));
            const vf n1 = simde_mm256_sub_ps(simde_mm256_mul_ps(e0z, e1x),
                                             simde_mm256_mul_ps(e0x, e1z));
            const vf n2 = simde_mm256_sub_ps(simde_mm256_mul_ps(e0x, e1y),
                                             simde_mm256_mul_ps(e0y, e1x));
            const vf sq = simde_mm256_add_ps(
                simde_mm256_add_ps(simde_mm256_mul_ps(n0, n0), simde_mm256_mul_ps(n1, n1)),
                simde_mm256_mul_ps(n2, n2));
            const vf len = simde_mm256_sqrt_ps(sq);
            /* Lanes of len 0 (or NaN) fail the first test, whatever ny is there. */
            const vf ny = simde_mm256_mul_ps(n1, simde_mm256_div_ps(one, len));
            const vf ok = simde_mm256_and_ps(simde_mm256_cmp_ps(len, zero, SIMDE_CMP_GT_OQ),
                                             simde_mm256_cmp_ps(ny, vthr, SIMDE_CMP_GT_OQ));
            const simde__m256i a = simde_mm256_and_si256(simde_mm256_castps_si256(ok), walk);
            const simde__m128i a16 = simde_mm_packs_epi32(simde_mm256_castsi256_si128(a),
                                                          simde_mm256_extracti128_si256(a, 1));
            simde_mm_storel_epi64((void *)(areas + i), simde_mm_packus_epi16(a16, a16));
        }
    }
    op_mark_walkable_scalar(verts, nv, tris + 3 * (size_t)i, n - i, thr, areas + i);
}

#endif
