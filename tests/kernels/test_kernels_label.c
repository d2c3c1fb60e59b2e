/* Labelling kernels (regions-contours §4 shortcut and layer-first partition; issue 5):
 * every variant this machine runs against the scalar twin and against an independent
 * union-find reference written here, byte for byte and count for count, with guard
 * zones around the output. Fields are adversarial for the SIMD kernel's shortcuts:
 * links cut to one-way, adjacent areas, layer changes inside rows, components that
 * meet only late (combs, spirals, a two-floor garage with ramps), non-grid mutual links
 * pointing to larger spans (the deferred edges), empty / all-area-0 fields, one huge
 * component, and every row length around the vector and group widths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "util/testutil.h"

#define GUARD 32
#define SENT 0xC3C3C3C3u

static op_isa variants[OP_ISA_COUNT];
static int variant_count;

static int setup(void **state)
{
    (void)state;
    op_isa_info info[OP_ISA_COUNT];
    assert_int_equal(op_isa_list(info, OP_ISA_COUNT), OP_ISA_COUNT);
    variant_count = 0;
    for (int i = 0; i < OP_ISA_COUNT; i++)
        if (info[i].available)
            variants[variant_count++] = info[i].isa; /* scalar included */
    return 0;
}

/* ---- independent reference --------------------------------------------------------- */

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* Union-find over every mutual link (both ends, all directions), then ids by first
 * span. Returns the count. */
static uint32_t reference(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                          uint32_t *out)
{
    const uint32_t n = chf->span_count;
    uint32_t *p = malloc((n ? n : 1) * sizeof *p), *id = calloc(n ? n : 1, sizeof *id);
    assert_non_null(p);
    assert_non_null(id);
    for (uint32_t s = 0; s < n; s++)
        p[s] = s;
    for (uint32_t s = 0; s < n; s++)
        for (int d = 0; d < 4; d++) {
            if (!(chf->mutual[s] >> d & 1))
                continue;
            const uint32_t t = op_chf_link(chf, d, s);
            assert_true(t < n);
            if (area[s] == 0 || area[t] != area[s] || (layer && layer[t] != layer[s]))
                continue;
            const uint32_t a = uf_find(p, s), b = uf_find(p, t);
            p[a > b ? a : b] = a < b ? a : b;
        }
    uint32_t next = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (area[s] == 0) {
            out[s] = 0;
            continue;
        }
        const uint32_t r = uf_find(p, s);
        if (!id[r])
            id[r] = ++next;
        out[s] = id[r];
    }
    free(p);
    free(id);
    return next;
}

/* Every variant equals the reference (labels, count, untouched guards). Returns the
 * component count. */
static uint32_t check(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                      const char *what)
{
    const uint32_t n = chf->span_count;
    uint32_t *ref = malloc(((size_t)n + 1) * sizeof *ref);
    uint32_t *buf = malloc(((size_t)n + 2 * GUARD) * sizeof *buf);
    assert_non_null(ref);
    assert_non_null(buf);
    const uint32_t cref = reference(chf, area, layer, ref);
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (int v = 0; v < variant_count; v++) {
        for (size_t i = 0; i < (size_t)n + 2 * GUARD; i++)
            buf[i] = SENT;
        uint32_t cnt = 0xdeadbeefu;
        op_kernels k;
        op_kernels_init(&k, variants[v], op_isa_flags(variants[v]));
        const op_label_view graph = op_label_view_of(chf, area, layer);
        assert_int_equal(k.label.components(&graph, buf + GUARD, &cnt, &ctx.arena), 0);
        for (uint32_t i = 0; i < GUARD; i++)
            if (buf[i] != SENT || buf[GUARD + n + i] != SENT)
                fail_msg("%s: %s wrote outside [0, n)", what, op_isa_name(variants[v]));
        for (uint32_t s = 0; s < n; s++)
            if (buf[GUARD + s] != ref[s])
                fail_msg("%s: %s span %u of %u: label %u, reference %u", what,
                         op_isa_name(variants[v]), s, n, buf[GUARD + s], ref[s]);
        if (cnt != cref)
            fail_msg("%s: %s count %u, reference %u", what, op_isa_name(variants[v]), cnt, cref);
    }
    op_ctx_free(&ctx);
    free(ref);
    free(buf);
    return cref;
}

/* ---- fields ------------------------------------------------------------------------- */

/* Cell (x, z) holds cnt(x, z) spans; span k gets floor y(x, z, k), clearance 255 on
 * top else up to the next floor, area a(x, z, k). Links by the §1.5 rule (height 10,
 * climb 4). */
typedef struct grid_rule {
    uint32_t w, d;
    uint32_t (*cnt)(const struct grid_rule *g, uint32_t x, uint32_t z);
    uint32_t (*y)(const struct grid_rule *g, uint32_t x, uint32_t z, uint32_t k);
    uint8_t (*a)(const struct grid_rule *g, uint32_t x, uint32_t z, uint32_t k);
    uint32_t param;
} grid_rule;

static void build(op_ctx *ctx, op_chf *chf, const grid_rule *g)
{
    uint32_t total = 0;
    for (uint32_t z = 0; z < g->d; z++)
        for (uint32_t x = 0; x < g->w; x++)
            total += g->cnt(g, x, z);
    assert_int_equal(op_chf_alloc(ctx, chf, g->w, g->d, total), OP_OK);
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    uint32_t s = 0;
    for (uint32_t z = 0; z < g->d; z++)
        for (uint32_t x = 0; x < g->w; x++) {
            const uint32_t c = x + z * g->w, k_n = g->cnt(g, x, z);
            chf->cell_first[c] = s;
            for (uint32_t k = 0; k < k_n; k++, s++) {
                const uint32_t y = g->y(g, x, z, k);
                chf->y[s] = (uint16_t)y;
                chf->h[s] = (uint8_t)(k + 1 < k_n ? g->y(g, x, z, k + 1) - y : 255);
                chf->area[s] = g->a(g, x, z, k);
            }
        }
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
}

static uint32_t c_one(const grid_rule *g, uint32_t x, uint32_t z)
{
    (void)g, (void)x, (void)z;
    return 1;
}
static uint32_t y_flat(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)x, (void)z;
    return 30 * k;
}
static uint8_t a_walk(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)x, (void)z, (void)k;
    return 63;
}
static uint8_t a_zero(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)x, (void)z, (void)k;
    return 0;
}
/* Two areas in a checkerboard: every cell its own component. */
static uint8_t a_check(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)k;
    return (x + z) % 2 ? 63 : 1;
}
/* Comb: teeth at every param-th column, joined only by the last row. */
static uint8_t a_comb(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)k;
    return z + 1 == g->d || x % g->param == 0 ? 63 : 0;
}
/* A square spiral path of walkable cells, one cell wide, turning right whenever the
 * cell two ahead is taken (so the turns stay apart): one component whose spans meet
 * their first span only at the end of a long walk. */
#define SPIRAL_MAX 64
static uint8_t spiral[SPIRAL_MAX * SPIRAL_MAX];
static void make_spiral(uint32_t n)
{
    memset(spiral, 0, sizeof spiral);
    int x = 0, z = 0, dx = 1, dz = 0;
    const int m = (int)n;
    spiral[0] = 1;
    for (;;) {
        int moved = 0;
        for (int turn = 0; turn < 2 && !moved; turn++) {
            const int nx = x + dx, nz = z + dz, fx = x + 2 * dx, fz = z + 2 * dz;
            const int in1 = nx >= 0 && nz >= 0 && nx < m && nz < m;
            const int in2 = fx >= 0 && fz >= 0 && fx < m && fz < m;
            if (in1 && !spiral[nx + nz * SPIRAL_MAX] && (!in2 || !spiral[fx + fz * SPIRAL_MAX])) {
                x = nx;
                z = nz;
                spiral[x + z * SPIRAL_MAX] = 1;
                moved = 1;
            } else {
                const int t = dx;
                dx = -dz;
                dz = t;
            }
        }
        if (!moved)
            break;
    }
}
static uint8_t a_spiral(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)k;
    return spiral[x + z * SPIRAL_MAX] ? 63 : 0;
}

/* Two floors (y 0 and 30) everywhere except two ramp strips where one span climbs
 * from 0 to 30 in steps of 3 (along +x) or falls back (strip 2). */
static uint32_t c_garage(const grid_rule *g, uint32_t x, uint32_t z)
{
    (void)z;
    const uint32_t p = g->param;
    return (x >= p && x < p + 11) || (x >= 3 * p && x < 3 * p + 11) ? 1 : 2;
}
static uint32_t y_garage(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)z;
    const uint32_t p = g->param;
    if (x >= p && x < p + 11)
        return 3 * (x - p);
    if (x >= 3 * p && x < 3 * p + 11)
        return 30 - 3 * (x - 3 * p);
    return 30 * k;
}
static uint8_t a_garage(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)k;
    return z == g->d / 2 && x == g->w / 2 ? 0 : 63; /* one hole, both floors */
}

/* Random single-floor areas: param % 100 holes, areas 1..3 in patches. */
static uint8_t a_rand(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    op_rng r = {((uint64_t)g->param << 32) ^ (x * 7919u + z * 104729u + k * 13u)};
    if (op_rng_below(&r, 100) < g->param % 100)
        return 0;
    return op_rng_below(&r, 5) ? (uint8_t)(63 - ((x / 4 + z / 3) % 3)) : 1;
}

/* Two rows. Row 0: cell 0 holds a low span (y 0, clearance 16) and a high one (y 16),
 * cells 1..16 one span at y 12 (area 63), further cells area 1. Row 1: cell 0 at y 4,
 * the others at y 8. So row 1's cell 0 links -z to the LOW span while cell 1's -z
 * neighbour (row 0, cell 1) links -x to the HIGH one: consecutive -z neighbours that
 * are index-consecutive but not x-linked to each other's -z partner. Wrong "implied
 * union" shortcuts leave row 0 apart from row 1. */
static uint32_t c_step(const grid_rule *g, uint32_t x, uint32_t z)
{
    (void)g;
    return x == 0 && z == 0 ? 2 : 1;
}
static uint32_t y_step(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g;
    if (z == 0)
        return x == 0 ? 16 * k : 12;
    return x == 0 ? 4 : 8;
}
static uint8_t a_step(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g, (void)k;
    return z == 0 && x > 16 ? 1 : 63;
}

/* ---- tests -------------------------------------------------------------------------- */

/* The step field at every width 17..80, so that row 1 starts at every offset modulo
 * the vector and group widths. */
static void test_step_rows(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint32_t w = 17; w <= 80; w++) {
        grid_rule g = {w, 2, c_step, y_step, a_step, 0};
        op_chf chf;
        build(&ctx, &chf, &g);
        /* the geometry this test relies on */
        assert_int_equal(op_chf_link(&chf, 3, chf.cell_first[w]), 0);     /* row 1 cell 0: low */
        assert_int_equal(op_chf_link(&chf, 0, chf.cell_first[1]), 1);     /* row 0 cell 1: high */
        assert_int_equal(op_chf_link(&chf, 3, chf.cell_first[w + 1]), 2); /* row 1 cell 1 */
        assert_int_equal(check(&chf, chf.area, NULL, "step rows"), w > 17 ? 2 : 1);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* A flat field whose column x = cut has its +x links removed: the links into it from
 * x = cut + 1 become one-way, which must not join. keep_row keeps one row mutual. */
static void test_one_way_links(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    static const uint32_t widths[] = {3, 40};
    for (size_t wi = 0; wi < 2; wi++) {
        const uint32_t w = widths[wi];
        for (int keep = -1; keep < 2; keep++) {
            grid_rule g = {w, 5, c_one, y_flat, a_walk, 0};
            op_chf chf;
            build(&ctx, &chf, &g);
            const uint32_t cut = w / 2;
            for (uint32_t z = 0; z < g.d; z++)
                if ((int)z != keep)
                    op_test_set_link(&chf, 2, chf.cell_first[cut + z * w], OP_NO_LINK);
            op_mutual_links_scalar(&chf, chf.mutual, 0, chf.span_count);
            char what[64];
            snprintf(what, sizeof what, "one-way w %u keep %d", w, keep);
            assert_int_equal(check(&chf, chf.area, NULL, what), keep < 0 ? 2 : 1);
            /* Cut every -z link of row 2 as well (one-way the other way round). */
            for (uint32_t x = 0; x < w; x++)
                op_test_set_link(&chf, 3, chf.cell_first[x + 2 * w], OP_NO_LINK);
            op_mutual_links_scalar(&chf, chf.mutual, 0, chf.span_count);
            check(&chf, chf.area, NULL, what);
            op_chf_free(&chf);
        }
    }
    op_ctx_free(&ctx);
}

static void test_areas_and_layers(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    /* Checkerboard of two areas: every cell alone. */
    grid_rule g = {37, 11, c_one, y_flat, a_check, 0};
    op_chf chf;
    build(&ctx, &chf, &g);
    assert_int_equal(check(&chf, chf.area, NULL, "checkerboard"), 37 * 11);
    /* Layers changing inside rows (every 1..19 spans) on one area. */
    uint32_t *layer = malloc(chf.span_count * sizeof *layer);
    uint8_t *flat = malloc(chf.span_count);
    assert_non_null(layer);
    assert_non_null(flat);
    memset(flat, 63, chf.span_count);
    for (uint32_t every = 1; every < 20; every++) {
        for (uint32_t s = 0; s < chf.span_count; s++)
            layer[s] = (s / every + s / 37) % 3;
        check(&chf, flat, layer, "layers in rows");
        check(&chf, chf.area, layer, "layers and areas");
    }
    /* A single layer: same as no layer, one component. */
    memset(layer, 0, chf.span_count * sizeof *layer);
    assert_int_equal(check(&chf, flat, layer, "one layer"), 1);
    assert_int_equal(check(&chf, flat, NULL, "no layer"), 1);
    free(layer);
    free(flat);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Components that meet late: comb teeth joined by the last row, a spiral. */
static void test_late_merges(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint32_t tooth = 2; tooth <= 9; tooth++) {
        grid_rule g = {53, 17, c_one, y_flat, a_comb, tooth};
        op_chf chf;
        build(&ctx, &chf, &g);
        assert_int_equal(check(&chf, chf.area, NULL, "comb"), 1);
        op_chf_free(&chf);
    }
    for (uint32_t n = 5; n <= SPIRAL_MAX; n += 4) {
        make_spiral(n);
        grid_rule g = {n, n, c_one, y_flat, a_spiral, 0};
        op_chf chf;
        build(&ctx, &chf, &g);
        assert_int_equal(check(&chf, chf.area, NULL, "spiral"), 1);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* Two floors joined by ramps: multi-floor columns, irregular -x links, one-way links
 * where the ramp meets the floors. */
static void test_garage(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint32_t p = 12; p <= 20; p += 4) {
        grid_rule g = {4 * p + 13, 9 + p % 7, c_garage, y_garage, a_garage, p};
        op_chf chf;
        build(&ctx, &chf, &g);
        const uint32_t cnt = check(&chf, chf.area, NULL, "garage");
        assert_true(cnt >= 1 && cnt < 6);
        uint32_t *layer = malloc(chf.span_count * sizeof *layer);
        assert_non_null(layer);
        for (uint32_t c = 0; c < chf.width * chf.depth; c++)
            for (uint32_t k = 0; k < op_chf_cell_count(&chf, c); k++)
                layer[chf.cell_first[c] + k] = k;
        check(&chf, chf.area, layer, "garage layers");
        free(layer);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* Mutual pairs in non-grid places, including -x / -z links to larger spans (edges the
 * SIMD kernel defers) and +x / +z links to smaller ones. */
static void test_non_grid_links(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    /* Two separate floors (one per cell, all of them on one area): the only joint is
     * one injected pair, in each direction and each order. */
    for (int d = 0; d < 4; d++)
        for (int up = 0; up < 2; up++) {
            grid_rule g = {30, 6, c_one, y_flat, a_walk, 0};
            op_chf chf;
            build(&ctx, &chf, &g);
            for (uint32_t x = 0; x < 30; x++) /* split the rows 0-2 from 3-5 */
                op_test_set_link(&chf, 3, chf.cell_first[x + 3 * 30], OP_NO_LINK);
            const uint32_t lo = 17, hi = 4 * 30 + 9; /* spans in the two halves */
            const uint32_t a = up ? lo : hi, b = up ? hi : lo;
            op_test_set_link(&chf, d, a, b);
            op_test_set_link(&chf, (d + 2) & 3, b, a);
            op_mutual_links_scalar(&chf, chf.mutual, 0, chf.span_count);
            assert_int_equal(check(&chf, chf.area, NULL, "injected pair"), 1);
            op_chf_free(&chf);
        }
    /* Many random pairs on random multi-floor fields. */
    for (uint64_t seed = 1; seed <= 30; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 10 + (uint32_t)seed * 3, 5 + (uint32_t)(seed % 7));
        o.max_floors = 1 + (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        op_rng r = {seed * 77};
        const uint32_t n = chf.span_count;
        for (uint32_t i = 0; i < 1 + seed % 9 && n >= 2; i++) {
            const uint32_t a = op_rng_below(&r, n), b = op_rng_below(&r, n);
            const int d = (int)op_rng_below(&r, 4);
            op_test_set_link(&chf, d, a, b);
            op_test_set_link(&chf, (d + 2) & 3, b, a);
        }
        op_mutual_links_scalar(&chf, chf.mutual, 0, n);
        check(&chf, chf.area, NULL, "random pairs");
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* Empty, all area 0, one huge component, every row length 1..40 (the vector widths
 * 4 / 8 / 16 and the 16-span groups, plus tails) with 1..3 rows. */
static void test_shapes(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    grid_rule g0 = {4, 4, c_one, y_flat, a_walk, 0};
    build(&ctx, &chf, &g0);
    const uint32_t keep = chf.span_count;
    chf.span_count = 0;
    assert_int_equal(check(&chf, chf.area, NULL, "empty"), 0);
    chf.span_count = keep;
    op_chf_free(&chf);

    grid_rule gz = {45, 7, c_one, y_flat, a_zero, 0};
    build(&ctx, &chf, &gz);
    assert_int_equal(check(&chf, chf.area, NULL, "all area 0"), 0);
    op_chf_free(&chf);

    grid_rule gh = {300, 300, c_one, y_flat, a_walk, 0}; /* the larger case */
    build(&ctx, &chf, &gh);
    assert_int_equal(check(&chf, chf.area, NULL, "huge"), 1);
    op_chf_free(&chf);

    for (uint32_t w = 1; w <= 40; w++)
        for (uint32_t d = 1; d <= 3; d++)
            for (uint32_t holes = 0; holes <= 20; holes += 10) {
                grid_rule g = {w, d, c_one, y_flat, a_rand, holes + 100 * (w * 3 + d)};
                build(&ctx, &chf, &g);
                check(&chf, chf.area, NULL, "row lengths");
                op_chf_free(&chf);
            }
    op_ctx_free(&ctx);
}

/* Random multi-floor fields (one-way links where floors are close), with and without
 * layers. */
static void test_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 3 + (uint32_t)(seed * 7 % 61), 2 + (uint32_t)(seed % 13));
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.hole_percent = (uint32_t)(seed % 6);
        o.empty_percent = (uint32_t)(seed % 5);
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.y_jitter = (uint32_t)(seed % 4);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        check(&chf, chf.area, NULL, "random");
        uint32_t *layer = malloc((chf.span_count + 1) * sizeof *layer);
        assert_non_null(layer);
        op_rng r = {seed};
        for (uint32_t s = 0; s < chf.span_count; s++)
            layer[s] = op_rng_below(&r, 8) ? s / 23 % 2 : 2;
        check(&chf, chf.area, layer, "random layers");
        free(layer);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* k floors in every column (k by bands of rows, 1..4), then random damage: links
 * rewired to another floor of the same neighbour cell (kept mutual), links cut to
 * one-way, area patches and holes. Rows of k-floor columns are where the SIMD kernel
 * follows -x links of stride k and takes -z unions as implied; the damage breaks the
 * conditions of that shortcut in every way at random places. */
static uint32_t c_floors(const grid_rule *g, uint32_t x, uint32_t z)
{
    (void)x;
    return 1 + (z / 3 + g->param) % 4;
}
static uint32_t y_floors(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    (void)g;
    return 30 * k + (x / 5 + z / 2) % 3;
}
static uint8_t a_floors(const grid_rule *g, uint32_t x, uint32_t z, uint32_t k)
{
    op_rng r = {((uint64_t)g->param << 20) ^ (x * 31u + z * 1009u + k * 7u)};
    const uint32_t roll = op_rng_below(&r, 100);
    return roll < 3 ? 0 : roll < 8 ? 1 : 63;
}

static void test_floors(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint32_t seed = 0; seed < 160; seed++) {
        grid_rule g = {20 + seed % 23, 6 + seed % 5, c_floors, y_floors, a_floors, seed};
        op_chf chf;
        build(&ctx, &chf, &g);
        op_rng r = {seed + 1};
        const uint32_t n = chf.span_count, damage = 1 + seed % 12;
        for (uint32_t i = 0; i < damage; i++) {
            const uint32_t a = op_rng_below(&r, n);
            const int d = (int)op_rng_below(&r, 4);
            const uint32_t t = op_chf_link(&chf, d, a);
            if (t == OP_NO_LINK)
                continue;
            if (op_rng_below(&r, 3) == 0) {
                op_test_set_link(&chf, d, a, OP_NO_LINK); /* one-way */
                continue;
            }
            const uint32_t c = op_chf_span_cell(&chf, t); /* another floor of t's cell */
            const uint32_t b = chf.cell_first[c] + op_rng_below(&r, op_chf_cell_count(&chf, c));
            op_test_set_link(&chf, d, a, b);
            op_test_set_link(&chf, (d + 2) & 3, b, a);
        }
        op_mutual_links_scalar(&chf, chf.mutual, 0, n);
        check(&chf, chf.area, NULL, "floors");
        uint32_t *layer = malloc((n + 1) * sizeof *layer);
        assert_non_null(layer);
        for (uint32_t s = 0; s < n; s++)
            layer[s] = op_rng_below(&r, 40) ? 0 : 1;
        check(&chf, chf.area, layer, "floors layers");
        free(layer);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_way_links), cmocka_unit_test(test_areas_and_layers),
        cmocka_unit_test(test_late_merges),   cmocka_unit_test(test_garage),
        cmocka_unit_test(test_non_grid_links), cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_random),        cmocka_unit_test(test_step_rows),
        cmocka_unit_test(test_floors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
