/* The allocator hook (common.h): every library allocation goes through here. */
#include "core/alloc.h"
#include "core/prefault.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_custom(const op_allocator *a)
{
    return a && a->malloc_fn;
}

void *op_mem_alloc(const op_allocator *a, size_t n)
{
    if (n == 0)
        n = 1;
    return is_custom(a) ? a->malloc_fn(a->user, n) : malloc(n);
}

void *op_mem_array(const op_allocator *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return op_mem_alloc(a, count * size);
}

void *op_mem_calloc(const op_allocator *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    if (!is_custom(a))
        return calloc(count ? count : 1, size ? size : 1);
    void *p = op_mem_alloc(a, count * size);
    if (p) {
        /* The memset writes every page: mapped by one call first instead of a page
         * fault each where they are fresh (docs/decisions/bake-speed.md, round 8). */
        op_mem_prefault(p, count * size);
        memset(p, 0, count * size);
    }
    return p;
}

void *op_mem_realloc(const op_allocator *a, void *p, size_t n)
{
    if (n == 0)
        n = 1;
    return is_custom(a) ? a->realloc_fn(a->user, p, n) : realloc(p, n);
}

void op_mem_free(const op_allocator *a, void *p)
{
    if (!p)
        return;
    if (is_custom(a))
        a->free_fn(a->user, p);
    else
        free(p);
}

/* Aligned blocks: over-allocate by the alignment and keep the offset to the real start
 * just below the returned pointer, so any malloc-like hook serves. */
#define OP_MEM_ALIGN 64u

void *op_mem_alloc_aligned(const op_allocator *a, size_t n)
{
    if (n > SIZE_MAX - OP_MEM_ALIGN)
        return NULL;
    unsigned char *raw = op_mem_alloc(a, n + OP_MEM_ALIGN);
    if (!raw)
        return NULL;
    uintptr_t at = ((uintptr_t)raw + OP_MEM_ALIGN) & ~(uintptr_t)(OP_MEM_ALIGN - 1);
    unsigned char *p = (unsigned char *)at;
    p[-1] = (unsigned char)(p - raw); /* 1..64 */
    return p;
}

void op_mem_free_aligned(const op_allocator *a, void *p)
{
    if (!p)
        return;
    unsigned char *q = p;
    op_mem_free(a, q - q[-1]);
}

/* p, or the OP_NO_MEMORY message when it is NULL. */
static void *reported(op_ctx *ctx, void *p, size_t count, size_t size, const char *what)
{
    if (!p)
        op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu x %zu bytes of %s", count, size,
                what ? what : "data");
    return p;
}

void *op_ctx_alloc(op_ctx *ctx, size_t count, size_t size, const char *what)
{
    return reported(ctx, op_mem_array(op_ctx_allocator(ctx), count, size), count, size, what);
}

void *op_ctx_calloc(op_ctx *ctx, size_t count, size_t size, const char *what)
{
    return reported(ctx, op_mem_calloc(op_ctx_allocator(ctx), count, size), count, size, what);
}

void op_ctx_mem_free(op_ctx *ctx, void *p)
{
    op_mem_free(op_ctx_allocator(ctx), p);
}

void op_free(const op_ctx *ctx, void *p)
{
    op_mem_free(op_ctx_allocator(ctx), p);
}
