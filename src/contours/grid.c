/* A uniform grid over contour vertices (exact integer cells), for the hole join and the
 * crossing checks: a segment is listed in every cell it may touch, so two segments with a
 * common point share a cell, and a yes-or-no test over the segments of the cells gives the
 * same answer as over all segments. */
#include "contours/contours_internal.h"

#include <math.h>

static inline int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

void op__cgrid_init(op_cgrid *g, int64_t x0, int64_t z0, int64_t x1, int64_t z1, size_t items)
{
    const double area = (double)(x1 - x0 + 1) * (double)(z1 - z0 + 1);
    int64_t s = (int64_t)sqrt(area / (double)(items ? items : 1));
    if (s < 1)
        s = 1;
    /* at most about four cells per item */
    while ((double)((x1 - x0) / s + 1) * (double)((z1 - z0) / s + 1) > 4.0 * (double)items + 64)
        s *= 2;
    g->x0 = x0;
    g->z0 = z0;
    g->s = s;
    g->nx = (x1 - x0) / s + 1;
    g->nz = (z1 - z0) / s + 1;
}

int64_t op__cgrid_col(const op_cgrid *g, int64_t x)
{
    return clampi(op__floordiv(x - g->x0, g->s), 0, g->nx - 1);
}

int64_t op__cgrid_row(const op_cgrid *g, int64_t z)
{
    return clampi(op__floordiv(z - g->z0, g->s), 0, g->nz - 1);
}

int op__cgrid_walk(const op_cgrid *g, int64_t ax, int64_t az, int64_t bx, int64_t bz,
                   op_cgrid_fn fn, void *arg)
{
    if (ax > bx) {
        int64_t t = ax;
        ax = bx;
        bx = t;
        t = az;
        az = bz;
        bz = t;
    }
    const int64_t c0 = op__cgrid_col(g, ax), c1 = op__cgrid_col(g, bx);
    const double dxz = bx != ax ? (double)(bz - az) / (double)(bx - ax) : 0.0;
    for (int64_t cx = c0; cx <= c1; cx++) {
        int64_t zl, zh;
        if (bx == ax) {
            zl = az < bz ? az : bz;
            zh = az < bz ? bz : az;
        } else {
            /* z over the column's part of the segment, widened by one (rounding) */
            const int64_t xa = ax > g->x0 + cx * g->s ? ax : g->x0 + cx * g->s;
            const int64_t xb = bx < g->x0 + (cx + 1) * g->s ? bx : g->x0 + (cx + 1) * g->s;
            const double za = (double)az + (double)(xa - ax) * dxz;
            const double zb = (double)az + (double)(xb - ax) * dxz;
            zl = (int64_t)(za < zb ? za : zb) - 1;
            zh = (int64_t)(za < zb ? zb : za) + 1;
        }
        const int64_t r0 = clampi(op__floordiv(zl - g->z0, g->s), 0, g->nz - 1);
        const int64_t r1 = clampi(op__floordiv(zh - g->z0, g->s), 0, g->nz - 1);
        for (int64_t cz = r0; cz <= r1; cz++)
            if (fn(arg, (size_t)(cz * g->nx + cx)))
                return 1;
    }
    return 0;
}
