#include "spsa.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "core/game.h"
#include "default_network.h"
#include "tune.h"

namespace makruk::engine {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double ALPHA = 0.602, GAMMA = 0.101;  // the step exponents SPSA's analysis recommends

// Rounds up with probability the fraction: a number between two whole values
// plays each of them as often as its position between them says.
int stochastic_round(double x, std::mt19937_64& rng) {
  const double floor = std::floor(x);
  return int(floor) + (std::uniform_real_distribution<double>(0, 1)(rng) < x - floor ? 1 : 0);
}

// A pair's start: the opening and the random moves after it, the same for
// both games of the pair; nothing when the opening does not play.
std::optional<Game> pair_start(const SpsaOptions& o, const Opening* opening, uint64_t pair) {
  std::string error;
  auto game = Game::create(o.variant, Counting::Automatic, opening ? opening->fen : "", &error);
  if (!game) return std::nullopt;
  if (opening)
    for (const std::string& m : opening->moves)
      if (!game->apply(m, &error)) return std::nullopt;
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + pair);
  for (int i = 0; i < o.random_plies && !game->over(); ++i) {
    const MoveList legal = game->legal_moves();
    if (!game->play(legal.moves[rng() % legal.size], &error)) return std::nullopt;
  }
  return game;
}

// One game between two engines from `game` (the first plays White); White's result.
double play_game(const SpsaOptions& o, Engine& white, Engine& black, Game game) {
  std::string error;
  white.new_game();
  black.new_game();
  int64_t clock[COLOR_NB] = {o.tc.base_ms, o.tc.base_ms};
  Adjudication adjudication;
  while (!game.over() && game.plies() < o.max_plies) {
    const Position& pos = game.position();
    const Color us = pos.side_to_move();
    Limits limits;
    if (o.tc.nodes) limits.nodes = o.tc.nodes;
    if (o.tc.depth) limits.depth = o.tc.depth;
    if (o.tc.movetime_ms) limits.movetime = o.tc.movetime_ms;
    if (o.tc.base_ms) {
      for (Color c : {WHITE, BLACK}) {
        limits.time[c] = std::max<int64_t>(1, clock[c]);
        limits.inc[c] = o.tc.inc_ms;
      }
    }
    const auto start = Clock::now();
    const SearchResult r = (us == WHITE ? white : black).search(pos, limits);
    if (o.tc.base_ms) {
      clock[us] -= std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      if (clock[us] < 0) return us == WHITE ? 0 : 1;  // lost on time
      clock[us] += o.tc.inc_ms;
    }
    if (r.best.is_none()) break;
    const double end = adjudication.update(us == WHITE ? r.score : -r.score, game.plies());
    if (end >= 0) return end;
    if (!game.play(r.best, &error)) break;
  }
  if (game.result() == Result::WhiteWins) return 1;
  if (game.result() == Result::BlackWins) return 0;
  return 0.5;
}

}  // namespace

int play_spsa_pair(const SpsaOptions& o, const SearchParams& plus, const SearchParams& minus, uint64_t pair) {
  Engine a(o.networks), b(o.networks);
  a.set_search_params(plus);
  b.set_search_params(minus);
  const Opening* opening = o.openings.empty() ? nullptr : &o.openings[pair % o.openings.size()];
  const std::optional<Game> start = pair_start(o, opening, pair);
  if (!start) return 0;  // both games would be void
  const double first = play_game(o, a, b, *start);       // plus has White
  const double second = 1 - play_game(o, b, a, *start);  // plus has Black
  return int(std::lround(2 * (first + second))) - 2;
}

bool run_spsa(const SpsaOptions& o, const PairPlayer& play, SearchParams& result,
              const std::function<void(const SpsaProgress&)>& progress, std::string* error) {
  SpsaProgress state;
  for (const std::string& name : o.tune) {
    const auto fields = search_param_fields();
    if (std::none_of(fields.begin(), fields.end(), [&](const SearchParamField& f) { return name == f.name; })) {
      if (error) *error = "no search parameter named '" + name + "'";
      return false;
    }
  }
  for (const SearchParamField& f : search_param_fields())
    if (o.tune.empty() || std::find(o.tune.begin(), o.tune.end(), f.name) != o.tune.end()) {
      state.tuned.push_back(&f);
      state.theta.push_back(o.start.*f.field);
    }
  state.params = o.start;
  const int n = std::max(1, o.iterations);
  const double big_a = o.a_ratio * n;
  // Per number: c such that c_n = step, a such that a_n / c_n² = r_end.
  std::vector<double> c, a;
  for (const SearchParamField* f : state.tuned) {
    c.push_back(f->step * std::pow(n, GAMMA));
    a.push_back(o.r_end * f->step * f->step * std::pow(big_a + n, ALPHA));
  }
  std::mutex mutex;
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int k; (k = next.fetch_add(1)) < n;) {
      std::mt19937_64 rng(o.seed * 0xD1B54A32D192ED03ULL + uint64_t(k));
      SearchParams plus = o.start, minus = o.start;
      std::vector<int> sign(state.tuned.size());
      std::vector<double> ck(state.tuned.size());
      {
        std::lock_guard lock(mutex);
        for (size_t i = 0; i < state.tuned.size(); ++i) {
          const SearchParamField& f = *state.tuned[i];
          sign[i] = rng() & 1 ? 1 : -1;
          ck[i] = c[i] / std::pow(k + 1, GAMMA);
          plus.*f.field = std::clamp(stochastic_round(state.theta[i] + ck[i] * sign[i], rng), f.min, f.max);
          minus.*f.field = std::clamp(stochastic_round(state.theta[i] - ck[i] * sign[i], rng), f.min, f.max);
        }
      }
      const int points = play(plus, minus, uint64_t(k));
      std::lock_guard lock(mutex);
      for (size_t i = 0; i < state.tuned.size(); ++i) {
        const SearchParamField& f = *state.tuned[i];
        const double ak = a[i] / std::pow(big_a + k + 1, ALPHA);
        state.theta[i] = std::clamp(state.theta[i] + ak / ck[i] * points * sign[i], double(f.min), double(f.max));
        state.params.*f.field = int(std::lround(state.theta[i]));
      }
      ++(points > 0 ? state.won : points < 0 ? state.lost : state.even);
      ++state.iteration;
      if (progress) progress(state);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < o.threads; ++i) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  result = state.params;
  return true;
}

int run_spsa_command(SpsaCommand& c, std::ostream& log) {
  SpsaOptions& o = c.options;
  if (!parse_variant(c.variant, o.variant)) {
    log << "makruk spsa: unknown variant '" << c.variant << "'\n";
    return 2;
  }
  std::string error;
  if (!c.openings.empty() && !load_openings(c.openings, o.variant, o.openings, &error)) {
    log << "makruk spsa: " << error << "\n";
    return 2;
  }
  if (!c.tc.empty() && !parse_time_control(c.tc, o.tc)) {
    log << "makruk spsa: bad time control '" << c.tc << "' (BASE+INC in seconds, like 2+0.02)\n";
    return 2;
  }
  o.tc.nodes = c.nodes;
  if (!o.tc.base_ms && !o.tc.nodes) {
    log << "makruk spsa: give a clock (--tc 2+0.02) or a node limit (--nodes 4000)\n";
    return 2;
  }
  if (!c.start.empty() && !parse_search_params(c.start, o.start, &error)) {
    log << "makruk spsa: --start: " << error << "\n";
    return 2;
  }
  if (!nnue::network_by_name(c.eval_file, o.networks, &error)) {
    log << "makruk spsa: " << c.eval_file << ": " << error << "\n";
    return 2;
  }
  if (!c.out.empty()) {
    const std::string probe = c.out + ".tmp";
    if (!std::ofstream(probe)) {
      log << "makruk spsa: cannot write " << c.out << "\n";
      return 2;
    }
    std::remove(probe.c_str());
  }
  const auto start = Clock::now();
  const int every = std::max(1, o.iterations / 50);
  auto progress = [&](const SpsaProgress& s) {
    if (s.iteration % every != 0 && s.iteration != o.iterations) return;
    log << "spsa: " << s.iteration << "/" << o.iterations << " pairs (won " << s.won << ", even " << s.even
        << ", lost " << s.lost << "), "
        << int(std::chrono::duration<double>(Clock::now() - start).count()) << " s:";
    for (size_t i = 0; i < s.tuned.size(); ++i)
      log << ' ' << s.tuned[i]->name << '=' << std::fixed << std::setprecision(1) << s.theta[i];
    log << std::defaultfloat << std::endl;
    if (!c.out.empty()) {
      // Written whole after each report: a run stopped early leaves its latest numbers.
      const std::string tmp = c.out + ".tmp";
      std::ofstream out(tmp);
      out << format_search_params(s.params) << '\n';
      out.close();
      if (!out || std::rename(tmp.c_str(), c.out.c_str()) != 0) log << "makruk spsa: cannot write " << c.out << std::endl;
    }
  };
  SearchParams result;
  if (!run_spsa(o, [&](const SearchParams& plus, const SearchParams& minus, uint64_t pair) {
        return play_spsa_pair(o, plus, minus, pair);
      }, result, progress, &error)) {
    log << "makruk spsa: " << error << "\n";
    return 2;
  }
  std::cout << format_search_params(result) << std::endl;
  return 0;
}

}  // namespace makruk::engine
