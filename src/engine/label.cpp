#include "label.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/game.h"
#include "raw_bytes.h"
#include "search.h"
#include "tune.h"

namespace makruk::engine {

namespace {

constexpr size_t LINES_PER_BLOCK = 256;

// The score of a search from White's side, or nothing for a mate score.
std::optional<int> white_score(Engine& engine, const Position& pos, uint64_t nodes) {
  Limits limits;
  limits.nodes = nodes;
  const SearchResult r = engine.search(pos, limits);
  if (r.best.is_none() || std::abs(r.score) >= VALUE_MATE_IN_MAX_PLY) return std::nullopt;
  return pos.side_to_move() == WHITE ? r.score : -r.score;
}

double result_of(const std::string& pgn_result) {
  return pgn_result == "1-0" ? 1 : pgn_result == "0-1" ? 0 : 0.5;
}

std::string label_game(const LabelOptions& o, Engine& engine, const PgnGame& g, uint64_t& written) {
  std::ostringstream out;
  auto game = Game::create(g.variant, Counting::Automatic, g.fen, nullptr);
  if (!game) return {};
  const double result = result_of(g.result);
  std::set<uint64_t> seen;
  for (const std::string& move : g.moves) {
    if (game->over()) break;
    const Position& pos = game->position();
    if (game->plies() >= o.skip_plies && is_quiet(pos) && seen.insert(pos.key()).second)
      if (auto score = white_score(engine, pos, o.nodes)) {
        out << sample_line(pos.fen(), result, *score) << '\n';
        ++written;
      }
    if (!game->apply(move, nullptr)) break;
  }
  return out.str();
}

std::string label_lines(const LabelOptions& o, Engine& engine, const std::vector<LabelLine>& lines,
                        size_t from, size_t to, uint64_t& written) {
  std::ostringstream out;
  for (size_t i = from; i < to; ++i) {
    Position pos;
    if (!pos.set(lines[i].fen, o.variant, Counting::Automatic, nullptr)) continue;  // checked when read
    if (auto score = white_score(engine, pos, o.nodes)) {
      out << sample_line(lines[i].fen, lines[i].result, *score) << '\n';
      ++written;
    }
  }
  return out.str();
}

}  // namespace

LabelStats run_label(const LabelOptions& o, const std::vector<PgnGame>& games,
                     const std::vector<LabelLine>& lines, std::ostream& out, std::ostream* log) {
  const size_t blocks = (lines.size() + LINES_PER_BLOCK - 1) / LINES_PER_BLOCK;
  const size_t items = games.size() + blocks;
  std::vector<std::optional<std::string>> done(items);
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t flushed = 0, finished = 0;
  LabelStats stats;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    Engine engine;
    engine.set_hash(16);
    engine.set_networks(o.networks);
    for (size_t i; (i = next.fetch_add(1)) < items;) {
      engine.new_game();  // each item from the same start, whichever thread takes it
      uint64_t written = 0;
      const bool game = i < games.size();
      const size_t from = game ? 0 : (i - games.size()) * LINES_PER_BLOCK;
      const size_t to = game ? 0 : std::min(lines.size(), from + LINES_PER_BLOCK);
      std::string text =
          game ? label_game(o, engine, games[i], written) : label_lines(o, engine, lines, from, to, written);
      std::lock_guard lock(mutex);
      done[i] = std::move(text);
      stats.written += written;
      stats.games += game;
      stats.lines += to - from;
      for (; flushed < items && done[flushed]; ++flushed) {
        out << *done[flushed];
        done[flushed] = std::string();  // written: keep only that it was
      }
      out.flush();
      if (log && ++finished % 50 == 0) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        *log << "label: " << stats.games << "/" << games.size() << " games, " << stats.lines << "/"
             << lines.size() << " lines, " << stats.written << " positions written, " << int(secs) << " s"
             << std::endl;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < o.threads; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (log)
    *log << "label: " << stats.games << " games, " << stats.lines << " lines; " << stats.written
         << " positions written" << std::endl;
  return stats;
}

int run_label_command(LabelCommand& c, std::ostream& log) {
  if (!parse_variant(c.variant, c.options.variant)) {
    log << "makruk label: unknown variant '" << c.variant << "'\n";
    return 2;
  }
  if (c.pgn.empty() && c.positions.empty()) {
    log << "makruk label: give --pgn FILE or --positions FILE\n";
    return 2;
  }
  std::vector<PgnGame> games;
  size_t other_variant = 0, no_result = 0;
  for (const std::string& path : c.pgn) {
    std::string text;
    if (!read_file(path, text)) {
      log << "makruk label: cannot read " << path << "\n";
      return 2;
    }
    size_t number = 0;
    for (std::string_view game_text : split_pgn_games(text)) {
      ++number;
      std::string error;
      auto g = read_pgn(game_text, c.options.variant, &error);
      if (!g) {
        log << "makruk label: " << path << ": game " << number << ": " << error << "\n";
        return 2;
      }
      if (g->variant != c.options.variant) ++other_variant;
      else if (g->result != "1-0" && g->result != "0-1" && g->result != "1/2-1/2") ++no_result;
      else games.push_back(std::move(*g));
    }
  }
  std::vector<LabelLine> lines;
  for (const std::string& path : c.positions) {
    std::ifstream in(path);
    if (!in) {
      log << "makruk label: cannot read " << path << "\n";
      return 2;
    }
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
      if (line.empty() || line[0] == '#') continue;
      LabelLine l;
      Position pos;
      std::string why;
      if (!parse_sample_line(line, l.fen, l.result) ||
          !pos.set(l.fen, c.options.variant, Counting::Automatic, &why)) {
        log << "makruk label: " << path << ": line " << number << ": expected FEN;RESULT[;SCORE] " << why << "\n";
        return 2;
      }
      lines.push_back(std::move(l));
    }
  }
  if (other_variant || no_result)
    log << "makruk label: skipped " << other_variant << " games of another variant and " << no_result
        << " without a result\n";
  std::ofstream file;
  std::ostream* out = engine_output("makruk label", c.eval_file, c.options.networks, c.out, file, log);
  if (!out) return 2;
  run_label(c.options, games, lines, *out, &log);
  return 0;
}

}  // namespace makruk::engine
