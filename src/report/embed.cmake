# embed.cmake -- turns a text asset (report.js, report.css) into a C file
# holding it as a NUL-terminated char array, so the HTML report needs no
# files at run time. Included by CMakeLists.txt with IN, OUT and NAME set
# (or: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by embed.cmake: do not edit */\n#include <stddef.h>\nconst char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
