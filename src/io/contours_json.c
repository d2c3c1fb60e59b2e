/* Contours as JSON (supplement §4): {"raw_fallbacks": n, "dropped_holes": n,
 * "contours": [{"region": r, "area": a, "verts": [[x, y, z, neighbour], ...],
 * "raw": [...], "raw_holes": [[...], ...]}]}, TileBorder written as -1. */
#include "onepath/contours.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void write_verts(FILE *f, const op_contour_vert *v, uint32_t n)
{
    fputc('[', f);
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].neighbour == OP_TILE_BORDER)
            fprintf(f, "%s[%d, %d, %d, -1]", i ? ", " : "", v[i].x, v[i].y, v[i].z);
        else
            fprintf(f, "%s[%d, %d, %d, %u]", i ? ", " : "", v[i].x, v[i].y, v[i].z,
                    v[i].neighbour);
    }
    fputc(']', f);
}

op_status op_write_contours_json(op_ctx *ctx, const op_contour_set *set, const char *path,
                                 int include_raw)
{
    if (!set || !path)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_write_contours_json: NULL argument");
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing: %s", path,
                       strerror(errno));
    fprintf(f, "{\"raw_fallbacks\": %u, \"dropped_holes\": %u, \"contours\": [", set->raw_fallbacks,
            set->dropped_holes);
    for (uint32_t i = 0; i < set->count; i++) {
        const op_contour *c = &set->contours[i];
        fprintf(f, "%s\n{\"region\": %u, \"area\": %u, \"verts\": ", i ? "," : "", c->region,
                (unsigned)c->area);
        write_verts(f, c->verts, c->vert_count);
        if (include_raw && c->raw) {
            fputs(", \"raw\": ", f);
            write_verts(f, c->raw, c->raw_count);
            fputs(", \"raw_holes\": [", f);
            const op_contour_vert *h = c->raw_holes;
            for (uint32_t k = 0; k < c->raw_hole_count; k++) {
                if (k)
                    fputs(", ", f);
                write_verts(f, h, c->raw_hole_sizes[k]);
                h += c->raw_hole_sizes[k];
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return op_fail(ctx, OP_IO_ERROR, "%s: write failed", path);
    return OP_OK;
}
