# install(): the library, its public headers (with the generated onepath/version.h), the
# tool, the CMake package (onepath::onepath) and onepath.pc. Included by the top-level
# CMakeLists.txt when OP_INSTALL is on (the default for a top-level build).
include(CMakePackageConfigHelpers)
set(OP_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onepath)
get_target_property(_op_type onepath TYPE)
if(_op_type STREQUAL "SHARED_LIBRARY")
  set(OP_PKG_SHARED 1)
else()
  set(OP_PKG_SHARED 0)
endif()
if(OP_PNG)
  set(OP_PKG_PNG 1)
else()
  set(OP_PKG_PNG 0)
endif()
# zstd through its CMake package: the consumer's config finds it again.
if(OP_ZSTD_LINK MATCHES "^zstd::")
  set(OP_PKG_ZSTD_PACKAGE 1)
else()
  set(OP_PKG_ZSTD_PACKAGE 0)
endif()

install(TARGETS onepath EXPORT onepathTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/onepath
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/onepath/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onepath)
if(OP_TOOLS)
  install(TARGETS onepath_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
              ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# CMake package: relocatable (paths relative to the installed config file).
install(EXPORT onepathTargets NAMESPACE onepath:: DESTINATION ${OP_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/onepathConfig.cmake.in
  ${PROJECT_BINARY_DIR}/onepathConfig.cmake INSTALL_DESTINATION ${OP_CMAKE_INSTALL_DIR})
# 0.x: a minor release may change the API, so only the same MAJOR.MINOR is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/onepathConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/onepathConfig.cmake
              ${PROJECT_BINARY_DIR}/onepathConfigVersion.cmake
        DESTINATION ${OP_CMAKE_INSTALL_DIR})

# onepath.pc, relocatable too: prefix from ${pcfiledir}, so `cmake --install --prefix P`
# gives a file that is right under P. The .private fields are what a static link adds
# (pkg-config --static); a shared library carries its own dependencies.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(OP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(OP_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _op_up "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
  string(REGEX REPLACE "/$" "" _op_up "${_op_up}")
  set(OP_PC_PREFIX "\${pcfiledir}/${_op_up}")
  set(OP_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(OP_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(OP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(OP_PC_REQUIRES_PRIVATE "")
set(OP_PC_LIBS_PRIVATE "")
if(NOT OP_PKG_SHARED)
  if(OP_PKG_PNG)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(OP_PC_LIBPNG QUIET libpng)
    endif()
    if(OP_PC_LIBPNG_FOUND)
      set(OP_PC_REQUIRES_PRIVATE "libpng")
    else()
      string(APPEND OP_PC_LIBS_PRIVATE " -lpng -lz")
    endif()
  endif()
  if(OP_WITH_ZSTD)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(OP_PC_LIBZSTD QUIET libzstd)
    endif()
    if(OP_PC_LIBZSTD_FOUND)
      string(APPEND OP_PC_REQUIRES_PRIVATE " libzstd")
    else()
      string(APPEND OP_PC_LIBS_PRIVATE " -lzstd")
    endif()
  endif()
  if(OP_WITH_OPENMP)
    string(APPEND OP_PC_LIBS_PRIVATE " ${OpenMP_C_FLAGS}")
  endif()
  string(APPEND OP_PC_LIBS_PRIVATE " -lm")
  string(STRIP "${OP_PC_LIBS_PRIVATE}" OP_PC_LIBS_PRIVATE)
  string(STRIP "${OP_PC_REQUIRES_PRIVATE}" OP_PC_REQUIRES_PRIVATE)
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/onepath.pc.in ${PROJECT_BINARY_DIR}/onepath.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/onepath.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
