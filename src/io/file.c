/* Whole-file reads and writes for the loaders and writers (never print, never abort). */
#include "onepath/file.h"
#include "core/alloc.h"
#include "io/io_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

op_status op_read_file(op_ctx *ctx, const char *path, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    /* Read in growing chunks rather than trusting ftell: works for pipes too. */
    const op_allocator *al = op_ctx_allocator(ctx);
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = op_mem_alloc(al, cap);
    if (!p) {
        fclose(f);
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > SIZE_MAX / 2) {
                op_mem_free(al, p);
                fclose(f);
                return op_fail(ctx, OP_NO_MEMORY, "%s: file too large", path);
            }
            unsigned char *q = op_mem_realloc(al, p, cap * 2);
            if (!q) {
                op_mem_free(al, p);
                fclose(f);
                return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory after %zu bytes", path, n);
            }
            p = q;
            cap *= 2;
        }
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        op_mem_free(al, p);
        return op_fail(ctx, OP_IO_ERROR, "%s: read error after %zu bytes", path, n);
    }
    *buf = p;
    *len = n;
    return OP_OK;
}

op_status op_write_file(op_ctx *ctx, const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    size_t put = len ? fwrite(buf, 1, len, f) : 0;
    int bad = put != len || fflush(f) != 0 || ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        return op_fail(ctx, OP_IO_ERROR, "%s: write failed after %zu of %zu bytes", path, put, len);
    return OP_OK;
}

op_status op_io_prefix_path(op_ctx *ctx, op_status st, const char *path)
{
    if (st != OP_OK && ctx) {
        char msg[sizeof ctx->err];
        snprintf(msg, sizeof msg, "%s", ctx->err);
        op_fail(ctx, st, "%s: %s", path, msg);
    }
    return st;
}

op_status op_io_write_encoded(op_ctx *ctx, op_status st, unsigned char *buf, size_t len,
                              const char *path)
{
    if (st == OP_OK)
        st = op_write_file(ctx, path, buf, len);
    op_free(ctx, buf);
    return st;
}
