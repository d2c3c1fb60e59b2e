/* op_mem_prefault (core/prefault.h). madvise and mincore need more than POSIX declares. */
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

#if defined(__linux__)
/* Resident gaps shorter than this many pages between missing runs are mapped over
 * (walking a few present pages costs less than another system call). */
#define GAP_PAGES 32

/* MADV_POPULATE_WRITE on [lo, hi) (whole pages). */
static void populate(uintptr_t lo, uintptr_t hi)
{
    if (lo < hi)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
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
    /* Only the pages not mapped yet: memory the allocator hands back after a free (a
     * process that bakes again) is mapped already, and on mapped pages the call still
     * walks and touches every one (get_user_pages, the LRU): 16 ms of every demo-1936
     * bake in the compare bench (bake-speed.md round 10). mincore only reads the page
     * tables. Where it fails, the whole range as before. */
    unsigned char vec[4096];
    uintptr_t run = 0, gap = 0; /* start of the missing run being built; 0: none */
    for (uintptr_t at = lo; at < hi;) {
        const size_t n = (hi - at) / page < sizeof vec ? (size_t)((hi - at) / page) : sizeof vec;
        if (mincore((void *)at, n * page, vec) != 0) {
            populate(run ? run : at, hi);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            const uintptr_t pg = at + i * page;
            if (!(vec[i] & 1)) {
                if (!run)
                    run = pg;
                gap = 0;
            } else if (run && !gap) {
                gap = pg; /* a resident page after a missing run */
            } else if (run && (pg - gap) / page >= GAP_PAGES) {
                populate(run, gap);
                run = gap = 0;
            }
        }
        at += n * page;
    }
    if (run)
        populate(run, gap ? gap : hi);
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
