// A simulation, not the filter: how a cuckoo table of 4-slot buckets behaves when it grows a bucket at a
// time (linear hashing) instead of doubling, for docs/GROWTH.md ("Why a table that doubles stays above 2x,
// and what growing by less would cost"). It keeps each entry's whole position (no fingerprint widths, no
// rate), so it measures only what the addressing does to the load a table holds and to its kick-outs.
//
// The table: M = 2^L + p buckets. A key has a 40-bit position a and an F-bit fingerprint f; its two
// positions are a and a ^ D(f) (D a hash of f, so only 2^F offsets exist, as in a filter whose other
// bucket comes from fingerprint bits), and a position's bucket is its low L + 1 bits c when c mod 2^L < p
// (that bucket was split), else its low L bits. Splitting bucket p moves the entries whose bit L is 1 to
// the new bucket 2^L + p. An add tries its first bucket, then its second, then walks as the product does
// (place(): up to 500 kicks); a walk that fails grows the table and places the entry it holds.
//
// Policies: "split" splits a bucket whenever an add would pass `fill` of the slots, so the load stays at
// `fill`; "double" splits every bucket at once when it would pass `fill` (the product's doubling table);
// "sized" never grows and starts with the buckets for all the keys, reporting its kick-outs in the load
// band just below `fill` (a sized filter's adds at the load a "split" table keeps).
//
// Run (one JSON line per case, about 20 s): ./build/native/cuckoo_growth_split_sim (the CMake target
// cuckoo_growth_split_sim; it uses nothing of the library).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Entry {
  std::uint64_t position = 0;  // of the bucket the entry is in, 40 bits, with bit 63 set; 0: an empty slot
  std::uint32_t fingerprint = 0;
};

class SplitTable {
 public:
  SplitTable(unsigned level, std::uint64_t split, unsigned fingerprint_bits)
      : level_(level), split_(split), fingerprint_bits_(fingerprint_bits), slots_(buckets() * 4) {}

  std::uint64_t buckets() const { return (std::uint64_t{1} << level_) + split_; }
  double load() const { return static_cast<double>(items_) / static_cast<double>(buckets() * 4); }
  std::uint64_t kicks() const { return kicks_; }
  std::uint64_t items() const { return items_; }
  std::uint64_t failed_walks() const { return failed_walks_; }

  void split_one() {
    const std::uint64_t to = buckets();
    slots_.resize((to + 1) * 4);
    for (unsigned s = 0; s < 4; ++s) {
      Entry& e = slots_[split_ * 4 + s];
      if (e.position != 0 && ((e.position >> level_) & 1) != 0) {
        put(to, e);
        e = Entry{};
      }
    }
    if (++split_ == (std::uint64_t{1} << level_)) {
      ++level_;
      split_ = 0;
    }
  }

  void add(std::uint64_t key) {
    const std::uint64_t h = mix(key);
    Entry e;
    e.position = (h >> 24) | (std::uint64_t{1} << 63);  // D leaves bit 63 alone: it stays set
    e.fingerprint = static_cast<std::uint32_t>(mix(h ^ 0x55) & ((std::uint64_t{1} << fingerprint_bits_) - 1));
    place(e);
    ++items_;
  }

 private:
  std::uint64_t offset(std::uint32_t fingerprint) const { return mix(fingerprint * 0x12345ull + 7) & 0xffffffffffull; }
  std::uint64_t bucket_of(std::uint64_t position) const {
    const std::uint64_t low = (std::uint64_t{1} << level_) - 1;
    const std::uint64_t c = position & ((low << 1) | 1);
    return (c & low) < split_ ? c : (c & low);
  }
  bool put(std::uint64_t bucket, const Entry& e) {
    for (unsigned s = 0; s < 4; ++s)
      if (slots_[bucket * 4 + s].position == 0) {
        slots_[bucket * 4 + s] = e;
        return true;
      }
    return false;
  }
  bool has_room(std::uint64_t bucket) const {
    for (unsigned s = 0; s < 4; ++s)
      if (slots_[bucket * 4 + s].position == 0) return true;
    return false;
  }
  Entry moved(Entry e) const {
    e.position ^= offset(e.fingerprint);
    return e;
  }

  // A resident of `bucket` whose other bucket has room, or -1 (the product's resident_with_room).
  int resident_with_room(std::uint64_t bucket) const {
    for (unsigned s = 0; s < 4; ++s) {
      const std::uint64_t to = bucket_of(moved(slots_[bucket * 4 + s]).position);
      if (to != bucket && has_room(to)) return static_cast<int>(s);
    }
    return -1;
  }

  // As doubling_filter.hpp's insert(): the first bucket, the second, then a walk of up to 500 kicks from
  // one of the two at random, each evicting a resident whose other bucket has room if there is one (else
  // one at random) and carrying it on to its other bucket.
  void place(const Entry& e) {
    const Entry other = moved(e);
    const std::uint64_t b1 = bucket_of(e.position), b2 = bucket_of(other.position);
    if (put(b1, e) || put(b2, other)) return;
    rng_ = mix(rng_);
    const bool second = (rng_ & 1) != 0;
    std::uint64_t bucket = second ? b2 : b1;
    Entry homeless = second ? other : e;  // its position is that of `bucket`
    for (unsigned kick = 0; kick < 500; ++kick) {
      int s = resident_with_room(bucket);
      if (s < 0) {
        rng_ = mix(rng_);
        s = static_cast<int>(rng_ & 3);
      }
      Entry& victim = slots_[bucket * 4 + static_cast<unsigned>(s)];
      const Entry evicted = victim;
      victim = homeless;
      ++kicks_;
      homeless = moved(evicted);
      bucket = bucket_of(homeless.position);
      if (put(bucket, homeless)) return;
    }
    // A failed walk grows the table (all of it when it doubles), then places the entry it holds.
    ++failed_walks_;
    const std::uint64_t target = doubling_ ? buckets() * 2 : buckets() + 1;
    while (buckets() < target) split_one();
    place(homeless);
  }

 public:
  bool doubling_ = false;  // a failed walk doubles the table instead of splitting one bucket

 private:
  unsigned level_;
  std::uint64_t split_;
  unsigned fingerprint_bits_;
  std::vector<Entry> slots_;
  std::uint64_t items_ = 0, kicks_ = 0, failed_walks_ = 0, rng_ = 1;
};

// 12 doublings of a 256-bucket table filled to 90%: the doubling policy ends a cycle there.
constexpr unsigned kFirstLevel = 8;
constexpr std::uint64_t kKeys = 3774873;

void grow_case(const char* policy, double fill, unsigned fingerprint_bits) {
  SplitTable t(kFirstLevel, 0, fingerprint_bits);
  const bool doubling = std::strcmp(policy, "double") == 0;
  t.doubling_ = doubling;
  double min_load = 1, load_sum = 0;
  std::uint64_t samples = 0;
  for (std::uint64_t k = 0; k < kKeys; ++k) {
    if (static_cast<double>(t.items() + 1) > fill * static_cast<double>(t.buckets() * 4)) {
      if (doubling) {
        const std::uint64_t target = t.buckets() * 2;
        while (t.buckets() < target) t.split_one();
      } else {
        t.split_one();
      }
    }
    t.add(k);
    if (k >= 4096 && (k & 255) == 0) {  // past the first table: the load a grown table holds
      min_load = std::min(min_load, t.load());
      load_sum += t.load();
      ++samples;
    }
  }
  std::printf(
      "{\"bench\":\"growth_split_sim\",\"policy\":\"%s\",\"fill\":%.2f,\"fingerprint_bits\":%u,\"keys\":%llu,"
      "\"buckets\":%llu,\"kicks_per_add\":%.3f,\"failed_walks\":%llu,\"min_load\":%.3f,\"mean_load\":%.3f}\n",
      policy, fill, fingerprint_bits, static_cast<unsigned long long>(kKeys),
      static_cast<unsigned long long>(t.buckets()), static_cast<double>(t.kicks()) / kKeys,
      static_cast<unsigned long long>(t.failed_walks()), min_load, load_sum / static_cast<double>(samples));
}

void sized_case(double fill, unsigned fingerprint_bits) {
  // 2^20 buckets; its adds in the band of two points below `fill`.
  SplitTable t(20, 0, fingerprint_bits);
  const double slots = static_cast<double>(t.buckets() * 4);
  std::uint64_t k = 0, kicks_before = 0, items_before = 0;
  for (; static_cast<double>(t.items()) < (fill - 0.02) * slots; ++k) t.add(k);
  kicks_before = t.kicks();
  items_before = t.items();
  for (; static_cast<double>(t.items()) < fill * slots; ++k) t.add(k);
  std::printf(
      "{\"bench\":\"growth_split_sim\",\"policy\":\"sized\",\"fill\":%.2f,\"fingerprint_bits\":%u,"
      "\"buckets\":%llu,\"kicks_per_add_in_band\":%.3f}\n",
      fill, fingerprint_bits, static_cast<unsigned long long>(t.buckets()),
      static_cast<double>(t.kicks() - kicks_before) / static_cast<double>(t.items() - items_before));
}

}  // namespace

int main() {
  for (const unsigned f : {8u, 16u}) {
    grow_case("double", 0.90, f);
    for (const double fill : {0.77, 0.80, 0.85, 0.90}) {
      grow_case("split", fill, f);
      sized_case(fill, f);
    }
  }
}
