/* Internal pieces of the chunk-region graph (topology.md) shared by src/topology. */
#ifndef ONEPATH_TOPOLOGY_INTERNAL_H
#define ONEPATH_TOPOLOGY_INTERNAL_H

#include "onepath/topology.h"
#include "core/alloc.h"
#include "core/kernels.h"

#include <string.h>

/* Chunk grid of a shape: ceil(size / chunk) per axis (supplement §10.11). The shape must
 * have passed op_world_shape_validate. */
static inline void op_topo_chunk_grid(const op_world_shape *s, uint32_t grid[3])
{
    for (int a = 0; a < 3; a++)
        grid[a] = (uint32_t)(((uint64_t)s->size[a] + s->chunk[a] - 1) / s->chunk[a]);
}

static inline op_chunk_key op_topo_key(const uint32_t grid[3], uint32_t kx, uint32_t ky,
                                       uint32_t kz)
{
    /* supplement §10.1: x fastest, then y, then z. */
    return (op_chunk_key)(kx + (uint64_t)ky * grid[0] + (uint64_t)kz * grid[0] * grid[1]);
}

static inline void op_topo_key_coord(const uint32_t grid[3], op_chunk_key key, uint32_t out[3])
{
    uint64_t xy = (uint64_t)grid[0] * grid[1];
    out[2] = (uint32_t)(key / xy);
    uint64_t rem = key % xy;
    out[1] = (uint32_t)(rem / grid[0]);
    out[0] = (uint32_t)(rem % grid[0]);
}

/* ---- Passability masks (movement.c) --------------------------------------------------- */

/* Scratch for evaluating a passability expression over one row of a chunk. */
typedef struct op_topo_eval {
    uint8_t *stack; /* depth × row_cap bytes */
    uint32_t depth, row_cap;
} op_topo_eval;

/* The deepest value stack an expression needs (a leaf pushes one value). */
uint32_t op_topo_pass_depth(const op_movement_class *c);

/* out[i] = 1 when local tile first + i of chunk is passable for c, else 0, for n tiles
 * of one row (same ly, lz). Tiles outside the world must be excluded by the caller.
 * eval->stack holds depth·n bytes. */
void op_topo_pass_row(const op_world *world, const op_movement_class *c, op_chunk_key chunk,
                      uint32_t first, uint32_t n, uint8_t *out, op_topo_eval *eval);

/* Field value as a 64-bit signed integer. */
int64_t op_topo_field_value(const op_world_field *f, op_chunk_key chunk, uint32_t local);

/* ---- Local flood (local.c) ------------------------------------------------------------ */

/* The padded flood grid of one chunk shape: the chunk grown by one impassable tile on
 * every side of x and y (and z when the chunk has more than one layer), so neighbour
 * steps never need a bounds test. */
typedef struct op_topo_plan {
    op_world_shape shape;
    uint32_t grid[3];
    uint32_t c[3];            /* chunk extent */
    uint32_t px, py, pz;      /* padded extents (pz = 1 for one-layer chunks) */
    uint32_t padded;          /* px·py·pz */
    uint32_t tiles;           /* chunk tiles */
    int hex;
    int nn;                   /* neighbour steps: 4 (2D), 6 (3D or hex) */
    int32_t step[6];          /* padded offsets in push order (supplement §10.2) */
    uint32_t *loc;            /* padded -> local tile (UINT32_MAX on padding) */
    uint32_t *x, *y, *z;      /* padded -> local coordinates */
    uint8_t *face;            /* padded -> bit f set when the tile lies on face f (0-5) */
    uint64_t *info;           /* padded -> local | x << 24 | face << 48: one load per pop */
    int compact;              /* padded <= 65535: the 16-bit flood (local.c) */
    uint64_t px_magic, py_magic; /* floor(2^32 / px) + 1: exact q / px for q·px < 2^32 */
    uint32_t max_exits;       /* most exits one chunk can record */
    /* Face strips: the labels of a chunk's tiles on each orthogonal face whose axis has
     * more than one chunk, by face position (x faces: ly + lz·cy; y: lx + lz·cx; z: lx +
     * ly·cx), face_off[f] .. face_off[f] + face_len[f] of face_total per chunk. Portal
     * pairing reads the neighbour's strip instead of its scattered labels. */
    uint32_t face_off[6], face_len[6], face_total;
    /* The flood of an all-passable chunk with every neighbour chunk present: its exits
     * in pop order with the chunk offset of their target (op_region_graph_settings
     * use_open_template). */
    struct op_topo_open_exit {
        uint32_t local;
        uint32_t lx, ly, lz; /* the local tile's coordinates (no division per copy) */
        uint8_t face;
        int8_t d[3];
    } *open_exits;
    uint32_t open_exit_count;
    op_allocator alloc;
} op_topo_plan;

typedef struct op_topo_open_exit op_topo_open_exit;

/* Per-thread flood storage. */
typedef struct op_topo_flood {
    uint8_t *st;      /* padded: 1 = passable and not yet labelled */
    uint32_t *stack;  /* padded + 8 */
    uint16_t *stack16, *lab16; /* compact plans: 16-bit stack and padded labels */
    uint8_t *mask;    /* tiles: the unpadded passability for the grid-labelling kernel */
    void *gl_scratch; /* op_grid_label_scratch_size of the plan's chunk */
    uint8_t *row;     /* one row of passability */
    op_topo_eval eval;
    uint32_t padded_cap, row_cap, mask_cap;
    op_allocator alloc;
} op_topo_flood;

/* Steps of the lattices in exit and push order (plan.c): hex (+1,0), (-1,0), (0,+1),
 * (0,-1), (+1,-1), (-1,+1) with their faces (supplement §10.4); orthogonal faces -x, +x,
 * -y, +y, -z, +z (§10.3). */
extern const int8_t op_topo_hex_step[6][2];
extern const uint8_t op_topo_hex_face[6];
extern const int8_t op_topo_face_dir[6][3];

/* One chunk being labelled. */
typedef struct op_topo_chunk {
    const op_topo_plan *p;
    const op_world *w;
    op_local_topology *t;
    op_chunk_key key;
    uint32_t k[3];   /* chunk coordinate */
    int32_t o[3];    /* world origin */
    uint8_t fm;      /* faces whose neighbour chunk exists */
    int64_t dkey[6]; /* key delta per orthogonal face */
} op_topo_chunk;

/* Exits of a popped boundary tile (supplement §10.3, §10.4). The chunk's exit array was
 * reserved for plan->max_exits before the flood. */

/* Floods a chunk whose passability is in f->st (flood.c): labels, regions, exits.
 * open: at least 95 % of the tiles passable (the branchy loop). 0 or -1 (out of memory). */
int op_topo_flood_chunk(const op_topo_chunk *cc, op_topo_flood *f, uint32_t *labels, int open);

/* Builds the plan of a validated shape (the open template included). 0 or -1 (out of
 * memory). */
int op_topo_plan_make(op_topo_plan *p, const op_world_shape *shape, const op_allocator *a);
void op_topo_plan_free(op_topo_plan *p);
int op_topo_flood_reserve(op_topo_flood *f, const op_topo_plan *p, const op_movement_class *c,
                          const op_allocator *a);
void op_topo_flood_free(op_topo_flood *f);

/* Labels one chunk into t (labels must point at chunk_tiles entries; regions and exits
 * grow through t->alloc). gl: the grid-labelling kernel of the context's table
 * (core/kernels.h), used for chunks without neighbour chunks (no exits, so no pop order
 * to keep); NULL floods them too. Returns 0, or -1 when an allocation failed. */
int op_topo_label_chunk(const op_world *world, const op_movement_class *c, const op_topo_plan *p,
                        op_topo_flood *f, op_chunk_key chunk, int use_template,
                        op_grid_label_fn gl, op_local_topology *t);

/* Grows a local topology's arrays (0 or -1). */
int op_topo_local_reserve_regions(op_local_topology *t, uint32_t n);
int op_topo_local_reserve_exits(op_local_topology *t, uint32_t n);

/* ---- Graph internals (graph.c, portals.c, index.c, update.c) --------------------------- */

/* What one thread of a build or update keeps between calls. */
typedef struct op_topo_thread {
    op_topo_flood flood;
    uint64_t *seen; /* region_count first-occurrence stamps (zeroed when allocated) */
    size_t seen_cap;
    uint32_t *fill; /* counting-sort cursors for the regions of one chunk */
    size_t fill_cap;
    /* The worker context of this thread during one call (thread 0 uses the caller's):
     * its own error buffer, forked with op_ctx_fork; the failure of the smallest slot
     * this thread met goes back through op_ctx_take_error. */
    op_ctx wctx;
    int forked;
    uint32_t fail_slot;
    op_status fail;
} op_topo_thread;

typedef struct op_region_graph_work {
    op_topo_plan plan;
    int have_plan;
    op_topo_thread *thread;
    int thread_count;
    /* per slot */
    uint32_t *exit_portals;   /* paired exits of each slot */
    op_region_portal **extra; /* provider portals of each slot */
    uint32_t *extra_count, *extra_cap;
    size_t extra_slots;   /* entries of extra and extra_cap initialised */
    size_t count_slots;   /* entries of extra_count and exit_portals */
    size_t offsets_slots; /* slots the graph's portal and region offsets can hold */
    uint32_t *exit_offsets; /* slots + 1: prefix sums of exit counts */
    size_t exit_offsets_cap;
    uint32_t *exit_to;      /* per exit: the region across it (0: none) */
    size_t exit_to_cap;
    uint32_t *strips;       /* slots · plan.face_total face strip labels */
    size_t strips_cap;
    uint64_t serial; /* build number: the high half of the first-occurrence stamps */
    /* Aggregates of the graph (update's results without a pass over every chunk). */
    uint64_t passable, exits, versions;
    uint32_t max_regions; /* most regions of one slot */
    /* Update scratch (update.c), each array with its own capacity. */
    uint32_t *mark;        /* slots: epoch marks (dirty, affected) */
    size_t mark_cap;
    uint32_t mark_epoch;
    uint32_t *list;        /* dirty slots then affected slots */
    size_t list_cap;
    uint32_t *old_ro, *old_po; /* slots + 1: offsets before the patch */
    size_t old_cap;
    uint32_t *aux;         /* per affected slot: exit and region offsets into the scratch */
    size_t aux_cap;
    uint8_t *miss;         /* reaches-missing flags being derived (build: unused) */
    size_t miss_cap;
    void *runs;            /* moves of unaffected runs */
    size_t runs_cap;
} op_region_graph_work;

/* The slot of a chunk key, or OP_INVALID_CHUNK (dense: the key; sparse: binary search in
 * the frozen sorted key table, topology.md "lower_bound"). */
static inline uint32_t op_topo_slot_of(const op_region_graph *g, op_chunk_key key)
{
    if (!g->sparse_keys || g->residency == OP_RESIDENCY_DENSE)
        return key < g->slot_count ? key : OP_INVALID_CHUNK;
    uint32_t lo = 0, hi = g->slot_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->sparse_keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->slot_count && g->sparse_keys[lo] == key ? lo : OP_INVALID_CHUNK;
}

/* The chunk key of a slot. */
static inline op_chunk_key op_topo_slot_key(const op_region_graph *g, uint32_t slot)
{
    return g->residency == OP_RESIDENCY_SPARSE ? g->sparse_keys[slot] : slot;
}

/* 1 when chunk b is a or one of a's regular-step neighbours (orthogonal: a face
 * neighbour; axial hex: the four axis steps and the (+1,-1), (-1,+1) seam chunks):
 * where a provider's landing may lie (topology.md "Transition Providers"). */
int op_topo_chunk_near(const op_region_graph_stamp *st, op_chunk_key a, op_chunk_key b);
/* The regular-step neighbour chunks of key (at most 6), in a fixed order. */
uint32_t op_topo_chunk_neighbours(const op_region_graph_stamp *st, op_chunk_key key,
                                  op_chunk_key out[6]);

/* Dominant-axis face of a provider step (supplement §10.6: ties x, then y, then z). */
op_boundary_face op_topo_transition_face(op_coord3 from, op_coord3 to);

/* Portal pairing for one slot: to[i] = the region across exit i (0: none); returns how
 * many exits have one. strips are the face strips of every slot. miss (NULL on a dense
 * graph) has one byte per region of the slot: set where the region has an exit into a
 * chunk the graph does not hold. */
uint32_t op_topo_count_exit_portals(const op_region_graph *g, uint32_t slot,
                                    const op_topo_plan *plan, const uint32_t *strips,
                                    uint32_t *to, uint8_t *miss);
/* Copies the face strips of one labelled chunk (plan->face_total values). */
void op_topo_face_strips(const op_topo_plan *plan, const uint32_t *labels, uint32_t *out);
/* Writes their portals in exit order from to[]; returns the count. */
uint32_t op_topo_fill_exit_portals(const op_region_graph *g, const op_local_topology *t,
                                   const uint32_t *to, op_region_portal *out);
/* The tile across an exit, as (chunk key, local tile); 0 when it is outside the world. */
int op_topo_exit_across(const op_region_graph *g, const op_boundary_exit *e, op_chunk_key *key,
                        uint32_t *local);
/* The provider's portals of one slot (supplement §10.6: origin in the chunk, landing in
 * the world and in a regular-step neighbour chunk, both ends labelled), enumerated once,
 * into *buf (grown through g->alloc); miss as for op_topo_count_exit_portals, set where
 * a labelled origin's landing lies in a chunk the graph does not hold. 0, or -1 when
 * the buffer could not grow. */
int op_topo_provider_portals(const op_region_graph *g, const op_transition_provider *prov,
                             const op_world *world, uint32_t slot, op_region_portal **buf,
                             uint32_t *count, uint32_t *cap, uint8_t *miss);

/* Dense-graph chunk key of a world coordinate known to be inside the shape, and its local
 * tile. */
static inline void op_topo_locate(const op_region_graph_stamp *st, op_coord3 c, op_chunk_key *key,
                                  uint32_t *local)
{
    uint32_t x = (uint32_t)c.x, y = (uint32_t)c.y, z = (uint32_t)c.z;
    uint32_t kx = x / st->shape.chunk[0], ky = y / st->shape.chunk[1], kz = z / st->shape.chunk[2];
    uint32_t lx = x - kx * st->shape.chunk[0], ly = y - ky * st->shape.chunk[1],
             lz = z - kz * st->shape.chunk[2];
    *key = op_topo_key(st->chunks, kx, ky, kz);
    *local = lx + ly * st->shape.chunk[0] + lz * st->shape.chunk[0] * st->shape.chunk[1];
}

int op_topo_shape_contains(const op_world_shape *s, op_coord3 c);
/* Same size, chunk and lattice. */
int op_topo_same_shape(const op_world_shape *a, const op_world_shape *b);

/* The step of a face, inline for the portal passes (op_boundary_face_step). */
static inline op_coord3 op_topo_face_step(op_coord3 c, uint8_t f)
{
    static const int8_t d[8][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0},
                                   {0, 0, -1}, {0, 0, 1}, {1, -1, 0}, {-1, 1, 0}};
    if (f < 8) {
        c.x += d[f][0];
        c.y += d[f][1];
        c.z += d[f][2];
    }
    return c;
}

/* CSR and first-occurrence adjacency of one slot's regions (portals of the slot are at
 * [portal_offsets[slot], portal_offsets[slot + 1]), targets indexed through the current
 * region offsets). fill has one entry per region of the slot; seen is a region_count
 * stamp array owned by the calling thread. */
void op_topo_index_slot(op_region_graph *g, uint32_t slot, uint32_t *fill, uint64_t *seen,
                        uint64_t serial);

/* ---- Storage and stamps shared by the build and the update (graph.c) -------------------- */

/* Replaces *p by an array of at least need elements when it is smaller (contents are
 * not kept; zero: the new array is zeroed). 0 or -1. */
int op_topo_grow(const op_allocator *a, void **p, size_t *cap, size_t need, size_t elem, int zero);
int op_topo_reserve_threads(op_region_graph *g, int nt);
/* The first-occurrence stamps (a new serial) and counting-sort cursors of nt threads. */
int op_topo_reserve_index(op_region_graph *g, int nt, size_t regions, size_t max_regions);
/* Stamps the graph built: class, provider type, type_arg, instance, revision. */
void op_topo_stamp(op_region_graph *g, const op_movement_class *cls,
                   const op_transition_provider *prov);
/* The settings' provider, or NULL for AdjacentTransitions. */
const op_transition_provider *op_topo_provider_of(const op_region_graph_settings *s);

/* The residency snapshot of a built graph still holds for world (dense: the chunk count;
 * sparse: resident count and every slot's generation), stamps.c. */
int op_topo_residency_holds(const op_world *world, const op_region_graph *g);

/* ---- Worker contexts of the chunk-parallel passes (graph.c) ---------------------------- */

/* Forks a worker context for threads 1 .. nt - 1 (thread 0 is the caller's ctx) and
 * resets every thread's failure record. OP_NO_MEMORY (message in ctx) when a fork
 * fails; the forks made are released. ctx may be NULL (workers then have none). */
op_status op_topo_team_begin(op_ctx *ctx, op_region_graph_work *w, int nt);
/* The context thread tid reports into. */
static inline op_ctx *op_topo_team_ctx(op_ctx *ctx, op_region_graph_work *w, int tid)
{
    return tid == 0 || !w->thread[tid].forked ? ctx : &w->thread[tid].wctx;
}
/* Records a failure of slot on thread tid: the message goes to that thread's context
 * when slot is the smallest it failed on. */
void op_topo_team_fail(op_ctx *ctx, op_region_graph_work *w, int tid, uint32_t slot,
                       op_status st, const char *fmt, ...);
/* After a pass: the status of the failure with the smallest slot (OP_OK when none), its
 * message handed to ctx (op_ctx_take_error), and every record reset. */
op_status op_topo_team_result(op_ctx *ctx, op_region_graph_work *w, int nt);
/* Releases the forks. */
void op_topo_team_end(op_region_graph_work *w, int nt);

int op_topo_thread_count(int requested);
int op_topo_thread_id(void);

#endif
