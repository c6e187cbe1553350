# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE_DIR=.. -DPROJECT_VERSION=.. -DTEMPLATE=.. -DOUTPUT=.. [-DGIT_EXECUTABLE=..] -P WriteVersion.cmake
# Writes OUTPUT from TEMPLATE with the source tree's `git describe`; configure_file leaves an unchanged file
# untouched, so nothing recompiles while the revision stays the same.
set(ATTNSCOPE_GIT_REVISION "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE _rev
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(ATTNSCOPE_GIT_REVISION "${_rev}")
  endif()
endif()
set(CMAKE_SOURCE_DIR ${SOURCE_DIR})
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
