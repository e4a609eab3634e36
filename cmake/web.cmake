# The WebAssembly build (ONNXTRIM_WEB, configured by scripts/web.sh with emcmake): the same
# library sources as the native build, with the platform seam's wasm side
# (src/support/platform/wasm.cc: no OpenBLAS, no threads, no huge pages or fallocate), linked
# into one emscripten module, onnxtrim-core.js + onnxtrim-core.wasm, that exports the C API
# (include/onnxtrim/onnxtrim.h). No CLI, tests, benchmarks or Python module.
#
# Dependencies, built for wasm by scripts/web.sh from Debian's source packages into
# ONNXTRIM_WEB_DEPS (lib/libprotobuf.a, lib/libre2.a and their headers). The ONNX classes are
# generated here by the host's protoc (3.21.12, the runtime's version) from python3-onnx's
# onnx-ml.proto and onnx-data.proto, with the options libonnx-dev's headers were generated with
# (full runtime, dllexport_decl=ONNX_API): the same headers byte for byte. libonnx itself (its
# ONNX text parser) has no source package in the archive: the web build parses binary models
# only (src/onnx_io/web/text.cc says so).
if(NOT ONNXTRIM_WEB_DEPS)
  message(FATAL_ERROR "ONNXTRIM_WEB needs -DONNXTRIM_WEB_DEPS=<prefix of the wasm libprotobuf and RE2> (scripts/web.sh)")
endif()
set(ONNXTRIM_ONNX_PROTO_DIR /usr/lib/python3/dist-packages/onnx CACHE PATH "Folder of onnx-ml.proto and onnx-data.proto")
set(ONNXTRIM_ONNX_HEADER_DIR /usr/include/onnx CACHE PATH "Folder of libonnx-dev's onnx_pb.h")
find_program(ONNXTRIM_PROTOC protoc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

# -- the ONNX protobuf classes
set(ONNXTRIM_GEN ${CMAKE_BINARY_DIR}/gen)
file(MAKE_DIRECTORY ${ONNXTRIM_GEN}/onnx)
foreach(p onnx-ml onnx-data)
  file(READ ${ONNXTRIM_ONNX_PROTO_DIR}/${p}.proto text)
  # libonnx-dev's classes are the full runtime's (the loader reads unknown fields by reflection).
  string(REPLACE "option optimize_for = LITE_RUNTIME;" "" text "${text}")
  file(CONFIGURE OUTPUT ${ONNXTRIM_GEN}/onnx/${p}.proto CONTENT "${text}" @ONLY)
endforeach()
foreach(h onnx_pb.h onnx-data_pb.h)
  configure_file(${ONNXTRIM_ONNX_HEADER_DIR}/${h} ${ONNXTRIM_GEN}/onnx/${h} COPYONLY)
endforeach()
set(ONNXTRIM_ONNX_GENERATED ${ONNXTRIM_GEN}/onnx/onnx-ml.pb.cc ${ONNXTRIM_GEN}/onnx/onnx-data.pb.cc)
add_custom_command(OUTPUT ${ONNXTRIM_ONNX_GENERATED} ${ONNXTRIM_GEN}/onnx/onnx-ml.pb.h ${ONNXTRIM_GEN}/onnx/onnx-data.pb.h
  COMMAND ${ONNXTRIM_PROTOC} --cpp_out=dllexport_decl=ONNX_API:${ONNXTRIM_GEN} -I${ONNXTRIM_GEN}
          onnx/onnx-ml.proto onnx/onnx-data.proto
  DEPENDS ${ONNXTRIM_GEN}/onnx/onnx-ml.proto ${ONNXTRIM_GEN}/onnx/onnx-data.proto
  COMMENT "protoc: the ONNX classes")
add_library(onnx_proto STATIC ${ONNXTRIM_ONNX_GENERATED})
target_include_directories(onnx_proto PUBLIC ${ONNXTRIM_GEN} ${ONNXTRIM_WEB_DEPS}/include)
target_compile_definitions(onnx_proto PUBLIC ONNX_ML=1 ONNX_NAMESPACE=onnx)
# The generated sources include their headers directly, not through onnx_pb.h (which defines ONNX_API).
target_compile_definitions(onnx_proto PRIVATE "ONNX_API=")
target_link_libraries(onnx_proto PUBLIC ${ONNXTRIM_WEB_DEPS}/lib/libprotobuf.a)

# nlohmann/json is header-only: Debian's headers, without the rest of the host's /usr/include.
file(MAKE_DIRECTORY ${ONNXTRIM_GEN}/json)
file(CREATE_LINK /usr/include/nlohmann ${ONNXTRIM_GEN}/json/nlohmann SYMBOLIC)

# Op files register themselves from static initialisers: the layers from ops up are linked whole
# (CMake knows --whole-archive for GNU-like linkers only; wasm-ld takes it too).
set(CMAKE_CXX_LINK_LIBRARY_USING_WHOLE_ARCHIVE "LINKER:--whole-archive" "<LINK_ITEM>" "LINKER:--no-whole-archive")
set(CMAKE_CXX_LINK_LIBRARY_USING_WHOLE_ARCHIVE_SUPPORTED TRUE)

# -- the library: the native build's layers (cmake/layers.cmake), with the web sides of the seam
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/layers.cmake)
set(ONNXTRIM_EXTRA_support src/support/platform/wasm.cc)
set(ONNXTRIM_DROP_onnx_io src/onnx_io/text.cc)
set(ONNXTRIM_EXTRA_onnx_io src/onnx_io/web/text.cc)
onnxtrim_add_layers()
target_link_libraries(onnxtrim_onnx_io PRIVATE onnx_proto)
target_include_directories(onnxtrim_ops PUBLIC ${ONNXTRIM_GEN}/json PRIVATE ${ONNXTRIM_WEB_DEPS}/include)
target_link_libraries(onnxtrim_ops PUBLIC ${ONNXTRIM_WEB_DEPS}/lib/libre2.a)
set_source_files_properties(src/api/api.cc PROPERTIES COMPILE_DEFINITIONS ONNXTRIM_VERSION="${PROJECT_VERSION}")

# -- the module: the C API, called by web/onnxtrim.js
set(ONNXTRIM_WEB_EXPORTS
  _malloc _free _onnxtrim_version _onnxtrim_options_new _onnxtrim_options_set _onnxtrim_options_try_set _onnxtrim_options_free
  _onnxtrim_options_set_progress _onnxtrim_simplify_file _onnxtrim_inspect_file _onnxtrim_verify_files
  _onnxtrim_free)
list(JOIN ONNXTRIM_WEB_EXPORTS "," ONNXTRIM_WEB_EXPORTS_LIST)
add_executable(onnxtrim_web web/core.cc)
set_target_properties(onnxtrim_web PROPERTIES OUTPUT_NAME onnxtrim-core SUFFIX .js)
target_link_libraries(onnxtrim_web PRIVATE onnxtrim)
target_link_options(onnxtrim_web PRIVATE
  -fwasm-exceptions
  -sMODULARIZE=1 -sEXPORT_NAME=createOnnxtrimCore
  -sENVIRONMENT=web,worker,node
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sINITIAL_MEMORY=64MB
  -sALLOW_TABLE_GROWTH=1
  -sEXPORTED_FUNCTIONS=${ONNXTRIM_WEB_EXPORTS_LIST}
  "-sEXPORTED_RUNTIME_METHODS=FS,UTF8ToString,stringToUTF8,lengthBytesUTF8,addFunction,removeFunction,getValue,setValue"
  -sEXIT_RUNTIME=0 -sFILESYSTEM=1
  # A library in Node: no process-wide handlers of its own.
  -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0)
# The JS API (web/onnxtrim.js), with the version filled in.
configure_file(web/onnxtrim.js ${CMAKE_BINARY_DIR}/onnxtrim.js @ONLY)
