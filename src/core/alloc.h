/* Internal allocation through the allocator hook (common.h, op_allocator). Every
 * allocation in the library goes through these, so a game engine can account memory
 * and the allocation-failure tests can fail any one of them. Size arithmetic is
 * overflow-checked: a count*size that does not fit size_t returns NULL. */
#ifndef ONEPATH_CORE_ALLOC_H
#define ONEPATH_CORE_ALLOC_H

#include "onepath/common.h"

/* n bytes (n = 0 is allowed and returns a unique pointer or NULL). */
void *op_mem_alloc(const op_allocator *a, size_t n);
/* count*size bytes, zeroed; NULL on overflow. */
void *op_mem_calloc(const op_allocator *a, size_t count, size_t size);
/* count*size bytes, uninitialised; NULL on overflow. */
void *op_mem_array(const op_allocator *a, size_t count, size_t size);
/* Resize; on failure p is untouched and NULL is returned. */
void *op_mem_realloc(const op_allocator *a, void *p, size_t n);
void op_mem_free(const op_allocator *a, void *p);
/* 64-byte aligned blocks (the arena's), freed with op_mem_free_aligned only. */
void *op_mem_alloc_aligned(const op_allocator *a, size_t n);
void op_mem_free_aligned(const op_allocator *a, void *p);

/* ctx's allocator, or NULL (the C library's) for a NULL ctx. */
static inline const op_allocator *op_ctx_allocator(const op_ctx *ctx)
{
    return ctx ? &ctx->alloc : NULL;
}

/* With the context's allocator, and the OP_NO_MEMORY message set on failure:
 * `what` names the array for the message ("spans of the compact heightfield"). */
void *op_ctx_alloc(op_ctx *ctx, size_t count, size_t size, const char *what);
void *op_ctx_calloc(op_ctx *ctx, size_t count, size_t size, const char *what);
void op_ctx_mem_free(op_ctx *ctx, void *p);

#endif
