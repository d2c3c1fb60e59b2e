/* onepath — bake navigation data: the command-line entry point.
 *
 * The tool never calls setlocale: it parses and prints numbers in the C locale whatever
 * LC_NUMERIC says (and its JSON and SVG writers do not depend on the locale anyway). */
#include "cli.h"
#include "cli_cache.h"

#include <string.h>

/* Adding a command: a line here, a cmd_NAME function (cli.h) that runs cli_parse on its
 * cli_command (cli_opts.h). */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} commands[] = {
    {"bake", cmd_bake, "build the compact heightfield, regions and contours of an input"},
    {"verify", cmd_verify, "run every instruction-set variant and the invariant checkers"},
    {"inspect", cmd_inspect, "check a bake file (.opbake) and print what it holds"},
    {"digest", cmd_digest, "print the stage digests of an input (as bake --json records them)"},
    {"isa", cmd_isa, "list the kernel variants and whether this CPU runs them"},
    {"topology", cmd_topology, "build the chunk-region graph of a top-down world; queries"},
    {"merge", cmd_merge, "join the partial bake files of a sharded bake into the whole file"},
    {"update", cmd_update, "apply run-time obstacles to a tile cache (.opcache), rebuilding tiles"},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void usage(FILE *f)
{
    fprintf(f,
            "onepath %s — bakes navigation data (spans, distance field, regions, contours)\n"
            "\n"
            "usage: onepath <command> [options]\n"
            "\n"
            "commands:\n",
            ONEPATH_VERSION_STRING);
    for (int i = 0; i < COMMAND_COUNT; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\n"
               "Run 'onepath <command> --help' for its options.\n"
               "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 bad input,\n"
               "4 internal failure (including out of memory).\n");
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
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "onepath: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
