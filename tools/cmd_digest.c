/* onepath digest: the stage digests of an input, one per line (supplement §5). */
#include "cli.h"

#include <string.h>

int cmd_digest(int argc, char **argv)
{
    const char *CMD = "digest";
    cli_input in;
    cli_input_defaults(&in);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    op_isa isa = OP_ISA_AUTO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: onepath digest (--demo [--demo-size N] | FILE ... | --chf FILE) "
                   "[bake settings] [--isa V]\n"
                   "Prints 'stage digest' lines: spans, distance, regions, contours.\n");
            return EXIT_OK;
        }
        int rc = cli_input_option(CMD, &in, argc, argv, &i);
        if (!rc)
            rc = cli_settings_option(CMD, &s, argc, argv, &i);
        if (!rc)
            rc = cli_isa_option(CMD, &isa, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (!rc)
            return cli_usage_error(CMD, "unknown option '%s'", argv[i]);
    }
    if (cli_input_check(CMD, &in))
        return EXIT_USAGE;
    op_ctx ctx;
    op_status st = op_ctx_init(&ctx, isa);
    op_bake_result r;
    memset(&r, 0, sizeof r);
    if (st == OP_OK)
        st = cli_bake(&ctx, &in, &s, &r);
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
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
