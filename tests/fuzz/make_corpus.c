/* Writes the committed seed corpora (tests/fuzz/corpus/NAME) from the library itself, so
 * they can be regenerated after a format change:
 *   cmake --build build --target fuzz_make_corpus && build/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
 * Small on purpose: libFuzzer grows its own working corpus from these (ci/fuzz.sh). */
#include "onepath/onepath.h"
#include "util/testscene.h"
#include "util/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef OP_HAVE_PNG
#include <png.h>
#endif

static const char *root;

static void put(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void put_str(const char *dir, const char *name, const char *text)
{
    put(dir, name, text, strlen(text));
}

static void opchf_seeds(op_ctx *ctx)
{
    static const struct {
        uint32_t w, d, floors, border;
        const char *name;
    } fields[] = {{6, 5, 1, 0, "small-6x5.opchf"},
                  {12, 12, 3, 0, "floors-12x12.opchf"},
                  {16, 16, 2, 2, "band-16x16.opchf"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, fields[i].w, fields[i].d);
        o.max_floors = fields[i].floors;
        op_chf chf;
        if (op_random_chf(ctx, &chf, 100 + i, &o) != OP_OK)
            exit(1);
        chf.border_size = (int32_t)fields[i].border;
        unsigned char *buf;
        size_t len;
        if (op_opchf_encode(ctx, &chf, &buf, &len) != OP_OK) {
            fprintf(stderr, "encode: %s\n", ctx->err);
            exit(1);
        }
        put("opchf", fields[i].name, buf, len);
        if (i == 1) {
            put("opchf", "truncated-100.opchf", buf, 100);
            put("opchf", "header-only.opchf", buf, OP_OPCHF_HEADER_SIZE);
        }
        op_free(ctx, buf);
        op_chf_free(&chf);
    }
}

static void obj_seeds(void)
{
    put_str("obj", "box.obj",
            "# a floor with a box on it\n"
            "v 0 0 0\nv 20 0 0\nv 20 0 20\nv 0 0 20\n"
            "v 8 0 8\nv 12 0 8\nv 12 3 8\nv 8 3 8\nv 8 0 12\nv 12 0 12\nv 12 3 12\nv 8 3 12\n"
            "f 1 4 3 2\nf 8 12 11 7\nf 5 6 7 8\nf 6 10 11 7\nf 10 9 12 11\nf 9 5 8 12\n#3");
    put_str("obj", "negative-refs.obj",
            "o ramp\r\nv 0 0 0\r\nv 4 0 0\r\nv 4 1 4\r\nv 0 1 4\r\nvt 0 0\r\nvn 0 1 0\r\n"
            "f -4/1/1 -1/1/1 -2/1/1 -3/1/1\r\ng rest\r\ns off\r\nusemtl x\r\n");
    put_str("obj", "stairs.obj",
            "v 0 0 0\nv 3 0 0\nv 3 0 1\nv 0 0 1\nv 0 0.4 1\nv 3 0.4 1\nv 3 0.4 2\nv 0 0.4 2\n"
            "v 0 0.8 2\nv 3 0.8 2\nv 3 0.8 3\nv 0 0.8 3\n"
            "f 1 4 3 2\nf 5 8 7 6\nf 9 12 11 10\nf 4 5 6 3\nf 8 9 10 7\n#5");
    put_str("obj", "bad-index.obj", "v 0 0 0\nv 1 0 0\nf 1 2 7\n");
    put_str("obj", "w-and-lines.obj", "v 0 0 0 1\nv 1 0 0 1\nv 0 0 1 1\nl 1 2\np 3\nf 1//1 3//1 2//1\n");
}

static void heightmap_seeds(void)
{
    /* mode 1: r16 of width 2, 2 x 5 samples; mode 15: width 9, 9 x 4 samples */
    unsigned char r16[1 + 2 * 9 * 4];
    r16[0] = 1;
    for (int i = 0; i < 2 * 2 * 5; i++)
        r16[1 + i] = (unsigned char)(i * 29 + 3);
    put("heightmap", "r16-w2.bin", r16, 1 + 2 * 2 * 5);
    r16[0] = 15;
    for (int i = 0; i < 2 * 9 * 4; i++)
        r16[1 + i] = (unsigned char)(i * 53 + 1);
    put("heightmap", "r16-w9.bin", r16, sizeof r16);
    put("heightmap", "r16-odd-size.bin", r16, 8);
#ifdef OP_HAVE_PNG
    static const struct {
        uint32_t fmt;
        const char *name;
    } pngs[] = {{PNG_FORMAT_LINEAR_Y, "png16-gray.bin"}, {PNG_FORMAT_GRAY, "png8-gray.bin"},
                {PNG_FORMAT_RGB, "png8-rgb.bin"}};
    for (size_t i = 0; i < sizeof pngs / sizeof pngs[0]; i++) {
        uint16_t px[6 * 5 * 3];
        for (size_t k = 0; k < sizeof px / sizeof px[0]; k++)
            px[k] = (uint16_t)(k * 2311);
        png_image img;
        memset(&img, 0, sizeof img);
        img.version = PNG_IMAGE_VERSION;
        img.width = 6;
        img.height = 5;
        img.format = pngs[i].fmt;
        png_alloc_size_t len = 0;
        if (!png_image_write_to_memory(&img, NULL, &len, 0, px, 0, NULL))
            exit(1);
        unsigned char *mem = malloc(1 + len);
        mem[0] = 0;
        if (!png_image_write_to_memory(&img, mem + 1, &len, 0, px, 0, NULL))
            exit(1);
        put("heightmap", pngs[i].name, mem, 1 + len);
        if (i == 0)
            put("heightmap", "png16-truncated.bin", mem, 1 + len / 2);
        free(mem);
    }
#endif
}

static void bake_seeds(void)
{
    op_rng r = {2024};
    for (int i = 0; i < 16; i++) {
        unsigned char buf[1200];
        const size_t len = 64 + op_rng_below(&r, sizeof buf - 64);
        for (size_t k = 0; k < len; k++)
            buf[k] = (unsigned char)op_rng_next(&r);
        char name[32];
        snprintf(name, sizeof name, "random-%02d.bin", i);
        put("bake", name, buf, len);
    }
    /* One floor, 24 x 24, every cell walkable at one height: a single big region. */
    unsigned char flat[12 + 2 * 24 * 24 * 3];
    const unsigned char head[12] = {23, 23, 0, 0, 3, 3, 1, 3, 3, 9, 4, 0};
    memcpy(flat, head, sizeof head);
    size_t n = sizeof head;
    for (int c = 0; c < 24 * 24; c++) {
        flat[n++] = 1; /* one span */
        flat[n++] = 0; /* y 0 */
        flat[n++] = 0; /* area 63 */
        flat[n++] = 0; /* gap (none above) */
    }
    put("bake", "flat-24x24.bin", flat, n);
}

/* Small tiled bakes as OPBAKE1 files: contours only, with region ids, with raw loops,
 * a bake stopped after spans, and a truncated file. */
static void opbake_seeds(op_ctx *ctx)
{
    static const struct {
        uint64_t seed;
        unsigned flags;
        op_stage until;
        const char *name;
    } files[] = {{1, 0, OP_STAGE_CONTOURS, "contours.opbake"},
                 {2, OP_OPBAKE_REGIONS, OP_STAGE_CONTOURS, "regions.opbake"},
                 {3, OP_OPBAKE_RAW, OP_STAGE_CONTOURS, "raw.opbake"},
                 {4, 0, OP_STAGE_SPANS, "spans-only.opbake"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        if (op_test_random_scene(ctx, &s, &bs.config, files[i].seed, 18, 4) != OP_OK)
            exit(1);
        bs.config.tile_size = 10;
        bs.config.border_size = 2;
        bs.regions.min_region_area = 2;
        bs.until = files[i].until;
        bs.contours.keep_raw = (files[i].flags & OP_OPBAKE_RAW) != 0;
        op_tiled_options o;
        op_tiled_options_defaults(&o);
        o.threads = 1;
        o.keep_regions = (files[i].flags & OP_OPBAKE_REGIONS) != 0;
        op_tiled_result r;
        unsigned char *buf;
        size_t len;
        if (op_bake_tiled(ctx, &s, &bs, &o, &r) != OP_OK ||
            op_opbake_encode(ctx, &r, files[i].flags, &buf, &len) != OP_OK) {
            fprintf(stderr, "opbake: %s\n", ctx->err);
            exit(1);
        }
        put("opbake", files[i].name, buf, len);
        if (i == 0) {
            put("opbake", "truncated.opbake", buf, len / 2);
            /* The same file as version 1 wrote it: WRLD without the two digests. */
            unsigned char *v1 = malloc(len);
            if (!v1)
                exit(1);
            memcpy(v1, buf, 16 + 16 + 88);
            v1[8] = 1;
            v1[16 + 8] = 88;
            const uint64_t sum = op_digest_bytes(v1 + 16, 16 + 88);
            for (int b = 0; b < 8; b++)
                v1[16 + 16 + 88 + b] = (unsigned char)(sum >> (8 * b));
            memcpy(v1 + 16 + 16 + 88 + 8, buf + 16 + 16 + 104 + 8, len - (16 + 16 + 104 + 8));
            put("opbake", "version1.opbake", v1, len - 16);
            free(v1);
        }
        op_free(ctx, buf);
        op_tiled_result_free(&r);
        /* Partial files (issue 14): cuts and a rectangle, with and without region ids. */
        static const char *const ranges[] = {"1/2", "2/3", "0-1,1"};
        if (i < 3) {
            op_shard sh;
            if (op_shard_parse(ctx, ranges[i], &sh) != OP_OK ||
                op_bake_shard(ctx, &s, &bs, &o, &sh, &r) != OP_OK ||
                op_opbake_encode(ctx, &r, files[i].flags, &buf, &len) != OP_OK) {
                fprintf(stderr, "opbake part: %s\n", ctx->err);
                exit(1);
            }
            char name[64];
            snprintf(name, sizeof name, "part-%zu.opbake", i);
            put("opbake", name, buf, len);
            op_free(ctx, buf);
            op_tiled_result_free(&r);
        }
        op_scene_free(&s);
    }
}

/* Small tile caches as OPCACHE1 files: stored and zstd-compressed (when the build has
 * zstd), with obstacles of every kind, and a truncated one. */
static void opcache_seeds(op_ctx *ctx)
{
    for (int i = 0; i < 2; i++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        if (op_test_random_scene(ctx, &s, &bs.config, 11 + (uint64_t)i, 18, 4) != OP_OK)
            exit(1);
        bs.config.tile_size = 10;
        bs.config.border_size = 2;
        bs.regions.partition = OP_PARTITION_LAYERS;
        bs.regions.min_region_area = 2;
        op_tiled_options o;
        op_tiled_options_defaults(&o);
        o.threads = 1;
        o.keep_regions = i;
        op_tile_cache c;
        if (op_tile_cache_bake(ctx, &s, &bs, &o, &c) != OP_OK)
            exit(1);
        snprintf(c.source, sizeof c.source, "--demo\n--demo-size\n64");
        op_volume v;
        memset(&v, 0, sizeof v);
        v.ymin = bs.config.bmin[1];
        v.ymax = bs.config.bmax[1];
        v.kind = OP_VOLUME_CYLINDER;
        v.center[0] = bs.config.bmin[0] + 2.0f;
        v.center[1] = bs.config.bmin[2] + 2.0f;
        v.radius = 1.0f;
        op_tile_cache_add(ctx, &c, 3, &v);
        v.kind = OP_VOLUME_BOX;
        v.area = 5;
        v.box_min[0] = bs.config.bmin[0] + 1.0f;
        v.box_min[1] = bs.config.bmin[2] + 3.0f;
        v.box_max[0] = v.box_min[0] + 1.5f;
        v.box_max[1] = v.box_min[1] + 0.5f;
        op_tile_cache_add(ctx, &c, 9, &v);
        const float tri[6] = {1, 1, 3, 1, 2, 3};
        v.kind = OP_VOLUME_PRISM;
        v.vert_count = 3;
        for (int k = 0; k < 6; k++)
            v.verts[k] = tri[k] + bs.config.bmin[k % 2 ? 2 : 0];
        op_tile_cache_add(ctx, &c, 12, &v);
        if (op_tile_cache_update(ctx, &c, 1, NULL) != OP_OK)
            exit(1);
        const int level = i && op_opcache_have_zstd() ? 3 : 0;
        unsigned char *buf;
        size_t len;
        if (op_opcache_encode(ctx, &c, level, 1, &buf, &len) != OP_OK) {
            fprintf(stderr, "opcache: %s\n", ctx->err);
            exit(1);
        }
        put("opcache", level ? "zstd.opcache" : "stored.opcache", buf, len);
        if (i == 0)
            put("opcache", "truncated.opcache", buf, len / 2);
        op_free(ctx, buf);
        op_tile_cache_free(&c);
        op_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    mkdir(root, 0777);
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        return 1;
    opchf_seeds(&ctx);
    obj_seeds();
    heightmap_seeds();
    bake_seeds();
    opbake_seeds(&ctx);
    opcache_seeds(&ctx);
    op_ctx_free(&ctx);
    return 0;
}
