/* build3d/tiles: the digest of the assembled tiled result over its canonical
 * serialization "OPTILES1" (docs/formats.md): the world and tile grid, then per tile in
 * (tz, tx) order its coordinates, span count and the digests of its stages. */
#include "onepath/digest.h"
#include "onepath/tiles.h"

uint64_t op_digest_tiles(const op_tiled_result *r)
{
    op_digest_stream s;
    op_digest_begin(&s);
    op_digest_put(&s, "OPTILES1", 8);
    op_digest_u32(&s, r->world_width);
    op_digest_u32(&s, r->world_depth);
    op_digest_u32(&s, r->tile_size);
    op_digest_u32(&s, r->border_size);
    op_digest_u32(&s, r->tiles_x);
    op_digest_u32(&s, r->tiles_z);
    op_digest_u32(&s, (uint32_t)r->reached);
    for (uint32_t i = 0; i < r->tile_count && r->tiles; i++) {
        const op_tile *t = &r->tiles[i];
        op_digest_u32(&s, t->tx);
        op_digest_u32(&s, t->tz);
        op_digest_u32(&s, t->span_count);
        op_digest_u64(&s, t->digest_spans);
        if (r->reached >= OP_STAGE_REGIONS) {
            op_digest_u64(&s, t->digest_distance);
            op_digest_u32(&s, t->region_count);
            op_digest_u64(&s, t->digest_regions);
        }
        if (r->reached >= OP_STAGE_CONTOURS)
            op_digest_u64(&s, t->digest_contours);
    }
    return op_digest_end(&s);
}
