/* Growable arrays through the allocator hook: the one growth rule of the library (mesh,
 * scene volumes, contour output, traced loops). Capacities double from 64 and never pass
 * max_count; sizes are overflow-checked. */
#ifndef ONEPATH_CORE_ARRAY_H
#define ONEPATH_CORE_ARRAY_H

#include "onepath/common.h"

/* Makes room for `need` elements of `elem` bytes in *p (capacity *cap elements).
 * OP_OK, or OP_NO_MEMORY when need > max_count, the bytes overflow size_t or the
 * allocator fails; *p and *cap are then unchanged. Sets no message: the caller says
 * what was growing. */
op_status op_array_grow(const op_allocator *a, void **p, size_t *cap, size_t need,
                        size_t elem, size_t max_count);

/* The same for arrays whose count and capacity are u32 (public structs): max_count is
 * then at most 0xfffffffe. */
op_status op_array_grow32(const op_allocator *a, void **p, uint32_t *cap, uint64_t need,
                          size_t elem, uint32_t max_count);

/* Resizes to exactly `count` elements when that is more than *cap (no doubling). */
op_status op_array_reserve(const op_allocator *a, void **p, size_t *cap, size_t count,
                           size_t elem);

#endif
