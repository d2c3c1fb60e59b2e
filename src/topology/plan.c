/* The flood plan of a chunk shape (local.c, flood.c): the padded grid (one impassable tile
 * round the chunk, z padded only for chunks more than one layer thick), the per-tile
 * tables (local index, coordinates, face bits), the open-chunk template (the flood of an
 * all-passable chunk, supplement §10.2-10.4) and the face strips that portal pairing
 * reads (supplement §10.6). Built once per shape and shared read-only by the threads. */
/* Row loops written to vectorize: GCC asks to be told at -O2 (see flood.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif
#include "topology/topology_internal.h"

const int8_t op_topo_hex_step[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
const uint8_t op_topo_hex_face[6] = {OP_FACE_POS_X,       OP_FACE_NEG_X, OP_FACE_POS_Y,
                                    OP_FACE_NEG_Y,       OP_FACE_POS_X_NEG_Y,
                                    OP_FACE_NEG_X_POS_Y};
/* Orthogonal faces in exit order (supplement §10.3): -x, +x, -y, +y, -z, +z. */
const int8_t op_topo_face_dir[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                      {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};


void op_topo_plan_free(op_topo_plan *p)
{
    op_mem_free(&p->alloc, p->loc);
    op_mem_free(&p->alloc, p->x);
    op_mem_free(&p->alloc, p->y);
    op_mem_free(&p->alloc, p->z);
    op_mem_free(&p->alloc, p->face);
    op_mem_free(&p->alloc, p->info);
    op_mem_free(&p->alloc, p->open_exits);
    op_allocator a = p->alloc;
    memset(p, 0, sizeof *p);
    p->alloc = a;
}


static void flood_open_template(op_topo_plan *p, uint8_t *st, uint32_t *stack);

int op_topo_plan_make(op_topo_plan *p, const op_world_shape *shape, const op_allocator *a)
{
    op_topo_plan_free(p);
    if (a)
        p->alloc = *a;
    p->shape = *shape;
    op_topo_chunk_grid(shape, p->grid);
    for (int i = 0; i < 3; i++)
        p->c[i] = shape->chunk[i];
    p->hex = shape->lattice == OP_LATTICE_AXIAL_HEX;
    p->px = p->c[0] + 2;
    p->py = p->c[1] + 2;
    p->pz = p->c[2] > 1 ? p->c[2] + 2 : 1;
    p->padded = p->px * p->py * p->pz; /* < 2^32: chunks hold at most 2^24 tiles */
    p->tiles = p->c[0] * p->c[1] * p->c[2];
    p->compact = p->padded <= 0xffff;
    {
        const uint32_t len[3] = {p->c[1] * p->c[2], p->c[0] * p->c[2], p->c[0] * p->c[1]};
        uint32_t at = 0;
        for (int f = 0; f < 6; f++) {
            p->face_off[f] = at;
            p->face_len[f] = p->grid[f >> 1] > 1 ? len[f >> 1] : 0;
            at += p->face_len[f];
        }
        p->face_total = at;
    }
    p->px_magic = (0x100000000ull / p->px) + 1;
    p->py_magic = (0x100000000ull / p->py) + 1;
    int32_t px = (int32_t)p->px, pxy = (int32_t)(p->px * p->py);
    /* Push order (supplement §10.2). */
    p->step[0] = 1;
    p->step[1] = -1;
    p->step[2] = px;
    p->step[3] = -px;
    if (p->hex) {
        p->nn = 6;
        p->step[4] = 1 - px;
        p->step[5] = -1 + px;
    } else if (p->pz > 1) {
        p->nn = 6;
        p->step[4] = pxy;
        p->step[5] = -pxy;
    } else {
        p->nn = 4;
    }
    p->loc = op_mem_array(&p->alloc, p->padded, sizeof *p->loc);
    p->x = op_mem_array(&p->alloc, p->padded, sizeof *p->x);
    p->y = op_mem_array(&p->alloc, p->padded, sizeof *p->y);
    p->z = op_mem_array(&p->alloc, p->padded, sizeof *p->z);
    p->face = op_mem_calloc(&p->alloc, p->padded, 1);
    p->info = op_mem_calloc(&p->alloc, p->padded, sizeof *p->info);
    if (!p->loc || !p->x || !p->y || !p->z || !p->face || !p->info) {
        op_topo_plan_free(p);
        return -1;
    }
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    for (uint32_t q = 0; q < p->padded; q++) {
        p->loc[q] = UINT32_MAX;
        p->x[q] = p->y[q] = p->z[q] = 0;
    }
    for (uint32_t lz = 0; lz < p->c[2]; lz++)
        for (uint32_t ly = 0; ly < p->c[1]; ly++)
            for (uint32_t lx = 0; lx < p->c[0]; lx++) {
                uint32_t q = (lz + zoff) * p->px * p->py + (ly + 1) * p->px + lx + 1;
                p->loc[q] = lx + ly * p->c[0] + lz * p->c[0] * p->c[1];
                p->x[q] = lx;
                p->y[q] = ly;
                p->z[q] = lz;
                uint8_t f = 0;
                f |= (uint8_t)((lx == 0) << OP_FACE_NEG_X);
                f |= (uint8_t)((lx + 1 == p->c[0]) << OP_FACE_POS_X);
                f |= (uint8_t)((ly == 0) << OP_FACE_NEG_Y);
                f |= (uint8_t)((ly + 1 == p->c[1]) << OP_FACE_POS_Y);
                f |= (uint8_t)((lz == 0) << OP_FACE_NEG_Z);
                f |= (uint8_t)((lz + 1 == p->c[2]) << OP_FACE_POS_Z);
                p->face[q] = f;
                p->info[q] = p->loc[q] | (uint64_t)lx << 24 | (uint64_t)f << 48;
                uint32_t n = 0;
                if (p->hex) {
                    for (int d = 0; d < 6; d++) {
                        int64_t tx = (int64_t)lx + op_topo_hex_step[d][0], ty = (int64_t)ly + op_topo_hex_step[d][1];
                        n += tx < 0 || ty < 0 || tx >= p->c[0] || ty >= p->c[1];
                    }
                } else {
                    for (int fc = 0; fc < 6; fc++)
                        n += (f >> fc & 1) && p->grid[fc >> 1] > 1;
                }
                p->max_exits += n;
            }
    /* The open template: the flood of an all-passable chunk, exits recorded as if every
     * neighbour chunk existed. */
    uint8_t *st = op_mem_alloc(&p->alloc, p->padded);
    uint32_t *stack = op_mem_array(&p->alloc, (size_t)p->padded + 8, sizeof *stack);
    uint64_t max_exits = (uint64_t)p->tiles * 6;
    p->open_exits = op_mem_array(&p->alloc, (size_t)(max_exits ? max_exits : 1), sizeof *p->open_exits);
    if (!st || !stack || !p->open_exits) {
        op_mem_free(&p->alloc, st);
        op_mem_free(&p->alloc, stack);
        op_topo_plan_free(p);
        return -1;
    }
    flood_open_template(p, st, stack);
    op_mem_free(&p->alloc, st);
    op_mem_free(&p->alloc, stack);
    return 0;
}

static uint32_t padded_of(const op_topo_plan *p, uint32_t lx, uint32_t ly, uint32_t lz)
{
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    return (lz + zoff) * p->px * p->py + (ly + 1) * p->px + lx + 1;
}

static void flood_open_template(op_topo_plan *p, uint8_t *st, uint32_t *stack)
{
    memset(st, 0, p->padded);
    for (uint32_t q = 0; q < p->padded; q++)
        st[q] = p->loc[q] != UINT32_MAX;
    uint32_t n = 0;
    /* One region: the seed is local tile 0. */
    uint32_t sp = 0, seed = padded_of(p, 0, 0, 0);
    st[seed] = 0;
    stack[sp++] = seed;
    while (sp) {
        uint32_t q = stack[--sp];
        uint32_t lx = p->x[q], ly = p->y[q], lz = p->z[q];
        if (p->hex) {
            for (int s = 0; s < 6; s++) {
                int64_t tx = (int64_t)lx + op_topo_hex_step[s][0], ty = (int64_t)ly + op_topo_hex_step[s][1];
                int8_t dx = (int8_t)(tx < 0 ? -1 : tx >= p->c[0] ? 1 : 0);
                int8_t dy = (int8_t)(ty < 0 ? -1 : ty >= p->c[1] ? 1 : 0);
                if (dx || dy)
                    p->open_exits[n++] = (op_topo_open_exit){p->loc[q], lx, ly, lz, op_topo_hex_face[s], {dx, dy, 0}};
            }
        } else {
            /* Faces along an axis with one chunk never have a neighbour: left out. */
            for (int f = 0; f < 6; f++)
                if ((p->face[q] >> f & 1) && p->grid[f >> 1] > 1)
                    p->open_exits[n++] = (op_topo_open_exit){
                        p->loc[q], lx, ly, lz, (uint8_t)f,
                        {op_topo_face_dir[f][0], op_topo_face_dir[f][1], op_topo_face_dir[f][2]}};
        }
        for (int s = 0; s < p->nn; s++) {
            uint32_t m = (uint32_t)((int64_t)q + p->step[s]);
            if (st[m]) {
                st[m] = 0;
                stack[sp++] = m;
            }
        }
    }
    p->open_exit_count = n;
}

void op_topo_face_strips(const op_topo_plan *p, const uint32_t *labels, uint32_t *out)
{
    const uint32_t cx = p->c[0], cy = p->c[1], cz = p->c[2], cxy = cx * cy;
    for (int f = 0; f < 6; f++) {
        if (!p->face_len[f])
            continue;
        uint32_t *o = out + p->face_off[f];
        const int a = f >> 1, hi = f & 1;
        if (a == 0) {
            const uint32_t lx = hi ? cx - 1 : 0;
            for (uint32_t lz = 0; lz < cz; lz++)
                for (uint32_t ly = 0; ly < cy; ly++)
                    *o++ = labels[lx + ly * cx + lz * cxy];
        } else if (a == 1) {
            const uint32_t ly = hi ? cy - 1 : 0;
            for (uint32_t lz = 0; lz < cz; lz++)
                memcpy(o + lz * cx, labels + ly * cx + lz * cxy, cx * sizeof *o);
        } else {
            memcpy(o, labels + (hi ? (cz - 1) * cxy : 0), cxy * sizeof *o);
        }
    }
}

