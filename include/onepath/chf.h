/* onepath — the compact heightfield (supplement §1.5), structure of arrays.
 *
 * Cells are indexed c = x + z*width; each cell lists its spans bottom-up at
 * [cell_first[c], cell_first[c + 1]); span indices run over cells in that order, and
 * cell_first is their prefix sum with width*depth + 1 entries (an empty cell holds the
 * index of the next span; cell_first[width*depth] = span_count). A cell's span count is
 * op_chf_cell_count (0.x: there is no cell_count array any more; it cost 4 bytes per
 * cell in every stage, docs/decisions/memory.md). Spans are 32-bit indices, with no
 * limit on spans per column but memory.
 *
 * Links are global span indices (OP_NO_LINK when none) and may be one-way; mutual[s]
 * has bit d set when link[d][s] = t and link[(d+2)&3][t] = s. Every stage after the
 * spans stage reads only mutual links (regions-contours, introduction). They are stored
 * as 16-bit relative indices (0.x; docs/decisions/memory.md rounds 8 and 11): dlink[d][s]
 * is t - s when that lies in [OP_DLINK_MIN, OP_DLINK_MAX], OP_DLINK_NONE for no link, or
 * OP_DLINK_FAR when t is in the direction's far table (normally empty: a z-link is about
 * width × spans-per-cell away). Read them through op_chf_link / op_chf_links_at /
 * op_chf_links_get, edit them through op_chf_set_link. */
#ifndef ONEPATH_CHF_H
#define ONEPATH_CHF_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defined since op_chf lost cell_count (cell_first holds width*depth + 1 entries): code
 * built against either layout (bench/compare.py's baselines) can tell them apart. */
#define OP_CHF_CELL_FIRST_END 1

#define OP_NO_LINK 0xffffffffu
#define OP_MAX_SPANS 0xfffffffeu /* span indices are u32, OP_NO_LINK is reserved */

/* Region ids are u32: 0 = no region, 1..region_count. The tile band's reserved id
 * (supplement §2), which no partition produces and no numbering counts. */
#define OP_BORDER_REGION 0x80000000u
/* Largest ordinary region id. */
#define OP_MAX_REGION_ID 0x7fffffffu
/* Contour neighbour value for an edge leaving the grid (Contours.TileBorder, -1). */
#define OP_TILE_BORDER 0xffffffffu

/* Directions: 0 = -x, 1 = +z, 2 = +x, 3 = -z. */
static inline int op_dir_dx(int d) { return d == 0 ? -1 : (d == 2 ? 1 : 0); }
static inline int op_dir_dz(int d) { return d == 1 ? 1 : (d == 3 ? -1 : 0); }

#define OP_DLINK_NONE (-32768) /* no link: OP_NO_LINK when decoded */
#define OP_DLINK_FAR (-32767)  /* the target is in the direction's far table */
#define OP_DLINK_MIN (-32766)  /* the deltas stored in place: [OP_DLINK_MIN, OP_DLINK_MAX] */
#define OP_DLINK_MAX 32767

/* One direction's far links: span[i] ascending, target[i] its link (count used, cap
 * allocated, with the field's allocator). */
typedef struct op_link_far {
    uint32_t count, cap;
    uint32_t *span, *target;
} op_link_far;

typedef struct op_chf {
    uint32_t width, depth, span_count;
    float bmin[3], bmax[3];
    float cs, ch;
    int32_t walkable_height, walkable_climb, border_size;
    uint32_t *cell_first; /* width*depth + 1: prefix sum, the last entry span_count */
    uint16_t *y;          /* floor */
    uint8_t *h;           /* clearance, min(next.smin - y, 255): never above 255, so u8
                           * (0.x: it was u16; files and digests keep 16 bits) */
    uint8_t *area;        /* 0 = not walkable, 63 = walkable, others from volumes */
    int16_t *dlink[4];    /* per direction: t - s, OP_DLINK_NONE or OP_DLINK_FAR (0.x: it
                           * was u32 link[4], the span indices themselves) */
    op_link_far far[4];   /* per direction: the OP_DLINK_FAR links */
    uint8_t *mutual;      /* per span: bit d = link d is mutual */
    op_allocator alloc;   /* the arrays' allocator (ctx->alloc when made) */
    /* The block decoder of op_chf_links_get (the kernel of the context the field was
     * made with; NULL: the scalar one). */
    uint32_t (*links_decode)(const int16_t *dl, uint32_t s0, uint32_t n, uint32_t *out);
} op_chf;

/* The target of far link s (s has one in far: binary search). */
uint32_t op_link_far_find(const op_link_far *far, uint32_t s);
/* The first entry of far whose span is >= s (far->count if none): where s's entry is or goes. */
uint32_t op_link_far_lower_bound(const op_link_far *far, uint32_t s);

/* Link of span s (s < span_count) in direction d: the neighbour span index or
 * OP_NO_LINK. Every reader goes through this (or op_chf_links_get for a block), so the
 * links' storage can change without touching them. */
static inline uint32_t op_chf_link(const op_chf *chf, int d, uint32_t s)
{
    const int16_t v = chf->dlink[d][s];
    if (v >= OP_DLINK_MIN)
        return s + (uint32_t)(int32_t)v;
    return v == OP_DLINK_NONE ? OP_NO_LINK : op_link_far_find(&chf->far[d], s);
}

void op_chf_links_get(const op_chf *chf, int d, uint32_t s0, uint32_t n, uint32_t *out);

/* The links of direction d of spans [s0, s0 + n) as an array of n span indices (or
 * OP_NO_LINK): for passes that read links a block at a time in span order. buf holds n
 * entries; the result is buf, filled by op_chf_links_get (it was the field's own array
 * in the u32 layout, so readers are written for either; memory.md round 8). */
static inline const uint32_t *op_chf_links_at(const op_chf *chf, int d, uint32_t s0,
                                              uint32_t n, uint32_t *buf)
{
    op_chf_links_get(chf, d, s0, n, buf);
    return buf;
}

/* Spans of cell c (c < width*depth): the prefix sum's step. */
static inline uint32_t op_chf_cell_count(const op_chf *chf, uint32_t c)
{
    return chf->cell_first[c + 1] - chf->cell_first[c];
}

/* Allocates every array for the given sizes (cells zeroed but the sentinel
 * cell_first[width*depth] = span_count, links OP_NO_LINK) with ctx's allocator, which chf
 * keeps for op_chf_free. The caller writes cell_first[0 .. width*depth). */
op_status op_chf_alloc(op_ctx *ctx, op_chf *chf, uint32_t width, uint32_t depth,
                       uint32_t span_count);
/* Frees with the allocator the field was made with; a zeroed op_chf frees harmlessly. */
void op_chf_free(op_chf *chf);
/* dst is allocated with ctx's allocator. */
op_status op_chf_copy(op_ctx *ctx, op_chf *dst, const op_chf *src);

/* (op_chf_links_get, declared above:) the links of direction d of spans [s0, s0 + n)
 * into out[0 .. n): out[i] = op_chf_link(chf, d, s0 + i). For passes that read a block
 * of links in span order. */

/* Sets the link of span s in direction d to t (a span index, or OP_NO_LINK; any other
 * value is kept as it is, so checkers' tests can write bad links). For tools and tests
 * that edit a field; the stages write links as they build them. A far link is inserted
 * into (or removed from) the far table: in span order that is an append, elsewhere a
 * move of the entries after it. mutual[] is not touched (op_chf_build_mutual). */
op_status op_chf_set_link(op_ctx *ctx, op_chf *chf, int d, uint32_t s, uint32_t t);

/* Link rule (supplement §1.5): for every span and direction, the lowest span t of the
 * neighbour cell with min(s.y+s.h, t.y+t.h) - max(s.y, t.y) >= walkable_height and
 * |t.y - s.y| <= walkable_climb. Then derives mutual[]. Uses chf->walkable_*. */
op_status op_chf_build_links(op_ctx *ctx, op_chf *chf);

/* Recomputes mutual[] from link[] with the context's kernel. */
void op_chf_build_mutual(op_ctx *ctx, op_chf *chf);

/* The cell of span s (binary search over cell_first; for tools and tests). */
uint32_t op_chf_span_cell(const op_chf *chf, uint32_t s);

/* Number of spans with area != 0. */
uint32_t op_chf_walkable_count(const op_chf *chf);

#ifdef __cplusplus
}
#endif
#endif
