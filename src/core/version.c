/* op_version: the version compiled into the library (onepath/version.h, generated from
 * CMake's project() version). */
#include "onepath/common.h"

const char *op_version(void)
{
    return ONEPATH_VERSION_STRING;
}
