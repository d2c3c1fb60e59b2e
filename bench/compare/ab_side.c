/* One side of the in-process comparison (ab_side.h): built against either tree's public
 * headers, so only API that both the baseline (a495c93) and this tree have is used. */
#include "ab_side.h"

#include "onepath/chf.h"
#include "onepath/common.h"
#include "onepath/regions.h"
#include "onepath/spans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct side {
    op_ctx ctx;
    op_chf chf; /* the spans stage's field */
    op_chf ero; /* the same field with the areas before erosion (the erode case's input) */
    const uint8_t *area_pre;
    int radius;
    op_region_settings rs;
} side;

static int fail(side *s, const char *what)
{
    fprintf(stderr, "ab side: %s: %s\n", what, op_ctx_error(&s->ctx));
    return 1;
}

static int fill(side *s, op_chf *c, const ab_field *f, const uint8_t *area)
{
    if (op_chf_alloc(&s->ctx, c, f->width, f->depth, f->span_count) != OP_OK)
        return fail(s, "field");
    const size_t cells = (size_t)f->width * f->depth, n = f->span_count;
    memcpy(c->bmin, f->bmin, sizeof c->bmin);
    memcpy(c->bmax, f->bmax, sizeof c->bmax);
    c->cs = f->cs;
    c->ch = f->ch;
    c->walkable_height = f->walkable_height;
    c->walkable_climb = f->walkable_climb;
    c->border_size = f->border_size;
    memcpy(c->cell_first, f->cell_first, cells * sizeof *c->cell_first);
    memcpy(c->cell_count, f->cell_count, cells * sizeof *c->cell_count);
    memcpy(c->y, f->y, n * sizeof *c->y);
    memcpy(c->h, f->h, n * sizeof *c->h);
    memcpy(c->area, area, n);
    memcpy(c->mutual, f->mutual, n);
    for (int d = 0; d < 4; d++)
        memcpy(c->link[d], f->link[d], n * sizeof *c->link[d]);
    return 0;
}

void *ab_side_open(const ab_field *f)
{
    side *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (op_ctx_init(&s->ctx, OP_ISA_AUTO) != OP_OK) {
        fail(s, "context");
        free(s);
        return NULL;
    }
    if (fill(s, &s->chf, f, f->area) || fill(s, &s->ero, f, f->area_pre)) {
        ab_side_close(s);
        return NULL;
    }
    s->area_pre = f->area_pre;
    s->radius = f->walkable_radius;
    op_region_settings_defaults(&s->rs);
    return s;
}

int ab_side_prepare(void *p, int stage)
{
    side *s = p;
    if (stage == AB_ERODE)
        memcpy(s->ero.area, s->area_pre, s->ero.span_count);
    return 0;
}

int ab_side_run(void *p, int stage, const uint32_t *dist, void *out, uint32_t *count)
{
    side *s = p;
    op_status st = OP_OK;
    *count = 0;
    switch (stage) {
    case AB_ERODE:
        st = op_erode_walkable_area(&s->ctx, &s->ero, s->radius);
        if (st == OP_OK)
            memcpy(out, s->ero.area, s->ero.span_count);
        break;
    case AB_DISTANCE:
        st = op_build_distance_field(&s->ctx, &s->chf, out, NULL);
        break;
    case AB_WATERSHED:
        st = op_build_regions_watershed(&s->ctx, &s->chf, dist, &s->rs, out, count);
        break;
    case AB_MONOTONE:
        st = op_build_regions_monotone(&s->ctx, &s->chf, &s->rs, out, count);
        break;
    case AB_LAYERS:
        st = op_build_regions_layers(&s->ctx, &s->chf, &s->rs, out, count);
        break;
    default:
        return 1;
    }
    return st == OP_OK ? 0 : fail(s, "run");
}

void ab_side_close(void *p)
{
    side *s = p;
    if (!s)
        return;
    op_chf_free(&s->chf);
    op_chf_free(&s->ero);
    op_ctx_free(&s->ctx);
    free(s);
}
