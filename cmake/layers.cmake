# The library as one static library per layer of src/ (docs/architecture.md, "Folders"), for the
# native build (CMakeLists.txt) and the WebAssembly build (cmake/web.cmake) alike.
#
# Each layer's library links the layer below it (so, through it, every lower layer) and compiles
# with an include folder that shows only its own layer and the lower ones:
# <build>/layer-include/<layer>/ holds one symbolic link per visible folder of src/ (and, for the
# driver and the API, include/onnxtrim: the public headers count as the driver layer). src/
# itself is on no layer's include path, so `#include "driver/driver.h"` in src/ops/ fails to
# compile ("No such file or directory"); a quoted include is looked for beside the including file
# first, which never reaches src/ because every include names its layer's folder
# (src/ops/driver/driver.h does not exist). scripts/check_layers.py --build (the ctest
# layers.includes) compiles an upward and a downward include with each layer's flags.
#
# What links the library (the CLI, the tests, the Python module, the fuzzers, the wasm module)
# links `onnxtrim`, which adds src/ and include/ for its own files.

# The layers, from the bottom: a layer may include any layer listed before it.
set(ONNXTRIM_LAYERS support symbolic ir onnx_io ops eval passes rewrites targets convert surgery driver api)
# Layers from ops up register ops, passes and rules from static initialisers that nothing
# references: their libraries are linked whole (WHOLE_ARCHIVE) wherever they are linked. The
# layers below register nothing and link member by member.
set(ONNXTRIM_WHOLE_LAYERS ops eval passes rewrites targets convert surgery driver api)
# Layers compiled in batches when ONNXTRIM_UNITY_BUILD is on (the web build always): those of
# the former onnxtrim_core, as before.
set(ONNXTRIM_UNITY_LAYERS ${ONNXTRIM_WHOLE_LAYERS})
# Most files a unity batch holds. A layer's files are spread over as few batches as this allows,
# in batches of equal size.
set(ONNXTRIM_UNITY_BATCH 36)

# The sources of one layer: its folder, recursively, without the platform seam's sides
# (src/support/platform/) and the web build's replacements (src/onnx_io/web/), which each build
# adds itself.
function(onnxtrim_layer_sources out layer)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${layer}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "/src/support/platform/|/src/onnx_io/web/")
  set(${out} ${srcs} PARENT_SCOPE)
endfunction()

# The library of one layer, onnxtrim_<layer>, from the sources given.
function(onnxtrim_add_layer layer)
  set(view ${CMAKE_BINARY_DIR}/layer-include/${layer})
  file(MAKE_DIRECTORY ${view})
  set(visible)
  foreach(l ${ONNXTRIM_LAYERS})
    list(APPEND visible ${l})
    if(l STREQUAL layer)
      break()
    endif()
  endforeach()
  foreach(l ${visible})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/src/${l} ${view}/${l} SYMBOLIC)
  endforeach()
  if("driver" IN_LIST visible)
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/include/onnxtrim ${view}/onnxtrim SYMBOLIC)
  endif()

  add_library(onnxtrim_${layer} STATIC ${ARGN})
  target_include_directories(onnxtrim_${layer} PRIVATE ${view})
  list(FIND ONNXTRIM_LAYERS ${layer} rank)
  if(rank GREATER 0)
    math(EXPR below "${rank} - 1")
    list(GET ONNXTRIM_LAYERS ${below} lower)
    if(lower IN_LIST ONNXTRIM_WHOLE_LAYERS)
      target_link_libraries(onnxtrim_${layer} PUBLIC "$<LINK_LIBRARY:WHOLE_ARCHIVE,onnxtrim_${lower}>")
    else()
      target_link_libraries(onnxtrim_${layer} PUBLIC onnxtrim_${lower})
    endif()
  endif()

  if(layer IN_LIST ONNXTRIM_UNITY_LAYERS AND (ONNXTRIM_UNITY_BUILD OR ONNXTRIM_WEB))
    set(batched ${ARGN})
    foreach(f ${ONNXTRIM_UNITY_ALONE})
      list(REMOVE_ITEM batched ${f} ${CMAKE_CURRENT_SOURCE_DIR}/${f})
    endforeach()
    list(LENGTH batched n)
    if(n GREATER 0)
      math(EXPR batches "(${n} + ${ONNXTRIM_UNITY_BATCH} - 1) / ${ONNXTRIM_UNITY_BATCH}")
      math(EXPR size "(${n} + ${batches} - 1) / ${batches}")
      set_target_properties(onnxtrim_${layer} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${size})
    endif()
  endif()
endfunction()

# Every layer's library; ONNXTRIM_EXTRA_<layer> and ONNXTRIM_DROP_<layer> add and remove
# sources (the platform seam's side, the web build's text parser).
function(onnxtrim_add_layers)
  foreach(layer ${ONNXTRIM_LAYERS})
    onnxtrim_layer_sources(srcs ${layer})
    foreach(f ${ONNXTRIM_DROP_${layer}})
      list(REMOVE_ITEM srcs ${CMAKE_CURRENT_SOURCE_DIR}/${f})
    endforeach()
    onnxtrim_add_layer(${layer} ${srcs} ${ONNXTRIM_EXTRA_${layer}})
  endforeach()
  if(ONNXTRIM_UNITY_BUILD OR ONNXTRIM_WEB)
    set_source_files_properties(${ONNXTRIM_UNITY_ALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()

  # src/ and include/ for the files of what links the library (tests, tools, the Python module).
  add_library(onnxtrim_headers INTERFACE)
  target_include_directories(onnxtrim_headers INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/include)
  # The whole library: the top layer, which brings every layer below it.
  add_library(onnxtrim INTERFACE)
  target_link_libraries(onnxtrim INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,onnxtrim_api>" onnxtrim_headers)
endfunction()
