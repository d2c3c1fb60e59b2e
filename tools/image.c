/* A small RGB raster and the top view of regions (supplement §4, "Human output"). */
#include "image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OP_HAVE_PNG
#include <png.h>
#include <setjmp.h>
#endif

op_status op_image_init(op_ctx *ctx, op_image *img, uint32_t w, uint32_t h)
{
    memset(img, 0, sizeof *img);
    if (w == 0 || h == 0 || (uint64_t)w * h > (1ull << 28))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "image of %u x %u pixels (1..2^28 pixels)", w, h);
    img->rgb = calloc((size_t)w * h, 3);
    if (!img->rgb)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for a %u x %u image", w, h);
    img->w = w;
    img->h = h;
    return OP_OK;
}

void op_image_free(op_image *img)
{
    free(img->rgb);
    memset(img, 0, sizeof *img);
}

void op_image_fill(op_image *img, const uint8_t rgb[3])
{
    const size_t n = (size_t)img->w * img->h;
    for (size_t i = 0; i < n; i++)
        memcpy(img->rgb + 3 * i, rgb, 3);
}

void op_image_set(op_image *img, int64_t x, int64_t y, const uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= (int64_t)img->w || y >= (int64_t)img->h)
        return;
    memcpy(img->rgb + 3 * ((size_t)x + (size_t)y * img->w), rgb, 3);
}

void op_image_line(op_image *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
                   const uint8_t rgb[3])
{
    /* Integer Bresenham for all octants. */
    const int64_t dx = x1 > x0 ? x1 - x0 : x0 - x1, sx = x0 < x1 ? 1 : -1;
    const int64_t dy = y1 > y0 ? y0 - y1 : y1 - y0, sy = y0 < y1 ? 1 : -1; /* dy <= 0 */
    int64_t err = dx + dy;
    for (;;) {
        op_image_set(img, x0, y0, rgb);
        if (x0 == x1 && y0 == y1)
            break;
        const int64_t e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

void op_image_rect(op_image *img, int64_t x, int64_t y, int64_t w, int64_t h,
                   const uint8_t rgb[3])
{
    int64_t x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int64_t x1 = x + w, y1 = y + h;
    if (x1 > (int64_t)img->w)
        x1 = img->w;
    if (y1 > (int64_t)img->h)
        y1 = img->h;
    for (int64_t yy = y0; yy < y1; yy++)
        for (int64_t xx = x0; xx < x1; xx++)
            memcpy(img->rgb + 3 * ((size_t)xx + (size_t)yy * img->w), rgb, 3);
}

op_status op_image_write_ppm(op_ctx *ctx, const op_image *img, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot create", path);
    fprintf(f, "P6\n%u %u\n255\n", img->w, img->h);
    const size_t n = (size_t)img->w * img->h * 3;
    int bad = fwrite(img->rgb, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? op_fail(ctx, OP_IO_ERROR, "%s: write failed", path) : OP_OK;
}

#ifdef OP_HAVE_PNG
typedef struct png_werr {
    jmp_buf jb;
    char msg[200];
} png_werr;

static void png_werror_fn(png_structp png, png_const_charp msg)
{
    png_werr *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jb, 1);
}

static void png_wwarning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

op_status op_image_write_png(op_ctx *ctx, const op_image *img, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot create", path);
    png_werr err;
    err.msg[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, png_werror_fn,
                                              png_wwarning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png)
            png_destroy_write_struct(&png, NULL);
        fclose(f);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory starting libpng", path);
    }
    if (setjmp(err.jb)) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return op_fail(ctx, OP_IO_ERROR, "%s: PNG error: %s", path, err.msg);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, img->w, img->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < img->h; y++)
        png_write_row(png, img->rgb + (size_t)y * img->w * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) != 0 ? op_fail(ctx, OP_IO_ERROR, "%s: write failed", path) : OP_OK;
}
#else
op_status op_image_write_png(op_ctx *ctx, const op_image *img, const char *path)
{
    (void)img;
    return op_fail(ctx, OP_UNSUPPORTED, "%s: this build has no PNG support (OP_PNG=OFF); use PPM",
                   path);
}
#endif

static uint32_t mix32(uint32_t x)
{
    /* lowbias32 (Chris Wellons): a well-mixed bijection, so ids spread. */
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* hue 0..359, s and v 0..255, integer HSV → RGB. */
static void hsv_rgb(uint32_t hue, uint32_t s, uint32_t v, uint8_t rgb[3])
{
    const uint32_t sector = hue / 60, f = (hue % 60) * 255 / 60;
    const uint32_t p = v * (255 - s) / 255;
    const uint32_t q = v * (255 - s * f / 255) / 255;
    const uint32_t t = v * (255 - s * (255 - f) / 255) / 255;
    uint32_t r, g, b;
    switch (sector) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
    }
    rgb[0] = (uint8_t)r;
    rgb[1] = (uint8_t)g;
    rgb[2] = (uint8_t)b;
}

void op_region_color(uint32_t region, uint8_t rgb[3])
{
    if (region == 0) {
        rgb[0] = rgb[1] = rgb[2] = 40;
        return;
    }
    if (region == OP_BORDER_REGION) {
        rgb[0] = rgb[1] = rgb[2] = 128;
        return;
    }
    const uint32_t x = mix32(region);
    hsv_rgb(x % 360, 150 + (x >> 12) % 90, 200 + (x >> 20) % 56, rgb);
}

void op_area_color(uint8_t area, uint8_t rgb[3])
{
    if (area == 0) {
        rgb[0] = rgb[1] = rgb[2] = 20;
        return;
    }
    if (area == 63) {
        rgb[0] = 110;
        rgb[1] = 190;
        rgb[2] = 90;
        return;
    }
    const uint32_t x = mix32(0x9e3779b9u ^ area);
    hsv_rgb(x % 360, 170 + (x >> 12) % 70, 210 + (x >> 20) % 46, rgb);
}

op_status op_render_regions(op_ctx *ctx, const op_chf *chf, const uint32_t *region, int scale,
                            op_image *out)
{
    memset(out, 0, sizeof *out);
    if (scale < 1 || scale > 64)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "render scale %d (1..64)", scale);
    const uint64_t pw = (uint64_t)chf->width * (uint32_t)scale;
    const uint64_t ph = (uint64_t)chf->depth * (uint32_t)scale;
    if (pw == 0 || ph == 0 || pw > 0xffffffffu || ph > 0xffffffffu)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "render of %u x %u cells at scale %d", chf->width,
                       chf->depth, scale);
    op_status st = op_image_init(ctx, out, (uint32_t)pw, (uint32_t)ph);
    if (st != OP_OK)
        return st;
    /* The walkable y range, for shading. */
    uint32_t ymin = 0xffff, ymax = 0;
    for (uint32_t s = 0; s < chf->span_count; s++) {
        if (!chf->area[s])
            continue;
        if (chf->y[s] < ymin)
            ymin = chf->y[s];
        if (chf->y[s] > ymax)
            ymax = chf->y[s];
    }
    const uint32_t range = ymax > ymin ? ymax - ymin : 1;
    for (uint32_t z = 0; z < chf->depth; z++) {
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            const uint32_t s0 = chf->cell_first[c], n = chf->cell_first[c + 1] - s0;
            uint32_t top = OP_NO_LINK;
            for (uint32_t k = n; k-- > 0;) {
                if (chf->area[s0 + k]) {
                    top = s0 + k;
                    break;
                }
            }
            if (top == OP_NO_LINK)
                continue; /* stays black */
            uint8_t rgb[3];
            if (region)
                op_region_color(region[top], rgb);
            else
                op_area_color(chf->area[top], rgb);
            /* 60% at the lowest walkable floor up to 100% at the highest. */
            const uint32_t shade = 153 + 102 * (chf->y[top] - ymin) / range;
            for (int i = 0; i < 3; i++)
                rgb[i] = (uint8_t)(rgb[i] * shade / 255);
            op_image_rect(out, (int64_t)x * scale, (int64_t)z * scale, scale, scale, rgb);
        }
    }
    return OP_OK;
}
