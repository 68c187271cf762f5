// RedisCuckooFilter against tests/vectors/redisbloom.json, recorded from a RedisBloom 2.4 server: every
// hash, every reply of every command sequence, every CF.SCANDUMP byte, CF.INFO and CF.DEBUG, and the
// CF.EXISTS / CF.COUNT answers of the probe items. The command layer (argument checks, error texts,
// auto-creation, the 32 sub-filter limit, CF.LOADCHUNK's placement) is emulated here over the filter, as
// the server does it; the filter itself must give the server's answers and bytes.
#include <catch2/catch.hpp>

#include <bit>
#include <tuple>

#include <cuckoo/redis_filter.hpp>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "mini_json.hpp"

namespace {

using cuckoo::redis::RedisCuckooFilter;
using mini_json::Value;

const Value& vectors() {
  static const Value v = [] {
    std::ifstream in(std::string(CUCKOO_VECTORS_DIR) + "/redisbloom.json", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return mini_json::parse(text.str());
  }();
  return v;
}

std::string hex(std::span<const std::uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const std::uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string unhex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    out += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
  return out;
}

// An argument or item: a JSON string is its UTF-8 bytes, {"hex": ...} those bytes.
std::string bytes_of(const Value& v) { return v.kind == Value::Kind::string ? v.text : unhex(v["hex"].text); }

std::span<const std::uint8_t> span_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// SHA-256 (FIPS 180-4), for the chunks the vectors record by length and digest.
std::string sha256(std::span<const std::uint8_t> data) {
  static constexpr std::uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  const auto block = [&](const std::uint8_t* p) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t{p[4 * i]} << 24 | std::uint32_t{p[4 * i + 1]} << 16 | std::uint32_t{p[4 * i + 2]} << 8 |
             p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  };
  std::size_t at = 0;
  for (; data.size() - at >= 64; at += 64) block(data.data() + at);
  std::uint8_t last[128] = {};
  const std::size_t rest = data.size() - at;
  std::copy(data.begin() + static_cast<std::ptrdiff_t>(at), data.end(), last);
  last[rest] = 0x80;
  const std::size_t tail = rest < 56 ? 64 : 128;
  const std::uint64_t bits = std::uint64_t{data.size()} * 8;
  for (int i = 0; i < 8; ++i) last[tail - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
  block(last);
  if (tail == 128) block(last + 64);
  std::uint8_t digest[32];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * j));
  return hex(digest);
}

// A RESP reply.
struct Reply {
  enum class Kind { integer, text, error, bulk, nil, array } kind = Kind::nil;
  long long integer = 0;
  std::string text;  // text, error, bulk
  std::vector<Reply> items;

  static Reply number(long long n) { return {Kind::integer, n, {}, {}}; }
  static Reply ok() { return {Kind::text, 0, "OK", {}}; }
  static Reply error(std::string m) { return {Kind::error, 0, std::move(m), {}}; }
  static Reply bulk(std::span<const std::uint8_t> b) { return {Kind::bulk, 0, std::string(b.begin(), b.end()), {}}; }
  static Reply array(std::vector<Reply> items) { return {Kind::array, 0, {}, std::move(items)}; }
};

std::string show(const Reply& r) {
  switch (r.kind) {
    case Reply::Kind::integer:
      return std::to_string(r.integer);
    case Reply::Kind::text:
      return "'" + r.text + "'";
    case Reply::Kind::error:
      return "error '" + r.text + "'";
    case Reply::Kind::bulk:
      return r.text.size() > 64 ? "bulk of " + std::to_string(r.text.size()) : "hex " + hex(span_of(r.text));
    case Reply::Kind::nil:
      return "nil";
    case Reply::Kind::array: {
      std::string out = "[";
      for (const Reply& i : r.items) out += show(i) + ", ";
      return out + "]";
    }
  }
  return "?";
}

bool same(const Value& expected, const Reply& got) {
  switch (expected.kind) {
    case Value::Kind::number:
      return got.kind == Reply::Kind::integer && std::to_string(got.integer) == expected.text;
    case Value::Kind::string:
      return got.kind == Reply::Kind::text && got.text == expected.text;
    case Value::Kind::null:
      return got.kind == Reply::Kind::nil;
    case Value::Kind::array:
      if (got.kind != Reply::Kind::array || got.items.size() != expected.items.size()) return false;
      for (std::size_t i = 0; i < got.items.size(); ++i)
        if (!same(expected.items[i], got.items[i])) return false;
      return true;
    case Value::Kind::object:
      if (expected.members.count("error")) return got.kind == Reply::Kind::error && got.text == expected["error"].text;
      if (expected.members.count("hex"))
        return got.kind == Reply::Kind::bulk && hex(span_of(got.text)) == expected["hex"].text;
      if (expected.members.count("sha256"))
        return got.kind == Reply::Kind::bulk && std::to_string(got.text.size()) == expected["length"].text &&
               sha256(span_of(got.text)) == expected["sha256"].text;
      return false;
    default:
      return false;
  }
}

// Redis's string-to-long-long: an optional '-', no leading zeros or '+', within 64 bits.
std::optional<long long> parse_ll(const std::string& s) {
  static const std::regex integer("0|-?[1-9][0-9]*");
  if (!std::regex_match(s, integer)) return std::nullopt;
  try {
    return std::stoll(s);
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const Reply kWrongType = Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value");

// The CF.* commands as a RedisBloom 2.4 server answers them, over RedisCuckooFilter.
class Server {
 public:
  struct OtherType {};
  using Entry = std::variant<RedisCuckooFilter, OtherType>;

  RedisCuckooFilter* filter(const std::string& key) {
    const auto it = keys_.find(key);
    return it == keys_.end() ? nullptr : std::get_if<RedisCuckooFilter>(&it->second);
  }
  bool exists(const std::string& key) const { return keys_.count(key) != 0; }

  Reply call(const std::vector<std::string>& a) {
    const std::string name = lower(a[0]);
    const std::size_t argc = a.size();
    const Reply arity = Reply::error("ERR wrong number of arguments for '" + name + "' command");
    if (name == "set") {
      keys_.erase(a[1]);
      keys_.emplace(a[1], OtherType{});
      return Reply::ok();
    }
    if (name == "cf.reserve") return reserve(a);
    if (name == "cf.add" || name == "cf.addnx") {
      if (argc != 3) return arity;
      return insert(a[1], {a[2]}, name == "cf.addnx", false, 1024, true);
    }
    if (name == "cf.insert" || name == "cf.insertnx") {
      if (argc < 4) return arity;
      long long capacity = 1024;
      bool create = true;
      std::size_t items = 0;
      std::size_t i = 2;
      while (i < argc && items == 0) {
        const char c = a[i].empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(a[i][0])));
        if (c == 'c') {  // only an option's first letter counts
          if (++i == argc) return arity;
          const auto v = parse_ll(a[i++]);
          if (!v) return Reply::error("Bad capacity");
          if (*v < 4) return Reply::error("Capacity must be at least (BucketSize * 2)");
          capacity = *v;
        } else if (c == 'i') {
          items = ++i;
        } else if (c == 'n') {
          create = false;
          ++i;
        } else {
          return Reply::error("Unknown argument received");
        }
      }
      if (items == 0 || items == argc) return arity;
      return insert(a[1], std::vector<std::string>(a.begin() + static_cast<std::ptrdiff_t>(items), a.end()),
                    name == "cf.insertnx", true, capacity, create);
    }
    if (name == "cf.exists" || name == "cf.mexists" || name == "cf.count") {
      const bool multi = name == "cf.mexists";
      if ((!multi && argc != 3) || (multi && argc < 3)) return arity;
      const RedisCuckooFilter* f = filter(a[1]);
      std::vector<Reply> out;
      for (std::size_t i = 2; i < argc; ++i) {
        const auto item = span_of(a[i]);
        out.push_back(Reply::number(f == nullptr         ? 0
                                    : name == "cf.count" ? static_cast<long long>(f->count(item))
                                                         : f->contains(item)));
      }
      return multi ? Reply::array(out) : out[0];
    }
    if (name == "cf.del") {
      if (argc != 3) return arity;
      RedisCuckooFilter* f = filter(a[1]);
      if (f == nullptr) return Reply::error("Not found");
      return Reply::number(f->remove(span_of(a[2])));
    }
    if (name == "cf.compact") {
      if (argc != 2) return arity;
      RedisCuckooFilter* f = filter(a[1]);
      if (f == nullptr) return Reply::error("Cuckoo filter was not found");
      f->compact(true);
      return Reply::ok();
    }
    if (name == "cf.scandump") {
      if (argc != 3) return arity;
      const auto pos = parse_ll(a[2]);
      if (!pos || *pos < 0) return Reply::error("Invalid position");
      if (!exists(a[1])) return Reply::error("ERR not found");
      const RedisCuckooFilter* f = filter(a[1]);
      if (f == nullptr) return kWrongType;
      return scandump(*f, static_cast<std::uint64_t>(*pos));
    }
    if (name == "cf.loadchunk") {
      if (argc != 4) return arity;
      const auto pos = parse_ll(a[2]);
      if (!pos || *pos == 0) return Reply::error("Invalid position");
      if (*pos == 1) return load_header(a[1], a[3]);
      if (!exists(a[1])) return Reply::error("ERR not found");
      RedisCuckooFilter* f = filter(a[1]);
      if (f == nullptr) return kWrongType;
      return load_chunk(*f, *pos, a[3]) ? Reply::ok() : Reply::error("Couldn't load chunk!");
    }
    if (name == "cf.info") {
      if (argc != 2) return arity;
      if (!exists(a[1])) return Reply::error("ERR not found");
      const RedisCuckooFilter* f = filter(a[1]);
      if (f == nullptr) return kWrongType;
      return info(*f);
    }
    FAIL("the emulation has no command " << name);
    return arity;
  }

  static Reply scandump(const RedisCuckooFilter& f, std::uint64_t pos) {
    const Reply end = Reply::array({Reply::number(0), Reply{}});
    if (f.num_items() == 0) return end;  // an empty filter dumps nothing, not even its header
    if (pos == 0) {
      std::uint8_t header[cuckoo::redis::kHeaderSize];
      f.write_header(header);
      return Reply::array({Reply::number(1), Reply::bulk(header)});
    }
    const auto chunk = f.chunk_at(pos);
    if (chunk.next == 0) return end;
    return Reply::array({Reply::number(static_cast<long long>(chunk.next)), Reply::bulk(chunk.data)});
  }

  static Reply info(const RedisCuckooFilter& f) {
    const auto field = [](const char* name, long long v) {
      return std::vector<Reply>{Reply{Reply::Kind::text, 0, name, {}}, Reply::number(v)};
    };
    std::vector<Reply> out;
    for (auto&& pair : {field("Size", static_cast<long long>(f.info_size())),
                        field("Number of buckets", static_cast<long long>(f.num_buckets())),
                        field("Number of filters", static_cast<long long>(f.sub_filter_count())),
                        field("Number of items inserted", static_cast<long long>(f.num_items())),
                        field("Number of items deleted", static_cast<long long>(f.num_deletes())),
                        field("Bucket size", f.bucket_size()), field("Expansion rate", f.expansion()),
                        field("Max iterations", f.max_iterations())})
      out.insert(out.end(), pair.begin(), pair.end());
    return Reply::array(out);
  }

  static std::string debug(const RedisCuckooFilter& f) {
    return "bktsize:" + std::to_string(f.bucket_size()) + " buckets:" + std::to_string(f.num_buckets()) +
           " items:" + std::to_string(f.num_items()) + " deletes:" + std::to_string(f.num_deletes()) +
           " filters:" + std::to_string(f.sub_filter_count()) +
           " max_iterations:" + std::to_string(f.max_iterations()) + " expansion:" + std::to_string(f.expansion());
  }

 private:
  Reply reserve(const std::vector<std::string>& a) {
    const std::size_t argc = a.size();
    if (argc < 3 || argc % 2 == 0) return Reply::error("ERR wrong number of arguments for 'cf.reserve' command");
    const auto capacity = parse_ll(a[2]);
    if (!capacity) return Reply::error("Bad capacity");
    // A keyword is looked for, case-insensitively, over the whole argument list; its value follows it.
    std::string error;
    const auto option = [&](const std::string& keyword, long long fallback, long long low,
                            long long high) -> long long {
      for (std::size_t i = 0; i < argc; ++i) {
        if (lower(a[i]) != lower(keyword)) continue;
        const auto v = i + 1 < argc ? parse_ll(a[i + 1]) : std::nullopt;
        if (!v)
          error = "Couldn't parse " + keyword;
        else if (*v < low || *v > high)
          error = keyword + ": value must be an integer between " + std::to_string(low) + " and " +
                  std::to_string(high) + ", inclusive.";
        return v.value_or(0);
      }
      return fallback;
    };
    const long long iterations = option("MAXITERATIONS", 20, 1, 65535);
    if (!error.empty()) return Reply::error(error);
    const long long bucket_size = option("BUCKETSIZE", 2, 1, 255);
    if (!error.empty()) return Reply::error(error);
    const long long expansion = option("EXPANSION", 1, 0, 32768);
    if (!error.empty()) return Reply::error(error);
    if (bucket_size * 2 > *capacity) return Reply::error("Capacity must be at least (BucketSize * 2)");
    if (exists(a[1])) return filter(a[1]) != nullptr ? Reply::error("ERR item exists") : kWrongType;
    return create(a[1], static_cast<std::uint64_t>(*capacity), static_cast<unsigned>(bucket_size),
                  static_cast<unsigned>(iterations), static_cast<unsigned>(expansion));
  }

  Reply create(const std::string& key, std::uint64_t capacity, unsigned b, unsigned m, unsigned e) {
    std::optional<RedisCuckooFilter> made;
    const cuckoo::Status s = RedisCuckooFilter::make({capacity, b, m, e}, made);
    if (!s.ok()) return Reply::error(s.message);
    keys_.erase(key);
    keys_.emplace(key, std::move(*made));
    return Reply::ok();
  }

  Reply insert(const std::string& key, const std::vector<std::string>& items, bool nx, bool multi, long long capacity,
               bool create_missing) {
    if (!exists(key)) {
      if (!create_missing) return Reply::error("ERR not found");
      if (Reply r = create(key, static_cast<std::uint64_t>(capacity), 2, 20, 1); r.kind == Reply::Kind::error) return r;
    }
    RedisCuckooFilter* f = filter(key);
    if (f == nullptr) return kWrongType;
    // Checked once per command, before any item: one CF.INSERT may grow past it.
    if (f->sub_filter_count() >= cuckoo::redis::kMaxSubFiltersForAdd) return Reply::error("Maximum expansions reached");
    std::vector<Reply> out;
    for (const std::string& item : items) {
      using cuckoo::redis::AddResult;
      const AddResult r = nx ? f->add_if_absent(span_of(item)) : f->add(span_of(item));
      REQUIRE(r != AddResult::out_of_memory);
      const long long code = r == AddResult::added ? 1 : r == AddResult::present ? 0 : -1;
      if (code == -1 && !multi) return Reply::error("Filter is full");
      out.push_back(Reply::number(code));
    }
    return multi ? Reply::array(out) : out[0];
  }

  Reply load_header(const std::string& key, const std::string& blob) {
    if (exists(key)) return filter(key) != nullptr ? Reply::error("ERR item exists") : kWrongType;
    if (blob.size() != cuckoo::redis::kHeaderSize) return Reply::error("Invalid header");
    const auto h = cuckoo::redis::read_header(reinterpret_cast<const std::uint8_t*>(blob.data()));
    std::optional<RedisCuckooFilter> made;
    if (!RedisCuckooFilter::from_header(h, made).ok()) return Reply::error("Couldn't create filter!");
    keys_.emplace(key, std::move(*made));
    return Reply::ok();
  }

  // The server's placement of a data chunk: it ends at byte iterator - 1 of the data; a chunk may not
  // cross a sub-filter's end.
  static bool load_chunk(RedisCuckooFilter& f, long long pos, const std::string& blob) {
    const auto length = static_cast<long long>(blob.size());
    if (length == 0 || pos <= 0 || pos - 1 < length) return false;
    auto offset = static_cast<std::uint64_t>(pos - length - 1);
    // Past the end, the offset left after subtracting every sub-filter's size lands in the last one.
    std::size_t k = 0;
    for (; k < f.sub_filter_count(); ++k) {
      if (offset < f.sub_filter(k).size()) break;
      offset -= f.sub_filter(k).size();
    }
    k = std::min(k, f.sub_filter_count() - 1);
    const auto target = f.mutable_sub_filter(k);
    if (offset + blob.size() > target.size()) return false;
    std::copy(blob.begin(), blob.end(), target.begin() + static_cast<std::ptrdiff_t>(offset));
    return true;
  }

  std::map<std::string, Entry> keys_;
};

std::vector<std::string> args_of(const Value& args) {
  std::vector<std::string> out;
  for (const Value& a : args.items) out.push_back(bytes_of(a));
  return out;
}

void replay(const Value& config) {
  const std::string name = config["name"].text;
  Server server;
  const auto& commands = config["commands"].items;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Reply got = server.call(args_of(commands[i]["args"]));
    INFO(name << " command " << i << ": " << commands[i]["args"].items[0].text << ", got " << show(got));
    REQUIRE(same(commands[i]["reply"], got));
  }
  const RedisCuckooFilter* f = server.filter(bytes_of(config["key"]));
  REQUIRE(f != nullptr);
  // The whole SCANDUMP walk: iterator 0, then each returned iterator, until [0, nil].
  std::uint64_t iterator = 0;
  const auto& dump = config["scandump"].items;
  for (std::size_t i = 0; i < dump.size(); ++i) {
    const Reply got = Server::scandump(*f, iterator);
    INFO(name << " scandump " << i << ": got " << show(got));
    REQUIRE(got.items.size() == 2);
    REQUIRE(std::to_string(got.items[0].integer) == dump[i]["iterator"].text);
    const Value& e = dump[i];
    if (e.members.count("chunk") && e["chunk"].kind == Value::Kind::null) {
      REQUIRE(got.items[1].kind == Reply::Kind::nil);
    } else if (e.members.count("chunk")) {
      Value expected;
      expected.kind = Value::Kind::object;
      expected.members["hex"] = e["chunk"];
      REQUIRE(same(expected, got.items[1]));
    } else {
      REQUIRE(same(e, got.items[1]));
    }
    iterator = static_cast<std::uint64_t>(got.items[0].integer);
  }
  const Reply info = Server::info(*f);
  for (std::size_t i = 0; i < info.items.size(); i += 2) {
    INFO(name << " info " << info.items[i].text);
    REQUIRE(std::to_string(info.items[i + 1].integer) == config["info"][info.items[i].text].text);
  }
  CHECK(Server::debug(*f) == config["debug"].text);
  for (const Value& probe : config["probes"].items) {
    const std::string item = bytes_of(probe["item"]);
    INFO(name << " probe " << hex(span_of(item)));
    REQUIRE(std::to_string(f->contains(span_of(item))) == probe["exists"].text);
    REQUIRE(std::to_string(f->count(span_of(item))) == probe["count"].text);
  }
}

}  // namespace

TEST_CASE("MurmurHash64A, fingerprints and buckets as RedisBloom computes them", "[redis]") {
  for (const Value& h : vectors()["hashes"].items) {
    const std::string item = bytes_of(h["item"]);
    const auto it = cuckoo::redis::item_of(reinterpret_cast<const std::uint8_t*>(item.data()), item.size());
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(it.h1));
    INFO(hex(span_of(item)));
    REQUIRE(text == h["murmur64a"].text);
    REQUIRE(std::to_string(it.fp) == h["fp"].text);
    REQUIRE(std::to_string(it.h1 % (1u << 20)) == h["i1_mod_2pow20"].text);
    REQUIRE(std::to_string(it.h2 % (1u << 20)) == h["i2_mod_2pow20"].text);
  }
}

TEST_CASE("CF.RESERVE's argument checks and error texts", "[redis]") {
  Server server;
  for (const Value& c : vectors()["reserve_errors"].items) {
    const auto args = args_of(c["args"]);
    const Reply got = server.call(args);
    INFO(args[0] << " " << (args.size() > 2 ? args[2] : "") << ": got " << show(got));
    if (c["reply"].kind == Value::Kind::object && !c["reply"].members.count("error")) {
      REQUIRE(got.kind == Reply::Kind::array);
      for (std::size_t i = 0; i < got.items.size(); i += 2)
        REQUIRE(std::to_string(got.items[i + 1].integer) == c["reply"][got.items[i].text].text);
    } else {
      REQUIRE(same(c["reply"], got));
    }
  }
}

TEST_CASE("every recorded command sequence gives the server's replies, dump bytes, CF.INFO and answers", "[redis]") {
  for (const Value& config : vectors()["configs"].items) {
    SECTION(config["name"].text) { replay(config); }
  }
}

TEST_CASE("filters of 64 MiB and 40 MiB sub-filters dump in the server's 16 MiB pieces", "[redis][fill]") {
  for (const Value& config : vectors()["big"].items) {
    SECTION(config["name"].text) { replay(config); }
  }
}

namespace {

std::string model_key(std::uint64_t i) { return "model-" + std::to_string(i); }

}  // namespace

// Against an exact multiset: no false negatives for adds and lookups, whatever growth and full tables do;
// a failed add changes nothing; within one sub-filter (no growth) deletes of added items are exact too
// (an item's bucket pair follows from one bucket and its fingerprint, so equal fingerprints in a bucket
// are interchangeable).
TEST_CASE("RedisCuckooFilter against an exact multiset", "[redis][model]") {
  struct Shape {
    std::uint64_t capacity;
    unsigned b, m, e;
  };
  const Shape shape = GENERATE(Shape{64, 1, 20, 0}, Shape{256, 2, 20, 0}, Shape{512, 4, 500, 0}, Shape{64, 2, 20, 1},
                               Shape{32, 4, 50, 2}, Shape{60, 3, 10, 4});
  CAPTURE(shape.capacity, shape.b, shape.m, shape.e);
  std::optional<RedisCuckooFilter> made;
  REQUIRE(RedisCuckooFilter::make({shape.capacity, shape.b, shape.m, shape.e}, made).ok());
  RedisCuckooFilter& f = *made;
  std::map<std::uint64_t, int> model;
  std::uint64_t items = 0;
  std::uint64_t state = 12345 + shape.capacity;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int op = 0; op < 6000; ++op) {
    const std::uint64_t k = next() % 400;
    const std::string key = model_key(k);
    const auto r = next() % 10;
    if (r < 6) {
      if (f.sub_filter_count() >= cuckoo::redis::kMaxSubFiltersForAdd) continue;
      std::vector<std::uint8_t> before;
      for (std::size_t s = 0; s < f.sub_filter_count(); ++s)
        before.insert(before.end(), f.sub_filter(s).begin(), f.sub_filter(s).end());
      const auto result = f.add(span_of(key));
      if (result == cuckoo::redis::AddResult::added) {
        ++model[k];
        ++items;
      } else {
        REQUIRE(result == cuckoo::redis::AddResult::full);
        std::vector<std::uint8_t> after;
        for (std::size_t s = 0; s < f.sub_filter_count(); ++s)
          after.insert(after.end(), f.sub_filter(s).begin(), f.sub_filter(s).end());
        REQUIRE(after == before);  // the rollback left every byte as it was
      }
    } else if (r < 8 && shape.e == 0 && !model.empty()) {
      // Deletes of added items only: deleting one never added may take another item's equal fingerprint.
      auto it = model.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(next() % model.size()));
      REQUIRE(f.remove(span_of(model_key(it->first))));
      if (--it->second == 0) model.erase(it);
      --items;
    }
    REQUIRE(f.num_items() == items);
    REQUIRE(f.occupied_slots() == items);
    if (op % 50 == 0)
      for (const auto& [key_index, copies] : model) REQUIRE(f.contains(span_of(model_key(key_index))));
  }
  for (const auto& [key_index, copies] : model) {
    REQUIRE(f.contains(span_of(model_key(key_index))));
    REQUIRE(f.count(span_of(model_key(key_index))) >= static_cast<std::uint64_t>(copies));
  }
}

namespace {

using Pairs = std::vector<std::pair<std::uint64_t, std::string>>;

// A filter's dump as CF.SCANDUMP gives it: the (iterator, chunk) pairs CF.LOADCHUNK takes.
Pairs dump_of(const RedisCuckooFilter& f) {
  Pairs out;
  std::uint64_t iterator = 0;
  for (;;) {
    const Reply r = Server::scandump(f, iterator);
    if (r.items[0].integer == 0) return out;
    iterator = static_cast<std::uint64_t>(r.items[0].integer);
    out.emplace_back(iterator, r.items[1].text);
  }
}

cuckoo::Status load(const Pairs& pairs, std::optional<RedisCuckooFilter>& out) {
  cuckoo::redis::ChunkLoader loader;
  for (const auto& [iterator, chunk] : pairs)
    if (cuckoo::Status s = loader.push(iterator, reinterpret_cast<const std::uint8_t*>(chunk.data()), chunk.size());
        !s.ok())
      return s;
  return loader.finish(out);
}

std::string load_error(const Pairs& pairs) {
  std::optional<RedisCuckooFilter> out;
  const cuckoo::Status s = load(pairs, out);
  if (s.ok()) return "(accepted)";
  CHECK(s.code == cuckoo::ErrorCode::bad_format);
  return s.message;
}

// A grown filter with items in three sub-filters of different sizes.
RedisCuckooFilter grown() {
  std::optional<RedisCuckooFilter> made;
  REQUIRE(RedisCuckooFilter::make({32, 2, 20, 2}, made).ok());
  for (int i = 0; i < 150; ++i)
    REQUIRE(made->add(span_of("grown-" + std::to_string(i))) == cuckoo::redis::AddResult::added);
  REQUIRE(made->sub_filter_count() >= 3);
  return std::move(*made);
}

}  // namespace

TEST_CASE("ChunkLoader reads every dump back to the same filter", "[redis]") {
  std::vector<RedisCuckooFilter> filters;
  filters.push_back(grown());
  for (const Value& config : vectors()["configs"].items) {
    Server server;
    for (const Value& c : config["commands"].items) (void)server.call(args_of(c["args"]));
    RedisCuckooFilter* f = server.filter(bytes_of(config["key"]));
    REQUIRE(f != nullptr);
    std::optional<RedisCuckooFilter> copy;
    if (f->num_items() == 0 || f->num_items() != f->occupied_slots()) continue;  // nothing to dump; loaded garbage
    REQUIRE(load(dump_of(*f), copy).ok());
    filters.push_back(std::move(*copy));
  }
  CHECK(filters.size() >= 10);
  for (const RedisCuckooFilter& f : filters) {
    std::optional<RedisCuckooFilter> copy;
    const Pairs dump = dump_of(f);
    REQUIRE(load(dump, copy).ok());
    CHECK(dump_of(*copy) == dump);
    CHECK(copy->num_deletes() == f.num_deletes());
    for (int i = 0; i < 200; ++i) {
      const std::string probe = "grown-" + std::to_string(i);
      REQUIRE(copy->count(span_of(probe)) == f.count(span_of(probe)));
    }
  }
}

TEST_CASE("ChunkLoader refuses damaged, reordered, truncated and legacy dumps by name", "[redis]") {
  const RedisCuckooFilter f = grown();
  const Pairs good = dump_of(f);
  REQUIRE(good.size() == 1 + f.sub_filter_count());
  CHECK(load_error(good) == "(accepted)");

  // Legacy headers, and other lengths.
  CHECK_THAT(load_error({{1, std::string(32, '\0')}}), Catch::Contains("32-byte header is RedisBloom 1.0-2.0's"));
  CHECK_THAT(load_error({{1, std::string(46, '\0')}}), Catch::Contains("46-byte header is RedisBloom 2.2.0-2.2.10's"));
  CHECK_THAT(load_error({{1, std::string(40, '\0')}}), Catch::Contains("the header is 40 bytes, not 38"));
  CHECK_THAT(load_error({}), Catch::Contains("no header"));

  // Truncation: a missing last chunk, a shorter one, data after the end.
  CHECK_THAT(load_error({good.begin(), good.end() - 1}), Catch::Contains("truncated"));
  Pairs cut = good;
  cut.back().second.pop_back();
  --cut.back().first;
  CHECK_THAT(load_error(cut), Catch::Contains("CF.SCANDUMP gives"));
  Pairs longer = good;
  longer.emplace_back(good.back().first + 2, "ab");
  CHECK_THAT(load_error(longer), Catch::Contains("trailing data"));

  // Wrong iterators: the header elsewhere than 1, a chunk off by one, two chunks swapped, one repeated.
  Pairs moved = good;
  moved.front().first = 0;
  CHECK_THAT(load_error(moved), Catch::Contains("at iterator 1"));
  Pairs shifted = good;
  ++shifted[2].first;
  CHECK_THAT(load_error(shifted), Catch::Contains("CF.SCANDUMP gives"));
  Pairs swapped = good;
  std::swap(swapped[1], swapped[2]);
  CHECK_THAT(load_error(swapped), Catch::Contains("CF.SCANDUMP gives"));
  Pairs repeated = good;
  repeated.insert(repeated.begin() + 2, repeated[1]);
  CHECK_THAT(load_error(repeated), Catch::Contains("CF.SCANDUMP gives"));

  // Every bit of the fields that say how much data follows and how many items it holds (num_items,
  // num_buckets, num_filters, bucket_size). The delete count and max_iterations can hold any value a
  // server can write, and the format has no checksum.
  using namespace cuckoo::redis::header_offset;
  for (const auto& [offset, width] : std::vector<std::pair<std::size_t, std::size_t>>{
           {num_items, 8}, {num_buckets, 8}, {num_filters, 8}, {bucket_size, 2}}) {
    for (std::size_t bit = 0; bit < 8 * width; ++bit) {
      Pairs flipped = good;
      flipped.front().second[offset + bit / 8] ^= static_cast<char>(1 << (bit % 8));
      INFO("header byte " << offset + bit / 8 << " bit " << bit % 8);
      CHECK(load_error(flipped) != "(accepted)");
    }
  }
  Pairs zeroed = good;
  std::string& table = zeroed[1].second;
  const auto used = std::find_if(table.begin(), table.end(), [](char c) { return c != 0; });
  REQUIRE(used != table.end());
  *used = 0;
  CHECK_THAT(load_error(zeroed), Catch::Contains("does not match the"));

  // Headers no server writes: expansion 3, expansion 0 with two sub-filters, 65537 sub-filters.
  const auto with = [&](std::size_t offset, std::uint64_t value, unsigned width) {
    Pairs p = good;
    cuckoo::detail::put_le(reinterpret_cast<std::uint8_t*>(p.front().second.data()) + offset, value, width);
    return load_error(p);
  };
  CHECK_THAT(with(expansion, 3, 2), Catch::Contains("expansion 3 is not 0 or a power of two"));
  CHECK_THAT(with(expansion, 0, 2), Catch::Contains("expansion 0 (a filter that never grows) with"));
  CHECK_THAT(with(num_filters, 65537, 8), Catch::Contains("number of sub-filters 65537"));
  CHECK_THAT(with(num_buckets, std::uint64_t{1} << 60, 8), Catch::Contains("not a power of two below 2^56"));
  CHECK_THAT(with(num_buckets, std::uint64_t{1} << 55, 8), Catch::Contains("would have more than 2^56 buckets"));
  CHECK_THAT(with(num_buckets, std::uint64_t{1} << 50, 8), Catch::Contains("CF.SCANDUMP gives 16777216 bytes"));
  // Deletes made while a filter has one sub-filter stay counted after it grows (only a delete compacts):
  // any count can be in a server's dump.
  CHECK(with(num_deletes, f.num_items() / 10 + 1, 8) == "(accepted)");
  CHECK(with(num_deletes, ~std::uint64_t{0}, 8) == "(accepted)");
}

TEST_CASE("a filter whose deletes came before its growth dumps and loads (the server reloads it too)", "[redis]") {
  // On a server: deletes while the filter has one sub-filter, then growth. CF.INFO then says, e.g., items
  // 78, deleted 35, filters 2 (no delete since the growth, so nothing compacted), and the server reloads
  // its own dump.
  std::optional<RedisCuckooFilter> made;
  REQUIRE(RedisCuckooFilter::make({64, 2, 20, 1}, made).ok());
  RedisCuckooFilter& f = *made;
  for (int i = 0; i < 40; ++i) REQUIRE(f.add(span_of("k" + std::to_string(i))) == cuckoo::redis::AddResult::added);
  REQUIRE(f.sub_filter_count() == 1);
  for (int i = 0; i < 20; ++i) REQUIRE(f.remove(span_of("k" + std::to_string(i))));
  for (int i = 0; f.sub_filter_count() == 1; ++i)
    REQUIRE(f.add(span_of("late-" + std::to_string(i))) == cuckoo::redis::AddResult::added);
  REQUIRE(f.num_deletes() == 20);
  REQUIRE(static_cast<double>(f.num_deletes()) > static_cast<double>(f.num_items()) * 0.10);
  const Pairs dump = dump_of(f);
  std::optional<RedisCuckooFilter> copy;
  REQUIRE(load(dump, copy).ok());
  CHECK(dump_of(*copy) == dump);
  CHECK(copy->num_deletes() == 20);
}
