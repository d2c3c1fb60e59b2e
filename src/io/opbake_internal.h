/* OPBAKE1's layout constants, shared by the writer and the reader (docs/formats.md). */
#ifndef ONEPATH_IO_OPBAKE_INTERNAL_H
#define ONEPATH_IO_OPBAKE_INTERNAL_H

#include <stdint.h>

#define OPBAKE_MAGIC "OPBAKE1" /* 8 bytes with its NUL */
#define OPBAKE_HEADER_SIZE 16u
#define SECTION_HEAD 16u /* u32 tag, u32 0, u64 length */
#define SECTION_TAIL 8u  /* u64 checksum */
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TAG_WRLD TAG('W', 'R', 'L', 'D')
#define TAG_TILE TAG('T', 'I', 'L', 'E')
#define TAG_ENDS TAG('E', 'N', 'D', 'S')
#define WRLD_SIZE 88u
/* Fixed part of a TILE payload, and of one contour with its vertex count. */
#define TILE_FIXED 80u
#define CONTOUR_FIXED 17u
#define VERT_SIZE 16u
#define ENDS_SIZE 12u


#endif
