/* onepath bake: input → compact heightfield → distance → regions → contours, with dumps,
 * a JSON summary and a picture. */
#include "cli.h"
#include "memcount.h"

#include <string.h>

/* Options of bake alone: the run group's variant and the outputs. */
static const cli_opt bake_run_opts[] = {
    CLI_OPT_UNTIL,
    CLI_OPT_ISA,
    CLI_END};
static const cli_group bake_run = {NULL, bake_run_opts};

static const cli_opt bake_output_opts[] = {
    {"--json", CLI_FILE, CLI_FIELD(json), "FILE",
     .help = "summary: grid, span/region/contour counts, per-stage ms, digests"},
    {"--out-chf", CLI_FILE, CLI_FIELD(out_chf), "FILE",
     .help = "the compact heightfield as OPCHF1"},
    {"--out-obj", CLI_FILE, CLI_FIELD(in.out_obj), "FILE.obj", .inputs = CLI_IN_SCENE,
     .help = "the input's triangles as Wavefront OBJ (e.g. the demo world, for another "
             "baker: bench/recast/); area volumes are not written"},
    {"--out-dist", CLI_FILE, CLI_FIELD(out_dist), "FILE", .help = "the distance field as OPDST1"},
    {"--out-regions", CLI_FILE, CLI_FIELD(out_regions), "FILE", .help = "the region ids as OPREG1"},
    {"--out-contours", CLI_FILE, CLI_FIELD(out_contours), "FILE",
     .help = "the contours as JSON (supplement §4)"},
    {"--raw", CLI_FLAG, CLI_FIELD(raw), NULL, .help = "--out-contours also writes the raw loops"},
    {"--png", CLI_FILE, CLI_FIELD(png), "FILE",
     .help = "top view: regions, one colour each, with contours drawn over"},
    {"--png-scale", CLI_UINT, CLI_FIELD(png_scale), "N", .help = "pixels per cell in the picture",
     .lo = 1, .hi = 64, .deflt = "fit about 2048 px"},
    {"--svg", CLI_FILE, CLI_FIELD(svg), "FILE", .help = "the same picture as SVG"},
    {"--out", CLI_FILE, CLI_FIELD(out), "FILE.opbake", .inputs = CLI_IN_SCENE,
     .help = "tiled bake: the bake file (OPBAKE1: tiles, contours in world cells; --raw adds "
             "raw loops)"},
    {"--with-regions", CLI_FLAG, CLI_FIELD(with_regions), NULL, .inputs = CLI_IN_SCENE,
     .help = "--out also stores every tile's per-span region ids"},
    {"--out-cache", CLI_FILE, CLI_FIELD(out_cache), "FILE.opcache", .inputs = CLI_IN_SCENE,
     .help = "tiled bake with --partition layers: the tile cache (OPCACHE1) that "
             "'onepath update' changes with run-time obstacles"},
    {"--cache-level", CLI_INT, CLI_FIELD(cache_level), "N", .lo = 0, .hi = 19,
     .inputs = CLI_IN_SCENE, .help = "zstd level of --out-cache, 0 = stored"},
    CLI_END};
static const cli_group bake_output = {"output", bake_output_opts};

static const cli_group *const bake_groups[] = {&cli_group_input,    &cli_group_spans,
                                               &cli_group_tiles,    &cli_group_regions,
                                               &cli_group_contours, &cli_group_run,
                                               &bake_run,           &bake_output,
                                               &cli_group_distributed, NULL};

static const cli_command bake_cmd = {
    "bake", "INPUT [options]",
    "Bakes INPUT into a compact heightfield, its distance field, regions and contours, and "
    "writes what the output options ask for; prints a summary unless --quiet.",
    bake_groups, "exit codes: 0 ok, 2 usage error, 3 bad input, 4 internal failure"};

static void hex(uint64_t d, char out[17]) { op_digest_hex(d, out); }

/* Timings to the microsecond: more digits would be noise. */
static void kv_ms(op_json *j, const char *key, double ms)
{
    op_json_key(j, key);
    op_json_double_fixed(j, ms, 3);
}

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
    /* threads inside the one grid (--threads; 0 resolves to OpenMP's default) */
    op_json_kv_u64(&j, "threads", !op_tiled_parallel() ? 1
                                  : ctx->threads > 0 ? (uint64_t)ctx->threads
                                                     : (uint64_t)op_tiled_default_threads());
    op_json_kv_string(&j, "until", op_stage_name(s->until));

    op_json_key(&j, "settings");
    op_json_begin_object(&j);
    /* cs, ch and the walkable height and climb as the field holds them; slope and radius
     * only when the spans stage ran (an OPCHF1 field does not record them). */
    op_json_kv_float(&j, "cs", r->chf.cs);
    op_json_kv_float(&j, "ch", r->chf.ch);
    if (r->have_spans_stats)
        op_json_kv_float(&j, "walkable_slope_deg", s->config.walkable_slope_deg);
    op_json_kv_i64(&j, "walkable_height", r->chf.walkable_height);
    op_json_kv_i64(&j, "walkable_climb", r->chf.walkable_climb);
    if (r->have_spans_stats)
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
        op_json_float(&j, r->chf.bmin[i]);
    op_json_end_array(&j);
    op_json_key(&j, "bmax");
    op_json_begin_array(&j);
    for (int i = 0; i < 3; i++)
        op_json_float(&j, r->chf.bmax[i]);
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
        kv_ms(&j, "rasterize", r->spans.ms_rasterize);
        kv_ms(&j, "filters", r->spans.ms_filters);
        kv_ms(&j, "compact", r->spans.ms_compact);
        kv_ms(&j, "erode", r->spans.ms_erode);
        kv_ms(&j, "volumes", r->spans.ms_volumes);
        kv_ms(&j, "spans", r->ms_spans);
    }
    if (r->reached >= OP_STAGE_REGIONS) {
        kv_ms(&j, "distance", r->ms_distance);
        kv_ms(&j, "regions", r->ms_regions);
    }
    if (r->reached >= OP_STAGE_CONTOURS)
        kv_ms(&j, "contours", r->ms_contours);
    kv_ms(&j, "total", ms_total);
    op_json_end_object(&j);

    /* The peak of the library's live bytes during the bake, the input's own arrays
     * apart (counted through the allocator hook, memcount.h). */
    op_json_key(&j, "memory");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "input_bytes", cli_mem_input_bytes());
    op_json_kv_u64(&j, "peak_bytes", cli_mem_peak_bytes());
    op_json_end_object(&j);
    /* CPU time of the process when the input was loaded and so far (the bake is the
     * difference), and getrusage's peak RSS. */
    op_json_key(&j, "cpu_ms");
    op_json_begin_object(&j);
    kv_ms(&j, "input", cli_mem_input_cpu_ms());
    kv_ms(&j, "process", op_cpu_ms());
    op_json_end_object(&j);
    op_json_key(&j, "peak_rss_mib");
    op_json_double_fixed(&j, cli_peak_rss_mb(), 1);

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
    op_status st = op_json_finish(ctx, &j);
    if (fclose(f) != 0 && st == OP_OK)
        st = op_fail(ctx, OP_IO_ERROR, "%s: writing failed", path);
    return st;
}

/* The human summary: what was baked, the time per stage that ran, the last digest. */
static void print_summary(const cli_input *in, const op_bake_settings *s, const op_ctx *ctx,
                          const op_bake_result *r, double ms_total)
{
    char buf[512], h[17];
    printf("%s", cli_input_describe(in, buf, sizeof buf));
    if (!r->have_spans_stats)
        printf(" (OPCHF1, spans stage skipped)");
    printf(": %u x %u cells, %u spans (%u walkable)", r->chf.width, r->chf.depth,
           r->chf.span_count, op_chf_walkable_count(&r->chf));
    if (r->reached >= OP_STAGE_REGIONS)
        printf(", %u %s regions", r->region_count, op_partition_name(s->regions.partition));
    if (r->reached >= OP_STAGE_CONTOURS)
        printf(", %u contours (%u vertices)", r->contours.count, r->contour_verts);
    /* Only the stages that ran: a field read from a file has no spans-stage time. */
    char stages[256] = "";
    size_t n = 0;
#define STAGE_MS(name, ms)                                                                 \
    n += (size_t)snprintf(stages + n, sizeof stages - n, "%s" name " %.1f", n ? ", " : "", ms)
    if (r->have_spans_stats)
        STAGE_MS("spans", r->ms_spans);
    if (r->reached >= OP_STAGE_REGIONS) {
        STAGE_MS("distance", r->ms_distance);
        STAGE_MS("regions", r->ms_regions);
    }
    if (r->reached >= OP_STAGE_CONTOURS)
        STAGE_MS("contours", r->ms_contours);
#undef STAGE_MS
    printf("\n  isa %s, %.1f ms total%s%s%s\n", op_isa_name(ctx->isa), ms_total,
           n ? " (" : "", stages, n ? ")" : "");
    const op_stage last = r->reached;
    hex(last >= OP_STAGE_CONTOURS ? r->digest_contours
        : last >= OP_STAGE_REGIONS ? r->digest_regions
                                   : r->digest_spans,
        h);
    printf("  digest of the last stage (%s): %s\n", op_stage_name(last), h);
}

/* Writes every output asked for; the first failure stops. */
static op_status write_outputs(op_ctx *ctx, const cli_args *a, const op_bake_result *r,
                               double ms_total)
{
    op_status st = OP_OK;
    if (st == OP_OK && a->out_chf)
        st = op_opchf_write(ctx, &r->chf, a->out_chf);
    if (st == OP_OK && a->out_dist)
        st = op_dump_distance_write(ctx, r->dist, r->chf.span_count, a->out_dist);
    if (st == OP_OK && a->out_regions)
        st = op_dump_regions_write(ctx, r->region, r->chf.span_count, r->region_count,
                                   a->out_regions);
    if (st == OP_OK && a->out_contours)
        st = op_write_contours_json(ctx, &r->contours, a->out_contours, a->raw);
    if (st == OP_OK && a->png)
        st = cli_write_png(ctx, r, a->png, (int)a->png_scale);
    if (st == OP_OK && a->svg)
        st = cli_write_svg(ctx, r, a->svg);
    if (st == OP_OK && a->json)
        st = write_json(ctx, a->json, &a->in, &a->s, r, ms_total);
    return st;
}

int cmd_bake(int argc, char **argv)
{
    cli_args a;
    cli_args_defaults(&a);
    int rc = cli_parse(&bake_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (cli_args_check(bake_cmd.name, &a))
        return EXIT_USAGE;
    const char *CMD = bake_cmd.name;
    op_bake_settings *s = &a.s;
    if (a.in.out_obj && s->config.tile_size > 0)
        return cli_usage_error(CMD, "--out-obj is for the one-grid bake (without --tile-size)");
    if (s->config.tile_size > 0)
        return cli_bake_tiled(&a); /* supplement §2 */
    static const char *const tiled_only[] = {"--border",      "--out",        "--with-regions",
                                             "--tiles",       "--mpi",        "--gather-mib",
                                             "--out-cache",   "--cache-level"};
    for (size_t i = 0; i < sizeof tiled_only / sizeof tiled_only[0]; i++)
        if (cli_given(&a, tiled_only[i]))
            return cli_usage_error(CMD, "%s is for tiled bakes: give --tile-size T too",
                                   tiled_only[i]);
    if ((a.out_dist || a.out_regions) && s->until < OP_STAGE_REGIONS)
        return cli_usage_error(CMD, "--out-dist/--out-regions need --until regions or later");
    if (a.out_contours && s->until < OP_STAGE_CONTOURS)
        return cli_usage_error(CMD, "--out-contours needs --until contours");
    s->contours.keep_raw = a.raw;
    s->keep_distance = a.out_dist != NULL; /* else the bake frees it in the partition */

    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a.isa);
    if (code != EXIT_OK)
        return code;
    op_status st = op_bake_settings_validate(&ctx, s);
    /* Threads inside one grid (same bytes for any count); one unless asked. */
    if (st == OP_OK && cli_given(&a, "--threads"))
        st = op_ctx_set_threads(&ctx, a.threads);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        op_ctx_free(&ctx);
        return code;
    }
    cli_progress_install(&ctx, !a.quiet);
    const double t0 = op_now_ms();
    op_bake_result r;
    st = cli_bake(&ctx, &a.in, s, &r);
    const double ms_total = op_now_ms() - t0;
    cli_progress_done();
    if (st == OP_OK)
        st = write_outputs(&ctx, &a, &r, ms_total);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        op_bake_result_free(&r);
        op_ctx_free(&ctx);
        return code;
    }
    if (!a.quiet)
        print_summary(&a.in, s, &ctx, &r, ms_total);
    op_bake_result_free(&r);
    op_ctx_free(&ctx);
    return EXIT_OK;
}
