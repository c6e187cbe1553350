# SPDX-License-Identifier: Apache-2.0
# The git revision the build came from, for `attnscope --version` and report provenance.
find_package(Git QUIET)
set(ATTNSCOPE_GIT_REVISION "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE _rev
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(ATTNSCOPE_GIT_REVISION "${_rev}")
  endif()
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${CMAKE_BINARY_DIR}/generated/attnscope/version.hpp @ONLY)
add_library(attnscope_version INTERFACE)
target_include_directories(attnscope_version INTERFACE ${CMAKE_BINARY_DIR}/generated)
