/* The grid-labelling kernel family (issue 15; style.md "Tests that prove SIMD equals
 * scalar"): for every variant this machine runs, the SIMD twin against the scalar twin
 * on the same grid, outputs pre-filled with different sentinels inside guard zones,
 * payload, count and guards compared; both against an independent union-find whose ids
 * go by first tile (supplement §10.2's ids). Grids: random at every wall density, every
 * width 1..140 (every tail length of the 64-tile words), heights 1..9, 3D depths 1..4,
 * axial hex, and adversarial shapes (all open, all walls, checkerboards, combs that
 * join at the far end, spirals, diagonal chains that only hex joins, one tile). */
#include "topo_testlib.h"

#include "topology/topology_internal.h"

#define GUARD 32
#define SENT_REF 0xA5A5A5A5u
#define SENT_NEW 0x5A5A5A5Au

static op_isa variants[OP_ISA_COUNT];
static int variant_count;
static uint64_t comparisons[OP_ISA_COUNT];

static int setup(void **state)
{
    (void)state;
    op_isa_info info[OP_ISA_COUNT];
    assert_int_equal(op_isa_list(info, OP_ISA_COUNT), OP_ISA_COUNT);
    variant_count = 0;
    for (int i = 0; i < OP_ISA_COUNT; i++)
        if (info[i].available && info[i].isa != OP_ISA_SCALAR) {
            assert_non_null(op_topo_grid_label_for(info[i].isa));
            variants[variant_count++] = info[i].isa;
        }
    assert_ptr_equal(op_topo_grid_label_for(OP_ISA_SCALAR), op_grid_label_scalar);
    return 0;
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* Independent: union-find over tiles, ids by first tile. */
static uint32_t reference(const uint8_t *pass, uint32_t cx, uint32_t cy, uint32_t cz, int hex,
                          uint32_t *out)
{
    const uint32_t n = cx * cy * cz;
    uint32_t *p = malloc((n + 1) * sizeof *p), *id = calloc(n + 1, sizeof *id);
    for (uint32_t t = 0; t < n; t++)
        p[t] = t;
    for (uint32_t t = 0; t < n; t++) {
        if (!pass[t])
            continue;
        uint32_t x = t % cx, y = t / cx % cy, z = t / cx / cy;
        uint32_t nb[3];
        int k = 0;
        if (x > 0)
            nb[k++] = t - 1;
        if (y > 0)
            nb[k++] = t - cx;
        if (hex && y > 0 && x + 1 < cx)
            nb[k++] = t - cx + 1;
        if (!hex && z > 0)
            nb[k++] = t - cx * cy;
        for (int i = 0; i < k; i++)
            if (pass[nb[i]]) {
                uint32_t a = uf_find(p, t), b = uf_find(p, nb[i]);
                if (a != b)
                    p[a > b ? a : b] = a < b ? a : b;
            }
    }
    uint32_t next = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (!pass[t]) {
            out[t] = 0;
            continue;
        }
        uint32_t r = uf_find(p, t);
        if (!id[r])
            id[r] = ++next;
        out[t] = id[r];
    }
    free(p);
    free(id);
    return next;
}

static void check(const uint8_t *pass, uint32_t cx, uint32_t cy, uint32_t cz, int hex,
                  const char *what)
{
    const size_t n = (size_t)cx * cy * cz;
    size_t ss = op_grid_label_scratch_size(cx, cy, cz);
    void *scratch = malloc(ss);
    uint32_t *want = malloc(n * sizeof *want);
    uint32_t wc = reference(pass, cx, cy, cz, hex, want);
    uint32_t *ref = malloc((n + 2 * GUARD) * sizeof *ref);
    for (size_t i = 0; i < n + 2 * GUARD; i++)
        ref[i] = SENT_REF;
    uint32_t rc = op_grid_label_scalar(pass, cx, cy, cz, hex, ref + GUARD, scratch);
    if (rc != wc || memcmp(ref + GUARD, want, n * sizeof *want)) {
        fprintf(stderr, "grid_label scalar (%s, %ux%ux%u%s): differs from the union-find\n", what,
                cx, cy, cz, hex ? " hex" : "");
        fail();
    }
    for (int g = 0; g < GUARD; g++)
        assert_true(ref[g] == SENT_REF && ref[GUARD + n + g] == SENT_REF);
    uint32_t *out = malloc((n + 2 * GUARD) * sizeof *out);
    for (int v = 0; v < variant_count; v++) {
        for (size_t i = 0; i < n + 2 * GUARD; i++)
            out[i] = SENT_NEW;
        memset(scratch, 0xEE, ss);
        uint32_t c = op_topo_grid_label_for(variants[v])(pass, cx, cy, cz, hex, out + GUARD, scratch);
        if (c != rc || memcmp(out + GUARD, ref + GUARD, n * sizeof *out)) {
            size_t first = 0;
            while (first < n && out[GUARD + first] == ref[GUARD + first])
                first++;
            fprintf(stderr,
                    "grid_label %s (%s, %ux%ux%u%s): %u regions, scalar %u; first difference at "
                    "tile %zu: %u, scalar %u\n",
                    op_isa_name(variants[v]), what, cx, cy, cz, hex ? " hex" : "", c, rc, first,
                    first < n ? out[GUARD + first] : 0, first < n ? ref[GUARD + first] : 0);
            fail();
        }
        for (int g = 0; g < GUARD; g++)
            assert_true(out[g] == SENT_NEW && out[GUARD + n + g] == SENT_NEW);
        comparisons[variants[v]]++;
    }
    free(out);
    free(ref);
    free(want);
    free(scratch);
}

static void test_random_grids(void **state)
{
    (void)state;
    op_rng r = {0xC0FFEE};
    for (uint32_t cx = 1; cx <= 140; cx++)
        for (int rep = 0; rep < 3; rep++) {
            const int hex = rep == 2;
            uint32_t cy = 1 + op_rng_below(&r, 9), cz = hex ? 1 : 1 + op_rng_below(&r, rep ? 4 : 1);
            uint32_t walls = op_rng_below(&r, 101);
            size_t n = (size_t)cx * cy * cz;
            uint8_t *pass = malloc(n);
            for (size_t i = 0; i < n; i++)
                pass[i] = op_rng_below(&r, 100) >= walls;
            check(pass, cx, cy, cz, hex, "random");
            free(pass);
        }
}

static void test_adversarial(void **state)
{
    (void)state;
    static const uint32_t widths[] = {1, 2, 63, 64, 65, 127, 128, 129, 200};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        const uint32_t cx = widths[wi], cy = 37;
        const size_t n = (size_t)cx * cy;
        uint8_t *p = malloc(n * 3);
        for (int shape = 0; shape < 8; shape++) {
            for (uint32_t y = 0; y < cy; y++)
                for (uint32_t x = 0; x < cx; x++) {
                    int v = 0;
                    switch (shape) {
                    case 0: v = 1; break;                              /* all open */
                    case 1: v = 0; break;                              /* all walls */
                    case 2: v = (x + y) & 1; break;                    /* checkerboard */
                    case 3: v = (x & 1) == 0 || y == cy - 1; break;   /* comb joined at the end */
                    case 4: v = (y & 1) == 0 || x == cx - 1 - (y / 2 % 2) * (cx - 1); break; /* snake */
                    case 5: v = x == y % cx || x == (y + 1) % cx; break; /* diagonal chains */
                    case 6: v = x == (cx - 1 - y % cx); break;         /* anti-diagonal (hex joins) */
                    case 7: v = x == cx / 2 && y == cy / 2; break;      /* one tile */
                    }
                    p[y * cx + x] = (uint8_t)v;
                }
            check(p, cx, cy, 1, 0, "adversarial");
            check(p, cx, cy, 1, 1, "adversarial hex");
        }
        /* A 3D stack: layers joined only through one column. */
        memset(p, 0, n * 3);
        for (uint32_t z = 0; z < 3; z++)
            for (uint32_t y = 0; y < cy; y++)
                for (uint32_t x = 0; x < cx; x++)
                    p[z * n + y * cx + x] = (uint8_t)((y + z) % 3 == 0 || (x == 0 && y == 0));
        check(p, cx, cy, 3, 0, "layers");
        free(p);
    }
}

/* The graph's digest is the same whichever variant the context runs (single-chunk worlds
 * take the variant's kernel; multi-chunk worlds flood). */
static void test_digest_per_variant(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {99};
    for (int iter = 0; iter < 12; iter++) {
        const int hex = iter % 3 == 2, three_d = iter % 3 == 1;
        uint32_t sx = 20 + op_rng_below(&r, 200), sy = 10 + op_rng_below(&r, 60),
                 sz = three_d ? 2 + op_rng_below(&r, 4) : 1;
        const int one = iter & 1; /* one chunk, or many */
        uint32_t ch = 8 + op_rng_below(&r, 30);
        op_world_shape s = topo_shape(sx, sy, sz, one ? sx : ch, one ? sy : ch,
                                      three_d ? (one ? sz : 2) : 1,
                                      hex ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL);
        op_world w;
        topo_world(&ctx, &w, s);
        topo_fill_random(&ctx, &w, F_PASS, &r, op_rng_below(&r, 60));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        uint64_t want = 0;
        for (int v = -1; v < variant_count; v++) {
            assert_int_equal(op_ctx_set_isa(&ctx, v < 0 ? OP_ISA_SCALAR : variants[v]), OP_OK);
            op_region_graph g;
            op_region_graph_init(&ctx, &g);
            assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
            uint64_t d;
            assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
            if (v < 0)
                want = d;
            else
                assert_int_equal(d, want);
            op_region_graph_free(&g);
        }
        op_world_free(&w);
    }
    op_ctx_free(&ctx);
}

/* Every variant this CPU runs was compared. */
static void test_variants_compared(void **state)
{
    (void)state;
    for (int v = 0; v < variant_count; v++) {
        print_message("grid_label %s: %llu comparisons\n", op_isa_name(variants[v]),
                      (unsigned long long)comparisons[variants[v]]);
        assert_true(comparisons[variants[v]] > 100);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_grids),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_digest_per_variant),
        cmocka_unit_test(test_variants_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
