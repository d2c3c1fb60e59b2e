/* Grid labelling, SIMD twin of src/scalar/grid_label.c (topology.md "Behavior";
 * supplement §10.2): the same ids by another road. Each row's passability is turned
 * into a bit mask 16 (or 32) bytes per compare, runs of passable tiles are read off the
 * masks (starts = set bits whose left neighbour is clear, ends likewise), runs of
 * neighbouring rows that touch are united (orthogonal: overlapping x ranges, also the
 * row of the layer below in 3D; hex: a run [b, e] of row y touches [b, e + 1] of row
 * y - 1, the steps (0,-1) and (+1,-1)), every tree pointer going to the smaller run
 * index, so a root is its component's first run in scan order. Ids then go to roots in
 * run order, which is the order of each component's first tile: the flood's ids. */
#include "simd/simd_width.h"

#include <simde/x86/sse2.h>


/* Bit i set when p[i] != 0, for 64 bytes at p. */
static inline uint64_t nonzero64(const uint8_t *p)
{
    const simde__m128i zero = simde_mm_setzero_si128();
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        simde__m128i v = simde_mm_loadu_si128((const void *)(p + 16 * k));
        uint32_t eq = (uint32_t)simde_mm_movemask_epi8(simde_mm_cmpeq_epi8(v, zero));
        m |= (uint64_t)(~eq & 0xffffu) << (16 * k);
    }
    return m;
}

static inline uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving: pointers only decrease */
        x = parent[x];
    }
    return x;
}

static inline void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Unites the touching runs of two rows (cur's run [b, e] against prev's [b, e + grow]). */
static void join_rows(uint32_t *parent, const uint32_t *begin, const uint32_t *end, uint32_t p0,
                      uint32_t p1, uint32_t c0, uint32_t c1, uint32_t grow)
{
    uint32_t i = p0, j = c0;
    while (i < p1 && j < c1) {
        uint32_t cb = begin[j], ce = end[j] + grow, pb = begin[i], pe = end[i];
        if (pe < cb)
            i++;
        else if (ce < pb)
            j++;
        else {
            unite(parent, i, j);
            if (pe < ce)
                i++;
            else
                j++;
        }
    }
}

OP_GRID_LABEL_FN(OP_FN(op_grid_label))
{
    const uint32_t rows = cy * cz, words = (cx + 63) / 64;
    const size_t max_runs = (size_t)rows * ((cx + 1) / 2);
    uint32_t *begin = scratch, *end = begin + max_runs, *parent = end + max_runs,
             *id = parent + max_runs, *row_first = id + max_runs;
    uint64_t *mask = (uint64_t *)(void *)(((uintptr_t)(row_first + rows + 1) + 7) & ~(uintptr_t)7);
    uint8_t tail[64];
    uint32_t n = 0;
    /* Runs, row by row (row index ly + lz·cy: local order). */
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *row = pass + (size_t)r * cx;
        row_first[r] = n;
        for (uint32_t w = 0; w < words; w++) {
            const uint32_t x0 = w * 64;
            if (x0 + 64 <= cx) {
                mask[w] = nonzero64(row + x0);
            } else {
                /* The tail through a zero-padded copy: one arithmetic path. */
                memset(tail, 0, sizeof tail);
                memcpy(tail, row + x0, cx - x0);
                mask[w] = nonzero64(tail);
            }
        }
        uint32_t closed = n; /* the next run of this row still without an end */
        for (uint32_t w = 0; w < words; w++) {
            const uint64_t m = mask[w];
            const uint64_t before = w ? mask[w - 1] >> 63 : 0;
            const uint64_t after = w + 1 < words ? mask[w + 1] & 1 : 0;
            uint64_t starts = m & ~((m << 1) | before);
            uint64_t ends = m & ~((m >> 1) | (after << 63));
            /* Starts and ends alternate along a row, so the k-th end closes the k-th run. */
            while (starts) {
                begin[n] = w * 64 + (uint32_t)__builtin_ctzll(starts);
                parent[n] = n;
                n++;
                starts &= starts - 1;
            }
            while (ends) {
                end[closed++] = w * 64 + (uint32_t)__builtin_ctzll(ends);
                ends &= ends - 1;
            }
        }
    }
    row_first[rows] = n;
    /* Unions with the row before (same layer) and, in 3D, the same row of the layer
     * below. */
    for (uint32_t r = 0; r < rows; r++) {
        const uint32_t ly = r % cy;
        if (ly > 0)
            join_rows(parent, begin, end, row_first[r - 1], row_first[r], row_first[r],
                      row_first[r + 1], hex ? 1u : 0u);
        if (!hex && r >= cy)
            join_rows(parent, begin, end, row_first[r - cy], row_first[r - cy + 1], row_first[r],
                      row_first[r + 1], 0);
    }
    /* Ids: roots in run order (a root is its component's first run), others their
     * root's, which comes earlier. */
    uint32_t next = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t root = find_root(parent, i);
        id[i] = root == i ? ++next : id[root];
    }
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t *out = labels + (size_t)r * cx;
        uint32_t x = 0;
        for (uint32_t i = row_first[r]; i < row_first[r + 1]; i++) {
            const uint32_t b = begin[i], e = end[i], v = id[i];
            for (; x < b; x++)
                out[x] = 0;
            for (; x <= e; x++)
                out[x] = v;
        }
        for (; x < cx; x++)
            out[x] = 0;
    }
    return next;
}
