/* OBJ loader (supplement §1.2): any text either parses or is refused with "line: reason".
 * A parsed mesh of up to 4096 triangles goes through the spans stage with a cell size the
 * input picks (from 0.01 to 10, so coordinates far from the origin for the cell size
 * occur: issue 10 defect 1): a grid of up to 64 x 64 cells through the whole bake and
 * both checkers. */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_scene scene;
    op_scene_init(&scene);
    op_status st = op_parse_obj(&ctx, (const char *)data, size, NULL, &scene.mesh);
    op_fuzz_status_ok(&ctx, st, "parse");
    if (st == OP_OK && scene.mesh.tri_count <= 4096) {
        /* Settings from the input's last byte, so mutations reach them. */
        static const float cs[8] = {0.01f, 0.05f, 0.1f, 0.3f, 0.3f, 1.0f, 2.5f, 10.0f};
        static const float ch[4] = {0.01f, 0.1f, 0.2f, 1.0f};
        const unsigned k = size ? data[size - 1] : 0;
        op_bake_settings s;
        op_bake_settings_defaults(&s);
        s.config.cs = cs[k & 7];
        s.config.ch = ch[k >> 3 & 3];
        s.config.walkable_slope_deg = (k & 32) ? 89.0f : 45.0f;
        s.regions.partition = (op_partition)((k >> 6) % 3);
        s.regions.min_region_area = 0;
        s.regions.merge_region_area = 8;
        /* Only grids of up to 64 x 64 cells: the size of the field is not what is under
         * test here, and small bakes keep the executions fast. */
        float lo[3], hi[3];
        op_mesh_bounds(&scene.mesh, lo, hi);
        const double w = ((double)hi[0] - lo[0]) / s.config.cs;
        const double d = ((double)hi[2] - lo[2]) / s.config.cs;
        if (w <= 64 && d <= 64) {
            op_bake_result r;
            st = op_bake_scene(&ctx, &scene, &s, &r);
            op_fuzz_status_ok(&ctx, st, "bake");
            if (st == OP_OK)
                op_fuzz_check_bake(&ctx, &s, &r, "OBJ bake");
            op_bake_result_free(&r);
        }
    }
    op_scene_free(&scene);
    op_ctx_free(&ctx);
    return 0;
}
