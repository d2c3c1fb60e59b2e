/* One side of the in-process comparison (bench/compare/ab.py, issue 12): the same
 * source, ab_side.c, is compiled once against the baseline tree's headers (its global
 * symbols then renamed base_*, with the baseline library's) and once against this tree's.
 * Only plain C types cross between the sides, so neither depends on the other's structs. */
#ifndef OP_AB_SIDE_H
#define OP_AB_SIDE_H

#include <stddef.h>
#include <stdint.h>

/* A compact field as plain arrays (supplement §1.5). area_pre: the areas before erosion
 * (the erode case's input); area: the spans stage's areas (every other case's). */
typedef struct ab_field {
    uint32_t width, depth, span_count;
    float bmin[3], bmax[3], cs, ch;
    int32_t walkable_height, walkable_climb, border_size, walkable_radius;
    const uint32_t *cell_first, *cell_count;
    const uint16_t *y, *h;
    const uint8_t *area_pre, *area, *mutual;
    const uint32_t *link[4];
} ab_field;

enum { AB_ERODE, AB_DISTANCE, AB_WATERSHED, AB_MONOTONE, AB_LAYERS, AB_STAGES };

/* Makes the side's own copy of the field and a context (ONEPATH_ISA applies); NULL on
 * failure (message on stderr). */
void *ab_side_open(const ab_field *f);
/* ab_side_prepare puts a case's input back (the erode case's areas; untimed);
 * ab_side_run runs the case, the call the caller times: erode (out: span_count area
 * bytes, copied out after the call, one byte per span), distance (out: span_count u32),
 * watershed (reads dist; out: regions), monotone, layers (out: regions). *count gets the
 * region count (0 for erode and distance). Both return 0, or nonzero on failure
 * (message on stderr). */
int ab_side_prepare(void *side, int stage);
int ab_side_run(void *side, int stage, const uint32_t *dist, void *out, uint32_t *count);
void ab_side_close(void *side);

#endif
