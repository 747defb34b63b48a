// The networks built into the program (src/engine/nets/default.nnue for
// Makruk, ouk.nnue for Ouk Chatrang), the evaluation the UCI engine, the
// server's CPU players and self-play start with.
#pragma once

#include <memory>
#include <string>

#include "nnue.h"

namespace makruk::engine::nnue {

// The built-in network of a variant. Read once, on first use; shared by every engine.
std::shared_ptr<const Network> default_network(Variant v = Variant::Makruk);
Networks default_networks();

// The networks a command line names: "" or "<built-in>" the built-in ones,
// "none" no network (the hand-written evaluation), else a file (for every
// variant it was trained on). False, with the reason in *error, when the
// file does not load.
bool network_by_name(const std::string& name, Networks& out, std::string* error);

}  // namespace makruk::engine::nnue
