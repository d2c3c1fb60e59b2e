# Cross build for AArch64 Linux with Debian's aarch64-linux-gnu-gcc; the tests run under
# qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR, so `ctest` works unchanged
# (ci/cross-aarch64.sh). Libraries come from Debian multiarch (/usr/lib/aarch64-linux-gnu,
# ci/setup-cross.sh); headers from the cross sysroot first.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Architecture-independent headers that Debian installs only under /usr/include (SIMDe,
# cmocka.h, xxhash.h) are found after the cross sysroot's own headers: -idirafter never
# lets an x86 glibc header shadow the AArch64 one, and x86-specific headers live under
# /usr/include/x86_64-linux-gnu, which is not searched.
set(CMAKE_C_FLAGS_INIT "-idirafter /usr/include")
set(CMAKE_CXX_FLAGS_INIT "-idirafter /usr/include")

# qemu finds the AArch64 loader and libc of libc6:arm64 (multiarch) at /lib; where only
# the cross libc is present, point it at the cross sysroot instead.
if(EXISTS /lib/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
endif()

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config must describe the arm64 packages, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
