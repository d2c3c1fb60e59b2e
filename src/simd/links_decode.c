/* The 16-bit links' block decoder, SIMD twin of src/scalar/links_decode.c (core/kernels.h,
 * OP_LINKS_DECODE_FN; core/links16.h). VW links a step: the stored u16 widened to u32
 * lanes and biased by 0x8000 (OP_DLINK_NONE -> 0, OP_DLINK_FAR -> 1, a delta v -> v +
 * 0x8000 >= 2), so a link is s0 + i - 0x8000 + biased and the reserved values are plain
 * unsigned compares; the tail runs the scalar twin. */
#include "simd/links_at.h" /* v_load_dl */
#include "core/links16.h"

OP_LINKS_DECODE_FN(OP_FN(op_links_decode))
{
    const vu32 bias = v_set1(0x8000u), one = v_set1(1), two = v_set1(2);
    const vu32 none = v_set1(OP_NO_LINK), iota = v_iota();
    vu32 farv = v_set1(0); /* per lane: minus the far values seen (a compare is -1) */
    uint32_t i = 0, far = 0;
    for (; n - i >= VW; i += VW) {
        const vu32 b = v_and(v_add(v_load_dl(dl + i), bias), v_set1(0xffffu));
        const vu32 near = v_eq(v_max(b, two), b); /* b >= 2 */
        const vu32 t = v_add(v_set1(s0 + i - 0x8000u), v_add(iota, b));
        v_store(out + i, v_select(near, none, t));
        farv = v_add(farv, v_eq(b, one));
    }
    uint32_t lanes[VW];
    v_store(lanes, farv);
    for (int k = 0; k < VW; k++)
        far -= lanes[k];
    if (i < n)
        far += op_links_decode_scalar(dl + i, s0 + i, n - i, out + i);
    op_simd_leave();
    return far;
}
