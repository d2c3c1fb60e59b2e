/* Internal parts of the spans stage shared by its files (not installed). */
#ifndef ONEPATH_SPANS_INTERNAL_H
#define ONEPATH_SPANS_INTERNAL_H

#include "onepath/spans.h"

/* Span indices are u32. */
#define OP_HF_MAX_SPANS 0xfffffffeu

/* Grows the three span arrays to hold at least `need` slots (1.5x growth); 0 when that
 * is impossible (the field stays valid). */
int op_hf_spans_reserve(op_heightfield *hf, uint64_t need);
/* Frees the span arrays only (the columns stay, to be refilled). */
void op_hf_spans_free(op_heightfield *hf);
/* Moves the columns into cell order without gaps (after op_heightfield_add_span moved
 * some); no-op when hf->packed. */
op_status op_hf_pack(op_ctx *ctx, op_heightfield *hf);

#endif
