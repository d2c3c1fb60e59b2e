/* onepath bake ... --tile-size T --mpi under mpirun (issue 14; docs/decisions/shards.md):
 * the tiled bake over the ranks of an MPI job, with the bytes of a one-process bake.
 *
 * Every rank reads the input itself and runs op_bake_tiled on a baker thread with its own
 * OpenMP threads, through hooks: the tiles it bakes come from rank 0's queue (all tiles,
 * largest estimated cost first, handed out a few at a time as ranks ask), and each
 * finished tile is encoded as its TILE section and sent to rank 0, then dropped. Rank 0's
 * main thread serves the queue, gathers the sections (its own baker's too) and writes
 * them in (tz, tx) order through the streaming writer (tools/gather.c: early sections wait
 * in memory up to --gather-mib, then in a spill file), which checks every section and
 * computes build3d/tiles. The main thread of every rank is the only one that calls MPI
 * (MPI_THREAD_FUNNELED); the baker and the main thread share a queue and an outbox under
 * a mutex. Memory per rank: the input, the bins, one tile's working set per thread and at
 * most OUTBOX_TILES sections waiting to be sent.
 *
 * A failure anywhere fails the job: a tile's (the smallest failing tile is reported, as in
 * one process: after a failure rank 0 hands out only tiles before it), a rank's setup, a
 * rank that read another world or other settings, a section that does not check. Rank 0
 * prints it with the tile and the rank, writes nothing at --out, and every rank exits with
 * the same code. */
#include "cli.h"
#include "cli_tiles.h"
#include "gather.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { T_HELLO = 101, T_REQ, T_WORK, T_TILE, T_FAIL, T_DONE };
enum { OUTBOX_TILES = 8, MSG_TEXT = 640 }; /* MSG_TEXT: a context's message and a prefix */
#define NO_TILE UINT32_MAX

/* Messages (the ranks run the same binary on the same kind of host: structs as bytes). */
typedef struct hello_msg {
    uint64_t world, settings;
    uint32_t tiles_x, tiles_z, tile_size, border;
} hello_msg;

typedef struct fail_msg {
    int32_t status;
    uint32_t tile; /* NO_TILE: not a tile's failure (setup, plan) */
    char text[MSG_TEXT];
} fail_msg;

typedef struct done_msg {
    uint32_t tiles, threads;
    uint64_t bytes_sent, max_section;
    double ms_load, ms_setup, ms_bin, ms_busy, ms_wall, peak_rss_mib;
} done_msg;

/* A finished tile's section, or a tile's failure, on its way to rank 0. */
typedef struct outgoing {
    unsigned char *sec; /* from the baker's context (op_free) */
    size_t len;
    uint32_t tile;
    op_status st; /* != OP_OK: failure, text below */
    char text[MSG_TEXT];
} outgoing;

/* What the baker thread and the main thread share (under mu). */
typedef struct node {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int rank, size;
    cli_args *a;
    op_ctx bake_ctx;
    op_scene scene;
    unsigned flags;
    /* plan */
    int planned;
    op_tiled_result world; /* the description (no tiles) */
    /* tiles to bake: rank 0 the whole queue, others what rank 0 sent */
    uint32_t *queue;
    size_t qhead, qtail, qcap;
    int finished;      /* no more tiles will come */
    uint32_t min_fail; /* tiles after it are not baked (rank 0's, as last heard) */
    int stop;          /* a failure that is no tile's: bake nothing more */
    uint32_t dispatched;
    double t_first_dispatch;
    /* outbox */
    outgoing out[OUTBOX_TILES];
    int out_head, out_count;
    /* the baker's end */
    int baker_done;
    op_status baker_st;
    char baker_err[MSG_TEXT];
    int tile_failed; /* a tile's failure was sent */
    done_msg mine;
} node;

static void nap(node *n)
{
    /* Wait for the baker or 200 µs, whichever first, then poll MPI again. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 200000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&n->cv, &n->mu, &ts);
}

/* ---- the baker thread's hooks ----------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : (a > b);
}

static op_status plan_hook(void *user, op_ctx *ctx, const op_tiled_result *r, const uint64_t *cost)
{
    node *n = user;
    op_status st = OP_OK;
    pthread_mutex_lock(&n->mu);
    n->world = *r;
    n->world.tiles = NULL;
    n->world.held = NULL;
    if (n->rank == 0) {
        /* Largest first, ties by index: keys (~cost << 32 | index). */
        uint64_t *key = malloc((size_t)r->tile_count * sizeof *key);
        n->queue = malloc((size_t)r->tile_count * sizeof *n->queue);
        if (!key || !n->queue) {
            st = op_fail(ctx, OP_NO_MEMORY, "rank 0: out of memory for the tile queue");
        } else {
            for (uint32_t k = 0; k < r->tile_count; k++) {
                const uint64_t c = cost[k] < 0xffffffffu ? cost[k] : 0xffffffffu;
                key[k] = (0xffffffffu - c) << 32 | k;
            }
            qsort(key, r->tile_count, sizeof *key, cmp_u64);
            for (uint32_t k = 0; k < r->tile_count; k++)
                n->queue[k] = (uint32_t)key[k];
            n->qtail = n->qcap = r->tile_count;
        }
        free(key);
    }
    n->planned = st == OP_OK;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    return st;
}

/* The next tile from the queue, skipping those after a known failure (mu held). */
static int pop_tile(node *n, uint32_t *index)
{
    while (n->qhead < n->qtail) {
        const uint32_t k = n->queue[n->qhead++];
        if (n->stop || k > n->min_fail)
            continue;
        *index = k;
        return 1;
    }
    return 0;
}

static int next_hook(void *user, uint32_t *index)
{
    node *n = user;
    pthread_mutex_lock(&n->mu);
    int got;
    for (;;) {
        got = pop_tile(n, index);
        if (got || n->finished || n->rank == 0)
            break;
        pthread_cond_broadcast(&n->cv); /* the main thread may ask for more */
        pthread_cond_wait(&n->cv, &n->mu);
    }
    if (got && n->rank == 0) {
        if (!n->dispatched++)
            n->t_first_dispatch = op_now_ms();
    }
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    return got;
}

/* ONEPATH_MPI_FAIL_TILE="TX,TZ[;TX,TZ...]": those tiles fail after baking, on whichever
 * rank bakes them (the tests' way to make a rank fail; never set in a real bake). */
static int injected_failure(const node *n, const op_tile *t)
{
    const char *e = getenv("ONEPATH_MPI_FAIL_TILE");
    while (e && *e) {
        unsigned x, z;
        if (sscanf(e, "%u,%u", &x, &z) == 2 && x == t->tx && z == t->tz)
            return 1;
        e = strchr(e, ';');
        e = e ? e + 1 : NULL;
    }
    (void)n;
    return 0;
}

static op_status done_hook(void *user, op_ctx *w, op_tile *t, op_status st)
{
    node *n = user;
    outgoing o;
    memset(&o, 0, sizeof o);
    o.tile = t->tx + t->tz * n->world.tiles_x;
    op_status fail = st;
    if (st == OP_OK && injected_failure(n, t))
        fail = op_fail(w, OP_INTERNAL, "injected failure (ONEPATH_MPI_FAIL_TILE)");
    if (fail == OP_OK)
        fail = op_opbake_encode_tile(w, &n->world, t, n->flags, &o.sec, &o.len);
    if (fail == OP_OK) {
        n->mine.tiles++;
        const op_tile_times *m = &t->ms;
        n->mine.ms_busy += m->rasterize + m->filters + m->compact + m->erode + m->volumes +
                           m->distance + m->regions + m->contours + m->digests;
    } else {
        o.st = fail;
        snprintf(o.text, sizeof o.text, "%s", w->err);
    }
    pthread_mutex_lock(&n->mu);
    while (n->out_count == OUTBOX_TILES) /* at most this many waiting: memory stays bounded */
        pthread_cond_wait(&n->cv, &n->mu);
    n->out[(n->out_head + n->out_count) % OUTBOX_TILES] = o;
    n->out_count++;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    return fail; /* a failure here fails the tile in this rank's bake too */
}

static void *baker_main(void *user)
{
    node *n = user;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = n->a->threads;
    o.keep_regions = n->a->with_regions;
    const op_tile_hooks hooks = {plan_hook, next_hook, done_hook, 1, n};
    o.hooks = &hooks;
    op_tiled_result r;
    const op_status st = op_bake_tiled(&n->bake_ctx, &n->scene, &n->a->s, &o, &r);
    pthread_mutex_lock(&n->mu);
    n->baker_done = 1;
    n->baker_st = st;
    snprintf(n->baker_err, sizeof n->baker_err, "%s", n->bake_ctx.err);
    n->mine.threads = (uint32_t)(r.threads > 0 ? r.threads : (o.threads ? o.threads : 1));
    n->mine.ms_setup = r.ms_setup;
    n->mine.ms_bin = r.ms_bin;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    op_tiled_result_free(&r);
    return NULL;
}

/* Takes the oldest outgoing item, if any (mu held). */
static int take_out(node *n, outgoing *o)
{
    if (!n->out_count)
        return 0;
    *o = n->out[n->out_head];
    n->out_head = (n->out_head + 1) % OUTBOX_TILES;
    n->out_count--;
    pthread_cond_broadcast(&n->cv);
    return 1;
}

/* ---- ranks other than 0 ----------------------------------------------------------- */

static void worker_loop(node *n, double t0)
{
    int hello_sent = 0, asked = 0, lost = 0;
    uint64_t sent = 0;
    /* Ask for as many tiles as threads whenever fewer than that wait: one round trip is
     * hidden behind the tiles in hand, and at the end a rank holds few tiles others could
     * have taken. */
    const uint32_t low = (uint32_t)(n->a->threads > 0 ? n->a->threads : op_tiled_default_threads());
    /* A work message is [min_fail, stop, at most `low` tiles]: one buffer for all of them. */
    uint32_t *work = malloc((2 + (size_t)low) * sizeof *work);
    pthread_mutex_lock(&n->mu);
    if (!work) { /* no tiles can be taken: this rank bakes none and fails the job */
        lost = 1;
        n->finished = 1;
        pthread_cond_broadcast(&n->cv);
    }
    for (;;) {
        int busy = 0;
        if (n->planned && !hello_sent) {
            hello_msg h = {n->world.digest_world, n->world.digest_settings, n->world.tiles_x,
                           n->world.tiles_z, n->world.tile_size, n->world.border_size};
            pthread_mutex_unlock(&n->mu);
            MPI_Send(&h, sizeof h, MPI_BYTE, 0, T_HELLO, MPI_COMM_WORLD);
            pthread_mutex_lock(&n->mu);
            hello_sent = busy = 1;
        }
        if (hello_sent && !asked && !n->finished && n->qtail - n->qhead < low) {
            const uint32_t want = low;
            pthread_mutex_unlock(&n->mu);
            MPI_Send(&want, 1, MPI_UINT32_T, 0, T_REQ, MPI_COMM_WORLD);
            pthread_mutex_lock(&n->mu);
            asked = busy = 1;
        }
        outgoing o;
        if (take_out(n, &o)) {
            pthread_mutex_unlock(&n->mu);
            if (o.st == OP_OK) {
                MPI_Send(o.sec, (int)o.len, MPI_BYTE, 0, T_TILE, MPI_COMM_WORLD);
                sent += o.len;
                if (o.len > n->mine.max_section)
                    n->mine.max_section = o.len;
                op_free(&n->bake_ctx, o.sec);
            } else {
                fail_msg f = {(int32_t)o.st, o.tile, ""};
                memcpy(f.text, o.text, sizeof f.text);
                MPI_Send(&f, sizeof f, MPI_BYTE, 0, T_FAIL, MPI_COMM_WORLD);
                n->tile_failed = 1;
            }
            pthread_mutex_lock(&n->mu);
            continue;
        }
        if (asked) {
            int flag = 0;
            MPI_Status ms;
            pthread_mutex_unlock(&n->mu);
            MPI_Iprobe(0, T_WORK, MPI_COMM_WORLD, &flag, &ms);
            if (flag) {
                int count = 0;
                MPI_Get_count(&ms, MPI_UINT32_T, &count);
                MPI_Recv(work, (int)(2 + low), MPI_UINT32_T, 0, T_WORK, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                pthread_mutex_lock(&n->mu);
                /* [min_fail, stop, tiles...]; no tiles: the queue is empty for good. */
                n->min_fail = work[0];
                n->stop = work[1] != 0;
                const size_t k = count > 2 ? (size_t)count - 2 : 0;
                if (n->qcap - n->qtail < k) { /* compact, then grow */
                    if (n->qhead)
                        memmove(n->queue, n->queue + n->qhead,
                                (n->qtail - n->qhead) * sizeof *n->queue);
                    n->qtail -= n->qhead;
                    n->qhead = 0;
                    if (n->qcap - n->qtail < k) {
                        uint32_t *nq = realloc(n->queue, (n->qtail + k) * sizeof *nq);
                        if (nq) {
                            n->queue = nq;
                            n->qcap = n->qtail + k;
                        } else {
                            lost = 1; /* these tiles would never come: fail the job */
                        }
                    }
                }
                for (size_t i = 0; i < k && n->qtail < n->qcap; i++)
                    n->queue[n->qtail++] = work[2 + i];
                if (k == 0)
                    n->finished = 1;
                asked = 0;
                pthread_cond_broadcast(&n->cv);
                continue;
            }
            pthread_mutex_lock(&n->mu);
        }
        if (n->baker_done && !n->out_count)
            break;
        if (!busy)
            nap(n);
    }
    const op_status st = n->baker_st;
    const int planned = n->planned;
    pthread_mutex_unlock(&n->mu);
    free(work);
    if ((st != OP_OK && !n->tile_failed) || lost) { /* no tile's: setup, plan, memory */
        fail_msg f = {(int32_t)(lost ? OP_NO_MEMORY : st), NO_TILE, ""};
        snprintf(f.text, sizeof f.text, "%s",
                 lost ? "out of memory for the tile queue" : n->baker_err);
        MPI_Send(&f, sizeof f, MPI_BYTE, 0, T_FAIL, MPI_COMM_WORLD);
    }
    (void)planned;
    n->mine.bytes_sent = sent;
    n->mine.ms_wall = op_now_ms() - t0;
    n->mine.peak_rss_mib = cli_peak_rss_mb();
    MPI_Send(&n->mine, sizeof n->mine, MPI_BYTE, 0, T_DONE, MPI_COMM_WORLD);
}

/* ---- rank 0 ------------------------------------------------------------------------ */

typedef struct failure {
    int have;
    op_status st;
    uint32_t tile; /* NO_TILE for a rank's */
    int rank;
    char text[MSG_TEXT];
} failure;

typedef struct root {
    node *n;
    op_ctx ctx;
    cli_gather *g;
    int gather_open;
    failure tile_fail, rank_fail;
    hello_msg *hello;  /* per rank */
    uint8_t *hello_seen, *done_seen;
    done_msg *done;
    uint32_t *deferred; /* per rank: tiles asked for before the plan, 0 = none */
    int done_count;
    double t_last_tile;
    uint32_t *tiles_of; /* per rank: tiles received */
    /* progress */
    int tty, shown_pct;
    double last_draw, t0;
} root;

static void record(root *R, int rank, op_status st, uint32_t tile, const char *text)
{
    node *n = R->n;
    pthread_mutex_lock(&n->mu);
    if (tile != NO_TILE) {
        failure *f = &R->tile_fail;
        if (!f->have || tile < f->tile) {
            *f = (failure){1, st, tile, rank, ""};
            snprintf(f->text, sizeof f->text, "%s", text);
        }
        if (tile < n->min_fail)
            n->min_fail = tile; /* as in one process: tiles before it still run */
    } else {
        failure *f = &R->rank_fail;
        if (!f->have || rank < f->rank) {
            *f = (failure){1, st, NO_TILE, rank, ""};
            snprintf(f->text, sizeof f->text, "%s", text);
        }
        n->stop = 1;
    }
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
}

static void check_hello(root *R, int rank)
{
    const hello_msg *h = &R->hello[rank];
    const op_tiled_result *w = &R->n->world;
    if (h->world != w->digest_world || h->settings != w->digest_settings ||
        h->tiles_x != w->tiles_x || h->tiles_z != w->tiles_z) {
        char text[MSG_TEXT];
        snprintf(text, sizeof text,
                 "read another world or other settings than rank 0 (world digest %016llx, "
                 "settings %016llx; rank 0: %016llx, %016llx)",
                 (unsigned long long)h->world, (unsigned long long)h->settings,
                 (unsigned long long)w->digest_world, (unsigned long long)w->digest_settings);
        record(R, rank, OP_BAD_INPUT, NO_TILE, text);
    }
}

/* Up to want tiles for rank, as [min_fail, stop, tiles...]. */
static void serve(root *R, int rank, uint32_t want)
{
    node *n = R->n;
    uint32_t *msg = malloc((2 + (size_t)want) * sizeof *msg);
    uint32_t k = 0;
    pthread_mutex_lock(&n->mu);
    if (msg) {
        while (k < want && pop_tile(n, &msg[2 + k]))
            k++;
        if (k && !n->dispatched)
            n->t_first_dispatch = op_now_ms();
        n->dispatched += k;
        msg[0] = n->min_fail;
        msg[1] = (uint32_t)n->stop;
    }
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    if (!msg) { /* cannot even say so: the job fails; send "stop" from the stack */
        uint32_t stop[2] = {0, 1};
        record(R, 0, OP_NO_MEMORY, NO_TILE, "rank 0: out of memory for a work message");
        MPI_Send(stop, 2, MPI_UINT32_T, rank, T_WORK, MPI_COMM_WORLD);
        return;
    }
    MPI_Send(msg, (int)(2 + k), MPI_UINT32_T, rank, T_WORK, MPI_COMM_WORLD);
    free(msg);
}

static void progress(root *R, int final)
{
    if (R->n->a->quiet || !R->gather_open)
        return;
    const uint32_t done = cli_gather_count(R->g), total = R->n->world.tile_count;
    const double now = op_now_ms();
    const int pct = total ? (int)(100.0 * done / total) : 100;
    if (R->tty) {
        if (!final && now - R->last_draw < 100.0)
            return;
        R->last_draw = now;
        const double secs = (now - R->t0) / 1000.0, frac = total ? (double)done / total : 1;
        fprintf(stderr, "\rtiles %u/%u (%d %%) over %d ranks  ETA %.0f s   ", done, total, pct,
                R->n->size, frac > 0 ? secs * (1 - frac) / frac : 0);
        if (final)
            fprintf(stderr, "\r%78s\r", "");
        fflush(stderr);
    } else if (pct / 10 > R->shown_pct / 10 || (final && pct != R->shown_pct)) {
        /* Not a terminal (mpirun forwards rank 0's stderr): a line every 10 %. */
        R->shown_pct = pct;
        fprintf(stderr, "onepath bake: tiles %u/%u (%d %%) over %d ranks, %.1f s\n", done, total,
                pct, R->n->size, (now - R->t0) / 1000.0);
    }
}

static void gather_section(root *R, int rank, const unsigned char *sec, size_t len)
{
    const op_tiled_result *w = &R->n->world;
    if (len < 24 || !R->gather_open) {
        record(R, rank, OP_BAD_INPUT, NO_TILE, "sent a tile section that is no section");
        return;
    }
    /* The section's payload starts with u32 tx, tz, little-endian (docs/formats.md). */
    const uint32_t tx = (uint32_t)sec[16] | (uint32_t)sec[17] << 8 | (uint32_t)sec[18] << 16 |
                        (uint32_t)sec[19] << 24;
    const uint32_t tz = (uint32_t)sec[20] | (uint32_t)sec[21] << 8 | (uint32_t)sec[22] << 16 |
                        (uint32_t)sec[23] << 24;
    const uint32_t index = tx < w->tiles_x && tz < w->tiles_z ? tx + tz * w->tiles_x : NO_TILE;
    const op_status st = cli_gather_put(R->g, index, sec, len);
    if (st != OP_OK) {
        char text[MSG_TEXT];
        snprintf(text, sizeof text, "sent tile (%u, %u), which does not check: %s", tx, tz,
                 R->ctx.err);
        record(R, rank, st, NO_TILE, text);
        return;
    }
    R->tiles_of[rank]++;
    R->t_last_tile = op_now_ms();
    progress(R, 0);
}

/* One message from another rank. */
static void receive(root *R, MPI_Status *ms)
{
    const int from = ms->MPI_SOURCE;
    int count = 0;
    MPI_Get_count(ms, MPI_BYTE, &count);
    switch (ms->MPI_TAG) {
    case T_HELLO:
        MPI_Recv(&R->hello[from], sizeof R->hello[from], MPI_BYTE, from, T_HELLO,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        R->hello_seen[from] = 1;
        if (R->n->planned)
            check_hello(R, from);
        break;
    case T_REQ: {
        uint32_t want = 0;
        MPI_Recv(&want, 1, MPI_UINT32_T, from, T_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_mutex_lock(&R->n->mu);
        const int ready = R->n->planned || R->n->baker_done || R->n->stop;
        pthread_mutex_unlock(&R->n->mu);
        if (ready)
            serve(R, from, want);
        else
            R->deferred[from] = want ? want : 1;
        break;
    }
    case T_TILE: {
        unsigned char *buf = malloc(count > 0 ? (size_t)count : 1);
        if (!buf) {
            MPI_Recv(NULL, 0, MPI_BYTE, from, T_TILE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            record(R, 0, OP_NO_MEMORY, NO_TILE, "rank 0: out of memory for a tile section");
            break;
        }
        MPI_Recv(buf, count, MPI_BYTE, from, T_TILE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        gather_section(R, from, buf, (size_t)count);
        free(buf);
        break;
    }
    case T_FAIL: {
        fail_msg f;
        MPI_Recv(&f, sizeof f, MPI_BYTE, from, T_FAIL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        f.text[sizeof f.text - 1] = 0;
        record(R, from, (op_status)f.status, f.tile, f.text);
        break;
    }
    case T_DONE:
        MPI_Recv(&R->done[from], sizeof R->done[from], MPI_BYTE, from, T_DONE, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        R->done_seen[from] = 1;
        R->done_count++;
        break;
    default: { /* not ours: take it so the job cannot hang on it */
        unsigned char sink[64];
        MPI_Recv(sink, count < 64 ? count : 64, MPI_BYTE, from, ms->MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        record(R, from, OP_INTERNAL, NO_TILE, "sent an unknown message");
    }
    }
}

static void root_loop(root *R)
{
    node *n = R->n;
    const uint64_t budget = (uint64_t)(cli_given(n->a, "--gather-mib") ? n->a->gather_mib : 256)
                            << 20;
    for (;;) {
        int busy = 0;
        pthread_mutex_lock(&n->mu);
        const int planned = n->planned, baker_done = n->baker_done;
        outgoing o;
        const int have = take_out(n, &o);
        pthread_mutex_unlock(&n->mu);
        if (planned && !R->gather_open && !R->rank_fail.have) {
            const op_status st = cli_gather_open(&R->ctx, &n->world, n->flags, n->a->out, budget,
                                                 &R->g);
            if (st != OP_OK)
                record(R, 0, st, NO_TILE, R->ctx.err);
            else
                R->gather_open = 1;
            for (int r = 1; r < n->size; r++)
                if (R->hello_seen[r])
                    check_hello(R, r);
        }
        if (planned || baker_done || n->stop)
            for (int r = 1; r < n->size; r++)
                if (R->deferred[r]) {
                    serve(R, r, R->deferred[r]);
                    R->deferred[r] = 0;
                    busy = 1;
                }
        if (have) {
            busy = 1;
            if (o.st == OP_OK) {
                gather_section(R, 0, o.sec, o.len);
                op_free(&n->bake_ctx, o.sec);
            } else {
                record(R, 0, o.st, o.tile, o.text);
                n->tile_failed = 1;
            }
        }
        int flag = 0;
        MPI_Status ms;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms);
        if (flag) {
            receive(R, &ms);
            busy = 1;
        }
        if (busy)
            continue;
        pthread_mutex_lock(&n->mu);
        const int end = n->baker_done && !n->out_count && R->done_count == n->size - 1;
        if (!end)
            nap(n);
        pthread_mutex_unlock(&n->mu);
        if (end)
            break;
    }
    if (n->baker_st != OP_OK && !n->tile_failed)
        record(R, 0, n->baker_st, NO_TILE, n->baker_err);
}

/* ---- JSON: the "mpi" object --------------------------------------------------------- */

typedef struct mpi_report {
    root *R;
    cli_gather_stats gs;
    double ms_wall, ms_load;
} mpi_report;

static void kv_ms(op_json *j, const char *key, double ms)
{
    op_json_key(j, key);
    op_json_double_fixed(j, ms, 3);
}

static void json_mpi(op_json *j, void *user)
{
    const mpi_report *m = user;
    const root *R = m->R;
    const node *n = R->n;
    op_json_key(j, "mpi");
    op_json_begin_object(j);
    op_json_kv_u64(j, "ranks", (uint64_t)n->size);
    op_json_kv_string(j, "schedule", "rank 0 queue, largest first");
    op_json_kv_u64(j, "sections", m->gs.sections);
    op_json_kv_u64(j, "bytes_gathered", m->gs.bytes);
    op_json_key(j, "bytes_per_tile");
    op_json_double_fixed(j, m->gs.sections ? (double)m->gs.bytes / (double)m->gs.sections : 0, 1);
    op_json_kv_u64(j, "max_tile_bytes", m->gs.max_section);
    op_json_kv_u64(j, "gather_held_peak_bytes", m->gs.held_peak);
    op_json_kv_u64(j, "gather_spilled_tiles", m->gs.spilled);
    op_json_kv_u64(j, "gather_spilled_bytes", m->gs.spilled_bytes);
    kv_ms(j, "gather", m->gs.ms);
    /* Rank 0's timeline: before the first tile is handed out and after the last one
     * arrives nothing runs in parallel (its serial fraction). */
    const double first = n->t_first_dispatch > 0 ? n->t_first_dispatch - R->t0 : m->ms_wall;
    const double last = R->t_last_tile > 0 ? R->t_last_tile - R->t0 : m->ms_wall;
    kv_ms(j, "before_first_tile", first);
    kv_ms(j, "tiles", last - first);
    kv_ms(j, "after_last_tile", m->ms_wall - last);
    kv_ms(j, "wall", m->ms_wall);
    op_json_key(j, "serial_fraction");
    op_json_double_fixed(j, m->ms_wall > 0 ? (first + m->ms_wall - last) / m->ms_wall : 0, 4);
    op_json_key(j, "per_rank");
    op_json_begin_array(j);
    for (int r = 0; r < n->size; r++) {
        const done_msg *d = &R->done[r];
        op_json_begin_object(j);
        op_json_kv_u64(j, "rank", (uint64_t)r);
        op_json_kv_u64(j, "threads", d->threads);
        op_json_kv_u64(j, "tiles", R->tiles_of[r]);
        op_json_kv_u64(j, "bytes_sent", d->bytes_sent);
        kv_ms(j, "load", d->ms_load);
        kv_ms(j, "setup", d->ms_setup);
        kv_ms(j, "bin", d->ms_bin);
        kv_ms(j, "busy_summed_over_threads", d->ms_busy);
        kv_ms(j, "wall", d->ms_wall);
        op_json_key(j, "peak_rss_mib");
        op_json_double_fixed(j, d->peak_rss_mib, 1);
        op_json_end_object(j);
    }
    op_json_end_array(j);
    op_json_end_object(j);
}

/* ---- the command -------------------------------------------------------------------- */

static int finish_root(root *R, double ms_load)
{
    node *n = R->n;
    cli_args *a = n->a;
    op_status st = OP_OK;
    mpi_report m = {R, {0}, 0, ms_load};
    op_tiled_result sum;
    memset(&sum, 0, sizeof sum);
    const failure *f = R->rank_fail.have ? &R->rank_fail : R->tile_fail.have ? &R->tile_fail : NULL;
    if (f) {
        cli_gather_abort(R->g, &m.gs);
        R->g = NULL;
        progress(R, 1);
        if (f->tile != NO_TILE)
            fprintf(stderr, "onepath bake: %s: tile (%u, %u): %s (rank %d); nothing written\n",
                    op_status_name(f->st), f->tile % n->world.tiles_x,
                    f->tile / n->world.tiles_x, f->text, f->rank);
        else
            fprintf(stderr, "onepath bake: %s: rank %d: %s; nothing written\n",
                    op_status_name(f->st), f->rank, f->text);
        return cli_exit_code(f->st);
    }
    progress(R, 1);
    st = cli_gather_finish(R->g, &sum, &m.gs);
    R->g = NULL;
    m.ms_wall = op_now_ms() - R->t0;
    if (st == OP_OK) {
        int threads = 0;
        for (int r = 0; r < n->size; r++)
            threads += (int)R->done[r].threads;
        sum.threads = threads;
        sum.ms_setup = R->done[0].ms_setup;
        sum.ms_bin = R->done[0].ms_bin;
        sum.ms_tiles = R->t_last_tile - n->t_first_dispatch;
        sum.ms_assemble = op_now_ms() - R->t_last_tile;
        sum.ms_total = m.ms_wall;
        if (a->json)
            st = cli_tiled_write_json(&R->ctx, a->json, a, &sum, m.ms_wall, json_mpi, &m);
    }
    if (st != OP_OK) {
        const int code = cli_fail("bake", &R->ctx, st);
        op_tiled_result_free(&sum);
        return code;
    }
    if (!a->quiet) {
        cli_tiled_print_summary(a, &R->ctx, &sum, m.ms_wall);
        printf("  mpi: %d ranks, %llu tile sections (%.0f bytes a tile) gathered in %.1f ms "
               "on rank 0 (%llu spilled)\n",
               n->size, (unsigned long long)m.gs.sections,
               m.gs.sections ? (double)m.gs.bytes / (double)m.gs.sections : 0, m.gs.ms,
               (unsigned long long)m.gs.spilled);
    }
    op_tiled_result_free(&sum);
    return EXIT_OK;
}

int cli_bake_mpi(cli_args *a)
{
    const char *CMD = "bake";
    if (a->png || a->svg)
        return cli_usage_error(CMD, "--png/--svg draw one process's tiles: bake with --out and "
                                    "draw from the file's process, or bake without --mpi");
    if (a->with_regions && a->s.until < OP_STAGE_REGIONS)
        return cli_usage_error(CMD, "--with-regions needs --until regions or later");
    if (a->with_regions && !a->out)
        return cli_usage_error(CMD, "--with-regions goes with --out FILE.opbake");
    a->s.contours.keep_raw = a->raw && a->out;
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "onepath bake: --mpi: MPI_Init_thread failed\n");
        return EXIT_INTERNAL;
    }
    const double t0 = op_now_ms();
    node *n = calloc(1, sizeof *n);
    root R;
    memset(&R, 0, sizeof R);
    int code = EXIT_OK;
    if (!n) {
        fprintf(stderr, "onepath bake: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL);
        return EXIT_INTERNAL;
    }
    pthread_mutex_init(&n->mu, NULL);
    pthread_cond_init(&n->cv, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &n->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n->size);
    n->a = a;
    n->min_fail = NO_TILE;
    n->flags = (a->with_regions ? OP_OPBAKE_REGIONS : 0) |
               (a->raw && a->out && a->s.until >= OP_STAGE_CONTOURS ? OP_OPBAKE_RAW : 0);
    if (provided < MPI_THREAD_FUNNELED && n->rank == 0)
        fprintf(stderr, "onepath bake: --mpi: warning: MPI gives thread level %d, below "
                        "FUNNELED\n",
                provided);
    /* Every rank reads the input itself (docs/decisions/shards.md). */
    code = cli_ctx_init(CMD, &n->bake_ctx, a->isa);
    op_status st = OP_OK;
    int have_ctx = code == EXIT_OK;
    if (have_ctx) {
        st = op_bake_settings_validate(&n->bake_ctx, &a->s);
        op_scene_init(&n->scene);
        if (st == OP_OK)
            st = cli_load_scene(&n->bake_ctx, &a->in, &n->scene, &a->s.config);
    }
    n->mine.ms_load = op_now_ms() - t0;
    if (n->rank == 0) {
        R.n = n;
        R.t0 = t0;
        R.tty = isatty(STDERR_FILENO);
        R.shown_pct = -1;
        const size_t k = (size_t)n->size;
        R.hello = calloc(k, sizeof *R.hello);
        R.hello_seen = calloc(k, 1);
        R.done_seen = calloc(k, 1);
        R.done = calloc(k, sizeof *R.done);
        R.deferred = calloc(k, sizeof *R.deferred);
        R.tiles_of = calloc(k, sizeof *R.tiles_of);
        if (cli_ctx_init(CMD, &R.ctx, a->isa) != EXIT_OK || !R.hello || !R.hello_seen ||
            !R.done_seen || !R.done || !R.deferred || !R.tiles_of) {
            fprintf(stderr, "onepath bake: rank 0: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL);
        }
    }
    /* The baker: the bake itself, or straight to "done" with the failure. */
    pthread_t baker;
    int have_baker = 0;
    if (have_ctx && st == OP_OK)
        have_baker = pthread_create(&baker, NULL, baker_main, n) == 0;
    if (!have_baker) {
        n->baker_done = 1;
        n->baker_st = st != OP_OK ? st : have_ctx ? OP_INTERNAL : OP_INVALID_ARGUMENT;
        snprintf(n->baker_err, sizeof n->baker_err, "%s",
                 !have_ctx ? "cannot set up a context (see this rank's messages)"
                 : st != OP_OK ? n->bake_ctx.err
                               : "cannot start the baker thread");
    }
    if (n->rank == 0)
        root_loop(&R);
    else
        worker_loop(n, t0);
    if (have_baker)
        pthread_join(baker, NULL);
    if (n->rank == 0) {
        n->mine.bytes_sent = 0;
        n->mine.ms_wall = op_now_ms() - t0;
        n->mine.peak_rss_mib = cli_peak_rss_mb();
        R.done[0] = n->mine;
        code = finish_root(&R, n->mine.ms_load);
        op_ctx_free(&R.ctx);
        free(R.hello);
        free(R.hello_seen);
        free(R.done_seen);
        free(R.done);
        free(R.deferred);
        free(R.tiles_of);
    }
    /* Every rank ends with rank 0's verdict. */
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    op_scene_free(&n->scene);
    if (have_ctx)
        op_ctx_free(&n->bake_ctx);
    free(n->queue);
    pthread_mutex_destroy(&n->mu);
    pthread_cond_destroy(&n->cv);
    free(n);
    MPI_Finalize();
    return code;
}
