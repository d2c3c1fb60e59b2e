/* A minimal SVG writer for pictures seen from above (supplement §4, "Human output").
 * Output goes through fprintf; the caller checks the stream. */
#include "svg.h"
#include "json.h" /* numbers as the shortest text, whatever the locale */

void op_svg_begin(FILE *f, uint32_t width, uint32_t height, double scale)
{
    char w[OP_JSON_NUMBER_MAX], h[OP_JSON_NUMBER_MAX];
    op_json_format_double(w, width * scale);
    op_json_format_double(h, height * scale);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
            "viewBox=\"0 0 %u %u\" shape-rendering=\"crispEdges\">\n"
            "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#000000\"/>\n",
            w, h, width, height, width, height);
}

void op_svg_rect(FILE *f, int64_t x, int64_t z, int64_t w, int64_t h, const uint8_t rgb[3])
{
    fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"%lld\" height=\"%lld\" fill=\"#%02x%02x%02x\"/>\n",
            (long long)x, (long long)z, (long long)w, (long long)h, rgb[0], rgb[1], rgb[2]);
}

void op_svg_polygon(FILE *f, const int32_t *xz, size_t n, const uint8_t fill[3],
                    const uint8_t stroke[3], double stroke_width)
{
    fputs("<polygon points=\"", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%d,%d", i ? " " : "", xz[2 * i], xz[2 * i + 1]);
    fputs("\"", f);
    if (fill)
        fprintf(f, " fill=\"#%02x%02x%02x\"", fill[0], fill[1], fill[2]);
    else
        fputs(" fill=\"none\"", f);
    if (stroke) {
        char sw[OP_JSON_NUMBER_MAX];
        op_json_format_double(sw, stroke_width);
        fprintf(f, " stroke=\"#%02x%02x%02x\" stroke-width=\"%s\"", stroke[0], stroke[1],
                stroke[2], sw);
    }
    fputs("/>\n", f);
}

void op_svg_end(FILE *f) { fputs("</svg>\n", f); }
