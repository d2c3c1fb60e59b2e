/* onepath — bake navigation data: the command-line entry point. */
#include "cli.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "onepath %s — bakes navigation data (spans, distance field, regions, contours)\n"
            "\n"
            "usage: onepath <command> [options]\n"
            "\n"
            "commands:\n"
            "  bake     build the compact heightfield, regions and contours of an input\n"
            "  verify   run every instruction-set variant and the invariant checkers\n"
            "  digest   print the stage digests of an input (as bake --json records them)\n"
            "  isa      list the kernel variants and whether this CPU runs them\n"
            "\n"
            "Run 'onepath <command> --help' for its options.\n"
            "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 bad input,\n"
            "4 internal failure (including out of memory).\n",
            ONEPATH_VERSION_STRING);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("onepath %s\n", ONEPATH_VERSION_STRING);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "bake"))
        return cmd_bake(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify"))
        return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "digest"))
        return cmd_digest(argc - 1, argv + 1);
    if (!strcmp(cmd, "isa"))
        return cmd_isa(argc - 1, argv + 1);
    fprintf(stderr, "onepath: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
