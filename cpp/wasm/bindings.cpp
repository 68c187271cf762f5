// The embind surface of the core: the only Emscripten-specific C++.
//
// Only integers and doubles cross the boundary on the hot path: a filter is an opaque handle (its address),
// a key is (pointer, length) into the wasm heap, where the TypeScript wrapper wrote it. 64-bit values are
// kept off the boundary (embind returns them as signed BigInts): seeds travel as two u32 halves, counts as
// doubles (exact below 2^53). The module is built without C++ exceptions, so errors come back as status
// codes plus a message read with last_error_message(); the TypeScript layer turns them into typed errors.
#include <emscripten/bind.h>

#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/line_dedup.hpp>
#include <new>
#include <optional>
#include <string>

namespace {

using cuckoo::CuckooFilter;
using Handle = std::uint32_t;

// Set by every call that can fail; read by the wrapper right after a failure.
cuckoo::Status g_last_error;

// Holds the filter and, for the demo, the trace of its last insert.
struct Instance {
  explicit Instance(CuckooFilter&& f) : filter(std::move(f)) {}
  CuckooFilter filter;
  cuckoo::InsertTrace trace;
};

Instance& at(Handle h) { return *reinterpret_cast<Instance*>(static_cast<std::uintptr_t>(h)); }
CuckooFilter& filter(Handle h) { return at(h).filter; }
const std::uint8_t* ptr(std::uint32_t address) {
  return reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(address));
}
std::uint8_t* mutable_ptr(std::uint32_t address) {
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(address));
}
std::span<const std::uint8_t> key(std::uint32_t address, std::uint32_t length) { return {ptr(address), length}; }

Handle adopt(std::optional<CuckooFilter>& made) {
  auto* instance = new (std::nothrow) Instance(std::move(*made));
  if (instance == nullptr) {
    g_last_error = cuckoo::Status::error(cuckoo::ErrorCode::out_of_memory, "cannot allocate the filter object");
    return 0;
  }
  return static_cast<Handle>(reinterpret_cast<std::uintptr_t>(instance));
}

// fp_rate <= 0 means "not given"; fingerprint_bits, bucket_size, growth, max_sub_filters 0 mean "not
// given". The wrapper has
// already checked types and ranges; the core checks again and has the last word.
Handle create(double capacity, double fp_rate, unsigned fingerprint_bits, unsigned bucket_size, unsigned max_kicks,
              std::uint32_t seed_low, std::uint32_t seed_high, unsigned growth, unsigned max_sub_filters) {
  cuckoo::Options o;
  o.capacity = static_cast<std::uint64_t>(capacity);
  if (fp_rate > 0) o.fp_rate = fp_rate;
  if (fingerprint_bits != 0) o.fingerprint_bits = fingerprint_bits;
  if (bucket_size != 0) o.bucket_size = bucket_size;
  o.max_kicks = max_kicks;
  o.seed = (static_cast<std::uint64_t>(seed_high) << 32) | seed_low;
  if (growth != 0) o.growth = growth;
  if (max_sub_filters != 0) o.max_sub_filters = max_sub_filters;
  std::optional<CuckooFilter> made;
  g_last_error = CuckooFilter::make(o, made);
  return g_last_error.ok() ? adopt(made) : 0;
}

// Export and import in chunks (CuckooFilter::Exporter / Importer): neither ever holds a second copy of
// the filter in the heap, so a filter larger than half the heap can be saved and loaded.
template <class T>
Handle handle_of(T* object, const char* what) {
  if (object == nullptr) {
    g_last_error = cuckoo::Status::error(cuckoo::ErrorCode::out_of_memory, std::string("cannot allocate the ") + what);
    return 0;
  }
  return static_cast<Handle>(reinterpret_cast<std::uintptr_t>(object));
}
template <class T>
T& object_at(Handle h) {
  return *reinterpret_cast<T*>(static_cast<std::uintptr_t>(h));
}
using Exporter = CuckooFilter::Exporter;
using Importer = CuckooFilter::Importer;

Handle export_begin(Handle h) { return handle_of(new (std::nothrow) Exporter(filter(h)), "exporter"); }
double export_size(Handle e) { return static_cast<double>(object_at<Exporter>(e).size()); }
// Copies the next bytes (at most `capacity`) to `out`; returns how many, 0 at the end.
double export_read(Handle e, std::uint32_t out, std::uint32_t capacity) {
  return static_cast<double>(object_at<Exporter>(e).read(mutable_ptr(out), capacity));
}
void export_end(Handle e) { delete &object_at<Exporter>(e); }

// total: the export's length when known (a negative number: unknown, a stream).
Handle import_begin(double total) {
  const std::uint64_t known = total >= 0 ? static_cast<std::uint64_t>(total) : Importer::kUnknownLength;
  return handle_of(new (std::nothrow) Importer(known), "importer");
}
// Returns a cuckoo::ErrorCode (message: last_error_message()).
int import_push(Handle i, std::uint32_t address, std::uint32_t length) {
  g_last_error = object_at<Importer>(i).push(ptr(address), length);
  return static_cast<int>(g_last_error.code);
}
// The filter's handle, or 0 (last_error_code() says why).
Handle import_finish(Handle i) {
  std::optional<CuckooFilter> made;
  g_last_error = object_at<Importer>(i).finish(made);
  return g_last_error.ok() ? adopt(made) : 0;
}
void import_end(Handle i) { delete &object_at<Importer>(i); }

void destroy(Handle h) { delete &at(h); }

int last_error_code() { return static_cast<int>(g_last_error.code); }
std::string last_error_message() { return g_last_error.message; }

bool add(Handle h, std::uint32_t address, std::uint32_t length) { return filter(h).add(key(address, length)); }
bool contains(Handle h, std::uint32_t address, std::uint32_t length) {
  return filter(h).contains(key(address, length));
}
bool remove_key(Handle h, std::uint32_t address, std::uint32_t length) {
  return filter(h).remove(key(address, length));
}
unsigned count(Handle h, std::uint32_t address, std::uint32_t length) {
  return static_cast<unsigned>(filter(h).count(key(address, length)));
}
// Why the last add returned false (cuckoo::AddFailure); only read after a failure.
unsigned last_add_failure(Handle h) { return static_cast<unsigned>(filter(h).last_add_failure()); }

// addIfAbsent: one hash, then add only if no copy is there. 0 present, 1 added, 2 no room.
unsigned add_if_absent(Handle h, std::uint32_t address, std::uint32_t length) {
  auto& f = filter(h);
  const auto hash = f.hash_of(ptr(address), length);
  if (f.contains_hash(hash)) return 0;
  return f.add_hash(hash) ? 1 : 2;
}

// Adds other's fingerprints; returns a cuckoo::ErrorCode (message: last_error_message()).
int merge(Handle h, Handle other) {
  g_last_error = filter(h).merge(filter(other));
  return static_cast<int>(g_last_error.code);
}
int union_with(Handle h, Handle other) {
  g_last_error = filter(h).union_with(filter(other));
  return static_cast<int>(g_last_error.code);
}
unsigned growth(Handle h) { return filter(h).growth(); }
unsigned max_sub_filters(Handle h) { return filter(h).max_sub_filters(); }
unsigned sub_filter_count(Handle h) { return static_cast<unsigned>(filter(h).sub_filter_count()); }

// Batches: keys are bytes[offsets[i], offsets[i+1]) relative to `bytes`; results get one byte per key.
double add_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  return static_cast<double>(filter(h).add_many(ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)),
                                                count, mutable_ptr(results)));
}
void contains_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  filter(h).contains_many(ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)), count,
                          mutable_ptr(results));
}
double remove_many(Handle h, std::uint32_t bytes, std::uint32_t offsets, std::uint32_t count, std::uint32_t results) {
  return static_cast<double>(filter(h).remove_many(
      ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(offsets)), count, mutable_ptr(results)));
}

double add_if_absent_ranges(Handle h, std::uint32_t bytes, std::uint32_t ranges, std::uint32_t count,
                            std::uint32_t results) {
  return static_cast<double>(filter(h).add_if_absent_ranges(
      ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(ranges)), count, mutable_ptr(results)));
}

void clear(Handle h) { filter(h).clear(); }
double size(Handle h) { return static_cast<double>(filter(h).size()); }
double capacity(Handle h) { return static_cast<double>(filter(h).capacity()); }
double byte_size(Handle h) { return static_cast<double>(filter(h).byte_size()); }
double load_factor(Handle h) { return filter(h).load_factor(); }
double expected_fp_rate(Handle h) { return filter(h).expected_fp_rate(); }
unsigned fingerprint_bits(Handle h) { return filter(h).fingerprint_bits(); }
unsigned bucket_size(Handle h) { return filter(h).bucket_size(); }
double num_buckets(Handle h) { return static_cast<double>(filter(h).num_buckets()); }
unsigned max_kicks(Handle h) { return filter(h).max_kicks(); }
std::uint32_t seed_low(Handle h) { return static_cast<std::uint32_t>(filter(h).seed()); }
std::uint32_t seed_high(Handle h) { return static_cast<std::uint32_t>(filter(h).seed() >> 32); }


// Read-only view of the table and the key arithmetic, for the demo and the golden-vector tests.
std::uint32_t slot(Handle h, double bucket, unsigned slot_index) {
  return filter(h).slot(static_cast<std::uint64_t>(bucket), slot_index);
}
// Writes [index, alternate index, fingerprint, hash low, hash high, alternate offset] as u32 to `out`.
void locate(Handle h, std::uint32_t address, std::uint32_t length, std::uint32_t out) {
  const auto& f = filter(h);
  const auto where = f.locate(key(address, length));
  auto* o = reinterpret_cast<std::uint32_t*>(mutable_ptr(out));
  o[0] = where.index;
  o[1] = where.alternate_index;
  o[2] = where.fingerprint;
  o[3] = static_cast<std::uint32_t>(where.hash);
  o[4] = static_cast<std::uint32_t>(where.hash >> 32);
  o[5] = cuckoo::alternate_offset(where.fingerprint, f.num_buckets());
}

// The other bucket of a fingerprint that sits in `bucket` of the first sub-filter, and its odd offset r:
// what a kick computes for the fingerprint it evicts (the demo shows it with these numbers).
std::uint32_t alternate_index_of(Handle h, std::uint32_t bucket, std::uint32_t fingerprint) {
  return cuckoo::alternate_index(bucket, fingerprint, filter(h).num_buckets());
}
std::uint32_t alternate_offset_of(Handle h, std::uint32_t fingerprint) {
  return cuckoo::alternate_offset(fingerprint, filter(h).num_buckets());
}

// Trace of the last add while tracing is on: the header by trace_header, each step by trace_step.
void set_tracing(Handle h, bool on) { at(h).filter.set_trace(on ? &at(h).trace : nullptr); }
unsigned trace_outcome(Handle h) { return static_cast<unsigned>(at(h).trace.outcome); }
unsigned trace_step_count(Handle h) { return static_cast<unsigned>(at(h).trace.steps.size()); }
// Writes [kind, bucket, slot, fingerprint in, fingerprint out] for each step as u32 to `out`.
void trace_steps(Handle h, std::uint32_t out) {
  auto* o = reinterpret_cast<std::uint32_t*>(mutable_ptr(out));
  for (const auto& step : at(h).trace.steps) {
    *o++ = static_cast<std::uint32_t>(step.kind);
    *o++ = step.bucket;
    *o++ = step.slot;
    *o++ = step.fingerprint_in;
    *o++ = step.fingerprint_out;
  }
}

// --- line dedup (cuckoo::LineDeduper over a filter made by create) ------------------------------------

// The engine and what the wrapper reads after each call, at an address that stays put.
struct Dedup {
  explicit Dedup(CuckooFilter& f) : engine(f) {}
  cuckoo::LineDeduper engine;
  // [output address, output length, lines, unique lines]; doubles are exact below 2^53.
  double report[4] = {};
};

Dedup& dedup_at(Handle h) { return *reinterpret_cast<Dedup*>(static_cast<std::uintptr_t>(h)); }

Handle dedup_create(Handle filter_handle) {
  auto* d = new (std::nothrow) Dedup(filter(filter_handle));
  if (d == nullptr) {
    g_last_error = cuckoo::Status::error(cuckoo::ErrorCode::out_of_memory, "cannot allocate the line deduplicator");
    return 0;
  }
  return static_cast<Handle>(reinterpret_cast<std::uintptr_t>(d));
}
void dedup_destroy(Handle h) { delete &dedup_at(h); }
std::uint32_t dedup_report(Handle h) { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(dedup_at(h).report)); }

int dedup_reported(Dedup& d, const cuckoo::Status& s) {
  d.report[0] = static_cast<double>(reinterpret_cast<std::uintptr_t>(d.engine.output()));
  d.report[1] = static_cast<double>(d.engine.output_size());
  d.report[2] = static_cast<double>(d.engine.lines());
  d.report[3] = static_cast<double>(d.engine.unique());
  if (!s.ok()) g_last_error = s;
  return static_cast<int>(s.code);
}
// Both return a cuckoo::ErrorCode; the new lines and the counters are in the report.
int dedup_push(Handle h, std::uint32_t address, std::uint32_t length) {
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.push(ptr(address), length));
}
int dedup_finish(Handle h) {
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.finish());
}

// The length an export declares from its first `length` bytes (cuckoo::format::declared_length): the total
// when these bytes tell it, else minus the length to read before asking again, or 0 for bytes that are
// not an export.
double declared_length(std::uint32_t address, std::uint32_t length) {
  std::uint64_t need = 0;
  const std::uint64_t total = cuckoo::format::declared_length(ptr(address), length, need);
  return total != 0 ? static_cast<double>(total) : -static_cast<double>(need);
}

}  // namespace

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
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
  function("lastErrorMessage", &last_error_message);
  function("add", &add);
  function("contains", &contains);
  function("remove", &remove_key);
  function("count", &count);
  function("addIfAbsent", &add_if_absent);
  function("lastAddFailure", &last_add_failure);
  function("merge", &merge);
  function("union", &union_with);
  function("growth", &growth);
  function("maxSubFilters", &max_sub_filters);
  function("subFilterCount", &sub_filter_count);
  function("addMany", &add_many);
  function("containsMany", &contains_many);
  function("removeMany", &remove_many);
  function("addIfAbsentRanges", &add_if_absent_ranges);
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
  function("slot", &slot);
  function("locate", &locate);
  function("alternateIndex", &alternate_index_of);
  function("alternateOffset", &alternate_offset_of);
  function("setTracing", &set_tracing);
  function("traceOutcome", &trace_outcome);
  function("traceStepCount", &trace_step_count);
  function("traceSteps", &trace_steps);
  function("dedupCreate", &dedup_create);
  function("dedupDestroy", &dedup_destroy);
  function("dedupReport", &dedup_report);
  function("dedupPush", &dedup_push);
  function("dedupFinish", &dedup_finish);
  function("declaredLength", &declared_length);
}
