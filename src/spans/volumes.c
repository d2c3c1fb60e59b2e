/* Area volumes: convex prisms, boxes and vertical cylinders (supplement §1.7).
 * Arithmetic (docs/decisions, spans §1.7): the cell centre and the span floor are
 * binary32, px = bmin.x + ((float)x + 0.5f)·cs, py = bmin.y + (float)y·ch; box and y tests
 * compare binary32 values; prism edge cross products and cylinder distances are
 * evaluated in binary64 from the binary32 inputs. */
#include "onepath/spans.h"

#include <math.h>

static op_status check_volume(op_ctx *ctx, const op_volume *v, uint32_t i)
{
    if (v->kind != OP_VOLUME_PRISM && v->kind != OP_VOLUME_BOX && v->kind != OP_VOLUME_CYLINDER)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: unknown kind %d", i, (int)v->kind);
    if (!isfinite(v->ymin) || !isfinite(v->ymax) || v->ymin > v->ymax)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: y range [%g, %g] is empty or not finite",
                       i, v->ymin, v->ymax);
    if (v->kind == OP_VOLUME_PRISM) {
        if (v->vert_count < 3 || v->vert_count > OP_VOLUME_MAX_VERTS)
            return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: a prism needs 3..%d vertices (got %u)",
                           i, OP_VOLUME_MAX_VERTS, v->vert_count);
        for (uint32_t k = 0; k < 2 * v->vert_count; k++)
            if (!isfinite(v->verts[k]))
                return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: vertex %u is not finite", i,
                               k / 2);
    } else if (v->kind == OP_VOLUME_BOX) {
        for (int k = 0; k < 2; k++)
            if (!isfinite(v->box_min[k]) || !isfinite(v->box_max[k]) || v->box_min[k] > v->box_max[k])
                return op_fail(ctx, OP_INVALID_ARGUMENT, "volume %u: box is empty or not finite", i);
    } else {
        if (!isfinite(v->center[0]) || !isfinite(v->center[1]) || !isfinite(v->radius) ||
            v->radius < 0)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "volume %u: cylinder centre/radius not finite or radius < 0", i);
    }
    return OP_OK;
}

/* Footprint xz bounds, for the cell range to visit. */
static void footprint_bounds(const op_volume *v, double *x0, double *x1, double *z0, double *z1)
{
    if (v->kind == OP_VOLUME_PRISM) {
        *x0 = *x1 = v->verts[0];
        *z0 = *z1 = v->verts[1];
        for (uint32_t k = 1; k < v->vert_count; k++) {
            *x0 = fmin(*x0, v->verts[2 * k]);
            *x1 = fmax(*x1, v->verts[2 * k]);
            *z0 = fmin(*z0, v->verts[2 * k + 1]);
            *z1 = fmax(*z1, v->verts[2 * k + 1]);
        }
    } else if (v->kind == OP_VOLUME_BOX) {
        *x0 = v->box_min[0];
        *x1 = v->box_max[0];
        *z0 = v->box_min[1];
        *z1 = v->box_max[1];
    } else {
        *x0 = (double)v->center[0] - v->radius;
        *x1 = (double)v->center[0] + v->radius;
        *z0 = (double)v->center[1] - v->radius;
        *z1 = (double)v->center[1] + v->radius;
    }
}

/* Convex polygon of either winding: inside or on the boundary when no edge has the
 * point strictly on its left while another has it strictly on its right. */
static int in_prism(const op_volume *v, float px, float pz)
{
    int pos = 0, neg = 0;
    for (uint32_t i = 0, n = v->vert_count; i < n; i++) {
        const uint32_t j = i + 1 == n ? 0 : i + 1;
        const double ax = v->verts[2 * i], az = v->verts[2 * i + 1];
        const double bx = v->verts[2 * j], bz = v->verts[2 * j + 1];
        const double cr = (bx - ax) * ((double)pz - az) - (bz - az) * ((double)px - ax);
        pos |= cr > 0;
        neg |= cr < 0;
    }
    return !(pos && neg);
}

static int in_footprint(const op_volume *v, float px, float pz)
{
    switch (v->kind) {
    case OP_VOLUME_PRISM:
        return in_prism(v, px, pz);
    case OP_VOLUME_BOX:
        return v->box_min[0] <= px && px <= v->box_max[0] && v->box_min[1] <= pz &&
               pz <= v->box_max[1];
    case OP_VOLUME_CYLINDER: {
        const double dx = (double)px - v->center[0], dz = (double)pz - v->center[1];
        return dx * dx + dz * dz <= (double)v->radius * v->radius;
    }
    }
    return 0;
}

/* in_footprint for the cells of one row (one pz): what does not depend on px is
 * computed once per row, in the same binary64 operations in the same order, so every
 * cell gets the same answer as from in_footprint (bake-speed.md round 10). A prism
 * stops at the first edge that puts the point outside: pos && neg cannot be undone. */
typedef struct row_test {
    int kind, zin;       /* zin: a box's z test */
    uint32_t n;          /* prism edges */
    double a[OP_VOLUME_MAX_VERTS], b[OP_VOLUME_MAX_VERTS], ax[OP_VOLUME_MAX_VERTS];
    double cx, dz2, r2;  /* cylinder */
    float x0, x1;        /* box */
} row_test;

static void row_begin(row_test *t, const op_volume *v, float pz)
{
    t->kind = v->kind;
    t->zin = 0;
    t->n = 0;
    switch (v->kind) {
    case OP_VOLUME_PRISM:
        t->n = v->vert_count;
        for (uint32_t i = 0, n = v->vert_count; i < n; i++) {
            const uint32_t j = i + 1 == n ? 0 : i + 1;
            const double ax = v->verts[2 * i], az = v->verts[2 * i + 1];
            const double bx = v->verts[2 * j], bz = v->verts[2 * j + 1];
            t->a[i] = (bx - ax) * ((double)pz - az);
            t->b[i] = bz - az;
            t->ax[i] = ax;
        }
        break;
    case OP_VOLUME_BOX:
        t->zin = v->box_min[1] <= pz && pz <= v->box_max[1];
        t->x0 = v->box_min[0];
        t->x1 = v->box_max[0];
        break;
    case OP_VOLUME_CYLINDER: {
        const double dz = (double)pz - v->center[1];
        t->dz2 = dz * dz;
        t->cx = v->center[0];
        t->r2 = (double)v->radius * v->radius;
        break;
    }
    }
}

static int row_in(const row_test *t, float px)
{
    switch (t->kind) {
    case OP_VOLUME_PRISM: {
        int pos = 0, neg = 0;
        for (uint32_t i = 0; i < t->n; i++) {
            const double cr = t->a[i] - t->b[i] * ((double)px - t->ax[i]);
            pos |= cr > 0;
            neg |= cr < 0;
            if (pos && neg)
                return 0;
        }
        return 1;
    }
    case OP_VOLUME_BOX:
        return t->zin && t->x0 <= px && px <= t->x1;
    case OP_VOLUME_CYLINDER: {
        const double dx = (double)px - t->cx;
        return dx * dx + t->dz2 <= t->r2;
    }
    }
    return 0;
}

/* Local cell index range [lo, hi] whose centres may lie in [a, b] (one cell of slack
 * each way; the exact test decides); world cell = local + org. Returns 0 when empty. */
static int cell_range(double a, double b, double origin, double cs, int32_t org, uint32_t n,
                      uint32_t *lo, uint32_t *hi)
{
    if (n == 0)
        return 0;
    const double fa = floor((a - origin) / cs) - 1 - org, fb = floor((b - origin) / cs) + 1 - org;
    if (!(fb >= 0) || !(fa <= (double)n - 1))
        return 0;
    *lo = fa < 0 ? 0 : (uint32_t)fa;
    *hi = fb > (double)n - 1 ? n - 1 : (uint32_t)fb;
    return *lo <= *hi;
}

op_status op_volumes_validate(op_ctx *ctx, const op_volume *volumes, uint32_t count)
{
    if (count && !volumes)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%u volumes but no array", count);
    for (uint32_t i = 0; i < count; i++) {
        op_status st = check_volume(ctx, &volumes[i], i);
        if (st != OP_OK)
            return st;
    }
    return OP_OK;
}

void op_volume_footprint(const op_volume *v, double *x0, double *x1, double *z0, double *z1)
{
    footprint_bounds(v, x0, x1, z0, z1);
}

/* The tile cache's dirty rectangle: the same cell centres and the same test as
 * op_apply_volumes_window, over the world's cells. */
int op_volume_cells(const op_volume *v, const float world_bmin[3], float cs, uint32_t world_w,
                    uint32_t world_d, uint32_t rect[4])
{
    double fx0, fx1, fz0, fz1;
    footprint_bounds(v, &fx0, &fx1, &fz0, &fz1);
    uint32_t x0, x1, z0, z1;
    const float bx = world_bmin[0], bz = world_bmin[2];
    if (!cell_range(fx0, fx1, bx, cs, 0, world_w, &x0, &x1) ||
        !cell_range(fz0, fz1, bz, cs, 0, world_d, &z0, &z1))
        return 0;
    uint32_t r[4] = {UINT32_MAX, 0, UINT32_MAX, 0};
    for (uint32_t z = z0; z <= z1; z++) {
        const float pz = bz + ((float)z + 0.5f) * cs;
        for (uint32_t x = x0; x <= x1; x++) {
            const float px = bx + ((float)x + 0.5f) * cs;
            if (!in_footprint(v, px, pz))
                continue;
            r[0] = x < r[0] ? x : r[0];
            r[1] = x > r[1] ? x : r[1];
            r[2] = z < r[2] ? z : r[2];
            r[3] = z > r[3] ? z : r[3];
        }
    }
    if (r[0] == UINT32_MAX)
        return 0;
    for (int k = 0; k < 4; k++)
        rect[k] = r[k];
    return 1;
}

op_status op_apply_volumes(op_ctx *ctx, op_chf *chf, const op_volume *volumes, uint32_t count)
{
    return op_apply_volumes_window(ctx, chf, volumes, count, chf->bmin, 0, 0);
}

/* The cell centre is computed from the world index and the world's bmin, so a window
 * marks exactly the spans the solo bake marks (supplement §2 "Seam-exact tiles"). */
op_status op_apply_volumes_window(op_ctx *ctx, op_chf *chf, const op_volume *volumes,
                                  uint32_t count, const float world_bmin[3], int32_t origin_x,
                                  int32_t origin_z)
{
    op_status st = op_volumes_validate(ctx, volumes, count);
    if (st != OP_OK)
        return st;
    const float bx = world_bmin[0], by = world_bmin[1], bz = world_bmin[2];
    for (uint32_t i = 0; i < count; i++) {
        const op_volume *v = &volumes[i];
        double fx0, fx1, fz0, fz1;
        footprint_bounds(v, &fx0, &fx1, &fz0, &fz1);
        uint32_t x0, x1, z0, z1;
        if (!cell_range(fx0, fx1, bx, chf->cs, origin_x, chf->width, &x0, &x1) ||
            !cell_range(fz0, fz1, bz, chf->cs, origin_z, chf->depth, &z0, &z1))
            continue;
        for (uint32_t z = z0; z <= z1; z++) {
            const int64_t gz = (int64_t)z + origin_z;
            const float pz = bz + ((float)gz + 0.5f) * chf->cs;
            row_test row;
            row_begin(&row, v, pz);
            if (row.kind == OP_VOLUME_BOX && !row.zin)
                continue;
            for (uint32_t x = x0; x <= x1; x++) {
                const int64_t gx = (int64_t)x + origin_x;
                const float px = bx + ((float)gx + 0.5f) * chf->cs;
                const uint32_t c = x + z * chf->width;
                const uint32_t s0 = chf->cell_first[c], s1 = chf->cell_first[c + 1];
                if (s0 == s1 || !row_in(&row, px))
                    continue;
                for (uint32_t s = s0; s < s1; s++) {
                    /* Recast's rcMarkConvexPolyArea: unwalkable spans stay unwalkable. */
                    if (chf->area[s] == OP_NULL_AREA)
                        continue;
                    const float fy = by + (float)chf->y[s] * chf->ch;
                    if (v->ymin <= fy && fy <= v->ymax)
                        chf->area[s] = v->area;
                }
            }
        }
    }
    return OP_OK;
}
