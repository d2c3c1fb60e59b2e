/* onepath update FILE.opcache --events EVENTS.json [--check] [--threads N]: loads a tile
 * cache (issue 13), applies the events one step at a time (add, move, remove
 * obstacles), rebuilds the tiles each step touches and prints one line per step:
 *   step K rebuilt=N ms=T digest=D
 * (step 0 is the load: every tile built from the cache). --check bakes the same world
 * plainly after each step and compares the bytes (the OPBAKE1 encoding of both results,
 * region ids included); the world is read again from the input the cache recorded when
 * it was baked (docs/decisions/cache.md). Also bake's side: --out-cache. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "cli_cache.h"
#include "cli_tiles.h"
#include "cache_events.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- bake --out-cache ------------------------------------------------------------------ */

static int append_line(char *out, size_t n, size_t *len, const char *s)
{
    const size_t k = strlen(s);
    if (strchr(s, '\n') || *len + k + 2 > n)
        return -1;
    if (*len)
        out[(*len)++] = '\n';
    memcpy(out + *len, s, k);
    *len += k;
    out[*len] = 0;
    return 0;
}

int cli_cache_source(const cli_args *a, char *out, size_t n)
{
    size_t len = 0;
    char num[64];
    out[0] = 0;
    const cli_input *in = &a->in;
    if (in->demo) {
        snprintf(num, sizeof num, "%u", in->demo_size);
        return append_line(out, n, &len, in->demo == 2 ? "--demo-terrain" : "--demo") ||
                       append_line(out, n, &len, "--demo-size") || append_line(out, n, &len, num)
                   ? -1
                   : 0;
    }
    char abs_path[PATH_MAX];
    const char *p = realpath(in->path, abs_path) ? abs_path : in->path;
    if (append_line(out, n, &len, p))
        return -1;
    const unsigned kind = cli_input_kind(in);
    if (kind == CLI_IN_R16) {
        snprintf(num, sizeof num, "%u", in->r16_width);
        if (append_line(out, n, &len, "--width") || append_line(out, n, &len, num))
            return -1;
    }
    if (kind & CLI_IN_HEIGHTMAP) {
        snprintf(num, sizeof num, "%.9g", in->hm.spacing);
        if (append_line(out, n, &len, "--hm-spacing") || append_line(out, n, &len, num))
            return -1;
        snprintf(num, sizeof num, "%.9g", in->hm.height_scale);
        if (append_line(out, n, &len, "--hm-scale") || append_line(out, n, &len, num))
            return -1;
    }
    return 0;
}

op_status cli_bake_cache(op_ctx *ctx, const cli_args *a, const op_scene *scene,
                         const op_tiled_options *o_in, op_tiled_result *r)
{
    op_tiled_options o = *o_in;
    o.keep_regions = 1; /* pictures and --check compare region ids */
    op_tile_cache c;
    op_status st = op_tile_cache_bake(ctx, scene, &a->s, &o, &c);
    if (st != OP_OK)
        return st;
    if (cli_cache_source(a, c.source, sizeof c.source))
        c.source[0] = 0; /* update --check then needs --input */
    st = op_opcache_write(ctx, &c, a->cache_level, a->threads, a->out_cache);
    if (st == OP_OK && !a->quiet) {
        FILE *f = fopen(a->out_cache, "rb");
        long bytes = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            bytes = ftell(f);
        if (f)
            fclose(f);
        const double spans = c.result.spans ? (double)c.result.spans : 1.0;
        printf("tile cache %s: %ld bytes (%.2f per span, zstd level %d); %.1f bytes per span "
               "in memory\n",
               a->out_cache, bytes, (double)bytes / spans, a->cache_level,
               (double)op_tile_cache_bytes(&c) / spans);
    }
    /* The result goes to the caller; the cache's tiles are freed. */
    *r = c.result;
    c.result.tiles = NULL;
    op_tile_cache_free(&c);
    if (st != OP_OK)
        op_tiled_result_free(r);
    return st;
}

/* ---- update ------------------------------------------------------------------------------ */

typedef struct update_args {
    const char *events, *input;
    int check, png_every;
} update_args;

static const cli_opt update_opts[] = {
    {"FILE", CLI_FILE, CLI_FIELD(in.path), "cache file",
     .help = "an OPCACHE1 tile cache (bake --tile-size T --partition layers --out-cache FILE)",
     .flags = CLI_POSITIONAL | CLI_ONCE},
    {"--events", CLI_FILE, offsetof(update_args, events), "EVENTS.json", .flags = CLI_EXT,
     .help = "a JSON array of steps: add, move and remove obstacles (docs/formats.md); without "
             "it, only the load (step 0)"},
    {"--check", CLI_FLAG, offsetof(update_args, check), NULL, .flags = CLI_EXT,
     .help = "after each step bake the same world plainly and compare the bytes (exit 1 on the "
             "first difference)"},
    {"--input", CLI_FILE, offsetof(update_args, input), "FILE", .flags = CLI_EXT,
     .help = "--check: the world's input file, when it is not where the cache recorded it"},
    {"--threads", CLI_INT, CLI_FIELD(threads), "N", .lo = 0, .hi = 4096,
     .deflt = "0: OMP_NUM_THREADS, else every core",
     .help = "threads for loading and rebuilding tiles; the output is the same for any N"},
    CLI_OPT_ISA,
    CLI_END};
static const cli_group update_group = {"update", update_opts};

static const cli_opt update_out_opts[] = {
    {"--json", CLI_FILE, CLI_FIELD(json), "FILE",
     .help = "per step: op, id, rebuilt tiles, ms, digest, check; load time; cache bytes"},
    {"--png", CLI_FILE, CLI_FIELD(png), "FILE",
     .help = "after the last step: regions, contours, obstacles (red), the tiles the step "
             "rebuilt (cyan)"},
    {"--png-every-step", CLI_FLAG, offsetof(update_args, png_every), NULL, .flags = CLI_EXT,
     .help = "--png FILE.png for every step K as FILE-K.png"},
    {"--png-scale", CLI_UINT, CLI_FIELD(png_scale), "N", .help = "pixels per cell in the picture",
     .lo = 1, .hi = 64, .deflt = "fit about 2048 px"},
    {"--out-cache", CLI_FILE, CLI_FIELD(out_cache), "FILE.opcache",
     .help = "save the cache after the last step"},
    {"--cache-level", CLI_INT, CLI_FIELD(cache_level), "N", .lo = 0, .hi = 19,
     .help = "zstd level of --out-cache, 0 = stored"},
    {"--quiet", CLI_FLAG, CLI_FIELD(quiet), NULL, .alias = "-q",
     .help = "no step lines (errors still print)"},
    CLI_END};
static const cli_group update_out = {"output", update_out_opts};
static const cli_group *const update_groups[] = {&update_group, &update_out, NULL};

static const cli_command update_cmd = {
    "update", "FILE.opcache [--events EVENTS.json] [--check] [--threads N] [options]",
    "Loads a tile cache, applies the events one step at a time and rebuilds only the tiles "
    "each step touches (every tile whose window, band included, an old or new footprint "
    "reaches). Prints 'step K rebuilt=N ms=T digest=D' per step (K = 0: the load; D: the "
    "build3d/tiles digest, the same as a plain tiled bake of the world with the world's "
    "volumes followed by the obstacles in increasing id).",
    update_groups,
    "exit codes: 0 ok, 1 --check found a difference, 2 usage error, 3 bad cache or events "
    "file (with offset, or step, line and column), 4 internal failure"};

/* The input the cache recorded (or --input), parsed with the input options of bake. */
static const cli_group *const source_groups[] = {&cli_group_input, NULL};
static const cli_command source_cmd = {"update --check", "", NULL, source_groups, NULL};

static int load_world(op_ctx *ctx, const op_tile_cache *c, const update_args *ua,
                      op_scene *scene)
{
    const char *CMD = update_cmd.name;
    op_scene_init(scene);
    char lines[OP_CACHE_SOURCE_MAX];
    snprintf(lines, sizeof lines, "%s", c->source);
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"source";
    for (char *p = lines; *p && argc < 63;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = 0;
        p = nl + 1;
    }
    argv[argc] = NULL;
    if (ua->input) {
        if (argc < 2 || !strncmp(argv[1], "--demo", 6))
            return cli_usage_error(CMD, "--input: the cache was baked from %s, not a file",
                                   argc < 2 ? "an unrecorded input" : argv[1]);
        argv[1] = (char *)ua->input;
    }
    if (argc < 2)
        return cli_usage_error(CMD, "--check: the cache does not record its input; give it "
                                    "with --input FILE");
    cli_args wa;
    cli_args_defaults(&wa);
    int rc = cli_parse(&source_cmd, argc, argv, &wa);
    if (rc != CLI_CONTINUE || cli_args_check(CMD, &wa))
        return EXIT_USAGE;
    op_config cfg = c->settings.config;
    op_status st = cli_load_scene(ctx, &wa.in, scene, &cfg);
    if (st != OP_OK)
        return cli_fail(CMD, ctx, st);
    /* The world's volumes must be the cache's: the plain bake takes the cache's. */
    int same = scene->volume_count == c->world_volume_count;
    for (uint32_t i = 0; same && i < scene->volume_count; i++)
        same = op_volume_same(&scene->volumes[i], &c->world_volumes[i]);
    if (!same) {
        char desc[512];
        fprintf(stderr, "onepath update: %s is not the world the cache was baked from (its %u "
                        "volumes are not the cache's %u)\n",
                cli_input_describe(&wa.in, desc, sizeof desc), scene->volume_count,
                c->world_volume_count);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* Bakes the world plainly with the world's volumes and the obstacles in id order, and
 * compares the OPBAKE1 bytes with the cache's result. 0 same, 1 differs (said), or an
 * exit code + 10 on failure. */
static int check_step(op_ctx *ctx, const op_scene *world, const op_tile_cache *c, int threads,
                      double *ms, char *why, size_t n)
{
    op_scene s = *world;
    const uint32_t nv = c->world_volume_count + c->obstacle_count;
    op_volume *v = calloc(nv ? nv : 1, sizeof *v);
    if (!v) {
        snprintf(why, n, "out of memory");
        return 10 + EXIT_INTERNAL;
    }
    for (uint32_t i = 0; i < c->world_volume_count; i++)
        v[i] = c->world_volumes[i];
    for (uint32_t i = 0; i < c->obstacle_count; i++)
        v[c->world_volume_count + i] = c->obstacles[i].volume;
    s.volumes = v;
    s.volume_count = s.volume_cap = nv;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = threads;
    o.keep_regions = c->keep_regions;
    o.owned_digest = c->owned_digest;
    op_tiled_result p;
    const double t0 = op_now_ms();
    op_status st = op_bake_tiled(ctx, &s, &c->settings, &o, &p);
    *ms = op_now_ms() - t0;
    free(v);
    if (st != OP_OK) {
        snprintf(why, n, "plain bake: %s", op_ctx_error(ctx));
        return 10 + cli_exit_code(st);
    }
    /* WRLD's world digest (OPSCENE1) hashes the triangles, which the cache does not hold:
     * with obstacles present its result says 0 there (tilecache.h). The plain bake's
     * must then be the OPSCENE1 of the world with those obstacles; it is compared with
     * the cache's once no obstacle is left. Every other byte is compared as it is. */
    if (c->obstacle_count && c->result.digest_world == 0) {
        if (p.digest_world == 0) {
            snprintf(why, n, "the plain bake has no world digest");
            op_tiled_result_free(&p);
            return 1;
        }
        p.digest_world = 0;
    }
    const unsigned flags = c->keep_regions ? OP_OPBAKE_REGIONS : 0;
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    st = op_opbake_encode(ctx, &c->result, flags, &x, &nx);
    if (st == OP_OK)
        st = op_opbake_encode(ctx, &p, flags, &y, &ny);
    int rc = 0;
    if (st != OP_OK) {
        snprintf(why, n, "encoding: %s", op_ctx_error(ctx));
        rc = 10 + cli_exit_code(st);
    } else if (nx != ny || memcmp(x, y, nx)) {
        rc = 1;
        snprintf(why, n, "the results differ (%zu vs %zu bytes)", nx, ny);
        if (c->result.digest_world != p.digest_world) /* the tiles may still agree */
            snprintf(why, n, "the world digests differ (%016llx vs %016llx): the input is not "
                             "the world the cache was baked from",
                     (unsigned long long)c->result.digest_world,
                     (unsigned long long)p.digest_world);
        for (uint32_t i = 0; i < p.tile_count; i++) {
            const op_tile *a = &c->result.tiles[i], *b = &p.tiles[i];
            if (a->digest_spans != b->digest_spans || a->digest_regions != b->digest_regions ||
                a->digest_contours != b->digest_contours || a->span_count != b->span_count) {
                snprintf(why, n, "tile (%u, %u) differs (spans %s, regions %s, contours %s)",
                         a->tx, a->tz, a->digest_spans == b->digest_spans ? "same" : "DIFFER",
                         a->digest_regions == b->digest_regions ? "same" : "DIFFER",
                         a->digest_contours == b->digest_contours ? "same" : "DIFFER");
                break;
            }
        }
    }
    op_free(ctx, x);
    op_free(ctx, y);
    op_tiled_result_free(&p);
    return rc;
}

static op_status png_for_step(op_ctx *ctx, const cli_args *a, const update_args *ua,
                              const op_tile_cache *c, size_t step, int last)
{
    if (!a->png || (!ua->png_every && !last))
        return OP_OK;
    if (!ua->png_every)
        return cli_write_cache_png(ctx, c, a->png, (int)a->png_scale);
    char path[4096];
    const char *dot = strrchr(a->png, '.');
    const size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - a->png) : strlen(a->png);
    snprintf(path, sizeof path, "%.*s-%zu%s", (int)stem, a->png, step, a->png + stem);
    return cli_write_cache_png(ctx, c, path, (int)a->png_scale);
}

typedef struct step_log {
    cli_event_op op;
    uint32_t id;
    uint32_t rebuilt;
    double ms, ms_check;
    uint64_t digest;
    int checked;
    uint32_t *tiles;
} step_log;

static op_status write_json(op_ctx *ctx, const cli_args *a, const op_tile_cache *c,
                            const step_log *log, size_t steps, double ms_read, long file_bytes)
{
    FILE *f = fopen(a->json, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", a->json);
    op_json j;
    op_json_init(&j, f, 2);
    char h[17];
    op_json_begin_object(&j);
    op_json_kv_string(&j, "onepath", ONEPATH_VERSION_STRING);
    op_json_kv_string(&j, "cache", a->in.path);
    op_json_kv_u64(&j, "tiles", c->result.tile_count);
    op_json_kv_u64(&j, "tile_size", c->result.tile_size);
    op_json_kv_u64(&j, "spans", c->result.spans);
    op_json_kv_u64(&j, "threads", (uint64_t)(a->threads ? a->threads : op_tiled_default_threads()));
    op_json_key(&j, "bytes");
    op_json_begin_object(&j);
    op_json_kv_u64(&j, "file", (uint64_t)(file_bytes > 0 ? file_bytes : 0));
    op_json_kv_u64(&j, "memory", op_tile_cache_bytes(c));
    op_json_kv_u64(&j, "result", op_tiled_result_bytes(&c->result));
    op_json_end_object(&j);
    op_json_key(&j, "ms_read");
    op_json_double_fixed(&j, ms_read, 3);
    op_json_key(&j, "steps");
    op_json_begin_array(&j);
    for (size_t k = 0; k < steps; k++) {
        const step_log *s = &log[k];
        op_json_begin_object(&j);
        op_json_kv_u64(&j, "step", k);
        op_json_kv_string(&j, "op", k ? cli_event_op_name(s->op) : "load");
        if (k)
            op_json_kv_u64(&j, "id", s->id);
        op_json_kv_u64(&j, "rebuilt", s->rebuilt);
        op_json_key(&j, "ms");
        op_json_double_fixed(&j, s->ms, 3);
        op_digest_hex(s->digest, h);
        op_json_kv_string(&j, "digest", h);
        if (s->checked) {
            op_json_kv_string(&j, "check", "same");
            op_json_key(&j, "ms_plain_bake");
            op_json_double_fixed(&j, s->ms_check, 3);
        }
        op_json_key(&j, "tiles");
        op_json_begin_array(&j);
        for (uint32_t t = 0; t < s->rebuilt && s->tiles; t++) {
            op_json_begin_array(&j);
            op_json_u64(&j, s->tiles[t] % c->result.tiles_x);
            op_json_u64(&j, s->tiles[t] / c->result.tiles_x);
            op_json_end_array(&j);
        }
        op_json_end_array(&j);
        op_json_end_object(&j);
    }
    op_json_end_array(&j);
    op_json_end_object(&j);
    op_status st = op_json_finish(ctx, &j);
    if (fclose(f) != 0 && st == OP_OK)
        st = op_fail(ctx, OP_IO_ERROR, "%s: writing failed", a->json);
    return st;
}

int cmd_update(int argc, char **argv)
{
    const char *CMD = update_cmd.name;
    cli_args a;
    cli_args_defaults(&a);
    update_args ua = {0};
    a.ext = &ua;
    int rc = cli_parse(&update_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!a.in.path)
        return cli_usage_error(CMD, "no cache file given");
    if (ua.input && !ua.check)
        return cli_usage_error(CMD, "--input goes with --check");
    if (ua.png_every && !a.png)
        return cli_usage_error(CMD, "--png-every-step goes with --png FILE");
    if (cli_given(&a, "--cache-level") && !a.out_cache)
        return cli_usage_error(CMD, "--cache-level goes with --out-cache FILE");
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a.isa);
    if (code != EXIT_OK)
        return code;
    op_tile_cache c;
    op_scene world;
    op_scene_init(&world);
    cli_events ev = {NULL, 0};
    step_log *log = NULL;
    size_t logged = 0;
    unsigned char *text = NULL;
    const double t0 = op_now_ms();
    op_status st = op_opcache_read(&ctx, a.in.path, a.threads, &c);
    const double ms_read = op_now_ms() - t0;
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        goto done_ctx;
    }
    long file_bytes = -1;
    {
        FILE *f = fopen(a.in.path, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0)
            file_bytes = ftell(f);
        if (f)
            fclose(f);
    }
    /* Every step is checked before anything runs. */
    if (ua.events) {
        size_t len = 0;
        st = op_read_file(&ctx, ua.events, &text, &len);
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
        char err[512];
        if (cli_events_parse(&ctx, (const char *)text, len, &c, &ev, err, sizeof err)) {
            fprintf(stderr, "onepath update: %s: %s (nothing applied)\n", ua.events, err);
            code = EXIT_BAD_INPUT;
            goto done;
        }
    }
    if (ua.check && (code = load_world(&ctx, &c, &ua, &world)) != EXIT_OK)
        goto done;
    log = calloc(ev.count + 1, sizeof *log);
    if (!log) {
        code = cli_fail(CMD, &ctx, op_fail(&ctx, OP_NO_MEMORY, "out of memory for the step log"));
        goto done;
    }
    code = EXIT_OK;
    for (size_t k = 0; k <= ev.count; k++) {
        step_log *s = &log[k];
        if (k) {
            const cli_event *e = &ev.v[k - 1];
            s->op = e->op;
            s->id = e->id;
            st = e->op == CLI_EVENT_ADD    ? op_tile_cache_add(&ctx, &c, e->id, &e->shape)
                 : e->op == CLI_EVENT_MOVE ? op_tile_cache_move(&ctx, &c, e->id, &e->shape)
                                           : op_tile_cache_remove(&ctx, &c, e->id);
            if (st != OP_OK) {
                char msg[sizeof ctx.err];
                snprintf(msg, sizeof msg, "%s", op_ctx_error(&ctx));
                code = cli_fail(CMD, &ctx, op_fail(&ctx, st, "step %zu: %s", k, msg));
                break;
            }
        }
        op_cache_update_stats us;
        st = op_tile_cache_update(&ctx, &c, a.threads, &us);
        if (st != OP_OK) {
            char msg[sizeof ctx.err];
            snprintf(msg, sizeof msg, "%s", op_ctx_error(&ctx));
            code = cli_fail(CMD, &ctx, op_fail(&ctx, st, "step %zu: %s", k, msg));
            break;
        }
        logged = k + 1;
        s->rebuilt = us.rebuilt;
        s->ms = us.ms;
        s->digest = c.result.digest;
        s->tiles = malloc((us.rebuilt ? us.rebuilt : 1) * sizeof *s->tiles);
        if (s->tiles)
            memcpy(s->tiles, c.rebuilt, us.rebuilt * sizeof *s->tiles);
        char h[17];
        op_digest_hex(c.result.digest, h);
        if (!a.quiet) {
            printf("step %zu rebuilt=%u ms=%.3f digest=%s", k, us.rebuilt, us.ms, h);
            fflush(stdout);
        }
        if (k == 0 && c.saved_digest && c.saved_digest != c.result.digest) {
            char want[17];
            op_digest_hex(c.saved_digest, want);
            if (!a.quiet)
                printf("\n");
            fprintf(stderr, "onepath update: %s: the loaded cache gives digest %s, it was saved "
                            "with %s\n",
                    a.in.path, h, want);
            code = EXIT_BAD_INPUT;
            break;
        }
        if (ua.check) {
            char why[300];
            const int d = check_step(&ctx, &world, &c, a.threads, &s->ms_check, why, sizeof why);
            if (!a.quiet)
                printf(d == 0 ? " check=same (plain bake %.1f ms)\n" : "\n", s->ms_check);
            if (d) {
                fprintf(stderr, "onepath update: step %zu: %s\n", k, why);
                code = d == 1 ? EXIT_VERIFY_FAILED : d - 10;
                break;
            }
            s->checked = 1;
        } else if (!a.quiet) {
            printf("\n");
        }
        st = png_for_step(&ctx, &a, &ua, &c, k, k == ev.count);
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            break;
        }
    }
    if (code == EXIT_OK && a.out_cache) {
        st = op_opcache_write(&ctx, &c, a.cache_level, a.threads, a.out_cache);
        if (st != OP_OK)
            code = cli_fail(CMD, &ctx, st);
    }
    if (code == EXIT_OK && a.json) {
        st = write_json(&ctx, &a, &c, log, logged, ms_read, file_bytes);
        if (st != OP_OK)
            code = cli_fail(CMD, &ctx, st);
    }
done:
    for (size_t k = 0; log && k <= ev.count; k++)
        free(log[k].tiles);
    free(log);
    op_free(&ctx, text);
    cli_events_free(&ev);
    op_scene_free(&world);
    op_tile_cache_free(&c);
done_ctx:
    op_ctx_free(&ctx);
    return code;
}
