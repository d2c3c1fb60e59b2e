# Given to the baseline tree's configure as -DCMAKE_PROJECT_INCLUDE=<this file>
# (bench/compare.py): at the end of its top-level CMakeLists.txt, when its `onepath`
# target exists, add onepath_compare_bench from this (current) tree's bench/compare.
# (A deferred call's arguments are expanded when it runs, so the path is written in now.)
cmake_language(EVAL CODE
  "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL include \"${CMAKE_CURRENT_LIST_DIR}/compare.cmake\")")
