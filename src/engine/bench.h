// `makruk bench`: a fixed set of positions searched to a fixed depth. The
// total node count is the search's signature; it changes only when the search does.
#pragma once

#include <iosfwd>
#include <string>

namespace makruk::engine {

// eval_file: the network to evaluate with, by nnue::network_by_name ("": the
// built-in one, "none": the hand-written evaluation).
int run_bench(int depth, std::ostream& out, const std::string& eval_file = "");

}  // namespace makruk::engine
