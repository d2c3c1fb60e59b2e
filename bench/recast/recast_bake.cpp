// recast_bake: one bake of an OBJ mesh by Recast's pipeline, timed per stage, with the
// peak of Recast's live allocations, printed as JSON (bench/recast/run.py reads it).
//
// Our own driver, built against a Recast checkout the user gives (bench/recast/run.py
// --recast-src DIR); no Recast code lives in this repository. The stages and settings are
// the ones onepath's bake runs (docs/decisions/bench.md, "Side by side with Recast"):
//   rasterize  rcMarkWalkableTriangles + rcCreateHeightfield + rcRasterizeTriangles
//   filters    rcFilterLowHangingWalkableObstacles, rcFilterLedgeSpans,
//              rcFilterWalkableLowHeightSpans (supplement §1.4's order)
//   compact    rcBuildCompactHeightfield + freeing the solid heightfield
//   erode      rcErodeWalkableArea
//   distance   rcBuildDistanceField (watershed only)
//   regions    rcBuildRegions | rcBuildRegionsMonotone | rcBuildLayerRegions
//   contours   rcBuildContours (RC_CONTOUR_TESS_WALL_EDGES: onepath's straight borders)
// One bake per process; CLOCK_MONOTONIC around each call.
#include "Recast.h"
#include "RecastAlloc.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

// ---- Counting allocator (rcAllocSetCustom): live bytes and their peak ------------------
// Each block carries its requested size in a 16-byte header (keeps malloc's alignment).
static size_t g_live, g_peak;
static size_t g_stage_peak; // the peak since the current stage began (reset per stage)

static void *count_alloc(size_t size, rcAllocHint)
{
    unsigned char *p = static_cast<unsigned char *>(std::malloc(size + 16));
    if (!p)
        return nullptr;
    std::memcpy(p, &size, sizeof size);
    g_live += size;
    if (g_live > g_peak)
        g_peak = g_live;
    if (g_live > g_stage_peak)
        g_stage_peak = g_live;
    return p + 16;
}

static void count_free(void *ptr)
{
    if (!ptr)
        return;
    unsigned char *p = static_cast<unsigned char *>(ptr) - 16;
    size_t size;
    std::memcpy(&size, p, sizeof size);
    g_live -= size;
    std::free(p);
}

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

// Recast's warnings and errors on stderr; progress messages dropped.
class Context : public rcContext
{
public:
    Context() : rcContext(true) { enableTimer(false); }

protected:
    void doLog(const rcLogCategory category, const char *msg, const int len) override
    {
        if (category != RC_LOG_PROGRESS)
            std::fprintf(stderr, "recast: %.*s\n", len, msg);
    }
};

// ---- OBJ: v and f (fan-triangulated; v/vt/vn and negative indices), as onepath reads it
struct Mesh {
    std::vector<float> verts;
    std::vector<int> tris;
};

static bool load_obj(const char *path, Mesh &m)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "%s: %s\n", path, std::strerror(errno));
        return false;
    }
    char line[4096];
    int lineno = 0;
    std::vector<int> face;
    while (std::fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            char *e = const_cast<char *>(p + 1);
            for (int k = 0; k < 3; k++) {
                const char *s = e;
                const float v = std::strtof(s, &e);  // strtof: the binary32 onepath reads
                if (e == s) {
                    std::fprintf(stderr, "%s:%d: bad vertex\n", path, lineno);
                    std::fclose(f);
                    return false;
                }
                m.verts.push_back(v);
            }
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            face.clear();
            char *e = const_cast<char *>(p + 1);
            for (;;) {
                while (*e == ' ' || *e == '\t')
                    e++;
                if (*e == 0 || *e == '\n' || *e == '\r')
                    break;
                const char *s = e;
                long idx = std::strtol(s, &e, 10);
                if (e == s) {
                    std::fprintf(stderr, "%s:%d: bad face\n", path, lineno);
                    std::fclose(f);
                    return false;
                }
                while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')
                    e++;  // skip /vt/vn
                const long nv = (long)(m.verts.size() / 3);
                idx = idx < 0 ? nv + idx : idx - 1;
                if (idx < 0 || idx >= nv) {
                    std::fprintf(stderr, "%s:%d: index out of range\n", path, lineno);
                    std::fclose(f);
                    return false;
                }
                face.push_back((int)idx);
            }
            for (size_t k = 2; k < face.size(); k++) {
                m.tris.push_back(face[0]);
                m.tris.push_back(face[k - 1]);
                m.tris.push_back(face[k]);
            }
        }
    }
    std::fclose(f);
    return true;
}

// ---- OPCHF1 (supplement §4) of Recast's compact field, for run.py --check -------------
static void put_u32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    std::fwrite(b, 1, 4, f);
}
static void put_f32(FILE *f, float v)
{
    uint32_t u;
    std::memcpy(&u, &v, 4);
    put_u32(f, u);
}

static bool write_opchf(const rcCompactHeightfield &chf, const char *path)
{
    FILE *f = std::fopen(path, "wb");
    if (!f)
        return false;
    std::fwrite("OPCHF1\0\0", 1, 8, f);
    put_u32(f, (uint32_t)chf.width);
    put_u32(f, (uint32_t)chf.height);
    put_u32(f, (uint32_t)chf.spanCount);
    for (int i = 0; i < 3; i++)
        put_f32(f, chf.bmin[i]);
    for (int i = 0; i < 3; i++)
        put_f32(f, chf.bmax[i]);
    put_f32(f, chf.cs);
    put_f32(f, chf.ch);
    put_u32(f, (uint32_t)chf.walkableHeight);
    put_u32(f, (uint32_t)chf.walkableClimb);
    put_u32(f, (uint32_t)chf.borderSize);
    for (int c = 0; c < chf.width * chf.height; c++) {
        const rcCompactCell &cell = chf.cells[c];
        put_u32(f, cell.count ? (uint32_t)cell.index : 0u);
        put_u32(f, (uint32_t)cell.count);
    }
    for (int i = 0; i < chf.spanCount; i++) {
        const rcCompactSpan &s = chf.spans[i];
        unsigned char b[10];
        b[0] = (unsigned char)s.y;
        b[1] = (unsigned char)(s.y >> 8);
        b[2] = (unsigned char)s.h;
        b[3] = 0;
        b[4] = chf.areas[i];
        b[5] = 0;
        for (int d = 0; d < 4; d++) {
            const int con = rcGetCon(s, d);
            b[6 + d] = (unsigned char)(con == RC_NOT_CONNECTED ? -1 : con);
        }
        std::fwrite(b, 1, 10, f);
    }
    return std::fclose(f) == 0;
}

// ---- Settings ----------------------------------------------------------------------
struct Settings {
    float cs = 0.3f, ch = 0.2f, slope = 45.0f;
    int walkable_height = 10, walkable_climb = 4, walkable_radius = 2;
    int border = 0;
    std::string partition = "watershed";
    int min_region_area = 64, merge_region_area = 400;
    float max_error = 1.3f;
    int max_edge_len = 12;
    bool has_bounds = false;
    float bmin[3], bmax[3];
    const char *out_chf = nullptr;
    const char *obj = nullptr;
};

static const char usage[] =
    "usage: recast_bake MESH.obj [options]\n"
    "One bake of MESH by Recast (rasterize, filters, compact, erode, [distance], regions,\n"
    "contours), per-stage ms and the peak of Recast's live allocations as JSON on stdout.\n"
    "Defaults are onepath's (supplement §1.1, regions-contours §7).\n"
    "  --cs F --ch F --slope DEG            cell size/height [wu], walkable slope (0.3 0.2 45)\n"
    "  --walkable-height N --walkable-climb N --walkable-radius N   [cells] (10 4 2)\n"
    "  --partition watershed|monotone|layers (watershed)\n"
    "  --min-region-area N --merge-region-area N   [spans] (64 400)\n"
    "  --max-error F --max-edge-len N       contours [cells] (1.3 12)\n"
    "  --border N                           borderSize [cells] (0: a solo bake)\n"
    "  --bmin X,Y,Z --bmax X,Y,Z            grid box (default: the mesh's bounds); the grid\n"
    "                                       is ceil(extent/cs), onepath's rule\n"
    "  --out-chf FILE                       the eroded compact field as OPCHF1\n";

static bool parse_vec(const char *s, float v[3])
{
    return std::sscanf(s, "%f,%f,%f", &v[0], &v[1], &v[2]) == 3;
}

static bool parse_args(int argc, char **argv, Settings &st)
{
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            std::exit(0);
        }
        if (a.rfind("--", 0) != 0) {
            st.obj = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s needs a value\n", a.c_str());
            return false;
        }
        const char *v = argv[++i];
        if (a == "--cs") st.cs = std::strtof(v, nullptr);
        else if (a == "--ch") st.ch = std::strtof(v, nullptr);
        else if (a == "--slope") st.slope = std::strtof(v, nullptr);
        else if (a == "--walkable-height") st.walkable_height = std::atoi(v);
        else if (a == "--walkable-climb") st.walkable_climb = std::atoi(v);
        else if (a == "--walkable-radius") st.walkable_radius = std::atoi(v);
        else if (a == "--border") st.border = std::atoi(v);
        else if (a == "--partition") st.partition = v;
        else if (a == "--min-region-area") st.min_region_area = std::atoi(v);
        else if (a == "--merge-region-area") st.merge_region_area = std::atoi(v);
        else if (a == "--max-error") st.max_error = std::strtof(v, nullptr);
        else if (a == "--max-edge-len") st.max_edge_len = std::atoi(v);
        else if (a == "--out-chf") st.out_chf = v;
        else if (a == "--bmin") {
            if (!parse_vec(v, st.bmin)) return false;
            st.has_bounds = true;
        } else if (a == "--bmax") {
            if (!parse_vec(v, st.bmax)) return false;
            st.has_bounds = true;
        } else {
            std::fprintf(stderr, "unknown option %s\n%s", a.c_str(), usage);
            return false;
        }
    }
    if (!st.obj) {
        std::fputs(usage, stderr);
        return false;
    }
    if (st.partition != "watershed" && st.partition != "monotone" && st.partition != "layers") {
        std::fprintf(stderr, "--partition: watershed|monotone|layers\n");
        return false;
    }
    return true;
}

static int fail(const char *what)
{
    std::fprintf(stderr, "recast_bake: %s failed\n", what);
    return 4;
}

int main(int argc, char **argv)
{
    Settings st;
    if (!parse_args(argc, argv, st))
        return 2;
    Mesh mesh;
    if (!load_obj(st.obj, mesh))
        return 3;
    const int nverts = (int)(mesh.verts.size() / 3), ntris = (int)(mesh.tris.size() / 3);
    if (!st.has_bounds)
        rcCalcBounds(mesh.verts.data(), nverts, st.bmin, st.bmax);
    // onepath's grid (supplement §1.1: ceil in binary32), not rcCalcGridSize's rounding,
    // so both bake the same columns.
    const int width = (int)std::ceil((double)((st.bmax[0] - st.bmin[0]) / st.cs));
    const int depth = (int)std::ceil((double)((st.bmax[2] - st.bmin[2]) / st.cs));

    rcAllocSetCustom(count_alloc, count_free);
    Context ctx;
    double ms[8] = {0};
    size_t peak_in[8] = {0}; // live bytes' peak within each stage
    enum { RAST, FILT, COMP, ERODE, DIST, REG, CONT };

    // rasterize (the triangle areas through rcAlloc: onepath's bake allocates them too)
    g_stage_peak = g_live;
    double t = now_ms();
    unsigned char *tri_areas = static_cast<unsigned char *>(rcAlloc((size_t)ntris, RC_ALLOC_TEMP));
    if (!tri_areas)
        return fail("allocation");
    std::memset(tri_areas, 0, (size_t)ntris);
    rcMarkWalkableTriangles(&ctx, st.slope, mesh.verts.data(), nverts, mesh.tris.data(), ntris,
                            tri_areas);
    rcHeightfield *solid = rcAllocHeightfield();
    if (!solid || !rcCreateHeightfield(&ctx, *solid, width, depth, st.bmin, st.bmax, st.cs, st.ch))
        return fail("rcCreateHeightfield");
    if (!rcRasterizeTriangles(&ctx, mesh.verts.data(), nverts, mesh.tris.data(), tri_areas, ntris,
                              *solid, st.walkable_climb))
        return fail("rcRasterizeTriangles");
    rcFree(tri_areas);
    ms[RAST] = now_ms() - t;
    peak_in[RAST] = g_stage_peak;
    long long solid_all = 0; // outside the timings
    for (int c = 0; c < width * depth; c++)
        for (const rcSpan *s = solid->spans[c]; s; s = s->next)
            solid_all++;

    g_stage_peak = g_live;
    t = now_ms();
    rcFilterLowHangingWalkableObstacles(&ctx, st.walkable_climb, *solid);
    rcFilterLedgeSpans(&ctx, st.walkable_height, st.walkable_climb, *solid);
    rcFilterWalkableLowHeightSpans(&ctx, st.walkable_height, *solid);
    ms[FILT] = now_ms() - t;
    peak_in[FILT] = g_stage_peak;

    g_stage_peak = g_live;
    t = now_ms();
    rcCompactHeightfield *chf = rcAllocCompactHeightfield();
    if (!chf || !rcBuildCompactHeightfield(&ctx, st.walkable_height, st.walkable_climb, *solid, *chf))
        return fail("rcBuildCompactHeightfield");
    rcFreeHeightField(solid);
    ms[COMP] = now_ms() - t;
    peak_in[COMP] = g_stage_peak;

    g_stage_peak = g_live;
    t = now_ms();
    if (!rcErodeWalkableArea(&ctx, st.walkable_radius, *chf))
        return fail("rcErodeWalkableArea");
    ms[ERODE] = now_ms() - t;
    peak_in[ERODE] = g_stage_peak;
    long long walkable = 0;
    for (int i = 0; i < chf->spanCount; i++)
        walkable += chf->areas[i] != RC_NULL_AREA;
    if (st.out_chf && !write_opchf(*chf, st.out_chf))
        return fail("--out-chf");

    if (st.partition == "watershed") {
        g_stage_peak = g_live;
        t = now_ms();
        if (!rcBuildDistanceField(&ctx, *chf))
            return fail("rcBuildDistanceField");
        ms[DIST] = now_ms() - t;
        peak_in[DIST] = g_stage_peak;
        g_stage_peak = g_live;
        t = now_ms();
        if (!rcBuildRegions(&ctx, *chf, st.border, st.min_region_area, st.merge_region_area))
            return fail("rcBuildRegions");
        ms[REG] = now_ms() - t;
        peak_in[REG] = g_stage_peak;
    } else if (st.partition == "monotone") {
        g_stage_peak = g_live;
        t = now_ms();
        if (!rcBuildRegionsMonotone(&ctx, *chf, st.border, st.min_region_area,
                                    st.merge_region_area))
            return fail("rcBuildRegionsMonotone");
        ms[REG] = now_ms() - t;
        peak_in[REG] = g_stage_peak;
    } else {
        g_stage_peak = g_live;
        t = now_ms();
        if (!rcBuildLayerRegions(&ctx, *chf, st.border, st.min_region_area))
            return fail("rcBuildLayerRegions");
        ms[REG] = now_ms() - t;
        peak_in[REG] = g_stage_peak;
    }

    g_stage_peak = g_live;
    t = now_ms();
    rcContourSet *cset = rcAllocContourSet();
    if (!cset || !rcBuildContours(&ctx, *chf, st.max_error, st.max_edge_len, *cset,
                                  RC_CONTOUR_TESS_WALL_EDGES))
        return fail("rcBuildContours");
    ms[CONT] = now_ms() - t;
    peak_in[CONT] = g_stage_peak;
    // A hole merged into its outline stays in the set with no vertices: count outlines.
    long long contour_verts = 0;
    int outlines = 0;
    for (int i = 0; i < cset->nconts; i++) {
        contour_verts += cset->conts[i].nverts;
        outlines += cset->conts[i].nverts > 0;
    }

    // rcCompactCell::index has 24 bits and Recast does not check it: above 2^24 - 1 spans
    // the cells point at the wrong spans and every later stage reads a corrupt field.
    const bool index_wrapped = chf->spanCount > 0xffffff;
    if (index_wrapped)
        std::fprintf(stderr, "recast_bake: %d compact spans: rcCompactCell::index (24 bits) "
                             "wrapped; erosion, regions and contours are not valid\n",
                     chf->spanCount);
    const double spans_ms = ms[RAST] + ms[FILT] + ms[COMP] + ms[ERODE];
    const double bake_ms = spans_ms + ms[DIST] + ms[REG] + ms[CONT];
    std::printf("{\n  \"recast\": true,\n  \"input\": \"%s\",\n  \"partition\": \"%s\",\n",
                st.obj, st.partition.c_str());
    std::printf("  \"grid\": {\"width\": %d, \"depth\": %d, \"bmin\": [%.9g, %.9g, %.9g], "
                "\"bmax\": [%.9g, %.9g, %.9g]},\n",
                width, depth, st.bmin[0], st.bmin[1], st.bmin[2], st.bmax[0], st.bmax[1],
                st.bmax[2]);
    std::printf("  \"triangles\": %d,\n  \"cell_index_wrapped\": %s,\n", ntris,
                index_wrapped ? "true" : "false");
    std::printf("  \"spans\": {\"solid\": %lld, \"compact\": %d, \"walkable\": %lld},\n",
                solid_all, chf->spanCount, walkable);
    std::printf("  \"regions\": {\"count\": %d},\n", (int)chf->maxRegions);
    std::printf("  \"contours\": {\"count\": %d, \"holes_merged\": %d, \"vertices\": %lld},\n",
                outlines, cset->nconts - outlines, contour_verts);
    std::printf("  \"ms\": {\"rasterize\": %.3f, \"filters\": %.3f, \"compact\": %.3f, "
                "\"erode\": %.3f, \"spans\": %.3f, \"distance\": %.3f, \"regions\": %.3f, "
                "\"contours\": %.3f, \"bake\": %.3f},\n",
                ms[RAST], ms[FILT], ms[COMP], ms[ERODE], spans_ms, ms[DIST], ms[REG], ms[CONT],
                bake_ms);
    std::printf("  \"memory\": {\"peak_bytes\": %zu, \"end_bytes\": %zu, \"stage_peak_bytes\": "
                "{\"rasterize\": %zu, \"filters\": %zu, \"compact\": %zu, \"erode\": %zu, "
                "\"distance\": %zu, \"regions\": %zu, \"contours\": %zu}}\n}\n",
                g_peak, g_live, peak_in[RAST], peak_in[FILT], peak_in[COMP], peak_in[ERODE],
                peak_in[DIST], peak_in[REG], peak_in[CONT]);
    rcFreeContourSet(cset);
    rcFreeCompactHeightfield(chf);
    return 0;
}
