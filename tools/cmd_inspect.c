/* onepath inspect FILE.opbake: reads a bake file (supplement §4), which verifies every
 * section checksum and every stored digest, and prints what it holds. */
#include "cli.h"

#include <stddef.h>
#include <string.h>

typedef struct inspect_args {
    int tiles;
} inspect_args;

static const cli_opt inspect_opts[] = {
    {"FILE", CLI_FILE, CLI_FIELD(in.path), "bake file", .help = "an OPBAKE1 bake file",
     .flags = CLI_POSITIONAL | CLI_ONCE},
    {"--tiles", CLI_FLAG, offsetof(inspect_args, tiles), NULL, .flags = CLI_EXT,
     .help = "one line per tile: coordinates, spans, regions, contours, digests"},
    CLI_END};
static const cli_group inspect_group = {"options", inspect_opts};
static const cli_group *const inspect_groups[] = {&inspect_group, NULL};

static const cli_command inspect_cmd = {
    "inspect", "FILE.opbake [--tiles]",
    "Reads a bake file written by 'onepath bake --tile-size T --out FILE.opbake', checking "
    "every section's checksum, every tile's stored digests against its contents and the "
    "build3d/tiles digest, and prints a summary.",
    inspect_groups,
    "exit codes: 0 the file is intact, 2 usage error, 3 truncated, corrupted or unreadable "
    "file (the message names the offset and the reason), 4 internal failure"};

int cmd_inspect(int argc, char **argv)
{
    const char *CMD = inspect_cmd.name;
    cli_args a;
    cli_args_defaults(&a);
    inspect_args ia = {0};
    a.ext = &ia;
    int rc = cli_parse(&inspect_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!a.in.path)
        return cli_usage_error(CMD, "no bake file given");
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, OP_ISA_SCALAR);
    if (code != EXIT_OK)
        return code;
    op_tiled_result r;
    unsigned flags = 0;
    op_status st = op_opbake_read(&ctx, a.in.path, &r, &flags);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        op_ctx_free(&ctx);
        return code;
    }
    char h[17], hw[17], hs[17];
    op_digest_hex(r.digest, h);
    op_digest_hex(r.digest_world, hw);
    op_digest_hex(r.digest_settings, hs);
    const uint32_t in_file = r.held ? r.held_count : r.tile_count;
    printf("%s: OPBAKE1 version %u, intact (%u sections: every checksum and digest "
           "verified)\n",
           a.in.path, (flags & OP_OPBAKE_VERSION1) ? 1u : OP_OPBAKE_VERSION,
           in_file + (r.held ? 3 : 2));
    if (r.held)
        printf("  part       %u of %u tiles (a partial file: 'onepath merge' joins the parts)\n",
               r.held_count, r.tile_count);
    printf("  world      %u x %u cells, cs %g, ch %g, bmin (%g, %g, %g), bmax (%g, %g, %g)\n",
           r.world_width, r.world_depth, r.cs, r.ch, r.bmin[0], r.bmin[1], r.bmin[2],
           r.bmax[0], r.bmax[1], r.bmax[2]);
    printf("  tiles      %u x %u = %u of %u cells, border %u\n", r.tiles_x, r.tiles_z,
           r.tile_count, r.tile_size, r.border_size);
    printf("  settings   walkable height %d, climb %d, radius %d, partition %s\n",
           r.walkable_height, r.walkable_climb, r.walkable_radius, op_partition_name(r.partition));
    printf("  stage      %s; holds contours%s%s\n", op_stage_name(r.reached),
           (flags & OP_OPBAKE_RAW) ? ", raw loops" : "",
           (flags & OP_OPBAKE_REGIONS) ? ", per-span region ids" : "");
    printf("  spans      %llu in the world, %llu in the windows (%llu walkable, %llu solid)\n",
           (unsigned long long)r.owned_spans, (unsigned long long)r.spans,
           (unsigned long long)r.walkable_spans, (unsigned long long)r.solid_spans);
    if (r.reached >= OP_STAGE_REGIONS)
        printf("  regions    %llu\n", (unsigned long long)r.regions);
    if (r.reached >= OP_STAGE_CONTOURS)
        printf("  contours   %llu (%llu vertices)\n", (unsigned long long)r.contours,
               (unsigned long long)r.contour_verts);
    const op_tile *big = &r.tiles[r.largest_tile];
    if (in_file)
        printf("  largest    tile (%u, %u): %u spans, %u triangles\n", big->tx, big->tz,
               big->span_count, big->triangles);
    if (flags & OP_OPBAKE_VERSION1)
        printf("  digests    (version 1: no world or settings digest)\n");
    else
        printf("  digests    world %s, settings %s\n", hw, hs);
    if (r.held)
        printf("  build3d/tiles digest (known once the parts are merged)\n");
    else
        printf("  build3d/tiles digest %s\n", h);
    if (ia.tiles) {
        printf("%6s %6s %10s %8s %9s %9s  %-16s %-16s\n", "tx", "tz", "spans", "regions",
               "contours", "vertices", "spans digest", "contours digest");
        for (uint32_t i = 0; i < r.tile_count; i++) {
            if (r.held && !r.held[i])
                continue;
            const op_tile *t = &r.tiles[i];
            char hs[17], hc[17];
            op_digest_hex(t->digest_spans, hs);
            op_digest_hex(t->digest_contours, hc);
            printf("%6u %6u %10u %8u %9u %9u  %s %s\n", t->tx, t->tz, t->span_count,
                   t->region_count, t->contours.count, t->contour_verts, hs, hc);
        }
    }
    op_tiled_result_free(&r);
    op_ctx_free(&ctx);
    return EXIT_OK;
}
