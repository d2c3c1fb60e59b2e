/* Erosion (supplement §1.6): the exact distance with diagonals reached either way,
 * against a brute-force Bellman-Ford on random multi-floor fields and by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "onepath/onepath.h"
#include "core/kernels.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* Diagonals whose two step orders (d then d+1, d+1 then d) reach different spans. */
static uint64_t orders_differ(const op_chf *chf)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < chf->span_count; s++)
        for (int d = 0; d < 4; d++) {
            const int e = (d + 1) & 3;
            uint32_t c1 = OP_NO_LINK, c2 = OP_NO_LINK;
            if (chf->mutual[s] >> d & 1 && chf->mutual[op_chf_link(chf, d, s)] >> e & 1)
                c1 = op_chf_link(chf, e, op_chf_link(chf, d, s));
            if (chf->mutual[s] >> e & 1 && chf->mutual[op_chf_link(chf, e, s)] >> d & 1)
                c2 = op_chf_link(chf, d, op_chf_link(chf, e, s));
            n += c1 != OP_NO_LINK && c2 != OP_NO_LINK && c1 != c2;
        }
    return n;
}

static void check_erosion(op_ctx *ctx, const op_chf *chf, int radius, const char *what)
{
    op_chf e;
    assert_int_equal(op_chf_copy(ctx, &e, chf), OP_OK);
    assert_int_equal(op_erode_walkable_area(ctx, &e, radius), OP_OK);
    uint32_t *dist = malloc((chf->span_count ? chf->span_count : 1) * sizeof(uint32_t));
    op_test_brute_distance(chf, dist);
    for (uint32_t s = 0; s < chf->span_count; s++) {
        const uint8_t want = dist[s] < 2u * (uint32_t)radius ? 0 : chf->area[s];
        if (e.area[s] != want)
            fail_msg("%s radius %d span %u: area %u, want %u (distance %u)", what, radius, s,
                     e.area[s], want, dist[s]);
        /* Erosion changes areas only. */
        for (int d = 0; d < 4; d++)
            assert_int_equal(op_chf_link(&e, d, s), op_chf_link(chf, d, s));
        assert_int_equal(e.mutual[s], chf->mutual[s]);
    }
    free(dist);
    op_chf_free(&e);
}

static void test_erode_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 24; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 6 + (uint32_t)(seed % 17), 5 + (uint32_t)(seed % 13));
        o.hole_percent = (uint32_t)(seed % 4);
        o.empty_percent = (uint32_t)(seed % 6);
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.y_jitter = (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        char what[32];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        for (int r = 0; r <= 4; r++)
            check_erosion(&ctx, &chf, r, what);
        op_chf_free(&chf);
    }
    /* One larger field. */
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 120, 90);
    o.max_floors = 3;
    o.y_jitter = 2;
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 777, &o), OP_OK);
    check_erosion(&ctx, &chf, 3, "large");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Flat 11x11 floor with one empty cell at (3,4). The span at (5,5) is a knight's move
 * from the hole: its orthogonal neighbours (4,5), (5,4) are at distance 2, but the
 * diagonal from the boundary span (4,4) gives 3 < 4 = 2·radius for radius 2, so it is
 * eroded; an orthogonal-only metric would give 4 and keep it. */
static void test_erode_diagonal(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    op_test_hf(&ctx, &hf, 11, 11, NULL, 1, 1, 10);
    for (uint32_t z = 0; z < 11; z++)
        for (uint32_t x = 0; x < 11; x++)
            if (!(x == 3 && z == 4))
                op_test_span(&ctx, &hf, x, z, 0, 1, 63);
    op_chf chf;
    assert_int_equal(op_build_compact_heightfield(&ctx, &hf, 2, 0, &chf), OP_OK);
    op_heightfield_free(&hf);
    uint32_t *dist = malloc(chf.span_count * sizeof(uint32_t));
    assert_int_equal(ctx.k->distance.field(&chf, chf.area, dist, &ctx.arena), 0);
#define SPAN(x, z) chf.cell_first[(x) + (z)*11]
    assert_int_equal(dist[SPAN(4, 4)], 0);
    assert_int_equal(dist[SPAN(5, 4)], 2);
    assert_int_equal(dist[SPAN(4, 5)], 2);
    assert_int_equal(dist[SPAN(5, 5)], 3);
    assert_int_equal(dist[SPAN(6, 6)], 6);
    free(dist);
    check_erosion(&ctx, &chf, 2, "diagonal");
    /* Radius 0 is a no-op; a negative radius is an error. */
    op_chf e;
    assert_int_equal(op_chf_copy(&ctx, &e, &chf), OP_OK);
    assert_int_equal(op_erode_walkable_area(&ctx, &e, 0), OP_OK);
    assert_memory_equal(e.area, chf.area, chf.span_count);
    assert_int_equal(op_erode_walkable_area(&ctx, &e, -1), OP_INVALID_ARGUMENT);
    assert_int_equal(op_erode_walkable_area(&ctx, &e, 2), OP_OK);
    assert_int_equal(e.area[SPAN(5, 5)], 0);
    assert_int_equal(e.area[SPAN(6, 6)], 63);
    assert_int_equal(e.area[SPAN(4, 6)], 0);  /* diagonal from (3,5): 3 */
    assert_int_equal(e.area[SPAN(5, 6)], 63); /* 5 by every path */
    /* Radius 1 keeps everything at distance >= 2, e.g. (5,4). */
    op_chf_free(&e);
    assert_int_equal(op_chf_copy(&ctx, &e, &chf), OP_OK);
    assert_int_equal(op_erode_walkable_area(&ctx, &e, 1), OP_OK);
    assert_int_equal(e.area[SPAN(5, 4)], 63);
    assert_int_equal(e.area[SPAN(4, 4)], 0);
    assert_int_equal(e.area[SPAN(0, 5)], 0); /* grid border */
#undef SPAN
    op_chf_free(&e);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Two full floors A (y 0) and B (y 50) on a 9x9 grid, floors linked to themselves,
 * except that the edge between cells p = (5,4) and q = (5,5) is twisted: A(p) +z → B(q)
 * and B(p) +z → A(q), all mutual. s = A(4,4) loses its -x link (a boundary span, as is
 * A(3,4)). From s, +x then +z reaches c1 = B(5,5); +z then +x reaches c2 = A(5,5): both
 * are diagonal neighbours of s ("reached either way", supplement §1.6, §9.1) at
 * distance 3, although their orthogonal neighbours are at 2 → 4 otherwise. */
static void twisted_field(op_ctx *ctx, op_chf *chf)
{
    const uint32_t W = 9, D = 9;
    assert_int_equal(op_chf_alloc(ctx, chf, W, D, 2 * W * D), OP_OK);
    chf->cs = 1;
    chf->ch = 1;
    chf->walkable_height = 2;
    chf->walkable_climb = 1;
    for (uint32_t z = 0; z < D; z++)
        for (uint32_t x = 0; x < W; x++) {
            const uint32_t c = x + z * W;
            chf->cell_first[c] = 2 * c;
            chf->y[2 * c] = 0;
            chf->h[2 * c] = 50;
            chf->y[2 * c + 1] = 50;
            chf->h[2 * c + 1] = 255;
            chf->area[2 * c] = chf->area[2 * c + 1] = 63;
            for (int d = 0; d < 4; d++) {
                const int nx = (int)x + op_dir_dx(d), nz = (int)z + op_dir_dz(d);
                if (nx < 0 || nz < 0 || nx >= (int)W || nz >= (int)D)
                    continue;
                const uint32_t nc = (uint32_t)nx + (uint32_t)nz * W;
                op_test_set_link(chf, d, 2 * c, 2 * nc);
                op_test_set_link(chf, d, 2 * c + 1, 2 * nc + 1);
            }
        }
#define A(x, z) (2 * ((x) + (z)*W))
#define B(x, z) (2 * ((x) + (z)*W) + 1)
    op_test_set_link(chf, 1, A(5, 4), B(5, 5));
    op_test_set_link(chf, 3, B(5, 5), A(5, 4));
    op_test_set_link(chf, 1, B(5, 4), A(5, 5));
    op_test_set_link(chf, 3, A(5, 5), B(5, 4));
    op_test_set_link(chf, 0, A(4, 4), OP_NO_LINK);
    op_test_set_link(chf, 2, A(3, 4), OP_NO_LINK);
#undef A
#undef B
    op_chf_build_mutual(ctx, chf);
}

static void test_erode_either_way(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    twisted_field(&ctx, &chf);
    const uint32_t W = 9;
#define A(x, z) (2 * ((x) + (z)*W))
#define B(x, z) (2 * ((x) + (z)*W) + 1)
    assert_int_equal(chf.mutual[A(5, 4)], 0xf);
    assert_int_equal(chf.mutual[B(5, 5)], 0xf);
    uint32_t *dist = malloc(chf.span_count * sizeof(uint32_t));
    uint32_t *want = malloc(chf.span_count * sizeof(uint32_t));
    assert_true(orders_differ(&chf) > 0);
    op_test_brute_distance(&chf, want);
    assert_int_equal(ctx.k->distance.field(&chf, chf.area, dist, &ctx.arena), 0);
    assert_memory_equal(dist, want, chf.span_count * sizeof(uint32_t));
    assert_int_equal(dist[A(4, 4)], 0);
    assert_int_equal(dist[A(5, 4)], 2);
    assert_int_equal(dist[A(4, 5)], 2);
    assert_int_equal(dist[B(5, 5)], 3); /* +x then +z */
    assert_int_equal(dist[A(5, 5)], 3); /* +z then +x */
    assert_int_equal(dist[B(4, 4)], 6); /* diagonal through the twist from A(5,5) */
    for (int rad = 1; rad <= 5; rad++)
        check_erosion(&ctx, &chf, rad, "twisted");
    assert_int_equal(op_erode_walkable_area(&ctx, &chf, 2), OP_OK);
    assert_int_equal(chf.area[B(5, 5)], 0);
    assert_int_equal(chf.area[A(5, 5)], 0);
    assert_int_equal(chf.area[B(4, 4)], 63);
#undef A
#undef B
    free(dist);
    free(want);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* The bounded search (src/spans/erode.c) against the full distance: radii whose limit
 * 2·radius is reached only by Dial's buckets (5..9), radii beyond the u8 cap (the full
 * distance field), on random multi-floor fields with area-0 spans inside the floor
 * (obstacles that are not holes) and long open stretches (large distances). */
static void test_erode_bounded(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 40; seed < 52; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 20 + (uint32_t)(seed % 23), 18 + (uint32_t)(seed % 19));
        o.hole_percent = (uint32_t)(seed % 2);
        o.empty_percent = (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 3);
        o.y_jitter = (uint32_t)(seed % 2);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        /* Area-0 spans inside the walkable floor: boundary spans with four links. */
        op_rng r = {seed * 7919};
        for (uint32_t s = 0; s < chf.span_count; s++)
            if (op_rng_below(&r, 100) < 2)
                chf.area[s] = 0;
        char what[32];
        snprintf(what, sizeof what, "bounded seed %llu", (unsigned long long)seed);
        for (int rad = 1; rad <= 9; rad++)
            check_erosion(&ctx, &chf, rad, what);
        check_erosion(&ctx, &chf, 127, what); /* limit 254: the largest u8 search */
        check_erosion(&ctx, &chf, 128, what); /* limit 256: the full distance field */
        check_erosion(&ctx, &chf, 1000, what);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erode_random),
        cmocka_unit_test(test_erode_bounded),
        cmocka_unit_test(test_erode_diagonal),
        cmocka_unit_test(test_erode_either_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
