# The embind module shipped in the npm package. The wasm is not left as a file beside the glue: after each
# link, scripts/inline-wasm.mjs writes it deflated and in base64 into a JavaScript module, which
# wasm_module.ts inflates and hands to the glue as `wasmBinary`. So the package needs no fetch, fs or
# locateFile, and works in Node, browsers and workers without bundler configuration (as SINGLE_FILE did,
# in 14 KB less gzipped: gzip cannot compress base64 of the raw binary well).
add_library(cuckoo_wasm_objects OBJECT cpp/wasm/bindings.cpp)
target_link_libraries(cuckoo_wasm_objects PUBLIC cuckoo::cuckoo)
target_compile_options(cuckoo_wasm_objects PRIVATE -fno-exceptions -flto)

set(CUCKOO_WASM_LINK_OPTIONS
  -fno-exceptions --bind -O3 -flto
  -sMODULARIZE=1 -sEXPORT_NAME=createCuckooModule
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
  -sEXPORTED_FUNCTIONS=_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=HEAPU8
  -sFILESYSTEM=0
  -sINCOMING_MODULE_JS_API=[wasmBinary]
  -sTEXTDECODER=2)

set(CUCKOO_WASM_OUT "${CMAKE_CURRENT_SOURCE_DIR}/js/generated")
file(MAKE_DIRECTORY "${CUCKOO_WASM_OUT}")

# Two builds of the same objects: an ES module for `import` (browsers, bundlers, Node) and a CommonJS
# module for `require` (Node, and test runners such as Jest that load packages as CommonJS), so neither
# entry reaches the other's format through dynamic import(). One environment loads one of them.
# No import.meta (the glue never locates a file: it is handed wasmBinary). The two need different output
# names: each writes its .wasm next to its glue, and with one name two parallel links write the same file.
add_executable(cuckoo_wasm $<TARGET_OBJECTS:cuckoo_wasm_objects>)
target_link_libraries(cuckoo_wasm PRIVATE cuckoo::cuckoo)
target_link_options(cuckoo_wasm PRIVATE ${CUCKOO_WASM_LINK_OPTIONS}
  -sEXPORT_ES6=1 -sUSE_ES6_IMPORT_META=0 -sENVIRONMENT=web,worker)
set_target_properties(cuckoo_wasm PROPERTIES SUFFIX ".mjs" RUNTIME_OUTPUT_DIRECTORY "${CUCKOO_WASM_OUT}")

add_executable(cuckoo_wasm_cjs $<TARGET_OBJECTS:cuckoo_wasm_objects>)
target_link_libraries(cuckoo_wasm_cjs PRIVATE cuckoo::cuckoo)
target_link_options(cuckoo_wasm_cjs PRIVATE ${CUCKOO_WASM_LINK_OPTIONS} -sENVIRONMENT=web,worker)
set_target_properties(cuckoo_wasm_cjs PROPERTIES OUTPUT_NAME "cuckoo_wasm_cjs" SUFFIX ".cjs"
  RUNTIME_OUTPUT_DIRECTORY "${CUCKOO_WASM_OUT}")

find_program(CUCKOO_NODE node REQUIRED)
foreach(target cuckoo_wasm cuckoo_wasm_cjs)
  if(target STREQUAL "cuckoo_wasm")
    set(binary_module "${CUCKOO_WASM_OUT}/cuckoo_wasm_binary.mjs")
  else()
    set(binary_module "${CUCKOO_WASM_OUT}/cuckoo_wasm_binary_cjs.cjs")
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CUCKOO_NODE}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/inline-wasm.mjs" "${CUCKOO_WASM_OUT}/${target}.wasm"
      "${binary_module}"
    VERBATIM)
endforeach()
