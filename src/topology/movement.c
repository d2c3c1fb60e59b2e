/* Movement classes as data (topology.md "Movement Vocabulary"; supplement §6): a
 * passability expression (Field, NotZero, Not, AllOf, AnyOf), an entry-cost expression
 * (UnitCost, ConstantCost, FieldCost, SelectCost, OverlayCost; u32 saturating, 0 =
 * impassable) and a step policy, each a prefix-ordered node list. Expressions are
 * evaluated from the last node to the first, so every node finds its children's values
 * on top of a value stack (first child on top). */
/* The row loops here (byte compares, sums, widening copies) are written to vectorize;
 * GCC vectorizes at -O2 only from version 12 and only cheaply, so ask for it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif
#include "topology/topology_internal.h"
#include "onepath/digest.h"

void op_movement_class_clear(op_movement_class *c)
{
    memset(c, 0, sizeof *c);
    c->steps = OP_STEPS_DEFAULT;
    c->corner = OP_CORNER_REQUIRE_BOTH_CLEAR;
}

void op_movement_class_unit_field(op_movement_class *c, uint32_t passable_field)
{
    /* UnitCostFieldMovement<Tag> = MovementClass<Field<Tag>, UnitCost> (topology.md
     * "Movement Vocabulary", movement_class_of). */
    op_movement_class_clear(c);
    c->pass[0] = (op_expr_node){OP_PASS_FIELD, passable_field};
    c->pass_count = 1;
    c->cost[0] = (op_expr_node){OP_COST_UNIT, 0};
    c->cost_count = 1;
}

void op_movement_class_positive_cost_field(op_movement_class *c, uint32_t passable_field,
                                           uint32_t cost_field)
{
    /* PositiveCostFieldMovement<P, C> = MovementClass<AllOf<Field<P>, NotZero<C>>,
     * FieldCost<C>>: positive entry cost folded into passability. */
    op_movement_class_clear(c);
    c->pass[0] = (op_expr_node){OP_PASS_ALL_OF, 2};
    c->pass[1] = (op_expr_node){OP_PASS_FIELD, passable_field};
    c->pass[2] = (op_expr_node){OP_PASS_NOT_ZERO, cost_field};
    c->pass_count = 3;
    c->cost[0] = (op_expr_node){OP_COST_FIELD, cost_field};
    c->cost_count = 1;
}

op_status op_movement_pass_push(op_ctx *ctx, op_movement_class *c, op_pass_op op, uint32_t arg)
{
    if (!c || c->pass_count >= OP_MOVEMENT_MAX_NODES)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "movement class: more than %d passability nodes", OP_MOVEMENT_MAX_NODES);
    c->pass[c->pass_count++] = (op_expr_node){(uint32_t)op, arg};
    return OP_OK;
}

op_status op_movement_cost_push(op_ctx *ctx, op_movement_class *c, op_cost_op op, uint32_t arg)
{
    if (!c || c->cost_count >= OP_MOVEMENT_MAX_NODES)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: more than %d cost nodes",
                       OP_MOVEMENT_MAX_NODES);
    c->cost[c->cost_count++] = (op_expr_node){(uint32_t)op, arg};
    return OP_OK;
}

/* Children of a node, or -1 for an unknown op. */
static int pass_children(op_expr_node n)
{
    switch (n.op) {
    case OP_PASS_FIELD:
    case OP_PASS_NOT_ZERO: return 0;
    case OP_PASS_NOT: return 1;
    case OP_PASS_ALL_OF:
    case OP_PASS_ANY_OF: return n.arg <= OP_MOVEMENT_MAX_NODES ? (int)n.arg : -1;
    }
    return -1;
}

static int cost_children(op_expr_node n)
{
    switch (n.op) {
    case OP_COST_UNIT:
    case OP_COST_CONSTANT:
    case OP_COST_FIELD: return 0;
    case OP_COST_SELECT:
    case OP_COST_OVERLAY: return 2;
    }
    return -1;
}

static int pass_reads_field(op_expr_node n)
{
    return n.op == OP_PASS_FIELD || n.op == OP_PASS_NOT_ZERO;
}

static int cost_reads_field(op_expr_node n)
{
    return n.op == OP_COST_FIELD || n.op == OP_COST_SELECT;
}

/* Checks a prefix node list: one complete tree, no trailing nodes. Returns the value
 * stack depth reverse evaluation needs, or 0 when malformed (*why says where). */
static uint32_t tree_depth(const op_expr_node *nodes, uint32_t count, int (*children)(op_expr_node),
                           uint32_t *bad_at, const char **why)
{
    if (count == 0 || count > OP_MOVEMENT_MAX_NODES) {
        *bad_at = 0;
        *why = count ? "too many nodes" : "no nodes";
        return 0;
    }
    int64_t need = 1;
    for (uint32_t i = 0; i < count; i++) {
        int k = children(nodes[i]);
        if (k < 0) {
            *bad_at = i;
            *why = "unknown operator";
            return 0;
        }
        if (need == 0) {
            *bad_at = i;
            *why = "node after a complete expression";
            return 0;
        }
        need += k - 1;
    }
    if (need != 0) {
        *bad_at = count;
        *why = "missing children at the end";
        return 0;
    }
    uint32_t h = 0, max = 0;
    for (uint32_t i = count; i-- > 0;) {
        h = h - (uint32_t)children(nodes[i]) + 1;
        if (h > max)
            max = h;
    }
    return max;
}

uint32_t op_topo_pass_depth(const op_movement_class *c)
{
    uint32_t at = 0;
    const char *why = "";
    return tree_depth(c->pass, c->pass_count, pass_children, &at, &why);
}

op_status op_movement_class_validate(op_ctx *ctx, const op_world *w, const op_movement_class *c)
{
    if (!c)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: NULL");
    if (!w || !w->topology_version)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: world not initialised");
    uint32_t at = 0;
    const char *why = "";
    if (!tree_depth(c->pass, c->pass_count, pass_children, &at, &why))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: passability node %u: %s", at,
                       why);
    if (c->cost_count && !tree_depth(c->cost, c->cost_count, cost_children, &at, &why))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: cost node %u: %s", at, why);
    for (uint32_t i = 0; i < c->pass_count; i++)
        if (pass_reads_field(c->pass[i]) && !op_world_find_field(w, c->pass[i].arg))
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "movement class: passability node %u reads field %u, which the "
                           "world does not have",
                           i, c->pass[i].arg);
    for (uint32_t i = 0; i < c->cost_count; i++)
        if (cost_reads_field(c->cost[i]) && !op_world_find_field(w, c->cost[i].arg))
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "movement class: cost node %u reads field %u, which the world does "
                           "not have",
                           i, c->cost[i].arg);
    /* StepPolicyFor<Policy, Shape>: diagonals only on an orthogonal lattice with exactly
     * two effective axes (axes of size != 1). */
    if (c->steps != OP_STEPS_DEFAULT && c->steps != OP_STEPS_DIAGONAL)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: unknown step policy %d",
                       (int)c->steps);
    if (c->steps == OP_STEPS_DIAGONAL) {
        if (c->corner != OP_CORNER_REQUIRE_BOTH_CLEAR && c->corner != OP_CORNER_REQUIRE_ONE_CLEAR)
            return op_fail(ctx, OP_INVALID_ARGUMENT, "movement class: unknown corner rule %d",
                           (int)c->corner);
        if (w->shape.lattice != OP_LATTICE_ORTHOGONAL)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "movement class: diagonal steps need an orthogonal lattice");
        int axes = (w->shape.size[0] != 1) + (w->shape.size[1] != 1) + (w->shape.size[2] != 1);
        if (axes != 2)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "movement class: diagonal steps need exactly two axes of size > 1 "
                           "(this world has %d)",
                           axes);
    }
    return OP_OK;
}

void op_movement_class_normalize(const op_movement_class *in, op_movement_class *out)
{
    op_movement_class n;
    memset(&n, 0, sizeof n);
    n.pass_count = in->pass_count <= OP_MOVEMENT_MAX_NODES ? in->pass_count : OP_MOVEMENT_MAX_NODES;
    for (uint32_t i = 0; i < n.pass_count; i++) {
        n.pass[i] = in->pass[i];
        if (n.pass[i].op == OP_PASS_NOT)
            n.pass[i].arg = 0;
    }
    if (in->cost_count == 0) {
        n.cost[0] = (op_expr_node){OP_COST_UNIT, 0};
        n.cost_count = 1;
    } else {
        n.cost_count = in->cost_count <= OP_MOVEMENT_MAX_NODES ? in->cost_count : OP_MOVEMENT_MAX_NODES;
        for (uint32_t i = 0; i < n.cost_count; i++) {
            n.cost[i] = in->cost[i];
            if (n.cost[i].op == OP_COST_UNIT || n.cost[i].op == OP_COST_OVERLAY)
                n.cost[i].arg = 0;
        }
    }
    n.steps = in->steps;
    n.corner = in->steps == OP_STEPS_DIAGONAL ? in->corner : OP_CORNER_REQUIRE_BOTH_CLEAR;
    *out = n;
}

int op_movement_class_same(const op_movement_class *a, const op_movement_class *b)
{
    if (!a || !b)
        return 0;
    op_movement_class na, nb;
    op_movement_class_normalize(a, &na);
    op_movement_class_normalize(b, &nb);
    if (na.pass_count != nb.pass_count || na.cost_count != nb.cost_count ||
        na.steps != nb.steps || na.corner != nb.corner)
        return 0;
    for (uint32_t i = 0; i < na.pass_count; i++)
        if (na.pass[i].op != nb.pass[i].op || na.pass[i].arg != nb.pass[i].arg)
            return 0;
    for (uint32_t i = 0; i < na.cost_count; i++)
        if (na.cost[i].op != nb.cost[i].op || na.cost[i].arg != nb.cost[i].arg)
            return 0;
    return 1;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    return p + 4;
}

uint64_t op_movement_class_identity(const op_movement_class *c)
{
    /* "OPMC1\0\0\0", u32 pass_count, (u32 op, u32 arg)..., u32 cost_count, (op, arg)...,
     * u32 steps, u32 corner, of the normalized class. */
    op_movement_class n;
    op_movement_class_normalize(c, &n);
    unsigned char buf[8 + 4 + 8 * OP_MOVEMENT_MAX_NODES + 4 + 8 * OP_MOVEMENT_MAX_NODES + 8];
    unsigned char *p = buf;
    memcpy(p, "OPMC1\0\0\0", 8);
    p += 8;
    p = put32(p, n.pass_count);
    for (uint32_t i = 0; i < n.pass_count; i++) {
        p = put32(p, n.pass[i].op);
        p = put32(p, n.pass[i].arg);
    }
    p = put32(p, n.cost_count);
    for (uint32_t i = 0; i < n.cost_count; i++) {
        p = put32(p, n.cost[i].op);
        p = put32(p, n.cost[i].arg);
    }
    p = put32(p, (uint32_t)n.steps);
    p = put32(p, (uint32_t)n.corner);
    return op_digest_bytes(buf, (size_t)(p - buf));
}

int op_movement_class_single_field(const op_movement_class *c, uint32_t *field)
{
    if (!c || c->pass_count != 1 || !pass_reads_field(c->pass[0]))
        return 0;
    if (field)
        *field = c->pass[0].arg;
    return 1;
}

uint32_t op_movement_step_identity(const op_movement_class *c)
{
    if (c->steps != OP_STEPS_DIAGONAL)
        return OP_STEP_IDENTITY_DEFAULT;
    return c->corner == OP_CORNER_REQUIRE_ONE_CLEAR ? OP_STEP_IDENTITY_DIAGONAL_ONE_CLEAR
                                                    : OP_STEP_IDENTITY_DIAGONAL_BOTH_CLEAR;
}

uint32_t op_movement_cost_scale(const op_movement_class *c)
{
    return c->steps == OP_STEPS_DIAGONAL ? OP_STEP_DIAGONAL_CARDINAL_SCALE : 1u;
}

/* ---- per tile -------------------------------------------------------------------------- */

static int tile_of(const op_world *w, op_coord3 at, op_chunk_key *key, uint32_t *local)
{
    if (!w || !op_topo_shape_contains(&w->shape, at))
        return 0;
    const uint32_t *ch = w->shape.chunk;
    uint32_t x = (uint32_t)at.x, y = (uint32_t)at.y, z = (uint32_t)at.z;
    uint32_t kx = x / ch[0], ky = y / ch[1], kz = z / ch[2];
    *key = op_topo_key(w->chunks, kx, ky, kz);
    *local = (x - kx * ch[0]) + (y - ky * ch[1]) * ch[0] + (z - kz * ch[2]) * ch[0] * ch[1];
    return 1;
}

static int64_t read_field(const op_world *w, uint32_t id, op_chunk_key key, uint32_t local)
{
    const op_world_field *f = op_world_find_field(w, id);
    return f ? op_topo_field_value(f, key, local) : 0;
}

int op_movement_passable(const op_world *w, const op_movement_class *c, op_coord3 at)
{
    op_chunk_key key;
    uint32_t local;
    if (!c || !tile_of(w, at, &key, &local) || c->pass_count == 0 ||
        c->pass_count > OP_MOVEMENT_MAX_NODES)
        return 0;
    uint8_t st[OP_MOVEMENT_MAX_NODES + 1];
    uint32_t h = 0;
    for (uint32_t i = c->pass_count; i-- > 0;) {
        op_expr_node n = c->pass[i];
        switch (n.op) {
        case OP_PASS_FIELD:
        case OP_PASS_NOT_ZERO: st[h++] = read_field(w, n.arg, key, local) != 0; break;
        case OP_PASS_NOT:
            if (h < 1)
                return 0;
            st[h - 1] = !st[h - 1];
            break;
        case OP_PASS_ALL_OF:
        case OP_PASS_ANY_OF: {
            if (n.arg > h)
                return 0;
            uint8_t v = n.op == OP_PASS_ALL_OF;
            for (uint32_t k = 0; k < n.arg; k++)
                v = n.op == OP_PASS_ALL_OF ? (uint8_t)(v & st[h - 1 - k]) : (uint8_t)(v | st[h - 1 - k]);
            h -= n.arg;
            st[h++] = v;
            break;
        }
        default: return 0;
        }
        if (h > OP_MOVEMENT_MAX_NODES)
            return 0;
    }
    return h == 1 && st[0];
}

/* normalize_cost: an integral value <= 0 is 0 (impassable), above u32 saturates. */
static uint32_t normalize_cost(int64_t v)
{
    if (v <= 0)
        return 0;
    return v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint32_t op_movement_entry_cost(const op_world *w, const op_movement_class *c, op_coord3 at)
{
    op_chunk_key key;
    uint32_t local;
    if (!c || !tile_of(w, at, &key, &local) || c->cost_count > OP_MOVEMENT_MAX_NODES)
        return 0;
    if (c->cost_count == 0)
        return 1; /* UnitCost */
    uint32_t st[OP_MOVEMENT_MAX_NODES + 1];
    uint32_t h = 0;
    for (uint32_t i = c->cost_count; i-- > 0;) {
        op_expr_node n = c->cost[i];
        switch (n.op) {
        case OP_COST_UNIT: st[h++] = 1; break;
        case OP_COST_CONSTANT: st[h++] = n.arg; break;
        case OP_COST_FIELD: st[h++] = normalize_cost(read_field(w, n.arg, key, local)); break;
        case OP_COST_SELECT: {
            if (h < 2)
                return 0;
            /* top: WhenSet (first child), below: WhenClear. */
            uint32_t when_set = st[h - 1], when_clear = st[h - 2];
            h -= 2;
            st[h++] = read_field(w, n.arg, key, local) != 0 ? when_set : when_clear;
            break;
        }
        case OP_COST_OVERLAY: {
            if (h < 2)
                return 0;
            uint32_t base = st[h - 1], overlay = st[h - 2];
            h -= 2;
            /* Zero iff the base is zero: an overlay never makes impassable ground
             * enterable; otherwise base + overlay saturated. */
            uint64_t sum = (uint64_t)base + overlay;
            st[h++] = base == 0 ? 0 : (sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum);
            break;
        }
        default: return 0;
        }
    }
    return h == 1 ? st[0] : 0;
}

/* ---- rows of a chunk (the labelling input) -------------------------------------------- */

static void field_row(const op_world_field *f, op_chunk_key chunk, uint32_t first, uint32_t n,
                      uint8_t *out)
{
    const void *page = f->pages[chunk];
    switch (f->type) {
    case OP_FIELD_U8:
    case OP_FIELD_I8: {
        const uint8_t *p = (const uint8_t *)page + first;
        for (uint32_t i = 0; i < n; i++)
            out[i] = p[i] != 0;
        break;
    }
    case OP_FIELD_U16:
    case OP_FIELD_I16: {
        const uint16_t *p = (const uint16_t *)page + first;
        for (uint32_t i = 0; i < n; i++)
            out[i] = p[i] != 0;
        break;
    }
    case OP_FIELD_U32:
    case OP_FIELD_I32: {
        const uint32_t *p = (const uint32_t *)page + first;
        for (uint32_t i = 0; i < n; i++)
            out[i] = p[i] != 0;
        break;
    }
    }
}

void op_topo_pass_row(const op_world *w, const op_movement_class *c, op_chunk_key chunk,
                      uint32_t first, uint32_t n, uint8_t *out, op_topo_eval *ev)
{
    if (c->pass_count == 1 && pass_reads_field(c->pass[0])) {
        /* The single-field fast path (HasPassableSpan): one compare per tile. */
        field_row(op_world_find_field(w, c->pass[0].arg), chunk, first, n, out);
        return;
    }
    uint32_t h = 0;
    uint8_t *s = ev->stack;
    for (uint32_t i = c->pass_count; i-- > 0;) {
        op_expr_node nd = c->pass[i];
        switch (nd.op) {
        case OP_PASS_FIELD:
        case OP_PASS_NOT_ZERO:
            field_row(op_world_find_field(w, nd.arg), chunk, first, n, s + (size_t)h * n);
            h++;
            break;
        case OP_PASS_NOT: {
            uint8_t *v = s + (size_t)(h - 1) * n;
            for (uint32_t k = 0; k < n; k++)
                v[k] ^= 1;
            break;
        }
        case OP_PASS_ALL_OF:
        case OP_PASS_ANY_OF: {
            uint32_t m = nd.arg;
            if (m == 0) {
                memset(s + (size_t)h * n, nd.op == OP_PASS_ALL_OF, n);
                h++;
                break;
            }
            uint8_t *dst = s + (size_t)(h - m) * n;
            for (uint32_t j = h - m + 1; j < h; j++) {
                const uint8_t *v = s + (size_t)j * n;
                if (nd.op == OP_PASS_ALL_OF)
                    for (uint32_t k = 0; k < n; k++)
                        dst[k] &= v[k];
                else
                    for (uint32_t k = 0; k < n; k++)
                        dst[k] |= v[k];
            }
            h -= m - 1;
            break;
        }
        }
    }
    memcpy(out, s, n);
}
