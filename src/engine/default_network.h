// The network built into the program (src/engine/nets/default.nnue), the
// evaluation the UCI engine, the server's CPU players and self-play start with.
#pragma once

#include <memory>
#include <string>

#include "nnue.h"

namespace makruk::engine::nnue {

// Read once, on first use; shared by every engine.
std::shared_ptr<const Network> default_network();

// The network a command line names: "" or "<built-in>" the built-in one,
// "none" no network (the hand-written evaluation: out is null), else a file.
// False, with the reason in *error, when the file does not load.
bool network_by_name(const std::string& name, std::shared_ptr<const Network>& out, std::string* error);

}  // namespace makruk::engine::nnue
