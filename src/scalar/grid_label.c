/* Grid labelling, scalar twin (topology.md "Behavior"; supplement §10.2): the passable
 * components of one chunk, ids 1, 2, ... in increasing local tile order of each
 * component's first tile — the ids the §10.2 flood gives, whatever order the flood
 * visits tiles in. This twin is that flood (LIFO, labelled when pushed, neighbours +x,
 * -x, +y, -y, +z, -z, hex: +x, -x, +y, -y, (+1,-1), (-1,+1)); src/simd/grid_label.c
 * reaches the same bytes by runs and union-find. */
#include "core/kernels.h"

size_t op_grid_label_scratch_size(uint32_t cx, uint32_t cy, uint32_t cz)
{
    /* scalar: a stack of tiles; SIMD: per run begin, end, parent and id (4 u32, at most
     * ceil(cx / 2) runs per row) and the first run of every row. */
    uint64_t rows = (uint64_t)cy * cz;
    uint64_t tiles = rows * cx;
    uint64_t runs = rows * ((cx + 1) / 2);
    uint64_t simd = runs * 16 + (rows + 1) * 4 + ((uint64_t)cx / 64 + 2) * 8 + 64;
    uint64_t scalar = tiles * 4 + 64;
    uint64_t n = simd > scalar ? simd : scalar;
    return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

OP_GRID_LABEL_FN(op_grid_label_scalar)
{
    const uint32_t cxy = cx * cy, tiles = cxy * cz;
    uint32_t *stack = scratch;
    uint32_t next = 0;
    for (uint32_t t = 0; t < tiles; t++)
        labels[t] = 0;
    for (uint32_t seed = 0; seed < tiles; seed++) {
        if (!pass[seed] || labels[seed])
            continue;
        const uint32_t id = ++next;
        uint32_t sp = 0;
        labels[seed] = id;
        stack[sp++] = seed;
        while (sp) {
            const uint32_t t = stack[--sp];
            const uint32_t lz = t / cxy, r = t - lz * cxy, ly = r / cx, lx = r - ly * cx;
            uint32_t n[6];
            int k = 0;
            if (lx + 1 < cx)
                n[k++] = t + 1;
            if (lx > 0)
                n[k++] = t - 1;
            if (ly + 1 < cy)
                n[k++] = t + cx;
            if (ly > 0)
                n[k++] = t - cx;
            if (hex) {
                if (lx + 1 < cx && ly > 0)
                    n[k++] = t + 1 - cx;
                if (lx > 0 && ly + 1 < cy)
                    n[k++] = t - 1 + cx;
            } else {
                if (lz + 1 < cz)
                    n[k++] = t + cxy;
                if (lz > 0)
                    n[k++] = t - cxy;
            }
            for (int i = 0; i < k; i++)
                if (pass[n[i]] && !labels[n[i]]) {
                    labels[n[i]] = id;
                    stack[sp++] = n[i];
                }
        }
    }
    return next;
}
