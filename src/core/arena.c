/* Scratch arena: a stack of kept blocks (style.md: zstd's cwksp). Releasing to a mark
 * keeps the blocks, so a stage run again (next tile) allocates nothing new. */
#include "onepath/common.h"
#include "core/alloc.h"
#include "core/prefault.h"

#include <stdlib.h>
#include <string.h>

#define OP_ARENA_ALIGN 64u
#define OP_ARENA_MIN_BLOCK ((size_t)1 << 20)
#define OP_ARENA_MAX_GROW ((size_t)4 << 20)

static size_t align_up(size_t v)
{
    return (v + (OP_ARENA_ALIGN - 1)) & ~(size_t)(OP_ARENA_ALIGN - 1);
}

void *op_arena_alloc(op_arena *a, size_t bytes)
{
    if (bytes > SIZE_MAX - 2 * OP_ARENA_ALIGN)
        return NULL;
    bytes = align_up(bytes ? bytes : 1);
    /* Try the current block, then the kept blocks after it. */
    size_t outgrown = 0; /* the largest kept block found too small, freed below */
    while (a->current < a->count) {
        op_arena_block *b = &a->blocks[a->current];
        if (b->size - b->used >= bytes) {
            void *p = b->base + b->used;
            b->used += bytes;
            return p;
        }
        if (a->current + 1 >= a->count || a->blocks[a->current + 1].size < bytes) {
            /* Kept blocks after this one are too small: free them, a new one follows. */
            for (size_t i = a->current + 1; i < a->count; i++) {
                outgrown = a->blocks[i].size > outgrown ? a->blocks[i].size : outgrown;
                op_mem_free_aligned(&a->alloc, a->blocks[i].base);
            }
            a->count = a->current + 1;
            break;
        }
        a->current++;
        a->blocks[a->current].used = 0;
    }
    if (a->count == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 8;
        op_arena_block *nb = op_mem_realloc(&a->alloc, a->blocks, ncap * sizeof *nb);
        if (!nb)
            return NULL;
        a->blocks = nb;
        a->cap = ncap;
    }
    /* A request of a block's size or more gets a block of exactly its size: a doubled
     * block would stay up to half unused while the stage runs, and the stage's scratch
     * is the bake's peak memory (issue 12, docs/decisions/memory.md). Smaller requests
     * share blocks that double from OP_ARENA_MIN_BLOCK up to OP_ARENA_MAX_GROW. When a
     * kept block was outgrown, the arena is being reused with growing requests (the next
     * tile): the new block is half again as large as that one, so a run of slowly
     * growing requests allocates (and faults in) a new block only now and then. */
    size_t size = bytes;
    if (bytes < OP_ARENA_MIN_BLOCK) {
        const size_t prev = a->count ? a->blocks[a->count - 1].size : 0;
        size = prev < OP_ARENA_MAX_GROW / 2 ? prev * 2 : OP_ARENA_MAX_GROW;
        size = size < OP_ARENA_MIN_BLOCK ? OP_ARENA_MIN_BLOCK : size;
    } else if (outgrown && outgrown <= SIZE_MAX / 2 && outgrown + outgrown / 2 > bytes) {
        size = outgrown + outgrown / 2;
    }
    void *base = op_mem_alloc_aligned(&a->alloc, align_up(size));
    if (!base && size > bytes) {
        size = bytes;
        base = op_mem_alloc_aligned(&a->alloc, align_up(size));
    }
    if (!base)
        return NULL;
    op_arena_block *b = &a->blocks[a->count];
    b->base = base;
    b->size = align_up(size);
    b->used = bytes;
    a->current = a->count;
    a->count++;
    return base;
}

op_arena_mark op_arena_get_mark(const op_arena *a)
{
    op_arena_mark m;
    m.block = a->current;
    m.used = a->count ? a->blocks[a->current].used : 0;
    return m;
}

void op_arena_release(op_arena *a, op_arena_mark m)
{
    if (!a->count)
        return;
    for (size_t i = m.block + 1; i < a->count; i++)
        a->blocks[i].used = 0;
    a->current = m.block;
    a->blocks[m.block].used = m.used;
}

void op_arena_trim(op_arena *a)
{
    if (!a->count)
        return;
    /* Blocks after the current one hold nothing; nor does the current one when it is
     * the first and empty (the whole arena released). */
    const size_t keep = a->current == 0 && a->blocks[0].used == 0 ? 0 : a->current + 1;
    for (size_t i = keep; i < a->count; i++)
        op_mem_free_aligned(&a->alloc, a->blocks[i].base);
    a->count = keep;
    if (!keep)
        a->current = 0;
}

void op_arena_free(op_arena *a)
{
    for (size_t i = 0; i < a->count; i++)
        op_mem_free_aligned(&a->alloc, a->blocks[i].base);
    op_mem_free(&a->alloc, a->blocks);
    op_allocator keep = a->alloc;
    memset(a, 0, sizeof *a);
    a->alloc = keep;
}

/* n x sz bytes of ctx's scratch by take (overflow and failure reported to ctx). */
static void *scratch_take(op_ctx *ctx, size_t n, size_t sz, void *(*take)(op_arena *, size_t))
{
    if (sz && n > SIZE_MAX / sz) {
        op_fail(ctx, OP_NO_MEMORY, "scratch request of %zu x %zu bytes overflows", n, sz);
        return NULL;
    }
    void *p = take(&ctx->arena, n * sz);
    if (!p)
        op_fail(ctx, OP_NO_MEMORY, "out of memory taking %zu bytes of scratch", n * sz);
    return p;
}

void *op_scratch(op_ctx *ctx, size_t n, size_t sz)
{
    return scratch_take(ctx, n, sz, op_arena_alloc);
}

void *op_scratch_prefaulted(op_ctx *ctx, size_t n, size_t sz)
{
    return scratch_take(ctx, n, sz, op_arena_alloc_prefaulted);
}
