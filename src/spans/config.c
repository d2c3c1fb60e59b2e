/* Spans-stage configuration (supplement §1.1). */
#include "onepath/config.h"

#include "onepath/spans.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void op_config_defaults(op_config *cfg)
{
    cfg->cs = 0.3f;
    cfg->ch = 0.2f;
    cfg->has_bounds = 0;
    for (int i = 0; i < 3; i++)
        cfg->bmin[i] = cfg->bmax[i] = 0.0f;
    cfg->walkable_slope_deg = 45.0f;
    cfg->walkable_height = 10; /* ceil(2.0 / 0.2) */
    cfg->walkable_climb = 4;   /* floor(0.9 / 0.2) */
    cfg->walkable_radius = 2;  /* ceil(0.6 / 0.3) */
    cfg->tile_size = 0;
    cfg->border_size = -1; /* walkable_radius + 3 */
}

/* Distance between adjacent binary32 values at magnitude m (its unit in the last place). */
static double ulp_at(double m)
{
    if (!(m >= 0x1p-126))
        return 0x1p-149;
    int e;
    frexp(m, &e); /* m in [2^(e-1), 2^e) */
    return ldexp(1.0, e - 24);
}

/* The smallest ch, printed with 4 significant digits and rounded up, for which the
 * rasterizer's top height ceilf(by * (1/ch)) is at most top. */
static float fitting_ch(float by, float top)
{
    double c = (double)by / top;
    const double step = pow(10.0, floor(log10(c)) - 3);
    c = ceil(c / step) * step;
    for (int i = 0; i < 1000; i++, c += step) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.4g", c);
        const float f = strtof(buf, NULL);
        if (ceilf(by * (1.0f / f)) <= top)
            return f;
    }
    return (float)c;
}

/* docs/decisions/hardening.md "Grid resolution": every x/z coordinate of the grid must
 * be resolved to OP_GRID_STEPS_PER_CELL binary32 steps per cs, and y to as many per ch;
 * the height range must fit the 16-bit span heights at ch. */
op_status op_config_check_resolution(op_ctx *ctx, const op_config *cfg, uint32_t width,
                                     uint32_t depth)
{
    static const char axis_name[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; a++) {
        double m = fmax(fabs((double)cfg->bmin[a]), fabs((double)cfg->bmax[a]));
        const float cell = a == 1 ? cfg->ch : cfg->cs;
        if (a != 1) /* the grid's far edge, bmin + width*cs, can lie past bmax */
            m = fmax(m, fabs((double)cfg->bmin[a] + (double)(a == 0 ? width : depth) * cell));
        const double u = ulp_at(m);
        const double steps = (double)cell / u;
        if (steps < OP_GRID_STEPS_PER_CELL) {
            /* |coordinates| below 2^k keep ulp <= cell / OP_GRID_STEPS_PER_CELL */
            const double limit = ldexp(1.0, (int)floor(log2((double)cell / OP_GRID_STEPS_PER_CELL)) + 24);
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "grid %c coordinates reach %.9g, where binary32 values are %g apart: "
                           "%s %g spans %g of them, at least %d are needed (%gx too coarse); "
                           "move the geometry towards the origin (|%c| < %g for this %s) or "
                           "raise %s to at least %g",
                           axis_name[a], m, u, a == 1 ? "ch" : "cs", (double)cell, steps,
                           OP_GRID_STEPS_PER_CELL, OP_GRID_STEPS_PER_CELL / steps, axis_name[a],
                           limit, a == 1 ? "ch" : "cs", a == 1 ? "ch" : "cs",
                           u * OP_GRID_STEPS_PER_CELL);
        }
    }
    /* supplement §1.3: the highest span top is ceilf(by * ich), by = bmax.y - bmin.y, in
     * binary32 as the rasterizer computes it; spans above 0xffff would be clamped, and a
     * floor with fewer than walkable_height cells below 0xffff (the ceiling of the
     * topmost span, §1.4) is filtered as too low. Both would vanish silently. */
    const float by = cfg->bmax[1] - cfg->bmin[1];
    if (!isfinite(by))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heights from %g to %g: their difference is beyond binary32", cfg->bmin[1],
                       cfg->bmax[1]);
    const float top = ceilf(by * (1.0f / cfg->ch));
    const int wh = cfg->walkable_height > 0 ? cfg->walkable_height : 0;
    const float room = (float)(OP_HF_MAX_HEIGHT - (uint32_t)(wh < 0xffff ? wh : 0xffff));
    if (!(top <= room) && room < 1.0f)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heights from %g to %g: walkable_height %d leaves no room in the %u "
                       "cells of 16-bit span heights for any range above 0",
                       cfg->bmin[1], cfg->bmax[1], wh, OP_HF_MAX_HEIGHT);
    if (!(top <= room))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heights from %g to %g (%g world units) are %.0f cells of ch %g; with "
                       "walkable_height %d above the top floor that is more than the %u "
                       "that 16-bit span heights hold: use ch >= %g or tighter y bounds",
                       cfg->bmin[1], cfg->bmax[1], by, top, cfg->ch, wh, OP_HF_MAX_HEIGHT,
                       fitting_ch(by, room));
    return OP_OK;
}

op_status op_config_grid_size(op_ctx *ctx, const op_config *cfg, uint32_t *width,
                              uint32_t *depth)
{
    const double ex = (double)cfg->bmax[0] - cfg->bmin[0];
    const double ez = (double)cfg->bmax[2] - cfg->bmin[2];
    const double ey = (double)cfg->bmax[1] - cfg->bmin[1];
    if (!isfinite(ex) || !isfinite(ez) || !isfinite(ey) || ex <= 0 || ez <= 0 || ey < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "bounds are empty or not finite: bmin (%g, %g, %g), bmax (%g, %g, %g)",
                       cfg->bmin[0], cfg->bmin[1], cfg->bmin[2], cfg->bmax[0], cfg->bmax[1],
                       cfg->bmax[2]);
    /* binary32 as Recast computes it (supplement §1.3 arithmetic). */
    const double w = ceil((double)((cfg->bmax[0] - cfg->bmin[0]) / cfg->cs));
    const double d = ceil((double)((cfg->bmax[2] - cfg->bmin[2]) / cfg->cs));
    if (!(w >= 1 && d >= 1) || w * d > (double)OP_MAX_GRID_CELLS || w > 1e9 || d > 1e9)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "grid of %.0f x %.0f cells is too large for 32-bit cell indices "
                       "(at most %u cells); raise cs or shrink the bounds",
                       w, d, OP_MAX_GRID_CELLS);
    const op_status st = op_config_check_resolution(ctx, cfg, (uint32_t)w, (uint32_t)d);
    if (st != OP_OK)
        return st;
    *width = (uint32_t)w;
    *depth = (uint32_t)d;
    return OP_OK;
}

op_status op_config_validate(op_ctx *ctx, const op_config *cfg)
{
    if (!isfinite(cfg->cs) || cfg->cs <= 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "cs must be finite and > 0 (got %g)", cfg->cs);
    if (!isfinite(cfg->ch) || cfg->ch <= 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "ch must be finite and > 0 (got %g)", cfg->ch);
    if (!isfinite(cfg->walkable_slope_deg) || cfg->walkable_slope_deg < 0 ||
        cfg->walkable_slope_deg > 90)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "walkable_slope_deg must be in [0, 90] (got %g)", cfg->walkable_slope_deg);
    if (cfg->walkable_height < 1 || cfg->walkable_height > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_height must be in [1, 65535] cells (got %d)",
                       cfg->walkable_height);
    if (cfg->walkable_climb < 0 || cfg->walkable_climb > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_climb must be in [0, 65535] cells (got %d)",
                       cfg->walkable_climb);
    if (cfg->walkable_radius < 0 || cfg->walkable_radius > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_radius must be in [0, 65535] cells (got %d)",
                       cfg->walkable_radius);
    if (cfg->tile_size < 0 || cfg->tile_size > 65536)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "tile_size must be in [0, 65536] cells (got %d)",
                       cfg->tile_size);
    if (cfg->border_size < -1 || cfg->border_size > 65536)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "border_size must be -1 (default) or in [0, 65536] cells (got %d)",
                       cfg->border_size);
    if (cfg->has_bounds) {
        uint32_t w, d;
        return op_config_grid_size(ctx, cfg, &w, &d);
    }
    return OP_OK;
}
