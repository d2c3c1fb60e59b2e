# bake --mpi (issue 14): the tool runs a tiled bake over the ranks of an MPI job. Only the
# tool links MPI (tools/mpi/); the library and its installed package never do.
# -DOP_MPI=ON needs an MPI with its C bindings (Debian: libopenmpi-dev, openmpi-bin).
if(NOT OP_MPI)
  return()
endif()
if(NOT OP_TOOLS)
  message(FATAL_ERROR "OP_MPI is the tool's bake --mpi: it needs OP_TOOLS=ON")
endif()
find_package(MPI REQUIRED COMPONENTS C)
find_package(Threads REQUIRED)
target_sources(onepath_cli PRIVATE ${PROJECT_SOURCE_DIR}/tools/mpi/bake_mpi.c)
target_link_libraries(onepath_cli PRIVATE MPI::MPI_C Threads::Threads)
target_compile_definitions(onepath_cli PRIVATE OP_HAVE_MPI=1)
if(OP_TESTS)
  # mpirun -n 1..4 against the one-process bake (tests/mpi/mpi_bake.sh). MPIEXEC_EXECUTABLE
  # comes from FindMPI.
  add_test(NAME mpi_bake
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/mpi/mpi_bake.sh $<TARGET_FILE:onepath_cli>
                   ${MPIEXEC_EXECUTABLE})
  set_tests_properties(mpi_bake PROPERTIES TIMEOUT 900 RUN_SERIAL TRUE)
endif()
