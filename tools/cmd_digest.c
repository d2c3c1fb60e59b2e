/* onepath digest: the stage digests of an input, one per line (supplement §5). */
#include "cli.h"

#include <string.h>

static const cli_opt digest_run_opts[] = {
    CLI_OPT_UNTIL,
    CLI_OPT_ISA,
    CLI_END};
static const cli_group digest_run = {NULL, digest_run_opts};

static const cli_group *const digest_groups[] = {&cli_group_input,    &cli_group_spans,
                                                 &cli_group_tiles,    &cli_group_regions,
                                                 &cli_group_contours, &cli_group_run,
                                                 &digest_run,         NULL};

static const cli_command digest_cmd = {
    "digest", "INPUT [options]",
    "Prints 'stage digest' lines (spans, distance, regions, contours; supplement §5), as "
    "'onepath bake --json' records them; with --tile-size, the one line 'tiles digest' "
    "(build3d/tiles, the same for any --threads).",
    digest_groups, "exit codes: 0 ok, 2 usage error, 3 bad input, 4 internal failure"};

int cmd_digest(int argc, char **argv)
{
    const char *CMD = digest_cmd.name;
    cli_args a;
    cli_args_defaults(&a);
    int rc = cli_parse(&digest_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (cli_args_check(CMD, &a))
        return EXIT_USAGE;
    op_ctx ctx;
    int code = cli_ctx_init(CMD, &ctx, a.isa);
    if (code != EXIT_OK)
        return code;
    if (a.s.config.tile_size <= 0 && cli_given(&a, "--border")) {
        op_ctx_free(&ctx);
        return cli_usage_error(CMD, "--border is for tiled bakes: give --tile-size T too");
    }
    /* Without tiles, --threads are threads inside the one grid (same digests). */
    if (a.s.config.tile_size <= 0 && cli_given(&a, "--threads") &&
        op_ctx_set_threads(&ctx, a.threads) != OP_OK) {
        code = cli_fail(CMD, &ctx, OP_INVALID_ARGUMENT);
        op_ctx_free(&ctx);
        return code;
    }
    if (a.s.config.tile_size > 0) {
        op_scene scene;
        op_status st = cli_load_scene(&ctx, &a.in, &scene, &a.s.config);
        op_tiled_options o;
        op_tiled_options_defaults(&o);
        o.threads = a.threads;
        op_tiled_result tr;
        memset(&tr, 0, sizeof tr);
        if (st == OP_OK)
            st = op_bake_tiled(&ctx, &scene, &a.s, &o, &tr);
        op_scene_free(&scene);
        if (st != OP_OK) {
            code = cli_fail(CMD, &ctx, st);
        } else {
            char h[17];
            op_digest_hex(tr.digest, h);
            printf("tiles %s\n", h);
        }
        op_tiled_result_free(&tr);
        op_ctx_free(&ctx);
        return code;
    }
    cli_progress_install(&ctx, !a.quiet);
    op_bake_result r;
    op_status st = cli_bake(&ctx, &a.in, &a.s, &r);
    cli_progress_done();
    if (st != OP_OK) {
        code = cli_fail(CMD, &ctx, st);
        op_bake_result_free(&r);
        op_ctx_free(&ctx);
        return code;
    }
    char h[17];
    op_digest_hex(r.digest_spans, h);
    printf("spans %s\n", h);
    if (r.reached >= OP_STAGE_REGIONS) {
        op_digest_hex(r.digest_distance, h);
        printf("distance %s\n", h);
        op_digest_hex(r.digest_regions, h);
        printf("regions %s\n", h);
    }
    if (r.reached >= OP_STAGE_CONTOURS) {
        op_digest_hex(r.digest_contours, h);
        printf("contours %s\n", h);
    }
    op_bake_result_free(&r);
    op_ctx_free(&ctx);
    return EXIT_OK;
}
