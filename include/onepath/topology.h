/* onepath — the chunk-region graph (topology.md), in the C mapping of supplement §6
 * with the names of §8 and the readings of §10.
 *
 * A world is a grid of tiles cut into chunks; typed per-tile fields are registered by
 * id. A movement class (data: a passability expression, a cost expression and a step
 * policy) says which tiles an agent can stand on. The region graph labels the passable
 * connected components of every chunk (local regions), records where they touch the
 * chunk boundary (exits), pairs exits across chunk seams into directed portals, and
 * indexes every region densely with a CSR adjacency over the portals. Queries answer
 * "can A reach B" (op_reachable) and "through which regions and chunks"
 * (op_coarse_path) in microseconds, with caller-owned scratch.
 *
 * Coordinates are tiles: x fastest, then y, then z. A PNG world is top-down: x is the
 * column, y the row, z = 0 (supplement §10.1). Every allocation goes through the
 * allocator of the context a structure was initialised with (common.h, op_allocator);
 * every function that can fail returns an op_status with a message in the context.
 * Structures are plain C so their fields can be read; treat them as read-only and change
 * them only through these functions. */
#ifndef ONEPATH_TOPOLOGY_H
#define ONEPATH_TOPOLOGY_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- World shape (topology.md "Public Surface"; supplement §6, §10.1, §10.11) ------- */

typedef enum op_lattice {
    OP_LATTICE_ORTHOGONAL = 0, /* six axis neighbours: +x, -x, +y, -y, +z, -z */
    OP_LATTICE_AXIAL_HEX = 1   /* 2D axial hex (x = q, y = r, z = 0): six regular steps */
} op_lattice;

/* Lattice identities and version, stamped on a graph with its shape (topology.md
 * "Resolved Transitions": model identity includes lattice identity/version). */
#define OP_LATTICE_VERSION 1u

/* A world tile coordinate. Requests may lie outside the world (they are then invalid). */
typedef struct op_coord3 {
    int32_t x, y, z;
} op_coord3;

/* A half-open box [min, max) of tiles. The zero box is all zeros. */
typedef struct op_box3 {
    op_coord3 min, max;
} op_box3;

/* Limits of a world shape (checked by op_world_shape_validate). */
#define OP_WORLD_MAX_AXIS 0x7fffffffu   /* tiles per world axis */
#define OP_CHUNK_MAX_TILES 0x01000000u  /* tiles per chunk (2^24) */
#define OP_WORLD_MAX_CHUNKS 0x7fffffffu /* chunks per world */

typedef struct op_world_shape {
    uint32_t size[3];  /* world extent in tiles (x, y, z), each >= 1 */
    uint32_t chunk[3]; /* chunk extent in tiles, each >= 1; any size (supplement §10.11:
                        * the grid is ceil(size / chunk) and a partial edge chunk is a
                        * full chunk whose out-of-world tiles are impassable) */
    op_lattice lattice; /* axial hex needs size z = 1 and chunk z = 1 */
} op_world_shape;

/* OP_INVALID_ARGUMENT with a message for a zero or too large axis, a chunk of more than
 * OP_CHUNK_MAX_TILES tiles, more than OP_WORLD_MAX_CHUNKS chunks, an unknown lattice, or
 * a hex shape with z != 1. ctx may be NULL. */
op_status op_world_shape_validate(op_ctx *ctx, const op_world_shape *shape);

/* Chunk keys: kx + ky·CX + kz·CX·CY over the chunk grid (supplement §10.1). */
typedef uint32_t op_chunk_key;
#define OP_INVALID_CHUNK 0xffffffffu

/* Dense worlds keep every chunk (AlwaysResident); sparse worlds keep a resident set
 * (SparseResident): a chunk's field pages exist only while it is resident. The graph
 * carries the mode of the world it was built from. */
typedef enum op_residency {
    OP_RESIDENCY_DENSE = 0,
    OP_RESIDENCY_SPARSE = 1
} op_residency;

/* ---- World: fields registered by id, per-chunk topology versions ------------------- */

typedef enum op_field_type {
    OP_FIELD_U8 = 0,
    OP_FIELD_U16,
    OP_FIELD_U32,
    OP_FIELD_I8,
    OP_FIELD_I16,
    OP_FIELD_I32
} op_field_type;

#define OP_WORLD_MAX_FIELDS 64

typedef struct op_world_field {
    uint32_t id;        /* the caller's id (any value, unique in the world) */
    op_field_type type;
    uint32_t elem_size; /* bytes per value */
    void **pages;       /* per chunk key: chunk_tiles values in local tile order (sparse:
                         * NULL for a chunk that is not resident) */
    void *block;        /* dense: the one allocation all pages live in; sparse: NULL */
} op_world_field;

typedef struct op_world {
    op_world_shape shape;
    uint32_t chunks[3];   /* chunk grid: ceil(size / chunk) per axis */
    uint32_t chunk_count; /* chunks[0]·chunks[1]·chunks[2] */
    uint32_t chunk_tiles; /* chunk[0]·chunk[1]·chunk[2] */
    op_residency residency;
    uint64_t *topology_version; /* per chunk; starts at 0 */
    uint8_t *topology_dirty;    /* per chunk; set by mark_dirty, cleared by mark_rebuilt */
    /* Residency (sparse worlds; NULL for dense, where every chunk is resident). */
    uint8_t *resident;              /* per chunk: 1 while resident */
    uint64_t *residency_generation; /* per chunk: advanced by every residency change */
    uint32_t resident_count;        /* dense: chunk_count */
    op_world_field fields[OP_WORLD_MAX_FIELDS];
    uint32_t field_count;
    op_allocator alloc;
} op_world;

/* A dense world of the given shape, with no fields yet. */
op_status op_world_init(op_ctx *ctx, op_world *world, const op_world_shape *shape);
/* A sparse world of the given shape: no fields and no resident chunk yet. */
op_status op_world_init_sparse(op_ctx *ctx, op_world *world, const op_world_shape *shape);
void op_world_free(op_world *world);

/* Residency (topology.md "Public Surface": resident set plus per-key generation).
 * make_resident gives the chunk a zeroed page in every field; evict frees them. Each
 * change advances the chunk's residency generation, so a graph built before it is no
 * longer fresh and its update rebuilds in full. Making a resident chunk resident again,
 * or evicting a chunk that is not resident, changes nothing. OP_INVALID_ARGUMENT for a
 * key outside the grid, or to evict from a dense world; OP_NO_MEMORY (nothing changed)
 * when a page cannot be allocated. */
op_status op_world_make_resident(op_ctx *ctx, op_world *world, op_chunk_key key);
op_status op_world_evict(op_ctx *ctx, op_world *world, op_chunk_key key);
/* 1 for a resident chunk (every chunk of a dense world), 0 otherwise. */
int op_world_is_resident(const op_world *world, op_chunk_key key);
uint32_t op_world_resident_count(const op_world *world);
/* The resident keys in ascending order (resident_chunk_keys): writes at most cap of
 * them and returns how many there are. */
uint32_t op_world_resident_keys(const op_world *world, op_chunk_key *out, uint32_t cap);
/* The chunk's residency generation (0 on a dense world). */
uint64_t op_world_residency_generation(const op_world *world, op_chunk_key key);

/* Registers a field: one zeroed value per tile of every chunk. OP_INVALID_ARGUMENT for
 * a duplicate id, an unknown type or more than OP_WORLD_MAX_FIELDS fields. */
op_status op_world_add_field(op_ctx *ctx, op_world *world, uint32_t id, op_field_type type);
/* The field with this id, or NULL. */
const op_world_field *op_world_find_field(const op_world *world, uint32_t id);
/* The values of one chunk (chunk_tiles of them, local tile order lx + ly·cx + lz·cx·cy),
 * or NULL for an unknown field or chunk, or a chunk that is not resident. Writing here is a raw field write: it does not
 * move any topology version (topology.md "Field edits do not make a graph stale"). */
void *op_world_page(op_world *world, uint32_t field_id, op_chunk_key chunk);
const void *op_world_page_const(const op_world *world, uint32_t field_id, op_chunk_key chunk);
/* One value by world coordinate. OP_INVALID_ARGUMENT for an unknown field, a coordinate
 * outside the world or in a chunk that is not resident, or (set) a value the field type
 * cannot hold. Raw writes. */
op_status op_world_set(op_ctx *ctx, op_world *world, uint32_t field_id, op_coord3 c, int64_t value);
op_status op_world_get(op_ctx *ctx, const op_world *world, uint32_t field_id, op_coord3 c,
                       int64_t *value);
/* Every in-world tile of the field in every resident chunk (raw writes). */
op_status op_world_fill(op_ctx *ctx, op_world *world, uint32_t field_id, int64_t value);

/* Chunk keys and coordinates (supplement §10.1). op_world_chunk_of returns
 * OP_INVALID_CHUNK for a coordinate outside the world. */
int op_world_contains(const op_world_shape *shape, op_coord3 c);
op_chunk_key op_world_chunk_of(const op_world *world, op_coord3 c);
/* 1 and the chunk grid coordinate of key, or 0 for a key outside the grid. */
int op_world_chunk_coord(const op_world *world, op_chunk_key key, uint32_t out[3]);
/* World coordinate of a chunk's first tile (its origin). */
op_coord3 op_world_chunk_origin(const op_world *world, op_chunk_key key);

/* Topology versions (topology.md "Field edits do not make a graph stale"): only these
 * two move a chunk's version, each by one. mark_dirty also sets the chunk's dirty flag,
 * mark_rebuilt clears it. OP_INVALID_ARGUMENT for a key outside the grid. */
op_status op_world_mark_topology_dirty(op_ctx *ctx, op_world *world, op_chunk_key key);
op_status op_world_mark_topology_rebuilt(op_ctx *ctx, op_world *world, op_chunk_key key);
uint64_t op_world_topology_version(const op_world *world, op_chunk_key key);

/* ---- Movement classes as data (topology.md "Movement Vocabulary"; supplement §6) ---- */

/* Expression nodes, in prefix order (a node is followed by its children). */
typedef enum op_pass_op {
    OP_PASS_FIELD = 1,    /* arg = field id: the value is truthy (!= 0) */
    OP_PASS_NOT_ZERO = 2, /* arg = field id: the value is != 0 (integral fields) */
    OP_PASS_NOT = 3,      /* one child */
    OP_PASS_ALL_OF = 4,   /* arg = child count (0 = true) */
    OP_PASS_ANY_OF = 5    /* arg = child count (0 = false) */
} op_pass_op;

typedef enum op_cost_op {
    OP_COST_UNIT = 1,     /* 1 */
    OP_COST_CONSTANT = 2, /* arg = N */
    OP_COST_FIELD = 3,    /* arg = field id: the value, <= 0 -> 0, above u32 saturated */
    OP_COST_SELECT = 4,   /* arg = selector field id; children WhenSet, WhenClear */
    OP_COST_OVERLAY = 5   /* children Base, Overlay: 0 iff Base is 0, else Base + Overlay
                           * saturated at 0xffffffff (Overlay 0 = no surcharge) */
} op_cost_op;

typedef struct op_expr_node {
    uint32_t op;  /* op_pass_op or op_cost_op */
    uint32_t arg;
} op_expr_node;

#define OP_MOVEMENT_MAX_NODES 32

typedef enum op_step_policy {
    OP_STEPS_DEFAULT = 0, /* the lattice's default regular steps */
    OP_STEPS_DIAGONAL = 1 /* face steps plus clearance-preserving planar diagonals; only
                           * on an orthogonal world with exactly two axes of size > 1 */
} op_step_policy;

typedef enum op_corner_rule {
    OP_CORNER_REQUIRE_BOTH_CLEAR = 0,
    OP_CORNER_REQUIRE_ONE_CLEAR = 1
} op_corner_rule;

/* Step-policy identities and fixed-point cost scales (topology.md "Movement Vocabulary",
 * "Resolved Transitions": 128/181 cardinal/diagonal under diagonal policies). */
#define OP_STEP_IDENTITY_DEFAULT 0x44454654u
#define OP_STEP_IDENTITY_DIAGONAL_BOTH_CLEAR 0x44474243u
#define OP_STEP_IDENTITY_DIAGONAL_ONE_CLEAR 0x44474f43u
#define OP_STEP_DIAGONAL_CARDINAL_SCALE 128u
#define OP_STEP_DIAGONAL_DIAGONAL_SCALE 181u

typedef struct op_movement_class {
    op_expr_node pass[OP_MOVEMENT_MAX_NODES]; /* passability, prefix order */
    uint32_t pass_count;                      /* >= 1 */
    op_expr_node cost[OP_MOVEMENT_MAX_NODES]; /* entry cost, prefix order */
    uint32_t cost_count;                      /* 0 means UnitCost */
    op_step_policy steps;
    op_corner_rule corner; /* used by OP_STEPS_DIAGONAL only */
} op_movement_class;

/* UnitCostFieldMovement<field>: Field(field), UnitCost, default steps. This is what a
 * raw passable field normalizes to. */
void op_movement_class_unit_field(op_movement_class *c, uint32_t passable_field);
/* PositiveCostFieldMovement<passable, cost>: AllOf(Field(passable), NotZero(cost)),
 * FieldCost(cost), default steps. */
void op_movement_class_positive_cost_field(op_movement_class *c, uint32_t passable_field,
                                           uint32_t cost_field);
/* An empty class (no nodes, default steps) to fill with op_movement_*_push. */
void op_movement_class_clear(op_movement_class *c);
/* Appends a node; OP_INVALID_ARGUMENT when OP_MOVEMENT_MAX_NODES are used. */
op_status op_movement_pass_push(op_ctx *ctx, op_movement_class *c, op_pass_op op, uint32_t arg);
op_status op_movement_cost_push(op_ctx *ctx, op_movement_class *c, op_cost_op op, uint32_t arg);

/* MovementClassFor + StepPolicyFor: both expressions are well-formed prefix trees that
 * use every node, every field they name is registered in world, and the step policy is
 * valid for the world's shape (diagonals only on an orthogonal lattice with exactly two
 * effective axes). OP_INVALID_ARGUMENT with a message naming the problem. */
op_status op_movement_class_validate(op_ctx *ctx, const op_world *world,
                                     const op_movement_class *c);

/* The normalized identity (movement_class_of): cost_count 0 becomes [UnitCost], the
 * corner rule of default steps and every unused node are zeroed. Two classes are the
 * same class iff their normalized forms are equal, so a raw passable field
 * (op_movement_class_unit_field) and a class written out as Field/UnitCost/default
 * agree. */
void op_movement_class_normalize(const op_movement_class *in, op_movement_class *out);
int op_movement_class_same(const op_movement_class *a, const op_movement_class *b);
/* XXH3-64 of the normalized class's canonical little-endian bytes (for display). */
uint64_t op_movement_class_identity(const op_movement_class *c);
/* HasPassableSpan: 1 and the field when the passability is one Field or NotZero leaf
 * (the single-field fast path). */
int op_movement_class_single_field(const op_movement_class *c, uint32_t *field);
/* step_policy_identity_of and the cardinal cost scale (1, or 128 for diagonals). */
uint32_t op_movement_step_identity(const op_movement_class *c);
uint32_t op_movement_cost_scale(const op_movement_class *c);

/* Per tile (the class must be valid for the world; a coordinate outside the world is
 * impassable with cost 0). */
int op_movement_passable(const op_world *world, const op_movement_class *c, op_coord3 at);
uint32_t op_movement_entry_cost(const op_world *world, const op_movement_class *c, op_coord3 at);

/* ---- Transition providers (topology.md "Transition Providers"; supplement §6) ------ */

typedef void (*op_transition_sink)(void *sink_user, op_coord3 from, op_coord3 to);

typedef struct op_transition_provider op_transition_provider;

/* The provider's type: its address (with the provider's type_arg) is the type identity
 * stamped on graphs. */
typedef struct op_transition_provider_ops {
    const char *name;
    /* Calls sink once per extra directed transition whose origin tile lies in chunk
     * (for_each_transition(world, chunk, sink), from inside the chunk). Called once per
     * chunk and build (update: per re-derived chunk), possibly from several threads at
     * once for different chunks: it must only read. The landing tile must lie in the
     * same chunk or a regular-step neighbour chunk (orthogonal: the six face neighbours;
     * axial hex: also the two seam chunks); a transition landing further away, outside
     * the world, or on a tile without a region contributes nothing. On a sparse world
     * pages of chunks that are not resident are NULL (op_world_page_const). */
    void (*for_each_transition)(const op_transition_provider *self, const op_world *world,
                                op_chunk_key chunk, op_transition_sink sink, void *sink_user);
} op_transition_provider_ops;

/* A NULL provider (or ops NULL) is AdjacentTransitions: no extra portals, null instance,
 * revision 0. A stateful provider advances revision whenever its edge set can change
 * and stays at a stable address while a graph built with it is used (clear the graph
 * before ending its lifetime). type_arg is part of the type (a C++ template argument:
 * the stair provider's field id); 0 when unused. */
struct op_transition_provider {
    const op_transition_provider_ops *ops;
    const void *instance;
    uint64_t revision;
    uint32_t type_arg;
};

/* StairTransitions<StairTag> (topology.md "Stairs"): an integral field holds a
 * StairDirection per tile; a tile that is not None is the FOOT of a stair whose landing
 * is one step in that direction and one z level up. Each stair gives both directions,
 * each emitted from the chunk owning its origin tile (up from the foot's chunk, down
 * from the landing's). A landing outside the world, or one that would cross two chunk
 * boundaries at once (sideways off the chunk's x/y edge and up off its top layer),
 * contributes nothing. Stateless: null instance, revision 0, type_arg = the field id.
 * A chunk enumerates its feet in local tile order (up edges), then the stairs landing
 * in it by foot coordinate z, y, x (down edges). */
typedef enum op_stair_direction {
    OP_STAIR_NONE = 0,
    OP_STAIR_POS_X = 1,
    OP_STAIR_NEG_X = 2,
    OP_STAIR_POS_Y = 3,
    OP_STAIR_NEG_Y = 4
} op_stair_direction;

extern const op_transition_provider_ops op_stair_transitions_ops;
/* The stair provider reading field stair_field. */
op_transition_provider op_stair_transitions(uint32_t stair_field);

/* ---- Local topology (topology.md "Public Surface", "Behavior"; supplement §10.2-5) -- */

#define OP_INVALID_LOCAL_REGION 0u
#define OP_INVALID_REGION_INDEX 0xffffffffu

/* BoundaryFace: the six orthogonal faces, then the two axial-hex seam steps. */
typedef enum op_boundary_face {
    OP_FACE_NEG_X = 0,
    OP_FACE_POS_X = 1,
    OP_FACE_NEG_Y = 2,
    OP_FACE_POS_Y = 3,
    OP_FACE_NEG_Z = 4,
    OP_FACE_POS_Z = 5,
    OP_FACE_POS_X_NEG_Y = 6, /* hex step (+1, -1) */
    OP_FACE_NEG_X_POS_Y = 7  /* hex step (-1, +1) */
} op_boundary_face;

const char *op_boundary_face_name(op_boundary_face f); /* "-x", "+x-y", ... */
/* The tile across a face (coordinate + the face's step). */
op_coord3 op_boundary_face_step(op_coord3 c, op_boundary_face f);

/* LocalRegion: id N is regions[N - 1]. */
typedef struct op_local_region {
    uint32_t id;
    uint32_t tile_count;
    op_box3 bounds;      /* world tiles of the region */
    uint32_t exit_count; /* its boundary exits */
    uint32_t first_exit; /* index of its first exit (exits are grouped by region) */
} op_local_region;

/* LocalBoundaryExit: a passable tile at the chunk edge whose neighbouring chunk exists. */
typedef struct op_boundary_exit {
    uint32_t region;     /* local region id */
    uint32_t local_tile; /* lx + ly·cx + lz·cx·cy */
    op_coord3 coord;     /* world coordinate of the tile */
    op_chunk_key target_chunk;
    uint8_t face;        /* op_boundary_face */
} op_boundary_exit;

/* LocalChunkTopology. labels has chunk_tiles entries (0 = impassable). In a graph the
 * labels live in the graph's label array. */
typedef struct op_local_topology {
    op_chunk_key chunk;
    uint32_t chunk_coord[3];
    uint64_t topology_version; /* the chunk's version captured by the build */
    uint32_t tile_count;       /* chunk_tiles */
    uint32_t *labels;
    op_local_region *regions;
    uint32_t region_count, region_cap;
    op_boundary_exit *exits;
    uint32_t exit_count, exit_cap;
    int owns_labels;
    op_allocator alloc;
} op_local_topology;

/* The checked accessor: NULL for id 0 or an id above region_count. */
const op_local_region *op_local_topology_region(const op_local_topology *t, uint32_t id);

typedef enum op_topology_status {
    OP_TOPOLOGY_BUILT = 0,
    OP_TOPOLOGY_INVALID_CHUNK = 1, /* a key outside the chunk grid */
    OP_TOPOLOGY_MISSING_CHUNK = 2  /* sparse: a key in the grid whose chunk is not resident */
} op_topology_status;

/* TopologyBuildResult. */
typedef struct op_topology_build_result {
    op_topology_status status;
    uint64_t region_count, passable_tile_count, boundary_exit_count;
    uint64_t topology_version_sum;
} op_topology_build_result;

/* LocalTopologyScratch: reusable flood storage (contents are internal). */
typedef struct op_local_topology_scratch {
    void *impl;
    op_allocator alloc;
} op_local_topology_scratch;

void op_local_topology_init(op_ctx *ctx, op_local_topology *t);
void op_local_topology_free(op_local_topology *t);
void op_local_topology_scratch_init(op_ctx *ctx, op_local_topology_scratch *s);
void op_local_topology_scratch_free(op_local_topology_scratch *s);

/* build_local_chunk_topology: labels the passable components of one chunk (ids in
 * increasing local tile order, then depth-first flood order, supplement §10.2) and
 * records its exits (§10.3, §10.4; on a sparse world too, an exit is recorded wherever
 * the neighbouring chunk is in the grid, resident or not). A key outside the grid gives
 * status InvalidChunk, a chunk of a sparse world that is not resident MissingChunk, both
 * with an empty topology (OP_OK), before any page is read. Does not touch versions or
 * dirty flags. */
op_status op_local_topology_build(op_ctx *ctx, const op_world *world, const op_movement_class *c,
                                  op_chunk_key chunk, op_local_topology_scratch *scratch,
                                  op_local_topology *out, op_topology_build_result *result);

/* ---- Region graph (topology.md "Public Surface", "Behavior"; supplement §10.6-7) ---- */

typedef struct op_region_ref {
    op_chunk_key chunk;
    uint32_t region; /* local id, 0 = none */
} op_region_ref;

typedef struct op_region_portal {
    op_region_ref from, to;
    op_coord3 from_coord, to_coord;
    uint8_t face; /* op_boundary_face; provider portals: dominant axis (ties x, y, z) */
} op_region_portal;

/* What the graph was built for (topology.md: shape, class, provider stamps). */
typedef struct op_region_graph_stamp {
    int built;                /* 0 until the first build; matches nothing then */
    op_world_shape shape;
    uint32_t chunks[3];
    uint32_t lattice_version;
    op_movement_class cls;    /* normalized */
    uint32_t step_identity, cost_scale;
    const op_transition_provider_ops *provider_ops;
    const void *provider_instance;
    uint64_t provider_revision;
    uint32_t provider_type_arg;
} op_region_graph_stamp;

struct op_region_graph_work; /* internal build storage kept between builds */

/* RegionGraphT<Residency>. A slot is one labelled chunk: on a dense graph slot = chunk
 * key; on a sparse graph the slots are the resident chunks at build time in ascending
 * key order (sparse_keys, a frozen sorted key table: a key is found by binary search),
 * so every per-slot array is sized by the resident count. Portals and region references
 * always name chunk keys. */
typedef struct op_region_graph {
    op_residency residency;
    op_region_graph_stamp stamp;
    uint64_t revision;       /* advances on every build, patch and clear */
    uint32_t slot_count;     /* local topologies (dense: chunk_count) */
    uint32_t chunk_tiles;
    op_local_topology *locals;
    uint32_t *labels;        /* slot_count·chunk_tiles, slot-major */
    op_region_portal *portals;
    uint32_t portal_count;
    uint32_t *portal_offsets; /* slot_count + 1: portals of each slot's chunk */
    uint32_t *region_offsets; /* slot_count + 1: dense index prefix sums */
    uint32_t region_count;
    uint32_t *adj_start;      /* region_count + 1: CSR bucket starts */
    uint32_t *adj_target;     /* portal_count: target region index, portal order */
    uint32_t *adj_portal;     /* portal_count: portal index */
    /* First-occurrence adjacency (derived, not serialized): the distinct targets of
     * each bucket in bucket order with the first portal reaching them. Traversals
     * read it; they visit exactly what a scan of the full bucket visits. */
    uint32_t *nb_range;       /* 2·region_count: begin, end into nb_target/nb_portal */
    uint32_t *nb_target, *nb_portal;
    /* Sparse-only state: NULL for a dense graph. */
    op_chunk_key *sparse_keys;         /* slot_count: the key of each slot, ascending */
    uint64_t *residency_generations;   /* slot_count: generations frozen at the build */
    uint32_t world_resident_count;     /* the world's resident count at the build */
    uint8_t *reaches_missing;          /* region_count: 1 when the region exits into a
                                        * chunk that is not resident, or has a provider
                                        * transition landing in one */
    /* capacities */
    size_t labels_cap, portal_cap, region_cap, slot_cap, sparse_cap, missing_cap;
    struct op_region_graph_work *work;
    op_allocator alloc;
} op_region_graph;

/* RegionGraphBuildResult. */
typedef struct op_region_graph_build_result {
    uint64_t region_count, passable_tile_count, boundary_exit_count;
    uint64_t topology_version_sum;
} op_region_graph_build_result;

typedef struct op_region_graph_settings {
    const op_transition_provider *provider; /* NULL = AdjacentTransitions */
    int threads;           /* OpenMP threads for the chunk-parallel passes; 0 = OpenMP's
                            * default, and one thread for worlds under 32768 tiles */
    int use_open_template; /* 1 (default): chunks with every tile passable copy a
                            * precomputed flood; 0 floods them (tests compare both) */
    int use_grid_label;    /* 1 (default): chunks without a neighbour chunk (no exits)
                            * take the grid-labelling kernel of the context's table; 0
                            * floods them (tests compare both) */
} op_region_graph_settings;

void op_region_graph_settings_defaults(op_region_graph_settings *s);

void op_region_graph_init(op_ctx *ctx, op_region_graph *g);
void op_region_graph_free(op_region_graph *g);
/* Empties the graph (it then matches nothing) and advances its revision. */
void op_region_graph_clear(op_region_graph *g);

/* build_region_graph: labels every chunk (a dense world: every key; a sparse world: its
 * resident chunks, ascending, whose keys and residency generations it freezes onto the
 * graph) chunk-parallel with the same bytes for any thread count, pairs exits into
 * portals (canonical order: ascending from-chunk, then exit order, then the provider's
 * portals of that chunk), builds the dense index and the CSR adjacency, sets the
 * reaches-missing flags of a sparse graph, and stamps the graph. On failure (an invalid
 * class for the world, OP_INVALID_ARGUMENT; out of memory, OP_NO_MEMORY) the graph is
 * cleared, its revision advanced, and the status returned. settings and result may be
 * NULL. */
op_status op_region_graph_build(op_ctx *ctx, const op_world *world, const op_movement_class *c,
                                const op_region_graph_settings *settings, op_region_graph *g,
                                op_region_graph_build_result *result);

/* update_region_graph (topology.md "Incremental Updates"; supplement §10.13), in order:
 *  1. a graph never built, or built for another shape, residency mode, class or provider
 *     (type, type_arg, instance, revision), or (sparse) whose residency snapshot no
 *     longer holds (resident count, per-key generation), is rebuilt in full whatever
 *     the dirty set; the result then reports Built;
 *  2. else a dirty key outside the chunk grid: status InvalidChunk (sparse: a key whose
 *     chunk is not resident, MissingChunk), zero counts, the graph untouched;
 *  3. else an empty dirty set is a no-op (revision kept) reporting the graph's counts;
 *  4. else the dirty chunks (duplicates harmless) are relabelled, and the portals of
 *     them and their regular-step neighbours (orthogonal: face neighbours; hex: with
 *     the two seam chunks) dropped and re-derived, provider portals included; canonical
 *     order, the index and the CSR are restored in place, touching only what moved.
 *     Graph and counts equal a fresh build's, portal order included; the revision
 *     advances by one. No topology versions are compared: chunks not named keep their
 *     labels (and their captured versions).
 * On failure (invalid class, OP_INVALID_ARGUMENT; out of memory at any point,
 * OP_NO_MEMORY) the graph is cleared, its revision advanced and the status returned: a
 * graph is never observable half-updated. settings and result may be NULL. */
op_status op_region_graph_update(op_ctx *ctx, const op_world *world, const op_movement_class *c,
                                 const op_region_graph_settings *settings,
                                 const op_chunk_key *dirty, size_t dirty_count,
                                 op_region_graph *g, op_topology_build_result *result);

/* The slot of a chunk key (dense: the key; sparse: its place in the frozen key table),
 * or OP_INVALID_CHUNK when the graph has no such chunk. */
uint32_t op_region_graph_slot_of(const op_region_graph *g, op_chunk_key chunk);

const op_local_topology *op_region_graph_local(const op_region_graph *g, op_chunk_key chunk);
/* The region of a world tile ({OP_INVALID_CHUNK, 0} outside the shape; {key, 0} on an
 * impassable tile). */
op_region_ref op_region_graph_region_of(const op_region_graph *g, op_coord3 c);
/* region_offsets[chunk] + id - 1, or OP_INVALID_REGION_INDEX. */
uint32_t op_region_graph_region_index(const op_region_graph *g, op_region_ref ref);
/* The inverse ({OP_INVALID_CHUNK, 0} for an index out of range). */
op_region_ref op_region_graph_region_ref(const op_region_graph *g, uint32_t index);

/* Stamps and freshness; none of them mutates anything. */
int op_region_graph_matches_shape(const op_region_graph *g, const op_world_shape *shape);
int op_region_graph_matches_class(const op_region_graph *g, const op_movement_class *c);
/* provider NULL = AdjacentTransitions. Compares type, instance and revision. */
int op_region_graph_matches_provider(const op_region_graph *g,
                                     const op_transition_provider *provider);
/* is_region_graph_fresh: built for this world's shape and residency, every labelled
 * chunk's captured topology version equals the world's, and (sparse) the residency
 * snapshot still holds: the same resident count and every slot's chunk resident with
 * the generation frozen at the build. O(slots). Raw field writes keep a graph fresh
 * (topology.md "Field edits do not make a graph stale"). */
int op_region_graph_is_fresh(const op_world *world, const op_region_graph *g);
/* is_region_graph_fresh_for: also matches_class. */
int op_region_graph_is_fresh_for(const op_world *world, const op_region_graph *g,
                                 const op_movement_class *c);

/* The topology/region-graph digest (supplement §5; docs/formats.md "OPTOPO1"): labels,
 * region summaries, exits, portals, index and CSR (sparse graphs: also the
 * reaches-missing flags), not versions, revisions, generations or stamps. */
op_status op_region_graph_digest(op_ctx *ctx, const op_region_graph *g, uint64_t *out);

/* ---- Queries (topology.md "Behavior"; supplement §10.8-10, §10.12) ----------------- */

typedef enum op_reach_status {
    OP_REACH_REACHABLE = 0,
    OP_REACH_UNREACHABLE = 1,
    OP_REACH_INVALID_START = 2,
    OP_REACH_INVALID_GOAL = 3,
    OP_REACH_INDETERMINATE = 4 /* sparse graphs only: a non-resident endpoint, or an
                                * exhausted search that touched a region reaching
                                * missing topology */
} op_reach_status;

const char *op_reach_status_name(op_reach_status s); /* "reachable", "invalid-start", ... */

typedef struct op_path_request {
    op_coord3 start, goal;
} op_path_request;

typedef struct op_reach_result {
    op_reach_status status;
    uint32_t visited; /* regions visited (supplement §10.9) */
} op_reach_result;

/* RegionGraphScratch: traversal storage with epoch-stamped visited marks, reused across
 * queries (allocation-free once reserved for a graph). One query at a time. */
typedef struct op_region_graph_scratch {
    uint32_t *marks, *chunk_marks;
    uint32_t epoch, chunk_epoch;
    uint32_t mark_cap, chunk_mark_cap;
    uint32_t *frontier, *parent, *parent_portal;
    uint32_t frontier_cap;
    op_region_ref *path_regions;
    op_region_portal *path_portals;
    op_chunk_key *corridor;
    uint32_t path_cap;
    op_allocator alloc;
} op_region_graph_scratch;

void op_region_graph_scratch_init(op_ctx *ctx, op_region_graph_scratch *s);
void op_region_graph_scratch_free(op_region_graph_scratch *s);
/* Sizes the scratch for g so queries on it do not allocate. */
op_status op_region_graph_scratch_reserve(op_ctx *ctx, op_region_graph_scratch *s,
                                          const op_region_graph *g);

/* reachable (§10.8, §10.9). Looks at neither freshness nor stamps. Sparse graphs: after
 * the world checks, a start (then goal) in a chunk the graph does not hold is
 * Indeterminate (visited 0); an exhausted search that visited a region reaching missing
 * topology is Indeterminate instead of Unreachable (a route found in the resident set
 * still wins; a component enclosed by resident walls is a definite Unreachable).
 * OP_NO_MEMORY only when the scratch had to grow and could not. */
op_status op_reachable(op_ctx *ctx, const op_region_graph *g, const op_path_request *req,
                       op_region_graph_scratch *s, op_reach_result *out);

/* CoarsePathResult: the lists borrow the scratch until its next traversal. */
typedef struct op_coarse_path_result {
    op_reach_status status;
    uint32_t visited;
    const op_region_ref *regions;      /* start -> goal */
    uint32_t region_count;
    const op_region_portal *portals;   /* portals[i] leads regions[i] -> regions[i + 1] */
    uint32_t portal_count;
    const op_chunk_key *chunks;        /* corridor: first occurrence on the route */
    uint32_t chunk_count;
    op_box3 bounds;                    /* corridor chunks' box clipped to the world */
} op_coarse_path_result;

/* coarse_path (§10.8, §10.10); Indeterminate as for op_reachable, with empty lists and
 * the zero box (no partial corridor). */
op_status op_coarse_path(op_ctx *ctx, const op_region_graph *g, const op_path_request *req,
                         op_region_graph_scratch *s, op_coarse_path_result *out);

typedef enum op_precheck_status {
    OP_PRECHECK_REACHABLE = 0,
    OP_PRECHECK_UNREACHABLE = 1, /* the only status that rules out a path */
    OP_PRECHECK_MISSING_CHUNK = 2,
    OP_PRECHECK_INVALID_START = 3,
    OP_PRECHECK_INVALID_GOAL = 4,
    OP_PRECHECK_GRAPH_STALE = 5,
    OP_PRECHECK_NO_GRAPH = 6
} op_precheck_status;

const char *op_precheck_status_name(op_precheck_status s);

typedef enum op_missing_chunk_policy {
    OP_MISSING_REPORT_INDETERMINATE = 0,
    OP_MISSING_ASSUME_IMPASSABLE = 1
} op_missing_chunk_policy;

/* precheck_path (§10.12): NoGraph for a graph never built; GraphStale when it is not
 * fresh for this class (shape, class stamp, versions, residency) or was built with
 * another provider (provider NULL = AdjacentTransitions); else reachable's verdict, with
 * Indeterminate as MissingChunk, or under AssumeImpassable: a non-resident start
 * InvalidStart, goal InvalidGoal, else Unreachable. */
op_status op_precheck_path(op_ctx *ctx, const op_region_graph *g, const op_world *world,
                           const op_movement_class *c, const op_transition_provider *provider,
                           const op_path_request *req, op_region_graph_scratch *s,
                           op_missing_chunk_policy policy, op_precheck_status *out);
/* precheck_rules_out_path: 1 only for OP_PRECHECK_UNREACHABLE. */
int op_precheck_rules_out_path(op_precheck_status s);

#ifdef __cplusplus
}
#endif
#endif
