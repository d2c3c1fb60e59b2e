#if defined(__linux__)
#define _DEFAULT_SOURCE 1 /* mincore, madvise */
#endif
/* op_mem_prefault (core/prefault.h) is a hint: whatever the range (empty, inside one
 * page, unaligned ends, the whole block, NULL), the memory's contents stay as they
 * were, including the bytes of the pages at its ends that it must leave alone, and
 * fresh memory prefaulted reads as the allocator left it after writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/prefault.h"
#include "onepath/common.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
/* Pages of [p, p + bytes) not resident (mincore); -1 where that cannot be asked. */
static long missing_pages(const void *p, size_t bytes)
{
    const long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        return -1;
    const uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(ps - 1);
    const size_t len = (uintptr_t)p + bytes - lo, pages = (len + (size_t)ps - 1) / (size_t)ps;
    unsigned char *vec = malloc(pages);
    if (!vec || mincore((void *)lo, len, vec) != 0) {
        free(vec);
        return -1;
    }
    long r = 0;
    for (size_t i = 0; i < pages; i++)
        r += !(vec[i] & 1);
    free(vec);
    return r;
}

/* Whether MADV_POPULATE_WRITE maps pages here: a fresh anonymous page asked for, then
 * looked at. Not where the kernel predates 5.14 (EINVAL), nor under qemu-user, which
 * answers madvise with success and does nothing (the AArch64 tests of ci/test.sh). */
static int populate_maps_pages(void)
{
    const long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        return 0;
    void *m = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    const int ok = madvise(m, (size_t)ps, 23 /* MADV_POPULATE_WRITE */) == 0 &&
                   missing_pages(m, (size_t)ps) == 0;
    munmap(m, (size_t)ps);
    return ok;
}
#endif

static void test_contents_kept(void **state)
{
    (void)state;
    const size_t n = 3 * 1024 * 1024 + 123; /* more than a few pages, an odd length */
    uint8_t *p = malloc(n + 64);
    assert_non_null(p);
    for (size_t i = 0; i < n + 64; i++)
        p[i] = (uint8_t)(i * 31 + 7);
    static const size_t offs[] = {0, 1, 4095, 4096, 4097, 65537};
    static const size_t lens[] = {0, 1, 100, 4096, 8191, 1 << 20};
    for (size_t a = 0; a < sizeof offs / sizeof *offs; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++)
            op_mem_prefault(p + offs[a], lens[b]);
    op_mem_prefault(p, n);
    op_mem_prefault(NULL, 4096);
    op_mem_prefault(p + n, 0);
    for (size_t i = 0; i < n + 64; i++)
        if (p[i] != (uint8_t)(i * 31 + 7))
            fail_msg("byte %zu changed", i);
    free(p);
}

static void test_fresh_then_written(void **state)
{
    (void)state;
    const size_t n = 16 * 1024 * 1024; /* above glibc's mmap threshold: fresh pages */
    uint32_t *p = malloc(n);
    assert_non_null(p);
    for (size_t off = 0; off < n / 4; off += (1u << 18))
        op_mem_prefault(p + off, (1u << 18) * sizeof *p);
    for (size_t i = 0; i < n / 4; i++)
        p[i] = (uint32_t)i ^ 0x9e3779b9u;
    for (size_t i = 0; i < n / 4; i++)
        if (p[i] != ((uint32_t)i ^ 0x9e3779b9u))
            fail_msg("word %zu", i);
    free(p);
}

/* op_scratch_prefaulted: scratch like op_scratch's (the same arena, contents of a kept
 * block untouched, overflow refused); a new block's pages resident at once. */
static void test_scratch_prefaulted(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const size_t n = 6u << 20; /* a block of its own (past OP_ARENA_MIN_BLOCK) */
    op_arena_mark m = op_arena_get_mark(&ctx.arena);
    uint8_t *p = op_scratch_prefaulted(&ctx, n, 1);
    assert_non_null(p);
#if defined(__linux__)
    const long r = missing_pages(p + 4096, n - 8192); /* the pages inside the block */
    if (r >= 0 && populate_maps_pages())
        assert_int_equal(r, 0);
#endif
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 13 + 1);
    op_arena_release(&ctx.arena, m);
    /* The kept block again: the same memory, its contents as they were. */
    uint8_t *q = op_scratch_prefaulted(&ctx, n, 1);
    assert_ptr_equal(q, p);
    for (size_t i = 0; i < n; i++)
        if (q[i] != (uint8_t)(i * 13 + 1))
            fail_msg("byte %zu changed", i);
    op_arena_release(&ctx.arena, m);
    /* Outgrown: a larger block replaces the kept one, written whole. */
    uint32_t *w = op_scratch_prefaulted(&ctx, 3u << 20, sizeof *w);
    assert_non_null(w);
    for (size_t i = 0; i < (3u << 20); i++)
        w[i] = (uint32_t)i;
    for (size_t i = 0; i < (3u << 20); i++)
        if (w[i] != (uint32_t)i)
            fail_msg("word %zu", i);
    assert_null(op_scratch_prefaulted(&ctx, SIZE_MAX / 2, 4));
    op_ctx_free(&ctx);
}

/* Only the missing pages are mapped (src/core/prefault.c asks mincore first): ranges
 * where some pages are resident already, in runs of every length around the merge
 * limit (32 pages) and across the 4096-page steps of the mincore walk, end up wholly
 * resident, their written pages unchanged. */
static void test_partly_resident(void **state)
{
    (void)state;
#if defined(__linux__)
    if (!populate_maps_pages()) {
        print_message("MADV_POPULATE_WRITE maps no page here: nothing to check\n");
        return;
    }
    const size_t ps = (size_t)sysconf(_SC_PAGESIZE), pages = 3 * 4096 + 77;
    static const size_t runs[] = {1, 2, 31, 32, 33, 64, 100, 4095, 4097};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        uint8_t *m = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
        assert_true(m != MAP_FAILED);
        /* resident runs of runs[k] pages, gaps of runs[(k + 3) % n] pages */
        const size_t gap = runs[(k + 3) % (sizeof runs / sizeof *runs)];
        size_t written = 0;
        for (size_t pg = 0; pg < pages; pg += runs[k] + gap)
            for (size_t i = pg; i < pg + runs[k] && i < pages; i++) {
                m[i * ps + 5] = (uint8_t)(i + 1);
                written++;
            }
        assert_int_equal(missing_pages(m, pages * ps), (long)(pages - written));
        /* a subrange with unaligned ends first, then the whole */
        op_mem_prefault(m + ps + 17, (pages / 2) * ps);
        assert_int_equal(missing_pages(m + 2 * ps, (pages / 2 - 1) * ps), 0);
        op_mem_prefault(m, pages * ps);
        assert_int_equal(missing_pages(m, pages * ps), 0);
        for (size_t pg = 0; pg < pages; pg += runs[k] + gap)
            for (size_t i = pg; i < pg + runs[k] && i < pages; i++)
                if (m[i * ps + 5] != (uint8_t)(i + 1))
                    fail_msg("page %zu changed", i);
        munmap(m, pages * ps);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contents_kept),
        cmocka_unit_test(test_fresh_then_written),
        cmocka_unit_test(test_scratch_prefaulted),
        cmocka_unit_test(test_partly_resident),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
