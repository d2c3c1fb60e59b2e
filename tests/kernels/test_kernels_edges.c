/* Adversarial identity tests for the SIMD edge_classify and mutual_links kernels
 * (issue 5; regions-contours §6 Edges, supplement §1.5 mutual links). The kernels
 * predict that the neighbours of a block of spans form one run (link[0] = s - 1 + i,
 * ...), serve misses from a window or by gathers; these fields attack exactly that:
 * runs broken in a single lane (every lane position), links equal to s - 1 / s + 1 that
 * are not mutual, mutual pairs far away, rows of columns with 1..5 floors (offsets
 * changing from lane to lane), links at both ends of the span array, regions 0 and the
 * border region in some lanes, a custom border region, tiny fields, and every begin / end
 * offset modulo 32. Every variant this CPU runs must give the scalar twin's bytes, and
 * must not write outside [begin, end). The edge kernel runs without and with the areas
 * (bit 4: the region check's run breaks, core/kernels.h), on areas that change in runs,
 * in single lanes at every lane position, at step boundaries and after inactive steps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "util/testutil.h"
#include "util/variants.h"

#define GUARD 64
#define SENT_REF 0xA5u
#define SENT_NEW 0x5Au

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT]; /* tables[v]: variants[v]'s */
static int variant_count;
static int failures;

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, tables);
    return 0;
}

/* ---- fields ---------------------------------------------------------------------- */

/* Columns of cnt[c] spans (c = x + z*w); link d of floor k goes to floor min(k, m-1) of
 * the neighbour column (m floors there), so rows of multi-floor columns have offsets
 * that change from lane to lane; then mutual links from the scalar twin. */
static void make_columns(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d, const uint32_t *cnt)
{
    uint32_t total = 0;
    for (uint32_t c = 0; c < w * d; c++)
        total += cnt[c];
    assert_int_equal(op_chf_alloc(ctx, chf, w, d, total), OP_OK);
    uint32_t s = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        chf->cell_first[c] = s;
        for (uint32_t k = 0; k < cnt[c]; k++, s++) {
            chf->y[s] = (uint16_t)(k * 20);
            chf->h[s] = 20;
            chf->area[s] = 63;
        }
    }
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            for (int dir = 0; dir < 4; dir++) {
                const int64_t nx = (int64_t)x + op_dir_dx(dir), nz = (int64_t)z + op_dir_dz(dir);
                if (nx < 0 || nz < 0 || nx >= (int64_t)w || nz >= (int64_t)d)
                    continue;
                const uint32_t nc = (uint32_t)nx + (uint32_t)nz * w;
                for (uint32_t k = 0; k < cnt[c] && cnt[nc]; k++) {
                    const uint32_t kk = k < cnt[nc] ? k : cnt[nc] - 1;
                    op_test_set_link(chf, dir, chf->cell_first[c] + k, chf->cell_first[nc] + kk);
                }
            }
        }
    op_mutual_links_scalar(chf, chf->mutual, 0, total);
}

static void field_single_floor(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d)
{
    uint32_t *cnt = malloc((size_t)w * d * sizeof *cnt);
    assert_non_null(cnt);
    for (uint32_t c = 0; c < w * d; c++)
        cnt[c] = 1;
    make_columns(ctx, chf, w, d, cnt);
    free(cnt);
}

static void field_random_floors(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d, op_rng *r,
                                uint32_t max_floors, uint32_t multi_pct, uint32_t empty_pct)
{
    uint32_t *cnt = malloc((size_t)w * d * sizeof *cnt);
    assert_non_null(cnt);
    for (uint32_t c = 0; c < w * d; c++) {
        const uint32_t k = op_rng_below(r, 100);
        cnt[c] = k < empty_pct ? 0 : k < empty_pct + multi_pct ? 1 + op_rng_below(r, max_floors) : 1;
    }
    make_columns(ctx, chf, w, d, cnt);
    free(cnt);
}

/* A mutual pair s <-> t in direction dir (breaking the old partners' links). */
static void set_pair(op_chf *chf, uint32_t s, int dir, uint32_t t)
{
    const int back = (dir + 2) & 3;
    if (op_chf_link(chf, dir, s) != OP_NO_LINK &&
        op_chf_link(chf, back, op_chf_link(chf, dir, s)) == s)
        op_test_set_link(chf, back, op_chf_link(chf, dir, s), OP_NO_LINK);
    if (op_chf_link(chf, back, t) != OP_NO_LINK &&
        op_chf_link(chf, dir, op_chf_link(chf, back, t)) == t)
        op_test_set_link(chf, dir, op_chf_link(chf, back, t), OP_NO_LINK);
    op_test_set_link(chf, dir, s, t);
    op_test_set_link(chf, back, t, s);
}

static void remutual(op_chf *chf)
{
    op_mutual_links_scalar(chf, chf->mutual, 0, chf->span_count);
}

/* Regions: a few ids so that neighbours often agree, with 0 and the border region. */
static uint32_t *make_regions(const op_chf *chf, op_rng *r, uint32_t border, uint32_t ids,
                              uint32_t special_pct)
{
    const uint32_t n = chf->span_count;
    uint32_t *reg = malloc((n ? n : 1) * sizeof *reg);
    assert_non_null(reg);
    uint32_t cur = 1;
    for (uint32_t s = 0; s < n; s++) {
        if (op_rng_below(r, 8) == 0)
            cur = 1 + op_rng_below(r, ids);
        reg[s] = cur;
        const uint32_t k = op_rng_below(r, 100);
        if (k < special_pct)
            reg[s] = (k & 1) ? border : 0;
    }
    return reg;
}

/* Areas in runs (a change at about pct % of the spans, to one of a few values, 0 and 255
 * among them), so that region and area change together and apart. */
static void vary_areas(op_chf *chf, op_rng *r, uint32_t pct)
{
    static const uint8_t vals[5] = {63, 1, 2, 0, 255};
    uint8_t cur = 63;
    for (uint32_t s = 0; s < chf->span_count; s++) {
        if (op_rng_below(r, 100) < pct)
            cur = vals[op_rng_below(r, 5)];
        chf->area[s] = cur;
    }
}

/* ---- comparison ------------------------------------------------------------------ */

static uint8_t *guarded(uint32_t n, unsigned fill)
{
    uint8_t *p = malloc((size_t)n + 2 * GUARD);
    assert_non_null(p);
    memset(p, (int)fill, (size_t)n + 2 * GUARD);
    return p;
}

static void compare(const char *kernel, op_isa isa, const char *what, const uint8_t *ref,
                    const uint8_t *got, uint32_t n, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = 0; i < n + 2 * GUARD; i++) {
        const int inside = i >= GUARD + lo && i < GUARD + hi;
        if (!inside && (ref[i] != SENT_REF || got[i] != SENT_NEW)) {
            fprintf(stderr, "edges: %s %s (%s): wrote outside [%u, %u) at %ld\n", kernel,
                    op_isa_name(isa), what, lo, hi, (long)i - GUARD);
            failures++;
            return;
        }
        if (inside && ref[i] != got[i]) {
            fprintf(stderr, "edges: %s %s (%s): span %ld: scalar 0x%x, simd 0x%x\n", kernel,
                    op_isa_name(isa), what, (long)i - GUARD, ref[i], got[i]);
            failures++;
            return;
        }
    }
}

static void check_mutual(const op_chf *chf, const char *what, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint8_t *ref = guarded(n, SENT_REF);
    op_mutual_links_scalar(chf, ref + GUARD, begin, end);
    for (int v = 0; v < variant_count; v++) {
        uint8_t *got = guarded(n, SENT_NEW);
        tables[v].links.mutual(chf, got + GUARD, begin, end);
        compare("mutual_links", variants[v], what, ref, got, n, begin, end);
        free(got);
    }
    free(ref);
}

static void check_edges(const op_chf *chf, const uint32_t *reg, uint32_t border,
                        const char *what, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    for (int with_area = 0; with_area < 2; with_area++) {
        const uint8_t *area = with_area ? chf->area : NULL;
        const char *kernel = with_area ? "edge_classify+breaks" : "edge_classify";
        uint8_t *ref = guarded(n, SENT_REF);
        op_edge_classify_scalar(chf, reg, area, border, ref + GUARD, begin, end);
        for (int v = 0; v < variant_count; v++) {
            uint8_t *got = guarded(n, SENT_NEW);
            tables[v].links.edges(chf, reg, area, border, got + GUARD, begin, end);
            compare(kernel, variants[v], what, ref, got, n, begin, end);
            free(got);
        }
        free(ref);
    }
}

/* Both kernels on [0, n), and on ranges whose begin and end are not multiples of any VW. */
static void check_both(const op_chf *chf, const uint32_t *reg, uint32_t border, const char *what)
{
    const uint32_t n = chf->span_count;
    check_mutual(chf, what, 0, n);
    check_edges(chf, reg, border, what, 0, n);
    for (uint32_t a = 0; a < 32 && a < n; a += 3) {
        const uint32_t b = n - (a * 7 % 33 < n - a ? a * 7 % 33 : 0);
        check_mutual(chf, what, a, b);
        check_edges(chf, reg, border, what, a, b);
    }
}

/* ---- tests ----------------------------------------------------------------------- */

/* Single-floor rows where exactly one lane of a block leaves the run: each lane position
 * of a 16-span block, each direction, as a far mutual pair, a cut link, and a one-way
 * link equal to the predicted s - 1 / s + 1 (not mutual). */
static void test_one_lane_breaks(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {11};
    const uint32_t w = 64, d = 40;
    for (int kind = 0; kind < 3; kind++)
        for (int dir = 0; dir < 4; dir++) {
            op_chf chf;
            field_single_floor(&ctx, &chf, w, d);
            const uint32_t n = chf.span_count;
            /* Every other 16-span block from row 2 on, lane b % 16 of it. */
            for (uint32_t b = 0; b < 48; b++) {
                const uint32_t s = 128 + 32 * b + (b % 16);
                if (kind == 0) {
                    set_pair(&chf, s, dir, op_rng_below(&r, n)); /* far mutual pair */
                } else if (kind == 1) {
                    op_test_set_link(&chf, dir, s, OP_NO_LINK); /* cut: back link stays one-way */
                } else {
                    /* link = the predicted index, but the back link points elsewhere */
                    const uint32_t t = dir == 0   ? s - 1
                                       : dir == 2 ? s + 1
                                                  : op_chf_link(&chf, dir, s);
                    op_test_set_link(&chf, dir, s, t);
                    op_test_set_link(&chf, (dir + 2) & 3, t, (s + 5) % n);
                }
            }
            remutual(&chf);
            uint32_t *reg = make_regions(&chf, &r, OP_BORDER_REGION, 3, 4);
            vary_areas(&chf, &r, 2 + 4 * (uint32_t)dir);
            char what[64];
            snprintf(what, sizeof what, "one lane, kind %d, dir %d", kind, dir);
            check_both(&chf, reg, OP_BORDER_REGION, what);
            free(reg);
            op_chf_free(&chf);
        }
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* Rows of columns with 1..max floors: the -x / +x offsets change inside a block, the
 * +z / -z runs drift; with empty cells, and with many far mutual pairs (gathers). */
static void test_multi_floor_rows(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 24; seed++) {
        op_rng r = {seed * 7919};
        op_chf chf;
        const uint32_t w = 8 + op_rng_below(&r, 70), d = 2 + op_rng_below(&r, 20);
        const uint32_t max_floors = 2 + (uint32_t)(seed % 4);
        field_random_floors(&ctx, &chf, w, d, &r, max_floors, 5 + 10 * (uint32_t)(seed % 8),
                            (uint32_t)(seed % 3) * 5);
        const uint32_t n = chf.span_count;
        if (seed % 3 == 0)
            for (uint32_t i = 0; i < n / 20; i++)
                set_pair(&chf, op_rng_below(&r, n), (int)op_rng_below(&r, 4),
                         op_rng_below(&r, n));
        if (seed % 4 == 1) /* one-way links */
            for (uint32_t i = 0; i < n / 30; i++)
                op_test_set_link(&chf, op_rng_below(&r, 4), op_rng_below(&r, n),
                                 op_rng_below(&r, n));
        remutual(&chf);
        uint32_t *reg = make_regions(&chf, &r, OP_BORDER_REGION, 2 + (uint32_t)(seed % 5),
                                     (uint32_t)(seed % 4) * 6);
        vary_areas(&chf, &r, (uint32_t)(seed % 4) * 5);
        char what[64];
        snprintf(what, sizeof what, "multi-floor seed %llu", (unsigned long long)seed);
        check_both(&chf, reg, OP_BORDER_REGION, what);
        free(reg);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* Links to the first and last spans of the array (runs and windows that would start
 * before 0 or end past n), tiny fields (fewer spans than a vector), a custom border
 * region (an ordinary id, and 0), and blocks that are all region 0 / border. */
static void test_ends_and_regions(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint32_t w = 1; w <= 40; w += 3)
        for (uint32_t d = 1; d <= 3; d++) {
            op_rng r = {w * 100 + d};
            op_chf chf;
            field_random_floors(&ctx, &chf, w, d, &r, 3, 30, 10);
            const uint32_t n = chf.span_count;
            for (uint32_t i = 0; n >= 2 && i < 6; i++) {
                /* pairs between the first and the last spans */
                const uint32_t a = op_rng_below(&r, n < 3 ? n : 3);
                const uint32_t b = n - 1 - op_rng_below(&r, n < 3 ? n : 3);
                if (a != b)
                    set_pair(&chf, a, (int)op_rng_below(&r, 4), b);
            }
            remutual(&chf);
            const uint32_t borders[3] = {OP_BORDER_REGION, 2, 0};
            for (int k = 0; k < 3; k++) {
                uint32_t *reg = make_regions(&chf, &r, borders[k], 3, 10);
                vary_areas(&chf, &r, 10 * (uint32_t)k);
                char what[64];
                snprintf(what, sizeof what, "ends w %u d %u border %u", w, d, borders[k]);
                check_both(&chf, reg, borders[k], what);
                free(reg);
            }
            op_chf_free(&chf);
        }
    /* Whole blocks inactive next to active ones, in a single-floor field. */
    op_chf chf;
    field_single_floor(&ctx, &chf, 50, 10);
    const uint32_t n = chf.span_count;
    uint32_t *reg = malloc(n * sizeof *reg);
    assert_non_null(reg);
    for (uint32_t s = 0; s < n; s++)
        reg[s] = (s / 16) % 3 == 0 ? 0 : (s / 16) % 3 == 1 ? OP_BORDER_REGION : 1 + (s / 37) % 2;
    check_both(&chf, reg, OP_BORDER_REGION, "inactive blocks");
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* One larger field (~300k spans): mostly single-floor with multi-floor patches, like
 * the demo world, so the fast path, the window and the gathers all run many times. */
static void test_large_field(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {4242};
    const uint32_t w = 600, d = 450;
    uint32_t *cnt = malloc((size_t)w * d * sizeof *cnt);
    assert_non_null(cnt);
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            const int patch = (x / 40 + z / 30) % 5 == 0;
            cnt[x + z * w] = patch ? op_rng_below(&r, 4) + (op_rng_below(&r, 3) != 0)
                                   : (op_rng_below(&r, 50) == 0 ? 0 : 1);
        }
    op_chf chf;
    make_columns(&ctx, &chf, w, d, cnt);
    free(cnt);
    const uint32_t n = chf.span_count;
    for (uint32_t i = 0; i < 200; i++)
        set_pair(&chf, op_rng_below(&r, n), (int)op_rng_below(&r, 4), op_rng_below(&r, n));
    remutual(&chf);
    uint32_t *reg = make_regions(&chf, &r, OP_BORDER_REGION, 4, 3);
    vary_areas(&chf, &r, 2);
    check_mutual(&chf, "large", 0, n);
    check_edges(&chf, reg, OP_BORDER_REGION, "large", 0, n);
    check_edges(&chf, reg, OP_BORDER_REGION, "large", 17, n - 5);
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

/* The run-break bit alone: one region and one area except a single lane of each 16-span
 * block where the region or the area (or both) changes, at every lane position (lane 0:
 * the change against the step before); steps wholly inactive before an active one (the
 * step before is not classified); a break at span 0; regions that change while the area
 * does not and back. */
static void test_run_breaks(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    field_single_floor(&ctx, &chf, 64, 48);
    const uint32_t n = chf.span_count;
    uint32_t *reg = malloc(n * sizeof *reg);
    assert_non_null(reg);
    for (int kind = 0; kind < 5; kind++) {
        for (uint32_t s = 0; s < n; s++) {
            reg[s] = 5;
            chf.area[s] = 63;
        }
        for (uint32_t b = 0; b < n / 16; b++) {
            const uint32_t s = 16 * b + (b % 16);
            if (kind == 0 || kind == 2)
                reg[s] = 6; /* a one-span region: breaks at s and s + 1 */
            if (kind == 1 || kind == 2)
                chf.area[s] = 7;
            if (kind == 3) { /* a run from lane b % 16 on */
                for (uint32_t k = s; k < n && k < s + 16; k++)
                    reg[k] = 5 + b % 3, chf.area[k] = (uint8_t)(60 + b % 2);
            }
            if (kind == 4 && b % 3 == 0) /* inactive block before an active one */
                for (uint32_t k = 16 * b; k < 16 * b + 16; k++)
                    reg[k] = b % 2 ? 0 : OP_BORDER_REGION;
        }
        if (kind == 4)
            reg[0] = 9, chf.area[1] = 1;
        char what[64];
        snprintf(what, sizeof what, "run breaks kind %d", kind);
        check_edges(&chf, reg, OP_BORDER_REGION, what, 0, n);
        for (uint32_t a = 1; a < 40; a += 3)
            check_edges(&chf, reg, OP_BORDER_REGION, what, a, n - a % 17);
    }
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_lane_breaks),
        cmocka_unit_test(test_multi_floor_rows),
        cmocka_unit_test(test_ends_and_regions),
        cmocka_unit_test(test_large_field),
        cmocka_unit_test(test_run_breaks),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
