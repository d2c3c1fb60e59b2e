/* Internal parts of the spans stage shared by its files (not installed). */
#ifndef ONEPATH_SPANS_INTERNAL_H
#define ONEPATH_SPANS_INTERNAL_H

#include "onepath/spans.h"
#include "onepath/chf.h"

/* A kernel table for a call without a context: the scalar twins, or the best variant
 * (ONEPATH_ISA narrows it, as for a context). Returns k. */
struct op_kernels;
struct op_kernels *op_spans_scalar_kernels(struct op_kernels *k);
struct op_kernels *op_spans_best_kernels(struct op_kernels *k);

#ifdef _OPENMP
#include <omp.h>
#endif

/* Threads a call on ctx runs inside one grid (op_ctx_set_threads), at most `most`. */
static inline int op_grid_threads(const op_ctx *ctx, uint64_t most)
{
#ifdef _OPENMP
    int t = !ctx ? 1 : ctx->threads == 0 ? omp_get_max_threads() : ctx->threads;
#else
    int t = 1;
    (void)ctx;
#endif
    if (t < 1)
        t = 1;
    if ((uint64_t)t > most)
        t = most ? (int)most : 1;
    return t;
}

/* Span indices are u32. */
#define OP_HF_MAX_SPANS 0xfffffffeu

/* Grows the three span arrays to hold at least `need` slots (1.5x growth); 0 when that
 * is impossible (the field stays valid). */
int op_hf_spans_reserve(op_heightfield *hf, uint64_t need);
/* Frees the span arrays only (the columns stay, to be refilled). */
void op_hf_spans_free(op_heightfield *hf);
/* Moves the columns into cell order without gaps (after op_heightfield_add_span moved
 * some), first their prefix sum and end NULL; no-op when end is NULL. */
op_status op_hf_pack(op_ctx *ctx, op_heightfield *hf);

struct op_kernels;
/* A row's links as the link row kernels write them (u32 span indices per direction),
 * before they are encoded: one buffer of 4·cap entries, grown as rows need. */
typedef struct op_link_rowbuf {
    uint32_t *link[4];
    size_t cap;
} op_link_rowbuf;
/* Frees rb's buffer (allocated with a, the field's allocator) and zeroes it. */
void op_link_rowbuf_free(const op_allocator *a, op_link_rowbuf *rb);
/* The link rule (supplement §1.5) for the spans of rows [z0, z1) with k's link_row
 * (spans/links.c) into rb, encoded into chf->dlink; the far links are appended to
 * far[0 .. 4) in span order (chf->far, or a thread's own tables merged in row order
 * after; a pointer, not `far[4]`: GCC 12 with ASan reads that bound wrongly and
 * -Wstringop-overflow stops the sanitizer build). The cells and spans of rows z0 - 1 .. z1 must be in place. mutual: as for
 * link_row (NULL: not written). Returns 0, or -1 when out of memory. */
int op_chf_link_rows(const struct op_kernels *k, op_chf *chf, uint32_t z0, uint32_t z1,
                     uint8_t *mutual, op_link_rowbuf *rb, op_link_far *far);
/* The three filters of supplement §1.4 in order, by rows on ctx's threads. */
void op_spans_filters(op_ctx *ctx, op_heightfield *hf, int walkable_height, int walkable_climb);
/* The ledge filter for rows [z0, z1) with k's ledge_row (spans/filters.c); with all3,
 * the three filters of supplement §1.4 (op_ledge_cells). */
void op_filter_ledge_rows(const struct op_kernels *k, op_heightfield *hf, int walkable_height,
                          int walkable_climb, uint32_t z0, uint32_t z1, int all3);
/* op_chf_alloc without clearing anything (every array is written by the caller but
 * cell_first[width*depth] = span_count, which this writes). */
op_status op_chf_alloc_uninit(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                              uint32_t span_count);

/* supplement §1.4.2 for span s of a column ending at s_end: reads only geometry (floors
 * and ceilings), never an area of a neighbour, so the order of visits does not matter.
 * nb[d], ne[d]: the span run of the neighbour column in direction d (empty when the
 * column is empty). Not called for a column with a neighbour off the grid (every span
 * of it is a ledge). */
static inline int op_is_ledge(const uint16_t *smin, const uint16_t *smax, uint32_t s,
                              uint32_t s_end, const uint32_t nb[4], const uint32_t ne[4],
                              int32_t wh, int32_t climb)
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
            /* Floors rise up a column (spans are disjoint and sorted): from here on the
             * gap is at most c - nf < wh, no span is passable. */
            if (c - nf < wh)
                break;
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

/* supplement §1.4.1 on the column of spans [s0, s1): "was walkable" is read before the
 * change, so a stack of non-walkable spans does not climb. */
static inline void op_low_hanging_column(const uint16_t *smax, uint8_t *area, uint32_t s0,
                                         uint32_t s1, int32_t climb)
{
    int prev_walkable = area[s0] != OP_NULL_AREA;
    uint8_t prev_area = area[s0];
    int32_t prev_floor = smax[s0];
    for (uint32_t s = s0 + 1; s < s1; s++) {
        const int walkable = area[s] != OP_NULL_AREA;
        const int32_t dy = (int32_t)smax[s] - prev_floor;
        if (!walkable && prev_walkable && dy <= climb && -dy <= climb)
            area[s] = prev_area;
        prev_walkable = walkable;
        prev_area = area[s];
        prev_floor = smax[s];
    }
}

/* supplement §1.4.3 on the column of spans [s0, s1). */
static inline void op_low_height_column(const uint16_t *smin, const uint16_t *smax, uint8_t *area,
                                        uint32_t s0, uint32_t s1, int32_t wh)
{
    for (uint32_t s = s0; s < s1; s++) {
        const int32_t ceil = s + 1 < s1 ? (int32_t)smin[s + 1] : (int32_t)OP_HF_MAX_HEIGHT;
        if (ceil - (int32_t)smax[s] < wh)
            area[s] = OP_NULL_AREA;
    }
}

/* The ledge test (op_is_ledge) for the walkable spans of cells [x0, x1) of row z, every
 * neighbour column on the grid; one cell at a time (the scalar twin of the ledge_row
 * kernel). With all3, per column: low-hanging obstacles first and low height after (the
 * three filters of supplement §1.4 in order: each writes only its column's areas and
 * the ledge test reads only geometry of the others, so per column is the same as each
 * filter over the whole field before the next). */
static inline void op_ledge_cells(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                                  int32_t wh, int32_t climb, int all3)
{
    const uint32_t w = hf->width;
    const uint32_t *first = hf->first, *ends = op_heightfield_ends(hf);
    for (uint32_t x = x0; x < x1; x++) {
        const size_t c = (size_t)x + (size_t)z * w;
        const uint32_t s0 = first[c], s1 = ends[c];
        if (s0 == s1)
            continue;
        if (all3 && s1 - s0 >= 2)
            op_low_hanging_column(hf->smax, hf->area, s0, s1, climb);
        const size_t nc[4] = {c - 1, c + w, c + 1, c - w};
        uint32_t nb[4], ne[4];
        for (int d = 0; d < 4; d++) {
            nb[d] = first[nc[d]];
            ne[d] = ends[nc[d]];
        }
        for (uint32_t s = s0; s < s1; s++)
            if (hf->area[s] != OP_NULL_AREA &&
                op_is_ledge(hf->smin, hf->smax, s, s1, nb, ne, wh, climb))
                hf->area[s] = OP_NULL_AREA;
        if (all3)
            op_low_height_column(hf->smin, hf->smax, hf->area, s0, s1, wh);
    }
}

/* The link test of supplement §1.5 between spans (sy, stop) and (ty, ttop): at least
 * walkable_height of clearance in the overlap and a step of at most walkable_climb. It is
 * symmetric in the two spans. */
static inline int op_link_pass(int32_t sy, int32_t stop, int32_t ty, int32_t ttop, int32_t wh,
                               int32_t wc)
{
    const int32_t top = stop < ttop ? stop : ttop;
    const int32_t bot = sy > ty ? sy : ty;
    const int32_t dy = ty - sy;
    return top - bot >= wh && dy <= wc && -dy <= wc;
}

/* supplement §1.5 for the cells [xa, xb) of row z: the lowest span of the neighbour cell
 * that leaves walkable_height of clearance in the overlap and is within walkable_climb.
 * The four neighbour cells' span ranges are looked up once per cell; the test per pair is
 * the rule's, in the same bottom-up order, so the first match is the same span. A cell of
 * one span whose neighbour holds one span (most of an open world) takes the test directly.
 *
 * link[d][s - r0] (r0 = cell_first[z·width]): the link of span s in direction d.
 * mutual (NULL: not written): bit d of mutual[s] when link[d][s] = t and link[(d+2)&3][t]
 * = s, from this row alone. t's link back is the lowest span u of s's cell with the test
 * (u, t) (the test is symmetric), so the bit is set exactly when no span of s's cell below
 * s passes with t; a span alone in its cell has every link mutual. Valid for a field whose
 * cells own disjoint span ranges (cell_first a prefix sum, as compaction builds it; it is
 * read up to cell_first[c + width + 1] for the cells of row z). */
static inline void op_link_cells(const op_chf *chf, uint32_t z, uint32_t xa, uint32_t xb,
                                 uint8_t *mutual, uint32_t *const link[4])
{
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    const uint32_t w = chf->width, dpt = chf->depth;
    const uint32_t *cf = chf->cell_first; /* cell c: [cf[c], cf[c + 1]) */
    const uint16_t *Y = chf->y;
    const uint8_t *H = chf->h;
    const uint32_t r0 = cf[(size_t)z * w]; /* link[d][s - r0] */
    for (uint32_t x = xa; x < xb; x++) {
        const size_t c = (size_t)x + (size_t)z * w;
        const uint32_t s0 = cf[c], s1 = cf[c + 1];
        if (s0 == s1)
            continue;
        /* Span ranges of the neighbour cells in directions 0 = -x, 1 = +z, 2 = +x,
         * 3 = -z (op_dir_dx/op_dir_dz); empty off the grid. */
        uint32_t t0[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0};
        if (x > 0) {
            t0[0] = cf[c - 1];
            t1[0] = s0;
        }
        if (z + 1 < dpt) {
            t0[1] = cf[c + w];
            t1[1] = cf[c + w + 1];
        }
        if (x + 1 < w) {
            t0[2] = s1;
            t1[2] = cf[c + 2];
        }
        if (z > 0) {
            t0[3] = cf[c - w];
            t1[3] = cf[c - w + 1];
        }
        if (s1 - s0 == 1) {
            const int32_t sy = Y[s0], stop = sy + (int32_t)H[s0];
            unsigned m = 0;
            for (int d = 0; d < 4; d++) {
                uint32_t found = OP_NO_LINK;
                if (t1[d] - t0[d] == 1) {
                    const uint32_t t = t0[d];
                    const int32_t ty = Y[t];
                    found = op_link_pass(sy, stop, ty, ty + (int32_t)H[t], wh, wc) ? t
                                                                                    : OP_NO_LINK;
                } else {
                    for (uint32_t t = t0[d]; t < t1[d]; t++) {
                        const int32_t ty = Y[t];
                        if (op_link_pass(sy, stop, ty, ty + (int32_t)H[t], wh, wc)) {
                            found = t;
                            break;
                        }
                    }
                }
                link[d][s0 - r0] = found;
                m |= (unsigned)(found != OP_NO_LINK) << d;
            }
            if (mutual)
                mutual[s0] = (uint8_t)m;
            continue;
        }
        for (uint32_t s = s0; s < s1; s++) {
            const int32_t sy = Y[s], stop = sy + (int32_t)H[s];
            unsigned m = 0;
            for (int d = 0; d < 4; d++) {
                uint32_t found = OP_NO_LINK;
                for (uint32_t t = t0[d]; t < t1[d]; t++) {
                    const int32_t ty = Y[t];
                    if (op_link_pass(sy, stop, ty, ty + (int32_t)H[t], wh, wc)) {
                        found = t;
                        break;
                    }
                }
                link[d][s - r0] = found;
                if (found == OP_NO_LINK || !mutual)
                    continue;
                /* Mutual unless a span of this cell below s passes with found. */
                const int32_t ty = Y[found], ttop = ty + (int32_t)H[found];
                unsigned back = 1;
                for (uint32_t u = s0; u < s && back; u++)
                    back = !op_link_pass(Y[u], Y[u] + (int32_t)H[u], ty, ttop, wh, wc);
                m |= back << d;
            }
            if (mutual)
                mutual[s] = (uint8_t)m;
        }
    }
}


#endif
