/* Exact distance field, scalar twin (supplement §1.6, regions-contours §1).
 * Dial's shortest path: all boundary spans are sources at 0; edge weights are 2
 * (orthogonal) and 3 (diagonal, reached either way), so four circular buckets hold
 * every tentative distance still to settle. A bucket holds one distance value at a
 * time and a span enters it at most once per value, so each needs span_count slots. */
#include "core/kernels.h"

#include <string.h>

int op_distance_is_boundary(const op_chf *chf, const uint8_t *area, uint32_t s)
{
    if (area[s] == 0 || chf->mutual[s] != 0xf)
        return 1;
    for (int d = 0; d < 4; d++)
        if (area[op_chf_link(chf, d, s)] == 0)
            return 1;
    return 0;
}

int op_distance_field_scalar(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch)
{
    const uint32_t n = chf->span_count;
    if (n == 0)
        return 0;
    op_arena_mark mark = op_arena_get_mark(scratch);
    uint32_t *bucket[4];
    uint32_t len[4] = {0, 0, 0, 0};
    for (int b = 0; b < 4; b++) {
        bucket[b] = op_arena_alloc(scratch, (size_t)n * sizeof(uint32_t));
        if (!bucket[b]) {
            op_arena_release(scratch, mark);
            return 1;
        }
    }
    for (uint32_t s = 0; s < n; s++) {
        if (op_distance_is_boundary(chf, area, s)) {
            dist[s] = 0;
            bucket[0][len[0]++] = s;
        } else {
            dist[s] = UINT32_MAX;
        }
    }
    const uint8_t *mutual = chf->mutual;
    for (uint64_t D = 0;; D++) {
        const int b = (int)(D & 3);
        if (len[0] + len[1] + len[2] + len[3] == 0)
            break;
        const uint32_t d32 = (uint32_t)D;
        /* Entries pushed into bucket b while scanning it would be distance D+4, which
         * cannot happen (weights are 2 and 3), so the length is stable here. */
        for (uint32_t i = 0; i < len[b]; i++) {
            const uint32_t s = bucket[b][i];
            if (dist[s] != d32)
                continue; /* stale: settled earlier at a smaller distance */
            const uint8_t ms = mutual[s];
            for (int d = 0; d < 4; d++) {
                if (!(ms >> d & 1))
                    continue;
                const uint32_t t = op_chf_link(chf, d, s);
                if (d32 + 2 < dist[t]) {
                    dist[t] = d32 + 2;
                    const int nb = (b + 2) & 3;
                    bucket[nb][len[nb]++] = t;
                }
            }
            for (int d = 0; d < 4; d++) {
                const int d1 = (d + 1) & 3;
                uint32_t c[2] = {OP_NO_LINK, OP_NO_LINK};
                if (ms >> d & 1) {
                    const uint32_t a = op_chf_link(chf, d, s);
                    if (mutual[a] >> d1 & 1)
                        c[0] = op_chf_link(chf, d1, a);
                }
                if (ms >> d1 & 1) {
                    const uint32_t a = op_chf_link(chf, d1, s);
                    if (mutual[a] >> d & 1)
                        c[1] = op_chf_link(chf, d, a);
                }
                for (int k = 0; k < 2; k++) {
                    const uint32_t t = c[k];
                    if (t != OP_NO_LINK && d32 + 3 < dist[t]) {
                        dist[t] = d32 + 3;
                        const int nb = (b + 3) & 3;
                        bucket[nb][len[nb]++] = t;
                    }
                }
            }
        }
        len[b] = 0;
    }
    op_arena_release(scratch, mark);
    return 0;
}
