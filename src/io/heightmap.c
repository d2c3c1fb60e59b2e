/* 16-bit heightmaps as triangle input (supplement §1.2): a grid of heights turned into
 * two triangles per quad. */
#include "onepath/heightmap.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef OP_HAVE_PNG
#include <png.h>
#include <setjmp.h>
#endif

void op_heightmap_opts_defaults(op_heightmap_opts *o)
{
    o->spacing = 1.0f;
    o->height_scale = 0.01f;
}

op_status op_heightmap_to_mesh(op_ctx *ctx, const uint16_t *h, uint32_t w, uint32_t d,
                               const op_heightmap_opts *opts, op_mesh *out)
{
    op_mesh_init(out);
    op_heightmap_opts def;
    op_heightmap_opts_defaults(&def);
    if (!opts)
        opts = &def;
    if (!(isfinite(opts->spacing) && opts->spacing > 0.0f))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "heightmap spacing %g must be finite and > 0",
                       (double)opts->spacing);
    if (!(isfinite(opts->height_scale) && opts->height_scale > 0.0f))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heightmap height_scale %g must be finite and > 0",
                       (double)opts->height_scale);
    if (w < 2 || d < 2)
        return op_fail(ctx, OP_BAD_INPUT, "heightmap of %u x %u samples: needs at least 2 x 2",
                       w, d);
    const uint64_t verts = (uint64_t)w * d, tris = 2ull * (w - 1) * (d - 1);
    if (verts > 0xfffffffeull || tris > 0xfffffffeull)
        return op_fail(ctx, OP_BAD_INPUT,
                       "heightmap of %u x %u samples exceeds 2^32-2 vertices or triangles", w, d);
    /* Allocate once instead of growing: heightmaps are large. */
    if (op_mesh_reserve(ctx, out, (uint32_t)verts, (uint32_t)tris) != OP_OK) {
        op_mesh_free(out);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for a %u x %u heightmap", w, d);
    }
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            float *v = out->verts + 3 * ((size_t)x + (size_t)z * w);
            v[0] = (float)x * opts->spacing;
            v[1] = (float)h[(size_t)x + (size_t)z * w] * opts->height_scale;
            v[2] = (float)z * opts->spacing;
        }
    }
    out->vert_count = (uint32_t)verts;
    /* Corners a = (x, z), b = (x, z+1), c = (x+1, z+1), e = (x+1, z): triangles (a, b, c)
     * and (a, c, e) share the a-c diagonal; (b-a)x(c-a) has y = dz0*dx1 - dx0*dz1 > 0. */
    uint32_t *t = out->tris;
    for (uint32_t z = 0; z + 1 < d; z++) {
        for (uint32_t x = 0; x + 1 < w; x++) {
            const uint32_t a = x + z * w, b = a + w, c = b + 1, e = a + 1;
            t[0] = a;
            t[1] = b;
            t[2] = c;
            t[3] = a;
            t[4] = c;
            t[5] = e;
            t += 6;
        }
    }
    out->tri_count = (uint32_t)tris;
    return OP_OK;
}

op_status op_parse_heightmap_r16(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 uint32_t width, const char *name,
                                 const op_heightmap_opts *opts, op_mesh *out)
{
    op_mesh_init(out);
    if (!name)
        name = "<memory>";
    if (width < 2)
        return op_fail(ctx, OP_BAD_INPUT, "%s: heightmap width %u: needs at least 2", name, width);
    if (!buf && len)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: %zu bytes but no buffer", name, len);
    const uint64_t row = 2ull * width;
    if (len % row != 0)
        return op_fail(ctx, OP_BAD_INPUT,
                       "%s: file size %zu is not a multiple of 2*width = %llu bytes", name, len,
                       (unsigned long long)row);
    const uint64_t rows = len / row;
    if (rows < 2 || rows > 0xffffffffull)
        return op_fail(ctx, OP_BAD_INPUT,
                       "%s: file size %zu with width %u gives %llu rows (needs at least 2)", name,
                       len, width, (unsigned long long)rows);
    uint16_t *h = op_mem_array(op_ctx_allocator(ctx), len / 2, sizeof(uint16_t));
    if (!h)
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory", name);
    for (size_t i = 0; i < len / 2; i++)
        h[i] = op_le_get16(buf + 2 * i);
    op_status st = op_heightmap_to_mesh(ctx, h, width, (uint32_t)rows, opts, out);
    op_free(ctx, h);
    return st;
}

op_status op_load_heightmap_r16(op_ctx *ctx, const char *path, uint32_t width,
                                const op_heightmap_opts *opts, op_mesh *out)
{
    op_mesh_init(out);
    if (width < 2)
        return op_fail(ctx, OP_BAD_INPUT, "%s: heightmap width %u: needs at least 2", path, width);
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_parse_heightmap_r16(ctx, buf, len, width, path, opts, out);
    op_free(ctx, buf);
    return st;
}

#ifdef OP_HAVE_PNG
typedef struct png_err {
    jmp_buf jb;
    char msg[200];
    const op_allocator *al; /* libpng's mem_ptr too */
    int out_of_memory;      /* an allocation libpng asked for failed */
} png_err;

static void png_error_fn(png_structp png, png_const_charp msg)
{
    png_err *e = png_get_error_ptr(png);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    longjmp(e->jb, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* the library never prints */
}

/* libpng's own allocations go through the context's hook too. */
static png_voidp png_malloc_fn(png_structp png, png_alloc_size_t size)
{
    png_err *e = png_get_mem_ptr(png);
    void *p = op_mem_alloc(e->al, size);
    e->out_of_memory |= !p; /* libpng reports it as an error message: say OP_NO_MEMORY */
    return p;
}

static void png_free_fn(png_structp png, png_voidp p)
{
    const png_err *e = png_get_mem_ptr(png);
    op_mem_free(e->al, p);
}

/* libpng reads from memory: a truncated file is a PNG error, never a read past len. */
typedef struct png_mem {
    const unsigned char *buf;
    size_t len, pos;
} png_mem;

static void png_read_mem(png_structp png, png_bytep out, size_t n)
{
    png_mem *m = png_get_io_ptr(png);
    if (n > m->len - m->pos)
        png_error(png, "file ends early");
    memcpy(out, m->buf + m->pos, n);
    m->pos += n;
}

static op_status png_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                            const char *const volatile path, const op_heightmap_opts *opts,
                            op_mesh *out);

op_status op_parse_heightmap_png(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 const char *name, const op_heightmap_opts *opts, op_mesh *out)
{
    op_mesh_init(out);
    return png_decode(ctx, buf, len, name ? name : "<memory>", opts, out);
}

static op_status png_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                            const char *const volatile path, const op_heightmap_opts *opts,
                            op_mesh *out)
{
    if (!buf && len)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: %zu bytes but no buffer", path, len);
    if (len < 8 || png_sig_cmp(buf, 0, 8) != 0)
        return op_fail(ctx, OP_BAD_INPUT, "%s: not a PNG file", path);
    png_mem mem = {buf, len, 8};
    png_err err;
    err.msg[0] = 0;
    /* The hook reaches libpng through mem_ptr; a NULL ctx means the C library's. */
    static const op_allocator libc_alloc;
    const op_allocator *al = ctx ? &ctx->alloc : &libc_alloc;
    err.al = al;
    err.out_of_memory = 0;
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &err, png_error_fn,
                                               png_warning_fn, &err, png_malloc_fn,
                                               png_free_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png)
            png_destroy_read_struct(&png, NULL, NULL);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory starting libpng", path);
    }
    /* Everything freed after a longjmp lives in volatile-qualified locals. */
    uint16_t *volatile h = NULL;
    png_bytep *volatile rows = NULL;
    volatile op_status st = OP_OK;
    if (setjmp(err.jb)) {
        png_destroy_read_struct(&png, &info, NULL);
        op_mem_free(al, h);
        op_mem_free(al, rows);
        if (err.out_of_memory)
            return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory in libpng (%s)", path, err.msg);
        return op_fail(ctx, OP_BAD_INPUT, "%s: PNG error: %s", path, err.msg);
    }
    png_set_read_fn(png, &mem, png_read_mem);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    png_uint_32 w = 0, d = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &d, &depth, &color, &interlace, NULL, NULL);
    if (color != PNG_COLOR_TYPE_GRAY)
        st = op_fail(ctx, OP_BAD_INPUT,
                     "%s: heightmap PNG must be 16-bit grayscale, this one has colour type %d%s",
                     path, color,
                     color == PNG_COLOR_TYPE_RGB || color == PNG_COLOR_TYPE_RGBA ||
                             color == PNG_COLOR_TYPE_PALETTE
                         ? " (colour)"
                         : " (grayscale with alpha)");
    else if (depth != 16)
        st = op_fail(ctx, OP_BAD_INPUT, "%s: heightmap PNG must be 16-bit grayscale, this one is %d-bit",
                     path, depth);
    else if (w < 2 || d < 2 || (uint64_t)w * d > 0xfffffffeull)
        st = op_fail(ctx, OP_BAD_INPUT,
                     "%s: heightmap of %u x %u samples: needs at least 2 x 2 and at most 2^32-2",
                     path, (unsigned)w, (unsigned)d);
    if (st == OP_OK) {
        png_set_interlace_handling(png);
        png_read_update_info(png, info);
        h = op_mem_array(al, (size_t)w * d, sizeof(uint16_t));
        rows = op_mem_array(al, d, sizeof(png_bytep));
        if (!h || !rows)
            st = op_fail(ctx, OP_NO_MEMORY, "%s: out of memory for %u x %u samples", path,
                         (unsigned)w, (unsigned)d);
    }
    if (st == OP_OK) {
        /* PNG samples are big-endian; read into h as bytes, then convert in place. */
        for (png_uint_32 z = 0; z < d; z++)
            rows[z] = (png_bytep)(h + (size_t)z * w);
        png_read_image(png, rows);
        png_read_end(png, NULL);
        for (size_t i = 0; i < (size_t)w * d; i++) {
            const unsigned char *b = (const unsigned char *)(h + i);
            h[i] = (uint16_t)((unsigned)b[0] << 8 | b[1]);
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    if (st == OP_OK)
        st = op_heightmap_to_mesh(ctx, h, (uint32_t)w, (uint32_t)d, opts, out);
    op_mem_free(al, h);
    op_mem_free(al, rows);
    return st;
}
op_status op_load_heightmap_png(op_ctx *ctx, const char *path, const op_heightmap_opts *opts,
                                op_mesh *out)
{
    op_mesh_init(out);
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_parse_heightmap_png(ctx, buf, len, path, opts, out);
    op_free(ctx, buf);
    return st;
}
#else
op_status op_parse_heightmap_png(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 const char *name, const op_heightmap_opts *opts, op_mesh *out)
{
    (void)buf;
    (void)len;
    (void)opts;
    op_mesh_init(out);
    return op_fail(ctx, OP_UNSUPPORTED, "%s: this build has no PNG support (OP_PNG=OFF)",
                   name ? name : "<memory>");
}

op_status op_load_heightmap_png(op_ctx *ctx, const char *path, const op_heightmap_opts *opts,
                                op_mesh *out)
{
    (void)opts;
    op_mesh_init(out);
    return op_fail(ctx, OP_UNSUPPORTED, "%s: this build has no PNG support (OP_PNG=OFF)", path);
}
#endif
