/* XXH3-64's streaming update, the scalar twin of src/simd/digest_update.c
 * (core/kernels.h OP_DIGEST_UPDATE_FN; supplement §5): xxHash as the library's baseline
 * compiles it, which is what every digest used before the variants (xxHash picks its
 * own SSE2 code on x86-64, NEON on AArch64, plain C elsewhere; XXH3's value is the same
 * for each, only the speed differs). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/kernels.h"

OP_DIGEST_UPDATE_FN(op_digest_update_scalar)
{
    XXH3_64bits_update((XXH3_state_t *)xxh3_state, data, len);
}
