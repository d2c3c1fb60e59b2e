/* checkasm-style identity test of the farthest-point family (core/kernels.h,
 * OP_FARTHEST_KEYS_FN / OP_FARTHEST_PICK_FN; regions-contours §6 step 2, supplement
 * §9.10): for every variant this machine runs, the variant and the scalar twin get the
 * same points and chord and must give the same keys and picks; the scalar twin is also
 * checked against a 64-bit reference of the kinds and keys. Inputs: every length 0..70
 * (every vector tail), random points in small boxes (many ties of key and position),
 * boxes at the 2^15 limit, coordinates near the ends of int32 (only differences count),
 * zero chords, points on the chord's ends and on the perpendiculars through them
 * (dot = 0, dot = len2), staircase walls, and wanted keys that match nothing, one kind,
 * or several kinds at once; the padding past n that vector steps read holds random
 * points of the input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/kernels.h"
#include "util/testutil.h"
#include "util/variants.h"

#define MAXN 300

static op_isa variants[OP_ISA_COUNT];
static op_kernels tables[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT];

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, tables);
    return 0;
}

/* 64-bit reference of kind and key (supplement §9.10's cases). */
static int64_t ref_key(int64_t x, int64_t z, const int32_t s[4], int *kind)
{
    const int64_t dx = (int64_t)s[2] - s[0], dz = (int64_t)s[3] - s[1];
    const int64_t px = x - s[0], pz = z - s[1], len2 = dx * dx + dz * dz;
    const int64_t dot = px * dx + pz * dz;
    if (len2 == 0 || dot < 0) {
        *kind = 0;
        return px * px + pz * pz;
    }
    if (dot > len2) {
        *kind = 1;
        return (x - s[2]) * (x - s[2]) + (z - s[3]) * (z - s[3]);
    }
    *kind = 2;
    const int64_t c = px * dz - pz * dx;
    return c < 0 ? -c : c;
}

static void check_ref(const int32_t *x, const int32_t *z, uint32_t n, const int32_t s[4],
                      const int32_t keys[3])
{
    int64_t want[3] = {-1, -1, -1};
    for (uint32_t i = 0; i < n; i++) {
        int k;
        const int64_t key = ref_key(x[i], z[i], s, &k);
        want[k] = key > want[k] ? key : want[k];
    }
    for (int k = 0; k < 3; k++)
        assert_int_equal(keys[k], want[k]);
}

/* The reference pick: first of the smallest (x, z) among the matches. */
static uint32_t ref_pick(const int32_t *x, const int32_t *z, uint32_t n, const int32_t s[4],
                         const int32_t want[3])
{
    uint32_t best = n;
    for (uint32_t i = 0; i < n; i++) {
        int k;
        if (ref_key(x[i], z[i], s, &k) == want[k] &&
            (best == n || x[i] < x[best] || (x[i] == x[best] && z[i] < z[best])))
            best = i;
    }
    return best;
}

/* One input: the scalar twin against the reference, every variant against the scalar
 * twin (keys, then picks for several wanted keys). */
static void check_all(int32_t *x, int32_t *z, uint32_t n, const int32_t s[4], op_rng *r)
{
    /* the 15 elements past n that a vector step may read: any point within the bounds
     * (a chord end, or one of the points) */
    for (uint32_t i = n; i < n + 15; i++) {
        const uint32_t k = n ? op_rng_below(r, n) : 0;
        x[i] = n && (i & 1) ? x[k] : s[(i & 2)];
        z[i] = n && (i & 1) ? z[k] : s[(i & 2) + 1];
    }
    int32_t keys[3];
    op_farthest_keys_scalar(x, z, n, s, keys);
    check_ref(x, z, n, s, keys);
    int32_t wants[6][3] = {
        {keys[0], keys[1], keys[2]}, {keys[0], -1, -1}, {-1, keys[1], -1}, {-1, -1, keys[2]},
        {-1, -1, -1}, {(int32_t)op_rng_below(r, 50), (int32_t)op_rng_below(r, 50),
                       (int32_t)op_rng_below(r, 50)}};
    uint32_t picks[6];
    for (int w = 0; w < 6; w++) {
        picks[w] = op_farthest_pick_scalar(x, z, n, s, wants[w]);
        assert_int_equal(picks[w], ref_pick(x, z, n, s, wants[w]));
    }
    for (int v = 0; v < variant_count; v++) {
        const op_contour_kernels *k = &tables[v].contour;
        if (k->farthest_keys == op_farthest_keys_scalar)
            continue;
        int32_t got[3] = {7, 7, 7};
        k->farthest_keys(x, z, n, s, got);
        for (int j = 0; j < 3; j++)
            if (got[j] != keys[j])
                fail_msg("farthest_keys %s: n %u seg (%d,%d)-(%d,%d): kind %d key %d, scalar %d",
                         op_isa_name(variants[v]), n, s[0], s[1], s[2], s[3], j, got[j],
                         keys[j]);
        for (int w = 0; w < 6; w++) {
            const uint32_t p = k->farthest_pick(x, z, n, s, wants[w]);
            if (p != picks[w])
                fail_msg("farthest_pick %s: n %u want %d/%d/%d: %u, scalar %u",
                         op_isa_name(variants[v]), n, wants[w][0], wants[w][1], wants[w][2],
                         p, picks[w]);
        }
        compared[variants[v]]++;
    }
}

static void test_random(void **state)
{
    (void)state;
    op_rng r = {0x5eed1234u};
    int32_t x[MAXN + 16], z[MAXN + 16];
    static const int32_t boxes[] = {1, 3, 8, 40, 1000, 32767};
    for (int round = 0; round < 4000; round++) {
        const uint32_t n = round < 71 * 6 ? (uint32_t)(round % 71) : op_rng_below(&r, MAXN + 1);
        const int32_t box = boxes[round % 6];
        /* a base anywhere in int32 that keeps the box inside */
        const int64_t span = 2147483647ll - box;
        int32_t base = 0;
        if (round % 5 == 1)
            base = (int32_t)(op_rng_below(&r, 2u * 1000000000u) - 1000000000);
        else if (round % 5 == 2)
            base = (int32_t)(span - op_rng_below(&r, 100));
        else if (round % 5 == 3)
            base = (int32_t)(-2147483647 - 1 + (int64_t)op_rng_below(&r, 100));
        for (uint32_t i = 0; i < n; i++) {
            x[i] = base + (int32_t)op_rng_below(&r, (uint32_t)box + 1);
            z[i] = base + (int32_t)op_rng_below(&r, (uint32_t)box + 1);
        }
        int32_t s[4];
        for (int j = 0; j < 4; j++)
            s[j] = base + (int32_t)op_rng_below(&r, (uint32_t)box + 1);
        if (round % 7 == 0) { /* a zero chord */
            s[2] = s[0];
            s[3] = s[1];
        }
        check_all(x, z, n, s, &r);
    }
}

static void test_adversarial(void **state)
{
    (void)state;
    op_rng r = {77};
    int32_t x[MAXN + 16], z[MAXN + 16];
    for (int round = 0; round < 600; round++) {
        const uint32_t n = (uint32_t)(round % 71) + (round % 3 == 0 ? 100 : 0);
        int32_t s[4] = {0, 0, 0, 0};
        const int shape = round % 6;
        const int32_t L = 1 + (int32_t)op_rng_below(&r, round % 2 ? 40 : 32767);
        /* chord a b along a random direction inside the limits */
        s[2] = (int32_t)op_rng_below(&r, (uint32_t)L + 1) * (round % 4 < 2 ? 1 : -1);
        s[3] = (int32_t)op_rng_below(&r, (uint32_t)L + 1);
        if (s[2] < 0) { /* keep every difference inside 2^15 */
            s[0] = -s[2];
            s[2] = 0;
        }
        const int32_t dx = s[2] - s[0], dz = s[3] - s[1];
        for (uint32_t i = 0; i < n; i++) {
            int32_t px, pz;
            switch (shape) {
            case 0: /* on the perpendiculars through a and b: dot = 0 and dot = len2 */
                px = (i & 1 ? dx : 0) - dz * (int32_t)(i % 3) / 2;
                pz = (i & 1 ? dz : 0) + dx * (int32_t)(i % 3) / 2;
                break;
            case 1: /* the ends themselves and the chord's points */
                px = i % 3 == 0 ? 0 : i % 3 == 1 ? dx : dx / 2;
                pz = i % 3 == 0 ? 0 : i % 3 == 1 ? dz : dz / 2;
                break;
            case 2: /* a staircase wall along the chord: many equal keys */
                px = (int32_t)(i / 2) + (int32_t)(i & 1);
                pz = (int32_t)(i / 2);
                break;
            case 3: /* every point at the same position */
                px = 3;
                pz = 1;
                break;
            default: /* corners of the allowed box */
                px = (int32_t)op_rng_below(&r, 2) * 32767;
                pz = (int32_t)op_rng_below(&r, 2) * 32767;
                break;
            }
            /* inside [0, 32767]², with a and b: differences below 2^15 */
            x[i] = px > 32767 ? 32767 : px < 0 ? 0 : px;
            z[i] = pz > 32767 ? 32767 : pz < 0 ? 0 : pz;
        }
        check_all(x, z, n, s, &r);
    }
}

/* Every variant this CPU runs that has its own slot was compared. */
static void test_every_variant_compared(void **state)
{
    (void)state;
    for (int v = 0; v < variant_count; v++) {
        const op_contour_kernels *k = &tables[v].contour;
        if (k->farthest_keys == op_farthest_keys_scalar) {
            print_message("farthest: %-8s the scalar twin\n", op_isa_name(variants[v]));
            continue;
        }
        assert_true(compared[variants[v]] > 1000);
        print_message("farthest: %-8s %lu comparisons\n", op_isa_name(variants[v]),
                      compared[variants[v]]);
    }
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    for (int i = 0; i < np; i++)
        if (!op_isa_available(promised[i]))
            print_message("farthest: variant %s is built but this CPU cannot run it: not "
                          "compared here\n", op_isa_name(promised[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_every_variant_compared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
