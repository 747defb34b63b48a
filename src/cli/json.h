// A minimal JSON writer for the command line's one-line outputs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace json {

class Writer {
 public:
  Writer& begin_object() { return open('{'); }
  Writer& end_object() { return close('}'); }
  Writer& begin_array() { return open('['); }
  Writer& end_array() { return close(']'); }
  Writer& key(std::string_view k) {
    separate();
    quote(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  Writer& string(std::string_view s) {
    separate();
    quote(s);
    return *this;
  }
  Writer& number(int64_t v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  Writer& boolean(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  Writer& null() {
    separate();
    out_ += "null";
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  Writer& open(char c) {
    separate();
    out_ += c;
    first_ = true;
    return *this;
  }
  Writer& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  void separate() {
    if (after_key_) after_key_ = false;
    else if (!first_ && !out_.empty()) out_ += ',';
    first_ = false;
  }
  // Length of the valid UTF-8 sequence at s[i], or 0 when it is not valid.
  static size_t utf8_length(std::string_view s, size_t i) {
    unsigned char c = s[i];
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (c >= 0xF5 || n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
    return n;
  }

  void quote(std::string_view s) {
    static const char* hex = "0123456789abcdef";
    out_ += '"';
    for (size_t i = 0; i < s.size(); ++i) {
      unsigned char c = s[i];
      if (c >= 0x80) {  // copy valid UTF-8 as it is; replace anything else
        size_t n = utf8_length(s, i);
        if (n) {
          out_.append(s.substr(i, n));
          i += n - 1;
        } else {
          out_ += "\\ufffd";
        }
        continue;
      }
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            out_ += "\\u00";
            out_ += hex[c >> 4];
            out_ += hex[c & 15];
          } else {
            out_ += char(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace json
