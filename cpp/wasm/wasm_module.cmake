# The wasm modules shipped in the npm package: the embind modules cuckoo_wasm (CuckooFilter, the line
# deduplicator) and cuckoo_redis_wasm (RedisCuckooFilter, loaded only by the package's cuckoo-wasm/redis
# entry, so that the main module does not carry it), and cuckoo_lite_wasm (a sized CuckooFilter alone, for
# cuckoo-wasm/lite: a plain module, below). The wasm is not left as a file beside the glue: after each link,
# scripts/inline-wasm.mjs writes it deflated and in base64 into a JavaScript module, which the loader
# (js/src/wasm_loader.ts) inflates and hands to the glue as `wasmBinary`. So the package needs no fetch,
# fs or locateFile, and works in Node, browsers and workers without bundler configuration (as SINGLE_FILE
# did, in 14 KB less gzipped: gzip cannot compress base64 of the raw binary well).
set(CUCKOO_WASM_OUT "${CMAKE_CURRENT_SOURCE_DIR}/js/generated")
file(MAKE_DIRECTORY "${CUCKOO_WASM_OUT}")
find_program(CUCKOO_NODE node REQUIRED)

# Two builds of the same objects: an ES module for `import` (browsers, bundlers, Node) and a CommonJS
# module for `require` (Node, and test runners such as Jest that load packages as CommonJS), so neither
# entry reaches the other's format through dynamic import(). One environment loads one of them.
# No import.meta (the glue never locates a file: it is handed wasmBinary). The two need different output
# names: each writes its .wasm next to its glue, and with one name two parallel links write the same file.
# Outputs: js/generated/NAME.mjs, NAME_binary.mjs, NAME_cjs.cjs, NAME_binary_cjs.cjs.
# -mbulk-memory: memcpy and memset are single instructions (memory.copy, memory.fill), not a loop of the
# module's own: `cuckoo dedup` copies every new line into its output (10M lines: 0.94-0.95 -> 0.87-0.91 s),
# and the module is 0.16 KB smaller gzipped. Every current browser and Node since 12 run it.
function(cuckoo_wasm_module name source export_name)
  # memory_reserve.cpp: the module's operator new (running out of memory never aborts it).
  add_library(${name}_objects OBJECT ${source} cpp/wasm/memory_reserve.cpp)
  target_link_libraries(${name}_objects PUBLIC cuckoo::cuckoo)
  target_compile_options(${name}_objects PRIVATE -fno-exceptions -flto -mbulk-memory)
  set(link_options
    -fno-exceptions -O3 -flto -mbulk-memory
    -sMODULARIZE=1 -sEXPORT_NAME=${export_name}
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
    -sEXPORTED_FUNCTIONS=_malloc,_free
    -sEXPORTED_RUNTIME_METHODS=HEAPU8
    -sFILESYSTEM=0
    -sINCOMING_MODULE_JS_API=[wasmBinary]
    -sTEXTDECODER=2
    -sENVIRONMENT=web,worker
    --bind)
  foreach(format esm cjs)
    if(format STREQUAL "esm")
      set(target ${name})
      set(suffix ".mjs")
      set(binary_module "${CUCKOO_WASM_OUT}/${name}_binary.mjs")
      set(format_options -sEXPORT_ES6=1 -sUSE_ES6_IMPORT_META=0)
    else()
      set(target ${name}_cjs)
      set(suffix ".cjs")
      set(binary_module "${CUCKOO_WASM_OUT}/${name}_binary_cjs.cjs")
      set(format_options "")
    endif()
    add_executable(${target} $<TARGET_OBJECTS:${name}_objects>)
    target_link_libraries(${target} PRIVATE cuckoo::cuckoo)
    target_link_options(${target} PRIVATE ${link_options} ${format_options})
    set_target_properties(${target} PROPERTIES SUFFIX "${suffix}" RUNTIME_OUTPUT_DIRECTORY "${CUCKOO_WASM_OUT}")
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${CUCKOO_NODE}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/inline-wasm.mjs" "${CUCKOO_WASM_OUT}/${target}.wasm"
        "${binary_module}"
      VERBATIM)
  endforeach()
  # The same link with the functions' names kept (--profiling-funcs: no other change to the code), for
  # scripts/wasm-sizes.mjs's listing of where the module's bytes go. Built only when asked for.
  add_executable(${name}_names EXCLUDE_FROM_ALL $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name}_names PRIVATE cuckoo::cuckoo)
  target_link_options(${name}_names PRIVATE ${link_options} --profiling-funcs)
  set_target_properties(${name}_names PROPERTIES SUFFIX ".js" RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/names")
endfunction()

# A module without embind and without Emscripten's JavaScript glue: a standalone wasm binary whose exports
# are its calls (cpp/wasm/filter_bindings.hpp's CUCKOO_FILTER_CALL names) and whose imports are two
# functions, which the package's loader gives it (js/src/lite_module.ts). Outputs js/generated/NAME.wasm
# and its binary modules NAME_binary.mjs and NAME_binary_cjs.cjs. The allocator is small_heap.hpp
# (lite_malloc.cpp, -sMALLOC=none): 2.7 KB less of the deflated binary than dlmalloc's. Emscripten's
# emmalloc is as small, but a table that did not fit beside others (1.5 GB held, 3.7 GB asked for) trapped
# in it and overwrote another filter's bytes (its fit test wraps round near 4 GiB).
function(cuckoo_plain_wasm_module name source)
  add_library(${name}_objects OBJECT ${source} cpp/wasm/memory_reserve.cpp cpp/wasm/lite_malloc.cpp)
  target_link_libraries(${name}_objects PUBLIC cuckoo::cuckoo)
  target_compile_options(${name}_objects PRIVATE -fno-exceptions -flto -mbulk-memory)
  target_compile_definitions(${name}_objects PRIVATE CUCKOO_SIZED_ONLY CUCKOO_PLAIN_EXPORTS)
  # -O2 without unrolled loops, where the other modules have -O3: the binary deflates to 21.1 KB instead of
  # 23.7 (-Os: 19.1, but batches at 0.73-0.79 of the full module's speed), and the calls still run at
  # 1.0-1.4 times the full module's through the package (no embind between; docs/PERFORMANCE.md).
  target_compile_options(${name}_objects PRIVATE -O2 -fno-unroll-loops)
  set(link_options
    -fno-exceptions -O3 -flto -mbulk-memory --no-entry -sSTANDALONE_WASM
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sMALLOC=none
    -sEXPORTED_FUNCTIONS=_malloc,_free -sFILESYSTEM=0)
  add_executable(${name} $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name} PRIVATE cuckoo::cuckoo)
  target_link_options(${name} PRIVATE ${link_options})
  set_target_properties(${name} PROPERTIES SUFFIX ".wasm" RUNTIME_OUTPUT_DIRECTORY "${CUCKOO_WASM_OUT}")
  foreach(binary_module "${name}_binary.mjs" "${name}_binary_cjs.cjs")
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND "${CUCKOO_NODE}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/inline-wasm.mjs" "${CUCKOO_WASM_OUT}/${name}.wasm"
        "${CUCKOO_WASM_OUT}/${binary_module}"
      VERBATIM)
  endforeach()
  add_executable(${name}_names EXCLUDE_FROM_ALL $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name}_names PRIVATE cuckoo::cuckoo)
  target_link_options(${name}_names PRIVATE ${link_options} --profiling-funcs)
  set_target_properties(${name}_names PROPERTIES SUFFIX ".wasm" RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/names")
endfunction()

cuckoo_wasm_module(cuckoo_wasm cpp/wasm/bindings.cpp createCuckooModule)
# The main module uses WebAssembly SIMD (simd128) where it pays: detail::byte_mask64, the deduplicator's
# line ends 16 bytes a compare (wasm_module.ts says so at ready() where a runtime lacks it). Only there:
# LLVM's vectorizers stay off, at compile time and in the LTO link, as they made the module 3.8 KB larger
# gzipped (vectorized loops in the joins, the import, the batches; their speed not measured). The Redis and lite modules
# have no deduplicator and no SIMD.
target_compile_options(cuckoo_wasm_objects PRIVATE -msimd128 -fno-vectorize -fno-slp-vectorize)
foreach(target cuckoo_wasm cuckoo_wasm_cjs cuckoo_wasm_names)
  target_link_options(${target} PRIVATE -msimd128 "SHELL:-Wl,-mllvm,-vectorize-loops=false" "SHELL:-Wl,-mllvm,-vectorize-slp=false")
endforeach()
cuckoo_wasm_module(cuckoo_redis_wasm cpp/wasm/redis_bindings.cpp createRedisModule)
# The lite entry's module: the same core with growth, joins and semi-sorted buckets compiled out.
cuckoo_plain_wasm_module(cuckoo_lite_wasm cpp/wasm/lite_bindings.cpp)
