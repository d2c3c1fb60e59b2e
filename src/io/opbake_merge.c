/* Merging part files into the bake file of the whole bake (issue 14; docs/formats.md
 * "Partial files and merging"). Two passes: every part is read and checked in full (as
 * op_opbake_read does) and compared with the first, and its tiles' sections are located;
 * then the output is written in (tz, tx) order, each tile's section copied from its part
 * (checked again on the way, so a part changed in between is caught) through the
 * streaming writer, which recomputes the build3d/tiles digest. The bytes are the
 * one-machine bake's: the same WRLD, the same TILE sections, the same ENDS. */
#include "onepath/opbake.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/io_internal.h"
#include "io/opbake_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define NONE UINT32_MAX

typedef struct tile_src {
    uint32_t part;     /* NONE: no part holds it */
    uint64_t offset;   /* of its TILE section in the part */
    uint64_t length;   /* of the section, header and checksum included */
    uint64_t checksum; /* the section's stored checksum, seen in the first pass */
} tile_src;

/* The first field in which b's description differs from a's, or NULL. */
static const char *differs(const op_tiled_result *a, unsigned fa, const op_tiled_result *b,
                           unsigned fb, char *buf, size_t n)
{
    if (a->digest_world != b->digest_world) {
        snprintf(buf, n, "another world (world digest %016llx, not %016llx)",
                 (unsigned long long)b->digest_world, (unsigned long long)a->digest_world);
        return buf;
    }
    if (a->digest_settings != b->digest_settings) {
        snprintf(buf, n, "other settings (settings digest %016llx, not %016llx)",
                 (unsigned long long)b->digest_settings, (unsigned long long)a->digest_settings);
        return buf;
    }
    /* The digests cover what follows; a file whose fields disagree with them anyway is
     * named by field. */
    if (a->world_width != b->world_width || a->world_depth != b->world_depth)
        return "another world grid";
    if (a->tile_size != b->tile_size || a->border_size != b->border_size ||
        a->tiles_x != b->tiles_x || a->tiles_z != b->tiles_z)
        return "another tile grid";
    if (a->reached != b->reached)
        return "another last stage";
    if ((fa & OPBAKE_V1_FLAGS) != (fb & OPBAKE_V1_FLAGS))
        return "other contents (region ids or raw loops in one and not the other)";
    if (memcmp(a->bmin, b->bmin, sizeof a->bmin) || memcmp(a->bmax, b->bmax, sizeof a->bmax) ||
        memcmp(&a->cs, &b->cs, sizeof a->cs) || memcmp(&a->ch, &b->ch, sizeof a->ch))
        return "other bounds or cell sizes";
    if (a->walkable_height != b->walkable_height || a->walkable_climb != b->walkable_climb ||
        a->walkable_radius != b->walkable_radius || a->partition != b->partition)
        return "other walkable settings or partition";
    return NULL;
}

/* Up to 8 tiles with src[k].part == NONE, as "(x, z), ...". */
static void list_missing(const tile_src *src, const op_tiled_result *w, char *buf, size_t n,
                         uint32_t *count)
{
    size_t used = 0;
    uint32_t listed = 0;
    *count = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < w->tile_count; k++) {
        if (src[k].part != NONE)
            continue;
        (*count)++;
        if (listed < 8 && used < n) {
            used += (size_t)snprintf(buf + used, n - used, "%s(%u, %u)", listed ? ", " : "",
                                     k % w->tiles_x, k / w->tiles_x);
            listed++;
        }
    }
    if (*count > listed && used < n)
        snprintf(buf + used, n - used, ", ...");
}

/* Pass 1 for one part: read, check, compare, claim its tiles. */
static op_status scan_part(op_ctx *ctx, const char *const *parts, size_t i, op_tiled_result *w0,
                           unsigned *f0, tile_src **src)
{
    const char *path = parts[i];
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    op_tiled_result r;
    unsigned flags;
    st = op_io_prefix_path(ctx, op_opbake_decode(ctx, buf, len, &r, &flags), path);
    if (st != OP_OK) {
        op_free(ctx, buf);
        return st;
    }
    if (flags & OP_OPBAKE_VERSION1) {
        st = op_fail(ctx, OP_BAD_INPUT,
                     "%s: a version 1 bake file has no world or settings digest to merge by; "
                     "bake it again",
                     path);
        goto out;
    }
    char why[200];
    if (i == 0) {
        *w0 = r;
        w0->tiles = NULL;
        w0->held = NULL;
        w0->held_count = 0;
        w0->digest = 0;
        *f0 = flags & ~OP_OPBAKE_PART;
        *src = op_ctx_alloc(ctx, r.tile_count, sizeof **src, "tiles of the merge");
        if (!*src) {
            st = OP_NO_MEMORY;
            goto out;
        }
        for (uint32_t k = 0; k < r.tile_count; k++)
            (*src)[k].part = NONE;
    } else {
        const char *d = differs(w0, *f0, &r, flags, why, sizeof why);
        if (d) {
            st = op_fail(ctx, OP_BAD_INPUT, "%s is not a part of the bake %s belongs to: %s",
                         path, parts[0], d);
            goto out;
        }
    }
    /* The sections: header, WRLD, PART (a partial file), then the held tiles in order. */
    size_t pos = OPBAKE_HEADER_SIZE;
    const int sections_before = (flags & OP_OPBAKE_PART) ? 2 : 1;
    for (int s = 0; s < sections_before; s++)
        pos += OP_SECTION_HEAD + (size_t)op_le_get32(buf + pos + 8) + OP_SECTION_TAIL;
    for (uint32_t k = 0; k < r.tile_count; k++) {
        if (r.held && !r.held[k])
            continue;
        const size_t slen = OP_SECTION_HEAD + (size_t)op_le_get32(buf + pos + 8) + OP_SECTION_TAIL;
        tile_src *t = &(*src)[k];
        if (t->part != NONE) {
            st = op_fail(ctx, OP_BAD_INPUT, "tile (%u, %u) is in both %s and %s",
                         k % r.tiles_x, k / r.tiles_x, parts[t->part], path);
            goto out;
        }
        t->part = (uint32_t)i;
        t->offset = pos;
        t->length = slen;
        t->checksum = (uint64_t)op_le_get32(buf + pos + slen - 8) |
                      (uint64_t)op_le_get32(buf + pos + slen - 4) << 32;
        pos += slen;
    }
out:
    op_tiled_result_free(&r);
    op_free(ctx, buf);
    return st;
}

op_status op_opbake_merge(op_ctx *ctx, const char *const *parts, size_t part_count,
                          const char *path, op_opbake_merge_info *info)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!parts || part_count == 0 || !path)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "merge: no parts or no output named");
    if (part_count >= NONE)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "merge: %zu parts", part_count);
    op_tiled_result w0;
    memset(&w0, 0, sizeof w0);
    unsigned f0 = 0;
    tile_src *src = NULL;
    op_status st = OP_OK;
    for (size_t i = 0; i < part_count && st == OP_OK; i++)
        st = scan_part(ctx, parts, i, &w0, &f0, &src);
    if (st == OP_OK) {
        char list[300];
        uint32_t missing;
        list_missing(src, &w0, list, sizeof list, &missing);
        if (missing) {
            char names[300];
            size_t used = 0;
            for (size_t i = 0; i < part_count && i < 3 && used < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         i ? ", " : "", parts[i]);
            if (part_count > 3 && used < sizeof names)
                snprintf(names + used, sizeof names - used, ", ...");
            st = op_fail(ctx, OP_BAD_INPUT, "%u of %u tiles are in none of the %zu parts (%s): %s",
                         missing, w0.tile_count, part_count, names, list);
        }
    }
    /* Pass 2: the file, tile by tile. */
    op_opbake_writer *w = NULL;
    if (st == OP_OK)
        st = op_opbake_writer_open(ctx, &w0, f0, path, &w);
    FILE **open = NULL;
    unsigned char *sec = NULL;
    size_t cap = 0;
    uint64_t bytes = OPBAKE_HEADER_SIZE + OP_SECTION_HEAD + WRLD_SIZE + OP_SECTION_TAIL + OP_SECTION_HEAD +
                     ENDS_SIZE + OP_SECTION_TAIL;
    if (st == OP_OK) {
        open = op_ctx_calloc(ctx, part_count, sizeof *open, "open parts");
        if (!open)
            st = OP_NO_MEMORY;
    }
    for (uint32_t k = 0; st == OP_OK && k < w0.tile_count; k++) {
        const tile_src *t = &src[k];
        const char *pp = parts[t->part];
        if (!open[t->part]) {
            open[t->part] = fopen(pp, "rb");
            if (!open[t->part]) {
                st = op_fail(ctx, OP_IO_ERROR, "%s: cannot open: %s", pp, strerror(errno));
                break;
            }
        }
        if (t->length > cap) {
            unsigned char *q = op_mem_realloc(op_ctx_allocator(ctx), sec, (size_t)t->length);
            if (!q) {
                st = op_fail(ctx, OP_NO_MEMORY, "merge: out of memory for a tile of %llu bytes",
                             (unsigned long long)t->length);
                break;
            }
            sec = q;
            cap = (size_t)t->length;
        }
        FILE *f = open[t->part];
        if (fseeko(f, (off_t)t->offset, SEEK_SET) != 0 ||
            fread(sec, 1, (size_t)t->length, f) != t->length) {
            st = op_fail(ctx, OP_IO_ERROR, "%s: tile (%u, %u) can no longer be read at offset %llu",
                         pp, k % w0.tiles_x, k / w0.tiles_x, (unsigned long long)t->offset);
            break;
        }
        const uint64_t sum = (uint64_t)op_le_get32(sec + t->length - 8) |
                             (uint64_t)op_le_get32(sec + t->length - 4) << 32;
        if (sum != t->checksum) {
            st = op_fail(ctx, OP_BAD_INPUT, "%s: changed while merging (tile (%u, %u))", pp,
                         k % w0.tiles_x, k / w0.tiles_x);
            break;
        }
        st = op_io_prefix_path(ctx, op_opbake_writer_put_section(w, sec, (size_t)t->length), pp);
        bytes += t->length;
    }
    if (open)
        for (size_t i = 0; i < part_count; i++)
            if (open[i])
                fclose(open[i]);
    op_mem_free(op_ctx_allocator(ctx), open);
    op_mem_free(op_ctx_allocator(ctx), sec);
    if (w) {
        if (st == OP_OK) {
            op_tiled_result sum;
            st = op_opbake_writer_finish(w, &sum);
            if (st == OP_OK && info) {
                info->parts = (uint32_t)part_count;
                info->tiles = sum.tile_count;
                info->digest = sum.digest;
                info->bytes = bytes;
            }
            op_tiled_result_free(&sum);
        } else {
            op_opbake_writer_abort(w);
        }
    }
    op_mem_free(op_ctx_allocator(ctx), src);
    return st;
}
