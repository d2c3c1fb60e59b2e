/* checkasm-style identity test of the triangle clip family (supplement §1.3,
 * spans/raster_clip.h): for every variant this machine runs, the variant and the scalar
 * twin clip the same triangles, band by band (the state carried from call to call), and
 * must append the same pieces in the same order and fail at the same row or column.
 * The output buffer is pre-filled with different sentinels around the payload, and the
 * guards are compared. Inputs: random triangles (vertices on cut planes, just past them,
 * anywhere), small ones, slivers, degenerate ones, huge and far ones (beyond 2^120 the
 * SIMD twin hands over to the scalar one), windows with replayed rows and columns,
 * states of up to 12 vertices carried from the scalar twin, and grids binary32 cannot
 * resolve (clip overflow); column pieces at the edges of the height range and past the
 * 16-bit clamps. The walkable marking (raster.walkable) likewise, with triangles whose ny
 * sits one ulp from the threshold, so that a SIMD twin in another order fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "onepath/spans.h"
#include "util/testutil.h"
#include "util/variants.h"

#define CAP 20000
#define GUARD 32

static op_isa variants[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT];
static unsigned long pieces_seen, failures_seen, big_states;

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, NULL);
    return 0;
}

/* The raster kernels of variant vi (vi < 0: the scalar twins); returns its name. */
static const char *raster_variant(int vi, op_raster_kernels *out)
{
    op_kernels kt;
    if (vi < 0)
        op_kernels_init(&kt, OP_ISA_SCALAR, 0);
    else
        op_kernels_init(&kt, variants[vi], op_isa_flags(variants[vi]));
    *out = kt.raster;
    return vi < 0 ? "scalar" : op_isa_name(variants[vi]);
}

static float frand(op_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(op_rng_next(r) >> 40) / (float)(1u << 24);
}

typedef struct job {
    op_clip_grid g;
    float bmax[3];
    float v[9];
    int z_emit, x_lo, x_hi, z_hi;
    int band; /* rows per call */
} job;

/* Runs one triangle through clip in bands of j->band rows; pieces appended to out
 * (capacity CAP, guards around); returns the count, or -1 with *fail. pre_rows > 0: the
 * scalar twin does the first rows, so the state handed over may have many vertices. */
static int run(const job *j, op_clip_rows_fn clip, op_piece *out, op_clip_fail *fail,
               int pre_rows)
{
    op_clip_state st;
    if (!op_clip_start(&j->g, j->bmax, j->v, j->v + 3, j->v + 6, &st))
        return 0;
    int np = 0;
    int z = st.z;
    if (pre_rows > 0) {
        const int k = op_clip_rows_scalar(&j->g, &st, st.z + pre_rows - 1, j->z_emit, j->x_lo,
                                          j->x_hi, out, fail);
        if (k < 0)
            return -1;
        np += k;
        z = st.z;
        if (st.n > 4)
            big_states++;
    }
    while (st.z <= st.z1 && z <= j->z_hi) {
        const int stop = z + j->band - 1 < j->z_hi ? z + j->band - 1 : j->z_hi;
        const int k = clip(&j->g, &st, stop, j->z_emit, j->x_lo, j->x_hi, out + np, fail);
        if (k < 0)
            return -1;
        np += k;
        assert_true(np <= CAP);
        z = stop + 1;
    }
    return np;
}

static void compare_job(const job *j, uint64_t seed, int pre_rows)
{
    static op_piece ref[CAP + 2 * GUARD], got[CAP + 2 * GUARD];
    memset(ref, 0xA5, sizeof ref);
    op_clip_fail fr = {-1, -1};
    const int nr = run(j, op_clip_rows_scalar, ref + GUARD, &fr, pre_rows);
    if (nr < 0)
        failures_seen++;
    else
        pieces_seen += (unsigned long)nr;
    for (int vi = 0; vi < variant_count; vi++) {
        op_kernels kt;
        op_kernels_init(&kt, variants[vi], op_isa_flags(variants[vi]));
        const op_kernels *k = &kt;
        memset(got, 0x5A, sizeof got);
        op_clip_fail fg = {-2, -2};
        const int ng = run(j, k->raster.clip_rows, got + GUARD, &fg, pre_rows);
        compared[variants[vi]]++;
        if (ng != nr)
            fail_msg("clip %s, seed %llu: %d pieces, scalar %d", op_isa_name(variants[vi]),
                     (unsigned long long)seed, ng, nr);
        if (nr < 0) {
            if (fg.column != fr.column || fg.at != fr.at)
                fail_msg("clip %s, seed %llu: failed at %s %d, scalar at %s %d",
                         op_isa_name(variants[vi]), (unsigned long long)seed,
                         fg.column ? "column" : "row", fg.at, fr.column ? "column" : "row",
                         fr.at);
            continue;
        }
        for (int q = 0; q < nr; q++) {
            const op_piece *a = &got[GUARD + q], *b = &ref[GUARD + q];
            if (a->x != b->x || a->z != b->z || a->smin != b->smin || a->smax != b->smax)
                fail_msg("clip %s, seed %llu: piece %d (%d, %d) [%u, %u], scalar (%d, %d) "
                         "[%u, %u]",
                         op_isa_name(variants[vi]), (unsigned long long)seed, q, a->x, a->z,
                         a->smin, a->smax, b->x, b->z, b->smin, b->smax);
        }
        /* Nothing written past the pieces, nor before them. */
        const unsigned char *g = (const unsigned char *)got;
        for (size_t b = 0; b < GUARD * sizeof(op_piece); b++)
            assert_int_equal(g[b], 0x5A);
        g = (const unsigned char *)(got + GUARD + nr);
        for (size_t b = 0; b < GUARD * sizeof(op_piece); b++)
            assert_int_equal(g[b], 0x5A);
    }
}

static void grid_of(job *j, op_rng *r, uint32_t w, uint32_t h, float cs)
{
    memset(j, 0, sizeof *j);
    j->g.cs = cs;
    j->g.ics = 1.0f / cs;
    j->g.ich = 1.0f / (0.1f + (float)op_rng_below(r, 4) * 0.05f);
    j->g.bmin[0] = frand(r, -100, 100);
    j->g.bmin[1] = frand(r, -5, 5);
    j->g.bmin[2] = frand(r, -100, 100);
    j->g.w = (int)w;
    j->g.h = (int)h;
    j->bmax[0] = j->g.bmin[0] + (float)w * cs;
    j->bmax[1] = j->g.bmin[1] + 12.0f;
    j->bmax[2] = j->g.bmin[2] + (float)h * cs;
    j->g.by = j->bmax[1] - j->g.bmin[1];
    j->z_emit = 0;
    j->x_lo = 0;
    j->x_hi = (int)w - 1;
    j->z_hi = (int)h - 1;
    j->band = 1 + (int)op_rng_below(r, 40);
}

static float coord(op_rng *r, float lo, float cs, uint32_t n)
{
    const int k = (int)op_rng_below(r, n + 4) - 2;
    switch (op_rng_below(r, 5)) {
    case 0: return lo + (float)k * cs + cs; /* a cut plane, as the clip computes it */
    case 1: return lo + (float)k * cs;
    case 2: return nextafterf(lo + (float)k * cs + cs, op_rng_below(r, 2) ? 1e30f : -1e30f);
    default: return frand(r, lo - 3 * cs, lo + (float)(n + 3) * cs);
    }
}

static void random_tri(job *j, op_rng *r)
{
    const uint32_t w = (uint32_t)j->g.w, h = (uint32_t)j->g.h;
    for (int k = 0; k < 3; k++) {
        j->v[3 * k] = coord(r, j->g.bmin[0], j->g.cs, w);
        j->v[3 * k + 1] = frand(r, j->g.bmin[1] - 3, j->bmax[1] + 3);
        j->v[3 * k + 2] = coord(r, j->g.bmin[2], j->g.cs, h);
    }
    switch (op_rng_below(r, 8)) {
    case 0: /* small */
        for (int k = 1; k < 3; k++) {
            j->v[3 * k] = j->v[0] + frand(r, -2, 2) * j->g.cs;
            j->v[3 * k + 2] = j->v[2] + frand(r, -2, 2) * j->g.cs;
        }
        break;
    case 1: { /* sliver */
        const float t = frand(r, 0, 1);
        j->v[6] = j->v[0] + (j->v[3] - j->v[0]) * t + frand(r, -1e-4f, 1e-4f);
        j->v[8] = j->v[2] + (j->v[5] - j->v[2]) * t + frand(r, -1e-4f, 1e-4f);
        break;
    }
    case 2: /* degenerate */
        memcpy(j->v + 6, j->v + (op_rng_below(r, 2) ? 3 : 0), 3 * sizeof(float));
        break;
    case 3: /* huge, reaching far outside */
        j->v[0] -= 1e5f;
        j->v[5] += 1e5f;
        j->v[4] = frand(r, -1e5f, 1e5f);
        break;
    case 4: /* beyond 2^120: the scalar twin's arithmetic, NaN and all */
        j->v[op_rng_below(r, 9)] = op_rng_below(r, 2) ? 3e37f : -3e38f;
        break;
    default: break;
    }
}

static void test_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4000; seed++) {
        op_rng r = {seed};
        job j;
        grid_of(&j, &r, 1 + op_rng_below(&r, 60), 1 + op_rng_below(&r, 60),
                0.125f + (float)op_rng_below(&r, 12) * 0.0625f);
        if (seed % 4 == 0) {
            /* A window: rows and columns before it only consume. */
            j.z_emit = (int)op_rng_below(&r, (uint32_t)j.g.h);
            j.x_lo = (int)op_rng_below(&r, (uint32_t)j.g.w);
            j.x_hi = j.x_lo + (int)op_rng_below(&r, (uint32_t)(j.g.w - j.x_lo));
            j.z_hi = j.z_emit + (int)op_rng_below(&r, (uint32_t)(j.g.h - j.z_emit));
        }
        random_tri(&j, &r);
        compare_job(&j, seed, seed % 5 == 0 ? 1 + (int)op_rng_below(&r, 4) : 0);
    }
}

/* Grids binary32 cannot resolve (near 2^20 .. 2^24, cells of 1/8 .. 1/2 of a binary32
 * step there): polygons grow past four vertices (the SIMD twin hands over) and past
 * twelve (both fail at the same plane). */
static void test_unresolvable(void **state)
{
    (void)state;
    op_rng r = {0x5eed};
    for (int t = 0; t < 3000; t++) {
        const int k = 20 + (int)op_rng_below(&r, 5), q = 1 + (int)op_rng_below(&r, 3);
        job j;
        grid_of(&j, &r, 64, 64, ldexpf(1.0f, k - 23 - q));
        j.g.bmin[0] = j.g.bmin[2] = ldexpf(1.0f, k);
        j.bmax[0] = j.g.bmin[0] + 64 * j.g.cs;
        j.bmax[2] = j.g.bmin[2] + 64 * j.g.cs;
        const float spread = (t % 3 == 0) ? 2.0f : 64.0f;
        const float x0 = (float)op_rng_below(&r, 64), z0 = (float)op_rng_below(&r, 64);
        for (int i = 0; i < 3; i++) {
            j.v[3 * i] = j.g.bmin[0] + (x0 + spread * (float)op_rng_below(&r, 1000) / 1000) * j.g.cs;
            j.v[3 * i + 1] = (float)op_rng_below(&r, 100) / 50;
            j.v[3 * i + 2] = j.g.bmin[2] + (z0 + spread * (float)op_rng_below(&r, 1000) / 1000) * j.g.cs;
        }
        compare_job(&j, 100000 + (uint64_t)t, t % 7 == 0 ? 2 : 0);
    }
}

/* Grid-aligned terrain like the demo world: right triangles over 2x2 cells with their
 * vertices on the cut planes, every orientation. */
static void test_aligned(void **state)
{
    (void)state;
    op_rng r = {77};
    for (int t = 0; t < 2000; t++) {
        job j;
        grid_of(&j, &r, 40, 40, 0.3f);
        const int x = (int)op_rng_below(&r, 38), z = (int)op_rng_below(&r, 38);
        const int s = 1 + (int)op_rng_below(&r, 3);
        const float fx[4] = {j.g.bmin[0] + (float)x * j.g.cs, j.g.bmin[0] + (float)(x + s) * j.g.cs,
                             j.g.bmin[0] + (float)(x + s) * j.g.cs, j.g.bmin[0] + (float)x * j.g.cs};
        const float fz[4] = {j.g.bmin[2] + (float)z * j.g.cs, j.g.bmin[2] + (float)z * j.g.cs,
                             j.g.bmin[2] + (float)(z + s) * j.g.cs, j.g.bmin[2] + (float)(z + s) * j.g.cs};
        const int skip = (int)op_rng_below(&r, 4), rot = (int)op_rng_below(&r, 3);
        int k = 0;
        for (int c = 0; c < 4; c++) {
            if (c == skip)
                continue;
            const int o = (k + rot) % 3;
            j.v[3 * o] = fx[c];
            j.v[3 * o + 1] = frand(&r, 0, 4);
            j.v[3 * o + 2] = fz[c];
            k++;
        }
        compare_job(&j, 200000 + (uint64_t)t, 0);
    }
}

/* The column pieces' spans at the edges of the height range (the 8-lane variants take
 * them eight at a time, raster_clip8.h): wide triangles of many columns per row (full
 * and partial groups of eight, groups spanning rows), heights exactly at, just inside
 * and just outside bmin.y and bmax.y, -0 against a bmin.y of +0, pieces below or above
 * the range among pieces inside it, and spans past the 16-bit clamps (0xfffe, 0xffff,
 * smax >= smin + 1). */
static void test_piece_spans(void **state)
{
    (void)state;
    op_rng r = {0x5a115};
    for (int t = 0; t < 3000; t++) {
        job j;
        grid_of(&j, &r, 1 + op_rng_below(&r, 48), 1 + op_rng_below(&r, 24),
                0.125f + (float)op_rng_below(&r, 8) * 0.0625f);
        if (t % 3 == 0)
            j.g.bmin[1] = 0.0f;
        j.bmax[1] = j.g.bmin[1] + 12.0f;
        j.g.by = j.bmax[1] - j.g.bmin[1];
        switch (t % 4) {
        case 0: j.g.ich = 1e4f; break;                /* spans past 0xffff: clamps */
        case 1: j.g.ich = 65534.0f / j.g.by; break;   /* the top span at the clamp */
        default: break;
        }
        const float lo = j.g.bmin[1], hi = j.bmax[1];
        for (int k = 0; k < 3; k++) {
            j.v[3 * k] = coord(&r, j.g.bmin[0], j.g.cs, (uint32_t)j.g.w);
            j.v[3 * k + 2] = coord(&r, j.g.bmin[2], j.g.cs, (uint32_t)j.g.h);
            float y;
            switch (op_rng_below(&r, 9)) {
            case 0: y = lo; break;
            case 1: y = hi; break;
            case 2: y = nextafterf(lo, -1e30f); break;
            case 3: y = nextafterf(hi, 1e30f); break;
            case 4: y = nextafterf(lo, 1e30f); break;
            case 5: y = lo == 0.0f ? -0.0f : lo - 1.0f; break;
            case 6: y = hi + frand(&r, 0, 2); break;
            case 7: y = lo - frand(&r, 0, 2); break;
            default: y = frand(&r, lo - 1, hi + 1); break;
            }
            j.v[3 * k + 1] = y;
        }
        if (t % 2 == 0) {
            /* Wide: from the first columns to the last ones. */
            j.v[0] = j.g.bmin[0] - j.g.cs;
            j.v[3] = j.g.bmin[0] + (float)(j.g.w + 1) * j.g.cs;
        }
        compare_job(&j, 300000 + (uint64_t)t, t % 11 == 0 ? 1 : 0);
    }
}

/* ---- The batch slot (raster.clip_batch): many small triangles at once ------------- */

static unsigned long batch_lanes, batch_done[OP_ISA_COUNT], batch_pieces, batch_polys;

/* Lane l of b as a piece list in the scalar twin's order. */
static int batch_pieces_of(const op_clip_batch *b, int l, op_piece *out)
{
    int np = 0;
    for (uint32_t m = b->mask[l]; m; m &= m - 1) {
        const int bit = __builtin_ctz(m);
        const int r = bit / OP_CLIP_BATCH_COLS, c = bit % OP_CLIP_BATCH_COLS;
        out[np].x = b->x0[r][l] + c;
        out[np].z = b->z0[l] + r;
        out[np].smin = (uint16_t)b->smin[bit][l];
        out[np].smax = (uint16_t)b->smax[bit][l];
        np++;
    }
    return np;
}

/* Up to OP_CLIP_BATCH triangles of one grid (those op_clip_start takes) through every
 * variant of the batch slot and its scalar twin: every lane a variant finishes must
 * list op_clip_rows_scalar's pieces. */
static void compare_batch(const job *j, const float (*tris)[9], int n, uint64_t seed)
{
    op_clip_batch in;
    memset(&in, 0, sizeof in);
    op_piece ref[OP_CLIP_BATCH][256];
    int nref[OP_CLIP_BATCH];
    op_clip_state rest[OP_CLIP_BATCH];
    op_rng r = {seed ^ 0xba7c4};
    int lanes = 0;
    for (int t = 0; t < n; t++) {
        op_clip_state st;
        if (!op_clip_start(&j->g, j->bmax, tris[t], tris[t] + 3, tris[t] + 6, &st))
            continue;
        if (st.z1 - st.z >= OP_CLIP_BATCH_ROWS + 2)
            continue; /* the reference's pieces must fit ref[] */
        float mnx = st.v[0], mxx = st.v[0];
        for (int k = 1; k < 3; k++) {
            mnx = st.v[3 * k] < mnx ? st.v[3 * k] : mnx;
            mxx = st.v[3 * k] > mxx ? st.v[3 * k] : mxx;
        }
        if (!(mxx - mnx <= 30 * j->g.cs))
            continue;
        if (op_rng_below(&r, 3) == 0 && st.z < st.z1) {
            /* A polygon a band left: the scalar twin's state after its first rows. */
            op_piece skip[256];
            op_clip_fail f0;
            if (op_clip_rows_scalar(&j->g, &st, st.z + (int)op_rng_below(&r, 2), j->z_emit,
                                    j->x_lo, j->x_hi, skip, &f0) < 0 ||
                st.n > OP_CLIP_BATCH_VERTS || st.z > st.z1)
                continue;
            if (st.n > 3)
                batch_polys++;
        }
        /* Sometimes the band ends before the triangle: the rest is the next band's. */
        const int stop = op_rng_below(&r, 3) ? st.z1 : st.z + (int)op_rng_below(&r, 3);
        for (int q = 0; q < 3 * st.n; q++)
            in.v[q][lanes] = st.v[q];
        in.n[lanes] = st.n;
        in.z0[lanes] = st.z;
        in.z1[lanes] = stop < st.z1 ? stop : st.z1;
        op_clip_fail f;
        nref[lanes] = op_clip_rows_scalar(&j->g, &st, in.z1[lanes], j->z_emit, j->x_lo,
                                          j->x_hi, ref[lanes], &f);
        rest[lanes] = st;
        lanes++;
    }
    if (!lanes)
        return;
    batch_lanes += (unsigned long)lanes;
    for (int vi = -1; vi < variant_count; vi++) {
        op_raster_kernels rk;
        const char *name = raster_variant(vi, &rk);
        const op_clip_batch_fn fn = rk.clip_batch;
        op_clip_batch b = in;
        const unsigned left = fn(&j->g, &b, lanes, j->z_emit, j->x_lo, j->x_hi);
        assert_true(left < 1u << lanes);
        for (int l = 0; l < lanes; l++) {
            if (left >> l & 1)
                continue;
            if (vi >= 0)
                batch_done[variants[vi]]++;
            if (nref[l] < 0)
                fail_msg("batch %s, seed %llu, lane %d: finished a triangle the scalar twin "
                         "fails", name, (unsigned long long)seed, l);
            op_piece got[OP_CLIP_BATCH_ROWS * OP_CLIP_BATCH_COLS];
            const int ng = batch_pieces_of(&b, l, got);
            if (vi < 0)
                batch_pieces += (unsigned long)ng;
            if (ng != nref[l])
                fail_msg("batch %s, seed %llu, lane %d: %d pieces, scalar %d", name,
                         (unsigned long long)seed, l, ng, nref[l]);
            if (b.rest_n[l] != rest[l].n)
                fail_msg("batch %s, seed %llu, lane %d: %d vertices left, scalar %d", name,
                         (unsigned long long)seed, l, b.rest_n[l], rest[l].n);
            for (int q = 0; q < 3 * rest[l].n; q++)
                if (memcmp(&b.rest[q][l], &rest[l].v[q], sizeof(float)))
                    fail_msg("batch %s, seed %llu, lane %d: rest coordinate %d %.9g, scalar "
                             "%.9g", name, (unsigned long long)seed, l, q,
                             (double)b.rest[q][l], (double)rest[l].v[q]);
            for (int q = 0; q < ng; q++) {
                const op_piece *a = &got[q], *r = &ref[l][q];
                if (a->x != r->x || a->z != r->z || a->smin != r->smin || a->smax != r->smax)
                    fail_msg("batch %s, seed %llu, lane %d: piece %d (%d, %d) [%u, %u], "
                             "scalar (%d, %d) [%u, %u]",
                             name, (unsigned long long)seed, l, q, a->x, a->z, a->smin,
                             a->smax, r->x, r->z, r->smin, r->smax);
            }
        }
    }
}

/* Small triangles: grid-aligned terrain in every orientation (runs of one shape, as
 * the rasterizer sorts them), random small ones with vertices on and next to the cut
 * planes, slivers, degenerate ones, some too large or beyond 2^120 (left to the caller),
 * in windows (rows and columns before them only consume) and on unresolvable grids. */
static void test_batch(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        op_rng r = {seed * 7919};
        job j;
        const uint32_t kind = (uint32_t)(seed % 4);
        grid_of(&j, &r, 1 + op_rng_below(&r, 40), 1 + op_rng_below(&r, 40),
                kind == 0 ? 0.3f : 0.125f + (float)op_rng_below(&r, 12) * 0.0625f);
        if (kind == 3 && seed % 8 == 3) {
            const int k = 20 + (int)op_rng_below(&r, 5), q = 1 + (int)op_rng_below(&r, 3);
            grid_of(&j, &r, 40, 40, ldexpf(1.0f, k - 23 - q));
            j.g.bmin[0] = j.g.bmin[2] = ldexpf(1.0f, k);
            j.bmax[0] = j.g.bmin[0] + 40 * j.g.cs;
            j.bmax[2] = j.g.bmin[2] + 40 * j.g.cs;
        }
        if (seed % 3 == 0) {
            j.z_emit = (int)op_rng_below(&r, (uint32_t)j.g.h);
            j.x_lo = (int)op_rng_below(&r, (uint32_t)j.g.w);
            j.x_hi = j.x_lo + (int)op_rng_below(&r, (uint32_t)(j.g.w - j.x_lo));
        }
        float tris[OP_CLIP_BATCH][9];
        const int n = 1 + (int)op_rng_below(&r, OP_CLIP_BATCH);
        const int skip0 = (int)op_rng_below(&r, 4), rot0 = (int)op_rng_below(&r, 3);
        for (int t = 0; t < n; t++) {
            float *v = tris[t];
            if (kind == 0) {
                /* Terrain: 2x2-cell right triangles, mostly of one orientation. */
                const int x = (int)op_rng_below(&r, (uint32_t)j.g.w + 2) - 1;
                const int z = (int)op_rng_below(&r, (uint32_t)j.g.h + 2) - 1;
                const int s = op_rng_below(&r, 4) ? 2 : 1 + (int)op_rng_below(&r, 3);
                const float fx[4] = {j.g.bmin[0] + (float)x * j.g.cs,
                                     j.g.bmin[0] + (float)(x + s) * j.g.cs,
                                     j.g.bmin[0] + (float)(x + s) * j.g.cs,
                                     j.g.bmin[0] + (float)x * j.g.cs};
                const float fz[4] = {j.g.bmin[2] + (float)z * j.g.cs,
                                     j.g.bmin[2] + (float)z * j.g.cs,
                                     j.g.bmin[2] + (float)(z + s) * j.g.cs,
                                     j.g.bmin[2] + (float)(z + s) * j.g.cs};
                const int skip = op_rng_below(&r, 4) ? skip0 : (int)op_rng_below(&r, 4);
                const int rot = op_rng_below(&r, 4) ? rot0 : (int)op_rng_below(&r, 3);
                int k = 0;
                for (int c = 0; c < 4; c++) {
                    if (c == skip)
                        continue;
                    const int o = (k + rot) % 3;
                    v[3 * o] = fx[c];
                    v[3 * o + 1] = frand(&r, j.g.bmin[1] - 1, j.bmax[1] + 1);
                    v[3 * o + 2] = fz[c];
                    k++;
                }
            } else {
                job t1 = j;
                random_tri(&t1, &r);
                const float span = op_rng_below(&r, 6) ? 3.5f : 8.0f;
                for (int k = 1; k < 3 && !(seed % 5 == 0 && t == 0); k++) {
                    t1.v[3 * k] = t1.v[0] + frand(&r, -span, span) * j.g.cs;
                    t1.v[3 * k + 2] = t1.v[2] + frand(&r, -span, span) * j.g.cs;
                }
                memcpy(v, t1.v, sizeof t1.v);
            }
        }
        compare_batch(&j, (const float(*)[9])tris, n, seed);
    }
    /* The kernel must finish most lanes, or the test says nothing. */
    print_message("clip batch: %lu lanes (%lu polygons of 4+ vertices), %lu pieces\n",
                  batch_lanes, batch_polys, batch_pieces);
    assert_true(batch_pieces > 10000);
    assert_true(batch_polys > 100);
    for (int vi = 0; vi < variant_count; vi++) {
        print_message("clip batch: %-8s finished %lu lanes\n", op_isa_name(variants[vi]),
                      batch_done[variants[vi]]);
        assert_true(batch_done[variants[vi]] * 2 > batch_lanes);
    }
}

/* ---- Many triangles' rows (raster.rows_of) ----------------------------------------- */

/* One coordinate for the rows test: on a cut plane, one ulp beside it, on the box's
 * faces, ±0, far outside, huge, and (rarely, when bad) not finite. */
static float rows_coord(op_rng *r, float lo, float hi, float cs, uint32_t n, int bad)
{
    switch (op_rng_below(r, bad ? 10 : 9)) {
    case 0: return lo;
    case 1: return hi;
    case 2: return nextafterf(op_rng_below(r, 2) ? lo : hi, op_rng_below(r, 2) ? 1e30f : -1e30f);
    case 3: return op_rng_below(r, 2) ? 0.0f : -0.0f;
    case 4: return op_rng_below(r, 2) ? 3e38f : -3e38f;
    case 5: return frand(r, lo - 1e6f, hi + 1e6f);
    case 9: return op_rng_below(r, 2) ? NAN : (op_rng_below(r, 2) ? INFINITY : -INFINITY);
    default: return coord(r, lo, cs, n);
    }
}

/* Every variant's rows_of against the scalar twin: the position it stops at, the rows
 * before it, nothing written after it. Runs of every length around the 8-lane steps,
 * indices at and past the last vertex (the one the vector loads may not read whole),
 * bad coordinates and indices in random lanes, grids of one row, none or one vertex. */
static void test_rows_many(void **state)
{
    (void)state;
    enum { NT = 70, NV = 40 };
    static int32_t ref[2 * NT + GUARD], got[2 * NT + GUARD];
    unsigned long compared_rows = 0, stops = 0, rows_runs[OP_ISA_COUNT] = {0};
    for (uint64_t seed = 1; seed <= 4000; seed++) {
        op_rng r = {seed * 0x2545F4914F6CDD1Dull};
        job j;
        grid_of(&j, &r, 1 + op_rng_below(&r, 30), 1 + op_rng_below(&r, 30), 0.3f);
        if (op_rng_below(&r, 8) == 0)
            j.g.h = 1;
        const uint32_t nv = op_rng_below(&r, 10) == 0 ? op_rng_below(&r, 3) : NV;
        const int bad = op_rng_below(&r, 4) == 0;
        float verts[3 * NV];
        for (uint32_t v = 0; v < NV; v++) {
            verts[3 * v] = rows_coord(&r, j.g.bmin[0], j.bmax[0], j.g.cs, (uint32_t)j.g.w,
                                      bad && op_rng_below(&r, 30) == 0);
            verts[3 * v + 1] = rows_coord(&r, j.g.bmin[1], j.bmax[1], 0.2f, 60,
                                          bad && op_rng_below(&r, 30) == 0);
            verts[3 * v + 2] = rows_coord(&r, j.g.bmin[2], j.bmax[2], j.g.cs, (uint32_t)j.g.h,
                                          bad && op_rng_below(&r, 30) == 0);
        }
        const uint32_t n = op_rng_below(&r, NT + 1);
        uint32_t tris[3 * NT];
        for (uint32_t k = 0; k < 3 * n; k++) {
            const uint32_t m = op_rng_below(&r, 20);
            tris[k] = m == 0 ? (nv ? nv - 1 : 0) /* the last vertex */
                      : m == 1 && bad ? (op_rng_below(&r, 2) ? nv : 0xffffffffu)
                      : op_rng_below(&r, nv ? nv : 1);
        }
        for (int vi = -1; vi < variant_count; vi++) {
            op_raster_kernels rk;
            const char *name = raster_variant(vi, &rk);
            const op_clip_rows_many_fn fn = rk.rows_of;
            int32_t *out = vi < 0 ? ref : got;
            memset(out, 0x5A, sizeof ref);
            const uint32_t stop = fn(&j.g, j.bmax, verts, nv, tris, n, out);
            static uint32_t ref_stop;
            if (vi < 0) {
                ref_stop = stop;
                assert_true(stop <= n);
                stops += stop < n;
                continue;
            }
            rows_runs[variants[vi]]++;
            if (stop != ref_stop)
                fail_msg("rows_of %s, seed %llu: stops at %u, scalar at %u", name,
                         (unsigned long long)seed, stop, ref_stop);
            if (memcmp(out, ref, sizeof ref))
                fail_msg("rows_of %s, seed %llu: rows differ from the scalar twin's", name,
                         (unsigned long long)seed);
            compared_rows += stop;
        }
    }
    print_message("rows_of: %lu rows compared, %lu runs stopped at a bad triangle\n",
                  compared_rows, stops);
    for (int vi = 0; vi < variant_count; vi++)
        assert_int_equal(rows_runs[variants[vi]], 4000);
    assert_true(stops > 100);
}

/* ---- Walkable triangles (raster.walkable) ---------------------------------------- */

/* Every variant's walkable marking against the scalar twin, byte for byte: random
 * slopes around the thresholds, flat and vertical triangles (ny exactly 1 and 0, with
 * thresholds 1 and 0), degenerate ones (repeated or collinear vertices: len 0), tiny
 * (the squares underflow) and huge ones (they overflow to inf), NaN and inf vertices,
 * indices at the last vertex (the vector loads may not read it whole), runs of every
 * length around the 8-lane steps, meshes of one vertex. */
static void test_walkable(void **state)
{
    (void)state;
    enum { NT = 70, NV = 40 };
    static uint8_t ref[NT + GUARD], got[NT + GUARD];
    unsigned long marked = 0, walkable = 0, runs[OP_ISA_COUNT] = {0};
    static const float thrs[] = {0.70710677f, 0.0f, 1.0f, -0.5f, 0.99999994f, 0.5f};
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        op_rng r = {seed * 0x9E3779B97F4A7C15ull};
        const uint32_t nv = op_rng_below(&r, 10) == 0 ? 1 + op_rng_below(&r, 2) : NV;
        float verts[3 * NV];
        const int kind = (int)op_rng_below(&r, 6);
        for (uint32_t v = 0; v < 3 * NV; v++) {
            const uint32_t m = op_rng_below(&r, 40);
            float c = frand(&r, -10, 10);
            if (kind == 1)
                c = (float)(int)c; /* on a lattice: flat, vertical, collinear, repeated */
            else if (kind == 2)
                c *= 1e-25f; /* the squares underflow */
            else if (kind == 3)
                c *= 1e19f; /* the squares overflow */
            if (m == 0)
                c = op_rng_below(&r, 2) ? NAN : (op_rng_below(&r, 2) ? INFINITY : -INFINITY);
            else if (m == 1)
                c = op_rng_below(&r, 2) ? 0.0f : -0.0f;
            verts[v] = c;
        }
        const uint32_t n = op_rng_below(&r, NT + 1);
        uint32_t tris[3 * NT];
        for (uint32_t k = 0; k < 3 * n; k++)
            tris[k] = op_rng_below(&r, 12) == 0 ? nv - 1 : op_rng_below(&r, nv);
        if (kind == 4) /* flat (ny 1) and vertical (ny 0) triangles over the lattice */
            for (uint32_t k = 0; k < n; k++) {
                const uint32_t a = tris[3 * k], b = tris[3 * k + 1], c = tris[3 * k + 2];
                verts[3 * b + (k & 1)] = verts[3 * a + (k & 1)];
                verts[3 * c + (k & 1)] = verts[3 * a + (k & 1)];
            }
        const float thr = op_rng_below(&r, 3) ? thrs[op_rng_below(&r, 6)] : frand(&r, -1, 1);
        memset(ref, 0x5A, sizeof ref);
        op_mark_walkable_scalar(verts, nv, tris, n, thr, ref);
        for (uint32_t k = 0; k < n; k++)
            walkable += ref[k] == OP_WALKABLE_AREA;
        marked += n;
        for (int vi = 0; vi < variant_count; vi++) {
            op_raster_kernels rk;
            raster_variant(vi, &rk);
            memset(got, 0x5A, sizeof got);
            rk.walkable(verts, nv, tris, n, thr, got);
            runs[variants[vi]]++;
            if (memcmp(got, ref, sizeof ref))
                fail_msg("walkable %s, seed %llu: areas differ from the scalar twin's",
                         op_isa_name(variants[vi]), (unsigned long long)seed);
        }
    }
    print_message("walkable: %lu triangles, %lu walkable\n", marked, walkable);
    for (int vi = 0; vi < variant_count; vi++)
        assert_int_equal(runs[variants[vi]], 3000);
    assert_true(walkable > marked / 10 && walkable < marked - marked / 10);
}

/* ---- Walkable triangles one ulp from the threshold -------------------------------- */

/* The normal's y over its length in the scalar twin's binary32 order (m 0), and in
 * orders a SIMD twin must not use (m 1..WM_COUNT − 1): the sum of squares regrouped
 * (n0² + (n1² + n2²), (n0² + n2²) + n1²), contracted to fused multiply-adds (the sum, or
 * the cross product), n1 / len instead of n1 · (1 / len). Every step goes through a
 * volatile, so the compiler can neither contract nor reorder it (-ffp-contract=off is
 * the build's too). len 0 gives ny 0, as in the twin. */
enum { WM_REF, WM_SUM_RIGHT, WM_SUM_02, WM_SUM_FMA, WM_CROSS_FMA, WM_DIV, WM_COUNT };
static const char *const wm_names[WM_COUNT] = {
    "scalar order", "n0^2 + (n1^2 + n2^2)", "(n0^2 + n2^2) + n1^2",
    "fma(n2, n2, fma(n1, n1, n0^2))", "cross product in fma", "n1 / len"};

static float walk_ny(const float *v0, const float *v1, const float *v2, int m, float *len_out)
{
    volatile float e0x = v1[0] - v0[0], e0y = v1[1] - v0[1], e0z = v1[2] - v0[2];
    volatile float e1x = v2[0] - v0[0], e1y = v2[1] - v0[1], e1z = v2[2] - v0[2];
    volatile float n0, n1, n2;
    if (m == WM_CROSS_FMA) {
        volatile float p0 = e0z * e1y, p1 = e0x * e1z, p2 = e0y * e1x;
        n0 = fmaf(e0y, e1z, -p0);
        n1 = fmaf(e0z, e1x, -p1);
        n2 = fmaf(e0x, e1y, -p2);
    } else {
        volatile float a0 = e0y * e1z, b0 = e0z * e1y, a1 = e0z * e1x, b1 = e0x * e1z;
        volatile float a2 = e0x * e1y, b2 = e0y * e1x;
        n0 = a0 - b0;
        n1 = a1 - b1;
        n2 = a2 - b2;
    }
    volatile float s0 = n0 * n0, s1 = n1 * n1, s2 = n2 * n2, sq;
    if (m == WM_SUM_RIGHT) {
        volatile float t = s1 + s2;
        sq = s0 + t;
    } else if (m == WM_SUM_02) {
        volatile float t = s0 + s2;
        sq = t + s1;
    } else if (m == WM_SUM_FMA) {
        volatile float t = fmaf(n1, n1, s0);
        sq = fmaf(n2, n2, t);
    } else {
        volatile float t = s0 + s1;
        sq = t + s2;
    }
    volatile float len = sqrtf(sq);
    *len_out = len;
    if (!(len > 0.0f))
        return 0.0f;
    if (m == WM_DIV)
        return n1 / len;
    volatile float inv = 1.0f / len;
    return n1 * inv;
}

/* Every variant against the scalar twin on triangles whose ny comes out different in one
 * of the orders above (a seeded search over random triangles), with the threshold at the
 * twin's ny and one ulp either side: a variant that computes in one of those orders
 * marks some triangle otherwise. The test checks that its model is the twin (the same
 * verdicts) and that each wrong order flips at least one verdict of the input. */
static void test_walkable_near(void **state)
{
    (void)state;
    enum { NK = 64, TRIES = 200000 };
    static float verts[9 * NK];
    static uint32_t tris[3 * NK];
    static float nys[NK];
    static uint8_t ref[NK + GUARD], got[NK + GUARD];
    int found = 0, per[WM_COUNT] = {0};
    op_rng r = {0x5EEDF00Dull * 0x9E3779B97F4A7C15ull};
    for (int tr = 0; tr < TRIES && found < NK; tr++) {
        float v[9];
        const float scale = op_rng_below(&r, 2) ? 1.0f : 1000.0f;
        for (int c = 0; c < 9; c++)
            v[c] = frand(&r, -10, 10) * scale;
        float len, ml;
        const float ny = walk_ny(v, v + 3, v + 6, WM_REF, &len);
        if (!(len > 0.0f))
            continue;
        /* Keep a triangle only if some order no kept one covers yet (or a second time
         * each) moves its ny. */
        int want = 0, hit[WM_COUNT] = {0};
        for (int m = 1; m < WM_COUNT; m++) {
            hit[m] = walk_ny(v, v + 3, v + 6, m, &ml) != ny;
            want |= hit[m] && per[m] < NK / (WM_COUNT - 1);
        }
        if (!want)
            continue;
        for (int m = 1; m < WM_COUNT; m++)
            per[m] += hit[m];
        memcpy(verts + 9 * found, v, sizeof v);
        for (int c = 0; c < 3; c++)
            tris[3 * found + c] = (uint32_t)(3 * found + c);
        nys[found++] = ny;
    }
    assert_true(found >= 16);
    for (int m = 1; m < WM_COUNT; m++)
        if (per[m] < 2)
            fail_msg("walkable near: only %d triangles for the order %s", per[m], wm_names[m]);
    /* Every kept triangle's ny, one ulp either side, as the threshold of a call over all
     * kept triangles (found − 3 of them too, so the last lanes go to the tail). */
    unsigned long flips[WM_COUNT] = {0}, calls = 0;
    for (int k = 0; k < found; k++)
        for (int s = -1; s <= 1; s++) {
            const float thr = s < 0 ? nextafterf(nys[k], -INFINITY)
                            : s > 0 ? nextafterf(nys[k], INFINITY) : nys[k];
            for (int tail = 0; tail < 2; tail++) {
                const uint32_t n = (uint32_t)(tail ? found - 3 : found);
                memset(ref, 0x5A, sizeof ref);
                op_mark_walkable_scalar(verts, 3 * (uint32_t)found, tris, n, thr, ref);
                for (uint32_t t = 0; t < n && !tail; t++)
                    for (int m = 0; m < WM_COUNT; m++) {
                        const float *tv = verts + 9 * t;
                        float ml;
                        const float y = walk_ny(tv, tv + 3, tv + 6, m, &ml);
                        const uint8_t a = y > thr ? (uint8_t)OP_WALKABLE_AREA : (uint8_t)OP_NULL_AREA;
                        if (m == WM_REF && a != ref[t])
                            fail_msg("walkable near: the model is not the scalar twin "
                                     "(triangle %u, threshold %a)", t, (double)thr);
                        flips[m] += a != ref[t];
                    }
                int bad = 0; /* every variant that differs is named before the test fails */
                for (int vi = 0; vi < variant_count; vi++) {
                    op_raster_kernels rk;
                    raster_variant(vi, &rk);
                    memset(got, 0x5A, sizeof got);
                    rk.walkable(verts, 3 * (uint32_t)found, tris, n, thr, got);
                    uint32_t t = 0;
                    while (t < n + GUARD && got[t] == ref[t])
                        t++;
                    if (t < n + GUARD) {
                        print_error("walkable near %s: triangle %u of %u, threshold %a "
                                    "(ny %a): area %u, the scalar twin's %u\n",
                                    op_isa_name(variants[vi]), t, n, (double)thr,
                                    t < n ? (double)nys[t] : 0.0, got[t], ref[t]);
                        bad = 1;
                    }
                }
                if (bad)
                    fail_msg("walkable near: areas differ from the scalar twin's");
                calls++;
            }
        }
    print_message("walkable near: %d triangles, %lu calls; verdicts flipped per order:", found,
                  calls);
    for (int m = 1; m < WM_COUNT; m++)
        print_message(" %lu", flips[m]);
    print_message("\n");
    for (int m = 1; m < WM_COUNT; m++)
        if (flips[m] == 0)
            fail_msg("walkable near: the order %s flips no verdict", wm_names[m]);
}

static void test_promised_variants_compared(void **state)
{
    (void)state;
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    op_isa_info info[OP_ISA_COUNT];
    op_isa_list(info, OP_ISA_COUNT);
    int ran = 0;
    for (int i = 0; i < np; i++) {
        const op_isa v = promised[i];
        if (!info[v].cpu) {
            print_message("clip: variant %s is built but this CPU cannot run it\n", info[v].name);
            continue;
        }
        if (!compared[v])
            fail_msg("clip: variant %s was never compared", info[v].name);
        print_message("clip: %-8s %lu triangles compared\n", info[v].name, compared[v]);
        ran++;
    }
    print_message("clip: %lu pieces, %lu failures, %lu states of 5+ vertices handed over\n",
                  pieces_seen, failures_seen, big_states);
    assert_true(ran >= 1);
    assert_true(pieces_seen > 10000);
    assert_true(failures_seen > 0);
    assert_true(big_states > 0);
}

int main(void)
{
    const int skip = op_test_simd_skip("clip");
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_unresolvable),
        cmocka_unit_test(test_aligned),
        cmocka_unit_test(test_piece_spans),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_rows_many),
        cmocka_unit_test(test_walkable),
        cmocka_unit_test(test_walkable_near),
        cmocka_unit_test(test_promised_variants_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
