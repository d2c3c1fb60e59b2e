/* Heightfield filters (supplement §1.4), run in this order: low-hanging obstacles,
 * ledges, low height. A span's floor is its smax; its ceiling is the next span's smin
 * in the column, or 0xffff. Columns are runs of the span arrays (spans.h). */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "core/kernels.h"
#include "parallel/parallel_internal.h"

/* supplement §1.4.1 (op_low_hanging_column) on the columns of rows [z0, z1). */
static void low_hanging_rows(op_heightfield *hf, int walkable_climb, uint32_t z0, uint32_t z1)
{
    const uint32_t *ends = op_heightfield_ends(hf);
    for (size_t c = (size_t)z0 * hf->width; c < (size_t)z1 * hf->width; c++) {
        const uint32_t s0 = hf->first[c], s1 = ends[c];
        if (s1 - s0 < 2)
            continue; /* nothing below the lowest span */
        op_low_hanging_column(hf->smax, hf->area, s0, s1, walkable_climb);
    }
}

void op_filter_ledge_spans(op_heightfield *hf, int walkable_height, int walkable_climb)
{
    op_kernels best;
    op_filter_ledge_rows(op_spans_best_kernels(&best), hf, walkable_height, walkable_climb, 0,
                         hf->depth, 0);
}

void op_filter_spans(op_heightfield *hf, int walkable_height, int walkable_climb)
{
    op_kernels best;
    op_filter_ledge_rows(op_spans_best_kernels(&best), hf, walkable_height, walkable_climb, 0,
                         hf->depth, 1);
}

/* Decisions depend only on geometry, so marking in place is order-independent: rows can
 * be done in any order, on any thread. */
void op_filter_ledge_rows(const op_kernels *k, op_heightfield *hf, int walkable_height,
                          int walkable_climb, uint32_t z0, uint32_t z1, int all3)
{
    const uint32_t w = hf->width, dpt = hf->depth;
    const uint32_t *first = hf->first, *ends = op_heightfield_ends(hf);
    uint8_t *area = hf->area;
    /* Columns of a window that lie outside the world count as off the grid, as in a
     * solo bake (supplement §2 "Seam-exact tiles"): [vx0, vx1) x [vz0, vz1) is the part
     * of the window inside the world; a column with a neighbour off the grid is all
     * ledge. Interior columns: [ix0, ix1). */
    const int64_t ox = hf->origin_x, oz = hf->origin_z;
    const int64_t vx0 = ox < 0 ? -ox : 0, vz0 = oz < 0 ? -oz : 0;
    const int64_t vx1 = (int64_t)hf->world_width - ox, vz1 = (int64_t)hf->world_depth - oz;
    const int64_t lx0 = vx0 + 1, lx1 = (vx1 - 1 < (int64_t)w - 1 ? vx1 - 1 : (int64_t)w - 1);
    const uint32_t ix0 = lx0 < (int64_t)w ? (uint32_t)lx0 : w;
    const uint32_t ix1 = lx1 > (int64_t)ix0 ? (uint32_t)lx1 : ix0;
    for (uint32_t z = z0; z < z1; z++) {
        /* directions 0 = -x, 1 = +z, 2 = +x, 3 = -z (op_dir_dx/op_dir_dz) */
        const int zoff = z <= vz0 || z + 1 >= vz1 || z + 1 >= dpt;
        const size_t c0 = (size_t)z * w;
        const int inner = !zoff && ix1 > ix0;
        if (inner)
            k->spans.ledge_row(hf, z, ix0, ix1, walkable_height, walkable_climb, all3);
        for (uint32_t x = 0; x < w; x++) {
            if (inner && x == ix0)
                x = ix1; /* done above */
            if (x >= w)
                break;
            const uint32_t s0 = first[c0 + x], s1 = ends[c0 + x];
            /* A neighbour off the grid: every span is a ledge (with all3 too: whatever
             * the low-hanging filter made walkable, the ledge filter clears). */
            for (uint32_t s = s0; s < s1; s++)
                area[s] = OP_NULL_AREA;
        }
    }
}

/* supplement §1.4.3 (op_low_height_column) on the columns of rows [z0, z1). */
static void low_height_rows(op_heightfield *hf, int walkable_height, uint32_t z0, uint32_t z1)
{
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    uint8_t *area = hf->area;
    const uint32_t *ends = op_heightfield_ends(hf);
    for (size_t c = (size_t)z0 * hf->width; c < (size_t)z1 * hf->width; c++) {
        const uint32_t s0 = hf->first[c], n = ends[c] - s0;
        if (n == 1) {
            /* One span: its ceiling is the top. */
            if ((int32_t)OP_HF_MAX_HEIGHT - (int32_t)smax[s0] < walkable_height)
                area[s0] = OP_NULL_AREA;
            continue;
        }
        op_low_height_column(smin, smax, area, s0, s0 + n, walkable_height);
    }
}

void op_filter_low_hanging_obstacles(op_heightfield *hf, int walkable_climb)
{
    low_hanging_rows(hf, walkable_climb, 0, hf->depth);
}

void op_filter_low_height_spans(op_heightfield *hf, int walkable_height)
{
    low_height_rows(hf, walkable_height, 0, hf->depth);
}

/* The three filters of supplement §1.4 in one pass (op_ledge_cells: per column in
 * order, the same areas as each filter over the whole field before the next). A row
 * writes only its own areas and reads only geometry of the rows around, so rows are
 * split between ctx's threads. */
void op_spans_filters(op_ctx *ctx, op_heightfield *hf, int walkable_height, int walkable_climb)
{
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    const uint32_t dpt = hf->depth;
    const int T = op_grid_threads(ctx, dpt / 16 + 1);
    if (T <= 1) {
        op_filter_ledge_rows(k, hf, walkable_height, walkable_climb, 0, dpt, 1);
        return;
    }
    const int chunks = 4 * T;
    OP_PRAGMA(omp parallel for num_threads(T) schedule(dynamic, 1))
    for (int q = 0; q < chunks; q++) {
        const uint32_t z0 = (uint32_t)((uint64_t)dpt * (uint64_t)q / (uint64_t)chunks);
        const uint32_t z1 = (uint32_t)((uint64_t)dpt * (uint64_t)(q + 1) / (uint64_t)chunks);
        op_filter_ledge_rows(k, hf, walkable_height, walkable_climb, z0, z1, 1);
    }
}
