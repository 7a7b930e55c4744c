# Embed the JavaScript runtime prelude (src/js/prelude/*.js, in the order
# given) into a C source file as one NUL-terminated byte array.
# Usage: cmake -DOUT=file.c -DINPUTS="a.js|b.js" -P embed_js.cmake
set(hex "")
string(REPLACE "|" ";" INPUTS "${INPUTS}")
foreach(f ${INPUTS})
  file(READ ${f} part HEX)
  string(APPEND hex "${part}0a")
endforeach()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* Generated from the files of src/js/prelude by cmake/embed_js.cmake. */\n#include <stddef.h>\nconst char js_prelude_text[] = {\n${body}0};\nconst size_t js_prelude_len = sizeof js_prelude_text - 1;\n")
