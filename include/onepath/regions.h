/* onepath — distance field and region partitions (regions-contours §1–§5, §7;
 * supplement §2, §3, §9 items 1–5).
 *
 * Region ids are u32: 0 = no region, 1..region_count, and OP_BORDER_REGION for walkable
 * spans of a tile's border band (supplement §2; only when chf->border_size > 0). Every
 * output array has chf->span_count entries and is owned by the caller; scratch comes
 * from ctx's arena and is released before return. Only mutual links are read. */
#ifndef ONEPATH_REGIONS_H
#define ONEPATH_REGIONS_H

#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum op_partition {
    OP_PARTITION_WATERSHED,
    OP_PARTITION_MONOTONE,
    OP_PARTITION_LAYERS
} op_partition;

/* "watershed", "monotone", "layers"; "?" for an out-of-range value. */
const char *op_partition_name(op_partition p);
/* Parses the names above (like op_isa_parse); OP_INVALID_ARGUMENT for anything else. */
op_status op_partition_parse(const char *name, op_partition *out);

/* RegionSettings (regions-contours §7). */
typedef struct op_region_settings {
    op_partition partition;
    uint32_t min_region_area;   /* [spans] islands below this are removed (§5.1) */
    uint32_t merge_region_area; /* [spans] regions below this merge (§5.2) */
} op_region_settings;

/* Largest accepted min/merge area: larger values are taken for a negative int that
 * wrapped (docs/decisions/regions.md). */
#define OP_MAX_REGION_AREA 0x7fffffffu

/* watershed, 64, 400 (§7). Like op_config_defaults / op_contour_settings_defaults. */
void op_region_settings_defaults(op_region_settings *s);
/* OP_INVALID_ARGUMENT with a message for a NULL pointer, an unknown partition, or an
 * area above OP_MAX_REGION_AREA. */
op_status op_region_settings_validate(op_ctx *ctx, const op_region_settings *s);

/* §1: exact distance to the nearest boundary span (supplement §1.6), no cap, from
 * chf->area; area-0 spans get 0. max_dist (may be NULL) receives the largest value. */
op_status op_build_distance_field(op_ctx *ctx, const op_chf *chf, uint32_t *dist,
                                  uint32_t *max_dist);

/* §2 then §5. dist from op_build_distance_field; region[] (the stage's scratch until it
 * returns) must not overlap it. */
op_status op_build_regions_watershed(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                     const op_region_settings *s, uint32_t *region,
                                     uint32_t *region_count);
/* §2 alone: ids 1..region_count in creation order (not §5.3 numbering). */
op_status op_build_regions_watershed_raw(op_ctx *ctx, const op_chf *chf, const uint32_t *dist,
                                         uint32_t *region, uint32_t *region_count);

/* §3 then §5. */
op_status op_build_regions_monotone(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                    uint32_t *region, uint32_t *region_count);
/* §3 alone: ids 1..region_count in sweep order (which is also first-span order). */
op_status op_build_regions_monotone_raw(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                        uint32_t *region_count);

/* §4 then §5.1 islands and §5.3 numbering (supplement §9.4). Takes the shortcut when
 * no column holds two walkable spans and no component is below min_region_area. */
op_status op_build_regions_layers(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                  uint32_t *region, uint32_t *region_count);
/* Same, choosing the path: allow_shortcut = 0 always runs sweep and merge (tests compare
 * both paths). */
op_status op_build_regions_layers_ex(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                     int allow_shortcut, uint32_t *region,
                                     uint32_t *region_count);

/* §5 on raw ids: in: region ids in 1..*region_count (gaps allowed), 0 or
 * OP_BORDER_REGION; out: numbered 1..*region_count. merge = 0 skips §5.2 (layers). */
op_status op_filter_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                            int merge, uint32_t *region, uint32_t *region_count);

/* Supplement §3: greedy colouring of a layer partition (region ids 1..region_count, e.g.
 * op_build_regions_layers with min_region_area 0): regions in increasing id take the
 * smallest layer index (from 0) not used by an earlier overlapping region.
 * layer_of_region has region_count + 1 entries ([0] = 0). */
op_status op_assign_layers(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                           uint32_t region_count, uint32_t *layer_of_region,
                           uint32_t *layer_count);
/* Convenience: the §4 layer partition with every island kept, coloured as above, as a
 * per-span layer index (0 for area-0 and band spans). */
op_status op_build_span_layers(op_ctx *ctx, const op_chf *chf, uint32_t *span_layer,
                               uint32_t *layer_count);
/* §4 "Layer-first partition": components of linked + same layer + same area (ids in
 * first-span order), then §5.1 islands and §5.3 numbering. */
op_status op_build_regions_layer_first(op_ctx *ctx, const op_chf *chf, const uint32_t *span_layer,
                                       const op_region_settings *s, uint32_t *region,
                                       uint32_t *region_count);

/* Dispatcher on s->partition (validated). dist may be NULL: watershed then computes it. */
op_status op_build_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                           const uint32_t *dist, uint32_t *region, uint32_t *region_count);

/* Invariant checker (what §2–§5 promise, checkable from the output; the rules are listed
 * in regions_check.c and docs/decisions/regions.md). */
typedef struct op_region_report {
    uint32_t failures;     /* number of broken rules found (each rule reported once) */
    uint32_t first_span;   /* span of the first failure, or OP_NO_LINK */
    uint32_t first_region; /* region of the first failure, or 0 */
    char first[512];       /* description of the first failures */
} op_region_report;

/* filtered = 1 when §5 ran with s (islands, merging unless layers, numbering).
 * Layer-first output (op_build_regions_layer_first) is not a §4 partition (adjacent
 * same-area layers need not overlap after an area change): check it with
 * merge_region_area 0 and a non-layers partition, which keeps every other rule.
 * Returns OP_OK when every rule holds, OP_INTERNAL (message in ctx) otherwise;
 * OP_INVALID_ARGUMENT / OP_NO_MEMORY as usual. rep may be NULL. */
op_status op_check_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                           const uint32_t *region, uint32_t region_count, int filtered,
                           op_region_report *rep);

#ifdef __cplusplus
}
#endif
#endif
