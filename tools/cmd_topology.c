/* onepath topology: the chunk-region graph of a top-down world (topology.md), from an 8-
 * or 16-bit greyscale PNG (a pixel is passable when its value is at least --threshold) or
 * a generated world, optionally several floors joined by stairs (a second PNG of stair
 * directions, or generated) and sparse (a resident rectangle of chunks); counts, build
 * time, the topology/region-graph digest, edits followed by one incremental update
 * (its time, the rebuilt chunks, the digest after it and a fresh build's), reachability
 * queries, coarse paths and a picture of regions, portals and corridors. */
#include "cli.h"
#include "grey_png.h"
#include "onepath/topology.h"

#include <stdlib.h>
#include <string.h>

#define MAX_QUERIES 64
#define MAX_EDITS 256

/* A query: x0, y0, z0, x1, y1, z1 (z 0 when given as four numbers). */
typedef struct topo_query {
    int32_t v[6];
} topo_query;

/* An edit: x, y, z and a value (a pixel value, or a stair direction). */
typedef struct topo_edit {
    int32_t x, y, z;
    int64_t value;
    int stair;
} topo_edit;

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
    struct topo_edits {
        topo_edit e[MAX_EDITS];
        int n;
    } edits;
    uint32_t floors;
    const char *stairs;
    uint32_t stair_density;
    struct topo_rect {
        int32_t k[4]; /* kx0, ky0, kx1, ky1, inclusive */
        int given;
    } sparse;
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
    memset(&q, 0, sizeof q);
    char tail;
    int32_t a[6];
    int n = sscanf(v, "%d,%d,%d,%d,%d,%d%c", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &tail);
    if (n == 4) {
        q.v[0] = a[0], q.v[1] = a[1], q.v[3] = a[2], q.v[4] = a[3];
    } else if (n == 6) {
        memcpy(q.v, a, sizeof q.v);
    } else {
        return cli_usage_error(cmd, "%s: '%s' is not X0,Y0,X1,Y1 or X0,Y0,Z0,X1,Y1,Z1 (integers)",
                               o->name, v);
    }
    if (list->n == MAX_QUERIES)
        return cli_usage_error(cmd, "%s: at most %d", o->name, MAX_QUERIES);
    list->q[list->n++] = q;
    return 0;
}

/* --set X,Y,VALUE or X,Y,Z,VALUE; --set-stair X,Y,Z,DIR. */
static int parse_edit(const char *cmd, const cli_opt *o, const char *v, void *field)
{
    struct topo_edits *list = field;
    topo_edit e;
    memset(&e, 0, sizeof e);
    e.stair = !strcmp(o->name, "--set-stair");
    long long a[4];
    char tail;
    int n = sscanf(v, "%lld,%lld,%lld,%lld%c", &a[0], &a[1], &a[2], &a[3], &tail);
    if (!e.stair && n == 3) {
        a[3] = a[2];
        a[2] = 0;
    } else if (n != 4) {
        return cli_usage_error(cmd, "%s: '%s' is not %s", o->name, v,
                               e.stair ? "X,Y,Z,DIR (integers)" : "X,Y,VALUE or X,Y,Z,VALUE (integers)");
    }
    for (int i = 0; i < 3; i++)
        if (a[i] < INT32_MIN || a[i] > INT32_MAX)
            return cli_usage_error(cmd, "%s: '%s': a coordinate out of range", o->name, v);
    if (a[3] < 0 || a[3] > (e.stair ? 4 : 65535))
        return cli_usage_error(cmd, "%s: '%s': %s must be 0..%d", o->name, v,
                               e.stair ? "DIR" : "VALUE", e.stair ? 4 : 65535);
    if (list->n == MAX_EDITS)
        return cli_usage_error(cmd, "%s: at most %d edits", o->name, MAX_EDITS);
    e.x = (int32_t)a[0], e.y = (int32_t)a[1], e.z = (int32_t)a[2], e.value = a[3];
    list->e[list->n++] = e;
    return 0;
}

static int parse_rect(const char *cmd, const cli_opt *o, const char *v, void *field)
{
    struct topo_rect *r = field;
    char tail;
    if (sscanf(v, "%d,%d,%d,%d%c", &r->k[0], &r->k[1], &r->k[2], &r->k[3], &tail) != 4 ||
        r->k[0] < 0 || r->k[1] < 0 || r->k[2] < r->k[0] || r->k[3] < r->k[1])
        return cli_usage_error(cmd, "%s: '%s' is not KX0,KY0,KX1,KY1 (chunk coordinates, "
                                    "0 <= KX0 <= KX1, 0 <= KY0 <= KY1)",
                               o->name, v);
    r->given = 1;
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
    {"--floors", CLI_UINT, EXT(floors), "N",
     .help = "floors (z levels), each a layer of chunks with the same map (generated walls: "
             "the LCG goes on floor after floor); 2 when stairs are given",
     .lo = 1, .hi = 64, .flags = CLI_EXT},
    {"--stairs", CLI_FILE, EXT(stairs), "FILE",
     .help = "stairs: a greyscale PNG the size of the world, a pixel's value its StairDirection "
             "(1 +x, 2 -x, 3 +y, 4 -y, else none) on every floor but the top",
     .flags = CLI_EXT, .deflt = ""},
    {"--stair-density", CLI_UINT, EXT(stair_density), "P",
     .help = "generated stairs: a foot per P in 1000 tiles of every floor but the top "
             "(direction from the LCG)",
     .lo = 0, .hi = 1000, .flags = CLI_EXT},
    {"--sparse", CLI_CUSTOM, EXT(sparse), "KX0,KY0,KX1,KY1",
     .help = "a sparse world: only the chunks of this rectangle (inclusive chunk coordinates, "
             "every floor; the far corner is clamped to the chunk grid) are resident",
     .parse = parse_rect, .flags = CLI_EXT, .deflt = ""},
    CLI_END};
static const cli_opt topo_edit_opts[] = {
    {"--set", CLI_CUSTOM, EXT(edits), "X,Y[,Z],VALUE",
     .help = "after the first build, the pixel at (X, Y, Z) gets VALUE (passable when >= the "
             "threshold; generated worlds: 128), its chunk is marked dirty, and one "
             "incremental update follows before the queries; repeatable",
     .parse = parse_edit, .flags = CLI_EXT, .deflt = ""},
    {"--set-stair", CLI_CUSTOM, EXT(edits), "X,Y,Z,DIR",
     .help = "likewise for the stair at (X, Y, Z) (DIR 0 removes it); repeatable",
     .parse = parse_edit, .flags = CLI_EXT, .deflt = ""},
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
static const cli_group topo_edits = {"edits", topo_edit_opts};
static const cli_group topo_queries = {"queries", topo_query_opts};
static const cli_group topo_out = {"output", topo_out_opts};
static const cli_group *const topo_groups[] = {&topo_world, &topo_edits, &topo_queries, &topo_out,
                                               NULL};

static const cli_command topo_cmd = {
    "topology", "INPUT.png [options] | --generate open|walls [options]",
    "Builds the chunk-region graph (topology.md) of a top-down world with one passable "
    "field and the class Field/UnitCost (with stairs: the stair provider), applies --set "
    "edits with one incremental update, answers --query and --path (X0,Y0,X1,Y1 or "
    "X0,Y0,Z0,X1,Y1,Z1), and prints counts, timings and the topology/region-graph digest "
    "(docs/formats.md, OPTOPO1).",
    topo_groups, "exit codes: 0 ok, 2 usage error, 3 bad input, 4 internal failure"};

enum { F_PASSABLE = 1, F_STAIRS = 2 };

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s;
}

static op_status make_world(op_ctx *ctx, const topo_args *t, const op_grey_image *img,
                            const op_grey_image *stairs, op_world *w)
{
    uint32_t sx = img ? img->w : t->size, sy = img ? img->h : t->size;
    op_world_shape s = {{sx, sy, t->floors}, {t->chunk, t->chunk, 1}, (op_lattice)t->lattice};
    op_status st = t->sparse.given ? op_world_init_sparse(ctx, w, &s) : op_world_init(ctx, w, &s);
    if (st != OP_OK)
        return st;
    if (stairs && (stairs->w != sx || stairs->h != sy))
        return op_fail(ctx, OP_BAD_INPUT, "--stairs: the image is %u x %u, the world %u x %u",
                       stairs->w, stairs->h, sx, sy);
    if (t->sparse.given) {
        /* The resident rectangle, clamped to the grid, on every floor. */
        if ((uint32_t)t->sparse.k[0] >= w->chunks[0] || (uint32_t)t->sparse.k[1] >= w->chunks[1])
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "--sparse: chunk (%d, %d) lies outside the %u x %u chunk grid",
                           t->sparse.k[0], t->sparse.k[1], w->chunks[0], w->chunks[1]);
        for (uint32_t kz = 0; kz < w->chunks[2]; kz++)
            for (uint32_t ky = (uint32_t)t->sparse.k[1]; ky <= (uint32_t)t->sparse.k[3] && ky < w->chunks[1]; ky++)
                for (uint32_t kx = (uint32_t)t->sparse.k[0]; kx <= (uint32_t)t->sparse.k[2] && kx < w->chunks[0]; kx++)
                    if ((st = op_world_make_resident(ctx, w, kx + ky * w->chunks[0] +
                                                                 kz * w->chunks[0] * w->chunks[1])) != OP_OK)
                        return st;
    }
    if ((st = op_world_add_field(ctx, w, F_PASSABLE, OP_FIELD_U8)) != OP_OK ||
        (st = op_world_add_field(ctx, w, F_STAIRS, OP_FIELD_U8)) != OP_OK)
        return st;
    uint64_t lcg = 0x2545F4914F6CDD1Dull + t->seed, slcg = 0x9E3779B97F4A7C15ull + t->seed;
    for (uint32_t z = 0; z < t->floors; z++)
        for (uint32_t y = 0; y < sy; y++)
            for (uint32_t x = 0; x < sx; x++) {
                int pass, stair = 0;
                if (img) {
                    pass = img->v[(size_t)y * img->w + x] >= t->threshold;
                } else if (t->generate == GEN_WALLS) {
                    lcg_next(&lcg);
                    int corner = (x < 8 || x + 8 >= sx) && (y < 8 || y + 8 >= sy);
                    pass = corner || (lcg >> 33) % 100 >= t->walls;
                } else {
                    pass = 1;
                }
                if (z + 1 < t->floors) {
                    if (stairs) {
                        uint32_t v = stairs->v[(size_t)y * stairs->w + x];
                        stair = v >= OP_STAIR_POS_X && v <= OP_STAIR_NEG_Y ? (int)v : 0;
                    } else if (t->stair_density) {
                        lcg_next(&slcg);
                        if ((slcg >> 33) % 1000 < t->stair_density)
                            stair = 1 + (int)((slcg >> 40) % 4);
                    }
                }
                const op_coord3 c = {(int32_t)x, (int32_t)y, (int32_t)z};
                if (!op_world_is_resident(w, op_world_chunk_of(w, c)))
                    continue;
                if ((st = op_world_set(ctx, w, F_PASSABLE, c, pass)) != OP_OK ||
                    (stair && (st = op_world_set(ctx, w, F_STAIRS, c, stair)) != OP_OK))
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
            } else if (!op_world_is_resident(w, r.chunk)) {
                c[0] = 30, c[1] = 30, c[2] = 70; /* not resident */
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
        if (p->from_coord.z != 0)
            continue; /* floor 0 only */
        op_image_rect(&img, (int64_t)p->from_coord.x * s + s / 2, (int64_t)p->from_coord.y * s + s / 2,
                      s > 2 ? s / 3 : 1, s > 2 ? s / 3 : 1, white);
    }
    /* corridors (recomputed here: a path result borrows the scratch) */
    for (int i = 0; i < t->paths.n; i++) {
        const int32_t *v = t->paths.q[i].v;
        op_path_request q = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
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

static void print_digest(const char *what, uint64_t d)
{
    char hex[17];
    op_digest_hex(d, hex);
    printf("%s %s\n", what, hex);
}

/* The edits, their chunks marked dirty, then one incremental update; its time, the
 * rebuilt chunks, the digest after it and a fresh build's of the edited world. */
static int apply_edits(const char *CMD, op_ctx *ctx, const topo_args *t, op_world *w,
                       const op_movement_class *c, const op_region_graph_settings *set,
                       op_region_graph *g)
{
    op_chunk_key dirty[MAX_EDITS];
    uint32_t nd = 0;
    op_status st = OP_OK;
    for (int i = 0; i < t->edits.n && st == OP_OK; i++) {
        const topo_edit *e = &t->edits.e[i];
        const op_coord3 at = {e->x, e->y, e->z};
        if (e->stair)
            st = op_world_set(ctx, w, F_STAIRS, at, e->value);
        else
            st = op_world_set(ctx, w, F_PASSABLE, at,
                              e->value >= (t->input ? t->threshold : 128));
        if (st != OP_OK)
            break;
        const op_chunk_key k = op_world_chunk_of(w, at);
        int seen = 0;
        for (uint32_t j = 0; j < nd; j++)
            seen |= dirty[j] == k;
        if (!seen) {
            st = op_world_mark_topology_dirty(ctx, w, k);
            dirty[nd++] = k;
        }
    }
    op_topology_build_result ur;
    double t0 = op_now_ms();
    if (st == OP_OK)
        st = op_region_graph_update(ctx, w, c, set, dirty, nd, g, &ur);
    const double ms = op_now_ms() - t0;
    if (st != OP_OK)
        return cli_fail(CMD, ctx, st);
    /* Re-derived: the dirty chunks and their regular-step neighbours (topology.md). */
    uint32_t rederived = 0;
    for (uint32_t k = 0; k < w->chunk_count; k++) {
        uint32_t a[3];
        op_world_chunk_coord(w, k, a);
        int near = 0;
        for (uint32_t j = 0; j < nd && !near; j++) {
            uint32_t b[3];
            op_world_chunk_coord(w, dirty[j], b);
            int64_t dx = (int64_t)a[0] - b[0], dy = (int64_t)a[1] - b[1], dz = (int64_t)a[2] - b[2];
            int64_t l1 = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) + (dz < 0 ? -dz : dz);
            near = l1 <= 1 || (t->lattice == OP_LATTICE_AXIAL_HEX && dz == 0 &&
                               ((dx == 1 && dy == -1) || (dx == -1 && dy == 1)));
        }
        rederived += near && op_world_is_resident(w, k);
    }
    printf("update %d edits, status %s, %.3f ms, rebuilt chunks", t->edits.n,
           ur.status == OP_TOPOLOGY_BUILT           ? "built"
           : ur.status == OP_TOPOLOGY_INVALID_CHUNK ? "invalid-chunk"
                                                    : "missing-chunk",
           ms);
    for (uint32_t j = 0; j < nd; j++)
        printf(" %u", dirty[j]);
    printf(" (%u chunks re-derived)\n", rederived);
    printf("regions %llu portals %u exits %llu passable %llu (after the update)\n",
           (unsigned long long)ur.region_count, g->portal_count,
           (unsigned long long)ur.boundary_exit_count, (unsigned long long)ur.passable_tile_count);
    uint64_t after = 0, fresh = 0;
    op_region_graph f;
    op_region_graph_init(ctx, &f);
    st = op_region_graph_digest(ctx, g, &after);
    if (st == OP_OK)
        st = op_region_graph_build(ctx, w, c, set, &f, NULL);
    if (st == OP_OK)
        st = op_region_graph_digest(ctx, &f, &fresh);
    op_region_graph_free(&f);
    if (st != OP_OK)
        return cli_fail(CMD, ctx, st);
    print_digest("digest after update", after);
    char hex[17];
    op_digest_hex(fresh, hex);
    printf("digest of a fresh build %s (%s)\n", hex, after == fresh ? "equal" : "DIFFERENT");
    if (after != fresh) {
        fprintf(stderr, "onepath %s: the updated graph differs from a fresh build\n", CMD);
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
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
    t.floors = 1;
    cli_args a;
    cli_args_defaults(&a);
    a.ext = &t;
    int rc = cli_parse(&topo_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!t.input == !t.generate)
        return cli_usage_error(CMD, "give one input: a PNG file or --generate open|walls");
    if (t.input && (cli_given(&a, "--size") || cli_given(&a, "--walls") || cli_given(&a, "--seed") ||
                    cli_given(&a, "--stair-density")))
        return cli_usage_error(CMD, "--size, --walls, --seed and --stair-density apply to "
                                    "--generate only");
    if (t.generate && cli_given(&a, "--threshold"))
        return cli_usage_error(CMD, "--threshold applies to a PNG input only");
    const int have_stairs = t.stairs || t.stair_density;
    if (have_stairs && !cli_given(&a, "--floors"))
        t.floors = 2;
    if (have_stairs && t.lattice == OP_LATTICE_AXIAL_HEX)
        return cli_usage_error(CMD, "stairs need floors: an orthogonal --lattice");
    if (t.floors > 1 && t.lattice == OP_LATTICE_AXIAL_HEX)
        return cli_usage_error(CMD, "--floors: an axial-hex world has one floor");
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a.isa);
    if (code != EXIT_OK)
        return code;
    op_grey_image img, stair_img;
    memset(&img, 0, sizeof img);
    memset(&stair_img, 0, sizeof stair_img);
    op_world w;
    memset(&w, 0, sizeof w);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_status st = OP_OK;
    if (t.input)
        st = op_grey_png_load(&ctx, t.input, &img);
    if (st == OP_OK && t.stairs)
        st = op_grey_png_load(&ctx, t.stairs, &stair_img);
    if (st == OP_OK)
        st = make_world(&ctx, &t, t.input ? &img : NULL, t.stairs ? &stair_img : NULL, &w);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASSABLE);
    const op_transition_provider stairs = op_stair_transitions(F_STAIRS);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.threads = (int)t.threads;
    set.provider = have_stairs ? &stairs : NULL;
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
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        goto done;
    }
    printf("world %u x %u, chunks %u x %u (%u x %u = %u), %s, %s\n", w.shape.size[0],
           w.shape.size[1], t.chunk, t.chunk, w.chunks[0], w.chunks[1],
           w.chunks[0] * w.chunks[1], t.lattice == OP_LATTICE_AXIAL_HEX ? "axial hex" : "orthogonal",
           t.input ? t.input : t.generate == GEN_OPEN ? "generated open" : "generated walls");
    if (t.floors > 1)
        printf("floors %u (a layer of chunks each: %u chunks), stairs %s\n", t.floors,
               w.chunk_count, t.stairs ? t.stairs : t.stair_density ? "generated" : "none");
    if (w.residency == OP_RESIDENCY_SPARSE)
        printf("sparse: %u of %u chunks resident (chunks %d..%u x %d..%u)\n",
               op_world_resident_count(&w), w.chunk_count, t.sparse.k[0],
               (uint32_t)t.sparse.k[2] < w.chunks[0] ? (uint32_t)t.sparse.k[2] : w.chunks[0] - 1,
               t.sparse.k[1],
               (uint32_t)t.sparse.k[3] < w.chunks[1] ? (uint32_t)t.sparse.k[3] : w.chunks[1] - 1);
    printf("regions %llu portals %u exits %llu passable %llu\n",
           (unsigned long long)br.region_count, g.portal_count,
           (unsigned long long)br.boundary_exit_count, (unsigned long long)br.passable_tile_count);
    printf("build %.3f ms (first, allocating), %.3f ms (rebuild)\n", ms, ms_again);
    print_digest("digest topology/region-graph", digest);
    if (t.edits.n) {
        code = apply_edits(CMD, &ctx, &t, &w, &c, &set, &g);
        if (code != EXIT_OK)
            goto done;
    }
    st = op_region_graph_scratch_reserve(&ctx, &sc, &g);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        goto done;
    }
    for (int i = 0; i < t.queries.n; i++) {
        const int32_t *v = t.queries.q[i].v;
        op_path_request q = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
        op_reach_result r;
        double t0 = op_now_ms();
        st = op_reachable(&ctx, &g, &q, &sc, &r);
        double qms = op_now_ms() - t0;
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
        if (v[2] || v[5])
            printf("query %d,%d,%d,%d,%d,%d %s visited=%u\n", v[0], v[1], v[2], v[3], v[4], v[5],
                   op_reach_status_name(r.status), r.visited);
        else
            printf("query %d,%d,%d,%d %s visited=%u\n", v[0], v[1], v[3], v[4],
                   op_reach_status_name(r.status), r.visited);
        printf("  time %.3f us\n", qms * 1e3);
    }
    for (int i = 0; i < t.paths.n; i++) {
        const int32_t *v = t.paths.q[i].v;
        op_path_request q = {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
        op_coarse_path_result r;
        double t0 = op_now_ms();
        st = op_coarse_path(&ctx, &g, &q, &sc, &r);
        double qms = op_now_ms() - t0;
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
            goto done;
        }
        if (v[2] || v[5])
            printf("path %d,%d,%d,%d,%d,%d", v[0], v[1], v[2], v[3], v[4], v[5]);
        else
            printf("path %d,%d,%d,%d", v[0], v[1], v[3], v[4]);
        printf(" %s visited=%u regions=%u portals=%u chunks=%u bounds=%d,%d..%d,%d\n",
               op_reach_status_name(r.status), r.visited, r.region_count, r.portal_count,
               r.chunk_count, r.bounds.min.x, r.bounds.min.y, r.bounds.max.x, r.bounds.max.y);
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
    op_grey_png_free(&stair_img);
    op_ctx_free(&ctx);
    return code;
}
