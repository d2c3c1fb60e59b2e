/* Many triangles' rows (supplement §1.3), scalar twin of src/simd/raster_rows.c: the
 * rasterizer's binning asks, per triangle, whether its indices and coordinates are good
 * and which rows it spans (op_clip_rows_of); this is that question for a run of
 * triangles, so that a SIMD twin can answer it for several at once. */
#include "core/kernels.h"
#include "spans/raster_clip.h"

#include <string.h>

OP_CLIP_ROWS_MANY_FN(op_clip_rows_many_scalar)
{
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t *t = tris + 3 * (size_t)k;
        if (t[0] >= nv || t[1] >= nv || t[2] >= nv)
            return k;
        const float *v0 = verts + 3 * (size_t)t[0], *v1 = verts + 3 * (size_t)t[1],
                    *v2 = verts + 3 * (size_t)t[2];
        /* isfinite of all nine at once, on the bits: an exponent of all ones carries
         * into bit 31 when one more is added to it. */
        uint32_t bits[9];
        memcpy(bits, v0, 12);
        memcpy(bits + 3, v1, 12);
        memcpy(bits + 6, v2, 12);
        uint32_t inf = 0;
        for (int q = 0; q < 9; q++)
            inf |= (bits[q] & 0x7f800000u) + 0x00800000u;
        if (inf & 0x80000000u)
            return k;
        int z0 = 1, z1 = 0; /* none */
        if (!op_clip_rows_of(g, bmax, v0, v1, v2, &z0, &z1)) {
            z0 = 1;
            z1 = 0;
        }
        rows[2 * (size_t)k] = z0;
        rows[2 * (size_t)k + 1] = z1;
    }
    return n;
}
