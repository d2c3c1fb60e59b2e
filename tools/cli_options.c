/* The option tables bake, verify and digest share (input, spans stage, regions, contours,
 * run), the defaults they start from, and the checks made after parsing. */
#include "cli.h"
#include "memcount.h"

#include <string.h>

_Static_assert(sizeof(int) == sizeof(int32_t), "CLI_INT stores int fields as int32_t");

void cli_args_defaults(cli_args *a)
{
    memset(a, 0, sizeof *a);
    cli_input_defaults(&a->in);
    op_bake_settings_defaults(&a->s);
    a->isa = OP_ISA_AUTO;
    a->cache_level = op_opcache_have_zstd() ? 3 : 0;
}

/* The names op_isa_parse accepts (a variant added to the library is added here too). */
const cli_choice cli_isa_choices[] = {
    {"auto", OP_ISA_AUTO},     {"scalar", OP_ISA_SCALAR}, {"sse2", OP_ISA_SSE2},
    {"sse41", OP_ISA_SSE41},   {"avx2", OP_ISA_AVX2},     {"avx512", OP_ISA_AVX512},
    {"neon", OP_ISA_NEON},     {"portable", OP_ISA_PORTABLE}, {NULL, 0}};

const cli_choice cli_stage_choices[] = {{"spans", OP_STAGE_SPANS},
                                        {"regions", OP_STAGE_REGIONS},
                                        {"contours", OP_STAGE_CONTOURS},
                                        {NULL, 0}};

static const cli_choice partition_choices[] = {{"watershed", OP_PARTITION_WATERSHED},
                                               {"monotone", OP_PARTITION_MONOTONE},
                                               {"layers", OP_PARTITION_LAYERS},
                                               {NULL, 0}};
static const cli_choice on_off[] = {{"on", 1}, {"off", 0}, {NULL, 0}};

static const cli_opt input_opts[] = {
    {"FILE", CLI_FILE, CLI_FIELD(in.path), "input file",
     .help = ".obj (Wavefront OBJ triangles: v, f; other statements ignored), .png (16-bit "
             "grayscale heightmap), .r16 (raw little-endian 16-bit heightmap, with --width) "
             "or .opchf (as --chf)",
     .flags = CLI_POSITIONAL | CLI_ONCE},
    {"--demo", CLI_FLAG, CLI_FIELD(in.demo), NULL, .set = 1,
     .help = "the built-in demo world (terrain, cliffs, building, bridge, spiral ramp, "
             "courtyard, islands, water/road/grass areas)"},
    {"--demo-terrain", CLI_FLAG, CLI_FIELD(in.demo), NULL, .set = 2,
     .help = "the demo world's terrain only"},
    {"--demo-size", CLI_UINT, CLI_FIELD(in.demo_size), "N", .lo = OP_DEMO_MIN_SIZE,
     .hi = OP_DEMO_MAX_SIZE, .inputs = CLI_IN_DEMO,
     .help = "demo: cells per side, 64..16384 (16384: about 280 M spans; tile it)"},
    {"--width", CLI_UINT, CLI_FIELD(in.r16_width), "W", .lo = 2, .hi = 1u << 20,
     .inputs = CLI_IN_R16, .deflt = "", .help = ".r16 heightmap: samples per row"},
    {"--hm-spacing", CLI_FLOAT, CLI_FIELD(in.hm.spacing), "F", .lo = 1e-6, .hi = 1e6,
     .inputs = CLI_IN_HEIGHTMAP, .help = "heightmap: world units between samples"},
    {"--hm-scale", CLI_FLOAT, CLI_FIELD(in.hm.height_scale), "F", .lo = 1e-9, .hi = 1e6,
     .inputs = CLI_IN_HEIGHTMAP, .help = "heightmap: world units per height unit"},
    {"--chf", CLI_FILE, CLI_FIELD(in.chf_path), "FILE.opchf",
     .help = "start from an OPCHF1 compact heightfield (skips the spans stage, so the "
             "spans-stage settings below do not apply)"},
    CLI_END};
const cli_group cli_group_input = {"input (one of --demo, --demo-terrain, FILE, --chf)",
                                   input_opts};

/* .inputs = CLI_IN_SCENE: an OPCHF1 field skips the stage these settings are for. */
static const cli_opt spans_opts[] = {
    {"--cs", CLI_FLOAT, CLI_FIELD(s.config.cs), "F", .lo = 1e-6, .hi = 1e6,
     .inputs = CLI_IN_SCENE, .help = "cell size, world units"},
    {"--ch", CLI_FLOAT, CLI_FIELD(s.config.ch), "F", .lo = 1e-6, .hi = 1e6,
     .inputs = CLI_IN_SCENE, .help = "cell height, world units"},
    {"--slope", CLI_FLOAT, CLI_FIELD(s.config.walkable_slope_deg), "DEG", .lo = 0, .hi = 90,
     .inputs = CLI_IN_SCENE, .help = "steepest walkable slope, degrees"},
    {"--walkable-height", CLI_INT, CLI_FIELD(s.config.walkable_height), "N", .lo = 1,
     .hi = 65535, .inputs = CLI_IN_SCENE, .help = "agent height in cells"},
    {"--walkable-climb", CLI_INT, CLI_FIELD(s.config.walkable_climb), "N", .lo = 0,
     .hi = 65535, .inputs = CLI_IN_SCENE, .help = "max step in cells"},
    {"--walkable-radius", CLI_INT, CLI_FIELD(s.config.walkable_radius), "N", .lo = 0,
     .hi = 65535, .inputs = CLI_IN_SCENE, .help = "agent radius in cells (erosion)"},
    {"--bmin", CLI_VEC3, CLI_FIELD(s.config.bmin), "X,Y,Z", .lo = -1e30, .hi = 1e30,
     .inputs = CLI_IN_SCENE, .deflt = "the input's bounds",
     .help = "grid box, lower corner (give --bmax too)"},
    {"--bmax", CLI_VEC3, CLI_FIELD(s.config.bmax), "X,Y,Z", .lo = -1e30, .hi = 1e30,
     .inputs = CLI_IN_SCENE, .deflt = "the input's bounds",
     .help = "grid box, upper corner (give --bmin too)"},
    CLI_END};
const cli_group cli_group_spans = {"spans stage (supplement §1.1; Recast's defaults)",
                                   spans_opts};

static const cli_opt regions_opts[] = {
    {"--partition", CLI_ENUM, CLI_FIELD(s.regions.partition), "P",
     .choices = partition_choices, .help = "region partition"},
    {"--min-region-area", CLI_UINT, CLI_FIELD(s.regions.min_region_area), "N", .lo = 0,
     .hi = OP_MAX_REGION_AREA, .help = "islands smaller than N spans are removed"},
    {"--merge-region-area", CLI_UINT, CLI_FIELD(s.regions.merge_region_area), "N", .lo = 0,
     .hi = OP_MAX_REGION_AREA, .help = "regions smaller than N spans merge"},
    CLI_END};
const cli_group cli_group_regions = {"regions (regions-contours §2-§5, §7)", regions_opts};

static const cli_opt contours_opts[] = {
    {"--max-error", CLI_DOUBLE, CLI_FIELD(s.contours.max_error), "F", .lo = 0, .hi = 1e6,
     .help = "simplification error in cells"},
    {"--max-edge-len", CLI_INT, CLI_FIELD(s.contours.max_edge_len), "N", .lo = 0,
     .hi = 1 << 20, .help = "longest wall edge in cells, 0 = no split"},
    {"--straight-borders", CLI_ENUM, CLI_FIELD(s.contours.straight_region_borders), "B",
     .choices = on_off, .help = "straight region borders"},
    CLI_END};
const cli_group cli_group_contours = {"contours (regions-contours §6, §7)", contours_opts};

/* supplement §2: a scene (not an OPCHF1 field, which has no triangles) baked tile by
 * tile on every core. */
static const cli_opt tile_opts[] = {
    {"--tile-size", CLI_INT, CLI_FIELD(s.config.tile_size), "T", .lo = 0, .hi = 65536,
     .inputs = CLI_IN_SCENE,
     .help = "tile edge in cells; 0 = one grid for the whole world (the solo bake)"},
    {"--border", CLI_INT, CLI_FIELD(s.config.border_size), "B", .lo = 0, .hi = 65536,
     .inputs = CLI_IN_SCENE, .deflt = "walkable radius + 3",
     .help = "border band of each tile window in cells (with --tile-size)"},
    {"--threads", CLI_INT, CLI_FIELD(threads), "N", .lo = 0, .hi = 4096,
     .deflt = "tiles: 0 = OMP_NUM_THREADS, else every core; one grid: 1",
     .help = "threads for the tiles, or inside the one grid without --tile-size (0 = "
             "OMP_NUM_THREADS, else every core); the output is the same for any N"},
    CLI_END};
const cli_group cli_group_tiles = {"tiles (supplement §2)", tile_opts};

static const cli_opt run_opts[] = {
    {"--quiet", CLI_FLAG, CLI_FIELD(quiet), NULL, .alias = "-q",
     .help = "no progress line (bake: no summary either)"},
    CLI_END};
const cli_group cli_group_run = {"run", run_opts};

/* Checks ------------------------------------------------------------------------------ */

static const char *kinds_text(unsigned k, char *buf, size_t n)
{
    static const char *const names[] = {"--demo", ".obj", ".png", ".r16", "--chf .opchf"};
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < 5 && len < n; i++)
        if (k & (1u << i))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", names[i]);
    return buf;
}

int cli_args_check(const char *cmd, cli_args *a)
{
    cli_input *in = &a->in;
    if (in->chf_path && in->path)
        return cli_usage_error(cmd, "give either --chf FILE.opchf or an input file, not both "
                                    "('%s' and '%s')", in->chf_path, in->path);
    if (in->chf_path) {
        in->path = in->chf_path;
        in->is_chf = 1;
    }
    if (in->demo && in->path)
        return cli_usage_error(cmd, "give either --demo or an input file, not both");
    if (!in->demo && !in->path)
        return cli_usage_error(cmd, "no input: give --demo, FILE.obj, FILE.png, FILE.r16 "
                                    "--width W, or --chf FILE.opchf");
    const unsigned kind = cli_input_kind(in);
    in->is_chf = kind == CLI_IN_CHF; /* FILE.opchf given as the input file, too */
    if (!kind)
        return cli_usage_error(cmd, "%s: unknown input type (expected .obj, .png, .r16 or "
                                    "--chf FILE.opchf)", in->path);
    if (kind == CLI_IN_R16 && !in->r16_width)
        return cli_usage_error(cmd, "%s: a .r16 heightmap needs --width W", in->path);

    /* Options that do not apply to this input would be silently ignored: refuse them. */
    char desc[512], list[128];
    for (int i = 0; i < a->ngiven; i++) {
        const cli_opt *o = a->given[i];
        if (!o->inputs || (o->inputs & kind))
            continue;
        cli_input_describe(in, desc, sizeof desc);
        if (kind == CLI_IN_CHF && o->inputs == CLI_IN_SCENE)
            return cli_usage_error(cmd,
                                   "%s is a spans-stage setting, but %s is an OPCHF1 compact "
                                   "heightfield, which starts after that stage (it keeps the "
                                   "settings it was built with); drop %s",
                                   o->name, desc, o->name);
        return cli_usage_error(cmd, "%s does not apply to %s (only to %s)", o->name, desc,
                               kinds_text(o->inputs, list, sizeof list));
    }

    /* The grid box is given whole (op_config.has_bounds covers both corners). */
    const int has_min = cli_given(a, "--bmin") != NULL, has_max = cli_given(a, "--bmax") != NULL;
    if (has_min != has_max)
        return cli_usage_error(cmd, "%s needs %s as well (the grid box is given whole)",
                               has_min ? "--bmin" : "--bmax", has_min ? "--bmax" : "--bmin");
    if (has_min)
        a->s.config.has_bounds = 1;
    return 0;
}

/* ONEPATH_ISA ------------------------------------------------------------------------- */

static void available_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int v = 0; v < OP_ISA_COUNT && len < n; v++)
        if (op_isa_available((op_isa)v))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                                    op_isa_name((op_isa)v));
}

int cli_check_isa_env(const char *cmd, op_isa isa)
{
    if (isa != OP_ISA_AUTO)
        return 0; /* an explicit --isa does not read the variable */
    const char *value;
    op_isa named;
    char list[256];
    switch (op_isa_env(&named, &value)) {
    case OP_ISA_ENV_UNKNOWN: {
        size_t len = 0;
        list[0] = 0;
        for (const cli_choice *c = cli_isa_choices; c->name && len < sizeof list; c++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    c->name);
        return cli_usage_error(cmd, "ONEPATH_ISA='%s' is not a kernel variant (%s); unset it "
                                    "or fix the name", value, list);
    }
    case OP_ISA_ENV_UNAVAILABLE:
        available_list(list, sizeof list);
        return cli_usage_error(cmd,
                               "ONEPATH_ISA=%s: this build or CPU does not run that variant "
                               "(available: %s)", value, list);
    case OP_ISA_ENV_UNSET:
    case OP_ISA_ENV_APPLIED: break;
    }
    return 0;
}

int cli_ctx_init(const char *cmd, op_ctx *ctx, op_isa isa)
{
    if (cli_check_isa_env(cmd, isa))
        return EXIT_USAGE;
    /* Through the counting allocator: the JSON summary reports the bake's peak. */
    cli_mem_trace_open();
    op_status st = op_ctx_init_with_allocator(ctx, isa, cli_mem_allocator());
    if (st != OP_OK) {
        int code = cli_fail(cmd, ctx, st);
        op_ctx_free(ctx);
        /* A variant this CPU does not run is a bad command line, not a bad input file. */
        return code == EXIT_BAD_INPUT ? EXIT_USAGE : code;
    }
    return EXIT_OK;
}
