/* What a tiled bake was made of, as two digests that shards and merges compare
 * (docs/formats.md "OPSCENE1", "OPSETTINGS1"; issue 14): the input scene, and every
 * setting that shapes the output. Explicit little-endian streams of the values' bits,
 * so the same scene and settings give the same digests on every host. */
#include "onepath/digest.h"
#include "onepath/tiles.h"

#include <string.h>

static void put_f32(op_digest_stream *s, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    op_digest_u32(s, u);
}

static void put_f64(op_digest_stream *s, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    op_digest_u64(s, u);
}

/* n u32-sized values (u32 or binary32) as little-endian u32: on a little-endian host
 * their memory is that stream already. */
static void put_words(op_digest_stream *s, const void *v, size_t n)
{
    const uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    if (first == 1) {
        op_digest_put(s, v, 4 * n);
        return;
    }
    uint32_t chunk[1024];
    for (size_t i = 0; i < n; i += 1024) {
        const size_t k = n - i < 1024 ? n - i : 1024;
        memcpy(chunk, (const unsigned char *)v + 4 * i, k * sizeof *chunk);
        op_digest_u32s(s, chunk, k);
    }
}

uint64_t op_digest_scene(const op_scene *scene)
{
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, "OPSCENE1", 8);
    const op_mesh *m = &scene->mesh;
    op_digest_u32(&s, m->vert_count);
    if (m->verts)
        put_words(&s, m->verts, 3 * (size_t)m->vert_count);
    op_digest_u32(&s, m->tri_count);
    if (m->tris)
        put_words(&s, m->tris, 3 * (size_t)m->tri_count);
    op_digest_u32(&s, scene->volume_count);
    for (uint32_t i = 0; i < scene->volume_count && scene->volumes; i++) {
        const op_volume *v = &scene->volumes[i];
        op_digest_u32(&s, (uint32_t)v->kind);
        op_digest_u8(&s, v->area);
        put_f32(&s, v->ymin);
        put_f32(&s, v->ymax);
        switch (v->kind) {
        case OP_VOLUME_PRISM: {
            const uint32_t n = v->vert_count <= OP_VOLUME_MAX_VERTS ? v->vert_count : 0;
            op_digest_u32(&s, n);
            for (uint32_t k = 0; k < 2 * n; k++)
                put_f32(&s, v->verts[k]);
            break;
        }
        case OP_VOLUME_BOX:
            for (int k = 0; k < 2; k++) {
                put_f32(&s, v->box_min[k]);
                put_f32(&s, v->box_max[k]);
            }
            break;
        case OP_VOLUME_CYLINDER:
            put_f32(&s, v->center[0]);
            put_f32(&s, v->center[1]);
            put_f32(&s, v->radius);
            break;
        }
    }
    return op_digest_end(&s);
}

uint64_t op_digest_tiled_settings(const op_bake_settings *bs, const op_config *cfg, uint32_t T,
                                  uint32_t B)
{
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, "OPSETTINGS1", 11);
    /* The spans stage, bounds as used (resolved from the input when not given). */
    put_f32(&s, cfg->cs);
    put_f32(&s, cfg->ch);
    for (int i = 0; i < 3; i++)
        put_f32(&s, cfg->bmin[i]);
    for (int i = 0; i < 3; i++)
        put_f32(&s, cfg->bmax[i]);
    put_f32(&s, cfg->walkable_slope_deg);
    op_digest_i32(&s, cfg->walkable_height);
    op_digest_i32(&s, cfg->walkable_climb);
    op_digest_i32(&s, cfg->walkable_radius);
    op_digest_u32(&s, T);
    op_digest_u32(&s, B);
    /* Regions and contours (border_region is the tile's own; keep_raw only adds the raw
     * loops, which the file's RAW flag records). */
    op_digest_u32(&s, (uint32_t)bs->regions.partition);
    op_digest_u32(&s, bs->regions.min_region_area);
    op_digest_u32(&s, bs->regions.merge_region_area);
    put_f64(&s, bs->contours.max_error);
    op_digest_i32(&s, bs->contours.max_edge_len);
    op_digest_u32(&s, bs->contours.straight_region_borders != 0);
    op_digest_u32(&s, (uint32_t)bs->until);
    return op_digest_end(&s);
}
