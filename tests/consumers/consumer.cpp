// The same program as consumer.c, in C++ (a game engine's build): the public headers
// compile as C++ and the package links from a project that enables only C++. Built by
// ci/consumers.sh through find_package(onepath) and through add_subdirectory.
#include <onepath/onepath.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace {

struct ctx_deleter {
    void operator()(op_ctx *c) const { op_ctx_free(c); delete c; }
};

std::string hex(uint64_t d)
{
    char h[17];
    op_digest_hex(d, h);
    return h;
}

} // namespace

int main()
{
    if (std::string(op_version()) != ONEPATH_VERSION_STRING) {
        std::fprintf(stderr, "op_version() %s, headers %s\n", op_version(), ONEPATH_VERSION_STRING);
        return 1;
    }
    std::printf("version %s\n", op_version());

    std::unique_ptr<op_ctx, ctx_deleter> ctx(new op_ctx());
    if (op_ctx_init(ctx.get(), OP_ISA_AUTO) != OP_OK) {
        std::fprintf(stderr, "op_ctx_init: %s\n", op_ctx_error(ctx.get()));
        return 1;
    }
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    op_scene scene;
    op_bake_result r;
    std::memset(&r, 0, sizeof r);
    op_status st = op_demo_world(ctx.get(), OP_DEMO_MIN_SIZE, &scene, &s.config);
    if (st == OP_OK) {
        st = op_bake_scene(ctx.get(), &scene, &s, &r);
        op_scene_free(&scene);
    }
    if (st != OP_OK) {
        std::fprintf(stderr, "bake: %s: %s\n", op_status_name(st), op_ctx_error(ctx.get()));
        op_bake_result_free(&r);
        return 1;
    }
    std::printf("spans %s\ndistance %s\nregions %s\ncontours %s\n", hex(r.digest_spans).c_str(),
                hex(r.digest_distance).c_str(), hex(r.digest_regions).c_str(),
                hex(r.digest_contours).c_str());
    op_bake_result_free(&r);
    return 0;
}
