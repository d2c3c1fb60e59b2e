/* Region passes' spans of interest, scalar twins (core/kernels.h, OP_REGION_SCAN_BITS_FN
 * and OP_VALUE_CHANGE_BITS_FN; regions-contours §5, src/regions/region_graph.c): one
 * span at a time, without branches, so the passes' loops over the set bits are where
 * the data-dependent branches go. */
#include "core/kernels.h"
#include "core/links16.h"

/* nofar: the field has no far link (a constant: op_chf_link_or_self_nf then adds the
 * stored delta with no test). */
static inline __attribute__((always_inline)) void
scan_bits(const op_chf *chf, const uint32_t *region, uint64_t *bits, uint32_t begin,
          uint32_t end, int nofar)
{
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const int16_t *const dl0 = chf->dlink[0], *const dl3 = chf->dlink[3]; /* kept in registers */
    const uint32_t len = end > begin ? end - begin : 0;
    uint32_t prev = begin ? region[begin - 1] : 0;
    /* a word of bits at a time, built in a register */
    for (uint32_t i0 = 0; i0 < len; i0 += 64) {
        const uint32_t k = len - i0 < 64 ? len - i0 : 64;
        uint64_t word = 0;
        for (uint32_t j = 0; j < k; j++) {
            const uint32_t s = begin + i0 + j, r = region[s];
            const uint8_t ms = r ? mutual[s] : 0; /* region 0: no link is read */
            const size_t t0 = op_dlink_or_self_at(chf, dl0, 0, s, ms & 1, nofar),
                         t3 = op_dlink_or_self_at(chf, dl3, 3, s, ms & 8, nofar);
            const uint64_t hit =
                (r != prev) | ((r != 0) & ((area[s] == 0) | (region[t0] != r) | (region[t3] != r)));
            word |= hit << j;
            prev = r;
        }
        bits[i0 >> 6] = word;
    }
}

OP_REGION_SCAN_BITS_FN(op_region_scan_bits_scalar)
{
    if (op_chf_has_far(chf))
        scan_bits(chf, region, bits, begin, end, 0);
    else
        scan_bits(chf, region, bits, begin, end, 1);
}

OP_VALUE_CHANGE_BITS_FN(op_value_change_bits_scalar)
{
    const uint32_t len = end > begin ? end - begin : 0;
    for (uint32_t w = 0; w < (len + 63) / 64; w++)
        bits[w] = 0;
    uint32_t prev = begin ? v[begin - 1] : 0;
    for (uint32_t i = 0; i < len; i++) {
        const uint32_t x = v[begin + i];
        bits[i >> 6] |= (uint64_t)(x != prev) << (i & 63);
        prev = x;
    }
}
