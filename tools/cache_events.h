/* The events file of `onepath update` (issue 13): a JSON array of steps in world units,
 *   {"op": "add", "id": 1, "shape": "cylinder", "center": [x, y, z], "radius": r,
 *    "height": h, "area": 0}                       (center: the centre of the base)
 *   {"op": "add", "id": 2, "shape": "box", "min": [x, y, z], "max": [x, y, z], "area": 0}
 *   {"op": "add", "id": 3, "shape": "prism", "points": [[x, z], ...], "ymin": a,
 *    "ymax": b, "area": 5}
 *   {"op": "move", "id": 1, "center": [x, y, z]}   (cylinders; any shape takes
 *   {"op": "move", "id": 2, "offset": [dx, dy, dz]}  an offset)
 *   {"op": "remove", "id": 1}
 * Every step is checked before any is applied, against the obstacles the cache holds at
 * that point of the sequence: a bad step (unknown key or id, a missing or mistyped value,
 * a number out of range, a non-convex prism) is an error naming the step, its line and
 * column, and nothing is applied. */
#ifndef ONEPATH_TOOL_CACHE_EVENTS_H
#define ONEPATH_TOOL_CACHE_EVENTS_H

#include "onepath/tilecache.h"

#include <stddef.h>

typedef enum cli_event_op { CLI_EVENT_ADD, CLI_EVENT_MOVE, CLI_EVENT_REMOVE } cli_event_op;

typedef struct cli_event {
    cli_event_op op;
    uint32_t id;
    op_volume shape; /* add: the shape; move: the shape after the move */
    int line, col;   /* where the step starts in the file */
} cli_event;

typedef struct cli_events {
    cli_event *v;
    size_t count;
} cli_events;

/* Parses text and checks every step in order against c's obstacles (c is not changed).
 * 0 and *out filled (cli_events_free), or -1 with "step K (line L, column C): reason"
 * (K from 1) or "line L, column C: reason" for a file that is not a JSON array, in err. */
int cli_events_parse(op_ctx *ctx, const char *text, size_t len, const op_tile_cache *c,
                     cli_events *out, char *err, size_t err_len);
void cli_events_free(cli_events *e);
const char *cli_event_op_name(cli_event_op op);

#endif
