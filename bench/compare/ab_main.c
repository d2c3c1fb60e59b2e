/* onepath_ab — the baseline (a495c93) and this tree in one process (issue 12).
 *
 * bench/compare.py runs each tree in its own process, so its ratios swing with the load
 * of a shared machine between the two runs. Here both libraries are linked into one
 * program (the baseline's symbols renamed base_*, bench/compare/ab.py) and the two sides
 * alternate on the same field every repetition (which goes first alternates too), so a
 * change of load falls on both; outputs are compared byte for byte after every
 * repetition. Times are the thread's CPU time; columns are medians; the ratio is
 * base ÷ new of the medians.
 *
 * usage: onepath_ab [--demo N]... [--stages erode,distance,watershed,monotone,layers]
 *                   [--repetitions K] [--only new|base] [--markdown]
 * The field is the demo world's spans stage (this tree's library), its areas before
 * erosion for the erode case; the watershed case reads this tree's distance field.
 * --only runs one side K times (for a profiler; nothing is compared). */
#include "ab_side.h"

#include "onepath/chf.h"
#include "onepath/common.h"
#include "onepath/demo.h"
#include "onepath/regions.h"
#include "onepath/spans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *base_ab_side_open(const ab_field *f);
int base_ab_side_prepare(void *side, int stage);
int base_ab_side_run(void *side, int stage, const uint32_t *dist, void *out, uint32_t *count);
void base_ab_side_close(void *side);

static const char *const names[AB_STAGES] = {"erode", "distance", "watershed", "monotone",
                                             "layers"};

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

static void die(const char *what, const op_ctx *ctx)
{
    fprintf(stderr, "onepath_ab: %s%s%s\n", what, ctx ? ": " : "", ctx ? op_ctx_error(ctx) : "");
    exit(2);
}

/* The demo world's spans stage, and the same field before erosion and volumes. */
static void demo_field(uint32_t size, op_chf *chf, op_chf *pre, int *radius)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_AUTO) != OP_OK)
        die("context", &ctx);
    op_scene scene;
    op_config cfg;
    if (op_demo_world(&ctx, size, &scene, &cfg) != OP_OK)
        die("demo world", &ctx);
    if (op_build_spans(&ctx, &cfg, &scene, chf, NULL) != OP_OK)
        die("spans stage", &ctx);
    *radius = cfg.walkable_radius;
    op_config c0 = cfg;
    c0.walkable_radius = 0;
    if (c0.border_size < 0)
        c0.border_size = cfg.walkable_radius + 3; /* the same grid as the field's */
    const uint32_t nvol = scene.volume_count;
    scene.volume_count = 0;
    if (op_build_spans(&ctx, &c0, &scene, pre, NULL) != OP_OK)
        die("spans stage without erosion", &ctx);
    scene.volume_count = nvol;
    op_scene_free(&scene);
    op_ctx_free(&ctx);
    /* Erosion and volumes change areas only. */
    const size_t cells = (size_t)chf->width * chf->depth;
    int same = pre->span_count == chf->span_count && pre->width == chf->width &&
               pre->depth == chf->depth &&
               !memcmp(pre->cell_first, chf->cell_first, cells * 4) &&
               !memcmp(pre->cell_count, chf->cell_count, cells * 4) &&
               !memcmp(pre->mutual, chf->mutual, chf->span_count);
    for (int d = 0; d < 4 && same; d++)
        same = !memcmp(pre->link[d], chf->link[d], (size_t)chf->span_count * 4);
    if (!same)
        die("the field without erosion has other spans or links", NULL);
}

int main(int argc, char **argv)
{
    uint32_t sizes[16];
    int nsizes = 0, reps = 7, markdown = 0, only = -1; /* only: 0 base, 1 new */
    int want[AB_STAGES] = {1, 1, 1, 1, 1};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--demo") && i + 1 < argc && nsizes < 16) {
            sizes[nsizes++] = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repetitions") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--stages") && i + 1 < argc) {
            const char *list = argv[++i];
            for (int s = 0; s < AB_STAGES; s++)
                want[s] = strstr(list, names[s]) != NULL;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = !strcmp(argv[++i], "new");
        } else if (!strcmp(argv[i], "--markdown")) {
            markdown = 1;
        } else {
            fprintf(stderr, "usage: onepath_ab [--demo N]... [--stages LIST] "
                            "[--repetitions K] [--only new|base] [--markdown]\n");
            return 2;
        }
    }
    if (!nsizes)
        sizes[nsizes++] = 1936;
    if (reps < 1 || reps > 1000)
        reps = 7;
    double *t[2] = {malloc(sizeof(double) * (size_t)reps), malloc(sizeof(double) * (size_t)reps)};
    if (markdown) {
        printf("| stage | field (spans) | a495c93 ms | new ms | ratio |\n");
        printf("| --- | --- | --- | --- | --- |\n");
    }
    int failed = 0;
    for (int zi = 0; zi < nsizes; zi++) {
        op_chf chf, pre;
        int radius;
        demo_field(sizes[zi], &chf, &pre, &radius);
        const uint32_t n = chf.span_count;
        ab_field f = {chf.width, chf.depth, n, {0}, {0}, chf.cs, chf.ch,
                      chf.walkable_height, chf.walkable_climb, chf.border_size, radius,
                      chf.cell_first, chf.cell_count, chf.y, chf.h, pre.area, chf.area,
                      chf.mutual, {chf.link[0], chf.link[1], chf.link[2], chf.link[3]}};
        memcpy(f.bmin, chf.bmin, sizeof f.bmin);
        memcpy(f.bmax, chf.bmax, sizeof f.bmax);
        void *sd[2] = {base_ab_side_open(&f), ab_side_open(&f)};
        if (!sd[0] || !sd[1])
            die("side", NULL);
        uint32_t *out[2] = {malloc((size_t)n * 4 + 4), malloc((size_t)n * 4 + 4)};
        uint32_t *dist = malloc((size_t)n * 4 + 4);
        uint32_t cnt[2];
        if (!out[0] || !out[1] || !dist)
            die("out of memory", NULL);
        if (ab_side_run(sd[1], AB_DISTANCE, NULL, dist, &cnt[1]))
            die("distance field", NULL);
        for (int st = 0; st < AB_STAGES; st++) {
            if (!want[st])
                continue;
            const size_t bytes = st == AB_ERODE ? n : (size_t)n * 4;
            int differ = 0;
            for (int r = 0; r < reps && !differ; r++) {
                for (int k = 0; k < 2; k++) {
                    const int w = only >= 0 ? only : k ^ (r & 1);
                    if (only >= 0 && k)
                        break;
                    int e = w ? ab_side_prepare(sd[1], st) : base_ab_side_prepare(sd[0], st);
                    const double t0 = cpu_ms();
                    if (!e)
                        e = w ? ab_side_run(sd[1], st, dist, out[1], &cnt[1])
                              : base_ab_side_run(sd[0], st, dist, out[0], &cnt[0]);
                    t[w][r] = cpu_ms() - t0;
                    if (e)
                        die(names[st], NULL);
                }
                if (only < 0 && (memcmp(out[0], out[1], bytes) || cnt[0] != cnt[1])) {
                    fprintf(stderr, "onepath_ab: %s at demo %u: outputs differ\n", names[st],
                            sizes[zi]);
                    failed = differ = 1;
                }
            }
            if (differ)
                continue;
            if (only >= 0) {
                qsort(t[only], (size_t)reps, sizeof(double), cmpd);
                printf("%-9s demo %5u (%u spans)  %s only: median %8.2f ms  min %8.2f  reps %d\n",
                       names[st], sizes[zi], n, only ? "new" : "a495c93", t[only][reps / 2],
                       t[only][0], reps);
                fflush(stdout);
                continue;
            }
            qsort(t[0], (size_t)reps, sizeof(double), cmpd);
            qsort(t[1], (size_t)reps, sizeof(double), cmpd);
            const double b = t[0][reps / 2], v = t[1][reps / 2];
            if (markdown)
                printf("| %s | %u (%.1f M) | %.1f | %.1f | %.2fx |\n", names[st], sizes[zi],
                       n / 1e6, b, v, b / v);
            else
                printf("%-9s demo %5u (%u spans)  a495c93 %8.2f ms  new %8.2f ms  %5.2fx"
                       "  (min %.2f / %.2f)  reps %d  same bytes\n",
                       names[st], sizes[zi], n, b, v, b / v, t[0][0], t[1][0], reps);
            fflush(stdout);
        }
        base_ab_side_close(sd[0]);
        ab_side_close(sd[1]);
        free(out[0]);
        free(out[1]);
        free(dist);
        op_chf_free(&chf);
        op_chf_free(&pre);
    }
    if (!markdown)
        fprintf(stderr, "thread CPU time, medians of %d repetitions, sides alternating; "
                        "base = a495c93 linked in the same process\n", reps);
    free(t[0]);
    free(t[1]);
    return failed;
}
