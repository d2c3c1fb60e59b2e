/* The issue-5 speedups of non-kernel bake passes against the code they replaced, byte for
 * byte: the watershed (regions-contours §2, supplement §9.2) now works in a level-ordered
 * copy of the field, the §1.5 link builder looks neighbour cells up once per cell, and
 * the §1.4.2 ledge filter looks neighbour columns up once per column. The references
 * below are the previous implementations: the watershed over the span arrays level by
 * level, the link rule per span and direction, the ledge test per span through the
 * pool. Random multi-floor fields (one-way links, holes, several areas, a tile band on
 * some), real distance fields and arbitrary ones (many ties, and distances large enough
 * to take the radix-sort path), random solid heightfields with steps near the climb. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* ---- The previous watershed (sorted once, levels over the span arrays) ---------- */

static int in_band(const op_chf *chf, uint32_t x, uint32_t z)
{
    const uint32_t B = (uint32_t)chf->border_size;
    return B && (x < B || z < B || x + B >= chf->width || z + B >= chf->depth);
}

/* Levels by distance descending, ties by span index (qsort on a total order). */
static const uint32_t *g_sort_dist;

static int cmp_desc(const void *a, const void *b)
{
    const uint32_t sa = *(const uint32_t *)a, sb = *(const uint32_t *)b;
    if (g_sort_dist[sa] != g_sort_dist[sb])
        return g_sort_dist[sa] > g_sort_dist[sb] ? -1 : 1;
    return sa < sb ? -1 : sa > sb;
}

static void sort_desc(uint32_t *idx, uint32_t m, const uint32_t *dist)
{
    g_sort_dist = dist;
    qsort(idx, m, sizeof *idx, cmp_desc);
}

static uint32_t ref_watershed(const op_chf *chf, const uint32_t *dist, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    for (uint32_t z = 0; z < chf->depth; z++)
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1];
                 s++)
                region[s] = chf->area[s] && in_band(chf, x, z) ? OP_BORDER_REGION : 0;
        }
    uint32_t *order = op_test_u32s(n), *cand = op_test_u32s(n), *next = op_test_u32s(n), *newreg = op_test_u32s(n);
    uint32_t *queue = op_test_u32s(n);
    uint8_t *mark = calloc(n ? n : 1, 1);
    assert_non_null(mark);
    uint32_t m = 0, next_id = 0;
    for (uint32_t s = 0; s < n; s++)
        if (chf->area[s] && region[s] == 0)
            order[m++] = s;
    sort_desc(order, m, dist);
    for (uint32_t lo = 0; lo < m;) {
        const uint32_t L = dist[order[lo]];
        uint32_t hi = lo;
        while (hi < m && dist[order[hi]] == L)
            hi++;
        uint32_t nc = hi - lo;
        memcpy(cand, order + lo, nc * sizeof *cand);
        while (nc) {
            uint32_t joined = 0;
            for (uint32_t i = 0; i < nc; i++) {
                const uint32_t s = cand[i];
                uint32_t best = 0;
                for (int d = 0; d < 4 && region[s] == 0; d++) {
                    if (!(chf->mutual[s] >> d & 1))
                        continue;
                    const uint32_t t = op_chf_link(chf, d, s), r = region[t];
                    if (r && r != OP_BORDER_REGION && chf->area[t] == chf->area[s] &&
                        (!best || r < best))
                        best = r;
                }
                newreg[i] = best;
                joined += best != 0;
            }
            if (!joined)
                break;
            for (uint32_t i = 0; i < nc; i++)
                if (newreg[i])
                    region[cand[i]] = newreg[i];
            uint32_t nn = 0;
            memset(mark, 0, n);
            for (uint32_t i = 0; i < nc; i++)
                for (int d = 0; d < 4 && newreg[i]; d++) {
                    const uint32_t s = cand[i];
                    if (!(chf->mutual[s] >> d & 1))
                        continue;
                    const uint32_t t = op_chf_link(chf, d, s);
                    if (region[t] == 0 && chf->area[t] && dist[t] == L && !mark[t]) {
                        mark[t] = 1;
                        next[nn++] = t;
                    }
                }
            memcpy(cand, next, nn * sizeof *cand);
            nc = nn;
        }
        for (uint32_t i = lo; i < hi; i++) {
            if (region[order[i]])
                continue;
            const uint32_t id = ++next_id;
            uint32_t head = 0, tail = 0;
            region[order[i]] = id;
            queue[tail++] = order[i];
            while (head < tail) {
                const uint32_t u = queue[head++];
                for (int d = 0; d < 4; d++) {
                    if (!(chf->mutual[u] >> d & 1))
                        continue;
                    const uint32_t t = op_chf_link(chf, d, u);
                    if (region[t] == 0 && chf->area[t] == chf->area[u] && dist[t] == L) {
                        region[t] = id;
                        queue[tail++] = t;
                    }
                }
            }
        }
        lo = hi;
    }
    free(order);
    free(cand);
    free(next);
    free(newreg);
    free(queue);
    free(mark);
    return next_id;
}

/* How the distances of a case are made. */
enum { D_REAL, D_REAL_SCALED, D_SMALL_RANDOM, D_WIDE_RANDOM, D_CONST, D_KINDS };

static void make_dist(op_ctx *ctx, const op_chf *chf, int kind, uint64_t seed, uint32_t *dist)
{
    op_rng rng = {seed * 7919u + (uint64_t)kind};
    uint32_t maxd;
    switch (kind) {
    case D_REAL:
    case D_REAL_SCALED:
        assert_int_equal(op_build_distance_field(ctx, chf, dist, &maxd), OP_OK);
        if (kind == D_REAL_SCALED) /* same levels and order, maxd >= 2^22: the radix path */
            for (uint32_t s = 0; s < chf->span_count; s++)
                dist[s] = dist[s] * 65537u + 5000000u;
        break;
    case D_SMALL_RANDOM: /* many ties, levels split into many pieces */
        for (uint32_t s = 0; s < chf->span_count; s++)
            dist[s] = op_rng_below(&rng, 4);
        break;
    case D_WIDE_RANDOM: /* up to 2^32 - 1, both sort paths' extremes */
        for (uint32_t s = 0; s < chf->span_count; s++)
            dist[s] = op_rng_below(&rng, 3) == 0 ? 0xffffffffu - op_rng_below(&rng, 3)
                                                 : (uint32_t)op_rng_next(&rng);
        break;
    default:
        for (uint32_t s = 0; s < chf->span_count; s++)
            dist[s] = 7;
        break;
    }
}

static void check_watershed(op_ctx *ctx, const op_chf *chf, int kind, uint64_t seed)
{
    const uint32_t n = chf->span_count;
    uint32_t *dist = op_test_u32s(n), *a = op_test_u32s(n), *b = op_test_u32s(n);
    make_dist(ctx, chf, kind, seed, dist);
    memset(a, 0xa5, (size_t)(n ? n : 1) * 4);
    uint32_t count = 12345;
    assert_int_equal(op_build_regions_watershed_raw(ctx, chf, dist, a, &count), OP_OK);
    const uint32_t want = ref_watershed(chf, dist, b);
    if (count != want)
        fail_msg("seed %llu kind %d: %u regions, reference %u", (unsigned long long)seed, kind,
                 count, want);
    for (uint32_t s = 0; s < n; s++)
        if (a[s] != b[s])
            fail_msg("seed %llu kind %d (%ux%u, %u spans): span %u region %u, reference %u",
                     (unsigned long long)seed, kind, chf->width, chf->depth, n, s, a[s], b[s]);
    free(dist);
    free(a);
    free(b);
}

static void test_watershed_matches_previous(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 5 + (uint32_t)(seed * 7 % 29), 4 + (uint32_t)(seed * 5 % 23));
        o.max_floors = 1 + (uint32_t)(seed % 3);
        o.hole_percent = (uint32_t)(seed % 5) * 3;
        o.empty_percent = (uint32_t)(seed % 4) * 4;
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.y_jitter = (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = seed % 3 == 0 ? 1 + (int32_t)(seed % 2) : 0;
        for (int kind = 0; kind < D_KINDS; kind++)
            check_watershed(&ctx, &chf, kind, seed);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* One larger field: many levels, long growth rounds. */
static void test_watershed_matches_previous_large(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 160, 140);
    o.max_floors = 3;
    o.hole_percent = 1;
    o.area_count = 2;
    o.y_jitter = 1;
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 99, &o), OP_OK);
    chf.border_size = 3;
    check_watershed(&ctx, &chf, D_REAL, 99);
    check_watershed(&ctx, &chf, D_REAL_SCALED, 99);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Empty and all-band fields: nothing to partition, no regions. */
static void test_watershed_nothing_to_do(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 6, 6);
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 3, &o), OP_OK);
    chf.border_size = 3; /* every cell is in the band */
    uint32_t n = chf.span_count, *dist = op_test_u32s(n), *reg = op_test_u32s(n), count = 99;
    make_dist(&ctx, &chf, D_REAL, 3, dist);
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, reg, &count), OP_OK);
    assert_int_equal(count, 0);
    for (uint32_t s = 0; s < n; s++)
        assert_true(reg[s] == (chf.area[s] ? OP_BORDER_REGION : 0u));
    free(dist);
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* ---- The previous link builder (supplement §1.5, per span and direction) -------- */

static void ref_links(const op_chf *chf, uint32_t *link[4])
{
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    for (uint32_t z = 0; z < chf->depth; z++)
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1];
                 s++)
                for (int d = 0; d < 4; d++) {
                    uint32_t found = OP_NO_LINK;
                    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
                    if (nx >= 0 && nz >= 0 && nx < chf->width && nz < chf->depth) {
                        const uint32_t nc = (uint32_t)nx + (uint32_t)nz * chf->width;
                        for (uint32_t t = chf->cell_first[nc];
                             t < chf->cell_first[nc + 1]; t++) {
                            const int32_t sy = chf->y[s], ty = chf->y[t];
                            const int32_t st = sy + chf->h[s], tt = ty + chf->h[t];
                            const int32_t top = st < tt ? st : tt, bot = sy > ty ? sy : ty;
                            if (top - bot >= wh && ty - sy <= wc && sy - ty <= wc) {
                                found = t;
                                break;
                            }
                        }
                    }
                    link[d][s] = found;
                }
        }
}

static void test_links_match_previous(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        op_random_chf_opts o;
        const int large = seed == 40;
        op_random_chf_defaults(&o, large ? 300 : 1 + (uint32_t)(seed * 7 % 23),
                               large ? 200 : 1 + (uint32_t)(seed * 3 % 19));
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.empty_percent = (uint32_t)(seed % 5) * 5;
        o.y_jitter = (uint32_t)(seed % 4);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        /* Vary the rule's parameters so near misses on each side occur. */
        chf.walkable_height = 2 + (int32_t)(seed % 9);
        chf.walkable_climb = (int32_t)(seed % 5);
        const uint32_t n = chf.span_count;
        uint32_t *want[4];
        for (int d = 0; d < 4; d++)
            want[d] = op_test_u32s(n);
        ref_links(&chf, want);
        for (int d = 0; d < 4; d++)
            memset(chf.dlink[d], 0x5a, (size_t)(n ? n : 1) * 2);
        memset(chf.mutual, 0xee, n ? n : 1);
        assert_int_equal(op_chf_build_links(&ctx, &chf), OP_OK);
        for (int d = 0; d < 4; d++)
            for (uint32_t s = 0; s < n; s++)
                if (op_chf_link(&chf, d, s) != want[d][s])
                    fail_msg("seed %llu: link[%d][%u] = %u, reference %u", (unsigned long long)seed,
                             d, s, op_chf_link(&chf, d, s), want[d][s]);
        /* mutual bits follow from the links (the kernel's contract) */
        for (uint32_t s = 0; s < n; s++)
            for (int d = 0; d < 4; d++) {
                const uint32_t t = want[d][s];
                const int mutual = t != OP_NO_LINK && want[(d + 2) & 3][t] == s;
                if ((chf.mutual[s] >> d & 1) != mutual)
                    fail_msg("seed %llu: mutual bit %d of span %u", (unsigned long long)seed,
                             d, s);
            }
        for (int d = 0; d < 4; d++)
            free(want[d]);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* ---- The previous ledge filter (supplement §1.4.2, per span, neighbours looked up
 * per span and direction) ---- */

static int32_t ref_ceiling(const op_heightfield *hf, uint32_t s, uint32_t end)
{
    return s + 1 < end ? (int32_t)hf->smin[s + 1] : (int32_t)OP_HF_MAX_HEIGHT;
}

static int ref_is_ledge(const op_heightfield *hf, uint32_t x, uint32_t z, uint32_t s, int32_t wh,
                        int32_t climb)
{
    const int32_t f = hf->smax[s], c = ref_ceiling(hf, s, op_heightfield_end(hf, x, z));
    int32_t acc_min = f, acc_max = f;
    for (int d = 0; d < 4; d++) {
        const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
        if (nx < 0 || nz < 0 || nx >= (int64_t)hf->width || nz >= (int64_t)hf->depth)
            return 1;
        const uint32_t first = op_heightfield_begin(hf, (uint32_t)nx, (uint32_t)nz);
        const uint32_t end = op_heightfield_end(hf, (uint32_t)nx, (uint32_t)nz);
        const int32_t low = first < end ? (int32_t)hf->smin[first] : (int32_t)OP_HF_MAX_HEIGHT;
        if ((c < low ? c : low) - f >= wh)
            return 1;
        for (uint32_t t = first; t < end; t++) {
            const int32_t nf = hf->smax[t], nc = ref_ceiling(hf, t, end);
            const int32_t gap = (c < nc ? c : nc) - (f > nf ? f : nf);
            if (gap < wh)
                continue;
            if (nf - f < -climb)
                return 1;
            if (nf - f <= climb) {
                if (nf < acc_min)
                    acc_min = nf;
                if (nf > acc_max)
                    acc_max = nf;
            }
        }
    }
    return acc_max - acc_min > climb;
}

static void ref_ledge(op_heightfield *hf, int wh, int climb)
{
    for (uint32_t z = 0; z < hf->depth; z++)
        for (uint32_t x = 0; x < hf->width; x++)
            for (uint32_t s = op_heightfield_begin(hf, x, z); s < op_heightfield_end(hf, x, z);
                 s++)
                if (hf->area[s] != OP_NULL_AREA && ref_is_ledge(hf, x, z, s, wh, climb))
                    hf->area[s] = OP_NULL_AREA;
}

/* Random solid heightfields: smooth-ish floors so that slopes, drops and steps near
 * walkable_climb all occur, 0..3 spans per column, empty columns, area-0 spans. */
static void random_hf(op_ctx *ctx, op_heightfield *hf, uint64_t seed, uint32_t w, uint32_t d)
{
    op_test_hf(ctx, hf, w, d, NULL, 1.0f, 1.0f, 100);
    op_rng rng = {seed};
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            if (op_rng_below(&rng, 10) == 0)
                continue;
            const uint32_t floors = 1 + op_rng_below(&rng, 3);
            uint32_t y = 20 + (x + z) / 3 + op_rng_below(&rng, 8);
            for (uint32_t k = 0; k < floors && y < 60000; k++) {
                const uint32_t top = y + 1 + op_rng_below(&rng, 6);
                const uint8_t area = op_rng_below(&rng, 6) ? OP_WALKABLE_AREA : OP_NULL_AREA;
                assert_int_equal(op_heightfield_add_span(ctx, hf, x, z, (uint16_t)y,
                                                         (uint16_t)top, area, 1),
                                 OP_OK);
                y = top + 2 + op_rng_below(&rng, 16);
            }
        }
}

static void test_ledge_matches_previous(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        const int large = seed == 40;
        const uint32_t w = large ? 300 : 1 + (uint32_t)(seed * 7 % 19);
        const uint32_t d = large ? 250 : 1 + (uint32_t)(seed * 5 % 17);
        const int wh = 2 + (int)(seed % 10), climb = (int)(seed % 5);
        op_heightfield a, b;
        random_hf(&ctx, &a, seed, w, d);
        random_hf(&ctx, &b, seed, w, d);
        op_filter_ledge_spans(&a, wh, climb);
        ref_ledge(&b, wh, climb);
        uint32_t ledges = 0;
        for (uint32_t s = 0; s < a.span_used; s++) {
            if (a.area[s] != b.area[s])
                fail_msg("seed %llu (%ux%u, wh %d climb %d): span %u area %u, reference %u",
                         (unsigned long long)seed, w, d, wh, climb, s, a.area[s], b.area[s]);
            ledges += a.area[s] == OP_NULL_AREA;
        }
        if (large)
            assert_true(ledges > 0 && ledges < a.span_used); /* both outcomes occur */
        op_heightfield_free(&a);
        op_heightfield_free(&b);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watershed_matches_previous),
        cmocka_unit_test(test_watershed_matches_previous_large),
        cmocka_unit_test(test_watershed_nothing_to_do),
        cmocka_unit_test(test_links_match_previous),
        cmocka_unit_test(test_ledge_matches_previous),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
