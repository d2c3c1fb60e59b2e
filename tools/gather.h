/* Gathering tile sections that arrive in any order into a bake file written in (tz, tx)
 * order (bake --mpi's rank 0, issue 14). A section that comes before its turn waits in
 * memory up to a budget, then in a spill file next to the output; each one is checked and
 * written by the streaming writer (op_opbake_writer_put_section) once its turn comes.
 * Without an output path the sections are checked and digested as they come. No MPI
 * here: the MPI driver hands in bytes, the tests hand in bytes. */
#ifndef ONEPATH_TOOLS_GATHER_H
#define ONEPATH_TOOLS_GATHER_H

#include "onepath/onepath.h"

typedef struct cli_gather_stats {
    uint64_t sections, bytes;  /* received */
    uint64_t max_section;      /* the largest section [bytes] */
    uint64_t held_peak;        /* most bytes waiting in memory at once */
    uint64_t spilled, spilled_bytes; /* sections (bytes) that went to the spill file */
    double ms;                 /* time spent checking, buffering and writing */
} cli_gather_stats;

typedef struct cli_gather cli_gather;

/* world: the bake's description (op_opbake_writer_open); path NULL: no file. budget:
 * bytes of sections held in memory before spilling. */
op_status cli_gather_open(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                          const char *path, uint64_t budget, cli_gather **g);
/* Tile index's section (len bytes, the caller's; copied when it must wait). Writes it,
 * and every waiting section whose turn follows, when its turn has come; else keeps it.
 * OP_BAD_INPUT for a tile not expected or given twice, or a section that is not tile
 * index's or does not check (the writer's message); OP_IO_ERROR for the spill file. */
op_status cli_gather_put(cli_gather *g, uint32_t index, const unsigned char *sec, size_t len);
/* Sections gathered so far. */
uint32_t cli_gather_count(const cli_gather *g);
/* Every tile came: finishes the file (op_opbake_writer_finish; summary as there). Frees
 * g whatever the status; removes the spill file. */
op_status cli_gather_finish(cli_gather *g, op_tiled_result *summary, cli_gather_stats *stats);
/* Drops everything (no file at path), frees g; NULL is harmless. */
void cli_gather_abort(cli_gather *g, cli_gather_stats *stats);

#endif
