// The filter's operations on small, fully controlled cases.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace cuckoo;
using cuckoo_test::key;
using cuckoo_test::make_filter;

namespace {

// Keys packed back to back as the batch calls take them: key i is data()[offsets[i], offsets[i+1]).
struct PackedKeys {
  std::vector<std::string> keys;
  std::string bytes;
  std::vector<std::uint32_t> offsets{0};
  [[nodiscard]] const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(bytes.data()); }
};

// key(prefix, i % distinct) for i in [0, count): repeats when distinct < count.
PackedKeys packed_keys(const char* prefix, std::size_t count, std::size_t distinct) {
  PackedKeys p;
  for (std::size_t i = 0; i < count; ++i) {
    p.keys.push_back(key(prefix, i % distinct));
    p.bytes += p.keys.back();
    p.offsets.push_back(static_cast<std::uint32_t>(p.bytes.size()));
  }
  return p;
}

// Adds the keys one call at a time, requiring each result to equal the batch's; returns how many were added.
std::size_t add_singly_as_batched(CuckooFilter& single, const PackedKeys& p, const std::vector<std::uint8_t>& results) {
  std::size_t added = 0;
  for (std::size_t i = 0; i < p.keys.size(); ++i) {
    const bool ok = single.add(p.keys[i]);
    added += ok;
    REQUIRE(results[i] == static_cast<std::uint8_t>(ok ? cuckoo::KeyResult::yes : cuckoo::KeyResult::no_room));
  }
  return added;
}

}  // namespace

TEST_CASE("add, contains, count, remove on a few keys", "[filter]") {
  auto f = make_filter(1000, 16, 4);
  CHECK(f.size() == 0);
  CHECK_FALSE(f.contains("apple"));
  CHECK(f.add("apple"));
  CHECK(f.contains("apple"));
  CHECK(f.count("apple") == 1);
  CHECK(f.size() == 1);
  CHECK(f.add("apple"));
  CHECK(f.count("apple") == 2);
  CHECK(f.remove("apple"));
  CHECK(f.contains("apple"));
  CHECK(f.remove("apple"));
  CHECK_FALSE(f.contains("apple"));
  CHECK_FALSE(f.remove("apple"));
  CHECK(f.size() == 0);
}

TEST_CASE("a string key and the span of its bytes are the same key", "[filter]") {
  auto f = make_filter(1000, 12, 4);
  const std::string text =
      "gr\xC3\xBC\xC3\x9F"
      "e";  // "grüße" in UTF-8
  const auto bytes = cuckoo_test::bytes_of(text);
  const std::span<const std::uint8_t> span(bytes);
  CHECK(f.hash_of(text.data(), text.size()) == f.hash_of(bytes.data(), bytes.size()));
  CHECK(f.add(span));
  CHECK(f.contains(std::string_view(text)));
  CHECK(f.count(std::string_view(text)) == 1);
  CHECK(f.remove(std::string_view(text)));
  CHECK_FALSE(f.contains(span));
  // The empty key is a key like any other.
  CHECK(f.add(std::string_view{}));
  CHECK(f.contains(std::span<const std::uint8_t>{}));
}

TEST_CASE("the same key can be added 2b times, not more", "[filter]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  auto f = make_filter(1000, 12, b);
  for (unsigned i = 0; i < 2 * b; ++i) REQUIRE(f.add("dup"));
  CHECK(f.count("dup") == 2 * b);
  const auto before = f.serialize();
  CHECK_FALSE(f.add("dup"));
  CHECK(f.serialize() == before);
  CHECK(f.size() == 2 * b);
  CHECK(f.remove("dup"));
  CHECK(f.add("dup"));
}

TEST_CASE("a failed add leaves the filter bit for bit unchanged and loses nothing", "[filter]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  const unsigned bits = GENERATE(8u, 12u, 17u);
  auto f = make_filter(200, bits, b, 200);
  cuckoo_test::check_failed_adds_change_nothing(f);
  // The table was driven to its limit: well past the 84-95% the sizing aims for.
  CHECK(f.load_factor() > (b == 2 ? 0.8 : 0.9));
}

TEST_CASE("max_kicks 0 only places directly", "[filter]") {
  auto f = make_filter(100, 12, 4, 0);
  std::uint64_t i = 0;
  while (f.add(key("direct", i))) ++i;
  CHECK(f.size() == i);
  CHECK(f.load_factor() < 0.95);
}

TEST_CASE("clear empties the filter and keeps its shape", "[filter]") {
  auto f = make_filter(1000, 12, 4);
  for (int i = 0; i < 500; ++i) f.add(key("c", i));
  const auto bytes = f.byte_size();
  f.clear();
  CHECK(f.size() == 0);
  CHECK(f.load_factor() == 0.0);
  CHECK(f.byte_size() == bytes);
  for (int i = 0; i < 500; ++i) CHECK_FALSE(f.contains(key("c", i)));
  CHECK(f.serialize() == make_filter(1000, 12, 4).serialize());
}

TEST_CASE("statistics describe the table", "[filter]") {
  Options o;
  o.capacity = 1'000'000;
  o.fp_rate = 0.001;
  CuckooFilter f(o);
  CHECK(f.capacity() == 1'000'000);
  CHECK(f.bucket_size() == 4);
  CHECK(f.fingerprint_bits() == 13);
  CHECK(f.num_buckets() == 263158);
  CHECK(f.byte_size() == (263158ull * 4 * 13 + 7) / 8 + 8);
  CHECK(f.expected_fp_rate() == 0.0);
  for (int i = 0; i < 1000; ++i) f.add(key("s", i));
  CHECK(f.load_factor() == Approx(1000.0 / (263158.0 * 4)));
  CHECK(f.expected_fp_rate() == Approx(2.0 * 4 * f.load_factor() / 8191).epsilon(0.01));
}

TEST_CASE("locate gives the buckets and fingerprint the table uses", "[filter]") {
  auto f = make_filter(100, 12, 4);
  const auto at = f.locate("where");
  CHECK(at.index < f.num_buckets());
  CHECK(at.alternate_index == alternate_index(at.index, at.fingerprint, f.num_buckets()));
  REQUIRE(f.add("where"));
  CHECK((f.slot(at.index, 0) == at.fingerprint || f.slot(at.alternate_index, 0) == at.fingerprint));
}

TEST_CASE("the seed changes every placement", "[filter]") {
  auto a = make_filter(1000, 12, 4, 500, 1);
  auto b = make_filter(1000, 12, 4, 500, 2);
  for (int i = 0; i < 100; ++i) {
    a.add(key("s", i));
    b.add(key("s", i));
  }
  CHECK(a.locate("x").hash != b.locate("x").hash);
  CHECK(std::vector<std::uint8_t>(a.table_bytes().begin(), a.table_bytes().end()) !=
        std::vector<std::uint8_t>(b.table_bytes().begin(), b.table_bytes().end()));
}

TEST_CASE("a moved-from filter's contents live on in the target", "[filter]") {
  auto a = make_filter(100, 12, 4);
  a.add("moved");
  CuckooFilter b = std::move(a);
  CHECK(b.contains("moved"));
  CHECK(b.size() == 1);
}

TEST_CASE("a table large enough for a mapping of its own loses nothing when filled, merged, exported and moved",
          "[filter]") {
  // 12-bit slots: about 9.5 MB of table, past detail::kHugePageTableBytes (huge pages on Linux).
  auto f = make_filter(6'000'000, 12, 4);
  REQUIRE(f.byte_size() >= detail::kHugePageTableBytes);
  constexpr std::uint64_t kKeys = 5'000'000;
  for (std::uint64_t k = 0; k < kKeys; ++k) REQUIRE(f.add(k * 0x9E3779B97F4A7C15ull));
  auto other = make_filter(6'000'000, 12, 4);
  REQUIRE(other.add(std::uint64_t{1}));
  REQUIRE(other.merge(f).ok());  // works on copies of f's sub-filters, then takes them
  const auto exported = f.serialize();
  const CuckooFilter imported = CuckooFilter::deserialize(exported);
  CHECK(imported.serialize() == exported);
  const CuckooFilter moved = std::move(f);
  std::uint64_t missing = 0;
  for (std::uint64_t k = 0; k < kKeys; ++k) {
    const std::uint64_t key = k * 0x9E3779B97F4A7C15ull;
    missing += !moved.contains(key) + !imported.contains(key) + !other.contains(key);
  }
  CHECK(missing == 0);
  CHECK(other.contains(std::uint64_t{1}));
}

TEST_CASE("batches give the same results and the same table as single calls", "[filter]") {
  const unsigned b = GENERATE(2u, 4u, 8u);
  auto single = make_filter(300, 10, b, 100);
  auto batched = make_filter(300, 10, b, 100);
  // 400 keys with repeats, into a filter for 300: some adds fail, in both.
  const PackedKeys packed = packed_keys("batch", 400, 350);
  const auto& keys = packed.keys;
  const auto& offsets = packed.offsets;
  const auto* data = packed.data();
  std::vector<std::uint8_t> results(keys.size(), 9);
  const auto added = batched.add_many(data, offsets.data(), keys.size(), results.data());
  CHECK(added == add_singly_as_batched(single, packed, results));
  CHECK(added < keys.size());
  CHECK(batched.serialize() == single.serialize());

  batched.contains_many(data, offsets.data(), keys.size(), results.data());
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(results[i] == single.contains(keys[i]));

  const auto removed = batched.remove_many(data, offsets.data(), 200, results.data());
  std::size_t single_removed = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    const bool ok = single.remove(keys[i]);
    single_removed += ok;
    REQUIRE(results[i] == ok);
  }
  CHECK(removed == single_removed);
  CHECK(batched.serialize() == single.serialize());
  // An empty batch touches nothing.
  batched.contains_many(data, offsets.data(), 0, results.data());
}

// Batches on one-word buckets take their own path (the table's shape held in a probe); these shapes cover
// whole-byte buckets (f = 12, b = 4), buckets that start inside a byte (f = 13, b = 4; f = 7, b = 2), a
// bucket that fills the word (f = 16, b = 4), and two that do not fit one (f = 13 and 16, b = 8), filled
// past capacity so that kicks and failed adds happen inside batches. A growing filter gains a sub-filter
// in the middle of a batch; the keys after that must go to the new one, as single calls do.
TEST_CASE("batches match single calls for every bucket shape, and when the chain grows mid-batch", "[filter]") {
  struct Shape {
    unsigned bits, b, growth;
  };
  const Shape shape = GENERATE(Shape{12, 4, 0}, Shape{13, 4, 0}, Shape{7, 2, 0}, Shape{16, 4, 0}, Shape{13, 8, 0},
                               Shape{16, 8, 0}, Shape{12, 4, 2}, Shape{13, 2, 2});
  CAPTURE(shape.bits, shape.b, shape.growth);
  cuckoo::Options o;
  o.capacity = 500;
  o.fingerprint_bits = shape.bits;
  o.bucket_size = shape.b;
  o.max_kicks = 50;
  if (shape.growth != 0) o.growth = shape.growth;
  cuckoo::CuckooFilter single(o), batched(o);
  const PackedKeys packed = packed_keys("shape", 1500, 1500);
  const auto& keys = packed.keys;
  std::vector<std::uint8_t> results(keys.size(), 9);
  // Three batches, so that a later batch starts on a table that an earlier one filled (or grew).
  std::size_t added = 0;
  for (std::size_t start = 0; start < keys.size(); start += 500)
    added += batched.add_many(packed.data(), packed.offsets.data() + start, 500, results.data() + start);
  CHECK(added == add_singly_as_batched(single, packed, results));
  CHECK(batched.size() == single.size());
  CHECK(batched.sub_filter_count() == single.sub_filter_count());
  if (shape.growth == 0)
    CHECK(added < keys.size());  // the table filled up: kicks and failures happened
  else
    CHECK(single.sub_filter_count() > 1);  // the chain grew
  CHECK(batched.serialize() == single.serialize());

  batched.contains_many(packed.data(), packed.offsets.data(), keys.size(), results.data());
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(results[i] == single.contains(keys[i]));
}

TEST_CASE("add_if_absent_ranges adds each new key once and reports a full table", "[filter]") {
  auto f = make_filter(20, 16, 4, 50);
  // "a,b,a,,c" with ranges around the separators, then many new keys until the table is full.
  std::string text = "a,b,a,,c";
  std::vector<std::uint32_t> ranges = {0, 1, 2, 3, 4, 5, 6, 6, 7, 8};
  for (int i = 0; i < 100; ++i) {
    const auto k = key("r", static_cast<std::uint64_t>(i));
    ranges.push_back(static_cast<std::uint32_t>(text.size()));
    text += k;
    ranges.push_back(static_cast<std::uint32_t>(text.size()));
  }
  const std::size_t count = ranges.size() / 2;
  std::vector<std::uint8_t> results(count, 9);
  const auto added =
      f.add_if_absent_ranges(reinterpret_cast<const std::uint8_t*>(text.data()), ranges.data(), count, results.data());
  CHECK(results[0] == 1);
  CHECK(results[1] == 1);
  CHECK(results[2] == 0);  // "a" again
  CHECK(results[3] == 1);  // the empty key
  CHECK(results[4] == 1);
  std::size_t ones = 0, twos = 0;
  for (auto r : results) {
    REQUIRE(r <= 2);
    ones += r == 1;
    twos += r == 2;
  }
  CHECK(added == ones);
  CHECK(f.size() == ones);
  CHECK(twos > 0);
  CHECK(f.contains("a"));
  CHECK(f.contains(std::string_view{}));
  // Every key reported added is present; the full-table ones did not change the size.
  for (std::size_t i = 0; i < count; ++i)
    if (results[i] == 1)
      REQUIRE(f.contains(std::string_view(text).substr(ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i])));
}

namespace {

bool bucket_holds(const CuckooFilter& f, std::uint32_t bucket, std::uint32_t fingerprint) {
  for (unsigned s = 0; s < f.bucket_size(); ++s)
    if (f.slot(bucket, s) == fingerprint) return true;
  return false;
}

bool bucket_full(const CuckooFilter& f, std::uint32_t bucket) {
  for (unsigned s = 0; s < f.bucket_size(); ++s)
    if (f.slot(bucket, s) == 0) return false;
  return true;
}

// add_if_absent_ranges for one key: its KeyResult.
std::uint8_t add_if_absent_one(CuckooFilter& f, const std::string& k) {
  const std::uint32_t range[2] = {0, static_cast<std::uint32_t>(k.size())};
  std::uint8_t result = 9;
  (void)f.add_if_absent_ranges(reinterpret_cast<const std::uint8_t*>(k.data()), range, 1, &result);
  return result;
}

// Keys "fill-<i>" added until the first one that finds no room.
std::vector<std::string> fill_until_full(CuckooFilter& f) {
  std::vector<std::string> added;
  for (std::uint64_t i = 0;; ++i) {
    auto k = key("fill", i);
    if (!f.add(k)) return added;
    added.push_back(std::move(k));
  }
}

}  // namespace

TEST_CASE("after adds alone, a key whose first bucket has room is in that bucket", "[filter]") {
  // What lets add_if_absent_ranges decide most keys on their first bucket: an add stores into the first
  // bucket when it has room, and a full bucket stays full through kick-outs and undone walks. Filled to
  // the first failure, so that many keys were kicked. Every bucket shape: one word (b = 4, f = 12), two
  // words (f = 24), the general one (f = 30, and b = 8), semi-sorted.
  struct Shape {
    unsigned bits, bucket_size;
    bool semi_sorted;
  };
  for (const Shape shape :
       {Shape{12, 4, false}, Shape{24, 4, false}, Shape{30, 4, false}, Shape{16, 8, false}, Shape{13, 4, true}}) {
    auto f = make_filter(3000, shape.bits, shape.bucket_size, 500, kDefaultSeed, shape.semi_sorted);
    const auto added = fill_until_full(f);
    REQUIRE(f.load_factor() > 0.9);
    std::size_t in_second = 0;
    for (const auto& k : added) {
      const auto at = f.locate(k);
      if (bucket_holds(f, at.index, at.fingerprint)) continue;
      REQUIRE(bucket_holds(f, at.alternate_index, at.fingerprint));
      REQUIRE(bucket_full(f, at.index));
      ++in_second;
    }
    CHECK(in_second > added.size() / 10);
    // And the batch finds every one of them (none added twice).
    for (const auto& k : added) REQUIRE(add_if_absent_one(f, k) == 0);
    CHECK(f.size() == added.size());
  }
}

TEST_CASE("add_if_absent_ranges on every bucket shape: each key once, then found", "[filter]") {
  // Each key twice in a row, in batches, up to 90% of the capacity: the first copy is added (unless it is
  // a false positive, rare at these widths), the second is found.
  struct Shape {
    unsigned bits, bucket_size;
    bool semi_sorted;
  };
  for (const Shape shape : {Shape{16, 4, false}, Shape{24, 4, false}, Shape{30, 4, false}, Shape{28, 2, false},
                            Shape{24, 8, false}, Shape{13, 4, true}}) {
    auto f = make_filter(4000, shape.bits, shape.bucket_size, 500, kDefaultSeed, shape.semi_sorted);
    std::size_t yes = 0, first_found = 0;
    for (std::uint64_t batch = 0; batch < 9; ++batch) {
      std::string text;
      std::vector<std::uint32_t> ranges;
      for (std::uint64_t i = 400 * batch; i < 400 * (batch + 1); ++i) {
        const auto k = key("shape", i);
        for (int copy = 0; copy < 2; ++copy) {
          ranges.push_back(static_cast<std::uint32_t>(text.size()));
          text += k;
          ranges.push_back(static_cast<std::uint32_t>(text.size()));
        }
      }
      std::vector<std::uint8_t> results(ranges.size() / 2, 9);
      (void)f.add_if_absent_ranges(reinterpret_cast<const std::uint8_t*>(text.data()), ranges.data(), results.size(),
                                   results.data());
      for (std::size_t i = 0; i < results.size(); i += 2) {
        REQUIRE(results[i] <= 1);
        REQUIRE(results[i + 1] == 0);
        yes += results[i];
        first_found += results[i] == 0;
      }
    }
    CHECK(f.size() == yes);
    CHECK(first_found <= 3);
    for (std::uint64_t i = 0; i < 3600; ++i) REQUIRE(f.contains(key("shape", i)));
  }
}

TEST_CASE("add_if_absent_ranges compares with both buckets after a remove, an import or a merge", "[filter]") {
  // After any of them a key can be in its second bucket while its first has room; deciding on the first
  // bucket alone would then add it a second time.
  auto f = make_filter(300, 16, 4);
  const auto added = fill_until_full(f);
  std::string second;  // a key in its second bucket
  Location at{};
  for (const auto& k : added) {
    at = f.locate(k);
    if (!bucket_holds(f, at.index, at.fingerprint)) {
      second = k;
      break;
    }
  }
  REQUIRE(!second.empty());
  // Free a slot of its first bucket by removing a key that lives there.
  bool freed = false;
  for (const auto& k : added) {
    const auto other = f.locate(k);
    if (k != second && other.index == at.index && bucket_holds(f, at.index, other.fingerprint)) {
      REQUIRE(f.remove(k));
      freed = true;
      break;
    }
  }
  REQUIRE(freed);
  REQUIRE(!bucket_full(f, at.index));
  const auto size = f.size();
  CHECK(add_if_absent_one(f, second) == 0);

  std::optional<CuckooFilter> imported;
  REQUIRE(CuckooFilter::parse(f.serialize(), imported).ok());
  CHECK(add_if_absent_one(*imported, second) == 0);
  CHECK(imported->size() == size);

  // Merged into an empty filter of the same shape, each fingerprint lands in the bucket it was in.
  auto merged = make_filter(300, 16, 4);
  REQUIRE(merged.merge(f).ok());
  REQUIRE(bucket_holds(merged, at.alternate_index, at.fingerprint));
  REQUIRE(!bucket_full(merged, at.index));
  CHECK(add_if_absent_one(merged, second) == 0);
  CHECK(merged.size() == size);
  CHECK(f.size() == size);
}

TEST_CASE("deleting a never-added key can remove an added key's fingerprint (documented hazard)", "[filter]") {
  // Two keys with the same bucket pair and fingerprint are indistinguishable to the filter. With 4-bit
  // fingerprints and a tiny table such a pair is quick to find.
  auto f = make_filter(8, 4, 4);
  const auto added = f.locate("added");
  std::string twin;
  for (std::uint64_t i = 0; twin.empty(); ++i) {
    const auto candidate = key("twin", i);
    const auto at = f.locate(candidate);
    if (at.fingerprint == added.fingerprint && (at.index == added.index || at.index == added.alternate_index))
      twin = candidate;
  }
  REQUIRE(f.add("added"));
  CHECK(f.contains(twin));           // a false positive: twin was never added
  CHECK(f.remove(twin));             // "removes" twin ...
  CHECK_FALSE(f.contains("added"));  // ... which was added's only copy: now a false negative
}
