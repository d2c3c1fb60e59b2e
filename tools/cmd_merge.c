/* onepath merge PART... --out FILE.opbake: joins the partial bake files of a sharded bake
 * (bake --tiles RANGE) into the file a one-machine bake writes, byte for byte (issue 14;
 * op_opbake_merge checks that the parts share world and settings and hold every tile
 * exactly once). */
#include "cli.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct merge_args {
    const char **parts;
    size_t count, cap;
} merge_args;

static int add_part(const char *cmd, const cli_opt *o, const char *value, void *field)
{
    merge_args *m = field;
    if (!*value)
        return cli_usage_error(cmd, "%s: an empty file name", o->metavar);
    if (m->count == m->cap) {
        const size_t cap = m->cap ? 2 * m->cap : 16;
        const char **p = realloc(m->parts, cap * sizeof *p);
        if (!p)
            return cli_usage_error(cmd, "out of memory for %zu part names", cap);
        m->parts = p;
        m->cap = cap;
    }
    m->parts[m->count++] = value;
    return 0;
}

static const cli_opt merge_opts[] = {
    {"PART", CLI_CUSTOM, 0, "part file", .parse = add_part, .flags = CLI_POSITIONAL | CLI_EXT,
     .help = "partial bake files (bake --tiles RANGE --out PART.opbake), in any order"},
    {"--out", CLI_FILE, CLI_FIELD(out), "FILE.opbake",
     .help = "the merged bake file (written through a temporary, renamed when complete)"},
    {"--quiet", CLI_FLAG, CLI_FIELD(quiet), NULL, .alias = "-q", .help = "no summary"},
    CLI_END};
static const cli_group merge_group = {"options", merge_opts};
static const cli_group *const merge_groups[] = {&merge_group, NULL};

static const cli_command merge_cmd = {
    "merge", "PART.opbake... --out FILE.opbake",
    "Joins the parts of a sharded bake (onepath bake --tile-size T --tiles RANGE --out "
    "PART.opbake on any number of machines) into the bake file a one-machine bake of the "
    "same world and settings writes, byte for byte. Every part is read and checked in "
    "full; parts of another world or other settings, tiles in two parts and tiles in none "
    "are errors that name the files and the tiles, and then nothing is written.",
    merge_groups,
    "exit codes: 0 merged, 2 usage error, 3 a part is unreadable, corrupted, foreign, "
    "overlapping or missing tiles, 4 internal failure"};

int cmd_merge(int argc, char **argv)
{
    const char *CMD = merge_cmd.name;
    cli_args a;
    cli_args_defaults(&a);
    merge_args m = {NULL, 0, 0};
    a.ext = &m;
    int rc = cli_parse(&merge_cmd, argc, argv, &a);
    if (rc == CLI_CONTINUE && m.count == 0)
        rc = cli_usage_error(CMD, "no part files given");
    if (rc == CLI_CONTINUE && !a.out)
        rc = cli_usage_error(CMD, "give the merged file with --out FILE.opbake");
    if (rc != CLI_CONTINUE) {
        free(m.parts);
        return rc;
    }
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, OP_ISA_SCALAR);
    if (code != EXIT_OK) {
        free(m.parts);
        return code;
    }
    const double t0 = op_now_ms();
    op_opbake_merge_info info;
    const op_status st = op_opbake_merge(&ctx, m.parts, m.count, a.out, &info);
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
    } else if (!a.quiet) {
        char h[17];
        op_digest_hex(info.digest, h);
        printf("%s: %u tiles from %u part%s, %llu bytes in %.1f ms\n  build3d/tiles digest: %s\n",
               a.out, info.tiles, info.parts, info.parts == 1 ? "" : "s",
               (unsigned long long)info.bytes, op_now_ms() - t0, h);
    }
    op_ctx_free(&ctx);
    free(m.parts);
    return code;
}
