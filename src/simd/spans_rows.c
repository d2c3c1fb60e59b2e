/* Row kernels of the spans stage, SIMD twins of src/scalar/spans_rows.c: the ledge
 * filter (supplement §1.4.2) and the link rule (§1.5).
 *
 * Most of an open world is one span per column. Where VW consecutive cells and their
 * neighbours all hold one span, the spans of a row run are consecutive, and so are
 * those of the rows above and below: every neighbour is one unaligned vector load away,
 * and the tests of the scalar twin run on VW cells at once in 32-bit lanes (the same
 * integer comparisons: a span alone in its column has ceiling 0xffff, and so has its
 * neighbour). Any other cell goes through the scalar twin's code, one at a time. */
#include "simd/simd_width.h"
#include "spans/spans_internal.h"

void OP_FN(op_ledge_row)(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                         int32_t walkable_height, int32_t walkable_climb);
void OP_FN(op_link_row)(op_chf *chf, uint32_t z);

/* u16 lanes widened to u32, signed 32-bit compares and min/max. */
#if OP_VEC_BITS == 512
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
#if defined(SIMDE_X86_AVX512F_NATIVE)
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
#else
    const simde__m256i lo = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
    const simde__m256i hi = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)(p + 8)));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
#endif
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm512_movm_epi32(simde_mm512_cmpgt_epi32_mask(a, b)); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm512_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm512_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m) { return simde_mm512_movepi32_mask(m) == 0xffff; }
#elif OP_VEC_BITS == 256
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
    return simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm256_cmpgt_epi32(a, b); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm256_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm256_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m)
{
    return simde_mm256_movemask_ps(simde_mm256_castsi256_ps(m)) == 0xff;
}
#else
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
    return simde_mm_cvtepu16_epi32(simde_mm_loadl_epi64((const void *)p));
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm_cmpgt_epi32(a, b); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m) { return simde_mm_movemask_ps(simde_mm_castsi128_ps(m)) == 0xf; }
#endif

/* Lanes where x == 1. */
OP_VINLINE vu32 v_one(const uint32_t *p) { return v_eq(v_load(p), v_set1(1)); }

/* ---- Ledges ---------------------------------------------------------------------------- */

void OP_FN(op_ledge_row)(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                         int32_t wh, int32_t climb)
{
    const uint32_t w = hf->width;
    const uint32_t *first = hf->first, *count = hf->count;
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    uint8_t *area = hf->area;
    const vu32 iota = v_iota(), top = v_set1(OP_HF_MAX_HEIGHT);
    const vu32 whm1 = v_set1((uint32_t)(wh - 1)), vclimb = v_set1((uint32_t)climb);
    const vu32 nclimb = v_set1((uint32_t)-climb);
    uint32_t x = x0;
    while (x < x1) {
        const size_t c = (size_t)x + (size_t)z * w;
        if (x1 - x >= VW) {
            /* One span per cell in the run, its two ends' neighbours and the rows above
             * and below, and those spans consecutive (a packed field has that). */
            const uint32_t s = first[c], su = first[c + w], sd = first[c - w];
            const vu32 one = v_and(v_and(v_one(count + c), v_one(count + c - 1)),
                                   v_and(v_one(count + c + 1),
                                         v_and(v_one(count + c + w), v_one(count + c - w))));
            const vu32 seq = v_and(
                v_and(v_eq(v_load(first + c), v_add(v_set1(s), iota)),
                      v_eq(v_load(first + c - 1), v_add(v_set1(s - 1), iota))),
                v_and(v_eq(v_load(first + c + 1), v_add(v_set1(s + 1), iota)),
                      v_and(v_eq(v_load(first + c + w), v_add(v_set1(su), iota)),
                            v_eq(v_load(first + c - w), v_add(v_set1(sd), iota)))));
            if (v_all(v_and(one, seq))) {
                const vu32 f = v_load_u16(smax + s);
                const uint32_t nb[4] = {s - 1, su, s + 1, sd};
                vu32 ledge = v_set1(0), amin = f, amax = f;
                for (int d = 0; d < 4; d++) {
                    const vu32 nf = v_load_u16(smax + nb[d]), low = v_load_u16(smin + nb[d]);
                    /* Drop into empty space: min(0xffff, low) - f >= wh. */
                    ledge = v_or(ledge, v_gt(v_sub(low, f), whm1));
                    /* Passable: min(0xffff, 0xffff) - max(f, nf) >= wh. */
                    const vu32 pass = v_gt(v_sub(top, v_smax(f, nf)), whm1);
                    const vu32 dy = v_sub(nf, f);
                    ledge = v_or(ledge, v_and(pass, v_gt(nclimb, dy)));
                    const vu32 near = v_andnot(v_or(v_gt(dy, vclimb), v_gt(nclimb, dy)), pass);
                    amin = v_select(near, amin, v_smin(amin, nf));
                    amax = v_select(near, amax, v_smax(amax, nf));
                }
                ledge = v_or(ledge, v_gt(v_sub(amax, amin), vclimb));
                v_store_u8(area + s, v_andnot(ledge, v_load_u8(area + s)));
                x += VW;
                continue;
            }
        }
        op_ledge_cells(hf, z, x, x + 1, wh, climb);
        x++;
    }
    op_simd_leave();
}

/* ---- Links ------------------------------------------------------------------------------ */

void OP_FN(op_link_row)(op_chf *chf, uint32_t z)
{
    const uint32_t w = chf->width, dpt = chf->depth;
    if (z == 0 || z + 1 >= dpt || w < 3) {
        op_link_cells(chf, z, 0, w);
        return;
    }
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    const uint32_t *cf = chf->cell_first, *cc = chf->cell_count;
    const uint16_t *Y = chf->y, *H = chf->h;
    const vu32 iota = v_iota(), whm1 = v_set1((uint32_t)(wh - 1)), vwc = v_set1((uint32_t)wc);
    const vu32 nwc = v_set1((uint32_t)-wc), none = v_set1(OP_NO_LINK);
    op_link_cells(chf, z, 0, 1); /* the first cell: -x is off the grid */
    uint32_t x = 1;
    while (x < w - 1) {
        const size_t c = (size_t)x + (size_t)z * w;
        if (w - 1 - x >= VW) {
            /* cell_first is a prefix sum: cells of one span each have consecutive spans. */
            const vu32 one = v_and(v_and(v_one(cc + c), v_one(cc + c - 1)),
                                   v_and(v_one(cc + c + 1),
                                         v_and(v_one(cc + c + w), v_one(cc + c - w))));
            if (v_all(one)) {
                const uint32_t s = cf[c];
                const vu32 sy = v_load_u16(Y + s), stop = v_add(sy, v_load_u16(H + s));
                const uint32_t nb[4] = {s - 1, cf[c + w], s + 1, cf[c - w]};
                for (int d = 0; d < 4; d++) {
                    const vu32 ty = v_load_u16(Y + nb[d]);
                    const vu32 ttop = v_add(ty, v_load_u16(H + nb[d]));
                    const vu32 gap = v_sub(v_smin(stop, ttop), v_smax(sy, ty));
                    const vu32 dy = v_sub(ty, sy);
                    const vu32 ok = v_andnot(v_or(v_gt(dy, vwc), v_gt(nwc, dy)), v_gt(gap, whm1));
                    v_store(chf->link[d] + s, v_select(ok, none, v_add(v_set1(nb[d]), iota)));
                }
                x += VW;
                continue;
            }
        }
        op_link_cells(chf, z, x, x + 1);
        x++;
    }
    op_link_cells(chf, z, w - 1, w); /* the last cell: +x is off the grid */
    op_simd_leave();
}
