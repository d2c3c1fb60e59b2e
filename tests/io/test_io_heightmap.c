/* Heightmaps (supplement §1.2): two up-facing triangles per quad; raw r16 size checks;
 * 16-bit grayscale PNG accepted, 8-bit and colour rejected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "onepath/heightmap.h"
#include "util/testbuild.h"
#include "util/testutil.h"

static uint16_t sample(uint32_t x, uint32_t z) { return (uint16_t)(x * 1000 + z * 37 + 5); }

/* y of (b-a) x (c-a), the up component (supplement §1.2 normal). */
static float normal_y(const op_mesh *m, uint32_t t)
{
    const float *a = m->verts + 3 * m->tris[3 * t], *b = m->verts + 3 * m->tris[3 * t + 1],
                *c = m->verts + 3 * m->tris[3 * t + 2];
    const float e0x = b[0] - a[0], e0z = b[2] - a[2], e1x = c[0] - a[0], e1z = c[2] - a[2];
    return e0z * e1x - e0x * e1z;
}

static void check_grid_mesh(const op_mesh *m, uint32_t w, uint32_t d, float spacing, float hs)
{
    assert_int_equal(m->vert_count, w * d);
    assert_int_equal(m->tri_count, 2 * (w - 1) * (d - 1));
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            const float *v = m->verts + 3 * (x + z * w);
            assert_true(v[0] == (float)x * spacing);
            assert_true(v[2] == (float)z * spacing);
            assert_true(v[1] == (float)sample(x, z) * hs);
        }
    for (uint32_t t = 0; t < m->tri_count; t++)
        assert_true(normal_y(m, t) > 0.0f);
}

static void test_heightmap_mesh(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    const uint32_t w = 5, d = 3;
    uint16_t h[15];
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++)
            h[x + z * w] = sample(x, z);
    op_mesh m;
    assert_int_equal(op_heightmap_to_mesh(&ctx, h, w, d, NULL, &m), OP_OK);
    check_grid_mesh(&m, w, d, 1.0f, 0.01f);
    /* Consistent diagonal: every quad's two triangles share (x,z)-(x+1,z+1). */
    for (uint32_t q = 0; q < m.tri_count / 2; q++) {
        const uint32_t *t = m.tris + 6 * q;
        assert_int_equal(t[0], t[3]);
        assert_int_equal(t[2], t[4]);
        assert_int_equal(t[2], t[0] + w + 1);
    }
    op_mesh_free(&m);
    op_heightmap_opts o = {0.5f, 0.25f};
    assert_int_equal(op_heightmap_to_mesh(&ctx, h, w, d, &o, &m), OP_OK);
    check_grid_mesh(&m, w, d, 0.5f, 0.25f);
    op_mesh_free(&m);
    o.spacing = 0.0f;
    assert_int_equal(op_heightmap_to_mesh(&ctx, h, w, d, &o, &m), OP_INVALID_ARGUMENT);
    assert_int_equal(op_heightmap_to_mesh(&ctx, h, 1, 15, NULL, &m), OP_BAD_INPUT);
    op_ctx_free(&ctx);
}

static const char *write_bytes(const unsigned char *b, size_t n)
{
    const char *path = op_test_tmp_path(".r16");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    return path;
}

static void test_heightmap_r16(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    const uint32_t w = 4, d = 3;
    unsigned char raw[24];
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            uint16_t v = sample(x, z);
            raw[2 * (x + z * w)] = (unsigned char)v;
            raw[2 * (x + z * w) + 1] = (unsigned char)(v >> 8);
        }
    op_mesh m;
    const char *p = write_bytes(raw, sizeof raw);
    assert_int_equal(op_load_heightmap_r16(&ctx, p, w, NULL, &m), OP_OK);
    check_grid_mesh(&m, w, d, 1.0f, 0.01f);
    op_mesh_free(&m);
    /* 24 bytes with width 5: not a multiple of 10. */
    assert_int_equal(op_load_heightmap_r16(&ctx, p, 5, NULL, &m), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "24"));
    assert_non_null(strstr(ctx.err, "10"));
    /* width 12: one row only. */
    assert_int_equal(op_load_heightmap_r16(&ctx, p, 12, NULL, &m), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "rows"));
    assert_int_equal(op_load_heightmap_r16(&ctx, p, 0, NULL, &m), OP_BAD_INPUT);
    assert_int_equal(m.vert_count, 0);
    remove(p);
    p = write_bytes(raw, 23); /* odd size */
    assert_int_equal(op_load_heightmap_r16(&ctx, p, 4, NULL, &m), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "23"));
    remove(p);
    p = write_bytes(raw, 0);
    assert_int_equal(op_load_heightmap_r16(&ctx, p, 4, NULL, &m), OP_BAD_INPUT);
    remove(p);
    assert_int_equal(op_load_heightmap_r16(&ctx, "/nonexistent/x.r16", 4, NULL, &m), OP_IO_ERROR);
    op_ctx_free(&ctx);
}


static void test_heightmap_png(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    op_mesh m;
#ifdef OP_HAVE_PNG
    const uint32_t w = 7, d = 6;
    char p16[4096], p8[4096], prgb[4096], pbad[4096];
    snprintf(p16, sizeof p16, "%s", op_test_tmp_path(".png"));
    snprintf(p8, sizeof p8, "%s", op_test_tmp_path(".png"));
    snprintf(prgb, sizeof prgb, "%s", op_test_tmp_path(".png"));
    snprintf(pbad, sizeof pbad, "%s", op_test_tmp_path(".png"));
    op_test_write_png(p16, w, d, 16, 0, sample);
    op_test_write_png(p8, w, d, 8, 0, sample);
    op_test_write_png(prgb, w, d, 16, 1, sample);
    op_heightmap_opts o = {2.0f, 0.5f};
    assert_int_equal(op_load_heightmap_png(&ctx, p16, &o, &m), OP_OK);
    check_grid_mesh(&m, w, d, 2.0f, 0.5f);
    op_mesh_free(&m);
    assert_int_equal(op_load_heightmap_png(&ctx, p8, NULL, &m), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "8-bit"));
    assert_int_equal(op_load_heightmap_png(&ctx, prgb, NULL, &m), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "colour"));
    /* A PNG cut in the middle of its data: libpng's error path, no crash, no leak. */
    size_t n = 0;
    unsigned char *bytes = op_test_read_file(p16, &n);
    assert_non_null(bytes);
    FILE *f = fopen(pbad, "wb");
    fwrite(bytes, 1, n - 20, f);
    fclose(f);
    free(bytes);
    assert_int_equal(op_load_heightmap_png(&ctx, pbad, NULL, &m), OP_BAD_INPUT);
    assert_int_equal(m.vert_count, 0);
    /* Not a PNG at all. */
    f = fopen(pbad, "wb");
    fputs("hello", f);
    fclose(f);
    assert_int_equal(op_load_heightmap_png(&ctx, pbad, NULL, &m), OP_BAD_INPUT);
    remove(p16);
    remove(p8);
    remove(prgb);
    remove(pbad);
#else
    assert_int_equal(op_load_heightmap_png(&ctx, "x.png", NULL, &m), OP_UNSUPPORTED);
#endif
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heightmap_mesh),
        cmocka_unit_test(test_heightmap_r16),
        cmocka_unit_test(test_heightmap_png),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
