/* Tile sections in any order into a bake file in (tz, tx) order (gather.h). Memory is the
 * per-tile index (24 bytes a tile), the sections waiting in memory (at most the budget)
 * and one section read back from the spill file at a time. */
#include "gather.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { WAIT_NONE = 0, WAIT_MEM = 1, WAIT_SPILL = 2, DONE = 3 };

typedef struct waiting {
    unsigned char *mem; /* WAIT_MEM */
    uint64_t offset;    /* WAIT_SPILL: in the spill file */
    uint32_t len;
    uint8_t state;
} waiting;

struct cli_gather {
    op_ctx *ctx;
    op_opbake_writer *w;
    int ordered;            /* a file: in (tz, tx) order */
    uint32_t tile_count, next, count;
    waiting *wait;
    uint64_t budget, held_bytes;
    FILE *spill;
    char spill_path[4096];
    const char *path;
    uint64_t spill_end;
    unsigned char *buf;     /* a section read back */
    size_t buf_cap;
    cli_gather_stats st;
};

static void free_all(cli_gather *g)
{
    if (g->wait)
        for (uint32_t i = 0; i < g->tile_count; i++)
            if (g->wait[i].state == WAIT_MEM)
                free(g->wait[i].mem);
    free(g->wait);
    free(g->buf);
    if (g->spill) {
        fclose(g->spill);
        remove(g->spill_path);
    }
    free(g);
}

op_status cli_gather_open(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                          const char *path, uint64_t budget, cli_gather **out)
{
    *out = NULL;
    cli_gather *g = calloc(1, sizeof *g);
    if (!g)
        return op_fail(ctx, OP_NO_MEMORY, "gather: out of memory");
    g->ctx = ctx;
    g->ordered = path != NULL;
    g->path = path;
    g->tile_count = world->tile_count;
    g->budget = budget;
    g->wait = calloc(world->tile_count ? world->tile_count : 1, sizeof *g->wait);
    if (!g->wait) {
        free_all(g);
        return op_fail(ctx, OP_NO_MEMORY, "gather: out of memory for %u tiles", world->tile_count);
    }
    op_status st = op_opbake_writer_open(ctx, world, flags, path, &g->w);
    if (st != OP_OK) {
        free_all(g);
        return st;
    }
    *out = g;
    return OP_OK;
}

uint32_t cli_gather_count(const cli_gather *g) { return g->count; }

static op_status spill_out(cli_gather *g, waiting *wt, const unsigned char *sec, size_t len)
{
    if (!g->spill) {
        snprintf(g->spill_path, sizeof g->spill_path, "%s.spill-%ld", g->path, (long)getpid());
        g->spill = fopen(g->spill_path, "w+b");
        if (!g->spill)
            return op_fail(g->ctx, OP_IO_ERROR, "%s: cannot create: %s", g->spill_path,
                           strerror(errno));
    }
    if (fseeko(g->spill, (off_t)g->spill_end, SEEK_SET) != 0 ||
        fwrite(sec, 1, len, g->spill) != len)
        return op_fail(g->ctx, OP_IO_ERROR, "%s: write failed: %s", g->spill_path,
                       strerror(errno));
    wt->offset = g->spill_end;
    wt->len = (uint32_t)len;
    wt->state = WAIT_SPILL;
    g->spill_end += len;
    g->st.spilled++;
    g->st.spilled_bytes += len;
    return OP_OK;
}

/* Writes tile i's section (it is i's turn). */
static op_status write_one(cli_gather *g, uint32_t i, const unsigned char *sec, size_t len)
{
    const op_status st = op_opbake_writer_put_section(g->w, sec, len);
    if (st == OP_OK) {
        g->wait[i].state = DONE;
        g->next = i + 1;
    }
    return st;
}

/* Writes every waiting section whose turn has come. */
static op_status drain(cli_gather *g)
{
    while (g->next < g->tile_count && g->wait[g->next].state != WAIT_NONE &&
           g->wait[g->next].state != DONE) {
        waiting *wt = &g->wait[g->next];
        op_status st;
        if (wt->state == WAIT_MEM) {
            st = write_one(g, g->next, wt->mem, wt->len);
            g->held_bytes -= wt->len;
            free(wt->mem);
            wt->mem = NULL;
        } else {
            if (wt->len > g->buf_cap) {
                unsigned char *b = realloc(g->buf, wt->len);
                if (!b)
                    return op_fail(g->ctx, OP_NO_MEMORY, "gather: out of memory for %u bytes",
                                   wt->len);
                g->buf = b;
                g->buf_cap = wt->len;
            }
            if (fseeko(g->spill, (off_t)wt->offset, SEEK_SET) != 0 ||
                fread(g->buf, 1, wt->len, g->spill) != wt->len)
                return op_fail(g->ctx, OP_IO_ERROR, "%s: read failed", g->spill_path);
            st = write_one(g, g->next, g->buf, wt->len);
        }
        if (st != OP_OK)
            return st;
    }
    return OP_OK;
}

op_status cli_gather_put(cli_gather *g, uint32_t index, const unsigned char *sec, size_t len)
{
    const double t0 = op_now_ms();
    if (index >= g->tile_count || len > UINT32_MAX || g->wait[index].state != WAIT_NONE)
        return op_fail(g->ctx, OP_BAD_INPUT,
                       "tile %u (of %u, %zu bytes) was not expected or came twice", index,
                       g->tile_count, len);
    g->st.sections++;
    g->st.bytes += len;
    if (len > g->st.max_section)
        g->st.max_section = len;
    g->count++;
    op_status st = OP_OK;
    if (!g->ordered) {
        st = op_opbake_writer_put_section(g->w, sec, len);
        g->wait[index].state = DONE;
    } else if (index == g->next) {
        st = write_one(g, index, sec, len);
        if (st == OP_OK)
            st = drain(g);
    } else if (g->held_bytes + len <= g->budget && (g->wait[index].mem = malloc(len ? len : 1))) {
        waiting *wt = &g->wait[index];
        memcpy(wt->mem, sec, len);
        wt->len = (uint32_t)len;
        wt->state = WAIT_MEM;
        g->held_bytes += len;
        if (g->held_bytes > g->st.held_peak)
            g->st.held_peak = g->held_bytes;
    } else {
        st = spill_out(g, &g->wait[index], sec, len);
    }
    g->st.ms += op_now_ms() - t0;
    return st;
}

op_status cli_gather_finish(cli_gather *g, op_tiled_result *summary, cli_gather_stats *stats)
{
    const double t0 = op_now_ms();
    op_status st = g->ordered ? drain(g) : OP_OK;
    op_opbake_writer *w = g->w;
    g->w = NULL;
    if (st == OP_OK)
        st = op_opbake_writer_finish(w, summary);
    else
        op_opbake_writer_abort(w);
    g->st.ms += op_now_ms() - t0;
    if (stats)
        *stats = g->st;
    free_all(g);
    return st;
}

void cli_gather_abort(cli_gather *g, cli_gather_stats *stats)
{
    if (!g)
        return;
    op_opbake_writer_abort(g->w);
    if (stats)
        *stats = g->st;
    free_all(g);
}
