/* checkasm-style identity test of the digest family (core/kernels.h,
 * OP_DIGEST_UPDATE_FN; supplement §5): for every variant this machine runs whose ladder
 * gives it its own XXH3 update, the variant and the scalar twin hash the same bytes, fed
 * in the same pieces, into states begun alike, and must end in the same digest; the
 * twin is also checked against the one-shot op_digest_bytes of the whole input (the
 * pieces must not matter). Inputs: random bytes in random pieces (empty pieces, pieces
 * across XXH3's 64-byte stripes, its 256-byte internal buffer and its 1024-byte blocks,
 * whole runs of several blocks, starts at every offset modulo 64), every total length
 * 0..2100 as one piece and as two, all-zero and all-ones inputs, and multi-megabyte
 * pieces. Then the library's own choice (src/io/digest.c picks the widest update this
 * CPU runs for runs of 64 KiB and more): every digest of long arrays and of a compact
 * field (the demo world's) is the same under every ONEPATH_ISA value. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "onepath/demo.h"
#include "onepath/digest.h"
#include "onepath/spans.h"
#include "util/testutil.h"
#include "util/variants.h"

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT];

#define MAXLEN ((size_t)5 << 20)
static unsigned char *data; /* MAXLEN + 64 bytes */

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, tables);
    data = malloc(MAXLEN + 64);
    return data ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(data);
    return 0;
}

/* XXH3 of p[0..len) fed to update in the pieces of cut[0..ncut) (lengths, summing to
 * len), through a digest stream's state (its staging buffer stays empty). */
static uint64_t hash_pieces(op_digest_update_fn update, const unsigned char *p, size_t len,
                            const size_t *cut, int ncut)
{
    op_digest_stream s;
    op_digest_begin(&s);
    size_t at = 0;
    for (int i = 0; i < ncut; i++) {
        update(s.state, p + at, cut[i]);
        at += cut[i];
    }
    assert_true(at == len);
    return op_digest_end(&s);
}

static void check(const unsigned char *p, size_t len, const size_t *cut, int ncut,
                  uint64_t seed)
{
    const uint64_t ref = hash_pieces(op_digest_update_scalar, p, len, cut, ncut);
    if (ref != op_digest_bytes(p, len))
        fail_msg("digest_update: scalar twin in %d pieces differs from one-shot XXH3 (len %zu, "
                 "seed %llu)", ncut, len, (unsigned long long)seed);
    for (int v = 0; v < variant_count; v++) {
        const op_digest_update_fn f = tables[v].digest.update;
        if (f == op_digest_update_scalar)
            continue;
        const uint64_t got = hash_pieces(f, p, len, cut, ncut);
        if (got != ref)
            fail_msg("digest_update: %s differs from the scalar twin: len %zu in %d pieces, "
                     "offset %u, seed %llu: %016llx != %016llx", op_isa_name(variants[v]), len,
                     ncut, (unsigned)((uintptr_t)p & 63), (unsigned long long)seed,
                     (unsigned long long)got, (unsigned long long)ref);
        compared[variants[v]]++;
    }
}

/* One random piece length: mostly around XXH3's stripe, buffer and block sizes. */
static size_t piece(op_rng *r, size_t left)
{
    static const size_t edge[] = {0, 1, 63, 64, 65, 239, 240, 241, 255, 256, 257,
                                  1023, 1024, 1025, 4096, 16383, 16384, 65536, 65537};
    size_t n;
    switch (op_rng_below(r, 4)) {
    case 0: n = edge[op_rng_below(r, sizeof edge / sizeof edge[0])]; break;
    case 1: n = op_rng_below(r, 300); break;
    case 2: n = op_rng_below(r, 5000); break;
    default: n = op_rng_below(r, 200000); break;
    }
    return n < left ? n : left;
}

static void fill_random(op_rng *r, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)op_rng_next(r);
}

static void test_random(void **state)
{
    (void)state;
    op_rng r = {0x5eed0d16e57ull};
    fill_random(&r, data, MAXLEN + 64);
    size_t cut[64];
    for (uint64_t seed = 0; seed < 600; seed++) {
        const size_t len = seed % 7 == 0 ? op_rng_below(&r, (uint32_t)MAXLEN)
                                         : op_rng_below(&r, 300000);
        const unsigned char *p = data + op_rng_below(&r, 64);
        int n = 0;
        size_t left = len;
        while (left && n < 63) {
            cut[n] = piece(&r, left);
            left -= cut[n++];
        }
        if (left)
            cut[n++] = left;
        check(p, len, cut, n, seed);
    }
}

static void test_adversarial(void **state)
{
    (void)state;
    op_rng r = {77};
    fill_random(&r, data, 4200);
    size_t cut[3];
    /* every total length 0..2100, as one piece and as two at a random point */
    for (size_t len = 0; len <= 2100; len++) {
        cut[0] = len;
        check(data + (len & 63), len, cut, 1, len);
        cut[0] = op_rng_below(&r, (uint32_t)len + 1);
        cut[1] = len - cut[0];
        check(data + 1, len, cut, 2, len);
    }
    /* constant inputs, every stripe alike; then one multi-megabyte piece, and many
     * blocks in pieces that end one byte before and after a block */
    for (int k = 0; k < 2; k++) {
        memset(data, k ? 0xff : 0, MAXLEN);
        cut[0] = MAXLEN;
        check(data, MAXLEN, cut, 1, (uint64_t)k);
        cut[0] = 1024 * 37 - 1;
        cut[1] = 2;
        cut[2] = MAXLEN - cut[0] - cut[1];
        check(data, MAXLEN, cut, 3, (uint64_t)k);
    }
    fill_random(&r, data, MAXLEN + 64);
    cut[0] = MAXLEN;
    check(data + 3, MAXLEN, cut, 1, 99);
}

/* The library's choice of update: the same digests under every ONEPATH_ISA value. */
static void test_library_digests(void **state)
{
    (void)state;
    char *saved = getenv("ONEPATH_ISA") ? strdup(getenv("ONEPATH_ISA")) : NULL;
    op_rng r = {4242};
    const uint32_t n = 300000; /* 1.2 MB of u32: past the 64 KiB where the choice starts */
    uint32_t *v = malloc((size_t)n * 4);
    assert_non_null(v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = (uint32_t)op_rng_next(&r);
    /* a compact field: the demo world's at 256 x 256 cells (about 3 MB of records) */
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene scene;
    op_config cfg;
    op_chf chf;
    assert_int_equal(op_demo_world(&ctx, 256, &scene, &cfg), OP_OK);
    assert_int_equal(op_build_spans(&ctx, &cfg, &scene, &chf, NULL), OP_OK);
    uint64_t ref[4] = {0};
    int first = 1;
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        if (!op_isa_available((op_isa)i))
            continue;
        setenv("ONEPATH_ISA", op_isa_name((op_isa)i), 1);
        op_digest_stream st;
        op_digest_begin(&st);
        op_digest_u32(&st, 7); /* staged bytes before a long run */
        op_digest_put(&st, v, (size_t)n * 4 - 3);
        const uint64_t got[4] = {op_digest_distance(v, n), op_digest_regions(v, n, 5),
                                 op_digest_chf(&chf), op_digest_end(&st)};
        if (first) {
            memcpy(ref, got, sizeof ref);
            first = 0;
        }
        for (int k = 0; k < 4; k++)
            if (got[k] != ref[k])
                fail_msg("digest %d under ONEPATH_ISA=%s: %016llx, first variant %016llx", k,
                         op_isa_name((op_isa)i), (unsigned long long)got[k],
                         (unsigned long long)ref[k]);
    }
    /* and the stream's own bytes: the same as one-shot XXH3 of them */
    unsetenv("ONEPATH_ISA");
    unsigned char *bytes = malloc((size_t)n * 4 + 1);
    assert_non_null(bytes);
    const uint32_t seven = 7;
    memcpy(bytes, &seven, 4); /* little-endian hosts only: checked below */
    memcpy(bytes + 4, v, (size_t)n * 4 - 3);
    const uint16_t one = 1;
    if (*(const unsigned char *)&one == 1)
        assert_true(op_digest_bytes(bytes, (size_t)n * 4 + 1) == ref[3]);
    free(bytes);
    if (saved) {
        setenv("ONEPATH_ISA", saved, 1);
        free(saved);
    }
    op_chf_free(&chf);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
    free(v);
}

/* Every variant this CPU runs that has its own update was compared. */
static void test_every_variant_compared(void **state)
{
    (void)state;
    for (int v = 0; v < variant_count; v++) {
        if (tables[v].digest.update == op_digest_update_scalar) {
            print_message("digest: %-8s the scalar twin\n", op_isa_name(variants[v]));
            continue;
        }
        assert_true(compared[variants[v]] > 1000);
        print_message("digest: %-8s %lu comparisons\n", op_isa_name(variants[v]),
                      compared[variants[v]]);
    }
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    for (int i = 0; i < np; i++)
        if (!op_isa_available(promised[i]))
            print_message("digest: variant %s is built but this CPU cannot run it: not "
                          "compared here\n", op_isa_name(promised[i]));
}

int main(void)
{
    const int skip = op_test_simd_skip("test_kernels_digest");
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_library_digests),
        cmocka_unit_test(test_every_variant_compared),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
