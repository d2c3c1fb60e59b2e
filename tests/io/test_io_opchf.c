/* OPCHF1 (supplement §4): export → import keeps the field (op_digest_chf and every
 * link); a corruption of every field, truncation at every offset and extra bytes are
 * rejected with "offset N"; a link to span index >= 128 is OP_UNSUPPORTED on export.
 * Corrupted inputs are decoded from exact-size heap copies so the asan build proves the
 * reader never reads out of bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/digest.h"
#include "onepath/opchf.h"
#include "util/testbuild.h"
#include "util/testutil.h"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void putf(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, u);
}

/* Decodes an exact-size heap copy. */
static op_status decode_copy(const unsigned char *buf, size_t len, op_chf *out)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, buf, len);
    op_status st = op_opchf_decode(&op_test_ctx, copy, len, out);
    free(copy);
    return st;
}

/* Expects OP_BAD_INPUT with "offset N" (N = want, or any when want < 0). */
static void expect_bad_at(const unsigned char *buf, size_t len, long long want, const char *what,
                          long long idx)
{
    op_chf out;
    op_status st = decode_copy(buf, len, &out);
    if (st != OP_BAD_INPUT)
        fail_msg("%s %lld: status %d (%s), expected bad input", what, idx, (int)st,
                 op_test_ctx.err);
    if (strncmp(op_test_ctx.err, "offset ", 7) != 0)
        fail_msg("%s %lld: message '%s' has no offset", what, idx, op_test_ctx.err);
    if (want >= 0 && strtoll(op_test_ctx.err + 7, NULL, 10) != want)
        fail_msg("%s %lld: message '%s', expected offset %lld", what, idx, op_test_ctx.err, want);
    assert_null(out.y); /* nothing half-built */
}

static void make_field(op_chf *chf, uint64_t seed, uint32_t w, uint32_t d)
{
    op_random_chf_opts o;
    op_random_chf_defaults(&o, w, d);
    o.empty_percent = 15;
    o.area_count = 3;
    assert_int_equal(op_random_chf(&op_test_ctx, chf, seed, &o), OP_OK);
    chf->border_size = 3;
    chf->bmin[1] = -2.0f;
}

static void test_opchf_roundtrip(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_chf a, b;
        make_field(&a, seed, 3 + (uint32_t)seed % 9, 2 + (uint32_t)seed % 7);
        unsigned char *buf;
        size_t len;
        assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
        assert_int_equal(len, 64 + 8 * (size_t)a.width * a.depth + 10 * (size_t)a.span_count);
        assert_memory_equal(buf, "OPCHF1\0\0", 8);
        assert_int_equal(decode_copy(buf, len, &b), OP_OK);
        op_test_assert_same_chf(&a, &b);
        /* Re-encoding gives the same bytes. */
        unsigned char *buf2;
        size_t len2;
        assert_int_equal(op_opchf_encode(&op_test_ctx, &b, &buf2, &len2), OP_OK);
        assert_int_equal(len, len2);
        assert_memory_equal(buf, buf2, len);
        free(buf);
        free(buf2);
        op_chf_free(&a);
        op_chf_free(&b);
    }
    /* One larger field through a file. */
    op_chf a, b;
    make_field(&a, 99, 300, 200);
    const char *path = op_test_tmp_path(".opchf");
    assert_int_equal(op_opchf_write(&op_test_ctx, &a, path), OP_OK);
    assert_int_equal(op_opchf_read(&op_test_ctx, path, &b), OP_OK);
    op_test_assert_same_chf(&a, &b);
    remove(path);
    op_chf_free(&a);
    op_chf_free(&b);
    assert_int_equal(op_opchf_read(&op_test_ctx, "/nonexistent/x.opchf", &b), OP_IO_ERROR);
}

/* A field with a hand-placed one-way link, to check it survives and mutual[] is
 * recomputed rather than trusted. */
static void test_opchf_one_way(void **state)
{
    (void)state;
    op_chf a, b;
    assert_int_equal(op_chf_alloc(&op_test_ctx, &a, 2, 1, 3), OP_OK);
    a.cs = 1.0f;
    a.ch = 0.5f;
    a.walkable_height = 2;
    a.walkable_climb = 1;
    a.cell_first[0] = 0;
    a.cell_first[1] = 1; /* cell_first[2] = 3 since op_chf_alloc */
    a.y[0] = 3; a.h[0] = 255; a.area[0] = 63;
    a.y[1] = 1; a.h[1] = 10; a.area[1] = 63;
    a.y[2] = 30; a.h[2] = 255; a.area[2] = 0;
    op_test_set_link(&a, 2, 0, 1); /* mutual with link[0][1] */
    op_test_set_link(&a, 0, 1, 0);
    op_test_set_link(&a, 0, 2, 0); /* one-way */
    op_chf_build_mutual(&op_test_ctx, &a);
    assert_int_equal(a.mutual[0], 1 << 2);
    assert_int_equal(a.mutual[2], 0);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
    /* span 2's link[0] is index 0 of cell 0; link[2] -1 */
    const size_t s2 = 64 + 16 + 20;
    assert_int_equal(buf[s2 + 6], 0);
    assert_int_equal(buf[s2 + 8], 0xff);
    assert_int_equal(decode_copy(buf, len, &b), OP_OK);
    op_test_assert_same_chf(&a, &b);
    assert_int_equal(op_chf_link(&b, 0, 2), 0);
    assert_int_equal(b.mutual[2], 0);
    free(buf);
    op_chf_free(&a);
    op_chf_free(&b);
}

static void test_opchf_corrupt_header(void **state)
{
    (void)state;
    op_chf a;
    make_field(&a, 7, 6, 5);
    unsigned char *buf, *m;
    size_t len;
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
    m = malloc(len + 200);
    const uint32_t n = a.span_count;

#define MUT(expr, want)                 \
    do {                                \
        memcpy(m, buf, len);            \
        expr;                           \
        expect_bad_at(m, len, want, #expr, 0); \
    } while (0)

    for (int i = 0; i < 8; i++)
        MUT(m[i] ^= 0x20, 0); /* magic */
    MUT(put32(m + 8, 0), 8);
    MUT(put32(m + 8, a.width + 1), (long long)len);
    MUT(put32(m + 8, a.width - 1), -1);
    MUT(put32(m + 8, 0xffffffffu), 8);
    MUT(put32(m + 12, 0), 12);
    MUT(put32(m + 12, a.depth + 1), (long long)len);
    MUT(put32(m + 12, 0x80000000u), 8);
    MUT(put32(m + 16, n + 1), (long long)len);
    MUT(put32(m + 16, n - 1), -1);
    MUT(put32(m + 16, 0xffffffffu), 16);
    for (int i = 0; i < 3; i++) {
        MUT(putf(m + 20 + 4 * i, NAN), 20 + 4 * i);
        MUT(putf(m + 20 + 4 * i, INFINITY), 20 + 4 * i);
        MUT(putf(m + 32 + 4 * i, NAN), 32 + 4 * i);
        MUT(putf(m + 32 + 4 * i, -INFINITY), 32 + 4 * i);
        MUT(putf(m + 32 + 4 * i, -1e30f), 32 + 4 * i); /* bmax below bmin */
    }
    MUT(putf(m + 44, 0.0f), 44);
    MUT(putf(m + 44, -0.3f), 44);
    MUT(putf(m + 44, NAN), 44);
    MUT(putf(m + 44, INFINITY), 44);
    MUT(putf(m + 48, 0.0f), 48);
    MUT(putf(m + 48, NAN), 48);
    MUT(put32(m + 52, 0), 52);
    MUT(put32(m + 52, 0xfffffffbu), 52);
    MUT(put32(m + 56, 0xffffffffu), 56);
    MUT(put32(m + 60, 0x80000000u), 60);

    /* Truncated at every offset; extra bytes. */
    for (size_t k = 0; k < len; k++)
        expect_bad_at(buf, k, -1, "truncated at", (long long)k);
    memcpy(m, buf, len);
    memset(m + len, 0, 200);
    expect_bad_at(m, len + 1, (long long)len, "extra bytes", 1);
    expect_bad_at(m, len + 200, (long long)len, "extra bytes", 200);
#undef MUT
    free(m);
    free(buf);
    op_chf_free(&a);
}

static void test_opchf_corrupt_cells_spans(void **state)
{
    (void)state;
    op_chf a, b;
    make_field(&a, 11, 7, 6);
    unsigned char *buf, *m;
    size_t len;
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
    m = malloc(len);
    const uint64_t d0 = op_digest_chf(&a);
    const size_t cells = (size_t)a.width * a.depth;
    const size_t span_off = 64 + 8 * cells;
    size_t empties = 0, checked_links = 0, offgrid = 0;

    for (size_t c = 0; c < cells; c++) {
        const size_t off = 64 + 8 * c;
        const uint32_t first = get32(buf + off), cnt = get32(buf + off + 4);
        if (cnt) {
            memcpy(m, buf, len);
            put32(m + off, first + 1);
            expect_bad_at(m, len, (long long)off, "cell first+1", (long long)c);
            memcpy(m, buf, len);
            put32(m + off, first ? first - 1 : 0xffffffffu);
            expect_bad_at(m, len, (long long)off, "cell first-1", (long long)c);
            memcpy(m, buf, len);
            put32(m + off + 4, cnt - 1);
            expect_bad_at(m, len, -1, "cell count-1", (long long)c);
        } else {
            /* An empty cell is read with any first_span. */
            empties++;
            memcpy(m, buf, len);
            put32(m + off, 0xdeadbeefu);
            assert_int_equal(decode_copy(m, len, &b), OP_OK);
            assert_true(op_digest_chf(&b) == d0);
            op_chf_free(&b);
        }
        memcpy(m, buf, len);
        put32(m + off + 4, cnt + 1);
        expect_bad_at(m, len, -1, "cell count+1", (long long)c);
        memcpy(m, buf, len);
        put32(m + off + 4, 0xffffffffu);
        expect_bad_at(m, len, (long long)off + 4, "cell count huge", (long long)c);
    }
    assert_true(empties > 0);

    for (uint32_t z = 0; z < a.depth; z++) {
        for (uint32_t x = 0; x < a.width; x++) {
            const uint32_t c = x + z * a.width;
            for (uint32_t k = 0; k < op_chf_cell_count(&a, c); k++) {
                const uint32_t s = a.cell_first[c] + k;
                const size_t off = span_off + 10 * (size_t)s;
                memcpy(m, buf, len);
                m[off + 5] = 1; /* reserved */
                expect_bad_at(m, len, (long long)off + 5, "reserved", s);
                memcpy(m, buf, len);
                m[off + 2] = 0;
                m[off + 3] = 1; /* h = 256: op_chf's h is u8, so refused, never cut to 0 */
                expect_bad_at(m, len, (long long)off + 2, "h", s);
                assert_non_null(strstr(op_test_ctx.err, "clearance h 256 > 255"));
                m[off + 2] = 0xff;
                m[off + 3] = 0xff; /* h = 65535 */
                expect_bad_at(m, len, (long long)off + 2, "h", s);
                if (k > 0) { /* floor not above the one below */
                    memcpy(m, buf, len);
                    m[off] = buf[off - 10];
                    m[off + 1] = buf[off - 9];
                    expect_bad_at(m, len, (long long)off, "y", s);
                } else if (op_chf_cell_count(&a, c) > 1) {
                    memcpy(m, buf, len);
                    m[off] = 0xff;
                    m[off + 1] = 0xff;
                    expect_bad_at(m, len, (long long)off + 10, "y", s);
                }
                /* area: every value is a valid id; the digest sees the change. */
                memcpy(m, buf, len);
                m[off + 4] ^= 0x5a;
                assert_int_equal(decode_copy(m, len, &b), OP_OK);
                assert_true(op_digest_chf(&b) != d0);
                op_chf_free(&b);
                for (int d = 0; d < 4; d++) {
                    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
                    const int off_grid = nx < 0 || nz < 0 || nx >= a.width || nz >= a.depth;
                    const size_t lo = off + 6 + d;
                    memcpy(m, buf, len);
                    m[lo] = 0xfe; /* -2 */
                    expect_bad_at(m, len, (long long)lo, "link -2", s);
                    memcpy(m, buf, len);
                    m[lo] = 0x80; /* -128 */
                    expect_bad_at(m, len, (long long)lo, "link -128", s);
                    memcpy(m, buf, len);
                    m[lo] = 0x7f; /* 127: beyond every neighbour cell here */
                    expect_bad_at(m, len, (long long)lo, "link 127", s);
                    if (off_grid) {
                        memcpy(m, buf, len);
                        m[lo] = 0;
                        expect_bad_at(m, len, (long long)lo, "link off-grid", s);
                        assert_non_null(strstr(op_test_ctx.err, "off the grid"));
                        offgrid++;
                    } else {
                        const uint32_t nc = (uint32_t)nx + (uint32_t)nz * a.width;
                        memcpy(m, buf, len);
                        m[lo] = (unsigned char)op_chf_cell_count(&a, nc);
                        expect_bad_at(m, len, (long long)lo, "link = count", s);
                        checked_links++;
                    }
                }
            }
        }
    }
    assert_true(checked_links > 0 && offgrid > 0);
    free(m);
    free(buf);
    op_chf_free(&a);
}

static void test_opchf_link_128(void **state)
{
    (void)state;
    /* Cell 0: one span; cell 1: 130 spans. Span 0 links +x to index 129 of cell 1. */
    op_chf a, b;
    assert_int_equal(op_chf_alloc(&op_test_ctx, &a, 2, 1, 131), OP_OK);
    a.cs = 0.3f;
    a.ch = 0.2f;
    a.walkable_height = 1;
    a.walkable_climb = 1;
    a.cell_first[1] = 1; /* cell_first[2] = 131 since op_chf_alloc */
    for (uint32_t s = 0; s < 131; s++) {
        a.y[s] = (uint16_t)(s ? 2 * (s - 1) : 0);
        a.h[s] = 1;
        a.area[s] = 63;
    }
    op_test_set_link(&a, 2, 0, 1 + 129);
    op_test_set_link(&a, 0, 130, 0);
    op_chf_build_mutual(&op_test_ctx, &a);
    unsigned char *buf = NULL;
    size_t len = 0;
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_UNSUPPORTED);
    assert_null(buf);
    assert_non_null(strstr(op_test_ctx.err, "129"));
    const char *path = op_test_tmp_path(".opchf");
    assert_int_equal(op_opchf_write(&op_test_ctx, &a, path), OP_UNSUPPORTED);
    /* Index 127 is the last that fits. */
    op_test_set_link(&a, 2, 0, 1 + 127);
    op_test_set_link(&a, 0, 130, OP_NO_LINK);
    op_test_set_link(&a, 0, 128, 0);
    op_chf_build_mutual(&op_test_ctx, &a);
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
    assert_int_equal(decode_copy(buf, len, &b), OP_OK);
    op_test_assert_same_chf(&a, &b);
    assert_int_equal(b.mutual[0], 1 << 2);
    free(buf);
    op_chf_free(&b);
    /* A link outside its neighbour cell is not a valid field: refused, not written. */
    op_test_set_link(&a, 2, 0, 0);
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_INVALID_ARGUMENT);
    op_chf_free(&a);
}

/* Random multi-byte corruptions: either a valid field (then it re-encodes to the same
 * bytes) or OP_BAD_INPUT with an offset; never a crash or an out-of-bounds read. */
static void test_opchf_fuzz(void **state)
{
    (void)state;
    op_chf a, b;
    make_field(&a, 21, 5, 4);
    unsigned char *buf, *m, *re;
    size_t len, relen;
    assert_int_equal(op_opchf_encode(&op_test_ctx, &a, &buf, &len), OP_OK);
    op_rng r = {77};
    for (int it = 0; it < 3000; it++) {
        m = malloc(len);
        memcpy(m, buf, len);
        const uint32_t flips = 1 + op_rng_below(&r, 4);
        for (uint32_t k = 0; k < flips; k++)
            m[op_rng_below(&r, (uint32_t)len)] = (unsigned char)op_rng_next(&r);
        const size_t cut = op_rng_below(&r, 8) == 0 ? op_rng_below(&r, (uint32_t)len) : len;
        op_status st = op_opchf_decode(&op_test_ctx, m, cut, &b);
        if (st == OP_OK) {
            assert_int_equal(op_opchf_encode(&op_test_ctx, &b, &re, &relen), OP_OK);
            assert_int_equal(relen, cut);
            free(re);
            op_chf_free(&b);
        } else {
            assert_int_equal(st, OP_BAD_INPUT);
            assert_int_equal(strncmp(op_test_ctx.err, "offset ", 7), 0);
        }
        free(m);
    }
    free(buf);
    op_chf_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opchf_roundtrip),
        cmocka_unit_test(test_opchf_one_way),
        cmocka_unit_test(test_opchf_corrupt_header),
        cmocka_unit_test(test_opchf_corrupt_cells_spans),
        cmocka_unit_test(test_opchf_link_128),
        cmocka_unit_test(test_opchf_fuzz),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
