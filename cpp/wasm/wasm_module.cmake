# The embind module shipped in the npm package. The wasm is inlined (SINGLE_FILE) so the package needs no
# fetch, fs or locateFile, and works in Node, browsers and workers without bundler configuration.
add_library(cuckoo_wasm_objects OBJECT cpp/wasm/bindings.cpp)
target_link_libraries(cuckoo_wasm_objects PUBLIC cuckoo::cuckoo)
target_compile_options(cuckoo_wasm_objects PRIVATE -fno-exceptions -flto)

set(CUCKOO_WASM_LINK_OPTIONS
  -fno-exceptions --bind -O3 -flto
  -sMODULARIZE=1 -sEXPORT_NAME=createCuckooModule
  -sSINGLE_FILE=1
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
  -sEXPORTED_FUNCTIONS=_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=HEAPU8
  -sFILESYSTEM=0
  -sINCOMING_MODULE_JS_API=[]
  -sTEXTDECODER=2)

set(CUCKOO_WASM_OUT "${CMAKE_CURRENT_SOURCE_DIR}/js/generated")
file(MAKE_DIRECTORY "${CUCKOO_WASM_OUT}")

# Two builds of the same objects: an ES module for `import` (browsers, bundlers, Node) and a CommonJS
# module for `require` (Node, and test runners such as Jest that load packages as CommonJS), so neither
# entry reaches the other's format through dynamic import(). One environment loads one of them.
# No import.meta (not needed with SINGLE_FILE). The two need different output names: emcc writes the
# wasm next to the output before inlining it, and with one name two parallel links read each other's.
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
