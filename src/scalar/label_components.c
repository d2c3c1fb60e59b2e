/* Connected-component labelling, scalar twin (regions-contours §4 shortcut and
 * layer-first partition): breadth first over mutual links with the same area (and the
 * same layer when given), started from spans in index order, so ids follow first spans. */
#include "core/kernels.h"

#include <string.h>

int op_label_components_scalar(const op_label_view *graph, uint32_t *labels, uint32_t *count,
                               op_arena *scratch)
{
    const uint32_t n = graph->count;
    const uint8_t *area = graph->area;
    const uint32_t *layer = graph->layer;
    *count = 0;
    if (n == 0)
        return 0;
    op_arena_mark mark = op_arena_get_mark(scratch);
    uint32_t *queue = op_arena_alloc(scratch, (size_t)n * sizeof(uint32_t));
    if (!queue)
        return 1;
    memset(labels, 0, (size_t)n * sizeof(uint32_t));
    uint32_t next = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (labels[s] || area[s] == 0)
            continue;
        const uint32_t id = ++next;
        uint32_t head = 0, tail = 0;
        labels[s] = id;
        queue[tail++] = s;
        while (head < tail) {
            const uint32_t u = queue[head++];
            const uint8_t mu = graph->mutual[u];
            for (int d = 0; d < 4; d++) {
                if (!(mu >> d & 1))
                    continue;
                const uint32_t t = op_chf_link(graph->links, d, u);
                if (labels[t] || area[t] != area[u] || (layer && layer[t] != layer[u]))
                    continue;
                labels[t] = id;
                queue[tail++] = t;
            }
        }
    }
    *count = next;
    op_arena_release(scratch, mark);
    return 0;
}
