/* Golden digests on another architecture (ci/cross-bigendian.sh): bakes the hash-matrix
 * scenarios of tests/bake/test_golden.c (the demo world at 256 cells; watershed, monotone
 * and layers; the terrain-only world) with every variant this build and CPU run, and
 * prints "variant scenario digest" lines for the script to compare with the table pinned
 * in test_golden.c. Each OPCHF1 file named on the command line must decode and encode
 * back to the very same bytes (the format is little-endian whatever the host). Needs no
 * test framework, so it runs on targets with no cmocka. */
#include "onepath/onepath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_SIZE 256

static uint64_t combine(uint64_t a, uint64_t b)
{
    unsigned char buf[16];
    for (int i = 0; i < 8; i++) {
        buf[i] = (unsigned char)(a >> (8 * i));
        buf[8 + i] = (unsigned char)(b >> (8 * i));
    }
    return op_digest_bytes(buf, sizeof buf);
}

static int bake(op_ctx *ctx, int terrain, op_partition p, op_bake_result *r)
{
    op_scene scene;
    op_scene_init(&scene);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = p;
    op_status st = terrain ? op_demo_terrain(ctx, GOLDEN_SIZE, &scene, &s.config)
                           : op_demo_world(ctx, GOLDEN_SIZE, &scene, &s.config);
    if (st == OP_OK)
        st = op_bake_scene(ctx, &scene, &s, r);
    op_scene_free(&scene);
    if (st != OP_OK) {
        fprintf(stderr, "bake: %s\n", ctx->err);
        return 1;
    }
    return 0;
}

static void print(const char *isa, const char *scenario, uint64_t d)
{
    char h[17];
    op_digest_hex(d, h);
    printf("%s %s %s\n", isa, scenario, h);
}

static int round_trip(op_ctx *ctx, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fprintf(stderr, "%s: cannot open\n", path), 1;
    static unsigned char buf[1 << 20];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    op_chf chf;
    if (op_opchf_decode(ctx, buf, n, &chf) != OP_OK)
        return fprintf(stderr, "%s: %s\n", path, ctx->err), 1;
    unsigned char *out;
    size_t len;
    if (op_opchf_encode(ctx, &chf, &out, &len) != OP_OK)
        return fprintf(stderr, "%s: encode: %s\n", path, ctx->err), 1;
    const int same = len == n && !memcmp(out, buf, n);
    char h[17];
    op_digest_hex(op_digest_chf(&chf), h);
    printf("opchf %s %s %s\n", path, h, same ? "same-bytes" : "DIFFERENT-BYTES");
    op_free(ctx, out);
    op_chf_free(&chf);
    return !same;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int v = 0; v < OP_ISA_COUNT; v++) {
        if (!op_isa_available((op_isa)v))
            continue;
        op_ctx ctx;
        if (op_ctx_init(&ctx, (op_isa)v) != OP_OK)
            return 1;
        const char *isa = op_isa_name((op_isa)v);
        static const struct {
            op_partition p;
            const char *name;
        } parts[] = {{OP_PARTITION_WATERSHED, "build3d/regions-watershed"},
                     {OP_PARTITION_MONOTONE, "build3d/regions-monotone"},
                     {OP_PARTITION_LAYERS, "build3d/regions-layers"}};
        for (size_t i = 0; i < 3; i++) {
            op_bake_result r;
            if (bake(&ctx, 0, parts[i].p, &r))
                return 1;
            if (i == 0) {
                print(isa, "build3d/spans", r.digest_spans);
                print(isa, "build3d/contours", r.digest_contours);
            }
            print(isa, parts[i].name, r.digest_regions);
            op_bake_result_free(&r);
        }
        op_bake_result r;
        if (bake(&ctx, 1, OP_PARTITION_WATERSHED, &r))
            return 1;
        print(isa, "build3d/regions-contours-terrain", combine(r.digest_regions, r.digest_contours));
        op_bake_result_free(&r);
        if (v == OP_ISA_SCALAR)
            for (int i = 1; i < argc; i++)
                bad |= round_trip(&ctx, argv[i]);
        op_ctx_free(&ctx);
    }
    return bad;
}
