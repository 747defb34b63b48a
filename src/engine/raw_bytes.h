// The engine's own binary files (networks, training checkpoints): values
// copied as they lie in memory, little-endian as every target is.
#pragma once

#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace makruk::engine {

template <typename T>
void write_raw(std::string& out, const T* in, size_t count) {
  out.append(reinterpret_cast<const char*>(in), sizeof(T) * count);
}

// Takes `count` values off the front of `in`; false (and nothing taken) when
// fewer bytes are left.
template <typename T>
bool read_raw(std::string_view& in, T* out, size_t count) {
  const size_t bytes = sizeof(T) * count;
  if (in.size() < bytes) return false;
  std::memcpy(out, in.data(), bytes);
  in.remove_prefix(bytes);
  return true;
}

// A whole file; false when it cannot be read.
inline bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return bool(in);
}

}  // namespace makruk::engine
