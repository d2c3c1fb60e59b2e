/* Greyscale PNG input and output for `onepath topology` (grey_png.h), through libpng. */
#include "grey_png.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OP_HAVE_PNG
#include <png.h>

typedef struct grey_err {
    jmp_buf jb;
    char msg[200];
} grey_err;

static void on_error(png_structp png, png_const_charp msg)
{
    grey_err *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jb, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

op_status op_grey_png_load(op_ctx *ctx, const char *path, op_grey_image *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open", path);
    unsigned char sig[8];
    if (fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
        fclose(f);
        return op_fail(ctx, OP_BAD_INPUT, "%s: not a PNG file", path);
    }
    grey_err err;
    err.msg[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png)
            png_destroy_read_struct(&png, NULL, NULL);
        fclose(f);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory starting libpng", path);
    }
    uint16_t *volatile v = NULL;
    unsigned char *volatile row = NULL;
    if (setjmp(err.jb)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(v);
        free(row);
        fclose(f);
        return op_fail(ctx, OP_BAD_INPUT, "%s: PNG error: %s", path, err.msg);
    }
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    op_status st = OP_OK;
    if (color != PNG_COLOR_TYPE_GRAY)
        st = op_fail(ctx, OP_BAD_INPUT,
                     "%s: the topology input must be an 8- or 16-bit greyscale PNG, this one "
                     "has colour type %d",
                     path, color);
    else if (w == 0 || h == 0 || (uint64_t)w * h > (1u << 28))
        st = op_fail(ctx, OP_BAD_INPUT, "%s: %u x %u pixels (1 .. 2^28 allowed)", path,
                     (unsigned)w, (unsigned)h);
    if (st != OP_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(f);
        return st;
    }
    if (depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (depth == 16)
        png_set_swap(png); /* the row buffer holds little-endian u16 on every host */
    if (interlace != PNG_INTERLACE_NONE)
        png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const int bytes = depth == 16 ? 2 : 1;
    v = malloc((size_t)w * h * sizeof *v);
    row = malloc((size_t)w * (size_t)bytes);
    if (!v || !row) {
        png_destroy_read_struct(&png, &info, NULL);
        free(v);
        free(row);
        fclose(f);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory for %u x %u pixels", path,
                       (unsigned)w, (unsigned)h);
    }
    int passes = interlace != PNG_INTERLACE_NONE ? png_set_interlace_handling(png) : 1;
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < h; y++) {
            uint16_t *dst = v + (size_t)y * w;
            if (pass > 0) {
                /* Interlaced: libpng combines into the previous contents of the row. */
                for (png_uint_32 x = 0; x < w; x++) {
                    if (bytes == 2) {
                        row[2 * x] = (unsigned char)dst[x];
                        row[2 * x + 1] = (unsigned char)(dst[x] >> 8);
                    } else {
                        row[x] = (unsigned char)dst[x];
                    }
                }
            }
            png_read_row(png, row, NULL);
            for (png_uint_32 x = 0; x < w; x++)
                dst[x] = bytes == 2 ? (uint16_t)(row[2 * x] | row[2 * x + 1] << 8) : row[x];
        }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    fclose(f);
    out->w = w;
    out->h = h;
    out->depth = depth == 16 ? 16 : 8;
    out->v = v;
    return OP_OK;
}

op_status op_grey_png_write(op_ctx *ctx, const char *path, const op_grey_image *img)
{
    if (!img || !img->v || !img->w || !img->h || (img->depth != 8 && img->depth != 16))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: nothing to write", path);
    FILE *f = fopen(path, "wb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot create", path);
    grey_err err;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *volatile row = malloc((size_t)img->w * 2);
    if (!png || !info || !row) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(row);
        fclose(f);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory", path);
    }
    if (setjmp(err.jb)) {
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(f);
        return op_fail(ctx, OP_IO_ERROR, "%s: PNG error: %s", path, err.msg);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, img->w, img->h, (int)img->depth, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < img->h; y++) {
        const uint16_t *src = img->v + (size_t)y * img->w;
        for (uint32_t x = 0; x < img->w; x++) {
            if (img->depth == 16) {
                row[2 * x] = (unsigned char)(src[x] >> 8); /* PNG is big-endian */
                row[2 * x + 1] = (unsigned char)src[x];
            } else {
                row[x] = (unsigned char)src[x];
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(f) != 0)
        return op_fail(ctx, OP_IO_ERROR, "%s: write failed", path);
    return OP_OK;
}
#else
op_status op_grey_png_load(op_ctx *ctx, const char *path, op_grey_image *out)
{
    memset(out, 0, sizeof *out);
    return op_fail(ctx, OP_UNSUPPORTED, "%s: this build has no PNG support", path);
}

op_status op_grey_png_write(op_ctx *ctx, const char *path, const op_grey_image *img)
{
    (void)img;
    return op_fail(ctx, OP_UNSUPPORTED, "%s: this build has no PNG support", path);
}
#endif

void op_grey_png_free(op_grey_image *img)
{
    if (!img)
        return;
    free(img->v);
    memset(img, 0, sizeof *img);
}
