/* The context: status names, error messages, kernel table selection, progress. */
#include "onepath/common.h"
#include "core/alloc.h"
#include "core/kernels.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *op_status_name(op_status s)
{
    switch (s) {
    case OP_OK: return "ok";
    case OP_INVALID_ARGUMENT: return "invalid argument";
    case OP_BAD_INPUT: return "bad input";
    case OP_NO_MEMORY: return "out of memory";
    case OP_IO_ERROR: return "i/o error";
    case OP_UNSUPPORTED: return "unsupported";
    case OP_INTERNAL: return "internal error";
    }
    return "unknown status";
}

op_status op_fail(op_ctx *ctx, op_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
        va_end(ap);
    }
    return status;
}

op_status op_ctx_init(op_ctx *ctx, op_isa isa)
{
    return op_ctx_init_with_allocator(ctx, isa, NULL);
}

/* The context's own kernel table (op_ctx.k), allocated with its allocator. */
static op_kernels *new_table(op_ctx *ctx)
{
    op_kernels *k = op_mem_alloc(&ctx->alloc, sizeof *k);
    if (!k)
        return NULL;
    op_kernels_init(k, OP_ISA_SCALAR, 0);
    ctx->k = k;
    ctx->isa = OP_ISA_SCALAR;
    return k;
}

op_status op_ctx_init_with_allocator(op_ctx *ctx, op_isa isa, const op_allocator *alloc)
{
    memset(ctx, 0, sizeof *ctx);
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "allocator: give malloc_fn, realloc_fn and free_fn, or none");
    if (alloc)
        ctx->alloc = *alloc;
    ctx->arena.alloc = ctx->alloc;
    if (!new_table(ctx))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the kernel table");
    ctx->threads = 1;
    return op_ctx_set_isa(ctx, isa);
}

op_status op_ctx_fork(const op_ctx *parent, op_ctx *worker)
{
    memset(worker, 0, sizeof *worker);
    worker->alloc = parent->alloc;
    worker->arena.alloc = parent->alloc;
    op_kernels *k = new_table(worker);
    if (!k)
        return op_fail(worker, OP_NO_MEMORY, "out of memory for the kernel table");
    *k = *parent->k; /* the same table: a copy the worker owns */
    worker->isa = parent->isa;
    worker->threads = 1;
    return OP_OK;
}

op_status op_ctx_take_error(op_ctx *parent, const op_ctx *worker, op_status status)
{
    if (status != OP_OK && parent != worker)
        memcpy(parent->err, worker->err, sizeof parent->err);
    return status;
}

op_status op_ctx_set_isa(op_ctx *ctx, op_isa isa)
{
    if (isa == OP_ISA_AUTO)
        isa = op_isa_best();
    if (isa < 0 || isa >= OP_ISA_COUNT)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "isa %d is not a variant", (int)isa);
    if (!op_isa_available(isa))
        return op_fail(ctx, OP_UNSUPPORTED, "isa '%s' is not available on this build or CPU",
                       op_isa_name(isa));
    if (!ctx->k)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "the context has no kernel table (init failed)");
    /* This variant's ladder up to and including it (the rungs below it run too), into
     * the table the context allocated (const only to the stages). */
    op_kernels_init((op_kernels *)ctx->k, isa, op_isa_flags(isa));
    ctx->isa = isa;
    return OP_OK;
}

void op_ctx_free(op_ctx *ctx)
{
    op_arena_free(&ctx->arena);
    op_mem_free(&ctx->alloc, (op_kernels *)ctx->k);
    ctx->k = NULL;
}

const char *op_ctx_error(const op_ctx *ctx)
{
    return ctx->err;
}

void op_progress(op_ctx *ctx, const char *stage, double fraction)
{
    if (ctx && ctx->progress)
        ctx->progress(ctx->progress_user, stage, fraction);
}

op_status op_ctx_set_threads(op_ctx *ctx, int threads)
{
    if (threads < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "threads must be >= 0 (got %d)", threads);
    ctx->threads = threads;
    return OP_OK;
}
