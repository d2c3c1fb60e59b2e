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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contents_kept),
        cmocka_unit_test(test_fresh_then_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
