/* OBJ loader (supplement §1.2): good files with every face-vertex form, negative
 * indices and polygons; every malformed input rejected with "FILE:LINE: reason". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/obj.h"
#include "util/testutil.h"

/* Parses from an exact-size heap copy (no NUL after it) so asan catches over-reads. */
static op_status parse(op_ctx *ctx, const char *text, op_mesh *m)
{
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    op_status st = op_parse_obj(ctx, copy, n, "t.obj", m);
    free(copy);
    return st;
}

static void test_obj_good(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    op_mesh m;
    const char *text =
        "# a quad and a pentagon\r\n"
        "mtllib x.mtl\n"
        "o thing\n"
        "v 0 0 0\n"
        "v 1 0 0 1.0\n"           /* w component allowed */
        "v 1 0 1 0.5 0.5 0.5\n"   /* vertex colours allowed */
        "v 0 0.5 1\r\n"
        "vt 0 0\nvn 0 1 0\n"
        "g grp\ns off\nusemtl m\n"
        "newfangled_ext 1 2 3\nVX9 a b\n" /* unknown statements are ignored (§1.2) */
        "f 1 4 3 2\n"             /* quad: two triangles */
        "v 2 1e0 2\n"
        "v -2.5 +3 4E-1\n"
        "f -6/1 -3/1/1 -2//1 -1 -5 # comment after\n" /* negative, pentagon */
        "\n   \t\n"
        "f 1/1 2/2 3/3"; /* last line without newline */
    assert_int_equal(parse(&ctx, text, &m), OP_OK);
    assert_int_equal(m.vert_count, 6);
    assert_int_equal(m.tri_count, 2 + 3 + 1);
    const uint32_t expect[] = {0, 3, 2, 0, 2, 1, 0, 3, 4, 0, 4, 5, 0, 5, 1, 0, 1, 2};
    for (int i = 0; i < 18; i++)
        assert_int_equal(m.tris[i], expect[i]);
    assert_true(m.verts[3 * 3 + 1] == 0.5f);
    assert_true(m.verts[3 * 5 + 0] == -2.5f);
    assert_true(m.verts[3 * 5 + 1] == 3.0f);
    assert_true(m.verts[3 * 5 + 2] == 0.4f);
    op_mesh_free(&m);

    /* Empty text is a valid, empty mesh. */
    assert_int_equal(op_parse_obj(&ctx, "", 0, NULL, &m), OP_OK);
    assert_int_equal(m.vert_count, 0);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
}

typedef struct bad_case {
    const char *text;
    const char *where;  /* expected "t.obj:LINE:" */
    const char *reason; /* a word of the reason */
} bad_case;

static void test_obj_malformed(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", "t.obj:4:", "out of range"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n", "t.obj:4:", "index 0"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf -1 -2 -4\n", "t.obj:4:", "out of range"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 99999999999999999999\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv nan 0 0\n", "t.obj:2:", "non-finite"},
        {"v 0 0 0\nv 0 inf 0\n", "t.obj:2:", "non-finite"},
        {"v 0 0 0\nv 0 0 -INFINITY\n", "t.obj:2:", "non-finite"},
        {"v 0 0 0\nv 0 0 1e39\n", "t.obj:2:", "non-finite"},
        {"v 0 0\n", "t.obj:1:", "truncated"},
        {"# x\nv 0 0 0\nv 1 0", "t.obj:3:", "truncated"},
        {"v 1 2 # 3\n", "t.obj:1:", "truncated"},
        {"v 0 0 0\nv 1 0 0\nf 1 2\n", "t.obj:3:", "2 vertices"},
        {"v 0 0 0\nf\n", "t.obj:2:", "0 vertices"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3/\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3//\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3/1/\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 x\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3x\n", "t.obj:4:", "bad face"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3/a\n", "t.obj:4:", "bad face"},
        {"v 0 abc 0\n", "t.obj:1:", "not a number"},
        {"v 0 1.5.5 0\n", "t.obj:1:", "not a number"},
        {"v 0 1 0 zz\n", "t.obj:1:", "not a number"},
        {"v 0 0 0\n3 1 2 3\n", "t.obj:2:", "unknown statement"},
        {"v 0 0 0\n-v 1 2 3\n", "t.obj:2:", "unknown statement"},
        {"v 0 0 0\nv 1\x01 0 0\n", "t.obj:2:", "control byte"},
        {"\n\n\n\n\n\n\n\n\nv 1 2 3 \x7f\n", "t.obj:10:", "control byte"},
        {"v 1 2 3\r\nv 1 2\r\n", "t.obj:2:", "truncated"},
        {"v 0 0 00000000000000000000000000000000000000000000000000000000000000001\n", "t.obj:1:",
         "not a number"},
    };
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_mesh m;
        op_status st = parse(&ctx, cases[i].text, &m);
        if (st != OP_BAD_INPUT || strncmp(ctx.err, cases[i].where, strlen(cases[i].where)) != 0 ||
            !strstr(ctx.err, cases[i].reason))
            fail_msg("case %zu: status %d message '%s' (want %s ... %s)", i, (int)st, ctx.err,
                     cases[i].where, cases[i].reason);
        assert_int_equal(m.vert_count, 0); /* nothing half-built */
        assert_null(m.verts);
    }
    op_ctx_free(&ctx);
}

/* Every prefix of a valid file either parses or fails cleanly (asan: no over-read). */
static void test_obj_prefixes(void **state)
{
    (void)state;
    const char *text = "v 0 0 0\nv 1 0 0\r\nv 0 0 1\nvn 0 1 0\nf 1//1 2//1 3//1\nf -3 -2 -1\n";
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    size_t n = strlen(text);
    for (size_t k = 0; k <= n; k++) {
        char *copy = malloc(k ? k : 1);
        memcpy(copy, text, k);
        op_mesh m;
        op_status st = op_parse_obj(&ctx, copy, k, "p.obj", &m);
        assert_true(st == OP_OK || st == OP_BAD_INPUT);
        if (st == OP_BAD_INPUT)
            assert_non_null(strstr(ctx.err, "p.obj:"));
        op_mesh_free(&m);
        free(copy);
    }
    op_ctx_free(&ctx);
}

static void test_obj_file(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    const char *path = op_test_tmp_path(".obj");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 4 3 2\n", f);
    fclose(f);
    op_mesh m;
    assert_int_equal(op_load_obj(&ctx, path, &m), OP_OK);
    assert_int_equal(m.tri_count, 2);
    op_mesh_free(&m);
    remove(path);
    assert_int_equal(op_load_obj(&ctx, "/nonexistent/dir/x.obj", &m), OP_IO_ERROR);
    assert_non_null(strstr(ctx.err, "/nonexistent/dir/x.obj"));
    op_ctx_free(&ctx);
}

/* Random bytes from the OBJ alphabet: OK or OP_BAD_INPUT with "FILE:LINE:", no crash. */
static void test_obj_fuzz(void **state)
{
    (void)state;
    static const char alphabet[] = "vf /-+.0123456789eEnaiNF#\r\n\tgo";
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    op_rng r = {3};
    for (int it = 0; it < 3000; it++) {
        size_t n = op_rng_below(&r, 80);
        char *t = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            t[i] = alphabet[op_rng_below(&r, sizeof alphabet - 1)];
        if (n > 2 && op_rng_below(&r, 2)) {
            t[0] = op_rng_below(&r, 2) ? 'v' : 'f';
            t[1] = ' ';
        }
        op_mesh m;
        op_status st = op_parse_obj(&ctx, t, n, "z.obj", &m);
        assert_true(st == OP_OK || st == OP_BAD_INPUT);
        if (st == OP_BAD_INPUT)
            assert_int_equal(strncmp(ctx.err, "z.obj:", 6), 0);
        for (uint32_t i = 0; st == OP_OK && i < 3 * m.tri_count; i++)
            assert_true(m.tris[i] < m.vert_count);
        op_mesh_free(&m);
        free(t);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_good),
        cmocka_unit_test(test_obj_malformed),
        cmocka_unit_test(test_obj_prefixes),
        cmocka_unit_test(test_obj_file),
        cmocka_unit_test(test_obj_fuzz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
