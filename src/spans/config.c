/* Spans-stage configuration (supplement §1.1). */
#include "onepath/config.h"

#include <math.h>

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
