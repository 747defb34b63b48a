// `makruk match`: two UCI engines play each other with the rules core as the
// referee. Each opening is played twice, colours swapped.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"

namespace makruk::engine {

struct EngineSpec {
  std::string name;
  std::string command;
  std::vector<std::pair<std::string, std::string>> options;  // setoption name/value
  // Its own nodes per move where it differs from the match's (0: the match's), so
  // that engines of different speeds can be given the nodes each searches in the
  // same time: a test at equal time that does not depend on the machine's load.
  uint64_t nodes = 0;
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

// A sequential probability ratio test between two Elo hypotheses (logistic
// Elo), on game pairs: each opening is played twice with colours swapped, and
// the pair's points for the first engine (0, ½, 1, 1½ or 2) are counted apart
// (pentanomial), which takes the openings' own bias out of the variance.
struct SprtConfig {
  bool enabled = false;
  double elo0 = 0, elo1 = 5;
  double alpha = 0.05, beta = 0.05;
  double lower() const;  // ln(beta / (1 - alpha)): H0 accepted at or below
  double upper() const;  // ln((1 - beta) / alpha): H1 accepted at or above
};

struct Pentanomial {
  int pairs[5] = {};  // pairs that scored 0, ½, 1, 1½, 2 points for the first engine
  int total() const { return pairs[0] + pairs[1] + pairs[2] + pairs[3] + pairs[4]; }
};

// The log-likelihood ratio of elo1 against elo0 for these pairs (the
// generalised SPRT's normal approximation); 0 with fewer than two kinds of pair.
double sprt_llr(const Pentanomial& p, double elo0, double elo1);
// The Elo difference the pairs give, and the half-width of its 95% interval.
std::pair<double, double> pentanomial_elo(const Pentanomial& p);

struct MatchConfig {
  Variant variant = Variant::Makruk;
  EngineSpec engines[2];
  int games = 2;
  TimeControl tc;
  std::vector<Opening> openings;
  int concurrency = 1;
  std::string pgn_path;
  int max_plies = 800;  // a game this long is adjudicated a draw
  int nodes_vary_percent = 0;  // with a node limit: each pair's limit within ± this much
  SprtConfig sprt;      // when enabled, the match stops as soon as the test decides
  // Games already played (by an earlier run of the same match, read with
  // read_match_log): game index (0-based) to the first engine's half-points
  // (0, 1, 2). They count in the score and are not played again.
  std::map<int, int> played;
};

// Reads the "Game N: WHITE - BLACK RESULT …" lines an earlier run of the same
// match printed, into config.played (other lines are skipped). False (with
// *error naming the line) when a game lies beyond config.games, names engines
// other than config's in the wrong colours, or contradicts a game already read.
bool read_match_log(const std::string& path, MatchConfig& config, std::string* error);

// Parses an openings file: one opening a line, "startpos [moves …]" or
// "FEN [moves …]"; '#' starts a comment. Each opening is checked with the
// rules core. False (with *error naming the line) on a bad line.
bool load_openings(const std::string& path, Variant variant, std::vector<Opening>& out,
                   std::string* error);

// Parses "10+0.1" (seconds) into a clock.
bool parse_time_control(const std::string& text, TimeControl& tc);

struct MatchScore {
  int wins = 0, draws = 0, losses = 0;  // from the first engine's side
  Pentanomial pentanomial;              // the finished pairs
  double llr = 0;                       // with an SPRT: the last ratio
  int decision = 0;                     // with an SPRT: 1 H1 accepted, -1 H0 accepted, 0 neither yet
};

// The Elo difference for a score, and the half-width of its 95% interval.
std::pair<double, double> elo_with_interval(const MatchScore& s);

// Plays the match, printing each game and the result. Returns the score.
MatchScore run_match(const MatchConfig& config, std::ostream& out);

}  // namespace makruk::engine
