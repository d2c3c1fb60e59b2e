#include "util/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void op_random_chf_defaults(op_random_chf_opts *o, uint32_t width, uint32_t depth)
{
    memset(o, 0, sizeof *o);
    o->width = width;
    o->depth = depth;
    o->max_floors = 3;
    o->empty_percent = 8;
    o->hole_percent = 4;
    o->area_count = 2;
    o->y_jitter = 2;
    o->walkable_height = 10;
    o->walkable_climb = 4;
}

op_status op_random_chf(op_ctx *ctx, op_chf *chf, uint64_t seed, const op_random_chf_opts *o)
{
    op_rng r = {seed * 0x2545F4914F6CDD1Dull + 1};
    const uint32_t w = o->width, d = o->depth;
    const size_t cells = (size_t)w * d;
    uint32_t *cnt = calloc(cells ? cells : 1, sizeof *cnt);
    if (!cnt)
        return OP_NO_MEMORY;
    uint64_t total = 0;
    for (size_t c = 0; c < cells; c++) {
        if (op_rng_below(&r, 100) < o->empty_percent)
            continue;
        cnt[c] = o->max_floors ? 1 + op_rng_below(&r, o->max_floors) : 0;
        total += cnt[c];
    }
    op_status st = op_chf_alloc(ctx, chf, w, d, (uint32_t)total);
    if (st != OP_OK) {
        free(cnt);
        return st;
    }
    chf->cs = 0.3f;
    chf->ch = 0.2f;
    chf->bmax[0] = w * 0.3f;
    chf->bmax[1] = 100.0f;
    chf->bmax[2] = d * 0.3f;
    chf->walkable_height = o->walkable_height;
    chf->walkable_climb = o->walkable_climb;
    /* Floors: a few smooth base levels per cell, spaced well apart, plus jitter. */
    const uint32_t area_ids[6] = {63, 1, 2, 3, 4, 5};
    uint32_t s = 0;
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            chf->cell_first[c] = s;
            uint32_t base = ((x / 7) + (z / 5)) % 3; /* slow terraces */
            uint32_t y = base * 2 + op_rng_below(&r, o->y_jitter + 1);
            for (uint32_t k = 0; k < cnt[c]; k++) {
                chf->y[s] = (uint16_t)y;
                uint32_t gap = o->walkable_height + op_rng_below(&r, 8) +
                               (op_rng_below(&r, 4) == 0 ? 0 : 12);
                if (op_rng_below(&r, 10) == 0 && gap > 3)
                    gap = (uint32_t)o->walkable_height - 1 - op_rng_below(&r, 3); /* low ceiling */
                chf->h[s] = (uint8_t)(k + 1 < cnt[c] ? (gap > 255 ? 255 : gap) : 255);
                uint32_t ai = o->area_count > 1 ? op_rng_below(&r, o->area_count) : 0;
                /* Areas in patches, so same-area regions are not all singletons. */
                if (o->area_count > 1 && op_rng_below(&r, 4))
                    ai = ((x / 9) + (z / 11) + k) % o->area_count;
                chf->area[s] = (uint8_t)area_ids[ai % 6];
                if (op_rng_below(&r, 100) < o->hole_percent)
                    chf->area[s] = 0;
                y += gap + (op_rng_below(&r, 3));
                if (y > 60000)
                    y = 60000;
                s++;
            }
        }
    }
    free(cnt);
    return op_chf_build_links(ctx, chf);
}

op_ctx op_test_ctx;

int op_test_ctx_setup(void **state)
{
    (void)state;
    return op_ctx_init(&op_test_ctx, OP_ISA_SCALAR) == OP_OK ? 0 : -1;
}

int op_test_ctx_teardown(void **state)
{
    (void)state;
    op_ctx_free(&op_test_ctx);
    return 0;
}

unsigned char *op_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *size = (size_t)n;
    return buf;
}

const char *op_test_source_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("OP_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
    return buf;
}

const char *op_test_tmp_path(const char *suffix)
{
    static char buf[4096];
    static unsigned counter;
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/onepath-test-%ld-%u%s", tmp ? tmp : "/tmp", (long)getpid(),
             counter++, suffix ? suffix : "");
    return buf;
}

void op_test_set_link(op_chf *chf, int d, uint32_t s, uint32_t t)
{
    if (op_chf_set_link(NULL, chf, d, s, t) != OP_OK) {
        fprintf(stderr, "op_chf_set_link(%d, %u, %u) failed\n", d, s, t);
        abort();
    }
}

int64_t op_test_links_diff(const op_chf *a, const op_chf *b, int *dir)
{
    for (uint32_t s = 0; s < a->span_count; s++)
        for (int d = 0; d < 4; d++)
            if (op_chf_link(a, d, s) != op_chf_link(b, d, s)) {
                *dir = d;
                return s;
            }
    return -1;
}

void op_test_brute_distance(const op_chf *chf, uint32_t *dist)
{
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++) {
        int b = chf->area[s] == 0 || chf->mutual[s] != 0xf;
        for (int d = 0; d < 4 && !b; d++)
            b = chf->area[op_chf_link(chf, d, s)] == 0;
        dist[s] = b ? 0 : UINT32_MAX;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (dist[s] == UINT32_MAX)
                continue;
            for (int d = 0; d < 4; d++) {
                if (!(chf->mutual[s] >> d & 1))
                    continue;
                const uint32_t t = op_chf_link(chf, d, s);
                if (dist[s] + 2 < dist[t]) {
                    dist[t] = dist[s] + 2;
                    changed = 1;
                }
                for (int k = 0; k < 2; k++) {
                    const int e = (d + (k ? 3 : 1)) & 3; /* d+1 and d-1: both orders */
                    if (!(chf->mutual[t] >> e & 1))
                        continue;
                    const uint32_t u = op_chf_link(chf, e, t);
                    if (dist[s] + 3 < dist[u]) {
                        dist[u] = dist[s] + 3;
                        changed = 1;
                    }
                }
            }
        }
    }
}
