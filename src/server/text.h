// Small text helpers: headers and URLs (ASCII), and reading UTF-8.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace makruk::server {

// Without leading and trailing spaces and tabs.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// ASCII letters in lower case; other bytes as they are.
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The comma-separated items of a header value, each trimmed; an empty value
// or an empty place between commas gives an empty item.
inline std::vector<std::string_view> list_items(std::string_view value) {
  std::vector<std::string_view> items;
  for (size_t pos = 0; pos <= value.size();) {
    const size_t comma = std::min(value.find(',', pos), value.size());
    items.push_back(trim(value.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return items;
}

// The value of `name` in a URL's query ("a=1&k=x" gives "x" for "k"), as it
// is (no percent-decoding); empty when it is absent.
inline std::string query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = std::min(query.find('&'), query.size());
    std::string_view item = query.substr(0, amp);
    if (item.size() > name.size() && item.substr(0, name.size()) == name && item[name.size()] == '=')
      return std::string(item.substr(name.size() + 1));
    query.remove_prefix(std::min(amp + 1, query.size()));
  }
  return "";
}

// The code point that starts at s[i], advancing i past it; nothing (and i
// unchanged) when the bytes there are not well-formed UTF-8: a stray or
// missing continuation byte, an overlong form, a surrogate, or past U+10FFFF.
inline std::optional<uint32_t> next_code_point(std::string_view s, size_t& i) {
  if (i >= s.size()) return std::nullopt;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return std::nullopt;
  uint32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cont = static_cast<unsigned char>(s[i + k]);
    if ((cont & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (cont & 0x3F);
  }
  static constexpr uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return std::nullopt;
  i += n;
  return cp;
}

}  // namespace makruk::server
