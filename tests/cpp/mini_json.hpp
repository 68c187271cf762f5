// A small JSON reader for the test vectors (golden.json, redisbloom.json; tests only). Numbers keep their source text
// so that 64-bit integers are not rounded through a double.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mini_json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  std::string text;  // string contents, or a number's source text
  std::vector<Value> items;
  std::map<std::string, Value> members;

  const Value& operator[](const std::string& name) const {
    const auto it = members.find(name);
    if (it == members.end()) throw std::runtime_error("JSON: missing member " + name);
    return it->second;
  }
  [[nodiscard]] std::uint64_t as_u64() const { return std::stoull(text, nullptr, 0); }
};

class Parser {
 public:
  explicit Parser(const std::string& source) : s_(source) {}
  Value parse() {
    Value v = value();
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  Value value() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    Value v;
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = Value::Kind::object;
      ++pos_;
      if (eat('}')) return v;
      do {
        skip_space();
        const std::string name = string();
        expect(':');
        v.members[name] = value();
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Value::Kind::array;
      ++pos_;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::string;
      v.text = string();
    } else if (s_.compare(pos_, 4, "true") == 0 || s_.compare(pos_, 5, "false") == 0) {
      v.kind = Value::Kind::boolean;
      v.boolean = s_[pos_] == 't';
      pos_ += v.boolean ? 4 : 5;
    } else if (s_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
    } else {
      v.kind = Value::Kind::number;
      const std::size_t start = pos_;
      while (pos_ < s_.size() && std::string("+-0123456789.eE").find(s_[pos_]) != std::string::npos) ++pos_;
      if (start == pos_) fail("unexpected character");
      v.text = s_.substr(start, pos_ - start);
    }
    return v;
  }
  std::string string() {
    if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("bad escape");
      c = s_[pos_++];
      switch (c) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          unsigned code = hex4();
          // A surrogate pair is one code point; a lone surrogate is written as it stands (as WTF-8).
          if (code >= 0xD800 && code < 0xDC00 && s_.compare(pos_, 2, "\\u") == 0) {
            pos_ += 2;
            const unsigned low = hex4();
            if (low >= 0xDC00 && low < 0xE000)
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            else
              pos_ -= 6;
          }
          append_utf8(out, code);
          break;
        }
        default:
          out += c;
      }
    }
    if (pos_ >= s_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("bad \\u escape");
    const auto code = static_cast<unsigned>(std::stoul(s_.substr(pos_, 4), nullptr, 16));
    pos_ += 4;
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    const auto byte = [&](unsigned b) { out += static_cast<char>(b); };
    if (code < 0x80) {
      byte(code);
    } else if (code < 0x800) {
      byte(0xC0 | (code >> 6));
      byte(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      byte(0xE0 | (code >> 12));
      byte(0x80 | ((code >> 6) & 0x3F));
      byte(0x80 | (code & 0x3F));
    } else {
      byte(0xF0 | (code >> 18));
      byte(0x80 | ((code >> 12) & 0x3F));
      byte(0x80 | ((code >> 6) & 0x3F));
      byte(0x80 | (code & 0x3F));
    }
  }

  const std::string& s_;
  std::size_t pos_ = 0;
};

inline Value parse(const std::string& text) { return Parser(text).parse(); }

inline std::vector<std::uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex string");
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

}  // namespace mini_json
