#include "uci.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "default_network.h"
#include "egtb.h"
#include "levels.h"
#include "search.h"
#include "tune.h"

namespace makruk::engine {

namespace {

class Uci {
 public:
  Uci(std::ostream& out) : out_(out) {
    std::string error;
    game_ = Game::create(variant_, Counting::Automatic, "", &error);
    beyond_.reset();
    engine_.set_networks(networks_);
  }
  ~Uci() { wait(); }

  bool handle(const std::string& line);
  // At the end of the input: a search with a limit runs to its end (so that
  // `echo "go depth 12" | makruk uci` answers in full); an infinite one stops.
  void finish() {
    if (searcher_.joinable() && !search_unbounded_) searcher_.join();
  }

 private:
  void say(const std::string& s) {
    std::lock_guard lock(out_mutex_);
    out_ << s << std::endl;
  }
  // Ends the running search, if any. The stop is repeated until the search
  // thread finishes, since a search that has not started yet clears it.
  void wait() {
    if (!searcher_.joinable()) return;
    while (!search_done_.load()) {
      engine_.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    searcher_.join();
  }
  void cmd_uci();
  void cmd_setoption(std::istringstream& is);
  void cmd_position(std::istringstream& is);
  void cmd_go(std::istringstream& is);

  std::ostream& out_;
  std::mutex out_mutex_;
  Engine engine_;
  std::thread searcher_;
  std::atomic<bool> search_done_{true};
  bool search_unbounded_ = false;  // go infinite or go ponder
  Variant variant_ = Variant::Makruk;
  std::optional<Game> game_;
  // The position after moves given past the end of game_ by our rules (a
  // program with other counting rules plays on), or nothing.
  std::optional<Position> beyond_;
  int skill_level_ = MAX_LEVEL;
  bool limit_strength_ = false;
  int elo_ = MAX_ELO;
  int multipv_ = 1;
  bool use_nnue_ = true;
  nnue::Networks networks_ = nnue::default_networks();  // EvalFile's
  std::mt19937_64 rng_{std::random_device{}()};

  int level() const { return limit_strength_ ? level_from_elo(elo_) : skill_level_; }
};

void Uci::cmd_uci() {
  say("id name makruk 0.1\nid author the makruk developers\n"
      "option name UCI_Variant type combo default makruk var makruk var cambodian var ouk\n"
      "option name Hash type spin default 16 min 1 max 65536\n"
      "option name Threads type spin default 1 min 1 max 256\n"
      "option name Move Overhead type spin default 30 min 0 max 5000\n"
      "option name Ponder type check default false\n"
      "option name MultiPV type spin default 1 min 1 max 64\n"
      "option name Skill Level type spin default 8 min 1 max 8\n"
      "option name UCI_LimitStrength type check default false\n"
      "option name UCI_Elo type spin default " + std::to_string(MAX_ELO) + " min " +
      std::to_string(MIN_ELO) + " max " + std::to_string(MAX_ELO) + "\n"
      "option name EvalParams type string default <empty>\n"
      "option name UseNNUE type check default true\n"
      "option name EvalFile type string default <built-in>\n"
      "option name EgtbPath type string default <empty>\n"
      "option name SearchParams type string default <default>\n"
      "uciok");
}

void Uci::cmd_setoption(std::istringstream& is) {
  std::string token, name, value;
  is >> token;  // "name"
  while (is >> token && token != "value") name += (name.empty() ? "" : " ") + token;
  while (is >> token) value += (value.empty() ? "" : " ") + token;
  auto as_int = [&](int lo, int hi, int& out) {
    try {
      size_t used;
      int v = std::stoi(value, &used);
      if (used != value.size() || v < lo || v > hi) throw std::out_of_range("range");
      out = v;
      return true;
    } catch (...) {
      say("info string option '" + name + "' needs a number from " + std::to_string(lo) + " to " +
          std::to_string(hi) + ", got '" + value + "'");
      return false;
    }
  };
  int v;
  if (name == "UCI_Variant") {
    Variant var;
    if (!parse_variant(value, var)) {
      say("info string unknown variant '" + value + "'");
      return;
    }
    variant_ = var;
    std::string error;
    game_ = Game::create(variant_, Counting::Automatic, "", &error);
    beyond_.reset();
  } else if (name == "Hash") {
    if (as_int(1, 65536, v)) engine_.set_hash(size_t(v));
  } else if (name == "Threads") {
    if (as_int(1, 256, v)) engine_.set_threads(v);
  } else if (name == "Move Overhead") {
    if (as_int(0, 5000, v)) engine_.set_move_overhead(v);
  } else if (name == "MultiPV") {
    if (as_int(1, 64, v)) multipv_ = v;
  } else if (name == "Skill Level") {
    if (as_int(MIN_LEVEL, MAX_LEVEL, v)) skill_level_ = v;
  } else if (name == "UCI_LimitStrength") {
    if (value == "true" || value == "false") limit_strength_ = value == "true";
    else say("info string option 'UCI_LimitStrength' needs true or false, got '" + value + "'");
  } else if (name == "UCI_Elo") {
    if (as_int(MIN_ELO, MAX_ELO, v)) elo_ = v;
  } else if (name == "EvalParams") {
    // A weights table written by `makruk tune` (for testing); empty: the compiled-in one.
    if (value.empty() || value == "<empty>") {
      set_eval_params(DEFAULT_EVAL_PARAMS);
      return;
    }
    std::ifstream in(value);
    EvalParams p;
    std::string error = "cannot open it";
    if (!in || !read_params_source(in, p, &error))
      say("info string option 'EvalParams': " + value + ": " + error);
    else
      set_eval_params(p);
  } else if (name == "UseNNUE") {
    if (value != "true" && value != "false") {
      say("info string option 'UseNNUE' needs true or false, got '" + value + "'");
      return;
    }
    use_nnue_ = value == "true";
    engine_.set_networks(use_nnue_ ? networks_ : nnue::Networks{});
  } else if (name == "EvalFile") {
    // A network written by `makruk nnue-train` (for the variants it was
    // trained on); empty or <built-in>: the built-in ones.
    nnue::Networks nets;
    std::string error;
    if (value == "none" || !nnue::network_by_name(value, nets, &error)) {
      say("info string option 'EvalFile': " + value + ": " + (value == "none" ? "not a file (UseNNUE false "
                                                                                "leaves the network out)" : error));
      return;
    }
    networks_ = std::move(nets);
    if (use_nnue_) engine_.set_networks(networks_);
  } else if (name == "EgtbPath") {
    // A folder of three-piece endgame tables written by `makruk egtb --save`.
    const std::string dir = value == "<empty>" ? "" : value;
    const int mapped = egtb_set_path(dir);
    if (!dir.empty()) say("info string EgtbPath: " + std::to_string(mapped) + " three-piece tables from " + dir);
  } else if (name == "SearchParams") {
    // "name=value …" (spaces or commas), as `makruk spsa` writes them; the
    // numbers not named keep their defaults; empty or <default>: all defaults.
    SearchParams p;
    std::string error;
    if (value != "<default>" && !parse_search_params(value, p, &error))
      say("info string option 'SearchParams': " + error);
    else
      engine_.set_search_params(p);
  } else if (name == "Ponder") {
    // The GUI decides when to ponder; nothing to set.
  } else {
    say("info string unknown option '" + name + "'");
  }
}

void Uci::cmd_position(std::istringstream& is) {
  std::string token, fen;
  is >> token;
  if (token == "startpos") {
    is >> token;  // "moves", if any
  } else if (token == "fen") {
    while (is >> token && token != "moves") fen += (fen.empty() ? "" : " ") + token;
  } else {
    say("info string position needs 'startpos' or 'fen'");
    return;
  }
  std::string error;
  auto game = Game::create(variant_, Counting::Automatic, fen, &error);
  if (!game) {
    say("info string invalid position: " + error);
    return;
  }
  std::optional<Position> beyond;
  int ply = game->plies();
  while (is >> token) {
    ++ply;
    if (game->over()) {
      // Ended by our rules (a count, a repetition, bare kings): another
      // program's rules may go on, so legal moves are played on the board.
      if (!beyond) beyond = game->position();
      Move m = parse_move(*beyond, token, &error);
      if (m.is_none()) {
        say("info string invalid position: " + error + " at ply " + std::to_string(ply));
        return;
      }
      beyond->do_move(m);
    } else if (!game->apply(token, &error)) {
      say("info string invalid position: " + error + " at ply " + std::to_string(ply));
      return;
    }
  }
  game_ = std::move(game);
  beyond_ = std::move(beyond);
}

void Uci::cmd_go(std::istringstream& is) {
  Limits limits;
  std::string token;
  auto read = [&](auto& field) {
    long long v;
    if (is >> v && v >= 0) field = v;
  };
  while (is >> token) {
    if (token == "wtime") read(limits.time[WHITE]);
    else if (token == "btime") read(limits.time[BLACK]);
    else if (token == "winc") read(limits.inc[WHITE]);
    else if (token == "binc") read(limits.inc[BLACK]);
    else if (token == "movestogo") read(limits.movestogo);
    else if (token == "movetime") read(limits.movetime);
    else if (token == "depth") read(limits.depth);
    else if (token == "nodes") read(limits.nodes);
    else if (token == "mate") read(limits.mate);
    else if (token == "infinite") limits.infinite = true;
    else if (token == "ponder") limits.ponder = true;
    else say("info string ignoring go parameter '" + token + "'");
  }
  if (limits.mate && !limits.depth) limits.depth = 2 * limits.mate + 1;
  limits.multipv = multipv_;
  Position root = beyond_ ? *beyond_ : game_->position();
  if (game_->over()) {
    // The game is over by our rules. With a legal move, answer it all the
    // same (another program's rules may go on), searched as if no count ran
    // and nothing had repeated; the end is said in an info string.
    say("info string the game is over by these rules (" + std::string(reason_string(game_->reason())) + ")");
    if (count_legal(root) == 0) {
      say("bestmove (none)");
      return;
    }
    Position fresh;
    std::string error;
    fresh.set(root.fen(), root.variant(), Counting::Declaration, &error);  // no count starts by itself
    root = fresh;
  }
  const int lvl = level();
  search_done_ = false;
  search_unbounded_ = limits.infinite || limits.ponder;
  searcher_ = std::thread([this, root, limits, lvl] {
    if (lvl < MAX_LEVEL) {
      SearchResult r = play_at_level(engine_, root, lvl, limits, rng_);
      say("bestmove " + move_to_string(r.best));
      search_done_ = true;
      return;
    }
    SearchResult r = engine_.search(root, limits, [this](const Info& info) {
      std::ostringstream os;
      uint64_t nps = info.ms ? info.nodes * 1000 / uint64_t(info.ms) : info.nodes * 1000;
      os << "info depth " << info.depth << " seldepth " << info.seldepth << " multipv " << info.multipv << " score "
         << score_to_uci(info.score) << " nodes " << info.nodes << " nps " << nps << " hashfull "
         << info.hashfull << " time " << info.ms << " pv";
      for (Move m : info.pv) os << ' ' << move_to_string(m);
      say(os.str());
    });
    std::string line = "bestmove " + (r.best.is_none() ? std::string("(none)") : move_to_string(r.best));
    if (!r.ponder.is_none()) line += " ponder " + move_to_string(r.ponder);
    say(line);
    search_done_ = true;
  });
}

bool Uci::handle(const std::string& line) {
  std::istringstream is(line);
  std::string cmd;
  if (!(is >> cmd)) return true;
  if (cmd == "quit") return false;
  if (cmd == "stop") {
    wait();
  } else if (cmd == "ponderhit") {
    engine_.ponderhit();
  } else if (cmd == "isready") {
    say("readyok");
  } else if (cmd == "uci") {
    cmd_uci();
  } else if (cmd == "go" || cmd == "position" || cmd == "setoption" || cmd == "ucinewgame") {
    wait();  // a new command that changes the state ends any running search
    if (cmd == "go") cmd_go(is);
    else if (cmd == "position") cmd_position(is);
    else if (cmd == "setoption") cmd_setoption(is);
    else {
      engine_.new_game();
      std::string error;
      game_ = Game::create(variant_, Counting::Automatic, "", &error);
    beyond_.reset();
    }
  } else if (cmd == "d") {
    say((beyond_ ? *beyond_ : game_->position()).fen());
  } else {
    say("info string unknown command '" + cmd + "'");
  }
  return true;
}

}  // namespace

int uci_loop(std::istream& in, std::ostream& out) {
  Uci uci(out);
  std::string line;
  while (std::getline(in, line))
    if (!uci.handle(line)) return 0;
  uci.finish();
  return 0;
}

}  // namespace makruk::engine
