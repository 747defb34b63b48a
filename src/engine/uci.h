// The UCI front end, speaking the protocol as Fairy-Stockfish does for these
// variants. Parses and delegates; the engine does the thinking.
#pragma once

#include <iosfwd>

namespace makruk::engine {

// Reads commands until "quit" or end of input. Returns the process exit code.
int uci_loop(std::istream& in, std::ostream& out);

}  // namespace makruk::engine
