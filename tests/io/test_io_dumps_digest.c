/* Per-stage dumps OPDST1/OPREG1 (supplement §4) and canonical digests (§5): round trips,
 * corrupt files rejected with offsets, digests equal XXH3 of the documented byte
 * streams, stable, sensitive to one changed byte, and pinned on a tiny field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/digest.h"
#include "onepath/dumps.h"
#include "onepath/opchf.h"
#include "util/testutil.h"

/* Pinned digests of the tiny hand-made inputs below (computed once, never edited
 * unless the documented serialization changes on purpose). */
#define PINNED_TINY_CHF "ade269b816dc0a33"
#define PINNED_TINY_DIST "40aa687f8d8ab8e9"
#define PINNED_TINY_REG "c196ee1dc801f9c1"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

typedef op_status (*decode_fn)(const unsigned char *buf, size_t len);

static op_status dec_dist(const unsigned char *buf, size_t len)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, buf, len);
    uint32_t *v, n;
    op_status st = op_dump_distance_decode(&op_test_ctx, copy, len, &v, &n);
    free(copy);
    free(v);
    return st;
}

static op_status dec_reg(const unsigned char *buf, size_t len)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, buf, len);
    uint32_t *v, n, rc;
    op_status st = op_dump_regions_decode(&op_test_ctx, copy, len, &v, &n, &rc);
    free(copy);
    free(v);
    return st;
}

static void expect_bad(decode_fn f, const unsigned char *buf, size_t len, const char *what)
{
    op_status st = f(buf, len);
    if (st != OP_BAD_INPUT || strncmp(op_test_ctx.err, "offset ", 7) != 0)
        fail_msg("%s (len %zu): status %d message '%s'", what, len, (int)st, op_test_ctx.err);
}

static void test_dump_distance(void **state)
{
    (void)state;
    op_rng r = {5};
    const uint32_t n = 1000;
    uint32_t *dist = malloc(n * 4);
    for (uint32_t i = 0; i < n; i++)
        dist[i] = (uint32_t)op_rng_next(&r);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_dump_distance_encode(&op_test_ctx, dist, n, &buf, &len), OP_OK);
    assert_int_equal(len, 12 + 4 * n);
    assert_memory_equal(buf, "OPDST1\0\0", 8);
    assert_int_equal(buf[8], n & 0xff);
    assert_int_equal(buf[9], n >> 8);
    assert_int_equal(buf[12], dist[0] & 0xff); /* little-endian */
    assert_int_equal(buf[15], dist[0] >> 24);
    assert_true(op_digest_distance(dist, n) == op_digest_bytes(buf, len));
    uint32_t *back, m;
    assert_int_equal(op_dump_distance_decode(&op_test_ctx, buf, len, &back, &m), OP_OK);
    assert_int_equal(m, n);
    assert_memory_equal(back, dist, n * 4);
    free(back);
    const char *path = op_test_tmp_path(".opdst");
    assert_int_equal(op_dump_distance_write(&op_test_ctx, dist, n, path), OP_OK);
    size_t flen;
    unsigned char *file = op_test_read_file(path, &flen);
    assert_int_equal(flen, len);
    assert_memory_equal(file, buf, len);
    free(file);
    assert_int_equal(op_dump_distance_read(&op_test_ctx, path, &back, &m), OP_OK);
    assert_int_equal(m, n);
    assert_memory_equal(back, dist, n * 4);
    free(back);
    remove(path);
    /* Empty dump. */
    free(buf);
    assert_int_equal(op_dump_distance_encode(&op_test_ctx, dist, 0, &buf, &len), OP_OK);
    assert_int_equal(len, 12);
    assert_int_equal(op_dump_distance_decode(&op_test_ctx, buf, len, &back, &m), OP_OK);
    assert_int_equal(m, 0);
    assert_non_null(back);
    free(back);
    free(buf);

    /* Corruptions of a 5-span dump. */
    assert_int_equal(op_dump_distance_encode(&op_test_ctx, dist, 5, &buf, &len), OP_OK);
    unsigned char mbuf[64];
    for (size_t k = 0; k < len; k++)
        expect_bad(dec_dist, buf, k, "distance truncated");
    memcpy(mbuf, buf, len);
    mbuf[len] = 0;
    expect_bad(dec_dist, mbuf, len + 1, "distance extra byte");
    for (int i = 0; i < 8; i++) {
        memcpy(mbuf, buf, len);
        mbuf[i] ^= 1;
        expect_bad(dec_dist, mbuf, len, "distance magic");
    }
    memcpy(mbuf, buf, len);
    put32(mbuf + 8, 6);
    expect_bad(dec_dist, mbuf, len, "distance count+1");
    put32(mbuf + 8, 0xffffffffu);
    expect_bad(dec_dist, mbuf, len, "distance count huge");
    free(buf);
    free(dist);
}

static void test_dump_regions(void **state)
{
    (void)state;
    const uint32_t n = 300, rc = 17;
    uint32_t *reg = malloc(n * 4);
    for (uint32_t i = 0; i < n; i++)
        reg[i] = i % 7 == 0 ? OP_BORDER_REGION : i % (rc + 1);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_dump_regions_encode(&op_test_ctx, reg, n, rc, &buf, &len), OP_OK);
    assert_int_equal(len, 16 + 4 * n);
    assert_memory_equal(buf, "OPREG1\0\0", 8);
    assert_int_equal(buf[12], rc);
    assert_true(op_digest_regions(reg, n, rc) == op_digest_bytes(buf, len));
    uint32_t *back, m, mrc;
    assert_int_equal(op_dump_regions_decode(&op_test_ctx, buf, len, &back, &m, &mrc), OP_OK);
    assert_int_equal(m, n);
    assert_int_equal(mrc, rc);
    assert_memory_equal(back, reg, n * 4);
    free(back);
    const char *path = op_test_tmp_path(".opreg");
    assert_int_equal(op_dump_regions_write(&op_test_ctx, reg, n, rc, path), OP_OK);
    assert_int_equal(op_dump_regions_read(&op_test_ctx, path, &back, &m, &mrc), OP_OK);
    assert_int_equal(m, n);
    assert_memory_equal(back, reg, n * 4);
    free(back);
    remove(path);
    assert_int_equal(op_dump_regions_read(&op_test_ctx, path, &back, &m, &mrc), OP_IO_ERROR);

    free(buf);
    /* Invalid ids are refused on export. */
    reg[3] = rc + 1;
    assert_int_equal(op_dump_regions_encode(&op_test_ctx, reg, n, rc, &buf, &len),
                     OP_INVALID_ARGUMENT);
    assert_null(buf);
    reg[3] = 3;

    assert_int_equal(op_dump_regions_encode(&op_test_ctx, reg, 6, rc, &buf, &len), OP_OK);
    unsigned char mbuf[64];
    for (size_t k = 0; k < len; k++)
        expect_bad(dec_reg, buf, k, "regions truncated");
    memcpy(mbuf, buf, len);
    mbuf[len] = 7;
    expect_bad(dec_reg, mbuf, len + 1, "regions extra byte");
    memcpy(mbuf, buf, len);
    mbuf[0] = 'X';
    expect_bad(dec_reg, mbuf, len, "regions magic");
    memcpy(mbuf, buf, len);
    put32(mbuf + 8, 5);
    expect_bad(dec_reg, mbuf, len, "regions count-1");
    memcpy(mbuf, buf, len);
    put32(mbuf + 12, 0x80000000u);
    expect_bad(dec_reg, mbuf, len, "regions region_count too large");
    assert_int_equal(strncmp(op_test_ctx.err, "offset 12:", 10), 0);
    memcpy(mbuf, buf, len);
    put32(mbuf + 12, 2); /* ids 3.. now exceed region_count */
    expect_bad(dec_reg, mbuf, len, "regions id > region_count");
    assert_int_equal(strncmp(op_test_ctx.err, "offset 28:", 10), 0); /* span 3 */
    memcpy(mbuf, buf, len);
    put32(mbuf + 16 + 4 * 5, 0x80000001u);
    expect_bad(dec_reg, mbuf, len, "regions id beyond border");
    assert_int_equal(strncmp(op_test_ctx.err, "offset 36:", 10), 0);
    free(buf);
    free(reg);
}

/* A 2×1 field, cell 0 with two spans and cell 1 with one, mutual links 0<->2, and a
 * one-way link 1->2 (not mutual, so hashed as 0xffffffff). */
static void tiny_field(op_chf *a)
{
    assert_int_equal(op_chf_alloc(&op_test_ctx, a, 2, 1, 3), OP_OK);
    a->cs = 0.3f;
    a->ch = 0.2f;
    a->walkable_height = 2;
    a->walkable_climb = 1;
    a->cell_first[1] = 2; /* cell_first[2] = 3 since op_chf_alloc */
    a->y[0] = 1; a->h[0] = 20; a->area[0] = 63;
    a->y[1] = 40; a->h[1] = 255; a->area[1] = 5;
    a->y[2] = 2; a->h[2] = 255; a->area[2] = 0;
    op_test_set_link(a, 2, 0, 2);
    op_test_set_link(a, 0, 2, 0);
    op_test_set_link(a, 2, 1, 2);
    op_chf_build_mutual(&op_test_ctx, a);
}

static void test_digest_chf_format(void **state)
{
    (void)state;
    op_chf a;
    tiny_field(&a);
    /* docs/formats.md, OPCHFD1, written out by hand. */
    static const unsigned char expect[] = {
        'O', 'P', 'C', 'H', 'F', 'D', '1', 0,
        2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0,   /* width, depth, span_count */
        0, 0, 0, 0, 2, 0, 0, 0,               /* cell 0 */
        2, 0, 0, 0, 1, 0, 0, 0,               /* cell 1 */
        1, 0, 20, 0, 63, 4,                   /* span 0: y, h, area, mutual +x */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
        40, 0, 255, 0, 5, 0,                  /* span 1: one-way link not hashed */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff,
        2, 0, 255, 0, 0, 1,                   /* span 2: mutual -x */
        0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    };
    const uint64_t h = op_digest_chf(&a);
    assert_true(h == op_digest_bytes(expect, sizeof expect));
    char hex[17];
    op_digest_hex(h, hex);
    /* Pinned: any change to the serialization or the hash shows here. */
    assert_string_equal(hex, PINNED_TINY_CHF);
    op_chf_free(&a);

    /* XXH3-64 of nothing, seed 0 (the xxHash reference value). */
    op_digest_hex(op_digest_bytes("", 0), hex);
    assert_string_equal(hex, "2d06800538d394c2");
    op_digest_hex(0x0123456789abcdefull, hex);
    assert_string_equal(hex, "0123456789abcdef");
    const uint32_t dist[3] = {0, 2, 3}, reg[3] = {1, 0, OP_BORDER_REGION};
    op_digest_hex(op_digest_distance(dist, 3), hex);
    assert_string_equal(hex, PINNED_TINY_DIST);
    op_digest_hex(op_digest_regions(reg, 3, 1), hex);
    assert_string_equal(hex, PINNED_TINY_REG);
}

static void test_digest_sensitivity(void **state)
{
    (void)state;
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 40, 30);
    op_chf a, b;
    assert_int_equal(op_random_chf(&op_test_ctx, &a, 3, &o), OP_OK);
    assert_int_equal(op_random_chf(&op_test_ctx, &b, 3, &o), OP_OK); /* a second, independent run */
    const uint64_t h = op_digest_chf(&a);
    assert_true(h == op_digest_chf(&a));
    assert_true(h == op_digest_chf(&b));
    const uint32_t s = a.span_count / 2;
    b.y[s] ^= 1;
    assert_true(op_digest_chf(&b) != h);
    b.y[s] ^= 1;
    b.h[s] ^= 1;
    assert_true(op_digest_chf(&b) != h);
    b.h[s] ^= 1;
    b.area[s] ^= 1;
    assert_true(op_digest_chf(&b) != h);
    b.area[s] ^= 1;
    uint32_t c = 0;
    while (!op_chf_cell_count(&b, c))
        c++;
    b.cell_first[c + 1]--; /* cell c's last span becomes cell c + 1's first */
    assert_true(op_digest_chf(&b) != h);
    b.cell_first[c + 1]++;
    /* Dropping a mutual link changes the digest; a non-mutual link is not hashed. */
    uint32_t t = 0;
    while (!b.mutual[t])
        t++;
    b.mutual[t] &= (uint8_t)(b.mutual[t] - 1);
    assert_true(op_digest_chf(&b) != h);
    b.mutual[t] = a.mutual[t];
    assert_true(op_digest_chf(&b) == h);
    for (uint32_t i = 0; i < b.span_count; i++)
        for (int d = 0; d < 4; d++)
            if (op_chf_link(&b, d, i) != OP_NO_LINK && !(b.mutual[i] >> d & 1))
                op_test_set_link(&b, d, i, OP_NO_LINK);
    assert_true(op_digest_chf(&b) == h);

    /* Distance / region digests: one value changed. */
    const uint32_t n = 257;
    uint32_t *v = calloc(n, 4);
    const uint64_t dh = op_digest_distance(v, n), rh = op_digest_regions(v, n, 0);
    assert_true(dh != rh);
    assert_true(op_digest_distance(v, n - 1) != dh);
    v[n - 1] = 1;
    assert_true(op_digest_distance(v, n) != dh);
    assert_true(op_digest_regions(v, n, 1) != rh);
    free(v);
    op_chf_free(&a);
    op_chf_free(&b);
}

static void test_digest_stream(void **state)
{
    (void)state;
    /* Streaming across staging-buffer boundaries equals one-shot hashing. */
    unsigned char bytes[5000];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 131 + 7);
    for (size_t cut = 0; cut < sizeof bytes; cut += 777) {
        op_digest_stream s;
        op_digest_begin(&s);
        op_digest_put(&s, bytes, cut);
        for (size_t i = cut; i < sizeof bytes; i++)
            op_digest_u8(&s, bytes[i]);
        assert_true(op_digest_end(&s) == op_digest_bytes(bytes, sizeof bytes));
    }
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_u16(&s, 0x0201);
    op_digest_u32(&s, 0x06050403);
    op_digest_u64(&s, 0x0e0d0c0b0a090807ull);
    op_digest_i32(&s, -1);
    const unsigned char le[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff, 0xff, 0xff, 0xff};
    assert_true(op_digest_end(&s) == op_digest_bytes(le, sizeof le));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_distance),
        cmocka_unit_test(test_dump_regions),
        cmocka_unit_test(test_digest_chf_format),
        cmocka_unit_test(test_digest_sensitivity),
        cmocka_unit_test(test_digest_stream),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
