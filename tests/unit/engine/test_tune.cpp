// The evaluation's weight table and the tuning tool: features reproduce the
// evaluation, the table round-trips through its source format, self-play
// output parses, labelling writes the positions of games and lines in order,
// and tuning lowers the error.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "core/game.h"
#include "core/pgn.h"
#include "engine/evaluate.h"
#include "engine/label.h"
#include "engine/search.h"
#include "engine/spsa.h"
#include "engine/tune.h"

using namespace makruk;
using namespace makruk::engine;

namespace {

// Positions from random games of both variants, pawnless endings included.
std::vector<Position> random_positions(int games, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (int g = 0; g < games; ++g) {
      std::string error;
      auto game = Game::create(v, Counting::Automatic, "", &error);
      for (int ply = 0; ply < 300 && !game->over(); ++ply) {
        MoveList legal = game->legal_moves();
        // Prefer captures now and then, so that endings are reached.
        Move m = legal.moves[rng() % legal.size];
        for (Move c : legal)
          if (game->position().piece_on(c.to()) != NO_PIECE && rng() % 2) m = c;
        game->play(m, &error);
        if (ply % 7 == 0 && !game->position().in_check()) out.push_back(game->position());
      }
    }
  return out;
}

Value eval_from_features(const Position& pos, const EvalParams& p) {
  EvalFeatures f;
  evaluation_features(pos, f);
  Score total;
  const Score* a = param_array(p);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) total += a[i] * f.count[i];
  return finish_evaluation(pos, total, f.phase, p);
}

// A table with every weight set at random, so that each term shows.
EvalParams random_params(uint64_t seed) {
  std::mt19937_64 rng(seed);
  EvalParams p = DEFAULT_EVAL_PARAMS;
  Score* a = param_array(p);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) a[i] = {int(rng() % 201) - 100, int(rng() % 201) - 100};
  return p;
}

struct ParamsGuard {
  EvalParams saved = eval_params();
  ~ParamsGuard() { set_eval_params(saved); }
};

}  // namespace

TEST(EvalParams, FieldsCoverTheTable) {
  int next = 0;
  for (const ParamField& f : param_fields()) {
    EXPECT_EQ(f.offset, next) << f.name;
    EXPECT_EQ(f.size % f.rows, 0) << f.name;
    next = f.offset + f.size;
  }
  EXPECT_EQ(next, EVAL_PARAM_COUNT);
}

TEST(EvalParams, FeaturesReproduceTheEvaluation) {
  ParamsGuard guard;
  std::vector<Position> positions = random_positions(6, 11);
  ASSERT_GT(positions.size(), 200u);
  int pawnless = 0;
  for (uint64_t seed : {0, 1, 2}) {
    EvalParams p = seed == 0 ? DEFAULT_EVAL_PARAMS : random_params(seed);
    set_eval_params(p);
    for (const Position& pos : positions) {
      ASSERT_EQ(evaluate(pos), eval_from_features(pos, p)) << pos.fen();
      pawnless += !pos.pieces(PAWN);
    }
  }
  EXPECT_GT(pawnless, 0);
}

TEST(EvalParams, EvaluationIsSymmetric) {
  // The same position with colours swapped and the board turned over scores
  // the same for the side to move.
  std::vector<Position> positions = random_positions(3, 5);
  for (const Position& pos : positions) {
    if (pos.variant() != Variant::Makruk || pos.count().running()) continue;
    std::string fen = pos.fen();
    // Turned over: ranks and files reversed, colours swapped ("M~" stays one token).
    std::string board = fen.substr(0, fen.find(' '));
    std::vector<std::string> tokens;
    for (size_t i = 0; i < board.size(); ++i) {
      char c = board[i];
      std::string t(1, std::isupper(static_cast<unsigned char>(c)) ? char(std::tolower(c))
                                                                   : char(std::toupper(c)));
      if (i + 1 < board.size() && board[i + 1] == '~') t += board[++i];
      tokens.push_back(t);
    }
    std::string turned;
    for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) turned += *it;
    std::string flipped = turned + (pos.side_to_move() == WHITE ? " b" : " w") + " - - 0 1";
    Position other;
    std::string error;
    ASSERT_TRUE(other.set(flipped, Variant::Makruk, Counting::Automatic, &error)) << flipped << error;
    if (other.count().running()) continue;
    EXPECT_EQ(evaluate(pos), evaluate(other)) << fen << " / " << flipped;
  }
}

static Value eval_of(const std::string& fen, Variant v = Variant::Makruk) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, Counting::Automatic, &error)) << fen << error;
  return evaluate(pos);
}

TEST(EvalParams, AdvantagesTheCountUsuallyDrawsAreScaledDown) {
  const EvalParams& p = DEFAULT_EVAL_PARAMS;
  // One minor piece against a piece never wins: about nothing.
  EXPECT_LE(std::abs(eval_of("8/8/3k4/8/3N4/3K1m2/8/8 w - - 0 80")), 20);
  EXPECT_LE(std::abs(eval_of("8/8/3k4/8/3S4/3K1m2/8/8 b - - 0 80")), 20);
  // A met more beside a rook each: a small plus, far below the met's worth.
  const Value rookMet = eval_of("8/8/3k4/3r4/8/3K4/3M4/R7 w - - 0 80");
  EXPECT_GT(rookMet, 0);
  EXPECT_LT(rookMet, p.piece_value[MET].eg / 2);
  // More material is still worth more: the search keeps its way to the win.
  const Value rookKhonMet = eval_of("8/8/3k4/3r4/8/3K1S2/3M4/R7 w - - 0 80");
  EXPECT_GT(rookKhonMet, rookMet + p.piece_value[KHON].eg / 4);
  // Against a bare king nothing is scaled: the mating plan's material counts whole.
  EXPECT_GT(eval_of("8/8/3k4/8/8/3K1S2/3M4/R7 w - - 0 80"), p.piece_value[ROOK].eg);
  // Ouk Chatrang the same.
  EXPECT_LT(eval_of("8/8/3k4/3r4/8/3K4/3M4/R7 w - - 0 80", Variant::Ouk), p.piece_value[MET].eg / 2);
  // A knight more with one pawn each is worth less than with four each.
  const Value onePawn = eval_of("8/3k1p2/8/8/3N4/3K1P2/8/8 w - - 0 60");
  const Value fourPawns = eval_of("8/3k1p2/p1p1p3/8/3N4/P1P1P3/3K1P2/8 w - - 0 60");
  EXPECT_GT(onePawn, 0);
  EXPECT_LT(onePawn * 4, fourPawns * 3) << onePawn << " / " << fourPawns;
}

// The index of a field's entry in the flat table.
static int param_index(const char* field, int entry) {
  for (const ParamField& f : param_fields())
    if (std::string(f.name) == field) return f.offset + entry;
  ADD_FAILURE() << "no field " << field;
  return 0;
}

// The king attack's entry (White's, by its units) in a position of the variant,
// or -1 where White has none.
static int white_king_attack(const char* fen, Variant v) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, Counting::Automatic, &error)) << error;
  EvalFeatures f;
  evaluation_features(pos, f);
  int entry = -1;
  for (int units = 0; units < 32; ++units) {
    const int n = int(f.count[param_index("king_attack", units)]);
    EXPECT_TRUE(n == 0 || (n == 1 && entry < 0)) << fen << " " << units;
    if (n) entry = units;
  }
  return entry;
}

TEST(EvalParams, OukCountsTheChecksReadyIntoTheKingAttack) {
  // The knight hits f7, next to the black king (2 units), alone: no attack in
  // Makruk. In Ouk Chatrang the rook's checks from h8 and e1, where the king does
  // not reach, add 3 units each and make it a second attacker.
  EXPECT_EQ(white_king_attack("4k3/8/8/6N1/8/8/8/K6R w - - 0 1", Variant::Makruk), -1);
  EXPECT_EQ(white_king_attack("4k3/8/8/6N1/8/8/8/K6R w - - 0 1", Variant::Ouk), 2 + 2 * 3);
  // A black rook on e2 closes the e-file: h8 is the only check left.
  EXPECT_EQ(white_king_attack("4k3/8/8/6N1/8/8/4r3/K6R w - - 0 1", Variant::Ouk), 2 + 3);
  // Next to the king a check is safe only where another piece of ours guards
  // the square: the khon's d7 and e7 with the rook on h7 (which hits the zone
  // and checks from e7 and h8), none without it.
  EXPECT_EQ(white_king_attack("4k3/7R/3S4/8/8/8/8/K7 w - - 0 1", Variant::Makruk), 3 + 2);
  EXPECT_EQ(white_king_attack("4k3/7R/3S4/8/8/8/8/K7 w - - 0 1", Variant::Ouk), 3 + 2 + 2 * 2 + 2 * 3);
  EXPECT_EQ(white_king_attack("4k3/8/3S4/8/8/8/8/K7 w - - 0 1", Variant::Ouk), -1);
}

TEST(EvalParams, SourceFormatRoundTrips) {
  EvalParams p = random_params(9);
  std::ostringstream out;
  write_params_source(p, out, "a comment with numbers 1 2 3\nand a second line");
  std::istringstream in(out.str());
  EvalParams back{};
  std::string error;
  ASSERT_TRUE(read_params_source(in, back, &error)) << error;
  const Score *a = param_array(p), *b = param_array(back);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) ASSERT_EQ(a[i], b[i]) << i;
  std::istringstream truncated(out.str().substr(0, out.str().size() / 2));
  EXPECT_FALSE(read_params_source(truncated, back, &error));
}

// The table kept beside the code (bench/tune) still fits the table's layout.
TEST(EvalParams, TheTableKeptInBenchLoads) {
  std::ifstream in(std::string(MAKRUK_TEST_DATA) + "/../../bench/tune/handset_eval_params.cpp");
  ASSERT_TRUE(in);
  EvalParams p{};
  std::string error;
  EXPECT_TRUE(read_params_source(in, p, &error)) << error;
}

TEST(EvalParams, WeightsRoundTrip) {
  EvalParams p = random_params(4);
  EvalParams back = weights_to_params(params_to_weights(p));
  const Score *a = param_array(p), *b = param_array(back);
  for (int i = 0; i < EVAL_PARAM_COUNT; ++i) ASSERT_EQ(a[i], b[i]) << i;
}

TEST(Selfplay, OutputParsesAndIsQuiet) {
  SelfplayOptions o;
  o.games = 2;
  o.nodes = 600;
  o.skip_plies = 4;
  o.max_plies = 120;
  std::ostringstream out;
  uint64_t n = run_selfplay(o, out, nullptr);
  ASSERT_GT(n, 10u);
  std::istringstream in(out.str());
  uint64_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    std::string fen;
    double result;
    ASSERT_TRUE(parse_sample_line(line, fen, result)) << line;
    Position pos;
    std::string error;
    ASSERT_TRUE(pos.set(fen, Variant::Makruk, Counting::Automatic, &error)) << fen << error;
    EXPECT_FALSE(pos.in_check()) << fen;
    EXPECT_TRUE(result == 0 || result == 0.5 || result == 1);
  }
  EXPECT_EQ(lines, n);
  std::string fen;
  double result;
  EXPECT_FALSE(parse_sample_line("no result here", fen, result));
  EXPECT_FALSE(parse_sample_line("8/8/8 w - - 0 1;2", fen, result));
}

// A finished game read back from its PGN: Black resigns after `plies` engine moves.
PgnGame engine_game(Variant v, int plies, uint64_t seed) {
  auto game = Game::create(v, Counting::Automatic, "", nullptr);
  Engine engine;
  engine.set_hash(1);
  std::mt19937_64 rng(seed);
  for (int ply = 0; ply < plies && !game->over(); ++ply) {
    Limits limits;
    limits.nodes = 200 + rng() % 200;
    const SearchResult r = engine.search(game->position(), limits);
    EXPECT_TRUE(game->play(r.best, nullptr));
  }
  if (!game->over()) {
    EXPECT_TRUE(game->apply(game->position().side_to_move() == WHITE ? "resign:w" : "resign:b", nullptr));
  }
  std::string error;
  auto g = read_pgn(write_pgn(*game, {}), v, &error);
  EXPECT_TRUE(g) << error;
  return *g;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Label, GamesGiveTheirQuietPositionsWithTheResultTheSameForAnyThreads) {
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    std::vector<PgnGame> games = {engine_game(v, 40, 1), engine_game(v, 50, 2), engine_game(v, 30, 3)};
    LabelOptions o;
    o.variant = v;
    o.nodes = 300;
    o.skip_plies = 6;
    std::ostringstream one, three;
    const LabelStats s1 = run_label(o, games, {}, one, nullptr);
    o.threads = 3;
    const LabelStats s3 = run_label(o, games, {}, three, nullptr);
    EXPECT_EQ(one.str(), three.str());
    EXPECT_EQ(s1.games, 3u);
    EXPECT_EQ(s1.written, s3.written);
    const std::vector<std::string> lines = lines_of(one.str());
    ASSERT_EQ(lines.size(), s1.written);
    ASSERT_GT(lines.size(), 30u);
    // Each line is a quiet position of its game from ply 6 on, in the games' order, with the game's result.
    size_t at = 0;
    for (size_t g = 0; g < games.size(); ++g) {
      auto game = Game::create(v, Counting::Automatic, "", nullptr);
      const double result = games[g].result == "1-0" ? 1 : 0;
      for (const std::string& move : games[g].moves) {
        if (at < lines.size() && game->plies() >= 6) {
          std::string fen;
          double r;
          int score = NO_SCORE;
          ASSERT_TRUE(parse_sample_line(lines[at], fen, r, &score)) << lines[at];
          if (fen == game->position().fen()) {
            EXPECT_TRUE(is_quiet(game->position())) << fen;
            EXPECT_EQ(r, result);
            EXPECT_LT(std::abs(score), int(VALUE_MATE_IN_MAX_PLY));
            ++at;
          }
        }
        ASSERT_TRUE(game->apply(move, nullptr));
      }
    }
    EXPECT_EQ(at, lines.size()) << "a line that is not a position of its game, or out of order";
  }
}

TEST(Label, LinesAreScoredAgainInTheirOrderTheSameForAnyThreads) {
  SelfplayOptions sp;
  sp.games = 2;
  sp.nodes = 300;
  sp.max_plies = 100;
  std::ostringstream data;
  run_selfplay(sp, data, nullptr);
  std::vector<LabelLine> lines;
  std::vector<int> old_scores;
  for (int copy = 0; copy < 4; ++copy)  // more than one block of lines
    for (const std::string& line : lines_of(data.str())) {
      LabelLine l;
      int score = NO_SCORE;
      ASSERT_TRUE(parse_sample_line(line, l.fen, l.result, &score));
      lines.push_back(l);
      old_scores.push_back(score);
    }
  ASSERT_GT(lines.size(), 300u);
  LabelOptions o;
  o.nodes = 2000;
  std::ostringstream one, two;
  const LabelStats s = run_label(o, {}, lines, one, nullptr);
  o.threads = 2;
  run_label(o, {}, lines, two, nullptr);
  EXPECT_EQ(one.str(), two.str());
  EXPECT_EQ(s.lines, lines.size());
  const std::vector<std::string> out = lines_of(one.str());
  ASSERT_EQ(out.size(), s.written);
  EXPECT_GT(out.size(), lines.size() * 9 / 10);  // only mate scores are left out
  size_t at = 0, rescored = 0;
  for (size_t i = 0; i < lines.size() && at < out.size(); ++i) {
    std::string fen;
    double r;
    int score = NO_SCORE;
    ASSERT_TRUE(parse_sample_line(out[at], fen, r, &score));
    if (fen != lines[i].fen) continue;  // left out
    EXPECT_EQ(r, lines[i].result);
    ASSERT_NE(score, NO_SCORE);
    rescored += score != old_scores[i];
    ++at;
  }
  EXPECT_EQ(at, out.size()) << "a line out of order";
  EXPECT_GT(rescored, out.size() / 4) << "a search seven times deeper should change many scores";
}

TEST(Tune, LowersTheErrorOnGeneratedData) {
  // Label random positions by a "true" evaluation that values the pieces
  // differently from the table (as the search score, with the target the
  // score's sigmoid alone); tuning must move the evaluation towards it.
  ParamsGuard guard;
  std::vector<Position> positions;
  for (const Position& pos : random_positions(8, 3))
    if (pos.variant() == Variant::Makruk) positions.push_back(pos);
  EvalParams truth = DEFAULT_EVAL_PARAMS;
  const EvalParams& d = DEFAULT_EVAL_PARAMS;
  truth.piece_value[ROOK] = d.piece_value[ROOK] - Score{400, 400};
  truth.piece_value[KHON] = d.piece_value[KHON] - Score{200, 200};
  truth.piece_value[PAWN] = d.piece_value[PAWN] + Score{60, 60};
  truth.hanging[KNIGHT] = {-150, -150};
  set_eval_params(truth);
  std::ostringstream lines;
  for (const Position& pos : positions) {
    Value v = evaluate(pos);
    lines << sample_line(pos.fen(), 0.5, pos.side_to_move() == WHITE ? v : -v) << "\n";
  }
  set_eval_params(DEFAULT_EVAL_PARAMS);
  TuneData data;
  std::istringstream in(lines.str());
  std::string error;
  ASSERT_TRUE(load_tune_data(in, Variant::Makruk, 0, data, &error)) << error;
  ASSERT_GT(data.entries.size(), 100u);
  const double k = 1.0;
  set_targets(data, k, 0.0);
  std::vector<double> w = params_to_weights(DEFAULT_EVAL_PARAMS);
  // How far the entries' evaluations are from the true ones, on average.
  const std::vector<double> wt = params_to_weights(truth);
  auto distance = [&](const std::vector<double>& weights) {
    double sum = 0;
    for (const TuneEntry& e : data.entries)
      sum += std::abs(entry_eval(data, e, weights) - entry_eval(data, e, wt));
    return sum / double(data.entries.size());
  };
  EXPECT_NEAR(tune_error(data, wt, k), 0.0, 1e-5);  // truth is a perfect fit, up to rounding
  const double before = tune_error(data, w, k), distance_before = distance(w);
  const double after = tune_weights(data, w, k, 100, 2.0, nullptr);
  EXPECT_LT(after, before * 0.5);
  EXPECT_LT(distance(w), distance_before * 0.7);

  // The targets were made with k = 1: fit_k finds it back for the true weights.
  EXPECT_NEAR(fit_k(data, wt), 1.0, 0.02);
}

TEST(Tune, EntryEvalMatchesEvaluate) {
  // Positions with pawns: the tuner's evaluation is the engine's, before rounding.
  std::vector<Position> positions = random_positions(3, 8);
  std::ostringstream lines;
  std::vector<Value> expected;
  for (const Position& pos : positions) {
    if (!pos.pieces(PAWN) || pos.variant() != Variant::Makruk) continue;
    lines << sample_line(pos.fen(), 0.5) << "\n";
    Position reread;
    reread.set(pos.fen(), pos.variant(), Counting::Automatic, nullptr);
    Value v = evaluate(reread);
    expected.push_back(pos.side_to_move() == WHITE ? v : -v);
  }
  TuneData data;
  std::istringstream in(lines.str());
  ASSERT_TRUE(load_tune_data(in, Variant::Makruk, 0, data, nullptr));
  ASSERT_EQ(data.entries.size(), expected.size());
  std::vector<double> w = params_to_weights(eval_params());
  // The engine rounds down up to three times (the scaled endgame part, the
  // taper, the tempo); the tuner does not round.
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(entry_eval(data, data.entries[i], w), expected[i], 3.0) << i;
}

// ---- SPSA over the search's numbers ----

TEST(Spsa, ClimbsTowardsTheNumbersThatWin) {
  // A stand-in for games: the side nearer to rfp_margin 180 and lmr_base 20
  // (each distance in its own steps) wins the pair, and one time in three the
  // pair goes the other way.
  auto distance = [](const SearchParams& p) { return std::abs(p.rfp_margin - 180) / 8.0 + std::abs(p.lmr_base - 20) / 6.0; };
  std::atomic<int> pairs{0};
  const PairPlayer play = [&](const SearchParams& plus, const SearchParams& minus, uint64_t pair) {
    ++pairs;
    EXPECT_EQ(plus.lmr_div, 211);  // the numbers not tuned stay where they started
    EXPECT_EQ(minus.lmr_div, 211);
    const double d = distance(minus) - distance(plus);
    const int points = d > 0 ? 2 : d < 0 ? -2 : 0;
    return pair % 3 == 2 ? -points : points;
  };
  SpsaOptions o;
  o.iterations = 600;
  o.threads = 2;
  o.r_end = 0.05;
  o.tune = {"rfp_margin", "lmr_base"};
  o.start.lmr_div = 211;
  int reports = 0, last = 0;
  SearchParams result;
  std::string error;
  ASSERT_TRUE(run_spsa(o, play, result, [&](const SpsaProgress& s) {
    ++reports;
    EXPECT_EQ(s.iteration, last + 1);
    last = s.iteration;
    EXPECT_EQ(s.won + s.even + s.lost, s.iteration);
    ASSERT_EQ(s.tuned.size(), 2u);
    EXPECT_EQ(std::string(s.tuned[0]->name), "rfp_margin");
    EXPECT_EQ(s.params.rfp_margin, int(std::lround(s.theta[0])));
  }, &error)) << error;
  EXPECT_EQ(pairs, 600);
  EXPECT_EQ(reports, 600);
  EXPECT_NEAR(result.rfp_margin, 180, 25);  // from 100
  EXPECT_NEAR(result.lmr_base, 20, 12);     // from 50
  EXPECT_EQ(result.lmr_div, 211);
  EXPECT_EQ(result.aspiration, SearchParams{}.aspiration);

  o.tune = {"rfp_margin", "no_such_number"};
  EXPECT_FALSE(run_spsa(o, play, result, {}, &error));
  EXPECT_NE(error.find("no_such_number"), std::string::npos);
}

TEST(Spsa, TheNumbersStayWithinTheirBounds) {
  // The side with the larger see_margin always wins: it climbs to its bound and stays there.
  SpsaOptions o;
  o.iterations = 300;
  o.r_end = 1;
  o.tune = {"see_margin"};
  SearchParams result;
  int highest = 0;
  ASSERT_TRUE(run_spsa(o, [&](const SearchParams& plus, const SearchParams& minus, uint64_t) {
    highest = std::max({highest, plus.see_margin, minus.see_margin});
    return plus.see_margin > minus.see_margin ? 2 : plus.see_margin < minus.see_margin ? -2 : 0;
  }, result, {}, nullptr));
  EXPECT_EQ(result.see_margin, 400);
  EXPECT_EQ(highest, 400);
}

TEST(Spsa, APairPlaysOneOpeningWithEachSideOnBothColours) {
  // Black without its rooks and knights: White wins each game, so each side
  // wins once and the pair is even (a pair that gave one side White twice,
  // or read the second game from the wrong side, would not be).
  SpsaOptions o;
  o.tc.nodes = 400;
  o.random_plies = 2;
  o.openings = {Opening{"2smks2/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", {}},
                Opening{"2smks2/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", {"e3e4"}}};
  SearchParams weaker;
  weaker.lmp_base = 1;
  weaker.rfp_margin = 20;
  for (uint64_t pair = 0; pair < 4; ++pair) {
    EXPECT_EQ(play_spsa_pair(o, SearchParams{}, weaker, pair), 0);
    EXPECT_EQ(play_spsa_pair(o, weaker, SearchParams{}, pair), 0);
  }
  // Ouk Chatrang as well, and a clock instead of nodes.
  o.variant = Variant::Ouk;
  o.openings.clear();
  o.tc = {};
  o.tc.base_ms = 400;
  o.tc.inc_ms = 4;
  o.max_plies = 60;
  const int points = play_spsa_pair(o, SearchParams{}, SearchParams{}, 9);
  EXPECT_GE(points, -2);
  EXPECT_LE(points, 2);
}
