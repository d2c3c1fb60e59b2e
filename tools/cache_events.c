/* The events file of `onepath update` (cache_events.h): JSON → steps, each checked in
 * order against the obstacles the cache would hold at that point. */
#include "cache_events.h"
#include "json_read.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cli_event_op_name(cli_event_op op)
{
    return op == CLI_EVENT_ADD ? "add" : op == CLI_EVENT_MOVE ? "move" : "remove";
}

void cli_events_free(cli_events *e)
{
    if (!e)
        return;
    free(e->v);
    memset(e, 0, sizeof *e);
}

/* The obstacles during the check: id, shape, and a cylinder's height (a move by
 * "center" keeps it). */
typedef struct sim_item {
    uint32_t id;
    op_volume shape;
    float height;
} sim_item;

typedef struct sim {
    sim_item *v;
    size_t n, cap;
} sim;

static sim_item *sim_find(sim *s, uint32_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].id == id)
            return &s->v[i];
    return NULL;
}

typedef struct ctx_t {
    char *err;
    size_t err_len;
    size_t step; /* from 1 */
} ectx;

static int bad(ectx *e, const op_jval *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int bad(ectx *e, const op_jval *at, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(e->err, e->err_len, "step %zu (line %d, column %d): %s", e->step, at->line, at->col,
             msg);
    return -1;
}

static const op_jval *need(ectx *e, const op_jval *step, const char *key, op_jtype type)
{
    const op_jval *v = op_jread_get(step, key);
    if (!v) {
        bad(e, step, "\"%s\" is missing", key);
        return NULL;
    }
    if (v->type != type) {
        bad(e, v, "\"%s\" must be %s, not %s", key, op_jread_type_name(type),
            op_jread_type_name(v->type));
        return NULL;
    }
    return v;
}

/* A number that binary32 holds (world units). */
static int to_float(ectx *e, const op_jval *v, const char *what, float *out)
{
    if (v->type != OP_JNUMBER)
        return bad(e, v, "%s must be a number, not %s", what, op_jread_type_name(v->type));
    if (fabs(v->number) > FLT_MAX)
        return bad(e, v, "%s = %g is beyond binary32's range", what, v->number);
    *out = (float)v->number;
    return 0;
}

static int get_float(ectx *e, const op_jval *step, const char *key, float *out)
{
    const op_jval *v = need(e, step, key, OP_JNUMBER);
    return v ? to_float(e, v, key, out) : -1;
}

/* An array of exactly n numbers. */
static int get_vec(ectx *e, const op_jval *step, const char *key, size_t n, float *out)
{
    const op_jval *v = need(e, step, key, OP_JARRAY);
    if (!v)
        return -1;
    if (v->count != n)
        return bad(e, v, "\"%s\" must hold %zu numbers, not %zu", key, n, v->count);
    for (size_t i = 0; i < n; i++)
        if (to_float(e, &v->items[i], key, &out[i]))
            return -1;
    return 0;
}

static int get_u32(ectx *e, const op_jval *step, const char *key, uint32_t hi, uint32_t *out)
{
    const op_jval *v = need(e, step, key, OP_JNUMBER);
    if (!v)
        return -1;
    if (!v->integral || v->number < 0 || v->number > hi)
        return bad(e, v, "\"%s\" must be an integer in 0..%u (got %g)", key, hi, v->number);
    *out = (uint32_t)v->number;
    return 0;
}

/* Keys other than these are refused (a typo would otherwise be ignored). */
static int only_keys(ectx *e, const op_jval *step, const char *const *keys)
{
    for (size_t i = 0; i < step->count; i++) {
        int known = 0;
        for (const char *const *k = keys; *k && !known; k++)
            known = !strcmp(step->keys[i], *k);
        if (!known)
            return bad(e, &step->items[i], "unknown key \"%s\" for this step", step->keys[i]);
    }
    return 0;
}

static int check_shape(ectx *e, op_ctx *ctx, const op_jval *at, const op_volume *v)
{
    if (op_obstacle_validate(ctx, v) != OP_OK)
        return bad(e, at, "%s", op_ctx_error(ctx));
    return 0;
}

static int parse_add(ectx *e, op_ctx *ctx, const op_jval *step, cli_event *ev, float *height)
{
    op_volume *v = &ev->shape;
    memset(v, 0, sizeof *v);
    const op_jval *kind = need(e, step, "shape", OP_JSTRING);
    if (!kind)
        return -1;
    uint32_t area;
    if (get_u32(e, step, "area", 255, &area))
        return -1;
    v->area = (uint8_t)area;
    *height = 0;
    if (!strcmp(kind->string, "cylinder")) {
        static const char *const keys[] = {"op", "id", "shape", "area", "center", "radius",
                                           "height", NULL};
        float c[3];
        if (only_keys(e, step, keys) || get_vec(e, step, "center", 3, c) ||
            get_float(e, step, "radius", &v->radius) || get_float(e, step, "height", height))
            return -1;
        if (*height < 0)
            return bad(e, op_jread_get(step, "height"), "height %g < 0", *height);
        v->kind = OP_VOLUME_CYLINDER;
        v->center[0] = c[0];
        v->center[1] = c[2];
        v->ymin = c[1];
        v->ymax = c[1] + *height;
    } else if (!strcmp(kind->string, "box")) {
        static const char *const keys[] = {"op", "id", "shape", "area", "min", "max", NULL};
        float lo[3], hi[3];
        if (only_keys(e, step, keys) || get_vec(e, step, "min", 3, lo) ||
            get_vec(e, step, "max", 3, hi))
            return -1;
        v->kind = OP_VOLUME_BOX;
        v->box_min[0] = lo[0];
        v->box_min[1] = lo[2];
        v->box_max[0] = hi[0];
        v->box_max[1] = hi[2];
        v->ymin = lo[1];
        v->ymax = hi[1];
    } else if (!strcmp(kind->string, "prism")) {
        static const char *const keys[] = {"op", "id", "shape", "area", "points", "ymin", "ymax",
                                           NULL};
        if (only_keys(e, step, keys))
            return -1;
        const op_jval *pts = need(e, step, "points", OP_JARRAY);
        if (!pts || get_float(e, step, "ymin", &v->ymin) || get_float(e, step, "ymax", &v->ymax))
            return -1;
        if (pts->count < 3 || pts->count > OP_VOLUME_MAX_VERTS)
            return bad(e, pts, "a prism needs 3..%d points (got %zu)", OP_VOLUME_MAX_VERTS,
                       pts->count);
        v->kind = OP_VOLUME_PRISM;
        v->vert_count = (uint32_t)pts->count;
        for (size_t i = 0; i < pts->count; i++) {
            const op_jval *p = &pts->items[i];
            if (p->type != OP_JARRAY || p->count != 2)
                return bad(e, p, "prism point %zu must be [x, z]", i);
            if (to_float(e, &p->items[0], "a prism point", &v->verts[2 * i]) ||
                to_float(e, &p->items[1], "a prism point", &v->verts[2 * i + 1]))
                return -1;
        }
    } else {
        return bad(e, kind, "unknown shape \"%s\" (cylinder, box or prism)", kind->string);
    }
    return check_shape(e, ctx, step, v);
}

static int parse_move(ectx *e, op_ctx *ctx, const op_jval *step, sim_item *it, cli_event *ev)
{
    static const char *const keys[] = {"op", "id", "center", "offset", NULL};
    if (only_keys(e, step, keys))
        return -1;
    const op_jval *center = op_jread_get(step, "center"), *offset = op_jread_get(step, "offset");
    if (!center == !offset)
        return bad(e, step, "a move gives either \"center\" (cylinders) or \"offset\"");
    op_volume v = it->shape;
    if (center) {
        if (v.kind != OP_VOLUME_CYLINDER)
            return bad(e, center, "obstacle %u is a %s: move it by \"offset\"", it->id,
                       v.kind == OP_VOLUME_BOX ? "box" : "prism");
        float c[3];
        if (get_vec(e, step, "center", 3, c))
            return -1;
        v.center[0] = c[0];
        v.center[1] = c[2];
        v.ymin = c[1];
        v.ymax = c[1] + it->height;
    } else {
        float d[3];
        if (get_vec(e, step, "offset", 3, d))
            return -1;
        op_volume_translate(&v, d[0], d[1], d[2]);
    }
    if (check_shape(e, ctx, step, &v))
        return -1;
    ev->shape = v;
    return 0;
}

int cli_events_parse(op_ctx *ctx, const char *text, size_t len, const op_tile_cache *c,
                     cli_events *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    op_jval root;
    if (op_jread_parse(text, len, &root, err, err_len))
        return -1;
    ectx e = {err, err_len, 0};
    sim s = {NULL, 0, 0};
    int rc = -1;
    if (root.type != OP_JARRAY) {
        snprintf(err, err_len, "line %d, column %d: the events file must be a JSON array of "
                               "steps, not %s",
                 root.line, root.col, op_jread_type_name(root.type));
        goto done;
    }
    s.cap = c->obstacle_count + root.count + 1;
    s.v = calloc(s.cap, sizeof *s.v);
    out->v = calloc(root.count ? root.count : 1, sizeof *out->v);
    if (!s.v || !out->v) {
        snprintf(err, err_len, "out of memory for %zu steps", root.count);
        goto done;
    }
    for (uint32_t i = 0; i < c->obstacle_count; i++) {
        s.v[s.n].id = c->obstacles[i].id;
        s.v[s.n].shape = c->obstacles[i].volume;
        s.v[s.n].height = c->obstacles[i].volume.ymax - c->obstacles[i].volume.ymin;
        s.n++;
    }
    for (size_t k = 0; k < root.count; k++) {
        const op_jval *step = &root.items[k];
        cli_event *ev = &out->v[k];
        e.step = k + 1;
        ev->line = step->line;
        ev->col = step->col;
        if (step->type != OP_JOBJECT) {
            bad(&e, step, "a step must be an object, not %s", op_jread_type_name(step->type));
            goto done;
        }
        const op_jval *op = need(&e, step, "op", OP_JSTRING);
        if (!op || get_u32(&e, step, "id", 0xffffffffu, &ev->id))
            goto done;
        sim_item *it = sim_find(&s, ev->id);
        if (!strcmp(op->string, "add")) {
            ev->op = CLI_EVENT_ADD;
            if (it) {
                bad(&e, op_jread_get(step, "id"), "obstacle %u already exists", ev->id);
                goto done;
            }
            float height;
            if (parse_add(&e, ctx, step, ev, &height))
                goto done;
            s.v[s.n].id = ev->id;
            s.v[s.n].shape = ev->shape;
            s.v[s.n].height = height;
            s.n++;
        } else if (!strcmp(op->string, "move") || !strcmp(op->string, "remove")) {
            ev->op = op->string[0] == 'm' ? CLI_EVENT_MOVE : CLI_EVENT_REMOVE;
            if (!it) {
                bad(&e, op_jread_get(step, "id"), "no obstacle has id %u at this step", ev->id);
                goto done;
            }
            if (ev->op == CLI_EVENT_MOVE) {
                if (parse_move(&e, ctx, step, it, ev))
                    goto done;
                it->shape = ev->shape;
            } else {
                static const char *const keys[] = {"op", "id", NULL};
                if (only_keys(&e, step, keys))
                    goto done;
                *it = s.v[--s.n];
            }
        } else {
            bad(&e, op, "unknown op \"%s\" (add, move or remove)", op->string);
            goto done;
        }
    }
    out->count = root.count;
    rc = 0;
done:
    free(s.v);
    op_jread_free(&root);
    if (rc)
        cli_events_free(out);
    return rc;
}
