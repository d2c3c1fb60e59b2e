/* Which grid-labelling kernel a variant has (src/scalar/grid_label.c and its SIMD twin
 * src/simd/grid_label.c, compiled once per ISA by cmake/simd.cmake). An interim table
 * of one slot: issue 9 gives every kernel family its own struct in core/kernels.h with
 * a dav1d-style init ladder; the grid-labelling family moves there when that lands. */
#include "topology/topology_internal.h"

#if OP_HAVE_ISA_SSE2
uint32_t op_grid_label_sse2(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *, void *);
#endif
#if OP_HAVE_ISA_SSE41
uint32_t op_grid_label_sse41(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *, void *);
#endif
#if OP_HAVE_ISA_AVX2
uint32_t op_grid_label_avx2(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *, void *);
#endif
#if OP_HAVE_ISA_AVX512
uint32_t op_grid_label_avx512(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *, void *);
#endif
#if OP_HAVE_ISA_NEON
uint32_t op_grid_label_neon(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *, void *);
#endif
#if OP_HAVE_ISA_PORTABLE
uint32_t op_grid_label_portable(const uint8_t *, uint32_t, uint32_t, uint32_t, int, uint32_t *,
                                void *);
#endif

op_grid_label_fn op_topo_grid_label_for(op_isa isa)
{
    switch (isa) {
    case OP_ISA_SCALAR: return op_grid_label_scalar;
#if OP_HAVE_ISA_SSE2
    case OP_ISA_SSE2: return op_grid_label_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    case OP_ISA_SSE41: return op_grid_label_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    case OP_ISA_AVX2: return op_grid_label_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    case OP_ISA_AVX512: return op_grid_label_avx512;
#endif
#if OP_HAVE_ISA_NEON
    case OP_ISA_NEON: return op_grid_label_neon;
#endif
#if OP_HAVE_ISA_PORTABLE
    case OP_ISA_PORTABLE: return op_grid_label_portable;
#endif
    default: return NULL;
    }
}
