// The line deduplicator of the core (line_dedup.hpp) natively, and format::declared_length, which lets a
// reader of a stream stop where an export ends. The TypeScript suites test both again through wasm.
#include <catch2/catch.hpp>

#include <cuckoo/line_dedup.hpp>
#include <random>
#include <set>
#include <string>

#include "test_support.hpp"

namespace {

cuckoo::Options growing(double fp_rate, std::uint64_t capacity) {
  cuckoo::Options o;
  o.capacity = capacity;
  o.fp_rate = fp_rate;
  o.growth = 2;
  o.max_sub_filters = 32;
  return o;
}

// The documented rules with an exact set: key = line without "\n" and a "\r" before it; the last piece
// without "\n" is a line, written with "\n" added. With zero_terminated, records end at NUL and "\r" is
// data; with duplicates, the records seen before are written instead of the new ones.
std::string reference(const std::string& in, unsigned rules = cuckoo::newline_lines) {
  const char end_byte = (rules & cuckoo::zero_terminated) != 0 ? '\0' : '\n';
  std::set<std::string> seen;
  std::string out;
  for (std::size_t start = 0; start < in.size();) {
    const std::size_t newline = in.find(end_byte, start);
    const std::size_t end = newline == std::string::npos ? in.size() : newline + 1;
    std::string line = in.substr(start, end - start);
    std::string key = newline == std::string::npos ? line : line.substr(0, line.size() - 1);
    if (end_byte == '\n' && !key.empty() && key.back() == '\r') key.pop_back();
    const bool is_new = seen.insert(key).second;
    if (is_new != ((rules & cuckoo::duplicates) != 0)) out += newline == std::string::npos ? line + end_byte : line;
    start = end;
  }
  return out;
}

std::string run_in_blocks(cuckoo::LineDeduper& d, const std::string& in, std::mt19937& rng) {
  std::string out;
  const auto* p = reinterpret_cast<const std::uint8_t*>(in.data());
  for (std::size_t at = 0; at < in.size();) {
    const std::size_t size = std::min<std::size_t>(in.size() - at, rng() % 4 == 0 ? 1 : rng() % 300);
    REQUIRE(d.push(p + at, size).ok());
    out.append(reinterpret_cast<const char*>(d.output()), d.output_size());
    at += size;
  }
  REQUIRE(d.finish().ok());
  out.append(reinterpret_cast<const char*>(d.output()), d.output_size());
  return out;
}

}  // namespace

TEST_CASE("the line deduplicator follows the documented rules in any blocks", "[dedup]") {
  std::mt19937 rng(5);
  for (const std::string& in : {std::string(""), std::string("a\r\nb\na\nc\r\nb\r\nlast"), std::string("x\nx\r"),
                               std::string("a\rb\na\rb\r\nab\n\r\n\n"), std::string("\n\n", 2)}) {
    for (int round = 0; round < 20; ++round) {
      cuckoo::CuckooFilter f(growing(1e-8, 100));
      cuckoo::LineDeduper d(f);
      CHECK(run_in_blocks(d, in, rng) == reference(in));
    }
  }
  // Random lines with repeats, CRs, and long lines across many blocks.
  std::string in;
  for (int i = 0; i < 5000; ++i) {
    const auto n = rng() % 50;
    in += cuckoo_test::key("k", n) + std::string(rng() % 8 == 0 ? 3000 : 0, 'x') + (rng() % 3 == 0 ? "\r\n" : "\n");
  }
  cuckoo::CuckooFilter f(growing(1e-6, 2));  // about 100 distinct lines from a start of 2: grows several times
  cuckoo::LineDeduper d(f);
  CHECK(run_in_blocks(d, in, rng) == reference(in));
  CHECK(f.sub_filter_count() > 1);
}

TEST_CASE("NUL-terminated records and written duplicates follow their rules in any blocks", "[dedup]") {
  std::mt19937 rng(7);
  std::string in;
  for (int i = 0; i < 3000; ++i) {
    const auto n = rng() % 40;
    in += cuckoo_test::key("r", n) + (rng() % 4 == 0 ? std::string("\r\n") : std::string()) +
          std::string(1, rng() % 3 == 0 ? '\n' : '\0');
  }
  in += "tail";
  for (const unsigned rules : {cuckoo::zero_terminated + 0u, cuckoo::duplicates + 0u, cuckoo::zero_terminated | cuckoo::duplicates}) {
    INFO("rules " << rules);
    cuckoo::CuckooFilter f(growing(1e-8, 10'000));
    cuckoo::LineDeduper d(f, rules);
    CHECK(run_in_blocks(d, in, rng) == reference(in, rules));
    const std::string news = reference(in, rules & cuckoo::zero_terminated);
    CHECK(d.unique() == static_cast<std::uint64_t>(std::count(news.begin(), news.end(), (rules & cuckoo::zero_terminated) != 0 ? '\0' : '\n')));
  }
}

TEST_CASE("keys from fields: closed ranges pad with empty fields, open ones take what the record has", "[dedup]") {
  // Each case: field ranges, input, the records written (the first of each key).
  struct Case {
    std::vector<std::uint32_t> ranges;
    std::string in;
    std::string out;
  };
  const std::vector<Case> cases = {
      {{2, 2}, "a,1\nb,1\nc,2\nd\ne,\n", "a,1\nc,2\nd\n"},            // "d" and "e," both have an empty field 2
      {{2, 2, 4, 4}, "a,b\nx,b,,\ny,b,,z\n", "a,b\ny,b,,z\n"},       // "b," twice, then "b,z"
      {{3, 0}, "a\nb,c\nd,e,f,g\nh,i,f,g\n,,\n", "a\nd,e,f,g\n"},  // none, none, "f,g", "f,g", "" (as none)
      {{1, 1, 3, 0}, "x\nx,y\nx,y,z\nx,q,z\n", "x\nx,y,z\n"},        // "x", "x", "x,z", "x,z"
      {{1, 2}, "a,b\r\na,b\n,\n\n", "a,b\r\n,\n"},                 // CRLF twins; "," and "" both key ","
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    INFO(c.in);
    for (int round = 0; round < 10; ++round) {
      cuckoo::CuckooFilter f(growing(1e-8, 100));
      cuckoo::LineDeduper d(f);
      REQUIRE(d.select_fields(',', c.ranges.data(), c.ranges.size() / 2));
      CHECK(run_in_blocks(d, c.in, rng) == c.out);
    }
  }
}

TEST_CASE("the line deduplicator stops at the chain's limit, and stays stopped", "[dedup]") {
  cuckoo::CuckooFilter f(growing(1e-8, 1));  // 31-bit fingerprints first: two sub-filters at most
  cuckoo::LineDeduper d(f);
  std::string in;
  for (int i = 0; i < 1000; ++i) in += cuckoo_test::key("k", static_cast<std::uint64_t>(i)) + "\n";
  const auto status = d.push(reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
  CHECK(status.code == cuckoo::ErrorCode::capacity_exceeded);
  CHECK(d.unique() == d.lines());
  CHECK(d.lines() < 1000);
  CHECK(d.push(reinterpret_cast<const std::uint8_t*>("x\n"), 2).code == cuckoo::ErrorCode::capacity_exceeded);
}

TEST_CASE("declared_length tells where an export ends from its headers alone", "[format]") {
  for (const bool grows : {false, true}) {
    cuckoo::Options o;
    o.capacity = 50;
    if (grows) o.growth = 2;
    cuckoo::CuckooFilter f(o);
    for (int i = 0; i < 500; ++i) {
      if (!f.add(cuckoo_test::key("g", static_cast<std::uint64_t>(i)))) break;
    }
    const auto bytes = f.serialize();
    std::size_t have = 0;
    std::uint64_t need = 0;
    std::uint64_t total = 0;
    int asks = 0;
    // Ask with just the bytes it said it needs, as a reader of a pipe does.
    while ((total = cuckoo::format::declared_length(bytes.data(), have, need)) == 0) {
      REQUIRE(need > have);
      REQUIRE(need <= bytes.size());
      have = need;
      REQUIRE(++asks < 40);
    }
    CHECK(total == bytes.size());
  }
  std::uint64_t need = 1;
  const std::uint8_t zeros[64] = {};
  CHECK(cuckoo::format::declared_length(zeros, sizeof zeros, need) == 0);
  CHECK(need == 0);  // not an export: the reader names the problem
}
