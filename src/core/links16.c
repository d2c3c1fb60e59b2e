/* The compact field's 16-bit links (core/links16.h): encoding, the far tables, and the
 * block decode around the kernel (scalar|simd/links_decode.c). */
#include "core/links16.h"

#include <string.h>

int32_t op_dlink_near_limit = OP_DLINK_MAX;

uint32_t op_link_far_find(const op_link_far *far, uint32_t s)
{
    uint32_t lo = 0, hi = far->count; /* the first entry with span >= s */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (far->span[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < far->count && far->span[lo] == s ? far->target[lo] : OP_NO_LINK;
}

/* Room for one more entry (doubling; the table is normally empty). */
static int far_grow(const op_allocator *a, op_link_far *far)
{
    if (far->count < far->cap)
        return 0;
    const uint32_t cap = far->cap ? (far->cap > 0x7fffffffu ? 0xffffffffu : 2 * far->cap) : 16;
    if (cap <= far->count)
        return -1;
    uint32_t *span = op_mem_realloc(a, far->span, (size_t)cap * sizeof(uint32_t));
    if (!span)
        return -1;
    far->span = span;
    uint32_t *target = op_mem_realloc(a, far->target, (size_t)cap * sizeof(uint32_t));
    if (!target)
        return -1;
    far->target = target;
    far->cap = cap;
    return 0;
}

int op_dlinks_encode(const op_allocator *a, int16_t *dl, op_link_far *far, uint32_t s0,
                     uint32_t n, const uint32_t *t)
{
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t s = s0 + i;
        const int16_t v = op_dlink_encode(s, t[i]);
        dl[i] = v;
        if (v == OP_DLINK_FAR) {
            if (far_grow(a, far) != 0)
                return -1;
            far->span[far->count] = s;
            far->target[far->count++] = t[i];
        }
    }
    return 0;
}

void op_dlinks_decode(op_links_decode_fn decode, const int16_t *dl, const op_link_far *far,
                      uint32_t s0, uint32_t n, uint32_t *out)
{
    uint32_t left = decode(dl, s0, n, out);
    if (!left)
        return;
    /* The far entries of the block, in span order from the first at or after s0. */
    uint32_t lo = 0, hi = far->count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (far->span[mid] < s0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; left && lo < far->count && far->span[lo] - s0 < n; lo++, left--)
        out[far->span[lo] - s0] = far->target[lo];
}

void op_link_far_free(const op_allocator *a, op_link_far *far)
{
    op_mem_free(a, far->span);
    op_mem_free(a, far->target);
    memset(far, 0, sizeof *far);
}
