/* Hand-built test inputs (testbuild.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/testbuild.h"
#include "util/testutil.h"
#include "onepath/digest.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef OP_HAVE_PNG
#include <png.h>
#endif

uint32_t *op_test_u32s(size_t n)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    assert_non_null(p);
    return p;
}

uint32_t op_test_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z)
{
    assert_int_equal(op_mesh_add_vertex(ctx, m, x, y, z), OP_OK);
    return m->vert_count - 1;
}

void op_test_triangle(op_ctx *ctx, op_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    assert_int_equal(op_mesh_add_triangle(ctx, m, a, b, c), OP_OK);
}

void op_test_quad_up(op_ctx *ctx, op_mesh *m, float x0, float z0, float x1, float z1, float y)
{
    const uint32_t a = op_test_vertex(ctx, m, x0, y, z0), b = op_test_vertex(ctx, m, x0, y, z1),
                   c = op_test_vertex(ctx, m, x1, y, z1), d = op_test_vertex(ctx, m, x1, y, z0);
    op_test_triangle(ctx, m, a, b, c);
    op_test_triangle(ctx, m, a, c, d);
}

void op_test_hf(op_ctx *ctx, op_heightfield *hf, uint32_t w, uint32_t d, const float origin[3],
                float cs, float ch, float ymax)
{
    static const float zero[3] = {0, 0, 0};
    const float *o = origin ? origin : zero;
    const float bmax[3] = {o[0] + (float)w * cs, o[1] + ymax, o[2] + (float)d * cs};
    assert_int_equal(op_heightfield_init(ctx, hf, w, d, o, bmax, cs, ch), OP_OK);
}

void op_test_span(op_ctx *ctx, op_heightfield *hf, uint32_t x, uint32_t z, int lo, int hi,
                  int area)
{
    assert_int_equal(
        op_heightfield_add_span(ctx, hf, x, z, (uint16_t)lo, (uint16_t)hi, (uint8_t)area, 0),
        OP_OK);
}

#ifdef OP_HAVE_PNG
void op_test_write_png(const char *path, uint32_t w, uint32_t d, int depth, int rgb,
                       uint16_t (*sample)(uint32_t x, uint32_t z))
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_true(png && info);
    if (setjmp(png_jmpbuf(png)))
        fail_msg("libpng failed writing the test image");
    png_init_io(png, f);
    png_set_IHDR(png, info, w, d, depth, rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const int chans = rgb ? 3 : 1, bps = depth / 8;
    unsigned char *row = calloc((size_t)w * chans * bps, 1);
    assert_non_null(row);
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint16_t v = sample(x, z);
            for (int c = 0; c < chans; c++) {
                unsigned char *p = row + ((size_t)x * chans + c) * bps;
                if (bps == 2) {
                    p[0] = (unsigned char)(v >> 8); /* PNG is big-endian */
                    p[1] = (unsigned char)v;
                } else {
                    p[0] = (unsigned char)v;
                }
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(f);
}
#endif

void op_test_assert_same_chf(const op_chf *a, const op_chf *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(a->span_count, b->span_count);
    assert_memory_equal(a->bmin, b->bmin, sizeof a->bmin);
    assert_memory_equal(a->bmax, b->bmax, sizeof a->bmax);
    assert_true(a->cs == b->cs && a->ch == b->ch);
    assert_int_equal(a->walkable_height, b->walkable_height);
    assert_int_equal(a->walkable_climb, b->walkable_climb);
    assert_int_equal(a->border_size, b->border_size);
    const size_t cells = (size_t)a->width * a->depth, n = a->span_count;
    assert_memory_equal(a->cell_first, b->cell_first, (cells + 1) * 4);
    if (n) {
        assert_memory_equal(a->y, b->y, n * 2);
        assert_memory_equal(a->h, b->h, n);
        assert_memory_equal(a->area, b->area, n);
        assert_memory_equal(a->mutual, b->mutual, n);
        int dir = 0;
        assert_int_equal(op_test_links_diff(a, b, &dir), -1); /* one-way links too */
    }
    assert_true(op_digest_chf(a) == op_digest_chf(b));
}
