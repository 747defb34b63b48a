#include "default_network.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "default_network_data.h"

namespace makruk::engine::nnue {

namespace {

std::shared_ptr<const Network> built_in(const unsigned char* data, size_t size, const char* name) {
  std::string error;
  std::shared_ptr<const Network> n = load(std::string_view(reinterpret_cast<const char*>(data), size), &error);
  if (!n) {  // the build embedded a file this code cannot read: a build error in all but name
    std::fprintf(stderr, "makruk: the built-in network %s does not load: %s\n", name, error.c_str());
    std::abort();
  }
  return n;
}

}  // namespace

std::shared_ptr<const Network> default_network(Variant v) {
  static const std::shared_ptr<const Network> makruk = built_in(DEFAULT_NETWORK, sizeof DEFAULT_NETWORK, "default.nnue");
  static const std::shared_ptr<const Network> ouk = built_in(OUK_NETWORK, sizeof OUK_NETWORK, "ouk.nnue");
  return v == Variant::Ouk ? ouk : makruk;
}

Networks default_networks() { return {default_network(Variant::Makruk), default_network(Variant::Ouk)}; }

bool network_by_name(const std::string& name, Networks& out, std::string* error) {
  if (name.empty() || name == "<built-in>") {
    out = default_networks();
  } else if (name == "none") {
    out = Networks{};
  } else {
    std::shared_ptr<const Network> net = load_file(name, error);
    if (!net) return false;
    out = Networks::all(net);
  }
  return true;
}

}  // namespace makruk::engine::nnue
