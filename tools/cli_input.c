/* Input selection shared by bake, verify and digest: the demo world, OBJ, heightmaps,
 * or an OPCHF1 compact heightfield (options and checks: cli_options.c). */
#include "cli.h"
#include "obj_write.h"
#include "memcount.h"

#include <string.h>
#include <strings.h>

void cli_input_defaults(cli_input *in)
{
    memset(in, 0, sizeof *in);
    in->demo_size = 512;
    op_heightmap_opts_defaults(&in->hm);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

unsigned cli_input_kind(const cli_input *in)
{
    if (in->demo)
        return CLI_IN_DEMO;
    if (!in->path)
        return 0;
    if (in->is_chf || ends_with(in->path, ".opchf"))
        return CLI_IN_CHF;
    if (ends_with(in->path, ".obj"))
        return CLI_IN_OBJ;
    if (ends_with(in->path, ".png"))
        return CLI_IN_PNG;
    if (ends_with(in->path, ".r16"))
        return CLI_IN_R16;
    return 0;
}

const char *cli_input_describe(const cli_input *in, char *buf, size_t n)
{
    if (in->demo)
        snprintf(buf, n, "%s:%u", in->demo == 2 ? "demo-terrain" : "demo", in->demo_size);
    else
        snprintf(buf, n, "%s", in->path);
    return buf;
}

op_status cli_load_scene(op_ctx *ctx, const cli_input *in, op_scene *scene, op_config *cfg)
{
    op_scene_init(scene);
    if (in->demo) {
        op_config demo_cfg;
        op_status st = in->demo == 2 ? op_demo_terrain(ctx, in->demo_size, scene, &demo_cfg)
                                     : op_demo_world(ctx, in->demo_size, scene, &demo_cfg);
        if (st != OP_OK)
            return st;
        /* The demo's grid is defined by its size: take its bounds unless given. */
        if (!cfg->has_bounds) {
            cfg->has_bounds = 1;
            memcpy(cfg->bmin, demo_cfg.bmin, sizeof cfg->bmin);
            memcpy(cfg->bmax, demo_cfg.bmax, sizeof cfg->bmax);
        }
        return OP_OK;
    }
    switch (cli_input_kind(in)) {
    case CLI_IN_OBJ: return op_load_obj(ctx, in->path, &scene->mesh);
    case CLI_IN_PNG: return op_load_heightmap_png(ctx, in->path, &in->hm, &scene->mesh);
    case CLI_IN_R16:
        return op_load_heightmap_r16(ctx, in->path, in->r16_width, &in->hm, &scene->mesh);
    default: break;
    }
    return op_fail(ctx, OP_BAD_INPUT, "%s: unknown input type", in->path);
}

op_status cli_bake(op_ctx *ctx, const cli_input *in, const op_bake_settings *s,
                   op_bake_result *r)
{
    memset(r, 0, sizeof *r);
    if (cli_input_kind(in) == CLI_IN_CHF) {
        op_chf chf;
        op_status st = op_opchf_read(ctx, in->path, &chf);
        if (st != OP_OK)
            return st;
        cli_mem_mark_input(); /* the field read from the file is the input */
        return op_bake_chf(ctx, &chf, s, r);
    }
    op_bake_settings local = *s;
    op_scene scene;
    op_status st = cli_load_scene(ctx, in, &scene, &local.config);
    cli_mem_mark_input(); /* the scene's arrays are the input */
    /* bake --out-obj: written before the bake, outside its stage timings */
    if (st == OP_OK && in->out_obj)
        st = cli_write_obj(ctx, &scene.mesh, in->out_obj);
    if (st == OP_OK)
        st = op_bake_scene(ctx, &scene, &local, r);
    op_scene_free(&scene);
    return st;
}
