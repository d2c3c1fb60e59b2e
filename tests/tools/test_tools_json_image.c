/* JSON writer (escaping, layout, misuse), RGB raster (lines, colours, top view), PNG/PPM
 * and SVG writers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OP_HAVE_PNG
#include <png.h>
#endif

#include "image.h"
#include "json.h"
#include "svg.h"
#include "util/testutil.h"

/* Everything written to f so far, NUL-terminated (static buffer). */
static const char *contents(FILE *f)
{
    static char buf[8192];
    fflush(f);
    long n = ftell(f);
    rewind(f);
    size_t got = fread(buf, 1, n > 0 && n < (long)sizeof buf ? (size_t)n : sizeof buf - 1, f);
    buf[got] = 0;
    return buf;
}

static void test_json_compact(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    FILE *f = tmpfile();
    assert_non_null(f);
    op_json j;
    op_json_init(&j, f, 0);
    op_json_begin_object(&j);
    op_json_kv_string(&j, "s", "q\"b\\n\nt\tc\x01 \x1f/é€𝄞");
    op_json_kv_string(&j, "bad", "a\xff" "b\xc0\x80" "c\xed\xa0\x80" "d\xe2\x82");
    op_json_key(&j, "k\"ey");
    op_json_u64(&j, 18446744073709551615ull);
    op_json_kv_i64(&j, "neg", -9223372036854775807ll - 1);
    op_json_kv_double(&j, "d", 0.1);
    op_json_kv_double(&j, "nan", NAN);
    op_json_key(&j, "fx");
    op_json_double_fixed(&j, 2.0 / 3.0, 3);
    op_json_kv_bool(&j, "t", 1);
    op_json_key(&j, "arr");
    op_json_begin_array(&j);
    op_json_u64(&j, 1);
    op_json_begin_array(&j);
    op_json_end_array(&j);
    op_json_begin_object(&j);
    op_json_end_object(&j);
    op_json_null(&j);
    op_json_string(&j, NULL);
    op_json_end_array(&j);
    op_json_end_object(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_OK);
    assert_string_equal(
        contents(f),
        "{\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001 \\u001f/é€𝄞\","
        "\"bad\":\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffd\","
        "\"k\\\"ey\":18446744073709551615,\"neg\":-9223372036854775808,"
        "\"d\":0.1,\"nan\":null,\"fx\":0.667,\"t\":true,"
        "\"arr\":[1,[],{},null,null]}\n");
    fclose(f);
    op_ctx_free(&ctx);
}

static void test_json_indent_and_misuse(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    FILE *f = tmpfile();
    op_json j;
    op_json_init(&j, f, 2);
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "a", 1);
    op_json_key(&j, "b");
    op_json_begin_array(&j);
    op_json_bool(&j, 0);
    op_json_i64(&j, -3);
    op_json_end_array(&j);
    op_json_end_object(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_OK);
    assert_string_equal(contents(f), "{\n  \"a\": 1,\n  \"b\": [\n    false,\n    -3\n  ]\n}\n");
    fclose(f);

    /* A value without a key inside an object. */
    f = tmpfile();
    op_json_init(&j, f, 0);
    op_json_begin_object(&j);
    op_json_u64(&j, 1);
    op_json_end_object(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    fclose(f);
    /* Unclosed, mismatched, key in an array, two top-level values. */
    f = tmpfile();
    op_json_init(&j, f, 0);
    op_json_begin_array(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    op_json_init(&j, f, 0);
    op_json_begin_array(&j);
    op_json_end_object(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    op_json_init(&j, f, 0);
    op_json_begin_array(&j);
    op_json_key(&j, "x");
    op_json_end_array(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    op_json_init(&j, f, 0);
    op_json_u64(&j, 1);
    op_json_u64(&j, 2);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    op_json_init(&j, f, 0);
    for (int i = 0; i < 100; i++)
        op_json_begin_array(&j);
    assert_int_equal(op_json_finish(&ctx, &j), OP_INVALID_ARGUMENT);
    fclose(f);
    op_ctx_free(&ctx);
}

static int px_is(const op_image *img, uint32_t x, uint32_t y, const uint8_t rgb[3])
{
    return memcmp(img->rgb + 3 * ((size_t)x + (size_t)y * img->w), rgb, 3) == 0;
}

static void test_image_lines_colours(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    op_image img;
    assert_int_equal(op_image_init(&ctx, &img, 12, 7), OP_OK);
    const uint8_t white[3] = {255, 255, 255}, black[3] = {0, 0, 0}, red[3] = {255, 0, 0};
    op_image_line(&img, 0, 0, 9, 4, white);
    size_t lit = 0;
    for (uint32_t y = 0; y < img.h; y++)
        for (uint32_t x = 0; x < img.w; x++)
            lit += px_is(&img, x, y, white);
    assert_int_equal(lit, 10); /* one pixel per column of the major axis */
    assert_true(px_is(&img, 0, 0, white) && px_is(&img, 9, 4, white));
    /* Symmetric: drawing backwards lights the same pixels. */
    op_image back;
    assert_int_equal(op_image_init(&ctx, &back, 12, 7), OP_OK);
    op_image_line(&back, 9, 4, 0, 0, white);
    assert_memory_equal(back.rgb, img.rgb, 12 * 7 * 3);
    op_image_free(&back);
    op_image_fill(&img, black);
    op_image_line(&img, 3, -100, 3, 100, red); /* clipped vertical */
    for (uint32_t y = 0; y < img.h; y++)
        assert_true(px_is(&img, 3, y, red) && px_is(&img, 2, y, black));
    op_image_line(&img, -5, -5, -1, -9, red); /* entirely outside: nothing, no crash */
    op_image_rect(&img, 10, 5, 10, 10, white);
    assert_true(px_is(&img, 11, 6, white) && !px_is(&img, 9, 6, white));
    op_image_free(&img);

    uint8_t c[3], c2[3];
    op_region_color(0, c);
    assert_true(c[0] == 40 && c[1] == 40 && c[2] == 40);
    op_region_color(OP_BORDER_REGION, c);
    assert_true(c[0] == 128 && c[1] == 128 && c[2] == 128);
    /* Deterministic, distinct and not too close to each other for the first ids. */
    int close = 0;
    for (uint32_t a = 1; a <= 64; a++) {
        op_region_color(a, c);
        op_region_color(a, c2);
        assert_memory_equal(c, c2, 3);
        assert_true(c[0] + c[1] + c[2] > 150); /* readable against black */
        for (uint32_t b = 1; b < a; b++) {
            op_region_color(b, c2);
            int d = abs(c[0] - c2[0]) + abs(c[1] - c2[1]) + abs(c[2] - c2[2]);
            assert_true(d > 0);
            close += d < 12;
        }
    }
    assert_true(close < 20);
    op_ctx_free(&ctx);
}

static void test_render_regions(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx, OP_ISA_SCALAR);
    /* 3×1 cells: (0) two walkable spans, (1) one area-0 span, (2) a low walkable span. */
    op_chf chf;
    assert_int_equal(op_chf_alloc(&ctx, &chf, 3, 1, 4), OP_OK);
    chf.cell_first[1] = 2; /* cell_first[0] = 0, cell_first[3] = 4 since op_chf_alloc */
    chf.cell_first[2] = 3;
    chf.y[0] = 10; chf.area[0] = 63;
    chf.y[1] = 50; chf.area[1] = 1;
    chf.y[2] = 60; chf.area[2] = 0;
    chf.y[3] = 10; chf.area[3] = 63;
    const uint32_t region[4] = {1, 2, 0, 1};
    op_image img;
    assert_int_equal(op_render_regions(&ctx, &chf, region, 2, &img), OP_OK);
    assert_int_equal(img.w, 6);
    assert_int_equal(img.h, 2);
    uint8_t top[3], low[3], shaded[3];
    const uint8_t black[3] = {0, 0, 0};
    op_region_color(2, top); /* highest walkable span of cell 0, at the top y: unshaded */
    op_region_color(1, low);
    for (int i = 0; i < 3; i++)
        shaded[i] = (uint8_t)(low[i] * 153 / 255); /* lowest floor: 60% */
    for (uint32_t y = 0; y < 2; y++) {
        assert_true(px_is(&img, 0, y, top) && px_is(&img, 1, y, top));
        assert_true(px_is(&img, 2, y, black) && px_is(&img, 3, y, black));
        assert_true(px_is(&img, 4, y, shaded) && px_is(&img, 5, y, shaded));
    }
    op_image_free(&img);
    /* By area. */
    assert_int_equal(op_render_regions(&ctx, &chf, NULL, 1, &img), OP_OK);
    op_area_color(1, top);
    assert_true(px_is(&img, 0, 0, top));
    assert_true(px_is(&img, 1, 0, black));
    /* PPM and PNG writers. */
    const char *ppm = op_test_tmp_path(".ppm");
    assert_int_equal(op_image_write_ppm(&ctx, &img, ppm), OP_OK);
    size_t n;
    unsigned char *bytes = op_test_read_file(ppm, &n);
    assert_int_equal(n, strlen("P6\n3 1\n255\n") + 9);
    assert_memory_equal(bytes, "P6\n3 1\n255\n", 11);
    assert_memory_equal(bytes + 11, img.rgb, 9);
    free(bytes);
    remove(ppm);
    char png_path[4096];
    snprintf(png_path, sizeof png_path, "%s", op_test_tmp_path(".png"));
#ifdef OP_HAVE_PNG
    assert_int_equal(op_image_write_png(&ctx, &img, png_path), OP_OK);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&pi, png_path));
    assert_int_equal(pi.width, 3);
    assert_int_equal(pi.height, 1);
    pi.format = PNG_FORMAT_RGB;
    unsigned char px[9];
    assert_true(png_image_finish_read(&pi, NULL, px, 0, NULL));
    assert_memory_equal(px, img.rgb, 9);
    remove(png_path);
#else
    assert_int_equal(op_image_write_png(&ctx, &img, png_path), OP_UNSUPPORTED);
#endif
    assert_int_equal(op_image_write_ppm(&ctx, &img, "/nonexistent/dir/x.ppm"), OP_IO_ERROR);
    op_image_free(&img);
    assert_int_equal(op_render_regions(&ctx, &chf, NULL, 0, &img), OP_INVALID_ARGUMENT);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

static void test_svg(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    const uint8_t red[3] = {255, 0, 16}, white[3] = {255, 255, 255};
    const int32_t pts[6] = {0, 0, 3, 0, 3, 2};
    op_svg_begin(f, 4, 3, 2.0);
    op_svg_rect(f, 1, 2, 1, 1, red);
    op_svg_polygon(f, pts, 3, NULL, white, 0.25);
    op_svg_end(f);
    const char *s = contents(f);
    assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"6\""));
    assert_non_null(strstr(s, "viewBox=\"0 0 4 3\""));
    assert_non_null(strstr(s, "<rect x=\"1\" y=\"2\" width=\"1\" height=\"1\" fill=\"#ff0010\"/>"));
    assert_non_null(strstr(s, "<polygon points=\"0,0 3,0 3,2\" fill=\"none\" stroke=\"#ffffff\" "
                              "stroke-width=\"0.25\"/>"));
    assert_non_null(strstr(s, "</svg>\n"));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_compact),
        cmocka_unit_test(test_json_indent_and_misuse),
        cmocka_unit_test(test_image_lines_colours),
        cmocka_unit_test(test_render_regions),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
