// The embind surface of the core: the only Emscripten-specific C++. Every number and record layout the
// TypeScript side relies on is in abi.hpp or the core's enums (js/src/abi.ts is generated from them).
//
// Only integers and doubles cross the boundary on the hot path: a filter is an opaque handle (its address),
// a key is (pointer, length) into the wasm heap, where the TypeScript wrapper wrote it. 64-bit values are
// kept off the boundary (embind returns them as signed BigInts): seeds travel as two u32 halves, counts as
// doubles (exact below 2^53). The module is built without C++ exceptions, so errors come back as status
// codes plus a message read at lastErrorText(); the TypeScript layer turns them into typed errors.
#include <emscripten/bind.h>

#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/line_dedup.hpp>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "abi.hpp"
#include "filter_bindings.hpp"
#include "handles.hpp"

namespace {

using namespace cuckoo_wasm;
using cuckoo::CuckooFilter;

// The calls of a filter that the lite module has too are in filter_bindings.hpp; these are the full
// module's own: joins, the demo's view of the table and trace, and the line deduplicator.

// Why the last add returned false (cuckoo::AddFailure): read after a batch that stopped.
unsigned last_add_failure(Handle h) { return static_cast<unsigned>(filter(h).last_add_failure()); }

// The length an export declares from its first `length` bytes (cuckoo::format::declared_length): the total
// when these bytes tell it, else minus the length to read before asking again, or 0 for bytes that are
// not an export.
CUCKOO_COLD double declared_length(std::uint32_t address, std::uint32_t length) {
  std::uint64_t need = 0;
  const std::uint64_t total = cuckoo::format::declared_length(ptr(address), length, need);
  return total != 0 ? static_cast<double>(total) : -static_cast<double>(need);
}

// Adds other's fingerprints; returns a cuckoo::ErrorCode (message: lastErrorText).
CUCKOO_COLD int merge(Handle h, Handle other) {
  if (!memory_for_call()) return last_error_code();
  record(filter(h).merge(filter(other)));
  return last_error_code();
}
CUCKOO_COLD int union_with(Handle h, Handle other) {
  if (!memory_for_call()) return last_error_code();
  record(filter(h).union_with(filter(other)));
  return last_error_code();
}

double add_if_absent_ranges(Handle h, std::uint32_t bytes, std::uint32_t ranges, std::uint32_t count,
                            std::uint32_t results) {
  return static_cast<double>(filter(h).add_if_absent_ranges(
      ptr(bytes), reinterpret_cast<const std::uint32_t*>(ptr(ranges)), count, mutable_ptr(results)));
}

// Read-only view of the table and the key arithmetic, for the demo and the golden-vector tests.
double slot(Handle h, double bucket, unsigned slot_index) {
  return static_cast<double>(filter(h).slot(static_cast<std::uint64_t>(bucket), slot_index));
}
std::uint32_t bucket_code(Handle h, double bucket) { return filter(h).bucket_code(static_cast<std::uint64_t>(bucket)); }
// Writes a LocateRecord to `out`.
void locate(Handle h, std::uint32_t address, std::uint32_t length, std::uint32_t out) {
  const auto& f = filter(h);
  const auto where = f.locate(key(address, length));
  *reinterpret_cast<LocateRecord*>(mutable_ptr(out)) = {where.index,
                                                        where.alternate_index,
                                                        where.fingerprint,
                                                        static_cast<std::uint32_t>(where.hash),
                                                        static_cast<std::uint32_t>(where.hash >> 32),
                                                        cuckoo::alternate_offset(where.fingerprint, f.num_buckets()),
                                                        where.fingerprint_high};
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
// Returns a cuckoo::ErrorCode: the trace's steps get their room here (a failed walk records a kick and an
// undo per kick, and the place before it), so that recording never allocates.
int set_tracing(Handle h, bool on) {
  Instance& i = at(h);
  if (on &&
      (!memory_for_call() ||
       (!cuckoo::detail::reserve_nothrow(i.trace.steps, 2 * std::size_t{i.filter.max_kicks()} + 1) && !heap_is_full())))
    return last_error_code();
  i.filter.set_trace(on ? &i.trace : nullptr);
  return 0;
}
unsigned trace_outcome(Handle h) { return static_cast<unsigned>(at(h).trace.outcome); }
unsigned trace_step_count(Handle h) { return static_cast<unsigned>(at(h).trace.steps.size()); }
// Writes a TraceRecord for each step to `out`.
void trace_steps(Handle h, std::uint32_t out) {
  auto* o = reinterpret_cast<TraceRecord*>(mutable_ptr(out));
  for (const auto& step : at(h).trace.steps)
    *o++ = {static_cast<std::uint32_t>(step.kind), step.bucket, step.slot, step.fingerprint_in, step.fingerprint_out};
}

// --- line dedup (cuckoo::LineDeduper over a filter made by create) ------------------------------------

// The engine and what the wrapper reads after each call, at an address that stays put.
struct Dedup {
  Dedup(CuckooFilter& f, unsigned rules) : engine(f, rules) {}
  cuckoo::LineDeduper engine;
  DedupReport report = {};
  cuckoo::DistinctCount distinct;  // dedup_count_distinct()'s
};

Dedup& dedup_at(Handle h) { return object_at<Dedup>(h); }

// `rules`: cuckoo::LineRules.
CUCKOO_COLD Handle dedup_create(Handle filter_handle, unsigned rules) {
  if (!memory_for_call()) return 0;
  return handle_of(new (std::nothrow) Dedup(filter(filter_handle), rules), "cannot allocate the line deduplicator");
}
CUCKOO_COLD void dedup_destroy(Handle h) { delete &dedup_at(h); }
// Keys from fields: `count` pairs of u32 field numbers at `ranges`, and with csv `names_length` bytes of
// NUL-ended header names at `names` (LineDeduper::select_fields). An ErrorCode.
CUCKOO_COLD int dedup_select(Handle h, unsigned delimiter, std::uint32_t ranges, std::uint32_t count,
                             std::uint32_t names, std::uint32_t names_length) {
  if (dedup_at(h).engine.select_fields(static_cast<std::uint8_t>(delimiter),
                                       reinterpret_cast<const std::uint32_t*>(ptr(ranges)), count, ptr(names),
                                       names_length))
    return 0;
  heap_is_full();
  return last_error_code();
}
// Remember only the last `n` keys added (LineDeduper::remember_last). An ErrorCode.
CUCKOO_COLD int dedup_window(Handle h, double n) {
  if (!memory_for_call()) return last_error_code();
  record(dedup_at(h).engine.remember_last(static_cast<std::uint64_t>(n)));
  return last_error_code();
}
std::uint32_t dedup_report(Handle h) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(&dedup_at(h).report));
}

int dedup_reported(Dedup& d, const cuckoo::Status& s) {
  d.report = {static_cast<double>(reinterpret_cast<std::uintptr_t>(d.engine.output())),
              static_cast<double>(d.engine.output_size()), static_cast<double>(d.engine.lines()),
              static_cast<double>(d.engine.unique()), d.engine.expected_wrong_drops()};
  record(s);
  return static_cast<int>(s.code);
}
// Both return a cuckoo::ErrorCode; the new lines and the counters are in the report.
int dedup_push(Handle h, std::uint32_t address, std::uint32_t length) {
  if (!memory_for_call()) return last_error_code();
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.push(ptr(address), length));
}
int dedup_next_input(Handle h) {
  if (!memory_for_call()) return last_error_code();
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.next_input());
}
// From now on the engine counts the distinct keys instead (LineDeduper::count_distinct); dedup_distinct()
// reads the estimate.
void dedup_count_distinct(Handle h) {
  Dedup& d = dedup_at(h);
  d.engine.count_distinct(d.distinct);
}
double dedup_distinct(Handle h) { return dedup_at(h).distinct.estimate(); }
// The count's registers (DistinctCount::kRegisters bytes), and another count's merged into them: a file
// counted in parts on several threads (cuckoo.ts).
std::uint32_t dedup_distinct_registers(Handle h) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(dedup_at(h).distinct.registers()));
}
void dedup_distinct_merge(Handle h, std::uint32_t address) { dedup_at(h).distinct.merge(ptr(address)); }
int dedup_finish(Handle h) {
  if (!memory_for_call()) return last_error_code();
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.finish());
}

// Partitioned runs (line_dedup.hpp): the `cuckoo` command's threads. The main engine: share (`cuts`: the
// address of threads - 1 u32), then after each call the hashes it gives each helper (outgoing), the
// helpers' verdicts (supply) and its oldest call's lines (resolve). A helper's engine: decide. Those
// returning an int return a cuckoo::ErrorCode.
CUCKOO_COLD int dedup_share(Handle h, std::uint32_t cuts, unsigned threads) {
  if (dedup_at(h).engine.share(reinterpret_cast<const std::uint32_t*>(ptr(cuts)), threads)) return 0;
  static constexpr char kBad[] = "a partitioned run takes 2 to 64 threads and cuts that do not decrease";
  record(cuckoo::ErrorCode::invalid_argument, kBad, sizeof kBad - 1);
  return last_error_code();
}
std::uint32_t dedup_outgoing(Handle h, unsigned thread) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(dedup_at(h).engine.outgoing(thread)));
}
double dedup_outgoing_size(Handle h, unsigned thread) {
  return static_cast<double>(dedup_at(h).engine.outgoing_size(thread));
}
CUCKOO_COLD int dedup_supply(Handle h, unsigned thread, std::uint32_t verdicts, std::uint32_t length) {
  if (!memory_for_call()) return last_error_code();
  if (dedup_at(h).engine.supply(thread, ptr(verdicts), length)) return 0;
  heap_is_full();
  return last_error_code();
}
int dedup_resolve(Handle h) {
  if (!memory_for_call()) return last_error_code();
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.resolve());
}
// `count` hashes (u64) at the 8-aligned `hashes`.
int dedup_decide(Handle h, std::uint32_t hashes, std::uint32_t count) {
  if (!memory_for_call()) return last_error_code();
  Dedup& d = dedup_at(h);
  return dedup_reported(d, d.engine.decide_hashes(reinterpret_cast<const std::uint64_t*>(ptr(hashes)), count));
}

// The table a filter that doubles in place gets at this rate and capacity (cuckoo::in_place_slot_bits and
// cuckoo::in_place_shape): its slot width times 256 plus its most doublings, or 0 for a rate too small to
// double at all.
CUCKOO_COLD unsigned in_place_shape(double rate, double capacity) {
  using Table = cuckoo::DoublingFilter<cuckoo::Slot40>;
  const auto items = static_cast<std::uint64_t>(capacity);
  if (items == 0 || items > Table::kMaxCapacity) return 0;
  const std::uint64_t buckets = Table::base_buckets_for(items);
  const unsigned slot_bits = cuckoo::in_place_slot_bits(rate, buckets);
  unsigned max_doublings = 0;
  return slot_bits != 0 && cuckoo::in_place_shape(rate, buckets, slot_bits, max_doublings)
             ? slot_bits * 256 + max_doublings
             : 0;
}

}  // namespace

EMSCRIPTEN_BINDINGS(cuckoo_wasm) {
  using emscripten::function;
  cuckoo_wasm::bind_filter_functions();
  function("merge", &merge);
  function("union", &union_with);
  function("addIfAbsentRanges", &add_if_absent_ranges);
  function("slot", &slot);
  function("bucketCode", &bucket_code);
  function("locate", &locate);
  function("alternateIndex", &alternate_index_of);
  function("alternateOffset", &alternate_offset_of);
  function("setTracing", &set_tracing);
  function("traceOutcome", &trace_outcome);
  function("traceStepCount", &trace_step_count);
  function("traceSteps", &trace_steps);
  function("dedupCreate", &dedup_create);
  function("dedupDestroy", &dedup_destroy);
  function("dedupSelect", &dedup_select);
  function("dedupReport", &dedup_report);
  function("dedupPush", &dedup_push);
  function("dedupFinish", &dedup_finish);
  function("dedupNextInput", &dedup_next_input);
  function("dedupCountDistinct", &dedup_count_distinct);
  function("dedupDistinct", &dedup_distinct);
  function("dedupDistinctRegisters", &dedup_distinct_registers);
  function("dedupDistinctMerge", &dedup_distinct_merge);
  function("dedupShare", &dedup_share);
  function("dedupWindow", &dedup_window);
  function("dedupOutgoing", &dedup_outgoing);
  function("dedupOutgoingSize", &dedup_outgoing_size);
  function("dedupSupply", &dedup_supply);
  function("dedupResolve", &dedup_resolve);
  function("dedupDecide", &dedup_decide);
  function("inPlaceShape", &in_place_shape);
  function("lastAddFailure", &last_add_failure);
  function("declaredLength", &declared_length);
}
