/* onepath — the whole chain in one call: spans → distance → regions → contours, with
 * per-stage timings and the canonical digests of supplement §5. Used by the tool, the
 * verifier, the golden tests and the benchmarks, so they all bake the same way. */
#ifndef ONEPATH_BAKE_H
#define ONEPATH_BAKE_H

#include "onepath/config.h"
#include "onepath/contours.h"
#include "onepath/geometry.h"
#include "onepath/regions.h"
#include "onepath/spans.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum op_stage {
    OP_STAGE_SPANS = 1,    /* compact heightfield */
    OP_STAGE_REGIONS = 2,  /* + distance field and regions */
    OP_STAGE_CONTOURS = 3  /* + contours (default) */
} op_stage;

const char *op_stage_name(op_stage s);
op_status op_stage_parse(const char *name, op_stage *out);

typedef struct op_bake_settings {
    op_config config;
    op_region_settings regions;
    op_contour_settings contours;
    op_stage until;
    /* Nonzero: the result keeps the distance field (op_bake_result.dist). 0 (the
     * default): the bake frees it as soon as the partition has read it, and result.dist
     * is NULL; max_dist and digest_distance are set either way. Contours and regions do
     * not need it after the partition, and kept it is 4 bytes per span beside the
     * watershed's largest scratch, the bake's peak (docs/decisions/memory.md, round 7).
     * Only op_bake_scene / op_bake_chf read it (a tiled bake: op_tiled_options
     * keep_fields). */
    int keep_distance;
} op_bake_settings;

void op_bake_settings_defaults(op_bake_settings *s);
op_status op_bake_settings_validate(op_ctx *ctx, const op_bake_settings *s);

typedef struct op_bake_result {
    op_chf chf;
    int have_spans_stats;  /* 0 when the field came from a file */
    op_spans_stats spans;
    uint32_t *dist;        /* span_count entries, when until >= REGIONS and keep_distance;
                              else NULL (freed during the partition) */
    uint32_t max_dist;     /* when until >= REGIONS, kept or not */
    uint32_t *region;      /* span_count entries, when until >= REGIONS */
    uint32_t region_count;
    op_contour_set contours; /* when until >= CONTOURS */
    uint32_t contour_verts;  /* total simplified vertices */
    op_stage reached;
    double ms_spans, ms_distance, ms_regions, ms_contours;
    /* Digests (supplement §5); 0 for stages not reached. */
    uint64_t digest_spans;     /* build3d/spans: op_digest_chf */
    uint64_t digest_distance;  /* op_digest_distance (OPDST1 bytes), kept or not: taken
                                  as the field is made */
    uint64_t digest_regions;   /* build3d/regions-<partition>: op_digest_regions (OPREG1) */
    uint64_t digest_contours;  /* build3d/contours: op_digest_contours */
    op_allocator alloc;        /* dist's and region's allocator (chf and contours keep
                                  their own): ctx->alloc of the bake */
} op_bake_result;

/* Runs the spans stage on scene, then the rest. result is zeroed first and owns
 * everything it holds (op_bake_result_free), also after a failure. */
op_status op_bake_scene(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        op_bake_result *result);

/* Starts from an existing compact heightfield (e.g. OPCHF1): chf is moved into the result
 * (the caller's struct is zeroed). */
op_status op_bake_chf(op_ctx *ctx, op_chf *chf, const op_bake_settings *s,
                      op_bake_result *result);

/* Frees everything with the allocators it was made with; a zeroed result frees
 * harmlessly. */
void op_bake_result_free(op_bake_result *r);

#ifdef __cplusplus
}
#endif
#endif
