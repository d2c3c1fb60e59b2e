/* Many triangles' rows (supplement §1.3), SIMD twin of src/scalar/raster_rows.c: eight
 * triangles a step, one per lane. Every lane runs the scalar twin's binary32 operations
 * on the same operands (op_clip_rows_of: Recast's min/max order, whose minps/maxps are
 * the same selects, (lo − bmin.z) · ics, op_clip_trunc_clamp's tests), so each lane's
 * rows are the scalar twin's. A step whose triangles have an index at or past the last
 * vertex, or a coordinate that is not finite, is handed to the scalar twin (it finds the
 * first bad one; the last vertex is read there because the vector loads read four
 * floats from a vertex). Variants of 256-bit vectors and more only; the others keep the
 * scalar twin in the slot. */
#include "simd/simd_width.h"
#include "spans/raster_clip.h"

OP_CLIP_ROWS_MANY_FN(OP_FN(op_clip_rows_many));

#if OP_VEC_BITS >= 256

#include "simd/raster_verts8.h"

typedef simde__m256 vf;
typedef simde__m256i vi;

/* The lanes whose exponent is all ones carry into bit 31 (the scalar twin's test). */
OP_VINLINE vi rr_inf(vi acc, vf v)
{
    const vi e = simde_mm256_and_si256(simde_mm256_castps_si256(v),
                                       simde_mm256_set1_epi32(0x7f800000));
    return simde_mm256_or_si256(acc, simde_mm256_add_epi32(e, simde_mm256_set1_epi32(0x00800000)));
}

/* op_clip_trunc_clamp(f, lo, hi) in every lane. */
OP_VINLINE vi rr_trunc_clamp(vf f, int lo, int hi)
{
    const vf gt = simde_mm256_cmp_ps(f, simde_mm256_set1_ps((float)lo), SIMDE_CMP_GT_OQ);
    const vf lt = simde_mm256_cmp_ps(f, simde_mm256_set1_ps((float)hi), SIMDE_CMP_LT_OQ);
    const vi loi = simde_mm256_set1_epi32(lo), hii = simde_mm256_set1_epi32(hi);
    /* Lanes outside (lo, hi) convert to anything: they are replaced below. */
    vi v = simde_mm256_cvttps_epi32(f);
    v = simde_mm256_min_epi32(simde_mm256_max_epi32(v, loi), hii);
    v = simde_mm256_blendv_epi8(hii, v, simde_mm256_castps_si256(lt));
    return simde_mm256_blendv_epi8(loi, v, simde_mm256_castps_si256(gt));
}

OP_CLIP_ROWS_MANY_FN(OP_FN(op_clip_rows_many))
{
    if (nv < 2)
        return op_clip_rows_many_scalar(g, bmax, verts, nv, tris, n, rows);
    const vf bmin0 = simde_mm256_set1_ps(g->bmin[0]), bmin1 = simde_mm256_set1_ps(g->bmin[1]),
             bmin2 = simde_mm256_set1_ps(g->bmin[2]);
    const vf bmax0 = simde_mm256_set1_ps(bmax[0]), bmax1 = simde_mm256_set1_ps(bmax[1]),
             bmax2 = simde_mm256_set1_ps(bmax[2]);
    const vf ics = simde_mm256_set1_ps(g->ics);
    uint32_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const uint32_t *t = tris + 3 * (size_t)k;
        /* Every index <= nv - 2 (unsigned), else the scalar twin takes the step. */
        vf x0, y0, z0v, x1, y1, z1v, x2, y2, z2v;
        int vec = rv_indices_ok(t, nv);
        if (vec) {
            rv_vertex(verts, t, 0, &x0, &y0, &z0v);
            rv_vertex(verts, t, 1, &x1, &y1, &z1v);
            rv_vertex(verts, t, 2, &x2, &y2, &z2v);
            vi inf = rr_inf(rr_inf(rr_inf(simde_mm256_setzero_si256(), x0), y0), z0v);
            inf = rr_inf(rr_inf(rr_inf(inf, x1), y1), z1v);
            inf = rr_inf(rr_inf(rr_inf(inf, x2), y2), z2v);
            vec = !simde_mm256_movemask_ps(simde_mm256_castsi256_ps(inf));
        }
        if (!vec) {
            const uint32_t d =
                op_clip_rows_many_scalar(g, bmax, verts, nv, t, 8, rows + 2 * (size_t)k);
            if (d < 8)
                return k + d;
            continue;
        }
        {
            /* op_clip_rows_of: lo = v0 < v1 ? v0 : v1, then lo < v2 ? lo : v2 (minps),
             * hi likewise (maxps); outside when lo > bmax or hi < bmin on any axis. */
            const vf lox = simde_mm256_min_ps(simde_mm256_min_ps(x0, x1), x2);
            const vf hix = simde_mm256_max_ps(simde_mm256_max_ps(x0, x1), x2);
            const vf loy = simde_mm256_min_ps(simde_mm256_min_ps(y0, y1), y2);
            const vf hiy = simde_mm256_max_ps(simde_mm256_max_ps(y0, y1), y2);
            const vf loz = simde_mm256_min_ps(simde_mm256_min_ps(z0v, z1v), z2v);
            const vf hiz = simde_mm256_max_ps(simde_mm256_max_ps(z0v, z1v), z2v);
            vf out = simde_mm256_or_ps(simde_mm256_cmp_ps(lox, bmax0, SIMDE_CMP_GT_OQ),
                                       simde_mm256_cmp_ps(hix, bmin0, SIMDE_CMP_LT_OQ));
            out = simde_mm256_or_ps(out, simde_mm256_cmp_ps(loy, bmax1, SIMDE_CMP_GT_OQ));
            out = simde_mm256_or_ps(out, simde_mm256_cmp_ps(hiy, bmin1, SIMDE_CMP_LT_OQ));
            out = simde_mm256_or_ps(out, simde_mm256_cmp_ps(loz, bmax2, SIMDE_CMP_GT_OQ));
            out = simde_mm256_or_ps(out, simde_mm256_cmp_ps(hiz, bmin2, SIMDE_CMP_LT_OQ));
            const vf f0 = simde_mm256_mul_ps(simde_mm256_sub_ps(loz, bmin2), ics);
            const vf f1 = simde_mm256_mul_ps(simde_mm256_sub_ps(hiz, bmin2), ics);
            vi z0 = rr_trunc_clamp(f0, -1, g->h - 1);
            vi z1 = rr_trunc_clamp(f1, 0, g->h - 1);
            /* Outside the box: none (1, 0). */
            const vi o = simde_mm256_castps_si256(out);
            z0 = simde_mm256_blendv_epi8(z0, simde_mm256_set1_epi32(1), o);
            z1 = simde_mm256_andnot_si256(o, z1);
            const vi lo = simde_mm256_unpacklo_epi32(z0, z1); /* rows of lanes 0 1 | 4 5 */
            const vi hi = simde_mm256_unpackhi_epi32(z0, z1); /* lanes 2 3 | 6 7 */
            simde_mm256_storeu_si256((void *)(rows + 2 * (size_t)k),
                                     simde_mm256_permute2x128_si256(lo, hi, 0x20));
            simde_mm256_storeu_si256((void *)(rows + 2 * (size_t)k + 8),
                                     simde_mm256_permute2x128_si256(lo, hi, 0x31));
        }
    }
    const uint32_t d = op_clip_rows_many_scalar(g, bmax, verts, nv, tris + 3 * (size_t)k, n - k,
                                                rows + 2 * (size_t)k);
    return k + d;
}

#endif
