/* The kernel tables: scalar twins first; SIMD variants override slot by slot
 * (style.md: dav1d init ladder). Each SIMD table (src/simd/kernel_table_isa.c, compiled
 * once per ISA) exists when cmake/simd.cmake defines OP_HAVE_ISA_<NAME>; a variant
 * whose table is missing from this build is NULL here, and op_isa_available() also asks
 * the CPU (isa.c). */
#include "core/kernels.h"

static const op_kernels scalar_table = {
    .isa = OP_ISA_SCALAR,
    .mutual_links = op_mutual_links_scalar,
    .distance_field = op_distance_field_scalar,
    .label_components = op_label_components_scalar,
    .edge_classify = op_edge_classify_scalar,
};

#if OP_HAVE_ISA_SSE2
extern const op_kernels op_kernels_sse2;
#endif
#if OP_HAVE_ISA_SSE41
extern const op_kernels op_kernels_sse41;
#endif
#if OP_HAVE_ISA_AVX2
extern const op_kernels op_kernels_avx2;
#endif
#if OP_HAVE_ISA_AVX512
extern const op_kernels op_kernels_avx512;
#endif
#if OP_HAVE_ISA_NEON
extern const op_kernels op_kernels_neon;
#endif
#if OP_HAVE_ISA_PORTABLE
extern const op_kernels op_kernels_portable;
#endif

const op_kernels *op_kernels_for(op_isa isa)
{
    switch (isa) {
    case OP_ISA_SCALAR: return &scalar_table;
#if OP_HAVE_ISA_SSE2
    case OP_ISA_SSE2: return &op_kernels_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    case OP_ISA_SSE41: return &op_kernels_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    case OP_ISA_AVX2: return &op_kernels_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    case OP_ISA_AVX512: return &op_kernels_avx512;
#endif
#if OP_HAVE_ISA_NEON
    case OP_ISA_NEON: return &op_kernels_neon;
#endif
#if OP_HAVE_ISA_PORTABLE
    case OP_ISA_PORTABLE: return &op_kernels_portable;
#endif
    default: return NULL;
    }
}
