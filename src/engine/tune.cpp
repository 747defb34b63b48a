#include "tune.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cctype>
#include <cstddef>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "default_network.h"
#include "search.h"

namespace makruk::engine {

// ---- Self-play data ----

std::string sample_line(const std::string& fen, double result, int score) {
  std::string line = fen;
  line += result > 0.75 ? ";1" : result < 0.25 ? ";0" : ";0.5";
  if (score != NO_SCORE) {
    line += ';';
    line += std::to_string(score);
  }
  return line;
}

bool parse_sample_line(const std::string& line, std::string& fen, double& result, int* score) {
  size_t semi = line.find(';');
  if (semi == std::string::npos || semi == 0) return false;
  fen = line.substr(0, semi);
  std::string rest = line.substr(semi + 1), r = rest, sc;
  if (size_t second = rest.find(';'); second != std::string::npos) {
    r = rest.substr(0, second);
    sc = rest.substr(second + 1);
  }
  auto trim = [](std::string& t) {
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
  };
  trim(r), trim(sc);
  if (r == "1") result = 1;
  else if (r == "0") result = 0;
  else if (r == "0.5") result = 0.5;
  else return false;
  if (score) *score = NO_SCORE;
  if (!sc.empty()) {
    try {
      size_t used;
      int v = std::stoi(sc, &used);
      if (used != sc.size() || std::abs(v) >= VALUE_MATE) return false;
      if (score) *score = v;
    } catch (...) {
      return false;
    }
  }
  return true;
}

bool is_quiet(const Position& pos) {
  if (pos.in_check() || pos.captured_piece() != NO_PIECE) return false;
  MoveList list;
  generate_legal(pos, list);
  for (Move m : list)
    if ((pos.piece_on(m.to()) != NO_PIECE || m.is_promotion()) && see(pos, m) > 0) return false;
  return list.size > 0;
}

double Adjudication::update(int white_score, int ply) {
  quiet_streak = std::abs(white_score) <= draw_score ? quiet_streak + 1 : 0;
  if (draw_plies > 0 && ply >= draw_after && quiet_streak >= draw_plies) return 0.5;
  const int sign = white_score >= adjudicate ? 1 : white_score <= -adjudicate ? -1 : 0;
  streak = sign != 0 && sign == streak_sign ? streak + 1 : sign != 0;
  streak_sign = sign;
  if (adjudicate > 0 && streak >= 8) return sign > 0 ? 1 : 0;
  return -1;
}

namespace {

using Clock = std::chrono::steady_clock;

// One game; returns the sampled FENs and sets `result` (White's view).
std::vector<std::pair<std::string, int>> play_game(const SelfplayOptions& o, Engine& engine,
                                                   uint64_t index, double& result) {
  std::mt19937_64 rng(o.seed * 1000003 + index);
  std::vector<std::pair<std::string, int>> samples;
  std::string error;
  const Opening* opening = o.openings.empty() ? nullptr : &o.openings[index % o.openings.size()];
  auto game = Game::create(o.variant, Counting::Automatic, opening ? opening->fen : "", &error);
  result = 0.5;
  if (!game) return samples;
  if (opening)
    for (const std::string& m : opening->moves)
      if (!game->apply(m, &error)) return samples;
  engine.new_game();
  const int start = game->plies();
  Adjudication adjudication{o.adjudicate, o.draw_after, o.draw_plies, o.draw_score};
  std::set<uint64_t> seen;
  while (!game->over() && game->plies() < o.max_plies) {
    const Position& pos = game->position();
    Move m;
    if (game->plies() - start < o.random_plies) {
      MoveList legal = game->legal_moves();
      m = legal.moves[rng() % legal.size];
    } else {
      Limits limits;
      limits.nodes = std::max<uint64_t>(100, o.nodes / 2 + rng() % (o.nodes + 1));
      SearchResult r = engine.search(pos, limits);
      m = r.best;
      const Value white = pos.side_to_move() == WHITE ? r.score : -r.score;
      if (game->plies() >= o.skip_plies && std::abs(r.score) < VALUE_MATE_IN_MAX_PLY &&
          is_quiet(pos) && seen.insert(pos.key()).second)
        samples.emplace_back(pos.fen(), white);
      if (const double end = adjudication.update(white, game->plies()); end >= 0) {
        result = end;
        return samples;
      }
    }
    if (m.is_none() || !game->play(m, &error)) break;
  }
  if (game->result() == Result::WhiteWins) result = 1;
  else if (game->result() == Result::BlackWins) result = 0;
  return samples;
}

}  // namespace

uint64_t run_selfplay(const SelfplayOptions& o, std::ostream& out, std::ostream* log) {
  std::atomic<uint64_t> next{0}, written{0}, finished{0};
  std::atomic<int> wins{0}, losses{0};
  std::mutex mutex;
  const auto start = Clock::now();
  auto worker = [&] {
    Engine engine;
    engine.set_hash(16);
    engine.set_networks(o.networks);
    for (uint64_t g; (g = next.fetch_add(1)) < uint64_t(o.games);) {
      double result;
      auto samples = play_game(o, engine, g, result);
      std::lock_guard lock(mutex);
      for (const auto& [fen, score] : samples) out << sample_line(fen, result, score) << '\n';
      out.flush();
      written += samples.size();
      if (result > 0.75) ++wins;
      else if (result < 0.25) ++losses;
      uint64_t done = ++finished;
      if (log && (done % 50 == 0 || done == uint64_t(o.games))) {
        double secs = std::chrono::duration<double>(Clock::now() - start).count();
        *log << "selfplay: " << done << " games (" << wins << " white wins, " << losses
             << " black wins), " << written << " positions, " << int(secs) << " s" << std::endl;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < o.threads; ++i) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return written;
}

// ---- Texel tuning ----

namespace {

constexpr int TEMPO_INDEX = int(offsetof(EvalParams, tempo) / sizeof(Score));
constexpr double LN10 = 2.302585092994046;

double sigmoid(double v, double k) { return 1.0 / (1.0 + std::exp(-k * LN10 * v / 400.0)); }

}  // namespace

bool read_sample_positions(std::istream& in, Variant variant, const std::function<bool()>& full,
                           const std::function<void(const Position&, double, int)>& add, std::string* error) {
  std::string line, fen;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    if (full()) break;
    double result;
    int score;
    Position pos;
    std::string why;
    if (!parse_sample_line(line, fen, result, &score) || !pos.set(fen, variant, Counting::Automatic, &why)) {
      if (error) *error = "line " + std::to_string(number) + ": expected FEN;RESULT[;SCORE] " + why;
      return false;
    }
    if (pos.pieces(PAWN)) add(pos, result, score);
  }
  return true;
}

bool load_tune_data(std::istream& in, Variant variant, size_t max_positions, TuneData& data,
                    std::string* error) {
  EvalFeatures f;
  auto full = [&] { return max_positions && data.entries.size() >= max_positions; };
  return read_sample_positions(in, variant, full, [&](const Position& pos, double result, int score) {
    evaluation_features(pos, f);
    TuneEntry e;
    e.begin = uint32_t(data.features.size());
    for (int i = 0; i < EVAL_PARAM_COUNT; ++i)
      if (f.count[i]) data.features.push_back({uint16_t(i), f.count[i]});
    e.size = uint16_t(data.features.size() - e.begin);
    e.phase = uint8_t(f.phase);
    e.stm = pos.side_to_move() == WHITE ? 1 : -1;
    e.eg_scale[0] = uint8_t(few_pawns_scale(pos, WHITE));
    e.eg_scale[1] = uint8_t(few_pawns_scale(pos, BLACK));
    e.result = e.target = float(result);
    e.has_score = score != NO_SCORE;
    e.score = e.has_score ? float(score) : 0;
    data.entries.push_back(e);
  }, error);
}

namespace {

// An entry's middlegame and endgame sums for these weights, the endgame one
// scaled as the engine does (few_pawns_scale: the side ahead in it decides).
struct EntrySums {
  double mg = 0, eg = 0, eg_factor = 1;
};

EntrySums entry_sums(const TuneData& data, const TuneEntry& e, const std::vector<double>& w) {
  EntrySums s;
  for (uint32_t i = e.begin; i < e.begin + e.size; ++i) {
    const TuneFeature& f = data.features[i];
    s.mg += w[2 * f.index] * f.count;
    s.eg += w[2 * f.index + 1] * f.count;
  }
  s.eg_factor = e.eg_scale[s.eg > 0 ? 0 : 1] / 64.0;
  s.eg *= s.eg_factor;
  return s;
}

double eval_of_sums(const TuneEntry& e, const EntrySums& s, const std::vector<double>& w) {
  const double ph = e.phase, rest = PHASE_MAX - e.phase;
  return (s.mg * ph + s.eg * rest) / PHASE_MAX +
         e.stm * (w[2 * TEMPO_INDEX] * ph + w[2 * TEMPO_INDEX + 1] * rest) / PHASE_MAX;
}

}  // namespace

double entry_eval(const TuneData& data, const TuneEntry& e, const std::vector<double>& w) {
  return eval_of_sums(e, entry_sums(data, e, w), w);
}

double tune_error(const TuneData& data, const std::vector<double>& w, double k) {
  if (data.entries.empty()) return 0;
  double sum = 0;
  for (const TuneEntry& e : data.entries) {
    double d = e.target - sigmoid(entry_eval(data, e, w), k);
    sum += d * d;
  }
  return sum / double(data.entries.size());
}

void set_targets(TuneData& data, double k, double lambda) {
  for (TuneEntry& e : data.entries)
    e.target = float(e.has_score ? lambda * e.result + (1 - lambda) * sigmoid(e.score, k) : e.result);
}

double fit_k(const TuneData& data, const std::vector<double>& w) {
  // Golden-section search: the error is unimodal in k.
  double a = 0.05, b = 4.0;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = tune_error(data, w, c), fd = tune_error(data, w, d);
  for (int i = 0; i < 40; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - g * (b - a);
      fc = tune_error(data, w, c);
    } else {
      a = c, c = d, fc = fd;
      d = a + g * (b - a);
      fd = tune_error(data, w, d);
    }
  }
  return (a + b) / 2;
}

double tune_weights(const TuneData& data, std::vector<double>& w, double k, int iterations,
                    double rate, std::ostream* log, int report, const TuneData* held,
                    double l2, bool global_step, const std::vector<bool>* frozen) {
  const size_t n = w.size();
  const std::vector<double> w0 = w;
  std::vector<double> best;
  double best_held = 0;
  int best_it = 0;
  std::vector<double> grad(n), m(n, 0.0), v(n, 0.0);
  const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  const double scale = k * LN10 / 400.0 / double(std::max<size_t>(1, data.entries.size()));
  double b1 = 1, b2 = 1;
  for (int it = 1; it <= iterations; ++it) {
    std::fill(grad.begin(), grad.end(), 0.0);
    double sum = 0;
    for (const TuneEntry& e : data.entries) {
      const EntrySums sums = entry_sums(data, e, w);
      const double s = sigmoid(eval_of_sums(e, sums, w), k);
      const double d = e.target - s;
      sum += d * d;
      const double g = -2 * d * s * (1 - s) * scale;
      const double gm = g * e.phase / PHASE_MAX, ge = g * (PHASE_MAX - e.phase) / PHASE_MAX;
      const double gs = ge * sums.eg_factor;  // the scaled features' endgame part
      for (uint32_t i = e.begin; i < e.begin + e.size; ++i) {
        const TuneFeature& f = data.features[i];
        grad[2 * f.index] += gm * f.count;
        grad[2 * f.index + 1] += gs * f.count;
      }
      grad[2 * TEMPO_INDEX] += gm * e.stm;
      grad[2 * TEMPO_INDEX + 1] += ge * e.stm;
    }
    b1 *= beta1, b2 *= beta2;
    double vmax = 0;
    for (size_t i = 0; i < n; ++i) {
      if (frozen && (*frozen)[i / 2]) grad[i] = 0;
      grad[i] += 2 * l2 * (w[i] - w0[i]);
      m[i] = beta1 * m[i] + (1 - beta1) * grad[i];
      v[i] = beta2 * v[i] + (1 - beta2) * grad[i] * grad[i];
      vmax = std::max(vmax, v[i]);
    }
    // Per weight (Adam), or one scale for all (the weight with the steepest
    // gradient moves `rate`, the others in proportion: rare terms move little).
    for (size_t i = 0; i < n; ++i)
      w[i] -= rate * (m[i] / (1 - b1)) / (std::sqrt((global_step ? vmax : v[i]) / (1 - b2)) + eps);
    if (it % report == 0 || it == iterations) {
      double h = held && !held->entries.empty() ? tune_error(*held, w, k) : 0;
      if (log) {
        *log << "iteration " << it << " error " << std::setprecision(8)
             << sum / double(std::max<size_t>(1, data.entries.size()));
        if (held) *log << ", held out " << h;
        *log << std::endl;
      }
      if (held && (best.empty() || h < best_held)) best = w, best_held = h, best_it = it;
    }
  }
  if (!best.empty() && best_it != iterations) {
    w = best;
    if (log) *log << "kept iteration " << best_it << " (lowest held-out error)" << std::endl;
  }
  return tune_error(data, w, k);
}

std::vector<double> params_to_weights(const EvalParams& p) {
  std::vector<double> w(2 * EVAL_PARAM_COUNT);
  const Score* a = param_array(p);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) w[2 * i] = a[i].mg, w[2 * i + 1] = a[i].eg;
  return w;
}

EvalParams weights_to_params(const std::vector<double>& w) {
  EvalParams p{};
  Score* a = param_array(p);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i)
    a[i] = {int(std::lround(w[2 * i])), int(std::lround(w[2 * i + 1]))};
  return p;
}

void write_params_source(const EvalParams& p, std::ostream& out, const std::string& comment) {
  const Score* a = param_array(p);
  // Eight Scores a line; a piece-square table one rank (four files) a line.
  auto scores = [&](int from, int count, int per_line, const char* indent) {
    out << indent << "{";
    for (int i = 0; i < count; ++i) {
      if (i) out << (i % per_line == 0 ? ",\n " : ", ") << (i % per_line == 0 ? indent : "");
      out << "{" << a[from + i].mg << ", " << a[from + i].eg << "}";
    }
    out << "}";
  };
  out << "// The evaluation's weights (EvalParams in evaluate.h), written by `makruk tune`.\n";
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out << "// " << line << "\n";
  out << "#include \"evaluate.h\"\n\nnamespace makruk::engine {\n\n// clang-format off\n"
      << "const EvalParams DEFAULT_EVAL_PARAMS = {\n";
  for (const ParamField& f : param_fields()) {
    out << "  // " << f.name << "\n";
    if (f.size == 1) {
      out << "  {" << a[f.offset].mg << ", " << a[f.offset].eg << "},\n";
    } else if (f.rows == 1) {
      scores(f.offset, f.size, 8, "  ");
      out << ",\n";
    } else {
      out << "  {\n";
      const int cols = f.size / f.rows;
      for (int r = 0; r < f.rows; ++r) {
        static const char* const PIECE_NAMES[PIECE_TYPE_NB] = {
            "(none)", "pawn", "met", "khon", "knight", "rook", "king", "promoted pawn"};
        scores(f.offset + r * cols, cols, 4, "    ");
        out << ",";
        if (f.rows == PIECE_TYPE_NB) out << "  // " << PIECE_NAMES[r];
        out << "\n";
      }
      out << "  },\n";
    }
  }
  out << "};\n// clang-format on\n\n}  // namespace makruk::engine\n";
}

bool read_params_source(std::istream& in, EvalParams& p, std::string* error) {
  std::string text, line;
  bool started = false;
  while (std::getline(in, line)) {
    if (size_t c = line.find("//"); c != std::string::npos) line.erase(c);
    if (!started) {
      size_t at = line.find("DEFAULT_EVAL_PARAMS");
      if (at == std::string::npos || line.find('=', at) == std::string::npos) continue;
      started = true;
      line.erase(0, line.find('=', at) + 1);
    }
    text += line + "\n";
    if (line.find("};") != std::string::npos) break;
  }
  if (!started) {
    if (error) *error = "no DEFAULT_EVAL_PARAMS definition";
    return false;
  }
  std::vector<int> numbers;
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) ||
        (text[i] == '-' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t used = 0;
      numbers.push_back(std::stoi(text.substr(i, 16), &used));
      i += used;
    } else {
      ++i;
    }
  }
  if (numbers.size() != size_t(2 * EVAL_PARAM_COUNT)) {
    if (error)
      *error = "expected " + std::to_string(2 * EVAL_PARAM_COUNT) + " numbers, found " +
               std::to_string(numbers.size());
    return false;
  }
  Score* a = param_array(p);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) a[i] = {numbers[2 * i], numbers[2 * i + 1]};
  return true;
}

}  // namespace makruk::engine

namespace makruk::engine {

int run_selfplay_command(SelfplayCommand& c, std::ostream& log) {
  if (!parse_variant(c.variant, c.options.variant)) {
    log << "makruk selfplay: unknown variant '" << c.variant << "'\n";
    return 2;
  }
  std::string error;
  if (!c.openings.empty() && !load_openings(c.openings, c.options.variant, c.options.openings, &error)) {
    log << "makruk selfplay: " << error << "\n";
    return 2;
  }
  if (!c.params.empty()) {
    std::ifstream in(c.params);
    EvalParams p;
    if (!in || !read_params_source(in, p, &error)) {
      log << "makruk selfplay: " << c.params << ": " << (in ? error : "cannot read") << "\n";
      return 2;
    }
    set_eval_params(p);
  }
  std::ofstream file;
  std::ostream* out = engine_output("makruk selfplay", c.eval_file, c.options.networks, c.out, file, log);
  if (!out) return 2;
  run_selfplay(c.options, *out, &log);
  return 0;
}

std::ostream* engine_output(const char* command, const std::string& eval_file, nnue::Networks& networks,
                            const std::string& path, std::ofstream& file, std::ostream& log) {
  std::string error;
  if (!nnue::network_by_name(eval_file, networks, &error)) {
    log << command << ": " << eval_file << ": " << error << "\n";
    return nullptr;
  }
  if (path.empty()) return &std::cout;
  file.open(path, std::ios::app);
  if (!file) {
    log << command << ": cannot write " << path << "\n";
    return nullptr;
  }
  return &file;
}

int run_tune_command(const TuneCommand& c, std::ostream& log) {
  Variant variant;
  if (!parse_variant(c.variant, variant)) {
    log << "makruk tune: unknown variant '" << c.variant << "'\n";
    return 2;
  }
  EvalParams start = eval_params();
  std::string error;
  if (!c.from.empty()) {
    std::ifstream in(c.from);
    if (!in || !read_params_source(in, start, &error)) {
      log << "makruk tune: " << c.from << ": " << (in ? error : "cannot read") << "\n";
      return 2;
    }
  }
  if (c.data.empty() && c.iterations > 0) {
    log << "makruk tune: give --data FILE (or --iterations 0 to write the table as it is)\n";
    return 2;
  }
  TuneData data;
  for (const std::string& path : c.data) {
    std::ifstream in(path);
    if (!in || !load_tune_data(in, variant, c.max_positions, data, &error)) {
      log << "makruk tune: " << path << ": " << (in ? error : "cannot read") << "\n";
      return 2;
    }
  }
  std::vector<double> w = params_to_weights(start);
  if (!data.entries.empty()) {
    // Every tenth block of 1,000 positions (whole games, mostly) is held out
    // to show over-fitting; the rest is tuned on.
    TuneData held;
    if (c.hold_out) {
      held.features = data.features;
      std::vector<TuneEntry> kept;
      for (size_t i = 0; i < data.entries.size(); ++i)
        ((i / 1000) % 10 == 9 ? held.entries : kept).push_back(data.entries[i]);
      data.entries.swap(kept);
    }
    log << "positions " << data.entries.size() << " (held out " << held.entries.size()
        << "), weights " << w.size() << std::endl;
    double k = c.k > 0 ? c.k : fit_k(data, w);
    set_targets(data, k, c.lambda);  // the held-out positions keep their results as targets
    auto report = [&](const char* what, const std::vector<double>& weights) {
      log << what << " error " << std::setprecision(8) << tune_error(data, weights, k);
      if (!held.entries.empty()) log << ", held out " << tune_error(held, weights, k);
      log << std::endl;
    };
    log << "k " << std::setprecision(6) << k << std::endl;
    report("start:", w);
    if (c.iterations > 0) {
      std::vector<bool> frozen(EVAL_PARAM_COUNT, false);
      for (const std::string& name : c.freeze) {
        bool found = false;
        for (const ParamField& f : param_fields())
          if (name == f.name) {
            found = true;
            for (int i = 0; i < f.size; ++i) frozen[size_t(f.offset + i)] = true;
          }
        if (!found) {
          log << "makruk tune: no weights named '" << name << "'\n";
          return 2;
        }
      }
      tune_weights(data, w, k, c.iterations, c.rate, &log, c.report, c.hold_out ? &held : nullptr,
                   c.l2, c.global_step, &frozen);
      report("tuned (rounded):", params_to_weights(weights_to_params(w)));
    }
  } else if (c.iterations > 0 && !c.data.empty()) {
    log << "makruk tune: no positions with pawns in the data\n";
    return 2;
  }
  if (!c.out.empty()) {
    std::ofstream out(c.out);
    std::ostringstream comment;
    comment << "makruk tune --variant " << c.variant;
    for (const std::string& d : c.data) comment << " --data " << d;
    comment << " --iterations " << c.iterations << " --rate " << c.rate;
    if (c.l2) comment << " --l2 " << c.l2;
    if (c.lambda != 1) comment << " --lambda " << c.lambda;
    if (c.global_step) comment << " --global-step";
    for (const std::string& f : c.freeze) comment << " --freeze " << f;
    if (c.max_positions) comment << " --max-positions " << c.max_positions;
    comment << "\n" << data.entries.size() << " positions";
    write_params_source(weights_to_params(w), out, comment.str());
    if (!out) {
      log << "makruk tune: cannot write " << c.out << "\n";
      return 2;
    }
    log << "wrote " << c.out << std::endl;
  }
  return 0;
}

}  // namespace makruk::engine
