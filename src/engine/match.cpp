#include "match.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/game.h"
#include "core/notation.h"
#include "process.h"

namespace makruk::engine {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> split(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  for (std::string t; is >> t;) out.push_back(t);
  return out;
}

struct GameOutcome {
  Result result = Result::Ongoing;
  std::string termination;  // for the PGN and the log
  size_t book_plies = 0;    // the opening's moves, at the start of the record
  // For each move the engines played: the mover's last reported score (in
  // pawns, or ±M and the moves to mate), the depth and the time, as "+0.35/12 0.41s".
  std::vector<std::string> notes;
};

// What an engine's last "info" line said about its search.
struct SearchNote {
  std::string score;  // "+0.35", "-M3", or empty when none was reported
  int depth = 0;
  void read(const std::vector<std::string>& words) {
    for (size_t i = 1; i + 1 < words.size(); ++i) {
      if (words[i] == "multipv" && words[i + 1] != "1") return;  // only the best line counts
      if (words[i] == "depth") depth = std::atoi(words[i + 1].c_str());
      if (words[i] == "score" && i + 2 < words.size()) {
        const int n = std::atoi(words[i + 2].c_str());
        char text[32];
        if (words[i + 1] == "cp") std::snprintf(text, sizeof text, "%+.2f", n / 100.0);
        else if (words[i + 1] == "mate") std::snprintf(text, sizeof text, "%sM%d", n < 0 ? "-" : "+", std::abs(n));
        else continue;
        score = text;
      }
    }
  }
  std::string text(int64_t ms) const {
    char t[32];
    std::snprintf(t, sizeof t, "%.2fs", ms / 1000.0);
    return (score.empty() ? std::string() : score + "/" + std::to_string(depth) + " ") + t;
  }
};

// One engine process, started and made ready on demand.
class UciPlayer {
 public:
  explicit UciPlayer(const EngineSpec& spec, Variant variant) : spec_(spec), variant_(variant) {}

  bool ensure_started(std::string* error) {
    if (proc_.running()) return true;
    if (!proc_.start(spec_.command)) return fail(error, "cannot start");
    if (!proc_.write_line("uci") || !wait_for("uciok", 10000)) return fail(error, "no uciok");
    proc_.write_line(std::string("setoption name UCI_Variant value ") +
                     (variant_ == Variant::Makruk ? "makruk" : "cambodian"));
    for (auto& [name, value] : spec_.options)
      proc_.write_line("setoption name " + name + " value " + value);
    return true;
  }

  bool new_game() {
    return proc_.write_line("ucinewgame") && proc_.write_line("isready") && wait_for("readyok", 10000);
  }

  // Sends the position and go command; returns the bestmove text, or empty
  // (with *why) on a crash or time-out.
  std::string best_move(const std::string& position, const std::string& go, int64_t timeout_ms,
                        std::string* why, SearchNote& note) {
    note = SearchNote{};
    if (!proc_.write_line(position) || !proc_.write_line(go)) {
      *why = "crashed";
      return {};
    }
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    std::string line;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      auto r = proc_.read_line(line, int(std::max<int64_t>(1, left)));
      if (r == ChildProcess::Read::Closed) {
        *why = "crashed";
        proc_.stop();
        return {};
      }
      if (r == ChildProcess::Read::Timeout) {
        *why = "did not answer in time";
        proc_.stop();
        return {};
      }
      auto words = split(line);
      if (words.size() >= 2 && words[0] == "bestmove") return words[1];
      if (!words.empty() && words[0] == "info") note.read(words);
    }
  }

  void restart() { proc_.stop(); }
  const std::string& name() const { return spec_.name; }

 private:
  bool wait_for(const std::string& word, int timeout_ms) {
    std::string line;
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      if (proc_.read_line(line, int(left)) != ChildProcess::Read::Line) return false;
      if (split(line) == std::vector<std::string>{word}) return true;
    }
  }
  bool fail(std::string* error, const std::string& why) {
    if (error) *error = spec_.name + ": " + why;
    proc_.stop();
    return false;
  }

  EngineSpec spec_;
  Variant variant_;
  ChildProcess proc_;
};

std::string pgn_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string pgn_for(const MatchConfig& cfg, int round, const std::string& white, const std::string& black,
                    const Game& game, const GameOutcome& outcome) {
  std::ostringstream os;
  std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y.%m.%d", std::gmtime(&now));
  std::string result(result_string(outcome.result));
  os << "[Event \"makruk match\"]\n[Site \"?\"]\n[Date \"" << date << "\"]\n[Round \"" << round
     << "\"]\n[White \"" << pgn_escape(white) << "\"]\n[Black \"" << pgn_escape(black) << "\"]\n[Result \""
     << result << "\"]\n[Variant \"" << (cfg.variant == Variant::Makruk ? "makruk" : "cambodian") << "\"]\n";
  if (game.start_fen() != Position::start_fen(cfg.variant))
    os << "[FEN \"" << game.start_fen() << "\"]\n[SetUp \"1\"]\n";
  os << "[Termination \"" << pgn_escape(outcome.termination) << "\"]\n\n";
  std::string error;
  auto replay = Game::create(cfg.variant, Counting::Automatic, game.start_fen(), &error);
  // The movetext's tokens: move numbers, moves, notes (a note is one token).
  std::vector<std::string> words;
  bool after_comment = false;
  for (size_t i = 0; i < game.record().size(); ++i) {
    const std::string& action = game.record()[i];
    const Position& pos = replay->position();
    Move m = parse_move(pos, action);
    if (m.is_none()) break;
    if (pos.side_to_move() == WHITE || words.empty() || after_comment)
      words.push_back(std::to_string(pos.game_ply() / 2 + 1) + (pos.side_to_move() == WHITE ? "." : "..."));
    words.push_back(move_to_san(pos, m));
    after_comment = false;
    if (i >= outcome.book_plies && i - outcome.book_plies < outcome.notes.size()) {
      words.push_back("{" + outcome.notes[i - outcome.book_plies] + "}");
      after_comment = true;
    }
    replay->apply(action, &error);
  }
  words.push_back(result);
  // Wrap the movetext at 80 columns (a note is not split).
  std::string line;
  for (const std::string& word : words) {
    if (line.size() + word.size() + 1 > 80) {
      os << line << "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  os << line << "\n\n";
  return os.str();
}

GameOutcome play_game(const MatchConfig& cfg, const Opening& opening, UciPlayer* white, UciPlayer* black,
                      Game& game, const uint64_t nodes[2]) {
  UciPlayer* players[2] = {white, black};
  GameOutcome out;
  out.book_plies = game.record().size();
  auto lose = [&](Color c, const std::string& why) {
    out.result = c == WHITE ? Result::BlackWins : Result::WhiteWins;
    out.termination = players[c]->name() + " " + why;
    return out;
  };
  for (Color c : {WHITE, BLACK}) {
    std::string error;
    if (!players[c]->ensure_started(&error) || !players[c]->new_game()) {
      players[c]->restart();
      return lose(c, "could not start (" + error + ")");
    }
  }
  int64_t clock[2] = {cfg.tc.base_ms, cfg.tc.base_ms};
  std::string startpos = "position fen " + game.start_fen() + " moves";
  std::string moves;
  for (const std::string& m : opening.moves) moves += " " + m;
  while (!game.over()) {
    if (game.plies() >= cfg.max_plies) {
      out.result = Result::Draw;
      out.termination = "adjudicated draw after " + std::to_string(cfg.max_plies) + " plies";
      return out;
    }
    Color side = game.position().side_to_move();
    std::string go = "go";
    int64_t timeout = 60000;
    if (cfg.tc.base_ms) {
      go += " wtime " + std::to_string(clock[WHITE]) + " btime " + std::to_string(clock[BLACK]) +
            " winc " + std::to_string(cfg.tc.inc_ms) + " binc " + std::to_string(cfg.tc.inc_ms);
      timeout = clock[side] + 1000;
    }
    if (cfg.tc.movetime_ms) go += " movetime " + std::to_string(cfg.tc.movetime_ms), timeout = cfg.tc.movetime_ms + 5000;
    if (nodes[side]) go += " nodes " + std::to_string(nodes[side]);
    if (cfg.tc.depth) go += " depth " + std::to_string(cfg.tc.depth);
    auto t0 = Clock::now();
    std::string why;
    SearchNote note;
    std::string best = players[side]->best_move(startpos + moves, go, timeout, &why, note);
    int64_t used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    if (best.empty()) return lose(side, why);
    out.notes.push_back(note.text(used));
    if (cfg.tc.base_ms) {
      clock[side] -= used;
      if (clock[side] < 0) return lose(side, "lost on time");
      clock[side] += cfg.tc.inc_ms;
    }
    std::string error;
    if (!game.apply(best, &error)) return lose(side, "played an illegal move " + best + " (" + error + ")");
    moves += " " + best;
  }
  out.result = game.result();
  out.termination = std::string(reason_string(game.reason()));
  return out;
}

}  // namespace

bool parse_time_control(const std::string& text, TimeControl& tc) {
  size_t plus = text.find('+');
  try {
    size_t used;
    double base = std::stod(text.substr(0, plus), &used);
    if (used != (plus == std::string::npos ? text.size() : plus) || base <= 0) return false;
    double inc = 0;
    if (plus != std::string::npos) {
      std::string rest = text.substr(plus + 1);
      inc = std::stod(rest, &used);
      if (used != rest.size() || inc < 0) return false;
    }
    tc.base_ms = int64_t(base * 1000);
    tc.inc_ms = int64_t(inc * 1000);
    return true;
  } catch (...) {
    return false;
  }
}

bool load_openings(const std::string& path, Variant variant, std::vector<Opening>& out,
                   std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = "cannot read openings file '" + path + "'";
    return false;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    auto words = split(line);
    if (words.empty()) continue;
    Opening o;
    size_t i = 0;
    if (words[0] == "startpos") {
      i = 1;
    } else {
      while (i < words.size() && words[i] != "moves") o.fen += (o.fen.empty() ? "" : " ") + words[i++];
    }
    if (i < words.size() && words[i] == "moves") ++i;
    o.moves.assign(words.begin() + long(i), words.end());
    std::string why;
    auto game = Game::create(variant, Counting::Automatic, o.fen, &why);
    for (size_t k = 0; game && k < o.moves.size(); ++k)
      if (!game->apply(o.moves[k], &why)) game.reset();
    if (!game || game->over()) {
      if (error) *error = path + ":" + std::to_string(number) + ": " + (game ? "the game is already over" : why);
      return false;
    }
    out.push_back(std::move(o));
  }
  return true;
}

bool read_match_log(const std::string& path, MatchConfig& config, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = "cannot read match log '" + path + "'";
    return false;
  }
  auto fail = [&](int number, const std::string& why) {
    if (error) *error = path + ":" + std::to_string(number) + ": " + why;
    return false;
  };
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.rfind("Game ", 0) != 0) continue;
    auto words = split(line);  // Game N: WHITE - BLACK RESULT (termination) …
    if (words.size() < 6 || words[1].size() < 2 || words[1].back() != ':' || words[3] != "-")
      return fail(number, "not a game line");
    int g = 0;
    try {
      size_t used = 0;
      g = std::stoi(words[1], &used) - 1;
      if (used + 1 != words[1].size()) throw std::invalid_argument("");
    } catch (...) {
      return fail(number, "bad game number");
    }
    const std::string game = "game " + std::to_string(g + 1);
    if (g < 0 || g >= config.games) return fail(number, game + " lies outside --games");
    const bool firstIsWhite = g % 2 == 0;
    const std::string& first = config.engines[0].name;
    const std::string& second = config.engines[1].name;
    if (words[2] != (firstIsWhite ? first : second) || words[4] != (firstIsWhite ? second : first))
      return fail(number, "the game was played by other engines or colours (expected " +
                              (firstIsWhite ? first + " - " + second : second + " - " + first) + ")");
    int half;
    if (words[5] == "1/2-1/2") half = 1;
    else if (words[5] == "1-0") half = firstIsWhite ? 2 : 0;
    else if (words[5] == "0-1") half = firstIsWhite ? 0 : 2;
    else return fail(number, "unknown result '" + words[5] + "'");
    auto [it, added] = config.played.emplace(g, half);
    if (!added && it->second != half) return fail(number, game + " read twice with different results");
  }
  return true;
}

std::pair<double, double> elo_with_interval(const MatchScore& s) {
  double n = s.wins + s.draws + s.losses;
  if (n == 0) return {0, 0};
  double p = (s.wins + 0.5 * s.draws) / n;
  auto elo = [](double score) {
    score = std::clamp(score, 1e-3, 1 - 1e-3);
    return -400.0 * std::log10(1.0 / score - 1.0);
  };
  double var = (s.wins * (1 - p) * (1 - p) + s.draws * (0.5 - p) * (0.5 - p) + s.losses * p * p) / n;
  double margin = 1.96 * std::sqrt(var / n);
  return {elo(p), (elo(p + margin) - elo(p - margin)) / 2};
}

double SprtConfig::lower() const { return std::log(beta / (1 - alpha)); }
double SprtConfig::upper() const { return std::log((1 - beta) / alpha); }

namespace {

double expected_score(double elo) { return 1 / (1 + std::pow(10.0, -elo / 400)); }

// The mean and variance of a pair's score, scaled to 0..1.
std::pair<double, double> pair_moments(const Pentanomial& p) {
  const double n = p.total();
  double mean = 0, var = 0;
  for (int i = 0; i < 5; ++i) mean += p.pairs[i] * (i / 4.0) / n;
  for (int i = 0; i < 5; ++i) var += p.pairs[i] * (i / 4.0 - mean) * (i / 4.0 - mean) / n;
  return {mean, var};
}

}  // namespace

double sprt_llr(const Pentanomial& p, double elo0, double elo1) {
  int kinds = 0;
  for (int c : p.pairs) kinds += c > 0;
  if (kinds < 2) return 0;
  const auto [mean, var] = pair_moments(p);
  const double s0 = expected_score(elo0), s1 = expected_score(elo1);
  return p.total() * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var);
}

std::pair<double, double> pentanomial_elo(const Pentanomial& p) {
  if (p.total() == 0) return {0, 0};
  const auto [mean, var] = pair_moments(p);
  auto elo = [](double score) {
    score = std::clamp(score, 1e-3, 1 - 1e-3);
    return -400.0 * std::log10(1.0 / score - 1.0);
  };
  const double margin = 1.96 * std::sqrt(var / p.total());
  return {elo(mean), (elo(mean + margin) - elo(mean - margin)) / 2};
}

MatchScore run_match(const MatchConfig& cfg, std::ostream& out) {
  std::signal(SIGPIPE, SIG_IGN);  // a crashed engine must not take the match down
  std::vector<Opening> openings = cfg.openings;
  if (openings.empty()) openings.push_back(Opening{});
  std::ofstream pgn;
  if (!cfg.pgn_path.empty()) pgn.open(cfg.pgn_path, std::ios::app);

  MatchScore score;
  std::mutex mutex;
  std::atomic<int> next{0};
  std::atomic<bool> decided{false};
  std::vector<int> points(size_t(cfg.games), -1);  // half-points for the first engine, by game
  // A pair's points once both its games are in.
  auto count_pair = [&](int g) {
    const size_t mate = size_t(g ^ 1);
    if (mate >= points.size() || points[mate] < 0) return;
    ++score.pentanomial.pairs[points[size_t(g)] + points[mate]];
    if (cfg.sprt.enabled) {
      score.llr = sprt_llr(score.pentanomial, cfg.sprt.elo0, cfg.sprt.elo1);
      if (score.llr >= cfg.sprt.upper()) score.decision = 1;
      if (score.llr <= cfg.sprt.lower()) score.decision = -1;
      if (score.decision) decided = true;
    }
  };
  for (auto [g, half] : cfg.played) {
    if (g < 0 || g >= cfg.games || half < 0 || half > 2) continue;
    points[size_t(g)] = half;
    ++(half == 2 ? score.wins : half == 1 ? score.draws : score.losses);
    if (g % 2 == 1) count_pair(g);
  }
  if (!cfg.played.empty())
    out << "Resumed: " << cfg.played.size() << " games already played, score " << score.wins << "-"
        << score.losses << "-" << score.draws << std::endl;
  auto worker = [&] {
    UciPlayer players[2] = {UciPlayer(cfg.engines[0], cfg.variant), UciPlayer(cfg.engines[1], cfg.variant)};
    for (int g; !decided && (g = next++) < cfg.games;) {
      if (points[size_t(g)] >= 0) continue;  // played in an earlier run
      const Opening& opening = openings[size_t(g / 2) % openings.size()];
      bool firstIsWhite = g % 2 == 0;
      UciPlayer* white = &players[firstIsWhite ? 0 : 1];
      UciPlayer* black = &players[firstIsWhite ? 1 : 0];
      std::string error;
      auto game = Game::create(cfg.variant, Counting::Automatic, opening.fen, &error);
      for (const std::string& m : opening.moves) game->apply(m, &error);
      // The opening's moves are part of the record; the game continues from there.
      // Nodes a move, varied by pair (both games of a pair alike): engines that play
      // the same moves at the same count would otherwise repeat a pair whenever the
      // openings come round again.
      double scale = 1;
      if (cfg.tc.nodes && cfg.nodes_vary_percent) {
        uint64_t h = uint64_t(g / 2 + 1) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 31;
        const double u = double(h % 10001) / 10000;  // 0..1
        scale = 1 + cfg.nodes_vary_percent / 100.0 * (2 * u - 1);
      }
      uint64_t nodes[2] = {};  // by colour
      for (int e = 0; e < 2; ++e) {
        const uint64_t own = cfg.engines[e].nodes ? cfg.engines[e].nodes : cfg.tc.nodes;
        nodes[(e == 0) == firstIsWhite ? WHITE : BLACK] = own ? std::max<uint64_t>(1, uint64_t(double(own) * scale)) : 0;
      }
      GameOutcome outcome = play_game(cfg, opening, white, black, *game, nodes);
      std::lock_guard lock(mutex);
      if (decided) break;  // the test ended while this game was played
      Result r = outcome.result;
      int half = 1;
      if (r == Result::Draw) ++score.draws;
      else if ((r == Result::WhiteWins) == firstIsWhite) ++score.wins, half = 2;
      else ++score.losses, half = 0;
      points[size_t(g)] = half;
      out << "Game " << g + 1 << ": " << white->name() << " - " << black->name() << " "
          << result_string(r) << " (" << outcome.termination << ")  score " << score.wins << "-"
          << score.losses << "-" << score.draws << std::endl;
      count_pair(g);  // a pair is complete when both colours of its opening are played
      if (pgn) pgn << pgn_for(cfg, g + 1, white->name(), black->name(), *game, outcome) << std::flush;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < std::max(1, cfg.concurrency); ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  int n = score.wins + score.draws + score.losses;
  auto [elo, margin] = elo_with_interval(score);
  out << "Score of " << cfg.engines[0].name << " vs " << cfg.engines[1].name << ": " << score.wins << " - "
      << score.losses << " - " << score.draws << "  [" << std::fixed << std::setprecision(3)
      << (n ? (score.wins + 0.5 * score.draws) / n : 0.0) << "] " << n << "\n"
      << "Elo difference: " << std::setprecision(1) << elo << " +/- " << margin << " (95%)" << std::endl;
  const Pentanomial& p = score.pentanomial;
  if (p.total()) {
    auto [pelo, pmargin] = pentanomial_elo(p);
    out << "Pairs (0, 1/2, 1, 3/2, 2 points): " << p.pairs[0] << ", " << p.pairs[1] << ", " << p.pairs[2] << ", "
        << p.pairs[3] << ", " << p.pairs[4] << "  Elo from pairs: " << pelo << " +/- " << pmargin << " (95%)"
        << std::endl;
  }
  if (cfg.sprt.enabled)
    out << "SPRT elo0 " << cfg.sprt.elo0 << " elo1 " << cfg.sprt.elo1 << ": LLR " << std::setprecision(2)
        << score.llr << " (" << cfg.sprt.lower() << ", " << cfg.sprt.upper() << ") "
        << (score.decision > 0 ? "H1 accepted" : score.decision < 0 ? "H0 accepted" : "no decision yet") << std::endl;
  return score;
}

}  // namespace makruk::engine
