/* A counting, failing, tagging allocator for tests (testalloc.h). */
#include "util/testalloc.h"

#include <stdlib.h>
#include <string.h>

/* Header in front of every block; 32 bytes keep the block max_align_t-aligned. */
typedef struct block_head {
    uint64_t tag;        /* TAG_LIVE while allocated */
    const void *owner;   /* the op_test_alloc it came from */
    size_t size;
    size_t pad;
} block_head;

_Thread_local volatile int op_test_alloc_busy;

static void *backing_malloc(size_t n)
{
    op_test_alloc_busy++;
    void *p = malloc(n);
    op_test_alloc_busy--;
    return p;
}

static void backing_free(void *p)
{
    op_test_alloc_busy++;
    free(p);
    op_test_alloc_busy--;
}

#define TAG_LIVE 0x6f70616c6c6f6321ull /* "opalloc!" */
#define TAG_DEAD 0x6465616462656566ull

static void lock(op_test_alloc *t)
{
    while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire))
        ;
}

static void unlock(op_test_alloc *t) { atomic_flag_clear_explicit(&t->lock, memory_order_release); }

/* Counts an allocation attempt; 0 when it must fail. Called with the lock held. */
static int may_allocate(op_test_alloc *t)
{
    t->allocs++;
    if (t->fail_at && (t->allocs == t->fail_at || (t->fail_all_after && t->allocs > t->fail_at))) {
        t->failed++;
        return 0;
    }
    return 1;
}

static void add_live(op_test_alloc *t, size_t n)
{
    t->live_bytes += n;
    t->live_blocks++;
    if (t->live_bytes > t->peak_bytes)
        t->peak_bytes = t->live_bytes;
}

/* The header of p when it is a live block of t, else NULL. */
static block_head *head_of(const op_test_alloc *t, const void *p)
{
    block_head *h = (block_head *)p - 1;
    return h->tag == TAG_LIVE && h->owner == t ? h : NULL;
}

static void *ta_malloc(void *user, size_t size)
{
    op_test_alloc *t = user;
    if (size > SIZE_MAX - sizeof(block_head))
        return NULL;
    lock(t);
    const int ok = may_allocate(t);
    unlock(t);
    if (!ok)
        return NULL;
    block_head *h = backing_malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->tag = TAG_LIVE;
    h->owner = t;
    h->size = size;
    h->pad = 0;
    lock(t);
    add_live(t, size);
    unlock(t);
    return h + 1;
}

static void ta_free(void *user, void *p)
{
    op_test_alloc *t = user;
    if (!p)
        return;
    lock(t);
    block_head *h = head_of(t, p);
    if (!h) {
        t->bad_frees++;
        unlock(t);
        return; /* not ours: leave it alone */
    }
    t->frees++;
    t->live_bytes -= h->size;
    t->live_blocks--;
    h->tag = TAG_DEAD;
    unlock(t);
    backing_free(h);
}

static void *ta_realloc(void *user, void *p, size_t size)
{
    op_test_alloc *t = user;
    if (!p)
        return ta_malloc(user, size);
    if (size > SIZE_MAX - sizeof(block_head))
        return NULL;
    lock(t);
    block_head *h = head_of(t, p);
    if (!h) {
        t->bad_frees++;
        unlock(t);
        return NULL;
    }
    const int ok = may_allocate(t);
    unlock(t);
    if (!ok)
        return NULL; /* p stays valid, as realloc promises */
    block_head *n = backing_malloc(sizeof *n + size);
    if (!n)
        return NULL;
    *n = *h;
    memcpy(n + 1, h + 1, h->size < size ? h->size : size);
    n->size = size;
    lock(t);
    t->live_bytes -= h->size;
    t->live_blocks--;
    add_live(t, size);
    h->tag = TAG_DEAD;
    unlock(t);
    backing_free(h);
    return n + 1;
}

void op_test_alloc_init(op_test_alloc *t)
{
    memset(t, 0, sizeof *t);
    atomic_flag_clear(&t->lock);
}

op_allocator op_test_alloc_hook(op_test_alloc *t)
{
    op_allocator a;
    a.malloc_fn = ta_malloc;
    a.realloc_fn = ta_realloc;
    a.free_fn = ta_free;
    a.user = t;
    return a;
}

op_status op_test_alloc_ctx_init(op_ctx *ctx, op_test_alloc *t, op_isa isa)
{
    const op_allocator a = op_test_alloc_hook(t);
    return op_ctx_init_with_allocator(ctx, isa, &a);
}

int op_test_alloc_owns(const op_test_alloc *t, const void *p)
{
    return p && head_of(t, p) != NULL;
}
