/* Counting allocator of the tool (memcount.h). */
#include "memcount.h"

#include <stdatomic.h>
#include <stdlib.h>

/* Header before every block: the requested size, padded to keep malloc's alignment. */
#define HDR 16

static _Atomic uint64_t g_live, g_peak, g_input;

static void grow(uint64_t n)
{
    const uint64_t v = atomic_fetch_add(&g_live, n) + n;
    uint64_t p = atomic_load(&g_peak);
    while (v > p && !atomic_compare_exchange_weak(&g_peak, &p, v)) {
    }
}

static void *cm_malloc(void *user, size_t n)
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

static void cm_free(void *user, void *ptr)
{
    (void)user;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    atomic_fetch_sub(&g_live, (uint64_t) * (size_t *)(void *)p);
    free(p);
}

static void *cm_realloc(void *user, void *ptr, size_t n)
{
    if (!ptr)
        return cm_malloc(user, n);
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

static const op_allocator g_alloc = {cm_malloc, cm_realloc, cm_free, NULL};

const op_allocator *cli_mem_allocator(void) { return &g_alloc; }
uint64_t cli_mem_live(void) { return atomic_load(&g_live); }

static double g_input_cpu_ms; /* written by the main thread only, at the mark */

void cli_mem_mark_input(void)
{
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
