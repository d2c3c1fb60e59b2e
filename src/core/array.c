/* Growable arrays through the allocator hook (core/array.h). */
#include "core/array.h"
#include "core/alloc.h"

op_status op_array_reserve(const op_allocator *a, void **p, size_t *cap, size_t count,
                           size_t elem)
{
    if (count <= *cap)
        return OP_OK;
    if (elem && count > SIZE_MAX / elem)
        return OP_NO_MEMORY;
    void *n = op_mem_realloc(a, *p, count * elem);
    if (!n)
        return OP_NO_MEMORY;
    *p = n;
    *cap = count;
    return OP_OK;
}

op_status op_array_grow(const op_allocator *a, void **p, size_t *cap, size_t need,
                        size_t elem, size_t max_count)
{
    if (need <= *cap)
        return OP_OK;
    if (need > max_count)
        return OP_NO_MEMORY;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap = ncap > max_count / 2 ? max_count : ncap * 2;
    if (ncap > max_count)
        ncap = max_count;
    return op_array_reserve(a, p, cap, ncap, elem);
}

op_status op_array_grow32(const op_allocator *a, void **p, uint32_t *cap, uint64_t need,
                          size_t elem, uint32_t max_count)
{
    if (need > max_count)
        return OP_NO_MEMORY;
    size_t c = *cap;
    op_status st = op_array_grow(a, p, &c, (size_t)need, elem, max_count);
    if (st == OP_OK)
        *cap = (uint32_t)c;
    return st;
}
