/* OPCHFC1: the digest of a rectangle of cells of a compact heightfield, independent of
 * where the rectangle lies (docs/formats.md). A tile window and the solo field hash the
 * same world cells alike, so a tiled bake's owned cells can be compared with the solo
 * bake's (supplement §2 "Seam-exact tiles"). */
#include "onepath/digest.h"
#include "onepath/tiles.h"
#include "core/le.h"

#include <string.h>

uint64_t op_digest_chf_cells(const op_chf *chf, uint32_t x0, uint32_t z0, uint32_t w,
                             uint32_t d)
{
    if ((uint64_t)x0 + w > chf->width || (uint64_t)z0 + d > chf->depth)
        return 0;
    op_digest_stream s;
    op_digest_begin(&s);
    unsigned char head[16];
    memcpy(head, "OPCHFC1\0", 8);
    op_le_put32(head + 8, w);
    op_le_put32(head + 12, d);
    op_digest_put(&s, head, sizeof head);
    /* Staged record by record: a cell count, then per span at most 6 + 4·4 bytes. */
    unsigned char buf[4096];
    size_t used = 0;
    for (uint32_t z = z0; z < z0 + d; z++)
        for (uint32_t x = x0; x < x0 + w; x++) {
            const size_t c = (size_t)x + (size_t)z * chf->width;
            const uint32_t f = chf->cell_first[c], n = chf->cell_first[c + 1] - f;
            if (used + 4 > sizeof buf) {
                op_digest_put(&s, buf, used);
                used = 0;
            }
            op_le_put32(buf + used, n);
            used += 4;
            for (uint32_t k = f; k < f + n; k++) {
                if (used + 22 > sizeof buf) {
                    op_digest_put(&s, buf, used);
                    used = 0;
                }
                const uint8_t m = chf->mutual[k] & 0xf;
                op_le_put16(buf + used, chf->y[k]);
                op_le_put16(buf + used + 2, chf->h[k]);
                buf[used + 4] = chf->area[k];
                buf[used + 5] = m;
                used += 6;
                for (int dir = 0; dir < 4; dir++) {
                    if (!(m & (1u << dir)))
                        continue;
                    /* The linked span's index within its (neighbour) cell. */
                    const size_t nc = (size_t)((int64_t)x + op_dir_dx(dir)) +
                                      (size_t)((int64_t)z + op_dir_dz(dir)) * chf->width;
                    op_le_put32(buf + used, op_chf_link(chf, dir, k) - chf->cell_first[nc]);
                    used += 4;
                }
            }
        }
    op_digest_put(&s, buf, used);
    return op_digest_end(&s);
}
