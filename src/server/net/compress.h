// gzip for answers made on the fly (the API's JSON): the web client's files
// come compressed from the build, these are compressed as they go out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace makruk::server {

// Answers shorter than this go as they are: compressing them gains little.
constexpr size_t GZIP_MIN_BYTES = 512;

// `data` as a gzip member (RFC 1952), or nothing when zlib fails.
std::optional<std::string> gzip(std::string_view data);

}  // namespace makruk::server
