/* checkasm-style identity test (issue 5; style.md "Tests that prove SIMD equals
 * scalar"): for every kernel family and every variant this machine runs, the scalar
 * twin and the variant get the same seeded random input; outputs are pre-filled with
 * different sentinels and surrounded by guard zones; payload and guards are compared.
 * On failure the seed, the variant and the first differing spans are printed.
 * Inputs: random multi-floor fields (one-way links from the link rule, empty rows,
 * area changes, layers), widths 1..70, every range length modulo 64 and every begin
 * offset modulo 16 for the range kernels, injected arbitrary mutual pairs, and
 * adversarial fields (all area 0, all walkable, checkerboards, a 300-span column), and
 * for the distance field tori and rows whose distances reach its 16-bit limit.
 * Grid labelling (topology): random chunks at every wall density, every width 1..140
 * (every tail of the 64-tile words), heights 1..9, 3D depths 1..4, axial hex, and
 * adversarial shapes; the scalar twin also against an independent union-find.
 * Each variant's table is what its init ladder gives (src/core/kernel_tables.c): a slot
 * a variant inherits from the scalar twin is not compared (nothing to compare), and
 * the ladder itself is tested (test_init_ladder). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "util/testalloc.h"
#include "util/testutil.h"
#include "util/variants.h"

#define GUARD 64 /* elements of guard zone on each side */
#define SENT_REF 0xA5u
#define SENT_NEW 0x5Au

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT]; /* tables[v]: variants[v]'s ladder up to it */
static int variant_count;

static int setup(void **state)
{
    (void)state;
    op_isa_info info[OP_ISA_COUNT];
    int n = op_isa_list(info, OP_ISA_COUNT);
    assert_int_equal(n, OP_ISA_COUNT);
    for (int i = 0; i < n; i++)
        print_message("isa %-8s compiled=%d cpu=%d available=%d\n", info[i].name,
                      info[i].compiled, info[i].cpu, info[i].available);
    variant_count = op_test_simd_variants(variants, tables);
    return 0;
}

/* ---- fields ---------------------------------------------------------------------- */

typedef struct field_opts {
    uint32_t w, d, max_floors;
    uint32_t empty_row_pct, empty_cell_pct, hole_pct, areas, jitter;
    uint32_t inject_pairs; /* arbitrary extra mutual pairs */
    uint32_t second_pct;   /* when > 0: one span per cell, two in second_pct % of cells */
} field_opts;

/* A multi-floor field built here (so rows can be empty): per column 0..max_floors
 * spans, floors in slow terraces plus jitter (one-way links where floors are close),
 * areas in patches, then the §1.5 link rule and mutual links (scalar). */
static void make_field(op_ctx *ctx, op_chf *chf, uint64_t seed, const field_opts *o)
{
    op_rng r = {seed * 0x9E3779B97F4A7C15ull + 7};
    const size_t cells = (size_t)o->w * o->d;
    uint32_t *cnt = calloc(cells ? cells : 1, sizeof *cnt);
    assert_non_null(cnt);
    uint32_t total = 0;
    for (uint32_t z = 0; z < o->d; z++) {
        const int empty_row = op_rng_below(&r, 100) < o->empty_row_pct;
        for (uint32_t x = 0; x < o->w; x++) {
            uint32_t c = x + z * o->w;
            if (empty_row || op_rng_below(&r, 100) < o->empty_cell_pct)
                continue;
            cnt[c] = o->second_pct ? 1 + (op_rng_below(&r, 100) < o->second_pct)
                                   : 1 + op_rng_below(&r, o->max_floors);
            total += cnt[c];
        }
    }
    assert_int_equal(op_chf_alloc(ctx, chf, o->w, o->d, total), OP_OK);
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    static const uint8_t ids[6] = {63, 1, 2, 3, 4, 5};
    uint32_t s = 0;
    for (uint32_t z = 0; z < o->d; z++)
        for (uint32_t x = 0; x < o->w; x++) {
            uint32_t c = x + z * o->w;
            chf->cell_first[c] = s;
            uint32_t y = ((x / 6) + (z / 4)) % 3 * 2 + op_rng_below(&r, o->jitter + 1);
            for (uint32_t k = 0; k < cnt[c]; k++, s++) {
                uint32_t gap = 10 + op_rng_below(&r, 6) + (op_rng_below(&r, 3) ? 12 : 0);
                chf->y[s] = (uint16_t)y;
                chf->h[s] = (uint8_t)(k + 1 < cnt[c] ? gap : 255);
                uint32_t a = op_rng_below(&r, 4) ? ((x / 5) + (z / 7) + k) % o->areas
                                                  : op_rng_below(&r, o->areas);
                chf->area[s] = ids[a % 6];
                if (op_rng_below(&r, 100) < o->hole_pct)
                    chf->area[s] = 0;
                y += gap + op_rng_below(&r, 2);
            }
        }
    free(cnt);
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
    for (uint32_t i = 0; i < o->inject_pairs && total >= 2; i++) {
        uint32_t a = op_rng_below(&r, total), b = op_rng_below(&r, total);
        int d = (int)op_rng_below(&r, 4);
        if (op_rng_below(&r, 2)) {
            op_test_set_link(chf, d, a, b); /* mutual pair in a non-grid place */
            op_test_set_link(chf, (d + 2) & 3, b, a);
        } else {
            op_test_set_link(chf, d, a, op_rng_below(&r, 3) ? b : OP_NO_LINK); /* one-way / cut */
        }
    }
    op_mutual_links_scalar(chf, chf->mutual, 0, total);
}

/* Regions for edge classification: components (so neighbours often agree), with
 * random rewrites, zeros and the border region. */
static uint32_t *make_regions(const op_chf *chf, op_arena *arena, uint64_t seed)
{
    const uint32_t n = chf->span_count;
    uint32_t *reg = malloc((n ? n : 1) * sizeof *reg), cnt;
    assert_non_null(reg);
    const op_label_view graph = op_label_view_of(chf, chf->area, NULL);
    assert_int_equal(op_label_components_scalar(&graph, reg, &cnt, arena), 0);
    op_rng r = {seed + 99};
    for (uint32_t s = 0; s < n; s++) {
        uint32_t k = op_rng_below(&r, 40);
        if (k == 0)
            reg[s] = OP_BORDER_REGION;
        else if (k == 1)
            reg[s] = 1 + op_rng_below(&r, 5);
        else if (k == 2)
            reg[s] = 0;
    }
    return reg;
}

/* ---- comparison ------------------------------------------------------------------ */

static int failures;

static void report(const char *kernel, op_isa isa, uint64_t seed, const char *what,
                   const uint8_t *ref, const uint8_t *got, size_t elems, size_t esize,
                   long base)
{
    int shown = 0;
    fprintf(stderr, "checkasm: %s: variant %s differs from scalar (seed %llu, %s)\n", kernel,
            op_isa_name(isa), (unsigned long long)seed, what);
    for (size_t i = 0; i < elems && shown < 8; i++) {
        uint32_t a = 0, b = 0;
        memcpy(&a, ref + i * esize, esize);
        memcpy(&b, got + i * esize, esize);
        if (a != b) {
            fprintf(stderr, "  span %ld: scalar 0x%x, %s 0x%x\n", (long)i + base, a,
                    op_isa_name(isa), b);
            shown++;
        }
    }
    failures++;
}

/* ref and got: GUARD + n + GUARD elements of esize, filled with SENT_REF / SENT_NEW
 * before the calls; [lo, hi) was written. Outside it each must still hold its own
 * sentinel; inside they must agree. */
/* Comparisons made, per variant and kernel family (issue 10: asserted at the end). */
static const char *const FAMILIES[] = {"mutual_links", "edge_classify", "distance_field",
                                       "label_components", "grid_label"};
#define FAMILY_COUNT 5
static unsigned long compared[OP_ISA_COUNT][FAMILY_COUNT];

static void count_comparison(const char *kernel, op_isa isa)
{
    for (int f = 0; f < FAMILY_COUNT; f++)
        if (!strncmp(kernel, FAMILIES[f], strlen(FAMILIES[f]))) {
            compared[isa][f]++;
            return;
        }
    fail_msg("checkasm: kernel %s belongs to no family", kernel);
}

static void compare(const char *kernel, op_isa isa, uint64_t seed, const void *refv,
                    const void *gotv, size_t n, size_t esize, size_t lo, size_t hi)
{
    count_comparison(kernel, isa);
    const uint8_t *ref = refv, *got = gotv;
    const size_t total = (n + 2 * GUARD) * esize;
    for (size_t i = 0; i < total; i++) {
        const size_t e = i / esize;
        const int inside = e >= GUARD + lo && e < GUARD + hi;
        if (!inside && (ref[i] != SENT_REF || got[i] != SENT_NEW)) {
            fprintf(stderr, "checkasm: %s: guard/sentinel overwritten at element %ld "
                            "(scalar %s, %s %s), seed %llu\n",
                    kernel, (long)e - GUARD, ref[i] != SENT_REF ? "wrote" : "ok",
                    op_isa_name(isa), got[i] != SENT_NEW ? "wrote" : "ok",
                    (unsigned long long)seed);
            failures++;
            return;
        }
    }
    if (memcmp(ref + (GUARD + lo) * esize, got + (GUARD + lo) * esize, (hi - lo) * esize))
        report(kernel, isa, seed, "payload", ref + (GUARD + lo) * esize,
               got + (GUARD + lo) * esize, hi - lo, esize, (long)lo);
}

static void *guarded(size_t n, size_t esize, unsigned fill)
{
    uint8_t *p = malloc((n + 2 * GUARD) * esize);
    assert_non_null(p);
    memset(p, (int)fill, (n + 2 * GUARD) * esize);
    return p;
}

/* ---- per-kernel checks ----------------------------------------------------------- */

static void check_mutual(const op_chf *chf, uint64_t seed, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint8_t *ref = guarded(n, 1, SENT_REF);
    op_mutual_links_scalar(chf, ref + GUARD, begin, end);
    for (int v = 0; v < variant_count; v++) {
        if (tables[v].links.mutual == op_mutual_links_scalar)
            continue;
        uint8_t *got = guarded(n, 1, SENT_NEW);
        tables[v].links.mutual(chf, got + GUARD, begin, end);
        compare("mutual_links", variants[v], seed, ref, got, n, 1, begin, end);
        free(got);
    }
    free(ref);
}

static void check_edges(const op_chf *chf, const uint32_t *reg, uint64_t seed, uint32_t begin,
                        uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint8_t *ref = guarded(n, 1, SENT_REF);
    op_edge_classify_scalar(chf, reg, chf->area, OP_BORDER_REGION, ref + GUARD, begin, end);
    for (int v = 0; v < variant_count; v++) {
        if (tables[v].links.edges == op_edge_classify_scalar)
            continue;
        uint8_t *got = guarded(n, 1, SENT_NEW);
        tables[v].links.edges(chf, reg, chf->area, OP_BORDER_REGION, got + GUARD, begin, end);
        compare("edge_classify", variants[v], seed, ref, got, n, 1, begin, end);
        free(got);
    }
    free(ref);
}

static void check_erode_near(const op_chf *chf, const uint8_t *area, op_arena *arena,
                             uint64_t seed);

static void check_distance(const op_chf *chf, const uint8_t *area, op_arena *arena,
                           uint64_t seed)
{
    check_erode_near(chf, area, arena, seed);
    const uint32_t n = chf->span_count;
    uint32_t *ref = guarded(n, 4, SENT_REF);
    assert_int_equal(op_distance_field_scalar(chf, area, ref + GUARD, arena), 0);
    for (int v = 0; v < variant_count; v++) {
        const op_distance_field_fn field = tables[v].distance.field;
        if (field == op_distance_field_scalar)
            continue;
        uint32_t *got = guarded(n, 4, SENT_NEW);
        assert_int_equal(field(chf, area, got + GUARD, arena), 0);
        compare("distance_field", variants[v], seed, ref, got, n, 4, 0, n);
        /* Again into zeros: a kernel that reads an output entry before writing it (the
         * SIMD one seeds just ahead of its reads) would take them for boundaries. */
        memset(got + GUARD, 0, (size_t)n * 4);
        assert_int_equal(field(chf, area, got + GUARD, arena), 0);
        if (memcmp(ref + GUARD, got + GUARD, (size_t)n * 4))
            report("distance_field", variants[v], seed, "payload, output pre-filled with 0",
                   (const uint8_t *)(ref + GUARD), (const uint8_t *)(got + GUARD), n, 4, 0);
        free(got);
    }
    free(ref);
}

/* Erosion's distances below 4 (d, m and the eroded areas) for limits 2 (pass 1 only), 4
 * (three passes, erosion) and 6 (three passes, no erosion: the bounded search goes on). */
static void check_erode_near(const op_chf *chf, const uint8_t *area, op_arena *arena,
                             uint64_t seed)
{
    const uint32_t n = chf->span_count;
    static const uint32_t limits[] = {2, 4, 6};
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        const uint32_t limit = limits[li];
        uint8_t *dr = guarded(n, 1, SENT_REF), *mr = guarded(n, 1, SENT_REF),
                *ar = guarded(n, 1, SENT_REF);
        memcpy(ar + GUARD, area, n);
        assert_int_equal(op_erode_near_scalar(chf, ar + GUARD, dr + GUARD, mr + GUARD, limit, arena), 0);
        for (int v = 0; v < variant_count; v++) {
            const op_erode_near_fn fn = tables[v].distance.erode_near;
            if (fn == op_erode_near_scalar)
                continue;
            uint8_t *dg = guarded(n, 1, SENT_NEW), *mg = guarded(n, 1, SENT_NEW),
                    *ag = guarded(n, 1, SENT_NEW);
            memcpy(ag + GUARD, area, n);
            assert_int_equal(fn(chf, ag + GUARD, dg + GUARD, mg + GUARD, limit, arena), 0);
            compare("distance_field(erode_near d)", variants[v], seed * 8 + limit, dr, dg, n, 1, 0, n);
            compare("distance_field(erode_near m)", variants[v], seed * 8 + limit, mr, mg, n, 1, 0,
                    limit > 2 ? n : 0);
            compare("distance_field(erode_near area)", variants[v], seed * 8 + limit, ar, ag, n, 1,
                    0, n);
            free(dg);
            free(mg);
            free(ag);
        }
        free(dr);
        free(mr);
        free(ar);
    }
}

static void check_labels(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                         op_arena *arena, uint64_t seed)
{
    const uint32_t n = chf->span_count;
    uint32_t *ref = guarded(n, 4, SENT_REF), cref = 12345;
    const op_label_view graph = op_label_view_of(chf, area, layer);
    assert_int_equal(op_label_components_scalar(&graph, ref + GUARD, &cref, arena), 0);
    for (int v = 0; v < variant_count; v++) {
        if (tables[v].label.components == op_label_components_scalar)
            continue;
        uint32_t *got = guarded(n, 4, SENT_NEW), cgot = 54321;
        assert_int_equal(tables[v].label.components(&graph, got + GUARD, &cgot, arena), 0);
        compare(layer ? "label_components(layer)" : "label_components", variants[v], seed,
                ref, got, n, 4, 0, n);
        if (cref != cgot) {
            fprintf(stderr, "checkasm: label count: scalar %u, %s %u (seed %llu)\n", cref,
                    op_isa_name(variants[v]), cgot, (unsigned long long)seed);
            failures++;
        }
        free(got);
    }
    free(ref);
}

/* All four families on one field (full ranges). */
static void check_all(const op_chf *chf, op_arena *arena, uint64_t seed)
{
    const uint32_t n = chf->span_count;
    check_mutual(chf, seed, 0, n);
    uint32_t *reg = make_regions(chf, arena, seed);
    check_edges(chf, reg, seed, 0, n);
    check_distance(chf, chf->area, arena, seed);
    check_labels(chf, chf->area, NULL, arena, seed);
    /* Layers: floor index within the column, in patches; and area changes. */
    uint32_t *layer = malloc((n ? n : 1) * sizeof *layer);
    uint8_t *area2 = malloc(n ? n : 1);
    assert_non_null(layer);
    assert_non_null(area2);
    op_rng r = {seed ^ 0x1234};
    for (uint32_t c = 0; c < chf->width * chf->depth; c++)
        for (uint32_t k = 0; k < op_chf_cell_count(chf, c); k++) {
            uint32_t s = chf->cell_first[c] + k;
            layer[s] = (k + (c / 7) % 2) % 3;
            area2[s] = op_rng_below(&r, 9) == 0 ? (uint8_t)op_rng_below(&r, 3) : chf->area[s];
        }
    check_labels(chf, chf->area, layer, arena, seed);
    check_labels(chf, area2, layer, arena, seed);
    check_distance(chf, area2, arena, seed);
    free(layer);
    free(area2);
    free(reg);
}

/* ---- tests ----------------------------------------------------------------------- */

static void random_fields_pass(op_ctx *ctx)
{
    for (uint32_t w = 1; w <= 70; w++) {
        for (uint32_t rep = 0; rep < 2; rep++) {
            const uint64_t seed = w * 131u + rep;
            op_rng r = {seed};
            field_opts o = {.w = w, .d = 1 + op_rng_below(&r, 9),
                            .max_floors = 1 + op_rng_below(&r, 4),
                            .empty_row_pct = op_rng_below(&r, 3) * 10,
                            .empty_cell_pct = op_rng_below(&r, 3) * 5,
                            .hole_pct = op_rng_below(&r, 4) * 3, .areas = 1 + op_rng_below(&r, 3),
                            .jitter = op_rng_below(&r, 4),
                            .inject_pairs = rep ? op_rng_below(&r, 6) : 0};
            op_chf chf;
            make_field(ctx, &chf, seed, &o);
            check_all(&chf, &ctx->arena, seed);
            op_chf_free(&chf);
        }
    }
    /* op_random_chf (tests/util) fields too. */
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 9 + (uint32_t)seed * 5, 7 + (uint32_t)seed * 3);
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.y_jitter = (uint32_t)(seed % 5);
        op_chf chf;
        assert_int_equal(op_random_chf(ctx, &chf, seed, &o), OP_OK);
        check_all(&chf, &ctx->arena, 1000 + seed);
        op_chf_free(&chf);
    }
}

static void test_random_fields(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    random_fields_pass(&ctx);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* Range kernels: every length 0..129 (all residues mod 64, twice) at begin offsets
 * 0..16, so every head/tail combination of every vector width is exercised. */
static void test_range_tails(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    const uint64_t seed = 4242;
    field_opts o = {.w = 23, .d = 11, .max_floors = 2, .empty_row_pct = 10,
                    .empty_cell_pct = 5, .hole_pct = 6, .areas = 3, .jitter = 3,
                    .inject_pairs = 4};
    op_chf chf;
    make_field(&ctx, &chf, seed, &o);
    assert_true(chf.span_count >= 160);
    uint32_t *reg = make_regions(&chf, &ctx.arena, seed);
    for (uint32_t begin = 0; begin <= 16; begin++)
        for (uint32_t len = 0; len < 130 && begin + len <= chf.span_count; len++) {
            check_mutual(&chf, seed * 1000 + begin * 200 + len, begin, begin + len);
            check_edges(&chf, reg, seed * 1000 + begin * 200 + len, begin, begin + len);
        }
    /* Ends flush with the field. */
    for (uint32_t len = 0; len < 70; len++) {
        check_mutual(&chf, seed + len, chf.span_count - len, chf.span_count);
        check_edges(&chf, reg, seed + len, chf.span_count - len, chf.span_count);
    }
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* Adversarial fields built from a per-cell rule. */
typedef struct adv {
    uint32_t w, d;
    uint32_t (*count)(uint32_t x, uint32_t z);
    uint8_t (*area)(uint32_t x, uint32_t z, uint32_t k);
} adv;

static uint32_t one(uint32_t x, uint32_t z) { (void)x; (void)z; return 1; }
/* The centre column and every other one hold 300 spans. */
static uint32_t tower(uint32_t x, uint32_t z)
{
    return (x == 1 && z == 1) || (x + z) % 2 ? 300 : 1;
}
static uint32_t alt_floors(uint32_t x, uint32_t z) { return 1 + (x + z) % 2; }
/* A two-floor band across the field (a bridge deck over a road): inside it every
 * neighbour sits two spans away, so SIMD blocks there have -x / +x offsets of 2. */
static uint32_t band_floors(uint32_t x, uint32_t z) { return 1 + (z >= 5 && z < 17 && x >= 3); }
/* Two floors in a staircase of columns, so row offsets change inside vector blocks. */
static uint32_t stair_floors(uint32_t x, uint32_t z) { return 1 + (x >= z % 23 && x < z % 23 + 9); }
static uint8_t a_zero(uint32_t x, uint32_t z, uint32_t k) { (void)x; (void)z; (void)k; return 0; }
static uint8_t a_walk(uint32_t x, uint32_t z, uint32_t k) { (void)x; (void)z; (void)k; return 63; }
static uint8_t a_check(uint32_t x, uint32_t z, uint32_t k) { return (x + z + k) % 2 ? 63 : 1; }
static uint8_t a_holes(uint32_t x, uint32_t z, uint32_t k) { return (x + z + k) % 2 ? 63 : 0; }
static uint8_t a_stripes(uint32_t x, uint32_t z, uint32_t k)
{
    (void)z;
    (void)k;
    return x % 17 == 0 ? 0 : 63;
}

static void make_adv(op_ctx *ctx, op_chf *chf, const adv *a)
{
    uint32_t total = 0;
    for (uint32_t z = 0; z < a->d; z++)
        for (uint32_t x = 0; x < a->w; x++)
            total += a->count(x, z);
    assert_int_equal(op_chf_alloc(ctx, chf, a->w, a->d, total), OP_OK);
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    uint32_t s = 0;
    for (uint32_t z = 0; z < a->d; z++)
        for (uint32_t x = 0; x < a->w; x++) {
            uint32_t c = x + z * a->w, k, cnt = a->count(x, z);
            chf->cell_first[c] = s;
            for (k = 0; k < cnt; k++, s++) {
                chf->y[s] = (uint16_t)(k * 20);
                chf->h[s] = (uint8_t)(k + 1 < cnt ? 20 : 255);
                chf->area[s] = a->area(x, z, k);
            }
        }
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
}

static void test_adversarial(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    const adv cases[] = {
        {37, 13, one, a_zero},     {61, 29, one, a_walk},      {33, 33, one, a_check},
        {45, 20, one, a_holes},    {200, 150, one, a_stripes}, {3, 3, tower, a_walk},
        {5, 4, tower, a_check},    {1, 1, tower, a_walk},      {64, 9, alt_floors, a_walk},
        {67, 31, alt_floors, a_holes},   {70, 24, band_floors, a_walk},
        {41, 60, stair_floors, a_walk},   {53, 22, band_floors, a_stripes},
        {300, 300, one, a_walk}, /* the larger case: distances up to ~300 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_chf chf;
        make_adv(&ctx, &chf, &cases[i]);
        check_all(&chf, &ctx.arena, 7000 + i);
        op_chf_free(&chf);
    }
    /* An empty field. */
    op_chf chf;
    adv e = {4, 4, one, a_walk};
    make_adv(&ctx, &chf, &e);
    chf.span_count = 0;
    check_distance(&chf, chf.area, &ctx.arena, 1);
    check_labels(&chf, chf.area, NULL, &ctx.arena, 1);
    chf.span_count = 16;
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* Mostly single-floor fields, where the SIMD distance field relaxes whole blocks from
 * predicted places (src/simd/distance_field.c): few holes so distances grow large, a
 * sprinkling of second floors (which shift the -z / +z offsets inside a block and
 * make diagonal ways disagree), one-way and stray links, every width around the
 * vector widths. */
/* A w x d single-floor grid whose span indices are shuffled: the links still form the
 * grid, but span order follows no row, so shortest paths run against the sweep order
 * everywhere (the SIMD distance field's worst case: many sweeps, every lane
 * irregular). Spans on the grid edge are the only boundary. */
static void make_shuffled_grid(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d, uint64_t seed)
{
    const uint32_t n = w * d;
    assert_int_equal(op_chf_alloc(ctx, chf, n, 1, n), OP_OK);
    uint32_t *at = malloc(n * sizeof *at); /* grid cell -> span */
    assert_non_null(at);
    for (uint32_t i = 0; i < n; i++)
        at[i] = i;
    op_rng r = {seed};
    for (uint32_t i = n; i > 1; i--) {
        const uint32_t j = op_rng_below(&r, i), t = at[i - 1];
        at[i - 1] = at[j];
        at[j] = t;
    }
    for (uint32_t c = 0; c < n; c++) {
        chf->cell_first[c] = c;
    }
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t s = at[x + z * w];
            chf->area[s] = 63;
            chf->h[s] = 255;
            for (int dir = 0; dir < 4; dir++) {
                const int64_t nx = (int64_t)x + op_dir_dx(dir), nz = (int64_t)z + op_dir_dz(dir);
                op_test_set_link(chf, dir, s,
                                 nx < 0 || nz < 0 || nx >= w || nz >= d
                                     ? OP_NO_LINK
                                     : at[(uint32_t)nx + (uint32_t)nz * w]);
            }
        }
    free(at);
    op_mutual_links_scalar(chf, chf->mutual, 0, n);
}

static void test_shuffled_grids(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    const uint32_t sizes[][2] = {{9, 7}, {33, 17}, {64, 64}, {181, 160}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        op_chf chf;
        make_shuffled_grid(&ctx, &chf, sizes[i][0], sizes[i][1], 900 + i);
        check_distance(&chf, chf.area, &ctx.arena, 900 + i);
        check_labels(&chf, chf.area, NULL, &ctx.arena, 900 + i);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* One row of w spans (depth 1) whose +z / -z links lead to the span itself, so every
 * span but the two ends has four mutual links: distances grow to about w along the
 * row. ring: the row's ends link to each other (no boundary span at all: every span
 * unreached) unless hole marks one span area 0. The SIMD distance field works in 16
 * bits and hands fields with distances near 0xffff to the scalar twin: w = 60001
 * (distances up to 60000) stays in 16 bits, w = 70001 and a 100000-span ring with one
 * hole do not. */
static void make_long_row(op_ctx *ctx, op_chf *chf, uint32_t w, int ring, int hole)
{
    assert_int_equal(op_chf_alloc(ctx, chf, w, 1, w), OP_OK);
    for (uint32_t x = 0; x < w; x++) {
        chf->cell_first[x] = x;
        chf->area[x] = 63;
        chf->h[x] = 255;
        op_test_set_link(chf, 0, x, x > 0 ? x - 1 : ring ? w - 1 : OP_NO_LINK);
        op_test_set_link(chf, 2, x, x + 1 < w ? x + 1 : ring ? 0 : OP_NO_LINK);
        op_test_set_link(chf, 1, x, x);
        op_test_set_link(chf, 3, x, x);
    }
    if (hole)
        chf->area[w / 3] = 0;
    op_mutual_links_scalar(chf, chf->mutual, 0, w);
}

/* Tori: rows [0, l1) of a w-wide grid form one torus (x wraps at w, z at l1), rows
 * [l1, l1 + l2) another, so every span has four mutual links and only the holes (area
 * 0, one cell each where asked, at the torus' first cell) and their neighbours are
 * boundary spans. A torus without a hole is never reached (UINT32_MAX everywhere); one
 * with a hole is an open plane whose distances grow to about l along z when w is small
 * (exactly l for w = 4 and even l; about 3/2 min(w, l) when both are large).
 * Single-floor rows: the SIMD distance field relaxes most blocks from predicted
 * places, the wrapping columns are irregular. */
static void make_tori(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t l1, int hole1, uint32_t l2,
                      int hole2)
{
    const uint32_t d = l1 + l2, n = w * d;
    assert_int_equal(op_chf_alloc(ctx, chf, w, d, n), OP_OK);
    for (uint32_t z = 0; z < d; z++) {
        const uint32_t z0 = z < l1 ? 0 : l1, l = z < l1 ? l1 : l2;
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t s = x + z * w;
            chf->cell_first[s] = s;
            chf->area[s] = 63;
            chf->h[s] = 255;
            op_test_set_link(chf, 0, s, (x + w - 1) % w + z * w);
            op_test_set_link(chf, 2, s, (x + 1) % w + z * w);
            op_test_set_link(chf, 1, s, x + (z0 + (z - z0 + 1) % l) * w);
            op_test_set_link(chf, 3, s, x + (z0 + (z - z0 + l - 1) % l) * w);
        }
    }
    if (hole1 && l1)
        chf->area[0] = 0;
    if (hole2 && l2)
        chf->area[l1 * w] = 0;
    op_mutual_links_scalar(chf, chf->mutual, 0, n);
}

/* The largest finite distance of the scalar twin's field (0 when none), and whether a
 * span is unreached. */
static uint32_t max_finite(const op_chf *chf, op_arena *arena, int *unreached)
{
    const uint32_t n = chf->span_count;
    uint32_t *dist = malloc((size_t)n * 4), m = 0;
    assert_non_null(dist);
    assert_int_equal(op_distance_field_scalar(chf, chf->area, dist, arena), 0);
    *unreached = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (dist[s] == UINT32_MAX)
            *unreached = 1;
        else if (dist[s] > m)
            m = dist[s];
    }
    free(dist);
    return m;
}

/* The SIMD distance field works in 16 bits and hands a field with a finite distance at
 * or above 0xf000 to the scalar twin (src/simd/distance_field.c): fields whose largest
 * distance sits just below, at and above that line, at 0xffff and far beyond, with and
 * without unreached spans, and unreached spans alone. The cases must cover each band
 * (asserted), whatever the kernel does with them. */
static void test_long_distances(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    const uint32_t line = 0xf000;
    int below = 0, at = 0, above = 0, beyond = 0, unreached_small = 0, unreached_big = 0;
    /* One row whose +z / -z links lead to the span itself (distances up to about w);
     * ring: its ends linked, hole: one span area 0. */
    const struct {
        uint32_t w;
        int ring, hole;
    } rows[] = {{60001, 0, 0}, {70001, 0, 0}, {4099, 1, 0}, {100000, 1, 1}, {61447, 0, 0},
                {61439, 0, 0}, {61441, 0, 0}, {65535, 0, 0}, {65537, 0, 0}, {131075, 0, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        op_chf chf;
        make_long_row(&ctx, &chf, rows[i].w, rows[i].ring, rows[i].hole);
        int unr;
        const uint32_t m = max_finite(&chf, &ctx.arena, &unr);
        below += m < line && m + 16 >= line;
        at += m >= line && m < line + 16;
        above += m >= 0xffff;
        beyond += m > 0x1ffff;
        check_distance(&chf, chf.area, &ctx.arena, 9100 + i);
        op_chf_free(&chf);
    }
    const struct {
        uint32_t w, l1;
        int hole1;
        uint32_t l2;
        int hole2;
    } tori[] = {
        /* largest distance l1 (even l1): 0xf000 - 4, - 2, 0xf000, + 2, 0xfffe, 0x10000,
         * 66000 */
        {4, 61436, 1, 0, 0}, {4, 61438, 1, 0, 0}, {4, 61440, 1, 0, 0}, {4, 61442, 1, 0, 0},
        {4, 65534, 1, 0, 0}, {4, 65536, 1, 0, 0}, {5, 66000, 1, 0, 0},
        /* open planes, all unreached, unreached beside small and large distances */
        {300, 300, 1, 0, 0}, {77, 130, 1, 0, 0}, {16, 3000, 0, 0, 0}, {17, 999, 1, 1200, 0},
        {4, 61438, 1, 900, 0}, {4, 1200, 0, 61460, 1},
    };
    for (size_t i = 0; i < sizeof tori / sizeof tori[0]; i++) {
        op_chf chf;
        make_tori(&ctx, &chf, tori[i].w, tori[i].l1, tori[i].hole1, tori[i].l2, tori[i].hole2);
        int unr;
        const uint32_t m = max_finite(&chf, &ctx.arena, &unr);
        print_message("torus %u x %u%s + %u%s: largest distance %u%s\n", tori[i].w, tori[i].l1,
                      tori[i].hole1 ? " (hole)" : "", tori[i].l2, tori[i].hole2 ? " (hole)" : "",
                      m, unr ? ", unreached spans" : "");
        below += m < line && m + 16 >= line;
        at += m >= line && m < line + 16;
        above += m >= 0xffff;
        beyond += m > 0x1ffff;
        unreached_small += unr && m < line;
        unreached_big += unr && m >= line;
        check_distance(&chf, chf.area, &ctx.arena, 9200 + i);
        op_chf_free(&chf);
    }
    print_message("bands: below %d, at %d, 0xffff+ %d, 0x20000+ %d, unreached %d / %d\n", below,
                  at, above, beyond, unreached_small, unreached_big);
    assert_true(below >= 2 && at >= 2 && above >= 2 && beyond >= 1);
    assert_true(unreached_small >= 2 && unreached_big >= 1);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

static void test_mostly_regular_fields(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    failures = 0;
    for (uint32_t w = 2; w <= 72; w++) {
        for (uint32_t rep = 0; rep < 3; rep++) {
            const uint64_t seed = 50000 + w * 7u + rep;
            op_rng r = {seed};
            field_opts o = {.w = w, .d = 3 + op_rng_below(&r, 40), .max_floors = 1,
                            .empty_row_pct = rep == 2 ? 5 : 0,
                            .empty_cell_pct = op_rng_below(&r, 2),
                            .hole_pct = op_rng_below(&r, 3), .areas = 1 + (rep == 1),
                            .jitter = op_rng_below(&r, 2),
                            .inject_pairs = rep ? op_rng_below(&r, 4) : 0,
                            .second_pct = 1 + op_rng_below(&r, 6)};
            op_chf chf;
            make_field(&ctx, &chf, seed, &o);
            check_all(&chf, &ctx.arena, seed);
            op_chf_free(&chf);
        }
    }
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* ---- grid labelling (topology.md "Behavior"; supplement §10.2) ---------------------- */

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* Independent of both twins: union-find over tiles, ids by first tile. */
static uint32_t grid_reference(const uint8_t *pass, uint32_t cx, uint32_t cy, uint32_t cz, int hex,
                               uint32_t *out)
{
    const uint32_t n = cx * cy * cz;
    uint32_t *p = malloc((n + 1) * sizeof *p), *id = calloc(n + 1, sizeof *id);
    assert_true(p && id);
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

static void check_grid_label(const uint8_t *pass, uint32_t cx, uint32_t cy, uint32_t cz, int hex,
                             uint64_t seed)
{
    const size_t n = (size_t)cx * cy * cz;
    const size_t ss = op_grid_label_scratch_size(cx, cy, cz);
    void *scratch = malloc(ss);
    uint32_t *want = malloc(n * sizeof *want);
    assert_true(scratch && want);
    const uint32_t wc = grid_reference(pass, cx, cy, cz, hex, want);
    uint32_t *ref = guarded(n, 4, SENT_REF);
    const uint32_t rc = op_grid_label_scalar(pass, cx, cy, cz, hex, ref + GUARD, scratch);
    if (rc != wc || memcmp(ref + GUARD, want, n * sizeof *want)) {
        fprintf(stderr, "checkasm: grid_label scalar differs from the union-find (seed %llu, "
                        "%ux%ux%u%s)\n",
                (unsigned long long)seed, cx, cy, cz, hex ? " hex" : "");
        failures++;
    }
    for (int v = 0; v < variant_count; v++) {
        const op_grid_label_fn label = tables[v].grid_label.label;
        if (label == op_grid_label_scalar)
            continue;
        uint32_t *got = guarded(n, 4, SENT_NEW);
        memset(scratch, 0xEE, ss);
        const uint32_t c = label(pass, cx, cy, cz, hex, got + GUARD, scratch);
        if (c != rc) {
            fprintf(stderr, "checkasm: grid_label %s: %u regions, scalar %u (seed %llu)\n",
                    op_isa_name(variants[v]), c, rc, (unsigned long long)seed);
            failures++;
        }
        compare("grid_label", variants[v], seed, ref, got, n, 4, 0, n);
        free(got);
    }
    free(ref);
    free(want);
    free(scratch);
}

static void test_grid_label(void **state)
{
    (void)state;
    op_rng r = {0xC0FFEE};
    uint64_t seed = 0;
    for (uint32_t cx = 1; cx <= 140; cx++)
        for (int rep = 0; rep < 3; rep++) {
            const int hex = rep == 2;
            uint32_t cy = 1 + op_rng_below(&r, 9), cz = hex ? 1 : 1 + op_rng_below(&r, rep ? 4 : 1);
            uint32_t walls = op_rng_below(&r, 101);
            size_t n = (size_t)cx * cy * cz;
            uint8_t *pass = malloc(n);
            assert_non_null(pass);
            for (size_t i = 0; i < n; i++)
                pass[i] = op_rng_below(&r, 100) >= walls;
            check_grid_label(pass, cx, cy, cz, hex, ++seed);
            free(pass);
        }
    /* Adversarial shapes at the 64-tile word edges. */
    static const uint32_t widths[] = {1, 2, 63, 64, 65, 127, 128, 129, 200};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        const uint32_t cx = widths[wi], cy = 37;
        const size_t n = (size_t)cx * cy;
        uint8_t *p = malloc(n * 3);
        assert_non_null(p);
        for (int shape = 0; shape < 8; shape++) {
            for (uint32_t y = 0; y < cy; y++)
                for (uint32_t x = 0; x < cx; x++) {
                    int v = 0;
                    switch (shape) {
                    case 0: v = 1; break;                             /* all open */
                    case 1: v = 0; break;                             /* all walls */
                    case 2: v = (x + y) & 1; break;                   /* checkerboard */
                    case 3: v = (x & 1) == 0 || y == cy - 1; break;  /* comb joined at the end */
                    case 4: v = (y & 1) == 0 || x == cx - 1 - (y / 2 % 2) * (cx - 1); break; /* snake */
                    case 5: v = x == y % cx || x == (y + 1) % cx; break; /* diagonal chains */
                    case 6: v = x == (cx - 1 - y % cx); break;        /* anti-diagonal (hex joins) */
                    case 7: v = x == cx / 2 && y == cy / 2; break;     /* one tile */
                    }
                    p[y * cx + x] = (uint8_t)v;
                }
            check_grid_label(p, cx, cy, 1, 0, 1000 + wi * 16 + (uint64_t)shape);
            check_grid_label(p, cx, cy, 1, 1, 2000 + wi * 16 + (uint64_t)shape);
        }
        /* A 3D stack: layers joined only through one column. */
        memset(p, 0, n * 3);
        for (uint32_t z = 0; z < 3; z++)
            for (uint32_t y = 0; y < cy; y++)
                for (uint32_t x = 0; x < cx; x++)
                    p[z * n + y * cx + x] = (uint8_t)((y + z) % 3 == 0 || (x == 0 && y == 0));
        check_grid_label(p, cx, cy, 3, 0, 3000 + wi);
        free(p);
    }
    assert_int_equal(failures, 0);
}

static void test_isa_selection(void **state)
{
    (void)state;
    op_isa_info info[OP_ISA_COUNT];
    assert_int_equal(op_isa_list(info, OP_ISA_COUNT), OP_ISA_COUNT);
    assert_int_equal(op_isa_list(NULL, 0), OP_ISA_COUNT);
    assert_true(info[OP_ISA_SCALAR].available);
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        assert_int_equal(info[i].isa, i);
        assert_string_equal(info[i].name, op_isa_name((op_isa)i));
        assert_int_equal(info[i].available, op_isa_available((op_isa)i));
        assert_int_equal(info[i].available, info[i].compiled && info[i].cpu);
        op_ctx ctx;
        op_status st = op_ctx_init(&ctx, (op_isa)i);
        if (info[i].available) {
            assert_int_equal(st, OP_OK);
            assert_int_equal(ctx.isa, i);
            assert_int_equal(ctx.k->isa, i);
        } else {
            /* An unavailable variant is rejected and the context keeps a usable table. */
            assert_int_equal(st, OP_UNSUPPORTED);
            assert_non_null(ctx.k);
            assert_true(strlen(op_ctx_error(&ctx)) > 0);
        }
        op_ctx_free(&ctx);
    }
    /* ONEPATH_ISA narrows AUTO. */
    const char *old = getenv("ONEPATH_ISA");
    char *saved = old ? strdup(old) : NULL;
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        if (!info[i].available)
            continue;
        setenv("ONEPATH_ISA", info[i].name, 1);
        op_ctx ctx;
        assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
        assert_int_equal(ctx.isa, i);
        op_ctx_free(&ctx);
    }
    unsetenv("ONEPATH_ISA");
    op_isa best = op_isa_best();
    assert_true(op_isa_available(best));
    setenv("ONEPATH_ISA", "no-such-isa", 1);
    assert_int_equal(op_isa_best(), best); /* ignored */
    /* set_isa switches and rejects. */
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        op_status st = op_ctx_set_isa(&ctx, (op_isa)i);
        assert_int_equal(st, info[i].available ? OP_OK : OP_UNSUPPORTED);
        if (!info[i].available)
            assert_int_not_equal(ctx.isa, i);
    }
    assert_int_equal(op_ctx_set_isa(&ctx, (op_isa)OP_ISA_COUNT), OP_INVALID_ARGUMENT);
    op_ctx_free(&ctx);
    if (saved) {
        setenv("ONEPATH_ISA", saved, 1);
        free(saved);
    } else {
        unsetenv("ONEPATH_ISA");
    }
#if defined(__x86_64__)
    /* This build has the x86 variants; neon cannot run here. */
    assert_false(info[OP_ISA_NEON].available);
#endif
}

/* The init ladders (src/core/kernel_tables.c; dav1d's *_dsp_init): scalar twins
 * first, then one rung per variant in ladder order, stopping at the first missing CPU
 * flag. Within an architecture the op_isa enum lists the rungs in ladder order
 * (cmake/simd.cmake's table), which this test relies on to name "the rung below". */
static int same_slots(const op_kernels *a, const op_kernels *b)
{
    op_kernels c = *b;
    c.isa = a->isa; /* the slots only */
    return op_kernels_same(a, &c);
}

static int is_native(op_isa isa)
{
    return isa != OP_ISA_PORTABLE && op_isa_available(isa);
}

/* The highest available native rung below isa (scalar when none). */
static op_isa rung_below(op_isa isa)
{
    for (int i = (int)isa - 1; i > OP_ISA_SCALAR; i--)
        if (is_native((op_isa)i))
            return (op_isa)i;
    return OP_ISA_SCALAR;
}

static void test_init_ladder(void **state)
{
    (void)state;
    op_kernels scalar, t, u;
    op_kernels_init(&scalar, OP_ISA_SCALAR, 0);
    assert_true(scalar.links.mutual == op_mutual_links_scalar);
    assert_true(scalar.links.edges == op_edge_classify_scalar);
    assert_true(scalar.distance.field == op_distance_field_scalar);
    assert_true(scalar.label.components == op_label_components_scalar);
    assert_true(scalar.grid_label.label == op_grid_label_scalar);
    assert_int_equal(op_isa_flags(OP_ISA_SCALAR), 0);
    assert_int_equal(op_isa_flags((op_isa)OP_ISA_COUNT), 0);
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        const op_isa isa = (op_isa)i;
        /* No flags: no rung, whatever the variant. */
        op_kernels_init(&t, isa, 0);
        assert_true(same_slots(&t, &scalar));
        if (!op_isa_available(isa))
            continue;
        const uint32_t flags = op_isa_flags(isa);
        op_kernels_init(&t, isa, flags);
        assert_int_equal(t.isa, isa);
        if (isa == OP_ISA_SCALAR)
            continue;
        /* Its own flag, and a variant improves at least one slot. */
        assert_true(flags & (1u << isa));
        assert_false(same_slots(&t, &scalar));
        print_message("ladder %-8s mutual %s, edges %s, distance %s, label %s, grid_label %s\n",
                      op_isa_name(isa), t.links.mutual == scalar.links.mutual ? "scalar" : "own",
                      t.links.edges == scalar.links.edges ? "scalar" : "own",
                      t.distance.field == scalar.distance.field ? "scalar" : "own",
                      t.label.components == scalar.label.components ? "scalar" : "own",
                      t.grid_label.label == scalar.grid_label.label ? "scalar" : "own");
        if (isa == OP_ISA_PORTABLE) {
            /* A ladder of its own: nothing below it but scalar. */
            assert_int_equal(flags, OP_CPU_PORTABLE);
            continue;
        }
        /* A missing rung stops the ladder there: the table is the one of the rung
         * below it, whatever the flags above. */
        for (int l = OP_ISA_SCALAR + 1; l <= i; l++) {
            if (!is_native((op_isa)l))
                continue;
            assert_true(flags & (1u << l));
            op_kernels_init(&t, isa, flags & ~(1u << l));
            const op_isa below = rung_below((op_isa)l);
            op_kernels_init(&u, below, op_isa_flags(below));
            assert_true(same_slots(&t, &u));
        }
    }
    /* The context holds the forced variant's table; a worker gets its own copy. */
    op_ctx ctx, worker;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        if (!op_isa_available((op_isa)i))
            continue;
        assert_int_equal(op_ctx_set_isa(&ctx, (op_isa)i), OP_OK);
        op_kernels_init(&t, (op_isa)i, op_isa_flags((op_isa)i));
        assert_true(same_slots(ctx.k, &t));
        assert_int_equal(op_ctx_fork(&ctx, &worker), OP_OK);
        assert_true(worker.k != ctx.k);
        assert_true(same_slots(worker.k, ctx.k));
        assert_int_equal(worker.isa, ctx.isa);
        op_ctx_free(&worker);
    }
    op_ctx_free(&ctx);
    /* The table is the context's first allocation: its failure is OP_NO_MEMORY with a
     * message, for init and for fork alike, and nothing leaks. */
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    ta.fail_at = 1;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_NO_MEMORY);
    assert_null(ctx.k);
    assert_true(ctx.err[0] != 0);
    assert_int_equal(op_ctx_set_isa(&ctx, OP_ISA_SCALAR), OP_INVALID_ARGUMENT);
    op_ctx_free(&ctx);
    op_test_alloc_init(&ta);
    ta.fail_at = 2;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
    assert_int_equal(op_ctx_fork(&ctx, &worker), OP_NO_MEMORY);
    assert_null(worker.k);
    assert_true(worker.err[0] != 0);
    op_ctx_free(&worker);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
}

/* Whether variant table t leaves family f's slot (FAMILIES order) to the scalar twin. */
static int inherits_scalar(const op_kernels *t, int f)
{
    switch (f) {
    case 0: return t->links.mutual == op_mutual_links_scalar;
    case 1: return t->links.edges == op_edge_classify_scalar;
    case 2: return t->distance.field == op_distance_field_scalar;
    case 3: return t->label.components == op_label_components_scalar;
    default: return t->grid_label.label == op_grid_label_scalar;
    }
}

/* Runs last: every variant CMake compiled in is in the build, and every one this CPU
 * runs was compared with scalar in every kernel family whose slot it does not leave to
 * the scalar twin; a variant the CPU cannot run
 * (AVX-512 on a machine without it) is named. Any compiled variant CMake did not
 * promise is an error too. */
static void test_promised_variants_compared(void **state)
{
    (void)state;
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    assert_true(np >= 1 && np < OP_ISA_COUNT);
    op_isa_info info[OP_ISA_COUNT];
    op_isa_list(info, OP_ISA_COUNT);
    int ran = 0;
    for (int i = 0; i < np; i++) {
        const op_isa v = promised[i];
        if (!info[v].compiled)
            fail_msg("checkasm: CMake promised variant %s but the build lacks it", info[v].name);
        if (!info[v].cpu) {
            print_message("checkasm: variant %s is built but this CPU cannot run it: not "
                          "compared here\n", info[v].name);
            continue;
        }
        op_kernels t;
        op_kernels_init(&t, v, op_isa_flags(v));
        for (int f = 0; f < FAMILY_COUNT; f++) {
            if (inherits_scalar(&t, f)) {
                /* its ladder leaves this slot to the scalar twin: nothing to compare */
                print_message("checkasm: %-8s %-16s the scalar twin\n", info[v].name,
                              FAMILIES[f]);
                continue;
            }
            if (!compared[v][f])
                fail_msg("checkasm: variant %s was never compared in %s", info[v].name,
                         FAMILIES[f]);
            print_message("checkasm: %-8s %-16s %lu comparisons\n", info[v].name, FAMILIES[f],
                          compared[v][f]);
        }
        ran++;
    }
    for (int v = 0; v < OP_ISA_COUNT; v++) {
        int listed = v == OP_ISA_SCALAR;
        for (int i = 0; i < np; i++)
            listed |= promised[i] == (op_isa)v;
        if (info[v].compiled && !listed)
            fail_msg("checkasm: variant %s is built but CMake did not promise it", info[v].name);
    }
    /* portable runs on every CPU, so a SIMD build always compares something */
    assert_true(ran >= 1);
}

int main(void)
{
    const int skip = op_test_simd_skip("checkasm");
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_selection),
        cmocka_unit_test(test_init_ladder),
        cmocka_unit_test(test_random_fields),
        cmocka_unit_test(test_range_tails),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_mostly_regular_fields),
        cmocka_unit_test(test_shuffled_grids),
        cmocka_unit_test(test_grid_label),
        cmocka_unit_test(test_long_distances),
        cmocka_unit_test(test_promised_variants_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
