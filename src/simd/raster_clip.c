/* Triangle clip, SIMD twin of src/scalar/raster_clip.c (supplement §1.3).
 *
 * One polygon lives in three 4-lane registers (x, y, z; lane k = vertex k), so a split
 * of dividePoly is a handful of vector operations: δ = offset − v for every vertex, the
 * edge b -> a seen by rotating δ one lane (rc_rotate), the crossing points
 * b + (a − b)·(δb/(δb − δa)) of every edge at once (one division for all lanes), and the
 * outputs as the candidates c0 a0 c1 a1 .. (crossing point, then vertex, per edge)
 * compressed in order by a table (rc_from_c / rc_from_a). Every lane runs the scalar
 * twin's IEEE operations on the scalar twin's operands, so each vertex is bit-identical.
 *
 * Differences in organisation, none in the pieces (the scalar twin is the reference):
 *  - min and max over a piece's y (and a row piece's x) are taken in any lane order. The
 *    scalar order matters only for NaN, and for which of -0 and +0 comes out, and both
 *    end in the same cell and span: NaN cannot arise while every coordinate and cut plane
 *    is within 2^120 (no difference, product or sum then overflows), which is checked on
 *    entry; the scalar twin handles anything else.
 *  - a column piece's own polygon is never built (only its y range and vertex count
 *    are needed), nor the z of column splits (never read), nor the remainder after a
 *    row's last column.
 *  - a remainder of at most one vertex can never again make a piece of three, nor fail:
 *    the loop stops there.
 *  - a polygon of more than four vertices leaves the vectors: the scalar twin continues
 *    from the exact state reached (rows: the polygon before the split; columns: the
 *    remainder, rebuilt lane by lane).
 * Pieces come out in the scalar order (rows, then columns, ascending). The body of the
 * clip (raster_clip_rows.inc.h) is written once over the lane primitives of a width:
 * those of 4 lanes below, those of 8 lanes in raster_clip8.h. */
#include "simd/simd_width.h"
#include "spans/raster_clip.h"

#include <simde/x86/sse4.1.h>
#include <simde/x86/ssse3.h>

OP_CLIP_ROWS_FN(OP_FN(op_clip_rows));

#if OP_VEC_BITS >= 256
/* Variants of 256-bit vectors and more keep a polygon of up to eight vertices in one
 * vector per coordinate (raster_clip8.h): the same splits, without the scalar twin's
 * hand-over of the common five- and six-vertex row pieces of large triangles. */
#include "simd/raster_clip8.h"
#else
#include "simd/raster_clip_tables.h"

typedef simde__m128 rc_v;
typedef unsigned rc_ord; /* the candidate mask itself: the tables shuffle by it */

#define RC_LANES 4
#define RC_LIMIT 1.329228e36f /* 2^120: see above */
#define RC_COLUMN_HAND_OVER_BEFORE 0
#define RC_PIECES_IN_LANES 0 /* one piece at a time */
#define RC_MM simde_mm /* the intrinsics' prefix of rc_v */

OP_VINLINE rc_v rc_shuffle(rc_v v, const uint8_t *idx)
{
    return simde_mm_castsi128_ps(simde_mm_shuffle_epi8(simde_mm_castps_si128(v),
                                                       simde_mm_loadu_si128((const void *)idx)));
}

/* Lane k takes lane k − 1, lane 0 takes lane n − 1 (edge b -> a). */
OP_VINLINE rc_v rc_rotate(rc_v v, int n) { return rc_shuffle(v, rc_rot[n]); }

OP_VINLINE unsigned rc_ge0(rc_v v)
{
    return (unsigned)simde_mm_movemask_ps(simde_mm_cmpge_ps(v, simde_mm_setzero_ps()));
}

OP_VINLINE unsigned rc_gt0(rc_v v)
{
    return (unsigned)simde_mm_movemask_ps(simde_mm_cmpgt_ps(v, simde_mm_setzero_ps()));
}

OP_VINLINE unsigned rc_spread_of(unsigned m) { return rc_spread[m]; }

OP_VINLINE rc_ord rc_order(unsigned cm) { return cm; }

/* Candidates compressed by the 8-bit candidate mask cm (first four outputs). */
OP_VINLINE rc_v rc_compress(rc_v c, rc_v a, rc_ord cm)
{
    return simde_mm_or_ps(rc_shuffle(c, rc_from_c[cm]), rc_shuffle(a, rc_from_a[cm]));
}

OP_VINLINE rc_v rc_lanes_of(unsigned m)
{
    return simde_mm_castsi128_ps(simde_mm_loadu_si128((const void *)rc_lanes[m]));
}

/* mask ? v : fill, lane by lane. */
OP_VINLINE rc_v rc_select(rc_v mask, rc_v v, rc_v fill)
{
    return simde_mm_or_ps(simde_mm_and_ps(mask, v), simde_mm_andnot_ps(mask, fill));
}

OP_VINLINE float rc_hmin(rc_v a)
{
    a = simde_mm_min_ps(a, simde_mm_movehl_ps(a, a));
    a = simde_mm_min_ss(a, simde_mm_shuffle_ps(a, a, 1));
    return simde_mm_cvtss_f32(a);
}

OP_VINLINE float rc_hmax(rc_v a)
{
    a = simde_mm_max_ps(a, simde_mm_movehl_ps(a, a));
    a = simde_mm_max_ss(a, simde_mm_shuffle_ps(a, a, 1));
    return simde_mm_cvtss_f32(a);
}
#endif

/* The one body, on RC_LANES lanes. */
#include "simd/raster_clip_rows.inc.h"
