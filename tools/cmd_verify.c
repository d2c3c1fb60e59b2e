/* onepath verify: bakes the input with every kernel variant this CPU runs and every
 * partition, runs the invariant checkers, and reports any digest that differs from the
 * scalar reference (supplement §5). */
#include "cli.h"

#include <string.h>

static const char *CMD = "verify";

static void verify_help(FILE *f)
{
    fprintf(f,
"usage: onepath verify (--demo [--demo-size N] | --demo-terrain | FILE.obj | FILE.png |\n"
"                       FILE.r16 --width W | --chf FILE.opchf) [settings]\n"
"\n"
"Bakes the input through contours once per partition (watershed, monotone, layers, or\n"
"the one given with --partition) and per kernel variant this CPU runs (or those given\n"
"with --isa, repeatable), checks the region and contour invariants of regions-contours\n"
"§2-§6 on the scalar result, and compares every stage digest with the scalar one.\n"
"Settings options are those of 'onepath bake'.\n"
"exit codes: 0 all agree and hold, 1 a difference or broken invariant, 2 usage error,\n"
"3 bad input, 4 internal failure\n");
}

int cmd_verify(int argc, char **argv)
{
    cli_input in;
    cli_input_defaults(&in);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    int partition_given = 0, quiet = 0;
    op_isa isas[OP_ISA_COUNT];
    int nisa = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            verify_help(stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--partition"))
            partition_given = 1;
        int rc = cli_input_option(CMD, &in, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc)
            continue;
        rc = cli_settings_option(CMD, &s, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc)
            continue;
        op_isa isa;
        rc = cli_isa_option(CMD, &isa, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc) {
            if (isa != OP_ISA_AUTO && nisa < OP_ISA_COUNT)
                isas[nisa++] = isa;
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
            continue;
        }
        return cli_usage_error(CMD, "unknown option '%s'", a);
    }
    if (cli_input_check(CMD, &in))
        return EXIT_USAGE;
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
    printf("verify %s: %d partition(s) x %d variant(s)\n", cli_input_describe(&in, desc, sizeof desc),
           nparts, nisa);
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
        op_bake_result_free(&ref);
    }
    op_ctx_free(&ctx);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "verified", failures);
    return failures ? EXIT_VERIFY_FAILED : EXIT_OK;
}
