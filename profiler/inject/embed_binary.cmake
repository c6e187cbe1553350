# SPDX-License-Identifier: Apache-2.0
# cmake -DIN=file -DOUT=file.cpp -DNAME=symbol -P embed_binary.cmake: a C++ file defining
#   extern "C" const unsigned char NAME[];  extern "C" const std::size_t NAME_size;
# with the bytes of IN (the collector embeds its flush kernels' fatbin this way: no file to find at run time).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "// Generated from ${IN} by embed_binary.cmake: do not edit.\n#include <cstddef>\n"
     "extern \"C\" alignas(64) const unsigned char ${NAME}[] = {\n${bytes}};\n"
     "extern \"C\" const std::size_t ${NAME}_size = ${size};\n")
