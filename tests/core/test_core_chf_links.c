/* The block readers of a field's links (include/onepath/chf.h): op_chf_links_at and
 * op_chf_links_get against op_chf_link span by span, on random multi-floor fields (one-way
 * links, empty columns, up to 6 floors), every direction, blocks of every length 0..80 at
 * random starts and the field's last spans, and the whole field as one block. What the
 * 16-bit layout's switch must keep (docs/decisions/memory.md round 8): op_chf_links_at
 * then decodes into its buffer, and a slot past the block must stay untouched. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "onepath/chf.h"
#include "util/testutil.h"

#define GUARD 0x5a5a5a5au

static void check_block(const op_chf *chf, int d, uint32_t s0, uint32_t n, uint32_t *buf)
{
    for (uint32_t i = 0; i <= n; i++)
        buf[i] = GUARD;
    const uint32_t *at = op_chf_links_at(chf, d, s0, n, buf);
    for (uint32_t i = 0; i < n; i++)
        if (at[i] != op_chf_link(chf, d, s0 + i))
            fail_msg("op_chf_links_at: direction %d span %u: %u, op_chf_link %u", d, s0 + i,
                     at[i], op_chf_link(chf, d, s0 + i));
    if (at != buf && buf[0] != GUARD)
        fail_msg("op_chf_links_at wrote its buffer but returned another array");
    if (buf[n] != GUARD)
        fail_msg("op_chf_links_at: the slot past a block of %u written", n);
    for (uint32_t i = 0; i <= n; i++)
        buf[i] = GUARD;
    op_chf_links_get(chf, d, s0, n, buf);
    for (uint32_t i = 0; i < n; i++)
        if (buf[i] != op_chf_link(chf, d, s0 + i))
            fail_msg("op_chf_links_get: direction %d span %u: %u, op_chf_link %u", d, s0 + i,
                     buf[i], op_chf_link(chf, d, s0 + i));
    if (buf[n] != GUARD)
        fail_msg("op_chf_links_get: the slot past a block of %u written", n);
}

static void test_blocks(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {77};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 10 + (uint32_t)(seed * 7 % 30), 8 + (uint32_t)(seed * 5 % 25));
        o.max_floors = 1 + (uint32_t)(seed % 6);
        o.empty_percent = (uint32_t)(seed * 3 % 20);
        o.y_jitter = (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        const uint32_t n = chf.span_count;
        uint32_t *buf = malloc(((size_t)n + 82) * sizeof *buf);
        assert_non_null(buf);
        for (int d = 0; d < 4; d++) {
            for (uint32_t len = 0; len <= 80 && len <= n; len++) {
                check_block(&chf, d, op_rng_below(&r, n - len + 1), len, buf);
                check_block(&chf, d, n - len, len, buf);
            }
            check_block(&chf, d, 0, n, buf);
        }
        free(buf);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
