/* Walkable triangles (supplement §1.2), scalar twin of src/simd/raster_walkable.c: the
 * unit normal of (v1 − v0) × (v2 − v0), normalized in binary32, against the slope's
 * cosine. */
#include "core/kernels.h"
#include "onepath/spans.h"

#include <math.h>

OP_MARK_WALKABLE_FN(op_mark_walkable_scalar)
{
    (void)nv; /* the indices are the caller's (op_mark_walkable_triangles reads them as given) */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *t = tris + 3 * (size_t)i;
        const float *v0 = verts + 3 * (size_t)t[0];
        const float *v1 = verts + 3 * (size_t)t[1];
        const float *v2 = verts + 3 * (size_t)t[2];
        const float e0[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
        const float e1[3] = {v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]};
        const float nrm[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2],
                              e0[0] * e1[1] - e0[1] * e1[0]};
        const float len = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        /* A degenerate triangle (len 0) has no normal: Recast gets NaN and so area 0. */
        const float ny = len > 0.0f ? nrm[1] * (1.0f / len) : 0.0f;
        areas[i] = len > 0.0f && ny > thr ? (uint8_t)OP_WALKABLE_AREA : (uint8_t)OP_NULL_AREA;
    }
}
