// `makruk match`: two UCI engines play each other with the rules core as the
// referee. Each opening is played twice, colours swapped.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"

namespace makruk::engine {

struct EngineSpec {
  std::string name;
  std::string command;
  std::vector<std::pair<std::string, std::string>> options;  // setoption name/value
};

struct TimeControl {
  int64_t base_ms = 0, inc_ms = 0;  // clock; base 0: no clock
  int64_t movetime_ms = 0;
  uint64_t nodes = 0;
  int depth = 0;
};

struct Opening {
  std::string fen;  // empty: the variant's start position
  std::vector<std::string> moves;
};

struct MatchConfig {
  Variant variant = Variant::Makruk;
  EngineSpec engines[2];
  int games = 2;
  TimeControl tc;
  std::vector<Opening> openings;
  int concurrency = 1;
  std::string pgn_path;
  int max_plies = 800;  // a game this long is adjudicated a draw
};

// Parses an openings file: one opening a line, "startpos [moves …]" or
// "FEN [moves …]"; '#' starts a comment. Each opening is checked with the
// rules core. False (with *error naming the line) on a bad line.
bool load_openings(const std::string& path, Variant variant, std::vector<Opening>& out,
                   std::string* error);

// Parses "10+0.1" (seconds) into a clock.
bool parse_time_control(const std::string& text, TimeControl& tc);

struct MatchScore {
  int wins = 0, draws = 0, losses = 0;  // from the first engine's side
};

// The Elo difference for a score, and the half-width of its 95% interval.
std::pair<double, double> elo_with_interval(const MatchScore& s);

// Plays the match, printing each game and the result. Returns the score.
MatchScore run_match(const MatchConfig& config, std::ostream& out);

}  // namespace makruk::engine
