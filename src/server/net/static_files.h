// The built web client's files, kept in memory once read. A file is read from
// disk again only when its size or modification time changes (a new build
// while the server runs), so a request costs one stat, not a read. Each file
// carries a strong validator (ETag) made from its bytes, for conditional GETs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace makruk::server {

class StaticFiles {
 public:
  struct File {
    std::string body;
    std::string etag;  // quoted, e.g. "\"1f3a…-1234\""
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
  };

  // Files larger than `max_file` are read on every request (never kept);
  // together the kept ones stay under `max_total` bytes.
  StaticFiles(std::size_t max_file, std::size_t max_total) : max_file_(max_file), max_total_(max_total) {}
  StaticFiles() : StaticFiles(8u << 20, 64u << 20) {}

  // The file's bytes, or null when it is not a readable regular file. Safe to
  // call from several threads.
  std::shared_ptr<const File> get(const std::filesystem::path& path);

  // How many files and bytes are kept (for tests and diagnostics).
  std::size_t kept_files() const;
  std::size_t kept_bytes() const;

  // Whether an If-None-Match header value names `etag` (or is "*"). Weak
  // comparison, as RFC 9110 asks for If-None-Match: W/"x" matches "x".
  static bool none_match(std::string_view header, std::string_view etag);

 private:
  std::size_t max_file_, max_total_;
  mutable std::mutex mutex_;
  std::map<std::filesystem::path, std::shared_ptr<const File>> files_;
  std::size_t total_ = 0;
};

}  // namespace makruk::server
