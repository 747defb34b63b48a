// `makruk bench`: a fixed set of positions searched to a fixed depth. The
// total node count is the search's signature; it changes only when the search does.
#pragma once

#include <iosfwd>

namespace makruk::engine {

int run_bench(int depth, std::ostream& out);

}  // namespace makruk::engine
