# SIMD kernel variants (issue 5; style.md "mirrored files, suffixed symbols").
# Every src/simd/*.c is compiled once per variant, as an OBJECT library with that ISA's
# flags and -DOP_ISA_SUFFIX=<suffix> (entry points and the table are suffixed, all else
# static), and linked into `onepath`; onepath gets OP_HAVE_ISA_<NAME>=1 per variant so
# src/core/kernel_tables.c knows which tables exist. The rest of the library builds for
# the baseline CPU; run-time dispatch (src/core/isa.c) picks a table the CPU can run.
file(GLOB OP_SIMD_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/simd/*.c)
find_path(OP_SIMDE_INCLUDE_DIR simde/x86/sse2.h)
if(NOT OP_SIMD_SOURCES)
  return()
endif()
if(NOT OP_SIMDE_INCLUDE_DIR OR NOT EXISTS "${OP_SIMDE_INCLUDE_DIR}/simde/x86/sse2.h")
  # A build that silently lost its SIMD variants would still pass every test (issue 10).
  message(FATAL_ERROR "SIMDe not found (simde/x86/sse2.h): install libsimde-dev "
                      "(bash ci/setup.sh), point OP_SIMDE_INCLUDE_DIR at it, or configure "
                      "with -DOP_SIMD=OFF for the scalar kernels only")
endif()

string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _op_cpu)
if(_op_cpu MATCHES "^(x86_64|amd64|x64)$")
  set(OP_SIMD_VARIANTS sse2 sse41 avx2 avx512 portable)
elseif(_op_cpu MATCHES "^(aarch64|arm64)$")
  set(OP_SIMD_VARIANTS neon portable)
else()
  set(OP_SIMD_VARIANTS portable)
endif()

# Per variant: compile flags, enum name, vector width (src/simd/simd_width.h).
set(OP_SIMD_FLAGS_sse2 -msse2)
set(OP_SIMD_FLAGS_sse41 -msse4.1)
set(OP_SIMD_FLAGS_avx2 -mavx2 -mbmi -mbmi2 -mpopcnt)
set(OP_SIMD_FLAGS_avx512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mbmi2)
set(OP_SIMD_FLAGS_neon "")          # NEON is baseline on AArch64; SIMDe maps to it
set(OP_SIMD_FLAGS_portable "")
set(OP_SIMD_DEFS_portable SIMDE_NO_NATIVE)
set(OP_SIMD_BITS_sse2 128)
set(OP_SIMD_BITS_sse41 128)
set(OP_SIMD_BITS_avx2 256)
set(OP_SIMD_BITS_avx512 512)
set(OP_SIMD_BITS_neon 128)
set(OP_SIMD_BITS_portable 128)

foreach(v ${OP_SIMD_VARIANTS})
  string(TOUPPER ${v} V)
  add_library(onepath_simd_${v} OBJECT ${OP_SIMD_SOURCES})
  target_include_directories(onepath_simd_${v} PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include ${PROJECT_SOURCE_DIR}/src
    ${OP_SIMDE_INCLUDE_DIR})
  target_compile_options(onepath_simd_${v} PRIVATE ${OP_SIMD_FLAGS_${v}})
  target_compile_definitions(onepath_simd_${v} PRIVATE
    OP_ISA_SUFFIX=${v} OP_ISA_ID=OP_ISA_${V} OP_VEC_BITS=${OP_SIMD_BITS_${v}}
    ${OP_SIMD_DEFS_${v}})
  target_sources(onepath PRIVATE $<TARGET_OBJECTS:onepath_simd_${v}>)
  target_compile_definitions(onepath PRIVATE OP_HAVE_ISA_${V}=1)
endforeach()
message(STATUS "onepath SIMD variants: ${OP_SIMD_VARIANTS}")
