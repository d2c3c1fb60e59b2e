/* Heightfield filters (supplement §1.4), run in this order: low-hanging obstacles,
 * ledges, low height. A span's floor is its smax; its ceiling is the next span's smin
 * in the column, or 0xffff. */
#include "onepath/spans.h"

static inline int32_t ceiling_of(const op_heightfield *hf, uint32_t s)
{
    const uint32_t n = hf->next[s];
    return n != OP_HF_NONE ? (int32_t)hf->smin[n] : (int32_t)OP_HF_MAX_HEIGHT;
}

/* supplement §1.4.1: "was walkable" is read before the change, so a stack of
 * non-walkable spans does not climb. */
void op_filter_low_hanging_obstacles(op_heightfield *hf, int walkable_climb)
{
    const size_t cells = (size_t)hf->width * hf->depth;
    for (size_t c = 0; c < cells; c++) {
        int prev_walkable = 0;
        uint8_t prev_area = OP_NULL_AREA;
        int32_t prev_floor = 0;
        for (uint32_t s = hf->head[c]; s != OP_HF_NONE; s = hf->next[s]) {
            const int walkable = hf->area[s] != OP_NULL_AREA;
            const int32_t dy = (int32_t)hf->smax[s] - prev_floor;
            if (!walkable && prev_walkable && dy <= walkable_climb && -dy <= walkable_climb)
                hf->area[s] = prev_area;
            prev_walkable = walkable;
            prev_area = hf->area[s];
            prev_floor = hf->smax[s];
        }
    }
}

/* supplement §1.4.2 for span s: reads only geometry (floors and ceilings), never an area
 * of a neighbour, so the order of visits does not matter. first[] holds the lowest span
 * of each neighbour column (OP_HF_NONE when empty); off: some neighbour column is off
 * the grid, which makes every span of the column a ledge. */
static inline int is_ledge_cols(const op_heightfield *hf, uint32_t s, const uint32_t first[4],
                                int off, int32_t wh, int32_t climb)
{
    if (off)
        return 1; /* a neighbour off the grid */
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    const uint32_t *next = hf->next;
    const int32_t f = smax[s], c = ceiling_of(hf, s);
    int32_t acc_min = f, acc_max = f;
    for (int d = 0; d < 4; d++) {
        /* Drop into empty space below the neighbour's lowest span. */
        const uint32_t t0 = first[d];
        const int32_t low = t0 != OP_HF_NONE ? (int32_t)smin[t0] : (int32_t)OP_HF_MAX_HEIGHT;
        if ((c < low ? c : low) - f >= wh)
            return 1;
        for (uint32_t t = t0; t != OP_HF_NONE; t = next[t]) {
            const int32_t nf = smax[t], nc = ceiling_of(hf, t);
            const int32_t gap = (c < nc ? c : nc) - (f > nf ? f : nf);
            if (gap < wh)
                continue; /* not an overlapping (passable) neighbour span */
            if (nf - f < -climb)
                return 1; /* drop to a lower span */
            if (nf - f <= climb) {
                if (nf < acc_min)
                    acc_min = nf;
                if (nf > acc_max)
                    acc_max = nf;
            }
        }
    }
    return acc_max - acc_min > climb; /* steep slope */
}

void op_filter_ledge_spans(op_heightfield *hf, int walkable_height, int walkable_climb)
{
    /* Decisions depend only on geometry, so marking in place is order-independent.
     * The neighbour columns are looked up once per column, not once per span. */
    const uint32_t w = hf->width, dpt = hf->depth;
    /* Columns of a window that lie outside the world count as off the grid, as in a
     * solo bake (supplement §2 "Seam-exact tiles"): [vx0, vx1) x [vz0, vz1) is the part
     * of the window inside the world. */
    const int64_t ox = hf->origin_x, oz = hf->origin_z;
    const int64_t vx0 = ox < 0 ? -ox : 0, vz0 = oz < 0 ? -oz : 0;
    const int64_t vx1 = (int64_t)hf->world_width - ox, vz1 = (int64_t)hf->world_depth - oz;
    for (uint32_t z = 0; z < dpt; z++)
        for (uint32_t x = 0; x < w; x++) {
            const size_t c = (size_t)x + (size_t)z * w;
            uint32_t s = hf->head[c];
            if (s == OP_HF_NONE)
                continue;
            /* directions 0 = -x, 1 = +z, 2 = +x, 3 = -z (op_dir_dx/op_dir_dz) */
            const int off = x <= vx0 || z + 1 >= vz1 || x + 1 >= vx1 || z <= vz0 ||
                            z + 1 >= dpt || x + 1 >= w;
            uint32_t first[4] = {OP_HF_NONE, OP_HF_NONE, OP_HF_NONE, OP_HF_NONE};
            if (!off) {
                first[0] = hf->head[c - 1];
                first[1] = hf->head[c + w];
                first[2] = hf->head[c + 1];
                first[3] = hf->head[c - w];
            }
            for (; s != OP_HF_NONE; s = hf->next[s])
                if (hf->area[s] != OP_NULL_AREA &&
                    is_ledge_cols(hf, s, first, off, walkable_height, walkable_climb))
                    hf->area[s] = OP_NULL_AREA;
        }
}

/* supplement §1.4.3 */
void op_filter_low_height_spans(op_heightfield *hf, int walkable_height)
{
    const size_t cells = (size_t)hf->width * hf->depth;
    for (size_t c = 0; c < cells; c++)
        for (uint32_t s = hf->head[c]; s != OP_HF_NONE; s = hf->next[s])
            if (ceiling_of(hf, s) - (int32_t)hf->smax[s] < walkable_height)
                hf->area[s] = OP_NULL_AREA;
}
