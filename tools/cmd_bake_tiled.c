/* onepath bake --tile-size T: the tiled bake (supplement §2) with a progress bar over the
 * tiles, the bake file (--out), a JSON summary and a picture with the tile grid. */
#include "cli.h"
#include "cli_tiles.h"
#include "memcount.h"
#include "cli_cache.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

double cli_peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

/* ---- progress bar: done / total tiles, spans per second, ETA, on a terminal -------- */

typedef struct tile_bar {
    double t0, last;
    int active;
} tile_bar;

static void tile_progress(void *user, const op_tile_progress *p)
{
    tile_bar *b = user;
    const double now = op_now_ms();
    if (p->tiles_done < p->tile_count && now - b->last < 100.0)
        return;
    b->last = now;
    const double frac = (double)p->tiles_done / (double)p->tile_count;
    const double secs = (now - b->t0) / 1000.0;
    const double rate = secs > 0 ? (double)p->spans_done / secs : 0;
    const double eta = frac > 0 ? secs * (1 - frac) / frac : 0;
    const int width = 30, fill = (int)(frac * width + 0.5);
    char bar[40];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\rtiles [%s] %u/%u  %.2f M spans/s  ETA %.0f s   ", bar, p->tiles_done,
            p->tile_count, rate / 1e6, eta);
    fflush(stderr);
    b->active = 1;
}

static void bar_done(tile_bar *b)
{
    if (b->active) {
        fprintf(stderr, "\r%78s\r", "");
        fflush(stderr);
        b->active = 0;
    }
}

/* ---- JSON summary ------------------------------------------------------------------- */

static void kv_ms(op_json *j, const char *key, double ms)
{
    op_json_key(j, key);
    op_json_double_fixed(j, ms, 3);
}

static void kv_hex(op_json *j, const char *key, uint64_t d)
{
    char h[17];
    op_digest_hex(d, h);
    op_json_kv_string(j, key, h);
}

op_status cli_tiled_write_json(op_ctx *ctx, const char *path, const cli_args *a,
                               const op_tiled_result *r, double ms_total,
                               void (*extra)(op_json *j, void *user), void *user)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", path);
    const op_bake_settings *s = &a->s;
    op_json j;
    op_json_init(&j, f, 2);
    char buf[512];
    op_json_begin_object(&j);
    op_json_kv_string(&j, "onepath", ONEPATH_VERSION_STRING);
    op_json_kv_string(&j, "input", cli_input_describe(&a->in, buf, sizeof buf));
    op_json_kv_string(&j, "isa", op_isa_name(ctx->isa));
    op_json_kv_string(&j, "until", op_stage_name(r->reached));

    op_json_key(&j, "settings");
    op_json_begin_object(&j);
    op_json_kv_float(&j, "cs", r->cs);
    op_json_kv_float(&j, "ch", r->ch);
    op_json_kv_float(&j, "walkable_slope_deg", s->config.walkable_slope_deg);
    op_json_kv_i64(&j, "walkable_height", r->walkable_height);
    op_json_kv_i64(&j, "walkable_climb", r->walkable_climb);
    op_json_kv_i64(&j, "walkable_radius", r->walkable_radius);
    op_json_kv_string(&j, "partition", op_partition_name(r->partition));
    op_json_kv_u64(&j, "min_region_area", s->regions.min_region_area);
    op_json_kv_u64(&j, "merge_region_area", s->regions.merge_region_area);
    op_json_kv_double(&j, "max_error", s->contours.max_error);
    op_json_kv_i64(&j, "max_edge_len", s->contours.max_edge_len);
    op_json_kv_bool(&j, "straight_region_borders", s->contours.straight_region_borders);
    op_json_end_object(&j);

    op_json_key(&j, "grid");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "width", r->world_width);
    op_json_kv_u64(&j, "depth", r->world_depth);
    op_json_key(&j, "bmin");
    op_json_begin_array(&j);
    for (int i = 0; i < 3; i++)
        op_json_float(&j, r->bmin[i]);
    op_json_end_array(&j);
    op_json_key(&j, "bmax");
    op_json_begin_array(&j);
    for (int i = 0; i < 3; i++)
        op_json_float(&j, r->bmax[i]);
    op_json_end_array(&j);
    op_json_end_object(&j);

    op_json_key(&j, "tiles");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "tile_size", r->tile_size);
    op_json_kv_u64(&j, "border_size", r->border_size);
    op_json_kv_u64(&j, "tiles_x", r->tiles_x);
    op_json_kv_u64(&j, "tiles_z", r->tiles_z);
    op_json_kv_u64(&j, "count", r->tile_count);
    op_json_kv_u64(&j, "threads", (uint64_t)r->threads);
    op_json_kv_u64(&j, "threads_inside_tiles", (uint64_t)r->tile_threads);
    op_json_kv_u64(&j, "triangle_refs", r->triangle_refs);
    const op_tile *big = &r->tiles[r->largest_tile];
    op_json_key(&j, "largest");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "tx", big->tx);
    op_json_kv_u64(&j, "tz", big->tz);
    op_json_kv_u64(&j, "spans", big->span_count);
    op_json_kv_u64(&j, "triangles", big->triangles);
    op_json_end_object(&j);
    op_json_end_object(&j);

    op_json_key(&j, "spans");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "solid", r->solid_spans);
    op_json_kv_u64(&j, "world", r->owned_spans);
    op_json_kv_u64(&j, "compact", r->spans);
    op_json_kv_u64(&j, "walkable", r->walkable_spans);
    op_json_end_object(&j);
    if (r->reached >= OP_STAGE_REGIONS) {
        op_json_key(&j, "regions");
        op_json_begin_object(&j);
        op_json_kv_string(&j, "partition", op_partition_name(r->partition));
        op_json_kv_u64(&j, "count", r->regions);
        op_json_end_object(&j);
    }
    if (r->reached >= OP_STAGE_CONTOURS) {
        op_json_key(&j, "contours");
        op_json_begin_object(&j);
        op_json_kv_u64(&j, "count", r->contours);
        op_json_kv_u64(&j, "vertices", r->contour_verts);
        op_json_end_object(&j);
    }

    /* Wall times, and per-stage times summed over every tile (so over the threads). */
    op_json_key(&j, "ms");
    op_json_begin_object(&j);
    kv_ms(&j, "setup", r->ms_setup);
    kv_ms(&j, "bin", r->ms_bin);
    kv_ms(&j, "tiles", r->ms_tiles);
    kv_ms(&j, "assemble", r->ms_assemble);
    kv_ms(&j, "slowest_tile", r->ms_slowest_tile);
    kv_ms(&j, "bake", r->ms_total);
    kv_ms(&j, "total", ms_total);
    op_json_key(&j, "stages_summed_over_threads");
    op_json_begin_object(&j);
    kv_ms(&j, "rasterize", r->ms.rasterize);
    kv_ms(&j, "filters", r->ms.filters);
    kv_ms(&j, "compact", r->ms.compact);
    kv_ms(&j, "erode", r->ms.erode);
    kv_ms(&j, "volumes", r->ms.volumes);
    kv_ms(&j, "distance", r->ms.distance);
    kv_ms(&j, "regions", r->ms.regions);
    kv_ms(&j, "contours", r->ms.contours);
    kv_ms(&j, "digests", r->ms.digests);
    op_json_end_object(&j);
    op_json_end_object(&j);
    /* CPU time of the process (all threads) in the same parts: costs a loaded machine
     * does not inflate; "process" includes the input and the outputs. */
    op_json_key(&j, "cpu_ms");
    op_json_begin_object(&j);
    kv_ms(&j, "setup", r->cpu_setup);
    kv_ms(&j, "bin", r->cpu_bin);
    kv_ms(&j, "tiles", r->cpu_tiles);
    kv_ms(&j, "assemble", r->cpu_assemble);
    kv_ms(&j, "slowest_tile", r->cpu_slowest_tile);
    kv_ms(&j, "bake", r->cpu_total);
    kv_ms(&j, "input", cli_mem_input_cpu_ms());
    kv_ms(&j, "process", op_cpu_ms());
    op_json_end_object(&j);
    /* Per tile in (tz, tx) order: its CPU time and binned triangles (the schedule's
     * estimate), so a schedule on n cores can be replayed from one run's costs. */
    op_json_key(&j, "per_tile");
    op_json_begin_object(&j);
    op_json_key(&j, "cpu_ms");
    op_json_begin_array(&j);
    for (uint32_t i = 0; i < r->tile_count; i++)
        op_json_double_fixed(&j, r->tiles[i].cpu_ms, 2);
    op_json_end_array(&j);
    op_json_key(&j, "triangles");
    op_json_begin_array(&j);
    for (uint32_t i = 0; i < r->tile_count; i++)
        op_json_u64(&j, r->tiles[i].triangles);
    op_json_end_array(&j);
    op_json_end_object(&j);
    op_json_key(&j, "peak_rss_mib");
    op_json_double_fixed(&j, cli_peak_rss_mb(), 1);
    /* The peak of the library's live bytes, the input's arrays apart (memcount.h). */
    op_json_key(&j, "memory");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "input_bytes", cli_mem_input_bytes());
    op_json_kv_u64(&j, "peak_bytes", cli_mem_peak_bytes());
    op_json_end_object(&j);

    if (r->held) { /* a shard (issue 14) */
        op_json_key(&j, "part");
        op_json_begin_object(&j);
        op_json_kv_string(&j, "range", a->tiles_range ? a->tiles_range : "");
        op_json_kv_u64(&j, "tiles", r->held_count);
        op_json_end_object(&j);
    }
    if (extra)
        extra(&j, user);

    op_json_key(&j, "digests");
    op_json_begin_object(&j);
    if (!r->held)
        kv_hex(&j, "tiles", r->digest);
    kv_hex(&j, "world", r->digest_world);
    kv_hex(&j, "settings", r->digest_settings);
    op_json_end_object(&j);
    op_json_end_object(&j);
    op_status st = op_json_finish(ctx, &j);
    if (fclose(f) != 0 && st == OP_OK)
        st = op_fail(ctx, OP_IO_ERROR, "%s: writing failed", path);
    return st;
}

void cli_tiled_print_summary(const cli_args *a, const op_ctx *ctx, const op_tiled_result *r,
                             double ms_total)
{
    char buf[512], h[17];
    printf("%s: %u x %u cells in %u x %u tiles of %u (border %u), %llu spans (%llu in the "
           "windows, %llu walkable)",
           cli_input_describe(&a->in, buf, sizeof buf), r->world_width, r->world_depth,
           r->tiles_x, r->tiles_z, r->tile_size, r->border_size,
           (unsigned long long)r->owned_spans, (unsigned long long)r->spans,
           (unsigned long long)r->walkable_spans);
    if (r->reached >= OP_STAGE_REGIONS)
        printf(", %llu %s regions", (unsigned long long)r->regions,
               op_partition_name(r->partition));
    if (r->reached >= OP_STAGE_CONTOURS)
        printf(", %llu contours (%llu vertices)", (unsigned long long)r->contours,
               (unsigned long long)r->contour_verts);
    printf("\n  isa %s, %d thread%s, %.1f ms total (setup %.1f, bin %.1f, tiles %.1f, "
           "assemble %.1f), peak RSS %.0f MiB\n",
           op_isa_name(ctx->isa), r->threads, r->threads == 1 ? "" : "s", ms_total,
           r->ms_setup, r->ms_bin, r->ms_tiles, r->ms_assemble, cli_peak_rss_mb());
    if (r->held) {
        char w[17], st[17];
        op_digest_hex(r->digest_world, w);
        op_digest_hex(r->digest_settings, st);
        printf("  part %s: %u of %u tiles (world %s, settings %s); 'onepath merge' joins the "
               "parts\n",
               a->tiles_range ? a->tiles_range : "", r->held_count, r->tile_count, w, st);
        return;
    }
    op_digest_hex(r->digest, h);
    printf("  build3d/tiles digest: %s\n", h);
}

/* Options of the solo bake that have no tiled meaning: refuse them by name. */
static int refuse_solo_outputs(const char *cmd, const cli_args *a)
{
    const char *bad = a->out_chf        ? "--out-chf"
                      : a->out_dist     ? "--out-dist"
                      : a->out_regions  ? "--out-regions"
                      : a->out_contours ? "--out-contours"
                                        : NULL;
    if (bad)
        return cli_usage_error(cmd, "%s writes one grid's field; a tiled bake (--tile-size) "
                                    "writes its tiles with --out FILE.opbake",
                               bad);
    return 0;
}

int cli_bake_tiled(cli_args *a)
{
    const char *CMD = "bake";
    op_bake_settings *s = &a->s;
    if (refuse_solo_outputs(CMD, a))
        return EXIT_USAGE;
    if (a->mpi && a->tiles_range)
        return cli_usage_error(CMD, "--tiles bakes one shard in one process; --mpi bakes every "
                                    "tile over the ranks: give one of them");
    if (a->out_cache && (a->mpi || a->tiles_range))
        return cli_usage_error(CMD, "--out-cache keeps every tile of one process's bake: it does "
                                    "not go with %s",
                               a->mpi ? "--mpi" : "--tiles");
    if (a->mpi)
        return cli_bake_mpi(a); /* issue 14 */
    if (cli_given(a, "--gather-mib"))
        return cli_usage_error(CMD, "--gather-mib goes with --mpi");
    if (a->tiles_range && !a->out)
        return cli_usage_error(CMD, "--tiles writes a partial bake file: give --out PART.opbake");
    if (a->with_regions && s->until < OP_STAGE_REGIONS)
        return cli_usage_error(CMD, "--with-regions needs --until regions or later");
    if (a->with_regions && !a->out)
        return cli_usage_error(CMD, "--with-regions goes with --out FILE.opbake");
    if (a->out_cache && (s->regions.partition != OP_PARTITION_LAYERS || s->until < OP_STAGE_REGIONS))
        return cli_usage_error(CMD, "--out-cache needs --partition layers (and --until regions "
                                    "or later): the cache rebuilds layer-first tiles");
    if (cli_given(a, "--cache-level") && !a->out_cache)
        return cli_usage_error(CMD, "--cache-level goes with --out-cache FILE");
    s->contours.keep_raw = a->raw && a->out;

    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a->isa);
    if (code != EXIT_OK)
        return code;
    op_status st = op_bake_settings_validate(&ctx, s);
    const double t0 = op_now_ms();
    op_scene scene;
    op_scene_init(&scene);
    if (st == OP_OK)
        st = cli_load_scene(&ctx, &a->in, &scene, &s->config);
    cli_mem_mark_input(); /* the scene's arrays are the input */
    tile_bar bar = {op_now_ms(), 0, 0};
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = a->threads;
    o.keep_regions = a->with_regions || ((a->png || a->svg) && s->until >= OP_STAGE_REGIONS);
    if (!a->quiet && isatty(STDERR_FILENO)) {
        o.progress = tile_progress;
        o.progress_user = &bar;
    }
    op_tiled_result r;
    memset(&r, 0, sizeof r);
    op_shard shard;
    if (st == OP_OK && a->tiles_range)
        st = op_shard_parse(&ctx, a->tiles_range, &shard);
    if (st == OP_OK)
        st = a->tiles_range ? op_bake_shard(&ctx, &scene, s, &o, &shard, &r)
             : a->out_cache ? cli_bake_cache(&ctx, a, &scene, &o, &r) /* cmd_update.c */
                            : op_bake_tiled(&ctx, &scene, s, &o, &r);
    bar_done(&bar);
    op_scene_free(&scene); /* the input goes before the outputs are written */
    const double ms_total = op_now_ms() - t0;
    if (st == OP_OK && a->out) {
        unsigned flags = (a->with_regions ? OP_OPBAKE_REGIONS : 0) |
                         (a->raw && r.reached >= OP_STAGE_CONTOURS ? OP_OPBAKE_RAW : 0);
        st = op_opbake_write(&ctx, &r, flags, a->out);
    }
    if (st == OP_OK && a->png)
        st = cli_write_tiles_png(&ctx, &r, a->png, (int)a->png_scale);
    if (st == OP_OK && a->svg)
        st = cli_write_tiles_svg(&ctx, &r, a->svg);
    if (st == OP_OK && a->json)
        st = cli_tiled_write_json(&ctx, a->json, a, &r, ms_total, NULL, NULL);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        op_tiled_result_free(&r);
        op_ctx_free(&ctx);
        return code;
    }
    if (!a->quiet)
        cli_tiled_print_summary(a, &ctx, &r, ms_total);
    op_tiled_result_free(&r);
    op_ctx_free(&ctx);
    return EXIT_OK;
}
