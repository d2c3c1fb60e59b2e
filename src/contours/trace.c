/* Contour tracing (regions-contours §6, Edges and Tracing; supplement §9.1, §9.6).
 *
 * §6 walks the states (span, dir) of the field: at a boundary edge it emits a vertex and
 * turns, otherwise it steps to the neighbour. Done on the field itself, every step along
 * z jumps a row of every span array, so the walk misses the cache at almost every step.
 * The same loops, with the same vertices in the same order, come from one pass in span
 * order instead, a few thousand spans at a time while they are in cache:
 *  - the boundary mask (edge-classification kernel), the region/area check of
 *    op_build_contours, and the edge ids: boundary edges numbered in (span, direction)
 *    order, through a per-8-span block offset and a popcount over the mask;
 *  - every boundary edge's vertex (start corner, Y, neighbour value) and its successor:
 *    the next boundary state the walk reaches from it, by the walk's own moves around
 *    the edge's end corner;
 *  - the edges, met in id order, grow fragments: runs of a loop in loop order. An edge
 *    whose predecessor was met is appended to that fragment; one whose successor was met
 *    (and heads a fragment) is prepended to it, or links the two fragments; otherwise it
 *    founds a fragment. A fragment's vertices sit in chunks, so nothing is chased.
 * A loop's smallest edge id is the founder of its earliest fragment, so the loops are
 * emitted in order of their fragments' creation, each from that founder: §6's order of
 * discovery and of vertices. The pass runs on several threads by contiguous span
 * segments; a segment's links into its neighbours are joined afterwards. The result
 * does not depend on the number of segments. */
#include "contours/contours_internal.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/kernels.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int64_t op__loop_area2(const op_contour_vert *v, uint32_t n)
{
    int64_t a = 0;
    for (uint32_t i = 0, j = n ? n - 1 : 0; i < n; j = i++)
        a += (int64_t)v[j].x * v[i].z - (int64_t)v[i].x * v[j].z;
    return a;
}

#define NONE UINT32_MAX
/* Spans classified per kernel call, about a row ahead of the trace, so that the trace
 * finds them in cache (a multiple of 8). */
#define TRACE_SUB 4096u
/* Vertices per chunk of a fragment. */
#define CHUNK 16u

/* ---- The rank index over the mask --------------------------------------------------- */

/* The boundary bits of block b (spans 8b..8b+7): byte j holds span 8b+j's low nibble. */
static inline uint64_t block_bits(const uint8_t *mask, size_t b)
{
    uint64_t w;
    memcpy(&w, mask + 8 * b, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w & 0x0f0f0f0f0f0f0f0full;
}

/* Bits set in a word whose bytes hold at most a nibble each (the library is built for
 * the base ISA, where __builtin_popcountll is a library call). */
static inline uint32_t popcount_nibbles(uint64_t v)
{
    v = v - ((v >> 1) & 0x0505050505050505ull);
    v = (v & 0x0303030303030303ull) + ((v >> 2) & 0x0303030303030303ull);
    return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

/* Id of the boundary edge (s, d): the boundary edges before it in (span, direction)
 * order (from the block offsets, local to a segment until they are made global). */
static inline uint32_t edge_id(const uint8_t *mask, const uint32_t *boff, uint32_t s, int d)
{
    const unsigned bit = (s & 7u) * 8u + (unsigned)d; /* at most 59 */
    return boff[s >> 3] + popcount_nibbles(block_bits(mask, s >> 3) & ((1ull << bit) - 1));
}

/* ---- Fragments ------------------------------------------------------------------------ */

/* A run of one loop's edges in loop order: reverse(front) then back. While its chain of
 * fragments is open, other_end links the chain's head fragment and its tail fragment
 * (a lone fragment is its own other end); link is the next fragment in the loop. */
typedef struct tfrag {
    uint32_t back_first, back_last, back_fill; /* chunks oldest → newest */
    uint32_t front_top, front_fill;            /* chunks newest → oldest */
    uint32_t link, other_end;
    uint32_t head_edge; /* id of its first edge (checks the successor map) */
    uint32_t founder;   /* span of its founding edge (its smallest id) */
    uint32_t count;     /* its edges */
    uint8_t founder_dir;
    uint8_t seg;        /* the segment whose chunks hold it */
} tfrag;

/* A successor in another segment, linked after the pass. */
typedef struct tout {
    uint32_t frag, span;
    uint8_t dir;
} tout;

/* Chunk pages from a segment's arena (they stay until the caller releases it). */
#define CHUNK_PAGE_BITS 10u

struct op_ctseg {
    uint32_t s0, s1;    /* spans [s0, s1), s0 a multiple of 8 */
    uint32_t a0;        /* spans classified so far (ahead of the trace) */
    size_t counted;     /* edges classified so far */
    op_ctx *ctx;        /* the segment's context: its arena holds the pages */
    uint32_t *slot;     /* per edge: pending predecessor's fragment, then its head fragment */
    size_t slot_cap;
    uint8_t **cpage;    /* chunks of CHUNK vertices, narrow or wide records */
    int narrow;         /* the chunks hold narrow records (see vrec_narrow) */
    uint32_t br;        /* the border region (a narrow record's neighbour 0xfffe) */
    uint32_t **cnext;
    size_t ncpages, cpage_cap, nchunk;
    tfrag *frag;
    size_t nfrag, frag_cap;
    tout *out;
    size_t nout, out_cap;
    size_t ebase;       /* global id of local edge 0 */
    size_t fbase;       /* global index of local fragment 0 */
    uint16_t *rarea;    /* area per region id (0xffff none), or NULL: no check */
    int bad_regions, nomem, failed;
    uint32_t fail_s;
    int fail_d;
};
typedef struct op_ctseg trace_seg;

typedef struct trace_in {
    const op_chf *chf;
    const uint32_t *region;
    uint32_t border_region, region_count;
    const op_kernels *k;
    const op_allocator *alloc;
    uint8_t *mask;  /* n rounded up to 8, + 8 */
    uint32_t *boff; /* per block: id of its first edge (segment-local until joined) */
    uint64_t guard; /* moves allowed around one corner (a corrupt field loops) */
} trace_in;

static int seg_fail(trace_seg *g, uint32_t s, int d)
{
    g->failed = 1;
    g->fail_s = s;
    g->fail_d = d;
    return -1;
}

static inline uint32_t *slot_at(const trace_seg *g, size_t e) { return &g->slot[e]; }

/* A vertex in a chunk. Narrow: x, y, z and the neighbour value in 16 bits each (8 bytes),
 * the neighbour OP_TILE_BORDER as 0xffff and the border region (the tile band's
 * OP_BORDER_REGION) as 0xfffe; taken with the region check (every neighbour value is then
 * 0, a region id up to the region count, the border region or OP_TILE_BORDER) when the
 * grid's width and depth and the region count are below op_contour_narrow_limit (so every
 * corner x <= width, z <= depth and region id fits below 0xfffe; a floor y is 16 bits).
 * Wide: op_contour_vert itself (16 bytes). The chunks are written during the pass and
 * read once per region much later, both from memory not in cache: narrow records halve
 * that traffic and the pages. */
uint32_t op_contour_narrow_limit = 0xfffeu;

static inline size_t vrec_size(int narrow) { return narrow ? 8 : sizeof(op_contour_vert); }

static inline uint64_t vrec_narrow(const op_contour_vert *v, uint32_t br)
{
    const uint16_t nb = v->neighbour == br ? 0xfffeu : (uint16_t)v->neighbour;
    return (uint64_t)(uint16_t)v->x | (uint64_t)(uint16_t)v->y << 16 |
           (uint64_t)(uint16_t)v->z << 32 | (uint64_t)nb << 48;
}

static inline op_contour_vert vrec_wide(uint64_t w, uint32_t br)
{
    op_contour_vert v;
    v.x = (int32_t)(w & 0xffffu);
    v.y = (int32_t)(w >> 16 & 0xffffu);
    v.z = (int32_t)(w >> 32 & 0xffffu);
    const uint32_t nb = (uint32_t)(w >> 48);
    v.neighbour = nb == 0xffffu ? OP_TILE_BORDER : nb == 0xfffeu ? br : nb;
    return v;
}

static inline uint8_t *chunk_at(const trace_seg *g, uint32_t c)
{
    return g->cpage[c >> CHUNK_PAGE_BITS] +
           (size_t)(c & ((1u << CHUNK_PAGE_BITS) - 1)) * CHUNK * vrec_size(g->narrow);
}

/* Stores v as record i of chunk ch. */
static inline void vrec_put(const trace_seg *g, uint8_t *ch, uint32_t i, const op_contour_vert *v)
{
    if (g->narrow) {
        const uint64_t w = vrec_narrow(v, g->br);
        memcpy(ch + (size_t)i * 8, &w, 8);
    } else {
        memcpy(ch + (size_t)i * sizeof *v, v, sizeof *v);
    }
}

static inline uint32_t *cnext_at(const trace_seg *g, uint32_t c)
{
    return &g->cnext[c >> CHUNK_PAGE_BITS][c & ((1u << CHUNK_PAGE_BITS) - 1)];
}

/* Fetches the chunk at v (CHUNK records: two or four 64-byte lines) into the cache, for
 * reading (rw 0) or writing (rw 1) (g its segment). Chunks are written during the pass and
 * read per region afterwards, both far apart in time: cold memory both ways. */
#define PREFETCH_CHUNK(g, v, rw)                                                               \
    do {                                                                                       \
        const size_t pf_n = CHUNK * vrec_size((g)->narrow);                                    \
        for (size_t pf_i = 0; pf_i < pf_n; pf_i += 64)                                         \
            __builtin_prefetch((v) + pf_i, (rw));                                              \
    } while (0)

static uint32_t new_chunk(const trace_in *t, trace_seg *g)
{
    if (g->nchunk == (size_t)g->ncpages << CHUNK_PAGE_BITS) {
        if (g->nchunk >= NONE - (1u << CHUNK_PAGE_BITS))
            return NONE;
        if (g->ncpages == g->cpage_cap) {
            size_t cap = g->cpage_cap;
            if (op_array_grow(t->alloc, (void **)&g->cpage, &cap, g->ncpages + 1,
                              sizeof *g->cpage, SIZE_MAX) != OP_OK ||
                op_array_grow(t->alloc, (void **)&g->cnext, &g->cpage_cap, g->ncpages + 1,
                              sizeof *g->cnext, SIZE_MAX) != OP_OK)
                return NONE;
        }
        g->cpage[g->ncpages] = op_arena_alloc(&g->ctx->arena, (CHUNK * vrec_size(g->narrow))
                                                                   << CHUNK_PAGE_BITS);
        g->cnext[g->ncpages] = op_arena_alloc(&g->ctx->arena, sizeof(uint32_t)
                                                                   << CHUNK_PAGE_BITS);
        if (!g->cpage[g->ncpages] || !g->cnext[g->ncpages])
            return NONE;
        g->ncpages++;
    }
    /* the chunk after this one is written soon: fetch it for writing now (chunks are
     * handed out in address order within a page) */
    if ((g->nchunk + 1) & ((1u << CHUNK_PAGE_BITS) - 1))
        PREFETCH_CHUNK(g, chunk_at(g, (uint32_t)g->nchunk + 1), 1);
    return (uint32_t)g->nchunk++;
}

static inline int push_back(const trace_in *t, trace_seg *g, tfrag *f,
                            const op_contour_vert *v)
{
    if (f->back_fill == CHUNK) {
        const uint32_t c = new_chunk(t, g);
        if (c == NONE)
            return -1;
        *cnext_at(g, c) = NONE;
        if (f->back_last == NONE)
            f->back_first = c;
        else
            *cnext_at(g, f->back_last) = c;
        f->back_last = c;
        f->back_fill = 0;
    }
    vrec_put(g, chunk_at(g, f->back_last), f->back_fill++, v);
    f->count++;
    return 0;
}

static inline int push_front(const trace_in *t, trace_seg *g, tfrag *f,
                             const op_contour_vert *v)
{
    if (f->front_fill == CHUNK) {
        const uint32_t c = new_chunk(t, g);
        if (c == NONE)
            return -1;
        *cnext_at(g, c) = f->front_top;
        f->front_top = c;
        f->front_fill = 0;
    }
    vrec_put(g, chunk_at(g, f->front_top), f->front_fill++, v);
    f->count++;
    return 0;
}

static uint32_t new_frag(const trace_in *t, trace_seg *g, uint32_t s, int d, uint32_t e,
                         uint8_t segi)
{
    if (g->nfrag == g->frag_cap &&
        op_array_grow(t->alloc, (void **)&g->frag, &g->frag_cap, g->nfrag + 1, sizeof *g->frag,
                      NONE) != OP_OK)
        return NONE;
    const uint32_t i = (uint32_t)g->nfrag++;
    tfrag *f = &g->frag[i];
    f->back_first = f->back_last = f->front_top = NONE;
    f->back_fill = f->front_fill = CHUNK; /* full: the first push takes a chunk */
    f->link = NONE;
    f->other_end = i;
    f->head_edge = e;
    f->founder = s;
    f->count = 0;
    f->founder_dir = (uint8_t)d;
    f->seg = segi;
    return i;
}

/* The loop goes from tail fragment tl (end of its chain) to head fragment hd (start of
 * its chain): the chains join, or the loop closes when they are one chain. */
static void join(tfrag *fr, uint32_t tl, uint32_t hd)
{
    fr[tl].link = hd;
    if (fr[tl].other_end == hd)
        return; /* closed */
    const uint32_t h1 = fr[tl].other_end, t2 = fr[hd].other_end;
    fr[h1].other_end = t2;
    fr[t2].other_end = h1;
}

/* ---- The pass over one segment ------------------------------------------------------- */

/* The cell of span s, moving forward from cell c: the last cell whose first span is
 * <= s (cell_first is a prefix sum; empty cells hold the next span's index). */
static inline uint32_t cell_of(const op_chf *chf, uint32_t c, uint32_t s)
{
    const size_t cells = (size_t)chf->width * chf->depth;
    const uint32_t *first = chf->cell_first;
    if (c + 1 >= cells || first[c + 1] > s)
        return c;
    /* one span per cell from c on puts s in cell g = c + (s - first[c]); empty cells and
     * cells of several spans move it by a few: gallop from g, the way first[g] says, then
     * bisect (a long jump across a region's interior costs the guess's error, not the
     * jump's length) */
    size_t g = (size_t)c + (s - first[c]);
    if (g >= cells)
        g = cells - 1;
    size_t lo, hi; /* first[lo] <= s, and first[hi] > s or hi == cells */
    if (first[g] <= s) {
        if (g + 1 >= cells || first[g + 1] > s)
            return (uint32_t)g;
        lo = g + 1;
        size_t step = 2;
        while (lo + step < cells && first[lo + step] <= s) {
            lo += step;
            step *= 2;
        }
        hi = lo + step < cells ? lo + step : cells;
    } else {
        /* first[c + 1] <= s < first[g]: g > c + 1 */
        hi = g;
        size_t step = 2;
        while (hi - (c + 1) > step && first[hi - step] > s) {
            hi -= step;
            step *= 2;
        }
        lo = hi - (c + 1) > step ? hi - step : (size_t)c + 1;
    }
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* One span where region or area changes: the rules of check_regions. */
static inline int check_span(const trace_in *t, uint16_t *rarea, uint32_t r, unsigned a)
{
    if (r == 0 || r == t->border_region)
        return 0;
    if (r > t->region_count || a == 0 || (rarea[r] != 0xffff && rarea[r] != a))
        return 1;
    rarea[r] = (uint16_t)a;
    return 0;
}

/* Bit j set when mask byte j of the 64 has the run-break bit (OP_EDGE_BREAK). */
static inline uint64_t break_bits64(const uint8_t *mask)
{
    uint64_t w = 0;
#if defined(__SSE2__)
    for (int j = 0; j < 4; j++) {
        /* bit 4 of each byte to its bit 7 (the shift moves no other byte's bit there) */
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(mask + 16 * j));
        w |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_slli_epi16(v, 3)) << (16 * j);
    }
#else
    for (int j = 0; j < 64; j++)
        w |= (uint64_t)(mask[j] >> 4 & 1u) << j;
#endif
    return w;
}

/* op_build_contours' region check on spans [s0, s1) of segment g, classified with their
 * run breaks: a region id in 1..region_count (unless 0 or the band's), a non-zero area,
 * and one area per region. Only the segment's first span and the spans whose region or
 * area differs from the previous span's (the kernel's OP_EDGE_BREAK) need a look-up.
 * Sets *bad; the caller finds the first offending span again for the message. */
static void check_regions(const trace_in *t, const trace_seg *g, uint16_t *rarea,
                          uint32_t s0, uint32_t s1, int *bad)
{
    const uint32_t *region = t->region;
    const uint8_t *area = t->chf->area, *mask = t->mask;
    int b = 0;
    if (s0 < s1 && s0 == g->s0)
        b = check_span(t, rarea, region[s0], area[s0]);
    uint32_t s = s0;
    /* one (unpredictable) loop exit per 64 spans */
    for (; s1 - s >= 64; s += 64)
        for (uint64_t bits = break_bits64(mask + s); bits; bits &= bits - 1) {
            const uint32_t k = s + (uint32_t)__builtin_ctzll(bits);
            b |= check_span(t, rarea, region[k], area[k]);
        }
    for (; s < s1; s++)
        if (mask[s] & OP_EDGE_BREAK)
            b |= check_span(t, rarea, region[s], area[s]);
    *bad |= b;
}

/* boff[b] for blocks [b0, b1): run plus the boundary edges of the blocks before b (local
 * to the segment; checked to fit after the pass). Returns the run after b1 - 1. */
static size_t block_offsets(const uint8_t *mask, uint32_t *boff, size_t b0, size_t b1,
                            size_t run)
{
    size_t b = b0;
#if defined(__SSE2__)
    /* two blocks per vector: the nibbles' bits counted per byte, summed per 8 bytes */
    const __m128i lo4 = _mm_set1_epi8(0x0f), m1 = _mm_set1_epi8(0x55),
                  m2 = _mm_set1_epi8(0x33), zero = _mm_setzero_si128();
    for (; b + 2 <= b1; b += 2) {
        __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(mask + 8 * b)),
                                  lo4);
        v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi16(v, 1), m1));
        v = _mm_add_epi8(_mm_and_si128(v, m2), _mm_and_si128(_mm_srli_epi16(v, 2), m2));
        v = _mm_sad_epu8(v, zero);
        boff[b] = (uint32_t)run;
        run += (uint32_t)_mm_cvtsi128_si32(v);
        boff[b + 1] = (uint32_t)run;
        run += (uint32_t)_mm_extract_epi16(v, 4);
    }
#endif
    for (; b < b1; b++) {
        boff[b] = (uint32_t)run;
        run += popcount_nibbles(block_bits(mask, b));
    }
    return run;
}

/* Classifies and counts spans [g->a0, a1) of the segment (edge-classification kernel,
 * region check, block offsets) and makes room for their edges. */
static int classify_ahead(const trace_in *t, trace_seg *g, uint32_t a1)
{
    while (g->a0 < a1) {
        const uint32_t s0 = g->a0, s1 = a1 - s0 > TRACE_SUB ? s0 + TRACE_SUB : a1;
        t->k->links.edges(t->chf, t->region, g->rarea ? t->chf->area : NULL, t->border_region,
                          t->mask, s0, s1);
        if (g->rarea)
            check_regions(t, g, g->rarea, s0, s1, &g->bad_regions);
        const size_t run = block_offsets(t->mask, t->boff, s0 / 8, ((size_t)s1 + 7) / 8,
                                         g->counted);
        if (run > g->slot_cap && op_array_grow(t->alloc, (void **)&g->slot, &g->slot_cap, run,
                                               sizeof *g->slot, SIZE_MAX) != OP_OK) {
            g->nomem = 1;
            return -1;
        }
        if (run > g->counted) /* NONE is all ones */
            memset(slot_at(g, g->counted), 0xff, (run - g->counted) * sizeof *g->slot);
        g->counted = run;
        g->a0 = s1;
    }
    return 0;
}

/* A boundary edge (s, d) of region R: from the mask where this segment has classified
 * s, else by the edge-classification rule (a mutual link to region R is no boundary). */
static inline int is_boundary(const trace_in *t, const trace_seg *g, uint32_t s, int d,
                              uint32_t R)
{
    if (s >= g->s0 && s < g->a0)
        return t->mask[s] >> d & 1;
    const op_chf *chf = t->chf;
    return !(chf->mutual[s] >> d & 1) || t->region[op_chf_link(chf, d, s)] != R;
}

/* One boundary edge (s, d), local id e, of span s of region R in cell (x, z): its vertex,
 * its successor, and its place in the fragments. */
static int trace_edge(const trace_in *t, trace_seg *g, uint8_t segi, uint32_t s, int d,
                      uint32_t e, uint32_t R, int32_t x, int32_t z)
{
    static const int cx[4] = {0, 1, 1, 0}, cz[4] = {1, 1, 0, 0};
    const op_chf *chf = t->chf;
    const uint32_t *region = t->region;
    const int de = (d + 1) & 3, d3 = (d + 3) & 3;
    const uint8_t mu = chf->mutual[s];
    /* Vertex Y (regions-contours §6, supplement §9.1): the highest floor among s and the
     * spans around the start corner (shared with directions d and d+1), the diagonal
     * reached either way. A missing link stands for s itself, which changes nothing. */
    /* (links read whatever the mutual bits say: selects, not branches) */
    const uint32_t la = op_chf_link(chf, d, s), lb = op_chf_link(chf, de, s);
    const uint32_t a = (mu >> d & 1) ? la : s;
    const uint32_t b = (mu >> de & 1) ? lb : s;
    const uint32_t lca = op_chf_link(chf, de, a), lcb = op_chf_link(chf, d, b);
    const uint32_t ca = (chf->mutual[a] >> de & 1) ? lca : a;
    const uint32_t cb = (chf->mutual[b] >> d & 1) ? lcb : b;
    uint32_t y = chf->y[s];
    y = chf->y[a] > y ? chf->y[a] : y;
    y = chf->y[b] > y ? chf->y[b] : y;
    y = chf->y[ca] > y ? chf->y[ca] : y;
    y = chf->y[cb] > y ? chf->y[cb] : y;
    op_contour_vert v;
    v.x = x + cx[d];
    v.z = z + cz[d];
    v.y = (int32_t)y;
    /* Neighbour value (§6 Edges, supplement §9.6): the mutual neighbour's region, else
     * TileBorder off the grid, else 0. */
    if (mu >> d & 1) {
        v.neighbour = region[a];
    } else {
        const int32_t at = d == 0 ? x : d == 1 ? (int32_t)chf->depth - 1 - z
                                      : d == 2 ? (int32_t)chf->width - 1 - x : z;
        v.neighbour = at == 0 ? OP_TILE_BORDER : 0;
    }

    /* §6: after the vertex the walk turns to (s, d+3) and steps to the neighbour while
     * the edge it faces is not a boundary edge. */
    uint32_t s2 = s;
    int d2 = d3;
    if (!(t->mask[s] >> d3 & 1)) {
        s2 = op_chf_link(chf, d3, s);
        d2 = d;
        uint64_t moves = 1;
        while (!is_boundary(t, g, s2, d2, R)) {
            if (++moves > t->guard)
                return seg_fail(g, s, d);
            s2 = op_chf_link(chf, d2, s2);
            d2 = (d2 + 1) & 3;
        }
    }

    /* Fragments. */
    const uint32_t pf = *slot_at(g, e);
    const int inside = s2 >= g->s0 && s2 < g->s1;
    /* (s2 = s included: no branch on which corner it is) */
    const uint32_t q = inside ? edge_id(t->mask, t->boff, s2, d2) : NONE;
    uint32_t f;
    if (pf == NONE) {
        if (inside && q < e) { /* prepend to the fragment q heads */
            f = *slot_at(g, q);
            if (f == NONE || g->frag[f].head_edge != q)
                return seg_fail(g, s, d);
            if (push_front(t, g, &g->frag[f], &v))
                return g->nomem = 1, -1;
            g->frag[f].head_edge = e;
            *slot_at(g, e) = f;
            return 0;
        }
        f = new_frag(t, g, s, d, e, segi);
        if (f == NONE || push_back(t, g, &g->frag[f], &v))
            return g->nomem = 1, -1;
        *slot_at(g, e) = f;
    } else {
        f = pf;
        if (push_back(t, g, &g->frag[f], &v))
            return g->nomem = 1, -1;
        if (inside && q < e) {
            const uint32_t h = *slot_at(g, q);
            if (h == NONE || g->frag[h].head_edge != q || g->frag[f].link != NONE)
                return seg_fail(g, s, d);
            join(g->frag, f, h);
            return 0;
        }
    }
    /* the successor comes later: in this segment, or in another one */
    if (inside) {
        uint32_t *sq = slot_at(g, q);
        if (*sq != NONE)
            return seg_fail(g, s, d); /* two predecessors: not a permutation */
        *sq = f;
        return 0;
    }
    if (g->nout == g->out_cap && op_array_grow(t->alloc, (void **)&g->out, &g->out_cap,
                                               g->nout + 1, sizeof *g->out, SIZE_MAX) != OP_OK)
        return g->nomem = 1, -1;
    g->out[g->nout].frag = f;
    g->out[g->nout].span = s2;
    g->out[g->nout].dir = (uint8_t)d2;
    g->nout++;
    return 0;
}

/* Bit j set when mask byte j of the k <= 64 has a boundary bit. */
static inline uint64_t boundary_bits(const uint8_t *mask, uint32_t k)
{
    uint64_t w = 0;
#if defined(__SSE2__)
    if (k == 64) {
        const __m128i low = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
        for (int j = 0; j < 4; j++) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(mask + 16 * j));
            w |= (uint64_t)(uint32_t)_mm_movemask_epi8(
                     _mm_cmpeq_epi8(_mm_and_si128(v, low), zero))
                 << (16 * j);
        }
        return ~w;
    }
#endif
    for (uint32_t j = 0; j < k; j++)
        w |= (uint64_t)((mask[j] & 0xfu) != 0) << j;
    return w;
}

/* Fetches what the pass first touches a row later, one 64-span word ahead of base: the
 * floors of the spans about a row on (row_spans, the mean spans per row; the vertex Y of
 * §9.1 reads the +z neighbours' floors) and cell_first about a row on from the cell of
 * base (guessed from c, the cell of the last boundary span: cell_of's guesses land there a
 * row later). The classification kernel does not read either. Hints only: nothing depends
 * on them. (A macro: GCC finds a helper function holding only prefetches pure and drops
 * its call as dead.) */
#define PREFETCH_ROW_AHEAD(chf, base, row_spans, c, cells)                                     \
    do {                                                                                       \
        if ((size_t)(base) + (row_spans) + 128 < (chf)->span_count) { /* 64 floors */          \
            __builtin_prefetch((chf)->y + (base) + (row_spans) + 64);                          \
            __builtin_prefetch((chf)->y + (base) + (row_spans) + 96);                          \
        }                                                                                      \
        const uint32_t pr_fc = (chf)->cell_first[(c)];                                         \
        const size_t pr_gc =                                                                   \
            (size_t)(c) + (chf)->width + 64 + ((base) > pr_fc ? (base) - pr_fc : 0);           \
        if (pr_gc + 64 < (cells)) /* about 64 cells: 4 lines */                                \
            for (int pr_k = 0; pr_k < 4; pr_k++)                                               \
                __builtin_prefetch((chf)->cell_first + pr_gc + 16 * pr_k);                     \
    } while (0)

/* Where the classification goes on to when spans below need must be classified: at
 * least TRACE_SUB spans on (the kernel runs in calls of that many while they are in
 * cache), in whole blocks, within the segment. */
static inline uint32_t classify_end(const trace_seg *g, uint32_t need)
{
    uint64_t a1 = ((uint64_t)need + 7) & ~(uint64_t)7;
    if (a1 < (uint64_t)g->a0 + TRACE_SUB)
        a1 = (uint64_t)g->a0 + TRACE_SUB;
    return a1 < g->s1 ? (uint32_t)a1 : g->s1;
}

/* The pass over the segment, 64 spans at a time, classified about a row ahead (the
 * successors lie in the rows next to the edge): a span's cell says how far. */
static void trace_segment(const trace_in *t, trace_seg *g, uint8_t segi)
{
    const op_chf *chf = t->chf;
    const uint32_t W = chf->width, D = chf->depth;
    const size_t cells = (size_t)W * D;
    const uint8_t *mask = t->mask;
    if (g->s0 >= g->s1)
        return;
    uint32_t c = op_chf_span_cell(chf, g->s0), cur = NONE;
    const size_t row_spans = D ? chf->span_count / D : 0;
    int32_t x = 0, z = 0;
    size_t e = 0;
    for (uint32_t base = g->s0; base < g->s1; base += 64) {
        const uint32_t k = g->s1 - base < 64 ? g->s1 - base : 64;
        if (g->a0 < base + k && classify_ahead(t, g, classify_end(g, base + k)))
            return;
        PREFETCH_ROW_AHEAD(chf, base, row_spans, c, cells);
        /* the spans with a boundary edge, 64 at a time: one loop exit per word */
        for (uint64_t w = boundary_bits(mask + base, k); w; w &= w - 1) {
            const uint32_t s = base + (uint32_t)__builtin_ctzll(w);
            unsigned m = mask[s] & 0xfu;
            c = cell_of(chf, c, s);
            __builtin_prefetch(chf->cell_first + c + 256);
            if (c != cur) {
                /* its successors lie in the cells next to its own, at most W + 1 cells
                 * on: classified through the first span of cell c + W + 2 (known from c,
                 * no search; the classification then runs TRACE_SUB spans on) */
                const size_t ce = (size_t)c + W + 2;
                const uint32_t need = ce < cells ? chf->cell_first[ce] : chf->span_count;
                if (g->a0 < need && g->a0 < g->s1 &&
                    classify_ahead(t, g, classify_end(g, need)))
                    return;
                /* a division only when the row changes */
                const uint32_t nx = (uint32_t)x + (c - cur);
                if (cur != NONE && nx < W) {
                    x = (int32_t)nx;
                } else {
                    x = (int32_t)(c % W);
                    z = (int32_t)(c / W);
                }
                cur = c;
            }
            const uint32_t R = t->region[s];
            do {
                const int d = __builtin_ctz(m);
                m &= m - 1;
                if (trace_edge(t, g, segi, s, d, (uint32_t)e, R, x, z))
                    return;
                e++;
            } while (m);
        }
    }
}

/* ---- Driver ----------------------------------------------------------------------------- */

static void free_segs(const op_allocator *a, trace_seg *seg, int ns)
{
    for (int i = 0; seg && i < ns; i++) {
        op_mem_free(a, seg[i].slot);
        op_mem_free(a, seg[i].cpage);
        op_mem_free(a, seg[i].cnext);
        op_mem_free(a, seg[i].frag);
        op_mem_free(a, seg[i].out);
        if (i > 0)
            op_mem_free(a, seg[i].rarea);
    }
    op_mem_free(a, seg);
}

void op__contour_trace_free(op_ctrace *t)
{
    free_segs(&t->alloc, t->seg, t->nseg);
    op_mem_free(&t->alloc, t->verts);
    op_mem_free(&t->alloc, t->loops);
    memset(t, 0, sizeof *t);
}

/* Appends fragment f's vertices in loop order: reverse(front) (when front), back (when
 * back). */
static size_t emit(const trace_seg *g, const tfrag *f, int front, int back,
                   op_contour_vert *out)
{
    size_t n = 0;
    const int narrow = g->narrow;
    const uint32_t br = g->br;
    if (front)
        for (uint32_t c = f->front_top; c != NONE;) {
            const uint8_t *ch = chunk_at(g, c);
            const uint32_t next = *cnext_at(g, c);
            if (next != NONE) /* the next chunk early */
                PREFETCH_CHUNK(g, chunk_at(g, next), 0);
            uint32_t i = c == f->front_top ? f->front_fill : CHUNK;
            if (narrow)
                for (; i-- > 0;) {
                    uint64_t w;
                    memcpy(&w, ch + (size_t)i * 8, 8);
                    out[n++] = vrec_wide(w, br);
                }
            else
                for (; i-- > 0;)
                    memcpy(&out[n++], ch + (size_t)i * sizeof *out, sizeof *out);
            c = next;
        }
    if (back)
        for (uint32_t c = f->back_first; c != NONE;) {
            const uint32_t k = c == f->back_last ? f->back_fill : CHUNK, next = *cnext_at(g, c);
            const uint8_t *ch = chunk_at(g, c);
            if (next != NONE) /* the next chunk early */
                PREFETCH_CHUNK(g, chunk_at(g, next), 0);
            if (narrow)
                for (uint32_t i = 0; i < k; i++) {
                    uint64_t w;
                    memcpy(&w, ch + (size_t)i * 8, 8);
                    out[n + i] = vrec_wide(w, br);
                }
            else
                memcpy(out + n, ch, k * sizeof *out);
            n += k;
            c = next;
        }
    return n;
}

/* Fragments whose chunks the loop copy fetches ahead of the one it copies. */
#define FRAG_AHEAD 4u

/* Fetches fragment f's first chunks (front and back) for reading. */
static inline void frag_prefetch(const op_ctrace *t, const tfrag *f)
{
    const trace_seg *g = &t->seg[f->seg];
    if (f->back_first != NONE)
        PREFETCH_CHUNK(g, chunk_at(g, f->back_first), 0);
    if (f->front_top != NONE)
        PREFETCH_CHUNK(g, chunk_at(g, f->front_top), 0);
}

void op__contour_loop_copy(const op_ctrace *t, uint32_t loop, op_contour_vert *out)
{
    /* the loop's fragments lie in loop order from its first (op__contour_trace puts them
     * there): the records are read in address order, and the chunks of the fragment
     * FRAG_AHEAD on are fetched while this one is copied (no chain to chase) */
    const tfrag *fr = t->frags;
    const uint32_t f0 = t->loops[loop].frag, nf = t->loops[loop].nfrag;
    for (uint32_t k = 1; k < nf && k <= FRAG_AHEAD; k++)
        frag_prefetch(t, &fr[f0 + k]);
    size_t n = emit(&t->seg[fr[f0].seg], &fr[f0], 0, 1, out);
    for (uint32_t k = 1; k < nf; k++) {
        if (k + FRAG_AHEAD < nf)
            frag_prefetch(t, &fr[f0 + k + FRAG_AHEAD]);
        n += emit(&t->seg[fr[f0 + k].seg], &fr[f0 + k], 1, 1, out + n);
    }
    emit(&t->seg[fr[f0].seg], &fr[f0], 1, 0, out + n);
}

op_status op__contour_trace(op_ctx *ctx, op_ctx *const *workers, int nworkers,
                            const op_chf *chf, const uint32_t *region, uint32_t border_region,
                            uint32_t region_count, uint16_t *rarea, int want_verts,
                            op_ctrace *out)
{
    memset(out, 0, sizeof *out);
    out->alloc = ctx->alloc;
    const uint32_t n = chf->span_count;
    const size_t nb = ((size_t)n + 7) / 8;
    /* Segments: one per context, none shorter than a few sub-chunks. */
    int ns = 1 + (nworkers > 0 ? nworkers : 0);
    if ((size_t)ns > nb / (4 * TRACE_SUB / 8) + 1)
        ns = (int)(nb / (4 * TRACE_SUB / 8) + 1);
    if (ns > 255)
        ns = 255;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint8_t *mask = op_scratch(ctx, nb * 8 + 8, 1);
    uint32_t *boff = op_scratch(ctx, nb + 1, sizeof *boff);
    trace_seg *seg = op_mem_calloc(&ctx->alloc, (size_t)ns, sizeof *seg);
    if (!mask || !boff || !seg) {
        op_mem_free(&ctx->alloc, seg);
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the contour edge mask");
    }
    out->seg = seg;
    out->nseg = ns;
    memset(mask + n, 0, nb * 8 + 8 - n);
    const size_t rslots = (size_t)region_count + 1;
    /* narrow records need the region check: it bounds every neighbour value */
    const uint32_t lim = op_contour_narrow_limit;
    const int narrow = rarea && chf->width < lim && chf->depth < lim && region_count < lim;
    int nomem = 0;
    for (int i = 0; i < ns; i++) {
        /* segment i: blocks [nb*i/ns, nb*(i+1)/ns) */
        seg[i].s0 = (uint32_t)(nb * (size_t)i / (size_t)ns * 8);
        const size_t e1 = nb * (size_t)(i + 1) / (size_t)ns * 8;
        seg[i].s1 = e1 < n ? (uint32_t)e1 : n;
        seg[i].a0 = seg[i].s0;
        seg[i].ctx = i == 0 ? ctx : workers[i - 1];
        seg[i].narrow = narrow;
        seg[i].br = border_region;
        if (rarea) {
            seg[i].rarea = i == 0 ? rarea : op_mem_array(&ctx->alloc, rslots, sizeof *rarea);
            if (!seg[i].rarea)
                nomem = 1;
            else
                memset(seg[i].rarea, 0xff, rslots * sizeof *rarea);
        }
    }
    if (nomem) {
        op__contour_trace_free(out);
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the contour region check");
    }

    trace_in tin = {chf, region, border_region, region_count, ctx->k, &ctx->alloc,
                    mask, boff, 4ull * n + 8};
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(ns)
#endif
    for (int i = 0; i < ns; i++)
        trace_segment(&tin, &seg[i], (uint8_t)i);

    /* Failures in segment order; the region check first, as the caller checks before
     * tracing. */
    op_status st = OP_OK;
    size_t edges = 0, frags = 0;
    int bad = 0;
    for (int i = 0; i < ns; i++) {
        seg[i].ebase = edges;
        seg[i].fbase = frags;
        edges += seg[i].counted;
        frags += seg[i].nfrag;
        bad |= seg[i].bad_regions;
        if (seg[i].nomem && st == OP_OK)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for contour edges");
        else if (seg[i].failed && st == OP_OK)
            st = op_fail(ctx, OP_INTERNAL, "contour trace from span %u dir %d does not close",
                         seg[i].fail_s, seg[i].fail_d);
    }
    /* One area per region across segments (the first segment's table is rarea). */
    for (int i = 1; rarea && i < ns && !bad; i++)
        for (size_t r = 1; r < rslots; r++) {
            const uint16_t a = seg[i].rarea[r];
            if (a == 0xffff)
                continue;
            if (rarea[r] == 0xffff)
                rarea[r] = a;
            else if (rarea[r] != a)
                bad = 1;
        }
    if (bad)
        st = OP_OK; /* the caller reports the first offending span */
    else if (st == OP_OK && (edges >= NONE || frags >= NONE))
        st = op_fail(ctx, OP_UNSUPPORTED, "%llu contour edges exceed 2^32 - 2",
                     (unsigned long long)edges);
    tfrag *fr = NULL;
    uint8_t *seen = NULL;
    uint32_t *lk = NULL;
    if (st == OP_OK && !bad) {
        fr = op_scratch(ctx, frags ? frags : 1, sizeof *fr);
        seen = op_scratch(ctx, frags ? frags : 1, 1);
        /* the first segment's edge slots once the joins below are done (one segment
         * has an edge slot per fragment at least), else its own array, freed below */
        lk = seg[0].slot && seg[0].slot_cap >= frags ? seg[0].slot
                                      : op_mem_array(&ctx->alloc, frags ? frags : 1, sizeof *lk);
        if (!fr || !seen || !lk ||
            op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap, 64,
                          sizeof *out->loops, UINT32_MAX) != OP_OK)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %llu contour edges",
                         (unsigned long long)edges);
    }
    if (st != OP_OK || bad) {
        if (lk != seg[0].slot)
            op_mem_free(&ctx->alloc, lk);
        op__contour_trace_free(out);
        out->regions_bad = bad;
        op_arena_release(&ctx->arena, mark);
        return st;
    }

    /* Fragments of all segments in one array gf (global indices); the links between
     * segments: a successor in another segment heads a fragment there. The loop list
     * below copies them in loop order to fr: one segment's array is gf itself (freed
     * after the copy); several are copied into fr first (gf) and freed, and the loop order
     * goes to a new array of their size (kept with the segments), so that no more
     * fragment records are held at once than before. */
    tfrag *gf = seg[0].frag;
    if (ns > 1) {
        gf = fr;
        for (int i = 0; i < ns; i++) {
            for (size_t k = 0; k < seg[i].nfrag; k++) {
                tfrag f = seg[i].frag[k];
                f.link = f.link == NONE ? NONE : f.link + (uint32_t)seg[i].fbase;
                f.other_end += (uint32_t)seg[i].fbase;
                f.head_edge += (uint32_t)seg[i].ebase;
                gf[seg[i].fbase + k] = f;
            }
            op_mem_free(&ctx->alloc, seg[i].frag);
            seg[i].frag = NULL;
        }
        fr = op_mem_array(&ctx->alloc, frags ? frags : 1, sizeof *fr);
        if (!fr)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu contour fragments", frags);
        seg[0].frag = fr; /* freed with the segments */
        for (int i = 0; i < ns; i++)
            for (size_t b = seg[i].s0 / 8; b * 8 < seg[i].s1; b++)
                boff[b] += (uint32_t)seg[i].ebase;
    }
    out->frags = fr;
    boff[nb] = (uint32_t)edges;
    for (int i = 0; i < ns && st == OP_OK; i++)
        for (size_t k = 0; k < seg[i].nout; k++) {
            const tout *o = &seg[i].out[k];
            int j = 0;
            while (j + 1 < ns && seg[j + 1].s0 <= o->span)
                j++;
            const uint32_t tl = o->frag + (uint32_t)seg[i].fbase;
            uint32_t hd = NONE, q = NONE;
            if (o->span < n && mask[o->span] >> o->dir & 1) {
                q = edge_id(mask, boff, o->span, o->dir);
                const size_t ql = q - seg[j].ebase;
                const uint32_t hl = ql < seg[j].counted ? *slot_at(&seg[j], ql) : NONE;
                hd = hl == NONE ? NONE : hl + (uint32_t)seg[j].fbase;
            }
            if (hd == NONE || gf[hd].head_edge != q || gf[tl].link != NONE) {
                st = op_fail(ctx, OP_INTERNAL,
                             "contour trace from span %u dir %d does not close",
                             gf[tl].founder, gf[tl].founder_dir);
                break;
            }
            join(gf, tl, hd);
        }

    /* Loops in order of their earliest fragment, from its founder; each loop's fragments
     * copied to fr in loop order from there (the loop copy reads them in address order).
     * The chase follows the links alone, copied to lk (after the joins above, which read
     * the edge slots) in one sequential pass: lk stays in cache (4 bytes a fragment),
     * where the chase through the 44-byte records missed at every step; the records are
     * then copied in loop order by independent loads (fr's link field holds the
     * fragment's index until its record is copied there). */
    for (size_t f = 0; f < frags && st == OP_OK; f++)
        lk[f] = gf[f].link;
    memset(seen, 0, frags ? frags : 1);
    size_t nv = 0;
    uint32_t placed = 0;
    for (size_t f0 = 0; f0 < frags && st == OP_OK; f0++) {
        if (seen[f0])
            continue;
        if (op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap,
                          (size_t)out->loop_count + 1, sizeof *out->loops,
                          UINT32_MAX) != OP_OK) {
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for loops");
            break;
        }
        op_cloop *L = &out->loops[out->loop_count++];
        L->region = region[gf[f0].founder];
        L->first = nv;
        L->frag = placed;
        L->area2 = 0;
        seen[f0] = 1;
        fr[placed++].link = (uint32_t)f0;
        for (uint32_t f = lk[f0]; f != f0; f = lk[f]) {
            if (f == NONE || seen[f]) {
                st = op_fail(ctx, OP_INTERNAL, "contour trace from span %u dir %d does not close",
                             gf[f0].founder, gf[f0].founder_dir);
                break;
            }
            seen[f] = 1;
            fr[placed++].link = f;
        }
        size_t cnt = 0;
        for (uint32_t k = L->frag; k < placed; k++) {
            fr[k] = gf[fr[k].link];
            cnt += fr[k].count;
        }
        L->nfrag = placed - L->frag;
        L->count = (uint32_t)cnt;
        nv += cnt;
    }
    if (lk != seg[0].slot)
        op_mem_free(&ctx->alloc, lk);
    if (st == OP_OK && nv != edges)
        st = op_fail(ctx, OP_INTERNAL, "contour trace: %zu of %zu edges in loops", nv,
                     (size_t)edges);
    if (ns == 1) { /* the fragments are in fr now */
        op_mem_free(&ctx->alloc, seg[0].frag);
        seg[0].frag = NULL;
    }
    if (st == OP_OK && want_verts) {
        out->verts = op_mem_array(&out->alloc, nv ? nv : 1, sizeof *out->verts);
        if (!out->verts)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu contour vertices", nv);
        for (uint32_t i = 0; st == OP_OK && i < out->loop_count; i++) {
            op_cloop *L = &out->loops[i];
            op__contour_loop_copy(out, i, out->verts + L->first);
            L->area2 = op__loop_area2(out->verts + L->first, L->count);
        }
        out->vert_count = nv;
    }
    for (int i = 0; i < ns; i++) { /* no longer needed */
        op_mem_free(&ctx->alloc, seg[i].out);
        seg[i].out = NULL;
        op_mem_free(&ctx->alloc, seg[i].slot);
        seg[i].slot = NULL;
    }
    if (st != OP_OK || want_verts) {
        /* the fragments are released (with verts, the loops no longer need them) */
        op_cloop *loops = out->loops;
        op_contour_vert *verts = out->verts;
        out->loops = NULL;
        out->verts = NULL;
        const uint32_t lc = out->loop_count;
        const size_t lcap = out->loop_cap;
        op__contour_trace_free(out);
        op_arena_release(&ctx->arena, mark);
        if (st != OP_OK) {
            op_mem_free(&ctx->alloc, loops);
            op_mem_free(&ctx->alloc, verts);
            return st;
        }
        out->alloc = ctx->alloc;
        out->loops = loops;
        out->loop_count = lc;
        out->loop_cap = lcap;
        out->verts = verts;
        out->vert_count = nv;
        return OP_OK;
    }
    out->vert_count = nv;
    return OP_OK;
}
