#include "server/net/static_files.h"

#include <cstdio>
#include <fstream>
#include <iterator>

namespace makruk::server {

namespace {

// 64-bit FNV-1a: a validator, not a signature (a collision would only serve
// a stale copy to a browser that already held the other file).
std::string etag_of(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char text[48];
  std::snprintf(text, sizeof text, "\"%016llx-%zx\"", static_cast<unsigned long long>(h), bytes.size());
  return text;
}

}  // namespace

std::shared_ptr<const StaticFiles::File> StaticFiles::get(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return nullptr;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return nullptr;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = files_.find(path);
    if (it != files_.end() && it->second->mtime == mtime && it->second->size == size) return it->second;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  auto file = std::make_shared<File>();
  file->body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return nullptr;
  file->etag = etag_of(file->body);
  file->mtime = mtime;
  // The size stat saw, not the bytes read: a file rewritten between the two
  // no longer matches at the next request, and is read again then.
  file->size = size;
  std::lock_guard lock(mutex_);
  auto it = files_.find(path);
  if (it != files_.end()) {
    total_ -= it->second->body.size();
    files_.erase(it);
  }
  if (file->body.size() <= max_file_ && total_ + file->body.size() <= max_total_) {
    total_ += file->body.size();
    files_.emplace(path, file);
  }
  return file;
}

std::size_t StaticFiles::kept_files() const {
  std::lock_guard lock(mutex_);
  return files_.size();
}

std::size_t StaticFiles::kept_bytes() const {
  std::lock_guard lock(mutex_);
  return total_;
}

bool StaticFiles::none_match(std::string_view header, std::string_view etag) {
  size_t i = 0;
  while (i < header.size()) {
    const char c = header[i];
    if (c == ' ' || c == '\t' || c == ',') {
      ++i;
      continue;
    }
    if (c == '*') return true;
    if (header.substr(i, 2) == "W/") i += 2;
    if (i >= header.size() || header[i] != '"') return false;  // not an entity tag: no match
    const size_t end = header.find('"', i + 1);
    if (end == std::string_view::npos) return false;
    if (header.substr(i, end + 1 - i) == etag) return true;  // ours are strong: "…"
    i = end + 1;
  }
  return false;
}

}  // namespace makruk::server
