/* The compact field's links as 16-bit relative indices (docs/decisions/memory.md round 8):
 * per direction an int16 array holding t - s when that fits, two reserved values (no
 * link; far: the target is in the direction's far table), and the far table (spans and
 * targets, ascending by span). 2 bytes per link instead of 4; the targets, digests and
 * files are the same (supplement §1.5 defines links as span indices, not their storage).
 *
 * A z-link is about width × spans-per-cell away, so only fields wider than ~30 K cells,
 * or with columns of thousands of spans, ever fill a far table. */
#ifndef ONEPATH_CORE_LINKS16_H
#define ONEPATH_CORE_LINKS16_H

#include "core/alloc.h"
#include "core/kernels.h"

#include <stdint.h>

/* OP_DLINK_NONE, OP_DLINK_FAR, OP_DLINK_MIN, OP_DLINK_MAX and op_link_far: onepath/chf.h. */

/* Test hook (like op_watershed_narrow_limit): deltas in [-min(limit, 32766), limit] are
 * stored in place, the others go to the far table; -1: every link is far. 32767 (the
 * default) is the layout's own range. Tests lower it to run a whole bake through the far
 * tables; it must not change while a field is being written. */
extern int32_t op_dlink_near_limit;

/* The stored value of the link s -> t under the current limit: the delta, OP_DLINK_NONE
 * for OP_NO_LINK, or OP_DLINK_FAR (then the caller appends (s, t) to the far table). */
static inline int16_t op_dlink_encode(uint32_t s, uint32_t t)
{
    if (t == OP_NO_LINK)
        return (int16_t)OP_DLINK_NONE;
    const int64_t d = (int64_t)t - (int64_t)s;
    const int64_t hi = op_dlink_near_limit, lo = hi > 32766 ? -32766 : -hi;
    return d >= lo && d <= hi ? (int16_t)d : (int16_t)OP_DLINK_FAR;
}

/* The link of span s from its stored value v = dl[s]. */
static inline uint32_t op_dlink_decode(int16_t v, const op_link_far *far, uint32_t s)
{
    if (v >= OP_DLINK_MIN)
        return s + (uint32_t)(int32_t)v;
    return v == OP_DLINK_NONE ? OP_NO_LINK : op_link_far_find(far, s);
}

/* The link of span s in direction d where has is set (a mutual bit: the link exists),
 * else s itself: the stored delta added without a branch (masked to 0 without has), the
 * far table only for a far link. For the per-span readers of mutual links. */
static inline uint32_t op_chf_link_or_self(const op_chf *chf, int d, uint32_t s, int has)
{
    const int16_t v = (int16_t)(chf->dlink[d][s] & (has ? 0xffff : 0));
    if (__builtin_expect(v == OP_DLINK_FAR, 0))
        return op_link_far_find(&chf->far[d], s);
    return s + (uint32_t)(int32_t)v;
}

/* Whether the field has a far link (normally not: readers then add the stored deltas
 * without looking for one). */
static inline int op_chf_has_far(const op_chf *chf)
{
    return (chf->far[0].count | chf->far[1].count | chf->far[2].count | chf->far[3].count) != 0;
}

/* op_chf_link_or_self for a caller that knows whether the field has far links (nofar: a
 * constant at the call site, op_chf_has_far tested once outside the loop): without far
 * links the read is the stored delta added, with no test at all. */
static inline __attribute__((always_inline)) uint32_t
op_chf_link_or_self_nf(const op_chf *chf, int d, uint32_t s, int has, int nofar)
{
    if (!nofar)
        return op_chf_link_or_self(chf, d, s, has);
    const uint32_t t = s + (uint32_t)(int32_t)chf->dlink[d][s]; /* s < span_count: a load */
    return has ? t : s;                                           /* and a select */
}

/* The same for the scans that keep direction d's stored deltas dl in a local
 * (regions-speed round 8): the target as wide as an address (no zero extension per
 * link); without has, s and no load. */
static inline __attribute__((always_inline)) size_t
op_dlink_or_self_at(const op_chf *chf, const int16_t *dl, int d, uint32_t s, int has, int nofar)
{
    if (!nofar)
        return op_chf_link_or_self(chf, d, s, has);
    return has ? (size_t)((int64_t)s + dl[s]) : s;
}

/* Encodes the links t[0 .. n) of spans s0 .. s0 + n into dl[0 .. n) (dl: span s0's slot
 * of the direction's array) and appends the far
 * ones to far (spans past every span already in it: write a direction in span order),
 * growing it with a. Returns 0, or -1 when out of memory (dl then partly written). */
int op_dlinks_encode(const op_allocator *a, int16_t *dl, op_link_far *far, uint32_t s0,
                     uint32_t n, const uint32_t *t);

/* Decodes the links of spans [s0, s0 + n) from dl[0 .. n) (span s0's slot) into
 * out[0 .. n) with decode (the kernel's near and none values), then the far ones from
 * far. */
void op_dlinks_decode(op_links_decode_fn decode, const int16_t *dl, const op_link_far *far,
                      uint32_t s0, uint32_t n, uint32_t *out);

/* Inserts (s, t) at far's entry at (at <= count; the caller keeps the spans ascending).
 * Returns 0, or -1 when out of memory (far unchanged). */
int op_link_far_insert(const op_allocator *a, op_link_far *far, uint32_t at, uint32_t s,
                       uint32_t t);

/* Appends src's entries to far (src's spans past far's). Returns 0, or -1 when out of
 * memory. */
int op_link_far_append(const op_allocator *a, op_link_far *far, const op_link_far *src);

/* Frees far's arrays with a and zeroes it. */
void op_link_far_free(const op_allocator *a, op_link_far *far);

#endif
