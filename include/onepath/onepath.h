/* onepath — umbrella header. */
#ifndef ONEPATH_H
#define ONEPATH_H
#include "onepath/common.h"
#include "onepath/config.h"
#include "onepath/geometry.h"
#include "onepath/chf.h"
#endif
