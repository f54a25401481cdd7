# Writes OUT: a C++ file that holds every file under DIR (*.cu, *.cuh) as a string, for the
# benchmark's NVRTC compiles (reference_sources.h). Run by CMake at build time.
file(GLOB files RELATIVE ${DIR} ${DIR}/*.cu ${DIR}/*.cuh)
list(SORT files)
set(body "// Generated from device/reference by embed.cmake.\n#include \"device/bench/reference_sources.h\"\n\nnamespace tmasim::device {\n\nconst std::vector<ReferenceSource>& reference_sources() {\n    static const std::vector<ReferenceSource> all = {\n")
foreach(f ${files})
  file(READ ${DIR}/${f} text)
  string(APPEND body "        {\"${f}\", R\"tmasimref(${text})tmasimref\"},\n")
endforeach()
string(APPEND body "    };\n    return all;\n}\n\n}  // namespace tmasim::device\n")
file(WRITE ${OUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
