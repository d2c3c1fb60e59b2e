/* onepath verify: bakes the input with every kernel variant this CPU runs and every
 * partition, runs the invariant checkers, and reports any digest that differs from the
 * scalar reference (supplement §5). */
#include "cli.h"
#include "cli_verify.h"

#include <string.h>

/* --isa V, repeatable: the variants to compare (default: every one this CPU runs). */
static int parse_isa_list(const char *cmd, const cli_opt *o, const char *v, void *field)
{
    struct cli_isa_list *list = field;
    op_isa isa;
    if (op_isa_parse(v, &isa) != OP_OK)
        return cli_usage_error(cmd, "%s: '%s' is not a kernel variant (see --help)", o->name, v);
    if (isa == OP_ISA_AUTO)
        return 0; /* auto adds nothing: no --isa at all means every variant */
    for (int i = 0; i < list->n; i++)
        if (list->v[i] == isa)
            return 0;
    list->v[list->n++] = isa; /* at most OP_ISA_COUNT distinct values */
    return 0;
}

static const cli_opt verify_run_opts[] = {
    {"--isa", CLI_CUSTOM, CLI_FIELD(isas), "V",
     .help = "a kernel variant to compare, repeatable (the first is the reference): "
             "scalar|sse2|sse41|avx2|avx512|neon|portable",
     .parse = parse_isa_list, .deflt = "every variant this CPU runs, scalar first"},
    CLI_END};
static const cli_group verify_run = {NULL, verify_run_opts};

static const cli_group *const verify_groups[] = {&cli_group_input,    &cli_group_spans,
                                                 &cli_group_tiles,    &cli_group_regions,
                                                 &cli_group_contours, &cli_group_run,
                                                 &verify_run,         NULL};

static const cli_command verify_cmd = {
    "verify", "INPUT [options]",
    "Bakes INPUT through contours once per partition (watershed, monotone, layers, or the one "
    "given with --partition) and per kernel variant this CPU runs (or those given with --isa), "
    "checks the region and contour invariants of regions-contours §2-§6 on the first "
    "variant's result, and compares every stage digest with that one, and with the first "
    "variant on 2, 3 and 8 threads inside the grid (and --threads N). For a scene input it "
    "then bakes tiles (--tile-size, default 64) with 1, 2, 3 and 8 threads (and --threads N): "
    "one build3d/tiles digest for all, the invariants in every tile, and every tile's owned "
    "cells equal to the solo bake's (supplement §2).",
    verify_groups,
    "exit codes: 0 all agree and hold, 1 a difference or broken invariant, 2 usage error, 3 "
    "bad input, 4 internal failure"};

int cmd_verify(int argc, char **argv)
{
    const char *CMD = verify_cmd.name;
    cli_args a;
    cli_args_defaults(&a);
    int rc = cli_parse(&verify_cmd, argc, argv, &a);
    if (rc != CLI_CONTINUE)
        return rc;
    if (cli_args_check(CMD, &a))
        return EXIT_USAGE;
    cli_input in = a.in;
    op_bake_settings s = a.s;
    op_isa *isas = a.isas.v;
    int nisa = a.isas.n;
    const int partition_given = cli_given(&a, "--partition") != NULL, quiet = a.quiet;
    if (nisa == 0)
        for (int v = 0; v < OP_ISA_COUNT; v++)
            if (op_isa_available((op_isa)v))
                isas[nisa++] = (op_isa)v;
    s.until = OP_STAGE_CONTOURS;
    op_partition parts[3] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE, OP_PARTITION_LAYERS};
    int nparts = 3;
    if (partition_given) {
        parts[0] = s.regions.partition;
        nparts = 1;
    }

    op_ctx ctx;
    op_status st = op_ctx_init(&ctx, OP_ISA_SCALAR);
    if (st != OP_OK)
        return cli_fail(CMD, &ctx, st);
    st = op_bake_settings_validate(&ctx, &s);
    if (st != OP_OK) {
        int code = cli_fail(CMD, &ctx, st);
        op_ctx_free(&ctx);
        return code;
    }
    cli_progress_install(&ctx, !quiet);
    char desc[512];
    printf("verify %s: %d partition(s) x %d variant(s)\n",
           cli_input_describe(&in, desc, sizeof desc), nparts, nisa);
    printf("%-10s %-9s %-16s %-16s %-16s %-16s %s\n", "partition", "isa", "spans", "distance",
           "regions", "contours", "result");
    int failures = 0;
    for (int p = 0; p < nparts; p++) {
        s.regions.partition = parts[p];
        op_bake_result ref;
        memset(&ref, 0, sizeof ref);
        for (int v = 0; v < nisa; v++) {
            if (!op_isa_available(isas[v])) {
                printf("%-10s %-9s (not available on this CPU/build)\n",
                       op_partition_name(parts[p]), op_isa_name(isas[v]));
                continue;
            }
            st = op_ctx_set_isa(&ctx, isas[v]);
            op_bake_settings sv = s;
            sv.contours.keep_raw = 1; /* the contour checker reads raw loops */
            op_bake_result r;
            if (st == OP_OK)
                st = cli_bake(&ctx, &in, &sv, &r);
            cli_progress_done();
            if (st != OP_OK) {
                int code = cli_fail(CMD, &ctx, st);
                op_bake_result_free(&r);
                op_bake_result_free(&ref);
                op_ctx_free(&ctx);
                return code;
            }
            char verdict[600] = "ok";
            if (ref.reached == 0) {
                /* First variant: the reference; run the invariant checkers on it. */
                op_region_report rrep;
                memset(&rrep, 0, sizeof rrep);
                op_status cs = op_check_regions(&ctx, &r.chf, &sv.regions, r.region,
                                                r.region_count, 1, &rrep);
                if (cs != OP_OK) {
                    snprintf(verdict, sizeof verdict, "REGION INVARIANT: %s", ctx.err);
                    failures++;
                } else {
                    op_contour_report crep;
                    memset(&crep, 0, sizeof crep);
                    /* A field with a band was traced with BorderRegion (supplement §2). */
                    if (r.chf.border_size > 0)
                        sv.contours.border_region = OP_BORDER_REGION;
                    cs = op_check_contours(&ctx, &r.chf, r.region, r.region_count, &sv.contours,
                                           &r.contours, &crep);
                    if (cs != OP_OK) {
                        snprintf(verdict, sizeof verdict, "CONTOUR INVARIANT: %s", ctx.err);
                        failures++;
                    } else {
                        snprintf(verdict, sizeof verdict, "reference, invariants hold");
                    }
                }
            } else {
                const char *what = NULL;
                if (r.digest_spans != ref.digest_spans)
                    what = "spans";
                else if (r.digest_distance != ref.digest_distance)
                    what = "distance";
                else if (r.digest_regions != ref.digest_regions)
                    what = "regions";
                else if (r.digest_contours != ref.digest_contours)
                    what = "contours";
                if (what) {
                    snprintf(verdict, sizeof verdict, "DIFFERS from %s at %s",
                             op_isa_name(isas[0]), what);
                    failures++;
                } else {
                    snprintf(verdict, sizeof verdict, "same as %s", op_isa_name(isas[0]));
                }
            }
            char h[4][17];
            op_digest_hex(r.digest_spans, h[0]);
            op_digest_hex(r.digest_distance, h[1]);
            op_digest_hex(r.digest_regions, h[2]);
            op_digest_hex(r.digest_contours, h[3]);
            printf("%-10s %-9s %s %s %s %s %s\n", op_partition_name(parts[p]),
                   op_isa_name(isas[v]), h[0], h[1], h[2], h[3], verdict);
            fflush(stdout);
            if (ref.reached == 0)
                ref = r;
            else
                op_bake_result_free(&r);
        }
        if (ref.reached != 0) {
            /* Threads inside one grid, on the reference variant. */
            op_bake_settings sv = s;
            sv.contours.keep_raw = 1;
            st = op_ctx_set_isa(&ctx, isas[0]);
            const int t = st == OP_OK ? cli_verify_solo_threads(&ctx, &in, &sv, &ref, a.threads)
                                      : -cli_fail(CMD, &ctx, st);
            if (t < 0) {
                op_bake_result_free(&ref);
                op_ctx_free(&ctx);
                return -t;
            }
            failures += t;
        }
        op_bake_result_free(&ref);
    }
    if (cli_input_kind(&in) != CLI_IN_CHF) {
        a.s.regions = s.regions;
        const int t = cli_verify_tiles(&ctx, &a, parts, nparts);
        if (t < 0) {
            op_ctx_free(&ctx);
            return -t;
        }
        failures += t;
    }
    op_ctx_free(&ctx);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "verified", failures);
    return failures ? EXIT_VERIFY_FAILED : EXIT_OK;
}
