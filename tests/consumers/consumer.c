/* A program that uses the installed library the way a C user would (ci/consumers.sh
 * builds it through pkg-config): bakes a small demo world and prints the library's
 * version and the four stage digests, in the format of `onepath digest`, so the script
 * can compare them with the tool's. Exit 1 on any failure. */
#include <onepath/onepath.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    if (strcmp(op_version(), ONEPATH_VERSION_STRING) != 0) {
        fprintf(stderr, "op_version() %s, headers %s\n", op_version(), ONEPATH_VERSION_STRING);
        return 1;
    }
    printf("version %s\n", op_version());

    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_AUTO) != OP_OK) {
        fprintf(stderr, "op_ctx_init: %s\n", op_ctx_error(&ctx));
        return 1;
    }
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    op_scene scene;
    op_bake_result r;
    memset(&r, 0, sizeof r);
    op_status st = op_demo_world(&ctx, OP_DEMO_MIN_SIZE, &scene, &s.config);
    if (st == OP_OK) {
        st = op_bake_scene(&ctx, &scene, &s, &r);
        op_scene_free(&scene);
    }
    if (st != OP_OK) {
        fprintf(stderr, "bake: %s: %s\n", op_status_name(st), op_ctx_error(&ctx));
        op_bake_result_free(&r);
        op_ctx_free(&ctx);
        return 1;
    }
    char h[17];
    op_digest_hex(r.digest_spans, h);
    printf("spans %s\n", h);
    op_digest_hex(r.digest_distance, h);
    printf("distance %s\n", h);
    op_digest_hex(r.digest_regions, h);
    printf("regions %s\n", h);
    op_digest_hex(r.digest_contours, h);
    printf("contours %s\n", h);
    op_bake_result_free(&r);
    op_ctx_free(&ctx);
    return 0;
}
