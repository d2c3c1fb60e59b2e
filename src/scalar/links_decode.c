/* The 16-bit links' block decoder, scalar twin (core/kernels.h, OP_LINKS_DECODE_FN;
 * core/links16.h). */
#include "core/kernels.h"
#include "core/links16.h"

OP_LINKS_DECODE_FN(op_links_decode_scalar)
{
    uint32_t far = 0;
    for (uint32_t i = 0; i < n; i++) {
        const int32_t v = dl[i];
        out[i] = v >= OP_DLINK_MIN ? s0 + i + (uint32_t)v : OP_NO_LINK;
        far += v == OP_DLINK_FAR;
    }
    return far;
}
