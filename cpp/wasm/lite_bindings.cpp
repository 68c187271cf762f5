// The lite module (the package's cuckoo-wasm/lite entry): the filter's calls of filter_bindings.hpp and
// nothing else, compiled with CUCKOO_SIZED_ONLY (cuckoo/detail/edition.hpp), so that the core's growth,
// joins, semi-sorted buckets and line deduplicator are left out, and with CUCKOO_PLAIN_EXPORTS: each call
// is an export of the wasm module, which js/src/lite_module.ts instantiates without embind or glue.
#include "filter_bindings.hpp"

// handles.hpp's error record, exported like the calls.
CUCKOO_FILTER_CALL("lastErrorCode") int last_error_code_of_call() { return cuckoo_wasm::last_error_code(); }
CUCKOO_FILTER_CALL("lastErrorText") std::uint32_t last_error_text_of_call() { return cuckoo_wasm::last_error_text(); }
