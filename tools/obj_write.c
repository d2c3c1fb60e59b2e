/* bake --out-obj: the input's triangles as Wavefront OBJ, so another baker (Recast, in
 * bench/recast/) can read the very triangles onepath baked (docs/decisions/bench.md). */
#include "obj_write.h"

#include <stdio.h>

op_status cli_write_obj(op_ctx *ctx, const op_mesh *mesh, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", path);
    fprintf(f, "# onepath: %u vertices, %u triangles\n", mesh->vert_count, mesh->tri_count);
    /* The tool never calls setlocale: the C locale's decimal point. */
    for (uint32_t i = 0; i < mesh->vert_count; i++) {
        const float *v = mesh->verts + 3 * (size_t)i;
        fprintf(f, "v %.9g %.9g %.9g\n", (double)v[0], (double)v[1], (double)v[2]);
    }
    for (uint32_t i = 0; i < mesh->tri_count; i++) {
        const uint32_t *t = mesh->tris + 3 * (size_t)i;
        fprintf(f, "f %u %u %u\n", t[0] + 1u, t[1] + 1u, t[2] + 1u);
    }
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return op_fail(ctx, OP_IO_ERROR, "%s: writing failed", path);
    return OP_OK;
}
