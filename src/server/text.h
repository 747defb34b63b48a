// Small text helpers for headers and URLs (ASCII only).
#pragma once

#include <algorithm>
#include <cctype>
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

}  // namespace makruk::server
