#include "default_network.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "default_network_data.h"

namespace makruk::engine::nnue {

std::shared_ptr<const Network> default_network() {
  static const std::shared_ptr<const Network> net = [] {
    std::string error;
    std::shared_ptr<const Network> n =
        load(std::string_view(reinterpret_cast<const char*>(DEFAULT_NETWORK), sizeof DEFAULT_NETWORK), &error);
    if (!n) {  // the build embedded a file this code cannot read: a build error in all but name
      std::fprintf(stderr, "makruk: the built-in network does not load: %s\n", error.c_str());
      std::abort();
    }
    return n;
  }();
  return net;
}

bool network_by_name(const std::string& name, std::shared_ptr<const Network>& out, std::string* error) {
  if (name.empty() || name == "<built-in>") {
    out = default_network();
  } else if (name == "none") {
    out = nullptr;
  } else {
    std::shared_ptr<const Network> net = load_file(name, error);
    if (!net) return false;
    out = std::move(net);
  }
  return true;
}

}  // namespace makruk::engine::nnue
