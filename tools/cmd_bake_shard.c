/* bake's options for bakes beyond one process (issue 14): --tiles RANGE bakes one shard
 * into a partial bake file (onepath merge joins the parts), --mpi runs the bake on every
 * rank of an MPI job (tools/mpi/bake_mpi.c; a build without MPI refuses it). */
#include "cli.h"

#include <string.h>

/* The syntax now (the grid is only known once the input is read). */
static int parse_tiles(const char *cmd, const cli_opt *o, const char *value, void *field)
{
    op_ctx tmp;
    memset(&tmp, 0, sizeof tmp);
    op_shard sh;
    if (op_shard_parse(&tmp, value, &sh) != OP_OK)
        return cli_usage_error(cmd, "%s: %s", o->name, tmp.err);
    *(const char **)field = value;
    return 0;
}

static const cli_opt distributed_opts[] = {
    {"--tiles", CLI_CUSTOM, CLI_FIELD(tiles_range), "RANGE", .parse = parse_tiles,
     .inputs = CLI_IN_SCENE, .flags = CLI_ONCE,
     .help = "bake only these tiles into a partial bake file (--out PART.opbake; 'onepath "
             "merge' joins the parts): TX0-TX1,TZ0-TZ1 (tile coordinates, inclusive; TX,TZ "
             "for one tile) or K/N, the K-th of N cuts of the tiles in (tz, tx) order with "
             "equal estimated cost"},
    {"--mpi", CLI_FLAG, CLI_FIELD(mpi), NULL, .inputs = CLI_IN_SCENE,
     .help = "under mpirun: every rank reads the input and bakes the tiles rank 0 hands out "
             "(largest first); rank 0 gathers them and writes the one-process bake's bytes"},
    {"--gather-mib", CLI_UINT, CLI_FIELD(gather_mib), "N", .lo = 0, .hi = 1u << 20,
     .inputs = CLI_IN_SCENE, .deflt = "256",
     .help = "--mpi: tiles that arrive before their turn in the file are held in rank 0's "
             "memory up to N MiB, then in a temporary file next to --out"},
    CLI_END};
const cli_group cli_group_distributed = {"beyond one process", distributed_opts};

#ifndef OP_HAVE_MPI
int cli_bake_mpi(cli_args *a)
{
    (void)a;
    return cli_usage_error("bake", "--mpi: this onepath was built without MPI (configure "
                                   "with -DOP_MPI=ON and Open MPI installed)");
}
#endif
