/* Simplification's farthest point, SIMD twin of src/scalar/farthest.c (regions-contours
 * §6 step 2, supplement §9.10): VW points per step, every lane's kind and key by 32-bit
 * products (exact: coordinate differences below 2^15), the largest key per kind kept
 * per lane (a lane of another kind contributes -1), and for the pick the lanes whose
 * key is the wanted one of their kind, taken in order by the scalar tie rule. The last
 * step reads up to VW - 1 elements of padding past n (OP_FARTHEST_KEYS_FN; inside the
 * same bounds, so no lane overflows, not even in SIMDe's portable C), masked. */
#include "simd/simd_width.h"

#if OP_VEC_BITS == 512
static inline vu32 fk_mul(vu32 a, vu32 b) { return simde_mm512_mullo_epi32(a, b); }
static inline vu32 fk_gt(vu32 a, vu32 b)
{
    return simde_mm512_movm_epi32(simde_mm512_cmpgt_epi32_mask(a, b));
}
static inline vu32 fk_abs(vu32 a) { return simde_mm512_abs_epi32(a); }
static inline vu32 fk_smax(vu32 a, vu32 b) { return simde_mm512_max_epi32(a, b); }
#elif OP_VEC_BITS == 256
static inline vu32 fk_mul(vu32 a, vu32 b) { return simde_mm256_mullo_epi32(a, b); }
static inline vu32 fk_gt(vu32 a, vu32 b) { return simde_mm256_cmpgt_epi32(a, b); }
static inline vu32 fk_abs(vu32 a) { return simde_mm256_abs_epi32(a); }
static inline vu32 fk_smax(vu32 a, vu32 b) { return simde_mm256_max_epi32(a, b); }
#else
static inline vu32 fk_mul(vu32 a, vu32 b) { return simde_mm_mullo_epi32(a, b); }
static inline vu32 fk_gt(vu32 a, vu32 b) { return simde_mm_cmpgt_epi32(a, b); }
static inline vu32 fk_abs(vu32 a) { return simde_mm_abs_epi32(a); }
static inline vu32 fk_smax(vu32 a, vu32 b) { return simde_mm_max_epi32(a, b); }
#endif

typedef struct fk_seg {
    vu32 ax, az, dx, dz, len2, zero_len;
} fk_seg;

static inline fk_seg fk_seg_of(const int32_t seg[4])
{
    const int32_t dx = seg[2] - seg[0], dz = seg[3] - seg[1];
    const int32_t len2 = dx * dx + dz * dz;
    fk_seg s = {v_set1((uint32_t)seg[0]), v_set1((uint32_t)seg[1]), v_set1((uint32_t)dx),
                v_set1((uint32_t)dz), v_set1((uint32_t)len2), v_set1(len2 == 0 ? ~0u : 0u)};
    return s;
}

/* The three kind masks (all-ones lanes) and the keys of the lanes at x, z. */
OP_VINLINE void fk_step(const fk_seg *s, const int32_t *x, const int32_t *z, vu32 *m0,
                        vu32 *m1, vu32 *k0, vu32 *k1, vu32 *k2)
{
    const vu32 px = v_sub(v_load((const uint32_t *)x), s->ax);
    const vu32 pz = v_sub(v_load((const uint32_t *)z), s->az);
    const vu32 dot = v_add(fk_mul(px, s->dx), fk_mul(pz, s->dz));
    *m0 = v_or(s->zero_len, fk_gt(v_set1(0), dot));
    *m1 = v_andnot(*m0, fk_gt(dot, s->len2));
    const vu32 qx = v_sub(px, s->dx), qz = v_sub(pz, s->dz);
    *k0 = v_add(fk_mul(px, px), fk_mul(pz, pz));
    *k1 = v_add(fk_mul(qx, qx), fk_mul(qz, qz));
    *k2 = fk_abs(v_sub(fk_mul(px, s->dz), fk_mul(pz, s->dx)));
}

/* Largest signed lane. */
static inline int32_t fk_hmax(vu32 v)
{
#if OP_VEC_BITS == 512
    const simde__m256i h = simde_mm256_max_epi32(simde_mm512_extracti64x4_epi64(v, 0),
                                                 simde_mm512_extracti64x4_epi64(v, 1));
#elif OP_VEC_BITS == 256
    const simde__m256i h = v;
#endif
#if OP_VEC_BITS >= 256
    simde__m128i m = simde_mm_max_epi32(simde_mm256_castsi256_si128(h),
                                        simde_mm256_extracti128_si256(h, 1));
#else
    simde__m128i m = v;
#endif
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    m = simde_mm_max_epi32(m, simde_mm_shuffle_epi32(m, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    return simde_mm_cvtsi128_si32(m);
}

/* The lanes of a step at i that hold points (the last step's lanes past n read the
 * arrays' padding and are masked out). */
static inline vu32 fk_valid(uint32_t n, uint32_t i)
{
    return fk_gt(v_set1(n - i), v_iota());
}

void OP_FN(op_farthest_keys)(const int32_t *x, const int32_t *z, uint32_t n,
                             const int32_t seg[4], int32_t keys[3])
{
    const fk_seg s = fk_seg_of(seg);
    const vu32 ones = v_set1(~0u);
    vu32 b0 = ones, b1 = ones, b2 = ones; /* -1: none met */
    for (uint32_t i = 0; i < n; i += VW) {
        vu32 m0, m1, k0, k1, k2;
        fk_step(&s, x + i, z + i, &m0, &m1, &k0, &k1, &k2);
        const vu32 out = v_andnot(fk_valid(n, i), ones); /* lanes past n: -1 */
        /* a lane of another kind gives -1 (all ones) too */
        b0 = fk_smax(b0, v_or(v_or(k0, out), v_andnot(m0, ones)));
        b1 = fk_smax(b1, v_or(v_or(k1, out), v_andnot(m1, ones)));
        b2 = fk_smax(b2, v_or(v_or(k2, out), v_or(m0, m1)));
    }
    keys[0] = fk_hmax(b0);
    keys[1] = fk_hmax(b1);
    keys[2] = fk_hmax(b2);
    op_simd_leave();
}

uint32_t OP_FN(op_farthest_pick)(const int32_t *x, const int32_t *z, uint32_t n,
                                 const int32_t seg[4], const int32_t want[3])
{
    const fk_seg s = fk_seg_of(seg);
    const vu32 w0 = v_set1((uint32_t)want[0]), w1 = v_set1((uint32_t)want[1]),
               w2 = v_set1((uint32_t)want[2]);
    uint32_t best = n;
    for (uint32_t i = 0; i < n; i += VW) {
        vu32 m0, m1, k0, k1, k2;
        fk_step(&s, x + i, z + i, &m0, &m1, &k0, &k1, &k2);
        /* keys are >= 0: a kind not wanted (-1) matches nothing */
        const vu32 hit = v_and(fk_valid(n, i),
                               v_or(v_and(m0, v_eq(k0, w0)),
                                    v_or(v_and(m1, v_eq(k1, w1)),
                                         v_andnot(v_or(m0, m1), v_eq(k2, w2)))));
        for (uint32_t bits = v_nz(hit); bits; bits &= bits - 1) {
            const uint32_t j = i + (uint32_t)__builtin_ctz(bits);
            if (best == n || x[j] < x[best] || (x[j] == x[best] && z[j] < z[best]))
                best = j;
        }
    }
    op_simd_leave();
    return best;
}
