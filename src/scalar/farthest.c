/* Simplification's farthest point, scalar twin (regions-contours §6 step 2, supplement
 * §9.10): the kind and key of every point of a stretch against its chord (core/kernels.h,
 * OP_FARTHEST_KEYS_FN), the largest key of each kind, and the point that reaches a
 * wanted key first among those at the smallest (x, z). */
#include "core/kernels.h"

/* Kind (0: before a or a zero chord, 1: past b, 2: inside) and key of point (x, z):
 * every product below 2^31 (coordinate differences below 2^15). */
static inline int32_t kind_key(int32_t x, int32_t z, const int32_t seg[4], int *kind)
{
    const int32_t dx = seg[2] - seg[0], dz = seg[3] - seg[1];
    const int32_t len2 = dx * dx + dz * dz;
    const int32_t px = x - seg[0], pz = z - seg[1];
    const int32_t dot = px * dx + pz * dz;
    if (len2 == 0 || dot < 0) {
        *kind = 0;
        return px * px + pz * pz;
    }
    if (dot > len2) {
        const int32_t qx = px - dx, qz = pz - dz;
        *kind = 1;
        return qx * qx + qz * qz;
    }
    const int32_t c = px * dz - pz * dx;
    *kind = 2;
    return c < 0 ? -c : c;
}

void op_farthest_keys_scalar(const int32_t *x, const int32_t *z, uint32_t n,
                             const int32_t seg[4], int32_t keys[3])
{
    keys[0] = keys[1] = keys[2] = -1;
    for (uint32_t i = 0; i < n; i++) {
        int k;
        const int32_t key = kind_key(x[i], z[i], seg, &k);
        keys[k] = key > keys[k] ? key : keys[k];
    }
}

uint32_t op_farthest_pick_scalar(const int32_t *x, const int32_t *z, uint32_t n,
                                 const int32_t seg[4], const int32_t want[3])
{
    uint32_t best = n;
    for (uint32_t i = 0; i < n; i++) {
        int k;
        const int32_t key = kind_key(x[i], z[i], seg, &k);
        if (key == want[k] &&
            (best == n || x[i] < x[best] || (x[i] == x[best] && z[i] < z[best])))
            best = i;
    }
    return best;
}
