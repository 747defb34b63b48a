// Labelling positions with the engine's search: `makruk label` reads games
// (PGN, played by any engine) or data lines (makruk selfplay's) and writes each
// position with the score of a search at a fixed number of nodes, in the data
// format that nnue-train and tune read (tune.h: sample_line). Positions from
// other engines' games, and deeper searches than self-play's, are the two ways
// it gives to vary the data the network learns from.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/pgn.h"
#include "nnue.h"

namespace makruk::engine {

struct LabelOptions {
  Variant variant = Variant::Makruk;
  uint64_t nodes = 10000;  // per position
  int skip_plies = 10;     // a game's positions before this ply are left out
  int threads = 1;
  nnue::Networks networks;  // null: the hand-written evaluation
};

// One data line to label again: its FEN and its result (White's view).
struct LabelLine {
  std::string fen;
  double result = 0.5;
};

struct LabelStats {
  uint64_t games = 0, lines = 0;  // labelled
  uint64_t written = 0;           // positions written
};

// Labels the games (each quiet position from `skip_plies` on, each at most once
// a game, with the game's result; the games must be of `o.variant` and have a
// result) and the lines (each with its own result; one whose search finds a
// mate is left out, as self-play leaves them out). The output is in the input's
// order and the same whatever the number of threads: each game, and each block
// of lines, is searched by an engine cleared before it. Progress goes to `log`.
LabelStats run_label(const LabelOptions& o, const std::vector<PgnGame>& games,
                     const std::vector<LabelLine>& lines, std::ostream& out, std::ostream* log);

struct LabelCommand {
  std::string variant = "makruk";
  std::vector<std::string> pgn;        // PGN files (collections)
  std::vector<std::string> positions;  // data files (FEN;RESULT[;SCORE] lines)
  std::string out;                     // appended to; empty: standard output
  std::string eval_file;               // the network, by nnue::network_by_name
  LabelOptions options;
};

// Reads every input first: a malformed game or line is refused (named with its
// file and number) before anything is searched or written; games of the other
// variant and games without a result are skipped, and the log says how many.
int run_label_command(LabelCommand& c, std::ostream& log);

}  // namespace makruk::engine
