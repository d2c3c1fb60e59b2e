# Shared-library build (BUILD_SHARED_LIBS=ON; docs/decisions/package.md "Shared library").
# - Only op_ symbols are exported: a linker version script (cmake/onepath.map), so no
#   public header needs an export macro. Internal op_ functions stay visible, which the
#   tool and the tests (linked against this same library) need.
# - SONAME libonepath.so.<MAJOR>.<MINOR> while MAJOR is 0 (any 0.x minor release may
#   break the ABI), libonepath.so.<MAJOR> from 1.0 on.
# - --no-undefined: every library the code needs is on the link line (libm, OpenMP, PNG).
get_target_property(_op_type onepath TYPE)
if(NOT _op_type STREQUAL "SHARED_LIBRARY")
  return()
endif()

if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_op_soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(_op_soversion ${PROJECT_VERSION_MAJOR})
endif()
set_target_properties(onepath PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${_op_soversion})

if(NOT (APPLE OR WIN32))
  set(_op_map ${PROJECT_SOURCE_DIR}/cmake/onepath.map)
  target_link_options(onepath PRIVATE "LINKER:--version-script=${_op_map}")
  set_property(TARGET onepath APPEND PROPERTY LINK_DEPENDS ${_op_map})
  if(NOT OP_SANITIZE)
    # Sanitizer runtimes are resolved at load time, from the executable.
    target_link_options(onepath PRIVATE "LINKER:--no-undefined")
  endif()
endif()
