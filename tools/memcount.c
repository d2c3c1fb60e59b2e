/* Counting allocator of the tool (memcount.h). */
#include "memcount.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

/* Header before every block: the requested size, padded to keep malloc's alignment. */
#define HDR 16

static _Atomic uint64_t g_live, g_peak, g_input;

/* Debug trace (ONEPATH_MEMTRACE=FILE, tools/memtrace.py reads it): every allocation
 * ("+ PTR BYTES"), free ("- PTR") and progress report ("@ STAGE FRACTION") in order,
 * so the live arrays at each phase's peak can be listed. Off unless the variable is
 * set; the allocator then works under one lock so the lines follow the calls. */
static FILE *g_trace;
static mtx_t g_trace_lock;

void cli_mem_trace_open(void)
{
    const char *path = getenv("ONEPATH_MEMTRACE");
    if (!path || !*path || g_trace)
        return;
    if (mtx_init(&g_trace_lock, mtx_plain) != thrd_success)
        return;
    g_trace = fopen(path, "w");
}

void cli_mem_trace_progress(const char *stage, double fraction)
{
    if (!g_trace)
        return;
    mtx_lock(&g_trace_lock);
    fprintf(g_trace, "@ %s %.6f\n", stage, fraction);
    mtx_unlock(&g_trace_lock);
}

int cli_mem_tracing(void) { return g_trace != NULL; }

static void grow(uint64_t n)
{
    const uint64_t v = atomic_fetch_add(&g_live, n) + n;
    uint64_t p = atomic_load(&g_peak);
    while (v > p && !atomic_compare_exchange_weak(&g_peak, &p, v)) {
    }
}

static void *cm_malloc_raw(void *user, size_t n)
{
    (void)user;
    if (n > SIZE_MAX - HDR)
        return NULL;
    unsigned char *p = malloc(n + HDR);
    if (!p)
        return NULL;
    *(size_t *)(void *)p = n;
    grow(n);
    return p + HDR;
}

static void cm_free_raw(void *user, void *ptr)
{
    (void)user;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    atomic_fetch_sub(&g_live, (uint64_t) * (size_t *)(void *)p);
    free(p);
}

static void *cm_realloc_raw(void *user, void *ptr, size_t n)
{
    if (!ptr)
        return cm_malloc_raw(user, n);
    if (n > SIZE_MAX - HDR)
        return NULL;
    unsigned char *old = (unsigned char *)ptr - HDR;
    const size_t was = *(size_t *)(void *)old;
    unsigned char *p = realloc(old, n + HDR);
    if (!p)
        return NULL;
    *(size_t *)(void *)p = n;
    if (n >= was)
        grow(n - was);
    else
        atomic_fetch_sub(&g_live, (uint64_t)(was - n));
    return p + HDR;
}

static void *cm_malloc(void *user, size_t n)
{
    if (!g_trace)
        return cm_malloc_raw(user, n);
    mtx_lock(&g_trace_lock);
    void *p = cm_malloc_raw(user, n);
    if (p)
        fprintf(g_trace, "+ %p %zu\n", p, n);
    mtx_unlock(&g_trace_lock);
    return p;
}

static void cm_free(void *user, void *ptr)
{
    if (!g_trace || !ptr) {
        cm_free_raw(user, ptr);
        return;
    }
    mtx_lock(&g_trace_lock);
    fprintf(g_trace, "- %p\n", ptr);
    cm_free_raw(user, ptr);
    mtx_unlock(&g_trace_lock);
}

static void *cm_realloc(void *user, void *ptr, size_t n)
{
    if (!g_trace)
        return cm_realloc_raw(user, ptr, n);
    mtx_lock(&g_trace_lock);
    void *p = cm_realloc_raw(user, ptr, n);
    if (p) {
        if (ptr)
            fprintf(g_trace, "- %p\n", ptr);
        fprintf(g_trace, "+ %p %zu\n", p, n);
    }
    mtx_unlock(&g_trace_lock);
    return p;
}

static const op_allocator g_alloc = {cm_malloc, cm_realloc, cm_free, NULL};

const op_allocator *cli_mem_allocator(void) { return &g_alloc; }
uint64_t cli_mem_live(void) { return atomic_load(&g_live); }

static double g_input_cpu_ms; /* written by the main thread only, at the mark */

void cli_mem_mark_input(void)
{
    cli_mem_trace_progress("input", 1.0);
    const uint64_t v = atomic_load(&g_live);
    atomic_store(&g_input, v);
    atomic_store(&g_peak, v);
    g_input_cpu_ms = op_cpu_ms();
}

double cli_mem_input_cpu_ms(void) { return g_input_cpu_ms; }

uint64_t cli_mem_input_bytes(void) { return atomic_load(&g_input); }

uint64_t cli_mem_peak_bytes(void)
{
    const uint64_t p = atomic_load(&g_peak), i = atomic_load(&g_input);
    return p > i ? p - i : 0;
}
