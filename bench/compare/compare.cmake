# onepath_compare_bench (bench/compare/stages.c over cases.c, heap.c): the per-stage
# cases that bench/compare.py times on two trees. Included by bench/CMakeLists.txt in the current
# tree, and deferred into the baseline's top-level directory by inject.cmake, so that
# both builds compile the same source with their own flags against their own library.
if(TARGET onepath_compare_bench)
  return()
endif()
find_package(benchmark REQUIRED)
set(_op_cmp_dir ${CMAKE_CURRENT_LIST_DIR})
add_executable(onepath_compare_bench ${_op_cmp_dir}/stages.c ${_op_cmp_dir}/cases.c
  ${_op_cmp_dir}/heap.c ${_op_cmp_dir}/../shim.cc)
target_include_directories(onepath_compare_bench PRIVATE ${_op_cmp_dir}/..)
# The shim's separate-translation-unit argument (shim.cc) needs LTO off.
set_target_properties(onepath_compare_bench PROPERTIES INTERPROCEDURAL_OPTIMIZATION OFF)
target_link_libraries(onepath_compare_bench PRIVATE onepath benchmark::benchmark m)
# Peak heap of a bake, counted the same way in both trees: the library's calls to the
# C allocator are wrapped at link time (possible with a static library only).
get_target_property(_op_cmp_type onepath TYPE)
if(_op_cmp_type STREQUAL "STATIC_LIBRARY")
  target_compile_definitions(onepath_compare_bench PRIVATE OP_COMPARE_WRAP=1)
  target_link_options(onepath_compare_bench PRIVATE
    LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
    LINKER:--wrap=aligned_alloc,--wrap=posix_memalign)
endif()
