/* The compact field's 16-bit links (src/core/links16.c, core/links16.h): the encoding at
 * the ends of the delta range (the last near delta each way, the first far one, no link,
 * span 0 and the largest span indices), the test hook (op_dlink_near_limit: -1 sends
 * every link to the far table, 0 all but self links), encode -> decode round trips with
 * the far table ascending, and the block decoder's SIMD twins against the scalar one on
 * random and adversarial stored values (every reserved value, the extremes, runs of
 * each, every length 0..70 and offsets into the array), every variant this machine runs;
 * a slot past n must stay untouched. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "core/links16.h"
#include "util/testutil.h"
#include "util/variants.h"

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT];

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, tables);
    return 0;
}

static uint32_t round_trip(uint32_t s, uint32_t t, int16_t *stored)
{
    const op_allocator a = {0};
    op_link_far far = {0};
    int16_t dl[1];
    assert_int_equal(op_dlinks_encode(&a, dl, &far, s, 1, &t), 0);
    *stored = dl[0];
    const uint32_t got = op_dlink_decode(dl[0], &far, s);
    assert_int_equal(far.count, dl[0] == OP_DLINK_FAR);
    op_link_far_free(&a, &far);
    return got;
}

static void expect(uint32_t s, uint32_t t, int16_t want_stored)
{
    int16_t v;
    assert_int_equal(round_trip(s, t, &v), t);
    if (v != want_stored)
        fail_msg("link %u -> %u stored as %d, want %d", s, t, v, want_stored);
    /* The same link in every lane k of a block of 17 (the encoder's vector steps of 8
     * and its tail), the other spans without links. */
    for (uint32_t k = 0; k < 17 && k <= s; k++) {
        const op_allocator a = {0};
        op_link_far far = {0};
        uint32_t ts[17];
        int16_t dl[17];
        for (int i = 0; i < 17; i++)
            ts[i] = OP_NO_LINK;
        ts[k] = t;
        assert_int_equal(op_dlinks_encode(&a, dl, &far, s - k, 17, ts), 0);
        for (uint32_t i = 0; i < 17; i++)
            if (dl[i] != (i == k ? want_stored : OP_DLINK_NONE))
                fail_msg("link %u -> %u in lane %u of a block: lane %u stored as %d", s, t, k, i,
                         dl[i]);
        assert_int_equal(far.count, want_stored == OP_DLINK_FAR);
        if (far.count)
            assert_true(far.span[0] == s && far.target[0] == t);
        op_link_far_free(&a, &far);
    }
}

static void test_range_ends(void **state)
{
    (void)state;
    op_dlink_near_limit = OP_DLINK_MAX;
    const uint32_t s = 100000;
    expect(s, s - 32766, -32766);           /* the last near delta below */
    expect(s, s - 32767, OP_DLINK_FAR);     /* -32767 is the far marker's value */
    expect(s, s - 32768, OP_DLINK_FAR);     /* and -32768 no link's */
    expect(s, s + 32767, 32767);            /* the last near delta above */
    expect(s, s + 32768, OP_DLINK_FAR);
    expect(s, s, 0);
    expect(s, s - 1, -1);
    expect(s, s + 1, 1);
    expect(s, OP_NO_LINK, OP_DLINK_NONE);
    expect(0, 32767, 32767);
    expect(0, 32768, OP_DLINK_FAR);
    expect(32766, 0, -32766);
    expect(32767, 0, OP_DLINK_FAR);
    expect(0, OP_MAX_SPANS - 1, OP_DLINK_FAR);
    expect(OP_MAX_SPANS - 1, 0, OP_DLINK_FAR);
    expect(OP_MAX_SPANS - 1, OP_MAX_SPANS - 2, -1);
    expect(OP_MAX_SPANS - 32768, OP_MAX_SPANS - 1, 32767);
    /* The hook: -1 sends every link far, 0 keeps self links, 5 keeps [-5, 5]. */
    op_dlink_near_limit = -1;
    expect(s, s, OP_DLINK_FAR);
    expect(s, s + 1, OP_DLINK_FAR);
    expect(s, OP_NO_LINK, OP_DLINK_NONE);
    op_dlink_near_limit = 0;
    expect(s, s, 0);
    expect(s, s - 1, OP_DLINK_FAR);
    op_dlink_near_limit = 5;
    expect(s, s - 5, -5);
    expect(s, s + 5, 5);
    expect(s, s - 6, OP_DLINK_FAR);
    expect(s, s + 6, OP_DLINK_FAR);
    op_dlink_near_limit = OP_DLINK_MAX;
}

/* Encodes t[0 .. n) of spans s0.. in pieces (as a writer does, row by row), decodes it
 * with every kernel in blocks of every size, and checks the far table. */
static void check_round_trip(const uint32_t *t, uint32_t s0, uint32_t n, op_rng *r)
{
    const op_allocator a = {0};
    op_link_far far = {0};
    int16_t *dl = malloc(((size_t)n + 1) * 2);
    uint32_t *out = malloc(((size_t)n + 1) * 4);
    for (uint32_t i = 0; i < n;) {
        const uint32_t k = 1 + op_rng_below(r, n - i < 300 ? n - i : 300);
        assert_int_equal(op_dlinks_encode(&a, dl + i, &far, s0 + i, k, t + i), 0);
        i += k;
    }
    uint32_t far_count = 0;
    for (uint32_t i = 0; i < n; i++)
        far_count += dl[i] == OP_DLINK_FAR;
    assert_int_equal(far.count, far_count);
    for (uint32_t i = 1; i < far.count; i++)
        assert_true(far.span[i - 1] < far.span[i]);
    for (int v = -1; v < variant_count; v++) {
        const op_links_decode_fn dec = v < 0 ? op_links_decode_scalar : tables[v].links.decode;
        for (uint32_t i = 0; i < n;) {
            const uint32_t k = 1 + op_rng_below(r, n - i < 200 ? n - i : 200);
            out[k] = 0x5a5a5a5au;
            op_dlinks_decode(dec, dl + i, &far, s0 + i, k, out);
            for (uint32_t j = 0; j < k; j++)
                if (out[j] != t[i + j])
                    fail_msg("%s: span %u decodes to %u, encoded %u (limit %d)",
                             v < 0 ? "scalar" : op_isa_name(variants[v]), s0 + i + j, out[j],
                             t[i + j], op_dlink_near_limit);
            assert_int_equal(out[k], 0x5a5a5a5au);
            i += k;
        }
    }
    op_link_far_free(&a, &far);
    free(dl);
    free(out);
}

static void test_round_trips(void **state)
{
    (void)state;
    op_rng r = {0x16161616u};
    static const int32_t limits[] = {OP_DLINK_MAX, -1, 0, 1, 100, 32766};
    for (int li = 0; li < 6; li++) {
        op_dlink_near_limit = limits[li];
        for (int rep = 0; rep < 20; rep++) {
            const uint32_t n = 1 + op_rng_below(&r, 3000);
            const uint32_t s0 = rep % 3 == 0   ? 0
                                : rep % 3 == 1 ? op_rng_below(&r, 1u << 20)
                                               : OP_MAX_SPANS - n - op_rng_below(&r, 70000);
            uint32_t *t = malloc((size_t)n * 4);
            for (uint32_t i = 0; i < n; i++) {
                const uint32_t s = s0 + i, kind = op_rng_below(&r, 6);
                int64_t want = kind == 0   ? -1
                               : kind == 1 ? (int64_t)s + (int64_t)op_rng_below(&r, 80000) - 40000
                               : kind == 2 ? (int64_t)op_rng_below(&r, OP_MAX_SPANS)
                                           : (int64_t)s + (int64_t)op_rng_below(&r, 9) - 4;
                if (want >= (int64_t)OP_MAX_SPANS || want < -1)
                    want = s;
                t[i] = want < 0 ? OP_NO_LINK : (uint32_t)want;
            }
            check_round_trip(t, s0, n, &r);
            free(t);
        }
    }
    op_dlink_near_limit = OP_DLINK_MAX;
}

/* The kernel alone: every variant against the scalar twin on the same stored values. */
static void compare_kernels(const int16_t *dl, uint32_t s0, uint32_t n)
{
    uint32_t *want = malloc(((size_t)n + 1) * 4), *got = malloc(((size_t)n + 1) * 4);
    want[n] = 0xdeadbeefu;
    const uint32_t far = op_links_decode_scalar(dl, s0, n, want);
    assert_int_equal(want[n], 0xdeadbeefu);
    for (int v = 0; v < variant_count; v++) {
        memset(got, 0xa5, ((size_t)n + 1) * 4);
        const uint32_t f = tables[v].links.decode(dl, s0, n, got);
        if (f != far || memcmp(got, want, (size_t)n * 4) != 0 || got[n] != 0xa5a5a5a5u) {
            for (uint32_t i = 0; i < n; i++)
                if (got[i] != want[i])
                    fail_msg("%s: n %u s0 %u: out[%u] = %u, scalar %u (stored %d)",
                             op_isa_name(variants[v]), n, s0, i, got[i], want[i], dl[i]);
            fail_msg("%s: n %u s0 %u: far %u, scalar %u; past n %#x", op_isa_name(variants[v]),
                     n, s0, f, far, got[n]);
        }
        compared[variants[v]]++;
    }
    free(want);
    free(got);
}

static void test_kernels(void **state)
{
    (void)state;
    op_rng r = {0x1616};
    enum { N = 4096 };
    int16_t *dl = malloc(N * 2 + 64);
    static const int16_t special[] = {-32768, -32767, -32766, 32767, 0, -1, 1};
    for (int rep = 0; rep < 400; rep++) {
        const int mode = rep % 5;
        for (uint32_t i = 0; i < N; i++) {
            const uint64_t x = op_rng_next(&r);
            dl[i] = mode == 0   ? (int16_t)(uint16_t)x                          /* any value */
                    : mode == 1 ? special[x % 7]                                /* extremes */
                    : mode == 2 ? special[(i / 17) % 7]                         /* runs */
                    : mode == 3 ? (int16_t)(x % 5 == 0 ? -32767 : (int)(x % 9) - 4) /* far */
                                : (int16_t)(x % 3 == 0 ? -32768 : (int)(x % 3));
        }
        const uint32_t n = rep < 71 ? (uint32_t)rep : op_rng_below(&r, N - 32);
        const uint32_t off = op_rng_below(&r, 32);
        const uint32_t s0 = rep % 4 == 0   ? 0
                            : rep % 4 == 1 ? 40000
                            : rep % 4 == 2 ? OP_MAX_SPANS - n
                                           : op_rng_below(&r, 1u << 30);
        compare_kernels(dl + off, s0, n);
    }
    free(dl);
}

static void test_every_variant_compared(void **state)
{
    (void)state;
    for (int v = 0; v < variant_count; v++) {
        assert_true(compared[variants[v]] >= 400);
        print_message("links16 decode: %-8s %lu comparisons\n", op_isa_name(variants[v]),
                      compared[variants[v]]);
    }
}

int main(void)
{
    const int skip = op_test_simd_skip("test_kernels_links16");
    (void)skip; /* the encoding tests run without SIMD variants too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_ends),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_every_variant_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
