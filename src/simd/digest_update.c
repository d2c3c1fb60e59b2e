/* XXH3-64's streaming update per variant, SIMD twin of src/scalar/digest_update.c
 * (core/kernels.h OP_DIGEST_UPDATE_FN; supplement §5): xxHash compiled with this
 * variant's flags picks its widest accumulator for them (XXH_AVX2 with -mavx2,
 * XXH_AVX512 with -mavx512f); its stripes, secret and rounds are the same in every
 * accumulator, so the state after the call is the twin's. XXH_INLINE_ALL keeps every
 * xxHash function static: the copies of the variants never meet at link time (style.md,
 * ODR note). Only the avx2 and avx512 rungs use theirs (src/core/kernel_tables.c). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "simd/simd_width.h"

OP_DIGEST_UPDATE_FN(OP_FN(op_digest_update))
{
    XXH3_64bits_update((XXH3_state_t *)xxh3_state, data, len);
}
