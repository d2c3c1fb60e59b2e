/* onepath bake: input → compact heightfield → distance → regions → contours, with dumps,
 * a JSON summary and a picture. */
#include "cli.h"

#include <string.h>

static const char *CMD = "bake";

static void bake_help(FILE *f)
{
    fprintf(f,
"usage: onepath bake (--demo [--demo-size N] | --demo-terrain [--demo-size N] |\n"
"                     FILE.obj | FILE.png | FILE.r16 --width W | --chf FILE.opchf)\n"
"                    [options]\n"
"\n"
"input:\n"
"  --demo                the built-in demo world (terrain, cliffs, building, bridge,\n"
"                        spiral ramp, courtyard, islands, water/road/grass areas)\n"
"  --demo-terrain        the demo world's terrain only\n"
"  --demo-size N         cells per side, 64..8192 (default 512)\n"
"  FILE.obj              Wavefront OBJ triangles (v, f; other statements ignored)\n"
"  FILE.png              16-bit grayscale heightmap\n"
"  FILE.r16 --width W    raw little-endian 16-bit heightmap, W samples per row\n"
"  --hm-spacing F        heightmap: world units between samples (default 1.0)\n"
"  --hm-scale F          heightmap: world units per height unit (default 0.01)\n"
"  --chf FILE.opchf      start from an OPCHF1 compact heightfield (skips the spans stage)\n"
"\n"
"spans stage (supplement §1.1; Recast's defaults):\n"
"  --cs F                cell size, world units (0.3)\n"
"  --ch F                cell height, world units (0.2)\n"
"  --slope DEG           steepest walkable slope (45)\n"
"  --walkable-height N   agent height in cells (10)\n"
"  --walkable-climb N    max step in cells (4)\n"
"  --walkable-radius N   agent radius in cells, erosion (2)\n"
"  --bmin X,Y,Z --bmax X,Y,Z   grid bounds (default: the input's bounds)\n"
"\n"
"regions (regions-contours §2-§5, §7):\n"
"  --partition P         watershed | monotone | layers (watershed)\n"
"  --min-region-area N   islands smaller than N spans are removed (64)\n"
"  --merge-region-area N regions smaller than N spans merge (400)\n"
"\n"
"contours (regions-contours §6, §7):\n"
"  --max-error F         simplification error in cells (1.3)\n"
"  --max-edge-len N      longest wall edge in cells, 0 = off (12)\n"
"  --straight-borders on|off   straight region borders (on)\n"
"\n"
"run:\n"
"  --until S             stop after spans | regions | contours (contours)\n"
"  --isa V               auto | scalar | sse2 | sse41 | avx2 | avx512 | neon | portable\n"
"                        (default auto; the environment variable ONEPATH_ISA also narrows)\n"
"  --quiet               no progress line\n"
"\n"
"output:\n"
"  --json FILE           summary: grid, span/region/contour counts, per-stage ms, digests\n"
"  --out-chf FILE        the compact heightfield as OPCHF1\n"
"  --out-dist FILE       the distance field as OPDST1\n"
"  --out-regions FILE    the region ids as OPREG1\n"
"  --out-contours FILE   the contours as JSON (supplement §4); --raw adds raw loops\n"
"  --png FILE            top view: regions, one colour each, with contours drawn over\n"
"  --png-scale N         pixels per cell in the picture (default: fit ~2048 px)\n"
"  --svg FILE            the same as SVG\n"
"\n"
"exit codes: 0 ok, 2 usage error, 3 bad input, 4 internal failure\n");
}

typedef struct bake_outputs {
    const char *json, *chf, *dist, *regions, *contours, *png, *svg;
    int raw, quiet;
    uint32_t png_scale;
    op_isa isa;
} bake_outputs;

/* Parses the settings options shared by bake, verify and digest. Returns 1 if consumed,
 * 0 if unknown, -1 on error. */
int cli_settings_option(const char *cmd, op_bake_settings *s, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = (*i + 1 < argc) ? argv[*i + 1] : NULL;
#define TAKE()                                                   \
    do {                                                         \
        if (!v) {                                                \
            cli_usage_error(cmd, "%s needs a value", a);         \
            return -1;                                           \
        }                                                        \
        ++*i;                                                    \
    } while (0)
    op_config *c = &s->config;
    if (!strcmp(a, "--cs")) {
        TAKE();
        return cli_parse_float(cmd, a, v, 1e-6, 1e6, &c->cs) ? -1 : 1;
    }
    if (!strcmp(a, "--ch")) {
        TAKE();
        return cli_parse_float(cmd, a, v, 1e-6, 1e6, &c->ch) ? -1 : 1;
    }
    if (!strcmp(a, "--slope")) {
        TAKE();
        return cli_parse_float(cmd, a, v, 0, 90, &c->walkable_slope_deg) ? -1 : 1;
    }
    if (!strcmp(a, "--walkable-height")) {
        TAKE();
        return cli_parse_i32(cmd, a, v, 1, 65535, &c->walkable_height) ? -1 : 1;
    }
    if (!strcmp(a, "--walkable-climb")) {
        TAKE();
        return cli_parse_i32(cmd, a, v, 0, 65535, &c->walkable_climb) ? -1 : 1;
    }
    if (!strcmp(a, "--walkable-radius")) {
        TAKE();
        return cli_parse_i32(cmd, a, v, 0, 65535, &c->walkable_radius) ? -1 : 1;
    }
    if (!strcmp(a, "--bmin") || !strcmp(a, "--bmax")) {
        TAKE();
        if (cli_parse_vec3(cmd, a, v, a[3] == 'i' ? c->bmin : c->bmax))
            return -1;
        c->has_bounds = 1;
        return 1;
    }
    if (!strcmp(a, "--partition")) {
        TAKE();
        if (op_partition_parse(v, &s->regions.partition) != OP_OK) {
            cli_usage_error(cmd, "--partition must be watershed, monotone or layers (got '%s')", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--min-region-area")) {
        TAKE();
        return cli_parse_u32(cmd, a, v, 0, OP_MAX_REGION_AREA, &s->regions.min_region_area) ? -1 : 1;
    }
    if (!strcmp(a, "--merge-region-area")) {
        TAKE();
        return cli_parse_u32(cmd, a, v, 0, OP_MAX_REGION_AREA, &s->regions.merge_region_area) ? -1
                                                                                           : 1;
    }
    if (!strcmp(a, "--max-error")) {
        TAKE();
        return cli_parse_double(cmd, a, v, 0, 1e6, &s->contours.max_error) ? -1 : 1;
    }
    if (!strcmp(a, "--max-edge-len")) {
        TAKE();
        return cli_parse_i32(cmd, a, v, 0, 1 << 20, &s->contours.max_edge_len) ? -1 : 1;
    }
    if (!strcmp(a, "--straight-borders")) {
        TAKE();
        if (!strcmp(v, "on"))
            s->contours.straight_region_borders = 1;
        else if (!strcmp(v, "off"))
            s->contours.straight_region_borders = 0;
        else {
            cli_usage_error(cmd, "--straight-borders must be on or off (got '%s')", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--until")) {
        TAKE();
        if (op_stage_parse(v, &s->until) != OP_OK) {
            cli_usage_error(cmd, "--until must be spans, regions or contours (got '%s')", v);
            return -1;
        }
        return 1;
    }
#undef TAKE
    return 0;
}

int cli_isa_option(const char *cmd, op_isa *isa, int argc, char **argv, int *i)
{
    if (strcmp(argv[*i], "--isa"))
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "--isa needs a value");
        return -1;
    }
    const char *v = argv[++*i];
    if (op_isa_parse(v, isa) != OP_OK) {
        cli_usage_error(cmd, "--isa must be auto, scalar, sse2, sse41, avx2, avx512, neon or "
                             "portable (got '%s')", v);
        return -1;
    }
    return 1;
}

static void hex(uint64_t d, char out[17]) { op_digest_hex(d, out); }

static op_status write_json(op_ctx *ctx, const char *path, const cli_input *in,
                            const op_bake_settings *s, const op_bake_result *r, double ms_total)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", path);
    op_json j;
    op_json_init(&j, f, 2);
    char buf[512], h[17];
    op_json_begin_object(&j);
    op_json_kv_string(&j, "onepath", ONEPATH_VERSION_STRING);
    op_json_kv_string(&j, "input", cli_input_describe(in, buf, sizeof buf));
    op_json_kv_string(&j, "isa", op_isa_name(ctx->isa));
    op_json_kv_string(&j, "until", op_stage_name(s->until));

    op_json_key(&j, "settings");
    op_json_begin_object(&j);
    op_json_kv_double(&j, "cs", r->chf.cs);
    op_json_kv_double(&j, "ch", r->chf.ch);
    op_json_kv_double(&j, "walkable_slope_deg", s->config.walkable_slope_deg);
    op_json_kv_i64(&j, "walkable_height", r->chf.walkable_height);
    op_json_kv_i64(&j, "walkable_climb", r->chf.walkable_climb);
    op_json_kv_i64(&j, "walkable_radius", s->config.walkable_radius);
    op_json_kv_string(&j, "partition", op_partition_name(s->regions.partition));
    op_json_kv_u64(&j, "min_region_area", s->regions.min_region_area);
    op_json_kv_u64(&j, "merge_region_area", s->regions.merge_region_area);
    op_json_kv_double(&j, "max_error", s->contours.max_error);
    op_json_kv_i64(&j, "max_edge_len", s->contours.max_edge_len);
    op_json_kv_bool(&j, "straight_region_borders", s->contours.straight_region_borders);
    op_json_end_object(&j);

    op_json_key(&j, "grid");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "width", r->chf.width);
    op_json_kv_u64(&j, "depth", r->chf.depth);
    op_json_key(&j, "bmin");
    op_json_begin_array(&j);
    for (int i = 0; i < 3; i++)
        op_json_double(&j, r->chf.bmin[i]);
    op_json_end_array(&j);
    op_json_key(&j, "bmax");
    op_json_begin_array(&j);
    for (int i = 0; i < 3; i++)
        op_json_double(&j, r->chf.bmax[i]);
    op_json_end_array(&j);
    op_json_end_object(&j);

    op_json_key(&j, "spans");
    op_json_begin_object(&j);
    if (r->have_spans_stats)
        op_json_kv_u64(&j, "solid", r->spans.solid_spans);
    op_json_kv_u64(&j, "compact", r->chf.span_count);
    op_json_kv_u64(&j, "walkable", op_chf_walkable_count(&r->chf));
    op_json_end_object(&j);

    if (r->reached >= OP_STAGE_REGIONS) {
        op_json_key(&j, "distance");
        op_json_begin_object(&j);
        op_json_kv_u64(&j, "max", r->max_dist);
        op_json_end_object(&j);
        op_json_key(&j, "regions");
        op_json_begin_object(&j);
        op_json_kv_string(&j, "partition", op_partition_name(s->regions.partition));
        op_json_kv_u64(&j, "count", r->region_count);
        op_json_end_object(&j);
    }
    if (r->reached >= OP_STAGE_CONTOURS) {
        op_json_key(&j, "contours");
        op_json_begin_object(&j);
        op_json_kv_u64(&j, "count", r->contours.count);
        op_json_kv_u64(&j, "vertices", r->contour_verts);
        op_json_kv_u64(&j, "raw_fallbacks", r->contours.raw_fallbacks);
        op_json_kv_u64(&j, "dropped_holes", r->contours.dropped_holes);
        op_json_end_object(&j);
    }

    op_json_key(&j, "ms");
    op_json_begin_object(&j);
    if (r->have_spans_stats) {
        op_json_kv_double(&j, "rasterize", r->spans.ms_rasterize);
        op_json_kv_double(&j, "filters", r->spans.ms_filters);
        op_json_kv_double(&j, "compact", r->spans.ms_compact);
        op_json_kv_double(&j, "erode", r->spans.ms_erode);
        op_json_kv_double(&j, "volumes", r->spans.ms_volumes);
        op_json_kv_double(&j, "spans", r->ms_spans);
    }
    if (r->reached >= OP_STAGE_REGIONS) {
        op_json_kv_double(&j, "distance", r->ms_distance);
        op_json_kv_double(&j, "regions", r->ms_regions);
    }
    if (r->reached >= OP_STAGE_CONTOURS)
        op_json_kv_double(&j, "contours", r->ms_contours);
    op_json_kv_double(&j, "total", ms_total);
    op_json_end_object(&j);

    op_json_key(&j, "digests");
    op_json_begin_object(&j);
    hex(r->digest_spans, h);
    op_json_kv_string(&j, "spans", h);
    if (r->reached >= OP_STAGE_REGIONS) {
        hex(r->digest_distance, h);
        op_json_kv_string(&j, "distance", h);
        hex(r->digest_regions, h);
        op_json_kv_string(&j, "regions", h);
    }
    if (r->reached >= OP_STAGE_CONTOURS) {
        hex(r->digest_contours, h);
        op_json_kv_string(&j, "contours", h);
    }
    op_json_end_object(&j);
    op_json_end_object(&j);
    return op_json_finish(ctx, &j);
}

int cmd_bake(int argc, char **argv)
{
    cli_input in;
    cli_input_defaults(&in);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    bake_outputs o;
    memset(&o, 0, sizeof o);
    o.isa = OP_ISA_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            bake_help(stdout);
            return EXIT_OK;
        }
        int rc = cli_input_option(CMD, &in, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc)
            continue;
        rc = cli_settings_option(CMD, &s, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc)
            continue;
        rc = cli_isa_option(CMD, &o.isa, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc)
            continue;
        const char **target = NULL;
        if (!strcmp(a, "--json"))
            target = &o.json;
        else if (!strcmp(a, "--out-chf"))
            target = &o.chf;
        else if (!strcmp(a, "--out-dist"))
            target = &o.dist;
        else if (!strcmp(a, "--out-regions"))
            target = &o.regions;
        else if (!strcmp(a, "--out-contours"))
            target = &o.contours;
        else if (!strcmp(a, "--png"))
            target = &o.png;
        else if (!strcmp(a, "--svg"))
            target = &o.svg;
        if (target) {
            if (i + 1 >= argc)
                return cli_usage_error(CMD, "%s needs a file name", a);
            *target = argv[++i];
            continue;
        }
        if (!strcmp(a, "--raw")) {
            o.raw = 1;
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o.quiet = 1;
            continue;
        }
        if (!strcmp(a, "--png-scale")) {
            if (i + 1 >= argc || cli_parse_u32(CMD, a, argv[i + 1], 1, 64, &o.png_scale))
                return i + 1 >= argc ? cli_usage_error(CMD, "--png-scale needs a value") : EXIT_USAGE;
            i++;
            continue;
        }
        return cli_usage_error(CMD, "unknown option '%s'", a);
    }
    if (cli_input_check(CMD, &in))
        return EXIT_USAGE;
    if ((o.dist || o.regions) && s.until < OP_STAGE_REGIONS)
        return cli_usage_error(CMD, "--out-dist/--out-regions need --until regions or later");
    if ((o.contours) && s.until < OP_STAGE_CONTOURS)
        return cli_usage_error(CMD, "--out-contours needs --until contours");
    s.contours.keep_raw = o.raw;

    op_ctx ctx;
    op_status st = op_ctx_init(&ctx, o.isa);
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
        op_ctx_free(&ctx);
        return code == EXIT_BAD_INPUT ? EXIT_USAGE : code;
    }
    st = op_bake_settings_validate(&ctx, &s);
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
        op_ctx_free(&ctx);
        return code;
    }
    cli_progress_install(&ctx, !o.quiet);
    const double t0 = op_now_ms();
    op_bake_result r;
    st = cli_bake(&ctx, &in, &s, &r);
    const double ms_total = op_now_ms() - t0;
    cli_progress_done();
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
        op_bake_result_free(&r);
        op_ctx_free(&ctx);
        return code;
    }
    if (st == OP_OK && o.chf)
        st = op_opchf_write(&ctx, &r.chf, o.chf);
    if (st == OP_OK && o.dist)
        st = op_dump_distance_write(&ctx, r.dist, r.chf.span_count, o.dist);
    if (st == OP_OK && o.regions)
        st = op_dump_regions_write(&ctx, r.region, r.chf.span_count, r.region_count, o.regions);
    if (st == OP_OK && o.contours)
        st = op_write_contours_json(&ctx, &r.contours, o.contours, o.raw);
    if (st == OP_OK && o.png)
        st = cli_write_png(&ctx, &r, o.png, (int)o.png_scale);
    if (st == OP_OK && o.svg)
        st = cli_write_svg(&ctx, &r, o.svg);
    if (st == OP_OK && o.json)
        st = write_json(&ctx, o.json, &in, &s, &r, ms_total);
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
        op_bake_result_free(&r);
        op_ctx_free(&ctx);
        return code;
    }
    if (!o.quiet) {
        char buf[512], h[17];
        printf("%s: %u x %u cells, %u spans (%u walkable)", cli_input_describe(&in, buf, sizeof buf),
               r.chf.width, r.chf.depth, r.chf.span_count, op_chf_walkable_count(&r.chf));
        if (r.reached >= OP_STAGE_REGIONS)
            printf(", %u %s regions", r.region_count, op_partition_name(s.regions.partition));
        if (r.reached >= OP_STAGE_CONTOURS)
            printf(", %u contours (%u vertices)", r.contours.count, r.contour_verts);
        printf("\n  isa %s, %.1f ms total", op_isa_name(ctx.isa), ms_total);
        if (r.have_spans_stats)
            printf(" (spans %.1f", r.ms_spans);
        else
            printf(" (");
        if (r.reached >= OP_STAGE_REGIONS)
            printf(", distance %.1f, regions %.1f", r.ms_distance, r.ms_regions);
        if (r.reached >= OP_STAGE_CONTOURS)
            printf(", contours %.1f", r.ms_contours);
        hex(r.reached >= OP_STAGE_CONTOURS ? r.digest_contours
                                           : r.reached >= OP_STAGE_REGIONS ? r.digest_regions
                                                                           : r.digest_spans,
            h);
        printf(")\n  digest of the last stage: %s\n", h);
    }
    op_bake_result_free(&r);
    op_ctx_free(&ctx);
    return EXIT_OK;
}
