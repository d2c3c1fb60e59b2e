/* onepath_ab — the baseline (a495c93) and this tree in one program (issue 12).
 *
 * bench/compare.py runs each tree in its own process, so its ratios swing with the load
 * of a shared machine between the two runs. Here both libraries are linked into one
 * program, each with its own copy of the comparison's cases (cases.c: the baseline's
 * copy and library joined and their symbols renamed base_* by bench/compare/ab.py), and
 * the two sides alternate every repetition (which goes first alternates too), so a
 * change of load falls on both. Each side runs in a worker process of its own (forked
 * from this one: a heap of its own, as in onepath_compare_bench; see below) and prepares
 * its inputs with its own library; the outputs' hashes are compared after every
 * repetition. Times are the worker thread's CPU time.
 *
 * usage: onepath_ab [--demo N]... [--holes H]... [--cases LIST] [--repetitions K]
 *                   [--min-time S] [--warmup W] [--only new|base] [--shared-heap]
 *                   [--json]
 *   --cases      comma-separated case names (cases.h; default all), run in cases.h's order
 *   --min-time   a repetition of a side runs iterations until they took S seconds of CPU
 *                time and reports their mean (default 0: one iteration)
 *   --warmup     untimed iterations of each side before the repetitions (default 1)
 *   --only       one side only, K repetitions, in this process (for a profiler; nothing
 *                is compared)
 *   --shared-heap both sides in this process (one heap), no workers
 *   --json       one JSON object per (field, case) line with every repetition's time and
 *                hash (bench/compare.py --in-process reads it); else one text line each
 * Exit status 1 when the two sides' outputs differed, 2 on a failure. */
#include "cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The baseline's copy of cases.h (its symbols renamed by ab.py). */
const char *base_cmp_case_name(int kind);
cmp_field *base_cmp_field_new(uint32_t size, uint32_t holes);
void base_cmp_field_trim(cmp_field *f, unsigned keep);
void base_cmp_field_free(cmp_field *f);
cmp_case *base_cmp_case_open(cmp_field *f, int kind);
void base_cmp_case_reset(cmp_case *c);
uint64_t base_cmp_case_run(cmp_case *c);
uint64_t base_cmp_case_digest(const cmp_case *c);
uint64_t base_cmp_case_spans(const cmp_case *c);
long long base_cmp_case_peak_bytes(const cmp_case *c);
long long base_cmp_case_input_bytes(const cmp_case *c);
void base_cmp_case_close(cmp_case *c);

/* One side's entry points: [0] the baseline's, [1] this tree's. */
typedef struct side_api {
    cmp_field *(*field_new)(uint32_t, uint32_t);
    void (*field_trim)(cmp_field *, unsigned);
    void (*field_free)(cmp_field *);
    cmp_case *(*open)(cmp_field *, int);
    void (*reset)(cmp_case *);
    uint64_t (*run)(cmp_case *);
    uint64_t (*digest)(const cmp_case *);
    uint64_t (*spans)(const cmp_case *);
    long long (*peak)(const cmp_case *);
    long long (*input)(const cmp_case *);
    void (*close)(cmp_case *);
} side_api;

static const side_api sides[2] = {
    {base_cmp_field_new, base_cmp_field_trim, base_cmp_field_free, base_cmp_case_open,
     base_cmp_case_reset, base_cmp_case_run, base_cmp_case_digest, base_cmp_case_spans,
     base_cmp_case_peak_bytes, base_cmp_case_input_bytes, base_cmp_case_close},
    {cmp_field_new, cmp_field_trim, cmp_field_free, cmp_case_open, cmp_case_reset, cmp_case_run,
     cmp_case_digest, cmp_case_spans, cmp_case_peak_bytes, cmp_case_input_bytes,
     cmp_case_close},
};
static const char *const side_names[2] = {"base", "new"};

static volatile uint64_t g_sink;

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "onepath_ab: %s\n", what);
    exit(2);
}

static _Noreturn void usage(void)
{
    fprintf(stderr, "usage: onepath_ab [--demo N]... [--holes H]... [--cases LIST] "
                    "[--repetitions K] [--min-time S] [--warmup W] [--only new|base] "
                    "[--shared-heap] [--json]\n");
    exit(2);
}

/* ---- One side's work: what a worker process does on a command ---------------------- */

enum { OP_FIELD_NEW, OP_CASE_OPEN, OP_REP, OP_CASE_CLOSE, OP_FIELD_FREE, OP_EXIT };

typedef struct command {
    int op;
    uint32_t a, b; /* field: size, holes; case open: kind; case close: the cases to keep */
    double min_ms; /* a repetition: iterations until this much CPU time */
} command;

typedef struct reply {
    int ok;
    double ms;       /* a repetition: CPU ms per iteration */
    uint64_t digest; /* a repetition: the output's hash */
    uint64_t spans;  /* case close: the case's counters */
    long long peak, input;
} reply;

/* The side's field and case at hand ([w]: side w; a worker uses its own only). */
static cmp_field *g_field[2];
static cmp_case *g_case[2];

/* One repetition of one side: iterations (input put back untimed before each) until
 * min_ms of CPU time; their mean. */
static double timed(const side_api *s, cmp_case *c, double min_ms)
{
    double total = 0;
    int n = 0;
    do {
        s->reset(c);
        const double t0 = cpu_ms();
        g_sink = s->run(c);
        total += cpu_ms() - t0;
        n++;
    } while (total < min_ms);
    return total / n;
}

static void serve(int w, const command *c, reply *r)
{
    const side_api *s = &sides[w];
    memset(r, 0, sizeof *r);
    r->ok = 1;
    switch (c->op) {
    case OP_FIELD_NEW: g_field[w] = s->field_new(c->a, c->b); break;
    case OP_CASE_OPEN: r->ok = (g_case[w] = s->open(g_field[w], (int)c->a)) != NULL; break;
    case OP_REP:
        r->ms = timed(s, g_case[w], c->min_ms);
        r->digest = s->digest(g_case[w]);
        break;
    case OP_CASE_CLOSE:
        r->spans = s->spans(g_case[w]);
        r->peak = s->peak(g_case[w]);
        r->input = s->input(g_case[w]);
        s->close(g_case[w]);
        g_case[w] = NULL;
        s->field_trim(g_field[w], c->a);
        break;
    case OP_FIELD_FREE:
        s->field_free(g_field[w]);
        g_field[w] = NULL;
        break;
    default: break;
    }
}

/* ---- Sides as worker processes --------------------------------------------------------
 * By default each side runs each case in a process of its own, forked from this one
 * (which makes no field), and this process sends it one command at a time: the sides
 * still alternate every repetition, but each has a fresh heap, as each tree's bench has
 * for each case in bench/compare.py. The C library's allocator makes the difference: in
 * one heap a495c93's compaction, which allocates its field afresh every iteration, ran at
 * 4.5 ms instead of 8.4 on demo-512 (the other side's blocks kept the freed memory from
 * being returned to the system, so it was not faulted in again); in one worker per side
 * for all cases, at 100-103 ms instead of 122-130 on demo-1936 (the earlier cases' frees
 * had raised malloc's mmap threshold). --shared-heap runs both sides in this process,
 * the fields made once for all cases. */

static int g_to[2] = {-1, -1}, g_from[2] = {-1, -1}; /* pipes to and from the workers */
static pid_t g_pid[2];

static int io_full(int fd, void *p, size_t n, int writing)
{
    char *b = p;
    while (n) {
        const ssize_t k = writing ? write(fd, b, n) : read(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static void worker(int w, int in, int out)
{
    command c;
    reply r;
    while (!io_full(in, &c, sizeof c, 0)) {
        if (c.op == OP_EXIT)
            _exit(0);
        serve(w, &c, &r);
        if (io_full(out, &r, sizeof r, 1))
            _exit(2);
    }
    _exit(0);
}

static void start_workers(void)
{
    fflush(NULL);
    for (int w = 0; w < 2; w++) {
        int to[2], from[2];
        if (pipe(to) || pipe(from))
            die("pipe");
        g_pid[w] = fork();
        if (g_pid[w] < 0)
            die("fork");
        if (g_pid[w] == 0) {
            close(to[1]);
            close(from[0]);
            for (int v = 0; v < w; v++) {
                close(g_to[v]);
                close(g_from[v]);
            }
            worker(w, to[0], from[1]);
        }
        close(to[0]);
        close(from[1]);
        g_to[w] = to[1];
        g_from[w] = from[0];
    }
}

static void stop_workers(void)
{
    for (int w = 0; w < 2; w++) {
        if (g_to[w] < 0)
            continue;
        const command c = {OP_EXIT, 0, 0, 0};
        (void)io_full(g_to[w], (void *)&c, sizeof c, 1);
        close(g_to[w]);
        close(g_from[w]);
        waitpid(g_pid[w], NULL, 0);
        g_to[w] = g_from[w] = -1;
    }
}

/* Runs a command on side w (in its worker, or here); exits when the side failed. */
static reply call(int w, int op, uint32_t a, uint32_t b, double min_ms)
{
    const command c = {op, a, b, min_ms};
    reply r = {0, 0, 0, 0, 0, 0};
    if (g_to[w] < 0)
        serve(w, &c, &r);
    else if (io_full(g_to[w], (void *)&c, sizeof c, 1) || io_full(g_from[w], &r, sizeof r, 0))
        die(w ? "the new side's worker failed" : "the base side's worker failed");
    return r;
}

/* Whether `name` is in the comma-separated list. */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t fsize[16], fholes[16];
    int nf = 0, reps = 7, warmup = 1, json = 0, shared = 0, only = -1; /* 0 base, 1 new */
    double min_ms = 0;
    unsigned want = (1u << CMP_COUNT) - 1;
    for (int i = 1; i < argc; i++) {
        const int demo = !strcmp(argv[i], "--demo"), holes = !strcmp(argv[i], "--holes");
        if ((demo || holes) && i + 1 < argc) {
            if (nf == 16)
                die("at most 16 fields");
            const uint32_t v = (uint32_t)strtoul(argv[++i], NULL, 10);
            fsize[nf] = demo ? v : 0;
            fholes[nf++] = holes ? v : 0;
        } else if (!strcmp(argv[i], "--repetitions") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) {
            min_ms = atof(argv[++i]) * 1e3;
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--cases") && i + 1 < argc) {
            const char *list = argv[++i];
            want = 0;
            for (int k = 0; k < CMP_COUNT; k++)
                want |= (unsigned)listed(list, cmp_case_name(k)) << k;
            if (!want)
                usage();
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = !strcmp(argv[++i], "new");
        } else if (!strcmp(argv[i], "--shared-heap")) {
            shared = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else {
            usage();
        }
    }
    if (!nf) {
        fsize[nf] = 1936;
        fholes[nf++] = 0;
    }
    if (reps < 1 || reps > 10000 || warmup < 0)
        usage();
    double *t[2] = {malloc(sizeof(double) * (size_t)reps), malloc(sizeof(double) * (size_t)reps)};
    double *sorted = malloc(sizeof(double) * (size_t)reps);
    uint64_t *dg[2] = {malloc(8 * (size_t)reps), malloc(8 * (size_t)reps)};
    if (!t[0] || !t[1] || !sorted || !dg[0] || !dg[1])
        die("out of memory");
    const int workers = !shared && only < 0;
    int failed = 0;
    for (int fi = 0; fi < nf; fi++) {
        const int is_holes = fholes[fi] && !fsize[fi];
        for (int w = 0; w < 2 && !workers; w++)
            if (only < 0 || only == w)
                call(w, OP_FIELD_NEW, fsize[fi], fholes[fi], 0);
        char label[32];
        snprintf(label, sizeof label, is_holes ? "holes-%u" : "demo-%u",
                 is_holes ? fholes[fi] : fsize[fi]);
        for (int k = 0; k < CMP_COUNT; k++) {
            if (!(want & 1u << k) || (is_holes && k != CMP_CONTOURS))
                continue;
            int on[2] = {only < 0 || only == 0, only < 0 || only == 1};
            if (workers) {
                /* A fresh worker per side and case, which makes the field's inputs the
                 * case reads, as onepath_compare_bench's process does. */
                start_workers();
                for (int w = 0; w < 2; w++)
                    call(w, OP_FIELD_NEW, fsize[fi], fholes[fi], 0);
            }
            for (int w = 0; w < 2; w++)
                if (on[w] && !call(w, OP_CASE_OPEN, (uint32_t)k, 0, 0).ok)
                    die("no such case");
            for (int r = 0; r < warmup; r++)
                for (int w = 0; w < 2; w++)
                    if (on[w])
                        call(w, OP_REP, 0, 0, 0);
            int differ = 0;
            for (int r = 0; r < reps; r++) {
                for (int j = 0; j < 2; j++) {
                    const int w = j ^ (r & 1);
                    if (!on[w])
                        continue;
                    const reply rp = call(w, OP_REP, 0, 0, min_ms);
                    t[w][r] = rp.ms;
                    dg[w][r] = rp.digest;
                }
                if (only < 0 && dg[0][r] != dg[1][r])
                    differ = 1;
            }
            if (differ) {
                fprintf(stderr, "onepath_ab: %s %s: outputs differ\n", cmp_case_name(k), label);
                failed = 1;
            }
            reply info[2];
            double med[2] = {0, 0};
            for (int w = 0; w < 2; w++) {
                if (!on[w])
                    continue;
                /* Closed, and what the cases after k do not read freed. */
                info[w] = call(w, OP_CASE_CLOSE, want & ~((2u << k) - 1), 0, 0);
                memcpy(sorted, t[w], sizeof(double) * (size_t)reps);
                qsort(sorted, (size_t)reps, sizeof(double), cmpd);
                med[w] = reps & 1 ? sorted[reps / 2]
                                  : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
            }
            if (json) {
                printf("{\"case\": \"%s\", \"field\": \"%s\"", cmp_case_name(k), label);
                for (int w = 0; w < 2; w++) {
                    if (!on[w])
                        continue;
                    printf(", \"%s\": {\"times\": [", side_names[w]);
                    for (int r = 0; r < reps; r++)
                        printf("%s%.4f", r ? ", " : "", t[w][r]);
                    printf("], \"digests\": [");
                    for (int r = 0; r < reps; r++)
                        printf("%s\"%016llx\"", r ? ", " : "", (unsigned long long)dg[w][r]);
                    printf("], \"spans\": %llu, \"peak_bytes\": %lld, \"input_bytes\": %lld}",
                           (unsigned long long)info[w].spans, info[w].peak, info[w].input);
                }
                printf("}\n");
            } else if (only >= 0) {
                printf("%-9s %-11s %s only: median %9.2f ms  reps %d\n", cmp_case_name(k), label,
                       only ? "new" : "base", med[only], reps);
            } else {
                printf("%-9s %-11s base %9.2f ms  new %9.2f ms  %5.2fx  %s\n", cmp_case_name(k),
                       label, med[0], med[1], med[0] / med[1], differ ? "DIFFER" : "same");
            }
            fflush(stdout);
            if (workers)
                stop_workers(); /* and their fields */
        }
        for (int w = 0; w < 2 && !workers; w++)
            if (only < 0 || only == w)
                call(w, OP_FIELD_FREE, 0, 0, 0);
    }
    if (!json)
        fprintf(stderr, "thread CPU time, medians of %d repetitions, sides alternating (%s); "
                        "base linked in the same program\n", reps,
                shared || only >= 0 ? "one process" : "a worker process each");
    for (int w = 0; w < 2; w++) {
        free(t[w]);
        free(dg[w]);
    }
    free(sorted);
    return failed;
}
