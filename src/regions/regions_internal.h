/* Helpers shared by the region stages (regions-contours §1–§5, supplement §2). */
#ifndef ONEPATH_REGIONS_INTERNAL_H
#define ONEPATH_REGIONS_INTERNAL_H

#include "onepath/regions.h"

/* Supplement §2, the tile band: spans of cells with local x or z < border_size or
 * >= size - border_size (band.c). When band is not NULL, band[s] = 1 for band spans and
 * 0 for the others; when region is not NULL, region[s] = OP_BORDER_REGION for walkable
 * band spans and 0 for every other span (band spans are set before partitioning).
 * Returns the number of walkable band spans. */
uint32_t op_regions_band(const op_chf *chf, uint8_t *band, uint32_t *region);

/* The region half of op_regions_band: the start of every partition. */
static inline uint32_t op_regions_init_band(const op_chf *chf, uint32_t *region)
{
    return op_regions_band(chf, NULL, region);
}

/* The largest of v[0..n) (0 when n is 0): op_build_distance_field's max_dist. */
uint32_t op_regions_u32_max(const uint32_t *v, uint32_t n);

/* Common argument checks of a stage: ctx, chf, output pointers. */
op_status op_regions_check_args(op_ctx *ctx, const op_chf *chf, const void *out1,
                                const void *out2, const char *stage);

/* §5.1 islands then §5.3 numbering, and optionally §5.2 merging in between. */
op_status op_regions_filter_impl(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count);

/* The same, with the region graph's link list started in [mem, mem + bytes): scratch of
 * the caller's that is dead by now (NULL: none). */
op_status op_regions_filter_lent(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                 uint32_t merge_area, int merge, uint32_t *region,
                                 uint32_t *region_count, void *mem, size_t bytes);

/* §3 by following every sweep's chain of +x links from its start: right for any link
 * graph; op_build_regions_monotone_raw's row pass falls back to it when a predecessor
 * is not in the cell before (tests compare both). */
op_status op_regions_monotone_raw_chains(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                         uint32_t *region_count);

/* Who frees a distance field that its caller does not keep (the bake without
 * keep_distance): the partition calls fn(arg) once it reads dist no more, so its own
 * largest scratch is not taken beside it (docs/decisions/memory.md, round 7). fn is
 * NULL once called, or when there is nothing to call. */
typedef struct op_dist_release {
    void (*fn)(void *arg);
    void *arg;
} op_dist_release;

static inline void op_dist_release_now(op_dist_release *rel)
{
    if (rel && rel->fn) {
        void (*const fn)(void *) = rel->fn;
        rel->fn = NULL;
        fn(rel->arg);
    }
}

/* op_build_regions_watershed, calling rel (may be NULL) after the last read of dist:
 * once the spans are ordered by distance, before the neighbour entries are taken. */
op_status op_build_regions_watershed_rel(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                         const op_region_settings *s, op_dist_release *rel,
                                         uint32_t *region, uint32_t *region_count);

/* op_build_regions, calling rel (may be NULL) as soon as the partition reads dist no
 * more: the watershed as above; monotone and layers, which do not read it, before they
 * start. On OP_OK rel has been called; after a failure it may not have been, and dist
 * is then still the caller's to free. */
op_status op_build_regions_rel(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                               const uint32_t *dist, op_dist_release *rel, uint32_t *region,
                               uint32_t *region_count);

/* The watershed packs its per-position neighbours in 24 bits each while the set it
 * partitions has fewer spans than this, else in 32 (watershed.c). Tests set it to 0 to
 * run the wide entries on small fields; nothing else changes it. */
extern uint32_t op_watershed_narrow_limit;

#endif
