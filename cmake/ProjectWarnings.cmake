# SPDX-License-Identifier: Apache-2.0
# Warnings on (and errors, by default) for project code only; third-party headers come in as SYSTEM.
function(attnscope_target_warnings target)
  set(cxx_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
                -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
  if(ATTNSCOPE_WERROR)
    list(APPEND cxx_flags -Werror)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>)
  # nvcc: warnings from device code as errors too, host-side flags passed through.
  set(cuda_flags -Xcompiler=-Wall,-Wextra --Werror=all-warnings)
  if(NOT ATTNSCOPE_WERROR)
    set(cuda_flags -Xcompiler=-Wall,-Wextra)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${cuda_flags}>)
  if(ATTNSCOPE_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
