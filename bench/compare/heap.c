/* Peak heap of a bake, counted the same way in both trees and in both front ends
 * (cases.h: cmp_heap_mark, cmp_heap_peak_since): with OP_COMPARE_WRAP the program is
 * linked with --wrap=malloc,calloc,realloc,free,aligned_alloc,posix_memalign (a static
 * library's calls are wrapped, a shared library's are not), and every block counts
 * malloc_usable_size bytes while live. Without it nothing is counted (-1). One copy per
 * program: in onepath_ab both trees' allocations go through this counter. */
#include "cases.h"

#ifdef OP_COMPARE_WRAP
#include <malloc.h>
#include <stdatomic.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t al, size_t n);
int __real_posix_memalign(void **p, size_t al, size_t n);

static _Atomic long long g_live, g_peak;

static void *counted(void *p)
{
    if (p) {
        const long long n = (long long)malloc_usable_size(p);
        const long long v = atomic_fetch_add(&g_live, n) + n;
        long long pk = atomic_load(&g_peak);
        while (v > pk && !atomic_compare_exchange_weak(&g_peak, &pk, v)) {
        }
    }
    return p;
}
static void uncount(void *p)
{
    if (p)
        atomic_fetch_sub(&g_live, (long long)malloc_usable_size(p));
}
void *__wrap_malloc(size_t n) { return counted(__real_malloc(n)); }
void *__wrap_calloc(size_t a, size_t b) { return counted(__real_calloc(a, b)); }
void *__wrap_aligned_alloc(size_t al, size_t n) { return counted(__real_aligned_alloc(al, n)); }
int __wrap_posix_memalign(void **p, size_t al, size_t n)
{
    const int rc = __real_posix_memalign(p, al, n);
    if (!rc)
        counted(*p);
    return rc;
}
void *__wrap_realloc(void *p, size_t n)
{
    const long long old = p ? (long long)malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, n);
    if (q || !n) {
        atomic_fetch_sub(&g_live, old);
        counted(q);
    }
    return q;
}
void __wrap_free(void *p)
{
    uncount(p);
    __real_free(p);
}
/* Starts a measurement: the peak is measured from what is live now. */
long long cmp_heap_mark(void)
{
    const long long v = atomic_load(&g_live);
    atomic_store(&g_peak, v);
    return v;
}
long long cmp_heap_peak_since(long long mark) { return atomic_load(&g_peak) - mark; }
#else
long long cmp_heap_mark(void) { return 0; }
long long cmp_heap_peak_since(long long mark) { return (void)mark, -1; }
#endif
