# SPDX-License-Identifier: Apache-2.0
# The git revision the build came from, for `attnscope --version` and report provenance. The header is
# written at configure time and again by every build (a target that always runs cmake/WriteVersion.cmake,
# which rewrites the file only when the revision changed): a binary built after a commit names that commit,
# not the one the build folder was configured at.
find_package(Git QUIET)
set(_attnscope_version_args -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DPROJECT_VERSION=${PROJECT_VERSION}
    -DTEMPLATE=${CMAKE_CURRENT_LIST_DIR}/version.hpp.in
    -DOUTPUT=${CMAKE_BINARY_DIR}/generated/attnscope/version.hpp -DGIT_EXECUTABLE=${GIT_EXECUTABLE})
execute_process(COMMAND ${CMAKE_COMMAND} ${_attnscope_version_args} -P ${CMAKE_CURRENT_LIST_DIR}/WriteVersion.cmake
                OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
file(STRINGS ${CMAKE_BINARY_DIR}/generated/attnscope/version.hpp _line REGEX "kGitRevision")
string(REGEX REPLACE ".*kGitRevision = \"([^\"]*)\".*" "\\1" ATTNSCOPE_GIT_REVISION "${_line}")
add_custom_target(attnscope_version_header
                  COMMAND ${CMAKE_COMMAND} ${_attnscope_version_args} -P ${CMAKE_CURRENT_LIST_DIR}/WriteVersion.cmake
                  BYPRODUCTS ${CMAKE_BINARY_DIR}/generated/attnscope/version.hpp
                  COMMENT "attnscope: git revision" VERBATIM)
add_library(attnscope_version INTERFACE)
add_dependencies(attnscope_version attnscope_version_header)
target_include_directories(attnscope_version INTERFACE ${CMAKE_BINARY_DIR}/generated)
