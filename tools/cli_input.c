/* Input selection shared by bake, verify and digest: the demo world, OBJ, heightmaps,
 * or an OPCHF1 compact heightfield. */
#include "cli.h"

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

int cli_input_option(const char *cmd, cli_input *in, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
#define NEXT()                                                                   \
    ((*i + 1 < argc) ? argv[++*i]                                                \
                     : (cli_usage_error(cmd, "%s needs a value", a), (char *)NULL))
    if (!strcmp(a, "--demo")) {
        in->demo = 1;
        return 1;
    }
    if (!strcmp(a, "--demo-terrain")) {
        in->demo = 2;
        return 1;
    }
    if (!strcmp(a, "--demo-size")) {
        const char *v = NEXT();
        if (!v || cli_parse_u32(cmd, a, v, 64, 8192, &in->demo_size))
            return -1;
        return 1;
    }
    if (!strcmp(a, "--chf")) {
        const char *v = NEXT();
        if (!v)
            return -1;
        in->path = v;
        in->is_chf = 1;
        return 1;
    }
    if (!strcmp(a, "--width")) {
        const char *v = NEXT();
        if (!v || cli_parse_u32(cmd, a, v, 2, 1u << 20, &in->r16_width))
            return -1;
        return 1;
    }
    if (!strcmp(a, "--hm-spacing")) {
        const char *v = NEXT();
        if (!v || cli_parse_float(cmd, a, v, 1e-6, 1e6, &in->hm.spacing))
            return -1;
        return 1;
    }
    if (!strcmp(a, "--hm-scale")) {
        const char *v = NEXT();
        if (!v || cli_parse_float(cmd, a, v, 1e-9, 1e6, &in->hm.height_scale))
            return -1;
        return 1;
    }
    if (a[0] != '-') {
        if (in->path)
            return cli_usage_error(cmd, "more than one input file ('%s' and '%s')", in->path, a),
                   -1;
        in->path = a;
        return 1;
    }
#undef NEXT
    return 0;
}

int cli_input_check(const char *cmd, const cli_input *in)
{
    if (in->demo && in->path)
        return cli_usage_error(cmd, "give either --demo or an input file, not both");
    if (!in->demo && !in->path)
        return cli_usage_error(cmd, "no input: give --demo, FILE.obj, FILE.png, FILE.r16 "
                                    "--width W, or --chf FILE.opchf");
    if (in->path && !in->is_chf) {
        if (ends_with(in->path, ".r16") && !in->r16_width)
            return cli_usage_error(cmd, "%s: a .r16 heightmap needs --width W", in->path);
        if (!ends_with(in->path, ".obj") && !ends_with(in->path, ".png") &&
            !ends_with(in->path, ".r16") && !ends_with(in->path, ".opchf"))
            return cli_usage_error(cmd, "%s: unknown input type (expected .obj, .png, .r16 or "
                                        "--chf FILE.opchf)", in->path);
    }
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
    if (ends_with(in->path, ".obj"))
        return op_load_obj(ctx, in->path, &scene->mesh);
    if (ends_with(in->path, ".png"))
        return op_load_heightmap_png(ctx, in->path, &in->hm, &scene->mesh);
    if (ends_with(in->path, ".r16"))
        return op_load_heightmap_r16(ctx, in->path, in->r16_width, &in->hm, &scene->mesh);
    return op_fail(ctx, OP_BAD_INPUT, "%s: unknown input type", in->path);
}

op_status cli_bake(op_ctx *ctx, const cli_input *in, const op_bake_settings *s,
                   op_bake_result *r)
{
    memset(r, 0, sizeof *r);
    if (in->is_chf || (in->path && ends_with(in->path, ".opchf"))) {
        op_chf chf;
        op_status st = op_opchf_read(ctx, in->path, &chf);
        if (st != OP_OK)
            return st;
        return op_bake_chf(ctx, &chf, s, r);
    }
    op_bake_settings local = *s;
    op_scene scene;
    op_status st = cli_load_scene(ctx, in, &scene, &local.config);
    if (st == OP_OK)
        st = op_bake_scene(ctx, &scene, &local, r);
    op_scene_free(&scene);
    return st;
}
