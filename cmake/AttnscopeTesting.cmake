# SPDX-License-Identifier: Apache-2.0
# Test helpers. GPU tests carry the label `gpu`; when no CUDA device is present (or the build has no CUDA)
# they exit with 77, which CTest reports as *skipped*, not passed.
include(GoogleTest)
set(ATTNSCOPE_SKIP_CODE 77)

# attnscope_add_test(NAME name SOURCES ... LIBS ... [LABELS ...])
function(attnscope_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE ATTNSCOPE_DATA_DIR="${ATTNSCOPE_DATA_DIR}"
                                               ATTNSCOPE_GPU_SPEC_DIR="${ATTNSCOPE_GPU_SPEC_DIR}")
  attnscope_target_warnings(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
endfunction()

# attnscope_add_gpu_test(NAME name SOURCES ... LIBS ...): the test's main must call
# attnscope::testing::require_cuda_device() (tests/gpu_main.cpp does) which exits 77 with a message when
# there is no device. Without CUDA in the build, a placeholder reports the test as skipped.
function(attnscope_add_gpu_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(ATTNSCOPE_HAVE_CUDA)
    add_executable(${T_NAME} ${T_SOURCES} ${PROJECT_SOURCE_DIR}/tests/gpu_main.cpp)
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} CUDA::cudart GTest::gtest GTest::gmock)
    target_compile_definitions(${T_NAME} PRIVATE ATTNSCOPE_DATA_DIR="${ATTNSCOPE_DATA_DIR}"
                                                 ATTNSCOPE_GPU_SPEC_DIR="${ATTNSCOPE_GPU_SPEC_DIR}")
    attnscope_target_warnings(${T_NAME})
    add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  else()
    add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: ${T_NAME} needs a CUDA build (nvcc not found or ATTNSCOPE_ENABLE_CUDA=OFF)")
    set_tests_properties(${T_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION "^$" SKIP_REGULAR_EXPRESSION "SKIPPED")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS gpu SKIP_RETURN_CODE ${ATTNSCOPE_SKIP_CODE})
endfunction()
