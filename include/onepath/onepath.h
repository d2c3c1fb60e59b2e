/* onepath — umbrella header. */
#ifndef ONEPATH_H
#define ONEPATH_H
#include "onepath/common.h"
#include "onepath/config.h"
#include "onepath/geometry.h"
#include "onepath/chf.h"
#include "onepath/contours.h"
#include "onepath/demo.h"
#include "onepath/regions.h"
#include "onepath/spans.h"
#include "onepath/file.h"
#include "onepath/obj.h"
#include "onepath/heightmap.h"
#include "onepath/opchf.h"
#include "onepath/dumps.h"
#include "onepath/digest.h"
#include "onepath/bake.h"
#include "onepath/topology.h"
#include "onepath/tiles.h"
#include "onepath/opbake.h"
#include "onepath/shard.h"
#include "onepath/tilecache.h"
#endif
