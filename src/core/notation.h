// Move notations (docs/rules.md §7): coordinate strings for engines and records,
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
// says which in `error` (messages.h: move.*).
Move parse_move(const Position& pos, std::string_view text, Why error = nullptr);

// Standard algebraic notation of a legal move: "Nd2", "exd6=M+", "Kb2", "Rxa8#".
std::string move_to_san(const Position& pos, Move m);
// The same with Thai piece letters (ข ม็ ค ม ร), promotion written "=ม็".
std::string move_to_thai_san(const Position& pos, Move m);
// A move as the game screen writes it in Thai or Khmer: the script's piece
// letters (ข ม็ ค ม ร / ស្ត ន គ ស ទ), files and digits, × for a capture, =ม็ / =ន
// for a promotion; a pawn capture, and a piece told apart by its rank, name the
// whole square they leave ("ข๓×ค๔"), so that parse_typed_move reads it back.
enum class Script { Thai, Khmer };
std::string move_in_script(const Position& pos, Move m, Script script);
// Parses SAN (check marks optional, "=M" optional on promotions).
Move parse_san(const Position& pos, std::string_view text, Why error = nullptr);

// What a player types into the move box, in the notation the game screen shows
// or any other a player is likely to type: SAN with or without 'x', check
// marks or "=M" (Nd2, exd6, nc4, Rxa8+); coordinates (e3e4, e3-e4, e3xe4);
// Thai and Khmer notation with their own letters and digits (มง๒, ข๓×ค๔, សង៧),
// where a file letter is one exactly when a digit follows it (ข and ค are also
// piece letters). A null move when it names no legal move, with the reason.
enum class TypedError { None, Empty, Bad, Illegal, Ambiguous };
Move parse_typed_move(const Position& pos, std::string_view text, TypedError* why = nullptr);
std::string_view typed_error_string(TypedError e);  // "empty", "bad", "illegal", "ambiguous"
Message typed_error_message(TypedError e, std::string_view text);  // typed.*

std::string square_name(Square s);

}  // namespace makruk
