/* op_mem_prefault (core/prefault.h). madvise needs more than POSIX declares. */
#if defined(__linux__)
#define _DEFAULT_SOURCE 1
#include <sys/mman.h>
#include <unistd.h>
#endif
#include "core/prefault.h"

#include <stdint.h>

#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23 /* linux/mman.h since 5.14; older kernels: EINVAL */
#endif

void op_mem_prefault(void *p, size_t bytes)
{
#if defined(__linux__)
    static const uintptr_t fallback = 4096;
    const long ps = sysconf(_SC_PAGESIZE);
    const uintptr_t page = ps > 0 ? (uintptr_t)ps : fallback;
    const uintptr_t a = (uintptr_t)p, b = a + bytes;
    if (!p || b < a)
        return;
    const uintptr_t lo = (a + page - 1) & ~(page - 1), hi = b & ~(page - 1);
    if (lo < hi)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

void *op_arena_alloc_prefaulted(op_arena *a, size_t bytes)
{
    const size_t count = a->count;
    const unsigned char *last = count ? a->blocks[count - 1].base : NULL;
    void *p = op_arena_alloc(a, bytes);
    /* A new block is the last one and p its start; it is new when there are more blocks
     * than before or the last one changed (outgrown kept blocks freed, one made). */
    if (p && a->current + 1 == a->count && a->blocks[a->current].base == p &&
        (a->count > count || a->blocks[a->count - 1].base != last))
        op_mem_prefault(p, bytes);
    return p;
}
