// PGN, the exchange format of chess programs, for these variants as
// Fairy-Stockfish-based tools and pychess write it: the seven standard tags, a
// Variant tag ("makruk" or "cambodian"), FEN and SetUp when the game did not
// start from the usual position, then the moves in SAN (notation.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "game.h"

namespace makruk {

using PgnTags = std::vector<std::pair<std::string, std::string>>;

// The Variant tag's value for a variant ("makruk", "cambodian"), and the
// variant a Variant tag names (also "Makruk", "Cambodian", "ouk", "Ouk
// Chatrang"; any case), or nothing.
std::string_view pgn_variant_name(Variant v);
std::optional<Variant> parse_pgn_variant(std::string_view name);

// The PGN of a game (running or over). `tags` are written in order after the
// seven standard ones (Event, Site, Date, Round, White, Black, Result: given
// ones take their place; missing ones are "?", the Result the game's own) and
// before Variant, FEN and SetUp. The actions that are not moves (the count,
// draw offers, resignation, a table's end) go in as comments where they
// happened; the reason a game ended, in a Termination tag and a comment. Lines
// are at most 80 characters.
std::string write_pgn(const Game& game, const PgnTags& tags);

// A game read from text.
struct PgnGame {
  Variant variant = Variant::Makruk;
  std::string fen;                 // the start; empty: the variant's usual start
  PgnTags tags;                    // as read
  std::vector<std::string> moves;  // coordinate moves ("e3e4"), legal in turn
  std::string result = "*";        // from the movetext or the Result tag
};

// Reads the first game of a PGN text, or a plain list of moves (SAN or
// coordinates, with or without numbers), or a FEN alone. The variant comes
// from a Variant tag, else `fallback`. Comments, variations, NAGs and
// annotations are skipped. Returns nothing and says why in `error`: a
// malformed tag or FEN, an unknown variant, or the first move that is not
// legal, named with its number and side ("12... Nf3: illegal move 'Nf3'";
// messages.h: pgn.*).
std::optional<PgnGame> read_pgn(std::string_view text, Variant fallback, Why error);

// The games of a text that holds several (a collection): each game's text, in
// order, to read with read_pgn. A game begins where the text does or with its
// tags: a line beginning with '[' after a game's moves (outside a comment)
// begins the next one. A text without such a line is one game.
std::vector<std::string_view> split_pgn_games(std::string_view text);

}  // namespace makruk
