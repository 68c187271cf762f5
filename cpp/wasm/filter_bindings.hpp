// The calls of a filter, shared by the package's two filter modules: the full one (bindings.cpp, embind:
// bind_filter_functions()) and the lite one (lite_bindings.cpp, built with CUCKOO_SIZED_ONLY,
// cuckoo/detail/edition.hpp, where each is an export of the module). One definition of each call, under the
// names js/src/filter_base.ts's FilterModule calls. The conventions are those of handles.hpp; each module
// includes this header once (the functions are defined here, not only declared).
#pragma once

#include <emscripten/emscripten.h>
#if !defined(CUCKOO_PLAIN_EXPORTS)
#include <emscripten/bind.h>
#endif

#include <cuckoo/cuckoo_filter.hpp>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "abi.hpp"
#include "handles.hpp"

// The lite module has no embind and no JavaScript glue (they would weigh more than its filter): there each
// call is an export of the wasm module under the name below, which js/src/lite_module.ts calls as it is;
// the full module registers the same names with embind (bind_filter_functions).
#if defined(CUCKOO_PLAIN_EXPORTS)
#define CUCKOO_FILTER_CALL(name) __attribute__((used, export_name(name)))
#else
#define CUCKOO_FILTER_CALL(name)
#endif

namespace cuckoo_wasm {

using cuckoo::CuckooFilter;

// Holds the filter and, for the demo, the trace of its last insert.
struct Instance {
  explicit Instance(CuckooFilter&& f) : filter(std::move(f)) {}
  CuckooFilter filter;
  cuckoo::InsertTrace trace;
};

Instance& at(Handle h) { return object_at<Instance>(h); }
CuckooFilter& filter(Handle h) { return at(h).filter; }

Handle adopt(std::optional<CuckooFilter>& made) {
  return handle_of(new (std::nothrow) Instance(std::move(*made)), "cannot allocate the filter object");
}

// The calls made once per filter (create, export, import, merge) are CUCKOO_COLD: compiled for size, with
// what they inline (the package's size budget).

// `options` is the address of a CreateOptions. The wrapper has already checked types and ranges; the core
// checks again and has the last word.
CUCKOO_COLD CUCKOO_FILTER_CALL("create") Handle create(std::uint32_t options) {
  if (!memory_for_call()) return 0;
  const auto& in = *reinterpret_cast<const CreateOptions*>(ptr(options));
  cuckoo::Options o;
  o.capacity = static_cast<std::uint64_t>(in.capacity);
  if ((in.given & kGivenFpRate) != 0) o.fp_rate = in.fp_rate;
  if ((in.given & kGivenFingerprintBits) != 0) o.fingerprint_bits = in.fingerprint_bits;
  if ((in.given & kGivenBucketSize) != 0) o.bucket_size = in.bucket_size;
  o.max_kicks = in.max_kicks;
  o.seed = (static_cast<std::uint64_t>(in.seed_high) << 32) | in.seed_low;
  if ((in.given & kGivenGrowth) != 0) o.growth = in.growth;
  if ((in.given & kGivenMaxSubFilters) != 0) o.max_sub_filters = in.max_sub_filters;
  if ((in.given & kGivenSemiSorted) != 0) o.semi_sorted = in.semi_sorted != 0;
  // The instance's memory before the filter's, so that the table, allocated last, lies on the heap's top,
  // where a table that doubles grows in place (detail::grow_block).
  void* place = ::operator new(sizeof(Instance), std::nothrow);
  if (place == nullptr) return handle_of(nullptr, "cannot allocate the filter object");
  std::optional<CuckooFilter> made;
  if (!record(CuckooFilter::make(o, made))) {
    ::operator delete(place);
    return 0;
  }
  return handle_of(new (place) Instance(std::move(*made)), "");
}

// Export and import in chunks (cuckoo::format::Exporter / Importer): neither ever holds a second copy of
// the filter in the heap, so a filter larger than half the heap can be saved and loaded.
using cuckoo::format::Exporter;
using cuckoo::format::Importer;

CUCKOO_COLD CUCKOO_FILTER_CALL("exportBegin") Handle export_begin(Handle h) {
  if (!memory_for_call()) return 0;
  return handle_of(filter(h).exporter().release(), "cannot allocate the exporter");
}
CUCKOO_FILTER_CALL("exportSize") double export_size(Handle e) {
  return static_cast<double>(object_at<Exporter>(e).size());
}
// Copies the next bytes (at most `capacity`) to `out`; returns how many, 0 at the end.
CUCKOO_FILTER_CALL("exportRead") double export_read(Handle e, std::uint32_t out, std::uint32_t capacity) {
  return static_cast<double>(object_at<Exporter>(e).read(mutable_ptr(out), capacity));
}
CUCKOO_FILTER_CALL("exportEnd") void export_end(Handle e) { delete &object_at<Exporter>(e); }

// total: the export's length when known (a negative number: unknown, a stream).
CUCKOO_COLD CUCKOO_FILTER_CALL("importBegin") Handle import_begin(double total) {
  if (!memory_for_call()) return 0;
  const std::uint64_t known = total >= 0 ? static_cast<std::uint64_t>(total) : Importer::kUnknownLength;
  return handle_of(new (std::nothrow) Importer(known), "cannot allocate the importer");
}
// Returns a cuckoo::ErrorCode (message: lastErrorText).
CUCKOO_COLD CUCKOO_FILTER_CALL("importPush") int import_push(Handle i, std::uint32_t address, std::uint32_t length) {
  if (!memory_for_call()) return last_error_code();
  record(object_at<Importer>(i).push(ptr(address), length));
  return last_error_code();
}
// The filter's handle, or 0 (last_error_code() says why).
CUCKOO_COLD CUCKOO_FILTER_CALL("importFinish") Handle import_finish(Handle i) {
  if (!memory_for_call()) return 0;
  std::optional<CuckooFilter> made;
  return record(CuckooFilter::from_import(object_at<Importer>(i), made)) ? adopt(made) : 0;
}
CUCKOO_FILTER_CALL("importEnd") void import_end(Handle i) { delete &object_at<Importer>(i); }

CUCKOO_FILTER_CALL("destroy") void destroy(Handle h) { delete &at(h); }

// A cuckoo::AddFailure: none when the key was added, else why not, in the same call.
CUCKOO_FILTER_CALL("add") unsigned add(Handle h, std::uint32_t address, std::uint32_t length) {
  auto& f = filter(h);
  return f.add(key(address, length)) ? static_cast<unsigned>(cuckoo::AddFailure::none)
                                     : static_cast<unsigned>(f.last_add_failure());
}
CUCKOO_FILTER_CALL("contains") bool contains(Handle h, std::uint32_t address, std::uint32_t length) {
  return filter(h).contains(key(address, length));
}
CUCKOO_FILTER_CALL("remove") bool remove_key(Handle h, std::uint32_t address, std::uint32_t length) {
  return filter(h).remove(key(address, length));
}
CUCKOO_FILTER_CALL("count") unsigned count(Handle h, std::uint32_t address, std::uint32_t length) {
  return static_cast<unsigned>(filter(h).count(key(address, length)));
}

// addIfAbsent: one hash, then add only if no copy is there. kAlreadyPresent, or add()'s answer.
CUCKOO_FILTER_CALL("addIfAbsent") unsigned add_if_absent(Handle h, std::uint32_t address, std::uint32_t length) {
  auto& f = filter(h);
  const auto hash = f.hash_of(ptr(address), length);
  if (f.contains_hash(hash)) return kAlreadyPresent;
  return f.add_hash(hash) ? static_cast<unsigned>(cuckoo::AddFailure::none)
                          : static_cast<unsigned>(f.last_add_failure());
}

CUCKOO_FILTER_CALL("growth") unsigned growth(Handle h) { return filter(h).growth(); }
CUCKOO_FILTER_CALL("maxSubFilters") unsigned max_sub_filters(Handle h) { return filter(h).max_sub_filters(); }
CUCKOO_FILTER_CALL("semiSorted") bool semi_sorted(Handle h) { return filter(h).semi_sorted(); }
CUCKOO_FILTER_CALL("subFilterCount") unsigned sub_filter_count(Handle h) {
  return static_cast<unsigned>(filter(h).sub_filter_count());
}
// Growth in place: the doublings so far, or -1 for a filter that does not double in place.
CUCKOO_FILTER_CALL("doublings") int doublings(Handle h) {
  return filter(h).grows_in_place() ? static_cast<int>(filter(h).doublings()) : -1;
}
CUCKOO_FILTER_CALL("maxDoublings") unsigned max_doublings(Handle h) { return filter(h).max_doublings(); }

// Batches: keys are bytes[offsets[i], offsets[i+1]) relative to `bytes`; results get one byte per key.
CUCKOO_FILTER_CALL("addMany")
double add_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  return static_cast<double>(filter(h).add_many(ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)), count,
                                                mutable_ptr(results)));
}
CUCKOO_FILTER_CALL("containsMany")
void contains_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  filter(h).contains_many(ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)), count,
                          mutable_ptr(results));
}
CUCKOO_FILTER_CALL("removeMany")
double remove_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  return static_cast<double>(filter(h).remove_many(ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)),
                                                   count, mutable_ptr(results)));
}

// Batches of integer keys as a typed array holds them: `count` keys of `width` bytes (4: u32; 8: u64, or
// i64 in two's complement) at the 8-aligned address `keys`, with room for `count` 8-byte keys there; `op`
// is a BatchOp. Returns the keys added or removed (contains: 0). 32-bit keys are widened in place, last
// first, so that only the core's 64-bit batches are compiled in: each one costs about 0.4 KB of the
// package's gzipped size.
CUCKOO_FILTER_CALL("integerBatch")
double integer_batch(Handle h, std::uint32_t op, std::uint32_t keys, std::uint32_t width, std::uint32_t count,
                     std::uint32_t results) {
  std::uint8_t* bytes = mutable_ptr(keys);
  if (width == 4) {
    // Word i covers the 32-bit keys 2i and 2i + 1: key i itself, read just before, or later ones, widened already.
    for (std::uint32_t i = count; i-- > 0;) {
      std::uint32_t narrow;
      std::memcpy(&narrow, bytes + 4 * std::size_t{i}, 4);
      const std::uint64_t wide = narrow;
      std::memcpy(bytes + 8 * std::size_t{i}, &wide, 8);
    }
  }
  const std::span<const std::uint64_t> span(reinterpret_cast<const std::uint64_t*>(bytes), count);
  CuckooFilter& f = filter(h);
  if (op == kBatchAdd) return static_cast<double>(f.add_many(span, mutable_ptr(results)));
  if (op == kBatchRemove) return static_cast<double>(f.remove_many(span, mutable_ptr(results)));
  f.contains_many(span, mutable_ptr(results));
  return 0;
}

CUCKOO_FILTER_CALL("clear") void clear(Handle h) { filter(h).clear(); }
CUCKOO_FILTER_CALL("size") double size(Handle h) { return static_cast<double>(filter(h).size()); }
CUCKOO_FILTER_CALL("capacity") double capacity(Handle h) { return static_cast<double>(filter(h).capacity()); }
CUCKOO_FILTER_CALL("byteSize") double byte_size(Handle h) { return static_cast<double>(filter(h).byte_size()); }
CUCKOO_FILTER_CALL("loadFactor") double load_factor(Handle h) { return filter(h).load_factor(); }
CUCKOO_COLD CUCKOO_FILTER_CALL("expectedFpRate") double expected_fp_rate(Handle h) {
  return filter(h).expected_fp_rate();
}
CUCKOO_FILTER_CALL("fingerprintBits") unsigned fingerprint_bits(Handle h) { return filter(h).fingerprint_bits(); }
CUCKOO_FILTER_CALL("bucketSize") unsigned bucket_size(Handle h) { return filter(h).bucket_size(); }
CUCKOO_FILTER_CALL("numBuckets") double num_buckets(Handle h) { return static_cast<double>(filter(h).num_buckets()); }
CUCKOO_FILTER_CALL("maxKicks") unsigned max_kicks(Handle h) { return filter(h).max_kicks(); }
CUCKOO_FILTER_CALL("seedLow") std::uint32_t seed_low(Handle h) { return static_cast<std::uint32_t>(filter(h).seed()); }
CUCKOO_FILTER_CALL("seedHigh") std::uint32_t seed_high(Handle h) {
  return static_cast<std::uint32_t>(filter(h).seed() >> 32);
}

#if !defined(CUCKOO_PLAIN_EXPORTS)
inline void bind_filter_functions() {
  using emscripten::function;
  function("create", &create);
  function("exportBegin", &export_begin);
  function("exportSize", &export_size);
  function("exportRead", &export_read);
  function("exportEnd", &export_end);
  function("importBegin", &import_begin);
  function("importPush", &import_push);
  function("importFinish", &import_finish);
  function("importEnd", &import_end);
  function("destroy", &destroy);
  function("lastErrorCode", &last_error_code);
  function("lastErrorText", &last_error_text);
  function("add", &add);
  function("contains", &contains);
  function("remove", &remove_key);
  function("count", &count);
  function("addIfAbsent", &add_if_absent);
  function("growth", &growth);
  function("maxSubFilters", &max_sub_filters);
  function("semiSorted", &semi_sorted);
  function("subFilterCount", &sub_filter_count);
  function("doublings", &doublings);
  function("maxDoublings", &max_doublings);
  function("addMany", &add_many);
  function("containsMany", &contains_many);
  function("removeMany", &remove_many);
  function("integerBatch", &integer_batch);
  function("clear", &clear);
  function("size", &size);
  function("capacity", &capacity);
  function("byteSize", &byte_size);
  function("loadFactor", &load_factor);
  function("expectedFpRate", &expected_fp_rate);
  function("fingerprintBits", &fingerprint_bits);
  function("bucketSize", &bucket_size);
  function("numBuckets", &num_buckets);
  function("maxKicks", &max_kicks);
  function("seedLow", &seed_low);
  function("seedHigh", &seed_high);
}
#endif

}  // namespace cuckoo_wasm
