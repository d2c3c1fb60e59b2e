/* onepath isa: which kernel variants this build holds and this CPU runs. */
#include "cli.h"

#include <string.h>

int cmd_isa(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: onepath isa\n"
               "Lists the kernel variants (scalar, sse2, sse41, avx2, avx512, neon, portable),\n"
               "whether this CPU runs them and which one 'auto' picks (ONEPATH_ISA narrows it;\n"
               "a value it cannot use is reported here, and bake and digest refuse it).\n");
        return EXIT_OK;
    }
    if (argc > 1)
        return cli_usage_error("isa", "unknown option '%s'", argv[1]);
    op_isa best = op_isa_best();
    const char *env;
    const op_isa_env_state es = op_isa_env(NULL, &env);
    printf("%-9s %s\n", "variant", "status");
    for (int v = 0; v < OP_ISA_COUNT; v++)
        printf("%-9s %s%s\n", op_isa_name((op_isa)v),
               op_isa_available((op_isa)v) ? "available" : "not available here",
               (op_isa)v != best ? ""
               : es == OP_ISA_ENV_APPLIED ? " (auto, as ONEPATH_ISA asks)"
                                          : " (auto)");
    /* The listing is where one looks when a variant is not the one expected. */
    if (es == OP_ISA_ENV_UNKNOWN)
        printf("ONEPATH_ISA='%s' is not a variant name: auto ignores it, bake and digest "
               "refuse it\n", env);
    else if (es == OP_ISA_ENV_UNAVAILABLE)
        printf("ONEPATH_ISA=%s is not available here: auto ignores it, bake and digest "
               "refuse it\n", env);
    return EXIT_OK;
}
