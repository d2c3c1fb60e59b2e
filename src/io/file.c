/* Whole-file reads and writes for the loaders and writers (never print, never abort). */
#include "onepath/file.h"
#include "core/alloc.h"
#include "io/io_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Temporaries of this process are numbered, so two writers never share one. */
static atomic_uint temp_counter;

op_status op_atomic_open(op_ctx *ctx, const char *path, op_atomic_file *af)
{
    memset(af, 0, sizeof *af);
    af->path = path;
    af->alloc = *op_ctx_allocator(ctx);
    const size_t n = strlen(path) + 48;
    af->tmp = op_mem_alloc(&af->alloc, n);
    if (!af->tmp)
        return op_fail(ctx, OP_NO_MEMORY, "%s: out of memory for a file name", path);
    for (int tries = 0; tries < 100; tries++) {
        snprintf(af->tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(),
                 atomic_fetch_add(&temp_counter, 1u));
        af->f = fopen(af->tmp, "wbx"); /* C11: fails if it exists */
        if (af->f)
            return OP_OK;
        if (errno != EEXIST)
            break;
    }
    const op_status st =
        op_fail(ctx, OP_IO_ERROR, "%s: cannot create %s: %s", path, af->tmp, strerror(errno));
    op_mem_free(&af->alloc, af->tmp);
    af->tmp = NULL;
    return st;
}

void op_atomic_abort(op_atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp) {
        remove(af->tmp);
        op_mem_free(&af->alloc, af->tmp);
    }
    memset(af, 0, sizeof *af);
}

op_status op_atomic_commit(op_ctx *ctx, op_atomic_file *af)
{
    op_status st = OP_OK;
    if (fflush(af->f) != 0 || ferror(af->f))
        st = op_fail(ctx, OP_IO_ERROR, "%s: write failed: %s", af->path, strerror(errno));
    /* The bytes reach the disk before the name does. */
    if (st == OP_OK && fsync(fileno(af->f)) != 0 && errno != EINVAL && errno != EROFS)
        st = op_fail(ctx, OP_IO_ERROR, "%s: sync failed: %s", af->path, strerror(errno));
    const int closed = fclose(af->f);
    af->f = NULL;
    if (st == OP_OK && closed != 0)
        st = op_fail(ctx, OP_IO_ERROR, "%s: write failed: %s", af->path, strerror(errno));
    if (st == OP_OK && rename(af->tmp, af->path) != 0)
        st = op_fail(ctx, OP_IO_ERROR, "%s: cannot rename %s to it: %s", af->path, af->tmp,
                     strerror(errno));
    if (st != OP_OK) {
        op_atomic_abort(af);
        return st;
    }
    op_mem_free(&af->alloc, af->tmp);
    memset(af, 0, sizeof *af);
    return OP_OK;
}
