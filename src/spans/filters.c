/* Heightfield filters (supplement §1.4), run in this order: low-hanging obstacles,
 * ledges, low height. A span's floor is its smax; its ceiling is the next span's smin
 * in the column, or 0xffff. Columns are runs of the span arrays (spans.h). */
#include "onepath/spans.h"

/* supplement §1.4.1: "was walkable" is read before the change, so a stack of
 * non-walkable spans does not climb. */
void op_filter_low_hanging_obstacles(op_heightfield *hf, int walkable_climb)
{
    const size_t cells = (size_t)hf->width * hf->depth;
    const uint16_t *smax = hf->smax;
    uint8_t *area = hf->area;
    for (size_t c = 0; c < cells; c++) {
        const uint32_t n = hf->count[c];
        if (n < 2)
            continue; /* nothing below the lowest span */
        const uint32_t s0 = hf->first[c], s1 = s0 + n;
        int prev_walkable = area[s0] != OP_NULL_AREA;
        uint8_t prev_area = area[s0];
        int32_t prev_floor = smax[s0];
        for (uint32_t s = s0 + 1; s < s1; s++) {
            const int walkable = area[s] != OP_NULL_AREA;
            const int32_t dy = (int32_t)smax[s] - prev_floor;
            if (!walkable && prev_walkable && dy <= walkable_climb && -dy <= walkable_climb)
                area[s] = prev_area;
            prev_walkable = walkable;
            prev_area = area[s];
            prev_floor = smax[s];
        }
    }
}

/* supplement §1.4.2 for span s of a column ending at s_end: reads only geometry (floors
 * and ceilings), never an area of a neighbour, so the order of visits does not matter.
 * nb[d], ne[d]: the span run of the neighbour column in direction d (empty when the
 * column is empty). Not called for a column with a neighbour off the grid (every span
 * of it is a ledge). */
static inline int is_ledge(const uint16_t *smin, const uint16_t *smax, uint32_t s, uint32_t s_end,
                           const uint32_t nb[4], const uint32_t ne[4], int32_t wh, int32_t climb)
{
    const int32_t f = smax[s];
    const int32_t c = s + 1 < s_end ? (int32_t)smin[s + 1] : (int32_t)OP_HF_MAX_HEIGHT;
    int32_t acc_min = f, acc_max = f;
    for (int d = 0; d < 4; d++) {
        /* Drop into empty space below the neighbour's lowest span. */
        const int32_t low = nb[d] < ne[d] ? (int32_t)smin[nb[d]] : (int32_t)OP_HF_MAX_HEIGHT;
        if ((c < low ? c : low) - f >= wh)
            return 1;
        for (uint32_t t = nb[d]; t < ne[d]; t++) {
            const int32_t nf = smax[t];
            const int32_t nc = t + 1 < ne[d] ? (int32_t)smin[t + 1] : (int32_t)OP_HF_MAX_HEIGHT;
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
    /* Decisions depend only on geometry, so marking in place is order-independent. */
    const uint32_t w = hf->width, dpt = hf->depth;
    const uint32_t *first = hf->first, *count = hf->count;
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    uint8_t *area = hf->area;
    /* Columns of a window that lie outside the world count as off the grid, as in a
     * solo bake (supplement §2 "Seam-exact tiles"): [vx0, vx1) x [vz0, vz1) is the part
     * of the window inside the world. */
    const int64_t ox = hf->origin_x, oz = hf->origin_z;
    const int64_t vx0 = ox < 0 ? -ox : 0, vz0 = oz < 0 ? -oz : 0;
    const int64_t vx1 = (int64_t)hf->world_width - ox, vz1 = (int64_t)hf->world_depth - oz;
    for (uint32_t z = 0; z < dpt; z++) {
        const int zoff = z <= vz0 || z + 1 >= vz1 || z + 1 >= dpt;
        for (uint32_t x = 0; x < w; x++) {
            const size_t c = (size_t)x + (size_t)z * w;
            const uint32_t s0 = first[c], s1 = s0 + count[c];
            if (s0 == s1)
                continue;
            /* directions 0 = -x, 1 = +z, 2 = +x, 3 = -z (op_dir_dx/op_dir_dz) */
            if (zoff || x <= vx0 || x + 1 >= vx1 || x + 1 >= w) {
                for (uint32_t s = s0; s < s1; s++)
                    area[s] = OP_NULL_AREA; /* a neighbour off the grid */
                continue;
            }
            const size_t nc[4] = {c - 1, c + w, c + 1, c - w};
            uint32_t nb[4], ne[4];
            for (int d = 0; d < 4; d++) {
                nb[d] = first[nc[d]];
                ne[d] = nb[d] + count[nc[d]];
            }
            for (uint32_t s = s0; s < s1; s++)
                if (area[s] != OP_NULL_AREA &&
                    is_ledge(smin, smax, s, s1, nb, ne, walkable_height, walkable_climb))
                    area[s] = OP_NULL_AREA;
        }
    }
}

/* supplement §1.4.3 */
void op_filter_low_height_spans(op_heightfield *hf, int walkable_height)
{
    const size_t cells = (size_t)hf->width * hf->depth;
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    uint8_t *area = hf->area;
    for (size_t c = 0; c < cells; c++) {
        const uint32_t s0 = hf->first[c], s1 = s0 + hf->count[c];
        for (uint32_t s = s0; s < s1; s++) {
            const int32_t ceil = s + 1 < s1 ? (int32_t)smin[s + 1] : (int32_t)OP_HF_MAX_HEIGHT;
            if (ceil - (int32_t)smax[s] < walkable_height)
                area[s] = OP_NULL_AREA;
        }
    }
}
