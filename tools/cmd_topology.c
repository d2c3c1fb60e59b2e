/* onepath topology: the chunk-region graph of a top-down world (topology.md), from an 8-
 * or 16-bit greyscale PNG (a pixel is passable when its value is at least --threshold) or
 * a generated world; counts, build time, the topology/region-graph digest, reachability
 * queries, coarse paths and a picture of regions, portals and corridors. */
#include "cli.h"
#include "grey_png.h"
#include "onepath/topology.h"

#include <stdlib.h>
#include <string.h>

#define MAX_QUERIES 64

typedef struct topo_query {
    int32_t v[4];
} topo_query;

typedef struct topo_args {
    const char *input;
    uint32_t threshold;
    int generate;
    uint32_t size, walls, seed;
    uint32_t chunk;
    int lattice;
    uint32_t threads;
    const char *png;
    uint32_t scale;
    struct topo_queries {
        topo_query q[MAX_QUERIES];
        int n;
    } queries, paths;
} topo_args;

enum { GEN_NONE, GEN_OPEN, GEN_WALLS };
static const cli_choice gen_choices[] = {{"open", GEN_OPEN}, {"walls", GEN_WALLS}, {NULL, 0}};
static const cli_choice lattice_choices[] = {
    {"orthogonal", OP_LATTICE_ORTHOGONAL}, {"hex", OP_LATTICE_AXIAL_HEX}, {NULL, 0}};

#define EXT(m) offsetof(topo_args, m)

static int parse_query(const char *cmd, const cli_opt *o, const char *v, void *field)
{
    struct topo_queries *list = field;
    topo_query q;
    char tail;
    if (sscanf(v, "%d,%d,%d,%d%c", &q.v[0], &q.v[1], &q.v[2], &q.v[3], &tail) != 4)
        return cli_usage_error(cmd, "%s: '%s' is not X0,Y0,X1,Y1 (four integers)", o->name, v);
    if (list->n == MAX_QUERIES)
        return cli_usage_error(cmd, "%s: at most %d", o->name, MAX_QUERIES);
    list->q[list->n++] = q;
    return 0;
}

static const cli_opt topo_world_opts[] = {
    {"INPUT", CLI_FILE, EXT(input), "input PNG",
     .help = "8- or 16-bit greyscale PNG, x = column, y = row (or --generate)",
     .flags = CLI_POSITIONAL | CLI_EXT},
    {"--threshold", CLI_UINT, EXT(threshold), "N",
     .help = "a pixel is passable when its value is at least N", .lo = 0, .hi = 65535,
     .flags = CLI_EXT},
    {"--generate", CLI_ENUM, EXT(generate), "KIND",
     .help = "a generated world instead of a PNG: all open, or walls with the LCG of "
             "issue 15 (wall when ((s >> 33) mod 100) < --walls, 8x8 corners open)",
     .choices = gen_choices, .flags = CLI_EXT, .deflt = ""},
    {"--size", CLI_UINT, EXT(size), "N", .help = "side of the generated world in tiles",
     .lo = 1, .hi = 65536, .flags = CLI_EXT},
    {"--walls", CLI_UINT, EXT(walls), "P", .help = "wall percentage of --generate walls",
     .lo = 0, .hi = 100, .flags = CLI_EXT},
    {"--seed", CLI_UINT, EXT(seed), "S",
     .help = "added to the LCG seed 0x2545F4914F6CDD1D of --generate walls", .lo = 0,
     .hi = 4294967295.0, .flags = CLI_EXT},
    {"--chunk", CLI_UINT, EXT(chunk), "N", .help = "chunk side in tiles", .lo = 1,
     .hi = 4096, .flags = CLI_EXT},
    {"--lattice", CLI_ENUM, EXT(lattice), "L", .help = "neighbourhood", .choices = lattice_choices,
     .flags = CLI_EXT},
    CLI_END};
static const cli_opt topo_query_opts[] = {
    {"--query", CLI_CUSTOM, EXT(queries), "X0,Y0,X1,Y1",
     .help = "reachability, repeatable: prints 'query X0,Y0,X1,Y1 STATUS visited=N'",
     .parse = parse_query, .flags = CLI_EXT, .deflt = ""},
    {"--path", CLI_CUSTOM, EXT(paths), "X0,Y0,X1,Y1",
     .help = "coarse route, repeatable: regions, portals, corridor chunks and bounds",
     .parse = parse_query, .flags = CLI_EXT, .deflt = ""},
    CLI_END};
static const cli_opt topo_out_opts[] = {
    {"--png", CLI_FILE, EXT(png), "FILE",
     .help = "picture: regions coloured, portal tiles white, chunk seams grey, corridors "
             "outlined in red and their portals yellow",
     .flags = CLI_EXT, .deflt = ""},
    {"--scale", CLI_UINT, EXT(scale), "N", .help = "pixels per tile in --png", .lo = 1,
     .hi = 16, .flags = CLI_EXT},
    {"--threads", CLI_UINT, EXT(threads), "N",
     .help = "build threads (0: OpenMP's default); the graph is the same for any count",
     .lo = 0, .hi = 1024, .flags = CLI_EXT},
    CLI_OPT_ISA,
    CLI_END};
static const cli_group topo_world = {"world", topo_world_opts};
static const cli_group topo_queries = {"queries", topo_query_opts};
static const cli_group topo_out = {"output", topo_out_opts};
static const cli_group *const topo_groups[] = {&topo_world, &topo_queries, &topo_out, NULL};

static const cli_command topo_cmd = {
    "topology", "INPUT.png [options] | --generate open|walls [options]",
    "Builds the chunk-region graph (topology.md) of a top-down world with one passable "
    "field and the class Field/UnitCost, answers --query and --path, and prints counts, "
    "timings and the topology/region-graph digest (docs/formats.md, OPTOPO1).",
    topo_groups, "exit codes: 0 ok, 2 usage error, 3 bad input, 4 internal failure"};

enum { F_PASSABLE = 1 };

static op_status make_world(op_ctx *ctx, const topo_args *t, const op_grey_image *img, op_world *w)
{
    uint32_t sx = img ? img->w : t->size, sy = img ? img->h : t->size;
    op_world_shape s = {{sx, sy, 1}, {t->chunk, t->chunk, 1}, (op_lattice)t->lattice};
    op_status st = op_world_init(ctx, w, &s);
    if (st == OP_OK)
        st = op_world_add_field(ctx, w, F_PASSABLE, OP_FIELD_U8);
    if (st != OP_OK)
        return st;
    uint64_t lcg = 0x2545F4914F6CDD1Dull + t->seed;
    for (uint32_t y = 0; y < sy; y++)
        for (uint32_t x = 0; x < sx; x++) {
            int pass;
            if (img) {
                pass = img->v[(size_t)y * img->w + x] >= t->threshold;
            } else if (t->generate == GEN_WALLS) {
                lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
                int corner = (x < 8 || x + 8 >= sx) && (y < 8 || y + 8 >= sy);
                pass = corner || (lcg >> 33) % 100 >= t->walls;
            } else {
                pass = 1;
            }
            st = op_world_set(ctx, w, F_PASSABLE, (op_coord3){(int32_t)x, (int32_t)y, 0}, pass);
            if (st != OP_OK)
                return st;
        }
    return OP_OK;
}

static void dim(uint8_t rgb[3], int num, int den)
{
    for (int i = 0; i < 3; i++)
        rgb[i] = (uint8_t)(rgb[i] * num / den);
}

static op_status picture(op_ctx *ctx, const topo_args *t, const op_region_graph *g,
                         const op_world *w, op_region_graph_scratch *sc)
{
    const uint32_t sx = w->shape.size[0], sy = w->shape.size[1], s = t->scale;
    if ((uint64_t)sx * s * sy * s > (1u << 28))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "--png: %u x %u tiles at scale %u is too large",
                       sx, sy, s);
    op_image img;
    op_status st = op_image_init(ctx, &img, sx * s, sy * s);
    if (st != OP_OK)
        return st;
    for (uint32_t y = 0; y < sy; y++)
        for (uint32_t x = 0; x < sx; x++) {
            op_region_ref r = op_region_graph_region_of(g, (op_coord3){(int32_t)x, (int32_t)y, 0});
            uint8_t c[3] = {0, 0, 0};
            if (r.region) {
                op_region_color(op_region_graph_region_index(g, r) + 1, c);
                dim(c, 3, 4);
            }
            op_image_rect(&img, (int64_t)x * s, (int64_t)y * s, s, s, c);
        }
    static const uint8_t grey[3] = {90, 90, 90}, white[3] = {255, 255, 255},
                         red[3] = {230, 30, 30}, yellow[3] = {255, 220, 0};
    /* chunk seams */
    for (uint32_t x = t->chunk; x < sx; x += t->chunk)
        op_image_line(&img, (int64_t)x * s, 0, (int64_t)x * s, (int64_t)sy * s - 1, grey);
    for (uint32_t y = t->chunk; y < sy; y += t->chunk)
        op_image_line(&img, 0, (int64_t)y * s, (int64_t)sx * s - 1, (int64_t)y * s, grey);
    /* portal tiles */
    for (uint32_t i = 0; i < g->portal_count; i++) {
        const op_region_portal *p = &g->portals[i];
        op_image_rect(&img, (int64_t)p->from_coord.x * s + s / 2, (int64_t)p->from_coord.y * s + s / 2,
                      s > 2 ? s / 3 : 1, s > 2 ? s / 3 : 1, white);
    }
    /* corridors (recomputed here: a path result borrows the scratch) */
    for (int i = 0; i < t->paths.n; i++) {
        const int32_t *v = t->paths.q[i].v;
        op_path_request q = {{v[0], v[1], 0}, {v[2], v[3], 0}};
        op_coarse_path_result r;
        st = op_coarse_path(ctx, g, &q, sc, &r);
        if (st != OP_OK)
            break;
        for (uint32_t k = 0; k < r.chunk_count; k++) {
            op_coord3 o = op_world_chunk_origin(w, r.chunks[k]);
            int64_t x0 = (int64_t)o.x * s, y0 = (int64_t)o.y * s;
            int64_t x1 = (int64_t)(o.x + (int32_t)t->chunk < (int32_t)sx ? o.x + (int32_t)t->chunk : (int32_t)sx) * s - 1;
            int64_t y1 = (int64_t)(o.y + (int32_t)t->chunk < (int32_t)sy ? o.y + (int32_t)t->chunk : (int32_t)sy) * s - 1;
            op_image_line(&img, x0, y0, x1, y0, red);
            op_image_line(&img, x1, y0, x1, y1, red);
            op_image_line(&img, x1, y1, x0, y1, red);
            op_image_line(&img, x0, y1, x0, y0, red);
        }
        for (uint32_t k = 0; k < r.portal_count; k++) {
            const op_region_portal *p = &r.portals[k];
            op_image_line(&img, (int64_t)p->from_coord.x * s + s / 2, (int64_t)p->from_coord.y * s + s / 2,
                          (int64_t)p->to_coord.x * s + s / 2, (int64_t)p->to_coord.y * s + s / 2,
                          yellow);
        }
    }
    if (st == OP_OK)
        st = op_image_write_png(ctx, &img, t->png);
    op_image_free(&img);
    return st;
}

int cmd_topology(int argc, char **argv)
{
    const char *CMD = topo_cmd.name;
    topo_args t;
    memset(&t, 0, sizeof t);
    t.threshold = 128;
    t.size = 512;
    t.walls = 30;
    t.chunk = 32;
    t.lattice = OP_LATTICE_ORTHOGONAL;
    t.scale = 1;
    cli_args a;
    cli_args_defaults(&a);
    a.ext = &t;
    int rc = cli_parse(&topo_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!t.input == !t.generate)
        return cli_usage_error(CMD, "give one input: a PNG file or --generate open|walls");
    if (t.input && (cli_given(&a, "--size") || cli_given(&a, "--walls") || cli_given(&a, "--seed")))
        return cli_usage_error(CMD, "--size, --walls and --seed apply to --generate only");
    if (t.generate && cli_given(&a, "--threshold"))
        return cli_usage_error(CMD, "--threshold applies to a PNG input only");
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a.isa);
    if (code != EXIT_OK)
        return code;
    op_grey_image img;
    memset(&img, 0, sizeof img);
    op_world w;
    memset(&w, 0, sizeof w);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_status st = OP_OK;
    if (t.input)
        st = op_grey_png_load(&ctx, t.input, &img);
    if (st == OP_OK)
        st = make_world(&ctx, &t, t.input ? &img : NULL, &w);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASSABLE);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.threads = (int)t.threads;
    op_region_graph_build_result br;
    double ms = 0, ms_again = 0;
    if (st == OP_OK) {
        /* Twice: the first build also allocates and starts the threads; the second is
         * what a rebuild of the same graph costs. */
        double t0 = op_now_ms();
        st = op_region_graph_build(&ctx, &w, &c, &set, &g, &br);
        ms = op_now_ms() - t0;
        if (st == OP_OK) {
            t0 = op_now_ms();
            st = op_region_graph_build(&ctx, &w, &c, &set, &g, &br);
            ms_again = op_now_ms() - t0;
        }
    }
    uint64_t digest = 0;
    if (st == OP_OK)
        st = op_region_graph_digest(&ctx, &g, &digest);
    if (st == OP_OK)
        st = op_region_graph_scratch_reserve(&ctx, &sc, &g);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        goto done;
    }
    printf("world %u x %u, chunks %u x %u (%u x %u = %u), %s, %s\n", w.shape.size[0],
           w.shape.size[1], t.chunk, t.chunk, w.chunks[0], w.chunks[1], w.chunk_count,
           t.lattice == OP_LATTICE_AXIAL_HEX ? "axial hex" : "orthogonal",
           t.input ? t.input : t.generate == GEN_OPEN ? "generated open" : "generated walls");
    printf("regions %llu portals %u exits %llu passable %llu\n",
           (unsigned long long)br.region_count, g.portal_count,
           (unsigned long long)br.boundary_exit_count, (unsigned long long)br.passable_tile_count);
    printf("build %.3f ms (first, allocating), %.3f ms (rebuild)\n", ms, ms_again);
    char hex[17];
    op_digest_hex(digest, hex);
    printf("digest topology/region-graph %s\n", hex);
    for (int i = 0; i < t.queries.n; i++) {
        const int32_t *v = t.queries.q[i].v;
        op_path_request q = {{v[0], v[1], 0}, {v[2], v[3], 0}};
        op_reach_result r;
        double t0 = op_now_ms();
        st = op_reachable(&ctx, &g, &q, &sc, &r);
        double qms = op_now_ms() - t0;
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
        printf("query %d,%d,%d,%d %s visited=%u\n", v[0], v[1], v[2], v[3],
               op_reach_status_name(r.status), r.visited);
        printf("  time %.3f us\n", qms * 1e3);
    }
    for (int i = 0; i < t.paths.n; i++) {
        const int32_t *v = t.paths.q[i].v;
        op_path_request q = {{v[0], v[1], 0}, {v[2], v[3], 0}};
        op_coarse_path_result r;
        double t0 = op_now_ms();
        st = op_coarse_path(&ctx, &g, &q, &sc, &r);
        double qms = op_now_ms() - t0;
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
        printf("path %d,%d,%d,%d %s visited=%u regions=%u portals=%u chunks=%u bounds=%d,%d..%d,%d\n",
               v[0], v[1], v[2], v[3], op_reach_status_name(r.status), r.visited, r.region_count,
               r.portal_count, r.chunk_count, r.bounds.min.x, r.bounds.min.y, r.bounds.max.x,
               r.bounds.max.y);
        if (r.region_count) {
            printf("  route");
            for (uint32_t k = 0; k < r.region_count; k++)
                printf(" %u:%u", r.regions[k].chunk, r.regions[k].region);
            printf("\n  corridor");
            for (uint32_t k = 0; k < r.chunk_count; k++)
                printf(" %u", r.chunks[k]);
            printf("\n");
        }
        printf("  time %.3f us\n", qms * 1e3);
    }
    if (t.png) {
        st = picture(&ctx, &t, &g, &w, &sc);
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
    }
    code = EXIT_OK;
done:
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
    op_grey_png_free(&img);
    op_ctx_free(&ctx);
    return code;
}
