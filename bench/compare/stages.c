/* onepath_compare_bench — the same per-stage cases built against two trees (issue 12):
 * the current tree, and the baseline commit (a495c93) that bench/compare.py checks out
 * and builds with this file injected (bench/compare/inject.cmake), so that one run of
 * compare.py times both, interleaved, and prints the ratio.
 *
 * The cases themselves are cases.c (cases.h: what each one prepares, times and hashes),
 * shared with the in-process front end onepath_ab (ab_main.c); this file registers them
 * with Google Benchmark (bench/shim.h).
 *
 * Cases "compare/<stage>/demo-<N>", N the demo world's edge in cells (--demo N,
 * repeatable; default 1936 ≈ 4 M spans and 4096 ≈ 18 M), stage one of rasterize,
 * filters, compact, erode, spans, distance, watershed, monotone, layers, contours, bake;
 * and "compare/contours/holes-<H>" (--holes H, repeatable): op_build_contours on one
 * region with H holes of 2 x 2 cells every 6 cells (the join's scaling).
 * Every case reports digest_hi / digest_lo, a 64-bit hash of its output split into two
 * exact doubles, so compare.py can check that both trees made the same bytes. The bake
 * case also reports peak_bytes: the largest number of heap bytes (malloc_usable_size)
 * live during one bake above those live before it (the scene), counted by wrapping
 * malloc & co. at link time (heap.c, OP_COMPARE_WRAP, static library only; else -1), and
 * input_bytes, the scene's vertex and triangle arrays. */
#include "shim.h"

#include "compare/cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bcase {
    cmp_field *f;
    int kind;
    cmp_case *c; /* opened on the first run of the case (the only one it prepares) */
} bcase;

static void die(const char *what)
{
    fprintf(stderr, "onepath_compare_bench: %s\n", what);
    exit(2);
}

static void reset(void *user)
{
    cmp_case_reset(((bcase *)user)->c);
}

static int before(void *user, op_bench_state *st)
{
    bcase *b = user;
    (void)st;
    if (!b->c && !(b->c = cmp_case_open(b->f, b->kind)))
        die("no such case");
    return 0;
}

static uint64_t iter(void *user)
{
    return cmp_case_run(((bcase *)user)->c);
}

static int after(void *user, op_bench_state *st)
{
    const bcase *b = user;
    const uint64_t d = cmp_case_digest(b->c);
    op_bench_counter(st, "digest_hi", (double)(d >> 32));
    op_bench_counter(st, "digest_lo", (double)(d & 0xffffffffu));
    op_bench_counter(st, "spans", (double)cmp_case_spans(b->c));
    if (b->kind == CMP_BAKE) {
        op_bench_counter(st, "peak_bytes", (double)cmp_case_peak_bytes(b->c));
        op_bench_counter(st, "input_bytes", (double)cmp_case_input_bytes(b->c));
    }
    return 0;
}

int main(int argc, char **argv)
{
    cmp_field *fields[8];
    int nf = 0;
    char **rest = malloc(sizeof *rest * (size_t)(argc + 1));
    if (!rest)
        die("out of memory");
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const int demo = !strcmp(argv[i], "--demo"), holes = !strcmp(argv[i], "--holes");
        if ((demo || holes) && i + 1 < argc) {
            if (nf == 8)
                die("at most 8 fields (--demo, --holes)");
            const uint32_t v = (uint32_t)strtoul(argv[++i], NULL, 10);
            fields[nf++] = cmp_field_new(demo ? v : 0, holes ? v : 0);
        } else {
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    if (!nf) {
        fields[nf++] = cmp_field_new(1936, 0);
        fields[nf++] = cmp_field_new(4096, 0);
    }
    for (int i = 0; i < nf; i++) {
        for (int k = 0; k < CMP_COUNT; k++) {
            if (!strncmp(cmp_field_label(fields[i]), "holes-", 6) && k != CMP_CONTOURS)
                continue; /* a holes field has only the contour case */
            bcase *b = calloc(1, sizeof *b);
            if (!b)
                die("out of memory");
            b->f = fields[i];
            b->kind = k;
            char name[96];
            snprintf(name, sizeof name, "compare/%s/%s", cmp_case_name(k),
                     cmp_field_label(fields[i]));
            op_bench_case bc = {name, b, 0, before, iter, after, reset};
            if (op_bench_register(&bc))
                die("register");
        }
    }
    /* Cases and fields stay allocated until exit (one process per comparison run). */
    const int rc = op_bench_run(nrest, rest, 0.0);
    free(rest);
    return rc;
}
