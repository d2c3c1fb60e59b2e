/* The bulk digests against their documented byte streams built here byte by byte
 * (docs/formats.md OPCHFD1, OPDST1/OPREG1 digests; supplement §5): io/digest.c writes
 * OPCHFD1 four records at a time (SSE2) into 16 KiB blocks and hashes u32 arrays
 * straight from memory, so every record position in a block, every tail length, block
 * boundaries and non-mutual links of every direction are covered, on random fields and
 * on adversarial values (all-ones links, the largest y/h, every mutual nibble). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "onepath/digest.h"
#include "util/testutil.h"

static unsigned char *put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    return p + 2;
}
static unsigned char *put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 4;
}

/* OPCHFD1 as documented, one byte at a time. */
static uint64_t reference_chf(const op_chf *c)
{
    const size_t cells = (size_t)c->width * c->depth;
    const size_t len = 8 + 12 + 8 * cells + 22 * (size_t)c->span_count;
    unsigned char *b = malloc(len), *p = b;
    assert_non_null(b);
    memcpy(p, "OPCHFD1", 8);
    p += 8;
    p = put32(p, c->width);
    p = put32(p, c->depth);
    p = put32(p, c->span_count);
    for (size_t i = 0; i < cells; i++) {
        p = put32(p, c->cell_first[i]);
        p = put32(p, c->cell_first[i + 1] - c->cell_first[i]); /* the count */
    }
    for (uint32_t s = 0; s < c->span_count; s++) {
        const unsigned m = c->mutual[s] & 0xfu;
        p = put16(p, c->y[s]);
        p = put16(p, c->h[s]);
        *p++ = c->area[s];
        *p++ = (unsigned char)m;
        for (int d = 0; d < 4; d++)
            p = put32(p, (m >> d & 1) ? op_chf_link(c, d, s) : OP_NO_LINK);
    }
    assert_true((size_t)(p - b) == len);
    const uint64_t h = op_digest_bytes(b, len);
    free(b);
    return h;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A field of w x d cells and n spans with arbitrary (not link-rule) contents: the
 * digest serializes whatever the arrays hold. adversarial: extreme values. */
static void fill(op_chf *c, uint32_t w, uint32_t d, uint32_t n, int adversarial)
{
    memset(c, 0, sizeof *c);
    c->width = w;
    c->depth = d;
    c->span_count = n;
    const size_t cells = (size_t)w * d;
    c->cell_first = calloc(cells + 1, 4);
    c->y = calloc(n ? n : 1, 2);
    c->h = calloc(n ? n : 1, 1);
    c->area = calloc(n ? n : 1, 1);
    c->mutual = calloc(n ? n : 1, 1);
    for (int k = 0; k < 4; k++)
        c->dlink[k] = calloc(n ? n : 1, 2); /* every link written below, in span order */
    /* Counts are the steps cell_first[i + 1] - cell_first[i], wrapping: adversarial
     * alternates extremes, so the steps are near 0x80000000 and 0x7fffffff too. */
    for (size_t i = 0; i <= cells; i++)
        c->cell_first[i] = adversarial ? (i & 1 ? 0xffffffffu - (uint32_t)i : (uint32_t)i << 20)
                                       : next32();
    for (uint32_t s = 0; s < n; s++) {
        c->y[s] = adversarial ? 0xffff : (uint16_t)next32();
        /* h is u8, widened to u16 in the record: high bit set (a sign extension shows) */
        c->h[s] = adversarial ? (uint8_t)(0x80 | s) : (uint8_t)next32();
        c->area[s] = adversarial ? (uint8_t)(0xff - s) : (uint8_t)next32();
        /* every mutual nibble in turn, with junk in the high bits too */
        c->mutual[s] = adversarial ? (uint8_t)(s * 0x11u) : (uint8_t)next32();
        for (int k = 0; k < 4; k++)
            op_test_set_link(c, k, s,
                             adversarial ? (s & 1 ? 0xffffffffu : 0x7fffffffu - s) : next32());
    }
}

static void drop(op_chf *c)
{
    free(c->cell_first);
    free(c->y);
    free(c->h);
    free(c->area);
    free(c->mutual);
    for (int k = 0; k < 4; k++) {
        free(c->dlink[k]);
        free(c->far[k].span); /* op_chf_set_link's far entries (the C library's allocator) */
        free(c->far[k].target);
    }
}

static void test_chf_blocks(void **state)
{
    (void)state;
    /* 744 records fill a 16 KiB block: tails 0..7 around one and two blocks */
    static const uint32_t counts[] = {0,   1,   2,   3,   4,   5,    7,    8,    9,    13,
                                      743, 744, 745, 747, 748, 1487, 1488, 1489, 1491, 5003};
    for (int adv = 0; adv < 2; adv++)
        for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
            op_chf c;
            /* cells: 2048 fill one block; odd counts leave tails of the 4-cell steps */
            const uint32_t w = 1 + (uint32_t)i * 7, d = 1 + (uint32_t)(i % 5) * 61;
            fill(&c, w, d, counts[i], adv);
            assert_true(op_digest_chf(&c) == reference_chf(&c));
            drop(&c);
        }
}

static void test_chf_random_field(void **state)
{
    (void)state;
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 37, 29);
    o.max_floors = 3;
    o.y_jitter = 3; /* one-way links: non-mutual links are written as all ones */
    op_chf c;
    assert_int_equal(op_random_chf(&op_test_ctx, &c, 11, &o), OP_OK);
    assert_true(op_digest_chf(&c) == reference_chf(&c));
    op_chf_free(&c);
}

/* u32 arrays (distance, regions): the array's little-endian bytes after the header. */
static void test_u32_arrays(void **state)
{
    (void)state;
    static const uint32_t counts[] = {0, 1, 15, 16, 63, 64, 65, 255, 256, 257, 1000, 70000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        const uint32_t n = counts[i];
        uint32_t *v = malloc((n ? n : 1) * sizeof *v);
        for (uint32_t k = 0; k < n; k++)
            v[k] = i & 1 ? 0xffffffffu - k : next32();
        unsigned char *b = malloc(16 + 4 * (size_t)n), *p;
        memcpy(b, "OPDST1\0\0", 8);
        p = put32(b + 8, n);
        for (uint32_t k = 0; k < n; k++)
            p = put32(p, v[k]);
        assert_true(op_digest_distance(v, n) == op_digest_bytes(b, (size_t)(p - b)));
        memcpy(b, "OPREG1\0\0", 8);
        p = put32(b + 8, n);
        p = put32(p, 77);
        for (uint32_t k = 0; k < n; k++)
            p = put32(p, v[k]);
        assert_true(op_digest_regions(v, n, 77) == op_digest_bytes(b, (size_t)(p - b)));
        free(b);
        free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chf_blocks),
        cmocka_unit_test(test_chf_random_field),
        cmocka_unit_test(test_u32_arrays),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
