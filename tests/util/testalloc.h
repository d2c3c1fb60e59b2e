/* A counting, failing, tagging allocator for tests (common.h, op_allocator).
 *
 *   op_test_alloc ta;
 *   op_test_alloc_init(&ta);
 *   ta.fail_at = 7;                       // optional: the 7th allocation returns NULL
 *   op_ctx ctx;
 *   op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR);
 *   ... bake, free the results, op_ctx_free(&ctx) ...
 *   assert(ta.live_bytes == 0 && ta.bad_frees == 0);
 *
 * Every block carries a header with a tag, so a block that did not come from this
 * allocator (one from the C library, or one freed twice) is counted in bad_frees
 * instead of being passed on. Thread-safe (a spinlock), so worker contexts on several
 * threads may share one. To fail each allocation of a run in turn: run once with
 * fail_at = 0 to learn `allocs`, then for n = 1..allocs run again with fail_at = n. */
#ifndef OP_TESTALLOC_H
#define OP_TESTALLOC_H

#include "onepath/common.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct op_test_alloc {
    /* Counters (read them when no other thread is allocating). */
    size_t live_bytes, peak_bytes; /* bytes asked for, headers not included */
    size_t live_blocks;
    uint64_t allocs;    /* malloc_fn calls plus realloc_fn calls (each may fail) */
    uint64_t frees;     /* free_fn calls with a non-NULL block */
    uint64_t failed;    /* allocations refused by fail_at */
    uint64_t bad_frees; /* free_fn or realloc_fn given a block without this tag */
    /* Settings. */
    uint64_t fail_at;    /* 1-based index into allocs that returns NULL; 0 = never */
    int fail_all_after;  /* nonzero: every allocation from fail_at on fails */
    atomic_flag lock;
} op_test_alloc;

void op_test_alloc_init(op_test_alloc *t);
/* The hook: functions of this file with user = t. */
op_allocator op_test_alloc_hook(op_test_alloc *t);
/* op_ctx_init_with_allocator with the hook. */
op_status op_test_alloc_ctx_init(op_ctx *ctx, op_test_alloc *t, op_isa isa);
/* 1 when p is a live block of this allocator (tag check, for assertions). */
int op_test_alloc_owns(const op_test_alloc *t, const void *p);

/* Nonzero on a thread while this allocator itself calls the C library's malloc or
 * free, so a test that watches the C allocator (test_core_alloc) can tell those calls
 * from the library's own. Volatile: the compiler assumes malloc reads no user data and
 * would otherwise drop the increment around the call. */
extern _Thread_local volatile int op_test_alloc_busy;

#endif
