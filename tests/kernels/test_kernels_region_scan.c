/* Identity test of the region scan family (core/kernels.h, OP_REGION_SCAN_BITS_FN and
 * OP_VALUE_CHANGE_BITS_FN; regions-contours §5, src/regions/region_graph.c): for every
 * variant this machine runs,
 * the variant and the scalar twin get the same field, region array and range and must
 * write the same bit words, and nothing past the range's last word. The scalar twin is
 * also checked against the definition written out span by span. Fields: random
 * multi-floor fields (one-way links, holes, several areas) and single-floor ones (the
 * SIMD twin's predicted runs hold), then attacked: -x / -z links moved to a random span
 * (also the first and last) in single lanes, mutual bits set on spans of region 0 whose
 * links are OP_NO_LINK (no link may be read there), area 0 under a region. Regions: runs
 * of a few ids with 0 and the band, one region everywhere, a new value every span, and
 * blocks of cells with single-span changes at every lane position. Ranges: the whole
 * field, every begin offset 0..70 with several ends, and empty ones. */
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

#define SENT 0xA5A5A5A5A5A5A5A5ull

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT], compared_change[OP_ISA_COUNT];
static int failures;

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, tables);
    return 0;
}

/* The definition, span by span. */
static int want_bit(const op_chf *chf, const uint32_t *region, uint32_t s)
{
    const uint32_t r = region[s], prev = s ? region[s - 1] : 0;
    if (r != prev)
        return 1;
    if (r == 0)
        return 0;
    if (chf->area[s] == 0)
        return 1;
    const uint8_t ms = chf->mutual[s];
    if ((ms & 1) && region[op_chf_link(chf, 0, s)] != r)
        return 1;
    return (ms & 8) && region[op_chf_link(chf, 3, s)] != r;
}

static void check_range(const op_chf *chf, const uint32_t *region, uint32_t begin, uint32_t end,
                        const char *what)
{
    const uint32_t len = end - begin, words = (len + 63) / 64;
    uint64_t *ref = malloc((words + 2) * sizeof *ref), *got = malloc((words + 2) * sizeof *got);
    assert_non_null(ref);
    assert_non_null(got);
    for (uint32_t w = 0; w < words + 2; w++)
        ref[w] = SENT;
    op_region_scan_bits_scalar(chf, region, begin, end, ref);
    for (uint32_t i = 0; i < len; i++)
        if ((int)(ref[i / 64] >> (i % 64) & 1) != want_bit(chf, region, begin + i)) {
            fprintf(stderr, "region_scan: scalar twin, %s: span %u against the definition\n",
                    what, begin + i);
            failures++;
            break;
        }
    if (len % 64 && ref[words - 1] >> (len % 64)) {
        fprintf(stderr, "region_scan: scalar twin, %s: bits past the range\n", what);
        failures++;
    }
    if (ref[words] != SENT || ref[words + 1] != SENT) {
        fprintf(stderr, "region_scan: scalar twin, %s: wrote past the last word\n", what);
        failures++;
    }
    for (int v = 0; v < variant_count; v++) {
        const op_region_scan_bits_fn f = tables[v].regions.scan_bits;
        if (f == op_region_scan_bits_scalar)
            continue;
        for (uint32_t w = 0; w < words + 2; w++)
            got[w] = SENT;
        f(chf, region, begin, end, got);
        compared[variants[v]]++;
        if (memcmp(ref, got, (words + 2) * sizeof *ref)) {
            for (uint32_t w = 0; w < words + 2; w++)
                if (ref[w] != got[w]) {
                    fprintf(stderr,
                            "region_scan: %s, %s, [%u, %u): word %u: scalar 0x%016llx, "
                            "simd 0x%016llx\n",
                            op_isa_name(variants[v]), what, begin, end, w,
                            (unsigned long long)ref[w], (unsigned long long)got[w]);
                    break;
                }
            failures++;
        }
    }
    /* The value changes of the same range, against their definition and the scalar twin. */
    for (uint32_t w = 0; w < words + 2; w++)
        ref[w] = SENT;
    op_value_change_bits_scalar(region, begin, end, ref);
    for (uint32_t i = 0; i < len; i++) {
        const uint32_t s = begin + i, prev = s ? region[s - 1] : 0;
        if ((ref[i / 64] >> (i % 64) & 1) != (uint64_t)(region[s] != prev)) {
            fprintf(stderr, "change_bits: scalar twin, %s: span %u against the definition\n",
                    what, s);
            failures++;
            break;
        }
    }
    if ((len % 64 && ref[words - 1] >> (len % 64)) || ref[words] != SENT ||
        ref[words + 1] != SENT) {
        fprintf(stderr, "change_bits: scalar twin, %s: wrote past the range\n", what);
        failures++;
    }
    for (int v = 0; v < variant_count; v++) {
        const op_value_change_bits_fn f = tables[v].regions.change_bits;
        if (f == op_value_change_bits_scalar)
            continue;
        for (uint32_t w = 0; w < words + 2; w++)
            got[w] = SENT;
        f(region, begin, end, got);
        compared_change[variants[v]]++;
        if (memcmp(ref, got, (words + 2) * sizeof *ref)) {
            fprintf(stderr, "change_bits: %s, %s, [%u, %u): differs from the scalar twin\n",
                    op_isa_name(variants[v]), what, begin, end);
            failures++;
        }
    }
    free(ref);
    free(got);
}

static void check_ranges(const op_chf *chf, const uint32_t *region, op_rng *r, const char *what)
{
    const uint32_t n = chf->span_count;
    check_range(chf, region, 0, n, what);
    for (uint32_t b = 0; b <= 70 && b <= n; b++) {
        check_range(chf, region, b, n, what);
        const uint32_t e = b + op_rng_below(r, n - b + 1);
        check_range(chf, region, b, e, what);
        check_range(chf, region, b, b, what);
    }
    for (int k = 0; k < 20; k++) {
        const uint32_t b = op_rng_below(r, n + 1), e = b + op_rng_below(r, n - b + 1);
        check_range(chf, region, b, e, what);
    }
}

enum { REG_RUNS, REG_ONE, REG_EVERY, REG_BLOCKS, REG_KINDS };

static void make_regions(const op_chf *chf, uint32_t *reg, int kind, op_rng *r)
{
    const uint32_t n = chf->span_count;
    uint32_t cur = 1;
    for (uint32_t s = 0; s < n; s++) {
        switch (kind) {
        case REG_RUNS: {
            if (op_rng_below(r, 8) == 0)
                cur = 1 + op_rng_below(r, 5);
            const uint32_t k = op_rng_below(r, 100);
            reg[s] = k < 5 ? 0 : k < 10 ? OP_BORDER_REGION : cur;
            break;
        }
        case REG_ONE: reg[s] = 7; break;
        case REG_EVERY: reg[s] = 1 + s % 3 + (uint32_t)op_rng_below(r, 2) * 3; break;
        default: reg[s] = 0; break;
        }
    }
    if (kind == REG_BLOCKS) {
        /* blocks of 6 x 6 cells, floor k adds 100 k; a few single spans changed */
        for (uint32_t z = 0; z < chf->depth; z++)
            for (uint32_t x = 0; x < chf->width; x++) {
                const uint32_t c = x + z * chf->width;
                for (uint32_t k = 0; k < op_chf_cell_count(chf, c); k++)
                    reg[chf->cell_first[c] + k] = 1 + x / 6 + z / 6 * 64 + 100 * k;
            }
        for (uint32_t s = 0; s < n; s++)
            if (op_rng_below(r, 50) == 0)
                reg[s] = op_rng_below(r, 3) == 0 ? 0 : reg[s] + 1;
    }
}

/* Attacks on the links and areas (after the regions are made). */
static void attack(op_chf *chf, uint32_t *reg, op_rng *r, int kind)
{
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t k = op_rng_below(r, 100);
        if (kind & 1 && k < 3) {
            /* a -x or -z link moved to a random span (or an end), mutual bit on */
            const uint32_t t = k == 0 ? 0 : k == 1 ? n - 1 : op_rng_below(r, n);
            const int d = op_rng_below(r, 2) ? 3 : 0;
            op_test_set_link(chf, d, s, t);
            chf->mutual[s] |= (uint8_t)(1u << d);
        }
        if (kind & 2 && k >= 3 && k < 6) {
            /* region 0 with mutual bits and no links: must read no link */
            reg[s] = 0;
            op_test_set_link(chf, 0, s, OP_NO_LINK);
            op_test_set_link(chf, 3, s, OP_NO_LINK);
            chf->mutual[s] |= 9;
        }
        if (kind & 4 && k >= 6 && k < 8)
            chf->area[s] = 0;
    }
}

static void run_fields(uint32_t w, uint32_t d, uint32_t floors, uint32_t empty, uint32_t holes,
                       uint64_t seed)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, w, d);
    o.max_floors = floors;
    o.empty_percent = empty;
    o.hole_percent = holes;
    op_rng r = {seed};
    for (int kind = 0; kind < REG_KINDS; kind++)
        for (int atk = 0; atk < 8; atk++) {
            op_chf chf;
            assert_int_equal(op_random_chf(&ctx, &chf, seed * 131 + (uint64_t)kind * 8 + (uint64_t)atk, &o),
                             OP_OK);
            const uint32_t n = chf.span_count;
            uint32_t *reg = malloc((n ? n : 1) * sizeof *reg);
            assert_non_null(reg);
            make_regions(&chf, reg, kind, &r);
            attack(&chf, reg, &r, atk);
            char what[96];
            snprintf(what, sizeof what, "%ux%u floors %u seed %llu regions %d attack %d", w, d,
                     floors, (unsigned long long)seed, kind, atk);
            check_ranges(&chf, reg, &r, what);
            free(reg);
            op_chf_free(&chf);
        }
    op_ctx_free(&ctx);
}

static void test_fields(void **state)
{
    (void)state;
    run_fields(64, 48, 1, 0, 0, 1);   /* single floor: the predicted runs hold */
    run_fields(97, 31, 1, 0, 3, 2);   /* single floor with holes */
    run_fields(80, 40, 3, 8, 4, 3);   /* multi-floor, one-way links */
    run_fields(33, 70, 5, 20, 10, 4); /* many floors, many empty columns */
    run_fields(5, 4, 2, 0, 0, 5);     /* tiny: below one vector */
    run_fields(1, 1, 1, 0, 0, 6);
    assert_int_equal(failures, 0);
}

/* Every variant this CPU runs that has its own slot was compared. */
static void test_every_variant_compared(void **state)
{
    (void)state;
    for (int v = 0; v < variant_count; v++) {
        if (tables[v].regions.change_bits != op_value_change_bits_scalar) {
            assert_true(compared_change[variants[v]] > 1000);
            print_message("change_bits: %-8s %lu comparisons\n", op_isa_name(variants[v]),
                          compared_change[variants[v]]);
        }
        if (tables[v].regions.scan_bits == op_region_scan_bits_scalar) {
            print_message("region_scan: %-8s the scalar twin\n", op_isa_name(variants[v]));
            continue;
        }
        assert_true(compared[variants[v]] > 1000);
        print_message("region_scan: %-8s %lu comparisons\n", op_isa_name(variants[v]),
                      compared[variants[v]]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_every_variant_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
