// Move notations (RULES.md §7): coordinate strings for engines and records,
// SAN both ways, and Thai SAN for display. They depend on the position, never
// the other way round.
#pragma once

#include <string>
#include <string_view>

#include "position.h"

namespace makruk {

// "e3e4"; a promotion carries a trailing 'm' ("d5d6m").
std::string move_to_string(Move m);
// Parses a coordinate move and matches it against the legal moves: "d5d6" and
// "d5d6m" both name a promotion; 'm' on a move that does not promote is refused.
// Returns a null move when the text is malformed or the move is illegal, and
// says which in *error.
Move parse_move(const Position& pos, std::string_view text, std::string* error = nullptr);

// Standard algebraic notation of a legal move: "Nd2", "exd6=M+", "Kb2", "Rxa8#".
std::string move_to_san(const Position& pos, Move m);
// The same with Thai piece letters (ข ม็ ค ม ร), promotion written "=ม็".
std::string move_to_thai_san(const Position& pos, Move m);
// Parses SAN (check marks optional, "=M" optional on promotions).
Move parse_san(const Position& pos, std::string_view text, std::string* error = nullptr);

std::string square_name(Square s);

}  // namespace makruk
