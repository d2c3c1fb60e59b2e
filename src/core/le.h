/* Little-endian stores and loads: the byte order of every file format and digest stream
 * (supplement §4, §5), written byte by byte so any host produces the same bytes. */
#ifndef ONEPATH_CORE_LE_H
#define ONEPATH_CORE_LE_H

#include <stdint.h>
#include <string.h>

static inline void op_le_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void op_le_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void op_le_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    op_le_put32(p, u);
}

static inline uint16_t op_le_get16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t op_le_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline float op_le_get_f32(const unsigned char *p)
{
    const uint32_t u = op_le_get32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

#endif
